//! The persistent snapshot under `<root>/.codegraph/`: every indexed file's stat, hash and extracted
//! facts, so that the next session reads and parses only what changed. One file, written atomically
//! (temp + rename) by one writer at a time (an exclusive lock file that expires), never trusted
//! unless its magic, format version, core version, options, length and blake3 checksum all match.
//! The wasm engine persists the same bytes through its host.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::facts::FileFacts;
use crate::host::Host;
use crate::index::RefSite;
use crate::lang::Language;
use crate::sectioned::{self, Blocks, Format, HeaderError, SectionFile};
use crate::store;

/// The snapshot's file in `.codegraph/`, and its root-relative path.
pub(crate) const NAME: &str = "index.bin";
pub(crate) const FILE: &str = ".codegraph/index.bin";
const LOCK: &str = "lock";
const MAGIC: [u8; 8] = *b"CODEGRPH";
/// Bumped whenever the layout, the meaning of facts or what the stored graph resolves changes.
pub(crate) const FORMAT_VERSION: u32 = 114;
/// A lock older than this was left by a crashed writer and is broken.
const LOCK_EXPIRY_MS: f64 = 120_000.0;

/// One file as the snapshot remembers it.
#[derive(Clone)]
pub(crate) struct SnapshotFile {
    pub path: String,
    pub language: Language,
    pub hash: String,
    pub size: u64,
    pub mtime_ms: f64,
    pub lines: u32,
    pub facts: LazyFacts,
}

impl SnapshotFile {
    /// The indexed file this entry remembers.
    pub(crate) fn indexed(&self) -> crate::index::IndexedFile {
        crate::index::IndexedFile {
            path: self.path.clone(),
            language: self.language,
            hash: self.hash.clone(),
            size: self.size,
            mtime_ms: self.mtime_ms,
            lines: self.lines,
            facts: self.facts.clone(),
            sym_base: 0,
        }
    }

    /// What the snapshot remembers of an indexed file.
    pub(crate) fn of(f: &crate::index::IndexedFile) -> SnapshotFile {
        SnapshotFile {
            path: f.path.clone(),
            language: f.language,
            hash: f.hash.clone(),
            size: f.size,
            mtime_ms: f.mtime_ms,
            lines: f.lines,
            facts: f.facts.clone(),
        }
    }
}

// ---- the sectioned index file --------------------------------------------------------------------
//
// `index.bin` is a sectioned file (see `sectioned`): each section is read (and checked against its
// blake3) only when a question needs it. A warm `symbols` reads the file list, the name and kind
// columns and the facts of the files it answers; a `refs` the blocks of sites that hold its target;
// a `callees` the blocks of sites by file that hold its function's; `goto`, `impact`, `review` and
// `rename_preview` those of the files they look at; `orient`, `search` and `explore` the kinds, the
// use counts and the dependency lists; the hierarchy tools the type relations; `symbols --imports`
// and `graph --depends-on` the import bindings; a `context` the facts of the files it shows. What
// still reads the graph: an update in place and the artifact. Facts are one blob per file (with its
// own blake3 in the file list) so that a question about three files decodes three.

/// The sections, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Section {
    /// Versions, options and counts (`Meta`).
    Meta,
    /// The facts blobs, one per file in path order.
    Facts,
    /// Every file's stat, hash, symbol count and facts blob (`Vec<FileEntry>`).
    Files,
    /// Per symbol (global id order): name, lower-cased name, `Container::name` (string columns).
    Names,
    Lower,
    Qualified,
    /// Per symbol: its kind, export and level, a byte each (`Traits`).
    Traits,
    /// How many sites the graph holds of each symbol, and of all (`crate::index::Counts`).
    Counts,
    /// The symbols whose handle has a `#n`, with n (`Vec<(u32, u32)>` in id order).
    HandleNumbers,
    /// The graph's type relations: impl members and supertypes (`crate::index::Relations`).
    Relations,
    /// The graph's import bindings (`crate::index::Imports`).
    ImportBindings,
    /// The resolved graph's totals (`GraphParts`); its sites are `Sites`.
    Graph,
    /// Its per-file counters (`Vec<FileRefs>`), which only an update and the artifact read.
    FileStats,
    /// Callee names of the call sites no declaration was proven for, with their counts
    /// (`Vec<(String, u32)>`, by name).
    UnresolvedCalls,
    /// The graph's sites, as fixed-width records in the graph's order (by target): the graph reads
    /// them whole, `refs` and `callers` the blocks of one target.
    Sites,
    /// The key (`site_key::target`) of the first site and the blake3 of each block of `Sites`
    /// (`Vec<(u64, [u8; 32])>`).
    SiteBlocks,
    /// The sites again, by file, then by enclosing declaration (file-level code first), then in the
    /// graph's order, read a block at a time: `callees` reads the sites of one caller, `goto`,
    /// `rename_preview` and `impact` those of one file, not the graph.
    FileSites,
    /// The key (`site_key::file`) of the first site and the blake3 of each block of `FileSites`.
    FileSiteBlocks,
    /// Per file, the files it depends on and what made each (`Vec<Vec<(FileId, DepVia)>>`).
    Deps,
}

impl Section {
    pub(crate) const ALL: [Section; 19] = [
        Section::Meta,
        Section::Facts,
        Section::Files,
        Section::Names,
        Section::Lower,
        Section::Qualified,
        Section::Traits,
        Section::Counts,
        Section::HandleNumbers,
        Section::Relations,
        Section::ImportBindings,
        Section::Graph,
        Section::FileStats,
        Section::UnresolvedCalls,
        Section::Sites,
        Section::SiteBlocks,
        Section::FileSites,
        Section::FileSiteBlocks,
        Section::Deps,
    ];

    fn name(self) -> &'static str {
        Section::NAMES[self as usize]
    }

    /// The sections' names, in `ALL` order, for errors.
    const NAMES: [&'static str; Section::ALL.len()] = [
        "meta",
        "facts",
        "files",
        "names",
        "lower-cased names",
        "qualified names",
        "symbol kinds",
        "use counts",
        "handle numbers",
        "type relations",
        "import bindings",
        "graph",
        "per-file counters",
        "unresolved call names",
        "sites",
        "site blocks",
        "sites by file",
        "blocks of sites by file",
        "file dependencies",
    ];
}

/// What `index.bin` is, as a sectioned file.
static FORMAT: Format = Format { magic: MAGIC, version: FORMAT_VERSION, noun: "snapshot", sections: &Section::NAMES };

/// Files whose facts are encoded together, in parallel, when a snapshot is written.
const ENCODE_WAVE: usize = 256;

#[derive(Debug, Serialize, Deserialize)]
struct Meta {
    core_version: String,
    options_key: String,
    /// blake3 of the config files the graph was resolved with.
    configs_key: String,
    symbols: u64,
}

/// One file of the file list.
#[derive(Debug, Serialize, Deserialize)]
struct FileEntry {
    path: String,
    language: Language,
    /// blake3 of the content.
    hash: [u8; 32],
    size: u64,
    mtime_ms: f64,
    lines: u32,
    symbols: u32,
    facts_len: u64,
    facts_hash: [u8; 32],
}

/// The parts of an index the snapshot stores, borrowed from it.
pub(crate) struct Parts<'a> {
    pub options_key: &'a str,
    pub configs_key: &'a str,
    pub files: &'a [crate::index::IndexedFile],
    pub names: &'a StrColumn,
    pub lower: &'a StrColumn,
    pub qualified: &'a StrColumn,
    pub traits: &'a [crate::index::Traits],
    pub counts: &'a crate::index::Counts,
    pub handle_numbers: &'a [(u32, u32)],
    pub graph: &'a crate::index::Graph,
    pub relations: crate::index::StoredRelations<'a>,
    pub imports: crate::index::StoredImports<'a>,
    pub file_stats: Vec<crate::index::StoredFileStats<'a>>,
    /// Sorted by name.
    pub unresolved_calls: Vec<(&'a str, u32)>,
    pub deps: &'a [Vec<(crate::index::FileId, crate::index::DepVia)>],
}

/// Encodes an index as the sectioned file.
pub(crate) fn encode(parts: &Parts) -> Result<Vec<u8>, String> {
    let meta = Meta {
        core_version: crate::VERSION.into(),
        options_key: parts.options_key.into(),
        configs_key: parts.configs_key.into(),
        symbols: parts.names.len() as u64,
    };
    // Room for the whole file, reserved once (room never written is never touched): facts take
    // about the size of their sources, the sites 25 bytes each in each of their two orders.
    let columns = [parts.names.bytes(), parts.lower.bytes(), parts.qualified.bytes()];
    let sources: u64 = parts.files.iter().map(|f| f.size).sum();
    let room = usize::try_from(sources).unwrap_or(0).saturating_mul(2)
        + parts.files.len() * 256
        + columns.iter().map(|c| c.len()).sum::<usize>()
        + parts.traits.len() * 3
        + parts.graph.refs.len() * 2 * SITE_LEN
        + parts.deps.iter().map(|d| 1 + d.len() * 6).sum::<usize>();
    // Every section is written into the file's bytes after room for the header (the facts straight
    // there, never held twice), in `Section::ALL` order; then the header is filled in.
    let mut w = sectioned::Writer::new(&FORMAT, room);
    w.postcard(&meta)?;
    let mut entries = Vec::with_capacity(parts.files.len());
    // The sections of the graph don't read the facts: they are encoded on one side while the facts
    // are on the other, then appended (what is held twice is those sections, a third of the file).
    let (facts, graph_sections) = crate::join_maybe_parallel(
        || {
            w.section(|out| {
                // Files are encoded and hashed in parallel a wave at a time (what is held twice is
                // one wave's facts), then appended in order: the same bytes as one by one.
                for wave in parts.files.chunks(ENCODE_WAVE) {
                    let encoded = crate::map_maybe_parallel(wave.iter().collect(), |f| {
                        f.facts.encode_into(Vec::with_capacity(f.size as usize)).map(|bytes| {
                            let hash = *blake3::hash(&bytes).as_bytes();
                            (bytes, hash)
                        })
                    });
                    for (f, encoded) in wave.iter().zip(encoded) {
                        let (bytes, facts_hash) = encoded?;
                        out.extend_from_slice(&bytes);
                        entries.push(FileEntry {
                            path: f.path.clone(),
                            language: f.language,
                            hash: blake3::Hash::from_hex(&f.hash).map_err(|e| e.to_string())?.into(),
                            size: f.size,
                            mtime_ms: f.mtime_ms,
                            lines: f.lines,
                            symbols: f.facts.symbol_count(),
                            facts_len: bytes.len() as u64,
                            facts_hash,
                        });
                    }
                }
                Ok(())
            })
        },
        || graph_sections(parts),
    );
    facts?;
    w.postcard(&entries)?;
    for column in columns {
        w.bytes(column)?;
    }
    w.section(|out| {
        out.extend(parts.traits.iter().map(|t| t.byte()));
        Ok(())
    })?;
    w.postcard(parts.counts)?;
    w.postcard(&parts.handle_numbers)?;
    w.postcard(&parts.relations)?;
    w.postcard(&parts.imports)?;
    for section in graph_sections? {
        w.bytes(&section)?;
    }
    Ok(w.finish())
}

/// The sections after the relations, in `Section::ALL` order: the graph, the per-file counters,
/// the unresolved call names, the sites by target and by caller with the blake3 of each block of
/// them, and the dependency lists.
fn graph_sections(parts: &Parts) -> Result<Vec<Vec<u8>>, String> {
    fn postcard<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, String> {
        postcard::to_allocvec(value).map_err(|e| e.to_string())
    }
    let sites = &parts.graph.refs;
    let mut site_bytes = Vec::with_capacity(sites.len() * SITE_LEN);
    for r in sites {
        write_site(&mut site_bytes, r);
    }
    let blocks = site_blocks(sites.iter(), &site_bytes, site_key::target);
    // Stable: the sites of one file and declaration stay in the graph's order.
    let mut by_file: Vec<&RefSite> = sites.iter().collect();
    by_file.sort_by_key(|r| site_key::file(r));
    let mut file_bytes = Vec::with_capacity(by_file.len() * SITE_LEN);
    for r in &by_file {
        write_site(&mut file_bytes, r);
    }
    let file_blocks = site_blocks(by_file.into_iter(), &file_bytes, site_key::file);
    Ok(vec![
        postcard(&parts.graph.parts())?,
        postcard(&parts.file_stats)?,
        postcard(&parts.unresolved_calls)?,
        site_bytes,
        postcard(&blocks)?,
        file_bytes,
        postcard(&file_blocks)?,
        postcard(&parts.deps)?,
    ])
}

/// An open, verified-as-far-as-read index file. What a session reads of it later (a facts blob, a
/// column, the graph) is checked when read; what fails a check marks the image damaged, and the
/// session then rebuilds instead of trusting it again.
pub(crate) struct Image {
    file: SectionFile,
    damage: std::sync::Mutex<Option<String>>,
    by_target: SiteTable,
    by_file: SiteTable,
}

/// What an image keeps of one order of its sites: its table of blocks, read once, and the last
/// block read (checked), so that a question about neighbouring keys (the files of a rename, in
/// order) reads each block once.
#[derive(Default)]
struct SiteTable {
    blocks: std::sync::OnceLock<Result<Vec<SiteBlock>, String>>,
    last: std::sync::Mutex<Option<(usize, Arc<Vec<u8>>)>>,
}

impl SiteTable {
    /// Block `b`, from `read` unless it is the one read last.
    fn block(&self, b: usize, read: impl FnOnce() -> Result<Vec<u8>, String>) -> Result<Arc<Vec<u8>>, String> {
        let mut last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match &*last {
            Some((kept, bytes)) if *kept == b => Ok(bytes.clone()),
            _ => {
                let bytes = Arc::new(read()?);
                *last = Some((b, bytes.clone()));
                Ok(bytes)
            }
        }
    }
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image").field("size", &self.file.size()).finish_non_exhaustive()
    }
}

impl Image {
    /// A whole section, checked.
    pub(crate) fn section(&self, s: Section) -> Result<Vec<u8>, String> {
        self.file.section(s as usize)
    }

    /// A part of a section with its own checksum (a file's facts).
    fn part(&self, s: Section, offset: u64, len: u64, hash: &[u8; 32]) -> Result<Vec<u8>, String> {
        self.file.part(s as usize, offset, len, hash)
    }

    /// A section decoded from postcard (the caller checks what it holds).
    fn decoded<T: serde::de::DeserializeOwned>(&self, s: Section) -> Result<T, String> {
        postcard::from_bytes(&self.section(s)?).map_err(|e| format!("its {} cannot be decoded: {e}", s.name()))
    }

    /// A string column of `count` entries, checked.
    pub(crate) fn str_column(&self, s: Section, count: usize) -> Result<StrColumn, String> {
        StrColumn::from_bytes(self.section(s)?, count).map_err(|why| format!("its {} are malformed: {why}", s.name()))
    }

    /// Each of `symbols` symbols' kind, export and level, checked: one known kind a symbol.
    pub(crate) fn traits(&self, symbols: usize) -> Result<Vec<crate::index::Traits>, String> {
        let bytes = self.section(Section::Traits)?;
        if bytes.len() != symbols {
            return Err("its symbol kinds do not fit its symbols".into());
        }
        bytes
            .into_iter()
            .map(crate::index::Traits::from_byte)
            .collect::<Option<_>>()
            .ok_or_else(|| "its symbol kinds do not fit the kinds there are".into())
    }

    /// The graph's counts of sites, checked: one a symbol of `symbols`.
    pub(crate) fn counts(&self, symbols: usize) -> Result<crate::index::Counts, String> {
        let counts: crate::index::Counts = self.decoded(Section::Counts)?;
        (counts.uses.len() == symbols).then_some(counts).ok_or_else(|| "its use counts do not fit its symbols".into())
    }

    /// The symbols whose handle has a `#n`, checked: in id order, each below `symbols`.
    pub(crate) fn handle_numbers(&self, symbols: u32) -> Result<Vec<(u32, u32)>, String> {
        let numbers: Vec<(u32, u32)> = self.decoded(Section::HandleNumbers)?;
        let ordered = numbers.windows(2).all(|w| w[0].0 < w[1].0);
        if !ordered || numbers.iter().any(|&(id, n)| id >= symbols || n < 2) {
            return Err("its handle numbers do not fit its symbols".into());
        }
        Ok(numbers)
    }

    /// The graph's type relations, checked: every id below `symbols`, types sorted once each.
    pub(crate) fn relations(&self, symbols: usize) -> Result<crate::index::Relations, String> {
        let relations: crate::index::Relations = self.decoded(Section::Relations)?;
        relations.fits(symbols).then_some(relations).ok_or_else(|| "its type relations do not fit its symbols".into())
    }

    /// The graph's import bindings, checked: every file and symbol in range.
    pub(crate) fn imports(&self, files: usize, symbols: usize) -> Result<crate::index::Imports, String> {
        let imports: crate::index::Imports = self.decoded(Section::ImportBindings)?;
        imports.fits(files, symbols).then_some(imports).ok_or_else(|| "its import bindings do not fit its files".into())
    }

    /// The stored graph's totals, decoded.
    pub(crate) fn graph(&self) -> Result<crate::index::GraphParts, String> {
        self.decoded(Section::Graph)
    }

    /// Every site, in the graph's order (by target), checked as `sites_of` checks them.
    pub(crate) fn sites(&self, files: usize, symbols: usize) -> Result<Vec<RefSite>, String> {
        let bytes = self.section(Section::Sites)?;
        if bytes.len() % SITE_LEN != 0 {
            return Err("its sites are cut short".into());
        }
        let sites: Vec<RefSite> = bytes.chunks_exact(SITE_LEN).map(read_site).collect();
        if !sites.iter().all(|r| site_fits(r, files, symbols)) {
            return Err(SITES_DO_NOT_FIT.into());
        }
        if !sites.windows(2).all(|w| w[0] < w[1]) {
            return Err("its sites are out of order".into());
        }
        Ok(sites)
    }

    /// The callee names of unproven call sites with their counts, checked: by name, unique.
    pub(crate) fn unresolved_calls(&self) -> Result<Vec<(String, u32)>, String> {
        let calls: Vec<(String, u32)> = self.decoded(Section::UnresolvedCalls)?;
        if !calls.windows(2).all(|w| w[0].0 < w[1].0) {
            return Err("its unresolved call names are out of order".into());
        }
        Ok(calls)
    }

    /// The sites whose target is `target`, read from the blocks that can hold them (each checked
    /// against its blake3), with every id checked against the index's `files` and `symbols`.
    pub(crate) fn sites_of(&self, target: u32, files: usize, symbols: usize) -> Result<Vec<RefSite>, String> {
        let key = u64::from(target);
        self.sites_by(&BY_TARGET, &self.by_target, key..key + 1, files, symbols)
    }

    /// The sites of code in `file` within declaration `within` (`None`: file-level code), in the
    /// graph's order, read as `sites_of` reads.
    pub(crate) fn sites_within(
        &self,
        file: u32,
        within: Option<u32>,
        files: usize,
        symbols: usize,
    ) -> Result<Vec<RefSite>, String> {
        let key = site_key::file_within(file, within);
        self.sites_by(&BY_FILE, &self.by_file, key..key + 1, files, symbols)
    }

    /// The sites in `file`, by enclosing declaration (file-level code first), then in the graph's
    /// order, read as `sites_of` reads.
    pub(crate) fn sites_in_file(&self, file: u32, files: usize, symbols: usize) -> Result<Vec<RefSite>, String> {
        let keys = site_key::file_within(file, None)..(u64::from(file) + 1) << 32;
        self.sites_by(&BY_FILE, &self.by_file, keys, files, symbols)
    }

    /// The sites of a section of site records sorted by `index.key` whose key is in `keys`.
    fn sites_by(
        &self,
        index: &SiteIndex,
        table: &SiteTable,
        keys: std::ops::Range<u64>,
        files: usize,
        symbols: usize,
    ) -> Result<Vec<RefSite>, String> {
        let blocks = table.blocks.get_or_init(|| {
            let blocks: Vec<SiteBlock> = self.decoded(index.blocks)?;
            let fits = SITE_BLOCKS.fit(self.file.entry(index.records as usize).len, blocks.len())
                && blocks.windows(2).all(|w| w[0].0 <= w[1].0);
            fits.then_some(blocks).ok_or_else(|| format!("its {} do not fit its sites", index.blocks.name()))
        });
        let blocks = blocks.as_ref().map_err(Clone::clone)?;
        let first = blocks.partition_point(|b| b.0 < keys.start).saturating_sub(1);
        let end = blocks.partition_point(|b| b.0 < keys.end);
        let mut out: Vec<RefSite> = Vec::new();
        for (i, (_, hash)) in blocks.iter().enumerate().take(end).skip(first) {
            let bytes = table.block(i, || self.file.block(index.records as usize, SITE_BLOCKS, i, hash))?;
            for record in bytes.chunks_exact(SITE_LEN) {
                let r = read_site(record);
                if keys.contains(&(index.key)(&r)) {
                    if !site_fits(&r, files, symbols) {
                        return Err(SITES_DO_NOT_FIT.into());
                    }
                    out.push(r);
                }
            }
        }
        // By key, then in the graph's order.
        if !out.windows(2).all(|w| ((index.key)(&w[0]), &w[0]) <= ((index.key)(&w[1]), &w[1])) {
            return Err("its sites are out of order".into());
        }
        Ok(out)
    }

    /// Per file, the files it depends on, checked: one list per file, every file in range.
    pub(crate) fn deps(&self, files: usize) -> Result<crate::index::FileDeps, String> {
        let deps: crate::index::FileDeps = self.decoded(Section::Deps)?;
        if deps.len() != files || deps.iter().flatten().any(|&(f, _)| f as usize >= files) {
            return Err("its file dependencies do not fit its files".into());
        }
        Ok(deps)
    }

    /// The graph's per-file counters, decoded: one per file.
    pub(crate) fn file_stats(&self, files: usize, symbols: usize) -> Result<Vec<crate::index::FileRefs>, String> {
        let stats: Vec<crate::index::FileRefs> = self.decoded(Section::FileStats)?;
        if stats.len() != files {
            return Err("its per-file counters do not fit its files".into());
        }
        let named = stats.iter().flat_map(|f| &f.known_stops).flat_map(|(_, _, types)| types.iter());
        if named.into_iter().any(|&t| t as usize >= symbols) {
            return Err("its per-file counters name symbols it doesn't have".into());
        }
        Ok(stats)
    }

    /// Notes that a part of the file failed its check (the first reason is kept).
    pub(crate) fn mark_damaged(&self, why: String) {
        let mut damage = self.damage.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        damage.get_or_insert(why);
    }

    /// Why a part of the file read since it was opened could not be trusted.
    pub(crate) fn damage(&self) -> Option<String> {
        self.damage.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

/// What a warm start takes from the snapshot: the files as it knew them (their facts read on
/// demand) and the image the rest is read from.
pub(crate) struct Stored {
    pub files: Vec<SnapshotFile>,
    pub configs_key: String,
    pub image: Arc<Image>,
}

/// Why a snapshot was not used: it is damaged (or unreadable), or only made by another version or
/// under other options (then rebuilding it is routine, not news).
pub(crate) struct Rejection {
    pub why: String,
    pub damaged: bool,
}

fn damaged(why: impl Into<String>) -> Rejection {
    Rejection { why: why.into(), damaged: true }
}

fn outdated(why: impl Into<String>) -> Rejection {
    Rejection { why: why.into(), damaged: false }
}

/// Opens the snapshot (at most `cap` bytes) and reads its header, meta and file list, all checked;
/// `Ok(None)` when there is none. Nothing else is read until asked for.
pub(crate) fn open(host: &dyn Host, options_key: &str, cap: u64) -> Result<Option<Stored>, Rejection> {
    store::usable(host).map_err(damaged)?;
    if host.lstat(FILE).is_err() {
        return Ok(None);
    }
    let file = host.open_file(FILE, cap).map_err(|e| damaged(format!("cannot read {FILE}: {e}")))?;
    let image = Image {
        file: SectionFile::open(file, &FORMAT).map_err(rejection)?,
        damage: std::sync::Mutex::new(None),
        by_target: SiteTable::default(),
        by_file: SiteTable::default(),
    };
    let meta: Meta = postcard::from_bytes(&image.section(Section::Meta).map_err(damaged)?)
        .map_err(|e| damaged(format!("undecodable snapshot meta: {e}")))?;
    if meta.core_version != crate::VERSION {
        return Err(outdated(format!(
            "snapshot written by codegraph {}, this is {}",
            meta.core_version,
            crate::VERSION
        )));
    }
    if meta.options_key != options_key {
        return Err(outdated("snapshot made with other discovery options"));
    }
    let entries: Vec<FileEntry> = postcard::from_bytes(&image.section(Section::Files).map_err(damaged)?)
        .map_err(|e| damaged(format!("undecodable snapshot file list: {e}")))?;
    let facts_len: u64 = entries.iter().map(|e| e.facts_len).sum();
    let symbols: u64 = entries.iter().map(|e| u64::from(e.symbols)).sum();
    if facts_len != image.file.entry(Section::Facts as usize).len || symbols != meta.symbols {
        return Err(damaged("snapshot file list does not fit its facts"));
    }
    let image = Arc::new(image);
    let mut offset = 0;
    let files = entries
        .into_iter()
        .map(|e| {
            let facts = LazyFacts::stored(image.clone(), offset, e.facts_len, e.facts_hash, e.symbols);
            offset += e.facts_len;
            SnapshotFile {
                path: e.path,
                language: e.language,
                hash: blake3::Hash::from(e.hash).to_hex().to_string(),
                size: e.size,
                mtime_ms: e.mtime_ms,
                lines: e.lines,
                facts,
            }
        })
        .collect();
    Ok(Some(Stored { files, configs_key: meta.configs_key, image }))
}

/// A header that was not trusted, as a snapshot's rejection.
fn rejection(e: HeaderError) -> Rejection {
    Rejection { why: e.why, damaged: !e.outdated }
}

/// A block of `Sites` (`FileSites`): the key of its first site and its blake3.
type SiteBlock = (u64, [u8; 32]);

/// A section of site records and the section of its blocks, sorted by `key`.
struct SiteIndex {
    records: Section,
    blocks: Section,
    key: fn(&RefSite) -> u64,
}

static BY_TARGET: SiteIndex = SiteIndex { records: Section::Sites, blocks: Section::SiteBlocks, key: site_key::target };
static BY_FILE: SiteIndex =
    SiteIndex { records: Section::FileSites, blocks: Section::FileSiteBlocks, key: site_key::file };

/// The orders sites are stored in, as one number a site.
mod site_key {
    use crate::index::RefSite;

    /// By target.
    pub(super) fn target(r: &RefSite) -> u64 {
        u64::from(r.target)
    }

    /// By file, then by enclosing declaration (file-level code first).
    pub(super) fn file(r: &RefSite) -> u64 {
        file_within(r.file, r.enclosing)
    }

    pub(super) fn file_within(file: u32, within: Option<u32>) -> u64 {
        u64::from(file) << 32 | within.map_or(0, |e| u64::from(e) + 1)
    }
}

/// The blocks of `bytes`, the records of `sites` in order: each block's first key and blake3.
fn site_blocks<'s>(sites: impl Iterator<Item = &'s RefSite>, bytes: &[u8], key: fn(&RefSite) -> u64) -> Vec<SiteBlock> {
    let firsts = sites.step_by(SITES_PER_BLOCK).map(key);
    firsts.zip(SITE_BLOCKS.hashes(bytes)).collect()
}

/// Sites a block of `Sites` holds, and the bytes of one.
const SITES_PER_BLOCK: usize = 2048;
const SITE_LEN: usize = 25;
const SITE_BLOCKS: Blocks = Blocks { record: SITE_LEN, per_block: SITES_PER_BLOCK };

/// One site as a fixed-width record: target, file, line, column, length, enclosing (`u32::MAX`:
/// none), then the kind's flags (call, import, alias).
fn write_site(out: &mut Vec<u8>, r: &RefSite) {
    for v in [r.target, r.file, r.pos.line, r.pos.col, r.len, r.enclosing.unwrap_or(u32::MAX)] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.push(u8::from(r.call) | u8::from(r.import) << 1 | u8::from(r.alias) << 2);
}

/// Whether a site names a file of `files` and symbols of `symbols` only: a crafted snapshot (its
/// checksums are no secret) must not make a lookup go out of range.
fn site_fits(r: &RefSite, files: usize, symbols: usize) -> bool {
    (r.file as usize) < files && (r.target as usize) < symbols && r.enclosing.is_none_or(|e| (e as usize) < symbols)
}

const SITES_DO_NOT_FIT: &str = "its sites do not fit its files";

fn read_site(record: &[u8]) -> RefSite {
    let field = |i: usize| u32::from_le_bytes(record[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
    let flags = record[24];
    RefSite {
        target: field(0),
        file: field(1),
        pos: crate::facts::Pos { line: field(2), col: field(3) },
        len: field(4),
        enclosing: Some(field(5)).filter(|&e| e != u32::MAX),
        call: flags & 1 != 0,
        import: flags & 2 != 0,
        alias: flags & 4 != 0,
    }
}

/// A file's facts as an index holds them: decoded already (a file parsed in this process), or read
/// from the snapshot and decoded the first time they are used. Dereferences to the facts.
#[derive(Clone)]
pub(crate) struct LazyFacts(Arc<FactsCell>);

struct FactsCell {
    facts: std::sync::OnceLock<Arc<FileFacts>>,
    stored: Option<StoredFacts>,
}

struct StoredFacts {
    image: Arc<Image>,
    offset: u64,
    len: u64,
    hash: [u8; 32],
    symbols: u32,
}

impl LazyFacts {
    /// Facts at hand.
    pub(crate) fn ready(facts: Arc<FileFacts>) -> LazyFacts {
        LazyFacts(Arc::new(FactsCell { facts: std::sync::OnceLock::from(facts), stored: None }))
    }

    fn stored(image: Arc<Image>, offset: u64, len: u64, hash: [u8; 32], symbols: u32) -> LazyFacts {
        LazyFacts(Arc::new(FactsCell {
            facts: std::sync::OnceLock::new(),
            stored: Some(StoredFacts { image, offset, len, hash, symbols }),
        }))
    }

    /// The facts, read and decoded on first use. A blob that fails its check marks the image
    /// damaged and reads as facts with as many (nameless) symbols as it had, so that every symbol id
    /// stays valid until the session rebuilds.
    pub(crate) fn get(&self) -> &Arc<FileFacts> {
        self.0.facts.get_or_init(|| Arc::new(self.decoded()))
    }

    /// The facts for one look: those at hand, else read and decoded without being kept (a question
    /// that looks at many files' facts once holds one file's at a time).
    pub(crate) fn passing(&self) -> Arc<FileFacts> {
        match self.0.facts.get() {
            Some(facts) => facts.clone(),
            None => Arc::new(self.decoded()),
        }
    }

    /// `passing`, for a look that needs only facts that write every one of `words`: stored facts
    /// whose plain bytes lack one are not decoded (None). Strings are stored as written, so a look
    /// for a name in every file decodes only the files that write it. Facts at hand are given as
    /// they are.
    pub(crate) fn passing_holding(&self, words: &[&str]) -> Option<Arc<FileFacts>> {
        if let Some(facts) = self.0.facts.get() {
            return Some(facts.clone());
        }
        let plain = self.stored_part().and_then(|packed| unpack_plain(&packed));
        let holds = |plain: &[u8], word: &str| memchr::memmem::find(plain, word.as_bytes()).is_some();
        if plain.as_deref().is_ok_and(|plain| !words.iter().all(|w| holds(plain, w))) {
            return None;
        }
        Some(Arc::new(self.checked(plain.and_then(|plain| decode_plain(&plain)))))
    }

    /// The stored facts, decoded (see `get`).
    fn decoded(&self) -> FileFacts {
        self.checked(self.stored_part().and_then(|packed| unpack_facts(&packed)))
    }

    /// The stored facts' bytes as packed, checked.
    fn stored_part(&self) -> Result<Vec<u8>, String> {
        let s = self.0.stored.as_ref().expect("facts without a snapshot are set when made");
        s.image.part(Section::Facts, s.offset, s.len, &s.hash)
    }

    /// Decoded stored facts that fit the file list. Else the image is marked damaged, and they
    /// read as as many nameless symbols as the file list says (see `get`).
    fn checked(&self, decoded: Result<FileFacts, String>) -> FileFacts {
        let s = self.0.stored.as_ref().expect("facts without a snapshot are set when made");
        let fitting = decoded.and_then(|f| {
            (f.symbols.len() == s.symbols as usize && symbol_indices_fit(&f))
                .then_some(f)
                .ok_or_else(|| "facts that do not fit the file list".to_string())
        });
        fitting.unwrap_or_else(|why| {
            s.image.mark_damaged(why);
            FileFacts { symbols: vec![nameless_symbol(); s.symbols as usize], ..FileFacts::default() }
        })
    }

    /// Whether the facts are decoded and kept (made here, or read and kept by `get`).
    #[cfg(test)]
    pub(crate) fn is_kept(&self) -> bool {
        self.0.facts.get().is_some()
    }

    /// The number of symbols, without decoding stored facts.
    pub(crate) fn symbol_count(&self) -> u32 {
        match (self.0.facts.get(), &self.0.stored) {
            (None, Some(s)) => s.symbols,
            _ => self.get().symbols.len() as u32,
        }
    }

    /// Appends the facts encoded for a snapshot to `out`: the stored bytes as they are when never
    /// decoded.
    pub(crate) fn encode_into(&self, mut out: Vec<u8>) -> Result<Vec<u8>, String> {
        if let (None, Some(s)) = (self.0.facts.get(), &self.0.stored) {
            if let Ok(bytes) = s.image.part(Section::Facts, s.offset, s.len, &s.hash) {
                out.extend_from_slice(&bytes);
                return Ok(out);
            }
        }
        out.extend_from_slice(&pack_facts(self.get())?);
        Ok(out)
    }
}

/// A file's facts as the snapshot stores them: postcard, then LZ4 — the plain length, then each
/// `FACTS_CHUNK` bytes of it as a block with its length before it. Facts repeat their names and
/// paths, so this stores about 2.3 in 1 — the largest part of a snapshot, written on every build —
/// for about 2 ms a megabyte, and decodes at several GB/s.
pub(crate) fn pack_facts(facts: &FileFacts) -> Result<Vec<u8>, String> {
    let plain = postcard::to_allocvec(facts).map_err(|e| e.to_string())?;
    let mut packed = Vec::with_capacity(plain.len() / 2 + 16);
    packed.extend_from_slice(&len_u32(plain.len())?.to_le_bytes());
    for chunk in plain.chunks(FACTS_CHUNK) {
        let block = lz4_flex::block::compress(chunk);
        packed.extend_from_slice(&len_u32(block.len())?.to_le_bytes());
        packed.extend_from_slice(&block);
    }
    Ok(packed)
}

/// The plain bytes one LZ4 block of packed facts holds (the last may hold fewer). `lz4_flex` packs
/// an input shorter than `u16::MAX` with a table whose hash reads 4 bytes on every platform, a
/// longer one with a hash of a machine word: the wasm engine (32-bit) then wrote other bytes than
/// the native one, where both must write the same.
const FACTS_CHUNK: usize = u16::MAX as usize - 1;

fn len_u32(len: usize) -> Result<u32, String> {
    u32::try_from(len).map_err(|_| format!("{len} bytes of facts are more than a snapshot holds"))
}

/// The facts `pack_facts` stored.
pub(crate) fn unpack_facts(packed: &[u8]) -> Result<FileFacts, String> {
    decode_plain(&unpack_plain(packed)?)
}

fn undecodable(why: &dyn std::fmt::Display) -> String {
    format!("undecodable facts: {why}")
}

/// The facts of plain bytes (`unpack_plain`).
fn decode_plain(plain: &[u8]) -> Result<FileFacts, String> {
    postcard::from_bytes::<FileFacts>(plain).map_err(|e| undecodable(&e))
}

/// The plain (postcard) bytes of facts `pack_facts` stored. A length no LZ4 blocks of this size
/// can expand to (LZ4 writes at most 255 bytes a byte) is refused before anything is allocated for
/// it.
fn unpack_plain(packed: &[u8]) -> Result<Vec<u8>, String> {
    let (len, mut blocks) = packed.split_first_chunk::<4>().ok_or_else(|| undecodable(&"no length"))?;
    let len = u32::from_le_bytes(*len) as usize;
    if len > blocks.len().saturating_mul(255) + 16 {
        return Err(undecodable(&format_args!("{len} bytes from blocks of {}", blocks.len())));
    }
    let mut plain = vec![0; len];
    for chunk in plain.chunks_mut(FACTS_CHUNK) {
        let (block_len, rest) = blocks.split_first_chunk::<4>().ok_or_else(|| undecodable(&"a block missing"))?;
        let block_len = u32::from_le_bytes(*block_len) as usize;
        let (block, rest) = rest.split_at_checked(block_len).ok_or_else(|| undecodable(&"a block cut short"))?;
        let written = lz4_flex::block::decompress_into(block, chunk).map_err(|e| undecodable(&e))?;
        if written != chunk.len() {
            return Err(undecodable(&format_args!("a block of {written} bytes where {} were stored", chunk.len())));
        }
        blocks = rest;
    }
    if !blocks.is_empty() {
        return Err(undecodable(&format_args!("{} bytes after the last block", blocks.len())));
    }
    Ok(plain)
}

/// Whether every symbol index of stored facts names one of the file's symbols: a crafted snapshot
/// (its checksums are no secret) must not make a lookup go out of range.
fn symbol_indices_fit(f: &FileFacts) -> bool {
    let n = f.symbols.len();
    let fits = |i: Option<u32>| i.is_none_or(|i| (i as usize) < n);
    f.symbols.iter().all(|s| fits(s.container) && fits(s.init.as_ref().and_then(|i| i.scope)))
        && f.imports.iter().all(|i| fits(i.scope))
        && f.refs.iter().all(|r| fits(r.enclosing))
        && f.locals.iter().all(|l| fits(l.scope))
        && f.relations.iter().all(|r| r.subject.is_some() || (r.symbol as usize) < n)
        && f.mods.iter().all(|m| fits(m.scope))
}

/// What stands in for a symbol whose facts could not be read (until the session rebuilds).
fn nameless_symbol() -> crate::facts::Symbol {
    let at = crate::facts::Pos::default();
    crate::facts::Symbol {
        name: String::new(),
        kind: crate::facts::SymbolKind::Variable,
        container: None,
        impl_of: None,
        impl_trait: None,
        start: at,
        end: at,
        name_pos: at,
        exported: false,
        signature: String::new(),
        returns: None,
        forward: false,
        extension_of: None,
        singleton: false,
        default_export: false,
        doc_line: None,
        doc: None,
        params: Vec::new(),
        init: None,
    }
}

impl std::ops::Deref for LazyFacts {
    type Target = FileFacts;

    fn deref(&self) -> &FileFacts {
        self.get()
    }
}

impl std::fmt::Debug for LazyFacts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.facts.get() {
            Some(facts) => facts.fmt(f),
            None => f.write_str("LazyFacts(stored)"),
        }
    }
}

/// Strings in one buffer (a column of the snapshot, as stored): a count, `count + 1` u32 offsets
/// and the UTF-8 text of every string one after the other. Read in place, never split into owned
/// strings.
#[derive(Clone, Debug, Default)]
pub(crate) struct StrColumn {
    bytes: Vec<u8>,
    count: usize,
}

impl StrColumn {
    pub(crate) fn build<S: AsRef<str>>(items: impl ExactSizeIterator<Item = S>) -> StrColumn {
        let count = items.len();
        let mut offsets = Vec::with_capacity(count + 1);
        let mut data = Vec::new();
        offsets.push(0u32);
        for s in items {
            data.extend_from_slice(s.as_ref().as_bytes());
            offsets.push(data.len() as u32);
        }
        let mut bytes = Vec::with_capacity(4 + offsets.len() * 4 + data.len());
        bytes.extend_from_slice(&(count as u32).to_le_bytes());
        for o in offsets {
            bytes.extend_from_slice(&o.to_le_bytes());
        }
        bytes.extend_from_slice(&data);
        StrColumn { bytes, count }
    }

    /// A stored column, checked: its count, offsets in order within its data, the data UTF-8 and
    /// every offset on a character boundary.
    fn from_bytes(bytes: Vec<u8>, count: usize) -> Result<StrColumn, String> {
        let head = 4 + (count + 1) * 4;
        if bytes.len() < head || bytes[..4] != (count as u32).to_le_bytes() {
            return Err("wrong count".into());
        }
        let column = StrColumn { bytes, count };
        let data = std::str::from_utf8(column.data()).map_err(|_| "not UTF-8".to_string())?;
        let mut prev = 0;
        for i in 0..=count {
            let o = column.offset(i);
            if o < prev || o > data.len() || !data.is_char_boundary(o) {
                return Err("offsets out of place".into());
            }
            prev = o;
        }
        if prev != data.len() {
            return Err("offsets out of place".into());
        }
        Ok(column)
    }

    fn offset(&self, i: usize) -> usize {
        let at = 4 + i * 4;
        u32::from_le_bytes(self.bytes[at..at + 4].try_into().expect("4 bytes")) as usize
    }

    /// The strings' bytes, one after the other.
    fn data(&self) -> &[u8] {
        &self.bytes[4 + (self.count + 1) * 4..]
    }

    pub(crate) fn len(&self) -> usize {
        self.count
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The strings that hold `needle`, in order: found in the text at once, not string by string
    /// (each match is checked again by whoever asks, as one may run across two strings).
    pub(crate) fn holding(&self, needle: &str) -> Vec<u32> {
        if needle.is_empty() {
            // Every string holds it, the empty ones too (which no match in the text stands for).
            return (0..self.count as u32).collect();
        }
        let text = self.data();
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(at) = finder.find(&text[from..]).map(|found| from + found) {
            // The string whose bytes hold `at`: the first whose end is past it.
            let (mut lo, mut hi) = (0, self.count);
            while lo < hi {
                let mid = usize::midpoint(lo, hi);
                if self.offset(mid + 1) <= at {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if lo == self.count {
                break;
            }
            out.push(lo as u32);
            // The next string may hold its own match (one that ran on from this string is no
            // match of it).
            from = self.offset(lo + 1);
        }
        out
    }
}

impl std::ops::Index<usize> for StrColumn {
    type Output = str;

    fn index(&self, i: usize) -> &str {
        assert!(i < self.count, "string {i} of a column of {}", self.count);
        // Checked when built or read: in order, on character boundaries of UTF-8 data.
        std::str::from_utf8(&self.data()[self.offset(i)..self.offset(i + 1)]).unwrap_or("")
    }
}

/// Writes the snapshot unless another writer holds the lock (then its snapshot will do). Returns
/// whether this process wrote it.
pub(crate) fn save(host: &dyn Host, parts: &Parts) -> Result<bool, String> {
    let bytes = encode(parts)?;
    with_lock(host, || store::write_cache(host, NAME, &bytes))
}

/// Runs `write` holding the writer lock of `.codegraph/`; `Ok(false)` (nothing written) when
/// another writer holds it.
pub(crate) fn with_lock(host: &dyn Host, write: impl FnOnce() -> Result<(), String>) -> Result<bool, String> {
    store::usable(host)?;
    let now_ms = host.now_ms();
    let stamp = match host.pid() {
        Some(pid) => format!("{pid} {now_ms}"),
        None => format!("{now_ms}"),
    };
    if !store::create_exclusive(host, LOCK, stamp.as_bytes())? {
        if lock_is_held(host, now_ms) {
            return Ok(false);
        }
        store::remove(host, LOCK)?;
        if !store::create_exclusive(host, LOCK, stamp.as_bytes())? {
            return Ok(false);
        }
    }
    remove_stray_temp_files(host, now_ms);
    let result = (|| {
        store::ensure_gitignore(host)?;
        write()
    })();
    let _ = store::remove(host, LOCK);
    result.map(|()| true)
}

/// Whether the lock someone else holds is live: its writer's process runs (when the host can tell)
/// and it is younger than the expiry. A lock whose stamp can't be read yet (its writer is between
/// creating and filling it) is dated by its mtime.
fn lock_is_held(host: &dyn Host, now_ms: f64) -> bool {
    let stamp = store::read(host, LOCK, store::SMALL_FILE_CAP).ok().flatten().and_then(|b| String::from_utf8(b).ok());
    let (pid, recorded) = match stamp.as_deref().map(str::trim).and_then(|s| s.split_once(' ')) {
        Some((pid, at)) => (pid.parse::<u32>().ok(), at.parse::<f64>().ok()),
        None => (None, stamp.as_deref().and_then(|s| s.trim().parse::<f64>().ok())),
    };
    if pid.and_then(|p| host.process_alive(p)) == Some(false) {
        return false;
    }
    let held_since = recorded.or_else(|| host.lstat(&store::path(LOCK)).ok().map(|e| e.mtime_ms));
    held_since.is_some_and(|t| now_ms - t < LOCK_EXPIRY_MS)
}

/// Removes the temporary files a writer killed mid-write left in `.codegraph/`
/// (`.<name>.tmp-<pid>-<nonce>`): those of a process that is gone, or older than the lock expiry.
/// Only the lock holder does this, so no live write loses its temporary file.
fn remove_stray_temp_files(host: &dyn Host, now_ms: f64) {
    let Ok(entries) = host.read_dir(store::DIR) else { return };
    for e in entries.iter().filter(|e| e.kind == crate::host::EntryKind::File && e.name.starts_with('.')) {
        let Some((_, tail)) = e.name.split_once(".tmp-") else { continue };
        let pid = tail.split('-').next().and_then(|p| p.parse::<u32>().ok());
        let gone = pid.and_then(|p| host.process_alive(p)).map(|alive| !alive);
        let old = host.lstat(&store::path(&e.name)).is_ok_and(|s| now_ms - s.mtime_ms > LOCK_EXPIRY_MS);
        let ours = pid.is_some() && pid == host.pid();
        if gone.unwrap_or(old) && !ours {
            let _ = store::remove(host, &e.name);
        }
    }
}

/// Facts of the snapshot by path, for the stat fast path.
pub(crate) fn by_path(files: Vec<SnapshotFile>) -> rustc_hash::FxHashMap<String, SnapshotFile> {
    files.into_iter().map(|f| (f.path.clone(), f)).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;
    use crate::api::{DiscoveryOptions, RefsRequest, Session, StdHost, WorkspaceSymbolsRequest};
    use crate::host::{HostEntry, ReadAt};

    /// The native host, counting the bytes it reads of one file of `.codegraph/`.
    struct Counting {
        inner: StdHost,
        counted: String,
        read: Arc<AtomicU64>,
    }

    struct CountingFile {
        inner: Box<dyn ReadAt>,
        read: Arc<AtomicU64>,
    }

    impl ReadAt for CountingFile {
        fn size(&self) -> u64 {
            self.inner.size()
        }

        fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>, String> {
            self.read.fetch_add(len as u64, Ordering::Relaxed);
            self.inner.read_at(offset, len)
        }
    }

    impl Host for Counting {
        fn read_dir(&self, rel: &str) -> Result<Vec<HostEntry>, String> {
            self.inner.read_dir(rel)
        }
        fn read_file(&self, rel: &str, limit: u64) -> Result<Vec<u8>, String> {
            let bytes = self.inner.read_file(rel, limit)?;
            if rel == self.counted {
                self.read.fetch_add(bytes.len() as u64, Ordering::Relaxed);
            }
            Ok(bytes)
        }
        fn open_file(&self, rel: &str, limit: u64) -> Result<Box<dyn ReadAt>, String> {
            let inner = self.inner.open_file(rel, limit)?;
            if rel == self.counted {
                return Ok(Box::new(CountingFile { inner, read: self.read.clone() }));
            }
            Ok(inner)
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
        fn write_file_atomic(&self, rel: &str, bytes: &[u8]) -> Result<(), String> {
            self.inner.write_file_atomic(rel, bytes)
        }
        fn create_exclusive(&self, rel: &str, bytes: &[u8]) -> Result<bool, String> {
            self.inner.create_exclusive(rel, bytes)
        }
        fn remove_file(&self, rel: &str) -> Result<(), String> {
            self.inner.remove_file(rel)
        }
        fn now_ms(&self) -> f64 {
            self.inner.now_ms()
        }
        fn pid(&self) -> Option<u32> {
            self.inner.pid()
        }
        fn process_alive(&self, pid: u32) -> Option<bool> {
            self.inner.process_alive(pid)
        }
    }

    /// A persisting session on `root` and the count of snapshot bytes it reads.
    fn open(root: &std::path::Path) -> (Session, Arc<AtomicU64>) {
        open_counting(root, FILE)
    }

    /// A persisting session on `root` (which may build the artifact) and the count of bytes it
    /// reads of `counted`.
    fn open_counting(root: &std::path::Path, counted: &str) -> (Session, Arc<AtomicU64>) {
        let read = Arc::new(AtomicU64::new(0));
        let host = Counting { inner: StdHost::new(root), counted: counted.into(), read: read.clone() };
        let options = DiscoveryOptions { persist: true, allow_build: true, ..DiscoveryOptions::default() };
        (Session::open(Box::new(host), options).expect("opens"), read)
    }

    /// `files` Python modules of a class, a method and a function each, all using one helper.
    fn write_tree(root: &std::path::Path, files: usize) {
        for i in 0..files {
            let dir = root.join(format!("pkg{}", i / 100));
            std::fs::create_dir_all(&dir).unwrap();
            let text = format!(
                "from pkg0.m0 import shared\n\n\nclass Model{i}:\n    \"\"\"Model number {i}.\"\"\"\n\n    def save_{i}(self, value):\n        return shared(value)\n\n\ndef helper_{i}(x):\n    return Model{i}().save_{i}(x)\n"
            );
            std::fs::write(dir.join(format!("m{}.py", i % 100)), text).unwrap();
        }
        std::fs::write(root.join("pkg0/__init__.py"), "").unwrap();
        std::fs::write(root.join("pkg0/m0.py"), "def shared(v):\n    return v\n").unwrap();
    }

    /// A tree of `files` modules indexed by a cold session.
    fn indexed(files: usize) -> (tempfile::TempDir, Session) {
        let dir = tempfile::tempdir().unwrap();
        write_tree(dir.path(), files);
        let (cold, _) = open(dir.path());
        (dir, cold)
    }

    fn symbols(s: &mut Session, query: &str) -> crate::api::WorkspaceSymbolsResponse {
        s.workspace_symbols(WorkspaceSymbolsRequest { query: query.into(), ..Default::default() }).unwrap()
    }

    fn refs(s: &mut Session, handle: &str) -> crate::api::RefsResponse {
        s.refs(RefsRequest { handle: Some(handle.into()), ..Default::default() }).unwrap()
    }

    fn deps(s: &mut Session, file: &str) -> crate::api::DepsResponse {
        s.deps(crate::api::DepsRequest { file: file.into(), limit: None }).unwrap()
    }

    /// The bytes `sections_read` hold in a snapshot's `bytes`.
    fn held_by(bytes: &[u8], sections_read: &[Section]) -> u64 {
        sections_read.iter().map(|&s| sections(bytes)[s as usize].len).sum()
    }

    /// `records` as the sites of `index` in crafted sections (`recrafted`), with their blocks made
    /// again: every checksum matches.
    fn put_sites(p: &mut [Vec<u8>], index: &SiteIndex, records: Vec<u8>) {
        let sites: Vec<RefSite> = records.chunks_exact(SITE_LEN).map(read_site).collect();
        let blocks = site_blocks(sites.iter(), &records, index.key);
        p[index.records as usize] = records;
        p[index.blocks as usize] = postcard::to_allocvec(&blocks).unwrap();
    }

    /// A question that reads the sites by file (or the graph, once it is read).
    fn callees(s: &mut Session, handle: &str) -> crate::api::CallsResponse {
        s.callees(crate::api::CallsRequest { handle: Some(handle.into()), ..Default::default() }).unwrap()
    }

    /// A question that reads the sites by file and the per-file counters (a rename proves its
    /// sites with them).
    fn rename(s: &mut Session, handle: &str) -> crate::api::RenamePreviewResponse {
        let request = crate::api::RenamePreviewRequest {
            handle: handle.into(),
            new_name: "renamed".into(),
            ..Default::default()
        };
        s.rename_preview(request).unwrap()
    }

    /// A question that reads the graph itself (the artifact holds every site): its rows.
    fn artifact(s: &mut Session) -> std::collections::BTreeMap<String, u64> {
        s.artifact_build(crate::api::ArtifactBuildRequest::default()).unwrap().rows
    }

    /// A question that reads the import bindings.
    fn imports(s: &mut Session, name: &str) -> crate::api::WorkspaceSymbolsResponse {
        s.workspace_symbols(WorkspaceSymbolsRequest { query: name.into(), include_imports: true, ..Default::default() })
            .unwrap()
    }

    /// The section table of a snapshot's bytes, checked as `open` checks it.
    fn read_header(bytes: &[u8]) -> Result<Vec<sectioned::Entry>, Rejection> {
        sectioned::read_header(&bytes.to_vec(), &FORMAT).map_err(rejection)
    }

    fn sections(bytes: &[u8]) -> Vec<sectioned::Entry> {
        read_header(bytes).ok().expect("a sound header")
    }

    /// Where one file's facts lie in a snapshot file: (offset in the file, length).
    fn facts_of(bytes: &[u8], path: &str) -> (usize, usize) {
        let sections = sections(bytes);
        let files = sections[Section::Files as usize];
        let list: Vec<FileEntry> =
            postcard::from_bytes(&bytes[files.offset as usize..(files.offset + files.len) as usize]).unwrap();
        let mut offset = sections[Section::Facts as usize].offset as usize;
        for e in list {
            if e.path == path {
                return (offset, e.facts_len as usize);
            }
            offset += e.facts_len as usize;
        }
        panic!("{path} is not in the snapshot")
    }

    #[test]
    fn a_warm_query_reads_what_it_needs_and_answers_as_cold() {
        // `many`: a name nearly every file declares a match of (`helper_1` … `helper_9999` by
        // prefix; `Model…` by case and prefix, filtered by kind).
        let many = |s: &mut Session, query: &str, kinds: &[&str]| {
            s.workspace_symbols(WorkspaceSymbolsRequest {
                query: query.into(),
                kinds: kinds.iter().map(ToString::to_string).collect(),
                limit: Some(20),
                ..Default::default()
            })
            .unwrap()
        };
        let orient = |s: &mut Session| s.orient(crate::api::OrientRequest::default()).unwrap();
        let (dir, mut cold) = indexed(10_000);
        let cold_symbols = symbols(&mut cold, "save_4242");
        let handle = cold_symbols.symbols[0].symbol.handle.clone();
        let cold_refs = refs(&mut cold, &handle);
        let cold_callees = callees(&mut cold, "pkg42/m42.py::helper_4242");
        assert_eq!(cold_callees.groups.len(), 2, "{cold_callees:?}");
        let goto = |s: &mut Session| {
            s.goto(crate::api::GotoRequest { file: "pkg42/m42.py".into(), line: 12, column: Some(12) }).unwrap()
        };
        let cold_goto = goto(&mut cold);
        assert_eq!(cold_goto.definitions.len(), 1, "{cold_goto:?}");
        let cold_rename = rename(&mut cold, "pkg42/m42.py::Model4242::save_4242");
        assert_eq!(cold_rename.edits.len(), 2, "{cold_rename:?}");
        assert_eq!(cold_refs.refs.len(), 1, "{cold_refs:?}");
        let cold_many = [many(&mut cold, "helper", &[]), many(&mut cold, "model", &["class"])];
        assert_eq!([cold_many[0].total, cold_many[1].total], [9_999, 9_999], "pkg0/m0.py holds `shared` instead");
        let cold_orient = orient(&mut cold);
        drop(cold);
        let bytes = std::fs::read(dir.path().join(FILE)).unwrap();
        let size = bytes.len() as u64;
        // (Reading the graph reads its totals and every site.)
        let graph = held_by(&bytes, &[Section::Graph, Section::Sites]);
        let few_files = 16 * 1024;
        // What a lookup reads besides the facts of the files it answers: the file list, the name
        // columns it matches on, and the kinds, counts and handle numbers that filter, rank and
        // name matches.
        let lookup = held_by(
            &bytes,
            &[
                Section::Meta,
                Section::Files,
                Section::Names,
                Section::Lower,
                Section::Traits,
                Section::Counts,
                Section::HandleNumbers,
            ],
        );

        // The file list, the name columns and the facts of the one file that matches: not the
        // facts of the other 9,999 files, nor the graph, nor any site.
        let (mut warm, read) = open(dir.path());
        assert_eq!(symbols(&mut warm, "save_4242"), cold_symbols);
        let by_symbols = read.load(Ordering::Relaxed);
        assert!(
            by_symbols < lookup + few_files,
            "a warm symbols query read {by_symbols} of the snapshot's {size} bytes, where its sections hold {lookup} ({graph} in the graph)"
        );
        // The block of sites that holds the symbol's and the facts of the files they name: no graph.
        assert_eq!(refs(&mut warm, &handle), cold_refs);
        let by_refs = read.load(Ordering::Relaxed) - by_symbols;
        assert!(by_refs < 256 * 1024, "a warm refs query read {by_refs} of the snapshot's {size} bytes");
        // The block of sites by caller that holds the function's, and the facts they name: no graph.
        assert_eq!(callees(&mut warm, "pkg42/m42.py::helper_4242"), cold_callees);
        let by_callees = read.load(Ordering::Relaxed) - by_symbols - by_refs;
        assert!(by_callees < 256 * 1024, "a warm callees query read {by_callees} of the snapshot's {size} bytes");
        // The block of sites by file that holds the file's, and its facts: no graph.
        let before = read.load(Ordering::Relaxed);
        assert_eq!(goto(&mut warm), cold_goto);
        let by_goto = read.load(Ordering::Relaxed) - before;
        assert!(by_goto < 256 * 1024, "a warm goto read {by_goto} of the snapshot's {size} bytes");
        // The sites of the method, the sites by file and the facts of the one file that can see it,
        // and the per-file counters: not every file's facts, nor the graph.
        let before = read.load(Ordering::Relaxed);
        assert_eq!(rename(&mut warm, "pkg42/m42.py::Model4242::save_4242"), cold_rename);
        let by_rename = read.load(Ordering::Relaxed) - before;
        let [counters, names] = [Section::FileStats, Section::Names].map(|s| sections(&bytes)[s as usize].len);
        assert!(
            by_rename < counters + names + 256 * 1024,
            "a warm rename read {by_rename} of the snapshot's {size} bytes ({counters} of per-file counters, {names} of names)"
        );
        assert!(warm.take_notes().is_empty());

        // 9,999 matches are counted and ranked from the columns; the facts read are those of the
        // files answered, not of every match.
        let (mut warm, read) = open(dir.path());
        for (query, kinds, expected) in [("helper", &[][..], &cold_many[0]), ("model", &["class"][..], &cold_many[1])] {
            let before = read.load(Ordering::Relaxed);
            assert_eq!(&many(&mut warm, query, kinds), expected);
            let answered: usize = expected.symbols.iter().map(|m| facts_of(&bytes, &m.symbol.path).1).sum();
            let by_many = read.load(Ordering::Relaxed) - before;
            assert!(
                by_many < lookup + answered as u64 + few_files,
                "a warm symbols query of 9,999 matches read {by_many} bytes, {answered} of them the facts answered"
            );
        }
        assert!(warm.take_notes().is_empty());

        // The map of the repository: the file list, the kinds, the counts, the dependency lists
        // and the qualified names (9,999 declarations tied at one use are ordered by handle), not
        // the facts, the graph or its sites.
        let (mut warm, read) = open(dir.path());
        assert_eq!(orient(&mut warm), cold_orient);
        let by_orient = read.load(Ordering::Relaxed);
        let map = held_by(
            &bytes,
            &[
                Section::Meta,
                Section::Files,
                Section::Qualified,
                Section::Traits,
                Section::Counts,
                Section::HandleNumbers,
                Section::Deps,
            ],
        );
        assert!(
            by_orient < map + few_files,
            "a warm orient read {by_orient} of the snapshot's {size} bytes, where its sections hold {map} ({graph} in the graph)"
        );
        assert!(warm.take_notes().is_empty());
    }

    fn search(s: &mut Session, query: &str) -> crate::api::SearchResponse {
        s.search(crate::api::SearchRequest { query: query.into(), limit: None }).unwrap()
    }

    /// A tree of 10,000 modules and one about retries, whose words no other file holds.
    fn with_rare_words(files: usize) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        write_tree(dir.path(), files);
        let retry = "def throttle_retries(attempts):\n    \"\"\"Exponential backoff between attempts.\"\"\"\n    return attempts * 2\n";
        std::fs::write(dir.path().join("pkg0/retry.py"), retry).unwrap();
        let shapes = "class Shape:\n    pass\n\n\nclass Circle(Shape):\n    pass\n\n\nclass Disc(Circle):\n    pass\n";
        std::fs::write(dir.path().join("shapes.py"), shapes).unwrap();
        dir
    }

    #[test]
    fn warm_search_explore_packets_and_hierarchy_read_what_they_answer() {
        let dir = with_rare_words(10_000);
        // 300 modules of 20 functions each that a search for `retry attempts` scores alike.
        std::fs::create_dir_all(dir.path().join("retries")).unwrap();
        for i in 0..300 {
            let text = ('a'..='t')
                .map(|c| format!("def retry_{c}(attempts):\n    return attempts\n"))
                .collect::<Vec<_>>()
                .join("\n\n");
            std::fs::write(dir.path().join(format!("retries/r{i}.py")), text).unwrap();
        }
        let text = format!(".codegraph/{}", crate::text::STORE_NAME);
        let (mut cold, _) = open(dir.path());
        let cold_rare = search(&mut cold, "exponential backoff");
        assert_eq!(cold_rare.hits[0].path, "pkg0/retry.py", "{cold_rare:?}");
        let cold_common = search(&mut cold, "save the model");
        let cold_tied = search(&mut cold, "retry attempts");
        let explore = |s: &mut Session, query: &str| {
            s.explore(crate::api::ExploreRequest { query: query.into(), ..Default::default() }).unwrap()
        };
        let cold_explore = explore(&mut cold, "exponential backoff");
        let packet = |s: &mut Session, target: &str| {
            s.packet_get(crate::api::PacketGetRequest { target: target.into(), ..Default::default() }).unwrap()
        };
        let cold_packet = packet(&mut cold, "retry_a");
        let hierarchy = |s: &mut Session| {
            use crate::api::{GetSymbolRequest, HierarchyRequest};
            let request = |handle: &str| HierarchyRequest { handle: handle.into(), depth: Some(3), limit: None };
            let up = s.supertypes(request("shapes.py::Disc")).unwrap();
            let down = s.subtypes(request("shapes.py::Shape")).unwrap();
            let symbol = s.get_symbol(GetSymbolRequest { handle: "shapes.py::Circle".into() }).unwrap();
            (up, down, symbol)
        };
        let cold_hierarchy = hierarchy(&mut cold);
        let cold_imports = imports(&mut cold, "shared");
        assert_eq!(cold_imports.total, 10_000, "the declaration and 9,999 imports");
        assert_eq!(cold_hierarchy.2.supertypes, ["shapes.py::Shape"]);
        drop(cold);
        let size = std::fs::metadata(dir.path().join(&text)).unwrap().len();

        // The tables of blocks, a block of terms for each word, a block of their postings and of
        // the chunks those name: not the index.
        let (mut warm, read) = open_counting(dir.path(), &text);
        assert_eq!(search(&mut warm, "exponential backoff"), cold_rare);
        let by_rare = read.load(Ordering::Relaxed);
        assert!(
            by_rare < 160 * 1024,
            "a warm search of two rare words read {by_rare} of the lexical index's {size} bytes"
        );
        // Words every file holds: their postings are most of the index, and read.
        assert_eq!(search(&mut warm, "save the model"), cold_common);
        assert!(warm.take_notes().is_empty());

        // Of the snapshot: what each question reads, asked alone in a warm session that must
        // answer as the cold one did, with no note.
        let bytes = std::fs::read(dir.path().join(FILE)).unwrap();
        let len = |s: Section| sections(&bytes)[s as usize].len;
        // (The file list; kinds and use counts weigh declarations, the dependency lists files.)
        let columns = held_by(
            &bytes,
            &[Section::Meta, Section::Files, Section::Traits, Section::Counts, Section::HandleNumbers, Section::Deps],
        );
        let graph = held_by(&bytes, &[Section::Graph, Section::Sites]);
        let within = |what: &str, read: u64, bound: u64| {
            assert!(
                read < bound,
                "a warm {what} read {read} of the snapshot's {} bytes ({graph} of graph), against a bound of {bound}",
                bytes.len()
            );
        };

        // Ranking 6,000 declarations tied in score, 20 to a file, reads the facts of the files
        // answered, not of every file with ties.
        assert_eq!(cold_tied.omitted.other["declarationsBeyondThreePerFile"], 300 * 17);
        let answered: usize = cold_tied.hits.iter().map(|h| facts_of(&bytes, &h.path).1).sum();
        let read = warm_reads(dir.path(), &cold_tied, |s| search(s, "retry attempts"));
        within("search", read, columns + answered as u64 + 16 * 1024);
        // Explore walks imports for its blast radius and tests: the dependency lists, not the graph.
        let read = warm_reads(dir.path(), &cold_explore, |s| explore(s, "exponential backoff"));
        within("explore", read, columns + 256 * 1024);
        // A packet for a name 300 files declare alike: the best and the alternatives listed are
        // the first by handle, and only their files' facts are read to order them.
        assert_eq!(cold_packet.alternatives.len(), 5);
        let read = warm_reads(dir.path(), &cold_packet, |s| packet(s, "retry_a"));
        within("packet", read, columns + len(Section::Names) + len(Section::Lower) + 64 * 1024);
        // The hierarchy tools and a symbol's relations: the type relations, not the graph.
        let read = warm_reads(dir.path(), &cold_hierarchy, hierarchy);
        within("hierarchy", read, columns + len(Section::Relations) + 128 * 1024);
        // Imports named like the query: the import bindings, not the graph.
        let read = warm_reads(dir.path(), &cold_imports, |s| imports(s, "shared"));
        within(
            "imports",
            read,
            columns + len(Section::Names) + len(Section::Lower) + len(Section::ImportBindings) + 64 * 1024,
        );
    }

    /// Asks `ask` in a new warm session on `root`: it must answer `expected` with no note. Returns
    /// the bytes of the snapshot it read.
    fn warm_reads<T: PartialEq + std::fmt::Debug>(
        root: &std::path::Path,
        expected: &T,
        ask: impl FnOnce(&mut Session) -> T,
    ) -> u64 {
        let (mut warm, read) = open(root);
        assert_eq!(&ask(&mut warm), expected);
        assert!(warm.take_notes().is_empty());
        read.load(Ordering::Relaxed)
    }

    #[test]
    fn line_counts_are_kept_by_content_and_a_warm_loc_reads_only_files_never_counted() {
        let loc = |s: &mut Session| s.loc(crate::api::LocRequest::default()).unwrap();
        let dir = with_rare_words(40);
        let cold = loc(&mut open_counting(dir.path(), "pkg0/m7.py").0);
        assert_eq!(cold.total.files, 43);
        let stored = dir.path().join(".codegraph/loc.bin");
        let sound = std::fs::read(&stored).unwrap();
        // Warm: the same answer, no source read.
        let (mut warm, read) = open_counting(dir.path(), "pkg0/m7.py");
        assert_eq!(loc(&mut warm), cold);
        assert_eq!(read.load(Ordering::Relaxed), 0);
        // Damaged: counted again, and kept again.
        let mut damaged = sound.clone();
        let at = damaged.len() - 10;
        damaged[at] ^= 1;
        std::fs::write(&stored, &damaged).unwrap();
        let (mut warm, read) = open_counting(dir.path(), "pkg0/m7.py");
        assert_eq!(loc(&mut warm), cold);
        assert!(read.load(Ordering::Relaxed) > 0);
        assert_eq!(std::fs::read(&stored).unwrap(), sound);
        // An edit: that file alone is counted again; the answer is a cold one's.
        std::fs::write(dir.path().join("pkg0/m7.py"), "# one comment\n\nx = 1\n").unwrap();
        let (mut warm, read) = open_counting(dir.path(), "pkg0/m7.py");
        let edited = loc(&mut warm);
        assert!(read.load(Ordering::Relaxed) > 0);
        let (mut untouched, read_other) = open_counting(dir.path(), "pkg0/m8.py");
        assert_eq!(loc(&mut untouched), edited);
        assert_eq!(read_other.load(Ordering::Relaxed), 0);
        let fresh =
            Session::open(Box::new(StdHost::new(dir.path())), DiscoveryOptions::default()).map(|mut s| loc(&mut s));
        let mut fresh = fresh.unwrap();
        fresh.freshness = edited.freshness.clone();
        assert_eq!(edited, fresh);
        assert_ne!(edited.total, cold.total);
    }

    #[test]
    fn a_stored_lexical_index_follows_an_edit_as_a_fresh_build_would() {
        let dir = with_rare_words(40);
        let queries = ["exponential backoff", "save the model", "jittered backoff"];
        let (mut cold, _) = open(dir.path());
        for q in queries {
            search(&mut cold, q);
        }
        drop(cold);
        // Read from text.bin, then brought up to date in place after an edit.
        let (mut warm, _) = open(dir.path());
        assert_eq!(search(&mut warm, "exponential backoff").hits[0].path, "pkg0/retry.py");
        let retry = "def throttle_retries(attempts):\n    \"\"\"Jittered backoff between attempts.\"\"\"\n    return attempts * 3\n";
        std::fs::write(dir.path().join("pkg0/retry.py"), retry).unwrap();
        warm.call("refresh", serde_json::json!({})).unwrap();
        let mut fresh = Session::open(Box::new(StdHost::new(dir.path())), DiscoveryOptions::default()).unwrap();
        for q in queries {
            let (mut updated, built) = (search(&mut warm, q), search(&mut fresh, q));
            updated.freshness = built.freshness.clone();
            assert_eq!(updated, built, "{q}");
        }
        assert_eq!(search(&mut warm, "jittered").hits[0].path, "pkg0/retry.py");
        assert!(warm.take_notes().is_empty());
    }

    #[test]
    fn a_damaged_block_of_the_lexical_index_is_found_when_read_and_the_index_rebuilt() {
        let dir = with_rare_words(40);
        let file = dir.path().join(".codegraph").join(crate::text::STORE_NAME);
        let (mut cold, _) = open(dir.path());
        let queries = ["exponential backoff", "save the model", "shared helper value"];
        let expected: Vec<_> = queries.iter().map(|q| search(&mut cold, q)).collect();
        drop(cold);
        let sound = std::fs::read(&file).unwrap();
        let parts = crate::text::tests::sections(&sound);
        // A byte in the middle of the chunk records, of the terms and of the postings.
        for (i, section) in [(1, "chunks"), (3, "terms"), (5, "postings")] {
            let mut damaged = sound.clone();
            damaged[(parts[i].offset + parts[i].len / 2) as usize] ^= 0x20;
            std::fs::write(&file, &damaged).unwrap();
            let (mut warm, _) = open(dir.path());
            let answers: Vec<_> = queries.iter().map(|q| search(&mut warm, q)).collect();
            assert_eq!(answers, expected, "{section}");
            let notes = warm.take_notes();
            assert!(notes.len() == 1 && notes[0].contains("text.bin") && notes[0].contains(section), "{notes:?}");
            assert_eq!(std::fs::read(&file).unwrap(), sound, "{section}: written again, sound");
        }
    }

    #[test]
    fn a_part_damaged_is_found_when_read_and_the_answer_comes_from_the_sources() {
        let (dir, mut cold) = indexed(30);
        let expected = symbols(&mut cold, "helper_17");
        let expected_refs = refs(&mut cold, "pkg0/m0.py::shared");
        let expected_deps = deps(&mut cold, "pkg0/m17.py");
        let expected_callees = callees(&mut cold, "pkg0/m17.py::helper_17");
        let expected_imports = imports(&mut cold, "shared");
        let expected_rename = rename(&mut cold, "pkg0/m0.py::shared");
        let expected_rows = artifact(&mut cold);
        assert!(expected_imports.symbols.iter().any(|m| m.import_of.is_some()), "{expected_imports:?}");
        drop(cold);
        let file = dir.path().join(FILE);
        let sound = std::fs::read(&file).unwrap();

        // One file's facts, a column, the sites, the graph: each read only when a question needs it.
        let (facts_at, facts_len) = facts_of(&sound, "pkg0/m17.py");
        let middle = |s: Section| {
            let e = sections(&sound)[s as usize];
            (e.offset + e.len / 2) as usize
        };
        let names_at = sections(&sound)[Section::Names as usize].offset as usize + 40;
        for at in [
            facts_at + facts_len / 2,
            names_at,
            middle(Section::Traits),
            middle(Section::Sites),
            middle(Section::FileSites),
            middle(Section::Graph),
            middle(Section::Relations),
            middle(Section::ImportBindings),
            middle(Section::Deps),
        ] {
            let mut damaged = sound.clone();
            damaged[at] ^= 0x55;
            std::fs::write(&file, &damaged).unwrap();
            let (mut warm, _) = open(dir.path());
            assert_eq!(symbols(&mut warm, "helper_17"), expected);
            assert_eq!(refs(&mut warm, "pkg0/m0.py::shared"), expected_refs);
            assert_eq!(deps(&mut warm, "pkg0/m17.py"), expected_deps);
            assert_eq!(callees(&mut warm, "pkg0/m17.py::helper_17"), expected_callees);
            assert_eq!(imports(&mut warm, "shared"), expected_imports);
            assert_eq!(rename(&mut warm, "pkg0/m0.py::shared"), expected_rename);
            assert_eq!(artifact(&mut warm), expected_rows);
            let notes = warm.take_notes();
            assert_eq!(notes.len(), 1, "{notes:?}");
            assert!(
                notes[0].starts_with("ignored .codegraph/index.bin: ") && notes[0].ends_with("; rebuilt it"),
                "{notes:?}"
            );
            // Written again whole: the next session reads it without a word.
            let (mut next, _) = open(dir.path());
            assert_eq!(symbols(&mut next, "helper_17"), expected);
            assert_eq!(refs(&mut next, "pkg0/m0.py::shared"), expected_refs);
            assert!(next.take_notes().is_empty());
        }
    }

    #[test]
    fn an_artifact_reads_each_files_facts_once_and_keeps_none() {
        let (dir, mut cold) = indexed(2_000);
        let cold_rows = artifact(&mut cold);
        assert_eq!(cold_rows["symbols"], 5_998, "{cold_rows:?}");
        drop(cold);
        std::fs::remove_dir_all(dir.path().join(".codegraph/artifacts")).unwrap();
        let bytes = std::fs::read(dir.path().join(FILE)).unwrap();
        let facts = held_by(&bytes, &[Section::Facts]);
        let (mut warm, read) = open(dir.path());
        assert_eq!(artifact(&mut warm), cold_rows);
        // Every file's facts, decoded once for all the rows made of them: not a pass per table.
        let by_artifact = read.load(Ordering::Relaxed);
        assert!(
            by_artifact < bytes.len() as u64 + facts / 2,
            "an artifact build read {by_artifact} of the snapshot's {} bytes ({facts} of facts)",
            bytes.len()
        );
        // …and not kept: a database of the whole index is held while they are read.
        assert_eq!(warm.facts_kept(), 0);
        assert!(warm.take_notes().is_empty());
    }

    #[test]
    fn a_warm_session_builds_its_lexical_index_keeping_only_the_facts_it_answers_with() {
        let (dir, mut cold) = indexed(2_000);
        let cold_search = search(&mut cold, "model number");
        drop(cold);
        std::fs::remove_file(dir.path().join(".codegraph").join(crate::text::STORE_NAME)).unwrap();
        let (mut warm, _) = open(dir.path());
        assert_eq!(search(&mut warm, "model number"), cold_search);
        // Every file is cut into chunks with its facts looked at once (all 2,000 were kept).
        let answered: std::collections::BTreeSet<&str> = cold_search.hits.iter().map(|h| h.path.as_str()).collect();
        assert!(warm.facts_kept() <= answered.len(), "{} files' facts kept", warm.facts_kept());
        assert!(warm.take_notes().is_empty());
    }

    #[test]
    fn a_file_touched_but_unchanged_is_read_once_and_its_new_stat_kept() {
        let (dir, mut cold) = indexed(3);
        let expected = symbols(&mut cold, "helper_1");
        drop(cold);
        let touched = std::fs::File::options().append(true).open(dir.path().join("pkg0/m1.py")).unwrap();
        touched.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000)).unwrap();
        let (mut warm, _) = open(dir.path());
        assert_eq!(symbols(&mut warm, "helper_1"), expected);
        let status = warm.snapshot_status();
        assert_eq!((status.read_files, status.written), (1, true), "{status:?}");
        let (mut next, _) = open(dir.path());
        assert_eq!(symbols(&mut next, "helper_1"), expected);
        let status = next.snapshot_status();
        assert_eq!((status.read_files, status.written), (0, false), "{status:?}");
    }

    /// A snapshot file with its sections changed by `change` and every checksum made to match, as
    /// a crafted file would be.
    fn recrafted(bytes: &[u8], change: impl FnOnce(&mut Vec<Vec<u8>>)) -> Vec<u8> {
        let mut payloads: Vec<Vec<u8>> =
            sections(bytes).iter().map(|e| bytes[e.offset as usize..(e.offset + e.len) as usize].to_vec()).collect();
        change(&mut payloads);
        let offsets = payloads.iter().scan(FORMAT.header_len(), |at, p| {
            *at += p.len();
            Some(*at - p.len())
        });
        let mut out = FORMAT.header(offsets.zip(payloads.iter().map(Vec::as_slice)).collect::<Vec<_>>().into_iter());
        for p in &payloads {
            out.extend_from_slice(p);
        }
        out
    }

    #[test]
    fn packed_facts_round_trip_and_a_crafted_block_is_refused_before_it_is_allocated() {
        let facts = crate::extract::extract(Language::Rust, "pub fn run(a: u32) -> u32 { helper(a) + helper(a) }\n");
        let packed = pack_facts(&facts).unwrap();
        assert!(packed.len() < postcard::to_allocvec(&facts).unwrap().len());
        assert_eq!(
            postcard::to_allocvec(&unpack_facts(&packed).unwrap()).unwrap(),
            postcard::to_allocvec(&facts).unwrap()
        );
        // A length of 4 GiB before a few bytes, a length the block does not fill, a cut block,
        // nothing at all.
        let mut huge = packed.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        let mut longer = packed.clone();
        longer[..4].copy_from_slice(&(u32::from_le_bytes(packed[..4].try_into().unwrap()) + 1).to_le_bytes());
        let cut = &packed[..packed.len() - 3];
        let mut trailing = packed.clone();
        trailing.push(0);
        let mut past_end = packed.clone();
        past_end[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        for crafted in [&huge[..], &longer[..], cut, &trailing[..], &past_end[..], &[][..]] {
            let why = unpack_facts(crafted).expect_err("refused");
            assert!(why.starts_with("undecodable facts"), "{why}");
        }
        // Facts longer than a block holds are packed in several.
        let mut source = String::new();
        for i in 0..4000 {
            std::fmt::Write::write_fmt(
                &mut source,
                format_args!("pub fn f{i}(a: u32) -> u32 {{ helper(a) + g{i}(a) }}\n"),
            )
            .unwrap();
        }
        let big = crate::extract::extract(Language::Rust, &source);
        let plain = postcard::to_allocvec(&big).unwrap();
        assert!(plain.len() > 3 * FACTS_CHUNK, "{} bytes", plain.len());
        let packed = pack_facts(&big).unwrap();
        assert_eq!(postcard::to_allocvec(&unpack_facts(&packed).unwrap()).unwrap(), plain);
        let mut short = packed.clone();
        short.truncate(packed.len() - 1);
        assert!(unpack_facts(&short).is_err());
    }

    #[test]
    fn facts_looked_for_are_decoded_only_when_their_bytes_hold_what_is_looked_for() {
        let (dir, mut cold) = indexed(3);
        assert_eq!(symbols(&mut cold, "helper_1").symbols.len(), 1);
        drop(cold);
        let key = DiscoveryOptions::default().file_set_key();
        let opened = |dir: &std::path::Path| match super::open(&StdHost::new(dir), &key, u64::MAX) {
            Ok(s) => s.expect("a snapshot"),
            Err(r) => panic!("{}", r.why),
        };
        let stored = opened(dir.path());
        let m1 = stored.files.iter().find(|f| f.path == "pkg0/m1.py").unwrap();
        assert!(m1.facts.passing_holding(&["helper_2"]).is_none());
        assert!(m1.facts.passing_holding(&["helper_1", "helper_2"]).is_none());
        let found = m1.facts.passing_holding(&["helper_1", "Model1"]).expect("decoded");
        let names: Vec<&str> = found.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["Model1", "save_1", "helper_1"]);
        assert!(!m1.facts.is_kept() && stored.image.damage().is_none());
        // Facts that fail their check are not asked about: they are given as nameless symbols, and
        // the image is marked damaged (the session then rebuilds), as any read of them does.
        let mut bytes = std::fs::read(dir.path().join(FILE)).unwrap();
        let (offset, len) = facts_of(&bytes, "pkg0/m1.py");
        bytes[offset + len / 2] ^= 0xff;
        let damaged = recrafted(&bytes, |_| {});
        std::fs::write(dir.path().join(FILE), damaged).unwrap();
        let stored = opened(dir.path());
        let m1 = stored.files.iter().find(|f| f.path == "pkg0/m1.py").unwrap();
        let given = m1.facts.passing_holding(&["helper_2"]).expect("given, damaged");
        assert_eq!(given.symbols.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["", "", ""]);
        assert!(stored.image.damage().is_some());
    }

    #[test]
    fn ids_out_of_range_in_a_crafted_snapshot_are_refused_not_followed() {
        let (dir, mut cold) = indexed(5);
        let expected = symbols(&mut cold, "helper_3");
        let expected_refs = refs(&mut cold, "pkg0/m0.py::shared");
        let deps_of_m3 = deps(&mut cold, "pkg0/m3.py").files;
        let callees_of_m3 = callees(&mut cold, "pkg0/m3.py::helper_3");
        let imports_of_shared = imports(&mut cold, "shared");
        let rename_of_shared = rename(&mut cold, "pkg0/m0.py::shared");
        let rows = artifact(&mut cold);
        drop(cold);
        let file = dir.path().join(FILE);
        let sound = std::fs::read(&file).unwrap();
        // A site whose target is no symbol; then a symbol whose container is none.
        let graph = recrafted(&sound, |p| {
            let mut records = p[Section::Sites as usize].clone();
            let last = records.len() - SITE_LEN;
            records[last..last + 4].copy_from_slice(&1_000_000u32.to_le_bytes()); // the target
            put_sites(p, &BY_TARGET, records);
        });
        let facts = recrafted(&sound, |p| {
            let mut list: Vec<FileEntry> = postcard::from_bytes(&p[Section::Files as usize]).unwrap();
            let mut blobs = Vec::new();
            let mut at = 0;
            for e in &mut list {
                let mut f = unpack_facts(&p[Section::Facts as usize][at..at + e.facts_len as usize]).unwrap();
                at += e.facts_len as usize;
                if let Some(s) = f.symbols.first_mut() {
                    s.container = Some(1_000);
                }
                let blob = pack_facts(&f).unwrap();
                (e.facts_len, e.facts_hash) = (blob.len() as u64, *blake3::hash(&blob).as_bytes());
                blobs.extend(blob);
            }
            p[Section::Facts as usize] = blobs;
            p[Section::Files as usize] = postcard::to_allocvec(&list).unwrap();
        });
        let sites = recrafted(&sound, |p| {
            let mut records = p[Section::Sites as usize].clone();
            for record in records.chunks_exact_mut(SITE_LEN) {
                record[4..8].copy_from_slice(&1_000_000u32.to_le_bytes()); // the file
            }
            put_sites(p, &BY_TARGET, records);
        });
        // The sites by file, each naming a target no symbol has.
        let callers = recrafted(&sound, |p| {
            let mut records = p[Section::FileSites as usize].clone();
            for record in records.chunks_exact_mut(SITE_LEN) {
                record[..4].copy_from_slice(&1_000_000u32.to_le_bytes()); // the target
            }
            put_sites(p, &BY_FILE, records);
        });
        // A kind byte no kind has; then one symbol's kind missing.
        let kind = recrafted(&sound, |p| p[Section::Traits as usize][0] = 0x7f);
        let kinds = recrafted(&sound, |p| {
            p[Section::Traits as usize].pop();
        });
        for crafted in [graph, facts, sites, callers, kind, kinds] {
            assert!(read_header(&crafted).is_ok(), "its checksums match");
            std::fs::write(&file, &crafted).unwrap();
            let (mut warm, _) = open(dir.path());
            assert_eq!(symbols(&mut warm, "helper_3"), expected);
            assert_eq!(refs(&mut warm, "pkg0/m0.py::shared"), expected_refs);
            assert_eq!(deps(&mut warm, "pkg0/m3.py").files, deps_of_m3);
            assert_eq!(callees(&mut warm, "pkg0/m3.py::helper_3"), callees_of_m3);
            assert_eq!(imports(&mut warm, "shared"), imports_of_shared);
            assert_eq!(rename(&mut warm, "pkg0/m0.py::shared"), rename_of_shared);
            assert_eq!(artifact(&mut warm), rows);
            let notes = warm.take_notes();
            assert!(notes.len() == 1 && notes[0].contains("not fit"), "{notes:?}");
        }
    }

    #[test]
    fn use_counts_damaged_or_crafted_are_refused_and_counted_from_the_graph() {
        let orient = |s: &mut Session| s.orient(crate::api::OrientRequest::default()).unwrap();
        let (dir, mut cold) = indexed(30);
        let expected = orient(&mut cold);
        assert!(expected.public_api.iter().any(|a| a.uses > 0), "{expected:?}");
        drop(cold);
        let file = dir.path().join(FILE);
        let sound = std::fs::read(&file).unwrap();
        let counts = sections(&sound)[Section::Counts as usize];
        let mut flipped = sound.clone();
        flipped[(counts.offset + counts.len / 2) as usize] ^= 0x55;
        let short = recrafted(&sound, |p| {
            let mut c: crate::index::Counts = postcard::from_bytes(&p[Section::Counts as usize]).unwrap();
            c.uses.pop();
            p[Section::Counts as usize] = postcard::to_allocvec(&c).unwrap();
        });
        for (bytes, why) in [(flipped, "checksum"), (short, "not fit")] {
            std::fs::write(&file, &bytes).unwrap();
            let (mut warm, _) = open(dir.path());
            assert_eq!(orient(&mut warm), expected);
            let notes = warm.take_notes();
            assert!(notes.len() == 1 && notes[0].contains(why), "{notes:?}");
        }
    }

    #[test]
    fn the_header_is_checked_before_anything_is_trusted() {
        let (dir, mut cold) = indexed(3);
        symbols(&mut cold, "helper_1");
        drop(cold);
        let sound = std::fs::read(dir.path().join(FILE)).unwrap();
        let why = |bytes: Vec<u8>| read_header(&bytes).err().map(|r| (r.damaged, r.why));
        assert!(why(sound.clone()).is_none());
        let mut old = sound.clone();
        old[8] = 0;
        assert_eq!(
            why(old).unwrap(),
            (false, format!("snapshot format 0, this codegraph reads format {FORMAT_VERSION}"))
        );
        let mut flipped = sound.clone();
        flipped[20] ^= 1;
        assert!(why(flipped).unwrap().1.contains("header checksum"));
        assert!(why(sound[..sound.len() - 1].to_vec()).unwrap().1.contains("truncated"));
        assert!(why(b"garbage".to_vec()).unwrap().0);
    }

    #[test]
    fn columns_are_checked_when_read() {
        let column = StrColumn::build(["a", "bé", ""].into_iter());
        assert_eq!((&column[0], &column[1], &column[2]), ("a", "bé", ""));
        let bytes = column.bytes().to_vec();
        assert!(StrColumn::from_bytes(bytes.clone(), 3).is_ok());
        assert!(StrColumn::from_bytes(bytes.clone(), 2).is_err());
        let mut split = bytes.clone();
        split[8] = 3; // the second string would start inside `é`
        assert!(StrColumn::from_bytes(split, 3).is_err());
        let mut unordered = bytes;
        unordered[12] = 0;
        assert!(StrColumn::from_bytes(unordered, 3).is_err());
    }

    #[test]
    fn a_column_finds_the_strings_holding_a_needle_as_a_scan_would() {
        // Matches running across two strings ("ab" + "aba" holds "aba" from 0), empty strings,
        // several matches in one string, characters of several bytes.
        let items = ["ab", "aba", "", "xabax", "ba", "é", "bé", "abab", "", "a"];
        let column = StrColumn::build(items.into_iter());
        for needle in ["aba", "a", "ab", "b", "é", "bé", "x", "zz", "abab", "aab", ""] {
            let scanned: Vec<u32> = (0..items.len() as u32).filter(|&i| items[i as usize].contains(needle)).collect();
            let found: Vec<u32> =
                column.holding(needle).into_iter().filter(|&i| column[i as usize].contains(needle)).collect();
            assert_eq!(found, scanned, "{needle}");
        }
    }
}
