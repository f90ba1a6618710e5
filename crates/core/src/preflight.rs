//! What happens before the model is asked: the input guard's screening of
//! the user's words (docs/background.md §3.4) and the context budget
//! (docs/background.md §2.2) on what is about to be sent.

use std::sync::Arc;

use hearth_protocol::{EventKind, GuardSource};

use crate::backend::ModelBackend;
use crate::budget::{Pressure, estimate_request, pressure, target_tokens};
use crate::compaction::Why;
use crate::driver::{Agent, RunCtx};
use crate::error::RunError;
use crate::guard::{Report, scan};
use crate::message::ChatMessage;
use crate::pipeline::Outgoing;
use crate::profile::Profile;
use crate::tool::ToolSpec;

impl Agent {
    /// Screen a message of the user's (`what` names it in the trace). In
    /// `block` mode the run must end: the message is already stored, so
    /// nothing is lost.
    pub(crate) async fn screen_user(
        &self,
        ctx: &RunCtx,
        what: &str,
        text: &str,
    ) -> Result<(), RunError> {
        let report = Report {
            sink: &ctx.sink,
            store: ctx.store.as_ref(),
            run_id: &ctx.run_id,
        };
        let mode = self.profile(ctx).input_guard;
        if report
            .screen(mode, GuardSource::User, None, what, text)
            .await
        {
            let found = scan(text).iter().map(|p| (*p).to_owned()).collect();
            return Err(RunError::InputBlocked(found));
        }
        Ok(())
    }

    /// The messages to send for `o`, within the budget: above 95 % of the
    /// window older messages are summarized down to 82 % first; still
    /// above, the call is refused — but only when the estimate rests on
    /// the server's own count, since a raw estimate may be far off (tool
    /// schemas, code) and the server refuses rather than truncates
    /// (`truncate: false`), which the overflow path handles. Announces the
    /// usage. `None` when the user stopped meanwhile.
    pub(crate) async fn within_budget(
        &self,
        ctx: &RunCtx,
        backend: &Arc<dyn ModelBackend>,
        profile: &Profile,
        o: &Outgoing<'_>,
        tools: &[ToolSpec],
        fixed_tokens: usize,
    ) -> Result<Option<Vec<ChatMessage>>, RunError> {
        let count = |m: &[ChatMessage]| {
            self.counter
                .tokens(&profile.model, estimate_request(m, tools))
        };
        let mut messages = self.outgoing(ctx, o).await?;
        let mut tokens = count(&messages);
        if pressure(tokens, o.window) == Pressure::Over {
            let why = Why::Budget {
                target: target_tokens(o.window),
            };
            if ctx.depth == 0
                && self
                    .compact_session(ctx, backend, profile, fixed_tokens, why)
                    .await
                    .is_some()
            {
                messages = self.outgoing(ctx, o).await?;
                tokens = count(&messages);
            }
            if ctx.cancel.is_cancelled() {
                return Ok(None);
            }
            if pressure(tokens, o.window) == Pressure::Over
                && self.counter.is_calibrated(&profile.model)
            {
                return Err(RunError::ContextLimit {
                    tokens,
                    window: o.window,
                });
            }
        }
        ctx.sink.emit(EventKind::ContextUsage {
            tokens: u32::try_from(tokens).unwrap_or(u32::MAX),
            window: o.window,
            warning: pressure(tokens, o.window) != Pressure::Fine,
        });
        Ok(Some(messages))
    }
}
