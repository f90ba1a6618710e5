//! Each run leaves a trace: a span per model call (tokens from the server's
//! own counts) and per tool call.

use hearth_protocol::EventKind;
use hearth_sim::{Reply, Script, ToolCallSpec};
use hearth_store::Store;
use serde_json::json;

use super::basics::{events, hearth, output, sim};
use crate::MODEL;

#[tokio::test]
async fn a_run_records_its_model_and_tool_spans() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let db = path.to_str().unwrap();
    // The Agent profile plans first (its own model span): DIRECT.
    let sim = sim(Script::default()
        .with_reply(Reply::text("DIRECT"))
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "calculator",
            json!({"expression": "2^10"}),
        )]))
        .with_reply(Reply::text("1024.")))
    .await;
    let out = output(hearth(&[
        "chat",
        "--db",
        db,
        "--url",
        &sim.url(),
        "--model",
        MODEL,
        "--profile",
        "Agent",
        "--json",
        "2^10?",
    ]))
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let evs = events(&out.stdout);
    assert!(matches!(
        evs.last().unwrap().kind,
        EventKind::StreamEnd { .. }
    ));
    let run_id = evs[0].scope.run_id.clone();

    let (store, _) = Store::open(&path).await.unwrap();
    let spans = store.spans(&run_id).await.unwrap();
    let shape: Vec<(&str, &str)> = spans
        .iter()
        .map(|s| (s.kind.as_str(), s.name.as_str()))
        .collect();
    assert_eq!(
        shape,
        vec![
            ("model", MODEL),
            ("model", MODEL),
            ("tool", "calculator"),
            ("model", MODEL)
        ]
    );
    assert!(
        spans[0].tokens_in.is_some_and(|n| n > 0) && spans[0].tokens_out.is_some(),
        "{spans:?}"
    );
    assert!(spans.iter().all(|s| s.error.is_none()), "{spans:?}");
}
