//! The memory worker: after a turn, ask the model (same model, same load
//! options, so nothing reloads) whether the exchange revealed durable facts
//! about the user, and hand them to the store, which drops duplicates and
//! anything the user deleted or edited away.

use std::sync::Arc;

use crate::backend::ModelRequest;
use crate::memory::{MemoryWriter, PostTurnWorker, WorkerContext};
use crate::message::{ChatMessage, Role};
use async_trait::async_trait;

/// Longest stretch of the last exchange shown to the worker (characters).
const EXCHANGE_CHARS: usize = 6000;

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

#[async_trait]
impl PostTurnWorker for MemoryWorker {
    fn name(&self) -> &'static str {
        "memory"
    }

    async fn run(&self, ctx: &WorkerContext) -> Result<(), String> {
        let exchange = last_exchange(&ctx.history);
        if exchange.is_empty() {
            return Ok(());
        }
        let known = self.0.facts().await.map_err(|e| e.to_string())?;
        let forgotten = self.0.forgotten().await.map_err(|e| e.to_string())?;
        let prompt = format!(
            "You keep a short memory of durable facts about the user (name, preferences, projects, setup). \
             Read the latest exchange and list NEW durable facts about the user, one per line starting with \"- \". \
             Skip facts already known, guesses, and anything about the assistant. \
             Never list a fact the user asked to forget. If there is nothing new, answer NONE.\n\n\
             Known facts:\n{}\n\nForgotten at the user's request (never list these):\n{}\n\nLatest exchange:\n{exchange}",
            bullets(&known),
            bullets(&forgotten)
        );
        let request = ModelRequest {
            model: ctx.profile.model.clone(),
            messages: vec![ChatMessage::user(prompt)],
            tools: Vec::new(),
            think: ctx.profile.think.map(|_| false),
            temperature: Some(0.2),
            load: ctx.load,
        };
        let answer = tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => return Ok(()),
            a = crate::compaction::complete(ctx.backend.as_ref(), request) => a?,
        };
        let facts = parse_facts(&answer);
        if !facts.is_empty() {
            let n = self
                .0
                .learn(&ctx.session_id, &ctx.run_id, "worker", &facts)
                .await
                .map_err(|e| e.to_string())?;
            tracing::debug!(learned = n, offered = facts.len(), "memory worker");
        }
        Ok(())
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
