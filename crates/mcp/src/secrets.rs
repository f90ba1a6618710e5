//! What a server's configuration must not show (security review N7): the
//! values of its environment and headers, where users put tokens
//! (`Authorization: Bearer …`, `GITHUB_TOKEN=…`). The Tools panel's page
//! and `hearth mcp export` get the configuration with each value replaced
//! by [`HIDDEN`]; a configuration saved back with [`HIDDEN`] where a value
//! was keeps the saved value, so editing one server never asks for every
//! token again, and the page never holds one it did not type.

use std::collections::BTreeMap;

use crate::config::{ConfigError, ServerConfig};

/// What stands for a hidden value, in the page and in an export.
pub const HIDDEN: &str = "(hidden: kept as saved)";

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
                match old.and_then(|o| o.get(key)).filter(|v| *v != HIDDEN) {
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
