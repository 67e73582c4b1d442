//! A session on one root: the host, the options and, once built, the index — and what keeps the
//! index honest as files change on disk: change detection, in-place updates, the persisted
//! snapshot, and the freshness every answer reports. Answering requests is `api`'s job; this module
//! only hands it a built index (`build.rs` has the pipeline that makes one).

mod build;

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

use crate::discover::{self, Rules};
use crate::error::Error;
use crate::host::Host;
use crate::index::{ConfigTexts, Index};
use crate::map_maybe_parallel;
use crate::snapshot::{LazyFacts, SnapshotFile};

pub use crate::discover::DiscoveryOptions as OpenOptions;

/// Refresh automatically when at most this many files changed …
pub const REFRESH_MAX_FILES_DEFAULT: u32 = 50;
/// … and their new sizes add up to at most this many bytes.
pub const REFRESH_MAX_BYTES_DEFAULT: u64 = 2 * 1024 * 1024;
/// Changed files named in a freshness report, at most.
pub const CHANGED_SAMPLE_CAP: usize = 25;

/// How fresh an answer is relative to the files on disk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Freshness {
    /// `fresh`, `refreshed` (changes were picked up before answering) or `stale`.
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_file_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omitted_changed_file_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_files: Option<Vec<String>>,
}

impl Freshness {
    pub fn fresh() -> Freshness {
        Freshness {
            state: "fresh".into(),
            changed_file_count: None,
            omitted_changed_file_count: None,
            changed_files: None,
        }
    }

    /// Freshness that names a change set (`refreshed` after taking it in, `stale` before).
    fn of_changes(state: &str, changed: &[String]) -> Freshness {
        let sample: Vec<String> = changed.iter().take(CHANGED_SAMPLE_CAP).cloned().collect();
        Freshness {
            state: state.into(),
            changed_file_count: Some(changed.len() as u64),
            omitted_changed_file_count: Some((changed.len() - sample.len()) as u64),
            changed_files: Some(sample),
        }
    }
}

/// What the last build did with the persistent snapshot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SnapshotStatus {
    /// `disabled` (not persisting), `absent` (none yet), `loaded`, or `rejected` (old, corrupt or made
    /// with other options: rebuilt).
    pub state: String,
    /// Files taken from the snapshot because their size and mtime were unchanged (not read, not parsed).
    pub reused_files: u64,
    /// Files read and hashed (and parsed unless their content hash was known).
    pub read_files: u64,
    /// Whether this build wrote the snapshot.
    pub written: bool,
    /// The resolved graph was read from the snapshot (nothing changed since it was written) instead
    /// of resolving every file again.
    pub graph_reused: bool,
    /// Why a snapshot was rejected or could not be written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Milliseconds since `.codegraph/index.bin` was last written (absent when there is none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age_ms: Option<u64>,
    /// Size of `.codegraph/index.bin` in bytes (absent when there is none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

/// Where the last build spent its time, in milliseconds of the host's clock. Varies from run to run:
/// compare runs, not answers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BuildTimings {
    /// Walking the tree and applying ignore rules (stat only).
    pub walk_ms: f64,
    /// Reading and verifying the persisted snapshot.
    pub snapshot_load_ms: f64,
    /// Reading the files whose stat changed (all of them on a cold build).
    pub read_ms: f64,
    /// Hashing, parsing and extracting facts (in parallel on the native engine).
    pub parse_ms: f64,
    /// Writing the snapshot.
    pub snapshot_save_ms: f64,
    /// Symbol table and resolution of every reference.
    pub resolve_ms: f64,
    pub total_ms: f64,
}

/// How far a build got: `parse` (files done of total) or `resolve` (started, over `total` files).
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub phase: &'static str,
    pub done: u64,
    pub total: u64,
}

/// What `parse_only` measured.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParseOnly {
    pub files: u64,
    pub bytes: u64,
    /// Syntax nodes in all trees (a check that the parse really happened).
    pub nodes: u64,
    pub walk_ms: f64,
    pub read_ms: f64,
    pub parse_ms: f64,
    pub total_ms: f64,
}

/// What a refresh did: the freshness it leaves, whether it rebuilt (in place or in full), and the
/// number of indexed files.
pub(crate) struct RefreshOutcome {
    pub freshness: Freshness,
    pub rebuilt: bool,
    pub incremental: bool,
    pub files: u64,
}

/// A session on one root: the host, the discovery options and, once built, the index.
pub struct Session {
    host: Box<dyn Host>,
    options: OpenOptions,
    index: Option<Index>,
    /// Facts by content hash, kept across rebuilds so unchanged files are never parsed twice.
    facts_cache: HashMap<String, LazyFacts>,
    /// The cache is the facts of `previous`, not made yet: made when a file is next parsed (a warm
    /// start that parses nothing never makes it).
    facts_cache_pending: bool,
    /// (size, mtime) of every candidate file when the index was built: the stat snapshot that change
    /// detection compares against.
    stats: BTreeMap<String, (u64, f64)>,
    /// The directories and ignore files of the walk the index was built from: while they are
    /// unchanged, a change check stats the known files instead of walking the tree.
    watch: crate::discover::Watch,
    /// What the next answers say about freshness (set by `refresh`).
    freshness: Freshness,
    /// The files of the last build (or of the persisted snapshot), for the stat fast path: a file
    /// whose size and mtime are unchanged is reused without being read.
    previous: HashMap<String, SnapshotFile>,
    snapshot_checked: bool,
    snapshot_status: SnapshotStatus,
    timings: BuildTimings,
    /// The config files (tsconfig, go.mod, Cargo.toml, …) the index was resolved with.
    configs: ConfigTexts,
    /// Files taken in by incremental refreshes since the snapshot was last written, and when that was.
    unsaved_files: u64,
    last_save_ms: f64,
    /// The loaded snapshot (whose graph and columns a build of its very files reads), with the key
    /// of the configs its graph was resolved with, until the first build.
    prior_image: Option<(String, Arc<crate::snapshot::Image>)>,
    /// What went wrong with the persisted state (a snapshot rejected as damaged, a write that
    /// failed) since the last `take_notes`: the fronts tell the person (the CLI on stderr).
    notes: Vec<String>,
    /// The SQLite artifact last opened for a query, kept open while its file is unchanged.
    artifact: std::cell::RefCell<Option<crate::artifact::Cache>>,
}

impl Session {
    /// Opens a session. Options are validated now (a bad pattern is an error here, not later).
    pub fn open(host: Box<dyn Host>, options: OpenOptions) -> Result<Session, Error> {
        Rules::new(&options)?;
        Ok(Session {
            host,
            options,
            index: None,
            facts_cache: HashMap::default(),
            facts_cache_pending: false,
            stats: BTreeMap::new(),
            watch: crate::discover::Watch::default(),
            freshness: Freshness::fresh(),
            previous: HashMap::default(),
            snapshot_checked: false,
            snapshot_status: SnapshotStatus::default(),
            timings: BuildTimings::default(),
            configs: ConfigTexts::default(),
            unsaved_files: 0,
            last_save_ms: 0.0,
            prior_image: None,
            notes: Vec::new(),
            artifact: std::cell::RefCell::new(None),
        })
    }

    /// Opens a session from JSON options (`{ include, ignore, noGitignore, maxFileBytes, persist }`).
    pub fn open_json(host: Box<dyn Host>, options: serde_json::Value) -> Result<Session, Error> {
        let options = if options.is_null() { OpenOptions::default() } else { crate::error::decode(options)? };
        Session::open(host, options)
    }

    pub(crate) fn host(&self) -> &dyn Host {
        self.host.as_ref()
    }

    pub(crate) fn options(&self) -> &OpenOptions {
        &self.options
    }

    pub(crate) fn artifact_cache(&self) -> &std::cell::RefCell<Option<crate::artifact::Cache>> {
        &self.artifact
    }

    pub(crate) fn snapshot_status(&self) -> &SnapshotStatus {
        &self.snapshot_status
    }

    pub(crate) fn timings(&self) -> &BuildTimings {
        &self.timings
    }

    /// The index, built on first use.
    pub(crate) fn index(&mut self) -> Result<&Index, Error> {
        if self.index.is_none() {
            let index = self.build(&mut |_| {})?;
            self.index = Some(index);
        }
        Ok(self.index.as_ref().expect("built above"))
    }

    /// The index if it is built.
    pub(crate) fn built_index(&self) -> Option<&Index> {
        self.index.as_ref()
    }

    /// Whether the index is built.
    pub(crate) fn is_built(&self) -> bool {
        self.index.is_some()
    }

    /// The freshness the next index-backed answer reports.
    pub(crate) fn freshness(&self) -> &Freshness {
        &self.freshness
    }

    /// With `autoRefresh`, takes in the changes on disk when they are within its limits (else the
    /// next answers say `stale`); without, does nothing.
    pub(crate) fn auto_refresh(&mut self) -> Result<(), Error> {
        let Some(limits) = self.options.auto_refresh.clone() else { return Ok(()) };
        let max_files = limits.max_files.unwrap_or(REFRESH_MAX_FILES_DEFAULT) as usize;
        let max_bytes = limits.max_bytes.unwrap_or(REFRESH_MAX_BYTES_DEFAULT);
        self.take_in_changes(false, max_files, max_bytes).map(|_| ())
    }

    /// The freshness an index-backed answer reported: a refresh is reported once, and later answers
    /// are fresh until the next change.
    pub(crate) fn take_freshness(&mut self) -> Freshness {
        let current = self.freshness.clone();
        if current.state == "refreshed" {
            self.freshness = Freshness::fresh();
        }
        current
    }

    /// Marks the index stale when files changed on disk since it was built (without refreshing).
    pub(crate) fn note_changes(&mut self) -> Result<(), Error> {
        let changes = self.changes()?;
        if !changes.files.is_empty() {
            self.freshness = Freshness::of_changes("stale", &changes.files);
        }
        Ok(())
    }

    /// Builds the index now unless it is built, telling `progress` how far parsing got (files done of
    /// total, after every batch) and when resolution starts. Fronts call it to show progress on long
    /// builds; requests build lazily without it.
    pub fn prepare(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<(), Error> {
        if self.index.is_none() {
            let index = self.build(progress)?;
            self.index = Some(index);
        }
        Ok(())
    }

    /// Builds the index and the lexical index behind search and explore now, unless they are built:
    /// a server's warm-up, so that the first question in words is answered at full speed.
    pub fn prepare_search(&mut self) -> Result<(), Error> {
        self.index()?;
        let index = self.index.as_ref().expect("built above");
        crate::text::text_index(self.host.as_ref(), index, self.options.persist);
        Ok(())
    }

    /// The floor under a cold build, for benchmarks: walk, read and tree-sitter-parse the files this
    /// session would index, exactly as the build does (in parallel on the native engine), and nothing
    /// else — no facts, no resolution, no snapshot. Touches no state of the session.
    pub fn parse_only(&self) -> Result<ParseOnly, Error> {
        let mut clock = Clock::new(self.host.now_ms());
        let rules = Rules::new(&self.options)?;
        let walk = discover::walk(self.host.as_ref(), &rules)?;
        let walk_ms = clock.lap(self.host.now_ms());
        let paths: Vec<String> = walk.candidates.iter().map(|c| c.path.clone()).collect();
        let work: Vec<_> = walk
            .candidates
            .iter()
            .zip(self.host.read_files(&paths, rules.max_file_bytes))
            .filter_map(|(c, content)| match content {
                Ok(bytes) if build::unindexable(&bytes, &rules).is_none() => Some((c.language, bytes)),
                _ => None,
            })
            .collect();
        let read_ms = clock.lap(self.host.now_ms());
        let files = work.len() as u64;
        let bytes = work.iter().map(|(_, b)| b.len() as u64).sum();
        let nodes: u64 = map_maybe_parallel(work, |(language, bytes)| crate::extract::parse_only(language, &bytes))
            .into_iter()
            .sum();
        let parse_ms = clock.lap(self.host.now_ms());
        Ok(ParseOnly { files, bytes, nodes, walk_ms, read_ms, parse_ms, total_ms: clock.total() })
    }

    /// How many files' facts the index holds decoded (all after a cold build; after a warm start,
    /// those read and kept).
    #[cfg(test)]
    pub(crate) fn facts_kept(&self) -> usize {
        self.index.as_ref().map_or(0, |i| i.files.iter().filter(|f| f.facts.is_kept()).count())
    }

    /// What went wrong with the persisted index since the last call: a snapshot rejected as damaged
    /// (and rebuilt), a snapshot or lexical index that could not be written. Each is reported once.
    pub fn take_notes(&mut self) -> Vec<String> {
        let mut notes = std::mem::take(&mut self.notes);
        if let Some(failure) = self.index.as_mut().and_then(|i| i.text.get_mut()).and_then(|t| t.save_failure.take()) {
            notes.push(failure);
        }
        notes
    }

    /// Drops what proved damaged while it was read (a part failed its check): an index read from
    /// the snapshot, with everything else taken from that snapshot, so that the next build reads the
    /// sources and writes a sound snapshot; a stored lexical index, removed so that the next search
    /// builds it again. Returns whether it dropped either.
    pub(crate) fn discard_damaged_index(&mut self) -> bool {
        let text_damage = self.index.as_ref().and_then(|i| i.text.get()).and_then(crate::text::TextIndex::damage);
        if let Some(why) = &text_damage {
            self.index.as_mut().expect("its text was read").text.take();
            let _ = crate::store::remove(self.host.as_ref(), crate::text::STORE_NAME);
            self.notes.push(format!("ignored .codegraph/{}: {why}; rebuilt it", crate::text::STORE_NAME));
        }
        let Some(why) = self.index.as_ref().and_then(Index::damage) else { return text_damage.is_some() };
        let note = format!("ignored {}: {why}; rebuilt it", crate::snapshot::FILE);
        self.notes.push(note.clone());
        self.snapshot_status =
            SnapshotStatus { state: "rejected".into(), note: Some(note), ..SnapshotStatus::default() };
        self.index = None;
        self.previous.clear();
        self.facts_cache.clear();
        self.facts_cache_pending = false;
        self.prior_image = None;
        true
    }

    /// Drops the index; the next index-backed request rebuilds it (parsing only changed content).
    pub fn invalidate(&mut self) {
        self.index = None;
        self.freshness = Freshness::fresh();
    }

    /// Compares the files on disk with the index's stat snapshot and rebuilds when the change set is
    /// within the limits (or `force`). Unchanged files keep their parsed facts (keyed by content hash).
    pub(crate) fn take_in_changes(
        &mut self,
        force: bool,
        max_files: usize,
        max_bytes: u64,
    ) -> Result<RefreshOutcome, Error> {
        if self.index.is_none() {
            self.index()?;
            self.freshness = Freshness::fresh();
            return Ok(self.outcome(true, false));
        }
        let changes = self.changes()?;
        let changed = &changes.files;
        if changed.is_empty() && !force {
            self.freshness = Freshness::fresh();
            return Ok(self.outcome(false, false));
        }
        let small = changed.len() <= max_files && changes.bytes <= max_bytes;
        if !force && small && self.update_in_place(&changes)? {
            self.freshness = Freshness::of_changes("refreshed", changed);
            return Ok(self.outcome(true, true));
        }
        if force || small {
            let index = self.build(&mut |_| {})?;
            self.index = Some(index);
            self.freshness =
                if changed.is_empty() { Freshness::fresh() } else { Freshness::of_changes("refreshed", changed) };
            return Ok(self.outcome(true, false));
        }
        self.freshness = Freshness::of_changes("stale", changed);
        Ok(self.outcome(false, false))
    }

    fn outcome(&self, rebuilt: bool, incremental: bool) -> RefreshOutcome {
        RefreshOutcome {
            freshness: self.freshness.clone(),
            rebuilt,
            incremental,
            files: self.index.as_ref().map_or(0, |i| i.files.len() as u64),
        }
    }
}

/// Laps of the host's clock, in milliseconds rounded to microseconds.
struct Clock {
    start: f64,
    last: f64,
}

impl Clock {
    fn new(now: f64) -> Clock {
        Clock { start: now, last: now }
    }

    /// Time since the previous lap.
    fn lap(&mut self, now: f64) -> f64 {
        let lap = now - std::mem::replace(&mut self.last, now);
        (lap * 1000.0).round() / 1000.0
    }

    fn total(&self) -> f64 {
        ((self.last - self.start) * 1000.0).round() / 1000.0
    }
}
