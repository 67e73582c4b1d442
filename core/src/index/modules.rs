//! Module resolution per language: which file (or package) a module specifier names.
//! - JS/TS: relative paths with extension and index probing, tsconfig/jsconfig `baseUrl` and `paths`
//!   (JSONC, following relative `extends`).
//! - Python: package roots found from `__init__.py` chains, absolute and relative module names.
//! - Rust: crates from `Cargo.toml`, the module tree from `mod` declarations (`x.rs`, `x/mod.rs`,
//!   `#[path]`), inline modules.
//! - Go: the module path from `go.mod`, packages as directories.
//! - Java: packages from `package` declarations.
//! - C/C++: `#include` relative to the file, then the include directories of
//!   `compile_commands.json`, then `include/` directories, then a unique file of that path; the
//!   names with external linkage, and C++ namespaces by qualified name.
//! - C#: namespaces from `namespace` declarations.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::{ConfigTexts, FileId, IndexedFile, SymId};
use crate::facts::{ModDecl, SymbolKind};
use crate::lang::Language;

fn dir_of(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

fn join(dir: &str, rel: &str) -> String {
    if dir.is_empty() {
        rel.to_string()
    } else {
        format!("{dir}/{rel}")
    }
}

/// The indexed file at `rel` taken from folder `dir` (`""` is the root), `.` and `..` followed.
pub(crate) fn file_in(by_path: &HashMap<String, FileId>, dir: &str, rel: &str) -> Option<FileId> {
    normalize(&join(dir, rel)).and_then(|p| by_path.get(&p).copied())
}

/// The indexed file at `rel` from the folder of file `from`.
pub(crate) fn file_beside(by_path: &HashMap<String, FileId>, from: &str, rel: &str) -> Option<FileId> {
    file_in(by_path, dir_of(from), rel)
}

/// Normalises `a/./b/../c` → `a/c`; None when it climbs above the root.
pub(crate) fn normalize(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(out.join("/"))
}

/// A tsconfig's resolution settings, paths made root-relative.
#[derive(Clone, Debug, Default)]
struct TsConfig {
    base_url: Option<String>,
    /// (pattern, targets), targets relative to the root.
    paths: Vec<(String, Vec<String>)>,
}

pub(crate) struct JsModules {
    /// Directory of each tsconfig/jsconfig → its settings.
    configs: BTreeMap<String, TsConfig>,
}

const JS_EXTENSIONS: [&str; 9] = [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"];

impl JsModules {
    pub fn new(configs: &ConfigTexts) -> JsModules {
        let mut out = BTreeMap::new();
        for path in configs.keys() {
            let name = path.rsplit('/').next().unwrap_or(path);
            if name == "tsconfig.json" || name == "jsconfig.json" {
                let dir = dir_of(path).to_string();
                // tsconfig.json wins over jsconfig.json in the same directory.
                if name == "jsconfig.json" && out.contains_key(&dir) {
                    continue;
                }
                out.insert(dir, load_tsconfig(configs, path, 0));
            }
        }
        JsModules { configs: out }
    }

    fn config_for(&self, file: &str) -> Option<&TsConfig> {
        let mut dir = dir_of(file);
        loop {
            if let Some(c) = self.configs.get(dir) {
                return Some(c);
            }
            if dir.is_empty() {
                return None;
            }
            dir = dir_of(dir);
        }
    }

    /// The file a specifier written in `from` names, if it is in the index.
    pub fn resolve(&self, by_path: &HashMap<String, FileId>, from: &str, spec: &str) -> Option<FileId> {
        if spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".." {
            let base = normalize(&join(dir_of(from), spec))?;
            return probe(by_path, &base);
        }
        let config = self.config_for(from)?;
        for (pattern, targets) in &config.paths {
            let captured = match pattern.split_once('*') {
                Some((prefix, suffix)) => {
                    spec.strip_prefix(prefix).and_then(|rest| rest.strip_suffix(suffix)).map(str::to_string)
                }
                None => (spec == pattern).then(String::new),
            };
            let Some(captured) = captured else { continue };
            for target in targets {
                let candidate = normalize(&target.replace('*', &captured))?;
                if let Some(f) = probe(by_path, &candidate) {
                    return Some(f);
                }
            }
        }
        let base = config.base_url.as_ref()?;
        probe(by_path, &normalize(&join(base, spec))?)
    }
}

fn probe(by_path: &HashMap<String, FileId>, base: &str) -> Option<FileId> {
    if let Some(&f) = by_path.get(base) {
        return Some(f);
    }
    // ESM TypeScript imports `./x.js` meaning `./x.ts`.
    for (js, ts) in
        [(".js", [".ts", ".tsx"]), (".jsx", [".tsx", ".ts"]), (".mjs", [".mts", ".ts"]), (".cjs", [".cts", ".ts"])]
    {
        if let Some(stem) = base.strip_suffix(js) {
            for ext in ts {
                if let Some(&f) = by_path.get(&format!("{stem}{ext}")) {
                    return Some(f);
                }
            }
        }
    }
    for ext in JS_EXTENSIONS {
        if let Some(&f) = by_path.get(&format!("{base}{ext}")) {
            return Some(f);
        }
    }
    for ext in JS_EXTENSIONS {
        if let Some(&f) = by_path.get(&join(base, &format!("index{ext}"))) {
            return Some(f);
        }
    }
    None
}

fn load_tsconfig(configs: &ConfigTexts, path: &str, depth: u32) -> TsConfig {
    let Some(text) = configs.get(path) else { return TsConfig::default() };
    let Ok(value) = json5::from_str::<serde_json::Value>(text) else { return TsConfig::default() };
    let dir = dir_of(path);
    let mut config = match value.get("extends").and_then(|e| e.as_str()) {
        Some(ext) if depth < 8 && (ext.starts_with("./") || ext.starts_with("../")) => {
            let target = normalize(&join(dir, ext)).unwrap_or_default();
            let target = if target.ends_with(".json") { target } else { format!("{target}.json") };
            load_tsconfig(configs, &target, depth + 1)
        }
        _ => TsConfig::default(),
    };
    let Some(opts) = value.get("compilerOptions") else { return config };
    if let Some(base) = opts.get("baseUrl").and_then(|b| b.as_str()) {
        config.base_url = normalize(&join(dir, base));
    }
    if let Some(paths) = opts.get("paths").and_then(|p| p.as_object()) {
        // `paths` are relative to baseUrl when it is set, else to the tsconfig's directory.
        let base = config.base_url.clone().unwrap_or_else(|| dir.to_string());
        config.paths = paths
            .iter()
            .map(|(pattern, targets)| {
                let targets = targets
                    .as_array()
                    .map(|a| a.iter().filter_map(|t| t.as_str()).map(|t| join(&base, t)).collect())
                    .unwrap_or_default();
                (pattern.clone(), targets)
            })
            .collect();
        // The most specific pattern (longest prefix) is tried first, as TypeScript does.
        config.paths.sort_by_key(|(p, _)| std::cmp::Reverse(p.split('*').next().map_or(0, str::len)));
    }
    config
}

/// Python modules by dotted name.
pub(crate) struct PyModules {
    pub by_name: HashMap<String, FileId>,
    /// The dotted module name of each Python file.
    pub name_of: HashMap<FileId, String>,
}

impl PyModules {
    pub fn new(files: &[IndexedFile], by_path: &HashMap<String, FileId>) -> PyModules {
        let mut by_name = HashMap::default();
        let mut name_of = HashMap::default();
        let mut namespaced = Vec::new();
        for (fid, f) in files.iter().enumerate() {
            if f.language != Language::Python {
                continue;
            }
            let fid = fid as FileId;
            let stem = f.path.strip_suffix(".pyi").or_else(|| f.path.strip_suffix(".py")).unwrap_or(&f.path);
            let mut parts: Vec<&str> = stem.split('/').collect();
            let is_init = parts.last() == Some(&"__init__");
            if is_init {
                parts.pop();
            }
            // Climb while the parent directory is a package (has __init__.py): that finds the package
            // root wherever the repository puts it (`src/`, `py/`, the root itself).
            let mut start = parts.len() - 1;
            if is_init {
                start = parts.len();
            }
            let mut top = start;
            while top > 0 {
                let dir = parts[..top].join("/");
                let init = join(&dir, "__init__.py");
                if by_path.contains_key(&init) || by_path.contains_key(&join(&dir, "__init__.pyi")) {
                    top -= 1;
                } else {
                    break;
                }
            }
            let name = parts[top..].join(".");
            if name.is_empty() {
                continue;
            }
            if top > 0 {
                // In a folder that is no package (no `__init__.py`: a namespace package), the
                // module is also named by its path from the root (`shop/cart.py` is `shop.cart`).
                namespaced.push((parts.join("."), fid));
            }
            name_of.insert(fid, name.clone());
            by_name.entry(name).or_insert(fid);
        }
        // After every file's own name: a path's name never takes a module's own.
        for (name, fid) in namespaced {
            by_name.entry(name).or_insert(fid);
        }
        PyModules { by_name, name_of }
    }

    /// The package a relative import in `file` starts from.
    fn package_of(&self, files: &[IndexedFile], file: FileId) -> Option<String> {
        let name = self.name_of.get(&file)?;
        if files[file as usize].path.ends_with("__init__.py") || files[file as usize].path.ends_with("__init__.pyi") {
            Some(name.clone())
        } else {
            Some(name.rsplit_once('.').map_or(String::new(), |(p, _)| p.to_string()))
        }
    }

    /// The absolute dotted name of a module written in `file` (`..util.text` → `shop.util.text`).
    pub fn absolute(&self, files: &[IndexedFile], file: FileId, spec: &str) -> Option<String> {
        let dots = spec.chars().take_while(|&c| c == '.').count();
        if dots == 0 {
            return Some(spec.to_string());
        }
        let mut package = self.package_of(files, file)?;
        for _ in 1..dots {
            package = package
                .rsplit_once('.')
                .map(|(p, _)| p.to_string())
                .or_else(|| (!package.is_empty()).then(String::new))?;
        }
        let rest = &spec[dots..];
        Some(match (package.is_empty(), rest.is_empty()) {
            (true, _) => rest.to_string(),
            (false, true) => package,
            (false, false) => format!("{package}.{rest}"),
        })
    }
}

/// Where a Rust file sits in its crate's module tree.
#[derive(Clone, Debug)]
pub(crate) struct RustFile {
    pub crate_root: FileId,
    /// The module that declared this file with `mod`: a file, or an inline module symbol.
    pub parent: Option<RustOwner>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RustOwner {
    File(FileId),
    Inline(SymId),
}

pub(crate) struct RustModules {
    pub files: HashMap<FileId, RustFile>,
    /// Module → child name → the child module's file (by module first, so that a name is looked
    /// up borrowed).
    pub children: HashMap<RustOwner, HashMap<String, FileId>>,
    /// Crate names (with `-` as `_`) → crate root file.
    pub crates: HashMap<String, FileId>,
    /// The names (with `-` as `_`) the manifests' dependency tables give crates, the repository's
    /// own and others: a path starting at one the repository doesn't hold is outside it.
    pub dependencies: HashSet<String>,
    /// A file → the other files whose argument-less templates it invokes (`crate_root!();`): the
    /// items those templates declare are the invoking module's.
    pub spliced: HashMap<FileId, Vec<FileId>>,
    /// Files of a package that no crate of it reaches and no `mod` declaration names: no build
    /// compiles them.
    pub uncompiled: HashSet<FileId>,
}

/// The folders of the repository's Cargo packages (of every `Cargo.toml`), sorted.
pub(crate) fn rust_packages(configs: &ConfigTexts) -> Vec<String> {
    let mut dirs: Vec<String> =
        configs.keys().filter(|p| p.rsplit('/').next() == Some("Cargo.toml")).map(|p| dir_of(p).to_string()).collect();
    dirs.sort();
    dirs
}

/// The nearest of the package folders `packages` that holds `path`, if one does.
fn package_holding<'p>(packages: &[String], path: &'p str) -> Option<&'p str> {
    let holds = |dir: &String| dir.is_empty() || path.strip_prefix(dir.as_str()).is_some_and(|r| r.starts_with('/'));
    packages.iter().filter(|d| holds(d)).map(String::len).max().map(|len| &path[..len])
}

/// The folder of the Cargo package a Rust file is in: the nearest of `packages` holding it, else
/// (no manifest above it) its path's first segment.
pub(crate) fn rust_package_of<'p>(packages: &[String], path: &'p str) -> &'p str {
    package_holding(packages, path).unwrap_or_else(|| path.split('/').next().unwrap_or(path))
}

impl RustModules {
    /// The file of `owner`'s child module `name` (`mod name;`).
    pub fn child(&self, owner: RustOwner, name: &str) -> Option<FileId> {
        self.children.get(&owner)?.get(name).copied()
    }

    pub fn new(index: &super::Index, configs: &ConfigTexts) -> RustModules {
        let files = &index.files;
        let by_path = &index.by_path;
        let mut roots: Vec<(FileId, Option<String>)> = Vec::new();
        // The folders of the packages whose crate roots were found.
        let mut packages: Vec<String> = Vec::new();
        let mut dependencies = HashSet::default();
        for (path, text) in configs {
            if !path.ends_with("Cargo.toml") {
                continue;
            }
            let dir = dir_of(path);
            let Ok(value) = text.parse::<toml::Table>() else { continue };
            dependencies.extend(dependency_names(&value));
            let package = value.get("package").and_then(|p| p.get("name")).and_then(|n| n.as_str());
            let lib = value.get("lib");
            let lib_name =
                lib.and_then(|l| l.get("name")).and_then(|n| n.as_str()).or(package).map(|n| n.replace('-', "_"));
            let lib_path = lib.and_then(|l| l.get("path")).and_then(|p| p.as_str()).unwrap_or("src/lib.rs");
            if let Some(&root) = normalize(&join(dir, lib_path)).and_then(|p| by_path.get(&p)) {
                roots.push((root, lib_name.clone()));
                packages.push(dir.to_string());
            }
            // Binaries, tests, examples and benches are crate roots of their own that may use the
            // lib: where the manifest puts them (`[[bin]] path = …`), and where cargo looks
            // (`src/bin/x.rs`, `src/bin/x/main.rs`, `tests/x.rs`, `tests/x/main.rs`, …).
            let targets = ["bin", "test", "example", "bench"].into_iter().filter_map(|t| value.get(t)?.as_array());
            for path in targets.flatten().filter_map(|t| t.get("path")?.as_str()) {
                if let Some(&root) = normalize(&join(dir, path)).and_then(|p| by_path.get(&p)) {
                    roots.push((root, None));
                }
            }
            for (fid, f) in files.iter().enumerate() {
                if f.language != Language::Rust {
                    continue;
                }
                let Some(rel) = f.path.strip_prefix(dir).map(|r| r.trim_start_matches('/')) else { continue };
                if (!dir.is_empty() && !f.path.starts_with(&format!("{dir}/"))) || rel.contains("/src/") {
                    continue;
                }
                let target = |d: &str| {
                    rel.strip_prefix(d).is_some_and(|r| !r.contains('/') || r.split('/').nth(1) == Some("main.rs"))
                };
                let is_root = rel == "src/main.rs"
                    || rel == "build.rs"
                    || ["src/bin/", "tests/", "examples/", "benches/"].into_iter().any(target);
                if is_root {
                    roots.push((fid as FileId, None));
                    packages.push(dir.to_string());
                }
            }
        }
        roots.sort();
        roots.dedup();
        let mut out = RustModules {
            files: HashMap::default(),
            children: HashMap::default(),
            crates: HashMap::default(),
            dependencies,
            spliced: HashMap::default(),
            uncompiled: HashSet::default(),
        };
        for (root, name) in &roots {
            if let Some(name) = name {
                out.crates.entry(name.clone()).or_insert(*root);
            }
        }
        // The files that define each argument-less template, in file order.
        let mut templates: HashMap<&str, Vec<FileId>> = HashMap::default();
        for (fid, f) in files.iter().enumerate() {
            for name in &f.facts.templates {
                templates.entry(name.as_str()).or_default().push(fid as FileId);
            }
        }
        for (root, _) in roots {
            if out.files.contains_key(&root) {
                continue;
            }
            out.files.insert(root, RustFile { crate_root: root, parent: None });
            let mut queue = vec![root];
            while let Some(fid) = queue.pop() {
                let f = &files[fid as usize];
                for decl in f.facts.mods.iter().filter(|d| d.template.is_none()) {
                    out.declare(files, by_path, (fid, root), (fid, decl), &mut queue);
                }
                // `crate_root!();` declares the modules of the template it invokes: the file's own
                // (a `macro_rules!` above), else the first of its crate's files that defines it.
                for name in &f.facts.splices {
                    let defined = templates.get(name.as_str()).into_iter().flatten().copied();
                    let mut in_crate = defined.filter(|t| out.files.get(t).is_some_and(|r| r.crate_root == root));
                    let own = f.facts.templates.contains(name).then_some(fid);
                    let Some(t) = own.or_else(|| in_crate.next()) else { continue };
                    if t != fid {
                        out.spliced.entry(fid).or_default().push(t);
                    }
                    for decl in files[t as usize].facts.mods.iter().filter(|d| d.template.as_ref() == Some(name)) {
                        out.declare(files, by_path, (fid, root), (t, decl), &mut queue);
                    }
                }
            }
        }
        // Files of a package that no `mod` anywhere names and none of its crates reaches are
        // compiled by nobody (`// mod transducer;`): cargo builds only what a crate root reaches.
        let declared: HashSet<&str> = files.iter().flat_map(|f| f.facts.mods.iter().map(|d| d.name.as_str())).collect();
        let in_package = |path: &str| {
            package_holding(&index.rust_packages, path).is_some_and(|dir| packages.iter().any(|p| p == dir))
        };
        for (fid, f) in files.iter().enumerate() {
            let module = match f.path.strip_suffix("/mod.rs") {
                Some(dir) => dir.rsplit('/').next(),
                None => f.path.rsplit('/').next().and_then(|n| n.strip_suffix(".rs")),
            };
            let reached = out.files.contains_key(&(fid as FileId));
            if f.language == Language::Rust
                && !reached
                && in_package(&f.path)
                && module.is_some_and(|m| !declared.contains(m))
            {
                out.uncompiled.insert(fid as FileId);
            }
        }
        // Files no crate reaches are modules of their own (their `crate::` paths stay unresolved).
        for (fid, f) in files.iter().enumerate() {
            if f.language == Language::Rust {
                out.files.entry(fid as FileId).or_insert(RustFile { crate_root: fid as FileId, parent: None });
            }
        }
        out
    }
}

impl RustModules {
    /// Adds the module file a `mod` declaration names to the tree, as a child of `module` (a file
    /// of the crate whose root is `root`, or an inline module around the declaration), and queues
    /// it. The declaration is in `decl_file`: `module` itself, or a template `module` invokes.
    fn declare(
        &mut self,
        files: &[IndexedFile],
        by_path: &HashMap<String, FileId>,
        (module, root): (FileId, FileId),
        (decl_file, decl): (FileId, &ModDecl),
        queue: &mut Vec<FileId>,
    ) {
        let path = &files[module as usize].path;
        let name = path.rsplit('/').next().unwrap_or(path);
        // mod.rs, lib.rs, main.rs and crate roots own their directory; `foo.rs` owns `foo/`.
        let owns_dir = name == "mod.rs" || module == root;
        let module_dir = if owns_dir { dir_of(path).to_string() } else { path.trim_end_matches(".rs").to_string() };
        let f = &files[decl_file as usize];
        // Inline module nesting adds directories: `mod a { mod b; }` → a/b.rs.
        let mut inline_dirs = Vec::new();
        let mut scope = decl.scope;
        while let Some(s) = scope {
            let sym = &f.facts.symbols[s as usize];
            if sym.kind == SymbolKind::Module {
                inline_dirs.push(sym.name.clone());
            }
            scope = sym.container;
        }
        inline_dirs.reverse();
        let mut dir = module_dir;
        for d in &inline_dirs {
            dir = join(&dir, d);
        }
        let candidates = match &decl.path_attr {
            Some(p) => {
                vec![normalize(&join(if inline_dirs.is_empty() { dir_of(path) } else { &dir }, p)).unwrap_or_default()]
            }
            None => vec![join(&dir, &format!("{}.rs", decl.name)), join(&dir, &format!("{}/mod.rs", decl.name))],
        };
        let Some(&child) = candidates.iter().find_map(|c| by_path.get(c)) else { return };
        let owner = match decl.scope.and_then(|s| nearest_module(f, s)) {
            Some(local) => RustOwner::Inline(f.sym_base + local),
            None => RustOwner::File(module),
        };
        self.children.entry(owner).or_default().insert(decl.name.clone(), child);
        if let std::collections::hash_map::Entry::Vacant(e) = self.files.entry(child) {
            e.insert(RustFile { crate_root: root, parent: Some(owner) });
            queue.push(child);
        }
    }
}

/// The crate names a Cargo manifest's dependency tables declare (`[dependencies]`,
/// `[dev-dependencies]`, `[build-dependencies]`, and each `[target.'cfg(…)'.*]` one): the keys,
/// which code spells with `_` for `-` (a `package = "…"` rename keeps the key).
fn dependency_names(manifest: &toml::Table) -> Vec<String> {
    const TABLES: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    let targets = manifest.get("target").and_then(|t| t.as_table()).into_iter().flat_map(|t| t.values());
    std::iter::once(manifest)
        .chain(targets.filter_map(|t| t.as_table()))
        .flat_map(|table| TABLES.iter().filter_map(|k| table.get(*k).and_then(|d| d.as_table())))
        .flat_map(|deps| deps.keys())
        .map(|k| k.replace('-', "_"))
        .collect()
}

/// The nearest enclosing inline module of a local symbol index (itself included).
pub(crate) fn nearest_module(f: &IndexedFile, local: u32) -> Option<u32> {
    let mut cur = Some(local);
    while let Some(c) = cur {
        let sym = &f.facts.symbols[c as usize];
        if sym.kind == SymbolKind::Module {
            return Some(c);
        }
        cur = sym.container;
    }
    None
}

/// Go modules and packages.
pub(crate) struct GoModules {
    /// (directory of go.mod, module path), longest directory first.
    modules: Vec<(String, String)>,
    /// Directory → its Go files (test files included; `non_test` filters them).
    pub dirs: HashMap<String, Vec<FileId>>,
}

impl GoModules {
    pub fn new(files: &[IndexedFile], configs: &ConfigTexts) -> GoModules {
        let mut modules: Vec<(String, String)> = configs
            .iter()
            .filter(|(p, _)| p.ends_with("go.mod"))
            .filter_map(|(p, text)| {
                let module =
                    text.lines().find_map(|l| l.trim().strip_prefix("module "))?.trim().trim_matches('"').to_string();
                Some((dir_of(p).to_string(), module))
            })
            .collect();
        modules.sort_by_key(|(d, _)| std::cmp::Reverse(d.len()));
        let mut dirs: HashMap<String, Vec<FileId>> = HashMap::default();
        for (fid, f) in files.iter().enumerate() {
            if f.language == Language::Go {
                dirs.entry(dir_of(&f.path).to_string()).or_default().push(fid as FileId);
            }
        }
        GoModules { modules, dirs }
    }

    /// The directory an import path names, if it is inside one of the repository's Go modules.
    pub fn resolve(&self, import: &str) -> Option<String> {
        for (dir, module) in &self.modules {
            let rest = if import == module {
                Some("")
            } else {
                import.strip_prefix(module.as_str()).and_then(|r| r.strip_prefix('/'))
            };
            if let Some(rest) = rest {
                let target = join(dir, rest);
                let target = target.trim_end_matches('/').to_string();
                if self.dirs.contains_key(&target) {
                    return Some(target);
                }
            }
        }
        None
    }

    pub fn dir_of_file(path: &str) -> String {
        dir_of(path).to_string()
    }
}

/// Java packages → their files.
pub(crate) struct JavaPackages {
    pub files: HashMap<String, Vec<FileId>>,
}

impl JavaPackages {
    pub fn new(files: &[IndexedFile]) -> JavaPackages {
        let mut out: HashMap<String, Vec<FileId>> = HashMap::default();
        // Kotlin shares the JVM's packages: its declarations and Java's are found alike.
        for (fid, f) in files.iter().enumerate() {
            if matches!(f.language, Language::Java | Language::Kotlin) {
                out.entry(f.facts.package.clone().unwrap_or_default()).or_default().push(fid as FileId);
            }
        }
        JavaPackages { files: out }
    }

    pub fn exists(&self, package: &str) -> bool {
        self.files.contains_key(package) || self.files.keys().any(|k| k.starts_with(&format!("{package}.")))
    }
}

/// C and C++: what each file's `#include`s name, what a file sees through them, and the names that
/// link across files.
pub(crate) struct CModules {
    /// Include directories (root-relative) from `compile_commands.json`, then every `include` folder.
    include_dirs: Vec<String>,
    /// (file, import) → the file that `#include` names.
    includes: HashMap<(FileId, u32), FileId>,
    /// The files each C/C++ file includes, directly or through what those include (itself not).
    visible: HashMap<FileId, Vec<FileId>>,
    /// Functions and variables defined at file level with external linkage, by name.
    pub linkage: HashMap<String, Vec<SymId>>,
    /// C++ and C# namespaces by qualified name (`a::b`, C#'s `A.B` written so too): each file's
    /// writing of it.
    pub namespaces: HashMap<String, Vec<SymId>>,
    /// Each namespace symbol's qualified name.
    pub namespace_of: HashMap<SymId, String>,
    /// Declarations outside any namespace, by language and name: C# and PHP's global namespace,
    /// and SQL's objects (tables, views, functions, …: one database's names).
    globals: HashMap<(Language, String), Vec<SymId>>,
    /// Swift modules (`SwiftPM` targets: the files of `Sources/<Target>/`; the rest are one module
    /// named ""), and each Swift file's module.
    pub swift_modules: HashMap<String, Vec<FileId>>,
    pub swift_module_of: HashMap<FileId, String>,
    /// C# types written in several places (`partial class`), Ruby classes and modules written again:
    /// each writing → all of them.
    pub partials: HashMap<SymId, Vec<SymId>>,
    /// PHP types by qualified name (`A::B::C`) → the file Composer's PSR-4 autoloader loads for
    /// that name, when it is indexed and declares it.
    php_autoloaded: HashMap<String, FileId>,
}

/// A file sees at most this many files through its includes (a header chain of a large project).
const MAX_VISIBLE_INCLUDES: usize = 4096;

impl CModules {
    pub fn new(index: &super::Index, configs: &ConfigTexts) -> CModules {
        let files = &index.files;
        let by_path = &index.by_path;
        let mut include_dirs = compile_command_dirs(files, configs);
        let mut dirs: Vec<String> = Vec::new();
        for f in files.iter().filter(|f| f.language.is_c_family()) {
            let mut dir = dir_of(&f.path);
            while !dir.is_empty() {
                if dir == "include" || dir.ends_with("/include") {
                    dirs.push(dir.to_string());
                }
                dir = dir_of(dir);
            }
        }
        dirs.sort();
        dirs.dedup();
        include_dirs.extend(dirs);
        let mut out = CModules {
            include_dirs,
            includes: HashMap::default(),
            visible: HashMap::default(),
            linkage: HashMap::default(),
            namespaces: HashMap::default(),
            namespace_of: HashMap::default(),
            partials: HashMap::default(),
            globals: HashMap::default(),
            swift_modules: HashMap::default(),
            swift_module_of: HashMap::default(),
            php_autoloaded: HashMap::default(),
        };
        let psr4 = psr4_roots(configs);
        for (fid, f) in files.iter().enumerate().filter(|(_, f)| f.language == Language::Swift) {
            let parts: Vec<&str> = f.path.split('/').collect();
            let module = parts
                .windows(3)
                .find(|w| w[0] == "Sources" || w[0] == "Tests")
                .map_or(String::new(), |w| w[1].to_string());
            out.swift_modules.entry(module.clone()).or_default().push(fid as FileId);
            out.swift_module_of.insert(fid as FileId, module);
        }
        for f in files
            .iter()
            .filter(|f| matches!(f.language, Language::CSharp | Language::Sql | Language::Php | Language::Ruby))
        {
            for (local, sym) in f.facts.symbols.iter().enumerate().filter(|(_, s)| s.container.is_none()) {
                out.globals.entry((f.language, sym.name.clone())).or_default().push(f.sym_base + local as u32);
            }
        }
        let mut types: HashMap<String, Vec<SymId>> = HashMap::default();
        let mut by_name: HashMap<&str, Vec<FileId>> = HashMap::default();
        for (fid, f) in files.iter().enumerate().filter(|(_, f)| f.language.is_c_family()) {
            by_name.entry(f.path.rsplit('/').next().unwrap_or(&f.path)).or_default().push(fid as FileId);
        }
        let mut direct: HashMap<FileId, Vec<FileId>> = HashMap::default();
        for f in files.iter().filter(|f| matches!(f.language, Language::CSharp | Language::Php | Language::Ruby)) {
            for (local, sym) in f.facts.symbols.iter().enumerate() {
                let id = f.sym_base + local as u32;
                // A Ruby module is a namespace and a mixin: its writings merge as a class's do.
                if sym.kind == SymbolKind::Module && f.language == Language::Ruby {
                    types.entry(super::qualified_in(&f.facts.symbols, local as u32)).or_default().push(id);
                } else if sym.kind == SymbolKind::Module {
                    let name = super::qualified_in(&f.facts.symbols, local as u32);
                    out.namespaces.entry(name.clone()).or_default().push(id);
                    out.namespace_of.insert(id, name);
                } else if sym.kind.is_type() {
                    let name = super::qualified_in(&f.facts.symbols, local as u32);
                    if f.language == Language::Php {
                        if let Some(file) = psr4_file(&psr4, by_path, &name) {
                            out.php_autoloaded.insert(name.clone(), file);
                        }
                    }
                    types.entry(name).or_default().push(id);
                }
            }
        }
        // PHP has no partial classes: two declarations of one name are alternatives (a polyfill, a
        // stale copy). When the autoloader picks one, the others stand alone; else they are merged.
        types.retain(|name, writings| {
            let Some(&file) = out.php_autoloaded.get(name) else { return true };
            !writings.iter().any(|&w| index.file_of(w) == file)
        });
        for writings in types.into_values().filter(|w| w.len() > 1) {
            for &w in &writings {
                out.partials.insert(w, writings.clone());
            }
        }
        for (fid, f) in files.iter().enumerate().filter(|(_, f)| f.language.is_c_family()) {
            let fid = fid as FileId;
            let mut included = Vec::new();
            for (i, imp) in f.facts.imports.iter().enumerate().filter(|(_, imp)| imp.reexport) {
                if let Some(target) = out.resolve_include(by_path, &by_name, files, &f.path, &imp.module) {
                    out.includes.insert((fid, i as u32), target);
                    if target != fid {
                        included.push(target);
                    }
                }
            }
            direct.insert(fid, included);
            for (local, sym) in f.facts.symbols.iter().enumerate() {
                let id = f.sym_base + local as u32;
                if sym.kind == SymbolKind::Module && f.language == Language::Cpp {
                    let name = super::qualified_in(&f.facts.symbols, local as u32);
                    out.namespaces.entry(name.clone()).or_default().push(id);
                    out.namespace_of.insert(id, name);
                }
                if sym.container.is_none()
                    && sym.exported
                    && !sym.forward
                    && matches!(sym.kind, SymbolKind::Function | SymbolKind::Variable)
                {
                    out.linkage.entry(sym.name.clone()).or_default().push(id);
                }
            }
        }
        for &fid in direct.keys() {
            let mut seen: rustc_hash::FxHashSet<FileId> = std::iter::once(fid).collect();
            let mut queue: std::collections::VecDeque<FileId> = direct[&fid].iter().copied().collect();
            let mut visible = Vec::new();
            while let Some(next) = queue.pop_front() {
                if visible.len() >= MAX_VISIBLE_INCLUDES {
                    break;
                }
                if !seen.insert(next) {
                    continue;
                }
                visible.push(next);
                queue.extend(direct.get(&next).into_iter().flatten().copied());
            }
            out.visible.insert(fid, visible);
        }
        out
    }

    /// The file an `#include` names: relative to the including file (for `"…"`), then in the include
    /// directories, then (for `"…"`) the one file in the repository whose path ends with it.
    fn resolve_include(
        &self,
        by_path: &HashMap<String, FileId>,
        by_name: &HashMap<&str, Vec<FileId>>,
        files: &[IndexedFile],
        from: &str,
        spec: &str,
    ) -> Option<FileId> {
        let (system, spec) = match spec.strip_prefix('<') {
            Some(inner) => (true, inner.trim_end_matches('>')),
            None => (false, spec),
        };
        if spec.is_empty() {
            return None;
        }
        if !system {
            if let Some(f) = file_beside(by_path, from, spec) {
                return Some(f);
            }
        }
        if let Some(f) = self.include_dirs.iter().find_map(|d| file_in(by_path, d, spec)) {
            return Some(f);
        }
        if system {
            return None;
        }
        let name = spec.rsplit('/').next().unwrap_or(spec);
        let suffix = format!("/{}", spec.trim_start_matches("./"));
        let mut matching = by_name
            .get(name)
            .into_iter()
            .flatten()
            .filter(|&&f| files[f as usize].path == spec || files[f as usize].path.ends_with(&suffix));
        match (matching.next(), matching.next()) {
            (Some(&f), None) => Some(f),
            _ => None,
        }
    }

    /// The files `file` sees through its includes.
    pub fn visible(&self, file: FileId) -> &[FileId] {
        self.visible.get(&file).map_or(&[], Vec::as_slice)
    }

    /// The declarations named `name` outside any namespace (C#, PHP) or in the database (SQL).
    pub fn global(&self, language: Language, name: &str) -> &[SymId] {
        self.globals.get(&(language, name.to_string())).map_or(&[], Vec::as_slice)
    }

    /// Of the PHP declarations of the qualified name `qualified`, the one Composer autoloads, when
    /// PSR-4 names its file and one of them is there; else all of them.
    pub fn php_autoload(&self, index: &super::Index, qualified: &str, decls: Vec<SymId>) -> Vec<SymId> {
        match self.php_autoloaded.get(qualified) {
            Some(&file) if decls.len() > 1 && decls.iter().any(|&d| index.file_of(d) == file) => {
                decls.into_iter().filter(|&d| index.file_of(d) == file).collect()
            }
            _ => decls,
        }
    }

    /// The file import `import` of `file` (an `#include`) names.
    pub fn include_of(&self, file: FileId, import: u32) -> Option<FileId> {
        self.includes.get(&(file, import)).copied()
    }
}

/// PSR-4 roots from every `composer.json` (`autoload` and `autoload-dev`): a namespace prefix as
/// the index writes qualified names (`App\\Http\\` → `App::Http::`; `""` for the global namespace)
/// and its root-relative folders, longest prefix first (the order Composer tries them in).
fn psr4_roots(configs: &ConfigTexts) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for (config, text) in configs.iter().filter(|(p, _)| *p == "composer.json" || p.ends_with("/composer.json")) {
        let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else { continue };
        for section in ["autoload", "autoload-dev"] {
            let Some(map) = json.get(section).and_then(|a| a.get("psr-4")).and_then(|m| m.as_object()) else {
                continue;
            };
            for (prefix, dirs) in map {
                let dirs: Vec<&str> = match dirs {
                    serde_json::Value::String(d) => vec![d.as_str()],
                    serde_json::Value::Array(a) => a.iter().filter_map(|d| d.as_str()).collect(),
                    _ => continue,
                };
                let mut prefix = prefix.trim_start_matches('\\').replace('\\', "::");
                if !prefix.is_empty() && !prefix.ends_with("::") {
                    prefix.push_str("::"); // Composer requires the separator; `App` never matches `Apple`.
                }
                let dirs = dirs.into_iter().filter_map(|d| normalize(&join(dir_of(config), d))).collect();
                out.push((prefix, dirs));
            }
        }
    }
    out.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    out
}

/// The indexed file PSR-4 loads the class `qualified` (`A::B::C`) from: for the longest prefix
/// first, the rest of the name as a path under each of its folders.
fn psr4_file(roots: &[(String, Vec<String>)], by_path: &HashMap<String, FileId>, qualified: &str) -> Option<FileId> {
    roots.iter().find_map(|(prefix, dirs)| {
        let rest = qualified.strip_prefix(prefix.as_str())?;
        let rel = format!("{}.php", rest.replace("::", "/"));
        dirs.iter().find_map(|d| file_in(by_path, d, &rel))
    })
}

/// The include directories `compile_commands.json` files give (`-I`, `-iquote`, `-isystem`), made
/// root-relative: the root's absolute path is learnt from an entry whose `file` is an indexed file.
fn compile_command_dirs(files: &[IndexedFile], configs: &ConfigTexts) -> Vec<String> {
    let mut out = Vec::new();
    for (config, text) in configs.iter().filter(|(p, _)| p.ends_with("compile_commands.json")) {
        let Ok(serde_json::Value::Array(entries)) = serde_json::from_str::<serde_json::Value>(text) else {
            continue;
        };
        let config_dir = dir_of(config);
        let mut root_abs: Option<String> = None;
        for e in &entries {
            let directory = e.get("directory").and_then(|d| d.as_str()).unwrap_or("");
            let Some(file) = e.get("file").and_then(|f| f.as_str()) else { continue };
            let file_abs = if file.starts_with('/') { file.to_string() } else { format!("{directory}/{file}") };
            let file_abs = normalize(&file_abs).map(|p| format!("/{p}")).unwrap_or(file_abs);
            if root_abs.is_none() {
                root_abs = files
                    .iter()
                    .filter(|f| f.language.is_c_family())
                    .find(|f| file_abs.ends_with(&format!("/{}", f.path)))
                    .map(|f| file_abs[..file_abs.len() - f.path.len() - 1].to_string());
            }
            let args: Vec<String> = match (e.get("arguments"), e.get("command")) {
                (Some(serde_json::Value::Array(a)), _) => {
                    a.iter().filter_map(|x| x.as_str().map(String::from)).collect()
                }
                (_, Some(serde_json::Value::String(c))) => c.split_whitespace().map(String::from).collect(),
                _ => continue,
            };
            let mut i = 0;
            while i < args.len() {
                let a = &args[i];
                let dir = ["-I", "-iquote", "-isystem"].iter().find_map(|flag| {
                    if a == flag {
                        i += 1;
                        args.get(i).cloned()
                    } else {
                        a.strip_prefix(flag).filter(|r| !r.is_empty()).map(String::from)
                    }
                });
                i += 1;
                let Some(dir) = dir else { continue };
                let abs = if dir.starts_with('/') { dir } else { format!("{directory}/{dir}") };
                let Some(abs) = normalize(&abs).map(|p| format!("/{p}")) else { continue };
                let rel = match &root_abs {
                    Some(root) if abs == *root => Some(String::new()),
                    Some(root) => abs.strip_prefix(&format!("{root}/")).map(String::from),
                    // No entry names an indexed file: relative to the folder the database is in.
                    None => None,
                };
                if let Some(rel) = rel.or_else(|| (!config_dir.is_empty()).then(|| config_dir.to_string())) {
                    if !out.contains(&rel) {
                        out.push(rel);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn normalize_paths() {
        assert_eq!(normalize("a/./b/../c").as_deref(), Some("a/c"));
        assert_eq!(normalize("../x"), None);
    }
}
