//! Where a session's answers come from, when not simply its profile's: its
//! own model (the model picker) and the host it stays on (docs/design.md
//! §8, "Hosts"), kept in `sessions.model` and `sessions.host` and in the
//! profiles' in-memory copy.

use hearth_core::ProfileProvider;
use rusqlite::params;

use super::Profiles;
use crate::error::ProfileError;
use crate::sessions;

impl Profiles {
    /// The model `session_id` uses instead of its profile's, if any.
    pub fn session_model(&self, session_id: &str) -> Option<String> {
        self.read(|c| c.models.get(session_id).cloned())
    }

    /// Make `session_id` use `model` from its next model call, without
    /// changing its profile; `None` goes back to the profile's model. The
    /// load options stay per model (docs/design.md §4), so going back to a
    /// model still loaded never reloads it.
    pub async fn set_session_model(
        &self,
        session_id: &str,
        model: Option<&str>,
    ) -> Result<(), ProfileError> {
        if session_id.starts_with("subagent_") {
            return Err(ProfileError::Refused(
                "a sub-agent runs with the model it was given".into(),
            ));
        }
        let model = model.map(str::trim).filter(|m| !m.is_empty());
        if let Some(m) = model
            && (m.chars().count() > 200 || m.chars().any(char::is_control))
        {
            return Err(ProfileError::Refused(format!(
                "`{}` is not a model name",
                m.escape_debug()
            )));
        }
        let (id, m) = (session_id.to_owned(), model.map(str::to_owned));
        // Every write holds `writes`, so a `refresh` reading meanwhile
        // cannot put an older copy over this one.
        let _writing = self.writes.lock().await;
        self.store
            .db()
            .call(move |c| {
                sessions::ensure(c, &id)?;
                c.execute(
                    "UPDATE sessions SET model = ?2 WHERE id = ?1",
                    params![id, m],
                )?;
                Ok(())
            })
            .await?;
        self.write(|c| match model {
            Some(m) => {
                c.models.insert(session_id.to_owned(), m.to_owned());
            }
            None => {
                c.models.remove(session_id);
            }
        });
        Ok(())
    }

    /// The host `session_id` stays on: `Some(None)` for the default
    /// server, `None` before its first run.
    pub fn session_host(&self, session_id: &str) -> Option<Option<String>> {
        self.read(|c| {
            c.hosts
                .get(session_id)
                .map(|h| (!h.is_empty()).then(|| h.clone()))
        })
    }

    /// Keep `session_id` on the host its profile names now, unless it is
    /// on one already (called as a run starts; the first one decides).
    pub async fn pin_session_host(&self, session_id: &str) -> Result<(), ProfileError> {
        if session_id.starts_with("subagent_") || self.session_host(session_id).is_some() {
            return Ok(());
        }
        let host = self.active(session_id).backend;
        self.set_session_host(session_id, host.as_deref()).await
    }

    /// Move `session_id` to `host` (`None`: the default server) from its
    /// next model call: the user chose it (the model picker, `--host`).
    pub async fn set_session_host(
        &self,
        session_id: &str,
        host: Option<&str>,
    ) -> Result<(), ProfileError> {
        if session_id.starts_with("subagent_") {
            return Err(ProfileError::Refused(
                "a sub-agent runs on its parent's host".into(),
            ));
        }
        let h = host.unwrap_or_default().to_owned();
        let (id, stored) = (session_id.to_owned(), h.clone());
        let _writing = self.writes.lock().await;
        self.store
            .db()
            .call(move |c| {
                sessions::ensure(c, &id)?;
                c.execute(
                    "UPDATE sessions SET host = ?2 WHERE id = ?1",
                    params![id, stored],
                )?;
                Ok(())
            })
            .await?;
        self.write(|c| {
            c.hosts.insert(session_id.to_owned(), h);
        });
        Ok(())
    }

    /// The profiles that name host `name`, as theirs or as a failover.
    pub fn names_using_host(&self, name: &str) -> Vec<String> {
        self.read(|c| {
            c.profiles
                .values()
                .filter(|p| {
                    p.backend.as_deref() == Some(name) || p.failover.iter().any(|f| f == name)
                })
                .map(|p| p.name.clone())
                .collect()
        })
    }

    /// Forget the host `name` (`Store::remove_host`): the sessions on it go
    /// back to the default server.
    pub async fn remove_host(&self, name: &str) -> Result<bool, ProfileError> {
        let _writing = self.writes.lock().await;
        let removed = self.store.remove_host(name).await?;
        self.write(|c| {
            for h in c.hosts.values_mut() {
                if h == name {
                    h.clear();
                }
            }
        });
        Ok(removed)
    }

    /// Whether `session_id`'s messages carry the best passages of its
    /// knowledge folders (a chat without tools that asked for them).
    pub fn session_knowledge(&self, session_id: &str) -> bool {
        self.read(|c| c.knowledge.contains(session_id))
    }

    /// Turn on or off the passages sent with `session_id`'s messages.
    pub async fn set_session_knowledge(
        &self,
        session_id: &str,
        on: bool,
    ) -> Result<(), ProfileError> {
        let _writing = self.writes.lock().await;
        let id = session_id.to_owned();
        self.store
            .db()
            .call(move |c| {
                sessions::ensure(c, &id)?;
                c.execute(
                    "UPDATE sessions SET knowledge = ?2 WHERE id = ?1",
                    params![id, on],
                )?;
                Ok(())
            })
            .await?;
        self.write(|c| {
            if on {
                c.knowledge.insert(session_id.to_owned());
            } else {
                c.knowledge.remove(session_id);
            }
        });
        Ok(())
    }
}
