//! `workspace_symbols`: declarations by identity — handle, qualified name, exact name, then
//! prefix, identifier token and substring — with composable filters, and optionally the import
//! aliases that bind a concrete declaration.

use globset::GlobBuilder;
use serde::{Deserialize, Serialize};

use super::{bounded, nonempty_query, Ctx, Error, Freshness, Omitted, SymbolInfo};
use crate::facts::{Pos, SymbolKind};
use crate::index::{FileId, SymId, SymbolQuery};

pub const SYMBOLS_LIMIT_DEFAULT: u32 = 50;
pub const SYMBOLS_LIMIT_CAP: u32 = 500;

/// Symbol-identity lookup with composable filters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorkspaceSymbolsRequest {
    /// A name, qualified name (`Circle::area`) or handle (`src/geo.rs::Circle::area`).
    pub query: String,
    /// Only these kinds (`class`, `function`, `method`, …).
    #[serde(default)]
    pub kinds: Vec<String>,
    #[serde(default)]
    pub exported_only: bool,
    /// Also return import aliases that resolve to a concrete declaration.
    #[serde(default)]
    pub include_imports: bool,
    /// Glob over root-relative paths.
    #[serde(default)]
    pub file_glob: Option<String>,
    /// Maximum symbols (default 50, cap 500).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SymbolMatch {
    #[serde(flatten)]
    pub symbol: SymbolInfo,
    /// `handle`, `qualifiedName`, `name`, `nameIgnoreCase`, `prefix`, `token`, `substring`.
    pub matched: String,
    /// For an import alias: the declaration it binds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub import_of: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorkspaceSymbolsResponse {
    pub query: String,
    pub symbols: Vec<SymbolMatch>,
    pub total: u64,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

/// Declarations by name, qualified name or handle.
pub(crate) fn workspace_symbols(ctx: &Ctx, req: WorkspaceSymbolsRequest) -> Result<WorkspaceSymbolsResponse, Error> {
    let limit = bounded(req.limit, SYMBOLS_LIMIT_DEFAULT, SYMBOLS_LIMIT_CAP, "limit")?;
    let query = nonempty_query(&req.query)?;
    let kinds: Vec<SymbolKind> = req
        .kinds
        .iter()
        .map(|k| {
            SymbolKind::parse(k).ok_or_else(|| {
                Error::InvalidArgument(format!("unknown kind `{k}`; kinds are class, interface, function, method, struct, trait, enum, type, module, variable, constant, field, macro"))
            })
        })
        .collect::<Result<_, _>>()?;
    let glob = match &req.file_glob {
        Some(g) => Some(
            GlobBuilder::new(g)
                .literal_separator(true)
                .build()
                .map_err(|e| Error::InvalidArgument(format!("invalid fileGlob `{g}`: {e}")))?
                .compile_matcher(),
        ),
        None => None,
    };
    let index = ctx.index();
    let lower = query.to_lowercase();
    let prepared = SymbolQuery::new(&query);
    let traits = index.traits();
    // Every match is found, filtered and ranked by tier, export and path from the columns (names,
    // kinds, the file list); facts are read only for the matches answered.
    let mut found: Vec<Found> = Vec::new();
    for (id, tier, how) in prepared.matches(index) {
        let t = traits[id as usize];
        if (!kinds.is_empty() && !kinds.contains(&t.kind())) || (req.exported_only && !t.exported()) {
            continue;
        }
        let file = index.file_of(id);
        if glob.as_ref().is_some_and(|g| !g.is_match(&index.files[file as usize].path)) {
            continue;
        }
        found.push(Found { tier, hidden: !t.exported(), file, what: Match::Symbol(id, how) });
    }
    let mut omitted = Omitted::default();
    if req.include_imports {
        let imports = index.imports();
        for b in &imports.bindings {
            // (The alias first, then the kinds column: the target's facts are read for a match only.)
            let alias = b.alias.to_lowercase();
            let tier = if b.alias == query {
                2
            } else if alias == lower {
                3
            } else if alias.starts_with(&lower) {
                4
            } else if alias.contains(&lower) {
                6
            } else {
                continue;
            };
            let path = &index.files[b.file as usize].path;
            let kind = traits[b.target as usize].kind();
            if (!kinds.is_empty() && !kinds.contains(&kind)) || glob.as_ref().is_some_and(|g| !g.is_match(path)) {
                continue;
            }
            let mut info = SymbolInfo::of(index, b.target);
            info.name.clone_from(&b.alias);
            info.path.clone_from(path);
            info.line = b.pos.line;
            info.column = b.pos.col;
            info.start_line = b.pos.line;
            info.end_line = b.pos.line;
            info.kind = "import".into();
            info.container = None;
            let import_of = Some(info.handle.clone());
            let m = SymbolMatch { symbol: info, matched: "import".into(), import_of };
            found.push(Found { tier, hidden: false, file: b.file, what: Match::Import(b.pos, Box::new(m)) });
        }
        if imports.unbound > 0 {
            omitted.other.insert("namespaceOrUnresolvedImports".into(), imports.unbound);
        }
    }
    // By tier, exported first, then path (files are in path order, so by file id); within a file, by
    // position and handle, which only the runs of the answer need their facts for.
    found.sort_by_key(|f| (f.tier, f.hidden, f.file));
    let total = found.len();
    if total > limit {
        omitted.by_limit.insert("symbols".into(), (total - limit) as u64);
    }
    let mut symbols = Vec::with_capacity(limit.min(total));
    for run in found.chunk_by(|a, b| (a.tier, a.hidden, a.file) == (b.tier, b.hidden, b.file)) {
        if symbols.len() == limit {
            break;
        }
        let mut ordered: Vec<(Pos, String, &Match)> = run
            .iter()
            .map(|f| match &f.what {
                Match::Symbol(id, _) => (index.symbol(*id).name_pos, index.handle(*id), &f.what),
                Match::Import(pos, m) => (*pos, m.symbol.handle.clone(), &f.what),
            })
            .collect();
        ordered.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let answered = ordered.into_iter().take(limit - symbols.len()).map(|(_, _, what)| match what {
            Match::Symbol(id, how) => {
                SymbolMatch { symbol: SymbolInfo::of(index, *id), matched: (*how).into(), import_of: None }
            }
            Match::Import(_, m) => (**m).clone(),
        });
        symbols.extend(answered);
    }
    Ok(WorkspaceSymbolsResponse { query, symbols, total: total as u64, omitted, freshness: ctx.freshness() })
}

/// A match before it is answered: what ranks it without its facts.
struct Found {
    tier: u8,
    /// Not exported (exported ones rank first).
    hidden: bool,
    file: FileId,
    what: Match,
}

enum Match {
    /// A declaration, and how its name matched.
    Symbol(SymId, &'static str),
    /// An import alias, at its position, answered as it is.
    Import(Pos, Box<SymbolMatch>),
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::WorkspaceSymbolsRequest;

    #[test]
    fn identity_tiers_filters_and_import_aliases() {
        let (_dir, mut s) = repo(&[
            (
                "a.ts",
                "export class Shape { area() { return 0; } }\nexport function shapeArea() {}\nfunction helper() {}\n",
            ),
            ("b.ts", "import { Shape as S } from './a';\nnew S();\n"),
        ]);
        let ask = |s: &mut crate::Session, req: WorkspaceSymbolsRequest| s.workspace_symbols(req).unwrap();
        let q = |query: &str| WorkspaceSymbolsRequest { query: query.into(), ..Default::default() };
        let exact = ask(&mut s, q("Shape"));
        assert_eq!(exact.symbols[0].matched, "name");
        assert_eq!(exact.symbols[1].symbol.handle, "a.ts::shapeArea", "a prefix ranks after the name");
        assert_eq!(ask(&mut s, q("Shape.area")).symbols[0].matched, "qualifiedName");
        let exported = ask(&mut s, WorkspaceSymbolsRequest { exported_only: true, ..q("helper") });
        assert_eq!(exported.total, 0);
        let kinds = ask(&mut s, WorkspaceSymbolsRequest { kinds: vec!["function".into()], ..q("shape") });
        assert!(kinds.symbols.iter().all(|m| m.symbol.kind == "function"));
        let imports = ask(&mut s, WorkspaceSymbolsRequest { include_imports: true, ..q("S") });
        let alias = imports.symbols.iter().find(|m| m.matched == "import").unwrap();
        assert_eq!(alias.import_of.as_deref(), Some("a.ts::Shape"));
        assert!(s.workspace_symbols(WorkspaceSymbolsRequest { kinds: vec!["bogus".into()], ..q("x") }).is_err());
    }
}
