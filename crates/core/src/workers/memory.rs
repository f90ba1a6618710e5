//! The memory worker: after a turn, ask the model (same model, same load
//! options, so nothing reloads) whether the exchange revealed durable facts
//! about the user, and hand them to the store, which drops duplicates and
//! anything the user deleted or edited away. The question is asked after
//! the conversation itself (its prefix, so the server's prompt cache serves
//! it: docs/design.md §5), with the latest exchange quoted so a small model
//! knows which part to read. The answer is JSON against a schema (each
//! fact with a category, the user's words it rests on and a confidence),
//! and only the facts that hold up against what the user wrote are kept
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
use crate::side::{ChatPrefix, MEMORY_MAX_TOKENS, Side, side_request};
use crate::store::SessionStore;
use crate::workers::{PostTurnWorker, WorkerContext, WorkerError, facts};

/// Longest stretch of the last exchange shown to the worker (characters).
const EXCHANGE_CHARS: usize = 6000;

/// How the memory request starts.
pub const MEMORY_PROMPT: &str =
    "You keep a short memory of durable facts about the user (name, preferences, projects, setup).";

/// A worked example for the memory request: small models copy the shape
/// of an example better than they follow a description. What they copy
/// of its content cannot be stored: the user never said it.
const FACTS_EXAMPLE: &str = "Example: if the user wrote \"I'm Ana and I teach maths in Porto.\", \
     the answer is {\"facts\": [{\"quote\": \"I'm Ana\", \"fact\": \"The user's name is Ana\", \
     \"category\": \"identity\", \"confidence\": 0.95}, {\"quote\": \"I teach maths in Porto\", \
     \"fact\": \"The user teaches maths in Porto\", \"category\": \"skill\", \"confidence\": 0.9}]}. \
     If the user wrote \"What is 2 + 2?\", the answer is {\"facts\": []}.";

/// Learns durable facts about the user after each turn.
pub struct MemoryWorker(pub Arc<dyn MemoryWriter>);

fn last_exchange(history: &[ChatMessage]) -> String {
    let start = history
        .iter()
        .rposition(|m| m.role == Role::User)
        .unwrap_or(0);
    let mut text = String::new();
    for m in &history[start..] {
        let who = match m.role {
            Role::User => "User",
            Role::Assistant => "Assistant",
            Role::Tool | Role::System => continue,
        };
        if !m.content.is_empty() {
            text.push_str(&format!("{who}: {}\n", m.content));
        }
    }
    if text.chars().count() > EXCHANGE_CHARS {
        text = text.chars().take(EXCHANGE_CHARS).collect();
    }
    text
}

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

fn bullets(items: &[String]) -> String {
    if items.is_empty() {
        return "(none)".into();
    }
    items
        .iter()
        .map(|f| format!("- {f}"))
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
    /// How the text is introduced to the model.
    pub heading: &'a str,
    pub text: &'a str,
    /// What the user wrote in the part read, in their own words
    /// (`facts::own_words`): a fact's quote must be found in it.
    pub said: &'a str,
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

/// Ask the model for new durable facts in `pass.text` and, as the
/// profile's memory mode says, store them or propose them. Nothing is
/// asked when memory is off (or the user stopped).
pub(crate) async fn learn_facts(pass: FactPass<'_>) -> Result<Kept, WorkerError> {
    if pass.text.trim().is_empty() || pass.profile.memory == MemoryMode::Off {
        return Ok(Kept::default());
    }
    let known = pass.writer.facts().await?;
    let forgotten = pass.writer.forgotten().await?;
    let prompt = format!(
        "{MEMORY_PROMPT} \
         Read the {} and list NEW durable facts about the user that the user stated themselves. \
         Answer only with JSON: {{\"facts\": [...]}}, each fact an object with \
         \"quote\" (words the user wrote about themselves, copied exactly from the user's message), \
         \"fact\" (what the quote says, as one sentence that starts with \"The user\"), \
         \"category\" (one of {}) and \"confidence\" (0 to 1). \
         Nothing about the assistant, the code, its output or the task itself; no guesses; \
         skip facts already known. Never list a fact the user asked to forget. \
         If the user stated nothing about themselves, answer {{\"facts\": []}}.\n\n\
         {FACTS_EXAMPLE}\n\n\
         Known facts:\n{}\n\nForgotten at the user's request (never list these):\n{}\n\n{}:\n{}",
        pass.heading.to_lowercase(),
        facts::CATEGORIES.join(", "),
        bullets(&known),
        bullets(&forgotten),
        pass.heading,
        pass.text
    );
    let (window, ratio) = pass.window;
    let prefix = pass
        .prefix
        .within(pass.profile, &prompt, MEMORY_MAX_TOKENS, window, ratio);
    let mut request = side_request(
        pass.profile,
        pass.load,
        &prefix,
        prompt,
        0.2,
        MEMORY_MAX_TOKENS,
    );
    request.format = Some(facts::schema());
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
    let mut candidates = facts::parse(&answer.text);
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
    let (kept, rejected) = facts::screen(candidates, pass.said);
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
        let exchange = last_exchange(&ctx.history);
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
            heading: "Latest exchange",
            text: &exchange,
            said: &said,
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
