//! Stop semantics against the simulator (docs/design.md §3): the model stays
//! loaded.

use std::time::Duration;

use hearth_protocol::EventKind;
use hearth_sim::{Hold, Reply, Script};

use crate::support::{MODEL, agent, events, last, model, sim};

/// The bound on every wait here: it only ends a hang.
const T: Duration = Duration::from_secs(10);

#[tokio::test]
async fn stop_during_prompt_evaluation_cancels_and_keeps_the_model() {
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
    assert_eq!(stats.unloads, 0);
    assert_eq!(stats.aborted_loads, 0);
    assert_eq!(stats.loads, 1);
    assert_eq!(stats.loaded, vec![MODEL.to_owned()]);

    // The next request causes no load.
    sim.release(Hold::PromptEval);
    let answer = agent.run("s", "again", Default::default()).await.unwrap();
    assert!(answer.contains("again"), "{answer}");
    let stats = sim.stats();
    assert_eq!((stats.loads, stats.unloads), (1, 0));
}

#[tokio::test]
async fn stop_while_the_model_loads_does_not_abort_the_load() {
    let sim = sim(Script::with_models(vec![model()])).await;
    // The load lasts until released: the stop certainly comes during it,
    // and a stop that waited for it would never end.
    sim.hold(Hold::Load);
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "hi");
    sim.wait_until(|s| s.loads_started == 1, T).await.unwrap();
    run.stop();
    let evs = events(&mut run).await;
    assert!(matches!(last(&evs), EventKind::StreamStopped { .. }));
    // Stopped while the load goes on in its own request.
    assert_eq!(agent.loads().in_flight(), 1);
    assert_eq!(sim.stats().loads, 0);
    sim.release(Hold::Load);
    tokio::time::timeout(T, agent.loads().settled())
        .await
        .expect("the load ends once released");
    // The preload went on to the end: loaded, never aborted.
    let stats = sim.stats();
    assert_eq!((stats.loads, stats.aborted_loads), (1, 0));
    assert_eq!(stats.chat_requests, 1, "no chat was sent after the stop");
    // And the next turn does not load again.
    agent.run("s", "now", Default::default()).await.unwrap();
    assert_eq!(sim.stats().loads, 1);
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
        if matches!(e.kind, EventKind::TextDelta { .. }) {
            got_text = true;
            run.stop();
        }
        if let EventKind::StreamStopped { partial_text, .. } = &e.kind {
            assert!(partial_text.starts_with("one"), "{partial_text}");
            break;
        }
    }
    assert!(got_text);
    let stats = sim.wait_until(|s| s.cancelled == 1, T).await.unwrap();
    assert_eq!(stats.unloads, 0);
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history[1].status, hearth_core::MessageStatus::Interrupted);
}
