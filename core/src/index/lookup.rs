//! Finding things in the index: a file by path, a declaration by handle or by name (the tiers of
//! workspace-symbol matching), the declarations at a position, and the use sites of a declaration.

use super::{FileId, Index, SymId};
use crate::error::Error;
use crate::facts::{Pos, PROJECTION};
use crate::paths::clean_path;
use crate::text::identifier_tokens;

impl Index {
    /// The indexed file at a root-relative path; the error says how to find the right one.
    pub(crate) fn file_id(&self, path: &str) -> Result<FileId, Error> {
        let clean = path.trim_start_matches("./");
        self.by_path.get(clean).copied().ok_or_else(|| {
            Error::NotFound(format!(
                "`{path}` is not an indexed file; give a root-relative path (see `codegraph status` for skipped files)"
            ))
        })
    }

    /// The declaration a portable handle names.
    pub(crate) fn handle_id(&self, handle: &str) -> Result<SymId, Error> {
        self.find_handle(handle).ok_or_else(|| {
            Error::NotFound(format!(
                "no symbol with handle `{handle}`; find handles with workspace_symbols (`codegraph symbols NAME`)"
            ))
        })
    }

    /// The declaration a request names: by `handle`, or by `file` + `line` (+ `column`) — its name
    /// at its definition, or a proven use of it. Exactly one of the two forms.
    pub(crate) fn target(
        &self,
        handle: Option<&str>,
        file: Option<&str>,
        line: Option<u32>,
        column: Option<u32>,
    ) -> Result<SymId, Error> {
        match (handle, file, line) {
            (Some(h), None, None) if column.is_none() => self.handle_id(h),
            (None, Some(f), Some(l)) => {
                if l == 0 || column == Some(0) {
                    return Err(Error::InvalidArgument("`line` and `column` are 1-based".into()));
                }
                let fid = self.file_id(&clean_path(f))?;
                let (name, targets) = self.at_position(fid, l, column);
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

    /// Declarations at a position: the symbol whose name is there, or the targets of the reference.
    pub(crate) fn at_position(&self, file: FileId, line: u32, column: Option<u32>) -> (Option<String>, Vec<SymId>) {
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
        for r in self.sites_in_file(file) {
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
                .filter(|(n, _)| !n.starts_with(PROJECTION))
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
            .find(|(n, p)| !n.starts_with(PROJECTION) && covers(*p, n.chars().count() as u32))
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
    /// The declaration whose handle the query is, found once (a handle has a `::`).
    handle: std::cell::OnceCell<Option<SymId>>,
}

impl<'q> SymbolQuery<'q> {
    pub(crate) fn new(raw: &'q str) -> SymbolQuery<'q> {
        let qualified = (raw.contains("::") || raw.contains('.')).then(|| raw.replace('.', "::"));
        SymbolQuery {
            raw,
            lower: raw.to_lowercase(),
            qualified,
            tokens: identifier_tokens(raw),
            handle: std::cell::OnceCell::new(),
        }
    }

    /// The declarations that match, with how, in id order: the same as asking `tier` of every
    /// declaration, asked only of those the columns' text holds the query in (its lower-cased name,
    /// its longest word, its qualified form) and of the handle it names.
    pub(crate) fn matches(&self, index: &Index) -> Vec<(SymId, u8, &'static str)> {
        let lower = index.names_lower();
        let mut ids = lower.holding(&self.lower);
        // A `token` match holds every word of the query in its lower-cased name.
        if let Some(word) = self.tokens.iter().max_by_key(|t| t.len()) {
            ids.extend(lower.holding(word));
        }
        if let Some(q) = &self.qualified {
            ids.extend(index.qualified().holding(q));
        }
        if let Some(id) = *self.handle.get_or_init(|| self.find_handle(index)) {
            ids.push(id);
        }
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter().filter_map(|id| self.tier(index, id).map(|(tier, how)| (id, tier, how))).collect()
    }

    fn find_handle(&self, index: &Index) -> Option<SymId> {
        self.raw.contains("::").then(|| index.find_handle(self.raw)).flatten()
    }

    /// How a symbol matches; lower is better. Reads the name columns only (and the qualified names
    /// for a qualified query).
    fn tier(&self, index: &Index, id: SymId) -> Option<(u8, &'static str)> {
        let handle = self.handle.get_or_init(|| self.find_handle(index));
        if *handle == Some(id) {
            return Some((0, "handle"));
        }
        if let Some(q) = &self.qualified {
            let qualified = &index.qualified()[id as usize];
            if qualified == q
                || (qualified.ends_with(q.as_str()) && qualified[..qualified.len() - q.len()].ends_with("::"))
            {
                return Some((1, "qualifiedName"));
            }
        }
        let name = &index.names()[id as usize];
        if name == self.raw {
            return Some((2, "name"));
        }
        let name_lower = &index.names_lower()[id as usize];
        if *name_lower == self.lower {
            return Some((3, "nameIgnoreCase"));
        }
        if name_lower.starts_with(&self.lower) {
            return Some((4, "prefix"));
        }
        // Every query token must occur in the name before tokenising it is worth the allocation.
        if !self.tokens.is_empty() && self.tokens.iter().all(|t| name_lower.contains(t.as_str())) {
            let tokens = identifier_tokens(name);
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
