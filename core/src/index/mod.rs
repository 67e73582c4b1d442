//! The index: every discovered file with its facts, a global symbol table with portable handles, and
//! the resolved graph (reference sites, call edges, file dependencies, type relations). Built from
//! the facts of all files in one pass of `resolve`; queried by `api`.

mod lookup;
mod modules;
mod resolve;
pub(crate) mod walks;

pub(crate) use lookup::SymbolQuery;
pub(crate) use resolve::FileRefs;

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::{Deserialize, Serialize};
use std::sync::{Arc, OnceLock};

use crate::discover::SkippedFile;
use crate::facts::{FileFacts, Invocation, Pos, Symbol, SymbolKind, TypeRelKind};
use crate::lang::Language;
use crate::snapshot::{Image, LazyFacts, Section, StrColumn};

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
    /// From discovery: the persisted index's stat-based change detection compares it.
    pub mtime_ms: f64,
    pub lines: u32,
    /// Its facts; after a warm start, read from the snapshot the first time they are used.
    pub facts: LazyFacts,
    /// Global id of this file's first symbol.
    pub sym_base: SymId,
}

impl IndexedFile {
    /// The global ids of its symbols (known without reading its facts).
    pub(crate) fn ids(&self) -> std::ops::Range<SymId> {
        self.sym_base..self.sym_base + self.facts.symbol_count()
    }

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

/// Per file, the files it depends on and what made each dependency, sorted by file.
pub(crate) type FileDeps = Vec<Vec<(FileId, DepVia)>>;

/// The file dependency graph alone: per file, the files it imports and the files importing it, each
/// in file order.
pub(crate) struct FileEdges {
    pub imports: Vec<Vec<FileId>>,
    pub importers: Vec<Vec<FileId>>,
}

impl FileEdges {
    fn of(deps: &[Vec<(FileId, DepVia)>]) -> FileEdges {
        let imports: Vec<Vec<FileId>> = deps
            .iter()
            .map(|d| {
                let mut files: Vec<FileId> = d.iter().map(|&(f, _)| f).collect();
                files.sort_unstable();
                files.dedup();
                files
            })
            .collect();
        let mut importers = vec![Vec::new(); imports.len()];
        for (f, list) in imports.iter().enumerate() {
            for &t in list {
                importers[t as usize].push(f as FileId);
            }
        }
        FileEdges { imports, importers }
    }
}

/// The type relations of a graph, apart: what `symbol` and the hierarchy tools read (a warm start
/// reads them from their own section, not the graph).
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Relations {
    /// Rust impl members and Go methods, by the type they belong to, sorted by type.
    pub impl_members: Vec<(SymId, Vec<SymId>)>,
    /// (subtype, kind, supertype).
    pub supertypes: Vec<(SymId, TypeRelKind, SymId)>,
}

impl Relations {
    /// The impl members and Go methods of type `t`.
    pub(crate) fn members_of(&self, t: SymId) -> &[SymId] {
        self.impl_members.binary_search_by_key(&t, |(t, _)| *t).map_or(&[], |at| &self.impl_members[at].1)
    }

    /// The type whose impl block (or receiver) declares member `id`.
    pub(crate) fn owner_of(&self, id: SymId) -> Option<SymId> {
        self.impl_members.iter().find(|(_, members)| members.contains(&id)).map(|(t, _)| *t)
    }

    /// Whether every id names a symbol of `symbols`, and the types are sorted once each.
    pub(crate) fn fits(&self, symbols: usize) -> bool {
        let sym = |s: SymId| (s as usize) < symbols;
        self.impl_members.windows(2).all(|w| w[0].0 < w[1].0)
            && self.impl_members.iter().all(|(t, m)| sym(*t) && m.iter().all(|&s| sym(s)))
            && self.supertypes.iter().all(|&(a, _, b)| sym(a) && sym(b))
    }
}

/// The graph's import bindings, apart: what `symbols --imports` and `graph --depends-on` read (a
/// warm start reads them from their own section, not the graph).
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Imports {
    pub bindings: Vec<ImportBinding>,
    /// Import aliases that bind a namespace/glob or could not be resolved to a declaration.
    pub unbound: u64,
}

impl Imports {
    /// Whether every binding names a file of `files` and a symbol of `symbols`.
    pub(crate) fn fits(&self, files: usize, symbols: usize) -> bool {
        self.bindings.iter().all(|b| (b.file as usize) < files && (b.target as usize) < symbols)
    }
}

/// Import bindings as they are stored, borrowed from a graph.
#[derive(Serialize)]
pub(crate) struct StoredImports<'a> {
    bindings: &'a [ImportBinding],
    unbound: u64,
}

/// Relations as they are stored, borrowed from a graph.
#[derive(Serialize)]
pub(crate) struct StoredRelations<'a> {
    impl_members: Vec<(SymId, &'a [SymId])>,
    supertypes: &'a [(SymId, TypeRelKind, SymId)],
}

/// The resolved graph.
#[derive(Default)]
pub(crate) struct Graph {
    /// Sorted by (target, file, pos).
    pub refs: Vec<RefSite>,
    /// Indices into `refs`, grouped by the enclosing symbol (for callees), made on first use.
    refs_by_enclosing: OnceLock<HashMap<SymId, Vec<u32>>>,
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
    /// Empty in a graph read from the snapshot until an update needs them (`Index::file_stats`).
    pub file_stats: Vec<resolve::FileRefs>,
}

/// The totals of a graph, as the snapshot stores them: its sites are the snapshot's `Sites` (by
/// target, the graph's order), its type relations, import bindings, unresolved call names and
/// dependencies are sections of their own, and the rest is derived from those when it is read.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct GraphParts {
    /// The totals of the per-file counters (which the snapshot stores apart: only an update and
    /// the artifact read them).
    resolved_refs: u64,
    unresolved_refs: u64,
}

/// One file's counters as `resolve::FileRefs` is encoded (without its sites and bindings, which the
/// graph holds), borrowed.
#[derive(Serialize)]
pub(crate) struct StoredFileStats<'a> {
    refs: &'a [RefSite],
    bindings: &'a [ImportBinding],
    resolved: u64,
    unresolved: &'a [(u32, u32)],
    known_stops: &'a [(u32, u32, Box<[SymId]>)],
    unbound_imports: &'a [(u32, u32)],
    outside_imports: &'a [(u32, u32)],
    unresolved_calls: &'a [String],
    uncompiled: bool,
}

impl Graph {
    /// What the snapshot stores of this graph beside its sites and the sections named above.
    pub fn parts(&self) -> GraphParts {
        GraphParts { resolved_refs: self.resolved_refs, unresolved_refs: self.unresolved_refs }
    }

    /// Its import bindings as the snapshot stores them, borrowed.
    pub fn imports_parts(&self) -> StoredImports<'_> {
        StoredImports { bindings: &self.import_bindings, unbound: self.unbound_imports }
    }

    /// Its type relations as the snapshot stores them, borrowed.
    pub fn relations_parts(&self) -> StoredRelations<'_> {
        let mut impl_members: Vec<(SymId, &[SymId])> =
            self.impl_members.iter().map(|(&t, m)| (t, m.as_slice())).collect();
        impl_members.sort_unstable();
        StoredRelations { impl_members, supertypes: &self.supertypes }
    }

    /// Its type relations, as `Relations`.
    fn relations(&self) -> Relations {
        let StoredRelations { impl_members, supertypes } = self.relations_parts();
        Relations {
            impl_members: impl_members.into_iter().map(|(t, m)| (t, m.to_vec())).collect(),
            supertypes: supertypes.to_vec(),
        }
    }

    /// The callee names of unproven call sites with their counts, by name, borrowed.
    pub fn unresolved_calls_parts(&self) -> Vec<(&str, u32)> {
        let mut calls: Vec<(&str, u32)> = self.unresolved_calls.iter().map(|(n, &c)| (n.as_str(), c)).collect();
        calls.sort_unstable();
        calls
    }

    /// The per-file counters as the snapshot stores them, borrowed.
    pub fn file_stats_parts(stats: &[resolve::FileRefs]) -> Vec<StoredFileStats<'_>> {
        stats
            .iter()
            .map(|f| StoredFileStats {
                refs: &[],
                bindings: &[],
                resolved: f.resolved,
                unresolved: &f.unresolved,
                known_stops: &f.known_stops,
                unbound_imports: &f.unbound_imports,
                outside_imports: &f.outside_imports,
                unresolved_calls: &f.unresolved_calls,
                uncompiled: f.uncompiled,
            })
            .collect()
    }

    /// The graph a snapshot stored, its parts each checked as read (every id in range of `files`
    /// files and the index's symbols), with what is derived from them rebuilt (its per-file
    /// counters are read when first needed: `Index::file_stats`).
    fn from_parts(
        parts: GraphParts,
        refs: Vec<RefSite>,
        relations: Relations,
        imports: Imports,
        calls: Vec<(String, u32)>,
        deps: FileDeps,
        files: usize,
    ) -> Graph {
        let mut graph = Graph {
            refs_by_file: resolve::refs_by_file(&refs, files),
            refs,
            impl_members: relations.impl_members.into_iter().collect(),
            supertypes: relations.supertypes,
            import_bindings: imports.bindings,
            resolved_refs: parts.resolved_refs,
            unresolved_refs: parts.unresolved_refs,
            unbound_imports: imports.unbound,
            unresolved_calls: calls.into_iter().collect(),
            ..Graph::default()
        };
        graph.set_deps(deps);
        graph
    }

    /// The indices into `refs` of the sites within each enclosing symbol, in `refs` order.
    pub fn refs_by_enclosing(&self) -> &HashMap<SymId, Vec<u32>> {
        self.refs_by_enclosing.get_or_init(|| {
            let mut by: HashMap<SymId, Vec<u32>> = HashMap::default();
            for (i, r) in self.refs.iter().enumerate() {
                if let Some(e) = r.enclosing {
                    by.entry(e).or_default().push(i as u32);
                }
            }
            by
        })
    }

    /// Sets the reference sites, dropping what was derived from the old ones.
    pub(super) fn set_refs(&mut self, refs: Vec<RefSite>) {
        self.refs = refs;
        self.refs_by_enclosing = OnceLock::new();
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
    /// The folders of the Cargo packages (`modules::rust_packages`).
    rust_packages: Vec<String>,
    /// Global symbol id → (file, local index).
    pub syms: Vec<(FileId, u32)>,
    // Per symbol: its name, lower-cased name (case-insensitive lookups without allocating per
    // query) and `Container::name`; and what makes handles unique. Each is made (or read from the
    // snapshot) when first used.
    names: OnceLock<StrColumn>,
    names_lower: OnceLock<StrColumn>,
    qualified: OnceLock<StrColumn>,
    /// Per symbol: its kind, whether it is exported and whether it is top-level (what a name lookup
    /// or a public API filters and ranks by before it reads any facts).
    traits: OnceLock<Vec<Traits>>,
    /// The graph's counts of sites (`uses`), and the file dependency graph alone. From the graph
    /// when it is read, else from the snapshot (a ranking by either, a walk of imports, reads no
    /// graph).
    counts: OnceLock<Counts>,
    file_edges: OnceLock<FileEdges>,
    /// The graph's type relations and import bindings: the graph's when it is read, else the
    /// snapshot's sections.
    relations: OnceLock<Relations>,
    imports: OnceLock<Imports>,
    handle_numbers: OnceLock<Vec<(SymId, u32)>>,
    graph: OnceLock<Graph>,
    /// The graph's per-file counters, when the graph was read from the snapshot without them.
    file_stats: OnceLock<Vec<resolve::FileRefs>>,
    /// The unresolved call names read from the snapshot while its graph is not.
    unresolved_calls: OnceLock<Result<Vec<(String, u32)>, String>>,
    /// The snapshot's dependency lists, while its graph is not read.
    stored_deps: OnceLock<Result<FileDeps, String>>,
    /// Sites read from the snapshot's blocks so far (after `SITE_READS_BEFORE_GRAPH`, the graph).
    site_reads: std::sync::atomic::AtomicU32,
    /// The snapshot these files, columns and graph were stored in (a warm start), read on demand,
    /// with the configs to resolve again should its graph prove unreadable.
    stored: Option<(Arc<Image>, ConfigTexts)>,
    /// The lexical index for search and explore, built on first use from these very files.
    pub text: std::sync::OnceLock<crate::text::TextIndex>,
}

/// What the graph counts: each symbol's use sites (by id), and the references it resolved and could
/// not.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Counts {
    pub uses: Vec<u32>,
    pub resolved_refs: u64,
    pub unresolved_refs: u64,
}

/// A symbol's kind, whether it is exported and whether it is top-level (in no container), in one
/// byte: the kind's place in `SymbolKind::ALL` in the low five bits, then a bit each. A column of
/// them answers a name lookup's filters and ranking, and a public API's, unread facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Traits(u8);

impl Traits {
    const KIND: u8 = 0x1f;
    const TOP_LEVEL: u8 = 0x40;
    const EXPORTED: u8 = 0x80;

    pub fn of(symbol: &Symbol) -> Traits {
        let top_level = if symbol.container.is_none() { Traits::TOP_LEVEL } else { 0 };
        Traits(symbol.kind as u8 | top_level | if symbol.exported { Traits::EXPORTED } else { 0 })
    }

    /// The traits a stored byte holds, if it holds any.
    pub fn from_byte(byte: u8) -> Option<Traits> {
        let known = byte & !(Traits::KIND | Traits::TOP_LEVEL | Traits::EXPORTED) == 0;
        (known && usize::from(byte & Traits::KIND) < SymbolKind::ALL.len()).then_some(Traits(byte))
    }

    pub fn byte(self) -> u8 {
        self.0
    }

    pub fn kind(self) -> SymbolKind {
        SymbolKind::ALL[usize::from(self.0 & Traits::KIND)]
    }

    pub fn exported(self) -> bool {
        self.0 & Traits::EXPORTED != 0
    }

    pub fn top_level(self) -> bool {
        self.0 & Traits::TOP_LEVEL != 0
    }
}

/// Symbols whose sites are read from the snapshot's blocks before the whole graph is read instead.
const SITE_READS_BEFORE_GRAPH: u32 = 64;

/// What the resolver needs besides the facts: the text of config files (tsconfig, go.mod, Cargo.toml).
pub(crate) type ConfigTexts = HashMap<String, String>;

impl Index {
    /// Builds the index; `stored` is the snapshot of exactly these files under these configs, whose
    /// columns and graph are then read as needed instead of being made again.
    pub fn build(
        files: Vec<IndexedFile>,
        skipped: Vec<SkippedFile>,
        other_files: u64,
        configs: &ConfigTexts,
        stored: Option<Arc<Image>>,
    ) -> Index {
        let mut files = files;
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let mut syms = Vec::new();
        for (fid, f) in files.iter_mut().enumerate() {
            f.sym_base = syms.len() as SymId;
            for local in 0..f.facts.symbol_count() {
                syms.push((fid as FileId, local));
            }
        }
        let by_path = files.iter().enumerate().map(|(i, f)| (f.path.clone(), i as FileId)).collect();
        let mut index = Index {
            files,
            by_path,
            skipped,
            other_files,
            rust_packages: modules::rust_packages(configs),
            syms,
            names: OnceLock::new(),
            names_lower: OnceLock::new(),
            qualified: OnceLock::new(),
            traits: OnceLock::new(),
            counts: OnceLock::new(),
            relations: OnceLock::new(),
            imports: OnceLock::new(),
            file_edges: OnceLock::new(),
            handle_numbers: OnceLock::new(),
            graph: OnceLock::new(),
            file_stats: OnceLock::new(),
            unresolved_calls: OnceLock::new(),
            site_reads: std::sync::atomic::AtomicU32::new(0),
            stored_deps: OnceLock::new(),
            stored: None,
            text: std::sync::OnceLock::new(),
        };
        if let Some(image) = stored {
            index.stored = Some((image, configs.clone()));
        } else {
            let graph = resolve::resolve(&index, configs);
            let _ = index.graph.set(graph);
        }
        index
    }

    /// The folder of the Cargo package a Rust file is in (the nearest manifest's, else the path's
    /// first segment): the files its macros and trait implementations reach without imports.
    pub fn rust_package<'p>(&self, path: &'p str) -> &'p str {
        modules::rust_package_of(&self.rust_packages, path)
    }

    /// The resolved graph (read from the snapshot on first use after a warm start).
    pub fn graph(&self) -> &Graph {
        self.graph.get_or_init(|| {
            let (image, configs) = self.stored.as_ref().expect("an index without a snapshot has its graph");
            let n = self.files.len();
            let graph = image.graph().and_then(|p| {
                let (calls, deps) = (self.stored_unresolved_calls()?.clone(), self.stored_deps()?.clone());
                let refs = image.sites(n, self.syms.len())?;
                let relations = image.relations(self.syms.len())?;
                let imports = image.imports(n, self.syms.len())?;
                Ok(Graph::from_parts(p, refs, relations, imports, calls, deps, n))
            });
            match graph {
                Ok(graph) => graph,
                Err(why) => {
                    image.mark_damaged(why);
                    resolve::resolve(self, configs)
                }
            }
        })
    }

    /// The graph's counters of each file (by id): what each file resolved, and what it could not.
    pub fn file_stats(&self) -> &[resolve::FileRefs] {
        // A graph resolved in this process has them; one read from the snapshot has not (nor is it
        // read for them).
        if self.stored.is_none() {
            return &self.graph().file_stats;
        }
        if let Some(graph) = self.graph.get().filter(|g| g.file_stats.len() == self.files.len()) {
            return &graph.file_stats;
        }
        self.file_stats.get_or_init(|| {
            let (image, configs) = self.stored.as_ref().expect("a graph without counters was read from a snapshot");
            match image.file_stats(self.files.len(), self.syms.len()) {
                Ok(stats) => stats,
                Err(why) => {
                    image.mark_damaged(why);
                    resolve::resolve(self, configs).file_stats
                }
            }
        })
    }

    /// The proven use sites of `id`, in (path, position) order: from the graph when it is read, else
    /// from the blocks of the snapshot's sites that hold them (a warm `refs` or `callers` reads no
    /// graph).
    pub(crate) fn sites_of(&self, id: SymId) -> std::borrow::Cow<'_, [RefSite]> {
        let stored = self
            .few_site_reads()
            .then(|| self.without_graph(|image| image.sites_of(id, self.files.len(), self.syms.len())));
        if let Some(sites) = stored.flatten() {
            return std::borrow::Cow::Owned(sites);
        }
        let refs = &self.graph().refs;
        let start = refs.partition_point(|r| r.target < id);
        let end = refs.partition_point(|r| r.target <= id);
        std::borrow::Cow::Borrowed(&refs[start..end])
    }

    /// The call sites within declaration `id` (what it calls), in the graph's order: from the graph
    /// when it is read, else from the blocks of the snapshot's sites by file that hold them.
    pub(crate) fn calls_in(&self, id: SymId) -> Vec<RefSite> {
        let file = self.file_of(id);
        let stored = self
            .few_site_reads()
            .then(|| self.without_graph(|image| image.sites_within(file, Some(id), self.files.len(), self.syms.len())));
        if let Some(sites) = stored.flatten() {
            return sites.into_iter().filter(|r| r.call).collect();
        }
        let graph = self.graph();
        let within = graph.refs_by_enclosing().get(&id).into_iter().flatten();
        within.map(|&i| graph.refs[i as usize].clone()).filter(|r| r.call).collect()
    }

    /// The sites in `file`, by position, then target: from the graph when it is read, else from
    /// the blocks of the snapshot's sites by file that hold them (a question about many files asks
    /// in file order, and reads each block once).
    pub(crate) fn sites_in_file(&self, file: FileId) -> Vec<RefSite> {
        let stored = self.without_graph(|image| image.sites_in_file(file, self.files.len(), self.syms.len()));
        if let Some(mut sites) = stored {
            // As the graph orders them: by position and target, then in its order.
            sites.sort_unstable_by(|a, b| (a.pos, a.target).cmp(&(b.pos, b.target)).then_with(|| a.cmp(b)));
            return sites;
        }
        let graph = self.graph();
        graph.refs_by_file[file as usize].iter().map(|&i| graph.refs[i as usize].clone()).collect()
    }

    /// Whether a question has read few enough sites from the snapshot's blocks to read more there:
    /// one about many (a ranking by use counts, the calls of many functions) reads the graph once
    /// instead of a block at a time.
    fn few_site_reads(&self) -> bool {
        self.site_reads.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < SITE_READS_BEFORE_GRAPH
    }

    /// The files a file depends on (`forward`) or that depend on it, in file order.
    pub(crate) fn file_deps(&self, file: FileId, forward: bool) -> Vec<FileId> {
        let edges = self.file_edges();
        let lists = if forward { &edges.imports } else { &edges.importers };
        lists[file as usize].clone()
    }

    /// The file dependency graph: from the graph when it is read, else from the snapshot's
    /// dependency lists alone.
    pub(crate) fn file_edges(&self) -> &FileEdges {
        self.file_edges.get_or_init(|| {
            self.without_graph(|_| self.stored_deps().map(|deps| FileEdges::of(deps)))
                .unwrap_or_else(|| FileEdges::of(&self.graph().dep_via))
        })
    }

    /// A part read from the snapshot by `read`, while the graph is not read (once it is, what it
    /// holds is the answer); None then, or when the part fails its check, which marks the snapshot
    /// damaged (the session rebuilds, and meanwhile the caller answers from the graph).
    fn without_graph<T>(&self, read: impl FnOnce(&crate::snapshot::Image) -> Result<T, String>) -> Option<T> {
        let (None, Some((image, _))) = (self.graph.get(), &self.stored) else { return None };
        read(image).map_err(|why| image.mark_damaged(why)).ok()
    }

    /// The snapshot's dependency lists, read once (for `file_deps` and for the graph).
    fn stored_deps(&self) -> Result<&FileDeps, String> {
        let (image, _) = self.stored.as_ref().expect("read from a snapshot");
        self.stored_deps.get_or_init(|| image.deps(self.files.len())).as_ref().map_err(Clone::clone)
    }

    /// The snapshot's unresolved call names, read once (for `unresolved_calls_named` and for the
    /// graph).
    fn stored_unresolved_calls(&self) -> Result<&Vec<(String, u32)>, String> {
        let (image, _) = self.stored.as_ref().expect("read from a snapshot");
        self.unresolved_calls.get_or_init(|| image.unresolved_calls()).as_ref().map_err(Clone::clone)
    }

    /// How many call sites written with callee name `name` could not be proven.
    pub(crate) fn unresolved_calls_named(&self, name: &str) -> Option<u32> {
        let named = |calls: &Vec<(String, u32)>| {
            calls.binary_search_by(|(n, _)| n.as_str().cmp(name)).ok().map(|at| calls[at].1)
        };
        self.without_graph(|_| self.stored_unresolved_calls().map(named))
            .unwrap_or_else(|| self.graph().unresolved_calls.get(name).copied())
    }

    /// Why a part of the snapshot this index reads from could not be trusted, if one could not.
    pub fn damage(&self) -> Option<String> {
        self.stored.as_ref().and_then(|(image, _)| image.damage())
    }

    /// A column read from the snapshot, or made from the facts (when there is no snapshot, or its
    /// column is damaged).
    fn column(&self, section: Section, make: impl FnOnce() -> StrColumn) -> StrColumn {
        if let Some((image, _)) = &self.stored {
            match image.str_column(section, self.syms.len()) {
                Ok(column) => return column,
                Err(why) => image.mark_damaged(why),
            }
        }
        make()
    }

    /// Each symbol's name.
    pub fn names(&self) -> &StrColumn {
        self.names.get_or_init(|| {
            self.column(Section::Names, || {
                StrColumn::build((0..self.syms.len() as SymId).map(|id| self.symbol(id).name.as_str()))
            })
        })
    }

    /// The declarations named exactly `name`, in id order, found in the name column's text (no
    /// file's facts are read).
    pub(crate) fn named(&self, name: &str) -> Vec<SymId> {
        let names = self.names();
        let mut ids = names.holding(name);
        ids.retain(|&id| names[id as usize] == *name);
        ids.dedup();
        ids
    }

    /// Each symbol's name, lower-cased.
    pub fn names_lower(&self) -> &StrColumn {
        self.names_lower.get_or_init(|| {
            self.column(Section::Lower, || {
                let names = self.names();
                StrColumn::build((0..names.len()).map(|i| names[i].to_lowercase()))
            })
        })
    }

    /// `Container::name` of each symbol (the handle without its path).
    pub fn qualified(&self) -> &StrColumn {
        self.qualified.get_or_init(|| {
            self.column(Section::Qualified, || {
                StrColumn::build((0..self.syms.len() as SymId).map(|id| self.qualified_name(id)))
            })
        })
    }

    /// Each symbol's kind, export and whether it is top-level (read from the snapshot, or made from
    /// the facts).
    pub fn traits(&self) -> &[Traits] {
        self.traits.get_or_init(|| {
            if let Some((image, _)) = &self.stored {
                match image.traits(self.syms.len()) {
                    Ok(traits) => return traits,
                    Err(why) => image.mark_damaged(why),
                }
            }
            (0..self.syms.len() as SymId).map(|id| Traits::of(self.symbol(id))).collect()
        })
    }

    /// How many use sites `id` has (what `sites_of` holds).
    pub(crate) fn uses(&self, id: SymId) -> usize {
        self.counts().uses[id as usize] as usize
    }

    /// The graph's counts of sites.
    pub(crate) fn counts(&self) -> &Counts {
        self.counts.get_or_init(|| {
            if let Some(counts) = self.without_graph(|image| image.counts(self.syms.len())) {
                return counts;
            }
            let graph = self.graph();
            let mut uses = vec![0u32; self.syms.len()];
            for r in &graph.refs {
                uses[r.target as usize] += 1;
            }
            Counts { uses, resolved_refs: graph.resolved_refs, unresolved_refs: graph.unresolved_refs }
        })
    }

    /// The graph's type relations (impl members, supertypes): from the graph when it is read, else
    /// from the snapshot's section alone.
    pub(crate) fn relations(&self) -> &Relations {
        self.relations.get_or_init(|| {
            self.without_graph(|image| image.relations(self.syms.len())).unwrap_or_else(|| self.graph().relations())
        })
    }

    /// The graph's import bindings: from the graph when it is read, else from the snapshot's section
    /// alone.
    pub(crate) fn imports(&self) -> &Imports {
        self.imports.get_or_init(|| {
            if let Some(imports) = self.without_graph(|image| image.imports(self.files.len(), self.syms.len())) {
                return imports;
            }
            let graph = self.graph();
            Imports { bindings: graph.import_bindings.clone(), unbound: graph.unbound_imports }
        })
    }

    /// How many files depend on `file`.
    pub(crate) fn dependents(&self, file: FileId) -> usize {
        self.file_edges().importers[file as usize].len()
    }

    /// The symbols whose handle needs a `#n` (the n-th of a `Container::name` in one file: overloads
    /// and same-named items stay addressable), as (id, n) in id order.
    pub fn handle_numbers(&self) -> &[(SymId, u32)] {
        self.handle_numbers.get_or_init(|| {
            if let Some((image, _)) = &self.stored {
                match image.handle_numbers(self.syms.len() as u32) {
                    Ok(numbers) => return numbers,
                    Err(why) => image.mark_damaged(why),
                }
            }
            let qualified = self.qualified();
            let mut numbers = Vec::new();
            for f in &self.files {
                let mut seen: HashMap<&str, u32> = HashMap::default();
                for id in f.ids() {
                    let n = seen.entry(&qualified[id as usize]).or_insert(0);
                    *n += 1;
                    if *n > 1 {
                        numbers.push((id, *n));
                    }
                }
            }
            numbers
        })
    }

    /// A symbol's portable handle: `path::Container::name`, with `#n` for the n-th of that name in
    /// its file.
    pub fn handle(&self, id: SymId) -> String {
        let path = &self.files[self.file_of(id) as usize].path;
        // The column when it is at hand; else from the file's facts (a warm answer about a few
        // symbols reads their files, not every symbol's qualified name).
        let base = match self.qualified.get() {
            Some(qualified) => format!("{path}::{}", &qualified[id as usize]),
            None => format!("{path}::{}", self.qualified_name(id)),
        };
        let numbers = self.handle_numbers();
        match numbers.binary_search_by_key(&id, |&(i, _)| i) {
            Ok(at) => format!("{base}#{}", numbers[at].1),
            Err(_) => base,
        }
    }

    /// The declaration with this handle: its path names the file, the rest one of the file's symbols.
    pub fn find_handle(&self, handle: &str) -> Option<SymId> {
        handle.match_indices("::").find_map(|(at, _)| {
            let file = &self.files[*self.by_path.get(&handle[..at])? as usize];
            file.ids().find(|&id| self.handle(id) == handle)
        })
    }

    /// What the snapshot stores of this index.
    pub(crate) fn stored_parts<'a>(&'a self, options_key: &'a str, configs_key: &'a str) -> crate::snapshot::Parts<'a> {
        // The name columns and the handle numbers (from the qualified names) are independent
        // passes over every symbol: made two at a time.
        crate::join_maybe_parallel(|| self.names_lower(), || self.handle_numbers());
        crate::snapshot::Parts {
            options_key,
            configs_key,
            files: &self.files,
            names: self.names(),
            lower: self.names_lower(),
            qualified: self.qualified(),
            traits: self.traits(),
            counts: self.counts(),
            handle_numbers: self.handle_numbers(),
            graph: self.graph(),
            relations: self.graph().relations_parts(),
            imports: self.graph().imports_parts(),
            file_stats: Graph::file_stats_parts(self.file_stats()),
            unresolved_calls: self.graph().unresolved_calls_parts(),
            deps: &self.graph().dep_via,
        }
    }

    /// Takes in new versions of indexed files and re-resolves only them, when each keeps its
    /// interface (`same_interface`). Otherwise changes nothing and hands the files back: what other
    /// files resolved through them may have changed, so a full build is needed.
    pub fn update(&mut self, changed: Vec<IndexedFile>, configs: &ConfigTexts) -> Result<(), Vec<IndexedFile>> {
        // The macros whose invocations other files' templates read (`FileFacts::invocations`): those
        // of other names (`println!`) are a body's like any call.
        let macros: HashSet<&str> = self
            .files
            .iter()
            .chain(&changed)
            .flat_map(|f| f.facts.macro_rules.iter().map(|m| f.facts.symbols[m.symbol as usize].name.as_str()))
            .collect();
        let ids: Option<Vec<FileId>> = changed
            .iter()
            .map(|f| {
                let id = *self.by_path.get(&f.path)?;
                let old = &self.files[id as usize];
                (old.language == f.language && same_interface(&old.facts, &f.facts, &macros)).then_some(id)
            })
            .collect();
        let Some(ids) = ids else { return Err(changed) };
        // Everything read from the snapshot that the new files change is taken out of it first.
        self.graph();
        self.file_stats();
        self.qualified();
        self.handle_numbers();
        for (&id, mut file) in ids.iter().zip(changed) {
            file.sym_base = self.files[id as usize].sym_base;
            self.files[id as usize] = file;
        }
        // Same interface: same names, containers and handles; only positions and bodies changed.
        let mut graph = self.graph.take().expect("read above");
        if let Some(stats) = self.file_stats.take() {
            graph.file_stats = stats;
        }
        resolve::re_resolve(self, configs, &mut graph, &ids);
        let _ = self.graph.set(graph);
        // Counted from the graph again when next asked.
        self.counts = OnceLock::new();
        self.relations = OnceLock::new();
        self.imports = OnceLock::new();
        self.file_edges = OnceLock::new();
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
/// relations, module declarations, package and locals, Rust macros' rules, invocations and the
/// chains of their templates (what a name given to a macro names is read there) — positions and
/// bodies may differ.
fn same_interface(a: &FileFacts, b: &FileFacts, macros: &HashSet<&str>) -> bool {
    let symbols = same_by(&a.symbols, &b.symbols, |x, y| {
        x.name == y.name
            && x.kind == y.kind
            && x.container == y.container
            && x.impl_of == y.impl_of
            && x.impl_trait == y.impl_trait
            && x.forward == y.forward
            && x.extension_of == y.extension_of
            && x.singleton == y.singleton
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
    let mods = same_by(&a.mods, &b.mods, |x, y| {
        x.name == y.name && x.scope == y.scope && x.path_attr == y.path_attr && x.template == y.template
    });
    symbols
        && imports
        && relations
        && mods
        && a.templates == b.templates
        && a.splices == b.splices
        && invocations_of(a, macros).eq(invocations_of(b, macros))
        && a.macro_rules == b.macro_rules
        && template_chains(a).eq(template_chains(b))
        && a.package == b.package
        && a.export_names == b.export_names
        && a.locals == b.locals
}

/// The invocations of the repository's macros of a file.
fn invocations_of<'f>(f: &'f FileFacts, macros: &'f HashSet<&str>) -> impl Iterator<Item = &'f Invocation> + 'f {
    f.invocations.iter().filter(move |c| macros.contains(c.name.as_str()))
}

/// The names and calls of the chains written in Rust macros' templates (in a macro's scope).
fn template_chains(f: &FileFacts) -> impl Iterator<Item = (Vec<&str>, &[u32], Option<u32>)> + '_ {
    f.refs.iter().filter(|c| f.macro_around(c.enclosing).is_some()).map(|c| {
        let names = c.segments.iter().map(|s| s.0.as_str()).collect();
        (names, c.calls_at.as_slice(), c.enclosing)
    })
}

/// Two lists of the same length whose elements pair up under `same`.
fn same_by<T>(a: &[T], b: &[T], same: impl Fn(&T, &T) -> bool) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

/// Normalises a root-relative path (`a/./b/../c` → `a/c`); `None` when it climbs out of the root.
pub(crate) fn normalize_path(path: &str) -> Option<String> {
    modules::normalize(path)
}

#[cfg(test)]
mod tests {
    use super::Traits;
    use crate::facts::SymbolKind;
    use crate::lang::Language;

    #[test]
    fn traits_keep_every_kind_export_and_level_in_a_byte_and_refuse_others() {
        let mut symbol = crate::extract::extract(Language::Rust, "pub fn f() {}").symbols.remove(0);
        for (at, &kind) in SymbolKind::ALL.iter().enumerate() {
            assert_eq!(kind as usize, at, "ALL is in declaration order");
            assert_eq!(SymbolKind::parse(kind.as_str()), Some(kind));
            for (exported, container) in [(false, None), (true, None), (false, Some(0)), (true, Some(3))] {
                (symbol.kind, symbol.exported, symbol.container) = (kind, exported, container);
                let t = Traits::from_byte(Traits::of(&symbol).byte()).expect("a kind there is");
                assert_eq!((t.kind(), t.exported(), t.top_level()), (kind, exported, container.is_none()));
            }
        }
        let past = SymbolKind::ALL.len() as u8;
        for byte in [past, past | 0x80, 0x20, 0x21 | 0x40] {
            assert_eq!(Traits::from_byte(byte), None, "{byte:#x}");
        }
    }
}
