//! The call hierarchy: `callers` and `callees` of a function or method, grouped by the related
//! declaration (or the file, for file-level code) with the exact call sites, to a depth. Only proven
//! call edges are returned; calls whose callee could not be proven are counted.

use std::collections::BTreeMap;

use rustc_hash::FxHashSet as HashSet;
use serde::{Deserialize, Serialize};

use super::{bounded, Ctx, Error, Freshness, Omitted, Site, SymbolInfo};
use crate::index::{FileId, RefSite, SymId};

pub const CALLS_DEPTH_DEFAULT: u32 = 1;
pub const CALLS_DEPTH_CAP: u32 = 5;
pub const CALLS_LIMIT_DEFAULT: u32 = 100;
pub const CALLS_LIMIT_CAP: u32 = 500;

/// Callers or callees of a symbol — by handle or by file position (exactly one of the two) —
/// grouped by the related symbol with exact call sites.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CallsRequest {
    #[serde(default)]
    pub handle: Option<String>,
    /// With `line` (and optionally `column`): the declaration named, or used, there.
    #[serde(default)]
    pub file: Option<String>,
    /// 1-based line.
    #[serde(default)]
    pub line: Option<u32>,
    /// 1-based column in Unicode characters.
    #[serde(default)]
    pub column: Option<u32>,
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CallsResponse {
    pub symbol: SymbolInfo,
    pub groups: Vec<CallGroup>,
    pub total: u64,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Callers,
    Callees,
}

/// Who calls a function or method.
pub(crate) fn callers(ctx: &Ctx, req: CallsRequest) -> Result<CallsResponse, Error> {
    calls(ctx, req, Direction::Callers)
}

/// What a function or method calls.
pub(crate) fn callees(ctx: &Ctx, req: CallsRequest) -> Result<CallsResponse, Error> {
    calls(ctx, req, Direction::Callees)
}

fn calls(ctx: &Ctx, req: CallsRequest, direction: Direction) -> Result<CallsResponse, Error> {
    let depth = bounded(req.depth, CALLS_DEPTH_DEFAULT, CALLS_DEPTH_CAP, "depth")? as u32;
    let limit = bounded(req.limit, CALLS_LIMIT_DEFAULT, CALLS_LIMIT_CAP, "limit")?;
    let index = ctx.index();
    let root = index.target(req.handle.as_deref(), req.file.as_deref(), req.line, req.column)?;
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
            let sites = match direction {
                Direction::Callers => index.sites_of(current),
                Direction::Callees => std::borrow::Cow::Owned(index.calls_in(current)),
            };
            let edges: Vec<(Key, &RefSite)> = sites
                .iter()
                .filter(|r| r.call)
                .map(|r| match direction {
                    Direction::Callers => (r.enclosing.map_or(Key::File(r.file), Key::Sym), r),
                    Direction::Callees => (Key::Sym(r.target), r),
                })
                .collect();
            for (key, r) in edges {
                let entry = groups.entry(key).or_insert((level, Vec::new()));
                if entry.0 == level {
                    entry.1.push(Site::of(index, r));
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
                Key::Sym(s) => (index.handle(s), Some(SymbolInfo::of(index, s))),
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
        if let Some(n) = index.unresolved_calls_named(name) {
            // Calls written with this name that could not be proven to target any declaration.
            omitted.other.insert("unresolvedSitesWithSameName".into(), u64::from(n));
        }
    }
    Ok(CallsResponse {
        symbol: SymbolInfo::of(index, root),
        groups: list,
        total: total as u64,
        omitted,
        freshness: ctx.freshness(),
    })
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::{CallGroup, CallsRequest};
    use crate::Session;

    fn callers_depth1(s: &mut Session) -> Vec<CallGroup> {
        s.callers(CallsRequest { handle: Some("jobs.go::leaf".into()), ..Default::default() }).unwrap().groups
    }

    #[test]
    fn callers_and_callees_by_depth_with_exact_sites() {
        let (_dir, mut s) = repo(&[(
            "jobs.go",
            "package jobs\n\nfunc leaf() int { return 1 }\n\nfunc mid() int { return leaf() + leaf() }\n\nfunc top() int { return mid() }\n",
        )]);
        let req = |handle: &str, depth| CallsRequest {
            handle: Some(handle.into()),
            depth: Some(depth),
            ..Default::default()
        };
        let callers = s.callers(req("jobs.go::leaf", 2)).unwrap();
        let groups: Vec<(&str, u32, usize)> =
            callers.groups.iter().map(|g| (g.handle.as_str(), g.depth, g.callsites.len())).collect();
        assert_eq!(groups, [("jobs.go::mid", 1, 2), ("jobs.go::top", 2, 1)]);
        let callees = s.callees(req("jobs.go::top", 1)).unwrap();
        assert_eq!(callees.groups[0].handle, "jobs.go::mid");
        assert_eq!(s.callers(req("jobs.go::leaf", 6)).unwrap_err().code(), "INVALID_ARGUMENT");
        // By position: the definition's name, or a call of it.
        let at = |line, column| CallsRequest {
            file: Some("jobs.go".into()),
            line: Some(line),
            column: Some(column),
            ..Default::default()
        };
        assert_eq!(s.callers(at(3, 6)).unwrap().symbol.handle, "jobs.go::leaf");
        assert_eq!(s.callers(at(5, 25)).unwrap().groups, callers_depth1(&mut s));
        assert_eq!(s.callees(at(7, 6)).unwrap().groups[0].handle, "jobs.go::mid");
    }
}
