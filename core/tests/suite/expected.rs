//! Every entry of tests/fixtures/polyglot/expected.json and of each language fixture's
//! (tests/fixtures/lang-*/expected.json), checked by hand, must be what the core answers. All
//! mismatches are reported together.

use std::path::PathBuf;

use codegraph_core::{OpenOptions, Session, StdHost};
use serde_json::{json, Value};

pub fn fixture_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/polyglot")
}

/// Copies a tree (without its `.codegraph/`), for tests that change files.
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == ".codegraph" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs git in `dir` with a fixed identity, failing the test when git fails.
pub fn git(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

pub fn open(root: PathBuf) -> Session {
    Session::open(Box::new(StdHost::new(root)), OpenOptions::default()).expect("session opens")
}

fn call(s: &mut Session, method: &str, req: Value) -> Result<Value, String> {
    s.call(method, req).map_err(|e| format!("{}: {e}", e.code()))
}

fn site_string(v: &Value) -> String {
    format!("{}:{}:{}", v["path"].as_str().unwrap_or("?"), v["line"], v["column"])
}

fn parse_pos(s: &str) -> (String, u32, Option<u32>) {
    let mut parts = s.rsplitn(3, ':');
    let c = parts.next().and_then(|p| p.parse().ok());
    let l = parts.next().and_then(|p| p.parse().ok()).expect("line");
    (parts.next().expect("path").to_string(), l, c)
}

#[test]
fn polyglot_fixture_matches_hand_checked_answers() {
    let (checked, failures) = check_fixture(fixture_root());
    assert!(checked > 300, "expected.json should hold the full answer set, found {checked} entries");
    assert!(
        failures.is_empty(),
        "{} of {checked} hand-checked answers differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The language fixtures: one small project per language, with same-named decoys.
pub const LANGUAGE_FIXTURES: [&str; 9] =
    ["lang-c", "lang-cpp", "lang-csharp", "lang-sql", "lang-php", "lang-ruby", "lang-zig", "lang-kotlin", "lang-swift"];

pub fn language_fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(name)
}

#[test]
fn language_fixtures_match_hand_checked_answers() {
    let mut report = Vec::new();
    for name in LANGUAGE_FIXTURES {
        let (checked, failures) = check_fixture(language_fixture(name));
        assert!(checked >= 25, "{name}: expected.json should hold the full answer set, found {checked} entries");
        if !failures.is_empty() {
            report.push(format!("{name}: {} of {checked} differ:\n{}", failures.len(), failures.join("\n")));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// Asks every question of `root`'s expected.json; returns how many were asked and what differed.
/// A `goto` entry's `to` is one definition or the list of all of them.
fn check_fixture(root: PathBuf) -> (usize, Vec<String>) {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("expected.json")).expect("expected.json"))
            .expect("json");
    let mut s = open(root);
    let mut failures: Vec<String> = Vec::new();
    let mut checked = 0;

    for sym in expected["symbols"].as_array().expect("symbols") {
        checked += 1;
        let handle = sym["handle"].as_str().expect("handle");
        match call(&mut s, "getSymbol", json!({ "handle": handle })) {
            Err(e) => failures.push(format!("symbol {handle}: {e}")),
            Ok(r) => {
                let got = &r["symbol"];
                if got["kind"] != sym["kind"] || got["line"] != sym["line"] {
                    failures.push(format!(
                        "symbol {handle}: kind/line {} {} (expected {} {})",
                        got["kind"], got["line"], sym["kind"], sym["line"]
                    ));
                }
                if let Some(exp) = sym.get("exported") {
                    if &got["exported"] != exp {
                        failures.push(format!("symbol {handle}: exported {} (expected {exp})", got["exported"]));
                    }
                }
            }
        }
    }

    for g in expected["goto"].as_array().expect("goto") {
        checked += 1;
        let (file, line, column) = parse_pos(g["from"].as_str().expect("from"));
        let want: Vec<String> = match &g["to"] {
            Value::Array(all) => all.iter().map(|v| v.as_str().expect("to").to_string()).collect(),
            one => vec![one.as_str().expect("to").to_string()],
        };
        match call(&mut s, "goto", json!({ "file": file, "line": line, "column": column })) {
            Err(e) => failures.push(format!("goto {}: {e}", g["from"])),
            Ok(r) => {
                let got: Vec<String> = r["definitions"]
                    .as_array()
                    .expect("defs")
                    .iter()
                    .map(|d| format!("{}:{}", d["path"].as_str().unwrap_or(""), d["line"]))
                    .collect();
                if got != want {
                    failures.push(format!("goto {}: {got:?} (expected {want:?})", g["from"]));
                }
            }
        }
    }

    for r in expected["refs"].as_array().expect("refs") {
        checked += 1;
        let handle = r["target"].as_str().expect("target");
        let want: Vec<String> =
            r["sites"].as_array().expect("sites").iter().map(|v| v.as_str().expect("site").to_string()).collect();
        match call(&mut s, "refs", json!({ "handle": handle })) {
            Err(e) => failures.push(format!("refs {handle}: {e}")),
            Ok(v) => {
                let got: Vec<String> = v["refs"].as_array().expect("refs").iter().map(site_string).collect();
                if got != want {
                    failures.push(format!("refs {handle}:\n    got      {got:?}\n    expected {want:?}"));
                }
            }
        }
    }

    for (section, key, method) in [("callers", "target", "callers"), ("callees", "source", "callees")] {
        for c in expected[section].as_array().expect(section) {
            checked += 1;
            let handle = c[key].as_str().expect("handle");
            let want: Vec<(String, Vec<String>)> = c[section]
                .as_array()
                .expect("groups")
                .iter()
                .map(|g| {
                    (
                        g["symbol"].as_str().expect("symbol").to_string(),
                        g["callsites"]
                            .as_array()
                            .expect("callsites")
                            .iter()
                            .map(|s| s.as_str().expect("s").to_string())
                            .collect(),
                    )
                })
                .collect();
            match call(&mut s, method, json!({ "handle": handle })) {
                Err(e) => failures.push(format!("{method} {handle}: {e}")),
                Ok(v) => {
                    let mut got: Vec<(String, Vec<String>)> = v["groups"]
                        .as_array()
                        .expect("groups")
                        .iter()
                        .map(|g| {
                            (
                                g["handle"].as_str().expect("h").to_string(),
                                g["callsites"].as_array().expect("c").iter().map(site_string).collect(),
                            )
                        })
                        .collect();
                    got.sort();
                    let mut want = want.clone();
                    want.sort();
                    if got != want {
                        failures.push(format!("{method} {handle}:\n    got      {got:?}\n    expected {want:?}"));
                    }
                }
            }
        }
    }

    for (section, key, method) in [("deps", "deps", "deps"), ("rdeps", "rdeps", "rdeps")] {
        for d in expected[section].as_array().expect(section) {
            checked += 1;
            let file = d["file"].as_str().expect("file");
            let want: Vec<String> =
                d[key].as_array().expect("list").iter().map(|v| v.as_str().expect("p").to_string()).collect();
            match call(&mut s, method, json!({ "file": file })) {
                Err(e) => failures.push(format!("{method} {file}: {e}")),
                Ok(v) => {
                    let got: Vec<String> = v["files"]
                        .as_array()
                        .expect("files")
                        .iter()
                        .map(|v| v.as_str().expect("p").to_string())
                        .collect();
                    if got != want {
                        failures.push(format!("{method} {file}:\n    got      {got:?}\n    expected {want:?}"));
                    }
                }
            }
        }
    }

    for p in expected["path"].as_array().into_iter().flatten() {
        checked += 1;
        match call(&mut s, "path", json!({ "from": p["from"], "to": p["to"] })) {
            Err(e) => failures.push(format!("path {} → {}: {e}", p["from"], p["to"])),
            Ok(v) => {
                if v["path"] != p["path"] {
                    failures.push(format!("path {} → {}: {} (expected {})", p["from"], p["to"], v["path"], p["path"]));
                }
            }
        }
    }

    (checked, failures)
}
