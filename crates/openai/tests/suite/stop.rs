//! Stop semantics (docs/design.md §3) hold for this backend too: Stop ends
//! the run at once, the dropped stream closes the connection so the server
//! cancels the generation, nothing unloads the model, and the next request is
//! answered at once with a conversation the server accepts.

use std::time::Duration;

use hearth_core::MessageStatus;
use hearth_protocol::EventKind;
use hearth_sim::{Hold, Reply, Script, ToolCallSpec};
use serde_json::json;

use crate::support::{MODEL, agent, events, last, model, sim};

/// The bound on every wait here: it only ends a hang.
const T: Duration = Duration::from_secs(10);

#[tokio::test]
async fn stop_during_prompt_evaluation_cancels_and_the_next_request_is_answered() {
    let sim = sim(Script::with_models(vec![model()]).with_reply(Reply::text("never seen"))).await;
    // The evaluation lasts until released: a stop that waited for the
    // server would never end (the events' timeout would fail the test).
    sim.hold(Hold::PromptEval);
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "a long prompt");
    sim.wait_until(|s| s.prompt_evals == 1, T).await.unwrap();
    run.stop();
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamStopped { .. }),
        "{evs:#?}"
    );
    let stats = sim
        .wait_until(|s| s.cancelled == 1, T)
        .await
        .expect("the simulator saw the generation cancelled");
    assert_eq!(stats.chunks_sent, 0, "stopped before any token");
    assert_eq!((stats.loads, stats.unloads, stats.aborted_loads), (1, 0, 0));
    assert_eq!(stats.loaded, vec![MODEL.to_owned()]);

    // The next request is answered by the model still loaded.
    sim.release(Hold::PromptEval);
    let answer = agent.run("s", "again", Default::default()).await.unwrap();
    assert_eq!(answer, "You said: again");
    let stats = sim.stats();
    assert_eq!((stats.loads, stats.unloads), (1, 0));
}

#[tokio::test]
async fn stop_mid_stream_closes_the_connection_and_keeps_partial_text() {
    let sim = sim(Script::with_models(vec![model()]).with_reply(
        Reply::text("one two three four five six seven eight nine ten").with_token_ms(100),
    ))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "count");
    let mut got_text = false;
    while let Some(e) = run.next_event().await {
        if matches!(e.kind, EventKind::TextDelta { .. }) && !got_text {
            got_text = true;
            run.stop();
        }
        if let EventKind::StreamStopped { partial_text, .. } = &e.kind {
            assert!(partial_text.starts_with("one"), "{partial_text}");
            break;
        }
    }
    assert!(got_text);
    // The server saw the client leave mid-answer (a client that read on
    // would have let it finish: no cancel). How fast is the benchmark's.
    let stats = sim.wait_until(|s| s.cancelled == 1, T).await.unwrap();
    assert_eq!(stats.unloads, 0);
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history[1].status, MessageStatus::Interrupted);
    let answer = agent.run("s", "next", Default::default()).await.unwrap();
    assert_eq!(answer, "You said: next");
}

#[tokio::test]
async fn stop_while_tool_call_fragments_stream_leaves_a_valid_conversation() {
    // One call whose arguments come in some twenty fragments, 50 ms apart.
    let terms: Vec<String> = (1..=40).map(|n| n.to_string()).collect();
    let sim = sim(Script::with_models(vec![model()]).with_reply(
        Reply::tool_calls(vec![ToolCallSpec::new(
            "calculator",
            json!({"expression": terms.join(" + ")}),
        )])
        .with_token_ms(50),
    ))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "add");
    // The call's first piece and two argument fragments are out; the rest
    // is a second away.
    sim.wait_until(|s| s.chunks_sent >= 3, T).await.unwrap();
    run.stop();
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamStopped { .. }),
        "{evs:#?}"
    );
    assert!(
        !evs.iter()
            .any(|e| matches!(e.kind, EventKind::ToolStarted { .. })),
        "a call cut off mid-arguments is never started: {evs:#?}"
    );
    sim.wait_until(|s| s.cancelled == 1, T).await.unwrap();
    // The simulator refuses dangling calls with a 400, so an answer here
    // shows the stored conversation is still valid.
    let answer = agent.run("s", "next", Default::default()).await.unwrap();
    assert_eq!(answer, "You said: next");
}
