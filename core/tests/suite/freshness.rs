//! Change detection: a small change set refreshes the index (and the next answer says so once), a
//! large one reports `stale` with counts and a bounded sample, deletions count as changes.

use std::fs;

use codegraph_core::{DiscoveryOptions, Session, StdHost};
use serde_json::{json, Value};

#[test]
fn small_changes_refresh_and_large_ones_are_stale() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a.py"), "def alpha():\n    return 1\n").unwrap();
    fs::write(root.join("b.py"), "from a import alpha\n\nalpha()\n").unwrap();
    let mut s = Session::open(Box::new(StdHost::new(root)), DiscoveryOptions::default()).unwrap();
    let first: Value = s.call("refresh", json!({})).unwrap();
    assert_eq!(first["freshness"]["state"], "fresh");
    assert_eq!(s.call("refresh", json!({})).unwrap()["rebuilt"], false);

    // One edited file: refreshed, and the answer reflects the edit.
    fs::write(root.join("a.py"), "def alpha():\n    return 1\n\n\ndef beta():\n    return alpha()\n").unwrap();
    let r: Value = s.call("refresh", json!({})).unwrap();
    assert_eq!(r["freshness"]["state"], "refreshed");
    assert_eq!(r["freshness"]["changedFileCount"], 1);
    assert_eq!(r["freshness"]["changedFiles"], json!(["a.py"]));
    let callers: Value = s.call("callers", json!({ "handle": "a.py::alpha" })).unwrap();
    assert_eq!(callers["freshness"]["state"], "refreshed");
    let handles: Vec<&str> =
        callers["groups"].as_array().unwrap().iter().map(|g| g["handle"].as_str().unwrap()).collect();
    assert_eq!(handles, vec!["a.py::beta", "b.py"]);
    // Reported once; the next answer is fresh again.
    let again: Value = s.call("callers", json!({ "handle": "a.py::alpha" })).unwrap();
    assert_eq!(again["freshness"]["state"], "fresh");

    // More files than the limit: stale, with counts and a bounded sample; answers say stale too.
    for i in 0..30 {
        fs::write(root.join(format!("n{i:02}.py")), format!("def f{i}():\n    pass\n")).unwrap();
    }
    let r: Value = s.call("refresh", json!({ "maxFiles": 10 })).unwrap();
    assert_eq!(r["freshness"]["state"], "stale");
    assert_eq!(r["freshness"]["changedFileCount"], 30);
    assert_eq!(r["freshness"]["omittedChangedFileCount"], 5);
    assert_eq!(r["freshness"]["changedFiles"].as_array().unwrap().len(), 25);
    let symbols: Value = s.call("workspaceSymbols", json!({ "query": "f1" })).unwrap();
    assert_eq!(symbols["freshness"]["state"], "stale");
    assert_eq!(symbols["total"], 0, "the stale index does not know the new files yet");

    // force rebuilds anyway.
    let r: Value = s.call("refresh", json!({ "force": true, "maxFiles": 10 })).unwrap();
    assert_eq!(r["freshness"]["state"], "refreshed");
    let symbols: Value = s.call("workspaceSymbols", json!({ "query": "f1" })).unwrap();
    assert!(symbols["total"].as_u64().unwrap() >= 1);

    // A deletion is a change.
    fs::remove_file(root.join("b.py")).unwrap();
    let r: Value = s.call("refresh", json!({})).unwrap();
    assert_eq!(r["freshness"]["changedFiles"], json!(["b.py"]));
    let callers: Value = s.call("callers", json!({ "handle": "a.py::alpha" })).unwrap();
    let handles: Vec<&str> =
        callers["groups"].as_array().unwrap().iter().map(|g| g["handle"].as_str().unwrap()).collect();
    assert_eq!(handles, vec!["a.py::beta"]);
}

#[test]
fn get_file_is_live_and_fresh_unless_graph_context_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
    let mut s = Session::open(Box::new(StdHost::new(dir.path())), DiscoveryOptions::default()).unwrap();
    s.call("status", json!({})).unwrap();
    for i in 0..60 {
        fs::write(dir.path().join(format!("m{i}.py")), "y = 2\n").unwrap();
    }
    s.call("refresh", json!({})).unwrap();
    fs::write(dir.path().join("a.py"), "x = 2\nz = 3\n").unwrap();
    let page: Value = s.call("getFile", json!({ "file": "a.py" })).unwrap();
    assert_eq!(page["text"], "x = 2\nz = 3\n");
    assert_eq!(page["freshness"]["state"], "fresh");
    let with_graph: Value = s.call("getFile", json!({ "file": "a.py", "includeGraphContext": true })).unwrap();
    assert_eq!(with_graph["freshness"]["state"], "stale");
}
