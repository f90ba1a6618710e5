//! Messages the user types while a run is going (docs/background.md §5.2): they
//! wait in a queue shared by the run and its front end, and the loop adds
//! them to the conversation at the next turn boundary — after a tool batch,
//! or after an answer, in which case the model is called again to answer
//! them. Once the run decides to end it closes the queue under the same
//! lock it last looked at it with, so a message is either sent in this run
//! or refused (the front end then starts a new run with it): never lost.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// A queued message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    /// Id the front end shows and can cancel by (`q_…`).
    pub id: String,
    /// The user's text.
    pub text: String,
}

/// Why a message could not be queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum QueueError {
    /// The run is ending or has ended: send the message as a new turn.
    #[error("the run is ending; send the message as a new turn")]
    Closed,
    /// Blank messages are not queued.
    #[error("the message is empty")]
    Empty,
}

#[derive(Debug, Default)]
struct State {
    items: VecDeque<Queued>,
    closed: bool,
}

/// The steering queue of one run. Cloning shares it.
#[derive(Debug, Clone, Default)]
pub struct SteeringQueue(Arc<Mutex<State>>);

impl SteeringQueue {
    /// Queue `text` for the next turn boundary; returns its id.
    ///
    /// # Errors
    /// [`QueueError::Closed`] once the run is ending, [`QueueError::Empty`]
    /// for blank text.
    pub fn push(&self, text: &str) -> Result<String, QueueError> {
        if text.trim().is_empty() {
            return Err(QueueError::Empty);
        }
        let mut state = self.0.lock().map_err(|_| QueueError::Closed)?;
        if state.closed {
            return Err(QueueError::Closed);
        }
        let hex = uuid::Uuid::new_v4().simple().to_string();
        let id = format!("q_{}", &hex[..12]);
        state.items.push_back(Queued {
            id: id.clone(),
            text: text.to_owned(),
        });
        Ok(id)
    }

    /// Take a queued message back before it is sent. False when it was
    /// already sent (or never queued).
    pub fn cancel(&self, id: &str) -> bool {
        let Ok(mut state) = self.0.lock() else {
            return false;
        };
        let before = state.items.len();
        state.items.retain(|q| q.id != id);
        state.items.len() != before
    }

    /// Messages still waiting, oldest first.
    pub fn pending(&self) -> Vec<Queued> {
        self.0
            .lock()
            .map(|s| s.items.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Take everything queued. With `close_if_empty`, an empty queue is
    /// closed in the same critical section: the run is about to end.
    pub(crate) fn drain(&self, close_if_empty: bool) -> Vec<Queued> {
        let Ok(mut state) = self.0.lock() else {
            return Vec::new();
        };
        if state.items.is_empty() && close_if_empty {
            state.closed = true;
        }
        state.items.drain(..).collect()
    }

    /// Refuse new messages and hand back the ones not sent (a stopped or
    /// failed run: they stay the user's to send or drop).
    pub fn close(&self) -> Vec<Queued> {
        let Ok(mut state) = self.0.lock() else {
            return Vec::new();
        };
        state.closed = true;
        state.items.drain(..).collect()
    }

    /// True once the run no longer takes messages.
    pub fn is_closed(&self) -> bool {
        self.0.lock().map(|s| s.closed).unwrap_or(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_cancel_drain_close() {
        let q = SteeringQueue::default();
        let a = q.push("first").unwrap();
        let b = q.push("second").unwrap();
        assert_eq!(q.push("  "), Err(QueueError::Empty));
        assert!(q.cancel(&a));
        assert!(!q.cancel(&a), "a message can be taken back once");
        let drained = q.drain(true);
        assert_eq!(drained.len(), 1);
        assert_eq!(drained[0].id, b);
        assert!(!q.is_closed(), "a non-empty drain keeps the queue open");
        assert!(!q.cancel(&b), "a sent message cannot be cancelled");
        assert!(q.drain(true).is_empty());
        assert!(q.is_closed());
        assert_eq!(q.push("late"), Err(QueueError::Closed));
    }

    #[test]
    fn close_returns_what_was_not_sent() {
        let q = SteeringQueue::default();
        q.push("one").unwrap();
        let left = q.close();
        assert_eq!(left.len(), 1);
        assert_eq!(q.push("two"), Err(QueueError::Closed));
    }
}
