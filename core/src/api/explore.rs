//! `explore`: the first tool for a broad question in words. The ranking of `search` picks the
//! anchors; evidence packets describe the top ones; the file graph adds the import paths between
//! them, their blast radius and the tests most likely to cover them; follow-ups are the exact calls
//! to make next.

use serde::{Deserialize, Serialize};

use super::files::{self, GetFileRequest, GetFileResponse};
use super::packets::{file_packet, named_file, symbol_packet, Packet, PACKET_LIST_CAP, PACKET_LIST_DEFAULT};
use super::search::{ranked, Hit};
use super::{bounded, Ctx, Error, Freshness, Omitted};
use crate::index::{walks, FileId, Index, SymId};

pub const EXPLORE_LIMIT_DEFAULT: u32 = 8;
pub const EXPLORE_LIMIT_CAP: u32 = 30;
pub const EXPLORE_PACKETS_DEFAULT: u32 = 3;
pub const EXPLORE_PACKETS_CAP: u32 = 10;

/// The first tool for a broad question in words: ranked anchors with evidence, how they connect,
/// what depends on them, tests to run, and the calls to make next.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// An import chain between two top anchors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AnchorPath {
    pub from: String,
    pub to: String,
    /// The files from `from` to `to`, both included.
    pub files: Vec<String>,
}

/// A file affected when the top anchors change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Dependent {
    pub path: String,
    /// 1 = imports an anchor file directly, 2 = imports such a file.
    pub distance: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BlastRadius {
    pub files: Vec<Dependent>,
    /// Dependents within two imports in all.
    pub total: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CandidateTest {
    pub path: String,
    /// `uses <handle>`, `imports <path>`, or `named after <path>`.
    pub reason: String,
}

/// A call the agent can make next, ready to send.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FollowUp {
    /// The MCP tool name.
    pub tool: String,
    pub arguments: serde_json::Value,
    pub why: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// The first call for a broad question in words: ranked anchors with evidence, how they connect,
/// what depends on them, tests to run, and the calls to make next.
pub(crate) fn explore(ctx: &Ctx, req: ExploreRequest) -> Result<ExploreResponse, Error> {
    let limit = bounded(req.limit, EXPLORE_LIMIT_DEFAULT, EXPLORE_LIMIT_CAP, "limit")?;
    let packet_count = match req.packets {
        Some(0) => 0,
        n => bounded(n, EXPLORE_PACKETS_DEFAULT, EXPLORE_PACKETS_CAP, "packets")?,
    };
    let list = bounded(req.list_limit, PACKET_LIST_DEFAULT, PACKET_LIST_CAP, "listLimit")?;
    let (query, ranking, mut omitted) = ranked(ctx, &req.query, "anchors", limit)?;
    let index = ctx.index();
    let host = ctx.host;
    let hits: Vec<Hit> = ranking.hits.into_iter().take(limit).collect();
    let source = req.include_source == Some(true);
    let packets: Vec<Packet> = hits
        .iter()
        .take(packet_count)
        .map(|h| match h.sym {
            Some(id) => symbol_packet(host, index, id, source, list),
            None => file_packet(host, index, h.file, source, list),
        })
        .collect();
    let mut top_files: Vec<FileId> = Vec::new();
    for h in &hits {
        if !top_files.contains(&h.file) && top_files.len() < 3 {
            top_files.push(h.file);
        }
    }
    let mut paths = Vec::new();
    for &a in &top_files {
        for &b in &top_files {
            if a == b {
                continue;
            }
            if let Some(chain) = walks::import_path(index, a, b) {
                let files: Vec<String> = chain.iter().map(|&f| index.files[f as usize].path.clone()).collect();
                paths.push(AnchorPath { from: files[0].clone(), to: files[files.len() - 1].clone(), files });
            }
        }
    }
    let paths = omitted.cut(paths, list, "paths");
    let near = walks::dependents(index, &top_files, 2);
    let blast_radius = BlastRadius {
        total: near.len() as u64,
        files: omitted.cut(
            near.iter()
                .map(|&(distance, f)| Dependent { path: index.files[f as usize].path.clone(), distance })
                .collect(),
            list,
            "blastRadius",
        ),
    };
    let top_syms: Vec<SymId> = hits.iter().filter_map(|h| h.sym).take(5).collect();
    let tests = walks::candidate_tests(index, &top_files, &top_syms, &near)
        .into_iter()
        .map(|(f, reason)| CandidateTest { path: index.files[f as usize].path.clone(), reason })
        .collect();
    let candidate_tests = omitted.cut(tests, list, "candidateTests");
    let follow_ups = follow_ups(index, &hits, packet_count, &candidate_tests);
    let anchors = hits.iter().map(|h| anchor(index, h)).collect();
    let named = (req.include_source != Some(false)).then(|| named_file(index, &query)).flatten();
    let file_view = match named {
        Some(file) => Some(files::get_file(ctx, GetFileRequest { file, ..GetFileRequest::default() })?),
        None => None,
    };
    Ok(ExploreResponse {
        query,
        anchors,
        packets,
        paths,
        blast_radius,
        candidate_tests,
        follow_ups,
        unknown_words: ranking.unknown,
        file_view,
        omitted,
        freshness: ctx.freshness(),
    })
}

fn anchor(index: &Index, h: &Hit) -> Anchor {
    let path = index.files[h.file as usize].path.clone();
    match h.sym {
        Some(id) => Anchor {
            kind: "symbol".into(),
            path,
            handle: Some(index.handle(id)),
            symbol_kind: Some(index.symbol(id).kind.as_str().into()),
            line: Some(index.symbol(id).name_pos.line),
            score: h.score,
            matched: h.matched.clone(),
        },
        None => Anchor {
            kind: "file".into(),
            path,
            handle: None,
            symbol_kind: None,
            line: None,
            score: h.score,
            matched: h.matched.clone(),
        },
    }
}

fn follow_ups(index: &Index, hits: &[Hit], packets: usize, tests: &[CandidateTest]) -> Vec<FollowUp> {
    let mut out = Vec::new();
    if let Some(id) = hits.iter().find_map(|h| h.sym) {
        let s = index.symbol(id);
        let handle = index.handle(id);
        let (tool, why) = if s.kind.is_callable() {
            ("callers", "who calls the top declaration")
        } else {
            ("refs", "where the top declaration is used")
        };
        out.push(FollowUp { tool: tool.into(), arguments: serde_json::json!({ "handle": handle }), why: why.into() });
        out.push(FollowUp {
            tool: "get_file".into(),
            arguments: serde_json::json!({
                "file": index.files[index.file_of(id) as usize].path,
                "offset": s.start.line,
                "limit": (s.end.line - s.start.line + 1).min(200),
            }),
            why: "read the top declaration".into(),
        });
    }
    if let Some(h) = hits.get(packets) {
        let target = h.sym.map_or_else(|| index.files[h.file as usize].path.clone(), |id| index.handle(id));
        out.push(FollowUp {
            tool: "packet_get".into(),
            arguments: serde_json::json!({ "target": target }),
            why: "evidence for the next anchor".into(),
        });
    }
    if let Some(h) = hits.first() {
        out.push(FollowUp {
            tool: "rdeps".into(),
            arguments: serde_json::json!({ "file": index.files[h.file as usize].path }),
            why: "every file that imports the top file".into(),
        });
    }
    if let Some(t) = tests.first() {
        out.push(FollowUp {
            tool: "get_file".into(),
            arguments: serde_json::json!({ "file": t.path, "limit": 200 }),
            why: "the test most likely to cover it".into(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::ExploreRequest;

    #[test]
    fn anchors_packets_paths_tests_and_follow_ups() {
        let (_dir, mut s) = repo(&[
            ("app/billing.py", "from app.tax import vat\n\ndef invoice_total(lines):\n    \"\"\"Sum invoice lines with tax.\"\"\"\n    return vat(sum(lines))\n"),
            ("app/tax.py", "def vat(amount):\n    return amount * 1.2\n"),
            ("app/__init__.py", ""),
            ("tests/test_billing.py", "from app.billing import invoice_total\n\ndef test_total():\n    assert invoice_total([1])\n"),
        ]);
        let e = s.explore(ExploreRequest { query: "invoice total with tax".into(), ..Default::default() }).unwrap();
        assert_eq!(e.anchors[0].handle.as_deref(), Some("app/billing.py::invoice_total"));
        assert_eq!(e.packets[0].doc.as_deref(), Some("Sum invoice lines with tax."));
        assert!(e.paths.iter().any(|p| p.files == ["app/billing.py", "app/tax.py"]), "{:?}", e.paths);
        assert_eq!(e.candidate_tests[0].path, "tests/test_billing.py");
        assert_eq!(e.follow_ups[0].tool, "callers");
        assert!(e.file_view.is_none());
        let by_path = s.explore(ExploreRequest { query: "app/tax.py".into(), ..Default::default() }).unwrap();
        assert_eq!(by_path.file_view.unwrap().file, "app/tax.py");
    }
}
