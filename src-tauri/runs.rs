//! The app's side of the live runs: the core's façade over them
//! ([`hearth_core::Runs`]: what a message starts, one run per session, its
//! owner, numbered events, late followers, steering, approvals) with each
//! follower's events sent to a page's `Channel`. A run belongs to the webview that started it: it keeps going
//! while the user looks at another session, and it is stopped when that
//! page reloads or its window closes — a channel send to a reloaded page
//! does not fail, so the page and window events are watched instead (see
//! `lib.rs`). A page that comes back to a session follows its run from the
//! last event number it saw. The run's first follower also shows the
//! system notifications its events call for (`notices.rs`).

use hearth_core::voice::AnswerReader;
use hearth_core::{Following, Runs};
use hearth_protocol::AgentEvent;
use tauri::ipc::Channel;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::notices::{Notices, Watch};
use crate::views::{LiveRunView, QueuedView};

/// The live runs, by session, and where their notices go.
#[derive(Clone)]
pub struct LiveRuns {
    runs: Runs,
    notices: Notices,
}

/// What a page needs to show a run it follows, and the run's later events.
fn split(following: Following) -> (LiveRunView, UnboundedReceiver<AgentEvent>) {
    let queued = following.queued.into_iter();
    let view = LiveRunView {
        run_id: following.run_id,
        prompt: following.prompt,
        events: following.missed,
        queued: queued
            .map(|q| QueuedView {
                queue_id: q.id,
                text: q.text,
            })
            .collect(),
    };
    (view, following.events)
}

/// Send a followed run's events to a page's `channel`: those it missed
/// first, then the live ones, in one task so their order holds; `watch`
/// sees each of them too (for the run's first follower only, so a notice
/// is shown once however many pages follow).
fn attach(
    following: Following,
    channel: Channel<AgentEvent>,
    mut watch: Option<Watch>,
    mut reading: Option<AnswerReader>,
) -> LiveRunView {
    let (view, mut events) = split(following);
    let rid = view.run_id.clone();
    let missed = view.events.clone();
    tauri::async_runtime::spawn(async move {
        let mut missed = missed.into_iter();
        while let Some(event) = match missed.next() {
            Some(e) => Some(e),
            None => events.recv().await,
        } {
            let updates = watch
                .as_mut()
                .map(|w| w.updates(&event))
                .unwrap_or_default();
            // Read aloud as it streams (queued: never holds up the page).
            if let Some(r) = &mut reading {
                r.read(&event);
            }
            // The page may be gone (closed window): the run is stopped by
            // the window watcher, not by this send failing.
            if let Err(e) = channel.send(event) {
                tracing::debug!("run {rid}: event not delivered: {e}");
            }
            // The page first, the notification after.
            if let Some(w) = &watch {
                for u in updates {
                    w.apply(u);
                }
            }
        }
    });
    view
}

impl LiveRuns {
    /// Over the core's [`Runs`] (built with the approvals the app's agents
    /// share).
    pub fn new(runs: Runs) -> Self {
        Self {
            runs,
            notices: Notices::default(),
        }
    }

    /// What the commands do to runs (send, answer again, edit, stop,
    /// queue, approve, answer a plan): the core decides and refuses.
    pub fn ops(&self) -> &Runs {
        &self.runs
    }

    /// The run a command started in `session_id` (`following`, its first
    /// follower the page that asked), its events going to `channel` and
    /// the notices they call for shown; the run's id.
    /// `reading`: the answer is read aloud as it streams.
    pub fn show(
        &self,
        session_id: &str,
        following: Following,
        channel: Channel<AgentEvent>,
        reading: Option<AnswerReader>,
    ) -> String {
        let watch = self
            .notices
            .watch(session_id.to_owned(), following.prompt.clone());
        attach(following, channel, Some(watch), reading).run_id
    }

    /// True when `session_id` has a run going.
    pub fn is_live(&self, session_id: &str) -> bool {
        self.runs.live().is_live(session_id)
    }

    /// Sessions with a run going.
    pub fn sessions(&self) -> Vec<String> {
        self.runs.live().sessions()
    }

    /// Stop every run `owner` (a webview) started; how many.
    pub fn stop_owned_by(&self, owner: &str) -> usize {
        self.runs.live().stop_owned_by(owner)
    }

    /// Stop every run (the app is quitting).
    pub fn stop_all(&self) {
        self.runs.live().stop_all();
    }

    /// Follow the session's run from after event `after`: the events
    /// after it, then the live ones, go to `channel`. False when no run is
    /// going.
    pub fn follow(&self, session_id: &str, after: u32, channel: Channel<AgentEvent>) -> bool {
        self.runs
            .follow(session_id, after)
            .map(|f| attach(f, channel, None, None))
            .is_some()
    }

    /// The session's live run as it stands (its events so far), for a page
    /// that opens the session; it follows the rest with `follow`.
    pub fn view(&self, session_id: &str) -> Option<LiveRunView> {
        Some(split(self.runs.live().snapshot(session_id)?).0)
    }

    /// Where the runs' notices go (set once by the shell).
    pub fn notices(&self) -> &Notices {
        &self.notices
    }
}

#[cfg(test)]
mod tests {
    //! Live runs against hearth-sim through the real agent and store: what
    //! the chat commands do, without a window.

    use crate::test_support::until;
    use std::sync::{Arc, Mutex};

    use hearth_protocol::{AgentEvent, ErrorCode, EventKind, Recovery};
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
        setup_with(vec![seed_model()], replies).await
    }

    fn seed_model() -> ModelSpec {
        ModelSpec::new("llama3.2").with_capabilities(&["completion", "tools"])
    }

    async fn setup_with(
        models: Vec<ModelSpec>,
        replies: Vec<Reply>,
    ) -> (SimHandle, AppState, tempfile::TempDir) {
        let mut script = Script::with_models(models);
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

    /// Sends `text` in session s1 from the main window through the
    /// commands' way in, its events to `ch`; the run id.
    async fn send(
        state: &AppState,
        agent: &Arc<hearth_core::Agent>,
        text: &str,
        ch: Channel<AgentEvent>,
    ) -> Result<String, hearth_protocol::ErrorInfo> {
        let following = state
            .runs
            .ops()
            .send(
                "s1",
                hearth_core::UserInput::text(text),
                "main",
                async || Ok::<_, hearth_protocol::ErrorInfo>(agent.clone()),
            )
            .await?;
        Ok(state.runs.show("s1", following, ch, None))
    }

    /// Sends "hi" in session s1 from the main window and waits for the
    /// run's end; its events.
    async fn answer(state: &AppState, agent: &Arc<hearth_core::Agent>) -> Seen {
        let (ch, seen) = channel();
        send(state, agent, "hi", ch).await.unwrap();
        until("the end", || terminal(&seen).is_some()).await;
        seen
    }

    /// A text-to-speech server that records what it is asked.
    #[derive(Default)]
    struct Speaker(Mutex<Vec<String>>);

    #[async_trait::async_trait]
    impl hearth_core::voice::SpeechServer for Speaker {
        async fn call(
            &self,
            tool: &str,
            arguments: serde_json::Value,
        ) -> Result<String, hearth_core::voice::SpeechError> {
            let mut said = self.0.lock().unwrap();
            match tool {
                "tts_speak" => {
                    said.push(arguments["text"].as_str().unwrap_or("").to_owned());
                    Ok(format!("{{\"id\": {}}}", said.len()))
                }
                "tts_stop" => {
                    said.push("(stop)".into());
                    Ok("{}".into())
                }
                _ => Ok(r#"{"state": "idle"}"#.into()),
            }
        }
    }

    /// A run shown with a reader has its answer read as it streams: the
    /// top-level answer's sentences, in order, its code summed up.
    #[tokio::test]
    async fn a_run_read_aloud_sends_its_sentences_in_order() {
        let answer = "**First** sentence here. Second one follows.\n\n```rs\nlet x = 1;\n```\n";
        let (_sim, state, _dir) = setup(vec![Reply::text(answer)]).await;
        let agent = state.backend().unwrap().agent;
        let speaker = Arc::new(Speaker::default());
        let aloud = hearth_core::voice::Aloud::new(
            speaker.clone(),
            Arc::new(|_: &hearth_core::voice::SpeechError| {}),
        );
        let following = state
            .runs
            .ops()
            .send(
                "s1",
                hearth_core::UserInput::text("hi"),
                "main",
                async || Ok::<_, hearth_protocol::ErrorInfo>(agent.clone()),
            )
            .await
            .unwrap();
        let (ch, seen) = channel();
        state.runs.show("s1", following, ch, Some(aloud.reader()));
        until("the end", || terminal(&seen).is_some()).await;
        until("three sentences", || speaker.0.lock().unwrap().len() >= 3).await;
        assert_eq!(
            *speaker.0.lock().unwrap(),
            [
                "First sentence here.",
                "Second one follows.",
                "A code block in rs, 1 line."
            ]
        );
    }

    /// Retry after an answer broke off (the server dropped the connection
    /// mid-answer, its partial answer stored) answers the question again:
    /// before, it refused with "nothing to answer again" (user pass
    /// 2026-12, defect 2). The partial answer stays on its own branch.
    #[tokio::test]
    async fn retry_after_a_break_off_answers_the_question_again() {
        let mut cut = Reply::text("one two three four five six");
        cut.fault = Some(hearth_sim::Fault::DropAfter(2));
        let (_sim, state, _dir) = setup(vec![cut, Reply::text("A whole answer.")]).await;
        let agent = state.backend().unwrap().agent;
        let (ch, seen) = channel();
        send(&state, &agent, "hi", ch).await.unwrap();
        until("the break-off", || terminal(&seen).is_some()).await;
        assert!(
            matches!(terminal(&seen), Some(EventKind::Error { .. })),
            "{:?}",
            terminal(&seen)
        );
        until("the run to leave", || !state.runs.is_live("s1")).await;
        let before = state.store.branch_messages("s1").await.unwrap();
        assert_eq!(
            before.last().unwrap().message.role,
            hearth_core::Role::Assistant
        );

        let following = crate::commands::chat::answer_again(&state, "s1", None, "main")
            .await
            .unwrap();
        let (ch, seen) = channel();
        state.runs.show("s1", following, ch, None);
        until("the retry", || terminal(&seen).is_some()).await;
        assert!(
            matches!(terminal(&seen), Some(EventKind::StreamEnd { .. })),
            "{:?}",
            seen.lock().unwrap()
        );
        until("the retry to leave", || !state.runs.is_live("s1")).await;
        let after = state.store.branch_messages("s1").await.unwrap();
        let texts: Vec<&str> = after.iter().map(|m| m.message.content.as_str()).collect();
        assert_eq!(texts, ["hi", "A whole answer."]);
        // The broken answer is kept, on the other branch.
        assert_eq!(state.store.forks("s1").await.unwrap().len(), 1);
    }

    fn slow(text: &str) -> Reply {
        let mut r = Reply::text(text);
        r.token_ms = Some(40);
        r
    }

    #[tokio::test]
    async fn the_session_model_switches_without_the_profile_and_switching_back_never_reloads() {
        let (sim, state, _dir) = setup_with(
            vec![
                seed_model(),
                ModelSpec::new("qwen3:8b").with_capabilities(&["completion", "tools"]),
            ],
            Vec::new(),
        )
        .await;
        let agent = state.backend().unwrap().agent;
        let mut asked = Vec::new();
        for model in [None, Some("qwen3:8b"), None] {
            state.profiles.set_session_model("s1", model).await.unwrap();
            answer(&state, &agent).await;
            until("the run to leave", || !state.runs.is_live("s1")).await;
            asked.push(
                hearth_sim_last_model(&sim)
                    .unwrap_or_else(|| panic!("no chat request for {model:?}")),
            );
        }
        assert_eq!(asked, ["llama3.2", "qwen3:8b", "llama3.2"]);
        // The profile was never changed; the store says which model wrote
        // each answer.
        use hearth_core::ProfileProvider;
        assert_eq!(state.profiles.by_name("Chat").unwrap().model, "llama3.2");
        let written: Vec<String> = state
            .store
            .answer_runs("s1")
            .await
            .unwrap()
            .into_iter()
            .filter_map(|r| r.model)
            .collect();
        assert_eq!(written, ["llama3.2", "qwen3:8b", "llama3.2"]);
        // Each model loaded once: going back found llama3.2 still loaded
        // with the same options.
        let stats = sim.stats();
        assert_eq!((stats.loads_started, stats.unloads), (2, 0), "{stats:?}");
    }

    /// The model of the last `/api/chat` request that answered the user
    /// (side requests of the workers use the same model).
    fn hearth_sim_last_model(sim: &SimHandle) -> Option<String> {
        sim.chat_bodies()
            .last()
            .and_then(|b| b["model"].as_str().map(str::to_owned))
    }

    #[tokio::test]
    async fn a_reload_stops_the_pages_runs_and_the_model_stays_loaded() {
        let (sim, state, _dir) = setup(vec![slow(&"word ".repeat(200))]).await;
        let agent = state.backend().unwrap().agent;
        let (ch, seen) = channel();
        let run = send(&state, &agent, "hi", ch).await.unwrap();
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
        send(&state, &agent, "hi", ch).await.unwrap();
        // A second run in the same session is refused (and stopped).
        let (ch2, _) = channel();
        let second = send(&state, &agent, "again", ch2).await;
        assert!(second.is_err());
        let id = match state.runs.ops().queue("s1", "and this").unwrap() {
            hearth_core::Enqueued::Queued(id) => id,
            hearth_core::Enqueued::RunEnded => panic!("the run had ended"),
        };
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
        assert_eq!(
            state.runs.ops().queue("s1", "late").unwrap(),
            hearth_core::Enqueued::RunEnded
        );
        // The run's second model call answers the queued message (the
        // side requests after the run, a title, come later and are longer).
        let bodies = sim.chat_bodies();
        let second = bodies
            .iter()
            .find(|b| b["messages"].as_array().is_some_and(|m| m.len() >= 4))
            .unwrap();
        assert_eq!(
            second["messages"].as_array().unwrap().last().unwrap()["content"],
            "and this"
        );
    }

    /// A session the CLI (another process on the same database) is
    /// answering in reaches the page as "busy, try again", not as a
    /// storage failure; once the CLI's run ends the same message goes.
    #[tokio::test]
    async fn a_session_busy_in_another_process_is_said_to_be_busy() {
        let (_sim, state, dir) = setup(vec![Reply::text("hello")]).await;
        let (cli, _) = hearth_store::Store::open(dir.path().join("h.sqlite"))
            .await
            .unwrap();
        hearth_core::SessionStore::begin_run(&cli, "s1", "cli_run")
            .await
            .unwrap();
        let agent = state.backend().unwrap().agent;
        let seen = answer(&state, &agent).await;
        let Some(EventKind::Error { error, .. }) = terminal(&seen) else {
            panic!("{:?}", terminal(&seen))
        };
        assert_eq!(
            (error.code, error.recovery),
            (ErrorCode::SessionBusy, Recovery::Retry),
            "{}",
            error.message
        );
        assert!(
            error.message.contains("answer in progress"),
            "{}",
            error.message
        );
        hearth_core::SessionStore::end_run(&cli, "cli_run", hearth_core::MessageStatus::Complete)
            .await
            .unwrap();
        let seen = answer(&state, &agent).await;
        assert!(matches!(terminal(&seen), Some(EventKind::StreamEnd { .. })));
    }

    /// A host added while the app runs serves the next request; a session
    /// on it stays there when its profile moves, and goes home when the
    /// host is removed. Two simulators are two machines.
    #[tokio::test]
    async fn a_host_added_at_run_time_serves_its_sessions_until_it_is_removed() {
        let (home, state, _dir) = setup(Vec::new()).await;
        let gpu2 = Sim::start(Script::with_models(vec![seed_model()]))
            .await
            .unwrap();
        state
            .add_host(
                hearth_store::Host {
                    name: "gpu2".into(),
                    kind: hearth_store::HostKind::Ollama,
                    url: gpu2.url(),
                    keyed: false,
                },
                None,
            )
            .await
            .unwrap();
        let default = state.profiles.default_name();
        let mut profile =
            hearth_core::ProfileProvider::by_name(state.profiles.as_ref(), &default).unwrap();
        profile.planning_enabled = false;
        profile.backend = Some("gpu2".into());
        state.profiles.upsert(profile.clone()).await.unwrap();
        hearth_core::tools::ProfileSwitcher::switch(state.profiles.as_ref(), "s1", &default)
            .await
            .unwrap();
        state.profiles.pin_session_host("s1").await.unwrap();
        let agent = state.backend().unwrap().agent;
        let turn = || async {
            let seen = answer(&state, &agent).await;
            assert!(
                matches!(terminal(&seen), Some(EventKind::StreamEnd { .. })),
                "{:?}",
                seen.lock().unwrap()
            );
            until("the run to leave", || !state.runs.is_live("s1")).await;
        };
        turn().await;
        let on_gpu2 = gpu2.chat_bodies().len();
        assert!(on_gpu2 >= 1);
        // The profile moves home; the session stays on gpu2.
        profile.backend = None;
        state.profiles.upsert(profile).await.unwrap();
        let home_before = home.chat_bodies().len();
        turn().await;
        assert!(gpu2.chat_bodies().len() > on_gpu2);
        assert_eq!(
            home.chat_bodies()[home_before..]
                .iter()
                .filter(|b| b["messages"]
                    .as_array()
                    .is_some_and(|m| m.iter().any(|x| x["content"] == "hi")))
                .count(),
            0,
            "the turn went to gpu2"
        );
        // Removed: the session goes home.
        state.remove_host("gpu2").await.unwrap();
        let on_gpu2 = gpu2.chat_bodies().len();
        turn().await;
        assert_eq!(gpu2.chat_bodies().len(), on_gpu2);
        assert!(home.chat_bodies().len() > home_before);
        assert!(state.remove_host("gpu2").await.is_err());
    }

    /// The desktop app talks to an OpenAI-compatible server through the
    /// same composition as the CLI: a profile whose backend is `openai`
    /// goes to hearth-sim's `/v1`, the default profile to its Ollama API.
    #[tokio::test]
    async fn a_profile_on_the_openai_backend_is_answered_by_an_openai_compatible_server() {
        let (sim, state, _dir) = setup(vec![Reply::text("Answered over v1.")]).await;
        let resolved = state.set_openai_url(&sim.url()).unwrap();
        assert_eq!(resolved, format!("{}/v1", sim.url()));
        let mut profile = state.profiles.list()[0].clone();
        profile.name = "Remote".into();
        profile.backend = Some("openai".into());
        // One model call: the scripted reply is the answer.
        profile.planning_enabled = false;
        state.profiles.upsert(profile).await.unwrap();
        hearth_core::tools::ProfileSwitcher::switch(state.profiles.as_ref(), "s1", "Remote")
            .await
            .unwrap();
        let seen = answer(&state, &state.backend().unwrap().agent).await;
        assert!(
            matches!(terminal(&seen), Some(EventKind::StreamEnd { .. })),
            "{:?}",
            seen.lock().unwrap()
        );
        assert!(
            !sim.completion_bodies().is_empty(),
            "the answer came over /v1"
        );
        assert_eq!(
            sim.chat_bodies(),
            Vec::<serde_json::Value>::new(),
            "nothing went to /api/chat"
        );
        let history = hearth_core::SessionStore::history(state.store.as_ref(), "s1")
            .await
            .unwrap();
        assert_eq!(history.last().unwrap().content, "Answered over v1.");
    }

    /// A new Ollama URL swaps the client inside the agent: the agent (its
    /// approvals, calibration, loads in flight) is the same one.
    #[tokio::test]
    async fn a_new_ollama_url_keeps_the_agent() {
        let (sim, state, _dir) = setup(vec![Reply::text("Same agent.")]).await;
        let before = state.backend().unwrap().agent;
        let after = state.set_url(&sim.url()).unwrap();
        assert!(Arc::ptr_eq(&before, &after.agent));
        let seen = answer(&state, &after.agent).await;
        assert!(matches!(terminal(&seen), Some(EventKind::StreamEnd { .. })));
    }
}
