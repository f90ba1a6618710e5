//! The memory worker: after a turn, ask the model (same model, same load
//! options, so nothing reloads) what the user's latest message tells about
//! them, and hand the facts to the store, which drops duplicates and
//! anything the user deleted or edited away. Only the sentences in which
//! the user speaks of themselves are asked about (`statements`), and where
//! an embedding model is chosen only those most like known facts
//! (`fact_vote`); a message with none asks nothing. The question is asked
//! after the conversation itself (its prefix, so the server's prompt cache
//! serves it: docs/design.md §5), listing those sentences. The answer is
//! JSON against a schema with one slot per sentence (each fact with a
//! category and a confidence, resting on its slot's sentence), and only the
//! facts that hold up against what the user wrote are kept
//! (`facts::screen`).

use std::sync::Arc;

use async_trait::async_trait;
use hearth_protocol::{EventKind, LearnedFact, MemoryMode};
use tokio_util::sync::CancellationToken;

use crate::backend::ModelBackend;
use crate::memory::{MemoryWriter, NewFact};
use crate::message::{ChatMessage, Role};
use crate::profile::Profile;
use crate::settings::LoadOptions;
use crate::side::{ChatPrefix, MEMORY_PROMPT, Side, memory_max_tokens, side_request};
use crate::store::SessionStore;
use crate::workers::fact_vote::FactVote;
use crate::workers::{PostTurnWorker, WorkerContext, WorkerError, facts, statements};

/// Learns durable facts about the user after each turn.
pub struct MemoryWorker(pub Arc<dyn MemoryWriter>);

/// What the user wrote in `messages`, in their own words: a fact from
/// anywhere in the conversation may rest on it.
pub(crate) fn said_by_user(messages: &[ChatMessage]) -> String {
    messages
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| facts::own_words(&m.content))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a memory pass reads and where it runs.
pub(crate) struct FactPass<'a> {
    pub writer: &'a dyn MemoryWriter,
    pub backend: &'a dyn ModelBackend,
    /// Where its span is traced.
    pub store: &'a dyn SessionStore,
    pub profile: &'a Profile,
    /// What is sent before the question: the conversation's prefix after a
    /// turn, nothing before a compaction.
    pub prefix: &'a ChatPrefix,
    /// The window and the model's calibration the prefix must fit in with
    /// the question (else the question goes alone).
    pub window: (u32, f64),
    pub load: LoadOptions,
    pub cancel: &'a CancellationToken,
    pub session_id: &'a str,
    pub run_id: &'a str,
    /// "worker" after a turn, "flush" before a compaction.
    pub source: &'a str,
    /// What the user wrote in the part to learn from, in their own words
    /// (`facts::own_words`): the sentences asked about are taken from it.
    pub fresh: &'a str,
    /// What the user wrote in the whole conversation, in their own words:
    /// a fact must rest on one sentence of it.
    pub said: &'a str,
    /// Which sentences are worth asking about, by their nearest labelled
    /// examples (`fact_vote`); `None`: all of them.
    pub vote: Option<&'a FactVote>,
}

impl FactPass<'_> {
    /// What its span says it was.
    fn purpose(&self) -> &'static str {
        if self.source == "flush" {
            "memory flush"
        } else {
            "memory"
        }
    }
}

/// What a memory pass came to.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    /// Stored (the profile's memory is `auto`).
    pub learned: Vec<crate::memory::Learned>,
    /// Waiting for the user (it is `ask`).
    pub proposed: Vec<String>,
}

/// The sentences of `statements` most of whose nearest examples are facts
/// (all of them when there is no vote to take); the others are logged.
async fn voted(
    vote: &FactVote,
    backend: &dyn ModelBackend,
    statements: Vec<String>,
    cancel: &CancellationToken,
) -> Vec<String> {
    let Some(ballots) = vote.ballots(backend, &statements, cancel).await else {
        // Stopped: nothing is asked; else every sentence, as without a vote.
        return if cancel.is_cancelled() {
            Vec::new()
        } else {
            statements
        };
    };
    statements
        .into_iter()
        .zip(ballots)
        .filter_map(|(sentence, b)| {
            if b.keeps() {
                return Some(sentence);
            }
            tracing::debug!(
                %sentence,
                facts = b.facts,
                of = crate::workers::fact_vote::NEIGHBOURS,
                nearest = %b.nearest,
                "memory: not asked about (its nearest examples are not facts)"
            );
            None
        })
        .collect()
}

/// Ask the model for new durable facts in `pass.fresh` and, as the
/// profile's memory mode says, store them or propose them. Nothing is
/// asked when memory is off (or the user stopped).
pub(crate) async fn learn_facts(pass: FactPass<'_>) -> Result<Kept, WorkerError> {
    if pass.profile.memory == MemoryMode::Off {
        return Ok(Kept::default());
    }
    // Only the sentences where the user speaks of themselves can hold a
    // fact about them; a message without one asks nothing.
    let statements = match pass.vote {
        Some(vote) => {
            let read = statements::latest(pass.fresh, statements::MAX_VOTED);
            let mut kept = voted(vote, pass.backend, read, pass.cancel).await;
            kept.drain(..kept.len().saturating_sub(statements::MAX_STATEMENTS));
            kept
        }
        None => statements::statements(pass.fresh),
    };
    if statements.is_empty() {
        return Ok(Kept::default());
    }
    let prompt = format!(
        "{MEMORY_PROMPT} Here are the sentences of the {} where the user speaks of themselves:\n{}\n\n\
         For each sentence, rewrite what it says about the user as short facts that start with \"The user\", \
         using the sentence's own words: one fact for each thing it tells (name, home, job, family, tools, \
         languages, diet, health, plans, how they want answers). A request or question about the task is not a fact. \
         Each fact has a category (one of {}) and a confidence (0 to 1). Answer only with JSON, \
         one entry for each sentence: {{\"sentence_1\": {{\"facts\": [{{\"fact\": \"The user …\", \
         \"fact_category\": \"…\", \"fact_confidence\": 0.9}}]}}, \"sentence_2\": …}}.",
        // The flush reads a stretch of the conversation, not one message.
        if pass.source == "flush" {
            "conversation"
        } else {
            "latest message"
        },
        statements::listing(&statements),
        facts::CATEGORIES.join(", "),
    );
    let max_tokens = memory_max_tokens(statements.len());
    let (window, ratio) = pass.window;
    let prefix = pass
        .prefix
        .within(pass.profile, &prompt, max_tokens, window, ratio);
    let mut request = side_request(
        pass.profile,
        pass.load,
        &prefix,
        prompt,
        // Greedy: the facts are copied out of the user's sentences, not
        // made up; a sampled word is one the user may never have written.
        0.0,
        max_tokens,
    );
    request.format = Some(statements::schema(statements.len()));
    let side = Side {
        backend: pass.backend,
        store: pass.store,
        run_id: pass.run_id,
        cancel: pass.cancel,
    };
    let Some(answer) = side.answer(pass.purpose(), request).await? else {
        return Ok(Kept::default());
    };
    tracing::debug!(answer = %answer.text, "memory: the model's answer");
    // A `remember` call (a small model offered the conversation's tools
    // may make one although asked not to) names no words of the user's,
    // so it is screened out like any fact without a quote.
    let mut candidates = statements::parse(&answer.text, &statements);
    candidates.extend(
        answer
            .calls
            .iter()
            .filter(|c| c.name == "remember")
            .map(|c| facts::Candidate {
                fact: c
                    .arguments
                    .get("fact")
                    .and_then(|f| f.as_str())
                    .unwrap_or("")
                    .to_owned(),
                category: String::new(),
                quote: String::new(),
                confidence: 0.0,
            }),
    );
    let (kept, rejected) = statements::screen(candidates, &statements, pass.said);
    for r in &rejected {
        tracing::debug!(fact = %r.fact, reason = r.reason, "memory: not kept");
    }
    if kept.is_empty() {
        return Ok(Kept::default());
    }
    let offered = kept.len();
    let kept = match pass.profile.memory {
        MemoryMode::Ask => {
            let texts: Vec<String> = kept.into_iter().map(|f| f.text).collect();
            Kept {
                proposed: pass.writer.fresh(&texts).await?,
                ..Kept::default()
            }
        }
        _ => {
            let facts: Vec<NewFact> = kept
                .into_iter()
                .map(|f| NewFact {
                    text: f.text,
                    category: Some(f.category),
                    quote: Some(f.quote),
                })
                .collect();
            Kept {
                learned: pass
                    .writer
                    .learn(pass.session_id, pass.run_id, pass.source, &facts)
                    .await?,
                ..Kept::default()
            }
        }
    };
    tracing::debug!(
        learned = kept.learned.len(),
        proposed = kept.proposed.len(),
        offered,
        source = pass.source,
        "memory"
    );
    Ok(kept)
}

#[async_trait]
impl PostTurnWorker for MemoryWorker {
    fn name(&self) -> &'static str {
        "memory"
    }

    async fn run(&self, ctx: &WorkerContext) -> Result<(), WorkerError> {
        // The latest message (and any queued with it) is what is new.
        let last = ctx.history.iter().rposition(|m| m.role == Role::User);
        let start = last.map_or(0, |last| {
            ctx.history[..last]
                .iter()
                .rposition(|m| m.role != Role::User)
                .map_or(0, |i| i + 1)
        });
        let fresh = said_by_user(&ctx.history[start..]);
        let said = said_by_user(&ctx.history);
        let kept = learn_facts(FactPass {
            writer: self.0.as_ref(),
            backend: ctx.backend.as_ref(),
            store: ctx.store.as_ref(),
            profile: &ctx.profile,
            prefix: &ctx.prefix,
            window: (ctx.window, ctx.ratio),
            load: ctx.load,
            cancel: &ctx.cancel,
            session_id: &ctx.session_id,
            run_id: &ctx.run_id,
            source: "worker",
            fresh: &fresh,
            said: &said,
            vote: ctx.memory_vote.as_deref(),
        })
        .await?;
        if !kept.learned.is_empty() {
            ctx.events.emit(EventKind::MemoryLearned {
                facts: kept
                    .learned
                    .into_iter()
                    .map(|l| LearnedFact {
                        id: l.id,
                        fact: l.fact,
                    })
                    .collect(),
            });
        }
        if !kept.proposed.is_empty() {
            ctx.events.emit(EventKind::MemoryProposed {
                facts: kept.proposed,
            });
        }
        Ok(())
    }
}
