//! `orient`: the compact first-turn map of a repository — languages and sizes, layout, entry points,
//! the public API, where the tests live, the most depended-on files and how much resolved.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{bounded, Ctx, Error, Freshness, LanguageSummary, Omitted, SkippedFile};
use crate::facts::SymbolKind;
use crate::index::{FileId, SymId};
use crate::lang::Language;
use crate::paths::is_test_path;

pub const ORIENT_LIMIT_DEFAULT: u32 = 10;
pub const ORIENT_LIMIT_CAP: u32 = 50;

/// Compact first-turn map of the repository.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OrientRequest {
    /// Entries per list (default 10, cap 50).
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DirSummary {
    /// A top-level directory (or `.` for files at the root).
    pub dir: String,
    pub files: u64,
    pub languages: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FileRank {
    pub path: String,
    /// How many files import this one.
    pub dependents: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ResolutionStats {
    pub resolved_references: u64,
    pub unresolved_references: u64,
    pub import_edges: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OrientResponse {
    pub files: u64,
    pub symbols: u64,
    pub languages: Vec<LanguageSummary>,
    pub layout: Vec<DirSummary>,
    /// Files that start programs or expose a package (main/index/lib files, `__main__`, Cargo roots).
    pub entry_points: Vec<String>,
    /// The public API: exported top-level declarations, most used first.
    pub public_api: Vec<ApiEntry>,
    /// Where the tests live.
    pub tests: TestsSummary,
    pub most_depended_on: Vec<FileRank>,
    pub resolution: ResolutionStats,
    pub skipped_file_count: u64,
    pub skipped_sample: Vec<SkippedFile>,
    /// Files of other kinds (not parsed) under the root.
    pub other_files: u64,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ApiEntry {
    pub handle: String,
    pub kind: String,
    /// Proven use sites in the repository.
    pub uses: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TestsSummary {
    /// Test files (by path: `tests/`, `test_*.py`, `*.spec.ts`, `*_test.go`, …).
    pub files: u64,
    /// Directories holding test files, most first.
    pub dirs: Vec<DirCount>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DirCount {
    pub dir: String,
    pub files: u64,
}

/// A compact first-turn map of the repository.
pub(crate) fn orient(ctx: &Ctx, req: OrientRequest) -> Result<OrientResponse, Error> {
    let limit = bounded(req.limit, ORIENT_LIMIT_DEFAULT, ORIENT_LIMIT_CAP, "limit")?;
    let index = ctx.index();
    let languages = LanguageSummary::all(index);
    let mut dirs: BTreeMap<String, (u64, BTreeSet<&'static str>)> = BTreeMap::new();
    for f in &index.files {
        let dir = f.path.split_once('/').map_or(".", |(d, _)| d).to_string();
        let e = dirs.entry(dir).or_default();
        e.0 += 1;
        e.1.insert(f.language.name());
    }
    let mut layout: Vec<DirSummary> = dirs
        .into_iter()
        .map(|(dir, (files, langs))| DirSummary {
            dir,
            files,
            languages: langs.into_iter().map(str::to_string).collect(),
        })
        .collect();
    layout.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.dir.cmp(&b.dir)));
    let mut omitted = Omitted::default();
    let layout = omitted.cut(layout, limit, "layout");

    let mut entries: Vec<(usize, String)> = index
        .files
        .iter()
        .filter(|f| is_entry_point(f))
        .map(|f| (f.path.matches('/').count(), f.path.clone()))
        .collect();
    entries.sort();
    let entry_points: Vec<String> = omitted.cut(entries, limit, "entryPoints").into_iter().map(|(_, p)| p).collect();

    // Exported top-level declarations outside tests (from the kinds column: no facts read), by use.
    // (A file's path is judged once, not once per declaration.)
    let traits = index.traits();
    let mut api: Vec<(u64, SymId)> = Vec::new();
    for f in index.files.iter().filter(|f| !is_test_path(&f.path)) {
        for id in f.ids() {
            let t = traits[id as usize];
            if t.exported() && t.top_level() {
                api.push((index.uses(id) as u64, id));
            }
        }
    }
    // Most used first, ties by handle.
    super::sort_then_by_handle(index, &mut api, limit, |&(uses, _)| std::cmp::Reverse(uses), |&(_, id)| id);
    let public_api: Vec<ApiEntry> = omitted
        .cut(api, limit, "publicApi")
        .into_iter()
        .map(|(uses, id)| ApiEntry { handle: index.handle(id), kind: traits[id as usize].kind().as_str().into(), uses })
        .collect();
    let mut test_dirs: BTreeMap<&str, u64> = BTreeMap::new();
    let mut test_files = 0;
    for f in index.files.iter().filter(|f| is_test_path(&f.path)) {
        test_files += 1;
        *test_dirs.entry(f.path.rsplit_once('/').map_or(".", |(d, _)| d)).or_default() += 1;
    }
    let mut dirs: Vec<DirCount> =
        test_dirs.into_iter().map(|(dir, files)| DirCount { dir: dir.into(), files }).collect();
    dirs.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.dir.cmp(&b.dir)));
    let dirs = omitted.cut(dirs, limit, "tests.dirs");

    let dependents: Vec<u64> = (0..index.files.len() as FileId).map(|f| index.dependents(f) as u64).collect();
    // Each import edge is one file's dependent.
    let import_edges = dependents.iter().sum();
    let mut ranked: Vec<FileRank> = dependents
        .into_iter()
        .enumerate()
        .filter(|&(_, dependents)| dependents > 0)
        .map(|(f, dependents)| FileRank { path: index.files[f].path.clone(), dependents })
        .collect();
    ranked.sort_by(|a, b| b.dependents.cmp(&a.dependents).then_with(|| a.path.cmp(&b.path)));
    let ranked = omitted.cut(ranked, limit, "mostDependedOn");
    Ok(OrientResponse {
        files: index.files.len() as u64,
        symbols: index.syms.len() as u64,
        languages,
        layout,
        entry_points,
        public_api,
        tests: TestsSummary { files: test_files, dirs },
        most_depended_on: ranked,
        resolution: ResolutionStats {
            resolved_references: index.counts().resolved_refs,
            unresolved_references: index.counts().unresolved_refs,
            import_edges,
        },
        skipped_file_count: index.skipped.len() as u64,
        skipped_sample: index.skipped.iter().take(limit).cloned().collect(),
        other_files: index.other_files,
        omitted,
        freshness: ctx.freshness(),
    })
}

fn is_entry_point(f: &crate::index::IndexedFile) -> bool {
    let base = f.path.rsplit('/').next().unwrap_or(&f.path);
    let stem = base.split('.').next().unwrap_or(base);
    let shallow = f.path.matches('/').count() <= 3;
    let named = matches!(stem, "main" | "index" | "lib" | "app" | "cli" | "server" | "__main__" | "manage" | "mod")
        && !(stem == "mod" || (stem == "index" && !shallow));
    let go_main = f.language == Language::Go && f.facts.package.as_deref() == Some("main");
    let java_main = f.language == Language::Java
        && f.facts.symbols.iter().any(|s| s.name == "main" && s.kind == SymbolKind::Method);
    (named && shallow) || go_main || java_main
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::OrientRequest;

    #[test]
    fn maps_languages_entry_points_api_and_tests() {
        let (_dir, mut s) = repo(&[
            ("src/main.ts", "import { add } from './math';\nadd(1, 2);\n"),
            ("src/math.ts", "export function add(a: number, b: number) { return a + b; }\n"),
            ("tests/math.test.ts", "import { add } from '../src/math';\nadd(2, 2);\n"),
        ]);
        let o = s.orient(OrientRequest::default()).unwrap();
        assert_eq!(o.files, 3);
        assert_eq!(o.languages[0].language, "typescript");
        assert_eq!(o.entry_points, ["src/main.ts"]);
        assert_eq!(o.public_api[0].handle, "src/math.ts::add");
        assert_eq!(o.public_api[0].uses, 4, "two imports and two calls");
        assert_eq!((o.tests.files, o.tests.dirs[0].dir.as_str()), (1, "tests"));
        assert_eq!(o.most_depended_on[0].path, "src/math.ts");
        let cut = s.orient(OrientRequest { limit: Some(1) }).unwrap();
        assert_eq!(cut.layout.len(), 1);
        assert_eq!(cut.omitted.by_limit["layout"], 1);
        assert!(s.orient(OrientRequest { limit: Some(51) }).is_err());
    }
}
