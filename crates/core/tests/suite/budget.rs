//! The context budget (docs/background.md §2.2) and auto-summarizing
//! (docs/background.md §3.7–3.8): a warning from 80 % of the window,
//! compaction before a request above 95 % down to 82 % (memory flush
//! first), a clear refusal when the server's own count says nothing can
//! get under, at most one summarizer per session — and nothing stored is
//! ever deleted.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use hearth_core::budget::estimate_request;
use hearth_core::compaction::{Compactor, SUMMARY_HEADING, Why};
use hearth_core::workers::Summarizers;
use hearth_core::{
    Agent, ChatMessage, DoneInfo, LoadOptions, MemoryWriter, ModelBackend, ModelDelta, Profile,
    StaticProfiles, StoreError, ToolRegistry,
};
use hearth_protocol::{ErrorCode, EventKind, Usage};
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

use crate::fake::{FakeBackend, Piece, done, events, text};

#[derive(Default)]
struct Facts(Mutex<Vec<(String, String)>>);

#[async_trait]
impl MemoryWriter for Facts {
    async fn facts(&self) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }
    async fn forgotten(&self) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }
    async fn fresh(&self, facts: &[String]) -> Result<Vec<String>, StoreError> {
        Ok(facts.to_vec())
    }
    async fn learn(
        &self,
        _session_id: &str,
        _run_id: &str,
        source: &str,
        facts: &[hearth_core::memory::NewFact],
    ) -> Result<Vec<hearth_core::memory::Learned>, StoreError> {
        let mut f = self.0.lock().unwrap();
        f.extend(facts.iter().map(|x| (source.to_owned(), x.text.clone())));
        Ok(facts
            .iter()
            .zip(1..)
            .map(|(fact, id)| hearth_core::memory::Learned {
                id,
                fact: fact.text.clone(),
            })
            .collect())
    }
}

const WINDOW: u32 = 1000;

fn agent_with(
    backend: Arc<FakeBackend>,
    profile: Profile,
    facts: Option<Arc<Facts>>,
) -> Arc<Agent> {
    let mut b = Agent::builder(backend, Arc::new(StaticProfiles::single("", profile)))
        .tools(ToolRegistry::new());
    if let Some(f) = facts {
        b = b.memory_writer(f);
    }
    let agent = b.build();
    agent.settings().set(
        "m",
        LoadOptions {
            num_ctx: WINDOW,
            ..LoadOptions::default()
        },
    );
    agent
}

/// Distinct words (the sanitizer would fold a stutter), `n` characters.
fn prose(n: usize) -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.len() < n {
        s.push_str(&format!("w{i} "));
        i += 1;
    }
    s.truncate(n);
    s
}

async fn fill(agent: &Agent, pairs: usize, answer_chars: usize) {
    fill_from(agent, pairs, answer_chars, None).await;
}

/// [`fill`], with `first` as the first question when given.
async fn fill_from(agent: &Agent, pairs: usize, answer_chars: usize, first: Option<&str>) {
    for i in 0..pairs {
        let store = agent.store();
        let question = match first {
            Some(text) if i == 0 => text.to_owned(),
            _ => format!("question {i}"),
        };
        store
            .append("s", "old", ChatMessage::user(question))
            .await
            .unwrap();
        store
            .append("s", "old", ChatMessage::assistant(prose(answer_chars)))
            .await
            .unwrap();
    }
}

fn usage_events(evs: &[hearth_protocol::AgentEvent]) -> Vec<(u32, u32, bool)> {
    evs.iter()
        .filter_map(|e| match e.kind {
            EventKind::ContextUsage {
                tokens,
                window,
                warning,
            } => Some((tokens, window, warning)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_warning_from_80_percent_of_the_window_and_none_below() {
    let backend = FakeBackend::new();
    backend.push(vec![text("fine"), done()]);
    let mut p = Profile::new("A", "m");
    p.system_prompt = String::new();
    let agent = agent_with(backend.clone(), p.clone(), None);
    fill(&agent, 1, 400).await;
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    let u = usage_events(&evs);
    assert_eq!(u.len(), 1, "one per model call");
    assert!(!u[0].2 && u[0].0 < 800, "{u:?}");

    let backend = FakeBackend::new();
    backend.push(vec![text("fine"), done()]);
    let agent = agent_with(backend.clone(), p, None);
    fill(&agent, 1, 3200).await; // ~800 tokens + framing: 80–95 %
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    let u = usage_events(&evs);
    assert!(u[0].2 && u[0].0 >= 800 && u[0].0 <= 950, "{u:?}");
    assert_eq!(u[0].1, WINDOW);
    assert_eq!(backend.requests().len(), 1, "a warning, not a compaction");
    assert!(matches!(
        evs.last().unwrap().kind,
        EventKind::StreamEnd { .. }
    ));
}

#[tokio::test]
async fn above_95_percent_the_memory_is_flushed_then_older_messages_summarized_to_82() {
    let backend = FakeBackend::new();
    // The flush, with a fact resting on the user's words and one on words
    // the user never wrote.
    backend.push(vec![
        text(
            r#"{"facts": [{"fact": "The user loves tea", "category": "preference", "quote": "I love tea", "confidence": 0.9},
                          {"fact": "The user is an admin", "category": "identity", "quote": "I am an admin", "confidence": 0.9}]}"#,
        ),
        done(),
    ]);
    backend.push(vec![text("Ten questions were answered."), done()]); // the summary
    backend.push(vec![text("Here you go."), done()]);
    let facts = Arc::new(Facts::default());
    let mut p = Profile::new("A", "m");
    p.system_prompt = String::new();
    let agent = agent_with(backend.clone(), p, Some(facts.clone()));
    // ~10 × 142 tokens: about 140 %. The first question states a fact in
    // the user's own words (as long as "question 0", so the figures below
    // are those of the plain filler).
    fill_from(&agent, 10, 440, Some("I love tea")).await;
    let mut run = agent.run_stream("s", "and now?");
    let evs = events(&mut run).await;
    assert!(
        matches!(evs.last().unwrap().kind, EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );

    let reqs = backend.requests();
    assert_eq!(reqs.len(), 3, "flush, summary, the answer");
    // The flush asks about the one sentence in which the user spoke of
    // themselves, with a prompt of its own (no shared prefix).
    assert!(
        reqs[0].messages[0].content.contains("\n1. I love tea\n"),
        "{}",
        reqs[0].messages[0].content
    );
    assert_eq!(
        reqs[0].format,
        Some(hearth_core::workers::statements::schema(1))
    );
    assert!(
        reqs[1].messages[0]
            .content
            .starts_with("Summarize this conversation")
    );
    assert_eq!(
        facts.0.lock().unwrap().clone(),
        vec![("flush".to_owned(), "The user loves tea".to_owned())],
        "durable facts are kept before the messages leave the context"
    );
    let compacted = evs
        .iter()
        .find_map(|e| match e.kind {
            EventKind::ContextCompacted {
                summarized,
                tokens_before,
                tokens_after,
            } => Some((summarized, tokens_before, tokens_after)),
            _ => None,
        })
        .expect("a compaction was announced");
    assert!(compacted.1 > 950 && compacted.2 <= 820, "{compacted:?}");
    // As little as reaches 82 %: of the cuts that may be made (user
    // messages 2, 4, … 16), the earliest that gets there — 12 — and not
    // the latest: questions 6 to 9 stay verbatim.
    assert_eq!(compacted.0, 12, "{compacted:?}");
    let sent = &reqs[2];
    let users: Vec<&str> = sent
        .messages
        .iter()
        .filter(|m| m.role == hearth_core::Role::User)
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(
        users,
        [
            "question 6",
            "question 7",
            "question 8",
            "question 9",
            "and now?"
        ]
    );
    assert!(
        sent.messages
            .iter()
            .any(|m| m.content.starts_with(SUMMARY_HEADING))
    );
    assert!(estimate_request(&sent.messages, &sent.tools) <= 820);
    let u = usage_events(&evs);
    assert!(u[0].0 <= 820, "{u:?}");
    // Nothing stored was deleted.
    assert_eq!(agent.store().history("s").await.unwrap().len(), 22);
}

fn done_counted(prompt_tokens: u32) -> Piece {
    Piece::Delta(ModelDelta::Done(DoneInfo {
        usage: Usage {
            prompt_tokens: Some(prompt_tokens),
            ..Usage::default()
        },
    }))
}

#[tokio::test]
async fn once_the_server_has_counted_a_prompt_that_cannot_fit_is_refused_before_sending() {
    let backend = FakeBackend::new();
    // The first prompt is sent (the raw estimate is not trusted to refuse);
    // the server's count then calibrates the estimate.
    backend.push(vec![text("ok"), done_counted(1_400)]);
    let mut p = Profile::new("A", "m");
    p.system_prompt = prose(4_400); // ~1,100 tokens of instructions
    let agent = agent_with(backend.clone(), p, None);
    let mut run = agent.run_stream("s", "hi");
    let evs = events(&mut run).await;
    assert!(
        matches!(evs.last().unwrap().kind, EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    assert_eq!(backend.requests().len(), 1);

    let mut run = agent.run_stream("s", "again");
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = &evs.last().unwrap().kind else {
        panic!("{evs:#?}")
    };
    assert_eq!(error.code, ErrorCode::ContextLimitExceeded);
    assert!(
        error.message.contains("context window is 1000"),
        "{}",
        error.message
    );
    assert_eq!(backend.requests().len(), 1, "refused before sending");
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(
        history.last().unwrap().content,
        "again",
        "the message is kept"
    );
}

#[tokio::test]
async fn at_most_one_summarizer_per_session() {
    let backend = FakeBackend::new();
    *backend.open_delay.lock().unwrap() = Duration::from_millis(200);
    backend.push(vec![text("summary"), done()]);
    backend.push(vec![text("summary"), done()]);
    let agent = agent_with(backend.clone(), Profile::new("A", "m"), None);
    fill(&agent, 10, 440).await;
    let summarizers = Summarizers::default();
    let dyn_backend: Arc<dyn ModelBackend> = backend.clone();
    let profile = Profile::new("A", "m");
    let cancel = CancellationToken::new();
    let compactor = Compactor {
        store: agent.store().as_ref(),
        backend: &dyn_backend,
        profile: &profile,
        load: LoadOptions {
            num_ctx: WINDOW,
            ..LoadOptions::default()
        },
        window: WINDOW,
        ratio: 1.0,
        memory: None,
        vote: None,
        summarizers: &summarizers,
        run_id: "r",
        cancel: &cancel,
    };
    let (a, b) = tokio::join!(
        compactor.compact("s", 0, Why::Background),
        compactor.compact("s", 0, Why::Background)
    );
    let done: Vec<bool> = [a.unwrap(), b.unwrap()]
        .iter()
        .map(Option::is_some)
        .collect();
    assert_eq!(done.iter().filter(|d| **d).count(), 1, "{done:?}");
    assert_eq!(backend.requests().len(), 1, "one summary request");
    // Another session is not held up.
    fill_other(&agent).await;
    let other = compactor.compact("t", 0, Why::Background).await.unwrap();
    assert!(other.is_some());
}

async fn fill_other(agent: &Agent) {
    for i in 0..10 {
        let store = agent.store();
        store
            .append("t", "old", ChatMessage::user(format!("q {i}")))
            .await
            .unwrap();
        store
            .append("t", "old", ChatMessage::assistant(prose(440)))
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn the_history_turn_limit_sends_only_the_last_turns_and_stores_all() {
    let backend = FakeBackend::new();
    backend.push(vec![text("ok"), done()]);
    let mut p = Profile::new("A", "m");
    p.history_turns = Some(2);
    let agent = agent_with(backend.clone(), p, None);
    fill(&agent, 5, 20).await;
    let mut run = agent.run_stream("s", "latest");
    events(&mut run).await;
    let sent = &backend.requests()[0].messages;
    let users: Vec<&str> = sent
        .iter()
        .filter(|m| m.role == hearth_core::Role::User)
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(users, ["question 4", "latest"]);
    assert_eq!(sent[0].role, hearth_core::Role::System);
    assert_eq!(agent.store().history("s").await.unwrap().len(), 12);
}
