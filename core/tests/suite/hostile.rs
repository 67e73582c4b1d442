//! A cloned repository is untrusted input: it must not crash, hang, exhaust or read through the
//! core. Each test builds a hostile repository on the fly: chains of 100,000 names in every
//! grammar, ignore and config files that are symlinks to `/dev/zero`, FIFOs or sparse giants, a
//! `.codegraph` folder that points outside the root, secrets behind innocent names, and a git
//! config that names commands. Builds run on a thread with a 2 MiB stack (a native worker's) and
//! must finish within a deadline.

use std::fs;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use codegraph_core::{DiscoveryOptions, Session, StdHost};
use serde_json::{json, Value};

/// Every long-chain form: file name and source, at `n` segments.
fn chain_forms(n: usize) -> Vec<(&'static str, String)> {
    vec![
        ("js/member.ts", format!("export const x = y{};\n", ".b".repeat(n))),
        ("js/optional.ts", format!("export const x = y{};\n", "?.b".repeat(n))),
        ("js/namespace.ts", format!("namespace {} {{}}\n", vec!["A"; n].join("."))),
        ("js/type.ts", format!("let x: {};\n", vec!["A"; n].join("."))),
        (
            "js/calls.ts",
            format!("class S {{ b(): S {{ return this; }} }}\nfunction f(s: S) {{ s{}; }}\n", ".b()".repeat(n)),
        ),
        ("js/opaque.js", format!("a[0]{};\n", ".b()".repeat(n))),
        ("js/paren.ts", format!("let x: {}A{};\n", "(".repeat(n), ")".repeat(n))),
        ("js/union.ts", format!("let x: A{};\n", " | A".repeat(n))),
        ("py/member.py", format!("y{}()\n", ".b".repeat(n))),
        ("py/assign.py", format!("{}1\n", "a = ".repeat(n))),
        ("py/or.py", format!("def f(a):\n    x = a{}\n    x.b()\n", " or a".repeat(n))),
        ("py/slices.py", format!("def f(a):\n    for y in a{}:\n        y.b()\n", "[1:]".repeat(n))),
        ("py/optional.py", format!("def f(x: {}A{}): pass\n", "Optional[".repeat(n), "]".repeat(n))),
        (
            "py/calls.py",
            format!(
                "class S:\n    def b(self) -> 'S':\n        return self\ndef f(s: S):\n    s{}\n",
                ".b()".repeat(n)
            ),
        ),
        ("rs/member.rs", format!("fn f() {{ y{}(); }}\n", ".b".repeat(n))),
        ("rs/path.rs", format!("fn f() {{ {}(); }}\n", vec!["a"; n].join("::"))),
        ("rs/use.rs", format!("use {};\n", vec!["a"; n].join("::"))),
        ("rs/use_list.rs", format!("use {}b{};\n", "a::{".repeat(n), "}".repeat(n))),
        ("rs/refs.rs", format!("fn f(x: {}T) {{}}\n", "&".repeat(n))),
        ("rs/boxes.rs", format!("fn f(x: {}T{}) {{}}\n", "Box<".repeat(n), ">".repeat(n))),
        (
            "rs/calls.rs",
            format!("struct S;\nimpl S {{ fn b(&self) -> S {{ S }} }}\nfn f(s: S) {{ s{}; }}\n", ".b()".repeat(n)),
        ),
        // A macro invoked with 10k different arguments, and 10k macros each passing its
        // metavariable on to the next (a tenth of `n`: the files stay under the size cap): what
        // `$x` is bound to is read in bounded time.
        (
            "rs/invocations.rs",
            format!(
                "macro_rules! m {{ ($x:ident) => {{ fn f() {{ $x::g(); }} }}; }}\n{}",
                (0..n / 10).map(|i| format!("m!(a{i});")).collect::<Vec<_>>().join("\n")
            ),
        ),
        (
            "rs/passed_on.rs",
            format!(
                "{}macro_rules! m{} {{ ($x:ident) => {{ fn f() {{ $x::g(); }} }}; }}\nm0!(a);\n",
                (0..n / 10)
                    .map(|i| format!("macro_rules! m{i} {{ ($x:ident) => {{ m{}!($x); }}; }}\n", i + 1))
                    .collect::<Vec<_>>()
                    .concat(),
                n / 10
            ),
        ),
        ("java/Import.java", format!("import {};\nclass Import {{}}\n", vec!["a"; n].join("."))),
        (
            "java/Calls.java",
            format!("class Calls {{ Calls b() {{ return this; }} void f(Calls s) {{ s{}; }} }}\n", ".b()".repeat(n)),
        ),
        ("go/member.go", format!("package p\nvar x = y{}\n", ".b".repeat(n))),
        (
            "go/calls.go",
            format!(
                "package p\ntype S struct{{}}\nfunc (s S) B() S {{ return s }}\nfunc f(s S) {{ s{} }}\n",
                ".B()".repeat(n)
            ),
        ),
    ]
}

/// Runs `f` on a thread with a native worker's stack, failing the test when it takes longer than
/// `seconds` (a hang) instead of waiting forever.
fn bounded<T: Send + 'static>(seconds: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .expect("spawn");
    rx.recv_timeout(Duration::from_secs(seconds)).expect("finished within the deadline (no hang)")
}

fn open(root: &Path, persist: bool) -> Session {
    Session::open(Box::new(StdHost::new(root)), DiscoveryOptions { persist, ..Default::default() }).expect("opens")
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn chains_of_100k_names_in_every_grammar_are_indexed_without_recursion() {
    let dir = tempfile::tempdir().unwrap();
    let forms = chain_forms(100_000);
    for (rel, src) in &forms {
        write(dir.path(), rel, src);
    }
    let root = dir.path().to_path_buf();
    let count = forms.len();
    let answers = bounded(240, move || {
        let mut s = open(&root, false);
        let status: Value = s.call("status", json!({})).unwrap();
        let search: Value = s.call("search", json!({ "query": "b" })).unwrap();
        let orient: Value = s.call("orient", json!({})).unwrap();
        // The last segment of a 100k chain is a position like any other.
        let goto = s.call("goto", json!({ "file": "rs/calls.rs", "line": 3, "column": 16 })).map(|g| g["name"].clone());
        (status, search, orient, goto)
    });
    let (status, search, orient, goto) = answers;
    assert_eq!(status["files"], count, "every hostile file is indexed: {}", status["skipped"]);
    assert!(search["total"].as_u64().unwrap() > 0);
    assert!(orient["resolution"]["unresolvedReferences"].as_u64().unwrap() > 0);
    assert_eq!(goto.unwrap(), "b");
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success());
}

#[cfg(unix)]
fn sparse(path: &Path, len: u64) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::File::create(path).unwrap().set_len(len).unwrap();
}

#[cfg(unix)]
#[test]
fn values_initialised_from_a_call_on_themselves_do_not_recurse() {
    // Found in Django (`constant_string = constant_string.replace("\n", "")`): the value of a
    // variable initialised through a standard method of itself went round for ever.
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [
        ("a.py", "s = s.replace(\"\\n\", \"\")\nclass A:\n    def __init__(self):\n        self.x = self.x.copy()\n"),
        ("b.rs", "static S: Vec<u8> = S.clone();\nfn f() { let v = v.iter(); v.next(); }\n"),
        ("c.ts", "const s: string[] = s.slice(1);\nlet t = t.filter((x) => x);\n"),
    ] {
        fs::write(dir.path().join(path), text).unwrap();
    }
    let root = dir.path().to_path_buf();
    let status = bounded(60, move || {
        open(&root, false).status(codegraph_core::StatusRequest::default()).map(|s| s.files).unwrap()
    });
    assert_eq!(status, 3);
}

#[test]
fn ignore_and_config_files_that_are_fifos_devices_or_giants_are_not_read() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/ok.ts", "export function fine() { return 1; }\nfine();\n");
    symlink("/dev/zero", root.join(".gitignore")).unwrap();
    mkfifo(&root.join(".codegraphignore"));
    sparse(&root.join("src/.gitignore"), 8 << 30);
    symlink("/dev/zero", root.join("package.json")).unwrap();
    mkfifo(&root.join("tsconfig.json"));
    sparse(&root.join("go.mod"), 8 << 30);
    sparse(&root.join("Cargo.toml"), 8 << 30);
    mkfifo(&root.join("src/pipe.ts"));
    let path = root.to_path_buf();
    let status: Value = bounded(60, move || open(&path, false).call("status", json!({})).unwrap());
    let reason = |p: &str| {
        status["skipped"].as_array().unwrap().iter().find(|s| s["path"] == p).map(|s| s["reason"].to_string())
    };
    assert!(reason(".gitignore").unwrap().contains("symlink"), "{}", status["skipped"]);
    assert!(reason(".codegraphignore").unwrap().contains("not a regular file"), "{}", status["skipped"]);
    assert!(reason("src/.gitignore").unwrap().contains("read limit"), "{}", status["skipped"]);
    assert!(reason("src/pipe.ts").unwrap().contains("not a regular file"), "{}", status["skipped"]);
    assert_eq!(status["files"], 1);
}

#[cfg(unix)]
#[test]
fn a_codegraph_folder_that_is_a_symlink_is_neither_read_nor_written() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    write(dir.path(), "a.py", "def f():\n    return 1\n");
    std::os::unix::fs::symlink(outside.path(), dir.path().join(".codegraph")).unwrap();
    // What a hostile folder would offer: a config pointing at /dev/zero.
    std::os::unix::fs::symlink("/dev/zero", outside.path().join("config")).unwrap();
    let root = dir.path().to_path_buf();
    let (status, context) = bounded(60, move || {
        let mut s = open(&root, true);
        let status: Value = s.call("status", json!({})).unwrap();
        let context = s.call("context", json!({ "budget": 1000 })).map_err(|e| e.to_string());
        (status, context)
    });
    let written: Vec<String> =
        fs::read_dir(outside.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(written, ["config"], "nothing written through the symlink");
    assert!(status["snapshot"]["note"].as_str().unwrap().contains("symlink"), "{status}");
    assert!(context.unwrap_err().contains("symlink"));
}

#[cfg(unix)]
#[test]
fn a_persisted_index_that_is_a_fifo_a_device_or_sparse_is_rejected_and_rebuilt() {
    use std::os::unix::fs::symlink;
    for (name, make) in [
        ("index.bin", "fifo"),
        ("index.bin", "zero"),
        ("index.bin", "sparse"),
        ("text.bin", "fifo"),
        ("text.bin", "zero"),
        ("text.bin", "sparse"),
        ("loc.bin", "fifo"),
        ("loc.bin", "zero"),
        ("loc.bin", "sparse"),
        ("config", "fifo"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a.py", "def retry_later():\n    return 1\n");
        let target = dir.path().join(".codegraph").join(name);
        match make {
            "fifo" => mkfifo(&target),
            "zero" => {
                fs::create_dir_all(target.parent().unwrap()).unwrap();
                symlink("/dev/zero", &target).unwrap();
            }
            _ => sparse(&target, 8 << 30),
        }
        let root = dir.path().to_path_buf();
        let (status, search, context, loc) = bounded(60, move || {
            let mut s = open(&root, true);
            let status: Value = s.call("status", json!({})).unwrap();
            let search: Value = s.call("search", json!({ "query": "retry" })).unwrap();
            let context = s.call("context", json!({})).map_err(|e| e.code());
            let loc: Value = s.call("loc", json!({})).unwrap();
            (status, search, context, loc)
        });
        assert_eq!(status["files"], 1, "{name} {make}");
        assert_eq!(loc["total"]["code"], 2, "{name} {make}: {loc}");
        assert_eq!(search["hits"][0]["path"], "a.py", "{name} {make}");
        if name == "index.bin" {
            assert_eq!(status["snapshot"]["state"], "rejected", "{name} {make}: {status}");
        }
        if name == "config" {
            assert_eq!(context.unwrap_err(), "INVALID_ARGUMENT");
        }
    }
}

#[cfg(unix)]
#[test]
fn secrets_are_classified_by_what_a_file_is_not_what_it_is_called() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".env", "# local\nAPI_TOKEN=s3cret-token\nexport DB_URL=postgres://u:pw@h/db\n");
    std::os::unix::fs::symlink("../.env", {
        fs::create_dir_all(root.join("sub")).unwrap();
        root.join("sub/notes.ts")
    })
    .unwrap();
    write(root, ".docker/config.json", r#"{"auths":{"ghcr.io":{"auth":"c2VjcmV0"}}}"#);
    write(root, "infra/prod.tfvars", "db_password = \"hunter2\"\nregion = \"eu\"\n");
    write(root, "certs/server.key", "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n");
    write(root, ".env.js", "export const TOKEN = 'zzsecretzz';\n");
    write(root, "app.js", "import { TOKEN } from './.env.js';\nexport function use() { return TOKEN; }\n");
    let mut s = open(root, false);
    for file in [".env", "sub/notes.ts"] {
        let page: Value = s.call("getFile", json!({ "file": file })).unwrap();
        assert_eq!(page["sensitive"]["redacted"], true, "{file}");
        assert_eq!(page["sensitive"]["kind"], "environment", "{file}");
        assert_eq!(page["sensitive"]["keys"], json!(["API_TOKEN", "DB_URL"]), "{file}");
        assert_eq!(page["totalLines"], 4, "{file}: the exact line count");
        assert_eq!(page["text"], "", "{file}");
        assert!(!page.to_string().contains("s3cret"), "{file}");
    }
    let docker: Value = s.call("getFile", json!({ "file": ".docker/config.json" })).unwrap();
    assert_eq!(docker["sensitive"]["keys"], json!(["auths", "auths.ghcr.io"]));
    let tf: Value = s.call("getFile", json!({ "file": "infra/prod.tfvars" })).unwrap();
    assert_eq!(tf["sensitive"]["keys"], json!(["db_password", "region"]));
    assert!(!tf.to_string().contains("hunter2"));
    let key: Value = s.call("getFile", json!({ "file": "certs/server.key" })).unwrap();
    assert_eq!(key["sensitive"]["kind"], "private-key");
    assert_eq!(key["totalLines"], 0, "key material is not read");
    let raw: Value = s.call("getFile", json!({ "file": "sub/notes.ts", "allowSensitive": true })).unwrap();
    assert!(raw["text"].as_str().unwrap().contains("s3cret-token"));
    // An indexed source that is a secrets file: its declarations are known, its text never leaves.
    let context: Value = s.call("context", json!({})).unwrap();
    assert!(!context.to_string().contains("zzsecretzz"), "{context}");
    assert_eq!(context["omitted"]["other"]["sensitiveFiles"], 1);
    let packet: Value = s.call("packetGet", json!({ "target": ".env.js" })).unwrap();
    assert!(!packet.to_string().contains("zzsecretzz"));
    let search: Value = s.call("search", json!({ "query": "zzsecretzz" })).unwrap();
    assert_eq!(search["total"], 0, "{search}");
    let explore: Value = s.call("explore", json!({ "query": "TOKEN", "includeSource": true })).unwrap();
    assert!(!explore.to_string().contains("zzsecretzz"));
}

fn git(root: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(root)
        .output()
        .expect("git runs")
        .status
        .success();
    assert!(ok, "git {args:?}");
}

#[cfg(unix)]
#[test]
fn reading_a_change_set_never_runs_a_command_the_repository_names() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.txt.py", "x = 1\n");
    write(root, ".gitattributes", "*.py filter=evil diff=evil\n");
    git(root, &["init", "-q"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-qm", "one"]);
    let pwned = |what: &str| format!("touch {}/PWNED-{what}; cat", root.display());
    for (key, what) in [
        ("core.fsmonitor", "fsmonitor"),
        ("core.pager", "pager"),
        ("diff.external", "external"),
        ("filter.evil.clean", "clean"),
        ("filter.evil.smudge", "smudge"),
        ("diff.evil.textconv", "textconv"),
        ("diff.evil.command", "command"),
        ("core.sshCommand", "ssh"),
    ] {
        git(root, &["config", key, &pwned(what)]);
    }
    write(root, "a.txt.py", "x = 2\n");
    let mut s = open(root, false);
    for diff in ["working-tree", "staged", "unstaged", "HEAD"] {
        let pack: Value = s.call("context", json!({ "diff": diff })).unwrap();
        assert!(pack["diff"].is_object(), "{diff}");
    }
    let ran: Vec<String> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("PWNED"))
        .collect();
    assert!(ran.is_empty(), "git ran repository commands: {ran:?}");
}
