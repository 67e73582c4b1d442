//! The build pipeline: walk → read only what changed since the snapshot (stat first) → parse (in
//! parallel on native) → resolve, or reuse the stored graph, or update it in place → write the
//! snapshot. And change detection: which files differ on disk from what the index was built from.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use super::{BuildTimings, Clock, Progress, Session, SnapshotStatus};
use crate::discover::{self, content_problem, Rules, SkippedFile};
use crate::error::Error;
use crate::host::Host;
use crate::index::{ConfigTexts, Index, IndexedFile};
use crate::map_maybe_parallel_reporting;
use crate::snapshot::{self, LazyFacts, SnapshotFile};

/// What a change check found.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// Added, modified and removed files, sorted.
    pub files: Vec<String>,
    /// The bytes to read to take them in.
    pub bytes: u64,
    /// Whether some file left the set (deleted, renamed away, ignored now).
    pub left: bool,
}

impl Session {
    /// Writes the snapshot of `previous` and the index's graph (when persisting), noting the outcome
    /// in the status.
    fn save_snapshot(&mut self, index: &Index) {
        self.unsaved_files = 0;
        self.last_save_ms = self.host.now_ms();
        if !self.options.persist {
            return;
        }
        let (options_key, configs_key) = (self.options.file_set_key(), configs_key(&self.configs));
        match snapshot::save(self.host.as_ref(), &index.stored_parts(&options_key, &configs_key)) {
            Ok(written) => self.snapshot_status.written = written,
            Err(e) => {
                let note = format!("cannot write {}: {e}", snapshot::FILE);
                self.notes.push(note.clone());
                self.snapshot_status.note = Some(note);
            }
        }
    }

    /// Takes in modified files without a full build when each is an indexed source file whose
    /// interface is unchanged (see `Index::update`): only their references are resolved again.
    /// Returns false, having changed nothing, when a full build is needed (a file added, deleted,
    /// ignored now, skipped or reshaped, or a config file changed).
    pub(crate) fn update_in_place(&mut self, changes: &Changes) -> Result<bool, Error> {
        self.make_facts_cache();
        let Some(index) = self.index.as_ref() else { return Ok(false) };
        if changes.left {
            return Ok(false);
        }
        let changed = &changes.files;
        let rules = Rules::new(&self.options)?;
        let mut files = Vec::with_capacity(changed.len());
        let mut stats = Vec::with_capacity(changed.len());
        let mut texts = Vec::with_capacity(changed.len());
        for path in changed {
            let Some(&fid) = index.by_path.get(path) else { return Ok(false) };
            let language = index.files[fid as usize].language;
            let Ok(entry) = self.host.stat(path) else { return Ok(false) };
            let Ok(bytes) = self.host.read_file(path, rules.max_file_bytes) else { return Ok(false) };
            if unindexable(&bytes, &rules).is_some() {
                return Ok(false);
            }
            stats.push((path.clone(), (entry.size, entry.mtime_ms)));
            files.push(indexed_file(path.clone(), language, entry.mtime_ms, &bytes, &self.facts_cache));
            texts.push((path.clone(), String::from_utf8(bytes).expect("checked by unindexable")));
        }
        let taken: Vec<SnapshotFile> = files.iter().map(SnapshotFile::of).collect();
        let index = self.index.as_mut().expect("checked above");
        // A lexical index already built follows the edit instead of being built again.
        let text = index.text.take();
        if index.update(files, &self.configs).is_err() {
            return Ok(false);
        }
        if let Some(text) = text {
            let changed_text = texts.into_iter().map(|(path, t)| (index.by_path[&path], Some(t))).collect();
            // (A stored index that fails its check is dropped: the next search builds it again.)
            if let Some(text) = text.update(index, changed_text) {
                let _ = index.text.set(text);
            }
        }
        self.stats.extend(stats);
        for f in taken {
            self.facts_cache.insert(facts_key(f.language, &f.hash), f.facts.clone());
            self.previous.insert(f.path.clone(), f);
        }
        // Rewriting the whole snapshot for every small edit would cost more than the edit; a later
        // start re-reads what the snapshot misses, so it is written once enough has accumulated.
        self.unsaved_files += changed.len() as u64;
        if self.unsaved_files >= SAVE_AFTER_FILES || self.host.now_ms() - self.last_save_ms >= SAVE_AFTER_MS {
            let index = self.index.take().expect("updated above");
            self.save_snapshot(&index);
            self.index = Some(index);
        }
        Ok(true)
    }

    /// Makes the facts cache from the files of the last build, if it was left to be made.
    fn make_facts_cache(&mut self) {
        if std::mem::take(&mut self.facts_cache_pending) {
            self.facts_cache =
                self.previous.values().map(|f| (facts_key(f.language, &f.hash), f.facts.clone())).collect();
        }
    }

    /// Files added, modified or deleted on disk since the index was built (by size and mtime). A walk
    /// that finds nothing changed becomes the watch of the next check.
    pub(crate) fn changes(&mut self) -> Result<Changes, Error> {
        let rules = Rules::new(&self.options)?;
        if self.watch.unchanged(self.host.as_ref()) {
            return Ok(self.edits_of_known_files(&rules));
        }
        let walk = discover::walk(self.host.as_ref(), &rules)?;
        let mut changed: Vec<String> = Vec::new();
        let mut changed_bytes: u64 = 0;
        let mut seen = 0usize;
        let mut now: Vec<&str> = Vec::with_capacity(walk.candidates.len() + walk.config_files.len());
        let configs = config_stats(self.host.as_ref(), &walk.config_files);
        let stats = walk.candidates.iter().map(|c| (c.path.as_str(), c.size, c.mtime_ms));
        for (path, size, mtime_ms) in stats.chain(configs.iter().map(|(p, (size, mtime))| (p.as_str(), *size, *mtime)))
        {
            now.push(path);
            let known = self.stats.get(path);
            seen += usize::from(known.is_some());
            if known != Some(&(size, mtime_ms)) {
                changed.push(path.to_string());
                changed_bytes += size;
            }
        }
        // Files that left the set: deleted, renamed away, or ignored now.
        let left = seen < self.stats.len();
        if left {
            let now: std::collections::HashSet<&str> = now.into_iter().collect();
            changed.extend(self.stats.keys().filter(|p| !now.contains(p.as_str())).cloned());
        }
        changed.sort();
        if changed.is_empty() {
            self.watch = walk.watch;
        }
        Ok(Changes { files: changed, bytes: changed_bytes, left })
    }

    /// The changes when no directory or ignore file changed (so no file was added, removed or renamed,
    /// and the rules are the same): the known files whose stat differs. A file gone, or grown past
    /// the size cap, is a change that costs nothing to take in, as a walk would report it.
    fn edits_of_known_files(&self, rules: &Rules) -> Changes {
        let mut out = Changes::default();
        let paths: Vec<&str> = self.stats.keys().map(String::as_str).collect();
        let stats = self.host.stat_many(&paths);
        for ((path, known), now) in self.stats.iter().zip(stats) {
            match now {
                Ok(e) if (e.size, e.mtime_ms.to_bits()) == (known.0, known.1.to_bits()) => {}
                Ok(e) => {
                    out.files.push(path.clone());
                    if e.kind == crate::host::EntryKind::File && e.size <= rules.max_file_bytes {
                        out.bytes += e.size;
                    }
                }
                Err(_) => {
                    out.files.push(path.clone());
                    out.left = true;
                }
            }
        }
        out
    }

    /// Reads the persisted snapshot once per session, if persisting; `source_bytes` (of the files it
    /// would describe) bounds how large it may be.
    fn load_snapshot_once(&mut self, source_bytes: u64) {
        if self.snapshot_checked {
            return;
        }
        self.snapshot_checked = true;
        let (state, note) = if self.options.persist {
            match snapshot::open(
                self.host.as_ref(),
                &self.options.file_set_key(),
                crate::store::index_cap(source_bytes),
            ) {
                Ok(Some(s)) => {
                    self.prior_image = Some((s.configs_key.clone(), s.image.clone()));
                    self.previous = snapshot::by_path(s.files);
                    ("loaded", None)
                }
                Ok(None) => ("absent", None),
                Err(rejection) => {
                    let note = format!("ignored {}: {}; rebuilt it", snapshot::FILE, rejection.why);
                    if rejection.damaged {
                        self.notes.push(note.clone());
                    }
                    ("rejected", Some(note))
                }
            }
        } else {
            ("disabled", None)
        };
        self.snapshot_status = SnapshotStatus { state: state.into(), note, ..SnapshotStatus::default() };
    }

    pub(crate) fn build(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<Index, Error> {
        let mut clock = Clock::new(self.host.now_ms());
        let mut timings = BuildTimings::default();
        let rules = Rules::new(&self.options)?;
        let walk = discover::walk(self.host.as_ref(), &rules)?;
        timings.walk_ms = clock.lap(self.host.now_ms());
        self.load_snapshot_once(walk.candidates.iter().map(|c| c.size).sum());
        timings.snapshot_load_ms = clock.lap(self.host.now_ms());
        self.stats = walk.candidates.iter().map(|c| (c.path.clone(), (c.size, c.mtime_ms))).collect();
        self.stats.extend(config_stats(self.host.as_ref(), &walk.config_files));
        self.watch = walk.watch.clone();
        // Stat first: files whose size and mtime are unchanged are taken as they were, unread.
        let mut files: Vec<IndexedFile> = Vec::with_capacity(walk.candidates.len());
        let mut to_read = Vec::new();
        for candidate in walk.candidates {
            match self.previous.get(&candidate.path) {
                Some(p)
                    if p.size == candidate.size
                        && p.mtime_ms.to_bits() == candidate.mtime_ms.to_bits()
                        && p.language == candidate.language =>
                {
                    files.push(IndexedFile {
                        path: candidate.path,
                        language: p.language,
                        hash: p.hash.clone(),
                        size: p.size,
                        mtime_ms: p.mtime_ms,
                        lines: p.lines,
                        facts: p.facts.clone(),
                        sym_base: 0,
                    });
                }
                _ => to_read.push(candidate),
            }
        }
        let reused = files.len() as u64;
        let read = to_read.len() as u64;
        let paths: Vec<String> = to_read.iter().map(|c| c.path.clone()).collect();
        let contents = self.host.read_files(&paths, rules.max_file_bytes);
        let mut skipped = walk.skipped;
        let mut work = Vec::with_capacity(paths.len());
        for (candidate, content) in to_read.into_iter().zip(contents) {
            match content {
                Err(e) => skipped.push(SkippedFile { path: candidate.path, reason: format!("unreadable: {e}") }),
                Ok(bytes) => {
                    if let Some(reason) = unindexable(&bytes, &rules) {
                        skipped.push(SkippedFile { path: candidate.path, reason });
                    } else {
                        work.push((candidate, bytes));
                    }
                }
            }
        }
        timings.read_ms = clock.lap(self.host.now_ms());
        let total = work.len() as u64;
        if !work.is_empty() {
            self.make_facts_cache();
        }
        let cache = &self.facts_cache;
        files.extend(map_maybe_parallel_reporting(
            work,
            PARSE_BATCH,
            |(candidate, bytes)| indexed_file(candidate.path, candidate.language, candidate.mtime_ms, &bytes, cache),
            &mut |done| progress(Progress { phase: "parse", done: done as u64, total }),
        ));
        timings.parse_ms = clock.lap(self.host.now_ms());
        // The facts of these files, made from `previous` (set below) when a file is next parsed.
        self.facts_cache.clear();
        self.facts_cache_pending = true;
        let removed = self.previous.keys().any(|p| !self.stats.contains_key(p));
        // Same files as the stored graph, some with new contents: the files as the snapshot had them
        // (to rebuild the stored graph) and the new versions (to bring it up to date in place).
        let same_set =
            !removed && files.len() == self.previous.len() && files.iter().all(|f| self.previous.contains_key(&f.path));
        let in_place = (same_set && read > 0 && self.prior_image.is_some()).then(|| {
            // Unchanged contents as they are now (their stat may have moved), changed ones as stored.
            let stored: Vec<IndexedFile> = files
                .iter()
                .map(|f| match &self.previous[&f.path] {
                    p if p.hash == f.hash => f.clone(),
                    p => p.indexed(),
                })
                .collect();
            let changed: Vec<IndexedFile> =
                files.iter().filter(|f| self.previous[&f.path].hash != f.hash).cloned().collect();
            (stored, changed)
        });
        // (Unchanged when every file was taken from it as it was.)
        if read > 0 || removed || files.len() != self.previous.len() {
            self.previous = files.iter().map(|f| (f.path.clone(), SnapshotFile::of(f))).collect();
        }
        self.snapshot_status.reused_files = reused;
        self.snapshot_status.read_files = read;
        self.snapshot_status.written = false;
        self.snapshot_status.graph_reused = false;
        let dirty = read > 0 || removed || self.snapshot_status.state != "loaded";
        let mut configs = ConfigTexts::default();
        for path in walk.config_files {
            // A config that can't be read (a FIFO, over the cap) is resolved without, as if absent.
            if let Ok(bytes) = self.host.read_file(&path, CONFIG_FILE_CAP) {
                configs.insert(path, String::from_utf8_lossy(&bytes).into_owned());
            }
        }
        skipped.sort();
        progress(Progress { phase: "resolve", done: 0, total: files.len() as u64 });
        // The snapshot's resolved graph, under the same configs, is this one when nothing changed, and
        // becomes it when the changed files kept their interfaces (re-resolving only them).
        let key = configs_key(&configs);
        let prior = self.prior_image.take().filter(|(k, _)| *k == key).map(|(_, g)| g);
        let other = walk.other_files;
        let index = match (prior, in_place) {
            (Some(image), None) if !dirty => {
                self.snapshot_status.graph_reused = true;
                Index::build(files, skipped, other, &configs, Some(image))
            }
            (Some(image), Some((stored, changed))) => {
                let mut index = Index::build(stored, skipped.clone(), other, &configs, Some(image));
                match index.update(changed, &configs) {
                    Ok(()) => {
                        self.snapshot_status.graph_reused = true;
                        index
                    }
                    Err(_) => Index::build(files, skipped, other, &configs, None),
                }
            }
            _ => Index::build(files, skipped, other, &configs, None),
        };
        self.configs = configs;
        timings.resolve_ms = clock.lap(self.host.now_ms());
        if dirty || !self.snapshot_status.graph_reused {
            self.save_snapshot(&index);
        }
        timings.snapshot_save_ms = clock.lap(self.host.now_ms());
        timings.total_ms = clock.total();
        self.timings = timings;
        Ok(index)
    }
}

/// Why content read from disk can't be indexed (over the size cap, binary, not UTF-8), if it can't.
pub(crate) fn unindexable(bytes: &[u8], rules: &Rules) -> Option<String> {
    if bytes.len() as u64 > rules.max_file_bytes {
        return Some(format!("larger than the size cap ({} > {} bytes)", bytes.len(), rules.max_file_bytes));
    }
    content_problem(bytes)
}

/// The key of parsed facts in the facts cache: the same content in the same language parses the same.
fn facts_key(language: crate::lang::Language, hash: &str) -> String {
    format!("{}:{hash}", language.name())
}

/// An indexed file from content that passed `unindexable`: the cached facts for its hash, or parsed
/// now. Hashing is part of a file's work (in parallel with the others'), not of reading it.
fn indexed_file(
    path: String,
    language: crate::lang::Language,
    mtime_ms: f64,
    bytes: &[u8],
    cache: &HashMap<String, LazyFacts>,
) -> IndexedFile {
    let hash = blake3::hash(bytes).to_hex().to_string();
    let cached = cache.get(&facts_key(language, &hash)).cloned();
    let text = std::str::from_utf8(bytes).expect("checked by unindexable");
    let facts = cached.unwrap_or_else(|| LazyFacts::ready(Arc::new(crate::extract::extract(language, text))));
    IndexedFile {
        path,
        language,
        hash,
        size: bytes.len() as u64,
        mtime_ms,
        // As many lines as `split('\n')` gives: one more than the newlines (counted a vector at a time).
        lines: memchr::memchr_iter(b'\n', bytes).count() as u32 + 1,
        facts,
        sym_base: 0,
    }
}

/// Config files (tsconfig.json, package.json, go.mod, Cargo.toml) larger than this are not read.
const CONFIG_FILE_CAP: u64 = 1024 * 1024;

/// An incrementally refreshed index writes its snapshot once this many files were taken in since the
/// last write, or this long after it.
const SAVE_AFTER_FILES: u64 = 50;
const SAVE_AFTER_MS: f64 = 60_000.0;

/// A key for a set of config texts: the stored graph is valid only under the same configs.
fn configs_key(configs: &ConfigTexts) -> String {
    let mut paths: Vec<&String> = configs.keys().collect();
    paths.sort();
    let mut hasher = blake3::Hasher::new();
    for p in paths {
        hasher.update(p.as_bytes()).update(&[0]).update(configs[p].as_bytes()).update(&[0]);
    }
    hasher.finalize().to_hex().to_string()
}

/// (size, mtime) of the config files, which change detection watches like sources.
fn config_stats(host: &dyn Host, paths: &[String]) -> Vec<(String, (u64, f64))> {
    paths.iter().filter_map(|p| host.stat(p).ok().map(|e| (p.clone(), (e.size, e.mtime_ms)))).collect()
}

/// Files parsed between two progress reports (large enough that a report costs nothing, small enough
/// that a slow repository shows movement).
const PARSE_BATCH: usize = 512;
