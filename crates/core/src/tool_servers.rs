//! The tool sources a run's profile uses, made ready before each model
//! call that offers their tools: MCP servers started (a server that cannot
//! serve reported once per run; the run goes on without its tools, since a
//! missing `npx` must not cost the user their answer), and the skills
//! folder read again (a skill added or fixed is offered at the next call).

use std::collections::HashSet;

use hearth_protocol::EventKind;

use crate::profile::Profile;
use crate::run::Run;
use crate::tool::Offer;

impl Run<'_> {
    /// Starts the servers `profile` names (bounded by each server's own
    /// start timeout, raced with Stop) and emits `tools_unavailable` for
    /// each that cannot serve and was not reported yet. `None` when the
    /// user stopped meanwhile.
    pub(crate) async fn start_tool_servers(
        &self,
        profile: &Profile,
        told: &mut HashSet<String>,
    ) -> Option<()> {
        let ctx = self.ctx;
        let offer = Offer::of(profile);
        let unavailable = tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => return None,
            list = self.deps.tools.prepare(&offer) => list,
        };
        for down in unavailable {
            if told.insert(down.server.clone()) {
                tracing::warn!(server = %down.server, reason = %down.reason, "tool server unavailable");
                ctx.sink.emit(EventKind::ToolsUnavailable {
                    server: down.server,
                    reason: down.reason,
                });
            }
        }
        Some(())
    }
}
