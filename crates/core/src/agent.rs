//! The agent: what every run of it shares (the backend, the store, the
//! tools, the settings, approvals, loads in flight) and its entry points —
//! `run_stream` and `regenerate_stream` (interactive), `run` (headless);
//! `run_ephemeral` (a sub-agent) is in `subagent`. A run itself is driven
//! by `driver.rs` over the state machine of `run_state.rs`.

use std::collections::HashMap;
use std::sync::Arc;

use hearth_protocol::RunScope;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::approvals::Approvals;
use crate::backend::ModelBackend;
use crate::budget::fixed_tokens;
use crate::error::RunError;
use crate::events::EventSink;
use crate::handle::{RunHandle, RunOutcome};
use crate::ids::new_run_id;
use crate::memory::MemorySource;
use crate::profile::{Profile, ProfileProvider};
use crate::run_ctx::{RunCtx, TopRun};
use crate::settings::ModelSettings;
use crate::store::SessionStore;
use crate::tool::ToolRegistry;
use crate::workers::{PostTurnWorker, WorkerContext};

/// The agent: what its runs share, and their entry points.
pub struct Agent {
    pub(crate) backend: Arc<dyn ModelBackend>,
    /// The named hosts profiles select (`hosts.rs`).
    pub(crate) hosts: Arc<crate::hosts::Hosts>,
    pub(crate) profiles: Arc<dyn ProfileProvider>,
    pub(crate) store: Arc<dyn SessionStore>,
    pub(crate) tools: ToolRegistry,
    /// Hooks around tool and model calls (`hooks.rs`).
    pub(crate) hooks: Arc<dyn crate::hooks::Hooks>,
    pub(crate) settings: Arc<ModelSettings>,
    pub(crate) memory: Option<String>,
    pub(crate) memory_source: Option<Arc<dyn MemorySource>>,
    pub(crate) workers: Vec<Arc<dyn PostTurnWorker>>,
    /// Root of the post-turn work in progress; every new run cancels it
    /// and installs a fresh one (a user's run pre-empts background work).
    pub(crate) background: std::sync::Mutex<CancellationToken>,
    pub(crate) max_depth: u32,
    /// Approval requests waiting for the user, and standing allowances.
    pub(crate) approvals: Arc<Approvals>,
    /// Where the memory flush before a compaction writes.
    pub(crate) memory_writer: Option<Arc<dyn crate::memory::MemoryWriter>>,
    /// The budget's token counts, calibrated per model.
    pub(crate) counter: crate::budget::TokenCounter,
    /// At most one summarizer per session.
    pub(crate) summarizers: Arc<crate::workers::Summarizers>,
    /// Each model's measured writing speed: the default cap per answer
    /// follows it (`answer_cap.rs`).
    pub(crate) speeds: crate::answer_cap::Speeds,
    /// The window the server reported per model at its last preload.
    pub(crate) reported_windows: std::sync::Mutex<HashMap<String, Option<u32>>>,
    /// Model loads in flight in their own tasks (Stop never cancels them).
    pub(crate) loads: crate::loads::Loads,
    /// Runs of this process whose end could not be recorded: repaired
    /// before the next run starts (`run_end.rs`).
    pub(crate) stale_runs: crate::run_end::StaleRuns,
}

impl Agent {
    /// The per-model settings every request uses.
    pub fn settings(&self) -> &Arc<ModelSettings> {
        &self.settings
    }

    /// The session store.
    pub fn store(&self) -> &Arc<dyn SessionStore> {
        &self.store
    }

    /// The tools the model can call.
    pub fn tool_registry(&self) -> &ToolRegistry {
        &self.tools
    }

    /// The model loads this agent started that are still in flight. They
    /// outlive a stopped run on purpose; a front end that is about to exit
    /// waits for them ([`crate::Loads::settled`]), since leaving closes
    /// their connections and a disconnect during a load aborts it.
    pub fn loads(&self) -> &crate::loads::Loads {
        &self.loads
    }

    /// Streaming entry point: starts the run in its own task (it goes on if
    /// the consumer looks away) and returns its events and stop handle.
    pub fn run_stream(self: &Arc<Self>, session_id: &str, text: &str) -> RunHandle {
        self.start(session_id, text, Vec::new(), false, None)
    }

    /// [`Agent::run_stream`] with files attached to the message: each one
    /// already in the store, which gives their bytes back with the history.
    /// Pictures for a model that cannot see them end the run before the
    /// message is kept, with a refusal that says what to do.
    pub fn run_stream_with(
        self: &Arc<Self>,
        session_id: &str,
        text: &str,
        attachments: Vec<crate::attachment::Attachment>,
    ) -> RunHandle {
        self.start(session_id, text, attachments, false, None)
    }

    /// Answer the session's last user message again (regenerate, or retry
    /// after an error). The caller first moves the branch head to that user
    /// message (the store's `fork`), so the previous answer stays on its own
    /// branch. Fails when the branch does not end with a user message.
    pub fn regenerate_stream(self: &Arc<Self>, session_id: &str) -> RunHandle {
        self.start(session_id, "", Vec::new(), true, None)
    }

    pub(crate) fn start(
        self: &Arc<Self>,
        session_id: &str,
        text: &str,
        attachments: Vec<crate::attachment::Attachment>,
        regenerate: bool,
        workflow: Option<Arc<crate::workflow::PlanFlow>>,
    ) -> RunHandle {
        let run_id = new_run_id();
        let cancel = CancellationToken::new();
        let (tx, rx) = mpsc::unbounded_channel();
        // A user turn pre-empts background work (docs/design.md §9): cancel the
        // root every earlier run's workers hang from, and give this run a new
        // one.
        let background = match self.background.lock() {
            Ok(mut root) => {
                let old = std::mem::replace(&mut *root, CancellationToken::new());
                old.cancel();
                root.clone()
            }
            Err(_) => CancellationToken::new(),
        };
        let sink = EventSink::new(RunScope::top(session_id, &run_id), tx)
            .recording(crate::answer_record::AnswerRecord::default());
        let mut top = self.top_run(session_id, run_id.clone(), text, cancel.clone(), sink);
        top.attachments = attachments;
        let mut ctx = RunCtx::interactive(top, background, regenerate);
        if let Some(flow) = workflow {
            // The workflow plans in its own phases.
            ctx.planning = false;
            ctx.workflow = Some(flow);
        }
        let steering = ctx.steering.clone();
        let this = self.clone();
        let task = tokio::spawn(async move {
            let mut ctx = ctx;
            // Answering a `/plan` message again (a retry after explore or
            // plan failed) runs the workflow again, never the bare command.
            if regenerate && ctx.workflow.is_none() {
                ctx.workflow = this.workflow_to_redo(&ctx).await;
                ctx.planning &= ctx.workflow.is_none();
            }
            let outcome = this.drive(&ctx).await;
            if matches!(outcome, RunOutcome::Answered { .. }) {
                this.run_workers(&ctx).await;
                this.keep_what_workers_showed(&ctx).await;
            }
            outcome
        });
        RunHandle {
            run_id,
            session_id: session_id.to_owned(),
            cancel,
            steering,
            events: rx,
            task,
        }
    }

    /// The workflow to run again when the branch ends with a `/plan`
    /// message (`None` otherwise, or when the store cannot say).
    async fn workflow_to_redo(&self, ctx: &RunCtx) -> Option<Arc<crate::workflow::PlanFlow>> {
        let history = ctx.store.history(&ctx.session_id).await.ok()?;
        let last = history
            .last()
            .filter(|m| m.role == crate::message::Role::User)?;
        let request = crate::workflow::request_in(&last.content)?;
        Some(Arc::new(crate::workflow::PlanFlow::new(request)))
    }

    /// What the post-turn work reported after the answer was kept (what
    /// memory learned: the "Remembered" line) goes with the answer too, so
    /// it is there again after a restart.
    async fn keep_what_workers_showed(&self, ctx: &RunCtx) {
        let Some(record) = ctx.sink.record() else {
            return;
        };
        if record.len() == record.written() {
            return;
        }
        if let Err(e) = ctx.store.record_answer(&ctx.run_id, &record.events()).await {
            tracing::warn!(
                "keeping what run {}'s post-turn work showed failed: {e}",
                ctx.run_id
            );
        }
    }

    /// Non-streaming entry point: runs the whole loop, returns the answer.
    pub async fn run(
        &self,
        session_id: &str,
        text: &str,
        cancel: CancellationToken,
    ) -> Result<String, RunError> {
        let run_id = new_run_id();
        let sink = EventSink::discard(RunScope::top(session_id, &run_id));
        // Nobody watches a headless run: mutating calls are denied, and it
        // does not plan.
        let ctx = RunCtx::headless(self.top_run(session_id, run_id, text, cancel, sink));
        self.drive(&ctx).await.into_result()
    }

    /// What a top-level run of the session's active profile starts from.
    fn top_run(
        &self,
        session_id: &str,
        run_id: String,
        text: &str,
        cancel: CancellationToken,
        sink: EventSink,
    ) -> TopRun {
        TopRun {
            preapproved: crate::rights::Preapproved::of(&self.profiles.active(session_id)),
            session_id: session_id.to_owned(),
            run_id,
            text: text.to_owned(),
            attachments: Vec::new(),
            cancel,
            sink,
            store: self.store.clone(),
            memory: self.memory.clone(),
        }
    }

    /// The host a profile selects (the default backend for none, or for
    /// [`DEFAULT_HOST`](crate::hosts::DEFAULT_HOST) unless a host took that
    /// name); an unknown name is an error the user can fix in the profile.
    pub(crate) fn backend_for(&self, profile: &Profile) -> Result<Arc<dyn ModelBackend>, RunError> {
        self.host(profile.backend.as_deref()).ok_or_else(|| {
            RunError::Misconfigured(format!(
                "profile `{}` uses host `{}`, which is not configured",
                profile.name,
                profile.backend.as_deref().unwrap_or_default()
            ))
        })
    }

    /// The backend of host `name` (`None`: the default).
    pub(crate) fn host(&self, name: Option<&str>) -> Option<Arc<dyn ModelBackend>> {
        match name {
            None => Some(self.backend.clone()),
            Some(n) => self
                .hosts
                .get(n)
                .or_else(|| (n == crate::hosts::DEFAULT_HOST).then(|| self.backend.clone())),
        }
    }

    pub(crate) fn profile(&self, ctx: &RunCtx) -> Profile {
        ctx.profile
            .clone()
            .unwrap_or_else(|| self.profiles.active(&ctx.session_id))
    }
    /// Run the post-turn workers, one after the other, cancelled by the
    /// next turn or by the user's stop. Their failures are logged only.
    pub(crate) async fn run_workers(&self, ctx: &RunCtx) {
        if self.workers.is_empty() {
            return;
        }
        let profile = self.profile(ctx);
        let Ok(backend) = self.backend_for(&profile) else {
            return;
        };
        let read = async {
            let memory = self.session_memory(ctx).await?;
            let history = ctx.store.history(&ctx.session_id).await?;
            let prefix = self
                .chat_prefix(ctx, &profile, memory.as_deref(), &history)
                .await?;
            Ok::<_, RunError>((history, memory, prefix))
        };
        let (history, memory, prefix) = match read.await {
            Ok(read) => read,
            Err(e) => {
                tracing::warn!("post-turn workers skipped: {e}");
                return;
            }
        };
        // Cancelled by the next turn (through the run's background root) or
        // by a stop of this run.
        let cancel = ctx.background.child_token();
        let link = {
            let (stop, cancel) = (ctx.cancel.clone(), cancel.clone());
            tokio::spawn(async move {
                stop.cancelled().await;
                cancel.cancel();
            })
        };
        let fixed_tokens = fixed_tokens(
            &self.profiles.persona(),
            &profile,
            memory.as_deref(),
            &prefix.tools,
        );
        let wctx = WorkerContext {
            fixed_tokens,
            events: ctx.sink.clone(),
            store: ctx.store.clone(),
            session_id: ctx.session_id.clone(),
            run_id: ctx.run_id.clone(),
            history,
            prefix,
            load: self.settings.load_options(&profile.model),
            window: self.window(&profile.model),
            ratio: self.counter.ratio(&profile.model),
            memory: self.memory_writer.clone(),
            summarizers: self.summarizers.clone(),
            profile,
            backend,
            cancel: cancel.clone(),
        };
        for w in &self.workers {
            if cancel.is_cancelled() {
                break;
            }
            match w.run(&wctx).await {
                Ok(()) => {}
                // The next turn tries again.
                Err(e) if e.is_passing() => {
                    tracing::info!(worker = w.name(), "post-turn worker skipped: {e}");
                }
                Err(e) => tracing::warn!(worker = w.name(), "post-turn worker failed: {e}"),
            }
        }
        link.abort();
    }

    /// Answer an approval request (from an `approval_requested` event).
    /// False when it is no longer waiting.
    pub fn approve(&self, request_id: &str, decision: hearth_protocol::ApprovalDecision) -> bool {
        self.approvals.answer(request_id, decision)
    }

    /// Approval requests waiting for an answer.
    pub fn pending_approvals(&self) -> Vec<String> {
        self.approvals.pending()
    }
}
