//! Types of locals worked out through method chains: `let h = rt.handle().clone();` is a `Handle`
//! (declared return type, then `Clone::clone` returning `Self`), so `h.spawn()` is a proven call of
//! `Handle::spawn` — and a `clone` the repository declares itself is followed instead.

use std::fs;

use codegraph_core::{DiscoveryOptions, Session, StdHost};
use serde_json::{json, Value};

fn sites(s: &mut Session, handle: &str) -> Vec<(String, u64)> {
    let refs: Value = s.call("refs", json!({ "handle": handle })).unwrap();
    refs["refs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "call")
        .map(|r| (r["enclosing"].as_str().unwrap_or("").to_string(), r["line"].as_u64().unwrap()))
        .collect()
}

#[test]
fn locals_typed_through_method_chains_and_clone() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"rt\"\nversion = \"0.1.0\"\n").unwrap();
    fs::write(
        dir.path().join("src/lib.rs"),
        r"pub struct Runtime;
#[derive(Clone)]
pub struct Handle;
pub struct Other;

impl Runtime {
    pub fn handle(&self) -> &Handle { &Handle }
}

impl Handle {
    pub fn spawn(&self) {}
}

impl Other {
    pub fn clone(&self) -> Runtime { Runtime }
    pub fn spawn(&self) {}
}

pub fn run(rt: Runtime, other: Other) {
    let h = rt.handle().clone();
    h.spawn();
    rt.handle().clone().spawn();
    let again = h.clone();
    again.spawn();
    let declared = other.clone();
    declared.handle();
    other.clone().spawn();
}
",
    )
    .unwrap();
    let mut s = Session::open(Box::new(StdHost::new(dir.path())), DiscoveryOptions::default()).unwrap();
    assert_eq!(
        sites(&mut s, "src/lib.rs::Handle::spawn"),
        vec![("src/lib.rs::run".into(), 21), ("src/lib.rs::run".into(), 22), ("src/lib.rs::run".into(), 24)]
    );
    // Other::clone is declared: it is what `other.clone()` calls, and it returns a Runtime.
    assert_eq!(
        sites(&mut s, "src/lib.rs::Other::clone"),
        vec![("src/lib.rs::run".into(), 25), ("src/lib.rs::run".into(), 27)]
    );
    assert_eq!(sites(&mut s, "src/lib.rs::Runtime::handle").len(), 3, "lines 20, 22 and 26");
    assert_eq!(sites(&mut s, "src/lib.rs::Other::spawn"), Vec::<(String, u64)>::new(), "a Runtime has no spawn");
}

fn inference_root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/inference")
}

fn position(at: &str) -> (String, u64, u64) {
    let mut parts = at.rsplitn(3, ':');
    let col = parts.next().unwrap().parse().unwrap();
    let line = parts.next().unwrap().parse().unwrap();
    (parts.next().unwrap().to_string(), line, col)
}

/// Every rule of tests/fixtures/inference/expected.json (checked by hand): goto at a position finds
/// exactly the expected declarations (none where the receiver's type is not proven), and refs of a
/// declaration are exactly the expected sites. All mismatches are reported together.
#[test]
fn member_types_follow_the_hand_checked_rules() {
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(inference_root().join("expected.json")).unwrap()).unwrap();
    let mut s = Session::open(Box::new(StdHost::new(inference_root())), DiscoveryOptions::default()).unwrap();
    let mut failures = Vec::new();
    for case in expected["goto"].as_array().unwrap() {
        let (file, line, column) = position(case["at"].as_str().unwrap());
        let got: Vec<String> = match s.call("goto", json!({ "file": file, "line": line, "column": column })) {
            Ok(r) => {
                r["definitions"].as_array().unwrap().iter().map(|d| d["handle"].as_str().unwrap().to_string()).collect()
            }
            Err(e) => vec![format!("error: {e}")],
        };
        let want: Vec<String> =
            case["expect"].as_array().unwrap().iter().map(|h| h.as_str().unwrap().to_string()).collect();
        if got != want {
            failures.push(format!("{} at {}: got {got:?}, expected {want:?}", case["rule"], case["at"]));
        }
    }
    for case in expected["refs"].as_array().unwrap() {
        let r: Value = s.call("refs", json!({ "handle": case["handle"] })).unwrap();
        let got: Vec<String> = r["refs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let site = format!("{}:{}:{}", r["path"].as_str().unwrap(), r["line"], r["column"]);
                if r["alias"] == true {
                    format!("{site} alias")
                } else {
                    site
                }
            })
            .collect();
        let want: Vec<String> =
            case["sites"].as_array().unwrap().iter().map(|h| h.as_str().unwrap().to_string()).collect();
        if got != want {
            failures.push(format!("{} ({}): got {got:?}, expected {want:?}", case["rule"], case["handle"]));
        }
    }
    assert!(failures.is_empty(), "{} of the inference rules fail:\n{}", failures.len(), failures.join("\n"));
}

/// refs and goto agree: goto at every site refs reports for a declaration finds that declaration,
/// for every declaration of both fixture trees.
#[test]
fn goto_at_every_reported_reference_finds_the_declaration() {
    for root in [inference_root(), crate::expected::fixture_root()] {
        let mut s = Session::open(Box::new(StdHost::new(&root)), DiscoveryOptions::default()).unwrap();
        // Every declaration: the symbols named by any identifier written in the tree.
        let mut handles = std::collections::BTreeSet::new();
        for name in identifiers(&root) {
            let found: Value = s.call("workspaceSymbols", json!({ "query": name, "limit": 500 })).unwrap();
            for sym in found["symbols"].as_array().unwrap().iter().filter(|x| x["name"] == name.as_str()) {
                handles.insert(sym["handle"].as_str().unwrap().to_string());
            }
        }
        let mut checked = 0;
        for handle in &handles {
            let handle = handle.as_str();
            let refs: Value = s.call("refs", json!({ "handle": handle, "limit": 2000 })).unwrap();
            for site in refs["refs"].as_array().unwrap() {
                let goto: Value = s
                    .call("goto", json!({ "file": site["path"], "line": site["line"], "column": site["column"] }))
                    .unwrap();
                let found = goto["definitions"].as_array().unwrap().iter().any(|d| d["handle"] == handle);
                assert!(found, "{}: goto at {site} gives {}", handle, goto["definitions"]);
                checked += 1;
            }
        }
        assert!(checked > 20, "{}: only {checked} sites checked", root.display());
    }
}

/// The distinct identifiers written in the source files under `root`.
fn identifiers(root: &std::path::Path) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = fs::read_to_string(&path) {
                for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                    if word.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') {
                        out.insert(word.to_string());
                    }
                }
            }
        }
    }
    out
}
