//! The answers: one method per request. Each validates its request (limits with defaults and caps,
//! argument combinations), reads the index, sorts deterministically, applies the limit and counts
//! what it left out.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashSet as HashSet;

use globset::GlobBuilder;

use super::types::*;
use super::{Error, Session};
use crate::facts::{Pos, SymbolKind};
use crate::index::{FileId, Index, RefSite, SymId};
use crate::lang::Language;
use crate::text::identifier_tokens;

impl Index {
    pub(crate) fn info(&self, id: SymId) -> SymbolInfo {
        let sym = self.symbol(id);
        let file = &self.files[self.file_of(id) as usize];
        let container = sym.container.map(|c| self.handles[self.global(self.file_of(id), c) as usize].clone());
        SymbolInfo {
            handle: self.handles[id as usize].clone(),
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
            signature: self.signature(id).to_string(),
        }
    }

    /// A declaration's signature (its first line), or nothing for a secrets file: the line of
    /// `TOKEN = "…"` is the secret.
    pub(crate) fn signature(&self, id: SymId) -> &str {
        let path = &self.files[self.file_of(id) as usize].path;
        if crate::sensitive::classify(path).is_some() {
            ""
        } else {
            &self.symbol(id).signature
        }
    }

    fn file_id(&self, path: &str) -> Result<FileId, Error> {
        let clean = path.trim_start_matches("./");
        self.by_path.get(clean).copied().ok_or_else(|| {
            Error::NotFound(format!(
                "`{path}` is not an indexed file; give a root-relative path (see `codegraph status` for skipped files)"
            ))
        })
    }

    fn handle_id(&self, handle: &str) -> Result<SymId, Error> {
        self.by_handle.get(handle).copied().ok_or_else(|| {
            Error::NotFound(format!(
                "no symbol with handle `{handle}`; find handles with workspace_symbols (`codegraph symbols NAME`)"
            ))
        })
    }

    /// The reference sites whose target is `id`, in (path, position) order.
    pub(crate) fn sites_of(&self, id: SymId) -> &[RefSite] {
        let refs = &self.graph.refs;
        let start = refs.partition_point(|r| r.target < id);
        let end = refs.partition_point(|r| r.target <= id);
        &refs[start..end]
    }

    /// Declarations at a position: the symbol whose name is there, or the targets of the reference.
    fn at_position(&self, file: FileId, line: u32, column: Option<u32>) -> (Option<String>, Vec<SymId>) {
        let f = &self.files[file as usize];
        let covers =
            |pos: Pos, len: u32| pos.line == line && column.is_none_or(|c| pos.col <= c && c < pos.col + len.max(1));
        for (i, s) in f.facts.symbols.iter().enumerate() {
            if covers(s.name_pos, s.name.chars().count() as u32) && column.is_some() {
                return (Some(s.name.clone()), vec![f.sym_base + i as u32]);
            }
        }
        let mut found: Option<Pos> = None;
        let mut targets = Vec::new();
        for &i in &self.graph.refs_by_file[file as usize] {
            let r = &self.graph.refs[i as usize];
            if covers(r.pos, r.len) && found.is_none_or(|p| p == r.pos) {
                found = Some(r.pos);
                if !targets.contains(&r.target) {
                    targets.push(r.target);
                }
            }
        }
        if let Some(pos) = found {
            let name = f
                .facts
                .refs
                .iter()
                .flat_map(|c| c.segments.iter())
                .chain(
                    f.facts
                        .imports
                        .iter()
                        .flat_map(|i| i.items.iter().map(|it| (&it.name, &it.pos)))
                        .map(|(n, p)| (n.clone(), *p))
                        .collect::<Vec<_>>()
                        .iter(),
                )
                .find(|(_, p)| *p == pos)
                .map(|(n, _)| n.clone());
            return (name, targets);
        }
        // Not resolved: still name what is there.
        let name = f
            .facts
            .refs
            .iter()
            .flat_map(|c| c.segments.iter())
            .find(|(n, p)| covers(*p, n.chars().count() as u32))
            .map(|(n, _)| n.clone());
        (name, Vec::new())
    }
}

/// A workspace-symbols query, prepared once.
pub(crate) struct SymbolQuery<'q> {
    raw: &'q str,
    lower: String,
    /// The query with `.` read as `::` (`Circle.area` → `Circle::area`), when it is qualified.
    qualified: Option<String>,
    tokens: Vec<String>,
}

impl<'q> SymbolQuery<'q> {
    pub(crate) fn new(raw: &'q str) -> SymbolQuery<'q> {
        let qualified = (raw.contains("::") || raw.contains('.')).then(|| raw.replace('.', "::"));
        SymbolQuery { raw, lower: raw.to_lowercase(), qualified, tokens: identifier_tokens(raw) }
    }

    /// How a symbol matches; lower is better.
    pub(crate) fn tier(&self, index: &Index, id: SymId) -> Option<(u8, &'static str)> {
        if index.handles[id as usize] == self.raw {
            return Some((0, "handle"));
        }
        if let Some(q) = &self.qualified {
            let qualified = &index.qualified[id as usize];
            if qualified == q
                || (qualified.ends_with(q.as_str()) && qualified[..qualified.len() - q.len()].ends_with("::"))
            {
                return Some((1, "qualifiedName"));
            }
        }
        if index.symbol(id).name == self.raw {
            return Some((2, "name"));
        }
        let name_lower = &index.names_lower[id as usize];
        if *name_lower == self.lower {
            return Some((3, "nameIgnoreCase"));
        }
        if name_lower.starts_with(&self.lower) {
            return Some((4, "prefix"));
        }
        // Every query token must occur in the name before tokenising it is worth the allocation.
        if !self.tokens.is_empty() && self.tokens.iter().all(|t| name_lower.contains(t.as_str())) {
            let tokens = identifier_tokens(&index.symbol(id).name);
            if tokens.windows(self.tokens.len()).any(|w| w == self.tokens.as_slice()) {
                return Some((5, "token"));
            }
        }
        if name_lower.contains(&self.lower) {
            return Some((6, "substring"));
        }
        None
    }
}

pub(crate) fn omitted_limit(list: &str, count: usize) -> Omitted {
    let mut omitted = Omitted::default();
    if count > 0 {
        omitted.by_limit.insert(list.to_string(), count as u64);
    }
    omitted
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

impl Omitted {
    /// Limits one list of an answer to `limit`, noting the cut under `name`.
    pub(crate) fn cut<T>(&mut self, list: Vec<T>, limit: usize, name: &str) -> Vec<T> {
        capped(list, limit, name, &mut self.by_limit)
    }
}

fn site(index: &Index, r: &RefSite) -> Site {
    Site { path: index.files[r.file as usize].path.clone(), line: r.pos.line, column: r.pos.col }
}

/// Paths a user or agent may write: `./a/b`, `a\b`.
pub(crate) fn clean_path(path: &str) -> String {
    path.replace('\\', "/").trim_start_matches("./").to_string()
}

impl Session {
    pub fn orient(&mut self, req: OrientRequest) -> Result<OrientResponse, Error> {
        let limit = bounded(req.limit, ORIENT_LIMIT_DEFAULT, ORIENT_LIMIT_CAP, "limit")?;
        let index = self.index()?;
        let languages = language_summaries(index);
        let mut dirs: BTreeMap<String, (u64, BTreeSet<&'static str>)> = BTreeMap::new();
        for f in &index.files {
            let dir = f.path.split_once('/').map_or(".", |(d, _)| d).to_string();
            let e = dirs.entry(dir).or_default();
            e.0 += 1;
            e.1.insert(f.language.name());
        }
        let mut layout: Vec<DirSummary> = dirs
            .into_iter()
            .map(|(dir, (files, langs))| DirSummary {
                dir,
                files,
                languages: langs.into_iter().map(str::to_string).collect(),
            })
            .collect();
        layout.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.dir.cmp(&b.dir)));
        let mut omitted = Omitted::default();
        let layout = omitted.cut(layout, limit, "layout");

        let mut entries: Vec<(usize, String)> = index
            .files
            .iter()
            .filter(|f| is_entry_point(f))
            .map(|f| (f.path.matches('/').count(), f.path.clone()))
            .collect();
        entries.sort();
        let entry_points: Vec<String> =
            omitted.cut(entries, limit, "entryPoints").into_iter().map(|(_, p)| p).collect();

        let mut api: Vec<(u64, SymId)> = (0..index.syms.len() as SymId)
            .filter(|&id| {
                let s = index.symbol(id);
                s.exported
                    && s.container.is_none()
                    && !crate::text::is_test_path(&index.files[index.file_of(id) as usize].path)
            })
            .map(|id| (index.uses(id) as u64, id))
            .collect();
        api.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| index.handles[a.1 as usize].cmp(&index.handles[b.1 as usize])));
        let public_api: Vec<ApiEntry> = omitted
            .cut(api, limit, "publicApi")
            .into_iter()
            .map(|(uses, id)| ApiEntry {
                handle: index.handles[id as usize].clone(),
                kind: index.symbol(id).kind.as_str().into(),
                uses,
            })
            .collect();
        let mut test_dirs: BTreeMap<&str, u64> = BTreeMap::new();
        let mut test_files = 0;
        for f in index.files.iter().filter(|f| crate::text::is_test_path(&f.path)) {
            test_files += 1;
            *test_dirs.entry(f.path.rsplit_once('/').map_or(".", |(d, _)| d)).or_default() += 1;
        }
        let mut dirs: Vec<DirCount> =
            test_dirs.into_iter().map(|(dir, files)| DirCount { dir: dir.into(), files }).collect();
        dirs.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.dir.cmp(&b.dir)));
        let dirs = omitted.cut(dirs, limit, "tests.dirs");

        let mut ranked: Vec<FileRank> = index
            .graph
            .rdeps
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.is_empty())
            .map(|(i, r)| FileRank { path: index.files[i].path.clone(), dependents: r.len() as u64 })
            .collect();
        ranked.sort_by(|a, b| b.dependents.cmp(&a.dependents).then_with(|| a.path.cmp(&b.path)));
        let ranked = omitted.cut(ranked, limit, "mostDependedOn");
        let import_edges = index.graph.deps.iter().map(|d| d.len() as u64).sum();
        Ok(OrientResponse {
            files: index.files.len() as u64,
            symbols: index.syms.len() as u64,
            languages,
            layout,
            entry_points,
            public_api,
            tests: TestsSummary { files: test_files, dirs },
            most_depended_on: ranked,
            resolution: ResolutionStats {
                resolved_references: index.graph.resolved_refs,
                unresolved_references: index.graph.unresolved_refs,
                import_edges,
            },
            skipped_file_count: index.skipped.len() as u64,
            skipped_sample: index.skipped.iter().take(limit).cloned().collect(),
            other_files: index.other_files,
            omitted,
            freshness: Freshness::fresh(),
        })
    }

    /// What is indexed, what the snapshot did, where the build's time went, and whether the files on
    /// disk changed since (reported as `stale` with the change set; status never rebuilds).
    pub fn status(&mut self, _req: StatusRequest) -> Result<StatusResponse, Error> {
        // An index built by this very call has just walked the tree; only an older one is compared.
        let built_now = self.index.is_none();
        self.index()?;
        if !built_now {
            let (changed, _) = self.changes()?;
            if !changed.is_empty() {
                self.freshness = Session::change_report("stale", &changed);
            }
        }
        let mut snapshot = self.snapshot_status.clone();
        if self.options.persist && crate::store::usable(self.host.as_ref()).is_ok() {
            if let Ok(entry) = self.host.lstat(crate::snapshot::FILE) {
                snapshot.age_ms = Some((self.host.now_ms() - entry.mtime_ms).max(0.0) as u64);
                snapshot.bytes = Some(entry.size);
            }
        }
        let timings = self.timings.clone();
        let index = self.index()?;
        Ok(StatusResponse {
            indexed: true,
            snapshot,
            timings,
            files: index.files.len() as u64,
            languages: language_summaries(index),
            skipped: index.skipped.clone(),
            freshness: Freshness::fresh(),
        })
    }

    pub fn workspace_symbols(&mut self, req: WorkspaceSymbolsRequest) -> Result<WorkspaceSymbolsResponse, Error> {
        let limit = bounded(req.limit, SYMBOLS_LIMIT_DEFAULT, SYMBOLS_LIMIT_CAP, "limit")?;
        let query = super::explore::nonempty_query(&req.query)?;
        let kinds: Vec<SymbolKind> = req
            .kinds
            .iter()
            .map(|k| {
                SymbolKind::parse(k).ok_or_else(|| {
                    Error::InvalidArgument(format!("unknown kind `{k}`; kinds are class, interface, function, method, struct, trait, enum, type, module, variable, constant, field, macro"))
                })
            })
            .collect::<Result<_, _>>()?;
        let glob = match &req.file_glob {
            Some(g) => Some(
                GlobBuilder::new(g)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| Error::InvalidArgument(format!("invalid fileGlob `{g}`: {e}")))?
                    .compile_matcher(),
            ),
            None => None,
        };
        let index = self.index()?;
        let lower = query.to_lowercase();
        let prepared = SymbolQuery::new(&query);
        let mut found: Vec<(u8, bool, String, Pos, SymbolMatch)> = Vec::new();
        for id in 0..index.syms.len() as SymId {
            let sym = index.symbol(id);
            if (!kinds.is_empty() && !kinds.contains(&sym.kind)) || (req.exported_only && !sym.exported) {
                continue;
            }
            let path = &index.files[index.file_of(id) as usize].path;
            if glob.as_ref().is_some_and(|g| !g.is_match(path)) {
                continue;
            }
            if let Some((tier, how)) = prepared.tier(index, id) {
                let m = SymbolMatch { symbol: index.info(id), matched: how.into(), import_of: None };
                found.push((tier, !sym.exported, path.clone(), sym.name_pos, m));
            }
        }
        let mut omitted = Omitted::default();
        if req.include_imports {
            for b in &index.graph.import_bindings {
                let target = index.symbol(b.target);
                let path = &index.files[b.file as usize].path;
                if (!kinds.is_empty() && !kinds.contains(&target.kind))
                    || glob.as_ref().is_some_and(|g| !g.is_match(path))
                {
                    continue;
                }
                let tier = if b.alias == query {
                    2
                } else if b.alias.to_lowercase() == lower {
                    3
                } else if b.alias.to_lowercase().starts_with(&lower) {
                    4
                } else if b.alias.to_lowercase().contains(&lower) {
                    6
                } else {
                    continue;
                };
                let mut info = index.info(b.target);
                info.name = b.alias.clone();
                info.path = path.clone();
                info.line = b.pos.line;
                info.column = b.pos.col;
                info.start_line = b.pos.line;
                info.end_line = b.pos.line;
                info.kind = "import".into();
                info.container = None;
                let import_of = Some(info.handle.clone());
                let m = SymbolMatch { symbol: info, matched: "import".into(), import_of };
                found.push((tier, false, path.clone(), b.pos, m));
            }
            if index.graph.unbound_imports > 0 {
                omitted.other.insert("namespaceOrUnresolvedImports".into(), index.graph.unbound_imports);
            }
        }
        found.sort_by(|a, b| (a.0, a.1, &a.2, a.3, &a.4.symbol.handle).cmp(&(b.0, b.1, &b.2, b.3, &b.4.symbol.handle)));
        let total = found.len();
        if total > limit {
            omitted.by_limit.insert("symbols".into(), (total - limit) as u64);
        }
        let symbols = found.into_iter().take(limit).map(|f| f.4).collect();
        Ok(WorkspaceSymbolsResponse { query, symbols, total: total as u64, omitted, freshness: Freshness::fresh() })
    }

    pub fn get_symbol(&mut self, req: GetSymbolRequest) -> Result<GetSymbolResponse, Error> {
        let index = self.index()?;
        let id = index.handle_id(&req.handle)?;
        let file = index.file_of(id);
        let local = index.syms[id as usize].1;
        let mut members: Vec<SymId> = index.files[file as usize]
            .facts
            .symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| s.container == Some(local))
            .map(|(i, _)| index.global(file, i as u32))
            .collect();
        members.extend(index.graph.impl_members.get(&id).into_iter().flatten().copied());
        members.sort();
        members.dedup();
        let sites = index.sites_of(id);
        let supertypes = index
            .graph
            .supertypes
            .iter()
            .filter(|(s, _, _)| *s == id)
            .map(|(_, _, t)| index.handles[*t as usize].clone())
            .collect();
        let subtypes = index
            .graph
            .supertypes
            .iter()
            .filter(|(_, _, t)| *t == id)
            .map(|(s, _, _)| index.handles[*s as usize].clone())
            .collect();
        Ok(GetSymbolResponse {
            symbol: index.info(id),
            members: members.into_iter().map(|m| index.info(m)).collect(),
            reference_count: sites.len() as u64,
            caller_count: sites.iter().filter(|r| r.call).map(|r| r.enclosing).collect::<BTreeSet<_>>().len() as u64,
            supertypes,
            subtypes,
            freshness: Freshness::fresh(),
        })
    }

    pub fn goto(&mut self, req: GotoRequest) -> Result<GotoResponse, Error> {
        if req.line == 0 {
            return Err(Error::InvalidArgument("`line` is 1-based".into()));
        }
        if req.column == Some(0) {
            return Err(Error::InvalidArgument("`column` is 1-based".into()));
        }
        let index = self.index()?;
        let file = index.file_id(&clean_path(&req.file))?;
        let (name, targets) = index.at_position(file, req.line, req.column);
        let where_ = format!("{}:{}{}", req.file, req.line, req.column.map(|c| format!(":{c}")).unwrap_or_default());
        let Some(name) = name else {
            return Err(Error::NotFound(format!(
                "no name at {where_}; point at an identifier (line and column are 1-based)"
            )));
        };
        let mut definitions: Vec<SymbolInfo> = targets.into_iter().map(|t| index.info(t)).collect();
        definitions.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
        Ok(GotoResponse { name, definitions, freshness: Freshness::fresh() })
    }

    fn target_of(
        &mut self,
        handle: &Option<String>,
        file: &Option<String>,
        line: Option<u32>,
        column: Option<u32>,
    ) -> Result<SymId, Error> {
        let index = self.index()?;
        match (handle, file, line) {
            (Some(h), None, None) if column.is_none() => index.handle_id(h),
            (None, Some(f), Some(l)) => {
                let fid = index.file_id(&clean_path(f))?;
                let (name, targets) = index.at_position(fid, l, column);
                targets.first().copied().ok_or_else(|| match name {
                    Some(n) => Error::NotFound(format!(
                        "`{n}` at {f}:{l} does not resolve to a declaration in this repository"
                    )),
                    None => Error::NotFound(format!(
                        "no name at {f}:{l}{}",
                        column.map(|c| format!(":{c}")).unwrap_or_default()
                    )),
                })
            }
            _ => Err(Error::InvalidArgument(
                "give either `handle`, or `file` and `line` (and optionally `column`), not both".into(),
            )),
        }
    }

    pub fn refs(&mut self, req: RefsRequest) -> Result<RefsResponse, Error> {
        let limit = bounded(req.limit, REFS_LIMIT_DEFAULT, REFS_LIMIT_CAP, "limit")?;
        let id = self.target_of(&req.handle, &req.file, req.line, req.column)?;
        let index = self.index()?;
        let sites = index.sites_of(id);
        let refs: Vec<ReferenceSite> = sites
            .iter()
            .take(limit)
            .map(|r| ReferenceSite {
                path: index.files[r.file as usize].path.clone(),
                line: r.pos.line,
                column: r.pos.col,
                kind: if r.import {
                    "import"
                } else if r.call {
                    "call"
                } else {
                    "reference"
                }
                .into(),
                enclosing: r.enclosing.map(|e| index.handles[e as usize].clone()),
            })
            .collect();
        Ok(RefsResponse {
            symbol: index.info(id),
            refs,
            total: sites.len() as u64,
            omitted: omitted_limit("refs", sites.len().saturating_sub(limit)),
            freshness: Freshness::fresh(),
        })
    }

    pub fn callers(&mut self, req: CallsRequest) -> Result<CallsResponse, Error> {
        self.calls(req, Direction::Callers)
    }

    pub fn callees(&mut self, req: CallsRequest) -> Result<CallsResponse, Error> {
        self.calls(req, Direction::Callees)
    }

    fn calls(&mut self, req: CallsRequest, direction: Direction) -> Result<CallsResponse, Error> {
        let depth = bounded(req.depth, CALLS_DEPTH_DEFAULT, CALLS_DEPTH_CAP, "depth")? as u32;
        let limit = bounded(req.limit, CALLS_LIMIT_DEFAULT, CALLS_LIMIT_CAP, "limit")?;
        let index = self.index()?;
        let root = index.handle_id(&req.handle)?;
        // Group key: the related symbol, or the file for file-level code.
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        enum Key {
            Sym(SymId),
            File(FileId),
        }
        let mut groups: BTreeMap<Key, (u32, Vec<Site>)> = BTreeMap::new();
        let mut seen: HashSet<SymId> = [root].into_iter().collect();
        let mut frontier = vec![root];
        for level in 1..=depth {
            let mut next = Vec::new();
            for &current in &frontier {
                let edges: Vec<(Key, &RefSite)> = match direction {
                    Direction::Callers => index
                        .sites_of(current)
                        .iter()
                        .filter(|r| r.call)
                        .map(|r| (r.enclosing.map_or(Key::File(r.file), Key::Sym), r))
                        .collect(),
                    Direction::Callees => index
                        .graph
                        .refs_by_enclosing
                        .get(&current)
                        .into_iter()
                        .flatten()
                        .map(|&i| &index.graph.refs[i as usize])
                        .filter(|r| r.call)
                        .map(|r| (Key::Sym(r.target), r))
                        .collect(),
                };
                for (key, r) in edges {
                    let entry = groups.entry(key).or_insert((level, Vec::new()));
                    if entry.0 == level {
                        entry.1.push(site(index, r));
                    }
                    if let Key::Sym(s) = key {
                        if seen.insert(s) {
                            next.push(s);
                        }
                    }
                }
            }
            frontier = next;
        }
        let mut list: Vec<CallGroup> = groups
            .into_iter()
            .map(|(key, (level, mut sites))| {
                sites.sort();
                sites.dedup();
                let (handle, symbol) = match key {
                    Key::Sym(s) => (index.handles[s as usize].clone(), Some(index.info(s))),
                    Key::File(f) => (index.files[f as usize].path.clone(), None),
                };
                CallGroup { handle, symbol, depth: level, callsites: sites }
            })
            .collect();
        list.sort_by(|a, b| (a.depth, &a.handle).cmp(&(b.depth, &b.handle)));
        let total = list.len();
        let mut omitted = Omitted::default();
        if total > limit {
            omitted.by_limit.insert("symbols".into(), (total - limit) as u64);
            let dropped: usize = list[limit..].iter().map(|g| g.callsites.len()).sum();
            omitted.by_limit.insert("callsites".into(), dropped as u64);
        }
        list.truncate(limit);
        if direction == Direction::Callers {
            let name = &index.symbol(root).name;
            if let Some(&n) = index.graph.unresolved_calls.get(name) {
                // Calls written with this name that could not be proven to target any declaration.
                omitted.other.insert("unresolvedSitesWithSameName".into(), n as u64);
            }
        }
        Ok(CallsResponse {
            symbol: index.info(root),
            groups: list,
            total: total as u64,
            omitted,
            freshness: Freshness::fresh(),
        })
    }

    pub fn deps(&mut self, req: DepsRequest) -> Result<DepsResponse, Error> {
        self.file_edges(req, true)
    }

    pub fn rdeps(&mut self, req: DepsRequest) -> Result<DepsResponse, Error> {
        self.file_edges(req, false)
    }

    fn file_edges(&mut self, req: DepsRequest, forward: bool) -> Result<DepsResponse, Error> {
        let limit = bounded(req.limit, DEPS_LIMIT_DEFAULT, DEPS_LIMIT_CAP, "limit")?;
        let index = self.index()?;
        let fid = index.file_id(&clean_path(&req.file))?;
        let edges = if forward { &index.graph.deps[fid as usize] } else { &index.graph.rdeps[fid as usize] };
        let files: Vec<String> = edges.iter().take(limit).map(|&f| index.files[f as usize].path.clone()).collect();
        Ok(DepsResponse {
            file: index.files[fid as usize].path.clone(),
            files,
            total: edges.len() as u64,
            omitted: omitted_limit("files", edges.len().saturating_sub(limit)),
            freshness: Freshness::fresh(),
        })
    }

    pub fn path(&mut self, req: PathRequest) -> Result<PathResponse, Error> {
        let index = self.index()?;
        let from = index.file_id(&clean_path(&req.from))?;
        let to = index.file_id(&clean_path(&req.to))?;
        let path = super::explore::import_path(index, from, to)
            .map(|chain| chain.into_iter().map(|f| index.files[f as usize].path.clone()).collect());
        Ok(PathResponse {
            from: index.files[from as usize].path.clone(),
            to: index.files[to as usize].path.clone(),
            path,
            freshness: Freshness::fresh(),
        })
    }

    pub fn get_file(&mut self, req: GetFileRequest) -> Result<GetFileResponse, Error> {
        let offset = req.offset.unwrap_or(1);
        if offset == 0 {
            return Err(Error::InvalidArgument("`offset` is the 1-based first line".into()));
        }
        let limit = bounded(req.limit, FILE_LIMIT_DEFAULT, FILE_LIMIT_CAP, "limit")?;
        let max_bytes = bounded(req.max_bytes, FILE_MAX_BYTES_DEFAULT, FILE_MAX_BYTES_CAP, "maxBytes")?;
        let (rel, real) = self.confine(&req.file)?;
        // The file asked for and the file it really is (through symlinks) are both classified; the
        // one recognised names the format of its summary.
        let classified = [&rel, &real].into_iter().find_map(|p| crate::sensitive::classify(p).map(|k| (k, p.clone())));
        let sensitive = classified.as_ref().map(|(kind, _)| *kind);
        let stat = self.host.stat(&real).map_err(|e| Error::NotFound(format!("cannot read `{}`: {e}", req.file)))?;
        if stat.kind != crate::host::EntryKind::File {
            return Err(Error::InvalidArgument(format!("`{}` is not a regular file", req.file)));
        }
        if stat.size > FILE_INPUT_CAP {
            return Err(Error::Unreadable(format!(
                "`{}` is {} bytes, over the 16 MiB read limit",
                req.file, stat.size
            )));
        }
        let summary =
            |total_lines: u32, keys: Vec<String>, truncated: bool, kind: crate::sensitive::Kind| GetFileResponse {
                schema_version: 1,
                file: rel.clone(),
                offset,
                limit: limit as u32,
                total_lines,
                content: String::new(),
                line_format: "number-tab-line".into(),
                text: String::new(),
                truncated,
                freshness: Freshness::fresh(),
                page: None,
                graph_context: None,
                sensitive: Some(SensitiveInfo {
                    kind: kind.as_str().into(),
                    redacted: true,
                    allow_sensitive_required: true,
                    keys,
                    bytes: Some(stat.size),
                }),
            };
        if let Some(kind @ crate::sensitive::Kind::KeyMaterial) = sensitive.filter(|_| !req.allow_sensitive) {
            // Key material is described from its metadata only: not a byte of it is read.
            return Ok(summary(0, Vec::new(), false, kind));
        }
        let bytes = self
            .host
            .read_file(&real, FILE_INPUT_CAP)
            .map_err(|e| Error::Unreadable(format!("cannot read `{}`: {e}", req.file)))?;
        if let Some(problem) = crate::discover::content_problem(&bytes) {
            return Err(Error::Unreadable(format!("`{}` cannot be shown as text: {problem}", req.file)));
        }
        let text = std::str::from_utf8(&bytes).expect("validated above");
        let lines: Vec<&str> = text.split('\n').collect();
        let total_lines = lines.len() as u32;
        if let Some((kind, path)) = classified.as_ref().filter(|_| !req.allow_sensitive) {
            // A text config of secrets: the names of its keys and its exact length, never a value.
            let (keys, cut) = crate::sensitive::key_names(path, text);
            return Ok(summary(total_lines, keys, cut, *kind));
        }
        let mut content = String::new();
        let mut raw = String::new();
        let mut truncated = false;
        let mut next = None;
        let mut n = offset;
        let first = (offset - 1) as usize;
        for (i, line) in lines.iter().enumerate().skip(first).take(limit) {
            let line_no = i as u32 + 1;
            let sep = if raw.is_empty() && i == first { 0 } else { 1 };
            if raw.len() + sep + line.len() > max_bytes {
                if i == first {
                    // A single line longer than the byte budget: cut it at a character boundary.
                    let mut cut = max_bytes;
                    while !line.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    raw.push_str(&line[..cut]);
                    content.push_str(&format!("{line_no}\t{}", line[..cut].trim_end_matches('\r')));
                    truncated = true;
                    next = Some(line_no + 1);
                } else {
                    next = Some(line_no);
                }
                n = line_no;
                break;
            }
            if sep == 1 {
                raw.push('\n');
                content.push('\n');
            }
            raw.push_str(line);
            content.push_str(&format!("{line_no}\t{}", line.trim_end_matches('\r')));
            n = line_no + 1;
        }
        if next.is_none() && n <= total_lines && offset <= total_lines {
            next = Some(n);
        }
        let graph_context = if req.include_graph_context {
            let index = self.index()?;
            index.by_path.get(&rel).map(|&fid| GraphContext {
                used_by: index.graph.rdeps[fid as usize]
                    .iter()
                    .take(100)
                    .map(|&f| index.files[f as usize].path.clone())
                    .collect(),
                imports: index.graph.deps[fid as usize]
                    .iter()
                    .take(100)
                    .map(|&f| index.files[f as usize].path.clone())
                    .collect(),
                symbols: index.files[fid as usize]
                    .facts
                    .symbols
                    .iter()
                    .filter(|s| s.container.is_none())
                    .take(200)
                    .map(|s| SymbolBrief { name: s.name.clone(), kind: s.kind.as_str().into(), line: s.name_pos.line })
                    .collect(),
            })
        } else {
            None
        };
        Ok(GetFileResponse {
            schema_version: 1,
            file: rel,
            offset,
            limit: limit as u32,
            total_lines,
            content,
            line_format: "number-tab-line".into(),
            text: raw,
            truncated,
            freshness: Freshness::fresh(),
            page: next.map(|next_offset| PageInfo { next_offset }),
            graph_context,
            sensitive: sensitive.map(|kind| SensitiveInfo {
                kind: kind.as_str().into(),
                redacted: false,
                allow_sensitive_required: true,
                keys: Vec::new(),
                bytes: Some(stat.size),
            }),
        })
    }

    /// A root-relative path that, after resolving symlinks, stays inside the root: the path as
    /// asked (normalised) and the path it really is, both relative to the root.
    fn confine(&self, path: &str) -> Result<(String, String), Error> {
        let cleaned = clean_path(path);
        if cleaned.is_empty() {
            return Err(Error::InvalidArgument("`file` must not be empty".into()));
        }
        let root_real = self.host.realpath("").map_err(|e| Error::Io(format!("cannot resolve the root: {e}")))?;
        let rel = if cleaned.starts_with('/') || cleaned.chars().nth(1) == Some(':') {
            // An absolute path is accepted only when it lies under the root.
            match cleaned.strip_prefix(&format!("{root_real}/")) {
                Some(r) => r.to_string(),
                None => {
                    return Err(Error::OutsideRoot(format!(
                        "`{path}` is outside the root; give a path relative to the root"
                    )))
                }
            }
        } else {
            cleaned
        };
        let normalized = crate::index::normalize_path(&rel)
            .ok_or_else(|| Error::OutsideRoot(format!("`{path}` climbs out of the root; give a path inside it")))?;
        let real = self
            .host
            .realpath(&normalized)
            .map_err(|_| Error::NotFound(format!("`{path}` does not exist under the root")))?;
        match real.strip_prefix(&format!("{root_real}/")) {
            Some(inside) => Ok((normalized, inside.to_string())),
            None => Err(Error::OutsideRoot(format!("`{path}` resolves outside the root (through a symlink)"))),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Callers,
    Callees,
}

fn language_summaries(index: &Index) -> Vec<LanguageSummary> {
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
        e.lines += f.lines as u64;
        e.bytes += f.size;
        e.symbols += f.facts.symbols.len() as u64;
    }
    let mut list: Vec<LanguageSummary> = by.into_values().collect();
    list.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.language.cmp(&b.language)));
    list
}

fn is_entry_point(f: &crate::index::IndexedFile) -> bool {
    let base = f.path.rsplit('/').next().unwrap_or(&f.path);
    let stem = base.split('.').next().unwrap_or(base);
    let shallow = f.path.matches('/').count() <= 3;
    let named = matches!(stem, "main" | "index" | "lib" | "app" | "cli" | "server" | "__main__" | "manage" | "mod")
        && !(stem == "mod" || (stem == "index" && !shallow));
    let go_main = f.language == Language::Go && f.facts.package.as_deref() == Some("main");
    let java_main = f.language == Language::Java
        && f.facts.symbols.iter().any(|s| s.name == "main" && s.kind == SymbolKind::Method);
    (named && shallow) || go_main || java_main
}
