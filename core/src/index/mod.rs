//! The index: every discovered file with its facts, a global symbol table with portable handles, and
//! the resolved graph (reference sites, call edges, file dependencies, type relations). Built from
//! the facts of all files in one pass of `resolve`; queried by `api`.

mod lookup;
mod modules;
mod resolve;
pub(crate) mod walks;

pub(crate) use lookup::SymbolQuery;

use std::collections::BTreeSet;

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

use crate::discover::SkippedFile;
use crate::facts::{FileFacts, Pos, Symbol, TypeRelKind};
use crate::lang::Language;

pub(crate) type FileId = u32;
pub(crate) type SymId = u32;

/// One indexed file.
#[derive(Clone)]
pub(crate) struct IndexedFile {
    pub path: String,
    pub language: Language,
    /// blake3 of the content, hex.
    pub hash: String,
    pub size: u64,
    // Kept from discovery for the persistent index's stat-based change detection.
    #[allow(dead_code)]
    pub mtime_ms: f64,
    pub lines: u32,
    pub facts: Arc<FileFacts>,
    /// Global id of this file's first symbol.
    pub sym_base: SymId,
}

impl IndexedFile {
    /// The file's bytes as indexed, or None when it changed on disk (or can't be read) since; never
    /// read past its indexed size.
    pub(crate) fn indexed_text(&self, host: &dyn crate::host::Host) -> Option<String> {
        self.as_indexed(host.read_file(&self.path, self.size).ok()?)
    }

    /// Bytes read from disk as text, when they are still the file's indexed content.
    pub(crate) fn as_indexed(&self, bytes: Vec<u8>) -> Option<String> {
        (blake3::hash(&bytes).to_hex().as_str() == self.hash).then(|| String::from_utf8(bytes).ok())?
    }
}

/// A resolved use of a symbol.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct RefSite {
    pub target: SymId,
    pub file: FileId,
    pub pos: Pos,
    /// Length of the name at `pos`, in characters (the written name: an alias's uses are the alias).
    pub len: u32,
    /// The innermost enclosing symbol (global id); `None` for file-level code.
    pub enclosing: Option<SymId>,
    pub call: bool,
    /// The site is a name in an import or re-export statement.
    pub import: bool,
    /// The site is a use of an import alias (`_` of `import gettext_lazy as _`): the declaration is
    /// used and called there, but its name is not written there (find-references leaves it out).
    pub alias: bool,
}

impl RefSite {
    /// `import` (a name in an import or re-export), `call` or `reference`: how every answer and
    /// the artifact name the kind of a use.
    pub fn kind(&self) -> &'static str {
        if self.import {
            "import"
        } else if self.call {
            "call"
        } else {
            "reference"
        }
    }
}

/// An import alias bound to a concrete declaration (`import { a as b }`, `use x::Y`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct ImportBinding {
    pub file: FileId,
    pub alias: String,
    pub pos: Pos,
    pub target: SymId,
}

/// What makes one file depend on another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) enum DepVia {
    /// The file's import statement of this index (the first that names the file).
    Import(u32),
    /// The file's `mod` declaration of this index (Rust).
    Mod(u32),
    /// A type used without an import (Java: the same package, a wildcard import).
    Use,
}

/// The resolved graph.
#[derive(Default)]
pub(crate) struct Graph {
    /// Sorted by (target, file, pos).
    pub refs: Vec<RefSite>,
    /// Indices into `refs`, grouped by the enclosing symbol (for callees).
    pub refs_by_enclosing: HashMap<SymId, Vec<u32>>,
    /// Indices into `refs`, per file (for goto), in position order.
    pub refs_by_file: Vec<Vec<u32>>,
    /// Rust impl members and Go methods, by the type they belong to.
    pub impl_members: HashMap<SymId, Vec<SymId>>,
    pub deps: Vec<BTreeSet<FileId>>,
    pub rdeps: Vec<BTreeSet<FileId>>,
    /// Per file, the files it depends on (as `deps`) with what made each dependency, by file id.
    pub dep_via: Vec<Vec<(FileId, DepVia)>>,
    /// (subtype, kind, supertype).
    pub supertypes: Vec<(SymId, TypeRelKind, SymId)>,
    pub import_bindings: Vec<ImportBinding>,
    /// Import aliases that bind a namespace/glob or could not be resolved to a declaration.
    pub unbound_imports: u64,
    /// Call sites whose callee could not be proven, by the callee's last name.
    pub unresolved_calls: HashMap<String, u32>,
    pub unresolved_refs: u64,
    pub resolved_refs: u64,
    /// Per file (by id): its share of the counters above, kept so one file can be re-resolved alone.
    pub file_stats: Vec<resolve::FileRefs>,
}

/// The part of a graph that can't be derived cheaply, as the snapshot stores it: a warm start with
/// nothing changed reads it instead of resolving every file again.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct GraphParts {
    refs: Vec<RefSite>,
    refs_by_file: Vec<Vec<u32>>,
    impl_members: Vec<(SymId, Vec<SymId>)>,
    deps: Vec<Vec<(FileId, DepVia)>>,
    supertypes: Vec<(SymId, TypeRelKind, SymId)>,
    import_bindings: Vec<ImportBinding>,
    file_stats: Vec<resolve::FileRefs>,
}

impl Graph {
    /// What the snapshot stores of this graph.
    pub fn parts(&self) -> GraphParts {
        let mut impl_members: Vec<(SymId, Vec<SymId>)> =
            self.impl_members.iter().map(|(&t, m)| (t, m.clone())).collect();
        impl_members.sort();
        GraphParts {
            refs: self.refs.clone(),
            refs_by_file: self.refs_by_file.clone(),
            impl_members,
            deps: self.dep_via.clone(),
            supertypes: self.supertypes.clone(),
            import_bindings: self.import_bindings.clone(),
            file_stats: self
                .file_stats
                .iter()
                .map(|f| resolve::FileRefs {
                    refs: Vec::new(),
                    bindings: Vec::new(),
                    resolved: f.resolved,
                    unresolved: f.unresolved.clone(),
                    unbound_imports: f.unbound_imports.clone(),
                    unresolved_calls: f.unresolved_calls.clone(),
                })
                .collect(),
        }
    }

    /// The graph a snapshot stored, with what is derived from it rebuilt; `None` when it doesn't fit
    /// `files` files (then the caller resolves).
    fn from_parts(parts: GraphParts, files: usize) -> Option<Graph> {
        if parts.refs_by_file.len() != files || parts.deps.len() != files || parts.file_stats.len() != files {
            return None;
        }
        let mut graph = Graph {
            refs_by_file: parts.refs_by_file,
            impl_members: parts.impl_members.into_iter().collect(),
            supertypes: parts.supertypes,
            import_bindings: parts.import_bindings,
            file_stats: parts.file_stats,
            ..Graph::default()
        };
        for (i, r) in parts.refs.iter().enumerate() {
            if let Some(e) = r.enclosing {
                graph.refs_by_enclosing.entry(e).or_default().push(i as u32);
            }
        }
        graph.refs = parts.refs;
        graph.set_deps(parts.deps);
        graph.total_stats();
        Some(graph)
    }

    /// Sets the dependencies (with what made each, sorted by file) and derives `deps` and `rdeps`.
    fn set_deps(&mut self, dep_via: Vec<Vec<(FileId, DepVia)>>) {
        self.deps = dep_via.iter().map(|d| d.iter().map(|&(f, _)| f).collect()).collect();
        self.rdeps = vec![BTreeSet::new(); dep_via.len()];
        for (fid, d) in self.deps.iter().enumerate() {
            for &t in d {
                self.rdeps[t as usize].insert(fid as FileId);
            }
        }
        self.dep_via = dep_via;
    }

    /// Sums the per-file counters into the graph's totals.
    fn total_stats(&mut self) {
        self.resolved_refs = self.file_stats.iter().map(|f| f.resolved).sum();
        self.unresolved_refs = self.file_stats.iter().map(|f| f.unresolved.len() as u64).sum();
        self.unbound_imports = self.file_stats.iter().map(|f| f.unbound_imports.len() as u64).sum();
        self.unresolved_calls.clear();
        for name in self.file_stats.iter().flat_map(|f| &f.unresolved_calls) {
            *self.unresolved_calls.entry(name.clone()).or_default() += 1;
        }
    }
}

pub(crate) struct Index {
    pub files: Vec<IndexedFile>,
    pub by_path: HashMap<String, FileId>,
    pub skipped: Vec<SkippedFile>,
    pub other_files: u64,
    /// Global symbol id → (file, local index).
    pub syms: Vec<(FileId, u32)>,
    pub handles: Vec<String>,
    /// `Container::name` of each symbol (the handle without its path).
    pub qualified: Vec<String>,
    /// Lower-cased names, for case-insensitive lookups without allocating per query.
    pub names_lower: Vec<String>,
    pub by_handle: HashMap<String, SymId>,
    pub graph: Graph,
    /// The lexical index for search and explore, built on first use from these very files.
    pub text: std::sync::OnceLock<crate::text::TextIndex>,
}

/// What the resolver needs besides the facts: the text of config files (tsconfig, go.mod, Cargo.toml).
pub(crate) type ConfigTexts = HashMap<String, String>;

impl Index {
    /// Builds the index; `prior` is a graph the snapshot stored for exactly these files and configs,
    /// used instead of resolving when it fits.
    pub fn build(
        files: Vec<IndexedFile>,
        skipped: Vec<SkippedFile>,
        other_files: u64,
        configs: &ConfigTexts,
        prior: Option<GraphParts>,
    ) -> Index {
        let mut files = files;
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let mut syms = Vec::new();
        for (fid, f) in files.iter_mut().enumerate() {
            f.sym_base = syms.len() as SymId;
            for local in 0..f.facts.symbols.len() {
                syms.push((fid as FileId, local as u32));
            }
        }
        let by_path = files.iter().enumerate().map(|(i, f)| (f.path.clone(), i as FileId)).collect();
        let mut index = Index {
            files,
            by_path,
            skipped,
            other_files,
            syms,
            handles: Vec::new(),
            qualified: Vec::new(),
            names_lower: Vec::new(),
            by_handle: HashMap::default(),
            graph: Graph::default(),
            text: std::sync::OnceLock::new(),
        };
        index.assign_handles();
        let n = index.files.len();
        index.graph = match prior.and_then(|p| Graph::from_parts(p, n)) {
            Some(graph) => graph,
            None => resolve::resolve(&index, configs),
        };
        index
    }

    /// Takes in new versions of indexed files and re-resolves only them, when each keeps its
    /// interface (`same_interface`). Otherwise changes nothing and hands the files back: what other
    /// files resolved through them may have changed, so a full build is needed.
    pub fn update(&mut self, changed: Vec<IndexedFile>, configs: &ConfigTexts) -> Result<(), Vec<IndexedFile>> {
        let ids: Option<Vec<FileId>> = changed
            .iter()
            .map(|f| {
                let id = *self.by_path.get(&f.path)?;
                let old = &self.files[id as usize];
                (old.language == f.language && same_interface(&old.facts, &f.facts)).then_some(id)
            })
            .collect();
        let Some(ids) = ids else { return Err(changed) };
        for (&id, mut file) in ids.iter().zip(changed) {
            file.sym_base = self.files[id as usize].sym_base;
            self.files[id as usize] = file;
        }
        let mut graph = std::mem::take(&mut self.graph);
        resolve::re_resolve(self, configs, &mut graph, &ids);
        self.graph = graph;
        // The lexical index described the old files; whoever keeps it must update it (the session does).
        self.text = std::sync::OnceLock::new();
        Ok(())
    }

    pub fn symbol(&self, id: SymId) -> &Symbol {
        let (file, local) = self.syms[id as usize];
        &self.files[file as usize].facts.symbols[local as usize]
    }

    pub fn file_of(&self, id: SymId) -> FileId {
        self.syms[id as usize].0
    }

    pub fn global(&self, file: FileId, local: u32) -> SymId {
        self.files[file as usize].sym_base + local
    }

    /// `Container::name` within the file: enclosing classes, traits, inline modules and functions,
    /// with Rust impl members and Go methods under their type's name.
    pub fn qualified_name(&self, id: SymId) -> String {
        let (file, local) = self.syms[id as usize];
        qualified_in(&self.files[file as usize].facts.symbols, local)
    }

    fn assign_handles(&mut self) {
        let mut seen: HashMap<String, u32> = HashMap::default();
        self.handles = Vec::with_capacity(self.syms.len());
        for id in 0..self.syms.len() as SymId {
            let qualified = self.qualified_name(id);
            let base = format!("{}::{}", self.files[self.file_of(id) as usize].path, qualified);
            self.qualified.push(qualified);
            self.names_lower.push(self.symbol(id).name.to_lowercase());
            let n = seen.entry(base.clone()).or_insert(0);
            *n += 1;
            // Overloads and same-named items in one file stay addressable: the second is `#2`.
            let handle = if *n == 1 { base } else { format!("{base}#{n}") };
            self.by_handle.insert(handle.clone(), id);
            self.handles.push(handle);
        }
    }
}

/// `Container::name` of symbol `local` among a file's symbols: enclosing classes, traits, inline
/// modules and functions, with Rust impl members and Go methods under their type's name.
pub(crate) fn qualified_in(symbols: &[Symbol], local: u32) -> String {
    let mut parts = vec![symbols[local as usize].name.clone()];
    let mut cur = Some(local);
    while let Some(c) = cur {
        let sym = &symbols[c as usize];
        if let Some(ty) = sym.impl_of.as_ref().and_then(|p| p.last()) {
            parts.push(ty.clone());
        }
        cur = sym.container;
        if let Some(parent) = cur {
            parts.push(symbols[parent as usize].name.clone());
        }
    }
    parts.reverse();
    parts.join("::")
}

/// Whether two versions of a file look the same from other files: the same declarations (names,
/// kinds, nesting, exports, impl targets, declared return types), imports and re-exports, type
/// relations, module declarations, package and locals — positions and bodies may differ.
fn same_interface(a: &FileFacts, b: &FileFacts) -> bool {
    let symbols = same_by(&a.symbols, &b.symbols, |x, y| {
        x.name == y.name
            && x.kind == y.kind
            && x.container == y.container
            && x.impl_of == y.impl_of
            && x.impl_trait == y.impl_trait
            && x.exported == y.exported
            && x.default_export == y.default_export
            && x.returns == y.returns
            && x.init == y.init
            && x.params == y.params
    });
    let imports = same_by(&a.imports, &b.imports, |x, y| {
        x.module == y.module
            && x.kind == y.kind
            && x.reexport == y.reexport
            && x.scope == y.scope
            && same_by(&x.items, &y.items, |i, j| i.name == j.name && i.alias == j.alias)
    });
    let relations = same_by(&a.relations, &b.relations, |x, y| {
        x.symbol == y.symbol && x.subject == y.subject && x.kind == y.kind && x.target == y.target
    });
    let mods = same_by(&a.mods, &b.mods, |x, y| x.name == y.name && x.scope == y.scope && x.path_attr == y.path_attr);
    symbols
        && imports
        && relations
        && mods
        && a.package == b.package
        && a.export_names == b.export_names
        && a.locals == b.locals
}

/// Two lists of the same length whose elements pair up under `same`.
fn same_by<T>(a: &[T], b: &[T], same: impl Fn(&T, &T) -> bool) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

/// Normalises a root-relative path (`a/./b/../c` → `a/c`); `None` when it climbs out of the root.
pub(crate) fn normalize_path(path: &str) -> Option<String> {
    modules::normalize(path)
}
