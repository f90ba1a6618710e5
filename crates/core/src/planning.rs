//! The planning phase (docs/background.md §1.2, docs/design.md §2.4): before
//! the tool loop of a streaming run whose profile enables it, one call
//! with the main call's tools (so its prompt starts as the main call's),
//! `think` off, temperature 0.3, asks whether the request
//! needs a plan. `DIRECT` (however a small model decorates it: `1. Direct`,
//! `**direct**`) → no plan; fewer than two numbered steps → no plan (a
//! malformed answer, or one step, which is no plan); otherwise the plan is
//! streamed to the UI, announced with `plan_ready`, and sent as a trailing
//! assistant message the model continues from (Ollama treats it as a
//! prefill). A model the server says is smaller than
//! [`PLANNING_MIN_PARAMETERS`] is not asked at all: on Qwen2.5-Coder 0.5B
//! the planner's "1. Direct" was prefilled and the model then described the
//! tool call in prose instead of making it.
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

use crate::backend::ModelBackend;
use crate::message::ChatMessage;
use crate::model_call::{CallEnd, ModelCall};
use crate::profile::Profile;
use crate::run::Run;
use crate::run_state::Observation;
use crate::side::{ChatPrefix, SIDE_MAX_TOKENS, side_request, side_span};
use crate::think_tags::Piece;
// Kept at its old path for the crates that name it there.
pub use crate::side::PLANNER_PROMPT;
use crate::tool::Offer;

/// Sampling temperature of the planning call (docs/background.md §1.2).
pub const PLANNER_TEMPERATURE: f64 = 0.3;

/// The fewest parameters a model needs to be asked for a plan. Smaller
/// models answer the planner with a decorated DIRECT or a one-line "plan"
/// and then lose the thread of the prefill (`make test-real` checks the
/// seeded Agent profile's tool call on the 0.5B and 1.5B models, which
/// are below it); a model whose size the server does not say is asked.
pub const PLANNING_MIN_PARAMETERS: u64 = 3_000_000_000;

/// What a small model puts around a word: emphasis, quotes, headings.
fn decoration(c: char) -> bool {
    c.is_whitespace() || matches!(c, '*' | '`' | '_' | '"' | '\'' | '#' | '>' | '-' | ':')
}

/// True when the answer says no plan is needed: its first word is
/// "direct" in any case, after any decoration or list marker (`DIRECT`,
/// `**Direct**`, `1. Direct`, `- direct.`).
pub fn is_direct(answer: &str) -> bool {
    let mut t = answer.trim_start_matches(decoration);
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && matches!(t[digits..].chars().next(), Some('.' | ')')) {
        t = t[digits + 1..].trim_start_matches(decoration);
    }
    let word: String = t.chars().take_while(|c| c.is_alphabetic()).collect();
    word.eq_ignore_ascii_case("direct")
}

/// True when a line is a numbered step (`^\s*\d+[.)]`).
pub fn is_step(line: &str) -> bool {
    let t = line.trim_start();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && matches!(t[digits..].chars().next(), Some('.' | ')'))
}

/// True when the answer holds at least two numbered steps: one step is
/// not a plan (a small model's "1. Directly call the tool" prefilled made
/// it describe the call instead of making it).
pub fn has_steps(answer: &str) -> bool {
    answer.lines().filter(|l| is_step(l)).count() >= 2
}

/// The plan in a planner answer, if it is one.
pub fn plan_of(answer: &str) -> Option<String> {
    (!is_direct(answer) && has_steps(answer)).then(|| answer.trim().to_owned())
}

/// Decides, as the planner's answer streams, when it is a plan worth
/// showing: nothing is shown until a second numbered step has appeared
/// (and the answer did not start with DIRECT); from then on every piece is
/// shown.
/// Text only grows, so what was shown is never taken back.
#[derive(Debug, Default)]
pub struct PlanStream {
    text: String,
    shown: usize,
}

impl PlanStream {
    /// Add a piece; returns the text to show now, if any. By the second
    /// step's line the first word is whole, so whether the answer is a
    /// DIRECT is settled before anything is shown.
    pub fn push(&mut self, delta: &str) -> Option<String> {
        self.text.push_str(delta);
        if self.shown == 0 && (is_direct(&self.text) || !has_steps(&self.text)) {
            return None;
        }
        let out = self.text[self.shown..].to_owned();
        self.shown = self.text.len();
        (!out.is_empty()).then_some(out)
    }
}

impl Run<'_> {
    /// Run the planning call over `messages` (the main call's context). Its
    /// text is shown as plan pieces once it is a plan (a plan is not an
    /// answer: nothing of it is checkpointed).
    pub(crate) async fn plan(
        &self,
        backend: &Arc<dyn ModelBackend>,
        profile: &Profile,
        messages: &[ChatMessage],
    ) -> Observation {
        let ctx = self.ctx;
        // The main call's prefix, byte for byte: its messages and tools
        // (crate::side).
        let prefix = ChatPrefix {
            messages: messages.to_vec(),
            tools: self.deps.tools.specs(&Offer::of(profile)),
            think: profile.think,
        };
        let load = self.deps.settings.load_options(&profile.model);
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
        let mut call = ModelCall::new(backend, &self.deps.loads, request, &ctx.cancel);
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
                Piece::Thinking(_) | Piece::WritingCall { .. } => {}
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
    use crate::run_state::join_plan;

    #[test]
    fn the_seed_rules_decide() {
        assert!(is_direct("DIRECT"));
        assert!(is_direct("  **DIRECT** — simple"));
        // How Qwen2.5-Coder 0.5B wrote it (user pass 2026-12, defect 3).
        assert!(is_direct("1. Direct"));
        assert!(is_direct("1) **direct**"));
        assert!(is_direct("- Direct."));
        assert!(is_direct("Direct: it is one step"));
        assert!(!is_direct("Directly: 1. do it"));
        assert!(!is_direct("1. Directions to the station\n2. Walk"));
        assert_eq!(plan_of("DIRECT\n1. no"), None);
        assert_eq!(plan_of("1. Directly call the tool"), None, "one step");
        assert_eq!(plan_of("1. Run `wc -l shopping.txt`"), None, "one step");
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
        assert_eq!(s.push(" Read the file\n"), None, "one step is no plan yet");
        assert_eq!(s.push("2. Edit"), Some("1. Read the file\n2. Edit".into()));
        assert_eq!(s.push(" it\n"), Some(" it\n".into()));

        let mut s = PlanStream::default();
        assert_eq!(s.push("1. Direct"), None);
        assert_eq!(
            s.push("\n2. then"),
            None,
            "a decorated DIRECT shows nothing"
        );

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
