//! Projects as the loop sees them: the project a session is in decides its
//! workspace, the profile and model it uses unless it chose its own, and
//! instructions said after the profile's prompt ([`super::Profiles`]'s
//! `active`). Every write goes through here so the in-memory copy sees it
//! in order (the table itself is `crate::projects`).

use hearth_core::Profile;
use rusqlite::{TransactionBehavior, params};

use super::Profiles;
use crate::error::ProfileError;
use crate::projects::{self, Project, ProjectDraft};
use crate::sessions;

/// `p` as a session of `project` runs it: the project's workspace, and its
/// instructions after the profile's prompt under a heading that says
/// whose words they are.
pub(super) fn with_project(mut p: Profile, project: &Project) -> Profile {
    if let Some(w) = &project.workspace {
        p.workspace = Some(w.clone());
    }
    if !project.instructions.is_empty() {
        let sep = if p.system_prompt.is_empty() {
            ""
        } else {
            "\n\n"
        };
        p.system_prompt = format!(
            "{}{sep}## Project \"{}\"\n{}",
            p.system_prompt, project.name, project.instructions
        );
    }
    p
}

impl Profiles {
    /// The project `id`.
    pub fn project(&self, id: &str) -> Option<Project> {
        self.read(|c| c.projects.get(id).cloned())
    }

    /// Every project, by name.
    pub fn project_list(&self) -> Vec<Project> {
        let mut v: Vec<Project> = self.read(|c| c.projects.values().cloned().collect());
        v.sort_by_key(|p| p.name.to_lowercase());
        v
    }

    /// The project a person names: its id, or its name in any case.
    pub fn find_project(&self, name_or_id: &str) -> Option<Project> {
        let wanted = name_or_id.trim();
        self.read(|c| {
            c.projects.get(wanted).cloned().or_else(|| {
                let lower = wanted.to_lowercase();
                c.projects
                    .values()
                    .find(|p| p.name.to_lowercase() == lower)
                    .cloned()
            })
        })
    }

    /// The project `session_id` is in.
    pub fn session_project(&self, session_id: &str) -> Option<Project> {
        self.read(|c| {
            c.memberships
                .get(session_id)
                .and_then(|id| c.projects.get(id))
                .cloned()
        })
    }

    /// Refused unless `draft`'s profile exists (a project cannot start
    /// its chats on a profile that is not there).
    fn check_profile(&self, draft: &ProjectDraft) -> Result<(), ProfileError> {
        if let Some(p) = &draft.profile
            && !self.read(|c| c.profiles.contains_key(p))
        {
            return Err(ProfileError::Refused(format!("no profile named `{p}`")));
        }
        Ok(())
    }

    /// Create a project.
    pub async fn create_project(&self, draft: ProjectDraft) -> Result<Project, ProfileError> {
        let draft = draft.cleaned().map_err(ProfileError::Refused)?;
        let _writing = self.writes.lock().await;
        self.check_profile(&draft)?;
        let id = format!("prj_{}", uuid::Uuid::new_v4().simple());
        self.write_project(id, draft, true).await
    }

    /// Change every setting of project `id` to `draft`'s.
    pub async fn update_project(
        &self,
        id: &str,
        draft: ProjectDraft,
    ) -> Result<Project, ProfileError> {
        let draft = draft.cleaned().map_err(ProfileError::Refused)?;
        let _writing = self.writes.lock().await;
        if self.project(id).is_none() {
            return Err(no_project(id));
        }
        self.check_profile(&draft)?;
        self.write_project(id.to_owned(), draft, false).await
    }

    /// Writes a cleaned `draft` as project `id` (`new`: inserted, else
    /// over it) in one transaction with the check that no other project
    /// has its name, then into the copy. The caller holds `writes`.
    async fn write_project(
        &self,
        id: String,
        draft: ProjectDraft,
        new: bool,
    ) -> Result<Project, ProfileError> {
        let made = self
            .store
            .db()
            .call(move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                if projects::name_taken(&tx, &draft.name, (!new).then_some(id.as_str()))? {
                    return Ok(Err(draft.name));
                }
                let p = if new {
                    projects::insert(&tx, &id, &draft)?
                } else {
                    projects::update(&tx, &id, &draft)?
                };
                tx.commit()?;
                Ok(Ok(p))
            })
            .await?
            .map_err(|name| ProfileError::Refused(format!("a project named `{name}` exists")))?;
        self.write(|c| {
            c.projects.insert(made.id.clone(), made.clone());
        });
        Ok(made)
    }

    /// Delete project `id`. Its sessions stay, outside any project; the
    /// number moved out is returned.
    pub async fn delete_project(&self, id: &str) -> Result<u64, ProfileError> {
        let _writing = self.writes.lock().await;
        if self.project(id).is_none() {
            return Err(no_project(id));
        }
        let pid = id.to_owned();
        let moved = self
            .store
            .db()
            .call(move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let n = tx.execute(
                    "UPDATE sessions SET project_id = NULL WHERE project_id = ?1",
                    [&pid],
                )?;
                tx.execute("DELETE FROM projects WHERE id = ?1", [&pid])?;
                tx.commit()?;
                Ok(n)
            })
            .await?;
        self.write(|c| {
            c.projects.remove(id);
            c.memberships.retain(|_, p| p != id);
        });
        Ok(u64::try_from(moved).unwrap_or(0))
    }

    /// Put `session_id` in project `project` (`None`: in none). A session
    /// that does not exist yet (a new chat started in a project) is made.
    pub async fn move_session(
        &self,
        session_id: &str,
        project: Option<&str>,
    ) -> Result<(), ProfileError> {
        if session_id.starts_with("subagent_") {
            return Err(ProfileError::Refused(
                "a sub-agent's session belongs to the chat that started it".into(),
            ));
        }
        let _writing = self.writes.lock().await;
        if let Some(p) = project
            && self.project(p).is_none()
        {
            return Err(no_project(p));
        }
        let (sid, pid) = (session_id.to_owned(), project.map(str::to_owned));
        self.store
            .db()
            .call(move |c| {
                sessions::ensure(c, &sid)?;
                c.execute(
                    "UPDATE sessions SET project_id = ?2 WHERE id = ?1",
                    params![sid, pid],
                )?;
                Ok(())
            })
            .await?;
        self.write(|c| match project {
            Some(p) => {
                c.memberships.insert(session_id.to_owned(), p.to_owned());
            }
            None => {
                c.memberships.remove(session_id);
            }
        });
        Ok(())
    }
}

impl Profiles {
    /// Make the project an import described and put its imported sessions
    /// in it. Its name gets " (imported)" (then " (imported 2)"…) when a
    /// project has it already; a profile this database does not have is
    /// left out (its sessions use the default), and said in the returned
    /// note.
    pub async fn adopt_import(
        &self,
        report: &crate::ImportReport,
    ) -> Result<Option<(Project, Option<String>)>, ProfileError> {
        let Some(draft) = report.project.clone() else {
            return Ok(None);
        };
        let mut draft = ProjectDraft {
            name: draft.name.trim().to_owned(),
            ..draft
        };
        if draft.name.is_empty() {
            draft.name = "Imported project".into();
        }
        let mut note = None;
        if let Some(p) = &draft.profile
            && !self.read(|c| c.profiles.contains_key(p))
        {
            note = Some(format!(
                "the project's profile `{p}` is not here: its chats use the default profile"
            ));
            draft.profile = None;
        }
        let base = draft.name.clone();
        let mut n = 0u32;
        let made = loop {
            match self.create_project(draft.clone()).await {
                Err(ProfileError::Refused(why))
                    if why.starts_with("a project named") && n < 100 =>
                {
                    n += 1;
                    draft.name = if n == 1 {
                        format!("{base} (imported)")
                    } else {
                        format!("{base} (imported {n})")
                    };
                }
                other => break other?,
            }
        };
        for s in &report.sessions {
            self.move_session(s, Some(&made.id)).await?;
        }
        if !report.knowledge_folders.is_empty() {
            // Said, not added: indexing what a received file names would
            // let its sender choose what the model can search here.
            let folders = report.knowledge_folders.join(", ");
            let said = format!(
                "the project used the knowledge folders {folders}; a file does not add folders here: add those you want in the project's settings"
            );
            note = Some(match note {
                Some(n) => format!("{n}; {said}"),
                None => said,
            });
        }
        Ok(Some((made, note)))
    }
}

fn no_project(id: &str) -> ProfileError {
    ProfileError::Refused(format!("no project `{id}`"))
}
