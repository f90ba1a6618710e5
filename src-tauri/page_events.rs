//! What the shell tells the page on its own, outside a command's answer
//! and a run's events: today, that a click on a desktop notice asks for
//! the session the notice is about.
//!
//! The page hands the shell one channel when it starts (`page_events`);
//! a reload forgets the old one as the new page starts loading, and the
//! new page hands its own. An event sent while no page listens (a click
//! while the page is still loading) waits for it: only the last, since
//! each says where to be now. Plugin events
//! (`listen`) are not granted to the page, so this goes through one of
//! our own commands.

use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::Serialize;
use specta::Type;
use tauri::ipc::Channel;

/// An event for the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PageEvent {
    /// Show this session: a notice about it was clicked.
    OpenSession {
        /// The session (a sub-agent's notice names its parent's).
        session_id: String,
    },
}

/// Where page events go.
#[derive(Default)]
pub struct PageEvents(Mutex<Inner>);

#[derive(Default)]
struct Inner {
    channel: Option<Channel<PageEvent>>,
    waiting: Option<PageEvent>,
}

impl PageEvents {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Send events to `channel` from now on, the one waiting first.
    pub fn listen(&self, channel: Channel<PageEvent>) {
        let mut inner = self.inner();
        if let Some(event) = inner.waiting.take() {
            deliver(&channel, event, &mut inner.waiting);
        }
        inner.channel = Some(channel);
    }

    /// The page is going (a reload): events wait for the next one.
    /// Sending on the old channel would not fail, and would be lost.
    pub fn forget(&self) {
        self.inner().channel = None;
    }

    /// Tell the page `event`, now or once it listens.
    pub fn send(&self, event: PageEvent) {
        let mut inner = self.inner();
        let Inner { channel, waiting } = &mut *inner;
        match channel {
            Some(c) => deliver(c, event, waiting),
            None => *waiting = Some(event),
        }
    }
}

/// Send `event` on `channel`; kept in `waiting` when the page is gone.
fn deliver(channel: &Channel<PageEvent>, event: PageEvent, waiting: &mut Option<PageEvent>) {
    tracing::debug!("to the page: {event:?}");
    if let Err(e) = channel.send(event.clone()) {
        tracing::warn!("the page did not take {event:?}: {e}");
        *waiting = Some(event);
    }
}
