//! No lock-ups: whatever happens inside a run, its end is recorded and the
//! session takes the next message. The store here refuses a second run
//! while one is open, as the SQLite store does (`RunInProgress`).

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use hearth_core::{
    Agent, ChatMessage, InMemoryStore, MessageStatus, Profile, SessionStore, StaticProfiles,
    StoreError, ToolRegistry,
};
use hearth_protocol::{ErrorCode, EventKind, Recovery};

use crate::fake::{FakeBackend, Piece, done, events, text};

/// An in-memory store that keeps one open run per session and can be told
/// to fail recording ends.
#[derive(Default)]
struct OneRunStore {
    inner: InMemoryStore,
    open: Mutex<HashSet<(String, String)>>,
    /// Fail this many `end_run` calls first.
    failing_ends: AtomicUsize,
    repaired: AtomicUsize,
}

impl OneRunStore {
    fn close(&self, run_id: &str) {
        self.open.lock().unwrap().retain(|(_, r)| r != run_id);
    }
}

#[async_trait]
impl SessionStore for OneRunStore {
    async fn history(&self, session_id: &str) -> Result<Vec<ChatMessage>, StoreError> {
        self.inner.history(session_id).await
    }

    async fn append(
        &self,
        session_id: &str,
        run_id: &str,
        message: ChatMessage,
    ) -> Result<hearth_core::Appended, StoreError> {
        self.inner.append(session_id, run_id, message).await
    }

    async fn begin_run(&self, session_id: &str, run_id: &str) -> Result<(), StoreError> {
        let mut open = self.open.lock().unwrap();
        if open.iter().any(|(s, _)| s == session_id) {
            return Err(StoreError::new(
                hearth_core::StoreFailure::SessionBusy,
                format!("a run of {session_id} is in progress"),
            ));
        }
        open.insert((session_id.to_owned(), run_id.to_owned()));
        Ok(())
    }

    async fn end_run(&self, run_id: &str, _status: MessageStatus) -> Result<(), StoreError> {
        let fail = self
            .failing_ends
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
        if fail {
            return Err(StoreError::transient("database is locked"));
        }
        self.close(run_id);
        Ok(())
    }

    async fn repair_run(&self, run_id: &str) -> Result<(), StoreError> {
        self.repaired.fetch_add(1, Ordering::SeqCst);
        self.close(run_id);
        Ok(())
    }
}

fn agent(backend: Arc<FakeBackend>, store: Arc<OneRunStore>) -> Arc<Agent> {
    let profiles = Arc::new(StaticProfiles::single("Persona", Profile::new("Chat", "m")));
    Agent::builder(backend, profiles)
        .tools(ToolRegistry::new())
        .store(store)
        .build()
}

fn answer(evs: &[hearth_protocol::AgentEvent]) -> &EventKind {
    &evs.last().expect("events").kind
}

/// The run answered (and so the session was free for it).
fn answered(evs: &[hearth_protocol::AgentEvent]) {
    assert!(
        matches!(answer(evs), EventKind::StreamEnd { .. }),
        "the session is not locked: {evs:#?}"
    );
}

/// An agent with two plain answers scripted, over a store whose first
/// `failing_ends` ends fail to record.
fn two_answers(failing_ends: usize) -> (Arc<Agent>, Arc<OneRunStore>) {
    let backend = FakeBackend::new();
    backend.push(vec![text("One."), done()]);
    backend.push(vec![text("Two."), done()]);
    let store = Arc::new(OneRunStore::default());
    store.failing_ends.store(failing_ends, Ordering::SeqCst);
    (agent(backend, store.clone()), store)
}

#[tokio::test(start_paused = true)]
async fn a_panic_in_the_answer_is_a_failed_run_and_the_session_takes_the_next_message() {
    let backend = FakeBackend::new();
    backend.push(vec![
        text("Half an ans"),
        Piece::Panic("index out of bounds"),
    ]);
    backend.push(vec![text("Fine."), done()]);
    let store = Arc::new(OneRunStore::default());
    let agent = agent(backend, store.clone());

    let evs = events(&mut agent.run_stream("s", "hello")).await;
    let EventKind::Error { error, .. } = answer(&evs) else {
        panic!("a crash is an error, not a stop: {evs:#?}")
    };
    assert!(error.message.contains("crashed"), "{}", error.message);
    // The session is repaired: sending again is what the page offers.
    assert_eq!(
        (error.code, error.recovery),
        (ErrorCode::Internal, Recovery::Retry)
    );
    assert!(
        error.message.contains("index out of bounds"),
        "{}",
        error.message
    );
    assert_eq!(
        store.repaired.load(Ordering::SeqCst),
        1,
        "the run was repaired"
    );

    answered(&events(&mut agent.run_stream("s", "again")).await);
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history.last().unwrap().content, "Fine.");
}

#[tokio::test(start_paused = true)]
async fn a_busy_store_is_retried() {
    let (agent, store) = two_answers(2);
    answered(&events(&mut agent.run_stream("s", "one")).await);
    assert_eq!(
        store.failing_ends.load(Ordering::SeqCst),
        0,
        "both failures used"
    );
    assert_eq!(
        store.repaired.load(Ordering::SeqCst),
        0,
        "the retry recorded it"
    );
    answered(&events(&mut agent.run_stream("s", "two")).await);
}

#[tokio::test(start_paused = true)]
async fn an_end_that_cannot_be_recorded_is_repaired_before_the_next_message() {
    let (agent, store) = two_answers(1_000);
    answered(&events(&mut agent.run_stream("s", "one")).await);
    assert_eq!(
        store.open.lock().unwrap().len(),
        1,
        "the end was not recorded"
    );
    store.failing_ends.store(0, Ordering::SeqCst);
    answered(&events(&mut agent.run_stream("s", "two")).await);
    assert_eq!(store.repaired.load(Ordering::SeqCst), 1);
}
