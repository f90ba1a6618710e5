//! Asking the user before a call that writes or runs something. The loop
//! emits `approval_requested` (with what the call can reach, in words) and
//! waits — raced with Stop — for the front end's answer through
//! [`Approvals::answer`]: allow once, allow this tool for the rest of the
//! session, or deny (the model is told). Profiles can pre-approve tools.
//! A run with no one to ask (the non-streaming `run`) denies.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use hearth_protocol::{ApprovalDecision, EventKind};
use tokio::sync::oneshot;

use crate::rights::{Preapproved, Scope};
use crate::tool::{Approval, Approver, Question, ToolContext};
use crate::visible::visible;

/// The approval requests waiting for an answer, and the tools the user
/// allowed for a whole session. One per agent, shared by its runs.
#[derive(Default)]
pub struct Approvals {
    pending: Mutex<HashMap<String, oneshot::Sender<ApprovalDecision>>>,
    /// (session, tool, scope): an allowance covers one tool in one
    /// profile, workspace and backend — a switch to another asks again.
    allowed: Mutex<HashSet<(String, String, Scope)>>,
    /// `/plan` plans waiting for run, edit or cancel (`workflow/`).
    pub(crate) plans: crate::workflow::PlanAnswers,
}

impl Approvals {
    /// Answer a proposed `/plan` plan (a `plan_proposed` event's
    /// `request_id`). False when it is not waiting.
    pub fn answer_plan(&self, request_id: &str, answer: hearth_protocol::PlanAnswer) -> bool {
        self.plans.answer(request_id, answer)
    }

    /// Answer a request. False when it is not waiting (already answered,
    /// or its run was stopped).
    pub fn answer(&self, request_id: &str, decision: ApprovalDecision) -> bool {
        let sender = self
            .pending
            .lock()
            .ok()
            .and_then(|mut p| p.remove(request_id));
        sender.is_some_and(|tx| tx.send(decision).is_ok())
    }

    /// Ids of the requests waiting now.
    pub fn pending(&self) -> Vec<String> {
        self.pending
            .lock()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    }

    fn key(session: &str, tool: &str, ctx: &ToolContext) -> (String, String, Scope) {
        (session.to_owned(), tool.to_owned(), ctx.scope.clone())
    }

    fn allowed(&self, session: &str, tool: &str, ctx: &ToolContext) -> bool {
        self.allowed
            .lock()
            .is_ok_and(|a| a.contains(&Self::key(session, tool, ctx)))
    }

    fn allow(&self, session: &str, tool: &str, ctx: &ToolContext) {
        if let Ok(mut a) = self.allowed.lock() {
            a.insert(Self::key(session, tool, ctx));
        }
    }
}

/// Removes a request from the waiting list however its wait ends (a stop
/// drops the waiting future).
struct Waiting<'a> {
    hub: &'a Approvals,
    id: String,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if let Ok(mut p) = self.hub.pending.lock() {
            p.remove(&self.id);
        }
    }
}

/// The approver of one run: asks through the run's events, remembers
/// "allow for this session" under the user's session.
pub(crate) struct Gate {
    pub hub: Arc<Approvals>,
    /// The user's session (a sub-agent asks under its parent's).
    pub session: String,
    /// Tools the profile pre-approved, in the scope it had.
    pub preapproved: Preapproved,
    /// False when no one can answer (the non-streaming entry point).
    pub interactive: bool,
}

/// What the model is told when the user declines.
pub const DENIED_RESULT: &str = "the user declined this call, so it did not run; do not repeat it — ask the user what they want instead, or do something else";

#[async_trait]
impl Approver for Gate {
    fn for_subagent(&self) -> Option<Arc<dyn Approver>> {
        // Same user session and allowances, but no pre-approvals: those
        // were given for the parent profile's workspace, and a sub-agent
        // may work in another one.
        Some(Arc::new(Gate {
            hub: self.hub.clone(),
            session: self.session.clone(),
            preapproved: Preapproved::default(),
            interactive: self.interactive,
        }))
    }

    async fn approve(&self, ctx: &ToolContext, question: &Question<'_>) -> Approval {
        let Question {
            tool,
            arguments,
            reach,
            session_allowance,
            widens,
            warning,
        } = *question;
        // A widening or a warned call is a new question every time.
        let always_ask = widens || warning.is_some();
        let session_allowed = session_allowance && !always_ask;
        if !always_ask
            && (self.preapproved.covers(tool, &ctx.scope)
                || self.hub.allowed(&self.session, tool, ctx))
        {
            return Approval::Allowed;
        }
        if !self.interactive {
            return Approval::Denied(format!(
                "`{tool}` needs the user's approval and no one is there to give it; it did not run"
            ));
        }
        let hex = uuid::Uuid::new_v4().simple().to_string();
        let id = format!("apr_{}", &hex[..12]);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.hub.pending.lock() {
            p.insert(id.clone(), tx);
        }
        let _waiting = Waiting {
            hub: &self.hub,
            id: id.clone(),
        };
        ctx.events.emit(EventKind::ApprovalRequested {
            request_id: id.clone(),
            call_id: ctx.call_id.clone(),
            tool: tool.to_owned(),
            arguments: arguments.clone(),
            // What the user decides on shows every hidden character.
            reach: visible(reach, false).into_owned(),
            session_allowed,
            warning: warning.map(|w| visible(w, false).into_owned()),
        });
        // A stop drops this future (the executor races every call with
        // Stop); the guard withdraws the request.
        let decision = rx.await.unwrap_or(ApprovalDecision::Deny);
        ctx.events.emit(EventKind::ApprovalResolved {
            request_id: id,
            decision,
        });
        match decision {
            ApprovalDecision::AllowOnce => Approval::Allowed,
            ApprovalDecision::AllowForSession if !session_allowed => Approval::Allowed,
            ApprovalDecision::AllowForSession => {
                self.hub.allow(&self.session, tool, ctx);
                Approval::Allowed
            }
            ApprovalDecision::Deny => Approval::Denied(DENIED_RESULT.to_owned()),
        }
    }
}
