//! What depends on where a chat stands and what an answer cites: the
//! folders a chat of a project searches, folders moved between projects,
//! and a passage found again by its file and lines (docs/knowledge.md,
//! docs/projects.md).

use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, params};

use crate::error::KnowledgeError;
use crate::index::{Folder, Index};

/// A passage as the index holds it now (what a source opens).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Passage {
    /// The file (absolute).
    pub path: PathBuf,
    /// The headings above it.
    pub heading: Option<String>,
    /// Its first line.
    pub start_line: u32,
    /// Its last line.
    pub end_line: u32,
    /// Its text.
    pub text: String,
}

impl Index {
    /// The folders a chat in `project` (a project's id; `None`: a chat in
    /// none) searches: those of every chat and its project's own. `None`
    /// when that is every folder (no folder belongs to a project), so the
    /// search is not narrowed at all.
    pub fn folders_in_scope(
        &self,
        project: Option<&str>,
    ) -> Result<Option<Vec<i64>>, KnowledgeError> {
        let conn = self.conn();
        let any_owned: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM folders WHERE project IS NOT NULL)",
            [],
            |r| r.get(0),
        )?;
        if !any_owned {
            return Ok(None);
        }
        let mut stmt = conn.prepare_cached(
            "SELECT id FROM folders WHERE project IS NULL OR project = ?1 ORDER BY id",
        )?;
        let ids = stmt
            .query_map([project], |r| r.get(0))?
            .collect::<Result<Vec<i64>, _>>()?;
        Ok(Some(ids))
    }

    /// Gives the folders of project `from` to `to` (`None`: every chat),
    /// as when a project is deleted; the number of folders moved.
    pub fn move_project_folders(
        &self,
        from: &str,
        to: Option<&str>,
    ) -> Result<usize, KnowledgeError> {
        Ok(self.conn().execute(
            "UPDATE folders SET project = ?2 WHERE project = ?1",
            params![from, to],
        )?)
    }

    /// Puts the folder at `path` in `project` (`None`: every chat).
    pub fn set_folder_project(
        &self,
        path: &Path,
        project: Option<&str>,
    ) -> Result<Folder, KnowledgeError> {
        let folder = self.find_folder(path)?;
        self.conn().execute(
            "UPDATE folders SET project = ?2 WHERE id = ?1",
            params![folder.id, project],
        )?;
        self.find_folder(&folder.path)
    }

    /// The passage of `path` (a file in a knowledge folder, full path)
    /// that spans lines `start`–`end`, as the index holds it now: what a
    /// source under an answer opens. `None` when the file changed since
    /// and no passage has those lines any more.
    pub fn passage(
        &self,
        path: &Path,
        start: u32,
        end: u32,
    ) -> Result<Option<Passage>, KnowledgeError> {
        let Some((folder, rel)) = self
            .folders()?
            .into_iter()
            .find_map(|f| Some((f.id, path.strip_prefix(&f.path).ok()?.to_owned())))
        else {
            return Ok(None);
        };
        let rel = rel.to_string_lossy().into_owned();
        Ok(self
            .conn()
            .query_row(
                "SELECT c.text, c.heading, c.start_line, c.end_line
                 FROM chunks c JOIN files x ON x.id = c.file_id
                 WHERE x.folder_id = ?1 AND x.rel_path = ?2 AND c.start_line = ?3 AND c.end_line = ?4",
                params![folder, rel, start, end],
                |r| {
                    Ok(Passage {
                        path: path.to_owned(),
                        text: r.get(0)?,
                        heading: r.get(1)?,
                        start_line: r.get(2)?,
                        end_line: r.get(3)?,
                    })
                },
            )
            .optional()?)
    }
}
