//! Impact and review over real git repositories built here, commit by commit: a body change, a
//! signature change, a deleted function still called, a renamed file, an added test, a
//! comment-only edit, uncommitted (WORKTREE) and staged (STAGED) edits. A same-named decoy in
//! another module must never be impacted. And the files form with its gate.

use std::fs;
use std::path::Path;

use codegraph_core::Session;
use serde_json::{json, Value};

use crate::expected::{git, open};

fn write(dir: &Path, path: &str, text: &str) {
    let file = dir.join(path);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(file, text).unwrap();
}

fn commit(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", message]);
}

const UTIL: &str = "\
export function helper(x: number) {
  return x + 1;
}

export function format(s: string) {
  return s.trim();
}

export function gone() {
  return 0;
}
";

/// The base commit: util.ts used by main.ts (and through it by a test), a decoy `helper` in
/// other.ts used by its own caller, a file to be renamed and its importer.
fn base_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "src/util.ts", UTIL);
    write(
        d,
        "src/main.ts",
        "import { helper, format, gone } from './util';\n\nexport function run() {\n  return helper(1) + gone();\n}\n\nexport function show() {\n  return format(' a ');\n}\n",
    );
    write(d, "src/other.ts", "export function helper(x: number) {\n  return x * 2;\n}\n");
    write(
        d,
        "src/twice.ts",
        "import { helper } from './other';\n\nexport function twice() {\n  return helper(2);\n}\n",
    );
    write(d, "src/legacy.ts", "export function legacy() {\n  return 1;\n}\n");
    write(d, "src/app.ts", "import { legacy } from './legacy';\n\nexport function start() {\n  return legacy();\n}\n");
    write(d, "tests/main.test.ts", "import { run } from '../src/main';\n\nrun();\n");
    git(d, &["init", "-q"]);
    commit(d, "base");
    dir
}

fn impact(s: &mut Session, req: Value) -> Value {
    s.call("impact", req).unwrap_or_else(|e| panic!("impact: {e}"))
}

fn changed(r: &Value) -> Vec<(String, String)> {
    r["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["handle"].as_str().unwrap().to_string(), c["change"].as_str().unwrap().to_string()))
        .collect()
}

fn handles(list: &Value, key: &str) -> Vec<String> {
    list.as_array().unwrap().iter().map(|e| e[key].as_str().unwrap().to_string()).collect()
}

fn last_commit(s: &mut Session) -> Value {
    impact(s, json!({ "base": "HEAD~1", "head": "HEAD" }))
}

#[test]
fn impact_of_each_kind_of_commit() {
    let dir = base_repo();
    let d = dir.path();

    // A body change: the callers are impacted, the decoy `helper`'s caller is not.
    write(d, "src/util.ts", &UTIL.replace("x + 1", "x + 2"));
    commit(d, "body");
    let mut s = open(d.to_path_buf());
    let r = impact(&mut s, json!({ "base": "HEAD~1", "head": "HEAD", "depth": 2 }));
    assert_eq!(changed(&r), [("src/util.ts::helper".to_string(), "modifiedBody".to_string())]);
    let impacted: Vec<(String, u64)> = r["impacted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["handle"].as_str().unwrap().into(), i["depth"].as_u64().unwrap()))
        .collect();
    assert_eq!(impacted, [("src/main.ts::run".to_string(), 1), ("tests/main.test.ts".to_string(), 2)], "{r:#}");
    assert!(!r.to_string().contains("twice"), "a same-named decoy is never impacted: {r:#}");
    assert_eq!(r["impacted"][0]["sites"], json!([{ "path": "src/main.ts", "line": 4, "column": 10 }]));
    assert_eq!(handles(&r["impactedFiles"], "path"), ["src/main.ts", "tests/main.test.ts"]);
    assert_eq!(r["candidateTests"][0]["path"], "tests/main.test.ts");
    assert_eq!((r["gate"].clone(), r["complete"].clone()), (Value::Null, json!(true)));

    // A signature change: review points at the caller outside the change.
    write(
        d,
        "src/util.ts",
        &UTIL.replace("x + 1", "x + 2").replace("format(s: string)", "format(s: string, pad: number)"),
    );
    commit(d, "signature");
    let mut s = open(d.to_path_buf());
    let r = last_commit(&mut s);
    assert_eq!(changed(&r), [("src/util.ts::format".to_string(), "modifiedSignature".to_string())]);
    assert_eq!(r["changed"][0]["oldSignature"], "function format(s: string) {");
    let review = s.call("review", json!({ "base": "HEAD~1", "head": "HEAD" })).unwrap();
    let codes = handles(&review["riskSummary"]["reasons"], "code");
    assert!(
        codes.contains(&"signatureWithCallers".to_string()) && codes.contains(&"publicApi".to_string()),
        "{review:#}"
    );
    assert!(codes.contains(&"untested".to_string()), "no test reaches `show`: {review:#}");
    let task = &review["reviewTasks"][0];
    assert_eq!(task["targets"], json!(["src/util.ts::format"]), "{review:#}");
    assert_eq!(task["sites"], json!([{ "path": "src/main.ts", "line": 8, "column": 10 }]));
    assert_eq!(review["riskSummary"]["level"], "medium", "{review:#}");

    // A deleted function still called: a break, at the import and at the call.
    let without_gone = UTIL.replace("x + 1", "x + 2").replace("format(s: string)", "format(s: string, pad: number)");
    let without_gone = without_gone.replace("\nexport function gone() {\n  return 0;\n}\n", "");
    write(d, "src/util.ts", &without_gone);
    commit(d, "delete");
    let mut s = open(d.to_path_buf());
    let r = last_commit(&mut s);
    assert_eq!(changed(&r), [("src/util.ts::gone".to_string(), "removed".to_string())]);
    let broken: Vec<&Value> =
        r["diagnostics"].as_array().unwrap().iter().filter(|d| d["kind"] == "removedStillReferenced").collect();
    assert_eq!(broken.len(), 1, "{r:#}");
    assert_eq!(
        broken[0]["sites"],
        json!([{ "path": "src/main.ts", "line": 1, "column": 26 }, { "path": "src/main.ts", "line": 4, "column": 22 }])
    );
    let review = s.call("review", json!({ "base": "HEAD~1" })).unwrap();
    assert_eq!(review["riskSummary"]["reasons"][0]["code"], "removedStillReferenced");
    assert_eq!(review["riskSummary"]["level"], "high");

    // A renamed file: its declarations moved (their handles changed); the old importer breaks.
    git(d, &["mv", "src/legacy.ts", "src/renamed.ts"]);
    commit(d, "rename");
    let mut s = open(d.to_path_buf());
    let r = last_commit(&mut s);
    assert_eq!(r["changedFiles"][0]["status"], "renamed");
    assert_eq!(r["changedFiles"][0]["oldPath"], "src/legacy.ts");
    assert_eq!(changed(&r), [("src/renamed.ts::legacy".to_string(), "moved".to_string())]);
    assert_eq!(r["changed"][0]["oldHandle"], "src/legacy.ts::legacy");
    let broken = &r["diagnostics"][0];
    assert_eq!(
        (broken["kind"].as_str(), broken["handle"].as_str()),
        (Some("removedStillReferenced"), Some("src/legacy.ts::legacy"))
    );
    assert_eq!(
        broken["sites"],
        json!([{ "path": "src/app.ts", "line": 1, "column": 10 }, { "path": "src/app.ts", "line": 4, "column": 10 }]),
        "{r:#}"
    );

    // An added test: a new file, its top-level code no declaration.
    write(d, "tests/util.test.ts", "import { helper } from '../src/util';\n\nhelper(3);\n");
    commit(d, "test");
    let mut s = open(d.to_path_buf());
    let r = last_commit(&mut s);
    assert_eq!(
        r["changedFiles"],
        json!([{ "path": "tests/util.test.ts", "status": "added", "language": "typescript", "changedSymbols": 0 }])
    );
    assert_eq!(changed(&r), Vec::<(String, String)>::new());

    // Comments only: the file changed, no declaration did.
    write(
        d,
        "src/util.ts",
        &without_gone
            .replace("export function helper", "// adds two\nexport function helper")
            .replace("return x + 2;", "return x + 2; // two"),
    );
    commit(d, "comments");
    let mut s = open(d.to_path_buf());
    let r = last_commit(&mut s);
    assert_eq!(r["changedFiles"][0]["changedSymbols"], 0, "{r:#}");
    assert_eq!(changed(&r), Vec::<(String, String)>::new());
    assert_eq!(r["impacted"], json!([]));
    let review = s.call("review", json!({ "base": "HEAD~1", "head": "HEAD" })).unwrap();
    assert_eq!(
        (review["riskSummary"]["level"].as_str(), review["riskSummary"]["score"].as_f64()),
        (Some("low"), Some(0.0))
    );

    // Uncommitted and staged edits.
    write(
        d,
        "src/main.ts",
        &fs::read_to_string(d.join("src/main.ts")).unwrap().replace("format(' a ')", "format(' b ', 1)"),
    );
    let mut s = open(d.to_path_buf());
    let worktree = impact(&mut s, json!({ "base": "HEAD" }));
    assert_eq!(worktree["range"], json!({ "base": "HEAD", "head": "WORKTREE" }));
    assert_eq!(changed(&worktree), [("src/main.ts::show".to_string(), "modifiedBody".to_string())]);
    assert_eq!(changed(&impact(&mut s, json!({ "base": "HEAD", "head": "STAGED" }))), Vec::<(String, String)>::new());
    git(d, &["add", "src/main.ts"]);
    assert_eq!(changed(&impact(&mut s, json!({ "base": "HEAD", "head": "STAGED" })))[0].0, "src/main.ts::show");
    assert_eq!(
        changed(&impact(&mut s, json!({ "base": "STAGED", "head": "WORKTREE" }))),
        Vec::<(String, String)>::new()
    );
    // A committed range while the tree has edits says so.
    let r = last_commit(&mut s);
    assert!(r["diagnostics"].as_array().unwrap().iter().any(|d| d["kind"] == "worktreeDiffers"), "{r:#}");
}

/// Commits `files`, then the text of one of them with `removed` taken out, and gives the impact
/// of that last commit, checking that it removed `handle` and nothing else changed, and the sites
/// of its one `removedStillReferenced` diagnostic.
fn removal(files: &[(&str, &str)], (path, removed): (&str, &str), handle: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (p, text) in files {
        write(d, p, text);
    }
    git(d, &["init", "-q"]);
    commit(d, "base");
    let text = files.iter().find(|(p, _)| *p == path).expect("a file of the commit").1;
    write(d, path, &text.replace(removed, ""));
    commit(d, "remove");
    let r = last_commit(&mut open(d.to_path_buf()));
    assert_eq!(changed(&r), [(handle.to_string(), "removed".to_string())]);
    let broken: Vec<&Value> =
        r["diagnostics"].as_array().unwrap().iter().filter(|d| d["kind"] == "removedStillReferenced").collect();
    assert_eq!(broken.len(), 1, "{r:#}");
    broken[0]["sites"].clone()
}

#[test]
fn a_removed_method_breaks_where_its_type_is_seen_not_every_call_of_its_name() {
    let cart = "class Cart:\n    def total(self):\n        return 1\n\n    def count(self):\n        return 2\n";
    let pay = "from shop.cart import Cart\n\n\ndef pay(c: Cart):\n    return c.total()\n\n\ndef pay_any(x):\n    return x.total()\n";
    let files = [
        ("shop/__init__.py", ""),
        ("shop/cart.py", cart),
        ("shop/pay.py", pay),
        // A file that cannot see Cart calls a `total` of its own values.
        ("books/report.py", "def summary(r):\n    return r.total()\n"),
    ];
    let removed = ("shop/cart.py", "    def total(self):\n        return 1\n\n");
    assert_eq!(
        removal(&files, removed, "shop/cart.py::Cart::total"),
        json!([{ "path": "shop/pay.py", "line": 5, "column": 14 }, { "path": "shop/pay.py", "line": 9, "column": 14 }])
    );
}

#[test]
fn a_removed_function_still_called_along_a_path_through_its_module_breaks_there() {
    let util = "pub fn helper() -> u32 {\n    1\n}\n\npub fn other() -> u32 {\n    2\n}\n";
    let lib = "mod b;\nmod c;\nmod util;\n\npub fn run() -> u32 {\n    crate::util::helper() + util::other()\n}\n";
    let files = [
        ("Cargo.toml", "[package]\nname = \"paths\"\n"),
        ("src/util.rs", util),
        ("src/lib.rs", lib),
        // A module that names util only along paths, and one whose own `helper` is no use of it.
        ("src/b.rs", "pub fn go() -> u32 {\n    crate::util::helper() + 1\n}\n\nfn helper() -> u32 {\n    3\n}\n"),
        // A value's field named like the module: no path through it.
        ("src/c.rs", "pub fn field(x: &crate::Wrap) -> u32 {\n    x.util.helper()\n}\n"),
    ];
    let removed = ("src/util.rs", "pub fn helper() -> u32 {\n    1\n}\n\n");
    assert_eq!(
        removal(&files, removed, "src/util.rs::helper"),
        json!([{ "path": "src/b.rs", "line": 2, "column": 18 }, { "path": "src/lib.rs", "line": 6, "column": 18 }])
    );
}

#[test]
fn the_files_form_counts_dependents_and_gates_on_them() {
    let dir = base_repo();
    let mut s = open(dir.path().to_path_buf());
    let r = impact(&mut s, json!({ "files": ["src/util.ts", "src/other.ts"] }));
    let targets: Vec<(String, u64)> = r["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["target"].as_str().unwrap().into(), t["dependent_count"].as_u64().unwrap()))
        .collect();
    assert_eq!(targets, [("src/other.ts".to_string(), 1), ("src/util.ts".to_string(), 1)]);
    assert_eq!(r["gate"], Value::Null);
    let deep = impact(&mut s, json!({ "files": ["src/util.ts"], "depth": 2, "fail_on": 2 }));
    assert_eq!(deep["targets"][0]["dependent_count"], 2);
    assert_eq!(
        deep["gate"],
        json!({ "fail_on": 2, "crossed": true, "exit_code": 2, "violations": [{ "target": "src/util.ts", "dependent_count": 2 }] })
    );
    let held = impact(&mut s, json!({ "files": ["src/util.ts"], "depth": 2, "fail_on": 3 }));
    assert_eq!(held["gate"], json!({ "fail_on": 3, "crossed": false, "exit_code": 0, "violations": [] }));
    // Focus narrows the answer (and so the count), not the walk: the test is two hops away.
    let focused = impact(&mut s, json!({ "files": ["src/util.ts"], "depth": 2, "focus": ["tests"], "fail_on": 2 }));
    assert_eq!(focused["targets"][0]["dependents"], json!([{ "path": "tests/main.test.ts", "distance": 2 }]));
    assert_eq!(focused["gate"]["crossed"], false);
}

#[test]
fn bad_ranges_and_requests_are_clear_errors() {
    let dir = base_repo();
    let mut s = open(dir.path().to_path_buf());
    let err = |s: &mut Session, req: Value| {
        let e = s.call("impact", req).unwrap_err();
        (e.code().to_string(), e.to_string())
    };
    for hostile in ["--output=/tmp/x", "-p", "HEAD;rm -rf /", "a b"] {
        let (code, msg) = err(&mut s, json!({ "base": hostile }));
        assert_eq!(code, "INVALID_ARGUMENT", "{hostile}: {msg}");
    }
    let (code, msg) = err(&mut s, json!({ "base": "no-such-branch" }));
    assert_eq!(code, "INVALID_ARGUMENT");
    assert!(msg.contains("not a commit"), "{msg}");
    assert_eq!(err(&mut s, json!({ "base": "HEAD", "depth": 6 })).0, "INVALID_ARGUMENT");
    assert_eq!(err(&mut s, json!({ "base": "HEAD", "files": ["src/util.ts"] })).0, "INVALID_ARGUMENT");
    assert_eq!(err(&mut s, json!({})).0, "INVALID_ARGUMENT");
    assert_eq!(err(&mut s, json!({ "base": "WORKTREE" })).0, "INVALID_ARGUMENT");
    assert_eq!(err(&mut s, json!({ "files": ["nope.ts"] })).0, "NOT_FOUND");
    assert_eq!(err(&mut s, json!({ "base": "HEAD", "format": "huge" })).0, "INVALID_ARGUMENT");
    assert_eq!(
        s.call("review", json!({ "base": "HEAD", "reviewDepth": "endless" })).unwrap_err().code(),
        "INVALID_ARGUMENT"
    );

    // A folder without git.
    let plain = tempfile::tempdir().unwrap();
    write(plain.path(), "a.ts", "export const a = 1;\n");
    let mut s = open(plain.path().to_path_buf());
    let (code, msg) = err(&mut s, json!({ "base": "HEAD" }));
    assert_eq!(code, "INVALID_ARGUMENT");
    assert!(msg.contains("not inside a git repository"), "{msg}");
}
