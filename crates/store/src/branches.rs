//! Branches of a session: edit-and-resend and regenerate move the session's
//! head (`sessions.head_id`) instead of rewriting anything, so every earlier
//! branch stays stored and reachable by message id. Owns no table; reads
//! `messages`, moves `sessions.head_id`, and refuses to move it under a run
//! that is still writing.

use hearth_core::StoredMessage;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::error::StoreError;
use crate::messages;
use crate::store::Store;
use crate::{recovery, runs};

impl From<messages::Stored> for StoredMessage {
    fn from(s: messages::Stored) -> Self {
        Self {
            id: s.id,
            parent_id: s.parent_id,
            run_id: s.run_id,
            message: s.message,
            created_at: s.created_at,
        }
    }
}

/// The session and parent of a message; [`StoreError::NoMessage`] when it
/// does not exist.
fn locate(conn: &Connection, message_id: i64) -> Result<(String, Option<i64>), StoreError> {
    conn.query_row(
        "SELECT session_id, parent_id FROM messages WHERE id = ?1",
        [message_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .optional()?
    .ok_or(StoreError::NoMessage(message_id))
}

/// The parent of `message_id`, after checking that it is in `session_id`.
fn parent_in(
    conn: &Connection,
    session_id: &str,
    message_id: i64,
) -> Result<Option<i64>, StoreError> {
    let (owner, parent) = locate(conn, message_id)?;
    if owner != session_id {
        return Err(StoreError::NotInSession {
            message_id,
            session_id: session_id.to_owned(),
        });
    }
    Ok(parent)
}

/// `message_id` and its siblings (the children of its parent; for a first
/// message, the session's other first messages), oldest first.
pub(crate) fn siblings(conn: &Connection, message_id: i64) -> Result<Vec<i64>, StoreError> {
    let (session_id, parent) = locate(conn, message_id)?;
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM messages
         WHERE session_id = ?1 AND parent_id IS ?2
         ORDER BY id",
    )?;
    let rows = stmt.query_map(params![session_id, parent], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The newest message with no children among `message_id` and its
/// descendants.
fn newest_leaf(conn: &Connection, message_id: i64) -> Result<i64, StoreError> {
    Ok(conn.query_row(
        "WITH RECURSIVE under(id) AS (
             SELECT ?1
             UNION ALL
             SELECT m.id FROM messages m JOIN under u ON m.parent_id = u.id)
         SELECT u.id FROM under u
         WHERE NOT EXISTS (SELECT 1 FROM messages c WHERE c.parent_id = u.id)
         ORDER BY u.id DESC LIMIT 1",
        [message_id],
        |r| r.get(0),
    )?)
}

/// Repair a dead process's run in the session (so its late messages land on
/// the branch they belong to), then refuse if a run is still open: moving
/// the head under a live run would graft its next message onto another
/// branch.
fn ensure_idle(conn: &mut Connection, me: &str, session_id: &str) -> Result<(), StoreError> {
    recovery::recover(conn, me, Some(session_id))?;
    if runs::open_runs(conn, Some(session_id))?.is_empty() {
        Ok(())
    } else {
        Err(StoreError::RunInProgress(session_id.to_owned()))
    }
}

/// Point the session's head at `head` (`None`: before the first message).
fn set_head(conn: &Connection, session_id: &str, head: Option<i64>) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE sessions SET head_id = ?2 WHERE id = ?1",
        params![session_id, head],
    )?;
    Ok(())
}

impl Store {
    /// The session's current branch, oldest first, with ids, parents and
    /// times. Empty for an unknown session.
    pub async fn branch_messages(
        &self,
        session_id: &str,
    ) -> Result<Vec<StoredMessage>, StoreError> {
        let id = session_id.to_owned();
        let rows = self
            .db()
            .call(move |c| messages::branch(c, &id, None))
            .await?;
        Ok(rows.into_iter().map(StoredMessage::from).collect())
    }

    /// `message_id` and its siblings — the other answers to the same
    /// message, or the other versions of an edited one — oldest first, so a
    /// front end can show "2/3" and switch with [`Store::switch_branch`].
    /// A message never edited nor regenerated gives `[message_id]`.
    pub async fn branches_at(&self, message_id: i64) -> Result<Vec<i64>, StoreError> {
        self.db().call(move |c| siblings(c, message_id)).await
    }

    /// Every group of siblings in the session (answers to the same message,
    /// versions of an edited one), each oldest first: a front end shows
    /// "k/n" on the messages of a group without asking per message.
    pub async fn forks(&self, session_id: &str) -> Result<Vec<Vec<i64>>, StoreError> {
        let sid = session_id.to_owned();
        self.db()
            .call(move |c| {
                let mut stmt = c.prepare(
                    "SELECT parent_id, id FROM messages m
                     WHERE session_id = ?1 AND (
                         SELECT count(*) FROM messages s
                         WHERE s.session_id = m.session_id AND s.parent_id IS m.parent_id
                     ) > 1
                     ORDER BY parent_id, id",
                )?;
                let rows = stmt.query_map([sid], |r| {
                    Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, i64>(1)?))
                })?;
                let mut groups: Vec<(Option<i64>, Vec<i64>)> = Vec::new();
                for row in rows {
                    let (parent, id) = row?;
                    match groups.last_mut() {
                        Some((p, ids)) if *p == parent => ids.push(id),
                        _ => groups.push((parent, vec![id])),
                    }
                }
                Ok(groups.into_iter().map(|(_, ids)| ids).collect())
            })
            .await
    }

    /// Make the branch end at its last user message, so that it can be
    /// answered again: what followed it (an answer, a failed run's partial
    /// answer and its tool results) stays on the old branch. `false` when
    /// nothing followed it, or there is no user message (then there is
    /// nothing to answer again, and the run says so).
    pub async fn fork_before_last_answer(&self, session_id: &str) -> Result<bool, StoreError> {
        let msgs = self.branch_messages(session_id).await?;
        let after = msgs
            .iter()
            .rposition(|m| m.message.role == hearth_core::Role::User)
            .and_then(|last_user| msgs.get(last_user + 1));
        match after {
            Some(answer) => self.fork(session_id, answer.id).await.map(|()| true),
            None => Ok(false),
        }
    }

    /// Start a new branch at `at_message_id`: the head moves to its parent,
    /// so the next message appended becomes its sibling and the old branch
    /// stays stored. Edit-and-resend forks at the user message and then
    /// appends the edited text; regenerate forks at the answer and runs the
    /// model again.
    ///
    /// Errors: [`StoreError::NoMessage`], [`StoreError::NotInSession`], and
    /// [`StoreError::RunInProgress`] while an answer is still being written.
    pub async fn fork(&self, session_id: &str, at_message_id: i64) -> Result<(), StoreError> {
        let (sid, me) = (session_id.to_owned(), self.instance().to_owned());
        self.db()
            .call(move |c| {
                ensure_idle(c, &me, &sid)?;
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let parent = parent_in(&tx, &sid, at_message_id)?;
                set_head(&tx, &sid, parent)?;
                tx.commit()?;
                Ok(())
            })
            .await
    }

    /// Make the branch through `message_id` current: the head moves to the
    /// newest message that has no children among `message_id` and its
    /// descendants (`message_id` itself when it is a tip). Returns the new
    /// head. Any message of the session works, from any branch — a
    /// [`crate::SearchHit`], a sibling from [`Store::branches_at`].
    ///
    /// Errors as for [`Store::fork`].
    pub async fn switch_branch(
        &self,
        session_id: &str,
        message_id: i64,
    ) -> Result<i64, StoreError> {
        let (sid, me) = (session_id.to_owned(), self.instance().to_owned());
        self.db()
            .call(move |c| {
                ensure_idle(c, &me, &sid)?;
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                parent_in(&tx, &sid, message_id)?;
                let leaf = newest_leaf(&tx, message_id)?;
                set_head(&tx, &sid, Some(leaf))?;
                tx.commit()?;
                Ok(leaf)
            })
            .await
    }
}
