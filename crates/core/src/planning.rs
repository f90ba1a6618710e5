//! The planning phase (docs/background.md §1.2, docs/design.md §2.4): before
//! the tool loop of a streaming run whose profile enables it, one call
//! with the main call's tools (so its prompt starts as the main call's),
//! `think` off, temperature 0.3, asks whether the request
//! needs a plan. `DIRECT` → no plan; no numbered step → no plan (a malformed
//! answer); otherwise the plan is streamed to the UI, announced with
//! `plan_ready`, and sent as a trailing assistant message the model continues
//! from (Ollama treats it as a prefill).
//!
//! What is stored stays a valid conversation for any template: the plan is
//! not a message of its own but the start of the first answer (plan +
//! continuation, as the model produced it), so the history never holds two
//! assistant messages in a row. The planning call shares the main call's
//! prefix (same system prompt, tools and history, the question appended as
//! a last user message), so the server's prompt cache serves both
//! (docs/design.md §5).

use std::sync::Arc;

use hearth_protocol::EventKind;

use crate::agent::Agent;
use crate::backend::ModelBackend;
use crate::message::ChatMessage;
use crate::model_call::{CallEnd, ModelCall, Piece};
use crate::profile::Profile;
use crate::run_ctx::RunCtx;
use crate::run_state::Observation;
use crate::side::{ChatPrefix, SIDE_MAX_TOKENS, side_request, side_span};
use crate::tool::Offer;

/// The question, appended to the conversation as a last user message.
pub const PLANNER_PROMPT: &str = "Before answering, decide whether the request above needs a plan. \
If it can be answered directly (a question, a greeting, one simple step), reply with exactly: DIRECT\n\
Otherwise reply only with a short numbered list of the steps you will take (\"1. …\", one line each), nothing else.";

/// Sampling temperature of the planning call (docs/background.md §1.2).
pub const PLANNER_TEMPERATURE: f64 = 0.3;

/// True when the answer says no plan is needed.
pub fn is_direct(answer: &str) -> bool {
    answer
        .trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '`' | '_' | '"'))
        .starts_with("DIRECT")
}

/// True when a line is a numbered step (`^\s*\d+[.)]`).
pub fn is_step(line: &str) -> bool {
    let t = line.trim_start();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && matches!(t[digits..].chars().next(), Some('.' | ')'))
}

/// True when the answer holds at least one numbered step.
pub fn has_steps(answer: &str) -> bool {
    answer.lines().any(is_step)
}

/// The plan in a planner answer, if it is one.
pub fn plan_of(answer: &str) -> Option<String> {
    (!is_direct(answer) && has_steps(answer)).then(|| answer.trim().to_owned())
}

/// Decides, as the planner's answer streams, when it is a plan worth
/// showing: nothing is shown until a numbered step has appeared (and the
/// answer did not start with DIRECT); from then on every piece is shown.
/// Text only grows, so what was shown is never taken back.
#[derive(Debug, Default)]
pub struct PlanStream {
    text: String,
    shown: usize,
    direct: bool,
}

impl PlanStream {
    /// Add a piece; returns the text to show now, if any.
    pub fn push(&mut self, delta: &str) -> Option<String> {
        self.text.push_str(delta);
        if self.direct {
            return None;
        }
        if is_direct(&self.text) {
            self.direct = true;
            return None;
        }
        let settled = self.text.trim_start().len() >= "DIRECT".len() || self.text.contains('\n');
        if settled && (self.shown > 0 || has_steps(&self.text)) {
            let out = self.text[self.shown..].to_owned();
            self.shown = self.text.len();
            return (!out.is_empty()).then_some(out);
        }
        None
    }
}

/// The first answer's content when it continues a plan: what the model
/// produced (plan + continuation), with a paragraph break when the server
/// started a new message instead of continuing.
pub fn join_plan(plan: &str, continuation: &str) -> String {
    if continuation.is_empty() {
        return plan.to_owned();
    }
    let glued =
        plan.ends_with(char::is_whitespace) || continuation.starts_with(char::is_whitespace);
    if glued {
        format!("{plan}{continuation}")
    } else {
        format!("{plan}\n\n{continuation}")
    }
}

impl Agent {
    /// Run the planning call over `messages` (the main call's context). Its
    /// text is shown as plan pieces once it is a plan (a plan is not an
    /// answer: nothing of it is checkpointed).
    pub(crate) async fn plan(
        &self,
        ctx: &RunCtx,
        backend: &Arc<dyn ModelBackend>,
        profile: &Profile,
        messages: &[ChatMessage],
    ) -> Observation {
        // The main call's prefix, byte for byte: its messages and tools
        // (crate::side).
        let prefix = ChatPrefix {
            messages: messages.to_vec(),
            tools: self.tools.specs(&Offer::of(profile)),
            think: profile.think,
        };
        let load = self.settings.load_options(&profile.model);
        let mut request = side_request(
            profile,
            load,
            &prefix,
            PLANNER_PROMPT.to_owned(),
            PLANNER_TEMPERATURE,
            SIDE_MAX_TOKENS,
        );
        // A plan is short: no reasoning before it, even where the profile
        // leaves the model's default (the switch renders after the last
        // message: crate::side).
        request.think = Some(profile.think.map_or(crate::Think::OFF, crate::Think::least));
        let started = std::time::Instant::now();
        let mut call = ModelCall::new(backend, &self.loads, request, &ctx.cancel);
        let mut shown = PlanStream::default();
        while let Some(piece) = call.next().await {
            match piece {
                Piece::Text(delta) => {
                    if let Some(show) = shown.push(&delta) {
                        ctx.sink.emit(EventKind::PlanDelta { delta: show });
                    }
                }
                // What came before was reasoning: the plan starts again
                // (`plan_ready` carries the plan as it ends).
                Piece::Rethought(_) => shown = PlanStream::default(),
                Piece::Thinking(_) => {}
            }
        }
        let result = call.finish();
        let span = match &result.end {
            CallEnd::Done(info) => {
                side_span("plan", &profile.model, started, Some(&info.usage), None)
            }
            CallEnd::Stopped => side_span(
                "plan",
                &profile.model,
                started,
                None,
                Some("stopped by the user".into()),
            ),
            CallEnd::Failed(e) => {
                side_span("plan", &profile.model, started, None, Some(e.to_string()))
            }
        };
        if let Err(e) = ctx.store.record_span(&ctx.run_id, &span).await {
            tracing::warn!("recording the planner's span failed: {e}");
        }
        match result.end {
            CallEnd::Done(_) => {
                let plan = plan_of(&result.text);
                if let Some(p) = &plan {
                    ctx.sink.emit(EventKind::PlanReady { plan: p.clone() });
                }
                Observation::Planned(plan)
            }
            CallEnd::Stopped => Observation::Interrupted,
            CallEnd::Failed(e) => Observation::Failed(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_rules_decide() {
        assert!(is_direct("DIRECT"));
        assert!(is_direct("  **DIRECT** — simple"));
        assert!(!is_direct("Directly: 1. do it"));
        assert_eq!(plan_of("DIRECT\n1. no"), None);
        assert_eq!(
            plan_of("I would just answer."),
            None,
            "no numbered step: malformed"
        );
        assert_eq!(
            plan_of("Sure!\n1) read\n  2. write"),
            Some("Sure!\n1) read\n  2. write".into())
        );
        assert!(is_step(" 12. twelve") && is_step("3)") && !is_step("1x") && !is_step("- 1."));
    }

    #[test]
    fn a_plan_streams_once_it_is_one_and_never_for_direct() {
        let mut s = PlanStream::default();
        assert_eq!(s.push("DIR"), None);
        assert_eq!(s.push("ECT"), None);
        assert_eq!(s.push("\n1. but no"), None);

        let mut s = PlanStream::default();
        assert_eq!(s.push("1."), None, "too short to tell from DIRECT yet");
        assert_eq!(
            s.push(" Read the file\n"),
            Some("1. Read the file\n".into())
        );
        assert_eq!(s.push("2. Edit"), Some("2. Edit".into()));

        let mut s = PlanStream::default();
        assert_eq!(s.push("Let me think about it.\n"), None);
        assert_eq!(s.push("No steps here."), None);
    }

    #[test]
    fn the_first_answer_continues_the_plan() {
        assert_eq!(join_plan("1. a\n2. b", " Done."), "1. a\n2. b Done.");
        assert_eq!(join_plan("1. a\n2. b\n", "Done."), "1. a\n2. b\nDone.");
        assert_eq!(join_plan("1. a", "Done."), "1. a\n\nDone.");
        assert_eq!(join_plan("1. a", ""), "1. a");
    }
}
