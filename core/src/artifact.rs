//! The SQLite artifact: the index as tables that any SQLite or DuckDB reader can query — files,
//! symbols, references, calls, file dependencies, type relations and what could not be proven.
//! Keys are portable handles and root-relative paths, so artifacts of several repositories (or of
//! shards of one) can be attached and combined with `UNION ALL`.
//!
//! Both engines build the database the same way: in memory (the only kind of database SQLite has
//! under Node's wasm), with the pragmas that differ between the two builds pinned before the first
//! table, rows inserted in the index's order and indexes created after the rows; then the bytes are
//! serialized and written through the host. The same index gives byte-identical files on both
//! engines; nothing time-dependent is stored in the database (the build time lives in
//! manifest.json). Reading is the reverse: the host reads the bytes, SQLite opens them read-only in
//! memory, and `sql` guards every query.

use std::collections::BTreeMap;

use rusqlite::serialize::Data;
use rusqlite::{params, Connection, MAIN_DB};
use rustc_hash::FxHashMap as HashMap;

use crate::error::Error;
use crate::facts::TypeRelKind;
use crate::host::Host;
use crate::index::{DepVia, Index, SymId};

/// Bumped whenever a table or column changes meaning.
pub(crate) const SCHEMA_VERSION: u32 = 1;
/// The default artifact directory, root-relative.
pub(crate) const DIR: &str = ".codegraph/artifacts";
pub(crate) const DB_FILE: &str = "codegraph.sqlite";
pub(crate) const MANIFEST_FILE: &str = "manifest.json";
pub(crate) const REPORT_FILE: &str = "CODEGRAPH_REPORT.md";
/// `PRAGMA application_id`: "CGRF", so `file` and readers can tell the database apart.
const APPLICATION_ID: i32 = 0x4347_5246;

/// The tables (three of them views), in the order they are documented.
pub(crate) const TABLES: [&str; 8] =
    ["meta", "files", "symbols", "refs", "calls", "file_deps", "type_relations", "unresolved"];
/// What the views `refs`, `calls` and `unresolved` read: the same rows with the ids of `symbols` and
/// `files` instead of repeated handles and paths (a fifth of the size on a large repository).
pub(crate) const ROWS: [&str; 3] = ["ref_rows", "call_rows", "unresolved_rows"];

/// Whether a query may read this table (besides `sqlite_schema`): the tables and the rows behind
/// the views.
pub(crate) fn readable(table: &str) -> bool {
    TABLES.contains(&table) || ROWS.contains(&table)
}

const SCHEMA: &str = r#"
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE files(
  path TEXT NOT NULL UNIQUE, language TEXT NOT NULL, lines INTEGER NOT NULL, code_lines INTEGER,
  bytes INTEGER NOT NULL, hash TEXT NOT NULL,
  id INTEGER PRIMARY KEY);
CREATE TABLE symbols(
  handle TEXT NOT NULL UNIQUE, path TEXT NOT NULL, name TEXT NOT NULL, qualified_name TEXT NOT NULL,
  kind TEXT NOT NULL, line INTEGER NOT NULL, "column" INTEGER NOT NULL, end_line INTEGER NOT NULL,
  exported INTEGER NOT NULL, container TEXT, signature TEXT NOT NULL, doc TEXT,
  fan_in INTEGER NOT NULL, fan_out INTEGER NOT NULL,
  id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL);
CREATE TABLE ref_rows(
  symbol_id INTEGER NOT NULL, file_id INTEGER NOT NULL, line INTEGER NOT NULL, "column" INTEGER NOT NULL,
  kind TEXT NOT NULL, enclosing_id INTEGER);
CREATE VIEW refs AS
  SELECT s.handle AS symbol, f.path AS path, r.line AS line, r."column" AS "column", r.kind AS kind,
         e.handle AS enclosing
  FROM ref_rows r JOIN symbols s ON s.id = r.symbol_id JOIN files f ON f.id = r.file_id
  LEFT JOIN symbols e ON e.id = r.enclosing_id;
CREATE TABLE call_rows(
  caller_id INTEGER, callee_id INTEGER NOT NULL, file_id INTEGER NOT NULL, line INTEGER NOT NULL,
  "column" INTEGER NOT NULL);
CREATE VIEW calls AS
  SELECT c.handle AS caller, s.handle AS callee, f.path AS path, r.line AS line, r."column" AS "column"
  FROM call_rows r JOIN symbols s ON s.id = r.callee_id JOIN files f ON f.id = r.file_id
  LEFT JOIN symbols c ON c.id = r.caller_id;
CREATE TABLE file_deps(from_path TEXT NOT NULL, to_path TEXT NOT NULL, kind TEXT NOT NULL, raw TEXT);
CREATE TABLE type_relations(sub TEXT NOT NULL, super TEXT NOT NULL, kind TEXT NOT NULL);
CREATE TABLE unresolved_rows(
  file_id INTEGER NOT NULL, line INTEGER NOT NULL, "column" INTEGER NOT NULL, name TEXT NOT NULL,
  kind TEXT NOT NULL);
CREATE VIEW unresolved AS
  SELECT f.path AS path, u.line AS line, u."column" AS "column", u.name AS name, u.kind AS kind
  FROM unresolved_rows u JOIN files f ON f.id = u.file_id;
"#;

const INDEXES: &str = r"
CREATE INDEX symbols_name ON symbols(name);
CREATE INDEX symbols_name_lower ON symbols(lower(name));
CREATE INDEX symbols_path ON symbols(path);
CREATE INDEX ref_rows_symbol ON ref_rows(symbol_id);
CREATE INDEX ref_rows_file ON ref_rows(file_id);
CREATE INDEX ref_rows_enclosing ON ref_rows(enclosing_id);
CREATE INDEX call_rows_callee ON call_rows(callee_id);
CREATE INDEX call_rows_caller ON call_rows(caller_id);
CREATE INDEX file_deps_from ON file_deps(from_path);
CREATE INDEX file_deps_to ON file_deps(to_path);
CREATE INDEX type_relations_sub ON type_relations(sub);
CREATE INDEX type_relations_super ON type_relations(super);
CREATE INDEX unresolved_rows_name ON unresolved_rows(name);
CREATE INDEX unresolved_rows_file ON unresolved_rows(file_id);
";

/// A database built from an index.
pub(crate) struct Built {
    /// The database, read-only and in memory: its bytes are lent to the writer uncopied.
    pub db: Connection,
    /// Rows per table, in `TABLES` order.
    pub rows: BTreeMap<String, u64>,
    pub fingerprint: String,
    /// Distinct callers per declaration (for the report).
    fan_in: HashMap<SymId, i64>,
}

/// What identifies the index an artifact was built from: the schema, the core's version and every
/// indexed file's path and content hash.
pub(crate) fn fingerprint(index: &Index) -> String {
    let mut h = blake3::Hasher::new();
    h.update(format!("schema {SCHEMA_VERSION}\ncore {}\n", crate::VERSION).as_bytes());
    for f in &index.files {
        h.update(f.path.as_bytes());
        h.update(b"\0");
        h.update(f.hash.as_bytes());
        h.update(b"\n");
    }
    h.finalize().to_hex().to_string()
}

fn sql_error(e: &rusqlite::Error) -> Error {
    Error::Io(format!("SQLite: {e}"))
}

/// Builds the database of `index`. `code_lines` gives the code line count of file contents (by
/// hash) known from a previous artifact; the other files are read and counted.
pub(crate) fn build(index: &Index, host: &dyn Host, code_lines: &HashMap<String, u64>) -> Result<Built, Error> {
    let mut db = Connection::open_in_memory().map_err(|e| sql_error(&e))?;
    // The two builds' compile-time defaults differ (page size 8192 on wasm, foreign keys, temp
    // store): pinned, the same rows give the same bytes.
    db.execute_batch(&format!(
        "PRAGMA page_size = 4096; PRAGMA encoding = 'UTF-8'; PRAGMA auto_vacuum = NONE;
         PRAGMA foreign_keys = OFF; PRAGMA temp_store = MEMORY;
         PRAGMA user_version = {SCHEMA_VERSION}; PRAGMA application_id = {APPLICATION_ID};"
    ))
    .map_err(|e| sql_error(&e))?;
    db.execute_batch(SCHEMA).map_err(|e| sql_error(&e))?;
    let fingerprint = fingerprint(index);
    let fans = Fans::of(index);
    let tx = db.transaction().map_err(|e| sql_error(&e))?;
    insert_rows(&tx, index, host, code_lines, &fingerprint, &fans).map_err(|e| sql_error(&e))?;
    tx.commit().map_err(|e| sql_error(&e))?;
    db.execute_batch(INDEXES).map_err(|e| sql_error(&e))?;
    let mut rows = BTreeMap::new();
    for table in TABLES {
        let n: i64 =
            db.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).map_err(|e| sql_error(&e))?;
        rows.insert(table.to_string(), n as u64);
    }
    let db = read_only(db).map_err(|e| sql_error(&e))?;
    Ok(Built { db, rows, fingerprint, fan_in: fans.fan_in })
}

/// A built database moved into a read-only in-memory one that owns its bytes (whose `serialize`
/// then lends them, uncopied), the builder's pages freed: the database is held twice while it is
/// copied out of the pages, once after; before, four times over (the pages, a serialized copy, a
/// copy of that, a copy opened for queries).
fn read_only(mut db: Connection) -> rusqlite::Result<Connection> {
    // (A `:memory:` database is not one of memdb's, so its bytes come out as a copy it owns.)
    let bytes = match db.serialize(MAIN_DB)? {
        Data::Owned(bytes) => Ok(bytes),
        Data::Shared(bytes) => Err(bytes.to_vec()),
    };
    drop(db);
    let mut out = Connection::open_in_memory()?;
    match bytes {
        Ok(bytes) => out.deserialize(MAIN_DB, bytes, true)?,
        Err(copy) => out.deserialize_read_exact(MAIN_DB, &copy[..], copy.len(), true)?,
    }
    Ok(out)
}

/// Fan-in (distinct callers; a file's top level counts as one) and fan-out (distinct callees) of
/// every declaration that has any: the `symbols` columns, and the report's most called.
struct Fans {
    fan_in: HashMap<SymId, i64>,
    fan_out: HashMap<SymId, i64>,
}

impl Fans {
    fn of(index: &Index) -> Fans {
        let mut callers: HashMap<SymId, Vec<(u32, Option<SymId>)>> = HashMap::default();
        let mut callees: HashMap<SymId, Vec<SymId>> = HashMap::default();
        for r in index.graph().refs.iter().filter(|r| r.call && !r.import) {
            callers.entry(r.target).or_default().push((r.file, r.enclosing));
            if let Some(e) = r.enclosing {
                callees.entry(e).or_default().push(r.target);
            }
        }
        fn distinct<T: Ord>(mut v: Vec<T>) -> i64 {
            v.sort_unstable();
            v.dedup();
            v.len() as i64
        }
        Fans {
            fan_in: callers.into_iter().map(|(k, v)| (k, distinct(v))).collect(),
            fan_out: callees.into_iter().map(|(k, v)| (k, distinct(v))).collect(),
        }
    }
}

fn insert_rows(
    tx: &rusqlite::Transaction,
    index: &Index,
    host: &dyn Host,
    known_code_lines: &HashMap<String, u64>,
    fingerprint: &str,
    fans: &Fans,
) -> rusqlite::Result<()> {
    let handle = |id: SymId| index.handle(id);
    let path_of = |f: u32| index.files[f as usize].path.as_str();

    {
        let mut meta = tx.prepare("INSERT INTO meta VALUES (?1, ?2)")?;
        let languages: std::collections::BTreeSet<&str> = index.files.iter().map(|f| f.language.name()).collect();
        for (key, value) in [
            ("schema_version", SCHEMA_VERSION.to_string()),
            ("core_version", crate::VERSION.to_string()),
            ("index_fingerprint", fingerprint.to_string()),
            ("languages", languages.into_iter().collect::<Vec<_>>().join(",")),
        ] {
            meta.execute(params![key, value])?;
        }
    }

    // Code lines: from the previous artifact for contents it counted, else read and counted now.
    let to_count: Vec<usize> =
        (0..index.files.len()).filter(|&i| !known_code_lines.contains_key(&index.files[i].hash)).collect();
    let counted: HashMap<usize, u64> =
        crate::api::count_files(index, host, &to_count).into_iter().filter_map(|(i, c)| Some((i, c?.code))).collect();
    {
        let mut files = tx.prepare("INSERT INTO files VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
        for (i, f) in index.files.iter().enumerate() {
            let code = known_code_lines.get(&f.hash).or(counted.get(&i)).map(|&c| c as i64);
            files.execute(params![f.path, f.language.name(), f.lines, code, f.size as i64, f.hash, i as i64])?;
        }
    }

    // The rows made of each file's facts (its declarations, what made its dependencies, what it
    // left unresolved), one file's facts at a time: they are decoded once and not kept.
    {
        let mut symbols = tx.prepare(
            "INSERT INTO symbols VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        )?;
        let mut deps = tx.prepare("INSERT INTO file_deps VALUES (?1, ?2, ?3, ?4)")?;
        let mut unresolved = tx.prepare("INSERT INTO unresolved_rows VALUES (?1, ?2, ?3, ?4, ?5)")?;
        let qualified = index.qualified();
        let graph = index.graph();
        let file_stats = index.file_stats();
        for (fid, f) in index.files.iter().enumerate() {
            let facts = f.facts.passing();
            let path = f.path.as_str();
            let secret = crate::sensitive::classify(path).is_some();
            for (local, sym) in facts.symbols.iter().enumerate() {
                let id = f.sym_base + local as SymId;
                let container = sym.container.map(|c| handle(f.sym_base + c));
                symbols.execute(params![
                    handle(id),
                    path,
                    sym.name,
                    &qualified[id as usize],
                    sym.kind.as_str(),
                    sym.name_pos.line,
                    sym.name_pos.col,
                    sym.end.line,
                    sym.exported,
                    container,
                    crate::api::signature_in(path, sym),
                    sym.doc.as_deref().filter(|_| !secret),
                    fans.fan_in.get(&id).copied().unwrap_or(0),
                    fans.fan_out.get(&id).copied().unwrap_or(0),
                    id,
                    fid as u32,
                ])?;
            }
            for &(to, via) in &graph.dep_via[fid] {
                let (kind, raw) = match via {
                    DepVia::Import(i) => {
                        let imp = &facts.imports[i as usize];
                        (if imp.reexport { "reexport" } else { "import" }, Some(imp.module.as_str()))
                    }
                    DepVia::Mod(i) => ("mod", Some(facts.mods[i as usize].name.as_str())),
                    DepVia::Use => ("use", None),
                };
                deps.execute(params![path, path_of(to), kind, raw])?;
            }
            let stats = &file_stats[fid];
            for &(k, seg) in &stats.unresolved {
                let Some(chain) = facts.refs.get(k as usize) else { continue };
                let Some((name, pos)) = chain.segments.get(seg as usize) else { continue };
                let last = seg as usize + 1 == chain.segments.len();
                let kind = if (chain.call && last) || chain.calls_at.binary_search(&seg).is_ok() {
                    "call"
                } else if seg > 0 || chain.receiver.is_some() || chain.opaque_head {
                    "member"
                } else {
                    "name"
                };
                unresolved.execute(params![fid as i64, pos.line, pos.col, name, kind])?;
            }
            for &(i, j) in &stats.unbound_imports {
                let Some(item) = facts.imports.get(i as usize).and_then(|i| i.items.get(j as usize)) else {
                    continue;
                };
                unresolved.execute(params![fid as i64, item.pos.line, item.pos.col, item.name, "import"])?;
            }
        }
    }
    {
        let mut refs = tx.prepare("INSERT INTO ref_rows VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?;
        let mut calls = tx.prepare("INSERT INTO call_rows VALUES (?1, ?2, ?3, ?4, ?5)")?;
        for r in &index.graph().refs {
            refs.execute(params![r.target, r.file, r.pos.line, r.pos.col, r.kind(), r.enclosing])?;
            if r.call && !r.import {
                calls.execute(params![r.enclosing, r.target, r.file, r.pos.line, r.pos.col])?;
            }
        }
    }
    {
        let mut relations = tx.prepare("INSERT INTO type_relations VALUES (?1, ?2, ?3)")?;
        let mut sorted = index.graph().supertypes.clone();
        sorted.sort();
        sorted.dedup();
        for (sub, kind, sup) in sorted {
            let kind = match kind {
                TypeRelKind::Extends => "extends",
                TypeRelKind::Implements => "implements",
            };
            relations.execute(params![handle(sub), handle(sup), kind])?;
        }
    }
    Ok(())
}

/// Opens an artifact's bytes as a read-only in-memory database.
pub(crate) fn open(bytes: &[u8]) -> Result<Connection, Error> {
    let mut db = Connection::open_in_memory().map_err(|e| sql_error(&e))?;
    db.deserialize_read_exact(MAIN_DB, bytes, bytes.len(), true)
        .map_err(|e| Error::Unreadable(format!("the artifact is not a SQLite database: {e}")))?;
    Ok(db)
}

/// An artifact kept open between queries, while its file's size and mtime are unchanged.
pub(crate) struct Cache {
    pub key: (u64, f64),
    pub db: crate::sql::Guarded,
}

/// What writing an artifact produced.
pub(crate) struct Written {
    pub dir: String,
    /// (root-relative path, bytes) of the files written.
    pub files: Vec<(String, u64)>,
    pub rows: BTreeMap<String, u64>,
    pub fingerprint: String,
    pub built_at: String,
}

/// Builds the artifact of `index` and writes its three files under `dir` (root-relative), each
/// atomically (a temp file, then a rename), the database first: a reader sees a whole old or
/// new database, and the database names its own index fingerprint. Also gives the database
/// written, read-only in memory (for the caller to query without reading it back).
pub(crate) fn write(
    index: &Index,
    host: &dyn Host,
    dir: &str,
    code_lines: &HashMap<String, u64>,
) -> Result<(Written, Connection), Error> {
    let mut built = build(index, host, code_lines)?;
    if dir == crate::store::DIR || dir.starts_with(&format!("{}/", crate::store::DIR)) {
        // Artifacts are not for commits: the folder's own .gitignore says so.
        crate::store::ensure_gitignore(host).map_err(Error::Io)?;
    }
    let built_at = iso_time(host.now_ms());
    let report = report(index, &built, &built_at);
    let db_bytes = built.db.serialize(MAIN_DB).map_err(|e| sql_error(&e))?;
    let db_hash = blake3::hash(&db_bytes).to_hex().to_string();
    let files: BTreeMap<&str, &str> = index.files.iter().map(|f| (f.path.as_str(), f.hash.as_str())).collect();
    let manifest = serde_json::json!({
        "schemaVersion": SCHEMA_VERSION,
        "coreVersion": crate::VERSION,
        "builtAt": built_at,
        "indexFingerprint": built.fingerprint,
        "database": { "path": DB_FILE, "bytes": db_bytes.len(), "blake3": db_hash },
        "rowCounts": built.rows,
        "files": files,
    });
    let manifest = serde_json::to_string_pretty(&manifest).expect("a manifest encodes") + "\n";
    let mut written = Vec::new();
    for (name, bytes) in
        [(DB_FILE, &db_bytes[..]), (MANIFEST_FILE, manifest.as_bytes()), (REPORT_FILE, report.as_bytes())]
    {
        let path = join(dir, name);
        host.write_file_atomic(&path, bytes).map_err(|e| Error::Io(format!("cannot write {path}: {e}")))?;
        written.push((path, bytes.len() as u64));
    }
    drop(db_bytes);
    let written =
        Written { dir: dir.to_string(), files: written, rows: built.rows, fingerprint: built.fingerprint, built_at };
    Ok((written, built.db))
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// `2026-12-01T13:59:28Z` from milliseconds since the epoch (the host's clock: the wasm core has none).
fn iso_time(ms: f64) -> String {
    let secs = (ms / 1000.0).floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// `CODEGRAPH_REPORT.md`: what the artifact holds, in a page.
fn report(index: &Index, built: &Built, built_at: &str) -> String {
    use std::fmt::Write;
    let mut md = String::new();
    let languages = crate::api::LanguageSummary::all(index);
    let _ = writeln!(md, "# codegraph artifact\n");
    let _ = writeln!(
        md,
        "Built {built_at} by codegraph {} (schema {SCHEMA_VERSION}) from {} files; index fingerprint `{}`.\n",
        crate::VERSION,
        index.files.len(),
        &built.fingerprint[..16]
    );
    let _ = writeln!(md, "| language | files | lines | declarations |\n|---|---:|---:|---:|");
    for l in &languages {
        let _ = writeln!(md, "| {} | {} | {} | {} |", l.language, l.files, l.lines, l.symbols);
    }
    let _ = writeln!(md, "\n| table | rows |\n|---|---:|");
    for table in TABLES {
        let _ = writeln!(md, "| `{table}` | {} |", built.rows.get(table).copied().unwrap_or(0));
    }
    let mut top: Vec<(i64, SymId)> = built.fan_in.iter().map(|(&s, &n)| (n, s)).collect();
    top.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    if !top.is_empty() {
        let _ = writeln!(md, "\n## Most called\n\n| declaration | kind | callers |\n|---|---|---:|");
        for (n, id) in top.into_iter().take(10) {
            let _ = writeln!(md, "| `{}` | {} | {n} |", &index.handle(id), index.traits()[id as usize].kind().as_str());
        }
    }
    let mut depended: Vec<(usize, usize)> =
        index.graph().rdeps.iter().enumerate().map(|(f, r)| (r.len(), f)).filter(|&(n, _)| n > 0).collect();
    depended.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    if !depended.is_empty() {
        let _ = writeln!(md, "\n## Most depended-on files\n\n| file | importers |\n|---|---:|");
        for (n, f) in depended.into_iter().take(10) {
            let _ = writeln!(md, "| `{}` | {n} |", index.files[f].path);
        }
    }
    let _ = writeln!(
        md,
        "\n## Not proven\n\n{} uses could not be resolved to a declaration (table `unresolved`): they are counted, never guessed.\n",
        built.rows.get("unresolved").copied().unwrap_or(0)
    );
    let _ = writeln!(
        md,
        "## Query it\n\n```sh\nsqlite3 {DIR}/{DB_FILE} \"SELECT handle, fan_in FROM symbols ORDER BY fan_in DESC LIMIT 10\"\ncodegraph sql \"SELECT path, code_lines FROM files ORDER BY code_lines DESC LIMIT 10\"\n```"
    );
    md
}

#[cfg(test)]
mod tests {
    #[test]
    fn iso_times_from_the_epoch() {
        assert_eq!(super::iso_time(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(super::iso_time(1_796_133_568_000.0), "2026-12-01T13:59:28Z");
        assert_eq!(super::iso_time(951_782_400_000.0), "2000-02-29T00:00:00Z");
    }
}
