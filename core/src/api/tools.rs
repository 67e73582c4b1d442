//! Custom SQL tools from `.codegraph/tools.yaml`: a team's named analyses over the SQLite artifact,
//! registered by the MCP server as tools with flat input schemas, listed by `codegraph tools`, run
//! by `codegraph tool NAME --param k=v`. The file is parsed with yaml-rust2 and each definition
//! validated (at load and again when it runs): a `snake_case` name that no built-in tool has, a
//! description, SQL that is one SELECT without the blocked keywords (writes, DDL, set operations)
//! and at most 10 KB, at most 10 parameters of type int, float or string, each `{name}`
//! placeholder defined and each parameter used. A bad definition is reported and skipped; the
//! others load.
//!
//! Placeholders become bound `?N` parameters, never text: a value can't change the SQL. String
//! values are also refused when they hold SQL metacharacters (`'`, `"`, `;`, `--`, `/*`, `*/`),
//! as the seed specifies. A query without a LIMIT gets `LIMIT 1000`; rows are capped at 1000.
//! Tools run through the same guarded executor as `querySqlite`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use yaml_rust2::{Yaml, YamlLoader};

use super::sqlite::{run_checked, QuerySqliteResponse};
use super::{Ctx, Error};
use crate::sql::{self, SqlParam, Token};

/// The file, root-relative.
pub const TOOLS_FILE: &str = ".codegraph/tools.yaml";
const TOOLS_FILE_LIMIT: u64 = 1 << 20;
const MAX_SQL_BYTES: usize = 10 * 1024;
const MAX_PARAMETERS: usize = 10;
/// Rows a tool returns at most (and the LIMIT appended when its SQL has none).
pub const TOOL_ROWS_CAP: u32 = 1000;
/// Longest string parameter value, in characters.
const MAX_STRING_PARAM: usize = 1000;
const METACHARACTERS: [&str; 6] = ["'", "\"", ";", "--", "/*", "*/"];

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CustomToolsRequest {}

/// One parameter of a custom tool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolParameter {
    pub name: String,
    /// `int`, `float` or `string`.
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<SqlParam>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CustomTool {
    pub name: String,
    pub description: String,
    pub sql: String,
    pub parameters: Vec<ToolParameter>,
    /// The flat JSON Schema of its arguments (what the MCP server registers).
    pub input_schema: serde_json::Value,
}

/// A definition that was skipped, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolIssue {
    /// The tool's name, or `#N` (1-based) when it has none; absent for the file as a whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CustomToolsResponse {
    pub path: String,
    /// Whether the file exists.
    pub exists: bool,
    pub tools: Vec<CustomTool>,
    pub issues: Vec<ToolIssue>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunToolRequest {
    /// The tool's name in `.codegraph/tools.yaml`.
    pub name: String,
    /// Arguments by parameter name (numbers or strings; strings are converted for int and float).
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
}

/// The custom tools of the root, and the definitions skipped.
#[allow(clippy::unnecessary_wraps)] // every handler of the method table returns a Result
pub(crate) fn custom_tools(ctx: &Ctx, _req: CustomToolsRequest) -> Result<CustomToolsResponse, Error> {
    Ok(load(ctx.host))
}

/// Runs one custom tool with its arguments.
pub(crate) fn run_tool(ctx: &Ctx, req: RunToolRequest) -> Result<QuerySqliteResponse, Error> {
    let loaded = load(ctx.host);
    let Some(tool) = loaded.tools.iter().find(|t| t.name == req.name) else {
        let why = loaded
            .issues
            .iter()
            .find(|i| i.tool.as_deref() == Some(req.name.as_str()))
            .map_or_else(String::new, |i| format!(" (its definition was skipped: {})", i.message));
        let known: Vec<&str> = loaded.tools.iter().map(|t| t.name.as_str()).collect();
        return Err(Error::NotFound(format!(
            "no custom tool `{}` in {TOOLS_FILE}{why}; tools: {}",
            req.name,
            if known.is_empty() { "none".to_string() } else { known.join(", ") }
        )));
    };
    for name in req.params.keys() {
        if !tool.parameters.iter().any(|p| &p.name == name) {
            let names: Vec<&str> = tool.parameters.iter().map(|p| p.name.as_str()).collect();
            return Err(Error::InvalidArgument(format!(
                "`{}` takes no parameter `{name}`; parameters: {}",
                tool.name,
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            )));
        }
    }
    let mut values = Vec::with_capacity(tool.parameters.len());
    for p in &tool.parameters {
        let value = match req.params.get(&p.name) {
            Some(v) => {
                convert(&p.kind, v).map_err(|e| Error::InvalidArgument(format!("parameter `{}`: {e}", p.name)))?
            }
            None => p.default.clone().ok_or_else(|| {
                Error::InvalidArgument(format!("`{}` needs the parameter `{}` ({})", tool.name, p.name, p.kind))
            })?,
        };
        values.push(value);
    }
    // Validated again as it runs: the definition, then the SQL that is executed.
    let (sql, order) = compile(&tool.sql, &tool.parameters).map_err(Error::InvalidArgument)?;
    let bound: Vec<SqlParam> = order.iter().map(|&i| values[i].clone()).collect();
    sql::check_select(&sql, sql::BLOCKED_KEYWORDS, false)?;
    run_checked(ctx, &sql, &bound, TOOL_ROWS_CAP as usize)
}

/// Reads and validates the tools file; never fails (what is wrong is in `issues`).
fn load(host: &dyn crate::host::Host) -> CustomToolsResponse {
    let mut out = CustomToolsResponse { path: TOOLS_FILE.into(), exists: false, tools: Vec::new(), issues: Vec::new() };
    let file_issue = |message: String| ToolIssue { tool: None, message };
    // Through the folder's guard: `.codegraph` must be a real directory, the file a regular one.
    let bytes = match crate::store::read(host, "tools.yaml", TOOLS_FILE_LIMIT) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return out,
        Err(e) => {
            out.exists = true;
            out.issues.push(file_issue(format!("cannot read {TOOLS_FILE}: {e}")));
            return out;
        }
    };
    out.exists = true;
    let Ok(text) = String::from_utf8(bytes) else {
        out.issues.push(file_issue(format!("{TOOLS_FILE} is not UTF-8 text")));
        return out;
    };
    let docs = match YamlLoader::load_from_str(&text) {
        Ok(docs) => docs,
        Err(e) => {
            out.issues.push(file_issue(format!("{TOOLS_FILE} is not valid YAML: {e}")));
            return out;
        }
    };
    let Some(doc) = docs.first() else { return out };
    let tools = match &doc["tools"] {
        Yaml::Array(tools) => tools,
        Yaml::BadValue | Yaml::Null => {
            out.issues.push(file_issue(format!("{TOOLS_FILE} has no `tools:` list")));
            return out;
        }
        _ => {
            out.issues.push(file_issue("`tools` must be a list of tool definitions".into()));
            return out;
        }
    };
    let reserved = reserved_names();
    for (k, def) in tools.iter().enumerate() {
        let label = def["name"].as_str().map_or_else(|| format!("#{}", k + 1), str::to_string);
        match tool(def, &reserved) {
            Ok(tool) if out.tools.iter().any(|t| t.name == tool.name) => {
                out.issues.push(ToolIssue { tool: Some(label), message: "a second tool of the same name".into() });
            }
            Ok(tool) => out.tools.push(tool),
            Err(message) => out.issues.push(ToolIssue { tool: Some(label), message }),
        }
    }
    out
}

/// The names of the built-in MCP tools (the API's methods in `snake_case`, and `refresh_index`).
fn reserved_names() -> Vec<String> {
    let mut names: Vec<String> = super::METHODS.iter().map(|m| snake_case(m)).collect();
    names.push("refresh_index".into());
    names
}

fn snake_case(camel: &str) -> String {
    let mut out = String::new();
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn is_snake_case(name: &str) -> bool {
    name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// One definition, validated.
fn tool(def: &Yaml, reserved: &[String]) -> Result<CustomTool, String> {
    let Yaml::Hash(fields) = def else { return Err("a tool definition must be a mapping".into()) };
    for key in fields.keys() {
        match key.as_str() {
            Some("name" | "description" | "sql" | "parameters") => {}
            _ => return Err(format!("unknown field {key:?} (fields: name, description, sql, parameters)")),
        }
    }
    let name = def["name"].as_str().ok_or("`name` is required (a snake_case string)")?.to_string();
    if !is_snake_case(&name) {
        return Err(format!("`{name}` is not a snake_case name (a-z, 0-9, _; starting with a letter; ≤ 64)"));
    }
    if reserved.contains(&name) {
        return Err(format!("`{name}` is a built-in tool's name"));
    }
    let description =
        def["description"].as_str().filter(|d| !d.trim().is_empty()).ok_or("`description` is required")?;
    let sql = def["sql"].as_str().ok_or("`sql` is required (one SELECT)")?;
    if sql.len() > MAX_SQL_BYTES {
        return Err(format!("`sql` is longer than {} KB", MAX_SQL_BYTES / 1024));
    }
    let parameters = match &def["parameters"] {
        Yaml::BadValue | Yaml::Null => Vec::new(),
        Yaml::Array(list) => list.iter().map(parameter).collect::<Result<Vec<_>, _>>()?,
        _ => return Err("`parameters` must be a list".into()),
    };
    if parameters.len() > MAX_PARAMETERS {
        return Err(format!("at most {MAX_PARAMETERS} parameters (got {})", parameters.len()));
    }
    for (i, p) in parameters.iter().enumerate() {
        if parameters[..i].iter().any(|q| q.name == p.name) {
            return Err(format!("the parameter `{}` is defined twice", p.name));
        }
    }
    let (compiled, _) = compile(sql, &parameters)?;
    sql::check_select(&compiled, sql::BLOCKED_KEYWORDS, false).map_err(|e| e.to_string())?;
    let properties: serde_json::Map<String, serde_json::Value> = parameters
        .iter()
        .map(|p| {
            let ty = match p.kind.as_str() {
                "int" => "integer",
                "float" => "number",
                _ => "string",
            };
            let mut schema = serde_json::json!({ "type": ty });
            if let Some(d) = &p.default {
                schema["default"] = serde_json::to_value(d).expect("a value encodes");
            }
            (p.name.clone(), schema)
        })
        .collect();
    let required: Vec<&str> = parameters.iter().filter(|p| p.default.is_none()).map(|p| p.name.as_str()).collect();
    let mut input_schema =
        serde_json::json!({ "type": "object", "properties": properties, "additionalProperties": false });
    if !required.is_empty() {
        input_schema["required"] = serde_json::json!(required);
    }
    Ok(CustomTool { name, description: description.trim().to_string(), sql: sql.to_string(), parameters, input_schema })
}

fn parameter(def: &Yaml) -> Result<ToolParameter, String> {
    let name = def["name"].as_str().ok_or("a parameter needs a `name`")?.to_string();
    if !(name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    {
        return Err(format!("the parameter name `{name}` is not an identifier"));
    }
    let kind = def["type"].as_str().unwrap_or("string").to_string();
    if !matches!(kind.as_str(), "int" | "float" | "string") {
        return Err(format!("the parameter `{name}` has type `{kind}`; types: int, float, string"));
    }
    let default = match &def["default"] {
        Yaml::BadValue => None,
        Yaml::Integer(i) => Some(serde_json::json!(i)),
        Yaml::Real(r) => Some(serde_json::json!(r.parse::<f64>().map_err(|_| format!("`{name}`: bad number {r}"))?)),
        Yaml::String(s) => Some(serde_json::json!(s)),
        Yaml::Null => Some(serde_json::Value::Null),
        other => return Err(format!("the default of `{name}` must be a number or a string (got {other:?})")),
    };
    let default = match default {
        Some(serde_json::Value::Null) => Some(SqlParam::Null),
        Some(v) => Some(convert(&kind, &v).map_err(|e| format!("the default of `{name}`: {e}"))?),
        None => None,
    };
    Ok(ToolParameter { name, kind, default })
}

/// A value converted to a parameter's type, with the checks of that type.
fn convert(kind: &str, value: &serde_json::Value) -> Result<SqlParam, String> {
    use serde_json::Value;
    match (kind, value) {
        ("int", Value::Number(n)) => n.as_i64().map(SqlParam::Integer).ok_or_else(|| format!("{n} is not an integer")),
        ("int", Value::String(s)) => {
            s.trim().parse().map(SqlParam::Integer).map_err(|_| format!("{s:?} is not an integer"))
        }
        ("float", Value::Number(n)) => n.as_f64().map(SqlParam::Real).ok_or_else(|| format!("{n} is not a number")),
        ("float", Value::String(s)) => match s.trim().parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(SqlParam::Real(f)),
            _ => Err(format!("{s:?} is not a number")),
        },
        ("string", Value::String(s)) => {
            if let Some(m) = METACHARACTERS.iter().find(|m| s.contains(**m)) {
                return Err(format!("string values may not contain SQL metacharacters ({m} found)"));
            }
            if s.chars().count() > MAX_STRING_PARAM {
                return Err(format!("longer than {MAX_STRING_PARAM} characters"));
            }
            Ok(SqlParam::Text(s.clone()))
        }
        ("string", Value::Number(n)) => Ok(SqlParam::Text(n.to_string())),
        (kind, other) => Err(format!("expected {kind}, got {other}")),
    }
}

/// The SQL with `{name}` placeholders as `?N` (N: 1-based position in `order`), a LIMIT when it has
/// none, and for each `?N` the parameter's index. Checks that every placeholder is a parameter and
/// every parameter is used.
fn compile(sql: &str, parameters: &[ToolParameter]) -> Result<(String, Vec<usize>), String> {
    let tokens = sql::tokens(sql).map_err(|e| e.to_string())?;
    let mut out = String::with_capacity(sql.len() + 16);
    let mut order: Vec<usize> = Vec::new();
    let mut last = 0;
    let mut has_limit = false;
    let mut end = sql.len();
    for (t, range) in &tokens {
        match t {
            Token::Placeholder(name) => {
                let i = parameters
                    .iter()
                    .position(|p| p.name == *name)
                    .ok_or_else(|| format!("`{{{name}}}` is not a defined parameter"))?;
                let n = if let Some(n) = order.iter().position(|&j| j == i) {
                    n + 1
                } else {
                    order.push(i);
                    order.len()
                };
                out.push_str(&sql[last..range.start]);
                out.push('?');
                out.push_str(&n.to_string());
                last = range.end;
            }
            Token::Word(w) if w.eq_ignore_ascii_case("limit") => has_limit = true,
            Token::Semicolon => end = range.start,
            _ => {}
        }
    }
    out.push_str(&sql[last..end.max(last)]);
    for (i, p) in parameters.iter().enumerate() {
        if !order.contains(&i) {
            let quoted = sql.contains(&format!("{{{}}}", p.name));
            return Err(if quoted {
                format!(
                    "`{{{}}}` is inside quotes, where it can't be bound: write it bare (`LIKE {{{0}}}`, or `'%' || {{{0}}}`)",
                    p.name
                )
            } else {
                format!("the parameter `{}` is not used in `sql`", p.name)
            });
        }
    }
    if !has_limit {
        out = format!("{}\nLIMIT {TOOL_ROWS_CAP}", out.trim_end());
    }
    Ok((out, order))
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::{ArtifactBuildRequest, CustomToolsRequest, DiscoveryOptions, RunToolRequest, Session, StdHost};

    const TOOLS: &str = r#"
tools:
  - name: big_files
    description: Files with more than N code lines
    sql: |
      SELECT path, code_lines FROM files WHERE code_lines > {min_lines} AND path LIKE {prefix}
      ORDER BY code_lines DESC
    parameters:
      - name: min_lines
        type: int
        default: 1
      - name: prefix
        type: string
        default: "%"
  - name: orient
    description: collides
    sql: SELECT 1
  - name: sets
    description: a set operation
    sql: SELECT path FROM files UNION SELECT handle FROM symbols
  - name: quoted
    description: placeholder in quotes
    sql: SELECT path FROM files WHERE path LIKE '{p}%'
    parameters:
      - name: p
  - name: Bad-Name
    description: x
    sql: SELECT 1
  - description: no name
    sql: SELECT 1
  - name: writes
    description: x
    sql: DELETE FROM files
  - name: typed
    description: x
    sql: SELECT {x}
    parameters:
      - name: x
        type: date
"#;

    #[test]
    fn tools_load_validate_and_run_with_bound_parameters() {
        let (dir, _) = repo(&[
            ("a.py", "def f():\n    return 1\n\n\ndef g():\n    return f()\n"),
            ("b.py", "x = 1\n"),
            (".codegraph/tools.yaml", TOOLS),
        ]);
        let options = DiscoveryOptions { allow_build: true, ..Default::default() };
        let mut s = Session::open(Box::new(StdHost::new(dir.path())), options).unwrap();
        let loaded = s.custom_tools(CustomToolsRequest {}).unwrap();
        assert_eq!(loaded.tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["big_files"]);
        let skipped: Vec<(&str, &str)> =
            loaded.issues.iter().map(|i| (i.tool.as_deref().unwrap(), i.message.as_str())).collect();
        let names: Vec<&str> = skipped.iter().map(|s| s.0).collect();
        assert_eq!(names, ["orient", "sets", "quoted", "Bad-Name", "#6", "writes", "typed"], "{skipped:?}");
        assert!(skipped[1].1.contains("UNION"), "{skipped:?}");
        assert!(skipped[2].1.contains("inside quotes"), "{skipped:?}");
        let schema = &loaded.tools[0].input_schema;
        assert_eq!(schema["properties"]["min_lines"]["type"], "integer");
        assert_eq!(schema["additionalProperties"], false);

        s.artifact_build(ArtifactBuildRequest::default()).unwrap();
        let run = |s: &mut Session, params: serde_json::Value| {
            s.run_tool(RunToolRequest { name: "big_files".into(), params: serde_json::from_value(params).unwrap() })
        };
        let r = run(&mut s, serde_json::json!({})).unwrap();
        assert_eq!(r.rows, [vec![serde_json::json!("a.py"), serde_json::json!(4)]]);
        let r = run(&mut s, serde_json::json!({ "min_lines": "0", "prefix": "b%" })).unwrap();
        assert_eq!(r.rows, [vec![serde_json::json!("b.py"), serde_json::json!(1)]]);
        for bad in [
            serde_json::json!({ "min_lines": "ten" }),
            serde_json::json!({ "prefix": "x' OR 1=1 --" }),
            serde_json::json!({ "prefix": "a;b" }),
            serde_json::json!({ "prefix": "/*" }),
            serde_json::json!({ "other": 1 }),
        ] {
            assert_eq!(run(&mut s, bad.clone()).unwrap_err().code(), "INVALID_ARGUMENT", "{bad}");
        }
        let e =
            s.run_tool(RunToolRequest { name: "sets".into(), params: std::collections::BTreeMap::new() }).unwrap_err();
        assert_eq!(e.code(), "NOT_FOUND");
        assert!(e.to_string().contains("UNION"), "{e}");
    }

    #[test]
    fn placeholders_become_bound_parameters_and_a_limit_is_added() {
        let p = |name: &str| super::ToolParameter { name: name.into(), kind: "int".into(), default: None };
        let (sql, order) = super::compile("SELECT {b}, {a}, {b} FROM t;", &[p("a"), p("b")]).unwrap();
        assert_eq!(sql, "SELECT ?1, ?2, ?1 FROM t\nLIMIT 1000");
        assert_eq!(order, [1, 0]);
        let (sql, _) = super::compile("SELECT 1 LIMIT 5", &[]).unwrap();
        assert_eq!(sql, "SELECT 1 LIMIT 5");
        assert!(super::compile("SELECT {nope}", &[]).is_err());
        assert!(super::compile("SELECT 1", &[p("unused")]).is_err());
    }
}
