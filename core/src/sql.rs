//! The read-only query service behind `query_sqlite` and the custom tools of `.codegraph/tools.yaml`:
//! one SELECT over an artifact opened read-only in memory, under guards that do not depend on the
//! SQL being well-meant:
//! - a lexical check first (one statement, starting with SELECT or WITH; for tools, the blocked
//!   keywords), so a refusal names its reason;
//! - SQLite's own limits (no ATTACH, bounded string/blob, SQL, expression and compound sizes);
//! - an authorizer that allows only SELECT, reads of the artifact's tables and an allowlist of
//!   deterministic functions (no `load_extension`, `readfile`, `randomblob`, `zeroblob`, dates
//!   of "now"), and refuses recursive CTEs and everything else (PRAGMA, writes, temp objects);
//! - a budget counted in SQLite VM steps through the progress handler, not a clock: a clock traps on
//!   wasm32 and would make the two engines answer differently;
//! - rows and bytes capped, with `truncated` and what was cut.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// VM instructions between two calls of the progress handler.
const STEPS_PER_TICK: i32 = 1000;
/// The budget of one query, in VM instructions: a fraction of a second natively, about a second
/// on wasm; enough for a scan, a join and a GROUP BY over a large repository's references.
pub(crate) const STEP_BUDGET: u64 = 200_000_000;
/// Longest string or blob a query may make (bytes).
const MAX_LENGTH: i32 = 1 << 20;
/// Longest SQL text (bytes).
pub(crate) const MAX_SQL_BYTES: usize = 100 * 1024;
/// Longest text value shown in a cell (characters); longer ones are cut and counted.
const CELL_CHARS: usize = 16 * 1024;

/// Functions a query may call: deterministic, present in both engines' SQLite builds, and unable
/// to make large payloads beyond the length limit.
const FUNCTIONS: &[&str] = &[
    "abs",
    "avg",
    "char",
    "coalesce",
    "concat",
    "concat_ws",
    "count",
    "cume_dist",
    "dense_rank",
    "first_value",
    "format",
    "glob",
    "group_concat",
    "hex",
    "ifnull",
    "iif",
    "instr",
    "lag",
    "last_value",
    "lead",
    "length",
    "like",
    "likelihood",
    "likely",
    "lower",
    "ltrim",
    "max",
    "min",
    "nth_value",
    "ntile",
    "nullif",
    "octet_length",
    "percent_rank",
    "printf",
    "quote",
    "rank",
    "replace",
    "round",
    "row_number",
    "rtrim",
    "sign",
    "string_agg",
    "substr",
    "substring",
    "sum",
    "total",
    "trim",
    "typeof",
    "unicode",
    "unlikely",
    "upper",
];

/// Keywords a custom tool's SQL may not contain (the seed's list, plus the statements that change
/// the connection rather than data).
pub(crate) const BLOCKED_KEYWORDS: &[&str] = &[
    "INSERT",
    "UPDATE",
    "DELETE",
    "DROP",
    "ALTER",
    "CREATE",
    "TRUNCATE",
    "GRANT",
    "REVOKE",
    "UNION",
    "EXCEPT",
    "INTERSECT",
    "ATTACH",
    "DETACH",
    "PRAGMA",
    "VACUUM",
    "REINDEX",
    "ANALYZE",
];

/// A value bound to a `?` parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum SqlParam {
    Integer(i64),
    Real(f64),
    Text(String),
    Null,
}

impl rusqlite::ToSql for SqlParam {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, Value};
        Ok(ToSqlOutput::Owned(match self {
            SqlParam::Integer(i) => Value::Integer(*i),
            SqlParam::Real(f) => Value::Real(*f),
            SqlParam::Text(s) => Value::Text(s.clone()),
            SqlParam::Null => Value::Null,
        }))
    }
}

/// One lexical token of SQL: enough to find statements, keywords and placeholders outside string
/// literals, quoted identifiers and comments.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Token<'a> {
    Word(&'a str),
    /// `'…'`, `"…"`, `` `…` ``, `[…]`, or a number: never a keyword.
    Quoted,
    /// `{name}` (custom tools' parameters).
    Placeholder(&'a str),
    Semicolon,
    Other,
}

/// The tokens of `sql` with their byte ranges; comments and whitespace are skipped. An unterminated
/// literal or comment is an error (SQLite would read it differently from the check).
pub(crate) fn tokens(sql: &str) -> Result<Vec<(Token<'_>, std::ops::Range<usize>)>, Error> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let unterminated = |what: &str| Error::InvalidArgument(format!("the SQL has an unterminated {what}"));
    while i < b.len() {
        let start = i;
        let c = b[i];
        match c {
            _ if c.is_ascii_whitespace() => i += 1,
            b'-' if b.get(i + 1) == Some(&b'-') => i = sql[i..].find('\n').map_or(b.len(), |n| i + n + 1),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = sql[i + 2..].find("*/").map(|n| i + 2 + n + 2).ok_or_else(|| unterminated("comment"))?;
            }
            b'\'' | b'"' | b'`' | b'[' => {
                let close = if c == b'[' { b']' } else { c };
                i += 1;
                loop {
                    match b.get(i) {
                        None => return Err(unterminated("quoted text")),
                        Some(&x) if x == close => {
                            // A doubled quote is the quote itself (not for `[…]`).
                            if close != b']' && b.get(i + 1) == Some(&close) {
                                i += 2;
                                continue;
                            }
                            i += 1;
                            break;
                        }
                        Some(_) => i += 1,
                    }
                }
                out.push((Token::Quoted, start..i));
            }
            b'{' => {
                let end = sql[i..].find('}').map(|n| i + n).ok_or_else(|| unterminated("`{` placeholder"))?;
                out.push((Token::Placeholder(sql[i + 1..end].trim()), start..end + 1));
                i = end + 1;
            }
            b';' => {
                out.push((Token::Semicolon, start..i + 1));
                i += 1;
            }
            _ if c.is_ascii_digit() => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                    i += 1;
                }
                out.push((Token::Quoted, start..i));
            }
            _ if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$' || b[i] >= 0x80) {
                    i += 1;
                }
                out.push((Token::Word(&sql[start..i]), start..i));
            }
            _ => {
                i += 1;
                out.push((Token::Other, start..i));
            }
        }
    }
    Ok(out)
}

/// Checks that `sql` is one SELECT (or WITH … SELECT) statement; with `blocked`, that it holds
/// none of those keywords. Placeholders are allowed only when `placeholders` (custom tools).
pub(crate) fn check_select(sql: &str, blocked: &[&str], placeholders: bool) -> Result<(), Error> {
    if sql.len() > MAX_SQL_BYTES {
        return Err(Error::InvalidArgument(format!("the SQL is longer than {MAX_SQL_BYTES} bytes")));
    }
    let toks = tokens(sql)?;
    let refuse = |why: String| Err(Error::InvalidArgument(format!("refused: {why}")));
    match toks.first() {
        Some((Token::Word(w), _)) if w.eq_ignore_ascii_case("select") || w.eq_ignore_ascii_case("with") => {}
        Some((_, range)) => {
            return refuse(format!("only a SELECT (or WITH … SELECT) query is allowed, not {}", &sql[range.clone()]));
        }
        None => return Err(Error::InvalidArgument("the SQL is empty".into())),
    }
    for (k, (t, _)) in toks.iter().enumerate() {
        match t {
            Token::Semicolon if k + 1 < toks.len() => {
                return refuse("one statement only (a `;` is followed by more SQL)".into());
            }
            Token::Word(w) => {
                if let Some(kw) = blocked.iter().find(|kw| w.eq_ignore_ascii_case(kw)) {
                    return refuse(format!("the keyword {kw} is not allowed (read-only SELECT, no set operations)"));
                }
            }
            Token::Placeholder(p) if !placeholders => {
                return refuse(format!("`{{{p}}}` is not SQL; bind values with `?` and `params`"));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Caps of one query.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Caps {
    pub rows: usize,
    pub bytes: usize,
}

/// What a query returned.
#[derive(Debug, Default)]
#[allow(clippy::struct_field_names)] // `rows` of `Rows` reads as what it is
pub(crate) struct Rows {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<serde_json::Value>>,
    /// Why the rows stop early: `rows`, `bytes` or `steps`.
    pub truncated_by: Option<&'static str>,
    /// Text cells cut to `CELL_CHARS`.
    pub cut_cells: u64,
    /// VM steps the query took (in ticks of `STEPS_PER_TICK`).
    pub steps: u64,
}

/// A connection under the guards: limits, authorizer and the step budget's counter.
pub(crate) struct Guarded {
    db: Connection,
    ticks: Arc<AtomicU64>,
}

/// Puts the guards on a connection (an artifact opened read-only).
pub(crate) fn guard(mut db: Connection, readable: fn(&str) -> bool) -> Result<Guarded, Error> {
    let e = |e: rusqlite::Error| Error::Io(format!("SQLite: {e}"));
    db.pragma_update(None, "query_only", true).map_err(e)?;
    for (limit, value) in [
        (Limit::SQLITE_LIMIT_ATTACHED, 0),
        (Limit::SQLITE_LIMIT_LENGTH, MAX_LENGTH),
        (Limit::SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_BYTES as i32),
        (Limit::SQLITE_LIMIT_COLUMN, 200),
        (Limit::SQLITE_LIMIT_EXPR_DEPTH, 100),
        (Limit::SQLITE_LIMIT_COMPOUND_SELECT, 20),
        (Limit::SQLITE_LIMIT_VDBE_OP, 50_000),
        (Limit::SQLITE_LIMIT_FUNCTION_ARG, 32),
        (Limit::SQLITE_LIMIT_VARIABLE_NUMBER, 100),
        (Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000),
        (Limit::SQLITE_LIMIT_TRIGGER_DEPTH, 0),
    ] {
        db.set_limit(limit, value).map_err(e)?;
    }
    // Set after the pragmas: it refuses PRAGMA too.
    db.authorizer(Some(move |ctx: AuthContext<'_>| authorize(&ctx, readable))).map_err(e)?;
    let ticks = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&ticks);
    let budget = STEP_BUDGET / STEPS_PER_TICK as u64;
    db.progress_handler(STEPS_PER_TICK, Some(move || counter.fetch_add(1, Ordering::Relaxed) + 1 > budget))
        .map_err(e)?;
    Ok(Guarded { db, ticks })
}

fn authorize(ctx: &AuthContext<'_>, readable: fn(&str) -> bool) -> Authorization {
    let main = ctx.database_name.is_none_or(|d| d == "main");
    match ctx.action {
        AuthAction::Select => Authorization::Allow,
        // A common table expression or subquery (named in no database): its rows come from the
        // reads that are authorized one by one.
        AuthAction::Read { .. } if ctx.database_name.is_none() => Authorization::Allow,
        AuthAction::Read { table_name, .. }
            if main && (readable(table_name) || table_name == "sqlite_schema" || table_name == "sqlite_master") =>
        {
            Authorization::Allow
        }
        AuthAction::Function { function_name } if FUNCTIONS.contains(&function_name.to_ascii_lowercase().as_str()) => {
            Authorization::Allow
        }
        _ => Authorization::Deny,
    }
}

impl Guarded {
    /// Runs one checked SELECT with its parameters, within the caps and the step budget.
    pub(crate) fn run(&self, sql: &str, params: &[SqlParam], caps: Caps) -> Result<Rows, Error> {
        let refused = |e: rusqlite::Error| Error::InvalidArgument(format!("refused by SQLite: {e}"));
        self.ticks.store(0, Ordering::Relaxed);
        let mut stmt = self.db.prepare(sql).map_err(refused)?;
        if !stmt.readonly() {
            return Err(Error::InvalidArgument("refused: the statement would write".into()));
        }
        let expected = stmt.parameter_count();
        if params.len() != expected {
            return Err(Error::InvalidArgument(format!(
                "the query has {expected} `?` parameter(s) but {} value(s) were given",
                params.len()
            )));
        }
        let mut out = Rows { columns: stmt.column_names().map(str::to_string).collect(), ..Rows::default() };
        let width = out.columns.len();
        let mut rows = stmt.query(rusqlite::params_from_iter(params.iter())).map_err(refused)?;
        let mut bytes = 0;
        loop {
            let row = match rows.next() {
                Ok(Some(row)) => row,
                Ok(None) => break,
                Err(rusqlite::Error::SqliteFailure(f, _)) if f.code == rusqlite::ErrorCode::OperationInterrupted => {
                    if out.rows.is_empty() {
                        return Err(Error::LimitExceeded(format!(
                            "the query ran past its budget of {STEP_BUDGET} SQLite steps before its first row; narrow it (an index column in WHERE, fewer joins)"
                        )));
                    }
                    out.truncated_by = Some("steps");
                    break;
                }
                Err(e) => return Err(refused(e)),
            };
            if out.rows.len() == caps.rows {
                out.truncated_by = Some("rows");
                break;
            }
            let mut cells = Vec::with_capacity(width);
            for i in 0..width {
                cells.push(cell(row.get_ref(i).map_err(refused)?, &mut out.cut_cells));
            }
            let size = serde_json::to_string(&cells).map_or(0, |s| s.len());
            if bytes + size > caps.bytes {
                out.truncated_by = Some("bytes");
                break;
            }
            bytes += size;
            out.rows.push(cells);
        }
        out.steps = self.ticks.load(Ordering::Relaxed) * STEPS_PER_TICK as u64;
        Ok(out)
    }

    /// One value of an internal query (the artifact's own `meta`), through the same guards.
    pub(crate) fn meta(&self, key: &str) -> Option<String> {
        self.ticks.store(0, Ordering::Relaxed);
        self.db.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).ok()
    }

    /// `(path, hash, code_lines)` of every file the artifact describes.
    pub(crate) fn files(&self) -> Vec<(String, String, Option<i64>)> {
        self.ticks.store(0, Ordering::Relaxed);
        let Ok(mut stmt) = self.db.prepare("SELECT path, hash, code_lines FROM files") else { return Vec::new() };
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map(|rows| rows.filter_map(Result::ok).collect())
            .unwrap_or_default()
    }
}

fn cell(value: ValueRef<'_>, cut: &mut u64) -> serde_json::Value {
    use serde_json::Value;
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => {
            serde_json::Number::from_f64(f).map_or_else(|| Value::String(f.to_string()), Value::Number)
        }
        ValueRef::Text(t) => {
            let text = String::from_utf8_lossy(t);
            if text.chars().count() > CELL_CHARS {
                *cut += 1;
                Value::String(text.chars().take(CELL_CHARS).collect::<String>() + "…")
            } else {
                Value::String(text.into_owned())
            }
        }
        ValueRef::Blob(b) => {
            let shown = &b[..b.len().min(CELL_CHARS / 2)];
            if shown.len() < b.len() {
                *cut += 1;
            }
            let hex = shown.iter().fold(String::with_capacity(shown.len() * 2), |mut h, x| {
                use std::fmt::Write;
                let _ = write!(h, "{x:02x}");
                h
            });
            serde_json::json!({ "blob": hex, "bytes": b.len() })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{check_select, tokens, Token, BLOCKED_KEYWORDS};

    #[test]
    fn the_lexer_sees_keywords_only_outside_literals_and_comments() {
        let words: Vec<String> = tokens("SELECT 'DELETE', \"DROP\" -- UNION\n/* INSERT */ x FROM t")
            .unwrap()
            .into_iter()
            .filter_map(|(t, _)| if let Token::Word(w) = t { Some(w.to_string()) } else { None })
            .collect();
        assert_eq!(words, ["SELECT", "x", "FROM", "t"]);
        assert!(tokens("SELECT 'it''s'").is_ok());
        assert!(tokens("SELECT 'open").is_err());
        assert!(tokens("SELECT 1 /* open").is_err());
    }

    #[test]
    fn only_one_select_passes_the_check() {
        assert!(check_select("SELECT 1", &[], false).is_ok());
        assert!(check_select("  with x as (select 1) select * from x;  -- done", &[], false).is_ok());
        for bad in ["DELETE FROM t", "SELECT 1; DELETE FROM t", "PRAGMA writable_schema=1", "VACUUM INTO 'x'", ""] {
            assert!(check_select(bad, &[], false).is_err(), "{bad}");
        }
        assert!(check_select("SELECT a FROM t UNION SELECT b FROM u", &[], false).is_ok());
        let e = check_select("SELECT a FROM t UnIoN SELECT b FROM u", BLOCKED_KEYWORDS, true).unwrap_err();
        assert!(e.to_string().contains("UNION"), "{e}");
        // A keyword split by a comment is two words, as SQLite reads it too.
        assert!(check_select("SELECT 1 AS DE/**/LETE", BLOCKED_KEYWORDS, true).is_ok());
        assert!(check_select("SELECT {x}", &[], false).is_err());
        assert!(check_select("SELECT {x}", &[], true).is_ok());
    }
}
