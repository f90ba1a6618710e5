//! What a server's configuration must not show (security review N7): the
//! values of its environment and headers, where users put tokens
//! (`Authorization: Bearer …`, `GITHUB_TOKEN=…`). The Tools panel's page
//! and `hearth mcp export` get the configuration with each value replaced
//! by [`HIDDEN`]; a configuration saved back with [`HIDDEN`] where a value
//! was keeps the saved value, so editing one server never asks for every
//! token again, and the page never holds one it did not type.

//!
//! Where the values are kept is the front ends' store (`hearth_compose`):
//! in the desktop's secret store when one answers, the database holding
//! [`IN_SECRET_STORE`] in their place ([`split_secrets`], [`join_secrets`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, ServerConfig};

/// What stands for a hidden value, in the page and in an export.
pub const HIDDEN: &str = "(hidden: kept as saved)";

/// What the database holds in place of a value kept in the desktop's
/// secret store. A server whose configuration still says this when it
/// starts (the store could not be read) is not started: the placeholder
/// is never sent as a token.
pub const IN_SECRET_STORE: &str = "(in the desktop's secret store)";

/// One server's environment and header values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Secrets {
    /// Environment variables' values, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Headers' values, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

/// `servers` as the database keeps them when the values are elsewhere
/// (each environment and header value is [`IN_SECRET_STORE`]), and the
/// values by server (servers with none are left out).
pub fn split_secrets(
    servers: &BTreeMap<String, ServerConfig>,
) -> (BTreeMap<String, ServerConfig>, BTreeMap<String, Secrets>) {
    let mut stored = servers.clone();
    let mut values = BTreeMap::new();
    for (name, config) in stored.iter_mut() {
        let secrets = Secrets {
            env: std::mem::take(&mut config.env),
            headers: std::mem::take(&mut config.headers),
        };
        config.env = placeholders(&secrets.env);
        config.headers = placeholders(&secrets.headers);
        if secrets != Secrets::default() {
            values.insert(name.clone(), secrets);
        }
    }
    (stored, values)
}

fn placeholders(values: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    values
        .keys()
        .map(|k| (k.clone(), IN_SECRET_STORE.to_owned()))
        .collect()
}

/// Each [`IN_SECRET_STORE`] in `servers` replaced by its value from
/// `values`; those with none stay (the server is then not started).
pub fn join_secrets(
    servers: &mut BTreeMap<String, ServerConfig>,
    values: &BTreeMap<String, Secrets>,
) {
    for (name, config) in servers.iter_mut() {
        let Some(kept) = values.get(name) else {
            continue;
        };
        for (values, kept) in [
            (&mut config.env, &kept.env),
            (&mut config.headers, &kept.headers),
        ] {
            for (key, value) in values.iter_mut() {
                if let Some(v) = kept.get(key).filter(|_| value == IN_SECRET_STORE) {
                    v.clone_into(value);
                }
            }
        }
    }
}

/// Whether any value of `servers` is kept in the secret store (so loading
/// them reads it).
pub fn any_in_secret_store(servers: &BTreeMap<String, ServerConfig>) -> bool {
    servers.values().any(|c| c.waits_for_secret_store())
}

impl ServerConfig {
    /// Whether a value of its environment or headers is still the
    /// placeholder of one kept in the secret store.
    pub fn waits_for_secret_store(&self) -> bool {
        self.env
            .values()
            .chain(self.headers.values())
            .any(|v| v == IN_SECRET_STORE)
    }
}

/// `servers` with every environment and header value replaced by [`HIDDEN`].
pub fn hide_secrets(servers: &BTreeMap<String, ServerConfig>) -> BTreeMap<String, ServerConfig> {
    let mut shown = servers.clone();
    for config in shown.values_mut() {
        for value in config.env.values_mut().chain(config.headers.values_mut()) {
            HIDDEN.clone_into(value);
        }
    }
    shown
}

/// Each [`HIDDEN`] value in `new` replaced by the value `saved` has for the
/// same server and name; an error names one that has none (a new server
/// or variable given the placeholder), so a placeholder is never sent as
/// a token.
pub fn keep_hidden(
    new: &mut BTreeMap<String, ServerConfig>,
    saved: &BTreeMap<String, ServerConfig>,
) -> Result<(), ConfigError> {
    for (name, config) in new.iter_mut() {
        let before = saved.get(name);
        for (kind, values, old) in [
            (
                "environment variable",
                &mut config.env,
                before.map(|b| &b.env),
            ),
            ("header", &mut config.headers, before.map(|b| &b.headers)),
        ] {
            for (key, value) in values.iter_mut() {
                if value != HIDDEN {
                    continue;
                }
                match old
                    .and_then(|o| o.get(key))
                    .filter(|v| *v != HIDDEN && *v != IN_SECRET_STORE)
                {
                    Some(v) => v.clone_into(value),
                    None => {
                        return Err(ConfigError::BadServer {
                            server: name.clone(),
                            reason: format!(
                                "the {kind} {key:?} says {HIDDEN:?} but no value was saved for it: type its value"
                            ),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{parse, to_json};

    const SAVED: &str = r#"{"mcpServers": {
        "remote": {"url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer tok-SECRET-4242"}},
        "gh": {"command": "npx", "args": ["server-github"], "env": {"GITHUB_TOKEN": "ghp-SECRET", "DEBUG": "1"}}
    }}"#;

    #[test]
    fn shown_without_values_and_saved_back_with_them() {
        let saved = parse(SAVED).unwrap();
        let shown = to_json(&hide_secrets(&saved));
        for secret in ["tok-SECRET-4242", "ghp-SECRET", "\"1\""] {
            assert!(!shown.contains(secret), "{secret} shown: {shown}");
        }
        assert!(
            shown.contains("Authorization") && shown.contains("GITHUB_TOKEN"),
            "{shown}"
        );
        // The page changes one thing (DEBUG) and saves the rest as shown.
        let mut edited =
            parse(&shown.replace(&format!("\"DEBUG\": \"{HIDDEN}\""), "\"DEBUG\": \"2\"")).unwrap();
        keep_hidden(&mut edited, &saved).unwrap();
        assert_eq!(edited["gh"].env["GITHUB_TOKEN"], "ghp-SECRET");
        assert_eq!(edited["gh"].env["DEBUG"], "2");
        assert_eq!(
            edited["remote"].headers["Authorization"],
            "Bearer tok-SECRET-4242"
        );
    }

    #[test]
    fn values_kept_elsewhere_come_back_where_they_were() {
        let saved = parse(SAVED).unwrap();
        let (stored, values) = split_secrets(&saved);
        let json = to_json(&stored);
        for secret in ["tok-SECRET-4242", "ghp-SECRET", "\"1\""] {
            assert!(!json.contains(secret), "{secret} stored: {json}");
        }
        assert!(any_in_secret_store(&stored));
        assert_eq!(values.len(), 2);
        assert_eq!(values["gh"].env["DEBUG"], "1");
        let mut back = parse(&json).unwrap();
        join_secrets(&mut back, &values);
        assert_eq!(back, saved);
        assert!(!any_in_secret_store(&back));
        // A value the store no longer has stays a placeholder: that server
        // waits, the other does not.
        let mut partial = parse(&json).unwrap();
        let mut fewer = values.clone();
        fewer.get_mut("gh").unwrap().env.remove("GITHUB_TOKEN");
        join_secrets(&mut partial, &fewer);
        assert!(partial["gh"].waits_for_secret_store());
        assert!(!partial["remote"].waits_for_secret_store());
        // A server without values is stored as it is.
        let plain =
            parse(r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}"#)
                .unwrap();
        let (stored, values) = split_secrets(&plain);
        assert_eq!(stored, plain);
        assert!(values.is_empty());
    }

    #[test]
    fn a_placeholder_with_nothing_saved_is_refused() {
        let saved = parse(SAVED).unwrap();
        let mut renamed = hide_secrets(&saved);
        let moved = renamed.remove("remote").unwrap();
        renamed.insert("other".into(), moved);
        let err = keep_hidden(&mut renamed, &saved).unwrap_err().to_string();
        assert!(
            err.contains("\"other\"") && err.contains("Authorization"),
            "{err}"
        );
        let mut new_var = hide_secrets(&saved);
        new_var
            .get_mut("gh")
            .unwrap()
            .env
            .insert("NEW".into(), HIDDEN.into());
        assert!(keep_hidden(&mut new_var, &saved).is_err());
    }
}
