//! The queries the front ends make of a [`Store`], and the core's
//! `SessionStore` on it (what a run reads and writes).

use async_trait::async_trait;
use hearth_core::{ChatMessage, MessageStatus, Role, SessionStore};

use crate::error::StoreError;
use crate::sessions::SessionSummary;
use crate::store::Store;
use crate::{messages, recovery, runs, sessions};

impl Store {
    /// Sessions, newest first (deleted ones left out).
    pub async fn sessions(&self) -> Result<Vec<SessionSummary>, StoreError> {
        self.db.call(|c| sessions::list(c)).await
    }

    /// Rename a session.
    pub async fn rename(&self, id: &str, title: &str) -> Result<(), StoreError> {
        let (id, title) = (id.to_owned(), title.to_owned());
        self.db
            .call(move |c| sessions::rename(c, &id, &title))
            .await
    }

    /// Delete a session (it can be restored until purged).
    pub async fn delete(&self, id: &str) -> Result<(), StoreError> {
        let id = id.to_owned();
        self.db
            .call(move |c| sessions::set_deleted(c, &id, true))
            .await
    }

    /// Undo a delete.
    pub async fn restore(&self, id: &str) -> Result<(), StoreError> {
        let id = id.to_owned();
        self.db
            .call(move |c| sessions::set_deleted(c, &id, false))
            .await
    }

    /// The last `n` messages of a session's current branch.
    pub async fn last_messages(
        &self,
        session_id: &str,
        n: u64,
    ) -> Result<Vec<ChatMessage>, StoreError> {
        let id = session_id.to_owned();
        let rows = self
            .db
            .call(move |c| messages::branch(c, &id, Some(n)))
            .await?;
        Ok(rows.into_iter().map(|s| s.message).collect())
    }

    /// The sub-agent transcripts of a session (nested ones too), oldest
    /// first.
    pub async fn subagent_transcripts(
        &self,
        session_id: &str,
    ) -> Result<Vec<hearth_core::SubagentTranscript>, StoreError> {
        let id = session_id.to_owned();
        self.db
            .call(move |c| crate::subagents::of_session(c, &id))
            .await
    }

    /// The trace of a run: its model and tool calls, in order.
    pub async fn spans(&self, run_id: &str) -> Result<Vec<crate::spans::SpanRecord>, StoreError> {
        let rid = run_id.to_owned();
        self.db.call(move |c| crate::spans::of_run(c, &rid)).await
    }

    /// What each answer of a session says about its run: the model that
    /// wrote it, the host it started on, whether a crash cut it off;
    /// oldest first.
    pub async fn answer_runs(
        &self,
        session_id: &str,
    ) -> Result<Vec<crate::runs::AnswerRun>, StoreError> {
        let sid = session_id.to_owned();
        self.db
            .call(move |c| crate::runs::answer_runs(c, &sid))
            .await
    }

    /// A run with its spans (`None` for an unknown run).
    pub async fn trace(&self, run_id: &str) -> Result<Option<crate::spans::RunTrace>, StoreError> {
        let rid = run_id.to_owned();
        self.db.call(move |c| crate::spans::trace(c, &rid)).await
    }

    /// Run SQLite's `PRAGMA integrity_check`; `"ok"` when sound.
    pub async fn integrity_check(&self) -> Result<String, StoreError> {
        self.db
            .call(|c| Ok(c.query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0))?))
            .await
    }
}

impl Store {
    /// What the session's answers showed besides their messages, by run
    /// (`(run id, events as JSON)`, in the order the runs started): the
    /// front end folds the events as it folded them live.
    pub async fn answers_shown(
        &self,
        session_id: &str,
    ) -> Result<Vec<(String, Vec<serde_json::Value>)>, StoreError> {
        let id = session_id.to_owned();
        self.db
            .call(move |c| crate::runs::shown_of_session(c, &id))
            .await
    }
}

#[async_trait]
impl SessionStore for Store {
    async fn message_files(
        &self,
        session_id: &str,
        message_id: i64,
    ) -> Result<Vec<hearth_core::Attachment>, hearth_core::StoreError> {
        let found = Store::branch_messages(self, session_id)
            .await?
            .into_iter()
            .find(|m| m.id == message_id);
        let Some(found) = found else {
            return Ok(Vec::new());
        };
        let mut message = [found.message];
        self.load_bodies(&mut message).await?;
        let [message] = message;
        Ok(message.attachments)
    }

    async fn fork(
        &self,
        session_id: &str,
        at_message_id: i64,
    ) -> Result<(), hearth_core::StoreError> {
        Ok(Store::fork(self, session_id, at_message_id).await?)
    }

    async fn fork_before_last_answer(
        &self,
        session_id: &str,
    ) -> Result<bool, hearth_core::StoreError> {
        Ok(Store::fork_before_last_answer(self, session_id).await?)
    }

    async fn history(&self, session_id: &str) -> Result<Vec<ChatMessage>, hearth_core::StoreError> {
        let id = session_id.to_owned();
        let rows = self
            .db
            .call(move |c| messages::branch(c, &id, None))
            .await?;
        let mut history: Vec<ChatMessage> = rows.into_iter().map(|s| s.message).collect();
        self.load_bodies(&mut history).await?;
        Ok(history)
    }

    /// Listed from the database alone: no file is read until one is asked
    /// for.
    async fn branch_attachments(
        &self,
        session_id: &str,
    ) -> Result<Vec<hearth_core::Attachment>, hearth_core::StoreError> {
        let id = session_id.to_owned();
        let rows = self
            .db
            .call(move |c| messages::branch(c, &id, None))
            .await?;
        Ok(rows
            .into_iter()
            .filter(|s| s.message.role == Role::User)
            .flat_map(|s| s.message.attachments)
            .collect())
    }

    async fn attachment_body(
        &self,
        sha256: &str,
    ) -> Result<Option<hearth_core::Body>, hearth_core::StoreError> {
        Ok(self.loaded_body(sha256).await?)
    }

    async fn append(
        &self,
        session_id: &str,
        run_id: &str,
        message: ChatMessage,
    ) -> Result<hearth_core::Appended, hearth_core::StoreError> {
        let (sid, rid) = (session_id.to_owned(), run_id.to_owned());
        Ok(self
            .db
            .call(move |c| {
                let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
                let stored = messages::append(&tx, &sid, &rid, message)?;
                // The final answer replaces the run's checkpoint.
                if stored.message.role == Role::Assistant {
                    tx.execute("DELETE FROM drafts WHERE run_id = ?1", [&rid])?;
                }
                // A first message after a regenerate or an edit starts a
                // branch: the UI shows its fork without reading them all.
                let siblings = crate::branches::siblings(&tx, stored.id)?;
                tx.commit()?;
                Ok(hearth_core::Appended {
                    stored: stored.into(),
                    siblings: if siblings.len() > 1 {
                        siblings
                    } else {
                        Vec::new()
                    },
                })
            })
            .await?)
    }

    async fn begin_run(
        &self,
        session_id: &str,
        run_id: &str,
    ) -> Result<(), hearth_core::StoreError> {
        let (sid, rid, me) = (
            session_id.to_owned(),
            run_id.to_owned(),
            self.instance.clone(),
        );
        self.db
            .call(move |c| {
                // A run of this session that a dead process left open is
                // repaired first, so the new turn sees a valid conversation.
                recovery::recover(c, &me, Some(&sid))?;
                // Two live runs in one session would interleave their
                // messages on one branch: the second one waits its turn.
                if !runs::open_runs(c, Some(&sid))?.is_empty() {
                    return Err(StoreError::RunInProgress(sid.clone()));
                }
                runs::begin(c, &sid, &rid, &me)
            })
            .await?;
        Ok(())
    }

    async fn describe_run(
        &self,
        run_id: &str,
        model: &str,
        host: &str,
    ) -> Result<(), hearth_core::StoreError> {
        let (rid, model, host) = (run_id.to_owned(), model.to_owned(), host.to_owned());
        self.db
            .call(move |c| runs::describe(c, &rid, &model, &host))
            .await?;
        Ok(())
    }

    async fn end_run(
        &self,
        run_id: &str,
        status: MessageStatus,
    ) -> Result<(), hearth_core::StoreError> {
        let rid = run_id.to_owned();
        self.db.call(move |c| runs::end(c, &rid, status)).await?;
        Ok(())
    }

    async fn repair_run(&self, run_id: &str) -> Result<(), hearth_core::StoreError> {
        let rid = run_id.to_owned();
        self.db.call(move |c| recovery::repair_own(c, &rid)).await?;
        Ok(())
    }

    async fn summary(
        &self,
        session_id: &str,
    ) -> Result<Option<hearth_core::Summary>, hearth_core::StoreError> {
        let id = session_id.to_owned();
        Ok(self
            .db
            .call(move |c| crate::summaries::latest(c, &id))
            .await?)
    }

    async fn add_summary(
        &self,
        session_id: &str,
        summary: &hearth_core::Summary,
        model: &str,
    ) -> Result<(), hearth_core::StoreError> {
        let (id, s, m) = (session_id.to_owned(), summary.clone(), model.to_owned());
        Ok(self
            .db
            .call(move |c| crate::summaries::add(c, &id, &s, &m))
            .await?)
    }

    async fn record_subagent(
        &self,
        transcript: &hearth_core::SubagentTranscript,
    ) -> Result<(), hearth_core::StoreError> {
        let t = transcript.clone();
        Ok(self
            .db
            .call(move |c| crate::subagents::record(c, &t))
            .await?)
    }

    async fn title(&self, session_id: &str) -> Result<Option<String>, hearth_core::StoreError> {
        let id = session_id.to_owned();
        Ok(self
            .db
            .call(move |c| crate::summaries::title(c, &id))
            .await?)
    }

    async fn set_generated_title(
        &self,
        session_id: &str,
        title: &str,
    ) -> Result<(), hearth_core::StoreError> {
        let (id, t) = (session_id.to_owned(), title.to_owned());
        Ok(self
            .db
            .call(move |c| crate::summaries::set_generated_title(c, &id, &t))
            .await?)
    }

    async fn record_answer(
        &self,
        run_id: &str,
        events: &[hearth_core::EventKind],
    ) -> Result<(), hearth_core::StoreError> {
        let json = serde_json::to_string(events).map_err(|e| {
            hearth_core::StoreError::new(hearth_core::StoreFailure::Unusable, e.to_string())
        })?;
        let rid = run_id.to_owned();
        Ok(self
            .db
            .call(move |c| crate::runs::record_shown(c, &rid, &json))
            .await?)
    }

    async fn record_span(
        &self,
        run_id: &str,
        span: &hearth_core::Span,
    ) -> Result<(), hearth_core::StoreError> {
        let (rid, s) = (run_id.to_owned(), span.clone());
        Ok(self
            .db
            .call(move |c| crate::spans::record(c, &rid, &s))
            .await?)
    }

    async fn checkpoint(
        &self,
        session_id: &str,
        run_id: &str,
        partial: &ChatMessage,
    ) -> Result<(), hearth_core::StoreError> {
        let (sid, rid, m) = (session_id.to_owned(), run_id.to_owned(), partial.clone());
        self.db
            .call(move |c| runs::checkpoint(c, &sid, &rid, &m))
            .await?;
        Ok(())
    }
}
