//! The runs going on, one per session at most. A run belongs to the
//! webview that started it: it keeps going while the user looks at another
//! session (its events are logged here and replayed when they come back),
//! and it is stopped when that page reloads or its window closes — a
//! channel send to a reloaded page does not fail, so the page and window
//! events are watched instead (see `lib.rs`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hearth_core::{RunHandle, SteeringQueue};
use hearth_protocol::{AgentEvent, ErrorInfo, EventKind};
use tauri::ipc::Channel;
use tokio_util::sync::CancellationToken;

use crate::state::{internal, invalid};
use crate::views::{LiveRunView, QueuedView};

/// One live run.
struct LiveRun {
    run_id: String,
    webview: String,
    stop: CancellationToken,
    steering: SteeringQueue,
    prompt: Option<String>,
    events: Arc<Mutex<Vec<AgentEvent>>>,
}

/// Add `event` to a run's replay log. Consecutive pieces of one stream
/// (answer, reasoning, plan) of one scope join into one event: the log of
/// a long answer holds a handful of events, not one per token, and a
/// replay reads the same.
fn log_event(log: &mut Vec<AgentEvent>, event: AgentEvent) {
    if let Some(last) = log.last_mut()
        && last.scope == event.scope
    {
        match (&mut last.kind, &event.kind) {
            (EventKind::TextDelta { delta: a }, EventKind::TextDelta { delta: b })
            | (EventKind::ThinkingDelta { delta: a }, EventKind::ThinkingDelta { delta: b })
            | (EventKind::PlanDelta { delta: a }, EventKind::PlanDelta { delta: b }) => {
                a.push_str(b);
                return;
            }
            _ => {}
        }
    }
    log.push(event);
}

/// The live runs, by session.
#[derive(Default, Clone)]
pub struct LiveRuns(Arc<Mutex<HashMap<String, LiveRun>>>);

impl LiveRuns {
    /// True when `session_id` has a run going.
    pub fn is_live(&self, session_id: &str) -> bool {
        self.0.lock().is_ok_and(|m| m.contains_key(session_id))
    }

    /// Sessions with a run going.
    pub fn sessions(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Take over a started run: log and forward its events to `channel`
    /// until its terminal event, when it stops being live. The check that
    /// the session is free and the insert happen under one lock: of two
    /// sends racing, the second run is stopped at once and refused.
    pub fn adopt(
        &self,
        mut handle: RunHandle,
        prompt: Option<String>,
        webview: &str,
        channel: Channel<AgentEvent>,
    ) -> Result<String, ErrorInfo> {
        let run_id = handle.run_id.clone();
        let session_id = handle.session_id.clone();
        let events = Arc::new(Mutex::new(Vec::new()));
        let live = LiveRun {
            run_id: run_id.clone(),
            webview: webview.to_owned(),
            stop: handle.stop_token(),
            steering: handle.steering(),
            prompt,
            events: events.clone(),
        };
        {
            let Ok(mut m) = self.0.lock() else {
                handle.stop();
                return Err(internal("the run table is poisoned"));
            };
            if m.contains_key(&session_id) {
                handle.stop();
                return Err(invalid(
                    "an answer is still being written in this session: stop it, or type your message to queue it",
                ));
            }
            m.insert(session_id.clone(), live);
        }
        let runs = self.clone();
        let rid = run_id.clone();
        tauri::async_runtime::spawn(async move {
            while let Some(event) = handle.next_event().await {
                let terminal = event.kind.is_terminal() && !event.scope.is_subagent;
                if let Ok(mut log) = events.lock() {
                    log_event(&mut log, event.clone());
                }
                // The page may be gone (closed window): the run is stopped
                // by the window watcher, not by this send failing.
                if let Err(e) = channel.send(event) {
                    tracing::debug!("run {rid}: event not delivered: {e}");
                }
                if terminal {
                    // Post-turn workers (title, memory) go on in the
                    // background; the session is free for the next turn.
                    runs.remove(&session_id, &rid);
                }
            }
            runs.remove(&session_id, &rid);
        });
        Ok(run_id)
    }

    /// Stop every run (the app is quitting).
    pub fn stop_all(&self) {
        if let Ok(m) = self.0.lock() {
            for r in m.values() {
                r.stop.cancel();
            }
        }
    }

    fn remove(&self, session_id: &str, run_id: &str) {
        if let Ok(mut m) = self.0.lock()
            && m.get(session_id).is_some_and(|r| r.run_id == run_id)
        {
            m.remove(session_id);
        }
    }

    /// Stop a run by id. False when no such run is going.
    pub fn stop(&self, run_id: &str) -> bool {
        let Ok(m) = self.0.lock() else {
            return false;
        };
        match m.values().find(|r| r.run_id == run_id) {
            Some(r) => {
                r.stop.cancel();
                true
            }
            None => false,
        }
    }

    /// Stop every run started from `webview` (its page reloaded or its
    /// window closed). Returns how many.
    pub fn stop_owned_by(&self, webview: &str) -> usize {
        let Ok(m) = self.0.lock() else {
            return 0;
        };
        let mut n = 0;
        for r in m.values().filter(|r| r.webview == webview) {
            r.stop.cancel();
            n += 1;
        }
        n
    }

    /// The steering queue of the session's live run.
    pub fn steering(&self, session_id: &str) -> Option<SteeringQueue> {
        self.0
            .lock()
            .ok()?
            .get(session_id)
            .map(|r| r.steering.clone())
    }

    /// What a UI coming back to the session needs to show its live run.
    pub fn view(&self, session_id: &str) -> Option<LiveRunView> {
        let m = self.0.lock().ok()?;
        let r = m.get(session_id)?;
        let events = r.events.lock().map(|e| e.clone()).unwrap_or_default();
        Some(LiveRunView {
            run_id: r.run_id.clone(),
            prompt: r.prompt.clone(),
            events,
            queued: r
                .steering
                .pending()
                .into_iter()
                .map(|q| QueuedView {
                    queue_id: q.id,
                    text: q.text,
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    //! Live runs against hearth-sim through the real agent and store: what
    //! the chat commands do, without a window.

    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use hearth_protocol::{AgentEvent, EventKind};
    use hearth_sim::{ModelSpec, Reply, Script, Sim, SimHandle};
    use tauri::ipc::{Channel, InvokeResponseBody};

    use crate::state::AppState;

    type Seen = Arc<Mutex<Vec<AgentEvent>>>;

    fn channel() -> (Channel<AgentEvent>, Seen) {
        let seen: Seen = Arc::default();
        let sink = seen.clone();
        let channel = Channel::new(move |body| {
            if let InvokeResponseBody::Json(json) = body {
                sink.lock()
                    .unwrap()
                    .push(serde_json::from_str(&json).unwrap());
            }
            Ok(())
        });
        (channel, seen)
    }

    /// Polls `check` every 10 ms; the 20 s bound only ends a hang.
    async fn until(what: &str, mut check: impl FnMut() -> bool) {
        for _ in 0..2000 {
            if check() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("timed out waiting for {what}");
    }

    fn terminal(seen: &Seen) -> Option<EventKind> {
        seen.lock()
            .unwrap()
            .iter()
            .rev()
            .find(|e| e.kind.is_terminal() && !e.scope.is_subagent)
            .map(|e| e.kind.clone())
    }

    async fn setup(replies: Vec<Reply>) -> (SimHandle, AppState, tempfile::TempDir) {
        // The seeded profiles use `llama3.2` (no tag).
        let mut script = Script::with_models(vec![
            ModelSpec::new("llama3.2").with_capabilities(&["completion", "tools"]),
        ]);
        for r in replies {
            script = script.with_reply(r);
        }
        let sim = Sim::start(script).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let state = AppState::open(dir.path().join("h.sqlite"), &sim.url(), false)
            .await
            .unwrap();
        (sim, state, dir)
    }

    #[test]
    fn the_replay_log_joins_the_pieces_of_a_stream() {
        use hearth_protocol::RunScope;
        let scope = RunScope::top("s", "r");
        let ev = |kind: EventKind| AgentEvent {
            scope: scope.clone(),
            kind,
        };
        let mut log = Vec::new();
        for i in 0..10_000 {
            super::log_event(
                &mut log,
                ev(EventKind::TextDelta {
                    delta: format!("{i} "),
                }),
            );
        }
        super::log_event(
            &mut log,
            ev(EventKind::ThinkingDelta { delta: "hm".into() }),
        );
        super::log_event(
            &mut log,
            ev(EventKind::TextDelta {
                delta: "end".into(),
            }),
        );
        assert_eq!(log.len(), 3);
        let EventKind::TextDelta { delta } = &log[0].kind else {
            panic!("{:?}", log[0])
        };
        assert!(delta.starts_with("0 1 2 ") && delta.ends_with("9999 "));
    }

    fn slow(text: &str) -> Reply {
        let mut r = Reply::text(text);
        r.token_ms = Some(40);
        r
    }

    #[tokio::test]
    async fn a_reload_stops_the_pages_runs_and_the_model_stays_loaded() {
        let (sim, state, _dir) = setup(vec![slow(&"word ".repeat(200))]).await;
        let agent = state.backend().unwrap().agent;
        let (ch, seen) = channel();
        let run = state
            .runs
            .adopt(agent.run_stream("s1", "hi"), Some("hi".into()), "main", ch)
            .unwrap();
        until("text", || {
            seen.lock()
                .unwrap()
                .iter()
                .any(|e| matches!(e.kind, EventKind::TextDelta { .. }))
        })
        .await;
        assert!(state.runs.is_live("s1"));
        // Coming back to the session replays what was streamed so far.
        let view = state.runs.view("s1").unwrap();
        assert_eq!(view.run_id, run);
        assert_eq!(view.prompt.as_deref(), Some("hi"));
        assert!(view.events.len() >= 2);
        // Another webview's reload does not touch it; its own does.
        assert_eq!(state.runs.stop_owned_by("other"), 0);
        assert_eq!(state.runs.stop_owned_by("main"), 1);
        until("the stop", || terminal(&seen).is_some()).await;
        assert!(matches!(
            terminal(&seen),
            Some(EventKind::StreamStopped { .. })
        ));
        until("the run to leave", || !state.runs.is_live("s1")).await;
        let stats = sim.stats();
        assert_eq!((stats.unloads, stats.cancelled), (0, 1));
        assert!(stats.loaded.iter().any(|m| m == "llama3.2"), "{stats:?}");
    }

    #[tokio::test]
    async fn a_queued_message_is_answered_in_the_same_run_and_a_late_one_is_refused() {
        let (sim, state, _dir) =
            setup(vec![slow("first answer here"), Reply::text("second")]).await;
        let agent = state.backend().unwrap().agent;
        let (ch, seen) = channel();
        state
            .runs
            .adopt(agent.run_stream("s1", "hi"), Some("hi".into()), "main", ch)
            .unwrap();
        // A second run in the same session is refused (and stopped).
        let (ch2, _) = channel();
        let second = state
            .runs
            .adopt(agent.run_stream("s1", "again"), None, "main", ch2);
        assert!(second.is_err());
        let queue = state.runs.steering("s1").unwrap();
        let id = queue.push("and this").unwrap();
        until("the end", || terminal(&seen).is_some()).await;
        let events = seen.lock().unwrap().clone();
        assert!(events.iter().any(|e| matches!(
            &e.kind,
            EventKind::QueuedMessageSent { queue_id, .. } if *queue_id == id
        )));
        assert!(matches!(
            terminal(&seen),
            Some(EventKind::StreamEnd { iterations: 2 })
        ));
        until("the run to leave", || !state.runs.is_live("s1")).await;
        assert!(state.runs.steering("s1").is_none());
        let bodies = sim.chat_bodies();
        let last = bodies
            .iter()
            .rev()
            .find(|b| b["messages"].as_array().is_some_and(|m| m.len() >= 4))
            .unwrap();
        assert_eq!(
            last["messages"].as_array().unwrap().last().unwrap()["content"],
            "and this"
        );
    }
}
