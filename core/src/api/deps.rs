//! File dependencies: `deps` (what a file imports), `rdeps` (what imports it) and `path` (a shortest
//! import chain between two files).

use serde::{Deserialize, Serialize};

use super::{bounded, Ctx, Error, Freshness, Omitted};
use crate::index::walks;
use crate::paths::clean_path;

pub const DEPS_LIMIT_DEFAULT: u32 = 100;
pub const DEPS_LIMIT_CAP: u32 = 1000;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DepsRequest {
    pub file: String,
    /// Maximum files (default 100, cap 1000).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DepsResponse {
    pub file: String,
    pub files: Vec<String>,
    pub total: u64,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PathRequest {
    pub from: String,
    pub to: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PathResponse {
    pub from: String,
    pub to: String,
    /// A shortest chain of imports from `from` to `to` (both included); absent when none exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<Vec<String>>,
    pub freshness: Freshness,
}

/// The files a file imports.
pub(crate) fn deps(ctx: &Ctx, req: DepsRequest) -> Result<DepsResponse, Error> {
    file_edges(ctx, req, true)
}

/// The files that import a file.
pub(crate) fn rdeps(ctx: &Ctx, req: DepsRequest) -> Result<DepsResponse, Error> {
    file_edges(ctx, req, false)
}

fn file_edges(ctx: &Ctx, req: DepsRequest, forward: bool) -> Result<DepsResponse, Error> {
    let limit = bounded(req.limit, DEPS_LIMIT_DEFAULT, DEPS_LIMIT_CAP, "limit")?;
    let index = ctx.index();
    let fid = index.file_id(&clean_path(&req.file))?;
    let edges = index.file_deps(fid, forward);
    let files: Vec<String> = edges.iter().take(limit).map(|&f| index.files[f as usize].path.clone()).collect();
    Ok(DepsResponse {
        file: index.files[fid as usize].path.clone(),
        files,
        total: edges.len() as u64,
        omitted: Omitted::by_limit("files", edges.len().saturating_sub(limit)),
        freshness: ctx.freshness(),
    })
}

/// A shortest import chain from one file to another.
pub(crate) fn path(ctx: &Ctx, req: PathRequest) -> Result<PathResponse, Error> {
    let index = ctx.index();
    let from = index.file_id(&clean_path(&req.from))?;
    let to = index.file_id(&clean_path(&req.to))?;
    let path = walks::import_path(index, from, to)
        .map(|chain| chain.into_iter().map(|f| index.files[f as usize].path.clone()).collect());
    Ok(PathResponse {
        from: index.files[from as usize].path.clone(),
        to: index.files[to as usize].path.clone(),
        path,
        freshness: ctx.freshness(),
    })
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::{DepsRequest, PathRequest};

    #[test]
    fn deps_rdeps_and_the_shortest_path() {
        let (_dir, mut s) =
            repo(&[("a.js", "import './b.js';\n"), ("b.js", "import './c.js';\n"), ("c.js", "export const x = 1;\n")]);
        let file = |f: &str| DepsRequest { file: f.into(), limit: None };
        assert_eq!(s.deps(file("a.js")).unwrap().files, ["b.js"]);
        assert_eq!(s.rdeps(file("./c.js")).unwrap().files, ["b.js"]);
        let path = s.path(PathRequest { from: "a.js".into(), to: "c.js".into() }).unwrap();
        assert_eq!(path.path.unwrap(), ["a.js", "b.js", "c.js"]);
        assert!(s.path(PathRequest { from: "c.js".into(), to: "a.js".into() }).unwrap().path.is_none());
        assert_eq!(s.deps(file("nope.js")).unwrap_err().code(), "NOT_FOUND");
    }
}
