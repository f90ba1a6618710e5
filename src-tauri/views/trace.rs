//! The trace of a run, as the answer's trace panel shows it
//! (docs/background.md §3.12): the run, then its model calls, tool calls,
//! compactions and input guard findings in order.

use hearth_protocol::{SpanKind, StatusView};
use serde::{Deserialize, Serialize};
use specta::Type;

/// One step of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct SpanView {
    /// A model call, a tool call, a compaction or a guard finding.
    pub kind: SpanKind,
    /// Model or tool name; for `guard`, the patterns that matched.
    pub name: String,
    /// Wall time in milliseconds.
    pub duration_ms: i64,
    /// Prompt tokens (model calls), a prefix reused from the server's
    /// cache included.
    pub tokens_in: Option<i64>,
    /// Of those, the tokens the server reused from its cache.
    pub tokens_cached: Option<i64>,
    /// Generated tokens (model calls).
    pub tokens_out: Option<i64>,
    /// Model load time, from the server (ms).
    pub load_ms: Option<i64>,
    /// Prompt evaluation time, from the server (ms).
    pub prompt_eval_ms: Option<i64>,
    /// Generation time, from the server (ms).
    pub eval_ms: Option<i64>,
    /// How it failed.
    pub error: Option<String>,
    /// A line of context (why generation ended, what was flagged, …).
    pub detail: Option<String>,
}

/// A run and its spans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct TraceView {
    /// The run.
    pub run_id: String,
    /// How it ended; `None` while it runs.
    pub status: Option<StatusView>,
    /// Wall time of the whole run (ms), once it ended.
    pub duration_ms: Option<i64>,
    /// Its steps, in order.
    pub spans: Vec<SpanView>,
}

impl From<hearth_store::RunTrace> for TraceView {
    fn from(t: hearth_store::RunTrace) -> Self {
        Self {
            duration_ms: t.ended_at.map(|e| (e - t.started_at).max(0)),
            run_id: t.run_id,
            status: t.status.map(StatusView::from),
            spans: t
                .spans
                .into_iter()
                .map(|s| SpanView {
                    kind: s.kind,
                    name: s.name,
                    duration_ms: s.duration_ms,
                    tokens_in: s.tokens_in,
                    tokens_cached: s.tokens_cached,
                    tokens_out: s.tokens_out,
                    load_ms: s.load_ms,
                    prompt_eval_ms: s.prompt_eval_ms,
                    eval_ms: s.eval_ms,
                    error: s.error,
                    detail: s.detail,
                })
                .collect(),
        }
    }
}
