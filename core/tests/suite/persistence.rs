//! The persistent snapshot: a warm start answers exactly like a cold index and reads no unchanged
//! file; edits, additions, deletions and renames (random, seeded) give the answers of a cold index of
//! the new tree; a damaged snapshot is rejected with a note and rebuilt; `.codegraph/` is ignored by
//! discovery and carries its own .gitignore.

use std::fs;
use std::path::Path;

use codegraph_core::{DiscoveryOptions, Session, StdHost};
use serde_json::{json, Value};

use crate::expected::{copy_tree, fixture_root};

fn open(root: &Path, persist: bool) -> Session {
    Session::open(Box::new(StdHost::new(root)), DiscoveryOptions { persist, ..Default::default() }).unwrap()
}

/// Everything the index answers about the tree, as one JSON value (freshness left out).
fn fingerprint(s: &mut Session) -> Value {
    let mut out = serde_json::Map::new();
    let mut orient = s.call("orient", json!({ "limit": 50 })).unwrap();
    orient.as_object_mut().unwrap().remove("freshness");
    out.insert("orient".into(), orient);
    let status = s.call("status", json!({})).unwrap();
    let symbols = s.call("workspaceSymbols", json!({ "query": "e", "limit": 500 })).unwrap();
    for sym in symbols["symbols"].as_array().unwrap() {
        let h = sym["handle"].as_str().unwrap();
        for method in ["refs", "callers", "callees"] {
            let mut a = s.call(method, json!({ "handle": h })).unwrap();
            a.as_object_mut().unwrap().remove("freshness");
            out.insert(format!("{method} {h}"), a);
        }
        // goto from every use site (the per-file reference lists).
        let refs = out[&format!("refs {h}")]["refs"].as_array().unwrap().clone();
        for site in refs {
            for req in [
                json!({ "file": site["path"], "line": site["line"], "column": site["column"] }),
                json!({ "file": site["path"], "line": site["line"] }),
            ] {
                let mut a = s.call("goto", req.clone()).unwrap();
                a.as_object_mut().unwrap().remove("freshness");
                out.insert(format!("goto {req}"), a);
            }
        }
    }
    // Ranked search over the lexical index, which a warm session updates in place after an edit.
    for query in ["order total with discount", "slugify", "circle area radius", "cart", "format amount"] {
        for method in ["search", "explore"] {
            let mut a = s.call(method, json!({ "query": query, "limit": 30 })).unwrap();
            a.as_object_mut().unwrap().remove("freshness");
            out.insert(format!("{method} {query}"), a);
        }
    }
    out.insert("skipped".into(), status["skipped"].clone());
    Value::Object(out)
}

fn snapshot_state(s: &mut Session) -> Value {
    s.call("status", json!({})).unwrap()["snapshot"].clone()
}

#[test]
fn warm_start_reads_nothing_and_answers_like_cold() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture_root(), dir.path());
    let mut first = open(dir.path(), true);
    let cold = fingerprint(&mut first);
    let state = snapshot_state(&mut first);
    assert_eq!(state["state"], "absent");
    assert_eq!(state["written"], true);
    assert_eq!(state["graphReused"], false);
    assert!(dir.path().join(".codegraph/index.bin").exists());
    // Everything in .codegraph/ stays out of commits but its config and custom SQL tools.
    let ignore = fs::read_to_string(dir.path().join(".codegraph/.gitignore")).unwrap();
    assert_eq!(ignore.lines().filter(|l| !l.starts_with('#')).collect::<Vec<_>>(), ["*", "!config", "!tools.yaml"]);

    let mut warm = open(dir.path(), true);
    assert_eq!(fingerprint(&mut warm), cold);
    let state = snapshot_state(&mut warm);
    assert_eq!(state["state"], "loaded");
    assert_eq!(state["readFiles"], 0);
    assert_eq!(state["graphReused"], true, "nothing changed: the stored graph is used, not re-resolved");
    assert_eq!(state["reusedFiles"], 41);
    assert_eq!(state["written"], false, "nothing changed, nothing rewritten");
    // The snapshot folder is never indexed.
    let files: Value = warm.call("status", json!({})).unwrap()["files"].clone();
    assert_eq!(files, 41);
}

/// A small seeded generator (xorshift), so the random edits are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn source_files(root: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().is_some_and(|n| n == ".codegraph") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if ["ts", "py", "rs", "go", "java", "js", "tsx"]
                .iter()
                .any(|x| p.extension().is_some_and(|e| e == *x))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn random_edits_answer_like_a_cold_index_of_the_new_tree() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture_root(), dir.path());
    let mut warm = open(dir.path(), true);
    fingerprint(&mut warm);
    let mut rng = Rng(0x5eed_c0de);
    for step in 0..8 {
        let files = source_files(dir.path());
        let pick = &files[rng.next(files.len())];
        match rng.next(4) {
            0 => {
                // Edit: append a declaration that calls an existing name, with a size change.
                let ext = pick.extension().unwrap().to_string_lossy().into_owned();
                let extra = match ext.as_str() {
                    "py" => format!("\n\ndef added_{step}():\n    return added_{step}()\n"),
                    "rs" => format!("\npub fn added_{step}() {{ added_{step}() }}\n"),
                    "go" => format!("\nfunc Added{step}() {{ Added{step}() }}\n"),
                    "java" => format!("\n// edited {step}\n"),
                    _ => format!("\nexport function added{step}() {{ return added{step}(); }}\n"),
                };
                let mut text = fs::read_to_string(pick).unwrap();
                text.push_str(&extra);
                fs::write(pick, text).unwrap();
            }
            1 => fs::remove_file(pick).unwrap(),
            2 => {
                let renamed =
                    pick.with_file_name(format!("renamed{step}_{}", pick.file_name().unwrap().to_string_lossy()));
                fs::rename(pick, renamed).unwrap();
            }
            _ => {
                let new = pick.with_file_name(format!("new{step}.py"));
                fs::write(new, format!("from shop.models import Order\n\n\ndef made_{step}():\n    return Order(1)\n"))
                    .unwrap();
            }
        }
        // In-process refresh, and a new persisted session (warm start from the updated snapshot),
        // both answer like a cold, non-persisted index of the new tree.
        let refreshed: Value = warm.call("refresh", json!({ "force": true })).unwrap();
        assert_eq!(refreshed["rebuilt"], true);
        let expected = fingerprint(&mut open(dir.path(), false));
        assert_eq!(fingerprint(&mut warm), expected, "step {step}: in-process refresh");
        let mut started = open(dir.path(), true);
        assert_eq!(fingerprint(&mut started), expected, "step {step}: warm start");
        assert_eq!(snapshot_state(&mut started)["graphReused"], true, "step {step}: the refresh stored its graph");
    }
}

/// Inserts a blank line, duplicates a line or deletes one, in a random source file. Blank lines move
/// every position below them and keep the interface (the in-place path); duplicated and deleted lines
/// change bodies, or declarations (then a full build). Returns the file.
fn random_line_edit(root: &Path, rng: &mut Rng) -> std::path::PathBuf {
    let files = source_files(root);
    let pick = files[rng.next(files.len())].clone();
    let text = fs::read_to_string(&pick).unwrap();
    let mut lines: Vec<&str> = text.split('\n').collect();
    let at = rng.next(lines.len());
    match rng.next(4) {
        0 | 1 => lines.insert(at, ""),
        2 => lines.insert(at, lines[at]),
        _ => {
            lines.remove(at);
        }
    }
    fs::write(&pick, lines.join("\n")).unwrap();
    pick
}

#[test]
fn warm_starts_after_edits_update_the_stored_graph_and_answer_like_cold() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture_root(), dir.path());
    fingerprint(&mut open(dir.path(), true));
    let mut rng = Rng(0x57a7_ed17);
    let mut updated = 0;
    for step in 0..12 {
        let pick = random_line_edit(dir.path(), &mut rng);
        let mut started = open(dir.path(), true);
        let expected = fingerprint(&mut open(dir.path(), false));
        assert_eq!(fingerprint(&mut started), expected, "step {step}: {}", pick.display());
        let state = snapshot_state(&mut started);
        assert_eq!(state["readFiles"], 1, "step {step}");
        updated += usize::from(state["graphReused"] == true);
    }
    assert!(updated >= 4, "only {updated} of 12 warm starts updated the stored graph in place");
}

#[test]
fn body_edits_refresh_in_place_and_answer_like_a_cold_index() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture_root(), dir.path());
    let mut warm = open(dir.path(), false);
    fingerprint(&mut warm);
    let mut rng = Rng(0xb0d1_ed17);
    let mut in_place = 0;
    for step in 0..30 {
        let pick = random_line_edit(dir.path(), &mut rng);
        let refreshed: Value = warm.call("refresh", json!({})).unwrap();
        assert_eq!(refreshed["rebuilt"], true, "step {step}: {refreshed}");
        in_place += usize::from(refreshed["incremental"] == true);
        let expected = fingerprint(&mut open(dir.path(), false));
        assert_eq!(fingerprint(&mut warm), expected, "step {step}: {} ({refreshed})", pick.display());
    }
    assert!(in_place >= 10, "only {in_place} of 30 refreshes were in place");
    // A config file changes how imports resolve: noticed, and a full build.
    let tsconfig = dir.path().join("ts/tsconfig.json");
    let text = fs::read_to_string(&tsconfig).unwrap();
    fs::write(&tsconfig, format!("{text}\n")).unwrap();
    let refreshed: Value = warm.call("refresh", json!({})).unwrap();
    assert_eq!((refreshed["rebuilt"].clone(), refreshed["incremental"].clone()), (json!(true), json!(false)));
    assert_eq!(fingerprint(&mut warm), fingerprint(&mut open(dir.path(), false)));
}

#[test]
fn damaged_snapshots_are_rejected_and_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture_root(), dir.path());
    let cold = fingerprint(&mut open(dir.path(), true));
    let path = dir.path().join(".codegraph/index.bin");
    let good = fs::read(&path).unwrap();
    let mut flipped = good.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    let mut old_version = good.clone();
    old_version[8] = 0;
    for (what, bytes) in [
        ("truncated", good[..good.len() / 3].to_vec()),
        ("flipped", flipped),
        ("old version", old_version),
        ("empty", Vec::new()),
    ] {
        fs::write(&path, &bytes).unwrap();
        let mut s = open(dir.path(), true);
        assert_eq!(fingerprint(&mut s), cold, "{what}: answers are still right");
        let state = snapshot_state(&mut s);
        assert_eq!(state["state"], "rejected", "{what}");
        assert!(state["note"].as_str().unwrap().contains("rebuilt"), "{what}: {state}");
        assert_eq!(state["written"], true, "{what}: the snapshot is rewritten");
        assert_eq!(fs::read(&path).unwrap().len(), good.len(), "{what}");
    }
}

#[test]
fn the_lexical_index_is_kept_beside_the_snapshot_and_trusted_only_for_the_same_files() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixture_root(), dir.path());
    let text_bin = dir.path().join(".codegraph/text.bin");
    let ask = |s: &mut Session| {
        let mut out = Vec::new();
        for query in ["order total with discount", "slugify", "turn a product title into a web address"] {
            let mut a = s.call("explore", json!({ "query": query })).unwrap();
            a.as_object_mut().unwrap().remove("freshness");
            out.push(a);
        }
        out
    };
    let cold = ask(&mut open(dir.path(), false));
    assert!(!text_bin.exists(), "a session that doesn't persist writes nothing");
    assert_eq!(ask(&mut open(dir.path(), true)), cold);
    assert!(text_bin.exists(), "written after the first search");
    let stored = fs::read(&text_bin).unwrap();
    let written = fs::metadata(&text_bin).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(ask(&mut open(dir.path(), true)), cold, "read back");
    assert_eq!(fs::metadata(&text_bin).unwrap().modified().unwrap(), written, "a matching index is read, not rebuilt");

    // Damaged: ignored and replaced.
    fs::write(&text_bin, b"CGTEXT\0\0garbage").unwrap();
    assert_eq!(ask(&mut open(dir.path(), true)), cold);
    assert_eq!(fs::read(&text_bin).unwrap(), stored);

    // Built from other files: not trusted, rebuilt for the new ones.
    let util = dir.path().join("go/money/util.go");
    fs::write(&util, fs::read_to_string(&util).unwrap() + "\n// Discount applies a discount to an order total.\n")
        .unwrap();
    let changed = ask(&mut open(dir.path(), false));
    assert_ne!(changed, cold);
    assert_eq!(ask(&mut open(dir.path(), true)), changed);
    assert_ne!(fs::read(&text_bin).unwrap(), stored);
}

#[test]
fn an_edited_invocation_of_the_repositorys_macro_rebuilds_and_of_another_refreshes_in_place() {
    // What `new` names in `checks!(super, new)` is read in the template, another file's code: an
    // edit of that invocation changes answers elsewhere; `format!`'s arguments are a body's.
    let dir = tempfile::tempdir().unwrap();
    let lib = "#[macro_use]\nmod checks;\n\npub mod fast {\n    pub struct Finder;\n    pub struct Other;\n    impl Finder {\n        pub fn new() -> Option<Finder> { Some(Finder) }\n        pub fn other() -> Option<Other> { None }\n        pub fn done(&self) -> bool { true }\n    }\n    impl Other {\n        pub fn done(&self) -> bool { false }\n    }\n    pub mod checks {\n        checks!(super, new);\n    }\n}\n\npub fn show(a: u32, b: u32) -> String {\n    format!(\"{} {}\", a, b)\n}\n";
    let checks = "macro_rules! checks {\n    ($m:ident, $cons:ident) => {\n        pub fn check() -> bool { $m::Finder::$cons().unwrap().done() }\n    };\n}\n";
    fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"m\"\n").unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/lib.rs"), lib).unwrap();
    fs::write(dir.path().join("src/checks.rs"), checks).unwrap();
    let sites = |s: &mut Session, handle: &str| -> Vec<String> {
        let refs = s.call("refs", json!({ "handle": handle })).unwrap();
        refs["refs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| format!("{}:{}:{}", r["path"], r["line"], r["column"]))
            .collect()
    };
    let mut warm = open(dir.path(), false);
    assert_eq!(sites(&mut warm, "src/lib.rs::fast::Finder::new"), ["\"src/lib.rs\":16:24"]);
    assert_eq!(sites(&mut warm, "src/lib.rs::fast::Finder::done"), ["\"src/checks.rs\":3:63"]);
    fs::write(dir.path().join("src/lib.rs"), lib.replace("a, b)", "b, a)")).unwrap();
    let refreshed: Value = warm.call("refresh", json!({})).unwrap();
    assert_eq!(refreshed["incremental"], true, "{refreshed}");
    fs::write(dir.path().join("src/lib.rs"), lib.replace("checks!(super, new)", "checks!(super, other)")).unwrap();
    let refreshed: Value = warm.call("refresh", json!({})).unwrap();
    assert_eq!(refreshed["incremental"], false, "{refreshed}");
    assert_eq!(sites(&mut warm, "src/lib.rs::fast::Finder::other"), ["\"src/lib.rs\":16:24"]);
    // The template, in a file not edited, now calls the other type's `done`.
    assert_eq!(sites(&mut warm, "src/lib.rs::fast::Other::done"), ["\"src/checks.rs\":3:63"]);
    assert_eq!(fingerprint(&mut warm), fingerprint(&mut open(dir.path(), false)));
}
