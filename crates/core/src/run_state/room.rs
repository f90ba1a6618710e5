//! The context budget as the loop decides it (docs/background.md §2.2):
//! before a model call its prompt is measured; above 95 % of the window a
//! top-level run compacts the session once and measures again; a prompt
//! still over is refused before it is sent — but only when the count rests
//! on the server's own (a raw estimate may be far off, and the server
//! refuses rather than truncates, which the overflow path handles).

use super::{RunState, Step};
use crate::budget::{Pressure, pressure};
use crate::error::RunError;
use crate::handle::RunOutcome;

use super::Facts;

/// Why the session is compacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Room {
    /// The measured prompt is above 95 % of the window.
    Budget,
    /// The server said the prompt did not fit (one retry follows).
    Overflow,
}

/// The next call's prompt, counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Measured {
    /// Tokens, in the model's tokenizer as far as it is calibrated.
    pub(crate) tokens: usize,
    pub(crate) window: u32,
    /// The estimate rests on the server's own count of an earlier prompt.
    pub(crate) calibrated: bool,
}

/// Before a model call (the planning call included): measure the prompt,
/// make room when it is over, refuse it when room could not be made.
/// `None`: the measured prompt goes out.
pub(super) fn before_call(s: &RunState, f: &Facts<'_>) -> Option<Step> {
    let Some(m) = s.measured else {
        return Some(Step::Measure);
    };
    if pressure(m.tokens, m.window) != Pressure::Over {
        return None;
    }
    if f.top && !s.budget_compacted {
        return Some(Step::Compact(Room::Budget));
    }
    m.calibrated.then(|| {
        Step::Finish(RunOutcome::fail(RunError::ContextLimit {
            tokens: m.tokens,
            window: m.window,
        }))
    })
}

/// Compaction for `room` ended; `done`: it made room.
pub(super) fn compacted(s: &mut RunState, room: Room, done: bool) {
    match room {
        Room::Budget => {
            s.budget_compacted = true;
            // A summary changed what is sent: count it again.
            if done {
                s.measured = None;
            }
        }
        Room::Overflow if done => {
            s.overflow = None;
            s.overflow_retried = true;
            s.measured = None;
        }
        Room::Overflow => s.failure = s.overflow.take(),
    }
}
