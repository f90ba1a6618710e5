//! `search_knowledge`: the agent's read-only search of the knowledge
//! folders. What it returns is the user's files, which may hold anything
//! (a downloaded page that says "ignore your instructions"): it goes to the
//! model as a tool result, untrusted like every other.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use hearth_core::{Tool, ToolContext, ToolError, ToolSpec};
use serde_json::{Value, json};

use crate::embed::Embedder;
use crate::fuse::Mode;
use crate::index::{Hit, Index};

/// Passages returned when the model does not say.
const DEFAULT_LIMIT: usize = 5;
/// The most it may ask for.
const MAX_LIMIT: usize = 10;

/// Passages numbered from `first`, each under a line with its file, lines
/// and headings: what the tool returns, what a message's attached
/// passages hold, and what [`crate::passages`] reads back.
pub fn numbered(hits: &[Hit], first: u32) -> String {
    let mut out = String::new();
    for (i, h) in hits.iter().enumerate() {
        let heading = h
            .heading
            .as_deref()
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        out.push_str(&format!(
            "[{}] {}, lines {}–{}{}\n{}\n\n",
            first + i as u32,
            h.path.display(),
            h.start_line,
            h.end_line,
            heading,
            h.text.trim()
        ));
    }
    out.trim_end().to_owned()
}

/// Runs whose passage numbers are remembered: a run's searches number on
/// from its last one, so `[3]` names one passage in the whole answer.
const RUNS_REMEMBERED: usize = 64;

/// The project of a conversation (by its session id), which decides the
/// folders it searches.
pub type ProjectOf = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Searches the knowledge folders by words and meaning.
#[derive(Clone)]
pub struct SearchKnowledge {
    index: Index,
    embedder: Option<Embedder>,
    project_of: Option<ProjectOf>,
    /// The last passage number given in each recent run.
    numbered: Arc<Mutex<VecDeque<(String, u32)>>>,
}

impl std::fmt::Debug for SearchKnowledge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchKnowledge")
            .field("index", &self.index)
            .field("embedder", &self.embedder)
            .finish_non_exhaustive()
    }
}

impl SearchKnowledge {
    /// Over `index`, by meaning too when `embedder` is given. A chat
    /// searches the folders of every chat and, where `project_of` says it
    /// is in a project, that project's own (`None`: every folder).
    pub fn new(index: Index, embedder: Option<Embedder>, project_of: Option<ProjectOf>) -> Self {
        Self {
            index,
            embedder,
            project_of,
            numbered: Arc::default(),
        }
    }

    /// Shares the run numbering of `other` (the same tool made again for
    /// the next model call of a run).
    pub fn numbering_of(mut self, other: &Self) -> Self {
        self.numbered = other.numbered.clone();
        self
    }

    /// The first number for `count` passages in `run`, which it takes.
    fn take_numbers(&self, run: &str, count: u32) -> u32 {
        let mut runs = match self.numbered.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let last = match runs.iter_mut().find(|(r, _)| r == run) {
            Some((_, last)) => {
                let first = *last + 1;
                *last += count;
                return first;
            }
            None => 0,
        };
        if runs.len() == RUNS_REMEMBERED {
            runs.pop_front();
        }
        runs.push_back((run.to_owned(), last + count));
        last + 1
    }
}

#[async_trait]
impl Tool for SearchKnowledge {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "search_knowledge".into(),
            description: "Search the user's own documents (the folders they gave Hearth) for passages about something. Returns numbered passages with their file and lines; cite them as [1], [2] when you use them, and put words you take from a passage in quotation marks exactly as they are written there.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "what to look for, in words likely to be in the documents"},
                    "limit": {"type": "integer", "description": "how many passages (1 to 10, default 5)"}
                },
                "required": ["query"]
            }),
        }
    }

    fn reach(&self, arguments: &Value, _ctx: &ToolContext) -> String {
        format!(
            "searches your knowledge folders for {}",
            arguments.get("query").unwrap_or(&Value::Null)
        )
    }

    async fn call(&self, arguments: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let query = arguments
            .get("query")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|q| !q.is_empty())
            .ok_or_else(|| {
                ToolError::InvalidArguments("`query` must be a non-empty string".into())
            })?;
        let limit = match arguments.get("limit") {
            None | Some(Value::Null) => DEFAULT_LIMIT,
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=MAX_LIMIT as u64).contains(n))
                .map(|n| n as usize)
                .ok_or_else(|| {
                    ToolError::InvalidArguments(format!(
                        "`limit` must be 1 to {MAX_LIMIT}, got {v}"
                    ))
                })?,
        };
        let folders = match &self.project_of {
            Some(project_of) => self
                .index
                .folders_in_scope(project_of(&ctx.conversation).as_deref())
                .map_err(|e| ToolError::Failed(e.to_string()))?,
            None => None,
        };
        if folders.as_ref().is_some_and(Vec::is_empty) {
            return Ok("No knowledge folder is open to this chat: the folders there belong to projects this chat is not in.".into());
        }
        // Hybrid: a server for meaning that is down leaves the words.
        let hits = self
            .index
            .search(
                self.embedder.as_ref(),
                query,
                limit,
                Mode::Hybrid,
                folders.as_deref(),
            )
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        if hits.is_empty() {
            return Ok(format!(
                "No passage in the knowledge folders matches {query:?}."
            ));
        }
        let first = self.take_numbers(&ctx.run_id, hits.len() as u32);
        Ok(numbered(&hits, first))
    }
}
