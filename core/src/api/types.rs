//! Request and response types: the single source of truth for every front. Requests are flat
//! objects with camelCase fields; unknown fields are rejected; every limit has a default and a cap
//! (the `*_DEFAULT`/`*_CAP` constants). Responses are deterministic and say what they left out.

use serde::{Deserialize, Serialize};

use crate::discover::{DiscoveryOptions, SkippedFile};

#[cfg(feature = "schema")]
use schemars::JsonSchema;

/// Applies a limit's default and cap.
pub(crate) fn bounded(value: Option<u32>, default: u32, cap: u32, field: &str) -> Result<usize, super::Error> {
    match value {
        None => Ok(default as usize),
        Some(0) => Err(super::Error::InvalidArgument(format!("`{field}` must be at least 1"))),
        Some(v) if v > cap => Err(super::Error::InvalidArgument(format!("`{field}` is at most {cap} (got {v})"))),
        Some(v) => Ok(v as usize),
    }
}

/// How to open a session on a root: the discovery options (the root itself is given to the adapter,
/// which owns the host).
pub type OpenOptions = DiscoveryOptions;

/// How fresh an answer is relative to the files on disk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
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
}

/// A declaration as every answer shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SymbolInfo {
    /// Portable handle: `path::Container::name`, stable across processes and engines.
    pub handle: String,
    pub name: String,
    pub kind: String,
    pub language: String,
    pub path: String,
    /// Position of the name (1-based line, 1-based column in Unicode characters).
    pub line: u32,
    pub column: u32,
    /// The declaration's whole range.
    pub start_line: u32,
    pub end_line: u32,
    pub exported: bool,
    /// Handle of the enclosing declaration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub signature: String,
}

/// A position in a file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Site {
    pub path: String,
    pub line: u32,
    pub column: u32,
}

// ---------------------------------------------------------------------------------------------
// orient

pub const ORIENT_LIMIT_DEFAULT: u32 = 10;
pub const ORIENT_LIMIT_CAP: u32 = 50;

/// Compact first-turn map of the repository.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct OrientRequest {
    /// Entries per list (default 10, cap 50).
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct LanguageSummary {
    pub language: String,
    pub files: u64,
    pub lines: u64,
    pub bytes: u64,
    pub symbols: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DirSummary {
    /// A top-level directory (or `.` for files at the root).
    pub dir: String,
    pub files: u64,
    pub languages: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct FileRank {
    pub path: String,
    /// How many files import this one.
    pub dependents: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ResolutionStats {
    pub resolved_references: u64,
    pub unresolved_references: u64,
    pub import_edges: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct OrientResponse {
    pub files: u64,
    pub symbols: u64,
    pub languages: Vec<LanguageSummary>,
    pub layout: Vec<DirSummary>,
    /// Files that start programs or expose a package (main/index/lib files, `__main__`, Cargo roots).
    pub entry_points: Vec<String>,
    /// The public API: exported top-level declarations, most used first.
    pub public_api: Vec<ApiEntry>,
    /// Where the tests live.
    pub tests: TestsSummary,
    pub most_depended_on: Vec<FileRank>,
    pub resolution: ResolutionStats,
    pub skipped_file_count: u64,
    pub skipped_sample: Vec<SkippedFile>,
    /// Files of other kinds (not parsed) under the root.
    pub other_files: u64,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ApiEntry {
    pub handle: String,
    pub kind: String,
    /// Proven use sites in the repository.
    pub uses: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TestsSummary {
    /// Test files (by path: `tests/`, `test_*.py`, `*.spec.ts`, `*_test.go`, …).
    pub files: u64,
    /// Directories holding test files, most first.
    pub dirs: Vec<DirCount>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DirCount {
    pub dir: String,
    pub files: u64,
}

/// What an answer left out, by list.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Omitted {
    /// Entries cut by `limit`, per list name.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub by_limit: std::collections::BTreeMap<String, u64>,
    /// Other omissions with a count (unresolved call sites, namespace imports, …).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub other: std::collections::BTreeMap<String, u64>,
}

// ---------------------------------------------------------------------------------------------
// search

pub const SEARCH_LIMIT_DEFAULT: u32 = 20;
pub const SEARCH_LIMIT_CAP: u32 = 100;

/// Ranked search over paths, declarations and their code (bodies with doc comments): words in
/// plain language or identifiers. Deterministic: the same query on the same index gives the same order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SearchRequest {
    pub query: String,
    /// Maximum hits (default 20, cap 100).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SearchHit {
    /// `symbol` or `file`.
    pub kind: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<SymbolInfo>,
    pub score: f64,
    /// What matched: `definition` (the query names this declaration), `prefix`, `token`, and
    /// `<where>:<word>` for each query word found, by the strongest place it stands — `name`, `path`,
    /// `signature`, `doc` or `body` (words are shown stemmed: `retri`, `schedul`).
    pub matched: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SearchResponse {
    pub query: String,
    pub hits: Vec<SearchHit>,
    pub total: u64,
    /// Query words that occur nowhere in the repository.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown_words: Vec<String>,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

// ---------------------------------------------------------------------------------------------
// workspace_symbols

pub const SYMBOLS_LIMIT_DEFAULT: u32 = 50;
pub const SYMBOLS_LIMIT_CAP: u32 = 500;

/// Symbol-identity lookup with composable filters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct WorkspaceSymbolsRequest {
    /// A name, qualified name (`Circle::area`) or handle (`src/geo.rs::Circle::area`).
    pub query: String,
    /// Only these kinds (`class`, `function`, `method`, …).
    #[serde(default)]
    pub kinds: Vec<String>,
    #[serde(default)]
    pub exported_only: bool,
    /// Also return import aliases that resolve to a concrete declaration.
    #[serde(default)]
    pub include_imports: bool,
    /// Glob over root-relative paths.
    #[serde(default)]
    pub file_glob: Option<String>,
    /// Maximum symbols (default 50, cap 500).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SymbolMatch {
    #[serde(flatten)]
    pub symbol: SymbolInfo,
    /// `handle`, `qualifiedName`, `name`, `nameIgnoreCase`, `prefix`, `token`, `substring`.
    pub matched: String,
    /// For an import alias: the declaration it binds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub import_of: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct WorkspaceSymbolsResponse {
    pub query: String,
    pub symbols: Vec<SymbolMatch>,
    pub total: u64,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

// ---------------------------------------------------------------------------------------------
// get_file

pub const FILE_LIMIT_DEFAULT: u32 = 2000;
pub const FILE_LIMIT_CAP: u32 = 10_000;
pub const FILE_MAX_BYTES_DEFAULT: u32 = 80_000;
pub const FILE_MAX_BYTES_CAP: u32 = 500_000;
/// Files larger than this are never read.
pub const FILE_INPUT_CAP: u64 = 16 * 1024 * 1024;

/// A bounded read of a project file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct GetFileRequest {
    /// Root-relative path.
    pub file: String,
    /// 1-based first line (default 1).
    #[serde(default)]
    pub offset: Option<u32>,
    /// Maximum lines (default 2000, cap 10000).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Maximum bytes of raw page text including line separators (default 80000, cap 500000).
    #[serde(default)]
    pub max_bytes: Option<u32>,
    /// Add direct graph context (imports, users, symbols) from the index.
    #[serde(default)]
    pub include_graph_context: bool,
    /// Return raw content of recognised sensitive files.
    #[serde(default)]
    pub allow_sensitive: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PageInfo {
    pub next_offset: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SymbolBrief {
    pub name: String,
    pub kind: String,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct GraphContext {
    /// Files that import this one (sorted, at most 100).
    pub used_by: Vec<String>,
    /// Files this one imports.
    pub imports: Vec<String>,
    pub symbols: Vec<SymbolBrief>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SensitiveInfo {
    /// `environment`, `private-key`, `credentials`.
    pub kind: String,
    pub redacted: bool,
    pub allow_sensitive_required: bool,
    /// For a redacted text config: the names of its keys (never their values), in order, at most
    /// 200; `truncated` says when more were left out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// The file's size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct GetFileResponse {
    pub schema_version: u32,
    pub file: String,
    pub offset: u32,
    pub limit: u32,
    /// Lines in the whole file; a final newline counts as a last, empty line.
    pub total_lines: u32,
    /// `N<TAB>line` rows joined by `\n`.
    pub content: String,
    pub line_format: String,
    /// The same lines, unnumbered.
    pub text: String,
    /// The byte bound cut the last selected line.
    pub truncated: bool,
    pub freshness: Freshness,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<PageInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_context: Option<GraphContext>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sensitive: Option<SensitiveInfo>,
}

// ---------------------------------------------------------------------------------------------
// get_symbol, goto

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct GetSymbolRequest {
    pub handle: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct GetSymbolResponse {
    pub symbol: SymbolInfo,
    /// Direct members (methods, fields, nested declarations).
    pub members: Vec<SymbolInfo>,
    pub reference_count: u64,
    pub caller_count: u64,
    pub supertypes: Vec<String>,
    pub subtypes: Vec<String>,
    pub freshness: Freshness,
}

/// Definition lookup by file position.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct GotoRequest {
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column in Unicode characters (default 1: the first name on the line).
    #[serde(default)]
    pub column: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct GotoResponse {
    /// The name at the position.
    pub name: String,
    pub definitions: Vec<SymbolInfo>,
    pub freshness: Freshness,
}

// ---------------------------------------------------------------------------------------------
// refs

pub const REFS_LIMIT_DEFAULT: u32 = 200;
pub const REFS_LIMIT_CAP: u32 = 2000;

/// References by handle or by file position (exactly one of the two).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RefsRequest {
    pub handle: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// Maximum sites (default 200, cap 2000).
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ReferenceSite {
    pub path: String,
    pub line: u32,
    pub column: u32,
    /// `call`, `import` or `reference`.
    pub kind: String,
    /// Handle of the enclosing declaration; absent for file-level code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enclosing: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RefsResponse {
    pub symbol: SymbolInfo,
    pub refs: Vec<ReferenceSite>,
    pub total: u64,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

// ---------------------------------------------------------------------------------------------
// callers / callees

pub const CALLS_DEPTH_DEFAULT: u32 = 1;
pub const CALLS_DEPTH_CAP: u32 = 5;
pub const CALLS_LIMIT_DEFAULT: u32 = 100;
pub const CALLS_LIMIT_CAP: u32 = 500;

/// Callers or callees of a symbol, grouped by the related symbol with exact call sites.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct CallsRequest {
    pub handle: String,
    /// Levels of the call hierarchy (default 1, cap 5).
    #[serde(default)]
    pub depth: Option<u32>,
    /// Maximum related symbols (default 100, cap 500).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Accepted for compatibility; guessed dynamic dispatch is never returned.
    #[serde(default)]
    pub include_heuristic: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct CallGroup {
    /// Handle of the calling (or called) symbol; for file-level code, the file path.
    pub handle: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<SymbolInfo>,
    /// 1 for direct callers/callees.
    pub depth: u32,
    pub callsites: Vec<Site>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct CallsResponse {
    pub symbol: SymbolInfo,
    pub groups: Vec<CallGroup>,
    pub total: u64,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

// ---------------------------------------------------------------------------------------------
// deps / rdeps / path

pub const DEPS_LIMIT_DEFAULT: u32 = 100;
pub const DEPS_LIMIT_CAP: u32 = 1000;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DepsRequest {
    pub file: String,
    /// Maximum files (default 100, cap 1000).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DepsResponse {
    pub file: String,
    pub files: Vec<String>,
    pub total: u64,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PathRequest {
    pub from: String,
    pub to: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PathResponse {
    pub from: String,
    pub to: String,
    /// A shortest chain of imports from `from` to `to` (both included); absent when none exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    pub freshness: Freshness,
}

// ---------------------------------------------------------------------------------------------
// refresh

pub const REFRESH_MAX_FILES_DEFAULT: u32 = 50;
pub const REFRESH_MAX_BYTES_DEFAULT: u64 = 2 * 1024 * 1024;
/// Changed files named in a freshness report, at most.
pub const CHANGED_SAMPLE_CAP: usize = 25;

/// Detects files changed since the index was built (size and mtime, no hashing) and refreshes the
/// index when the change set is small, or always with `force`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RefreshRequest {
    /// Rebuild whatever changed, however much.
    pub force: bool,
    /// Refresh automatically when at most this many files changed (default 50).
    pub max_files: Option<u32>,
    /// … and their new sizes add up to at most this many bytes (default 2 MiB).
    pub max_bytes: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct RefreshResponse {
    /// `fresh` (nothing changed), `refreshed` (changes picked up) or `stale` (too many changes).
    pub freshness: Freshness,
    /// Whether the index was rebuilt by this call.
    pub rebuilt: bool,
    /// The changes were taken in without a full build: every changed file kept its interface
    /// (declarations, imports, relations), so only its own references were resolved again.
    pub incremental: bool,
    pub files: u64,
}

// ---------------------------------------------------------------------------------------------
// status

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct StatusRequest {}

/// What the last build did with the persistent snapshot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct BuildTimings {
    /// Walking the tree and applying ignore rules (stat only).
    pub walk_ms: f64,
    /// Reading and verifying the persisted snapshot.
    pub snapshot_load_ms: f64,
    /// Reading and hashing the files whose stat changed (all of them on a cold build).
    pub read_ms: f64,
    /// Parsing and extracting facts (in parallel on the native engine).
    pub parse_ms: f64,
    /// Writing the snapshot.
    pub snapshot_save_ms: f64,
    /// Symbol table and resolution of every reference.
    pub resolve_ms: f64,
    pub total_ms: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct StatusResponse {
    pub indexed: bool,
    pub snapshot: SnapshotStatus,
    /// The phases of the last build.
    pub timings: BuildTimings,
    pub files: u64,
    pub languages: Vec<LanguageSummary>,
    pub skipped: Vec<SkippedFile>,
    pub freshness: Freshness,
}

// ---------------------------------------------------------------------------------------------
// explore, packet_get

pub const EXPLORE_LIMIT_DEFAULT: u32 = 8;
pub const EXPLORE_LIMIT_CAP: u32 = 30;
pub const EXPLORE_PACKETS_DEFAULT: u32 = 3;
pub const EXPLORE_PACKETS_CAP: u32 = 10;
/// Entries of each list inside a packet and of explore's side lists (paths, blast radius, tests).
pub const PACKET_LIST_DEFAULT: u32 = 5;
pub const PACKET_LIST_CAP: u32 = 50;
/// Lines of a source excerpt.
pub const EXCERPT_LINES: u32 = 40;

/// The first tool for a broad question in words: ranked anchors with evidence, how they connect,
/// what depends on them, tests to run, and the calls to make next.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ExploreRequest {
    /// A question in words, identifiers, or a file path.
    pub query: String,
    /// Anchors (default 8, cap 30).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Evidence packets for the top anchors (default 3, cap 10).
    #[serde(default)]
    pub packets: Option<u32>,
    /// Entries per side list (paths, blast radius, tests, users; default 5, cap 50).
    #[serde(default)]
    pub list_limit: Option<u32>,
    /// `true`: source excerpts in packets; `false`: no `fileView` either (default: fileView only).
    #[serde(default)]
    pub include_source: Option<bool>,
}

/// A ranked place to look.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Anchor {
    /// `file` or `symbol`.
    pub kind: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol_kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub score: f64,
    /// What matched (`name:retri`, `doc:schedul`, `path:time`, `definition`, …).
    pub matched: Vec<String>,
}

/// Who uses a declaration or a file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct UsedBy {
    /// Enclosing declarations of the use sites (handles), most uses first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<String>,
    /// Files that use it (sorted by uses, then path).
    pub files: Vec<String>,
    /// Use sites (for a symbol) or importing files (for a file) in all.
    pub total: u64,
}

/// Lines of source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Excerpt {
    pub start_line: u32,
    pub end_line: u32,
    pub text: String,
    /// The declaration goes on past `endLine`.
    pub truncated: bool,
}

/// Bounded evidence about one declaration or file: what it is, what it says about itself, who uses
/// it, and (on request) its source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Packet {
    /// `symbol` or `file`.
    pub kind: String,
    /// The handle (symbol) or path (file): pass it back to packet_get, refs, callers or get_file.
    pub target: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol_kind: Option<String>,
    /// The declaration's range (symbol) or the file's line count (`startLine` 1).
    pub start_line: u32,
    pub end_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// The doc comment (or docstring; a file's leading comment), cleaned of comment markers and cut
    /// to a few lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// Direct members of a type, or the top-level declarations of a file: `kind name (line)`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub declarations: Vec<String>,
    /// Files this file imports (file packets).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<String>,
    pub used_by: UsedBy,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<Excerpt>,
    /// What this packet left out, by list.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub omitted: std::collections::BTreeMap<String, u64>,
}

/// An import chain between two top anchors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct AnchorPath {
    pub from: String,
    pub to: String,
    /// The files from `from` to `to`, both included.
    pub files: Vec<String>,
}

/// A file affected when the top anchors change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Dependent {
    pub path: String,
    /// 1 = imports an anchor file directly, 2 = imports such a file.
    pub distance: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct BlastRadius {
    pub files: Vec<Dependent>,
    /// Dependents within two imports in all.
    pub total: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct CandidateTest {
    pub path: String,
    /// `uses <handle>`, `imports <path>`, or `named after <path>`.
    pub reason: String,
}

/// A call the agent can make next, ready to send.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct FollowUp {
    /// The MCP tool name.
    pub tool: String,
    pub arguments: serde_json::Value,
    pub why: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ExploreResponse {
    pub query: String,
    pub anchors: Vec<Anchor>,
    pub packets: Vec<Packet>,
    pub paths: Vec<AnchorPath>,
    pub blast_radius: BlastRadius,
    pub candidate_tests: Vec<CandidateTest>,
    pub follow_ups: Vec<FollowUp>,
    /// Query words that occur nowhere in the repository.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown_words: Vec<String>,
    /// The live file when the query is an indexed path or a unique basename.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_view: Option<GetFileResponse>,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

/// One bounded evidence packet.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PacketGetRequest {
    /// A handle, a file path or a declaration name (`Circle.area` too).
    pub target: String,
    /// Add the source excerpt (default true).
    #[serde(default)]
    pub include_source: Option<bool>,
    /// Entries per list in the packet (default 5, cap 50).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PacketGetResponse {
    pub packet: Packet,
    /// Other declarations the name also matches (handles), when it was ambiguous.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
    pub freshness: Freshness,
}

// ---------------------------------------------------------------------------------------------
// context

pub const CONTEXT_BUDGET_DEFAULT: u64 = 128_000;
pub const CONTEXT_BUDGET_MIN: u64 = 256;
pub const CONTEXT_BUDGET_CAP: u64 = 2_000_000;

/// A token budget: a number, or text like `"32k"`, `"1.5m"`, `"20000"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub enum Budget {
    Tokens(u64),
    Text(String),
}

/// A context pack for a person or a model: whole files (or chosen declarations) under a token
/// budget, changed files first, optionally compressed to signatures or skeletons.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ContextRequest {
    /// Token budget, a number or `"32k"` (default 128000; tokens = ceil(bytes / 4)).
    #[serde(default)]
    pub budget: Option<Budget>,
    /// Only files under these paths.
    #[serde(default)]
    pub focus: Vec<String>,
    /// Pack these declarations (names or handles) instead of whole files.
    #[serde(default)]
    pub focus_symbol: Vec<String>,
    /// Changed files first: `working-tree`, `staged`, `unstaged` or a git ref.
    #[serde(default)]
    pub diff: Option<String>,
    /// `none` (default), `signatures` or `skeleton`.
    #[serde(default)]
    pub compress: Option<String>,
    /// `json` (default) or `markdown`.
    #[serde(default)]
    pub format: Option<String>,
    /// A profile of `.codegraph/config` (`[profiles.<name>.context]`); given fields override it.
    #[serde(default)]
    pub profile: Option<String>,
    /// List the profiles instead of packing.
    #[serde(default)]
    pub list_profiles: bool,
}

/// One packed file or declaration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ContextEntry {
    /// `file` or `symbol`.
    pub kind: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    pub language: String,
    /// Why it is in the pack: `diff`, `focusSymbol` or `rank` (by how many files import it).
    pub reason: String,
    pub start_line: u32,
    pub end_line: u32,
    /// The compression applied (`none` for declarations).
    pub compress: String,
    /// The packed text (json format; in markdown it is in `markdown`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// A profile from `.codegraph/config`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ContextProfile {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub focus: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub focus_symbol: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compress: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct DiffSummary {
    pub spec: String,
    /// Changed paths git reported under the root.
    pub changed: u64,
    /// Of those, the indexed files packed first (the rest are deleted, binary or not source).
    pub indexed: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct ContextResponse {
    pub format: String,
    pub budget: u64,
    /// Tokens of the packed text: the `markdown` document, or the JSON of `entries`.
    pub used_tokens: u64,
    /// How tokens are estimated.
    pub tokenizer: String,
    pub compress: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<DiffSummary>,
    pub entries: Vec<ContextEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// With `listProfiles`: the profiles of `.codegraph/config`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profiles: Option<Vec<ContextProfile>>,
    /// `byLimit.budget`: candidates that did not fit.
    pub omitted: Omitted,
    pub freshness: Freshness,
}
