//! Stop semantics against the simulator (DESIGN §3): the model stays loaded.

use std::time::{Duration, Instant};

use hearth_protocol::EventKind;
use hearth_sim::{Reply, Script};

use crate::support::{MODEL, agent, events, last, model, sim};

#[tokio::test]
async fn stop_during_a_5s_prompt_evaluation_cancels_and_keeps_the_model() {
    let sim = sim(Script::with_models(vec![model()])
        .with_reply(Reply::text("never seen").with_prompt_eval_ms(5000)))
    .await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "a long prompt");
    // Wait until the chat (not only the preload) is at the simulator.
    sim.wait_until(|s| s.chat_requests >= 2, Duration::from_secs(5))
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
    assert_eq!(stats.unloads, 0);
    assert_eq!(stats.aborted_loads, 0);
    assert_eq!(stats.loads, 1);
    assert_eq!(stats.loaded, vec![MODEL.to_owned()]);

    // The next request causes no load.
    let answer = agent.run("s", "again", Default::default()).await.unwrap();
    assert!(answer.contains("again"), "{answer}");
    let stats = sim.stats();
    assert_eq!((stats.loads, stats.unloads), (1, 0));
}

#[tokio::test]
async fn stop_while_the_model_loads_does_not_abort_the_load() {
    let sim = sim(Script::with_models(vec![model().with_load_ms(1500)])).await;
    let agent = agent(&sim);
    let mut run = agent.run_stream("s", "hi");
    sim.wait_until(|s| s.chat_requests >= 1, Duration::from_secs(5))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let t = Instant::now();
    run.stop();
    let evs = events(&mut run).await;
    assert!(
        t.elapsed() < Duration::from_millis(100),
        "{:?}",
        t.elapsed()
    );
    assert!(matches!(last(&evs), EventKind::StreamStopped { .. }));
    // The preload goes on to the end: loaded, never aborted.
    let stats = sim
        .wait_until(|s| s.loads == 1, Duration::from_secs(5))
        .await
        .expect("the load completed");
    assert_eq!(stats.aborted_loads, 0);
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
    let stats = sim
        .wait_until(|s| s.cancelled == 1, Duration::from_secs(2))
        .await
        .unwrap();
    assert_eq!(stats.unloads, 0);
    let history = agent.store().history("s").await.unwrap();
    assert_eq!(history[1].status, hearth_core::MessageStatus::Interrupted);
}
