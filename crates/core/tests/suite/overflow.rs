//! A prompt the server refuses as too long (sent with `truncate: false`):
//! the loop summarizes the older messages and tries once more; when that
//! cannot help, a clear ContextLimitExceeded — never silent loss.

use hearth_core::{BackendError, ChatMessage, Profile};
use hearth_protocol::{ErrorCode, EventKind};
use pretty_assertions::assert_eq;

use crate::fake::{FakeBackend, Piece, agent, done, events, text};

fn overflow() -> Piece {
    Piece::Fail(BackendError::ContextOverflow {
        message: "the input length exceeds the context length".into(),
    })
}

async fn long_session(agent: &hearth_core::Agent) {
    for i in 0..10 {
        agent
            .store()
            .append("s", "old", ChatMessage::user(format!("question {i}")))
            .await
            .unwrap();
        agent
            .store()
            .append("s", "old", ChatMessage::assistant(format!("answer {i}")))
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn an_overflow_is_summarized_away_and_the_call_tried_again() {
    let backend = FakeBackend::new();
    backend.push(vec![overflow()]);
    backend.push(vec![text("The user asked ten questions."), done()]); // the summarizer
    backend.push(vec![text("Here you go."), done()]);
    let (agent, _) = agent(backend.clone(), Default::default(), Profile::new("A", "m"));
    long_session(&agent).await;
    let mut run = agent.run_stream("s", "and now?");
    let evs = events(&mut run).await;
    assert!(
        matches!(evs.last().unwrap().kind, EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    let reqs = backend.requests();
    assert_eq!(reqs.len(), 3, "the refused call, the summary, the retry");
    assert!(
        reqs[1].messages[0]
            .content
            .starts_with("Summarize this conversation")
    );
    assert_eq!(reqs[2].messages.last().unwrap().content, "and now?");
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(
        history.len(),
        22,
        "nothing deleted: 20 old, the question, the answer"
    );
}

#[tokio::test]
async fn when_summarizing_cannot_help_the_error_says_so_and_the_message_is_kept() {
    let backend = FakeBackend::new();
    backend.push(vec![overflow()]);
    backend.push(vec![text("summary"), done()]);
    backend.push(vec![overflow()]);
    let (hearth, _) = agent(backend.clone(), Default::default(), Profile::new("A", "m"));
    long_session(&hearth).await;
    let mut run = hearth.run_stream("s", "a very long paste");
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = &evs.last().unwrap().kind else {
        panic!("{evs:#?}")
    };
    assert_eq!(error.code, ErrorCode::ContextLimitExceeded);
    assert!(
        error.message.contains("context window"),
        "{}",
        error.message
    );
    assert_eq!(backend.requests().len(), 3, "one retry, not a loop");
    let history = hearth.store().history("s").await.unwrap();
    assert_eq!(history.last().unwrap().content, "a very long paste");

    // Too short to summarize: the error comes at once.
    let backend = FakeBackend::new();
    backend.push(vec![overflow()]);
    let (short, _) = agent(backend.clone(), Default::default(), Profile::new("A", "m"));
    let mut run = short.run_stream("t", "huge");
    let evs = events(&mut run).await;
    assert!(matches!(
        &evs.last().unwrap().kind,
        EventKind::Error { error, .. } if error.code == ErrorCode::ContextLimitExceeded
    ));
    assert_eq!(backend.requests().len(), 1);
}

// On tokio's paused clock the sleep below ends only once every task waits,
// i.e. when the run sits in the stalled summarizer, whatever the machine.
#[tokio::test(start_paused = true)]
async fn a_stop_while_the_overflow_is_summarized_is_a_stop_not_an_error() {
    let backend = FakeBackend::new();
    backend.push(vec![overflow()]);
    backend.push(vec![Piece::Stall]); // the summarizer never answers
    let (agent, _) = agent(backend.clone(), Default::default(), Profile::new("A", "m"));
    long_session(&agent).await;
    let mut run = agent.run_stream("s", "and now?");
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(backend.requests().len(), 2, "summarizing");
    run.stop();
    let evs = events(&mut run).await;
    assert!(
        matches!(evs.last().unwrap().kind, EventKind::StreamStopped { .. }),
        "{evs:#?}"
    );
    assert_eq!(agent.store().history("s").await.unwrap().len(), 21);
}
