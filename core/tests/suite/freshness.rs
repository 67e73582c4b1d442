//! Change detection: a small change set refreshes the index (and the next answer says so once), a
//! large one reports `stale` with counts and a bounded sample, deletions count as changes.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use codegraph_core::{DiscoveryOptions, Host, HostEntry, Session, StdHost};
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

/// A host that counts directory listings, to tell a cheap check (stats only) from a walk.
struct Counting {
    inner: StdHost,
    listings: Arc<AtomicUsize>,
}

impl Host for Counting {
    fn read_dir(&self, rel: &str) -> Result<Vec<HostEntry>, String> {
        self.listings.fetch_add(1, Ordering::Relaxed);
        self.inner.read_dir(rel)
    }
    fn read_file(&self, rel: &str, limit: u64) -> Result<Vec<u8>, String> {
        self.inner.read_file(rel, limit)
    }
    fn stat(&self, rel: &str) -> Result<HostEntry, String> {
        self.inner.stat(rel)
    }
    fn lstat(&self, rel: &str) -> Result<HostEntry, String> {
        self.inner.lstat(rel)
    }
    fn realpath(&self, rel: &str) -> Result<String, String> {
        self.inner.realpath(rel)
    }
    fn now_ms(&self) -> f64 {
        self.inner.now_ms()
    }
}

/// Sets the mtime of every directory and ignore file under `root` an hour back: settled, as a
/// tree is between edits (a directory changed within the clock's tick of a walk is never trusted).
fn settle(root: &Path) {
    let past = SystemTime::now() - Duration::from_hours(1);
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == ".gitignore") {
                fs::File::options().write(true).open(&path).unwrap().set_modified(past).unwrap();
            }
        }
        fs::File::open(&dir).unwrap().set_modified(past).unwrap();
    }
}

/// While no directory or ignore file changed, a change check stats only the known files (no
/// listing); every other kind of change still reaches it through a directory's or an ignore file's
/// stat.
#[test]
fn the_cheap_check_sees_additions_removals_renames_and_ignore_edits_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("pkg/deep")).unwrap();
    fs::write(root.join("pkg/deep/a.py"), "def alpha():\n    return 1\n").unwrap();
    fs::write(root.join(".gitignore"), "build/\n*.gen.py\n").unwrap();
    let listings = Arc::new(AtomicUsize::new(0));
    let host = Counting { inner: StdHost::new(root), listings: listings.clone() };
    let mut s = Session::open(Box::new(host), DiscoveryOptions::default()).unwrap();
    s.call("status", json!({})).unwrap();
    // Each step: settle the tree, let one check walk and take the settled stats as its watch, then
    // change something and look.
    let step = |s: &mut Session, change: &dyn Fn()| -> (Value, usize) {
        settle(root);
        let _: Value = s.call("refresh", json!({})).unwrap();
        let before = listings.load(Ordering::Relaxed);
        let _: Value = s.call("refresh", json!({})).unwrap();
        assert_eq!(listings.load(Ordering::Relaxed), before, "a check of a settled, unchanged tree lists nothing");
        change();
        let r: Value = s.call("refresh", json!({})).unwrap();
        (r["freshness"].get("changedFiles").cloned().unwrap_or(json!([])), listings.load(Ordering::Relaxed) - before)
    };

    // An edit of a known file: found by its stat alone.
    let (changed, walked) =
        step(&mut s, &|| fs::write(root.join("pkg/deep/a.py"), "def alpha():\n    return 22\n").unwrap());
    assert_eq!((changed, walked), (json!(["pkg/deep/a.py"]), 0));

    // Added deep down, in a new directory, and in ignored places (no change).
    let (changed, _) = step(&mut s, &|| fs::write(root.join("pkg/deep/b.py"), "def beta():\n    pass\n").unwrap());
    assert_eq!(changed, json!(["pkg/deep/b.py"]));
    let (changed, _) = step(&mut s, &|| {
        fs::create_dir_all(root.join("pkg/deep/new")).unwrap();
        fs::write(root.join("pkg/deep/new/c.py"), "C = 1\n").unwrap();
    });
    assert_eq!(changed, json!(["pkg/deep/new/c.py"]));
    let (changed, _) = step(&mut s, &|| {
        fs::create_dir_all(root.join("build")).unwrap();
        fs::write(root.join("build/out.py"), "X = 1\n").unwrap();
        fs::write(root.join("pkg/x.gen.py"), "Y = 1\n").unwrap();
    });
    assert_eq!(changed, json!([]));

    // Renamed within its directory: both names change.
    let (changed, _) = step(&mut s, &|| fs::rename(root.join("pkg/deep/b.py"), root.join("pkg/deep/b2.py")).unwrap());
    assert_eq!(changed, json!(["pkg/deep/b.py", "pkg/deep/b2.py"]));

    // An ignore file edited in place so that an ignored file is in.
    let (changed, _) = step(&mut s, &|| fs::write(root.join(".gitignore"), "build/\n#gen.py\n").unwrap());
    assert_eq!(changed, json!(["pkg/x.gen.py"]));
    // A nested ignore file added takes a file out.
    let (changed, _) = step(&mut s, &|| fs::write(root.join("pkg/deep/.gitignore"), "a.py\n").unwrap());
    assert_eq!(changed, json!(["pkg/deep/a.py"]));
    let symbols: Value = s.call("workspaceSymbols", json!({ "query": "alpha" })).unwrap();
    assert_eq!(symbols["total"], 0);

    // A removed directory.
    let (changed, _) = step(&mut s, &|| fs::remove_dir_all(root.join("pkg/deep/new")).unwrap());
    assert_eq!(changed, json!(["pkg/deep/new/c.py"]));
}

/// A file added within the same tick of the file system's clock as the directory's last change
/// leaves the directory's mtime as it was: a watch taken that close to the change is not trusted.
#[test]
fn an_addition_within_the_clock_tick_of_a_watched_change_is_still_seen() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("pkg")).unwrap();
    fs::write(root.join("pkg/a.py"), "A = 1\n").unwrap();
    let mut s = Session::open(Box::new(StdHost::new(root)), DiscoveryOptions::default()).unwrap();
    s.call("status", json!({})).unwrap();
    settle(root);
    let _: Value = s.call("refresh", json!({})).unwrap();
    // The directory changes now, and a check takes its watch right after.
    let tick = SystemTime::now();
    fs::File::open(root.join("pkg")).unwrap().set_modified(tick).unwrap();
    let _: Value = s.call("refresh", json!({})).unwrap();
    // A file lands in the same tick: the directory's mtime stays what the watch recorded.
    fs::write(root.join("pkg/b.py"), "B = 1\n").unwrap();
    fs::File::open(root.join("pkg")).unwrap().set_modified(tick).unwrap();
    let r: Value = s.call("refresh", json!({})).unwrap();
    assert_eq!(r["freshness"]["changedFiles"], json!(["pkg/b.py"]));
}
