//! `artifactBuild` and `querySqlite`: the index as a SQLite file (`crate::artifact` has the schema)
//! and bounded read-only queries over it (`crate::sql` has the guards).
//!
//! Write access is the session's `allowBuild`: without it `artifactBuild` refuses, and a stale
//! artifact is never refreshed. An artifact is fresh when it names the index's fingerprint (the
//! files' paths and content hashes, the schema and the core version). A stale one is rebuilt
//! before a query when writing is allowed, the index itself is not stale and at most
//! `REFRESH_MAX_FILES_DEFAULT` files differ (the counts of unchanged files are reused); otherwise
//! the query is refused with `STALE_ARTIFACT` and what to run.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

use super::{bounded, Ctx, Error, Freshness, Omitted};
use crate::artifact::{self, Cache};
use crate::host::Host;
use crate::index::Index;
use crate::session::REFRESH_MAX_FILES_DEFAULT;
pub use crate::sql::SqlParam;
use crate::sql::{self, Caps};

pub const SQL_LIMIT_DEFAULT: u32 = 100;
pub const SQL_LIMIT_CAP: u32 = 500;
/// Bytes of rows one answer carries at most (as JSON).
pub const SQL_MAX_BYTES: u32 = 512 * 1024;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ArtifactBuildRequest {
    /// Directory to write into, relative to the root (default `.codegraph/artifacts`).
    pub out: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ArtifactFile {
    pub path: String,
    pub bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ArtifactBuildResponse {
    /// The directory written, relative to the root.
    pub dir: String,
    /// `codegraph.sqlite`, `manifest.json` and `CODEGRAPH_REPORT.md`, with their sizes.
    pub files: Vec<ArtifactFile>,
    /// Rows per table.
    pub rows: BTreeMap<String, u64>,
    pub schema_version: u32,
    pub index_fingerprint: String,
    pub built_at: String,
    pub freshness: Freshness,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct QuerySqliteRequest {
    /// One SELECT (or WITH … SELECT) over the artifact's tables: `meta`, `files`, `symbols`, `refs`, `calls`,
    /// `file_deps`, `type_relations`, `unresolved`.
    pub query: String,
    /// Values for the query's `?` parameters, in order (string, number or null).
    #[serde(default)]
    pub params: Vec<SqlParam>,
    /// Maximum rows (default 100, cap 500).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// The artifact a query read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ArtifactState {
    pub path: String,
    /// `fresh`, `rebuilt` (it was stale and was rebuilt first) or `built` (there was none).
    pub state: String,
    pub index_fingerprint: String,
    /// Files that differed from the index when it was rebuilt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed_files: Option<u64>,
}

/// The bounds a query ran under.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct QueryLimits {
    pub rows: u64,
    pub bytes: u64,
    /// The budget in SQLite VM steps, and what the query used (to the nearest thousand).
    pub step_budget: u64,
    pub steps: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct QuerySqliteResponse {
    pub columns: Vec<String>,
    /// One array of values per row, in `columns` order; a blob is `{ blob: hex, bytes }`.
    pub rows: Vec<Vec<serde_json::Value>>,
    /// More rows exist than were returned.
    pub truncated: bool,
    /// Why the rows stop early: `rows` (the limit), `bytes` or `steps` (the budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated_by: Option<String>,
    pub artifact: ArtifactState,
    pub limits: QueryLimits,
    pub omitted: Omitted,
    pub freshness: Freshness,
}

/// Writes the artifact of the current index.
pub(crate) fn artifact_build(ctx: &Ctx, req: ArtifactBuildRequest) -> Result<ArtifactBuildResponse, Error> {
    if !ctx.options.allow_build {
        return Err(Error::Forbidden(
            "artifact_build writes files: start the server with --allow-build (or run `codegraph artifact build`)"
                .into(),
        ));
    }
    refuse_stale_index(ctx)?;
    let dir = confine_dir(ctx.host, req.out.as_deref().unwrap_or(artifact::DIR))?;
    let index = ctx.index();
    let previous = (dir == artifact::DIR).then(|| read_cache(ctx, index).ok().flatten()).flatten();
    let counts = previous.as_ref().map(|c| known_counts(&c.db.files())).unwrap_or_default();
    drop(previous);
    let written = write_artifact(ctx, &dir, &counts)?;
    Ok(ArtifactBuildResponse {
        dir: written.dir,
        files: written.files.into_iter().map(|(path, bytes)| ArtifactFile { path, bytes }).collect(),
        rows: written.rows,
        schema_version: artifact::SCHEMA_VERSION,
        index_fingerprint: written.fingerprint,
        built_at: written.built_at,
        freshness: ctx.freshness(),
    })
}

/// Runs one bounded read-only query over the artifact.
pub(crate) fn query_sqlite(ctx: &Ctx, req: QuerySqliteRequest) -> Result<QuerySqliteResponse, Error> {
    let limit = bounded(req.limit, SQL_LIMIT_DEFAULT, SQL_LIMIT_CAP, "limit")?;
    sql::check_select(&req.query, &[], false)?;
    run_checked(ctx, &req.query, &req.params, limit)
}

/// Runs a checked SELECT over the current artifact (refreshed first when allowed): the executor
/// shared by `querySqlite` and the custom tools.
pub(crate) fn run_checked(
    ctx: &Ctx,
    query: &str,
    params: &[SqlParam],
    limit: usize,
) -> Result<QuerySqliteResponse, Error> {
    let state = current_artifact(ctx)?;
    let cache = ctx.artifact.borrow();
    let db = &cache.as_ref().expect("current_artifact opens the artifact").db;
    let caps = Caps { rows: limit, bytes: SQL_MAX_BYTES as usize };
    let rows = db.run(query, params, caps)?;
    let mut omitted = Omitted::default();
    if rows.cut_cells > 0 {
        omitted.other.insert("cellsCutTo16KiChars".into(), rows.cut_cells);
    }
    Ok(QuerySqliteResponse {
        columns: rows.columns,
        rows: rows.rows,
        truncated: rows.truncated_by.is_some(),
        truncated_by: rows.truncated_by.map(str::to_string),
        artifact: state,
        limits: QueryLimits {
            rows: limit as u64,
            bytes: u64::from(SQL_MAX_BYTES),
            step_budget: sql::STEP_BUDGET,
            steps: rows.steps,
        },
        omitted,
        freshness: ctx.freshness(),
    })
}

fn refuse_stale_index(ctx: &Ctx) -> Result<(), Error> {
    if ctx.freshness().state == "stale" {
        return Err(Error::StaleIndex(
            "the index is stale (more files changed than a refresh takes in): run refresh_index first".into(),
        ));
    }
    Ok(())
}

fn db_path() -> String {
    format!("{}/{}", artifact::DIR, artifact::DB_FILE)
}

/// The largest artifact read: what the persisted index allows, for the same sources.
fn read_limit(index: &Index) -> u64 {
    let sources: u64 = index.files.iter().map(|f| f.size).sum();
    (64 << 20) + 32 * sources
}

/// The artifact at the default place, opened (from the cache while its file is unchanged); `None`
/// when there is none.
fn read_cache<'c>(ctx: &'c Ctx, index: &Index) -> Result<Option<std::cell::RefMut<'c, Cache>>, Error> {
    let path = db_path();
    // `.codegraph` and `artifacts` must stay inside the root (a cloned repository could make them
    // symlinks to elsewhere).
    crate::store::usable(ctx.host).map_err(Error::OutsideRoot)?;
    confine_dir(ctx.host, artifact::DIR)?;
    let Ok(stat) = ctx.host.lstat(&path) else {
        *ctx.artifact.borrow_mut() = None;
        return Ok(None);
    };
    let key = (stat.size, stat.mtime_ms);
    let mut cache = ctx.artifact.borrow_mut();
    if cache.as_ref().is_none_or(|c| c.key != key) {
        *cache = None;
        let bytes = ctx
            .host
            .read_file(&path, read_limit(index))
            .map_err(|e| Error::StaleArtifact(format!("cannot read {path}: {e}; run `codegraph artifact build`")))?;
        let db = artifact::open(&bytes)
            .and_then(|db| sql::guard(db, artifact::readable))
            .map_err(|e| Error::StaleArtifact(format!("{path}: {e}; run `codegraph artifact build`")))?;
        *cache = Some(Cache { key, db });
    }
    Ok(Some(std::cell::RefMut::map(cache, |c| c.as_mut().expect("set above"))))
}

/// Code-line counts by content hash, from an artifact's `files` rows.
fn known_counts(files: &[(String, String, Option<i64>)]) -> HashMap<String, u64> {
    files.iter().filter_map(|(_, hash, code)| Some((hash.clone(), u64::try_from((*code)?).ok()?))).collect()
}

/// Writes the artifact of the index under `dir`. In the artifacts folder, the database written is
/// kept open for queries (keyed by its file's stat) in place of the one kept before, which is
/// dropped first: the two are never held at once.
fn write_artifact(ctx: &Ctx, dir: &str, counts: &HashMap<String, u64>) -> Result<artifact::Written, Error> {
    let ours = dir == artifact::DIR;
    if ours {
        ctx.artifact.borrow_mut().take();
    }
    let (written, db) = artifact::write(ctx.index(), ctx.host, dir, counts)?;
    if ours {
        let stat = ctx.host.lstat(&db_path()).map_err(|e| Error::Io(format!("cannot stat the artifact: {e}")))?;
        *ctx.artifact.borrow_mut() =
            Some(Cache { key: (stat.size, stat.mtime_ms), db: sql::guard(db, artifact::readable)? });
    }
    Ok(written)
}

/// Opens the artifact for a query: fresh, or rebuilt first when writing is allowed and the change
/// set is small; else an error saying what to run.
fn current_artifact(ctx: &Ctx) -> Result<ArtifactState, Error> {
    let index = ctx.index();
    let fingerprint = artifact::fingerprint(index);
    let rebuild_hint = "run `codegraph artifact build` (or artifact_build on a server started with --allow-build)";
    let (changed, counts, what) = match read_cache(ctx, index) {
        Ok(Some(cache)) => {
            let db = &cache.db;
            let stored = db.meta("index_fingerprint");
            if stored.as_deref() == Some(fingerprint.as_str()) {
                return Ok(ArtifactState {
                    path: db_path(),
                    state: "fresh".into(),
                    index_fingerprint: fingerprint,
                    changed_files: None,
                });
            }
            let same_schema = db.meta("schema_version") == Some(artifact::SCHEMA_VERSION.to_string())
                && db.meta("core_version").as_deref() == Some(crate::VERSION);
            if stored.is_none() {
                // Not an artifact of ours, or damaged: rebuilt whole when allowed, like a missing one.
                if !ctx.options.allow_build {
                    return Err(Error::StaleArtifact(format!(
                        "{} is damaged or not a codegraph artifact (it names no index): {rebuild_hint}",
                        db_path()
                    )));
                }
                (index.files.len(), HashMap::default(), "built")
            } else if !same_schema {
                // Another schema or core version: rebuilt whole, whatever the change set.
                (index.files.len(), HashMap::default(), "built")
            } else {
                let files = db.files();
                let known: HashMap<&str, &str> = files.iter().map(|(p, h, _)| (p.as_str(), h.as_str())).collect();
                let mut changed =
                    index.files.iter().filter(|f| known.get(f.path.as_str()) != Some(&f.hash.as_str())).count();
                changed += known.keys().filter(|p| !index.by_path.contains_key(**p)).count();
                (changed, known_counts(&files), "rebuilt")
            }
        }
        Ok(None) => {
            if !ctx.options.allow_build {
                return Err(Error::NotFound(format!("there is no SQLite artifact at {}: {rebuild_hint}", db_path())));
            }
            (index.files.len(), HashMap::default(), "built")
        }
        // A file that can't be read or opened as SQLite is rebuilt whole, like a missing one (a
        // folder outside the root is not: that error stands).
        Err(e) if ctx.options.allow_build && matches!(e, Error::StaleArtifact(_)) => {
            (index.files.len(), HashMap::default(), "built")
        }
        Err(e) => return Err(e),
    };
    if !ctx.options.allow_build {
        return Err(Error::StaleArtifact(format!(
            "the SQLite artifact was built from another index ({changed} files differ): {rebuild_hint}"
        )));
    }
    refuse_stale_index(ctx).map_err(|_| {
        Error::StaleArtifact(format!(
            "the SQLite artifact is stale and so is the index: run refresh_index, then {rebuild_hint}"
        ))
    })?;
    if what == "rebuilt" && changed > REFRESH_MAX_FILES_DEFAULT as usize {
        return Err(Error::StaleArtifact(format!(
            "the SQLite artifact is stale by {changed} files, more than a query refreshes ({REFRESH_MAX_FILES_DEFAULT}): {rebuild_hint}"
        )));
    }
    // (`read_cache` has checked that the folder stays inside the root.)
    let written = write_artifact(ctx, artifact::DIR, &counts)?;
    Ok(ArtifactState {
        path: db_path(),
        state: what.into(),
        index_fingerprint: written.fingerprint,
        changed_files: (what == "rebuilt").then_some(changed as u64),
    })
}

/// A root-relative directory to write into that stays inside the root, also through symlinks of
/// the part of it that exists.
fn confine_dir(host: &dyn Host, out: &str) -> Result<String, Error> {
    let cleaned = crate::paths::clean_path(out);
    let cleaned = cleaned.trim_end_matches('/');
    let root = host.realpath("").map_err(|e| Error::Io(format!("cannot resolve the root: {e}")))?;
    let rel = if cleaned.starts_with('/') || cleaned.chars().nth(1) == Some(':') {
        if cleaned == root {
            String::new()
        } else {
            cleaned
                .strip_prefix(&format!("{root}/"))
                .ok_or_else(|| Error::OutsideRoot(format!("`{out}` is outside the root; give a directory inside it")))?
                .to_string()
        }
    } else {
        cleaned.to_string()
    };
    let rel = crate::index::normalize_path(&rel)
        .ok_or_else(|| Error::OutsideRoot(format!("`{out}` climbs out of the root; give a directory inside it")))?;
    // The deepest part that exists must resolve inside the root.
    let mut existing = rel.as_str();
    loop {
        if let Ok(real) = host.realpath(existing) {
            if real != root && !real.starts_with(&format!("{root}/")) {
                return Err(Error::OutsideRoot(format!("`{out}` resolves outside the root (through a symlink)")));
            }
            break;
        }
        match existing.rfind('/') {
            Some(i) => existing = &existing[..i],
            None if !existing.is_empty() => existing = "",
            None => break,
        }
    }
    Ok(rel)
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::{ArtifactBuildRequest, QuerySqliteRequest, SqlParam};

    fn query(q: &str) -> QuerySqliteRequest {
        QuerySqliteRequest { query: q.into(), params: Vec::new(), limit: None }
    }

    #[test]
    fn the_artifact_holds_the_index_and_answers_bounded_queries() {
        let (dir, mut s) = repo(&[
            ("a.ts", "import { b } from './b';\nexport function a() { return b(); }\n"),
            ("b.ts", "export function b() { return 1; }\nexport class C extends D {}\nclass D {}\n"),
        ]);
        // No write access: refused, nothing written.
        assert_eq!(s.artifact_build(ArtifactBuildRequest::default()).unwrap_err().code(), "FORBIDDEN");
        assert_eq!(s.query_sqlite(query("SELECT 1")).unwrap_err().code(), "NOT_FOUND");
        assert!(!dir.path().join(".codegraph/artifacts").exists());

        let options = crate::api::DiscoveryOptions { allow_build: true, ..Default::default() };
        let mut s = crate::api::Session::open(Box::new(crate::api::StdHost::new(dir.path())), options).unwrap();
        let built = s.artifact_build(ArtifactBuildRequest::default()).unwrap();
        assert_eq!(built.rows["files"], 2);
        assert_eq!(built.rows["calls"], 1);
        assert_eq!(built.rows["type_relations"], 1);
        for f in ["codegraph.sqlite", "manifest.json", "CODEGRAPH_REPORT.md"] {
            assert!(dir.path().join(".codegraph/artifacts").join(f).is_file(), "{f}");
        }
        let r = s
            .query_sqlite(QuerySqliteRequest {
                query: "SELECT caller, callee, line FROM calls WHERE callee LIKE ?".into(),
                params: vec![SqlParam::Text("%b".into())],
                limit: None,
            })
            .unwrap();
        assert_eq!(r.columns, ["caller", "callee", "line"]);
        assert_eq!(r.rows, [vec![serde_json::json!("a.ts::a"), serde_json::json!("b.ts::b"), serde_json::json!(2)]]);
        assert_eq!(r.artifact.state, "fresh");
        let r = s.query_sqlite(QuerySqliteRequest { limit: Some(1), ..query("SELECT handle FROM symbols") }).unwrap();
        assert_eq!((r.rows.len(), r.truncated, r.truncated_by.as_deref()), (1, true, Some("rows")));

        // An edit: the next query rebuilds the artifact first (write access, a small change).
        std::fs::write(dir.path().join("b.ts"), "export function b() { return 2; }\nexport function e() {}\n").unwrap();
        s.refresh(crate::api::RefreshRequest::default()).unwrap();
        let r = s.query_sqlite(query("SELECT name FROM symbols WHERE path = 'b.ts' ORDER BY name")).unwrap();
        assert_eq!(r.artifact.state, "rebuilt");
        assert_eq!(r.rows, [vec![serde_json::json!("b")], vec![serde_json::json!("e")]]);
    }

    #[test]
    fn a_damaged_artifact_is_refused_without_write_access_and_rebuilt_with_it() {
        let (dir, _) = repo(&[("a.py", "def f():\n    return 1\n")]);
        let db = dir.path().join(".codegraph/artifacts/codegraph.sqlite");
        let open = |allow_build| {
            let options = crate::api::DiscoveryOptions { allow_build, ..Default::default() };
            crate::api::Session::open(Box::new(crate::api::StdHost::new(dir.path())), options).unwrap()
        };
        open(true).artifact_build(ArtifactBuildRequest::default()).unwrap();
        let good = std::fs::read(&db).unwrap();
        let truncated = good[..good.len() / 2].to_vec();
        let mut zeroed = good.clone();
        zeroed[4096..].iter_mut().for_each(|b| *b = 0);
        for damage in [b"not a database at all".to_vec(), truncated, zeroed, Vec::new()] {
            std::fs::write(&db, &damage).unwrap();
            let e = open(false).query_sqlite(query("SELECT count(*) FROM files")).unwrap_err();
            assert_eq!(e.code(), "STALE_ARTIFACT", "{e}");
            assert_eq!(std::fs::read(&db).unwrap(), damage, "left as it was without write access");
            let r = open(true).query_sqlite(query("SELECT count(*) FROM files")).unwrap();
            assert_eq!((r.artifact.state.as_str(), &r.rows[0][0]), ("built", &serde_json::json!(1)));
            assert_eq!(std::fs::read(&db).unwrap(), good, "rebuilt to the same bytes");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_codegraph_folder_or_artifacts_folder_that_leaves_the_root_is_not_used() {
        let outside = tempfile::tempdir().unwrap();
        for link in [".codegraph", ".codegraph/artifacts"] {
            let (dir, _) = repo(&[("a.py", "def f():\n    return 1\n")]);
            std::fs::create_dir_all(dir.path().join(".codegraph")).unwrap();
            if link == ".codegraph" {
                std::fs::remove_dir(dir.path().join(".codegraph")).unwrap();
            }
            std::os::unix::fs::symlink(outside.path(), dir.path().join(link)).unwrap();
            let options = crate::api::DiscoveryOptions { allow_build: true, ..Default::default() };
            let mut s = crate::api::Session::open(Box::new(crate::api::StdHost::new(dir.path())), options).unwrap();
            assert_eq!(s.artifact_build(ArtifactBuildRequest::default()).unwrap_err().code(), "OUTSIDE_ROOT", "{link}");
            assert_eq!(s.query_sqlite(query("SELECT 1")).unwrap_err().code(), "OUTSIDE_ROOT", "{link}");
            assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written through {link}");
        }
    }

    #[test]
    fn hostile_sql_is_refused_or_cut_and_changes_nothing() {
        let (dir, _) = repo(&[("a.py", "def f():\n    return g()\n\ndef g():\n    return 1\n")]);
        let options = crate::api::DiscoveryOptions { allow_build: true, ..Default::default() };
        let mut s = crate::api::Session::open(Box::new(crate::api::StdHost::new(dir.path())), options).unwrap();
        s.artifact_build(ArtifactBuildRequest::default()).unwrap();
        let db = dir.path().join(".codegraph/artifacts/codegraph.sqlite");
        let before = std::fs::read(&db).unwrap();
        for (sql, code) in [
            ("DELETE FROM symbols", "INVALID_ARGUMENT"),
            ("SELECT 1; DELETE FROM symbols", "INVALID_ARGUMENT"),
            ("SELECT 1; ", "OK"),
            ("ATTACH 'x.db' AS x", "INVALID_ARGUMENT"),
            ("PRAGMA writable_schema = 1", "INVALID_ARGUMENT"),
            ("VACUUM INTO '/tmp/x.db'", "INVALID_ARGUMENT"),
            ("SELECT load_extension('x')", "INVALID_ARGUMENT"),
            ("SELECT readfile('/etc/passwd')", "INVALID_ARGUMENT"),
            ("SELECT randomblob(1000000000)", "INVALID_ARGUMENT"),
            ("SELECT zeroblob(1000000000)", "INVALID_ARGUMENT"),
            ("SELECT printf('%.*c', 100000000, 'x')", "INVALID_ARGUMENT"),
            ("SELECT * FROM pragma_table_info('symbols')", "INVALID_ARGUMENT"),
            ("SELECT * FROM sqlite_temp_master", "INVALID_ARGUMENT"),
            ("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x FROM n", "INVALID_ARGUMENT"),
            ("WITH x AS (SELECT 1) DELETE FROM symbols", "INVALID_ARGUMENT"),
            ("SELECT date('now')", "INVALID_ARGUMENT"),
            ("SELECT sql FROM sqlite_schema WHERE name = 'files'", "OK"),
        ] {
            let got = s.query_sqlite(query(sql)).map_or_else(|e| e.code(), |_| "OK");
            assert_eq!(got, code, "{sql}");
        }
        // A billion-row cross join: cut by the step budget, before any row (an error) or after some.
        let digits = "WITH d(x) AS (VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)) ";
        let count = format!("{digits}SELECT count(*) FROM d a, d b, d c, d e, d f, d g, d h, d i, d j");
        let e = s.query_sqlite(query(&count)).unwrap_err();
        assert_eq!(e.code(), "LIMIT_EXCEEDED", "{e}");
        // Rows that no loop can be skipped for: none at all, then exactly one (the first combination).
        let sum = "(a.x + b.x + c.x + e.x + f.x + g.x + h.x + i.x + j.x) % 1000";
        let from = "FROM d a, d b, d c, d e, d f, d g, d h, d i, d j";
        let none = format!("{digits}SELECT a.x {from} WHERE {sum} = 999");
        assert_eq!(s.query_sqlite(query(&none)).unwrap_err().code(), "LIMIT_EXCEEDED");
        let one = format!("{digits}SELECT a.x {from} WHERE {sum} = 0");
        let r = s.query_sqlite(query(&one)).unwrap();
        assert_eq!((r.rows.len(), r.truncated_by.as_deref()), (1, Some("steps")), "{r:?}");
        assert_eq!(std::fs::read(&db).unwrap(), before, "the artifact is unchanged");
    }
}
