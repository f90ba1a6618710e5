//! Exporting a project: its settings and every session in it (not
//! deleted), as Markdown for people or as JSON that Hearth imports back
//! into a project of the same name. Each session is the one-session
//! export's own shape ([`Store::export_json`]), files included, so a
//! project moved to another machine arrives whole. Its knowledge folders
//! (kept in the knowledge index, which the caller reads) are listed by
//! path: the import says them and adds none (a file someone sent must not
//! choose what gets indexed for the model to search).

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::error::StoreError;
use crate::projects::{self, Project};
use crate::store::Store;

/// The `format` field of a project's JSON export.
pub const PROJECT_EXPORT_FORMAT: &str = "hearth.project";
/// Its `version`.
pub const PROJECT_EXPORT_VERSION: i64 = 1;

impl Store {
    /// The project and the ids of its sessions (not deleted), newest
    /// first; an unknown id is an error.
    async fn project_and_sessions(&self, id: &str) -> Result<(Project, Vec<String>), StoreError> {
        let id = id.to_owned();
        self.db()
            .call(move |c| {
                let p = projects::get(c, &id)?.ok_or_else(|| StoreError::NoProject(id.clone()))?;
                let mut stmt = c.prepare(
                    "SELECT id FROM sessions WHERE project_id = ?1 AND deleted_at IS NULL
                     ORDER BY updated_at DESC, rowid DESC",
                )?;
                let ids = stmt
                    .query_map([&id], |r| r.get(0))?
                    .collect::<Result<Vec<String>, _>>()?;
                Ok((p, ids))
            })
            .await
    }

    /// The project as Markdown: its name, settings, knowledge folders
    /// (`knowledge`, their paths) and instructions, then each session's
    /// Markdown export, newest first, each under a rule.
    pub async fn export_project_markdown(
        &self,
        id: &str,
        knowledge: &[PathBuf],
    ) -> Result<String, StoreError> {
        let (p, ids) = self.project_and_sessions(id).await?;
        let mut out = format!("# Project: {}\n\n", one_line(&p.name));
        if let Some(w) = &p.workspace {
            out.push_str(&format!("- Workspace: `{}`\n", w.display()));
        }
        if let Some(pr) = &p.profile {
            out.push_str(&format!("- Profile: {}\n", one_line(pr)));
        }
        if let Some(m) = &p.model {
            out.push_str(&format!("- Model: {}\n", one_line(m)));
        }
        for k in knowledge {
            out.push_str(&format!("- Knowledge folder: `{}`\n", k.display()));
        }
        out.push_str(&format!(
            "- {} session{}\n",
            ids.len(),
            if ids.len() == 1 { "" } else { "s" }
        ));
        if !p.instructions.is_empty() {
            out.push_str("\n## Instructions\n\n");
            out.push_str(&p.instructions);
            out.push('\n');
        }
        for sid in ids {
            out.push_str("\n---\n\n");
            // Each session as its own export says it (its headings are
            // not shifted: a `#` line inside a code block is not one).
            out.push_str(&self.export_markdown(&sid).await?);
        }
        Ok(out)
    }

    /// The project as JSON:
    ///
    /// ```json
    /// { "format": "hearth.project", "version": 1,
    ///   "project": { "name": "…", "workspace": null, "profile": null,
    ///                "model": null, "instructions": "",
    ///                "knowledge_folders": ["/home/…/notes"],
    ///                "created_at_ms": 0, "updated_at_ms": 0 },
    ///   "sessions": [ { "format": "hearth.session", "version": 2, … } ] }
    /// ```
    ///
    /// `sessions` holds each session's own export, newest first;
    /// `knowledge_folders` the paths of `knowledge` (an older Hearth's
    /// import ignores the field, so the version stays 1).
    pub async fn export_project_json(
        &self,
        id: &str,
        knowledge: &[PathBuf],
    ) -> Result<Value, StoreError> {
        let (p, ids) = self.project_and_sessions(id).await?;
        let mut sessions = Vec::with_capacity(ids.len());
        for sid in ids {
            sessions.push(self.export_json(&sid).await?);
        }
        Ok(json!({
            "format": PROJECT_EXPORT_FORMAT,
            "version": PROJECT_EXPORT_VERSION,
            "project": {
                "name": p.name,
                "workspace": p.workspace.map(|w| w.to_string_lossy().into_owned()),
                "profile": p.profile,
                "model": p.model,
                "instructions": p.instructions,
                "knowledge_folders": knowledge
                    .iter()
                    .map(|k| k.to_string_lossy().into_owned())
                    .collect::<Vec<_>>(),
                "created_at_ms": p.created_at,
                "updated_at_ms": p.updated_at,
            },
            "sessions": sessions,
        }))
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
