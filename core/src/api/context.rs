//! Context packs: the repository (or part of it) as one text for a person or a model, under a token
//! budget. Changed files come first (a diff spec read through git), then the files most imported;
//! `focusSymbol` packs chosen declarations instead of whole files; `compress` shortens files to
//! signatures or skeletons from their syntax trees. Named profiles live in `.codegraph/config`.
//!
//! Tokens are estimated as ceil(UTF-8 bytes / 4) of exactly the text returned — the markdown
//! document, or the JSON of the entries — and the pack never exceeds its budget by that count.

use serde::{Deserialize, Serialize};

use super::config::ContextProfile;
use super::{Ctx, Error, Freshness, Omitted};
use crate::compress::{compress, Compress};
use crate::index::{FileId, Index, SymId, SymbolQuery};
use crate::paths::{clean_path, is_test_path};

pub const CONTEXT_BUDGET_DEFAULT: u64 = 128_000;
pub const CONTEXT_BUDGET_MIN: u64 = 256;
pub const CONTEXT_BUDGET_CAP: u64 = 2_000_000;

/// A token budget: a number, or text like `"32k"`, `"1.5m"`, `"20000"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Budget {
    Tokens(u64),
    Text(String),
}

/// A context pack for a person or a model: whole files (or chosen declarations) under a token
/// budget, changed files first, optionally compressed to signatures or skeletons.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DiffSummary {
    pub spec: String,
    /// Changed paths git reported under the root.
    pub changed: u64,
    /// Of those, the indexed files packed first (the rest are deleted, binary or not source).
    pub indexed: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

pub const TOKENIZER: &str = "ceil(utf8 bytes / 4)";

/// Tokens of a text, as every budget counts them.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

/// `32000`, `"32k"`, `"1.5m"`, `"20000"` → tokens.
fn parse_budget(budget: &Budget) -> Result<u64, Error> {
    let tokens = match budget {
        Budget::Tokens(n) => *n,
        Budget::Text(text) => {
            let t = text.trim().to_ascii_lowercase();
            let (number, scale) = match t.strip_suffix('k') {
                Some(n) => (n, 1_000.0),
                None => match t.strip_suffix('m') {
                    Some(n) => (n, 1_000_000.0),
                    None => (t.as_str(), 1.0),
                },
            };
            let value: f64 = number.trim().parse().map_err(|_| {
                Error::InvalidArgument(format!("`budget` must be a number of tokens or like \"32k\" (got {text:?})"))
            })?;
            if !value.is_finite() || value < 0.0 {
                return Err(Error::InvalidArgument(format!("`budget` must be positive (got {text:?})")));
            }
            (value * scale).round() as u64
        }
    };
    if !(CONTEXT_BUDGET_MIN..=CONTEXT_BUDGET_CAP).contains(&tokens) {
        return Err(Error::InvalidArgument(format!(
            "`budget` must be between {CONTEXT_BUDGET_MIN} and {CONTEXT_BUDGET_CAP} tokens (got {tokens})"
        )));
    }
    Ok(tokens)
}

/// The paths a diff spec names, relative to the root.
fn diff_paths(host: &dyn crate::host::Host, spec: &str) -> Result<Vec<String>, Error> {
    let git = |args: &[&str]| -> Result<Vec<String>, Error> {
        let out = crate::git::run(host, args).map_err(|e| Error::InvalidArgument(format!("diff `{spec}`: {e}")))?;
        Ok(out.split('\0').filter(|l| !l.is_empty()).map(str::to_string).collect())
    };
    let untracked = || git(&["ls-files", "-z", "--others", "--exclude-standard"]);
    let mut paths = match spec {
        "working-tree" => {
            let mut p =
                git(&["diff", "-z", "--no-ext-diff", "--no-textconv", "--name-only", "--relative", "HEAD", "--"])?;
            p.extend(untracked()?);
            p
        }
        "staged" => {
            git(&["diff", "-z", "--no-ext-diff", "--no-textconv", "--name-only", "--relative", "--cached", "--"])?
        }
        "unstaged" => git(&["diff", "-z", "--no-ext-diff", "--no-textconv", "--name-only", "--relative", "--"])?,
        base => {
            // A ref, never an option: git must not read it as a flag.
            if !crate::git::is_revision(base) {
                return Err(Error::InvalidArgument(format!(
                    "`diff` is working-tree, staged, unstaged or a git ref (got {spec:?})"
                )));
            }
            git(&["diff", "-z", "--no-ext-diff", "--no-textconv", "--name-only", "--relative", base, "--"])?
        }
    };
    paths.sort();
    paths.dedup();
    Ok(paths)
}

/// A fence longer than any run of backticks in `text`.
fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

fn markdown_entry(e: &ContextEntry, content: &str) -> String {
    let fence = fence_for(content);
    let what = match &e.handle {
        Some(h) => format!("{h} (lines {}-{})", e.start_line, e.end_line),
        None if e.compress != "none" => format!("{} ({})", e.path, e.compress),
        None => e.path.clone(),
    };
    let mut body = content.to_string();
    if !body.ends_with('\n') {
        body.push('\n');
    }
    format!("## {what}\n{fence}{}\n{body}{fence}\n\n", e.language)
}

fn markdown_header(budget: u64, entries: usize, compress: Compress) -> String {
    format!(
        "# Context pack\n\n{entries} entries, budget {budget} tokens ({TOKENIZER}), compress {}.\n\n",
        compress.as_str()
    )
}

/// An entry waiting its turn: read (and compressed) only when the budget gets to it.
enum Pending {
    Symbol(SymId),
    /// A whole file, and whether the diff names it.
    File(FileId, bool),
}

/// A candidate: what it is and its text.
struct Candidate {
    entry: ContextEntry,
    text: String,
}

/// A context pack under a token budget.
pub(crate) fn context(ctx: &Ctx, req: ContextRequest) -> Result<ContextResponse, Error> {
    let profiles = super::config::load(ctx.host)?.profiles;
    if req.list_profiles {
        return Ok(ContextResponse {
            format: "json".into(),
            budget: 0,
            used_tokens: 0,
            tokenizer: TOKENIZER.into(),
            compress: "none".into(),
            profile: None,
            diff: None,
            entries: Vec::new(),
            markdown: None,
            profiles: Some(profiles),
            omitted: Omitted::default(),
            freshness: ctx.freshness(),
        });
    }
    let profile = match &req.profile {
        None => ContextProfile::default(),
        Some(name) => profiles.iter().find(|p| &p.name == name).cloned().ok_or_else(|| {
            let names: Vec<&str> = profiles.iter().map(|p| p.name.as_str()).collect();
            Error::NotFound(format!(
                "no profile `{name}` in {} (profiles: {})",
                super::config::CONFIG_FILE,
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            ))
        })?,
    };
    let budget = parse_budget(
        req.budget.as_ref().or(profile.budget.as_ref()).unwrap_or(&Budget::Tokens(CONTEXT_BUDGET_DEFAULT)),
    )?;
    let compress_name = req.compress.clone().or(profile.compress.clone()).unwrap_or_else(|| "none".into());
    let mode = Compress::parse(&compress_name).ok_or_else(|| {
        Error::InvalidArgument(format!("`compress` is none, signatures or skeleton (got {compress_name:?})"))
    })?;
    let format = req.format.clone().or(profile.format.clone()).unwrap_or_else(|| "json".into());
    if format != "json" && format != "markdown" {
        return Err(Error::InvalidArgument(format!("`format` is json or markdown (got {format:?})")));
    }
    let focus: Vec<String> = if req.focus.is_empty() { profile.focus.clone() } else { req.focus.clone() };
    // `.` (or an empty path) is the whole root: no restriction.
    let focus: Vec<String> = focus
        .iter()
        .map(|f| clean_path(f).trim_end_matches('/').to_string())
        .filter(|f| !f.is_empty() && f != ".")
        .collect();
    let focus_symbol =
        if req.focus_symbol.is_empty() { profile.focus_symbol.clone() } else { req.focus_symbol.clone() };
    let diff_spec = req.diff.clone().or(profile.diff.clone());
    let changed = match &diff_spec {
        Some(spec) => Some(diff_paths(ctx.host, spec)?),
        None => None,
    };

    let index = ctx.index();
    let in_focus = |path: &str| focus.is_empty() || focus.iter().any(|f| in_focus_one(path, f));
    for f in &focus {
        if !index.files.iter().any(|file| in_focus_one(&file.path, f)) {
            return Err(Error::NotFound(format!("focus `{f}` matches no indexed file")));
        }
    }
    let diff_files: rustc_hash::FxHashSet<FileId> = changed
        .iter()
        .flatten()
        .filter_map(|p| index.by_path.get(p).copied())
        .filter(|&f| in_focus(&index.files[f as usize].path))
        .collect();
    let diff = diff_spec.as_ref().map(|spec| DiffSummary {
        spec: spec.clone(),
        changed: changed.as_ref().map_or(0, |c| c.len() as u64),
        indexed: diff_files.len() as u64,
    });

    let host = ctx.host;
    // Files are read live, under the size cap of the files the index takes in.
    let cap = ctx.options.file_cap();
    let mut pending: Vec<Pending> = Vec::new();
    if focus_symbol.is_empty() {
        let mut order: Vec<(u8, bool, std::cmp::Reverse<usize>, FileId)> = index
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| in_focus(&f.path))
            .map(|(i, f)| {
                let fid = i as FileId;
                (
                    u8::from(!diff_files.contains(&fid)),
                    is_test_path(&f.path),
                    std::cmp::Reverse(index.dependents(fid)),
                    fid,
                )
            })
            .collect();
        order.sort_by(|a, b| {
            (a.0, a.1, a.2)
                .cmp(&(b.0, b.1, b.2))
                .then_with(|| index.files[a.3 as usize].path.cmp(&index.files[b.3 as usize].path))
        });
        pending.extend(order.into_iter().map(|(not_diff, _, _, fid)| Pending::File(fid, not_diff == 0)));
    } else {
        let mut seen: rustc_hash::FxHashSet<SymId> = rustc_hash::FxHashSet::default();
        for name in &focus_symbol {
            let sq = SymbolQuery::new(name);
            let mut found: Vec<(u8, SymId)> = sq
                .matches(index)
                .into_iter()
                .map(|(id, tier, _)| (tier, id))
                .filter(|&(tier, id)| tier <= 3 && in_focus(&index.files[index.file_of(id) as usize].path))
                .collect();
            if found.is_empty() {
                return Err(Error::NotFound(format!("no declaration `{name}` (in focus); try workspace_symbols")));
            }
            // Every match may be packed: all are ordered by handle.
            let all = found.len();
            super::sort_then_by_handle(index, &mut found, all, |&(tier, _)| tier, |&(_, id)| id);
            pending.extend(found.into_iter().filter(|&(_, id)| seen.insert(id)).map(|(_, id)| Pending::Symbol(id)));
        }
    }

    // Greedy by priority: what fits goes in, what doesn't is counted and skipped; once the budget
    // can't hold even a small entry the rest is counted unread.
    let markdown = format == "markdown";
    let total = pending.len() as u64;
    let header_reserve = estimate_tokens(&markdown_header(budget, pending.len(), mode)) + 4;
    let mut used = if markdown { header_reserve } else { 2 };
    let mut packed: Vec<(ContextEntry, String)> = Vec::new();
    let (mut skipped, mut unreadable, mut sensitive, mut considered) = (0u64, 0u64, 0u64, 0u64);
    for p in pending {
        if budget - used < MIN_ENTRY_TOKENS {
            break;
        }
        considered += 1;
        let path = match p {
            Pending::Symbol(id) => &index.files[index.file_of(id) as usize].path,
            Pending::File(fid, _) => &index.files[fid as usize].path,
        };
        if crate::sensitive::classify(path).is_some() {
            // A secrets file is never packed: get_file summarises it, with allowSensitive to read it.
            sensitive += 1;
            continue;
        }
        let candidate = match p {
            Pending::Symbol(id) => symbol_candidate(host, index, id, cap),
            Pending::File(fid, diff) => file_candidate(host, index, fid, diff, mode, cap),
        };
        let Some(c) = candidate else {
            unreadable += 1;
            continue;
        };
        let cost = if markdown {
            estimate_tokens(&markdown_entry(&c.entry, &c.text))
        } else {
            let mut e = c.entry.clone();
            e.content = Some(c.text.clone());
            estimate_tokens(&serde_json::to_string(&e).expect("entry encodes")) + 1
        };
        if used + cost <= budget {
            used += cost;
            packed.push((c.entry, c.text));
        } else {
            skipped += 1;
        }
    }
    skipped += total - considered;
    // The exact count of what is returned; estimates above only ever overcount.
    let (entries, markdown_text, used_tokens) = loop {
        let (entries, text, tokens) = if markdown {
            let mut doc = markdown_header(budget, packed.len(), mode);
            for (e, t) in &packed {
                doc.push_str(&markdown_entry(e, t));
            }
            let tokens = estimate_tokens(&doc);
            (packed.iter().map(|(e, _)| e.clone()).collect::<Vec<_>>(), Some(doc), tokens)
        } else {
            let entries: Vec<ContextEntry> =
                packed.iter().map(|(e, t)| ContextEntry { content: Some(t.clone()), ..e.clone() }).collect();
            let tokens = estimate_tokens(&serde_json::to_string(&entries).expect("entries encode"));
            (entries, None, tokens)
        };
        if tokens <= budget || packed.is_empty() {
            break (entries, text, tokens);
        }
        packed.pop();
        skipped += 1;
    };
    let mut omitted = Omitted::default();
    if skipped > 0 {
        omitted.by_limit.insert("budget".into(), skipped);
    }
    if unreadable > 0 {
        // Deleted or changed into something unreadable since the index was built.
        omitted.other.insert("unreadableFiles".into(), unreadable);
    }
    if sensitive > 0 {
        omitted.other.insert("sensitiveFiles".into(), sensitive);
    }
    Ok(ContextResponse {
        format,
        budget,
        used_tokens,
        tokenizer: TOKENIZER.into(),
        compress: mode.as_str().into(),
        profile: req.profile.clone(),
        diff,
        entries,
        markdown: markdown_text,
        profiles: None,
        omitted,
        freshness: ctx.freshness(),
    })
}

/// Smaller than any entry with its heading: below this much room the pack is full.
const MIN_ENTRY_TOKENS: u64 = 24;

/// A whole file, read live and compressed.
fn file_candidate(
    host: &dyn crate::host::Host,
    index: &Index,
    fid: FileId,
    diff: bool,
    mode: Compress,
    cap: u64,
) -> Option<Candidate> {
    let file = &index.files[fid as usize];
    let text = String::from_utf8(host.read_file(&file.path, cap).ok()?).ok()?;
    Some(Candidate {
        entry: ContextEntry {
            kind: "file".into(),
            path: file.path.clone(),
            handle: None,
            language: file.language.name().into(),
            reason: if diff { "diff" } else { "rank" }.into(),
            start_line: 1,
            end_line: text.lines().count().max(1) as u32,
            compress: mode.as_str().into(),
            content: None,
        },
        text: compress(file.language, &text, mode),
    })
}

fn in_focus_one(path: &str, focus: &str) -> bool {
    path == focus || path.starts_with(&format!("{focus}/"))
}

/// A declaration's own lines (with its doc comment), read live.
fn symbol_candidate(host: &dyn crate::host::Host, index: &Index, id: SymId, cap: u64) -> Option<Candidate> {
    let s = index.symbol(id);
    let file = &index.files[index.file_of(id) as usize];
    let text = String::from_utf8(host.read_file(&file.path, cap).ok()?).ok()?;
    let start = s.doc_line.unwrap_or(s.start.line).min(s.start.line);
    let lines: Vec<&str> = text.lines().collect();
    let end = (s.end.line as usize).min(lines.len());
    if start as usize > end {
        return None;
    }
    Some(Candidate {
        entry: ContextEntry {
            kind: "symbol".into(),
            path: file.path.clone(),
            handle: Some(index.handle(id)),
            language: file.language.name().into(),
            reason: "focusSymbol".into(),
            start_line: start,
            end_line: end as u32,
            compress: "none".into(),
            content: None,
        },
        text: lines[start as usize - 1..end].join("\n"),
    })
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::{Budget, ContextRequest};

    #[test]
    fn packs_within_the_budget_most_imported_first() {
        let (_dir, mut s) =
            repo(&[("core.py", "def base():\n    return 1\n"), ("use.py", "from core import base\n\nbase()\n")]);
        let pack = s.context(ContextRequest::default()).unwrap();
        let paths: Vec<&str> = pack.entries.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["core.py", "use.py"]);
        assert!(pack.used_tokens <= pack.budget);
        let tight = s
            .context(ContextRequest {
                budget: Some(Budget::Tokens(256)),
                focus_symbol: vec!["base".into()],
                ..Default::default()
            })
            .unwrap();
        assert_eq!(tight.entries[0].handle.as_deref(), Some("core.py::base"));
        let bad = ContextRequest { compress: Some("zip".into()), ..Default::default() };
        assert_eq!(s.context(bad).unwrap_err().code(), "INVALID_ARGUMENT");
    }
}
