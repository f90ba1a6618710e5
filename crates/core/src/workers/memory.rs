//! The memory worker: after a turn, ask the model (same model, same load
//! options, so nothing reloads) whether the exchange revealed durable facts
//! about the user, and hand them to the store, which drops duplicates and
//! anything the user deleted or edited away. The question is asked after
//! the conversation itself (its prefix, so the server's prompt cache serves
//! it: docs/design.md §5), with the latest exchange quoted so a small model
//! knows which part to read.

use std::sync::Arc;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::backend::ModelBackend;
use crate::memory::MemoryWriter;
use crate::message::{ChatMessage, Role};
use crate::profile::Profile;
use crate::settings::LoadOptions;
use crate::side::{ChatPrefix, MEMORY_MAX_TOKENS, Side, side_request};
use crate::store::SessionStore;
use crate::workers::{PostTurnWorker, WorkerContext, WorkerError};

/// Longest stretch of the last exchange shown to the worker (characters).
const EXCHANGE_CHARS: usize = 6000;

/// How the memory request starts.
pub const MEMORY_PROMPT: &str =
    "You keep a short memory of durable facts about the user (name, preferences, projects, setup).";

/// Learns durable facts about the user after each turn.
pub struct MemoryWorker(pub Arc<dyn MemoryWriter>);

/// The facts in a worker answer: lines that start with `- ` or `* `; `NONE`
/// or anything else yields nothing. At most 10, each at most 300 chars.
pub fn parse_facts(answer: &str) -> Vec<String> {
    answer
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("- ")
                .or_else(|| l.trim().strip_prefix("* "))
        })
        .map(|f| f.trim().chars().take(300).collect::<String>())
        .filter(|f| !f.is_empty() && !f.eq_ignore_ascii_case("none"))
        .take(10)
        .collect()
}

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

/// Ask the model for new durable facts in `pass.text` and hand them to the
/// store. Returns how many were added (0 when cancelled).
pub(crate) async fn learn_facts(pass: FactPass<'_>) -> Result<usize, WorkerError> {
    if pass.text.trim().is_empty() {
        return Ok(0);
    }
    let known = pass.writer.facts().await?;
    let forgotten = pass.writer.forgotten().await?;
    let prompt = format!(
        "{MEMORY_PROMPT} \
         Read the {} and list NEW durable facts about the user, one per line starting with \"- \". \
         Skip facts already known, guesses, and anything about the assistant. \
         Never list a fact the user asked to forget. If there is nothing new, answer NONE.\n\n\
         Known facts:\n{}\n\nForgotten at the user's request (never list these):\n{}\n\n{}:\n{}",
        pass.heading.to_lowercase(),
        bullets(&known),
        bullets(&forgotten),
        pass.heading,
        pass.text
    );
    let (window, ratio) = pass.window;
    let prefix = pass
        .prefix
        .within(pass.profile, &prompt, MEMORY_MAX_TOKENS, window, ratio);
    let request = side_request(
        pass.profile,
        pass.load,
        &prefix,
        prompt,
        0.2,
        MEMORY_MAX_TOKENS,
    );
    let side = Side {
        backend: pass.backend,
        store: pass.store,
        run_id: pass.run_id,
        cancel: pass.cancel,
    };
    let Some(answer) = side.answer(pass.purpose(), request).await? else {
        return Ok(0);
    };
    // Offered the conversation's tools (for its prefix), a small model may
    // save a fact with `remember` instead of listing it: a fact all the same.
    let mut facts = parse_facts(&answer.text);
    facts.extend(
        answer
            .calls
            .iter()
            .filter(|c| c.name == "remember")
            .filter_map(|c| c.arguments.get("fact")?.as_str())
            .map(|f| f.trim().chars().take(300).collect::<String>())
            .filter(|f| !f.is_empty()),
    );
    facts.truncate(10);
    if facts.is_empty() {
        return Ok(0);
    }
    let n = pass
        .writer
        .learn(pass.session_id, pass.run_id, pass.source, &facts)
        .await?;
    tracing::debug!(
        learned = n,
        offered = facts.len(),
        source = pass.source,
        "memory"
    );
    Ok(n)
}

#[async_trait]
impl PostTurnWorker for MemoryWorker {
    fn name(&self) -> &'static str {
        "memory"
    }

    async fn run(&self, ctx: &WorkerContext) -> Result<(), WorkerError> {
        let exchange = last_exchange(&ctx.history);
        learn_facts(FactPass {
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
        })
        .await
        .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::parse_facts;

    #[test]
    fn only_bullets_count() {
        assert_eq!(
            parse_facts("Here you go:\n- Likes tea\n* Uses Arch\nNONE\n-   \n- none"),
            vec!["Likes tea", "Uses Arch"]
        );
        assert!(parse_facts("NONE").is_empty());
        assert!(parse_facts("You said: my name is Sam").is_empty());
    }
}
