//! Profiles and the persona (docs/design.md §8), and [`Profiles`]: the
//! core's `ProfileProvider` over them. Per-model load options are in
//! `model_settings.rs`.
//!
//! The loop asks for the active profile before every model call, so reads
//! come from an in-memory copy; every change is written to SQLite first and
//! then to the copy (write-through), so the CLI and the app share them.
//! What another process wrote (`hearth profiles set` beside the running
//! app) is read again before the next run: [`Profiles::refresh`].
//! A session's own model and host are in `session_place.rs`; the profiles
//! a new database starts with, and their first model, in `seed.rs`.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use hearth_core::tools::{ProfileSwitcher, SwitchError};
use hearth_core::{DEFAULT_HOST, Profile, ProfileProvider};
use rusqlite::{Connection, TransactionBehavior, params};

use crate::clock::now_ms;
use crate::error::{ProfileError, StoreError};
use crate::migration::Migration;
use crate::sessions;
use crate::store::Store;

mod projects;
mod seed;
mod session_place;

pub use seed::SEED_MODEL;
use seed::{SEED_PENDING, seeds};

pub(crate) const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 3,
        name: "profiles, persona, model settings",
        sql: "CREATE TABLE profiles (
              name TEXT PRIMARY KEY,
              body TEXT NOT NULL,
              updated_at INTEGER NOT NULL
          );
          CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
          CREATE TABLE model_settings (
              model TEXT PRIMARY KEY,
              num_ctx INTEGER NOT NULL,
              keep_alive INTEGER NOT NULL,
              shift INTEGER NOT NULL,
              updated_at INTEGER NOT NULL
          );
          ALTER TABLE sessions ADD COLUMN profile TEXT;",
    },
    Migration {
        version: 8,
        name: "profile switches",
        // Where in a session the profile changed, so a transcript can mark it.
        sql: "CREATE TABLE profile_switches (
              id INTEGER PRIMARY KEY,
              session_id TEXT NOT NULL REFERENCES sessions(id),
              profile TEXT NOT NULL,
              after_message_id INTEGER,
              at INTEGER NOT NULL
          );
          CREATE INDEX profile_switches_by_session ON profile_switches(session_id, id);",
    },
    Migration {
        version: 12,
        name: "a session's own model",
        // The model picker: a session may use another model than its
        // profile's, without changing the profile.
        sql: "ALTER TABLE sessions ADD COLUMN model TEXT;",
    },
];

/// A change of profile in a session: the messages after
/// `after_message_id` (all of them when `None`) were answered with
/// `profile`, until the next switch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileSwitch {
    /// The profile switched to.
    pub profile: String,
    /// The session's head when it happened.
    pub after_message_id: Option<i64>,
    /// When, ms since the epoch.
    pub at: i64,
}

/// Why a profile is refused: a field the user corrects before saving.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InvalidProfile {
    /// No name, or one longer than 64 characters.
    #[error("a profile needs a name of 1 to 64 characters")]
    NameLength,
    /// A name with spaces at either end.
    #[error("a profile name cannot start or end with spaces")]
    NameSpaces,
    /// No model (the profile's name).
    #[error("profile `{0}` needs a model")]
    NoModel(String),
    /// `max_iterations` outside 1 to 100.
    #[error("max_iterations must be between 1 and 100, not {0}")]
    MaxIterations(u32),
    /// A temperature outside 0 to 2.
    #[error("temperature must be between 0 and 2, not {0}")]
    Temperature(f64),
    /// A workspace that is not a full path.
    #[error(
        "the workspace must be a full path such as /home/you/project, not `{}`",
        .0.display()
    )]
    RelativeWorkspace(std::path::PathBuf),
}

/// Why a profile is refused.
pub fn validate(p: &Profile) -> Result<(), InvalidProfile> {
    if p.name.trim().is_empty() || p.name.chars().count() > 64 {
        return Err(InvalidProfile::NameLength);
    }
    if p.name.trim() != p.name {
        return Err(InvalidProfile::NameSpaces);
    }
    if p.model.trim().is_empty() {
        return Err(InvalidProfile::NoModel(p.name.clone()));
    }
    if !(1..=100).contains(&p.max_iterations) {
        return Err(InvalidProfile::MaxIterations(p.max_iterations));
    }
    if let Some(t) = p.temperature
        && !(0.0..=2.0).contains(&t)
    {
        return Err(InvalidProfile::Temperature(t));
    }
    if let Some(w) = &p.workspace
        && !w.is_absolute()
    {
        // A relative folder (or `~/x`, which is not expanded) would depend
        // on where the app was started.
        return Err(InvalidProfile::RelativeWorkspace(w.clone()));
    }
    Ok(())
}

#[derive(Debug, Default)]
struct Cache {
    persona: String,
    default: String,
    profiles: BTreeMap<String, Profile>,
    sessions: HashMap<String, String>,
    /// The seeded profiles have not been matched to the server's models.
    seed_pending: bool,
    /// Sessions that use another model than their profile's.
    models: HashMap<String, String>,
    /// The host each session stays on ('' = the default server).
    hosts: HashMap<String, String>,
    /// Projects by id.
    projects: HashMap<String, crate::projects::Project>,
    /// The project each session in one is in.
    memberships: HashMap<String, String>,
    /// Sessions whose messages carry their knowledge passages.
    knowledge: std::collections::HashSet<String>,
}

/// Profiles and persona from the database, as the loop reads them.
pub struct Profiles {
    store: Store,
    cache: RwLock<Cache>,
    /// Held across a write of profiles (or the default, or a session's
    /// profile) and its cache update, so the cache sees writes in the
    /// order they reached the database, and a check of the cache before a
    /// write (the profile exists) still holds at the write.
    writes: tokio::sync::Mutex<()>,
    /// SQLite's `data_version` when the copy was read: it changes when
    /// another connection (another process) commits to the database.
    seen: AtomicI64,
}

fn data_version(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)
}

fn load_cache(conn: &Connection) -> Result<Cache, StoreError> {
    let n: i64 = conn.query_row("SELECT count(*) FROM profiles", [], |r| r.get(0))?;
    if n == 0 {
        for p in seeds() {
            write_profile(conn, &p)?;
        }
        conn.execute(
            "INSERT OR IGNORE INTO settings (key, value) VALUES ('default_profile', 'Chat')",
            [],
        )?;
        conn.execute(
            "INSERT OR IGNORE INTO settings (key, value) VALUES (?1, '1')",
            [SEED_PENDING],
        )?;
    }
    let mut cache = Cache::default();
    for p in read_profiles(conn)? {
        cache.profiles.insert(p.name.clone(), p);
    }
    let setting = |k: &str| -> Result<Option<String>, StoreError> {
        let mut s = conn.prepare("SELECT value FROM settings WHERE key = ?1")?;
        Ok(s.query_map([k], |r| r.get(0))?.next().transpose()?)
    };
    cache.persona = setting("persona")?.unwrap_or_default();
    cache.default = setting("default_profile")?.unwrap_or_else(|| "Chat".into());
    cache.seed_pending = setting(SEED_PENDING)?.is_some();
    let mut stmt = conn.prepare("SELECT id, profile FROM sessions WHERE profile IS NOT NULL")?;
    for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))? {
        let (s, p) = row?;
        cache.sessions.insert(s, p);
    }
    let mut stmt = conn.prepare("SELECT id, model FROM sessions WHERE model IS NOT NULL")?;
    for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))? {
        let (s, m) = row?;
        cache.models.insert(s, m);
    }
    let mut stmt = conn.prepare("SELECT id, host FROM sessions WHERE host IS NOT NULL")?;
    for row in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))? {
        let (s, h) = row?;
        cache.hosts.insert(s, h);
    }
    for p in crate::projects::all(conn)? {
        cache.projects.insert(p.id.clone(), p);
    }
    cache.memberships = crate::projects::memberships(conn)?.into_iter().collect();
    let mut stmt = conn.prepare("SELECT id FROM sessions WHERE knowledge != 0")?;
    for row in stmt.query_map([], |r| r.get::<_, String>(0))? {
        cache.knowledge.insert(row?);
    }
    Ok(cache)
}

fn read_profiles(conn: &Connection) -> Result<Vec<Profile>, StoreError> {
    let mut stmt = conn.prepare("SELECT body FROM profiles ORDER BY name")?;
    let bodies = stmt.query_map([], |r| r.get::<_, String>(0))?;
    bodies
        .map(|body| serde_json::from_str(&body?).map_err(|e| StoreError::Corrupt(e.to_string())))
        .collect()
}

fn write_profile(conn: &Connection, p: &Profile) -> Result<(), StoreError> {
    let body = serde_json::to_string(p).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    conn.execute(
        "INSERT INTO profiles (name, body, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT(name) DO UPDATE SET body = ?2, updated_at = ?3",
        params![p.name, body, now_ms()],
    )?;
    Ok(())
}

impl Profiles {
    /// Load profiles (seeding the defaults into an empty database).
    pub async fn load(store: &Store) -> Result<Arc<Self>, StoreError> {
        // The version first: a commit between the two reads is then read
        // again by the next `refresh`, never missed.
        let (seen, cache) = store
            .db()
            .call(|c| Ok((data_version(c)?, load_cache(c)?)))
            .await?;
        Ok(Arc::new(Self {
            store: store.clone(),
            cache: RwLock::new(cache),
            writes: tokio::sync::Mutex::new(()),
            seen: AtomicI64::new(seen),
        }))
    }

    /// Reads the profiles, persona and sessions' places again when another
    /// process committed to the database since they were read (turn-2
    /// security review L6): a pre-approval taken back with `hearth profiles
    /// set` beside the running app holds from the app's next run, not from
    /// its next start. True when they were read again. One query when
    /// nothing changed.
    pub async fn refresh(&self) -> Result<bool, StoreError> {
        let _writing = self.writes.lock().await;
        let seen = self.seen.load(Ordering::Acquire);
        let read = self
            .store
            .db()
            .call(move |c| {
                let now = data_version(c)?;
                (now != seen)
                    .then(|| load_cache(c).map(|cache| (cache, now)))
                    .transpose()
            })
            .await?;
        let Some((cache, now)) = read else {
            return Ok(false);
        };
        self.write(|c| *c = cache);
        self.seen.store(now, Ordering::Release);
        Ok(true)
    }

    fn read<T>(&self, f: impl FnOnce(&Cache) -> T) -> T {
        match self.cache.read() {
            Ok(c) => f(&c),
            Err(poisoned) => f(&poisoned.into_inner()),
        }
    }

    fn write(&self, f: impl FnOnce(&mut Cache)) {
        match self.cache.write() {
            Ok(mut c) => f(&mut c),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    /// All profiles, by name.
    pub fn list(&self) -> Vec<Profile> {
        self.read(|c| c.profiles.values().cloned().collect())
    }

    /// The profile new sessions start with.
    pub fn default_name(&self) -> String {
        self.read(|c| c.default.clone())
    }

    /// Create or replace a profile, after validation.
    pub async fn upsert(&self, profile: Profile) -> Result<(), ProfileError> {
        validate(&profile).map_err(|e| ProfileError::Refused(e.to_string()))?;
        let _writing = self.writes.lock().await;
        let p = profile.clone();
        self.store.db().call(move |c| write_profile(c, &p)).await?;
        self.write(|c| {
            c.profiles.insert(profile.name.clone(), profile);
        });
        Ok(())
    }

    /// Delete a profile. The last one cannot go; sessions that used it fall
    /// back to the default (another profile if it was the default).
    pub async fn delete(&self, name: &str) -> Result<(), ProfileError> {
        let _writing = self.writes.lock().await;
        let (exists, count, default) = self.read(|c| {
            (
                c.profiles.contains_key(name),
                c.profiles.len(),
                c.default.clone(),
            )
        });
        if !exists {
            return Err(ProfileError::Refused(format!("no profile named `{name}`")));
        }
        if count == 1 {
            return Err(ProfileError::Refused(
                "the last profile cannot be deleted; create another first".into(),
            ));
        }
        let new_default = if default == name {
            self.read(|c| c.profiles.keys().find(|k| *k != name).cloned())
        } else {
            None
        };
        let (n, nd) = (name.to_owned(), new_default.clone());
        self.store
            .db()
            .call(move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                tx.execute("DELETE FROM profiles WHERE name = ?1", [&n])?;
                tx.execute(
                    "UPDATE sessions SET profile = NULL WHERE profile = ?1",
                    [&n],
                )?;
                if let Some(d) = &nd {
                    tx.execute(
                        "UPDATE settings SET value = ?1 WHERE key = 'default_profile'",
                        [d],
                    )?;
                }
                tx.commit()?;
                Ok(())
            })
            .await?;
        self.write(|c| {
            c.profiles.remove(name);
            c.sessions.retain(|_, p| p != name);
            if let Some(d) = new_default {
                c.default = d;
            }
        });
        Ok(())
    }

    /// Make `name` the profile new sessions start with.
    pub async fn set_default(&self, name: &str) -> Result<(), ProfileError> {
        let _writing = self.writes.lock().await;
        if !self.read(|c| c.profiles.contains_key(name)) {
            return Err(ProfileError::Refused(format!("no profile named `{name}`")));
        }
        let n = name.to_owned();
        self.store
            .db()
            .call(move |c| {
                c.execute(
                    "INSERT OR REPLACE INTO settings (key, value) VALUES ('default_profile', ?1)",
                    [&n],
                )?;
                Ok(())
            })
            .await?;
        self.write(|c| c.default = name.to_owned());
        Ok(())
    }

    /// Set the persona prepended to every profile prompt.
    pub async fn set_persona(&self, persona: &str) -> Result<(), ProfileError> {
        let p = persona.to_owned();
        let _writing = self.writes.lock().await;
        self.store
            .db()
            .call(move |c| {
                c.execute(
                    "INSERT OR REPLACE INTO settings (key, value) VALUES ('persona', ?1)",
                    [&p],
                )?;
                Ok(())
            })
            .await?;
        self.write(|c| c.persona = persona.to_owned());
        Ok(())
    }
}

impl ProfileProvider for Profiles {
    fn persona(&self) -> String {
        self.read(|c| c.persona.clone())
    }

    fn active(&self, session_id: &str) -> Profile {
        self.read(|c| {
            let project = c
                .memberships
                .get(session_id)
                .and_then(|id| c.projects.get(id));
            // The session's own choice, else its project's, else the
            // default.
            let name = c
                .sessions
                .get(session_id)
                .or_else(|| project.and_then(|pr| pr.profile.as_ref()))
                .unwrap_or(&c.default);
            let mut p = c
                .profiles
                .get(name)
                .or_else(|| c.profiles.get(&c.default))
                .or_else(|| c.profiles.values().next())
                .cloned()
                .unwrap_or_else(|| Profile::new("Chat", SEED_MODEL));
            // A session stays on the host it started on: its cache lives
            // there (a profile switched or edited since names another).
            let pinned = c.hosts.get(session_id);
            if let Some(h) = pinned {
                p.backend = (!h.is_empty()).then(|| h.clone());
            }
            // The session's own model names one of its host's (the picker
            // sets them together); before a session has a host, one of the
            // default Ollama's, so a profile on another server keeps its own.
            // The session's own model, else its project's.
            if let Some(m) = c
                .models
                .get(session_id)
                .or_else(|| project.and_then(|pr| pr.model.as_ref()))
                && (pinned.is_some() || p.backend.as_deref().is_none_or(|b| b == DEFAULT_HOST))
            {
                p.model = m.clone();
            }
            match project {
                Some(pr) => projects::with_project(p, pr),
                None => p,
            }
        })
    }

    fn by_name(&self, name: &str) -> Option<Profile> {
        self.read(|c| c.profiles.get(name).cloned())
    }

    fn names(&self) -> Vec<String> {
        self.read(|c| c.profiles.keys().cloned().collect())
    }
}

impl Profiles {
    /// Make `name` the profile of `session_id`; `Some` (the message the
    /// switch is marked after) when that changed it.
    pub async fn switch_to(
        &self,
        session_id: &str,
        name: &str,
    ) -> Result<Option<Option<i64>>, ProfileError> {
        if session_id.starts_with("subagent_") {
            return Err(ProfileError::Refused(
                "a sub-agent runs with the profile it was given; it cannot switch".into(),
            ));
        }
        let _writing = self.writes.lock().await;
        if !self.read(|c| c.profiles.contains_key(name)) {
            return Err(ProfileError::Refused(format!(
                "no profile named `{name}`; the profiles are: {}",
                ProfileProvider::names(self).join(", ")
            )));
        }
        let (s, n) = (session_id.to_owned(), name.to_owned());
        let changed = self.active(session_id).name != name;
        let marked = self
            .store
            .db()
            .call(move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                sessions::ensure(&tx, &s)?;
                tx.execute(
                    "UPDATE sessions SET profile = ?2 WHERE id = ?1",
                    params![s, n],
                )?;
                // A switch that changes nothing is not a mark in the
                // transcript; one before the first message is the
                // session's starting profile and is marked too.
                let mut marked = None;
                if changed {
                    let head = sessions::head(&tx, &s)?;
                    tx.execute(
                        "INSERT INTO profile_switches (session_id, profile, after_message_id, at)
                         VALUES (?1, ?2, ?3, ?4)",
                        params![s, n, head, now_ms()],
                    )?;
                    marked = Some(head);
                }
                tx.commit()?;
                Ok(marked)
            })
            .await?;
        self.write(|c| {
            c.sessions.insert(session_id.to_owned(), name.to_owned());
        });
        Ok(marked)
    }
}

#[async_trait]
impl ProfileSwitcher for Profiles {
    async fn switch(
        &self,
        session_id: &str,
        name: &str,
    ) -> Result<Option<Option<i64>>, SwitchError> {
        // The model reads this text as the tool's result.
        self.switch_to(session_id, name).await.map_err(|e| match e {
            ProfileError::Refused(why) => SwitchError::Refused(why),
            ProfileError::Store(e) => SwitchError::Store(e.into()),
        })
    }
}

impl Store {
    /// The profile changes of a session, oldest first.
    pub async fn profile_switches(
        &self,
        session_id: &str,
    ) -> Result<Vec<ProfileSwitch>, StoreError> {
        let s = session_id.to_owned();
        self.db()
            .call(move |c| {
                let mut stmt = c.prepare(
                    "SELECT profile, after_message_id, at FROM profile_switches
                     WHERE session_id = ?1 ORDER BY id",
                )?;
                let rows = stmt.query_map([s], |r| {
                    Ok(ProfileSwitch {
                        profile: r.get(0)?,
                        after_message_id: r.get(1)?,
                        at: r.get(2)?,
                    })
                })?;
                Ok(rows.collect::<Result<_, _>>()?)
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each refused field is its own variant, in the words the settings
    /// page always showed.
    #[test]
    fn a_refused_profile_names_the_field() {
        let ok = Profile::new("Chat", "qwen3:8b");
        assert_eq!(validate(&ok), Ok(()));
        let with = |f: fn(&mut Profile)| {
            let mut p = ok.clone();
            f(&mut p);
            validate(&p).unwrap_err()
        };
        assert_eq!(with(|p| p.name.clear()), InvalidProfile::NameLength);
        assert_eq!(
            with(|p| p.name = " Chat".into()),
            InvalidProfile::NameSpaces
        );
        let e = with(|p| p.model = " ".into());
        assert_eq!(e, InvalidProfile::NoModel("Chat".into()));
        assert_eq!(e.to_string(), "profile `Chat` needs a model");
        let e = with(|p| p.max_iterations = 0);
        assert_eq!(
            e.to_string(),
            "max_iterations must be between 1 and 100, not 0"
        );
        let e = with(|p| p.temperature = Some(2.5));
        assert_eq!(
            e.to_string(),
            "temperature must be between 0 and 2, not 2.5"
        );
        let e = with(|p| p.workspace = Some("~/proj".into()));
        assert_eq!(
            e.to_string(),
            "the workspace must be a full path such as /home/you/project, not `~/proj`"
        );
    }
}
