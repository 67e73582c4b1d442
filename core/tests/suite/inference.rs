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
