//! `get_file`: a bounded page of a project file, read live after path confinement (numbered lines,
//! byte bounds, pagination), summarised instead of shown for secrets files, with the direct graph
//! context of the file when asked.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::{bounded, Ctx, Error, Freshness};
use crate::host::Host;
use crate::paths::clean_path;

pub const FILE_LIMIT_DEFAULT: u32 = 2000;
pub const FILE_LIMIT_CAP: u32 = 10_000;
pub const FILE_MAX_BYTES_DEFAULT: u32 = 80_000;
pub const FILE_MAX_BYTES_CAP: u32 = 500_000;
/// Files larger than this are never read.
pub const FILE_INPUT_CAP: u64 = 16 * 1024 * 1024;

/// A bounded read of a project file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GetFileRequest {
    /// Root-relative path.
    pub file: String,
    /// 1-based first line (default 1).
    #[serde(default)]
    pub offset: Option<u32>,
    /// Maximum lines (default 2000, cap 10000).
    #[serde(default)]
    pub limit: Option<u32>,
    /// 1-based character column of the `offset` line to start at (default 1): the rest of a line
    /// that `maxBytes` cut, as `page.continuation` names it.
    #[serde(default)]
    pub column: Option<u32>,
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PageInfo {
    /// The next line to read.
    pub next_offset: u32,
    /// When `maxBytes` cut the page's last line: where its rest starts (`offset` and `column` to ask
    /// for next).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continuation: Option<Continuation>,
}

/// The rest of a line cut by the byte bound.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Continuation {
    pub offset: u32,
    /// 1-based character column.
    pub column: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SymbolBrief {
    pub name: String,
    pub kind: String,
    pub line: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GraphContext {
    /// Files that import this one (sorted, at most 100).
    pub used_by: Vec<String>,
    /// Files this one imports.
    pub imports: Vec<String>,
    pub symbols: Vec<SymbolBrief>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// A bounded page of a project file, read live after path confinement.
pub(crate) fn get_file(ctx: &Ctx, req: GetFileRequest) -> Result<GetFileResponse, Error> {
    // The page is live bytes; only graph context depends on the index (and its freshness).
    let freshness = if req.include_graph_context { ctx.freshness() } else { Freshness::fresh() };
    let offset = req.offset.unwrap_or(1);
    if offset == 0 {
        return Err(Error::InvalidArgument("`offset` is the 1-based first line".into()));
    }
    let limit = bounded(req.limit, FILE_LIMIT_DEFAULT, FILE_LIMIT_CAP, "limit")?;
    let max_bytes = bounded(req.max_bytes, FILE_MAX_BYTES_DEFAULT, FILE_MAX_BYTES_CAP, "maxBytes")?;
    let (rel, real) = confine(ctx.host, &req.file)?;
    // The file asked for and the file it really is (through symlinks) are both classified; the
    // one recognised names the format of its summary.
    let classified = [&rel, &real].into_iter().find_map(|p| crate::sensitive::classify(p).map(|k| (k, p.clone())));
    let sensitive = classified.as_ref().map(|(kind, _)| *kind);
    let stat = ctx.host.stat(&real).map_err(|e| Error::NotFound(format!("cannot read `{}`: {e}", req.file)))?;
    if stat.kind != crate::host::EntryKind::File {
        return Err(Error::InvalidArgument(format!("`{}` is not a regular file", req.file)));
    }
    if stat.size > FILE_INPUT_CAP {
        return Err(Error::Unreadable(format!("`{}` is {} bytes, over the 16 MiB read limit", req.file, stat.size)));
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
            freshness: freshness.clone(),
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
    let bytes = ctx
        .host
        .read_file(&real, FILE_INPUT_CAP)
        .map_err(|e| Error::Unreadable(format!("cannot read `{}`: {e}", req.file)))?;
    if let Some(problem) = crate::discover::content_problem(&bytes) {
        return Err(Error::Unreadable(format!("`{}` cannot be shown as text: {problem}", req.file)));
    }
    let text = std::str::from_utf8(&bytes).expect("validated above");
    // A byte-order mark is not a character of line 1 (positions don't count it either).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines: Vec<&str> = text.split('\n').collect();
    let total_lines = lines.len() as u32;
    if let Some((kind, path)) = classified.as_ref().filter(|_| !req.allow_sensitive) {
        // A text config of secrets: the names of its keys and its exact length, never a value.
        let (keys, cut) = crate::sensitive::key_names(path, text);
        return Ok(summary(total_lines, keys, cut, *kind));
    }
    let first = (offset - 1) as usize;
    // A page that continues a cut line starts at its column.
    let start_column = req.column.unwrap_or(1);
    if start_column == 0 {
        return Err(Error::InvalidArgument("`column` is 1-based".into()));
    }
    if let Some(line) = lines.get_mut(first) {
        let skip = line.char_indices().nth(start_column as usize - 1).map_or(line.len(), |(b, _)| b);
        *line = &line[skip..];
    }
    let mut content = String::new();
    let mut raw = String::new();
    let mut truncated = false;
    let mut next = None;
    let mut continuation = None;
    let mut n = offset;
    for (i, line) in lines.iter().enumerate().skip(first).take(limit) {
        let line_no = i as u32 + 1;
        let sep = usize::from(!(raw.is_empty() && i == first));
        if raw.len() + sep + line.len() > max_bytes {
            if i == first {
                // A single line longer than the byte budget: cut it at a character boundary.
                let mut cut = max_bytes;
                while !line.is_char_boundary(cut) {
                    cut -= 1;
                }
                raw.push_str(&line[..cut]);
                let _ = write!(content, "{line_no}\t{}", line[..cut].trim_end_matches('\r'));
                truncated = true;
                next = Some(line_no + 1);
                let column = start_column + line[..cut].chars().count() as u32;
                continuation = Some(Continuation { offset: line_no, column });
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
        let _ = write!(content, "{line_no}\t{}", line.trim_end_matches('\r'));
        n = line_no + 1;
    }
    if next.is_none() && n <= total_lines && offset <= total_lines {
        next = Some(n);
    }
    let graph_context = if req.include_graph_context {
        let index = ctx.index();
        index.by_path.get(&rel).map(|&fid| GraphContext {
            used_by: index
                .file_deps(fid, false)
                .iter()
                .take(100)
                .map(|&f| index.files[f as usize].path.clone())
                .collect(),
            imports: index
                .file_deps(fid, true)
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
        freshness: freshness.clone(),
        page: next.map(|next_offset| PageInfo { next_offset, continuation }),
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
fn confine(host: &dyn Host, path: &str) -> Result<(String, String), Error> {
    let cleaned = clean_path(path);
    if cleaned.is_empty() {
        return Err(Error::InvalidArgument("`file` must not be empty".into()));
    }
    let root_real = host.realpath("").map_err(|e| Error::Io(format!("cannot resolve the root: {e}")))?;
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
    let real =
        host.realpath(&normalized).map_err(|_| Error::NotFound(format!("`{path}` does not exist under the root")))?;
    match real.strip_prefix(&format!("{root_real}/")) {
        Some(inside) => Ok((normalized, inside.to_string())),
        None => Err(Error::OutsideRoot(format!("`{path}` resolves outside the root (through a symlink)"))),
    }
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::{Continuation, GetFileRequest, GotoRequest};

    #[test]
    fn a_line_longer_than_the_byte_bound_is_read_to_its_end_in_pages() {
        let long = (0..50).map(|i| format!("é{i:02}")).collect::<Vec<_>>().concat();
        let (_dir, mut s) = repo(&[("min.js", &format!("{long}\nnext\n"))]);
        let mut text = String::new();
        let mut request = GetFileRequest { file: "min.js".into(), max_bytes: Some(40), ..Default::default() };
        loop {
            let p = s.get_file(request.clone()).unwrap();
            let page = p.page.expect("more to read");
            if let Some(Continuation { offset, column }) = page.continuation {
                assert!(p.truncated);
                text.push_str(&p.text);
                request = GetFileRequest { offset: Some(offset), column: Some(column), ..request };
            } else {
                text.push_str(p.text.split('\n').next().unwrap());
                assert_eq!(page.next_offset, 2);
                break;
            }
        }
        assert_eq!(text, long, "every character of the long line, once");
        let bad = GetFileRequest { file: "min.js".into(), column: Some(0), ..Default::default() };
        assert_eq!(s.get_file(bad).unwrap_err().code(), "INVALID_ARGUMENT");
    }

    #[test]
    fn positions_after_a_byte_order_mark_are_the_editor_s() {
        let (_dir, mut s) = repo(&[("a.ts", "\u{feff}export function greet() { return 1; }\ngreet();\n")]);
        let at = s.goto(GotoRequest { file: "a.ts".into(), line: 1, column: Some(17) }).unwrap();
        assert_eq!(at.name, "greet");
        assert_eq!((at.definitions[0].line, at.definitions[0].column), (1, 17));
    }

    #[test]
    fn pages_are_exact_live_and_confined() {
        let (_dir, mut s) =
            repo(&[("a.py", "one\ntwo\nthree\n"), ("b.py", "import a\n"), ("bom.ts", "\u{feff}export const x = 1;\n")]);
        let page = |s: &mut crate::Session, req: GetFileRequest| s.get_file(req).unwrap();
        let p =
            page(&mut s, GetFileRequest { file: "a.py".into(), offset: Some(2), limit: Some(1), ..Default::default() });
        assert_eq!((p.content.as_str(), p.text.as_str(), p.total_lines), ("2\ttwo", "two", 4));
        assert_eq!(p.page.unwrap().next_offset, 3);
        assert_eq!(p.freshness.state, "fresh");
        assert!(p.graph_context.is_none());
        let graph =
            page(&mut s, GetFileRequest { file: "a.py".into(), include_graph_context: true, ..Default::default() });
        assert_eq!(graph.graph_context.unwrap().used_by, ["b.py"]);
        let bom = page(&mut s, GetFileRequest { file: "bom.ts".into(), limit: Some(1), ..Default::default() });
        assert_eq!(bom.text, "export const x = 1;", "a byte-order mark is not part of line 1");
        for outside in ["../x", "/etc/passwd"] {
            let e = s.get_file(GetFileRequest { file: outside.into(), ..Default::default() }).unwrap_err();
            assert_eq!(e.code(), "OUTSIDE_ROOT", "{outside}");
        }
    }
}
