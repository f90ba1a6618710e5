//! Server configuration in the shape users already have: an `mcpServers`
//! object (Claude Desktop, Cursor, Goose's import) or VS Code's `servers`,
//! pasted or imported as-is.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How long a server may take to answer `initialize` unless its
/// configuration says otherwise (`npx -y` fetching a package on first use
/// is the slow case).
pub const DEFAULT_START_TIMEOUT_SECS: u64 = 60;

/// How long one tool call may take unless the configuration says
/// otherwise. Stop ends a call at once whatever this says.
pub const DEFAULT_CALL_TIMEOUT_SECS: u64 = 300;

/// One server, as the `mcpServers` entry gives it. Fields other apps add
/// and Hearth does not use are ignored, so a config copied from them loads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerConfig {
    /// The program to run (stdio transport): a name looked up on the PATH
    /// (`npx`, `uvx`) or a full path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Environment added to Hearth's for the child.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Folder the child starts in (the user's home when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// The endpoint (streamable HTTP transport).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Headers sent with every HTTP request (an `Authorization` token).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// `stdio`, `http` or `streamable-http` (optional: `command` or `url`
    /// already says which); `sse` is the retired transport and is refused
    /// with a clear error.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// Kept but never started.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disabled: bool,
    /// Seconds the server may take to answer `initialize`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_timeout_secs: Option<u64>,
    /// Seconds one tool call may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_timeout_secs: Option<u64>,
}

/// How Hearth reaches a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking JSON-RPC on stdin/stdout.
    Stdio,
    /// Streamable HTTP at a URL.
    Http,
}

/// A configuration Hearth cannot use, said so the user can fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Not JSON, or not the expected shape.
    #[error("not an MCP configuration: {0}")]
    Malformed(String),
    /// A server name that tools cannot be named after.
    #[error(
        "server name {0:?} must be 1 to 32 letters, digits, '-' or '_', without \"__\" (it prefixes its tools' names)"
    )]
    BadName(String),
    /// A server entry that cannot be started as given.
    #[error("server {server:?}: {reason}")]
    BadServer {
        /// The server's name.
        server: String,
        /// What is wrong.
        reason: String,
    },
}

impl ServerConfig {
    /// The transport this entry asks for, or why it cannot be used.
    pub fn transport(&self, name: &str) -> Result<Transport, ConfigError> {
        let bad = |reason: &str| ConfigError::BadServer {
            server: name.to_owned(),
            reason: reason.to_owned(),
        };
        match (self.command.as_deref(), self.url.as_deref()) {
            (Some(_), Some(_)) => Err(bad("give either \"command\" or \"url\", not both")),
            (None, None) => Err(bad("give \"command\" (a program to run) or \"url\"")),
            (Some(c), None) if c.trim().is_empty() => Err(bad("\"command\" is empty")),
            (Some(_), None) => match self.transport.as_deref() {
                None | Some("stdio") => Ok(Transport::Stdio),
                Some(t) => Err(bad(&format!(
                    "\"type\": {t:?} does not go with \"command\""
                ))),
            },
            (None, Some(url)) => {
                if self.transport.as_deref() == Some("sse") {
                    return Err(bad(
                        "the SSE transport was retired from MCP; use the server's streamable HTTP endpoint",
                    ));
                }
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(bad("\"url\" must start with http:// or https://"));
                }
                Ok(Transport::Http)
            }
        }
    }

    /// One line that says what runs, for approval texts and the panel:
    /// never the environment or headers, and what looks like a secret in
    /// the arguments or the URL (a password or query in a URL, the value
    /// after `--token`, `--api-key=…`) as `…`.
    pub fn describe(&self) -> String {
        match (&self.command, &self.url) {
            (Some(c), _) => {
                let mut line = c.clone();
                let mut secret_next = false;
                for a in &self.args {
                    line.push(' ');
                    if secret_next {
                        line.push('…');
                        secret_next = false;
                        continue;
                    }
                    match a.split_once('=') {
                        Some((flag, _)) if a.starts_with('-') && secret_flag(flag) => {
                            line.push_str(flag);
                            line.push_str("=…");
                        }
                        _ => {
                            secret_next = a.starts_with('-') && secret_flag(a);
                            line.push_str(&redact_url(a));
                        }
                    }
                }
                line
            }
            (None, Some(u)) => redact_url(u),
            (None, None) => String::new(),
        }
    }
}

fn secret_flag(flag: &str) -> bool {
    let f = flag.to_ascii_lowercase();
    ["token", "key", "secret", "password", "passwd", "auth"]
        .iter()
        .any(|w| f.contains(w))
}

/// `text` with a URL's password and query hidden
/// (`postgresql://sam:…@host/db`, `https://h/mcp?…`).
fn redact_url(text: &str) -> String {
    let Some(scheme_end) = text.find("://") else {
        return text.to_owned();
    };
    let (scheme, rest) = text.split_at(scheme_end + 3);
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(u, _)| u);
            format!("{user}:…@{host}")
        }
        None => authority.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, _)) => format!("{path}?…"),
        None => tail.to_owned(),
    };
    format!("{scheme}{authority}{tail}")
}

/// Whether `name` can prefix tool names (`[A-Za-z0-9_-]{1,32}`: what
/// every server's tool-name rules accept), without `__`: that separates
/// it from its tools' names, so one server can never name a tool that
/// reads as another's.
pub fn valid_name(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && !name.contains("__")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The servers in `json`: `{"mcpServers": {…}}`, VS Code's
/// `{"servers": {…}}`, or the bare object of servers. Every entry is
/// checked; the first problem is the error.
pub fn parse(json: &str) -> Result<BTreeMap<String, ServerConfig>, ConfigError> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| ConfigError::Malformed(e.to_string()))?;
    let serde_json::Value::Object(mut top) = value else {
        return Err(ConfigError::Malformed("expected a JSON object".into()));
    };
    let servers = match (top.remove("mcpServers"), top.remove("servers")) {
        (Some(s), _) | (None, Some(s)) => s,
        (None, None) => serde_json::Value::Object(top),
    };
    let servers: BTreeMap<String, ServerConfig> = serde_json::from_value(servers)
        .map_err(|e| ConfigError::Malformed(format!("each server must be an object: {e}")))?;
    for (name, config) in &servers {
        if !valid_name(name) {
            return Err(ConfigError::BadName(name.clone()));
        }
        config.transport(name)?;
    }
    Ok(servers)
}

/// `servers` as the `mcpServers` object other apps read.
pub fn to_json(servers: &BTreeMap<String, ServerConfig>) -> String {
    let wrapped = serde_json::json!({ "mcpServers": servers });
    serde_json::to_string_pretty(&wrapped).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_desktop_and_vs_code_shapes_load_as_they_are() {
        let claude = r#"{"mcpServers": {
            "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"],
                           "env": {"DEBUG": "1"}, "alwaysAllow": []},
            "remote": {"url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer t"}}
        }}"#;
        let servers = parse(claude).unwrap();
        assert_eq!(servers["everything"].args.len(), 2);
        assert_eq!(
            servers["everything"].transport("everything"),
            Ok(Transport::Stdio)
        );
        assert_eq!(servers["remote"].transport("remote"), Ok(Transport::Http));
        let vscode = r#"{"servers": {"time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"]}}}"#;
        assert_eq!(
            parse(vscode).unwrap()["time"].describe(),
            "uvx mcp-server-time"
        );
        let bare = r#"{"time": {"command": "uvx"}}"#;
        assert!(parse(bare).unwrap().contains_key("time"));
    }

    #[test]
    fn what_cannot_be_started_is_refused_with_the_reason() {
        let err = |json: &str| parse(json).unwrap_err().to_string();
        assert!(err("[1]").contains("expected a JSON object"));
        assert!(err(r#"{"a b": {"command": "x"}}"#).contains("letters, digits"));
        assert!(err(r#"{"a__b": {"command": "x"}}"#).contains("without"));
        assert!(err(r#"{"a": {}}"#).contains("give \"command\""));
        assert!(err(r#"{"a": {"command": "x", "url": "http://h"}}"#).contains("not both"));
        assert!(err(r#"{"a": {"type": "sse", "url": "http://h/sse"}}"#).contains("retired"));
        assert!(err(r#"{"a": {"url": "file:///x"}}"#).contains("http://"));
        assert!(err(r#"{"a": {"command": 3}}"#).contains("each server must be an object"));
    }

    #[test]
    fn the_description_never_shows_secrets() {
        let mut c = ServerConfig {
            command: Some("npx".into()),
            args: vec!["-y".into(), "pkg".into()],
            ..ServerConfig::default()
        };
        c.env.insert("API_KEY".into(), "sk-secret".into());
        assert_eq!(c.describe(), "npx -y pkg");
        let leaky = ServerConfig {
            command: Some("npx".into()),
            args: vec![
                "server-postgres".into(),
                "postgresql://sam:hunter2@db.local/app".into(),
                "--api-key=sk-1".into(),
                "--token".into(),
                "tok-2".into(),
                "--verbose".into(),
            ],
            ..ServerConfig::default()
        };
        assert_eq!(
            leaky.describe(),
            "npx server-postgres postgresql://sam:…@db.local/app --api-key=… --token … --verbose"
        );
        let url = ServerConfig {
            url: Some("https://mcp.example.com/v1/mcp?api_key=sk-3".into()),
            ..ServerConfig::default()
        };
        assert_eq!(url.describe(), "https://mcp.example.com/v1/mcp?…");
        let round = parse(&to_json(&BTreeMap::from([("s".to_owned(), c.clone())]))).unwrap();
        assert_eq!(round["s"], c);
    }
}
