//! Ops in: what a front end does to runs — send, answer again, edit and
//! resend, stop, queue, approve, answer a plan, follow — behind one object
//! over the live runs (`live.rs`), the approvals (`approvals.rs`) and the
//! steering queues (`steering.rs`). It alone decides what a message starts
//! and refuses what cannot run (an empty message, `/plan` with files or
//! typed into a running answer, a second run in a session) before anything
//! is kept or a branch moved; the desktop commands and the CLI call it and
//! check none of that themselves.
//!
//! The agent a run uses is asked for only once the request passed those
//! checks (`agent`): a front end may pin the session's host or reload its
//! profiles there, which a refused message must not do.

use std::sync::Arc;

use hearth_protocol::{ApprovalDecision, PlanAnswer};

use crate::agent::Agent;
use crate::approvals::Approvals;
use crate::error::RunError;
use crate::live::{Following, LiveRuns};
use crate::steering::QueueError;
use crate::user_input::{UserInput, queueable};

/// What became of a message typed while a run was going.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Enqueued {
    /// It joins the run at its next boundary; the id takes it back.
    Queued(String),
    /// The run had ended (or was ending): send it as a message of its own.
    RunEnded,
}

/// The front ends' one way to runs.
#[derive(Clone)]
pub struct Runs {
    live: LiveRuns,
    approvals: Arc<Approvals>,
}

impl Runs {
    /// Over `approvals`, the questions the agents' runs ask (the agents a
    /// front end builds share them, so an answer reaches whichever asked).
    pub fn new(approvals: Arc<Approvals>) -> Self {
        Self {
            live: LiveRuns::default(),
            approvals,
        }
    }

    /// The live runs, for what only reads or ends them (is a session busy,
    /// a page's snapshot, stop a window's runs, stop all on quit).
    pub fn live(&self) -> &LiveRuns {
        &self.live
    }

    /// Send `input` to the session for `owner`, who follows the run from
    /// its first event. `/plan …` starts the phased workflow, anything else
    /// a plain run. Refused, with nothing kept: what [`UserInput::check`]
    /// refuses, and a session with a run going.
    pub async fn send<E: From<RunError>>(
        &self,
        session_id: &str,
        input: UserInput,
        owner: &str,
        agent: impl AsyncFnOnce() -> Result<Arc<Agent>, E>,
    ) -> Result<Following, E> {
        input.check()?;
        self.live.ensure_idle(session_id)?;
        let agent = agent().await?;
        let prompt = input.text.clone();
        let handle = agent.send(session_id, input)?;
        Ok(self.live.adopt(handle, Some(prompt), owner)?)
    }

    /// Answer again. With `from` (the first message of the answer to redo)
    /// the old answer stays on its own branch; without (Retry after a
    /// failed run, `hearth chat --regenerate`), the last user message is
    /// answered again and what followed it (a failed run's partial answer)
    /// stays on its own branch.
    pub async fn regenerate<E: From<RunError>>(
        &self,
        session_id: &str,
        from: Option<i64>,
        owner: &str,
        agent: impl AsyncFnOnce() -> Result<Arc<Agent>, E>,
    ) -> Result<Following, E> {
        self.live.ensure_idle(session_id)?;
        let agent = agent().await?;
        let store = agent.store();
        match from {
            Some(id) => store.fork(session_id, id).await,
            // Before, a break-off's partial answer made the run refuse: "the
            // conversation does not end with your message" (user pass
            // 2026-12, defect 2).
            None => store.fork_before_last_answer(session_id).await.map(drop),
        }
        .map_err(RunError::from)?;
        let handle = agent.regenerate_stream(session_id);
        Ok(self.live.adopt(handle, None, owner)?)
    }

    /// Replace user message `message_id` with `text` and answer it: the
    /// edited message, with the files the original carried, starts a new
    /// branch; the old one stays reachable. Refused before the fork (which
    /// would move the branch for nothing) as [`Runs::send`] refuses.
    pub async fn edit_and_resend<E: From<RunError>>(
        &self,
        session_id: &str,
        message_id: i64,
        text: &str,
        owner: &str,
        agent: impl AsyncFnOnce() -> Result<Arc<Agent>, E>,
    ) -> Result<Following, E> {
        self.live.ensure_idle(session_id)?;
        let agent = agent().await?;
        let store = agent.store();
        let files = store
            .message_files(session_id, message_id)
            .await
            .map_err(RunError::from)?;
        let input = UserInput {
            text: text.to_owned(),
            files,
        };
        input.check()?;
        store
            .fork(session_id, message_id)
            .await
            .map_err(RunError::from)?;
        let handle = agent.send(session_id, input)?;
        Ok(self.live.adopt(handle, Some(text.to_owned()), owner)?)
    }

    /// Follow the session's live run from after event `after` (0: all).
    /// `None` when no run is going.
    pub fn follow(&self, session_id: &str, after: u32) -> Option<Following> {
        self.live.follow(session_id, after)
    }

    /// Stop a run at once; the model stays loaded. False when it already
    /// ended.
    pub fn stop(&self, run_id: &str) -> bool {
        self.live.stop(run_id)
    }

    /// Queue `text`, typed while the session's run is going: it joins the
    /// conversation at the run's next boundary. `/plan` is refused (a run
    /// of its own), and so is an empty message.
    pub fn queue(&self, session_id: &str, text: &str) -> Result<Enqueued, RunError> {
        queueable(text)?;
        let Some(queue) = self.live.steering(session_id) else {
            return Ok(Enqueued::RunEnded);
        };
        match queue.push(text) {
            Ok(id) => Ok(Enqueued::Queued(id)),
            Err(QueueError::Closed) => Ok(Enqueued::RunEnded),
            Err(QueueError::Empty) => Err(RunError::EmptyMessage),
        }
    }

    /// Take back a queued message. False when it was already sent.
    pub fn cancel_queued(&self, session_id: &str, queue_id: &str) -> bool {
        self.live
            .steering(session_id)
            .is_some_and(|q| q.cancel(queue_id))
    }

    /// Answer a tool's approval request: allow once, allow the tool for the
    /// rest of the session, or deny. False when it is no longer waiting.
    pub fn approve(&self, request_id: &str, decision: ApprovalDecision) -> bool {
        self.approvals.answer(request_id, decision)
    }

    /// Answer a `/plan` plan (`plan_proposed`): run it, run it as edited,
    /// or cancel. False when it is no longer waiting.
    pub fn answer_plan(&self, request_id: &str, answer: PlanAnswer) -> bool {
        self.approvals.answer_plan(request_id, answer)
    }
}
