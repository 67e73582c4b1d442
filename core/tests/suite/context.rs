//! Context packs: the budget is never exceeded (counted with the documented estimate on exactly the
//! text returned), compressed files parse back in their language, profiles come from
//! `.codegraph/config`, and a diff spec puts changed files first (a real git repository).

use std::fs;

use codegraph_core::lang::Language;
use codegraph_core::{estimate_tokens, Session};
use serde_json::{json, Value};

use crate::expected::{copy_tree, fixture_root, git, open};

fn pack(s: &mut Session, request: Value) -> Value {
    s.call("context", request.clone()).unwrap_or_else(|e| panic!("context {request}: {e}"))
}

/// The tokens of what the answer returns, counted the way the answer says it counts.
fn counted(answer: &Value) -> u64 {
    match answer["markdown"].as_str() {
        Some(text) => estimate_tokens(text),
        None => estimate_tokens(&serde_json::to_string(&answer["entries"]).unwrap()),
    }
}

#[test]
fn the_budget_is_never_exceeded() {
    let mut s = open(fixture_root());
    let mut packed_something = 0;
    for budget in [256u64, 300, 512, 777, 1000, 2000, 4096, 10_000, 128_000] {
        for compress in ["none", "signatures", "skeleton"] {
            for format in ["json", "markdown"] {
                for focus_symbol in [json!([]), json!(["Order", "slugify", "Circle"])] {
                    let r = pack(
                        &mut s,
                        json!({ "budget": budget, "compress": compress, "format": format, "focusSymbol": focus_symbol }),
                    );
                    let used = r["usedTokens"].as_u64().unwrap();
                    assert_eq!(used, counted(&r), "usedTokens is the count of what is returned");
                    assert!(used <= budget, "{used} > {budget} ({compress}, {format})");
                    packed_something += usize::from(!r["entries"].as_array().unwrap().is_empty());
                    let skipped = r["omitted"]["byLimit"]["budget"].as_u64().unwrap_or(0);
                    if budget == 128_000 {
                        assert_eq!(skipped, 0, "everything fits in 128k");
                    }
                }
            }
        }
    }
    assert!(packed_something > 80, "small budgets still pack what fits ({packed_something})");
    // Skeletons are smaller than whole files, signatures smaller still.
    let size = |s: &mut Session, c: &str| pack(s, json!({ "compress": c }))["usedTokens"].as_u64().unwrap();
    let (none, skeleton, signatures) = (size(&mut s, "none"), size(&mut s, "skeleton"), size(&mut s, "signatures"));
    assert!(signatures < skeleton && skeleton < none, "{signatures} < {skeleton} < {none}");
}

#[test]
fn budgets_accept_numbers_and_k_m_strings() {
    let mut s = open(fixture_root());
    for (budget, tokens) in
        [(json!("32k"), 32_000), (json!("1.5M"), 1_500_000), (json!(" 20000 "), 20_000), (json!(300), 300)]
    {
        assert_eq!(pack(&mut s, json!({ "budget": budget }))["budget"], tokens);
    }
    assert_eq!(pack(&mut s, json!({}))["budget"], 128_000);
    for bad in [json!("lots"), json!("-5k"), json!(10), json!("3m"), json!("nank")] {
        let err = s.call("context", json!({ "budget": bad })).unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT", "{bad}");
    }
    for bad in [json!({ "compress": "zip" }), json!({ "format": "xml" }), json!({ "focus": ["nowhere"] })] {
        assert!(s.call("context", bad.clone()).is_err(), "{bad}");
    }
}

/// Whether `src` parses without syntax errors in `language`.
fn parses(language: Language, src: &str) -> bool {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&language.grammar()).unwrap();
    let tree = parser.parse(src, None).unwrap();
    !tree.root_node().has_error()
}

#[test]
fn compressed_files_parse_back() {
    let mut s = open(fixture_root());
    let mut checked = 0;
    for compress in ["signatures", "skeleton"] {
        let r = pack(&mut s, json!({ "compress": compress }));
        for e in r["entries"].as_array().unwrap() {
            let path = e["path"].as_str().unwrap();
            let language = Language::from_path(path).unwrap();
            let content = e["content"].as_str().unwrap();
            assert_eq!(e["compress"], compress);
            assert!(parses(language, content), "{compress} of {path} does not parse:\n{content}");
            let original = fs::read_to_string(fixture_root().join(path)).unwrap();
            assert!(content.len() <= original.len(), "{path} grew");
            checked += 1;
        }
    }
    assert!(checked >= 80, "{checked}");
    // Bodies are gone, declarations stay.
    let r =
        pack(&mut s, json!({ "compress": "signatures", "focus": ["py/shop/models.py", "rust/src/shapes/circle.rs"] }));
    let all: String = r["entries"].as_array().unwrap().iter().map(|e| e["content"].as_str().unwrap()).collect();
    assert!(all.contains("def total(self):") && !all.contains("return self.subtotal()"), "{all}");
    assert!(all.contains("fn area(&self) -> f64 { /* … */ }") && !all.contains("PI *"), "{all}");
}

#[test]
fn focus_symbol_packs_declarations_and_markdown_fences_them() {
    let mut s = open(fixture_root());
    let r = pack(&mut s, json!({ "focusSymbol": ["slugify"], "format": "markdown" }));
    let entries = r["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["handle"], "py/shop/util/text.py::slugify");
    let md = r["markdown"].as_str().unwrap();
    assert!(md.contains("## py/shop/util/text.py::slugify (lines 6-8)\n```python\ndef slugify(title):"), "{md}");
    assert!(entries[0].get("content").is_none(), "markdown keeps the text in one place");
    assert_eq!(s.call("context", json!({ "focusSymbol": ["nope"] })).unwrap_err().code(), "NOT_FOUND");
}

#[test]
fn profiles_come_from_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture_root(), dir.path());
    fs::create_dir_all(dir.path().join(".codegraph")).unwrap();
    fs::write(
        dir.path().join(".codegraph/config"),
        "[profiles.py.context]\nbudget = \"2k\"\nfocus = [\"py\"]\ncompress = \"skeleton\"\n\n[profiles.md.context]\nformat = \"markdown\"\nbudget = 4000\n",
    )
    .unwrap();
    let mut s = open(dir.path().to_path_buf());
    let list = pack(&mut s, json!({ "listProfiles": true }));
    assert_eq!(list["profiles"][0]["name"], "md");
    assert_eq!(list["profiles"][1], json!({ "name": "py", "budget": "2k", "focus": ["py"], "compress": "skeleton" }));
    let py = pack(&mut s, json!({ "profile": "py" }));
    assert_eq!((py["budget"].as_u64(), py["compress"].as_str()), (Some(2000), Some("skeleton")));
    assert!(py["entries"].as_array().unwrap().iter().all(|e| e["path"].as_str().unwrap().starts_with("py/")));
    // The request overrides the profile.
    let over = pack(&mut s, json!({ "profile": "py", "compress": "none", "budget": 3000 }));
    assert_eq!((over["budget"].as_u64(), over["compress"].as_str()), (Some(3000), Some("none")));
    assert!(pack(&mut s, json!({ "profile": "md" }))["markdown"].is_string());
    assert_eq!(s.call("context", json!({ "profile": "nope" })).unwrap_err().code(), "NOT_FOUND");

    fs::write(dir.path().join(".codegraph/config"), "[profiles.x.context]\nbudgte = 5\n").unwrap();
    let err = s.call("context", json!({ "profile": "x" })).unwrap_err();
    assert!(err.to_string().contains("unknown key `budgte`"), "{err}");
    fs::write(dir.path().join(".codegraph/config"), "[profiles.x.context\n").unwrap();
    assert_eq!(s.call("context", json!({ "listProfiles": true })).unwrap_err().code(), "INVALID_ARGUMENT");
}

#[test]
fn a_diff_puts_changed_files_first() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture_root(), dir.path());
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "base"]);
    fs::write(
        dir.path().join("go/money/util.go"),
        fs::read_to_string(dir.path().join("go/money/util.go")).unwrap() + "\n// unstaged\n",
    )
    .unwrap();
    fs::write(
        dir.path().join("ts/src/util.ts"),
        fs::read_to_string(dir.path().join("ts/src/util.ts")).unwrap() + "\n// staged\n",
    )
    .unwrap();
    git(dir.path(), &["add", "ts/src/util.ts"]);
    fs::write(dir.path().join("py/shop/extra.py"), "def extra():\n    return 1\n").unwrap();

    let mut s = open(dir.path().to_path_buf());
    let first = |r: &Value, n: usize| -> Vec<String> {
        let e = r["entries"].as_array().unwrap();
        assert!(
            e.iter().take(n).all(|e| e["reason"] == "diff") && e.iter().skip(n).all(|e| e["reason"] != "diff"),
            "{r}"
        );
        let mut paths: Vec<String> = e.iter().take(n).map(|e| e["path"].as_str().unwrap().to_string()).collect();
        paths.sort();
        paths
    };
    let wt = pack(&mut s, json!({ "diff": "working-tree" }));
    assert_eq!(first(&wt, 3), ["go/money/util.go", "py/shop/extra.py", "ts/src/util.ts"]);
    assert_eq!(wt["diff"], json!({ "spec": "working-tree", "changed": 3, "indexed": 3 }));
    assert_eq!(first(&pack(&mut s, json!({ "diff": "staged" })), 1), ["ts/src/util.ts"]);
    assert_eq!(first(&pack(&mut s, json!({ "diff": "unstaged" })), 1), ["go/money/util.go"]);
    git(dir.path(), &["commit", "-qam", "next"]);
    assert_eq!(first(&pack(&mut s, json!({ "diff": "HEAD~1" })), 2), ["go/money/util.go", "ts/src/util.ts"]);

    for hostile in ["--output=/tmp/x", "-p", "main; rm -rf /", "a b"] {
        let err = s.call("context", json!({ "diff": hostile })).unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT", "{hostile}");
    }
    assert_eq!(s.call("context", json!({ "diff": "no-such-ref" })).unwrap_err().code(), "INVALID_ARGUMENT");
    let plain = tempfile::tempdir().unwrap();
    fs::write(plain.path().join("a.py"), "x = 1\n").unwrap();
    let err = open(plain.path().to_path_buf()).call("context", json!({ "diff": "staged" })).unwrap_err();
    assert_eq!(err.code(), "INVALID_ARGUMENT", "{err}");
}

#[test]
fn a_file_gone_since_indexing_is_reported_not_counted_as_over_budget() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture_root(), dir.path());
    let mut s = open(dir.path().to_path_buf());
    s.call("orient", json!({})).unwrap();
    fs::remove_file(dir.path().join("go/money/util.go")).unwrap();
    let r = pack(&mut s, json!({}));
    assert_eq!(r["omitted"], json!({ "other": { "unreadableFiles": 1 } }), "{}", r["omitted"]);
    assert!(r["entries"].as_array().unwrap().iter().all(|e| e["path"] != "go/money/util.go"));
}
