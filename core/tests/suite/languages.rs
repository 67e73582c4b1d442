//! C, C++, C# and SQL through a session on real files: what the language fixtures' answers do not
//! show — a `.h` read as C++ when the repository has C++ sources, include directories from
//! `compile_commands.json`, an edit that adds the first C++ source, and SQL's case folding.

use codegraph_core::{OpenOptions, Session, StdHost};
use serde_json::{json, Value};

fn repo(files: &[(&str, &str)]) -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, text) in files {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(file, text).expect("write");
    }
    let options = OpenOptions { persist: false, ..OpenOptions::default() };
    let session = Session::open(Box::new(StdHost::new(dir.path().to_path_buf())), options).expect("opens");
    (dir, session)
}

fn call(s: &mut Session, method: &str, req: Value) -> Value {
    s.call(method, req).unwrap_or_else(|e| panic!("{method}: {e}"))
}

fn language_of(s: &mut Session, handle: &str) -> String {
    call(s, "getSymbol", json!({ "handle": handle }))["symbol"]["language"].as_str().expect("language").to_string()
}

fn goto(s: &mut Session, file: &str, line: u32, column: u32) -> Vec<String> {
    let r = call(s, "goto", json!({ "file": file, "line": line, "column": column }));
    r["definitions"].as_array().expect("defs").iter().map(|d| d["handle"].as_str().expect("h").to_string()).collect()
}

/// The `line:column` of each reference to `handle`.
fn refs(s: &mut Session, handle: &str) -> Vec<String> {
    let r = call(s, "refs", json!({ "handle": handle }));
    r["refs"].as_array().expect("refs").iter().map(|r| format!("{}:{}", r["line"], r["column"])).collect()
}

#[test]
fn a_header_is_cpp_when_the_repository_has_cpp_sources() {
    let header = "class Shape { public: int area() const; };\n";
    let (_c, mut c_only) = repo(&[
        ("shape.h", "int area(void);\n"),
        ("main.c", "#include \"shape.h\"\nint main(void) { return area(); }\n"),
    ]);
    assert_eq!(language_of(&mut c_only, "shape.h::area"), "c");
    let (dir, mut mixed) =
        repo(&[("shape.h", header), ("main.cpp", "#include \"shape.h\"\nint f(Shape& s) { return s.area(); }\n")]);
    assert_eq!(language_of(&mut mixed, "shape.h::Shape"), "cpp");
    assert_eq!(goto(&mut mixed, "main.cpp", 2, 28), ["shape.h::Shape::area"]);
    drop(dir);
    // The first C++ source added to a C repository makes its headers C++ once it is taken in.
    let (dir, mut grows) = repo(&[("shape.h", header), ("main.c", "#include \"shape.h\"\n")]);
    assert_eq!(call(&mut grows, "getSymbol", json!({ "handle": "shape.h::Shape" }))["symbol"]["language"], "c");
    std::fs::write(dir.path().join("use.cpp"), "#include \"shape.h\"\nint g(Shape& s) { return s.area(); }\n").unwrap();
    call(&mut grows, "refresh", json!({}));
    assert_eq!(language_of(&mut grows, "shape.h::Shape"), "cpp");
    assert_eq!(goto(&mut grows, "use.cpp", 2, 28), ["shape.h::Shape::area"]);
}

#[test]
fn include_directories_come_from_compile_commands() {
    let (dir, _) = repo(&[]);
    let root = dir.path().canonicalize().unwrap();
    let db = json!([{ "directory": format!("{}/build", root.display()), "file": format!("{}/src/main.c", root.display()),
        "arguments": ["cc", "-I../vendor/api", "-I", "../gen", "-c", "../src/main.c"] }]);
    let files = [
        ("compile_commands.json", db.to_string()),
        (
            "src/main.c",
            "#include \"util.h\"\n#include <gen.h>\nint main(void) { return twice(1) + generated(); }\n".to_string(),
        ),
        ("vendor/api/util.h", "int twice(int v);\n".to_string()),
        // A decoy of the same name elsewhere: found by the unique-name rule only without the database.
        ("other/util.h", "int twice(int v);\n".to_string()),
        ("gen/gen.h", "int generated(void);\n".to_string()),
    ];
    for (path, text) in &files {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let options = OpenOptions { persist: false, ..OpenOptions::default() };
    let mut s = Session::open(Box::new(StdHost::new(root.clone())), options).expect("opens");
    let deps = call(&mut s, "deps", json!({ "file": "src/main.c" }));
    assert_eq!(deps["files"], json!(["gen/gen.h", "vendor/api/util.h"]));
    assert_eq!(goto(&mut s, "src/main.c", 3, 25), ["vendor/api/util.h::twice"]);
}

#[test]
fn static_functions_are_file_local_and_externs_link() {
    let (_d, mut s) = repo(&[
        ("a.c", "static int helper(void) { return 1; }\nint shared = 0;\nint a(void) { return helper() + shared; }\n"),
        (
            "b.c",
            "static int helper(void) { return 2; }\nextern int shared;\nint b(void) { return helper() + shared; }\n",
        ),
    ]);
    assert_eq!(goto(&mut s, "b.c", 3, 22), ["b.c::helper"]);
    assert_eq!(goto(&mut s, "b.c", 3, 33), ["a.c::shared", "b.c::shared"]);
    let callers = call(&mut s, "callers", json!({ "handle": "a.c::helper" }));
    assert_eq!(callers["groups"].as_array().unwrap().len(), 1);
    assert_eq!(callers["groups"][0]["handle"], "a.c::a");
}

#[test]
fn sql_names_fold_to_lower_case_unless_quoted() {
    let (_d, mut s) = repo(&[
        ("schema.sql", "CREATE TABLE Orders (ID int);\nCREATE TABLE \"Mixed\" (a int);\n"),
        ("q.sql", "SELECT id FROM ORDERS;\nSELECT a FROM \"Mixed\";\nSELECT a FROM mixed;\n"),
    ]);
    assert_eq!(goto(&mut s, "q.sql", 1, 16), ["schema.sql::orders"]);
    assert_eq!(goto(&mut s, "q.sql", 1, 8), ["schema.sql::orders::id"]);
    assert_eq!(goto(&mut s, "q.sql", 2, 15), ["schema.sql::Mixed"]);
    let unquoted = s.call("goto", json!({ "file": "q.sql", "line": 3, "column": 15 }));
    assert!(unquoted.map_or(true, |r| r["definitions"].as_array().unwrap().is_empty()));
}

#[test]
fn a_csharp_using_imports_types_not_nested_namespaces() {
    let (_d, mut s) = repo(&[
        ("a.cs", "namespace System.Runtime.CompilerServices { class IsExternalInit {} }\n"),
        ("b.cs", "namespace Python.Runtime\n{\n    public partial class Runtime { public static void X() {} }\n}\n"),
        // At file level (outside the namespace) `Runtime` is no type `using System;` imports.
        ("c.cs", "using System;\nusing Python.Runtime;\nclass F { void M() { Runtime.X(); } }\n"),
    ]);
    assert_eq!(goto(&mut s, "c.cs", 3, 22), ["b.cs::Python::Runtime::Runtime"]);
    assert_eq!(goto(&mut s, "c.cs", 3, 30), ["b.cs::Python::Runtime::Runtime::X"]);
}

#[test]
fn ruby_singleton_and_instance_methods_are_told_apart() {
    let (_d, mut s) = repo(&[(
        "shop.rb",
        "class Order\n  def self.build\n    new\n  end\n  def build\n    self\n  end\n  class << self\n    def make = build\n  end\nend\nOrder.build\nOrder.new.build\n",
    )]);
    // `Order.build` is the singleton method; `Order.new.build` the instance method.
    assert_eq!(goto(&mut s, "shop.rb", 12, 7), ["shop.rb::Order::build"]);
    let singleton = call(&mut s, "goto", json!({ "file": "shop.rb", "line": 12, "column": 7 }));
    assert_eq!(singleton["definitions"][0]["line"], 2);
    let instance = call(&mut s, "goto", json!({ "file": "shop.rb", "line": 13, "column": 11 }));
    assert_eq!(instance["definitions"].as_array().unwrap().len(), 1);
    assert_eq!(instance["definitions"][0]["line"], 5);
}

#[test]
fn php_names_resolve_to_the_file_composer_autoloads() {
    // `compat/Order.php` declares the same class (a polyfill copy): PHP loads one of the two, and
    // PSR-4 says which. Without composer.json both writings stand for the name.
    let order =
        "<?php\nnamespace Shop\\Model;\nclass Order\n{\n    public function price(): float { return 1.0; }\n}\n";
    let user = "<?php\nnamespace Shop\\Service;\nuse Shop\\Model\\Order;\nfunction run(): float { return (new Order())->price(); }\n";
    let helper = "<?php\nclass Helper\n{\n    public static function go(): void {}\n}\n";
    let global_user = "<?php\nnamespace Tests;\nuse Helper;\nfunction t(): void { Helper::go(); }\n";
    let files = [
        ("src/Model/Order.php", order),
        ("compat/Order.php", order),
        ("src/Service/run.php", user),
        ("lib/Helper.php", helper),
        ("old/Helper.php", helper),
        ("tests/t.php", global_user),
    ];
    let (_plain, mut plain) = repo(&files);
    let mut both = goto(&mut plain, "src/Service/run.php", 4, 37);
    both.sort();
    assert_eq!(both, ["compat/Order.php::Shop::Model::Order", "src/Model/Order.php::Shop::Model::Order"]);
    assert_eq!(goto(&mut plain, "tests/t.php", 4, 22).len(), 2);

    // A prefix written without its trailing separator, several folders for one prefix, the global
    // namespace (`""`) and `autoload-dev` are all read.
    let composer = r#"{ "autoload": { "psr-4": { "Shop\\": ["gen/", "src/"], "": "lib/" } },
                      "autoload-dev": { "psr-4": { "Tests": "tests" } } }"#;
    let with: Vec<(&str, &str)> = files.iter().copied().chain([("composer.json", composer)]).collect();
    let (_dir, mut s) = repo(&with);
    assert_eq!(goto(&mut s, "src/Service/run.php", 4, 37), ["src/Model/Order.php::Shop::Model::Order"]);
    assert_eq!(goto(&mut s, "src/Service/run.php", 4, 47), ["src/Model/Order.php::Shop::Model::Order::price"]);
    assert_eq!(goto(&mut s, "tests/t.php", 4, 22), ["lib/Helper.php::Helper"]);
    let refs = call(&mut s, "refs", json!({ "handle": "compat/Order.php::Shop::Model::Order::price" }));
    assert_eq!(refs["refs"].as_array().map(Vec::len), Some(0), "{refs}");
}

#[test]
fn a_rust_module_and_a_function_of_one_name_are_both_found() {
    // tokio's layout: `mod spawn; pub use spawn::spawn;`, re-exported at the crate root, and an
    // integration test that names the crate.
    let (_d, mut s) = repo(&[
        ("Cargo.toml", "[package]\nname = \"tok\"\n"),
        ("src/lib.rs", "pub mod task;\npub use task::spawn;\n"),
        ("src/task/mod.rs", "mod spawn;\npub use spawn::spawn;\npub use spawn::JoinHandle;\n"),
        ("src/task/spawn.rs", "pub struct JoinHandle;\nimpl JoinHandle { pub fn abort(&self) {} }\npub fn spawn() -> JoinHandle { JoinHandle }\n"),
        ("tests/t.rs", "fn t() {\n    tok::task::spawn();\n    let h = tok::spawn();\n    h.abort();\n}\n"),
    ]);
    assert_eq!(goto(&mut s, "tests/t.rs", 2, 16), ["src/task/spawn.rs::spawn"]);
    assert_eq!(goto(&mut s, "tests/t.rs", 3, 18), ["src/task/spawn.rs::spawn"]);
    assert_eq!(goto(&mut s, "tests/t.rs", 4, 7), ["src/task/spawn.rs::JoinHandle::abort"]);
}

#[test]
fn a_module_file_chosen_by_cfg_attr_path_is_the_configured_one() {
    // socket2's and errno's layout: `#[cfg_attr(unix, path = "sys/unix.rs")] mod sys;`, one
    // attribute per platform; the build configuration (x86-64 Linux) picks the Unix file, and a
    // predicate the index can't tell (`docsrs`) picks nothing.
    let (_d, mut s) = repo(&[
        ("Cargo.toml", "[package]\nname = \"sk\"\n"),
        (
            "src/lib.rs",
            "#[cfg_attr(\n    any(unix, all(target_os = \"wasi\", not(target_env = \"p1\"))),\n    path = \"sys/unix.rs\"\n)]\n#[cfg_attr(windows, path = \"sys/windows.rs\")]\nmod sys;\n#[cfg_attr(docsrs, path = \"sys/unix.rs\")]\nmod other;\npub fn f() {\n    sys::set_control();\n    other::g();\n}\n",
        ),
        ("src/sys/unix.rs", "pub fn set_control() {}\n"),
        ("src/sys/windows.rs", "pub fn set_control() {}\n"),
        ("src/other.rs", "pub fn g() {}\n"),
    ]);
    assert_eq!(goto(&mut s, "src/lib.rs", 10, 10), ["src/sys/unix.rs::set_control"]);
    assert_eq!(goto(&mut s, "src/lib.rs", 11, 12), ["src/other.rs::g"]);
}

#[test]
fn the_items_of_an_argument_less_template_are_the_invoking_modules() {
    // serde_core's layout: the crate root's modules are declared by `crate_root!();`, whose
    // `macro_rules!` is in another file; serde's own root defines the macro in itself.
    let (_d, mut s) = repo(&[
        ("Cargo.toml", "[package]\nname = \"core_like\"\n"),
        ("src/lib.rs", "#[macro_use]\nmod crate_root;\n\ncrate_root!();\n"),
        (
            "src/crate_root.rs",
            "macro_rules! crate_root {\n    () => {\n        mod lib {\n            pub use self::inner::Helper;\n            mod inner { pub struct Helper; }\n        }\n        macro_rules! tri {\n            ($e:expr) => { $e };\n        }\n        pub mod de;\n    };\n}\n",
        ),
        ("src/de/mod.rs", "mod impls;\npub trait Deserializer { fn deserialize_any(self); }\n"),
        (
            "src/de/impls.rs",
            "use crate::lib::*;\nuse crate::de::Deserializer;\nfn f<D>(d: D, _h: Helper) where D: Deserializer {\n    d.deserialize_any();\n}\n",
        ),
        ("tests/t.rs", "use core_like::de::Deserializer;\n"),
    ]);
    assert_eq!(goto(&mut s, "src/de/impls.rs", 2, 16), ["src/de/mod.rs::Deserializer"]);
    assert_eq!(goto(&mut s, "src/de/impls.rs", 3, 19), ["src/crate_root.rs::lib::inner::Helper"]);
    assert_eq!(goto(&mut s, "src/de/impls.rs", 4, 7), ["src/de/mod.rs::Deserializer::deserialize_any"]);
    assert_eq!(goto(&mut s, "tests/t.rs", 1, 20), ["src/de/mod.rs::Deserializer"]);

    let (_d, mut s) = repo(&[
        ("Cargo.toml", "[package]\nname = \"own\"\n"),
        (
            "src/lib.rs",
            "macro_rules! crate_root {\n    () => {\n        mod private;\n    };\n}\n\ncrate_root!();\npub trait Visitor { fn visit(&self); }\npub struct B;\nimpl B { pub fn go(&self) {} }\nmacro_rules! each { ($name:ident, $f:expr) => {}; }\neach!(x, |b: &B| { b.go(); });\n",
        ),
        ("src/private/mod.rs", "use crate::Visitor;\nfn g<V: Visitor>(v: V) { v.visit(); }\n"),
    ]);
    assert_eq!(goto(&mut s, "src/private/mod.rs", 2, 28), ["src/lib.rs::Visitor::visit"]);
    // A macro with arguments, where items go, is still read as an expression of its arguments.
    assert_eq!(goto(&mut s, "src/lib.rs", 12, 22), ["src/lib.rs::B::go"]);
}

#[test]
fn a_glob_the_build_leaves_out_is_followed_only_when_no_kept_glob_has_the_name() {
    // libc's layout: `crate::NLMSG_MIN_TYPE` is re-exported by the crate root's second glob
    // (`new`), and also by a platform module only a left-out `cfg_if!` branch re-exports (`l4re`),
    // deeper behind the first glob: the kept chain of globs wins, at any depth.
    let (_d, mut s) = repo(&[
        ("Cargo.toml", "[package]\nname = \"lc\"\n"),
        ("src/lib.rs", "mod unix;\nmod new;\npub use unix::*;\npub use new::*;\n"),
        (
            "src/unix/mod.rs",
            "cfg_if! {\n    if #[cfg(target_os = \"linux\")] {\n        mod linux;\n        pub use self::linux::*;\n    } else if #[cfg(target_os = \"l4re\")] {\n        mod l4re;\n        pub use self::l4re::*;\n    }\n}\n",
        ),
        ("src/unix/linux.rs", "pub const BATCH: i32 = crate::MIN_TYPE + 1;\n"),
        ("src/unix/l4re.rs", "pub const MIN_TYPE: i32 = 0x10;\n"),
        ("src/new.rs", "pub const MIN_TYPE: i32 = 0x10;\n"),
    ]);
    assert_eq!(goto(&mut s, "src/unix/linux.rs", 1, 31), ["src/new.rs::MIN_TYPE"]);

    // … and a `use` of a left-out branch (`use self::bionic::linux;` for Android) names less than
    // a glob the build keeps (`linux` of `uapi::*`).
    let (_d, mut s) = repo(&[
        ("Cargo.toml", "[package]\nname = \"lc\"\n"),
        ("src/lib.rs", "mod new;\nmod user;\npub use new::*;\n"),
        ("src/user.rs", "pub const B: i32 = crate::MIN_TYPE;\n"),
        (
            "src/new/mod.rs",
            "cfg_if! {\n    if #[cfg(target_os = \"android\")] {\n        mod bionic;\n        use self::bionic::linux;\n    } else if #[cfg(target_os = \"linux\")] {\n        mod uapi;\n        pub(crate) use uapi::*;\n    }\n}\npub use linux::netlink::*;\n",
        ),
        ("src/new/bionic/mod.rs", "pub mod linux;\n"),
        ("src/new/bionic/linux.rs", "pub const OTHER: i32 = 1;\n"),
        ("src/new/uapi/mod.rs", "pub(crate) mod linux;\n"),
        ("src/new/uapi/linux/mod.rs", "pub(crate) mod netlink;\n"),
        ("src/new/uapi/linux/netlink.rs", "pub const MIN_TYPE: i32 = 0x10;\n"),
    ]);
    assert_eq!(goto(&mut s, "src/user.rs", 1, 27), ["src/new/uapi/linux/netlink.rs::MIN_TYPE"]);
}

#[test]
fn a_macro_invocation_names_the_macro_rules_in_scope() {
    // Macros are a namespace of their own: the file's (the innermost definition first), those of
    // the crate's `#[macro_use]` modules, a crate's `#[macro_export]` ones through its root path
    // or an import.
    let (_d, mut s) = repo(&[
        ("Cargo.toml", "[package]\nname = \"pm\"\n"),
        (
            "src/lib.rs",
            "#[macro_use]\nmod macros;\nmacro_rules! here { () => { 1 } }\npub fn f() -> u32 { here!() + there!() + crate::exported!() }\npub fn here() {}\npub fn g() -> u32 {\n    macro_rules! here { () => { 2 } }\n    here!()\n}\n",
        ),
        (
            "src/macros.rs",
            "macro_rules! there { () => { 2 } }\n#[macro_export]\nmacro_rules! exported { () => { 3 } }\n",
        ),
        ("tests/t.rs", "use pm::exported;\nfn t() -> u32 { exported!() + pm::exported!() }\n"),
    ]);
    assert_eq!(goto(&mut s, "src/lib.rs", 4, 21), ["src/lib.rs::here"]);
    assert_eq!(goto(&mut s, "src/lib.rs", 4, 33), ["src/macros.rs::there"]);
    assert_eq!(goto(&mut s, "src/lib.rs", 4, 52), ["src/macros.rs::exported"]);
    assert_eq!(goto(&mut s, "src/lib.rs", 8, 5), ["src/lib.rs::g::here"]);
    assert_eq!(goto(&mut s, "tests/t.rs", 2, 17), ["src/macros.rs::exported"]);
    assert_eq!(goto(&mut s, "tests/t.rs", 2, 35), ["src/macros.rs::exported"]);
    // The function `here` is not the macro's: no reference of it is a macro's invocation.
    assert_eq!(refs(&mut s, "src/lib.rs::here#2"), Vec::<String>::new());
}

#[test]
fn the_bounds_of_generics_and_where_clauses_are_references() {
    // A trait named only in an impl's or a trait's `<A: Tr>` or in a `where` clause is used there,
    // and so is a type in a closure bound (`F: FnMut(&Item)`): a rename must reach them.
    let (_d, mut s) = repo(&[
        ("Cargo.toml", "[package]\nname = \"wx\"\n"),
        (
            "src/lib.rs",
            "pub trait Tr {}\npub struct Item;\npub struct W<A>(A);\nimpl<A: Tr> W<A> where A: Tr {}\npub trait Up<A: Tr> where A: Tr {}\npub fn f<F>(x: F) where F: FnMut(&Item) { let _ = x; }\n",
        ),
    ]);
    assert_eq!(refs(&mut s, "src/lib.rs::Tr"), ["4:9", "4:27", "5:17", "5:30"]);
    assert_eq!(refs(&mut s, "src/lib.rs::Item"), ["6:35"]);
}

#[test]
fn items_in_the_blocks_of_cfg_if_are_declared() {
    // libc's layout: the crate root's modules and their glob re-exports are written inside
    // `cfg_if! { if #[cfg(…)] { … } else { … } }`, nested too.
    let (_d, mut s) = repo(&[
        ("Cargo.toml", "[package]\nname = \"lc\"\n"),
        (
            "src/lib.rs",
            "cfg_if! {\n    if #[cfg(windows)] {\n        mod windows;\n        pub use crate::windows::*;\n    } else {\n        cfg_if! {\n            if #[cfg(unix)] {\n                mod unix;\n                pub use crate::unix::*;\n            }\n        }\n    }\n}\n",
        ),
        ("src/unix.rs", "pub const EFD_CLOEXEC: i32 = 1;\npub fn close(fd: i32) -> i32 { fd }\n"),
        ("src/windows.rs", "pub fn closesocket(fd: i32) -> i32 { fd }\npub fn close(fd: i32) -> i32 { fd }\n"),
        ("tests/t.rs", "fn t() {\n    let flags = lc::EFD_CLOEXEC;\n    lc::close(flags);\n    lc::closesocket(flags);\n}\n"),
    ]);
    assert_eq!(goto(&mut s, "tests/t.rs", 2, 21), ["src/unix.rs::EFD_CLOEXEC"]);
    // Both branches declare `close`: the one the build configuration (x86-64 Linux) keeps is found
    // through the glob of its branch, though the Windows branch is written first.
    assert_eq!(goto(&mut s, "tests/t.rs", 3, 9), ["src/unix.rs::close"]);
    assert_eq!(goto(&mut s, "tests/t.rs", 4, 9), ["src/windows.rs::closesocket"]);
}

#[test]
fn a_types_own_members_are_not_in_scope_inside_it() {
    // tokio's `chan: chan::Tx<T>`: the field's type names the module `chan`, not the field.
    let (_d, mut s) = repo(&[
        ("Cargo.toml", "[package]\nname = \"tk\"\n"),
        ("src/lib.rs", "mod chan;\nmod bounded;\n"),
        ("src/chan.rs", "pub struct Tx;\nimpl Tx {\n    pub fn closed(&self) {}\n}\n"),
        (
            "src/bounded.rs",
            "use crate::chan;\npub struct Sender {\n    chan: chan::Tx,\n}\nimpl Sender {\n    fn closed(&self) {\n        self.chan.closed();\n    }\n}\n",
        ),
        // A class's property is reached through `this`, never bare: `count` is the module's.
        ("web/a.ts", "const count = 1;\nexport class A {\n  count = 2;\n  size = count;\n}\n"),
    ]);
    assert_eq!(goto(&mut s, "src/bounded.rs", 3, 11), Vec::<String>::new());
    assert_eq!(goto(&mut s, "src/bounded.rs", 3, 17), ["src/chan.rs::Tx"]);
    assert_eq!(goto(&mut s, "src/bounded.rs", 7, 19), ["src/chan.rs::Tx::closed"]);
    assert_eq!(goto(&mut s, "web/a.ts", 4, 10), ["web/a.ts::count"]);
}

#[test]
fn another_crates_impl_for_a_standard_type_is_found_where_its_trait_is_imported() {
    let (_d, mut s) = repo(&[
        ("Cargo.toml", "[package]\nname = \"bb\"\n"),
        (
            "src/lib.rs",
            "pub trait BufMut {\n    fn put_i8(&mut self, n: i8);\n}\nimpl BufMut for Vec<u8> {\n    fn put_i8(&mut self, n: i8) {\n        self.push(n as u8);\n    }\n}\n",
        ),
        ("tests/with.rs", "use bb::BufMut;\nfn t() {\n    let mut vec = Vec::new();\n    vec.put_i8(-1);\n}\n"),
        ("tests/without.rs", "fn t() {\n    let mut vec = Vec::new();\n    vec.put_i8(-1);\n}\n"),
        // Another crate's trait of the same name, for the same type: not the one imported.
        ("other/Cargo.toml", "[package]\nname = \"other\"\n"),
        (
            "other/src/lib.rs",
            "pub trait BufMut {\n    fn put_i8(&mut self, n: i8);\n}\nimpl BufMut for Vec<u8> {\n    fn put_i8(&mut self, n: i8) {}\n}\n",
        ),
    ]);
    assert_eq!(goto(&mut s, "tests/with.rs", 4, 9), ["src/lib.rs::u8::put_i8"]);
    assert_eq!(goto(&mut s, "tests/without.rs", 3, 9), Vec::<String>::new());
}

#[test]
fn cfg_attributes_order_globs_by_the_build_configuration() {
    let (_d, mut s) = repo(&[
        ("Cargo.toml", "[package]\nname = \"sy\"\n"),
        (
            "src/lib.rs",
            "#[cfg(any(windows, target_os = \"macos\"))]\nmod other;\n#[cfg(any(windows, target_os = \"macos\"))]\npub use other::*;\n#[cfg(all(unix, not(target_arch = \"aarch64\")))]\nmod linux;\n#[cfg(all(unix, not(target_arch = \"aarch64\")))]\npub use linux::*;\n",
        ),
        ("src/other.rs", "pub fn is_read_closed() -> bool { false }\n"),
        ("src/linux.rs", "pub fn is_read_closed() -> bool { true }\n"),
        ("tests/t.rs", "fn t() {\n    sy::is_read_closed();\n}\n"),
    ]);
    assert_eq!(goto(&mut s, "tests/t.rs", 2, 9), ["src/linux.rs::is_read_closed"]);
}

#[test]
fn deep_chains_of_glob_re_exports_are_followed() {
    // libc's depth: the crate root re-exports `unix::*`, which re-exports `linux_like::*`, and so
    // on down to the architecture's module (six levels there; ten here), every level also
    // importing its parent's names (`use super::*`: a cycle of globs).
    let mut files: Vec<(String, String)> = vec![("Cargo.toml".into(), "[package]\nname = \"lc\"\n".into())];
    let levels = ["unix", "linux_like", "linux", "gnu", "b64", "x86_64", "a", "b", "c", "d"];
    let mut dir = "src".to_string();
    let mut file = "src/lib.rs".to_string();
    for (i, level) in levels.iter().enumerate() {
        let parent = if i == 0 { "" } else { "use super::*;\n" };
        files.push((file.clone(), format!("{parent}mod {level};\npub use self::{level}::*;\n")));
        dir = format!("{dir}/{level}");
        file = format!("{dir}/mod.rs");
    }
    let deepest = file.clone();
    files.push((file, "use super::*;\npub const EFD_CLOEXEC: i32 = 1;\n".into()));
    // A sibling of the first level names the items through the crate root.
    files[1].1.push_str("mod types;\n");
    files.push(("src/types.rs".into(), "pub const FLAGS: i32 = crate::EFD_CLOEXEC | crate::MISSING;\n".into()));
    files.push(("tests/t.rs".into(), "fn t() {\n    let _ = lc::EFD_CLOEXEC;\n}\n".into()));
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let (_d, mut s) = repo(&refs);
    assert_eq!(goto(&mut s, "tests/t.rs", 2, 17), [format!("{deepest}::EFD_CLOEXEC")]);
    assert_eq!(goto(&mut s, "src/types.rs", 1, 31), [format!("{deepest}::EFD_CLOEXEC")]);
    assert_eq!(goto(&mut s, "src/types.rs", 1, 53), Vec::<String>::new());
}

#[test]
fn python_modules_in_a_folder_without_init_are_named_by_their_path() {
    // `shop/` is a namespace package (no `__init__.py`): Python imports `shop.cart` from the root.
    let (_dir, mut s) = repo(&[
        ("shop/cart.py", "class Cart:\n    def total(self):\n        return 1\n"),
        ("shop/pay.py", "from shop.cart import Cart\n\n\ndef pay(c: Cart):\n    return c.total()\n"),
        ("app/main.py", "import shop.cart as carts\n\n\ndef run():\n    return carts.Cart().total()\n"),
    ]);
    let r = call(&mut s, "refs", json!({ "handle": "shop/cart.py::Cart::total" }));
    let sites: Vec<String> = r["refs"]
        .as_array()
        .expect("refs")
        .iter()
        .map(|r| format!("{}:{}:{}", r["path"].as_str().expect("path"), r["line"], r["column"]))
        .collect();
    assert_eq!(sites, ["app/main.py:5:25", "shop/pay.py:5:14"], "{r:#}");
    let deps = call(&mut s, "deps", json!({ "file": "shop/pay.py" }));
    assert_eq!(deps["files"].as_array().expect("files").len(), 1, "{deps:#}");
}
