//! Navigation: `get_symbol` (one declaration by handle, with its members and relations), `goto`
//! (the definitions of the name at a position) and `refs` (every proven use site of a declaration,
//! by handle or by position).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{bounded, Ctx, Error, Freshness, Omitted, SymbolInfo};
use crate::paths::clean_path;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GetSymbolRequest {
    pub handle: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GetSymbolResponse {
    pub symbol: SymbolInfo,
    /// Direct members (methods, fields, nested declarations).
    pub members: Vec<SymbolInfo>,
    pub reference_count: u64,
    pub caller_count: u64,
    pub supertypes: Vec<String>,
    pub subtypes: Vec<String>,
    pub freshness: Freshness,
}

/// Definition lookup by file position.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GotoRequest {
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column in Unicode characters (default 1: the first name on the line).
    #[serde(default)]
    pub column: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GotoResponse {
    /// The name at the position.
    pub name: String,
    pub definitions: Vec<SymbolInfo>,
    pub freshness: Freshness,
}

pub const REFS_LIMIT_DEFAULT: u32 = 200;
pub const REFS_LIMIT_CAP: u32 = 2000;

/// References by handle or by file position (exactly one of the two).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RefsRequest {
    pub handle: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// Maximum sites (default 200, cap 2000).
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReferenceSite {
    pub path: String,
    pub line: u32,
    pub column: u32,
    /// `call`, `import` or `reference`.
    pub kind: String,
    /// Handle of the enclosing declaration; absent for file-level code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enclosing: Option<String>,
    /// A use through an import alias (`_(…)` after `import gettext_lazy as _`): the declaration is
    /// used there under another name (a rename of it leaves the site as it is).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub alias: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RefsResponse {
    pub symbol: SymbolInfo,
    pub refs: Vec<ReferenceSite>,
    pub total: u64,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

/// One declaration by handle, with its members, relations and use counts.
pub(crate) fn get_symbol(ctx: &Ctx, req: GetSymbolRequest) -> Result<GetSymbolResponse, Error> {
    let index = ctx.index();
    let id = index.handle_id(&req.handle)?;
    let members = super::hierarchy::members(index, id);
    let sites = index.sites_of(id);
    let supertypes =
        index.relations().supertypes.iter().filter(|(s, _, _)| *s == id).map(|(_, _, t)| index.handle(*t)).collect();
    let subtypes =
        index.relations().supertypes.iter().filter(|(_, _, t)| *t == id).map(|(s, _, _)| index.handle(*s)).collect();
    Ok(GetSymbolResponse {
        symbol: SymbolInfo::of(index, id),
        members: members.into_iter().map(|m| SymbolInfo::of(index, m)).collect(),
        reference_count: sites.len() as u64,
        caller_count: sites.iter().filter(|r| r.call).map(|r| r.enclosing).collect::<BTreeSet<_>>().len() as u64,
        supertypes,
        subtypes,
        freshness: ctx.freshness(),
    })
}

/// The definitions of the name at a position.
pub(crate) fn goto(ctx: &Ctx, req: GotoRequest) -> Result<GotoResponse, Error> {
    if req.line == 0 {
        return Err(Error::InvalidArgument("`line` is 1-based".into()));
    }
    if req.column == Some(0) {
        return Err(Error::InvalidArgument("`column` is 1-based".into()));
    }
    let index = ctx.index();
    let file = index.file_id(&clean_path(&req.file))?;
    let (name, targets) = index.at_position(file, req.line, req.column);
    let where_ = format!("{}:{}{}", req.file, req.line, req.column.map(|c| format!(":{c}")).unwrap_or_default());
    let Some(name) = name else {
        return Err(Error::NotFound(format!(
            "no name at {where_}; point at an identifier (line and column are 1-based)"
        )));
    };
    // Definitions before forward declarations (a C prototype), then in file order.
    let mut targets: Vec<(bool, SymbolInfo)> =
        targets.into_iter().map(|t| (index.symbol(t).forward, SymbolInfo::of(index, t))).collect();
    targets.sort_by(|(fa, a), (fb, b)| (fa, &a.path, a.line, a.column).cmp(&(fb, &b.path, b.line, b.column)));
    let definitions = targets.into_iter().map(|(_, d)| d).collect();
    Ok(GotoResponse { name, definitions, freshness: ctx.freshness() })
}

/// Every proven use site of a declaration.
pub(crate) fn refs(ctx: &Ctx, req: RefsRequest) -> Result<RefsResponse, Error> {
    let limit = bounded(req.limit, REFS_LIMIT_DEFAULT, REFS_LIMIT_CAP, "limit")?;
    let index = ctx.index();
    let id = index.target(req.handle.as_deref(), req.file.as_deref(), req.line, req.column)?;
    let sites = index.sites_of(id);
    let refs: Vec<ReferenceSite> = sites
        .iter()
        .take(limit)
        .map(|r| ReferenceSite {
            path: index.files[r.file as usize].path.clone(),
            line: r.pos.line,
            column: r.pos.col,
            kind: r.kind().into(),
            enclosing: r.enclosing.map(|e| index.handle(e)),
            alias: r.alias,
        })
        .collect();
    Ok(RefsResponse {
        symbol: SymbolInfo::of(index, id),
        refs,
        total: sites.len() as u64,
        omitted: Omitted::by_limit("refs", sites.len().saturating_sub(limit)),
        freshness: ctx.freshness(),
    })
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::{GetSymbolRequest, GotoRequest, RefsRequest};

    #[test]
    fn goto_refs_and_symbols_agree() {
        let (_dir, mut s) = repo(&[
            ("shapes.ts", "export class Circle {\n  area() { return 1; }\n}\n"),
            ("main.ts", "import { Circle } from './shapes';\nconst c = new Circle();\nc.area();\n"),
        ]);
        let goto = s.goto(GotoRequest { file: "main.ts".into(), line: 3, column: Some(3) }).unwrap();
        assert_eq!(goto.name, "area");
        assert_eq!(goto.definitions[0].handle, "shapes.ts::Circle::area");
        let by_position = s
            .refs(RefsRequest { file: Some("main.ts".into()), line: Some(2), column: Some(15), ..Default::default() })
            .unwrap();
        let by_handle = s.refs(RefsRequest { handle: Some("shapes.ts::Circle".into()), ..Default::default() }).unwrap();
        assert_eq!(by_position.refs, by_handle.refs);
        let kinds: Vec<&str> = by_handle.refs.iter().map(|r| r.kind.as_str()).collect();
        assert_eq!(kinds, ["import", "call"]);
        let sym = s.get_symbol(GetSymbolRequest { handle: "shapes.ts::Circle".into() }).unwrap();
        assert_eq!(sym.members[0].name, "area");
        assert_eq!(sym.reference_count, 2);
        let both =
            RefsRequest { handle: Some("x".into()), file: Some("main.ts".into()), line: Some(1), ..Default::default() };
        assert_eq!(s.refs(both).unwrap_err().code(), "INVALID_ARGUMENT");
    }

    #[test]
    fn a_closure_mapping_elements_is_no_name_of_its_own() {
        // `.map(|h| …)` is followed by a projection segment written at the closure: a position
        // in the closure names what is written there, never that segment.
        let (_dir, mut s) = repo(&[(
            "src/lib.rs",
            "pub struct Item;\nimpl Item { pub fn size(&self) -> u8 { 1 } }\npub fn f(items: &[Item]) -> u8 {\n    items.iter().map(|h| h.size()).sum()\n}\n",
        )]);
        let at = |s: &mut crate::Session, column| {
            s.goto(GotoRequest { file: "src/lib.rs".into(), line: 4, column: Some(column) }).map(|g| g.name)
        };
        assert_eq!(at(&mut s, 28).unwrap(), "size");
        let closure = at(&mut s, 22).map_err(|e| e.to_string());
        assert!(closure.as_ref().is_err_and(|e| e.contains("no name at")), "{closure:?}");
    }
}
