//! Bad input never crashes the index or loses the rest of the repository: binary files, NUL bytes,
//! invalid UTF-8, a 5 MB single-line file, 10,000-deep nesting, a symlink loop, and reads that try to
//! escape the root. Each problem is reported with a reason; so is a minified bundle left out.

use std::fs;
use std::path::Path;

use codegraph_core::{DiscoveryOptions, Session, StdHost};
use serde_json::{json, Value};

/// Writes the hostile repository (shared with the JS parity test, which writes the same files).
fn write_hostile_repo(root: &Path) {
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("src/ok.ts"), "export function fine() { return 1; }\nfine();\n").unwrap();
    fs::write(root.join("src/binary.js"), [0x7f, b'E', b'L', b'F', 0, 1, 2, 3, 0xff, 0xfe]).unwrap();
    fs::write(root.join("src/nul.py"), b"def f():\n    return 1\0\n").unwrap();
    fs::write(root.join("src/latin1.rs"), b"fn caf\xe9() {}\n").unwrap();
    let mut minified = String::from("export function big(){");
    while minified.len() < 5 * 1024 * 1024 {
        minified.push_str("var a=b(c,d)+e[f]*g.h(i);");
    }
    minified.push('}');
    fs::write(root.join("src/bundle.js"), &minified).unwrap();
    fs::create_dir_all(root.join("src/vendor")).unwrap();
    fs::write(root.join("src/vendor/jquery.min.js"), "function jq(){return 1}jq();\n").unwrap();
    let depth = 10_000;
    fs::write(root.join("src/deep.ts"), format!("export const x = {}1{};\n", "[".repeat(depth), "]".repeat(depth)))
        .unwrap();
    fs::write(root.join("src/deep.py"), format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth))).unwrap();
    fs::write(root.join("src/deep.rs"), format!("fn f() {{ let x = {}1{}; }}\n", "(".repeat(depth), ")".repeat(depth)))
        .unwrap();
    fs::write(root.join("src/deep.go"), format!("package p\nvar x = {}1{}\n", "(".repeat(depth), ")".repeat(depth)))
        .unwrap();
    fs::write(
        root.join("src/Deep.java"),
        format!("class Deep {{ int x = {}1{}; }}\n", "(".repeat(depth), ")".repeat(depth)),
    )
    .unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("..", root.join("src/loop")).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", root.join("src/outside.ts")).unwrap();
    }
}

fn open(root: &Path, options: DiscoveryOptions) -> Session {
    Session::open(Box::new(StdHost::new(root)), options).expect("opens")
}

#[test]
fn hostile_files_are_skipped_with_reasons_and_the_rest_is_indexed() {
    let dir = tempfile::tempdir().unwrap();
    write_hostile_repo(dir.path());
    let mut s = open(dir.path(), DiscoveryOptions::default());
    let status: Value = s.call("status", json!({})).expect("status");
    let skipped: Vec<(String, String)> = status["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["path"].as_str().unwrap().to_string(), v["reason"].as_str().unwrap().to_string()))
        .collect();
    let reason = |p: &str| skipped.iter().find(|(path, _)| path == p).map(|(_, r)| r.clone()).unwrap_or_default();
    assert!(reason("src/binary.js").contains("NUL byte"), "{skipped:?}");
    assert!(reason("src/nul.py").contains("NUL byte"), "{skipped:?}");
    assert!(reason("src/latin1.rs").contains("invalid UTF-8 at byte 6"), "{skipped:?}");
    assert!(reason("src/bundle.js").contains("larger than the size cap"), "{skipped:?}");
    assert!(reason("src/vendor/jquery.min.js").contains("minified bundle"), "{skipped:?}");
    #[cfg(unix)]
    assert!(reason("src/outside.ts").contains("symlink"), "{skipped:?}");
    // The deep files and the good file are indexed; the loop is not walked.
    let syms: Value = s.call("workspaceSymbols", json!({ "query": "fine" })).unwrap();
    assert_eq!(syms["symbols"][0]["handle"], "src/ok.ts::fine");
    let callers: Value = s.call("callers", json!({ "handle": "src/ok.ts::fine" })).unwrap();
    assert_eq!(callers["groups"][0]["handle"], "src/ok.ts");
    assert_eq!(status["files"], 6, "ok.ts and the five deep files");
    let deep: Value = s.call("workspaceSymbols", json!({ "query": "Deep" })).unwrap();
    assert_eq!(deep["symbols"][0]["handle"], "src/Deep.java::Deep");
}

#[test]
fn a_raised_size_cap_parses_the_single_line_file() {
    let dir = tempfile::tempdir().unwrap();
    write_hostile_repo(dir.path());
    let mut s = open(dir.path(), DiscoveryOptions { max_file_bytes: Some(10 * 1024 * 1024), ..Default::default() });
    let big: Value = s.call("workspaceSymbols", json!({ "query": "big" })).unwrap();
    assert_eq!(big["symbols"][0]["handle"], "src/bundle.js::big");
    let page: Value = s.call("getFile", json!({ "file": "src/bundle.js", "maxBytes": 100 })).unwrap();
    assert_eq!(page["truncated"], true);
    assert_eq!(page["text"].as_str().unwrap().len(), 100);
    assert_eq!(page["page"]["nextOffset"], 2);
}

#[test]
fn a_minified_bundle_is_indexed_when_an_include_pattern_names_it() {
    let dir = tempfile::tempdir().unwrap();
    write_hostile_repo(dir.path());
    let mut s = open(dir.path(), DiscoveryOptions::default());
    let none: Value = s.call("workspaceSymbols", json!({ "query": "jq" })).unwrap();
    assert_eq!(none["symbols"], json!([]), "left out by default");
    // Its file can still be read.
    let page: Value = s.call("getFile", json!({ "file": "src/vendor/jquery.min.js" })).unwrap();
    assert!(page["text"].as_str().unwrap().starts_with("function jq()"));
    let mut s = open(
        dir.path(),
        DiscoveryOptions { include: vec!["*.min.js".into(), "src/ok.ts".into()], ..Default::default() },
    );
    let jq: Value = s.call("workspaceSymbols", json!({ "query": "jq" })).unwrap();
    assert_eq!(jq["symbols"][0]["handle"], "src/vendor/jquery.min.js::jq");
    let status: Value = s.call("status", json!({})).unwrap();
    assert_eq!(status["files"], 2, "the bundle and the file named");
}

#[test]
fn reads_outside_the_root_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_hostile_repo(dir.path());
    let mut s = open(dir.path(), DiscoveryOptions::default());
    let code =
        |s: &mut Session, file: &str| s.call("getFile", json!({ "file": file })).map_or_else(|e| e.code(), |_| "OK");
    assert_eq!(code(&mut s, "../etc/passwd"), "OUTSIDE_ROOT");
    assert_eq!(code(&mut s, "src/../../x"), "OUTSIDE_ROOT");
    assert_eq!(code(&mut s, "/etc/passwd"), "OUTSIDE_ROOT");
    #[cfg(unix)]
    assert_eq!(code(&mut s, "src/outside.ts"), "OUTSIDE_ROOT");
    assert_eq!(code(&mut s, "src/binary.js"), "UNREADABLE");
    assert_eq!(code(&mut s, "src/latin1.rs"), "UNREADABLE");
    assert_eq!(code(&mut s, "src/missing.ts"), "NOT_FOUND");
    assert_eq!(code(&mut s, "src/ok.ts"), "OK");
    // An absolute path inside the root is accepted.
    let inside = fs::canonicalize(dir.path()).unwrap().join("src/ok.ts");
    assert_eq!(code(&mut s, inside.to_str().unwrap()), "OK");
}

#[test]
fn get_file_pages_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.py"), "one\ntwo\nthree\n").unwrap();
    let mut s = open(dir.path(), DiscoveryOptions::default());
    let page: Value = s.call("getFile", json!({ "file": "a.py", "offset": 2, "limit": 1 })).unwrap();
    assert_eq!(page["content"], "2\ttwo");
    assert_eq!(page["text"], "two");
    // A final newline is a last, empty line.
    assert_eq!(page["totalLines"], 4);
    assert_eq!(page["page"]["nextOffset"], 3);
    let rest: Value = s.call("getFile", json!({ "file": "a.py", "offset": 3 })).unwrap();
    assert_eq!(rest["content"], "3\tthree\n4\t");
    assert!(rest.get("page").is_none());
    let bounded: Value = s.call("getFile", json!({ "file": "a.py", "maxBytes": 8 })).unwrap();
    assert_eq!(bounded["text"], "one\ntwo");
    assert_eq!(bounded["truncated"], false);
    assert_eq!(bounded["page"]["nextOffset"], 3);
    let err = s.call("getFile", json!({ "file": "a.py", "limit": 10001 })).unwrap_err();
    assert_eq!(err.code(), "INVALID_ARGUMENT");
    let err = s.call("getFile", json!({ "file": "a.py", "bogus": 1 })).unwrap_err();
    assert!(err.to_string().contains("unknown field `bogus`"), "{err}");
}

#[test]
fn sensitive_files_are_summarised_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(".env"), "TOKEN=secret\n").unwrap();
    let mut s = open(dir.path(), DiscoveryOptions::default());
    let page: Value = s.call("getFile", json!({ "file": ".env" })).unwrap();
    assert_eq!(page["sensitive"]["redacted"], true);
    assert_eq!(page["text"], "");
    let raw: Value = s.call("getFile", json!({ "file": ".env", "allowSensitive": true })).unwrap();
    assert_eq!(raw["text"], "TOKEN=secret\n");
}
