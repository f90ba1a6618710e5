//! Projects as the sidebar and the project dialog see them, and an
//! answer's sources (docs/projects.md, docs/knowledge.md).

use serde::{Deserialize, Serialize};
use specta::Type;

/// A project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ProjectView {
    /// Id (stays when renamed).
    pub id: String,
    /// Name.
    pub name: String,
    /// The folder its sessions work in, instead of their profile's.
    pub workspace: Option<String>,
    /// The profile its sessions use unless they chose one.
    pub profile: Option<String>,
    /// The model its sessions use unless they chose one.
    pub model: Option<String>,
    /// Said to the model in each of its sessions.
    pub instructions: String,
    /// Sessions in it (not deleted).
    pub sessions: u32,
    /// Its own knowledge folders (searched by its chats only).
    pub folders: Vec<String>,
}

/// What the project dialog sends: every field, written as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ProjectDraftView {
    /// Name.
    pub name: String,
    /// Workspace folder (a full path; blank: the profile's).
    pub workspace: Option<String>,
    /// Default profile (blank: the app's default).
    pub profile: Option<String>,
    /// Default model (blank: the profile's).
    pub model: Option<String>,
    /// Instructions.
    pub instructions: String,
}

impl From<ProjectDraftView> for hearth_store::ProjectDraft {
    fn from(d: ProjectDraftView) -> Self {
        Self {
            name: d.name,
            workspace: d
                .workspace
                .map(|w| w.trim().to_owned())
                .filter(|w| !w.is_empty())
                .map(std::path::PathBuf::from),
            profile: d.profile,
            model: d.model,
            instructions: d.instructions,
        }
    }
}

/// What deleting a project did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct ProjectDeletedView {
    /// Its sessions, now outside any project.
    pub sessions: u32,
    /// Its knowledge folders, no longer searched (the files stay).
    pub folders: u32,
}

/// A passage a search in the answer's run returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct SourceView {
    /// Its number in the run (`[n]` in the answer).
    pub n: u32,
    /// The file.
    pub path: String,
    /// The file's name, for a short label.
    pub name: String,
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// The headings above it.
    pub heading: Option<String>,
    /// The answer cites it.
    pub cited: bool,
}

/// A quotation in the answer, checked against its source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct QuoteView {
    /// The quoted words.
    pub text: String,
    /// The sources cited for it.
    pub cites: Vec<u32>,
    /// The source that has the words (`None`: none the run was given).
    pub found_in: Option<u32>,
    /// The words are in a source it cites.
    pub holds: bool,
}

/// What an answer drew on from the knowledge folders.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct AnswerSourcesView {
    /// Every passage its run's searches returned, in order.
    pub sources: Vec<SourceView>,
    /// Numbers it cites that no search returned.
    pub unknown: Vec<u32>,
    /// Its quotations, checked.
    pub quotes: Vec<QuoteView>,
}

impl From<hearth_knowledge::Citations> for AnswerSourcesView {
    fn from(c: hearth_knowledge::Citations) -> Self {
        Self {
            sources: c
                .sources
                .into_iter()
                .map(|s| SourceView {
                    n: s.n,
                    name: s.path.rsplit('/').next().unwrap_or_default().to_owned(),
                    path: s.path,
                    start_line: s.start_line,
                    end_line: s.end_line,
                    heading: s.heading,
                    cited: s.cited,
                })
                .collect(),
            unknown: c.unknown,
            quotes: c
                .quotes
                .into_iter()
                .map(|q| QuoteView {
                    holds: q.holds(),
                    text: q.text,
                    cites: q.cites,
                    found_in: q.found_in,
                })
                .collect(),
        }
    }
}

/// A passage as the index holds it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct PassageView {
    /// The file.
    pub path: String,
    /// The headings above it.
    pub heading: Option<String>,
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// Its text.
    pub text: String,
}

impl From<hearth_knowledge::Passage> for PassageView {
    fn from(p: hearth_knowledge::Passage) -> Self {
        Self {
            path: p.path.display().to_string(),
            heading: p.heading,
            start_line: p.start_line,
            end_line: p.end_line,
            text: p.text,
        }
    }
}
