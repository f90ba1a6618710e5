//! The title worker: after a session's first answer, the model names the
//! session (same model, same load options: no reload). Runs after the
//! answer, never beside it; a new turn cancels it and it tries again after
//! the next answer while the session has no title.

use async_trait::async_trait;
use hearth_protocol::EventKind;

use crate::message::Role;
use crate::side::{Side, TITLE_MAX_TOKENS, TITLE_PROMPT, side_request};
use crate::workers::{PostTurnWorker, WorkerContext, WorkerError};

/// Names untitled sessions.
pub struct TitleWorker;

/// A clean title from a model's answer: first non-empty line, without
/// quotes, markdown or a "Title:" prefix, at most 60 characters.
pub fn clean_title(answer: &str) -> Option<String> {
    let line = answer.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line.trim_start_matches('#').trim();
    let line = line
        .strip_prefix("Title:")
        .or_else(|| line.strip_prefix("title:"))
        .unwrap_or(line)
        .trim();
    let line = line.trim_matches(|c: char| matches!(c, '"' | '\'' | '*' | '`' | '“' | '”' | '.'));
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut title = words.join(" ");
    if title.chars().count() > 60 {
        title = title.chars().take(59).collect::<String>() + "…";
    }
    (!title.is_empty()).then_some(title)
}

#[async_trait]
impl PostTurnWorker for TitleWorker {
    fn name(&self) -> &'static str {
        "title"
    }

    async fn run(&self, ctx: &WorkerContext) -> Result<(), WorkerError> {
        match ctx.store.title(&ctx.session_id).await? {
            Some(t) if t.is_empty() => {}
            _ => return Ok(()),
        }
        let first_user = ctx.history.iter().find(|m| m.role == Role::User);
        let first_answer = ctx
            .history
            .iter()
            .find(|m| m.role == Role::Assistant && !m.content.is_empty());
        let (Some(q), Some(a)) = (first_user, first_answer) else {
            return Ok(());
        };
        // The conversation is the prefix and the question is asked after
        // it; where it does not fit, the question quotes its start.
        let prefix = ctx.prefix_for(TITLE_PROMPT, TITLE_MAX_TOKENS);
        let instruction = if prefix.messages.is_empty() {
            let quote =
                |m: &crate::message::ChatMessage| m.content.chars().take(1500).collect::<String>();
            format!(
                "{TITLE_PROMPT}\n\nUser: {}\nAssistant: {}",
                quote(q),
                quote(a)
            )
        } else {
            TITLE_PROMPT.to_owned()
        };
        let request = side_request(
            &ctx.profile,
            ctx.load,
            &prefix,
            instruction,
            0.3,
            TITLE_MAX_TOKENS,
        );
        let side = Side {
            backend: ctx.backend.as_ref(),
            store: ctx.store.as_ref(),
            run_id: &ctx.run_id,
            cancel: &ctx.cancel,
        };
        let Some(answer) = side.ask("title", request).await? else {
            return Ok(());
        };
        if let Some(title) = clean_title(&answer) {
            ctx.store
                .set_generated_title(&ctx.session_id, &title)
                .await?;
            // Unless the user named it meanwhile, front ends show it now.
            if ctx.store.title(&ctx.session_id).await?.as_deref() == Some(title.as_str()) {
                ctx.events.emit(EventKind::SessionTitled { title });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::clean_title;

    #[test]
    fn titles_are_cleaned() {
        assert_eq!(
            clean_title("\"Planning a Trip to Kyoto.\"\nmore"),
            Some("Planning a Trip to Kyoto".into())
        );
        assert_eq!(
            clean_title("## Title: **Rust   lifetimes**"),
            Some("Rust lifetimes".into())
        );
        assert_eq!(clean_title("   \n"), None);
        assert_eq!(
            clean_title(&"word ".repeat(40)).unwrap().chars().count(),
            60
        );
    }
}
