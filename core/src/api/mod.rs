//! The API: the only public surface of the core. One method table (`methods.rs`) names every
//! request — its JS name, request and response types, and whether its answer depends on the index —
//! and one module per feature holds that feature's types, handler and tests. Every front calls
//! `Session::call(method, request_json)` (or the typed method of the same name): the adapters
//! translate JS values to JSON and back, nothing else.
//!
//! Requests are flat objects with camelCase fields; unknown fields are rejected; every limit has a
//! default and a cap (the `*_DEFAULT`/`*_CAP` constants of each feature). Answers are deterministic
//! (stable sorts), bounded, say what they left out (`Omitted`) and how fresh they are (`Freshness`).
//! This module holds the shapes several features share.

mod calls;
mod config;
mod context;
mod deps;
mod explore;
mod files;
mod graph;
mod hierarchy;
mod impact;
mod loc;
mod methods;
mod navigate;
mod orient;
mod packets;
mod refactor;
mod rename;
mod review;
mod search;
mod sqlite;
mod status;
mod symbols;
mod tools;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use crate::discover::{DiscoveryOptions, SkippedFile};
pub use crate::error::{decode, Error};
#[cfg(not(target_family = "wasm"))]
pub use crate::host::StdHost;
pub use crate::host::{EntryKind, Host, HostEntry, ReadAt};
pub use crate::session::{
    BuildTimings, Freshness, OpenOptions, ParseOnly, Progress, Session, SnapshotStatus, CHANGED_SAMPLE_CAP,
    REFRESH_MAX_BYTES_DEFAULT, REFRESH_MAX_FILES_DEFAULT,
};
pub use crate::VERSION;

pub use calls::*;
pub use config::*;
pub use context::*;
pub use deps::*;
pub use explore::*;
pub use files::*;
pub use graph::*;
pub use hierarchy::*;
pub use impact::*;
pub use loc::*;
pub use methods::{method_list, MethodInfo, METHODS};
pub use navigate::*;
pub use orient::*;
pub use packets::*;
pub use refactor::*;
pub use rename::*;
pub use review::*;
pub use search::*;
pub use sqlite::*;
pub use status::*;
pub use symbols::*;
pub use tools::*;

#[cfg(feature = "schema")]
pub use methods::register_schemas;

use crate::host::Host as HostTrait;
use crate::index::{Index, RefSite, SymId};
use crate::lang::Language;

/// The languages the core parses.
pub fn supported_languages() -> Vec<&'static str> {
    Language::ALL.iter().map(|l| l.name()).collect()
}

/// What a handler reads: the host, the session's options, the index (for index-backed requests)
/// and the freshness its answer reports.
pub(crate) struct Ctx<'s> {
    pub host: &'s dyn HostTrait,
    pub options: &'s OpenOptions,
    index: Option<&'s Index>,
    /// The SQLite artifact kept open between queries.
    pub artifact: &'s std::cell::RefCell<Option<crate::artifact::Cache>>,
    freshness: Freshness,
}

impl<'s> Ctx<'s> {
    /// The index of an index-backed request (the method table builds it before the handler runs).
    pub fn index(&self) -> &'s Index {
        self.index.expect("the method table builds the index for index-backed requests")
    }

    /// How fresh the index behind this answer is (`fresh` for answers that don't use the index).
    pub fn freshness(&self) -> Freshness {
        self.freshness.clone()
    }

    /// The lexical index behind search and explore (built on first use).
    pub fn text(&self) -> &'s crate::text::TextIndex {
        crate::text::text_index(self.host, self.index(), self.options.persist)
    }
}

/// Applies a limit's default and cap.
/// Sorts `list` by `key`, ties by handle. The order is exact for the first `reach` entries: only
/// the ties among them have their handles made, so a ranking of thousands reads what it answers.
pub(crate) fn sort_then_by_handle<T, K: Ord>(
    index: &Index,
    list: &mut [T],
    reach: usize,
    key: impl Fn(&T) -> K,
    id: impl Fn(&T) -> SymId,
) {
    list.sort_by_cached_key(&key);
    let mut at = 0;
    while at < list.len().min(reach) {
        let first = key(&list[at]);
        let end = at + list[at..].iter().take_while(|e| key(e) == first).count();
        order_by_handle(index, &mut list[at..end], reach - at, &id);
        at = end;
    }
}

/// Orders `ties` by handle, exactly for the first `reach`. A handle is its file's path, `::`, then
/// names: the ties are grouped by file without reading anything, and only the files that reach the
/// answer have their handles made (from their facts). A path holding `::` could sort inside
/// another file's handles: then every handle is made.
fn order_by_handle<T>(index: &Index, ties: &mut [T], reach: usize, id: &impl Fn(&T) -> SymId) {
    let file = |e: &T| index.file_of(id(e));
    if ties.iter().any(|e| index.files[file(e) as usize].path.contains("::")) {
        ties.sort_by_cached_key(|e| index.handle(id(e)));
        return;
    }
    let prefix = |e: &T| index.files[file(e) as usize].path.bytes().chain(*b"::");
    ties.sort_by(|a, b| prefix(a).cmp(prefix(b)));
    let mut at = 0;
    while at < ties.len().min(reach) {
        let end = at + ties[at..].iter().take_while(|e| file(e) == file(&ties[at])).count();
        ties[at..end].sort_by_cached_key(|e| index.handle(id(e)));
        at = end;
    }
}

pub(crate) fn bounded(value: Option<u32>, default: u32, cap: u32, field: &str) -> Result<usize, Error> {
    match value {
        None => Ok(default as usize),
        Some(0) => Err(Error::InvalidArgument(format!("`{field}` must be at least 1"))),
        Some(v) if v > cap => Err(Error::InvalidArgument(format!("`{field}` is at most {cap} (got {v})"))),
        Some(v) => Ok(v as usize),
    }
}

/// A declaration as every answer shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

impl SymbolInfo {
    /// How every answer shows declaration `id`.
    pub(crate) fn of(index: &Index, id: SymId) -> SymbolInfo {
        let sym = index.symbol(id);
        let file = &index.files[index.file_of(id) as usize];
        let container = sym.container.map(|c| index.handle(index.global(index.file_of(id), c)));
        SymbolInfo {
            handle: index.handle(id),
            name: sym.name.clone(),
            kind: sym.kind.as_str().to_string(),
            language: file.language.name().to_string(),
            path: file.path.clone(),
            line: sym.name_pos.line,
            column: sym.name_pos.col,
            start_line: sym.start.line,
            end_line: sym.end.line,
            exported: sym.exported,
            container,
            signature: signature(index, id).to_string(),
        }
    }
}

/// A declaration's signature (its first line), or nothing for a secrets file: the line of
/// `TOKEN = "…"` is the secret.
pub(crate) fn signature(index: &Index, id: SymId) -> &str {
    signature_in(&index.files[index.file_of(id) as usize].path, index.symbol(id))
}

/// `signature` of a declaration `sym` of the file at `path`.
pub(crate) fn signature_in<'s>(path: &str, sym: &'s crate::facts::Symbol) -> &'s str {
    if crate::sensitive::classify(path).is_some() {
        ""
    } else {
        &sym.signature
    }
}

/// A position in a file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Site {
    pub path: String,
    pub line: u32,
    pub column: u32,
}

impl Site {
    pub(crate) fn of(index: &Index, r: &RefSite) -> Site {
        Site { path: index.files[r.file as usize].path.clone(), line: r.pos.line, column: r.pos.col }
    }
}

/// What an answer left out, by list.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Omitted {
    /// Entries cut by `limit`, per list name.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub by_limit: BTreeMap<String, u64>,
    /// Other omissions with a count (unresolved call sites, namespace imports, …).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub other: BTreeMap<String, u64>,
}

impl Omitted {
    /// The omission of `count` entries of one list by its limit (none when `count` is 0).
    pub(crate) fn by_limit(list: &str, count: usize) -> Omitted {
        let mut omitted = Omitted::default();
        if count > 0 {
            omitted.by_limit.insert(list.to_string(), count as u64);
        }
        omitted
    }

    /// Limits one list of an answer to `limit`, noting the cut under `name`.
    pub(crate) fn cut<T>(&mut self, list: Vec<T>, limit: usize, name: &str) -> Vec<T> {
        capped(list, limit, name, &mut self.by_limit)
    }
}

/// Limits `list` to `limit`, noting the cut under `name` in `omitted` (the by-list counts of an
/// answer, or of a packet).
pub(crate) fn capped<T>(mut list: Vec<T>, limit: usize, name: &str, omitted: &mut BTreeMap<String, u64>) -> Vec<T> {
    if list.len() > limit {
        omitted.insert(name.to_string(), (list.len() - limit) as u64);
        list.truncate(limit);
    }
    list
}

/// Files, lines, bytes and declarations of one language.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LanguageSummary {
    pub language: String,
    pub files: u64,
    pub lines: u64,
    pub bytes: u64,
    pub symbols: u64,
}

impl LanguageSummary {
    /// One summary per indexed language, most files first.
    pub(crate) fn all(index: &Index) -> Vec<LanguageSummary> {
        let mut by: BTreeMap<Language, LanguageSummary> = BTreeMap::new();
        for f in &index.files {
            let e = by.entry(f.language).or_insert_with(|| LanguageSummary {
                language: f.language.name().into(),
                files: 0,
                lines: 0,
                bytes: 0,
                symbols: 0,
            });
            e.files += 1;
            e.lines += u64::from(f.lines);
            e.bytes += f.size;
            e.symbols += u64::from(f.facts.symbol_count());
        }
        let mut list: Vec<LanguageSummary> = by.into_values().collect();
        list.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.language.cmp(&b.language)));
        list
    }
}

/// A query without surrounding blanks; an empty one is an error.
pub(crate) fn nonempty_query(raw: &str) -> Result<String, Error> {
    let query = raw.trim();
    if query.is_empty() {
        return Err(Error::InvalidArgument("`query` must not be empty".into()));
    }
    Ok(query.to_string())
}

/// Tiny repositories for the features' unit tests: real files in a temporary directory, a real
/// session on them.
#[cfg(test)]
pub(crate) mod testing {
    use super::{DiscoveryOptions, Session, StdHost};

    /// A session on a temporary repository holding `files` (root-relative path, content).
    pub fn repo(files: &[(&str, &str)]) -> (tempfile::TempDir, Session) {
        let dir = tempfile::tempdir().expect("tempdir");
        for (path, text) in files {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
            std::fs::write(file, text).expect("write");
        }
        let session = Session::open(Box::new(StdHost::new(dir.path())), DiscoveryOptions::default()).expect("opens");
        (dir, session)
    }
}

#[cfg(test)]
mod tests {
    use super::testing::repo;
    use super::*;

    #[test]
    fn ties_are_ordered_by_handle_as_far_as_asked() {
        // `m.py.d/…` sorts before `m.py::…` by handle though after `m.py` by path; a path holding
        // `::` sorts inside other handles.
        let files = [
            ("m.py", "def dup():\n    pass\n\n\ndef dup():\n    pass\n"),
            ("m.py.d/n.py", "def dup():\n    pass\n"),
            ("a.py", "class dup:\n    pass\n"),
            ("z/dup.py", "def dup():\n    pass\n"),
        ];
        let (_dir, mut s) = repo(&files);
        let index = s.index().unwrap();
        let mut ids: Vec<SymId> = (0..index.syms.len() as SymId).collect();
        let mut expected = ids.clone();
        expected.sort_by_cached_key(|&id| index.handle(id));
        for reach in [1, 2, ids.len()] {
            sort_then_by_handle(index, &mut ids, reach, |_| 0, |&id| id);
            assert_eq!(ids[..reach], expected[..reach], "reach {reach}");
        }
        let (_dir, mut s) = repo(&[files[0], ("m.py::x/n.py", "def dup():\n    pass\n"), files[2]]);
        let index = s.index().unwrap();
        let mut ids: Vec<SymId> = (0..index.syms.len() as SymId).rev().collect();
        let mut expected = ids.clone();
        expected.sort_by_cached_key(|&id| index.handle(id));
        sort_then_by_handle(index, &mut ids, 1, |_| 0, |&id| id);
        assert_eq!(ids, expected);
    }
}
