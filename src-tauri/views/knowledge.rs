//! The Knowledge panel's shapes: the folders, the sync going on, and
//! passages found (docs/knowledge.md).

use serde::{Deserialize, Serialize};
use specta::Type;

fn small(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One knowledge folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct KnowledgeFolderView {
    /// Its path.
    pub path: String,
    /// Files seen in it.
    pub files: u32,
    /// Files with passages.
    pub indexed: u32,
    /// Files left out (each with its reason: `knowledge_skipped`).
    pub skipped: u32,
    /// Passages.
    pub chunks: u32,
    /// Passages with a vector.
    pub embedded: u32,
    /// `new`, `syncing`, `ready`, `missing` or `failed`.
    pub status: String,
    /// What went wrong, for `missing` and `failed`.
    pub detail: Option<String>,
    /// The project it belongs to (an id; `None`: every chat's).
    pub project: Option<String>,
}

impl From<&hearth_knowledge::Folder> for KnowledgeFolderView {
    fn from(f: &hearth_knowledge::Folder) -> Self {
        Self {
            path: f.path.display().to_string(),
            files: small(f.files),
            indexed: small(f.indexed),
            skipped: small(f.skipped),
            chunks: small(f.chunks),
            embedded: small(f.embedded),
            status: serde_json::to_value(f.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            detail: f.detail.clone(),
            project: f.project.clone(),
        }
    }
}

/// A sync, going on or last finished.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct KnowledgeSyncView {
    /// A sync is going on.
    pub running: bool,
    /// `reading` (the text pass) or `embedding`, while running.
    pub phase: Option<String>,
    /// Files seen so far (reading).
    pub seen: u32,
    /// Of those, files read again (new or changed).
    pub read: u32,
    /// Passages embedded so far, and how many there are to embed.
    pub embedded: u32,
    /// How many passages this pass embeds.
    pub to_embed: u32,
    /// How the last sync ended, in words.
    pub last: Option<String>,
    /// What stopped the last sync, with what to do.
    pub error: Option<String>,
    /// Folders watched for changes (a change syncs them).
    pub watched: u32,
    /// Folders whose changes are not watched, each with why.
    pub unwatched: Vec<String>,
}

/// The panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct KnowledgeView {
    /// Every folder, by path.
    pub folders: Vec<KnowledgeFolderView>,
    /// The embedding model chosen (`None`: search by words only).
    pub model: Option<String>,
    /// The model the vectors held were made with, when another.
    pub vectors_model: Option<String>,
    /// The sync.
    pub sync: KnowledgeSyncView,
}

/// A passage found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct KnowledgeHitView {
    /// The file.
    pub path: String,
    /// The headings above the passage.
    pub heading: Option<String>,
    /// Its first line.
    pub start_line: u32,
    /// Its last line.
    pub end_line: u32,
    /// Its text.
    pub text: String,
    /// Its rank by words, when the word search found it.
    pub word_rank: Option<u32>,
    /// Its rank by meaning.
    pub meaning_rank: Option<u32>,
}

impl From<hearth_knowledge::Hit> for KnowledgeHitView {
    fn from(h: hearth_knowledge::Hit) -> Self {
        let rank = |r: Option<usize>| r.map(|r| u32::try_from(r).unwrap_or(u32::MAX));
        Self {
            path: h.path.display().to_string(),
            heading: h.heading,
            start_line: h.start_line,
            end_line: h.end_line,
            text: h.text,
            word_rank: rank(h.word_rank),
            meaning_rank: rank(h.meaning_rank),
        }
    }
}
