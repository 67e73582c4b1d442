//! Change impact: what a change breaks and what to test. Two forms, one count of dependents:
//! - a git range (`base`, `head`: refs, `STAGED` or `WORKTREE`): the declarations that changed
//!   (`crate::changes`), the symbols that call or reference them to a depth with the exact sites,
//!   the files that import the changed files, candidate tests, and diagnostics — files that could
//!   not be analysed, a removed declaration that is still used (a break), same-named sites nobody
//!   could prove;
//! - `files`: the files that depend on each target, widest first, with `dependent_count`.
//!
//! Either form takes `fail_on`: the answer's `gate` says whether a target's dependents reached it,
//! and the exit code the CLI gives for that (2 crossed, 0 held). A crossed gate is data, never an
//! error. Impacted symbols come from proven references only, so a same-named declaration elsewhere
//! is never impacted.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{bounded, CandidateTest, Ctx, Dependent, Error, Freshness, Omitted, Site, SymbolInfo};
use crate::changes::{self, ChangeKind, ChangedFile, DeclChange, FileStatus, Range};
use crate::index::{walks, FileId, Index, SymId};
use crate::paths::clean_path;

pub const IMPACT_DEPTH_DEFAULT: u32 = 1;
pub const IMPACT_DEPTH_CAP: u32 = 5;
pub const IMPACT_LIMIT_DEFAULT: u32 = 50;
pub const IMPACT_LIMIT_CAP: u32 = 500;
/// Sites shown per impacted symbol in the compact format (all are counted).
pub const COMPACT_SITES: usize = 3;

/// A git range (`base`, optional `head`) or `files`: exactly one of the two.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ImpactRequest {
    /// The older side: a git ref (branch, tag, commit, `HEAD~3`) or `STAGED` (then `head` is `WORKTREE`).
    pub base: Option<String>,
    /// The newer side: a git ref, `STAGED` or `WORKTREE` (default).
    pub head: Option<String>,
    /// Root-relative files whose dependents to report (instead of a range).
    pub files: Vec<String>,
    /// Hops from each changed symbol and file (default 1: direct callers and importers; cap 5).
    pub depth: Option<u32>,
    /// Report only dependents (files and symbols) inside these root-relative paths: narrows the
    /// answer, not the analysis.
    pub focus: Vec<String>,
    /// The gate: a target whose `dependent_count` reaches this crosses it.
    #[serde(rename = "fail_on", alias = "failOn")]
    pub fail_on: Option<u32>,
    /// `compact` (default: a few sites per impacted symbol, every one counted) or `full`.
    pub format: Option<String>,
    /// Maximum entries per list (default 50, cap 500).
    pub limit: Option<u32>,
}

/// The two sides of the range analysed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ImpactRange {
    pub base: String,
    pub head: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChangedFileInfo {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// `added`, `deleted`, `modified` or `renamed`.
    pub status: String,
    /// The language parsed, when it is one the core knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Declarations that changed in it.
    pub changed_symbols: u32,
}

/// A declaration that changed in the range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChangedSymbol {
    /// Its handle on the side where it exists (the head side, but for a removed one).
    pub handle: String,
    pub name: String,
    pub kind: String,
    pub path: String,
    pub line: u32,
    /// `added`, `removed`, `modifiedSignature`, `modifiedBody` or `moved` (its file was renamed).
    pub change: String,
    pub exported: bool,
    pub signature: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_signature: Option<String>,
    /// The handle before a move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_handle: Option<String>,
    /// Whether the index knows it (the head side is the working tree the index describes).
    pub indexed: bool,
}

/// A symbol that calls or references a changed one (or, deeper, an impacted one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ImpactedSymbol {
    /// The symbol, or for file-level code the file (`handle` = its path, no `symbol`).
    pub handle: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<SymbolInfo>,
    /// 1: uses a changed symbol directly.
    pub depth: u32,
    /// The changed (or nearer impacted) symbols it uses.
    pub uses: Vec<String>,
    /// Whether one of those uses is a call.
    pub calls: bool,
    pub site_count: u64,
    /// The sites (in the compact format, the first few).
    pub sites: Vec<Site>,
}

/// A file whose dependents are counted: a `files` target, or a changed file of the range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ImpactTarget {
    pub target: String,
    /// Files that depend on it within `depth` (inside `focus`, when given).
    pub dependent_count: u64,
    pub dependents: Vec<Dependent>,
}

/// The threshold's verdict (the seed's shape: `snake_case` fields).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Gate {
    pub fail_on: u32,
    /// Whether any target reached `fail_on`.
    pub crossed: bool,
    /// What the CLI exits with: 2 crossed, 0 held.
    pub exit_code: u32,
    pub violations: Vec<GateViolation>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GateViolation {
    pub target: String,
    pub dependent_count: u64,
}

/// Something the analysis could not do, or found broken.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ImpactDiagnostic {
    /// `notIndexed`, `unreadable`, `removedStillReferenced`, `unresolvedSameName`, `worktreeDiffers`.
    pub kind: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub sites: Vec<Site>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ImpactResponse {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<ImpactRange>,
    pub format: String,
    pub depth: u32,
    pub changed_files: Vec<ChangedFileInfo>,
    pub changed: Vec<ChangedSymbol>,
    pub impacted: Vec<ImpactedSymbol>,
    /// Widest first.
    pub targets: Vec<ImpactTarget>,
    /// Every dependent of the targets, nearest first.
    pub impacted_files: Vec<Dependent>,
    pub candidate_tests: Vec<CandidateTest>,
    pub diagnostics: Vec<ImpactDiagnostic>,
    /// `null` when no `fail_on` was given.
    pub gate: Option<Gate>,
    /// False when a changed source file could not be analysed (the answer may miss impact).
    pub complete: bool,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

pub(crate) fn impact(ctx: &Ctx, req: ImpactRequest) -> Result<ImpactResponse, Error> {
    let limit = bounded(req.limit, IMPACT_LIMIT_DEFAULT, IMPACT_LIMIT_CAP, "limit")?;
    let depth = bounded(req.depth, IMPACT_DEPTH_DEFAULT, IMPACT_DEPTH_CAP, "depth")? as u32;
    let full = match req.format.as_deref() {
        None | Some("compact") => false,
        Some("full") => true,
        Some(other) => return Err(Error::InvalidArgument(format!("`format` is compact or full (got {other:?})"))),
    };
    let analysis = match (&req.base, req.files.is_empty()) {
        (Some(base), true) => Analysis::of_range(ctx, base, req.head.as_deref(), depth)?,
        (None, false) if req.head.is_none() => Analysis::of_files(ctx.index(), &req.files, depth)?,
        (None, true) if req.head.is_none() => {
            return Err(Error::InvalidArgument("give `base` (and optionally `head`) or `files`".into()))
        }
        _ => return Err(Error::InvalidArgument("give either a range (`base`, `head`) or `files`, not both".into())),
    };
    Ok(analysis.answer(ctx, &req.focus, req.fail_on, full, limit))
}

/// What an analysis found, before focus and limits shape the answer.
pub(crate) struct Analysis {
    pub range: Option<ImpactRange>,
    pub depth: u32,
    pub files: Vec<ChangedFile>,
    pub changed: Vec<(DeclChange, Option<SymId>)>,
    /// Target files (indexed) whose dependents are counted.
    pub targets: Vec<FileId>,
    /// Impacted symbol or file-level code → (depth, used symbols, call?, sites).
    pub impacted: BTreeMap<Holder, Impacted>,
    pub diagnostics: Vec<ImpactDiagnostic>,
    pub complete: bool,
}

/// What holds an impacted site: a symbol, or a file's top-level code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Holder {
    Sym(SymId),
    File(FileId),
}

#[derive(Default)]
pub(crate) struct Impacted {
    pub depth: u32,
    pub uses: BTreeSet<SymId>,
    pub calls: bool,
    pub sites: Vec<(FileId, crate::facts::Pos)>,
}

impl Analysis {
    /// The impact of a git range on the index (which describes the working tree).
    pub fn of_range(ctx: &Ctx, base: &str, head: Option<&str>, depth: u32) -> Result<Analysis, Error> {
        let index = ctx.index();
        let range = Range::parse(ctx.host, base, head)?;
        let mut files = changes::changed_files(ctx.host, &range, ctx.options.file_cap())?;
        // An indexed file is read in the index's language (a `.h` is C++ in a repository with C++).
        for f in &mut files {
            if let Some(&id) = index.by_path.get(&f.path) {
                f.language = Some(index.files[id as usize].language);
            }
        }
        let mut diagnostics = Vec::new();
        let mut complete = true;
        let mut changed = Vec::new();
        let mut targets = Vec::new();
        // Both versions of every changed file parsed, in parallel where the build has threads.
        let per_file: Vec<Vec<DeclChange>> =
            crate::map_maybe_parallel(files.iter().collect(), changes::declaration_changes);
        for (f, decls) in files.iter().zip(per_file) {
            if let Some(why) = &f.unreadable {
                complete = false;
                diagnostics.push(diagnostic("unreadable", format!("not analysed: {why}"), Some(&f.path), None));
                continue;
            }
            if f.language.is_none() {
                continue;
            }
            match index.by_path.get(&f.path) {
                Some(&id) => targets.push(id),
                None if f.status != FileStatus::Deleted => {
                    complete = false;
                    diagnostics.push(diagnostic(
                        "notIndexed",
                        format!(
                            "{} is not in the index (skipped, ignored or changed since); its uses are not followed",
                            f.path
                        ),
                        Some(&f.path),
                        None,
                    ));
                }
                None => {}
            }
            for c in decls {
                let id = (c.change != ChangeKind::Removed)
                    .then(|| index.find_handle(&format!("{}::{}", c.path, c.qualified)))
                    .flatten();
                changed.push((c, id));
            }
        }
        if range.head != changes::Side::Worktree {
            let differ = worktree_differs(ctx.host, &range.head)?;
            if differ > 0 {
                diagnostics.push(diagnostic(
                    "worktreeDiffers",
                    format!("the working tree differs from `head` in {differ} files: callers and references are those of the working tree"),
                    None,
                    None,
                ));
            }
        }
        let roots: Vec<SymId> =
            changed.iter().filter(|(c, _)| c.change != ChangeKind::Added).filter_map(|(_, id)| *id).collect();
        let impacted = impacted_symbols(index, &roots, depth);
        for (c, _) in changed.iter().filter(|(c, _)| c.change == ChangeKind::Removed) {
            // Moved to another declaration of the same name in the same file: not gone.
            if changed.iter().any(|(d, _)| d.change == ChangeKind::Added && d.qualified == c.qualified) {
                continue;
            }
            diagnostics.extend(still_used(index, &c.path, c, None));
        }
        for (c, _) in changed.iter().filter(|(c, _)| c.change == ChangeKind::Moved) {
            let old = c.old_path.as_deref().expect("a moved declaration has its old path");
            diagnostics.extend(still_used(index, old, c, Some(&c.path)));
        }
        for (c, id) in &changed {
            if let (Some(n), Some(_)) = (index.unresolved_calls_named(&c.name), id) {
                if c.kind.is_callable() && matches!(c.change, ChangeKind::ModifiedSignature | ChangeKind::Removed) {
                    diagnostics.push(diagnostic(
                        "unresolvedSameName",
                        format!(
                            "{n} calls of a `{}` could not be proven to target any declaration; check them by hand",
                            c.name
                        ),
                        None,
                        Some(&format!("{}::{}", c.path, c.qualified)),
                    ));
                }
            }
        }
        Ok(Analysis {
            range: Some(ImpactRange { base: base.to_string(), head: head.unwrap_or(changes::WORKTREE).to_string() }),
            depth,
            files,
            changed,
            targets,
            impacted,
            diagnostics,
            complete,
        })
    }

    /// The dependents of some files.
    pub fn of_files(index: &Index, files: &[String], depth: u32) -> Result<Analysis, Error> {
        let mut targets = Vec::new();
        for f in files {
            let id = index.file_id(&clean_path(f))?;
            if !targets.contains(&id) {
                targets.push(id);
            }
        }
        Ok(Analysis {
            range: None,
            depth,
            files: Vec::new(),
            changed: Vec::new(),
            targets,
            impacted: BTreeMap::new(),
            diagnostics: Vec::new(),
            complete: true,
        })
    }

    /// Whether a path is inside one of the focus paths (all are, without focus).
    fn focused(focus: &[String], path: &str) -> bool {
        focus.is_empty()
            || focus.iter().any(|f| {
                let f = clean_path(f);
                let f = f.trim_end_matches('/');
                f.is_empty() || f == "." || path == f || path.starts_with(&format!("{f}/"))
            })
    }

    /// The answer: focus applied, lists bounded.
    pub fn answer(
        &self,
        ctx: &Ctx,
        focus: &[String],
        fail_on: Option<u32>,
        full: bool,
        limit: usize,
    ) -> ImpactResponse {
        let index = ctx.index();
        let mut omitted = Omitted::default();
        let path_of = |f: FileId| index.files[f as usize].path.clone();
        let mut targets: Vec<ImpactTarget> = self
            .targets
            .iter()
            .map(|&t| {
                let dependents: Vec<Dependent> = walks::dependents(index, &[t], self.depth)
                    .into_iter()
                    .filter(|&(_, f)| Self::focused(focus, &index.files[f as usize].path))
                    .map(|(distance, f)| Dependent { path: path_of(f), distance })
                    .collect();
                ImpactTarget { target: path_of(t), dependent_count: dependents.len() as u64, dependents }
            })
            .collect();
        targets.sort_by(|a, b| b.dependent_count.cmp(&a.dependent_count).then_with(|| a.target.cmp(&b.target)));
        let gate = fail_on.map(|n| {
            let violations: Vec<GateViolation> = targets
                .iter()
                .filter(|t| t.dependent_count >= u64::from(n))
                .map(|t| GateViolation { target: t.target.clone(), dependent_count: t.dependent_count })
                .collect();
            let crossed = !violations.is_empty();
            Gate { fail_on: n, crossed, exit_code: if crossed { 2 } else { 0 }, violations }
        });
        let near: Vec<(u32, FileId)> = walks::dependents(index, &self.targets, self.depth)
            .into_iter()
            .filter(|&(_, f)| Self::focused(focus, &index.files[f as usize].path))
            .collect();
        let impacted_files: Vec<Dependent> =
            near.iter().map(|&(distance, f)| Dependent { path: path_of(f), distance }).collect();
        let mut impacted: Vec<ImpactedSymbol> = self
            .impacted
            .iter()
            .filter(|(holder, _)| {
                let file = match holder {
                    Holder::Sym(s) => index.file_of(*s),
                    Holder::File(f) => *f,
                };
                Self::focused(focus, &index.files[file as usize].path)
            })
            .map(|(holder, i)| {
                let (handle, symbol) = match *holder {
                    Holder::Sym(s) => (index.handle(s), Some(SymbolInfo::of(index, s))),
                    Holder::File(f) => (path_of(f), None),
                };
                let mut sites: Vec<Site> = i
                    .sites
                    .iter()
                    .map(|&(f, pos)| Site { path: path_of(f), line: pos.line, column: pos.col })
                    .collect();
                sites.sort();
                sites.dedup();
                let site_count = sites.len() as u64;
                if !full {
                    sites.truncate(COMPACT_SITES);
                }
                ImpactedSymbol {
                    handle,
                    symbol,
                    depth: i.depth,
                    uses: i.uses.iter().map(|&u| index.handle(u)).collect(),
                    calls: i.calls,
                    site_count,
                    sites,
                }
            })
            .collect();
        impacted.sort_by(|a, b| (a.depth, &a.handle).cmp(&(b.depth, &b.handle)));
        let tested: Vec<SymId> = self
            .changed
            .iter()
            .filter_map(|(_, id)| *id)
            .chain(self.impacted.keys().filter_map(|h| match h {
                Holder::Sym(s) => Some(*s),
                Holder::File(_) => None,
            }))
            .collect();
        let tests: Vec<CandidateTest> = walks::candidate_tests(index, &self.targets, &tested, &near)
            .into_iter()
            .map(|(f, reason)| CandidateTest { path: path_of(f), reason })
            .collect();
        let changed: Vec<ChangedSymbol> = self.changed.iter().map(|(c, id)| changed_symbol(c, *id)).collect();
        let changed_files = self
            .files
            .iter()
            .map(|f| ChangedFileInfo {
                path: f.path.clone(),
                old_path: f.old_path.clone(),
                status: f.status.as_str().into(),
                language: f.language.map(|l| l.name().to_string()),
                changed_symbols: self
                    .changed
                    .iter()
                    .filter(|(c, _)| c.path == f.path || f.old_path.as_deref() == Some(c.path.as_str()))
                    .count() as u32,
            })
            .collect();
        for t in &mut targets {
            if !full {
                let name = format!("dependents of {}", t.target);
                t.dependents = omitted.cut(std::mem::take(&mut t.dependents), limit, &name);
            }
        }
        ImpactResponse {
            range: self.range.clone(),
            format: if full { "full" } else { "compact" }.into(),
            depth: self.depth,
            changed_files: omitted.cut(changed_files, limit, "changedFiles"),
            changed: omitted.cut(changed, limit, "changed"),
            impacted: omitted.cut(impacted, limit, "impacted"),
            targets: omitted.cut(targets, limit, "targets"),
            impacted_files: omitted.cut(impacted_files, limit, "impactedFiles"),
            candidate_tests: omitted.cut(tests, limit, "candidateTests"),
            diagnostics: omitted.cut(self.diagnostics.clone(), limit, "diagnostics"),
            gate,
            complete: self.complete,
            omitted,
            freshness: ctx.freshness(),
        }
    }
}

fn changed_symbol(c: &DeclChange, id: Option<SymId>) -> ChangedSymbol {
    ChangedSymbol {
        handle: format!("{}::{}", c.path, c.qualified),
        name: c.name.clone(),
        kind: c.kind.as_str().into(),
        path: c.path.clone(),
        line: c.line,
        change: c.change.as_str().into(),
        exported: c.exported,
        signature: c.signature.clone(),
        old_signature: c.old_signature.clone(),
        old_handle: c.old_path.as_ref().map(|p| format!("{p}::{}", c.qualified)),
        indexed: id.is_some(),
    }
}

fn diagnostic(kind: &str, message: String, path: Option<&str>, handle: Option<&str>) -> ImpactDiagnostic {
    ImpactDiagnostic {
        kind: kind.into(),
        message,
        path: path.map(str::to_string),
        handle: handle.map(str::to_string),
        sites: Vec::new(),
    }
}

/// The symbols (or file-level code) that use `roots`, to `depth`: level 1 uses a root, level 2
/// uses a level-1 symbol, … Each holder once, at its nearest level; roots are not impacted, and
/// import statements are not uses.
pub(crate) fn impacted_symbols(index: &Index, roots: &[SymId], depth: u32) -> BTreeMap<Holder, Impacted> {
    let mut out: BTreeMap<Holder, Impacted> = BTreeMap::new();
    let root_set: BTreeSet<SymId> = roots.iter().copied().collect();
    let mut seen = root_set.clone();
    let mut frontier: Vec<SymId> = roots.to_vec();
    for level in 1..=depth {
        let mut next = Vec::new();
        for &current in &frontier {
            // An import only binds the name: the uses after it are the impact (its file is a dependent).
            for r in index.sites_of(current).iter().filter(|r| !r.import) {
                let holder = match r.enclosing {
                    Some(e) if root_set.contains(&e) => continue,
                    Some(e) => Holder::Sym(e),
                    None => Holder::File(r.file),
                };
                let entry = out.entry(holder).or_insert_with(|| Impacted { depth: level, ..Impacted::default() });
                if entry.depth == level {
                    entry.uses.insert(current);
                    entry.calls |= r.call;
                    entry.sites.push((r.file, r.pos));
                }
                if let Holder::Sym(s) = holder {
                    if seen.insert(s) {
                        next.push(s);
                    }
                }
            }
        }
        frontier = next;
    }
    out
}

/// How many files the working tree differs from `head` in (tracked changes and untracked files).
fn worktree_differs(host: &dyn crate::host::Host, head: &changes::Side) -> Result<usize, Error> {
    let git = |args: &[&str]| -> Result<usize, Error> {
        let out = crate::git::run(host, args).map_err(|e| Error::InvalidArgument(format!("git: {}", e.trim())))?;
        Ok(out.split('\0').filter(|p| !p.is_empty()).count())
    };
    let tracked = match head {
        changes::Side::Rev(rev) => {
            git(&["diff", "-z", "--name-only", "--no-ext-diff", "--no-textconv", "--relative", rev, "--"])?
        }
        _ => git(&["diff", "-z", "--name-only", "--no-ext-diff", "--no-textconv", "--relative", "--"])?,
    };
    Ok(tracked + git(&["ls-files", "-z", "--others", "--exclude-standard"])?)
}

/// A removed declaration that is still used: an import of it by name, or an unproven use of its
/// name, in its own file (if it still exists) or in a file that imports that file or names it in
/// an import. Nothing resolves to it any more (it is gone), so these are the sites that break.
/// A moved declaration (`moved_to`) is gone from its old path in the same way.
fn still_used(index: &Index, path: &str, c: &DeclChange, moved_to: Option<&str>) -> Vec<ImpactDiagnostic> {
    let own = index.by_path.get(path).copied();
    let top_level = !c.qualified.contains("::");
    let stem = module_stem(path);
    let mut sites: Vec<Site> = Vec::new();
    for (fid, file) in index.files.iter().enumerate() {
        let fid = fid as FileId;
        let near = Some(fid) == own || own.is_some_and(|o| index.file_edges().imports[fid as usize].contains(&o));
        // A member is used only where its type can be seen: its file and the files importing it.
        if !top_level && !near {
            continue;
        }
        // Each file's facts are looked at once and not kept, and decoded only when their bytes hold
        // the name (every use writes it) and, away from the declaration's file and importers,
        // the module's (an import of it, or a path through it).
        let words: &[&str] = if near { &[&c.name] } else { &[&c.name, stem] };
        let Some(facts) = file.facts.passing_holding(words) else { continue };
        let from_it: Vec<&crate::facts::Import> =
            facts.imports.iter().filter(|i| module_names(&i.module, stem)).collect();
        // The name alone means the declaration only where the module can be in scope.
        let bare = near || !from_it.is_empty();
        // Names the module is bound to here (`import * as util`, Go's `util.` package name).
        let aliases: BTreeSet<&str> =
            from_it.iter().flat_map(|i| &i.items).filter(|it| it.name != c.name).map(|it| it.alias.as_str()).collect();
        let mut uses: Vec<crate::facts::Pos> = Vec::new();
        if top_level {
            uses.extend(from_it.iter().flat_map(|i| &i.items).filter(|it| it.name == c.name).map(|it| it.pos));
        }
        for chain in &facts.refs {
            let seg = &chain.segments;
            let hit = if top_level {
                match seg.as_slice() {
                    [(first, pos), ..] if *first == c.name && chain.receiver.is_none() && bare => Some(*pos),
                    // Through the module: by a name it is bound to (`util.helper`), or along a
                    // path that names it, where the module is in scope (`pkg.util.helper`) or the
                    // path starts from a crate or module (`crate::runtime::context::helper`).
                    _ => {
                        let through = |m: &str| aliases.contains(m) || (m == stem && (bare || chain.path_head));
                        seg.windows(2).find(|w| w[1].0 == c.name && through(&w[0].0)).map(|w| w[1].1)
                    }
                }
            } else {
                // A member: an unproven `x.name` in a file that sees its type.
                seg.iter().skip(1).find(|(n, _)| *n == c.name).filter(|_| near).map(|(_, p)| *p)
            };
            uses.extend(hit);
        }
        if uses.is_empty() {
            continue;
        }
        // The sites proven there, read only for a file that uses the name.
        let resolved: BTreeSet<crate::facts::Pos> = index.sites_in_file(fid).into_iter().map(|r| r.pos).collect();
        sites.extend(uses.into_iter().filter(|p| !resolved.contains(p)).map(|p| Site {
            path: file.path.clone(),
            line: p.line,
            column: p.col,
        }));
    }
    sites.sort();
    sites.dedup();
    if sites.is_empty() {
        return Vec::new();
    }
    let handle = format!("{path}::{}", c.qualified);
    let what = match moved_to {
        Some(to) => format!("moved to {to}"),
        None => "removed".to_string(),
    };
    vec![ImpactDiagnostic {
        kind: "removedStillReferenced".into(),
        message: format!("`{handle}` was {what} but {} sites still use it there: they break", sites.len()),
        path: Some(path.to_string()),
        handle: Some(handle),
        sites,
    }]
}

/// Whether an import's module text can name a file of this stem (`module_stem`): it is the
/// module's last segment (`./util`, `pkg.util`, `crate::util`).
fn module_names(module: &str, stem: &str) -> bool {
    module.rsplit(['/', '.', ':']).find(|s| !s.is_empty()).is_some_and(|last| last == stem)
}

/// The name a module's file is imported by (`module_names`): its stem, or its folder's for an
/// `index`, `__init__`, `mod` or `lib` file.
fn module_stem(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = file.split('.').next().unwrap_or(file);
    if matches!(stem, "index" | "__init__" | "mod" | "lib") {
        path.rsplit('/').nth(1).unwrap_or(stem)
    } else {
        stem
    }
}
