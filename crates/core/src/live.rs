//! The runs going on, one per session at most, owned by the core so every
//! front end has the same rules (docs/architecture.md, "Who owns a run").
//!
//! A run is adopted with its owner (the window that started it; any front
//! end names its own); the registry numbers its events (`seq`, from 1, in the order the run
//! emitted them), keeps them, and sends them to everyone following it. A
//! window that opens mid-run follows "after seq n": what it gets is the kept
//! events after n, then the live ones — taken under the same lock as the
//! numbering, so nothing is lost or seen twice. The run leaves the registry
//! at its terminal event and the session takes the next message; its
//! post-turn work goes on in the background, and what that work reports (a
//! generated title) still reaches the run's followers until it is done.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use hearth_protocol::{AgentEvent, EventKind};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::error::RunError;
use crate::handle::RunHandle;
use crate::steering::{Queued, SteeringQueue};

/// A run's events so far, numbered. Consecutive pieces of one stream
/// (answer, reasoning, plan) of one scope are joined: the log of a long
/// answer holds a handful of entries, not one per token, and a follower
/// that saw part of a joined entry gets only the rest of it.
#[derive(Debug, Default)]
pub struct RunLog {
    entries: Vec<Entry>,
    last_seq: u32,
}

#[derive(Debug)]
struct Entry {
    /// The number of the first piece joined here (the event carries the
    /// last one's).
    first: u32,
    event: AgentEvent,
    /// For a joined stream: where each piece ends in the text.
    ends: Vec<usize>,
}

fn delta_mut(kind: &mut EventKind) -> Option<&mut String> {
    match kind {
        EventKind::TextDelta { delta }
        | EventKind::ThinkingDelta { delta }
        | EventKind::PlanDelta { delta } => Some(delta),
        _ => None,
    }
}

fn same_stream(a: &EventKind, b: &EventKind) -> bool {
    matches!(
        (a, b),
        (EventKind::TextDelta { .. }, EventKind::TextDelta { .. })
            | (
                EventKind::ThinkingDelta { .. },
                EventKind::ThinkingDelta { .. }
            )
            | (EventKind::PlanDelta { .. }, EventKind::PlanDelta { .. })
    )
}

impl RunLog {
    /// Number `event` and keep it; returns it numbered.
    pub fn push(&mut self, mut event: AgentEvent) -> AgentEvent {
        self.last_seq += 1;
        event.seq = self.last_seq;
        let numbered = event.clone();
        if let Some(last) = self.entries.last_mut()
            && last.event.scope == event.scope
            && same_stream(&last.event.kind, &event.kind)
            && let (Some(text), Some(piece)) =
                (delta_mut(&mut last.event.kind), delta_mut(&mut event.kind))
        {
            text.push_str(piece);
            last.ends.push(text.len());
            last.event.seq = event.seq;
            return numbered;
        }
        let ends = delta_mut(&mut event.kind)
            .map(|d| vec![d.len()])
            .unwrap_or_default();
        self.entries.push(Entry {
            first: event.seq,
            event,
            ends,
        });
        numbered
    }

    /// The number of the last event kept (0 before the first).
    pub fn last_seq(&self) -> u32 {
        self.last_seq
    }

    /// Every event after `seq`, joined as kept; an entry that `seq` falls
    /// inside is cut to the pieces after it.
    pub fn after(&self, seq: u32) -> Vec<AgentEvent> {
        let start = self.entries.partition_point(|e| e.event.seq <= seq);
        let mut out: Vec<AgentEvent> = self.entries[start..]
            .iter()
            .map(|e| e.event.clone())
            .collect();
        if let (Some(entry), Some(first)) = (self.entries.get(start), out.first_mut())
            && entry.first <= seq
        {
            let seen = (seq - entry.first) as usize;
            if let (Some(text), Some(&cut)) = (delta_mut(&mut first.kind), entry.ends.get(seen)) {
                text.drain(..cut);
            }
        }
        out
    }
}

/// One live run.
struct Live {
    run_id: String,
    owner: String,
    stop: CancellationToken,
    steering: SteeringQueue,
    prompt: Option<String>,
    log: RunLog,
    followers: Vec<UnboundedSender<AgentEvent>>,
}

/// A follower's view of a live run: what it missed, then the live events.
pub struct Following {
    /// The run.
    pub run_id: String,
    /// The user message that started it (`None` for a regenerate).
    pub prompt: Option<String>,
    /// Stops the run (what `Runs::stop` cancels): a follower that owns a
    /// terminal ties Ctrl-C to it before it asks anything.
    pub stop: CancellationToken,
    /// Messages queued and not yet sent.
    pub queued: Vec<Queued>,
    /// The events after the number asked for, joined as kept.
    pub missed: Vec<AgentEvent>,
    /// Every later event, numbered; ends when the run's task has (after the
    /// terminal event only what its post-turn work reports, such as a
    /// `session_titled`).
    pub events: UnboundedReceiver<AgentEvent>,
    /// For the owner who adopted the run: resolves once the run's task has
    /// ended, its post-turn workers (title, memory, compaction) included —
    /// what a process about to exit waits for. `None` for other followers.
    pub settled: Option<oneshot::Receiver<()>>,
}

/// The live runs, by session.
#[derive(Default, Clone)]
pub struct LiveRuns(Arc<Mutex<HashMap<String, Live>>>);

impl LiveRuns {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Live>> {
        // A panic while holding the lock leaves plain data behind; the
        // table stays usable.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Take over a started run for `owner`, who follows it from its first
    /// event. The check that the session is free and the insert happen
    /// under one lock: of two runs racing in one session, the second is
    /// stopped at once and refused.
    pub fn adopt(
        &self,
        mut handle: RunHandle,
        prompt: Option<String>,
        owner: &str,
    ) -> Result<Following, RunError> {
        let (tx, rx) = unbounded_channel();
        let session_id = handle.session_id.clone();
        let run_id = handle.run_id.clone();
        let stop = handle.stop_token();
        {
            let mut runs = self.lock();
            if runs.contains_key(&session_id) {
                handle.stop();
                return Err(RunError::SessionBusy);
            }
            runs.insert(
                session_id.clone(),
                Live {
                    run_id: run_id.clone(),
                    owner: owner.to_owned(),
                    stop: handle.stop_token(),
                    steering: handle.steering(),
                    prompt: prompt.clone(),
                    log: RunLog::default(),
                    followers: vec![tx],
                },
            );
        }
        let runs = self.clone();
        let (sid, rid) = (session_id, run_id.clone());
        let (settle, settled) = oneshot::channel();
        tokio::spawn(async move {
            // Ends when the run's task has: after the terminal event, its
            // post-turn workers still hold the sink. The session is free from
            // the terminal event on; what the workers report (a title) still
            // reaches the run's followers, numbered on.
            let mut ended: Option<Live> = None;
            while let Some(event) = handle.next_event().await {
                if let Some(live) = &mut ended {
                    let numbered = live.log.push(event);
                    live.followers.retain(|f| f.send(numbered.clone()).is_ok());
                    continue;
                }
                let terminal = event.kind.is_terminal() && !event.scope.is_subagent;
                runs.publish(&sid, &rid, event);
                if terminal {
                    ended = runs.take(&sid, &rid);
                }
            }
            runs.take(&sid, &rid);
            let _ = settle.send(());
        });
        Ok(Following {
            run_id,
            prompt,
            stop,
            queued: Vec::new(),
            missed: Vec::new(),
            events: rx,
            settled: Some(settled),
        })
    }

    /// Number, keep and send one event of a run.
    fn publish(&self, session_id: &str, run_id: &str, event: AgentEvent) {
        let mut runs = self.lock();
        let Some(live) = runs.get_mut(session_id).filter(|l| l.run_id == run_id) else {
            return;
        };
        let numbered = live.log.push(event);
        // A follower that went away is dropped; the run goes on.
        live.followers.retain(|f| f.send(numbered.clone()).is_ok());
    }

    /// Take the run out of the registry (the session is free again).
    fn take(&self, session_id: &str, run_id: &str) -> Option<Live> {
        let mut runs = self.lock();
        if runs.get(session_id).is_some_and(|r| r.run_id == run_id) {
            return runs.remove(session_id);
        }
        None
    }

    /// Follow the session's live run from after event `after` (0: from the
    /// start). `None` when no run is going.
    pub fn follow(&self, session_id: &str, after: u32) -> Option<Following> {
        self.look(session_id, after, true)
    }

    /// The session's live run as it stands, without following it (its
    /// `events` receiver is already closed). `None` when no run is going.
    pub fn snapshot(&self, session_id: &str) -> Option<Following> {
        self.look(session_id, 0, false)
    }

    fn look(&self, session_id: &str, after: u32, follow: bool) -> Option<Following> {
        let mut runs = self.lock();
        let live = runs.get_mut(session_id)?;
        let (tx, rx) = unbounded_channel();
        if follow {
            live.followers.push(tx);
        }
        Some(Following {
            run_id: live.run_id.clone(),
            prompt: live.prompt.clone(),
            stop: live.stop.clone(),
            queued: live.steering.pending(),
            missed: live.log.after(after),
            events: rx,
            settled: None,
        })
    }

    /// True when `session_id` has a run going.
    pub fn is_live(&self, session_id: &str) -> bool {
        self.lock().contains_key(session_id)
    }

    /// Refuse a second run in a session, with words that say what to do
    /// (the store refuses it too, later: this says it before anything is
    /// kept or a branch moved).
    pub fn ensure_idle(&self, session_id: &str) -> Result<(), RunError> {
        if self.is_live(session_id) {
            // Not `SessionBusy` (recovery: retry): the page would offer
            // Retry, which answers the previous message again.
            return Err(RunError::RunGoing);
        }
        Ok(())
    }

    /// Sessions with a run going.
    pub fn sessions(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// Stop a run by id. False when no such run is going.
    pub fn stop(&self, run_id: &str) -> bool {
        let runs = self.lock();
        let found = runs.values().find(|r| r.run_id == run_id);
        if let Some(r) = found {
            r.stop.cancel();
        }
        found.is_some()
    }

    /// Stop every run `owner` started (its page reloaded, its window
    /// closed). Returns how many.
    pub fn stop_owned_by(&self, owner: &str) -> usize {
        let runs = self.lock();
        let owned: Vec<_> = runs.values().filter(|r| r.owner == owner).collect();
        for r in &owned {
            r.stop.cancel();
        }
        owned.len()
    }

    /// Stop every run (the app is quitting).
    pub fn stop_all(&self) {
        for r in self.lock().values() {
            r.stop.cancel();
        }
    }

    /// The steering queue of the session's live run.
    pub fn steering(&self, session_id: &str) -> Option<SteeringQueue> {
        self.lock().get(session_id).map(|r| r.steering.clone())
    }
}

#[cfg(test)]
#[path = "live_tests.rs"]
mod tests;
