//! Evidence packets: bounded evidence about one declaration or file — what it is, what it says about
//! itself, who uses it, and (on request) its source — and `packet_get`, which finds the target by
//! handle, path, unique basename or declaration name.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

use super::{bounded, capped, signature, Ctx, Error, Freshness};
use crate::host::Host;
use crate::index::{FileId, Index, IndexedFile, SymId, SymbolQuery};
use crate::paths::{clean_path, is_test_path};

/// Entries of each list inside a packet and of explore's side lists (paths, blast radius, tests).
pub const PACKET_LIST_DEFAULT: u32 = 5;
pub const PACKET_LIST_CAP: u32 = 50;
/// Lines of a source excerpt.
pub const EXCERPT_LINES: u32 = 40;

/// Who uses a declaration or a file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Packet {
    /// `symbol` or `file`.
    pub kind: String,
    /// The handle (symbol) or path (file): pass it back to `packet_get`, refs, callers or `get_file`.
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

/// One bounded evidence packet.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PacketGetResponse {
    pub packet: Packet,
    /// Other declarations the name also matches (handles), when it was ambiguous.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<String>,
    pub freshness: Freshness,
}

/// A packet's source, read only when it is shown: the file's indexed text, and the omission to
/// report when it changed since (or is a secrets file, whose text and docs never leave the core
/// this way).
fn packet_source(host: &dyn Host, file: &IndexedFile, source: bool) -> (Option<String>, BTreeMap<String, u64>) {
    let mut omitted = BTreeMap::new();
    if crate::sensitive::classify(&file.path).is_some() {
        omitted.insert("sensitiveSource".to_string(), 1);
        return (None, omitted);
    }
    if !source {
        return (None, omitted);
    }
    let text = file.indexed_text(host);
    if text.is_none() {
        omitted.insert("changedSinceIndexed".to_string(), 1);
    }
    (text, omitted)
}

fn excerpt(lines: &[&str], start: u32, end: u32) -> Excerpt {
    let last = end.min(start + EXCERPT_LINES - 1).min(lines.len() as u32).max(start);
    let text = lines[(start as usize - 1).min(lines.len())..(last as usize).min(lines.len())].join("\n");
    Excerpt { start_line: start, end_line: last, text, truncated: last < end }
}

fn brief(index: &Index, id: SymId) -> String {
    let s = index.symbol(id);
    format!("{} {} ({})", s.kind.as_str(), s.name, s.start.line)
}

/// The evidence packet of a declaration.
pub(crate) fn symbol_packet(host: &dyn Host, index: &Index, id: SymId, source: bool, limit: usize) -> Packet {
    let s = index.symbol(id);
    let fid = index.file_of(id);
    let file = &index.files[fid as usize];
    let (text, mut omitted) = packet_source(host, file, source);
    let sensitive = omitted.contains_key("sensitiveSource");
    let lines: Vec<&str> = text.as_deref().map(|t| t.lines().collect()).unwrap_or_default();
    // Users: enclosing declarations by number of uses, and files.
    let sites = index.sites_of(id);
    let mut by_symbol: HashMap<SymId, u64> = HashMap::default();
    let mut by_file: HashMap<FileId, u64> = HashMap::default();
    for r in sites.iter() {
        *by_file.entry(r.file).or_default() += 1;
        if let (Some(e), false) = (r.enclosing, r.import) {
            *by_symbol.entry(e).or_default() += 1;
        }
    }
    let mut symbols: Vec<(u64, String)> = by_symbol.iter().map(|(&e, &n)| (n, index.handle(e))).collect();
    symbols.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut files: Vec<(u64, &str)> =
        by_file.iter().map(|(&f, &n)| (n, index.files[f as usize].path.as_str())).collect();
    files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let used_by = UsedBy {
        symbols: capped(symbols.into_iter().map(|(_, h)| h).collect(), limit, "usedBy.symbols", &mut omitted),
        files: capped(files.into_iter().map(|(_, p)| p.to_string()).collect(), limit, "usedBy.files", &mut omitted),
        total: sites.len() as u64,
    };
    let local = id - file.sym_base;
    let members: Vec<String> = (0..file.facts.symbols.len() as u32)
        .filter(|&i| file.facts.symbols[i as usize].container == Some(local))
        .map(|i| brief(index, file.sym_base + i))
        .collect();
    Packet {
        kind: "symbol".into(),
        target: index.handle(id),
        path: file.path.clone(),
        symbol_kind: Some(s.kind.as_str().into()),
        start_line: s.start.line,
        end_line: s.end.line,
        signature: Some(signature(index, id).to_string()),
        // A secrets file keeps its docs to itself, like the rest of its text.
        doc: if sensitive { None } else { s.doc.clone() },
        declarations: capped(members, limit, "declarations", &mut omitted),
        imports: Vec::new(),
        used_by,
        excerpt: (source && !lines.is_empty()).then(|| excerpt(&lines, s.start.line, s.end.line)),
        omitted,
    }
}

/// The evidence packet of a file.
pub(crate) fn file_packet(host: &dyn Host, index: &Index, fid: FileId, source: bool, limit: usize) -> Packet {
    let file = &index.files[fid as usize];
    let (text, mut omitted) = packet_source(host, file, source);
    let sensitive = omitted.contains_key("sensitiveSource");
    let lines: Vec<&str> = text.as_deref().map(|t| t.lines().collect()).unwrap_or_default();
    let top: Vec<String> = (0..file.facts.symbols.len() as u32)
        .filter(|&i| file.facts.symbols[i as usize].container.is_none())
        .map(|i| brief(index, file.sym_base + i))
        .collect();
    let path_of = |f: &FileId| index.files[*f as usize].path.clone();
    // From the dependency lists alone (a file's packet reads no graph).
    let rdeps = index.file_deps(fid, false);
    Packet {
        kind: "file".into(),
        target: file.path.clone(),
        path: file.path.clone(),
        symbol_kind: None,
        start_line: 1,
        end_line: file.lines,
        signature: None,
        doc: if sensitive { None } else { file.facts.doc.clone() },
        declarations: capped(top, limit, "declarations", &mut omitted),
        imports: capped(index.file_deps(fid, true).iter().map(path_of).collect(), limit, "imports", &mut omitted),
        used_by: UsedBy {
            symbols: Vec::new(),
            files: capped(rdeps.iter().map(path_of).collect(), limit, "usedBy.files", &mut omitted),
            total: rdeps.len() as u64,
        },
        excerpt: (source && !lines.is_empty()).then(|| excerpt(&lines, 1, file.lines)),
        omitted,
    }
}

/// The indexed file a query names: its exact root-relative path, or a basename only one file has.
pub(crate) fn named_file(index: &Index, query: &str) -> Option<String> {
    let q = clean_path(query.trim());
    if index.by_path.contains_key(&q) {
        return Some(q);
    }
    if q.contains('/') || q.contains(char::is_whitespace) {
        return None;
    }
    let mut found = index.files.iter().filter(|f| f.path.rsplit('/').next() == Some(q.as_str()));
    let first = found.next()?;
    found.next().is_none().then(|| first.path.clone())
}

/// One bounded evidence packet, by handle, file path or declaration name.
pub(crate) fn packet_get(ctx: &Ctx, req: PacketGetRequest) -> Result<PacketGetResponse, Error> {
    let limit = bounded(req.limit, PACKET_LIST_DEFAULT, PACKET_LIST_CAP, "limit")?;
    let target = req.target.trim().to_string();
    if target.is_empty() {
        return Err(Error::InvalidArgument("`target` must not be empty".into()));
    }
    let source = req.include_source != Some(false);
    let index = ctx.index();
    let host = ctx.host;
    if let Some(id) = index.find_handle(&target) {
        return Ok(PacketGetResponse {
            packet: symbol_packet(host, index, id, source, limit),
            alternatives: Vec::new(),
            freshness: ctx.freshness(),
        });
    }
    if let Some(path) = named_file(index, &target) {
        let fid = index.by_path[&path];
        return Ok(PacketGetResponse {
            packet: file_packet(host, index, fid, source, limit),
            alternatives: Vec::new(),
            freshness: ctx.freshness(),
        });
    }
    // A name: the best of the declarations called so (qualified, exact, then ignoring case);
    // outside tests, exported, most used.
    let sq = SymbolQuery::new(&target);
    let mut found: Vec<(u8, SymId)> = sq
        .matches(index)
        .into_iter()
        .map(|(id, tier, _)| (tier, id))
        .filter(|(tier, _)| (1..=3).contains(tier))
        .collect();
    let rank = |&(tier, id): &(u8, SymId)| {
        (
            tier,
            is_test_path(&index.files[index.file_of(id) as usize].path),
            std::cmp::Reverse(index.traits()[id as usize].exported()),
            std::cmp::Reverse(index.uses(id)),
        )
    };
    super::sort_then_by_handle(index, &mut found, 1 + limit, rank, |&(_, id)| id);
    let Some(best) = found.first() else {
        return Err(Error::NotFound(format!(
            "`{target}` is not a handle, an indexed file or a declaration name; try search or explore"
        )));
    };
    let alternatives = found.iter().skip(1).take(limit).map(|&(_, id)| index.handle(id)).collect();
    Ok(PacketGetResponse {
        packet: symbol_packet(host, index, best.1, source, limit),
        alternatives,
        freshness: ctx.freshness(),
    })
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::PacketGetRequest;

    #[test]
    fn packets_by_handle_path_and_name_with_docs_from_the_extractor() {
        let (_dir, mut s) = repo(&[
            (
                "limits.py",
                "def throttle(calls):\n    \"\"\"rate limited per second\"\"\"\n    return calls\n\nthrottle(3)\n",
            ),
            ("geo.rs", "/// A circle.\npub struct Circle { r: f64 }\n"),
        ]);
        let ask = |s: &mut crate::Session, target: &str| {
            s.packet_get(PacketGetRequest { target: target.into(), include_source: Some(false), limit: None }).unwrap()
        };
        let by_name = ask(&mut s, "throttle");
        // The docstring keeps its first word whole (an unmarked line lost a leading `r` before).
        assert_eq!(by_name.packet.doc.as_deref(), Some("rate limited per second"));
        assert_eq!(by_name.packet.target, "limits.py::throttle");
        assert_eq!(by_name.packet.used_by.total, 1);
        assert!(by_name.packet.excerpt.is_none());
        assert_eq!(ask(&mut s, "geo.rs::Circle").packet.doc.as_deref(), Some("A circle."));
        let file = ask(&mut s, "geo.rs");
        assert_eq!((file.packet.kind.as_str(), file.packet.declarations.len()), ("file", 1));
        let with_source =
            s.packet_get(PacketGetRequest { target: "throttle".into(), include_source: None, limit: None }).unwrap();
        assert!(with_source.packet.excerpt.unwrap().text.starts_with("def throttle"));
        assert_eq!(
            s.packet_get(PacketGetRequest { target: "nothing_here".into(), ..Default::default() }).unwrap_err().code(),
            "NOT_FOUND"
        );
    }
}
