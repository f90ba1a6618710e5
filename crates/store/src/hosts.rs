//! The model servers the user added (docs/design.md §8, "Hosts"): a name
//! profiles and sessions use, the kind of API it speaks, its URL, and
//! whether it has an API key. The key itself is never stored here: it is
//! in the desktop's secret store (`hearth_compose::keys`).

use rusqlite::params;

use crate::clock::now_ms;
use crate::error::ProfileError;
use crate::migration::Migration;
use crate::store::Store;

pub(crate) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 14,
        name: "hosts, and the host a session stays on",
        // `sessions.host`: '' is the default server (Ollama at the configured
        // URL); NULL, a session that has not run yet.
        sql: "CREATE TABLE hosts (
              name TEXT PRIMARY KEY,
              kind TEXT NOT NULL,
              url TEXT NOT NULL,
              created_at INTEGER NOT NULL
          );
          ALTER TABLE sessions ADD COLUMN host TEXT;",
    },
    Migration {
        version: 15,
        name: "whether a host has an API key (the key is in the secret store)",
        sql: "ALTER TABLE hosts ADD COLUMN keyed INTEGER NOT NULL DEFAULT 0;",
    },
];

/// Names the built-in servers answer to: the default Ollama and the
/// OpenAI-compatible server of the settings.
pub const RESERVED_HOSTS: [&str; 2] = [hearth_core::DEFAULT_HOST, "openai"];

/// The API a host speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostKind {
    /// Ollama's own (`/api/chat`).
    Ollama,
    /// OpenAI-compatible (`/v1/chat/completions`: llama.cpp, LM Studio,
    /// vLLM, LocalAI).
    Openai,
}

impl HostKind {
    /// As stored and typed: `ollama` or `openai`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ollama => "ollama",
            Self::Openai => "openai",
        }
    }

    /// Reads [`HostKind::as_str`].
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "ollama" => Some(Self::Ollama),
            "openai" => Some(Self::Openai),
            _ => None,
        }
    }
}

/// A model server the user added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// What profiles and sessions call it.
    pub name: String,
    /// The API it speaks.
    pub kind: HostKind,
    /// Its base URL.
    pub url: String,
    /// Whether its requests carry an API key (kept in the secret store).
    pub keyed: bool,
}

impl Host {
    /// Why this host cannot be saved, if it cannot.
    pub fn check(&self) -> Result<(), ProfileError> {
        let refuse = |why: String| Err(ProfileError::Refused(why));
        let n = &self.name;
        if n.is_empty() || n.len() > 40 {
            return refuse("a host's name is 1 to 40 characters".into());
        }
        if !n
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            return refuse(format!(
                "`{}`: a host's name is letters, digits, `-`, `_` and `.`",
                n.escape_debug()
            ));
        }
        if RESERVED_HOSTS.contains(&n.as_str()) {
            return refuse(format!(
                "`{n}` is the name of the server in the settings; choose another"
            ));
        }
        let url = self.url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://"))
            || url.len() > 2000
            || url.chars().any(char::is_control)
        {
            return refuse(format!(
                "`{}` is not an http:// or https:// URL",
                url.escape_debug()
            ));
        }
        Ok(())
    }
}

impl Store {
    /// The hosts the user added, by name.
    pub async fn hosts(&self) -> Result<Vec<Host>, crate::StoreError> {
        self.db()
            .call(|c| {
                let mut s = c.prepare("SELECT name, kind, url, keyed FROM hosts ORDER BY name")?;
                let rows = s.query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, bool>(3)?,
                    ))
                })?;
                let mut out = Vec::new();
                for row in rows {
                    let (name, kind, url, keyed) = row?;
                    // A kind this build does not know (a newer one wrote
                    // it) is left out rather than guessed.
                    if let Some(kind) = HostKind::parse(&kind) {
                        out.push(Host {
                            name,
                            kind,
                            url,
                            keyed,
                        });
                    }
                }
                Ok(out)
            })
            .await
    }

    /// Add `host`, or change the one with its name. A host changed without
    /// a key keeps the one it had (a new URL does not lose the secret),
    /// unless it becomes an Ollama host, which takes none.
    pub async fn put_host(&self, host: &Host) -> Result<(), ProfileError> {
        host.check()?;
        let (name, kind, url, keyed) = (
            host.name.clone(),
            host.kind.as_str(),
            host.url.trim().to_owned(),
            host.keyed,
        );
        self.db()
            .call(move |c| {
                c.execute(
                    "INSERT INTO hosts (name, kind, url, created_at, keyed)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT(name) DO UPDATE SET kind = ?2, url = ?3,
                       keyed = CASE WHEN ?2 = 'ollama' THEN 0 ELSE MAX(keyed, ?5) END",
                    params![name, kind, url, now_ms(), keyed],
                )?;
                Ok(())
            })
            .await?;
        Ok(())
    }

    /// Forget the host `name`; false when there was none. Profiles that
    /// name it say so at their next run; sessions on it go back to the
    /// default server.
    pub async fn remove_host(&self, name: &str) -> Result<bool, crate::StoreError> {
        let name = name.to_owned();
        self.db()
            .call(move |c| {
                let n = c.execute("DELETE FROM hosts WHERE name = ?1", [&name])?;
                c.execute("UPDATE sessions SET host = '' WHERE host = ?1", [&name])?;
                Ok(n > 0)
            })
            .await
    }
}
