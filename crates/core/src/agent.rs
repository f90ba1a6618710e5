//! The agent: what every run of it shares ([`Deps`]: the backend, the
//! store, the tools, the settings, approvals, loads in flight) behind its
//! entry points — `run_stream` and `regenerate_stream` (interactive),
//! `plan_stream` (`/plan`), `run` (headless), `run_ephemeral` (a sub-agent)
//! — and the answers a front end gives a run (approvals, plans). A run is
//! its own object ([`Run`], `run.rs`), driven by `driver.rs` over the state
//! machine of `run_state.rs`.

use std::sync::Arc;

use hearth_protocol::RunScope;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::deps::Deps;
use crate::error::RunError;
use crate::events::EventSink;
use crate::handle::{RunHandle, RunOutcome};
use crate::ids::new_run_id;

use crate::run::Run;
use crate::run_ctx::{RunCtx, TopRun};
use crate::settings::ModelSettings;
use crate::store::SessionStore;
use crate::tool::ToolRegistry;

/// The agent: what its runs share, and their entry points.
pub struct Agent {
    /// What its runs share.
    pub(crate) deps: Deps,
}

impl Agent {
    /// The per-model settings every request uses.
    pub fn settings(&self) -> &Arc<ModelSettings> {
        &self.deps.settings
    }

    /// The session store.
    pub fn store(&self) -> &Arc<dyn SessionStore> {
        &self.deps.store
    }

    /// The tools the model can call.
    pub fn tool_registry(&self) -> &ToolRegistry {
        &self.deps.tools
    }

    /// The model loads this agent started that are still in flight. They
    /// outlive a stopped run on purpose; a front end that is about to exit
    /// waits for them ([`crate::Loads::settled`]), since leaving closes
    /// their connections and a disconnect during a load aborts it.
    pub fn loads(&self) -> &crate::loads::Loads {
        &self.deps.loads
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

    /// Start the run that answers `input` in the session: `/plan …` the
    /// phased workflow, anything else a plain run with its files. Refused
    /// (nothing kept, nothing started): an empty message, a `/plan` with
    /// files ([`UserInput::check`]). Every front end sends through here.
    pub fn send(
        self: &Arc<Self>,
        session_id: &str,
        input: crate::user_input::UserInput,
    ) -> Result<RunHandle, RunError> {
        Ok(match input.start()? {
            crate::user_input::Start::Plan(request) => self.plan_stream(session_id, request),
            crate::user_input::Start::Message => {
                self.start(session_id, &input.text, input.files, false, None)
            }
        })
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
        let background = match self.deps.background.lock() {
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
                ctx.workflow = Run::new(&this.deps, &ctx).workflow_to_redo().await;
                ctx.planning &= ctx.workflow.is_none();
            }
            let run = Run::new(&this.deps, &ctx);
            let outcome = run.drive().await;
            if matches!(outcome, RunOutcome::Answered { .. }) {
                run.run_workers().await;
                run.keep_what_workers_showed().await;
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
        Run::new(&self.deps, &ctx).drive().await.into_result()
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
            preapproved: crate::rights::Preapproved::of(&self.deps.profiles.active(session_id)),
            session_id: session_id.to_owned(),
            run_id,
            text: text.to_owned(),
            attachments: Vec::new(),
            cancel,
            sink,
            store: self.deps.store.clone(),
            memory: self.deps.memory.clone(),
        }
    }

    /// Answer an approval request (from an `approval_requested` event).
    /// False when it is no longer waiting.
    pub fn approve(&self, request_id: &str, decision: hearth_protocol::ApprovalDecision) -> bool {
        self.deps.approvals.answer(request_id, decision)
    }

    /// Approval requests waiting for an answer.
    pub fn pending_approvals(&self) -> Vec<String> {
        self.deps.approvals.pending()
    }
}

impl Agent {
    /// Sub-agent entry point (docs/background.md §1.1): runs `task` with
    /// `profile` in a fresh in-memory session `subagent_<12 hex>` — no database
    /// context of its own — with its events forwarded into the parent's stream,
    /// marked as a sub-agent's, and stopped with the parent.
    pub async fn run_ephemeral(
        &self,
        task: &str,
        profile: &str,
        parent: &crate::tool::ToolContext,
    ) -> Result<String, RunError> {
        crate::subagent::run_ephemeral(&self.deps, task, profile, parent).await
    }

    /// Names of the profiles sub-agents can run with.
    pub fn profile_names(&self) -> Vec<String> {
        self.deps.profiles.names()
    }

    /// A profile by name, as it is now.
    pub fn profile_by_name(&self, name: &str) -> Option<crate::Profile> {
        self.deps.profiles.by_name(name)
    }

    /// The active profile's name in a session.
    pub fn active_profile_name(&self, session_id: &str) -> String {
        self.deps.profiles.active(session_id).name
    }

    /// Whether a run with profile `name` could mutate anything (any of its
    /// tools does); `None` when there is no such profile.
    pub fn profile_can_mutate(&self, name: &str) -> Option<crate::tool::ToolEffect> {
        crate::subagent::can_mutate(&self.deps, name)
    }

    /// Start the workflow's run: the user's `/plan …` message, no planning
    /// step of its own (the workflow plans), the flow in its context.
    pub(crate) fn start_workflow(
        self: &Arc<Self>,
        session_id: &str,
        flow: Arc<crate::workflow::PlanFlow>,
    ) -> RunHandle {
        let text = crate::workflow::command_text(&flow.request);
        self.start(session_id, &text, Vec::new(), false, Some(flow))
    }

    /// Start the `/plan` workflow for `request` in the session: one run,
    /// its events and stop handle as for [`Agent::run_stream`]. The plan it
    /// proposes waits for [`Agent::answer_plan`].
    pub fn plan_stream(self: &Arc<Self>, session_id: &str, request: &str) -> RunHandle {
        self.start_workflow(
            session_id,
            Arc::new(crate::workflow::PlanFlow::new(request)),
        )
    }

    /// Answer a proposed plan (a `plan_proposed` event's `request_id`).
    /// False when it is no longer waiting.
    pub fn answer_plan(&self, request_id: &str, answer: hearth_protocol::PlanAnswer) -> bool {
        self.deps.approvals.answer_plan(request_id, answer)
    }
}
