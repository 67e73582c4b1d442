//! Review of a git range: the impact analysis (`impact.rs`) read as risk. `riskSummary` scores the
//! change from the reasons that produced the score — a removed declaration still used, a changed
//! signature with callers outside the change, changed public API, changed code no test
//! references, security-sensitive names — and is `unknown`, never `low`, when the analysis was
//! incomplete. `reviewTasks` turn the same findings into ordered checks with their targets and
//! sites.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::impact::{Analysis, Holder, COMPACT_SITES};
use super::{bounded, CandidateTest, Ctx, Error, Freshness, ImpactRange, Omitted, Site};
use crate::changes::ChangeKind;
use crate::index::walks;
use crate::paths::is_test_path;

pub const REVIEW_LIMIT_DEFAULT: u32 = 20;
pub const REVIEW_LIMIT_CAP: u32 = 200;

/// Identifier tokens that touch authentication, secrets, cryptography, queries, processes or
/// paths: a token that starts with one of `SENSITIVE_STEMS` (`authenticate`, `passwords`,
/// `decrypt` through `crypt` anywhere) or is one of `SENSITIVE_WORDS` (`sign`, not `signal`).
const SENSITIVE_STEMS: [&str; 14] = [
    "auth",
    "passw",
    "credential",
    "secret",
    "token",
    "cipher",
    "sql",
    "exec",
    "spawn",
    "shell",
    "sanitiz",
    "permission",
    "privilege",
    "login",
];
const SENSITIVE_WORDS: [&str; 9] = ["sign", "hash", "path", "query", "eval", "command", "cmd", "session", "sudo"];

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReviewRequest {
    /// The older side: a git ref or `STAGED` (then `head` is `WORKTREE`).
    pub base: String,
    /// The newer side: a git ref, `STAGED` or `WORKTREE` (default).
    pub head: Option<String>,
    /// `minimal` (direct users), `standard` (default: two levels) or `deep` (three).
    pub review_depth: Option<String>,
    /// Maximum tasks and targets per task (default 20, cap 200).
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RiskReason {
    /// `removedStillReferenced`, `signatureWithCallers`, `publicApi`, `untested`, `sensitive`, `incomplete`.
    pub code: String,
    pub message: String,
    /// What it adds to the score.
    pub weight: f64,
    pub handles: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RiskSummary {
    /// `low`, `medium`, `high`, or `unknown` when the analysis was incomplete.
    pub level: String,
    /// 0–1: the reasons' weights, summed and capped.
    pub score: f64,
    pub reasons: Vec<RiskReason>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReviewTask {
    /// 1 first.
    pub priority: u32,
    /// What to check.
    pub check: String,
    pub targets: Vec<String>,
    pub sites: Vec<Site>,
    pub why: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReviewResponse {
    pub range: ImpactRange,
    pub review_depth: String,
    pub risk_summary: RiskSummary,
    pub review_tasks: Vec<ReviewTask>,
    pub candidate_tests: Vec<CandidateTest>,
    /// Declarations changed, by kind of change.
    pub changed_counts: std::collections::BTreeMap<String, u64>,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

pub(crate) fn review(ctx: &Ctx, req: ReviewRequest) -> Result<ReviewResponse, Error> {
    let limit = bounded(req.limit, REVIEW_LIMIT_DEFAULT, REVIEW_LIMIT_CAP, "limit")?;
    let (review_depth, depth) = match req.review_depth.as_deref() {
        Some("minimal") => ("minimal", 1),
        None | Some("standard") => ("standard", 2),
        Some("deep") => ("deep", 3),
        Some(other) => {
            return Err(Error::InvalidArgument(format!("`reviewDepth` is minimal, standard or deep (got {other:?})")))
        }
    };
    let index = ctx.index();
    let a = Analysis::of_range(ctx, &req.base, req.head.as_deref(), depth)?;
    let handle_of = |c: &crate::changes::DeclChange| format!("{}::{}", c.path, c.qualified);
    let changed_ids: BTreeSet<u32> = a.changed.iter().filter_map(|(_, id)| *id).collect();
    let changed_paths: BTreeSet<&str> = a.files.iter().map(|f| f.path.as_str()).collect();
    let mut reasons: Vec<RiskReason> = Vec::new();
    let mut tasks: Vec<(u32, ReviewTask)> = Vec::new();
    let mut reason = |code: &str, weight: f64, message: String, handles: Vec<String>| {
        reasons.push(RiskReason { code: code.into(), message, weight, handles });
    };

    // A removed declaration still used: the change breaks those sites.
    let breaks: Vec<_> = a.diagnostics.iter().filter(|d| d.kind == "removedStillReferenced").collect();
    if !breaks.is_empty() {
        let handles = breaks.iter().filter_map(|d| d.handle.clone()).collect();
        let n: usize = breaks.iter().map(|d| d.sites.len()).sum();
        reason(
            "removedStillReferenced",
            0.5,
            format!("{} removed declarations are still used at {n} sites", breaks.len()),
            handles,
        );
        for d in &breaks {
            tasks.push((
                1,
                ReviewTask {
                    priority: 0,
                    check: format!(
                        "restore `{}` or update the sites that still use it",
                        d.handle.clone().unwrap_or_default()
                    ),
                    targets: d.handle.clone().into_iter().collect(),
                    sites: d.sites.iter().take(limit).cloned().collect(),
                    why: d.message.clone(),
                },
            ));
        }
    }

    // Changed signatures with callers outside the change.
    let mut outside_total = 0usize;
    let mut with_callers = Vec::new();
    for (c, id) in &a.changed {
        let Some(id) = id.filter(|_| c.change == ChangeKind::ModifiedSignature) else { continue };
        let outside: Vec<Site> = index
            .sites_of(id)
            .iter()
            .filter(|r| !r.import && !changed_paths.contains(index.files[r.file as usize].path.as_str()))
            .map(|r| Site::of(index, r))
            .collect();
        if outside.is_empty() {
            continue;
        }
        outside_total += outside.len();
        with_callers.push(handle_of(c));
        tasks.push((
            2,
            ReviewTask {
                priority: 0,
                check: format!("check that each use of `{}` fits its new signature `{}`", handle_of(c), c.signature),
                targets: vec![handle_of(c)],
                sites: outside.into_iter().take(limit).collect(),
                why: format!(
                    "its signature changed (was `{}`) and it is used outside the change",
                    c.old_signature.clone().unwrap_or_default()
                ),
            },
        ));
    }
    if !with_callers.is_empty() {
        let weight = (0.15 + 0.02 * outside_total as f64).min(0.4);
        reason(
            "signatureWithCallers",
            weight,
            format!("{} changed signatures with {outside_total} uses outside the change", with_callers.len()),
            with_callers,
        );
    }

    // Public API: exported declarations whose signature changed, or that were removed or moved.
    let api: Vec<String> = a
        .changed
        .iter()
        .filter(|(c, _)| {
            c.exported && matches!(c.change, ChangeKind::ModifiedSignature | ChangeKind::Removed | ChangeKind::Moved)
        })
        .map(|(c, _)| handle_of(c))
        .collect();
    if !api.is_empty() {
        reason(
            "publicApi",
            0.2,
            format!("{} exported declarations changed their signature, moved or were removed", api.len()),
            api.clone(),
        );
        tasks.push((
            3,
            ReviewTask {
                priority: 0,
                check: "check the changed public API against its users outside this repository (changelog, version)"
                    .into(),
                targets: api.into_iter().take(limit).collect(),
                sites: Vec::new(),
                why: "exported declarations are used where the index can't see".into(),
            },
        ));
    }

    // Security-sensitive names among the changed and directly impacted declarations.
    let sensitive: Vec<String> = a
        .changed
        .iter()
        .filter(|(c, _)| c.change != ChangeKind::Removed && sensitive_name(&c.name))
        .map(|(c, _)| handle_of(c))
        .collect();
    if !sensitive.is_empty() {
        reason(
            "sensitive",
            0.2,
            format!(
                "{} changed declarations handle authentication, secrets, crypto, queries, processes or paths",
                sensitive.len()
            ),
            sensitive.clone(),
        );
        tasks.push((
            2,
            ReviewTask {
                priority: 0,
                check: "review the security-sensitive changes line by line (input checks, escaping, permissions)"
                    .into(),
                targets: sensitive.into_iter().take(limit).collect(),
                sites: Vec::new(),
                why: "their names say they touch authentication, secrets, crypto, SQL, processes or paths".into(),
            },
        ));
    }

    // Changed code that no test references (tests themselves excluded).
    let near: Vec<(u32, u32)> = walks::dependents(index, &a.targets, 1);
    let mut untested = Vec::new();
    for (c, id) in &a.changed {
        let Some(id) = id else { continue };
        if c.change == ChangeKind::Removed || is_test_path(&c.path) || !c.kind.is_callable() {
            continue;
        }
        let tested = index.sites_of(*id).iter().any(|r| is_test_path(&index.files[r.file as usize].path))
            || a.impacted.iter().any(|(h, i)| {
                i.uses.contains(id)
                    && matches!(h, Holder::Sym(s) if is_test_path(&index.files[index.file_of(*s) as usize].path))
            });
        if !tested {
            untested.push(handle_of(c));
        }
    }
    if !untested.is_empty() {
        let weight = (0.1 + 0.02 * untested.len() as f64).min(0.25);
        reason(
            "untested",
            weight,
            format!("{} changed functions are referenced by no test", untested.len()),
            untested.clone(),
        );
        tasks.push((
            4,
            ReviewTask {
                priority: 0,
                check: "add or point to tests for the changed functions no test references".into(),
                targets: untested.into_iter().take(limit).collect(),
                sites: Vec::new(),
                why: "no test file uses them, directly or through their callers".into(),
            },
        ));
    }

    // Impacted callers to look at (beyond the signature checks above).
    let mut callers: Vec<(u32, String, Vec<Site>)> = a
        .impacted
        .iter()
        .filter_map(|(h, i)| match h {
            Holder::Sym(s) if !changed_ids.contains(s) => Some((
                i.depth,
                index.handle(*s),
                i.sites
                    .iter()
                    .take(COMPACT_SITES)
                    .map(|&(f, p)| Site { path: index.files[f as usize].path.clone(), line: p.line, column: p.col })
                    .collect(),
            )),
            _ => None,
        })
        .collect();
    callers.sort();
    if !callers.is_empty() {
        tasks.push((
            5,
            ReviewTask {
                priority: 0,
                check: "read the callers and referrers of the changed code: does each still get what it expects?"
                    .into(),
                targets: callers.iter().take(limit).map(|(_, h, _)| h.clone()).collect(),
                sites: callers.iter().take(limit).flat_map(|(_, _, s)| s.clone()).take(limit).collect(),
                why: format!("{} symbols use the changed code (to {review_depth} depth)", callers.len()),
            },
        ));
    }

    if !a.complete {
        let paths: Vec<String> = a
            .diagnostics
            .iter()
            .filter(|d| matches!(d.kind.as_str(), "unreadable" | "notIndexed"))
            .filter_map(|d| d.path.clone())
            .collect();
        reason(
            "incomplete",
            0.0,
            format!("{} changed files could not be analysed: the risk is unknown", paths.len()),
            paths,
        );
    }

    let score = reasons.iter().map(|r| r.weight).sum::<f64>().min(1.0);
    let score = (score * 100.0).round() / 100.0;
    let level = if !a.complete {
        "unknown"
    } else if score >= 0.5 {
        "high"
    } else if score >= 0.2 {
        "medium"
    } else {
        "low"
    };
    let tests: Vec<CandidateTest> = {
        let syms: Vec<u32> = changed_ids
            .iter()
            .copied()
            .chain(a.impacted.keys().filter_map(|h| match h {
                Holder::Sym(s) => Some(*s),
                Holder::File(_) => None,
            }))
            .collect();
        walks::candidate_tests(index, &a.targets, &syms, &near)
            .into_iter()
            .map(|(f, reason)| CandidateTest { path: index.files[f as usize].path.clone(), reason })
            .collect()
    };
    if !tests.is_empty() {
        tasks.push((
            6,
            ReviewTask {
                priority: 0,
                check: "run the candidate tests".into(),
                targets: tests.iter().take(limit).map(|t| t.path.clone()).collect(),
                sites: Vec::new(),
                why: "they use the changed or impacted code, or import its files".into(),
            },
        ));
    }
    tasks.sort_by_key(|(p, _)| *p);
    let mut omitted = Omitted::default();
    let review_tasks: Vec<ReviewTask> = tasks
        .into_iter()
        .enumerate()
        .map(|(i, (_, mut t))| {
            t.priority = i as u32 + 1;
            t
        })
        .collect();
    let mut changed_counts = std::collections::BTreeMap::new();
    for (c, _) in &a.changed {
        *changed_counts.entry(c.change.as_str().to_string()).or_insert(0u64) += 1;
    }
    Ok(ReviewResponse {
        range: a.range.clone().expect("a range analysis"),
        review_depth: review_depth.into(),
        risk_summary: RiskSummary { level: level.into(), score, reasons },
        review_tasks: omitted.cut(review_tasks, limit, "reviewTasks"),
        candidate_tests: omitted.cut(tests, limit, "candidateTests"),
        changed_counts,
        omitted,
        freshness: ctx.freshness(),
    })
}

/// Whether a name's identifier tokens include a security-sensitive one (`hash_password`,
/// `runQuery`, `exec`), not merely its letters (`assignment` is not `sign`).
fn sensitive_name(name: &str) -> bool {
    crate::text::identifier_tokens(name).iter().any(|t| {
        t.contains("crypt") || SENSITIVE_STEMS.iter().any(|s| t.starts_with(s)) || SENSITIVE_WORDS.contains(&t.as_str())
    })
}
