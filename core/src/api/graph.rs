//! `graph`: the file dependency graph as data or as a picture — `json` (the nodes and edges),
//! `markdown` (with an embedded mermaid diagram), `xml`, `dot` (Graphviz) or `mermaid`.
//! Forward from `focus` roots (default: every file) to `depth` imports, or, with `dependsOn`, the
//! reverse question: the files that depend on a target within `depth`, counted by the same walk as
//! `impact --files`, `focus` narrowing the answer to files inside those paths (the target stays).
//! The markdown report of a reverse query opens with a blast radius: each file importing the
//! target directly and the names it takes from it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::{Ctx, Error, Freshness, Omitted};
use crate::index::walks::{self, Along};
use crate::index::{FileId, Index};
use crate::paths::clean_path;

pub const GRAPH_DEPTH_DEFAULT: u32 = 1;
pub const GRAPH_DEPTH_CAP: u32 = 50;
/// Files a graph holds at most (the rest are counted).
pub const GRAPH_NODES_CAP: usize = 5000;
/// Files a mermaid diagram shows at most, to stay readable (it says when cut).
pub const MERMAID_NODES: usize = 60;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GraphRequest {
    /// `json` (default), `markdown`, `xml`, `dot` or `mermaid`.
    pub format: Option<String>,
    /// Root-relative files or folders: traversal roots (forward), or the paths a reverse answer is
    /// narrowed to.
    pub focus: Vec<String>,
    /// Imports followed from the roots (default 1 with focus or dependsOn, cap 50; without either,
    /// the whole graph).
    pub depth: Option<u32>,
    /// The reverse question: which files depend on this one.
    pub depends_on: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GraphNode {
    pub path: String,
    pub language: String,
    /// Imports from the root (0 for a root or the target).
    pub distance: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GraphEdge {
    /// The importing file.
    pub from: String,
    /// The imported file.
    pub to: String,
}

/// A file that imports the target directly, and what it takes from it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BlastEntry {
    pub path: String,
    /// Declarations of the target it imports by name (empty: the module as a whole).
    pub names: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GraphResponse {
    pub format: String,
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<String>,
    /// With `dependsOn`: the dependents within `depth` (after focus).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dependent_count: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blast_radius: Option<Vec<BlastEntry>>,
    /// The walk stopped at `depth` with more files beyond it.
    pub depth_limited: bool,
    pub depth: u32,
    /// The graph in the requested format (absent for `json`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

pub(crate) fn graph(ctx: &Ctx, req: GraphRequest) -> Result<GraphResponse, Error> {
    let format = req.format.clone().unwrap_or_else(|| "json".into());
    if !matches!(format.as_str(), "json" | "markdown" | "xml" | "dot" | "mermaid") {
        return Err(Error::InvalidArgument(format!(
            "`format` is json, markdown, xml, dot or mermaid (got {format:?})"
        )));
    }
    if let Some(d) = req.depth.filter(|&d| d == 0 || d > GRAPH_DEPTH_CAP) {
        return Err(Error::InvalidArgument(format!("`depth` is 1 to {GRAPH_DEPTH_CAP} (got {d})")));
    }
    let index = ctx.index();
    let focus: Vec<String> = req.focus.iter().map(|f| clean_path(f).trim_end_matches('/').to_string()).collect();
    let inside = |path: &str| {
        focus.is_empty()
            || focus.iter().any(|f| f.is_empty() || f == "." || path == f || path.starts_with(&format!("{f}/")))
    };
    let mut omitted = Omitted::default();
    let (distance, depth, limited, target) = if let Some(t) = &req.depends_on {
        let target = index.file_id(&clean_path(t))?;
        let depth = req.depth.unwrap_or(GRAPH_DEPTH_DEFAULT);
        let (all, limited) = walks::within(index, &[target], depth, Along::Importers);
        let distance: BTreeMap<FileId, u32> =
            all.into_iter().filter(|&(f, d)| d == 0 || inside(&index.files[f as usize].path)).collect();
        (distance, depth, limited, Some(target))
    } else {
        let roots: Vec<FileId> =
            (0..index.files.len() as FileId).filter(|&f| inside(&index.files[f as usize].path)).collect();
        if !focus.is_empty() && roots.is_empty() {
            return Err(Error::NotFound(format!("no indexed file under {}", focus.join(", "))));
        }
        let depth = req.depth.unwrap_or(if focus.is_empty() { GRAPH_DEPTH_CAP } else { GRAPH_DEPTH_DEFAULT });
        let (distance, limited) = walks::within(index, &roots, depth, Along::Imports);
        (distance, depth, limited, None)
    };
    let mut ids: Vec<FileId> = distance.keys().copied().collect();
    ids.sort_by(|a, b| {
        (distance[a], &index.files[*a as usize].path).cmp(&(distance[b], &index.files[*b as usize].path))
    });
    let ids = omitted.cut(ids, GRAPH_NODES_CAP, "nodes");
    let kept: BTreeSet<FileId> = ids.iter().copied().collect();
    let path = |f: FileId| index.files[f as usize].path.clone();
    let nodes: Vec<GraphNode> = ids
        .iter()
        .map(|&f| GraphNode {
            path: path(f),
            language: index.files[f as usize].language.name().into(),
            distance: distance[&f],
        })
        .collect();
    let mut edges: Vec<GraphEdge> = Vec::new();
    for &f in &kept {
        for &d in &index.file_edges().imports[f as usize] {
            if kept.contains(&d) {
                edges.push(GraphEdge { from: path(f), to: path(d) });
            }
        }
    }
    edges.sort();
    let blast = target.map(|t| blast_radius(index, t, &inside));
    let dependent_count = target.map(|_| nodes.len() as u64 - 1);
    let mut answer = GraphResponse {
        format: format.clone(),
        nodes,
        edges,
        depends_on: target.map(path),
        dependent_count,
        blast_radius: blast,
        depth_limited: limited,
        depth,
        text: None,
        omitted,
        freshness: ctx.freshness(),
    };
    answer.text = match format.as_str() {
        "markdown" => Some(markdown(&answer)),
        "xml" => Some(xml(&answer)),
        "dot" => Some(dot(&answer)),
        "mermaid" => Some(mermaid(&answer).0),
        _ => None,
    };
    Ok(answer)
}

/// Each file inside focus importing `target` directly, with the target's declarations it imports.
fn blast_radius(index: &Index, target: FileId, inside: &dyn Fn(&str) -> bool) -> Vec<BlastEntry> {
    let mut names: BTreeMap<FileId, BTreeSet<String>> = BTreeMap::new();
    for &f in &index.file_edges().importers[target as usize] {
        if inside(&index.files[f as usize].path) {
            names.entry(f).or_default();
        }
    }
    for b in &index.imports().bindings {
        if index.file_of(b.target) == target {
            if let Some(set) = names.get_mut(&b.file) {
                set.insert(index.symbol(b.target).name.clone());
            }
        }
    }
    names
        .into_iter()
        .map(|(f, n)| BlastEntry { path: index.files[f as usize].path.clone(), names: n.into_iter().collect() })
        .collect()
}

fn mermaid_id(i: usize) -> String {
    format!("n{i}")
}

/// A mermaid flowchart of at most `MERMAID_NODES` files (nearest first); whether it was cut.
fn mermaid(g: &GraphResponse) -> (String, bool) {
    let shown: Vec<&GraphNode> = g.nodes.iter().take(MERMAID_NODES).collect();
    let id: BTreeMap<&str, usize> = shown.iter().enumerate().map(|(i, n)| (n.path.as_str(), i)).collect();
    let mut out = String::from("flowchart LR\n");
    for (i, n) in shown.iter().enumerate() {
        let label = n.path.replace('"', "#quot;");
        let _ = writeln!(out, "  {}[\"{label}\"]", mermaid_id(i));
    }
    for e in &g.edges {
        if let (Some(a), Some(b)) = (id.get(e.from.as_str()), id.get(e.to.as_str())) {
            let _ = writeln!(out, "  {} --> {}", mermaid_id(*a), mermaid_id(*b));
        }
    }
    (out, g.nodes.len() > shown.len())
}

fn markdown(g: &GraphResponse) -> String {
    let mut out = String::new();
    if let Some(t) = &g.depends_on {
        let _ = writeln!(out, "# Files that depend on `{t}`\n");
        let _ = writeln!(out, "## Blast radius\n");
        let blast = g.blast_radius.as_deref().unwrap_or_default();
        if blast.is_empty() {
            let _ = writeln!(out, "No file imports `{t}` directly.");
        }
        for b in blast {
            let what = if b.names.is_empty() {
                "the module".to_string()
            } else {
                b.names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            };
            let _ = writeln!(out, "- `{}` imports {what}", b.path);
        }
        let _ = writeln!(
            out,
            "\n{} dependents within {} import{}{}.\n",
            g.dependent_count.unwrap_or(0),
            g.depth,
            if g.depth == 1 { "" } else { "s" },
            if g.depth_limited { "; more files depend on it beyond this depth (raise `depth`)" } else { "" }
        );
    } else {
        let _ = writeln!(out, "# Dependency graph\n");
        let beyond = if g.depth_limited {
            format!(" (within {} imports of the roots; more beyond)", g.depth)
        } else {
            String::new()
        };
        let _ = writeln!(out, "{} files, {} imports{beyond}.\n", g.nodes.len(), g.edges.len());
    }
    let (diagram, cut) = mermaid(g);
    let _ = writeln!(out, "```mermaid\n{diagram}```");
    if cut {
        let _ = writeln!(
            out,
            "\nThe diagram shows the {MERMAID_NODES} nearest of {} files; the lists below are whole.",
            g.nodes.len()
        );
    }
    let _ = writeln!(out, "\n## Files\n");
    for n in &g.nodes {
        let _ = writeln!(out, "- `{}` ({}, distance {})", n.path, n.language, n.distance);
    }
    out
}

fn escape_xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

fn xml(g: &GraphResponse) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<graph");
    if let Some(t) = &g.depends_on {
        let _ = write!(out, " dependsOn=\"{}\"", escape_xml(t));
    }
    let _ = writeln!(out, " depth=\"{}\" depthLimited=\"{}\">", g.depth, g.depth_limited);
    for n in &g.nodes {
        let _ = writeln!(
            out,
            "  <node path=\"{}\" language=\"{}\" distance=\"{}\"/>",
            escape_xml(&n.path),
            n.language,
            n.distance
        );
    }
    for e in &g.edges {
        let _ = writeln!(out, "  <edge from=\"{}\" to=\"{}\"/>", escape_xml(&e.from), escape_xml(&e.to));
    }
    out.push_str("</graph>\n");
    out
}

fn escape_dot(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn dot(g: &GraphResponse) -> String {
    let mut out = String::from("digraph codegraph {\n  rankdir=LR;\n  node [shape=box];\n");
    for n in &g.nodes {
        let _ = writeln!(out, "  \"{}\";", escape_dot(&n.path));
    }
    for e in &g.edges {
        let _ = writeln!(out, "  \"{}\" -> \"{}\";", escape_dot(&e.from), escape_dot(&e.to));
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::GraphRequest;

    #[test]
    fn forward_reverse_focus_and_depth() {
        let (_dir, mut s) = repo(&[
            ("src/a.ts", "export function a() { return 1; }\n"),
            ("src/b.ts", "import { a } from './a';\nexport const b = a();\n"),
            ("src/c.ts", "import { b } from './b';\nexport const c = b;\n"),
            ("lib/d.ts", "import * as m from '../src/a';\nexport const d = m;\n"),
        ]);
        let all = s.graph(GraphRequest::default()).unwrap();
        assert_eq!(all.nodes.len(), 4);
        assert_eq!(all.edges.len(), 3);
        let rev = s
            .graph(GraphRequest {
                depends_on: Some("src/a.ts".into()),
                format: Some("markdown".into()),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(rev.dependent_count, Some(2));
        assert!(rev.depth_limited, "c depends on a through b, beyond depth 1");
        let blast = rev.blast_radius.clone().unwrap();
        assert_eq!(
            blast.iter().map(|b| (b.path.as_str(), b.names.clone())).collect::<Vec<_>>(),
            [("lib/d.ts", vec![]), ("src/b.ts", vec!["a".to_string()]),]
        );
        let text = rev.text.unwrap();
        assert!(text.contains("## Blast radius") && text.contains("- `src/b.ts` imports `a`"), "{text}");
        assert!(text.contains("```mermaid\nflowchart LR"));
        // Focus narrows the reverse answer; the target stays.
        let narrowed = s
            .graph(GraphRequest {
                depends_on: Some("src/a.ts".into()),
                focus: vec!["lib".into()],
                depth: Some(3),
                ..Default::default()
            })
            .unwrap();
        let paths: Vec<&str> = narrowed.nodes.iter().map(|n| n.path.as_str()).collect();
        assert_eq!(paths, ["src/a.ts", "lib/d.ts"]);
        assert_eq!(
            s.graph(GraphRequest { format: Some("png".into()), ..Default::default() }).unwrap_err().code(),
            "INVALID_ARGUMENT"
        );
        assert_eq!(
            s.graph(GraphRequest { depth: Some(0), ..Default::default() }).unwrap_err().code(),
            "INVALID_ARGUMENT"
        );
    }
}
