//! Scripted faults, asserted on the bytes that reach the client.

use std::time::Duration;

use hearth_sim::{Fault, Reply, Script, Sim};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{Raw, T, ask, chat, with};

async fn sim_with(reply: Reply) -> hearth_sim::SimHandle {
    Sim::start(Script::default().with_reply(reply))
        .await
        .unwrap()
}

#[tokio::test]
async fn drop_after_closes_without_done_line_or_terminator() {
    let sim = sim_with(Reply::text("one two three four").with_fault(Fault::DropAfter(2))).await;
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &ask("llama3.2:3b", "hi")).await;
    let resp = c.response().await;
    assert_eq!(resp.status, 200);
    assert!(!resp.complete, "no chunked terminator");
    assert_eq!(resp.content(), "one two");
    assert!(resp.lines().iter().all(|l| l["done"] == false));
    assert!(c.closed().await);
    assert_eq!(sim.stats().cancelled, 0);
}

#[tokio::test]
async fn error_after_sends_an_in_band_error_then_ends_properly() {
    let sim = sim_with(Reply::text("one two three").with_fault(Fault::ErrorAfter(1))).await;
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &ask("llama3.2:3b", "hi")).await;
    let resp = c.response().await;
    assert_eq!(resp.status, 200);
    assert!(resp.complete);
    let lines = resp.lines();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["message"]["content"], "one");
    assert_eq!(lines[1], json!({"error": "simulated in-band error"}));
    // The connection is still usable.
    c.send("GET", "/api/version", &json!(null)).await;
    assert_eq!(c.response().await.status, 200);
}

#[tokio::test]
async fn malformed_after_sends_a_line_that_is_not_json() {
    let sim = sim_with(Reply::text("one two").with_fault(Fault::MalformedAfter(1))).await;
    let resp = chat(&sim, ask("llama3.2:3b", "hi")).await;
    assert!(resp.complete);
    let text = resp.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(serde_json::from_str::<serde_json::Value>(lines[0]).is_ok());
    assert_eq!(lines[1], r#"{"model": "x", "message": {"#);
    assert!(serde_json::from_str::<serde_json::Value>(lines[1]).is_err());
}

#[tokio::test]
async fn stall_after_holds_the_connection_until_the_client_leaves() {
    let sim = sim_with(Reply::text("one two three").with_fault(Fault::StallAfter(1))).await;
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &ask("llama3.2:3b", "hi")).await;
    let first = c.read_until(br#""content":"one""#).await;
    let text = String::from_utf8(first).unwrap();
    assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
    // The stall: one chunk sent, and nothing more arrives.
    sim.wait_until(|s| s.chunks_sent == 1, T).await.unwrap();
    let more = c.read_for(Duration::from_millis(100)).await;
    assert!(!String::from_utf8_lossy(&more).contains("two"), "{more:?}");
    assert_eq!(sim.stats().chunks_sent, 1);
    assert_eq!(sim.stats().cancelled, 0);
    c.close();
    let stats = sim.wait_until(|s| s.cancelled == 1, T).await.unwrap();
    assert_eq!(stats.loaded, ["llama3.2:3b"]);
}

#[tokio::test]
async fn no_done_ends_the_stream_without_a_done_line() {
    let sim = sim_with(Reply::text("one two").with_fault(Fault::NoDone)).await;
    let resp = chat(&sim, ask("llama3.2:3b", "hi")).await;
    assert!(resp.complete);
    assert_eq!(resp.content(), "one two");
    assert!(resp.lines().iter().all(|l| l["done"] == false));
}

#[tokio::test]
async fn split_utf8_cuts_lines_inside_a_character() {
    let sim = sim_with(Reply::text("héllo wörld 🌍").with_split_utf8()).await;
    let resp = chat(&sim, ask("llama3.2:3b", "hi")).await;
    assert!(resp.complete);
    assert_eq!(resp.content(), "héllo wörld 🌍");
    // Each line with a multi-byte character came as two chunks, the first
    // ending inside the character.
    let cut = resp
        .chunks
        .iter()
        .filter(|c| std::str::from_utf8(c).is_err())
        .count();
    assert_eq!(cut, 6, "three token lines, each in two invalid halves");
    assert_eq!(resp.chunks.len(), 3 * 2 + 1);
    let first = &resp.chunks[0];
    assert!(std::str::from_utf8(first).is_err());
    assert_eq!(
        first.last().map(|b| b & 0xC0),
        Some(0xC0),
        "ends on a lead byte"
    );
}

#[tokio::test]
async fn split_utf8_pieces_arrive_as_separate_reads() {
    let sim = sim_with(Reply::text("wörld").with_split_utf8()).await;
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &ask("llama3.2:3b", "hi")).await;
    // The head and the first piece are one write; the rest follows a pause.
    let first = c.read_once().await;
    assert!(
        first.starts_with(b"HTTP/1.1 200 OK"),
        "{}",
        String::from_utf8_lossy(&first)
    );
    // ...{"content":"w\xC3 then the chunk's CRLF.
    assert!(first.ends_with(b"\r\n"));
    assert_eq!(
        first[first.len() - 3],
        0xC3,
        "the piece ends on the lead byte of 'ö'"
    );
    let second = c.read_once().await;
    let size_line = second.windows(2).position(|w| w == b"\r\n").unwrap();
    assert_eq!(
        second[size_line + 2],
        0xB6,
        "the chunk starts with the rest of 'ö'"
    );
}

#[tokio::test]
async fn non_streaming_faults() {
    let script = Script::default()
        .with_reply(Reply::text("a b").with_fault(Fault::ErrorAfter(1)))
        .with_reply(Reply::text("a b").with_fault(Fault::DropAfter(1)))
        .with_reply(Reply::text("a b").with_fault(Fault::NoDone));
    let sim = Sim::start(script).await.unwrap();
    let body = with(ask("llama3.2:3b", "hi"), json!({"stream": false}));
    let resp = chat(&sim, body.clone()).await;
    assert_eq!(resp.status, 500);
    assert_eq!(resp.json(), json!({"error": "simulated in-band error"}));
    let mut c = Raw::connect(&sim).await;
    c.send("POST", "/api/chat", &body).await;
    assert_eq!(c.read_for(T).await, b"", "closed without a response");
    let resp = chat(&sim, body).await;
    assert_eq!(resp.json()["done"], false);
    assert_eq!(resp.json()["message"]["content"], "a b");
}
