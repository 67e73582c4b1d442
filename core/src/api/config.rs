//! `.codegraph/config`: the project's own settings, committed with it — context profiles
//! (`[profiles.NAME.context]`) and which tools the MCP server offers (`[mcp] tools = [...]`). One
//! reader for every use: context packs take their profiles from it, `mcp serve` its tool list, and
//! the `config` method shows it. A malformed file is a clear error naming the key.

use serde::{Deserialize, Serialize};

use super::{Budget, Error};

/// The config file, root-relative.
pub(crate) const CONFIG_FILE: &str = ".codegraph/config";

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConfigRequest {}

/// The settings of `.codegraph/config` (empty when there is none).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConfigResponse {
    /// Whether the file exists.
    pub present: bool,
    pub profiles: Vec<ContextProfile>,
    pub mcp: McpConfig,
}

/// `[mcp]`: how `codegraph mcp serve` serves this project.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct McpConfig {
    /// Only these tools (MCP names); absent: all. `--tools` overrides it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
}

/// A profile from `.codegraph/config`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ContextProfile {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub focus: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub focus_symbol: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compress: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
}

/// Reads `.codegraph/config` (empty settings when there is none).
pub(crate) fn load(host: &dyn crate::host::Host) -> Result<ConfigResponse, Error> {
    let bad = |why: String| Error::InvalidArgument(format!("{CONFIG_FILE}: {why}"));
    let Some(bytes) = crate::store::read(host, "config", crate::store::SMALL_FILE_CAP).map_err(bad)? else {
        return Ok(ConfigResponse::default());
    };
    let text = String::from_utf8(bytes).map_err(|_| bad("not UTF-8".into()))?;
    let table = text.parse::<toml::Table>().map_err(|e| bad(e.to_string()))?;
    Ok(ConfigResponse { present: true, profiles: profiles(&table, &bad)?, mcp: mcp(&table, &bad)? })
}

/// The `[mcp]` table.
fn mcp(table: &toml::Table, bad: &dyn Fn(String) -> Error) -> Result<McpConfig, Error> {
    let Some(mcp) = table.get("mcp") else { return Ok(McpConfig::default()) };
    let mcp = mcp.as_table().ok_or_else(|| bad("`mcp` must be a table".into()))?;
    let mut out = McpConfig::default();
    for (key, value) in mcp {
        match key.as_str() {
            "tools" => {
                let list = value.as_array().ok_or_else(|| bad("`mcp.tools` must be a list of tool names".into()))?;
                let names = list
                    .iter()
                    .map(|v| {
                        v.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| bad("`mcp.tools` must be a list of tool names".into()))
                    })
                    .collect::<Result<_, _>>()?;
                out.tools = Some(names);
            }
            other => return Err(bad(format!("unknown key `{other}` in `mcp` (expected tools)"))),
        }
    }
    Ok(out)
}

/// The context profiles of the config's `[profiles.NAME.context]` tables.
fn profiles(table: &toml::Table, bad: &dyn Fn(String) -> Error) -> Result<Vec<ContextProfile>, Error> {
    let Some(profiles) = table.get("profiles") else { return Ok(Vec::new()) };
    let profiles = profiles.as_table().ok_or_else(|| bad("`profiles` must be a table".into()))?;
    let mut out = Vec::new();
    for (name, value) in profiles {
        let Some(context) = value.get("context") else { continue };
        let context = context.as_table().ok_or_else(|| bad(format!("`profiles.{name}.context` must be a table")))?;
        let mut p = ContextProfile { name: name.clone(), ..ContextProfile::default() };
        let string = |v: &toml::Value, key: &str| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(format!("`profiles.{name}.context.{key}` must be a string")))
        };
        let strings = |v: &toml::Value, key: &str| -> Result<Vec<String>, Error> {
            let list = v.as_array().ok_or_else(|| bad(format!("`profiles.{name}.context.{key}` must be a list")))?;
            list.iter().map(|x| string(x, key)).collect()
        };
        for (key, v) in context {
            match key.as_str() {
                "budget" => {
                    p.budget = Some(match v {
                        toml::Value::Integer(n) if *n >= 0 => Budget::Tokens(*n as u64),
                        toml::Value::String(s) => Budget::Text(s.clone()),
                        _ => return Err(bad(format!("`profiles.{name}.context.budget` must be a number or like \"32k\""))),
                    });
                }
                "focus" => p.focus = strings(v, key)?,
                "focus_symbol" | "focusSymbol" => p.focus_symbol = strings(v, key)?,
                "diff" => p.diff = Some(string(v, key)?),
                "compress" => p.compress = Some(string(v, key)?),
                "format" => p.format = Some(string(v, key)?),
                other => {
                    return Err(bad(format!(
                        "unknown key `{other}` in `profiles.{name}.context` (expected budget, focus, focus_symbol, diff, compress, format)"
                    )))
                }
            }
        }
        out.push(p);
    }
    Ok(out)
}

/// The project's settings.
pub(crate) fn config(ctx: &super::Ctx, _req: ConfigRequest) -> Result<ConfigResponse, Error> {
    load(ctx.host)
}

#[cfg(test)]
mod tests {
    use crate::api::testing::repo;
    use crate::api::ConfigRequest;

    #[test]
    fn profiles_and_mcp_tools_with_clear_errors() {
        let (dir, mut s) = repo(&[("a.py", "x = 1\n")]);
        assert!(!s.config(ConfigRequest {}).unwrap().present);
        let config = dir.path().join(".codegraph/config");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::fs::write(
            &config,
            "[mcp]\ntools = [\"explore\", \"refs\"]\n\n[profiles.review.context]\nbudget = \"8k\"\n",
        )
        .unwrap();
        let c = s.config(ConfigRequest {}).unwrap();
        assert_eq!(c.mcp.tools.as_deref(), Some(&["explore".to_string(), "refs".to_string()][..]));
        assert_eq!(c.profiles[0].name, "review");
        std::fs::write(&config, "[mcp]\ntool = []\n").unwrap();
        assert!(s.config(ConfigRequest {}).unwrap_err().to_string().contains("unknown key `tool` in `mcp`"));
    }
}
