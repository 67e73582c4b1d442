//! Files that hold secrets: environment files, credential and auth configs, key material. One
//! classifier decides, by path, for every place where file text leaves the core (`get_file`, packets,
//! context packs, the lexical index); a caller classifies both the path it was asked for and the
//! path it really reads, so a symlink named `notes.ts` pointing at `.env` is still a `.env`.
//!
//! A recognised text config is summarised instead of shown: the names of its keys (never their
//! values), bounded, and its exact line count. Key material is not read at all.

/// What kind of secret a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `.env`, `.env.local`, `.envrc`, `prod.env`.
    Environment,
    /// Credential and auth configs: `.npmrc`, `.netrc`, `.pgpass`, `~/.aws/credentials`,
    /// `.docker/config.json`, `.kube/config`, Terraform variables and state, `.htpasswd`, …
    Credentials,
    /// Private keys and key stores: `*.pem`, `*.key`, `id_rsa`, `*.p12`, `*.jks`.
    KeyMaterial,
}

impl Kind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Kind::Environment => "environment",
            Kind::Credentials => "credentials",
            Kind::KeyMaterial => "private-key",
        }
    }
}

/// How a recognised text config writes its keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// `KEY=value`, `export KEY=value`, `key = value`, `[section]` (env, ini, npmrc, tfvars).
    Assignments,
    /// JSON objects: the paths of their keys (`auths.registry`).
    Json,
    /// YAML mappings: the keys that start lines.
    Yaml,
    /// `user:hash` lines (`.htpasswd`): the user names.
    Users,
    /// `machine … login … password …` (`.netrc`): the machines.
    Netrc,
    /// No key names to show (`.pgpass` fields, a bare token): only the line count.
    Opaque,
}

/// The kind of secret a root-relative path holds, if it is a recognised sensitive file.
pub(crate) fn classify(path: &str) -> Option<Kind> {
    rule(path).map(|(kind, _)| kind)
}

fn rule(path: &str) -> Option<(Kind, Format)> {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let parent = lower.rsplit('/').nth(1).unwrap_or("");
    let env_like = name == ".env"
        || name == ".envrc"
        || name.strip_prefix(".env").is_some_and(|rest| rest.starts_with(['.', '~', '-', '_']))
        || name.ends_with(".env");
    if env_like {
        return Some((Kind::Environment, Format::Assignments));
    }
    let key_material = [".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk"].iter().any(|e| name.ends_with(e))
        || matches!(name, "id_rsa" | "id_ed25519" | "id_ecdsa" | "id_dsa" | "id_ecdsa_sk" | "id_ed25519_sk");
    if key_material {
        return Some((Kind::KeyMaterial, Format::Opaque));
    }
    let format = match name {
        ".npmrc" | ".pypirc" | ".git-credentials" | ".boto" | ".s3cfg" => Format::Assignments,
        "credentials" if parent == ".aws" || parent.is_empty() => Format::Assignments,
        "credentials.json" | "secrets.json" => Format::Json,
        "config.json" if parent == ".docker" => Format::Json,
        "config" if parent == ".kube" => Format::Yaml,
        "kubeconfig" => Format::Yaml,
        "secrets.yml" | "secrets.yaml" => Format::Yaml,
        ".netrc" | "_netrc" => Format::Netrc,
        ".pgpass" | ".vault-token" => Format::Opaque,
        ".htpasswd" => Format::Users,
        _ if name.ends_with(".tfvars") => Format::Assignments,
        _ if name.ends_with(".tfvars.json") || name.ends_with(".tfstate") || name.ends_with(".tfstate.backup") => {
            Format::Json
        }
        _ => return None,
    };
    Some((Kind::Credentials, format))
}

/// Key names shown in a summary, at most.
pub(crate) const MAX_KEYS: usize = 200;
/// A key name longer than this is cut (a key is a name, not a payload).
const MAX_KEY_CHARS: usize = 120;

/// The structural summary of a recognised text config: its key names in order of appearance
/// (deduplicated, at most `MAX_KEYS`), and whether the list was cut.
pub(crate) fn key_names(path: &str, text: &str) -> (Vec<String>, bool) {
    let Some((_, format)) = rule(path) else { return (Vec::new(), false) };
    let mut keys = Keys::default();
    match format {
        Format::Assignments => {
            for line in text.lines() {
                let line = line.trim();
                if line.starts_with('#') || line.starts_with(';') || line.starts_with("//") {
                    continue;
                }
                if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                    keys.push(&format!("[{}]", section.trim()));
                    continue;
                }
                let line = line.strip_prefix("export ").unwrap_or(line);
                if let Some((key, _)) = line.split_once('=') {
                    keys.push(key.trim().trim_matches('"'));
                }
            }
        }
        Format::Json => {
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
                json_keys(&value, "", 0, &mut keys);
            }
        }
        Format::Yaml => {
            for line in text.lines() {
                let trimmed = line.trim_start().trim_start_matches("- ");
                if trimmed.starts_with('#') {
                    continue;
                }
                if let Some((key, _)) = trimmed.split_once(':') {
                    let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
                    if !key.is_empty() && !key.contains(char::is_whitespace) {
                        keys.push(key);
                    }
                }
            }
        }
        Format::Users => {
            for line in text.lines() {
                if let Some((user, _)) = line.split_once(':') {
                    keys.push(user.trim());
                }
            }
        }
        Format::Netrc => {
            let mut words = text.split_whitespace();
            while let Some(w) = words.next() {
                if w == "machine" {
                    if let Some(host) = words.next() {
                        keys.push(&format!("machine {host}"));
                    }
                } else if w == "default" {
                    keys.push("default");
                }
            }
        }
        Format::Opaque => {}
    }
    (keys.list, keys.cut)
}

/// The object key paths of a JSON value, two levels deep (`auths`, `auths.ghcr.io`).
fn json_keys(value: &serde_json::Value, prefix: &str, depth: usize, keys: &mut Keys) {
    let serde_json::Value::Object(map) = value else { return };
    for (k, v) in map {
        let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        keys.push(&path);
        if depth < 1 {
            json_keys(v, &path, depth + 1, keys);
        }
    }
}

#[derive(Default)]
struct Keys {
    list: Vec<String>,
    cut: bool,
}

impl Keys {
    fn push(&mut self, key: &str) {
        if key.is_empty() || self.list.iter().any(|k| k == key) {
            return;
        }
        if self.list.len() >= MAX_KEYS {
            self.cut = true;
            return;
        }
        self.list.push(key.chars().take(MAX_KEY_CHARS).collect());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_secrets_by_name() {
        for p in [".env", "app/.env.local", ".env~", ".envrc", "deploy/prod.env", ".env-dev"] {
            assert_eq!(classify(p), Some(Kind::Environment), "{p}");
        }
        for p in [
            ".pgpass",
            "home/.docker/config.json",
            ".kube/config",
            "infra/terraform.tfvars",
            "infra/prod.tfstate",
            "web/.htpasswd",
            ".vault-token",
            "config/secrets.yml",
            "secrets.yaml",
            ".aws/credentials",
            ".npmrc",
            ".netrc",
        ] {
            assert_eq!(classify(p), Some(Kind::Credentials), "{p}");
        }
        for p in ["certs/server.pem", "keys/app.jks", "id_rsa", "tls.key", "bundle.p12"] {
            assert_eq!(classify(p), Some(Kind::KeyMaterial), "{p}");
        }
        for p in ["src/environment.ts", "docker/config.json", "kube/config", "src/keys.ts", "README.md", "env.py"] {
            assert_eq!(classify(p), None, "{p}");
        }
    }

    #[test]
    fn summaries_name_keys_never_values() {
        let (keys, cut) = key_names(".env", "# comment\nexport TOKEN=abc\nDB_URL = \"postgres://x\"\n\nTOKEN=again\n");
        assert_eq!(keys, ["TOKEN", "DB_URL"]);
        assert!(!cut);
        let (keys, _) =
            key_names(".docker/config.json", r#"{"auths":{"ghcr.io":{"auth":"c2VjcmV0"}},"credsStore":"x"}"#);
        assert_eq!(keys, ["auths", "auths.ghcr.io", "credsStore"]);
        let (keys, _) = key_names("secrets.yaml", "db:\n  password: hunter2\napi_key: abc\n");
        assert_eq!(keys, ["db", "password", "api_key"]);
        let (keys, _) = key_names(".htpasswd", "alice:$apr1$x\nbob:$2y$y\n");
        assert_eq!(keys, ["alice", "bob"]);
        let (keys, _) = key_names(".netrc", "machine api.example.com login me password s3cret\n");
        assert_eq!(keys, ["machine api.example.com"]);
        assert!(key_names(".pgpass", "h:5432:db:u:pw\n").0.is_empty());
        let many = (0..300).map(|i| format!("K{i}=v")).collect::<Vec<_>>().join("\n");
        let (keys, cut) = key_names(".env", &many);
        assert_eq!(keys.len(), MAX_KEYS);
        assert!(cut);
    }
}
