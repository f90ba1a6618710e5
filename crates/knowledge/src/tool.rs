//! `search_knowledge`: the agent's read-only search of the knowledge
//! folders. What it returns is the user's files, which may hold anything
//! (a downloaded page that says "ignore your instructions"): it goes to the
//! model as a tool result, untrusted like every other.

use async_trait::async_trait;
use hearth_core::{Tool, ToolContext, ToolError, ToolSpec};
use serde_json::{Value, json};

use crate::embed::Embedder;
use crate::fuse::Mode;
use crate::index::Index;

/// Passages returned when the model does not say.
const DEFAULT_LIMIT: usize = 5;
/// The most it may ask for.
const MAX_LIMIT: usize = 10;

/// Searches the knowledge folders by words and meaning.
#[derive(Debug, Clone)]
pub struct SearchKnowledge {
    index: Index,
    embedder: Option<Embedder>,
    folders: Option<Vec<i64>>,
}

impl SearchKnowledge {
    /// Over `index`, by meaning too when `embedder` is given, in `folders`
    /// only when given (a project's).
    pub fn new(index: Index, embedder: Option<Embedder>, folders: Option<Vec<i64>>) -> Self {
        Self {
            index,
            embedder,
            folders,
        }
    }
}

#[async_trait]
impl Tool for SearchKnowledge {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "search_knowledge".into(),
            description: "Search the user's own documents (the folders they gave Hearth) for passages about something. Returns numbered passages with their file and lines; cite them as [1], [2] when you use them.".into(),
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

    async fn call(&self, arguments: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
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
        // Hybrid: a server for meaning that is down leaves the words.
        let hits = self
            .index
            .search(
                self.embedder.as_ref(),
                query,
                limit,
                Mode::Hybrid,
                self.folders.as_deref(),
            )
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        if hits.is_empty() {
            return Ok(format!(
                "No passage in the knowledge folders matches {query:?}."
            ));
        }
        let mut out = String::new();
        for (i, h) in hits.iter().enumerate() {
            let heading = h
                .heading
                .as_deref()
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            out.push_str(&format!(
                "[{}] {}, lines {}–{}{}\n{}\n\n",
                i + 1,
                h.path.display(),
                h.start_line,
                h.end_line,
                heading,
                h.text.trim()
            ));
        }
        Ok(out.trim_end().to_owned())
    }
}
