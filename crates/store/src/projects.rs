//! The `projects` table: a project groups sessions and holds what they
//! share — a workspace folder, a default profile and model, instructions
//! (docs/projects.md). `sessions.project_id` says which project a session
//! is in (none: the sidebar's "Chats"). The knowledge folders a project
//! owns live in the knowledge index, keyed by the project's id.
//!
//! Writes go through [`crate::Profiles`] (`profiles/projects.rs`): what a
//! project says changes the profile a session runs with, and the profiles'
//! in-memory copy must see each write in order.

use std::path::PathBuf;

use rusqlite::{Connection, OptionalExtension, params};

use crate::clock::now_ms;
use crate::error::StoreError;
use crate::migration::Migration;
use crate::store::Store;

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 20,
    name: "projects",
    // `name` is unique whatever its case: "Garden" and "garden" in one
    // sidebar would be two folders a person cannot tell apart.
    // `sessions.knowledge`: a chat that asked for its knowledge folders'
    // passages with each message (docs/knowledge.md).
    sql: "CREATE TABLE projects (
              id TEXT PRIMARY KEY,
              name TEXT NOT NULL UNIQUE COLLATE NOCASE,
              workspace TEXT,
              profile TEXT,
              model TEXT,
              instructions TEXT NOT NULL DEFAULT '',
              created_at INTEGER NOT NULL,
              updated_at INTEGER NOT NULL
          );
          ALTER TABLE sessions ADD COLUMN project_id TEXT REFERENCES projects(id) ON DELETE SET NULL;
          CREATE INDEX sessions_by_project ON sessions(project_id);
          ALTER TABLE sessions ADD COLUMN knowledge INTEGER NOT NULL DEFAULT 0;",
}];

/// Longest project name, in characters.
pub const MAX_PROJECT_NAME: usize = 80;
/// Longest project instructions, in characters: they go into every
/// prompt of the project's sessions, so a pasted book would crowd out the
/// conversation on a small context.
pub const MAX_PROJECT_INSTRUCTIONS: usize = 8_000;

/// A project as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// Id (`prj_…`): stays when the project is renamed.
    pub id: String,
    /// What a person calls it; unique, whatever the case.
    pub name: String,
    /// The folder its sessions' file tools and commands work in, instead
    /// of their profile's.
    pub workspace: Option<PathBuf>,
    /// The profile its sessions use unless they chose one.
    pub profile: Option<String>,
    /// The model its sessions use unless they chose one.
    pub model: Option<String>,
    /// Said to the model in every session of the project, after the
    /// profile's prompt.
    pub instructions: String,
    /// Created, ms since the epoch.
    pub created_at: i64,
    /// Last change of its settings, ms since the epoch.
    pub updated_at: i64,
}

/// What a person sets on a project (creating it, or changing it: every
/// field is written).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectDraft {
    /// Name.
    pub name: String,
    /// Workspace folder (a full path).
    pub workspace: Option<PathBuf>,
    /// Default profile (must exist).
    pub profile: Option<String>,
    /// Default model.
    pub model: Option<String>,
    /// Instructions.
    pub instructions: String,
}

impl ProjectDraft {
    /// The draft with blanks made `None` and the name and instructions
    /// trimmed; an error says what is wrong in a person's words.
    pub(crate) fn cleaned(mut self) -> Result<Self, String> {
        self.name = self.name.trim().to_owned();
        if self.name.is_empty() {
            return Err("a project needs a name".into());
        }
        if self.name.chars().count() > MAX_PROJECT_NAME {
            return Err(format!(
                "a project's name is at most {MAX_PROJECT_NAME} characters"
            ));
        }
        if self.name.chars().any(char::is_control) {
            return Err("a project's name is one line of text".into());
        }
        self.workspace = self.workspace.filter(|w| !w.as_os_str().is_empty());
        if let Some(w) = &self.workspace
            && !w.is_absolute()
        {
            return Err(format!(
                "the workspace must be a full path such as /home/you/project, not `{}`",
                w.display()
            ));
        }
        let blank = |s: Option<String>| s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
        self.profile = blank(self.profile);
        self.model = blank(self.model);
        if let Some(m) = &self.model
            && (m.chars().count() > 200 || m.chars().any(char::is_control))
        {
            return Err(format!("`{}` is not a model name", m.escape_debug()));
        }
        self.instructions = self.instructions.trim().to_owned();
        let n = self.instructions.chars().count();
        if n > MAX_PROJECT_INSTRUCTIONS {
            return Err(format!(
                "a project's instructions are at most {MAX_PROJECT_INSTRUCTIONS} characters (these are {n}): they are sent with every message; put long material in a knowledge folder instead"
            ));
        }
        Ok(self)
    }
}

/// A project with how many sessions are in it (not deleted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectSummary {
    /// The project.
    pub project: Project,
    /// Sessions in it.
    pub sessions: u64,
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Project> {
    Ok(Project {
        id: r.get(0)?,
        name: r.get(1)?,
        workspace: r.get::<_, Option<String>>(2)?.map(PathBuf::from),
        profile: r.get(3)?,
        model: r.get(4)?,
        instructions: r.get(5)?,
        created_at: r.get(6)?,
        updated_at: r.get(7)?,
    })
}

const COLUMNS: &str = "id, name, workspace, profile, model, instructions, created_at, updated_at";

/// Every project, by name.
pub(crate) fn all(conn: &Connection) -> Result<Vec<Project>, StoreError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM projects ORDER BY name COLLATE NOCASE"
    ))?;
    let rows = stmt.query_map([], row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Which project each session is in (sessions in none are left out).
pub(crate) fn memberships(conn: &Connection) -> Result<Vec<(String, String)>, StoreError> {
    let mut stmt =
        conn.prepare("SELECT id, project_id FROM sessions WHERE project_id IS NOT NULL")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// A project by id.
pub(crate) fn get(conn: &Connection, id: &str) -> Result<Option<Project>, StoreError> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM projects WHERE id = ?1"),
            [id],
            row,
        )
        .optional()?)
}

/// Whether another project than `except` has `name` (any case).
pub(crate) fn name_taken(
    conn: &Connection,
    name: &str,
    except: Option<&str>,
) -> Result<bool, StoreError> {
    Ok(conn.query_row(
        "SELECT EXISTS(SELECT 1 FROM projects WHERE name = ?1 AND id IS NOT ?2)",
        params![name, except],
        |r| r.get(0),
    )?)
}

/// Insert a cleaned draft as project `id`.
pub(crate) fn insert(conn: &Connection, id: &str, d: &ProjectDraft) -> Result<Project, StoreError> {
    let now = now_ms();
    conn.execute(
        "INSERT INTO projects (id, name, workspace, profile, model, instructions, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
        params![
            id,
            d.name,
            d.workspace.as_ref().map(|w| w.to_string_lossy().into_owned()),
            d.profile,
            d.model,
            d.instructions,
            now
        ],
    )?;
    get(conn, id)?.ok_or_else(|| StoreError::Corrupt(format!("project {id} vanished")))
}

/// Write every field of a cleaned draft over project `id`.
pub(crate) fn update(conn: &Connection, id: &str, d: &ProjectDraft) -> Result<Project, StoreError> {
    conn.execute(
        "UPDATE projects SET name = ?2, workspace = ?3, profile = ?4, model = ?5,
                instructions = ?6, updated_at = ?7 WHERE id = ?1",
        params![
            id,
            d.name,
            d.workspace
                .as_ref()
                .map(|w| w.to_string_lossy().into_owned()),
            d.profile,
            d.model,
            d.instructions,
            now_ms()
        ],
    )?;
    get(conn, id)?.ok_or_else(|| StoreError::Corrupt(format!("project {id} vanished")))
}

impl Store {
    /// Every project, by name, with how many sessions (not deleted) each
    /// holds.
    pub async fn projects(&self) -> Result<Vec<ProjectSummary>, StoreError> {
        self.db()
            .call(|c| {
                let counts: std::collections::HashMap<String, u64> = {
                    let mut stmt = c.prepare(
                        "SELECT project_id, count(*) FROM sessions
                         WHERE project_id IS NOT NULL AND deleted_at IS NULL
                         GROUP BY project_id",
                    )?;
                    let rows =
                        stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
                    rows.map(|r| r.map(|(p, n)| (p, u64::try_from(n).unwrap_or(0))))
                        .collect::<Result<_, _>>()?
                };
                Ok(all(c)?
                    .into_iter()
                    .map(|p| ProjectSummary {
                        sessions: counts.get(&p.id).copied().unwrap_or(0),
                        project: p,
                    })
                    .collect())
            })
            .await
    }
}
