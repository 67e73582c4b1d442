//! `refactor_plan`: one evidence packet for changing a declaration, composed from one index
//! snapshot — its references, direct callers and callees, supertypes and subtypes,
//! implementations, candidate tests, and with `renameTo` the rename preview, whose `safe` is the
//! authoritative answer. A section that can't be answered for this declaration (callers of a type,
//! supertypes of a function) says so in `sectionIssues` and adds an omission; every section has
//! its own bound, 0 asking only for the count.

use serde::{Deserialize, Serialize};

use super::{
    calls, hierarchy, navigate, rename, CallGroup, CallsRequest, CandidateTest, Ctx, Error, FollowUp, Freshness,
    HierarchyEntry, HierarchyRequest, ImplementationsRequest, Omitted, ReferenceSite, RefsRequest,
    RenamePreviewRequest, RenamePreviewResponse, SymbolInfo,
};
use crate::index::walks;

pub const REFACTOR_SECTION_DEFAULT: u32 = 50;
pub const REFACTOR_SECTION_CAP: u32 = 500;
/// Source lines of the declaration shown with `includeSource`.
const SOURCE_LINES: usize = 80;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RefactorPlanRequest {
    pub handle: String,
    /// Preview this rename too (its `safe` is authoritative).
    pub rename_to: Option<String>,
    /// References listed (0–500, default 50; 0: counted only).
    pub max_references: Option<u32>,
    /// Callers and callees listed, each (0–500, default 50).
    pub max_callers: Option<u32>,
    /// Supertypes, subtypes and implementations listed, each (0–500, default 50).
    pub max_hierarchy: Option<u32>,
    /// Include the declaration's source (first 80 lines).
    pub include_source: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SectionIssue {
    pub section: String,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RefactorPlanResponse {
    pub symbol: SymbolInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub references: Vec<ReferenceSite>,
    pub reference_count: u64,
    pub callers: Vec<CallGroup>,
    pub callees: Vec<CallGroup>,
    pub supertypes: Vec<HierarchyEntry>,
    pub subtypes: Vec<HierarchyEntry>,
    pub implementations: Vec<HierarchyEntry>,
    pub candidate_tests: Vec<CandidateTest>,
    pub section_issues: Vec<SectionIssue>,
    pub follow_ups: Vec<FollowUp>,
    /// With `renameTo`: the rename preview; its `safe` is the answer to "can I rename it".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rename: Option<RenamePreviewResponse>,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

/// The first `limit` of a section's `total` entries, the rest counted as omitted.
fn listed<T>(list: Vec<T>, total: u64, limit: u32, name: &str, omitted: &mut Omitted) -> Vec<T> {
    let list: Vec<T> = list.into_iter().take(limit as usize).collect();
    if total > list.len() as u64 {
        omitted.by_limit.insert(name.to_string(), total - list.len() as u64);
    }
    list
}

/// A section's bound: 0 lists nothing (the section is counted), else 1–500.
fn section_limit(value: Option<u32>, field: &str) -> Result<u32, Error> {
    match value {
        None => Ok(REFACTOR_SECTION_DEFAULT),
        Some(v) if v > REFACTOR_SECTION_CAP => {
            Err(Error::InvalidArgument(format!("`{field}` is at most {REFACTOR_SECTION_CAP} (got {v})")))
        }
        Some(v) => Ok(v),
    }
}

pub(crate) fn refactor_plan(ctx: &Ctx, req: RefactorPlanRequest) -> Result<RefactorPlanResponse, Error> {
    let max_refs = section_limit(req.max_references, "maxReferences")?;
    let max_calls = section_limit(req.max_callers, "maxCallers")?;
    let max_hier = section_limit(req.max_hierarchy, "maxHierarchy")?;
    let index = ctx.index();
    let id = index.handle_id(&req.handle)?;
    let sym = index.symbol(id);
    let handle = index.handle(id);
    let mut issues = Vec::new();
    let mut omitted = Omitted::default();
    let mut issue = |section: &str, message: String, omitted: &mut Omitted| {
        omitted.other.insert(format!("{section}Unavailable"), 1);
        issues.push(SectionIssue { section: section.into(), message });
    };

    // References: the count always, the list up to its bound.
    let refs = navigate::refs(
        ctx,
        RefsRequest { handle: Some(handle.clone()), limit: Some(max_refs.max(1)), ..Default::default() },
    )?;
    let reference_count = refs.total;
    let references = listed(refs.refs, refs.total, max_refs, "references", &mut omitted);

    let (mut callers, mut callees) = (Vec::new(), Vec::new());
    if sym.kind.is_callable() {
        let ask = |f: fn(&Ctx, CallsRequest) -> Result<super::CallsResponse, Error>| {
            f(ctx, CallsRequest { handle: Some(handle.clone()), limit: Some(max_calls.max(1)), ..Default::default() })
        };
        let up = ask(calls::callers)?;
        let down = ask(calls::callees)?;
        callers = listed(up.groups, up.total, max_calls, "callers", &mut omitted);
        callees = listed(down.groups, down.total, max_calls, "callees", &mut omitted);
    } else {
        issue(
            "callers",
            format!("`{handle}` is a {}, not a function or method: it has no callers", sym.kind.as_str()),
            &mut omitted,
        );
    }

    let (mut supertypes, mut subtypes) = (Vec::new(), Vec::new());
    if sym.kind.is_type() {
        let req_h =
            |depth| HierarchyRequest { handle: handle.clone(), depth: Some(depth), limit: Some(max_hier.max(1)) };
        let up = hierarchy::supertypes(ctx, req_h(10))?;
        let down = hierarchy::subtypes(ctx, req_h(10))?;
        supertypes = listed(up.types, up.total, max_hier, "supertypes", &mut omitted);
        subtypes = listed(down.types, down.total, max_hier, "subtypes", &mut omitted);
    } else {
        issue(
            "typeHierarchy",
            format!("`{handle}` is a {}, not a type: no supertypes or subtypes", sym.kind.as_str()),
            &mut omitted,
        );
    }
    let implementations = match hierarchy::implementations(
        ctx,
        ImplementationsRequest { handle: handle.clone(), limit: Some(max_hier.max(1)) },
    ) {
        Ok(r) => listed(r.implementations, r.total, max_hier, "implementations", &mut omitted),
        Err(e) => {
            issue("implementations", e.to_string(), &mut omitted);
            Vec::new()
        }
    };

    let file = index.file_of(id);
    let near = walks::dependents(index, &[file], 2);
    let candidate_tests = omitted.cut(
        walks::candidate_tests(index, &[file], &[id], &near)
            .into_iter()
            .map(|(f, reason)| CandidateTest { path: index.files[f as usize].path.clone(), reason })
            .collect(),
        20,
        "candidateTests",
    );

    let source = if req.include_source {
        let path = &index.files[file as usize].path;
        match index.files[file as usize].indexed_text(ctx.host) {
            Some(_) if crate::sensitive::classify(path).is_some() => {
                issue("source", format!("{path} is a secrets file: its source is withheld"), &mut omitted);
                None
            }
            Some(text) => Some(
                text.split('\n')
                    .skip(sym.start.line.saturating_sub(1) as usize)
                    .take((sym.end.line - sym.start.line + 1).min(SOURCE_LINES as u32) as usize)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            None => {
                issue(
                    "source",
                    format!("{} changed since it was indexed: refresh first", index.files[file as usize].path),
                    &mut omitted,
                );
                None
            }
        }
    } else {
        None
    };

    let rename = match &req.rename_to {
        Some(new_name) => Some(rename::rename_preview(
            ctx,
            RenamePreviewRequest { handle: handle.clone(), new_name: new_name.clone(), ..Default::default() },
        )?),
        None => None,
    };

    let mut follow_ups = vec![FollowUp {
        tool: "refs".into(),
        arguments: serde_json::json!({ "handle": handle, "limit": 2000 }),
        why: "every use site, beyond this packet's bound".into(),
    }];
    if sym.kind.is_callable() {
        follow_ups.push(FollowUp {
            tool: "callers".into(),
            arguments: serde_json::json!({ "handle": handle, "depth": 3 }),
            why: "callers of the callers: how far a signature change reaches".into(),
        });
    }
    if req.rename_to.is_none() {
        follow_ups.push(FollowUp {
            tool: "rename_preview".into(),
            arguments: serde_json::json!({ "handle": handle, "newName": "NEW_NAME" }),
            why: "the exact edits of a rename, and whether it is safe".into(),
        });
    }
    follow_ups.push(FollowUp {
        tool: "impact".into(),
        arguments: serde_json::json!({ "base": "HEAD" }),
        why: "after editing: what the change breaks and which tests to run".into(),
    });

    Ok(RefactorPlanResponse {
        symbol: SymbolInfo::of(index, id),
        source,
        references,
        reference_count,
        callers,
        callees,
        supertypes,
        subtypes,
        implementations,
        candidate_tests,
        section_issues: issues,
        follow_ups,
        rename,
        omitted,
        freshness: ctx.freshness(),
    })
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::RefactorPlanRequest;

    #[test]
    fn one_packet_with_sections_their_bounds_and_the_authoritative_rename() {
        let (_dir, mut s) = repo(&[
            ("shapes.ts", "export interface Shape { area(): number }\nexport class Circle implements Shape { area() { return 1; } }\n"),
            ("use.ts", "import { Circle } from './shapes';\nexport function total(c: Circle) { return c.area() + c.area(); }\n"),
        ]);
        let plan = s
            .refactor_plan(RefactorPlanRequest {
                handle: "shapes.ts::Circle::area".into(),
                rename_to: Some("size".into()),
                max_references: Some(1),
                include_source: true,
                ..Default::default()
            })
            .unwrap();
        assert_eq!(plan.reference_count, 2);
        assert_eq!(plan.references.len(), 1);
        assert_eq!(plan.omitted.by_limit.get("references"), Some(&1));
        assert_eq!(plan.callers[0].handle, "use.ts::total");
        assert_eq!(plan.source.as_deref(), Some("export class Circle implements Shape { area() { return 1; } }"));
        assert!(plan.section_issues.iter().any(|i| i.section == "typeHierarchy"));
        let rename = plan.rename.unwrap();
        assert!(rename.safe);
        assert_eq!(rename.renamed.len(), 2, "the interface member it implements is renamed with it");
        // A type: hierarchy sections, no callers.
        let ty =
            s.refactor_plan(RefactorPlanRequest { handle: "shapes.ts::Shape".into(), ..Default::default() }).unwrap();
        assert_eq!(ty.subtypes[0].symbol.handle, "shapes.ts::Circle");
        assert!(ty.section_issues.iter().any(|i| i.section == "callers"));
        let over =
            RefactorPlanRequest { handle: "shapes.ts::Shape".into(), max_callers: Some(501), ..Default::default() };
        assert_eq!(s.refactor_plan(over).unwrap_err().code(), "INVALID_ARGUMENT");
    }
}
