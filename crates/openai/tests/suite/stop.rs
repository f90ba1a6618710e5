//! Stop semantics (DESIGN §3) hold for this backend too: Stop ends the run
//! at once, the dropped stream closes the connection so the server cancels
//! the generation, nothing unloads the model, and the next request is
//! answered at once with a conversation the server accepts.

use std::time::{Duration, Instant};

use hearth_core::MessageStatus;
use hearth_protocol::EventKind;
use hearth_sim::{Reply, Script, ToolCallSpec};
use serde_json::json;

use crate::support::{MODEL, agent, events, last, model, sim};

#[tokio::test]
async fn stop_during_a_5s_prompt_evaluation_cancels_and_the_next_request_is_answered() {
    let sim = sim(Script::with_models(vec![model()])
        .with_reply(Reply::text("never seen").with_prompt_eval_ms(5000)))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "a long prompt");
    sim.wait_until(|s| s.chat_requests >= 1, Duration::from_secs(5))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let t = Instant::now();
    run.stop();
    let evs = events(&mut run).await;
    let took = t.elapsed();
    assert!(
        matches!(last(&evs), EventKind::StreamStopped { .. }),
        "{evs:#?}"
    );
    assert!(took < Duration::from_millis(100), "stop took {took:?}");
    let stats = sim
        .wait_until(|s| s.cancelled == 1, Duration::from_secs(2))
        .await
        .expect("the simulator saw the generation cancelled");
    assert_eq!((stats.loads, stats.unloads, stats.aborted_loads), (1, 0, 0));
    assert_eq!(stats.loaded, vec![MODEL.to_owned()]);

    // The next request is answered at once, without a reload.
    let t = Instant::now();
    let answer = agent.run("s", "again", Default::default()).await.unwrap();
    assert_eq!(answer, "You said: again");
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
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
    let mut stopped_at = None;
    while let Some(e) = run.next_event().await {
        if matches!(e.kind, EventKind::TextDelta { .. }) && !got_text {
            got_text = true;
            stopped_at = Some(Instant::now());
            run.stop();
        }
        if let EventKind::StreamStopped { partial_text, .. } = &e.kind {
            assert!(partial_text.starts_with("one"), "{partial_text}");
            break;
        }
    }
    assert!(got_text);
    let stats = sim
        .wait_until(|s| s.cancelled == 1, Duration::from_secs(2))
        .await
        .unwrap();
    let took = stopped_at.unwrap().elapsed();
    assert!(
        took < Duration::from_secs(1),
        "the server saw the close after {took:?}"
    );
    assert_eq!(stats.unloads, 0);
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history[1].status, MessageStatus::Interrupted);
    let answer = agent.run("s", "next", Default::default()).await.unwrap();
    assert_eq!(answer, "You said: next");
}

#[tokio::test]
async fn stop_while_tool_call_fragments_stream_leaves_a_valid_conversation() {
    let sim = sim(Script::with_models(vec![model()]).with_reply(
        Reply::tool_calls(vec![ToolCallSpec::new(
            "calculator",
            json!({"expression": "1 + 2 + 3 + 4 + 5 + 6 + 7 + 8"}),
        )])
        .with_token_ms(50),
    ))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "add");
    sim.wait_until(|s| s.chat_requests >= 1, Duration::from_secs(5))
        .await
        .unwrap();
    // Some fragments are out; the call is not whole yet.
    tokio::time::sleep(Duration::from_millis(200)).await;
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
    sim.wait_until(|s| s.cancelled == 1, Duration::from_secs(2))
        .await
        .unwrap();
    // The simulator refuses dangling calls with a 400, so an answer here
    // shows the stored conversation is still valid.
    let answer = agent.run("s", "next", Default::default()).await.unwrap();
    assert_eq!(answer, "You said: next");
}
