//! Events out of a run: what front ends render and what the CLI prints.

use serde::{Deserialize, Serialize};
use specta::Type;

/// Who an event belongs to. Flattened into every [`AgentEvent`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
pub struct RunScope {
    /// Session the run belongs to (for a sub-agent: its own `subagent_…` id).
    pub session_id: String,
    /// The run (one user turn, or one sub-agent task).
    pub run_id: String,
    /// For sub-agent events: the run of the parent agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// For sub-agent events: the parent's tool call that spawned this agent,
    /// so a UI can nest the sub-agent's cards under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_call_id: Option<String>,
    /// True for events forwarded from a sub-agent.
    #[serde(default)]
    pub is_subagent: bool,
}

impl RunScope {
    /// Scope of a top-level run.
    pub fn top(session_id: impl Into<String>, run_id: impl Into<String>) -> Self {
        Self {
            session_id: session_id.into(),
            run_id: run_id.into(),
            parent_run_id: None,
            parent_call_id: None,
            is_subagent: false,
        }
    }
}

/// One event of a run, with its scope flattened beside the `type` tag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
pub struct AgentEvent {
    /// Session and run ids (flat in the JSON).
    #[serde(flatten)]
    pub scope: RunScope,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
    /// The event's number in its run, from 1, in the order the run emitted
    /// it (its sub-agents' events included). The core's live-run registry
    /// gives it; a window that opens mid-run asks for the events after the
    /// last number it saw. 0, and absent from the JSON, when nobody follows
    /// the run (a headless run, the CLI's `--json` of a plain run).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub seq: u32,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's signature
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Token and timing figures of one model call, from the backend's own stats.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Type)]
pub struct Usage {
    /// Tokens of the whole prompt, a prefix reused from the cache included
    /// (how Ollama counts `prompt_eval_count`).
    pub prompt_tokens: Option<u32>,
    /// Tokens of the prompt the server reused from its cache (not evaluated
    /// again): Ollama's `prompt_eval_cached_count`, llama.cpp's
    /// `timings.cache_n`, OpenAI's `prompt_tokens_details.cached_tokens`.
    /// `None` when the server does not say.
    pub prompt_cached_tokens: Option<u32>,
    /// Tokens generated.
    pub completion_tokens: Option<u32>,
    /// Time spent loading the model, in milliseconds (0 when it was resident).
    pub load_ms: Option<f64>,
    /// Prompt evaluation time in milliseconds.
    pub prompt_eval_ms: Option<f64>,
    /// Generation time in milliseconds.
    pub eval_ms: Option<f64>,
    /// Generation speed, tokens per second, when the backend reported both
    /// the count and the duration.
    pub tokens_per_second: Option<f64>,
    /// Why generation ended, as the backend said it (`stop`, `length`, …).
    pub done_reason: Option<String>,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutcome {
    /// The tool returned a result.
    Ok,
    /// The tool failed, or the call was invalid (unknown tool, bad arguments);
    /// the error text went back to the model as the result.
    Error,
    /// The user stopped the run before the tool finished.
    Cancelled,
    /// The user declined the call when asked; the model was told.
    Denied,
}

/// Why a run was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The user pressed Stop (or Ctrl-C).
    User,
    /// The front end went away (page reloaded, window closed).
    FrontEndGone,
}

/// The events of a run, in the order a run emits them:
/// `run_started`, then (`plan_ready`)? and per model call any number of
/// `thinking_delta` / `text_delta` / `tool_started` / `tool_event`, a `usage`
/// per model call, and exactly one of `stream_end`, `stream_stopped` or
/// `error` as the run's end. A `message_stored` follows every message the
/// run stores, before any event that refers to that message. After the end
/// only what the post-turn work reports may follow (`session_titled`,
/// `memory_learned`, `memory_proposed`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum EventKind {
    /// The run began.
    RunStarted {
        /// Model the run uses.
        model: String,
        /// Profile the run uses.
        profile: String,
        /// The host (configured server name) the run's model calls go to:
        /// `ollama` for the default server. A `host_failover` later names
        /// the one it moved to. Empty from a core before this field.
        #[serde(default)]
        host: String,
        /// The model's context window for this run (`num_ctx`), in tokens:
        /// with `usage` it tells a UI how full the context is.
        context_window: u32,
        /// The wire format's version ([`crate::PROTOCOL_VERSION`]): a
        /// consumer built against another one can say so instead of
        /// misreading what follows.
        #[serde(default)]
        protocol: u32,
    },
    /// A message the user queued while the run was going was added to the
    /// conversation at a turn boundary (steering: docs/background.md §5.2);
    /// the model sees it from its next call on.
    QueuedMessageSent {
        /// The id `queue` returned for it.
        queue_id: String,
        /// The message as stored.
        text: String,
    },
    /// A message of the run is durable in its session: the user's message,
    /// each answer (with its tool calls), each tool result, each queued
    /// message taken in. Sent right after the store has it, so a front end
    /// adds it to its copy of the session instead of reading the session
    /// again when the run ends.
    MessageStored {
        /// The message as shown (ids and all).
        message: crate::MessageView,
        /// When it starts a new branch (an answer given again, an edited
        /// message): it and its siblings, oldest first — the fork the UI
        /// shows as "k/n". Empty otherwise.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        siblings: Vec<i64>,
    },
    /// The session got a generated title. Sent by the run's post-turn work,
    /// after the run's terminal event: the run's channel stays open until
    /// that work is done.
    SessionTitled {
        /// The title.
        title: String,
    },
    /// Memory kept facts from this turn (the profile's memory is `auto`).
    /// Sent by the post-turn work, after the run's end.
    MemoryLearned {
        /// The facts, with the ids an Undo deletes.
        facts: Vec<crate::LearnedFact>,
    },
    /// Facts memory would keep from this turn, waiting for the user (the
    /// profile's memory is `ask`). Sent by the post-turn work, after the
    /// run's end; nothing is stored until the user adds one.
    MemoryProposed {
        /// The facts.
        facts: Vec<String>,
    },
    /// A tool switched the session's profile during the run; the model calls
    /// that follow use it.
    ProfileSwitched {
        /// The profile now in effect.
        profile: String,
        /// The last message stored before the switch (`None`: none yet).
        after_message_id: Option<i64>,
    },
    /// A piece of the plan as the planner writes it (streamed once the
    /// answer is known to be a plan: it starts with a numbered step).
    PlanDelta {
        /// Text to append to the plan card.
        delta: String,
    },
    /// The model marked plan steps done (the `update_plan` tool).
    PlanProgress {
        /// Numbers (1-based) of the steps done so far.
        done: Vec<u32>,
    },
    /// The planner produced a plan (numbered steps, as text).
    PlanReady {
        /// The plan as the model wrote it.
        plan: String,
    },
    /// A piece of the model's reasoning.
    ThinkingDelta {
        /// Text to append to the thinking shown for the current answer.
        delta: String,
    },
    /// The reasoning of the current model call ended (its answer began, or
    /// the call ended): "Thought for 12 s".
    ThinkingEnded {
        /// From its first piece to the answer's first piece (or the end of
        /// the call), in milliseconds.
        ms: u64,
    },
    /// A piece of the answer, as shown: the core sanitizes the answer as
    /// it streams (what a small model writes by mistake — tool calls as
    /// text, `<final>` wrappers, an echoed system message, a paragraph said
    /// twice — never shows), holding back what may still become such a
    /// thing, so the live answer is the stored view in the making.
    TextDelta {
        /// Text to append to the current answer.
        delta: String,
    },
    /// The current answer's text, as shown, replaces what its deltas built
    /// (something already shown turned out to be dropped; rare).
    TextReplaced {
        /// The whole text of the current answer.
        text: String,
    },
    /// The run loads the model with a request of its own (its first call
    /// of this model, or after its settings changed): until
    /// [`EventKind::ModelLoaded`] the wait is the load, which on a big
    /// model or a slow disk takes minutes. Progress only: never stored.
    ModelLoading {
        /// The model being loaded.
        model: String,
    },
    /// The load [`EventKind::ModelLoading`] announced ended (loaded,
    /// failed, or the run was stopped: the run's own end says which).
    ModelLoaded {
        /// The model.
        model: String,
    },
    /// The model is writing a tool call, on a server that streams a call's
    /// arguments as it writes them (OpenAI-compatible servers; Ollama sends
    /// a call whole, so it shows nothing until then): the tool and the
    /// length of its arguments so far. Sent when a call starts and every
    /// 200 characters after; progress only, never stored.
    ToolCallWriting {
        /// The tool's name, as the model wrote it.
        tool: String,
        /// Characters of its arguments so far.
        chars: u32,
    },
    /// A tool server (MCP) the profile uses cannot serve: it would not
    /// start, or is waiting to be restarted after a crash. The run goes on
    /// without its tools; sent once per server per run.
    ToolsUnavailable {
        /// The server's configured name.
        server: String,
        /// What went wrong and what to do, in words (the command it could
        /// not find and the PATH searched, the timeout it missed, its last
        /// error output).
        reason: String,
    },
    /// The profile's host could not be reached before any output, so the
    /// run moved to the next of its failover hosts, and stays there for the
    /// rest of the run. Never sent once an answer has begun: a host lost
    /// mid-answer ends the answer with its error.
    HostFailover {
        /// The host that could not be reached.
        from: String,
        /// The host the run goes on with.
        to: String,
        /// Why `from` failed, in words.
        reason: String,
    },
    /// A tool call began (a pending card in the UI).
    ToolStarted {
        /// Id of the call, unique within the run.
        call_id: String,
        /// Tool name as the model called it.
        name: String,
        /// Arguments as the model gave them.
        arguments: serde_json::Value,
    },
    /// A tool call ended (the card fills in).
    ToolEvent {
        /// Id of the call, as in `tool_started`.
        call_id: String,
        /// Tool name.
        name: String,
        /// How it ended.
        outcome: ToolOutcome,
        /// The text that went back to the model.
        output: String,
        /// Wall time of the call in milliseconds.
        duration_ms: u64,
    },
    /// A call that writes or runs something waits for the user's answer
    /// (the `approve` command with this `request_id`).
    ApprovalRequested {
        /// Id to answer with.
        request_id: String,
        /// The tool call waiting (its card shows the question).
        call_id: String,
        /// Tool name.
        tool: String,
        /// Arguments as the model gave them.
        arguments: serde_json::Value,
        /// What the call can reach, in plain words (files, folders,
        /// network), for the user to decide on.
        reach: String,
        /// Whether "allow for this session" is offered (not for tools that
        /// ask every time, such as `run_shell`).
        session_allowed: bool,
        /// A louder warning, when the call does something that outlives
        /// the sandbox and the approval (a file that runs code later, a
        /// path through a symlinked folder; with the resolved path). A
        /// pre-approval never covers such a call.
        #[serde(default)]
        warning: Option<String>,
    },
    /// The approval request was answered (by the user, by a standing
    /// "allow for this session", or by the stop of the run).
    ApprovalResolved {
        /// The request.
        request_id: String,
        /// The answer.
        decision: crate::ApprovalDecision,
    },
    /// How full the context is before a model call (docs/background.md §2.2):
    /// the prompt about to be sent, in tokens, against the window.
    ContextUsage {
        /// Tokens of the prompt, from the server's last count of this
        /// model (calibrating the ~4 characters per token estimate).
        tokens: u32,
        /// The window in effect: `num_ctx`, capped by the model's trained
        /// length and what the server reports for the loaded model.
        window: u32,
        /// At or above 80 %: older messages will soon be summarized.
        warning: bool,
    },
    /// Older messages were summarized to make room (automatic compaction
    /// before a request above 95 % of the window, or after the server
    /// refused the prompt as too long). Nothing stored was deleted.
    ContextCompacted {
        /// Messages the summary now stands for.
        summarized: u32,
        /// Prompt tokens before.
        tokens_before: u32,
        /// Prompt tokens after.
        tokens_after: u32,
    },
    /// The input guard found text that looks like a prompt injection
    /// (docs/background.md §3.4).
    InputFlagged {
        /// The user's message or a tool result.
        source: crate::GuardSource,
        /// The tool call whose result was flagged.
        call_id: Option<String>,
        /// The patterns that matched (`ignore_instructions`, …).
        patterns: Vec<String>,
        /// True when the guard blocked it (`block` mode).
        blocked: bool,
    },
    /// A phase of the `/plan` workflow began (`cycle`: the implement and
    /// review passes count from 1; explore and plan are 0).
    PhaseStarted {
        /// Which phase.
        phase: crate::WorkflowPhase,
        /// Which pass.
        cycle: u32,
        /// An implement pass: the stored message it answers (the approved
        /// plan, a punch list), which the workflow wrote, not the user.
        #[serde(default)]
        message_id: Option<i64>,
    },
    /// A phase of the `/plan` workflow ended, with what it produced: the
    /// findings report, the plan, the implementer's answer, the review.
    PhaseEnded {
        /// Which phase.
        phase: crate::WorkflowPhase,
        /// Which pass.
        cycle: u32,
        /// How it ended.
        outcome: crate::PhaseOutcome,
        /// What it produced (or why it failed).
        report: String,
    },
    /// The plan waits for the user: run it, edit and run it, or cancel
    /// (the `answer_plan` command with `request_id`).
    PlanProposed {
        /// Id to answer with.
        request_id: String,
        /// The plan as the plan phase wrote it.
        plan: String,
    },
    /// The user answered the proposed plan (or the stop did).
    PlanAnswered {
        /// The request.
        request_id: String,
        /// What was chosen.
        choice: crate::PlanChoice,
    },
    /// The reviewer's verdict on an implement pass.
    ReviewVerdict {
        /// Which pass it judged.
        cycle: u32,
        /// The verdict.
        verdict: crate::Verdict,
        /// What to fix (empty for `done`).
        punch_list: Vec<String>,
        /// True when this verdict leads to another implement pass.
        fixing: bool,
        /// The reviewer's tool calls that ran (files read, commands run):
        /// 0 means the verdict is its word alone, checked against nothing.
        #[serde(default)]
        checks: u32,
    },
    /// Token counts and speed of one model call.
    Usage {
        /// The figures.
        usage: Usage,
    },
    /// The run finished normally.
    StreamEnd {
        /// Model calls the run made.
        iterations: u32,
    },
    /// The run was stopped; partial text was kept and flagged interrupted.
    StreamStopped {
        /// Who stopped it.
        reason: StopReason,
        /// Answer text received before the stop (also stored).
        partial_text: String,
    },
    /// The run failed. Partial text, if any, was kept and flagged.
    Error {
        /// What went wrong and how to recover.
        error: crate::ErrorInfo,
        /// Answer text received before the failure (also stored).
        partial_text: String,
    },
}

impl EventKind {
    /// True for the events that end a run (exactly one per run).
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            Self::StreamEnd { .. } | Self::StreamStopped { .. } | Self::Error { .. }
        )
    }
}
