//! What happens before the model is asked: the check of the files attached
//! to the user's message (`attach`), the input guard's screening of the
//! user's words (docs/background.md §3.4), what is sent (the pipeline
//! over the stored session), its measure against the window
//! (docs/background.md §2.2; whether it fits is the run's decision,
//! `run_state/room.rs`), and the compaction that makes room.

use std::sync::Arc;

use hearth_protocol::{EventKind, GuardSource, SpanKind};

use crate::backend::ModelBackend;
use crate::budget::{Pressure, estimate_request, pressure};
use crate::compaction::{Compacted, Compactor, Why};
use crate::error::RunError;
use crate::guard::{Report, scan};
use crate::message::ChatMessage;
use crate::pipeline::Outgoing;
use crate::profile::Profile;
use crate::run::Run;
use crate::run_state::Measured;
use crate::side::ChatPrefix;

use crate::store::Span;
use crate::tool::Offer;

/// Stands for the next question while the side requests' prefix is worked
/// out (`chat_prefix`); never sent.
const NEXT_QUESTION: &str = "…";

/// A measured prompt, kept for the model call that sends it.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) messages: Vec<ChatMessage>,
    pub(crate) measured: Measured,
    /// Its usage was announced (by the planning call that sent it first).
    announced: bool,
}

impl Prepared {
    /// Tell the user how full the window is, once per measured prompt: the
    /// figure of what is sent, after any compaction.
    pub(crate) fn announce(&mut self, sink: &crate::events::EventSink) {
        if std::mem::replace(&mut self.announced, true) {
            return;
        }
        let Measured { tokens, window, .. } = self.measured;
        sink.emit(EventKind::ContextUsage {
            tokens: u32::try_from(tokens).unwrap_or(u32::MAX),
            window,
            warning: pressure(tokens, window) != Pressure::Fine,
        });
    }
}

impl Run<'_> {
    /// The run's attachments as the message keeps them: pictures refused
    /// before anything is kept when the model cannot see (the server says
    /// so in its listing), text files allotted their share of the window.
    pub(crate) async fn attach(&self) -> Result<Vec<crate::Attachment>, RunError> {
        let ctx = self.ctx;
        let mut attachments = ctx.attachments.clone();
        if attachments.is_empty() {
            return Ok(attachments);
        }
        let profile = self.profile();
        let images = attachments.iter().filter(|a| a.is_image()).count();
        if images > 0
            && let Ok(backend) = self.deps.backend_for(&profile)
            && backend.sees_images(&profile.model).await == Some(false)
        {
            return Err(RunError::ImagesUnsupported {
                model: profile.model.clone(),
                images,
            });
        }
        let window = self.deps.window(&profile.model);
        crate::attached::allot_text(&ctx.text, &mut attachments, window);
        Ok(attachments)
    }

    /// Screen a message of the user's (`what` names it in the trace). In
    /// `block` mode the run must end: the message is already stored, so
    /// nothing is lost.
    pub(crate) async fn screen_user(&self, what: &str, text: &str) -> Result<(), RunError> {
        let ctx = self.ctx;
        let report = Report {
            sink: &ctx.sink,
            store: ctx.store.as_ref(),
            run_id: &ctx.run_id,
        };
        let mode = self.profile().input_guard;
        if report
            .screen(mode, GuardSource::User, None, what, text)
            .await
        {
            let found = scan(text).iter().map(|p| (*p).to_owned()).collect();
            return Err(RunError::InputBlocked(found));
        }
        Ok(())
    }

    /// The prompt the next model call sends under `profile` and `memory`,
    /// counted against the window (whether it fits is the run's decision:
    /// `run_state/room.rs`).
    pub(crate) async fn measure(
        &self,
        profile: &Profile,
        memory: Option<&str>,
    ) -> Result<Prepared, RunError> {
        let persona = self.deps.profiles.persona();
        let tools = self.deps.tools.specs(&Offer::of(profile));
        let window = self.deps.window(&profile.model);
        let o = Outgoing::of_profile(&persona, profile, memory, window);
        let messages = self.outgoing(&o).await?;
        let tokens = self
            .deps
            .counter
            .tokens(&profile.model, estimate_request(&messages, &tools));
        Ok(Prepared {
            messages,
            measured: Measured {
                tokens,
                window,
                calibrated: self.deps.counter.is_calibrated(&profile.model),
            },
            announced: false,
        })
    }

    /// Compact the session (docs/background.md §3.7–3.8: memory flush, then
    /// summary) for `why`: the budget before a request, or an overflow the
    /// server reported. Announces what it did. A failure only means a longer
    /// prompt.
    pub(crate) async fn compact_session(
        &self,
        backend: &Arc<dyn ModelBackend>,
        profile: &Profile,
        fixed_tokens: usize,
        why: Why,
    ) -> Option<Compacted> {
        let ctx = self.ctx;
        let load = self.deps.settings.load_options(&profile.model);
        let compactor = Compactor {
            store: ctx.store.as_ref(),
            backend,
            profile,
            load,
            window: self.deps.window(&profile.model),
            ratio: self.deps.counter.ratio(&profile.model),
            memory: self.deps.memory_writer.as_ref(),
            vote: self.deps.memory_vote.as_deref(),
            summarizers: &self.deps.summarizers,
            run_id: &ctx.run_id,
            cancel: &ctx.cancel,
        };
        let started = std::time::Instant::now();
        let done = compactor.compact(&ctx.session_id, fixed_tokens, why).await;
        let mut span = Span {
            kind: SpanKind::Compaction,
            name: profile.model.clone(),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            ..Span::default()
        };
        let done = match done {
            Ok(Some(c)) => {
                span.detail = Some(format!(
                    "{} messages summarized, ~{} → ~{} tokens",
                    c.covered, c.tokens_before, c.tokens_after
                ));
                ctx.sink.emit(EventKind::ContextCompacted {
                    summarized: u32::try_from(c.covered).unwrap_or(u32::MAX),
                    tokens_before: u32::try_from(c.tokens_before).unwrap_or(u32::MAX),
                    tokens_after: u32::try_from(c.tokens_after).unwrap_or(u32::MAX),
                });
                Some(c)
            }
            Ok(None) => return None,
            Err(e) => {
                tracing::warn!("compaction failed: {e}");
                span.error = Some(e.to_string());
                None
            }
        };
        if let Err(e) = ctx.store.record_span(&ctx.run_id, &span).await {
            tracing::warn!("recording a compaction span failed: {e}");
        }
        done
    }

    /// The memory message a run of `ctx` sends: the session's snapshot for
    /// a top run (taken at its first turn, so it never changes); for a
    /// sub-agent, what its run was given (none: sub-agents start without
    /// the user's memory).
    pub(crate) async fn session_memory(&self) -> Result<Option<String>, RunError> {
        let ctx = self.ctx;
        Ok(match (&self.deps.memory_source, ctx.depth) {
            (Some(source), 0) => source.snapshot(&ctx.session_id).await?,
            _ => ctx.memory.clone(),
        })
    }

    /// What the session's next chat request will start with under
    /// `profile` and `memory` ([`Self::session_memory`]), the session's
    /// stored `history` given: the pipeline over it as the driver's `prepare` sends it (before the
    /// budget's compaction), the profile's tools and reasoning switch. Side
    /// requests send it first (crate::side). The pipeline runs with a
    /// stand-in for the next question, then drops it: the stages that look
    /// at turns (the last N of `history_turns`, pruning of old results) then
    /// see what the next request will.
    pub(crate) async fn chat_prefix(
        &self,
        profile: &Profile,
        memory: Option<&str>,
        history: &[ChatMessage],
    ) -> Result<ChatPrefix, RunError> {
        let ctx = self.ctx;
        let persona = self.deps.profiles.persona();
        let o = Outgoing::of_profile(&persona, profile, memory, self.deps.window(&profile.model));
        let summary = ctx.store.summary(&ctx.session_id).await?;
        let mut history = history.to_vec();
        history.push(ChatMessage::user(NEXT_QUESTION));
        let mut messages = crate::pipeline::outgoing(
            &Outgoing {
                summary: summary.as_ref(),
                ..o
            },
            &history,
        );
        if messages
            .last()
            .is_some_and(|m| m.role == crate::message::Role::User && m.content == NEXT_QUESTION)
        {
            messages.pop();
        }
        Ok(ChatPrefix {
            messages,
            tools: self.deps.tools.specs(&Offer::of(profile)),
            think: profile.think,
        })
    }

    /// What to send for the session now: its history and summary through
    /// the pipeline (docs/background.md §3.5) with `o`'s settings.
    pub(crate) async fn outgoing(&self, o: &Outgoing<'_>) -> Result<Vec<ChatMessage>, RunError> {
        let ctx = self.ctx;
        let history = ctx.store.history(&ctx.session_id).await?;
        let summary = ctx.store.summary(&ctx.session_id).await?;
        Ok(crate::pipeline::outgoing(
            &Outgoing {
                summary: summary.as_ref(),
                ..*o
            },
            &history,
        ))
    }
}
