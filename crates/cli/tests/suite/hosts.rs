//! Several hosts (`hearth hosts`, `--host`, a profile's failover), with two
//! simulators as two machines: a session stays on the host it started on,
//! failover before any output works and is announced, a host lost
//! mid-answer ends the answer with its error and no switch.

use hearth_sim::{Fault, Reply, Script};

use super::basics::{hearth, output, sim};
use crate::MODEL;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `hearth ARGS --db DB`, expecting success; its stdout.
async fn ok(db: &str, args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.extend(["--db", db]);
    let out = output(hearth(&all)).await;
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// `hearth profiles set Chat --host HOST --failover FAILOVER`.
async fn chat_on(db: &str, host: &str, failover: &str) {
    let args = [
        "profiles",
        "set",
        "Chat",
        "--host",
        host,
        "--failover",
        failover,
    ];
    ok(db, &args).await;
}

#[tokio::test]
async fn sessions_stay_on_their_host_and_failover_happens_only_before_output() {
    let (home, gpu2) = (sim(Script::default()).await, sim(Script::default()).await);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("hosts.sqlite").display().to_string();
    let db = db.as_str();
    let url = home.url();
    ok(db, &["hosts", "add", "gpu2", &gpu2.url()]).await;
    // Port 1: nothing listens there, the connection is refused at once.
    ok(db, &["hosts", "add", "dead", "http://127.0.0.1:1"]).await;
    let list = ok(db, &["hosts", "list"]).await;
    assert!(
        list.contains(&format!("gpu2  ollama  {}  up (version", gpu2.url())),
        "{list}"
    );
    assert!(
        list.contains("dead  ollama  http://127.0.0.1:1  unreachable"),
        "{list}"
    );

    // A session started on gpu2 stays there when the profile moves home.
    ok(db, &["profiles", "set", "Chat", "--host", "gpu2"]).await;
    let chat = |session: &'static str| {
        let url = url.clone();
        async move {
            let args = [
                "chat",
                "--url",
                &url,
                "--model",
                MODEL,
                "--no-tools",
                "--session",
                session,
                "--db",
                db,
                "hi",
            ];
            output(hearth(&args)).await
        }
    };
    assert!(chat("s1").await.status.success());
    ok(db, &["profiles", "set", "Chat", "--host", "ollama"]).await;
    assert!(chat("s1").await.status.success());
    assert!(gpu2.chat_bodies().len() >= 2, "both turns on gpu2");
    assert!(home.chat_bodies().is_empty(), "{:?}", home.chat_bodies());
    // A new session starts on the profile's host now.
    assert!(chat("s2").await.status.success());
    assert!(!home.chat_bodies().is_empty());

    // The profile's host is down before any output: the next host answers,
    // and the answer says so.
    chat_on(db, "dead", "gpu2").await;
    let before = gpu2.chat_bodies().len();
    let out = chat("s3").await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr)
            .contains("[host] `dead` cannot be reached, so this answer comes from `gpu2`"),
        "{}",
        text(&out.stderr)
    );
    assert!(gpu2.chat_bodies().len() > before);

    // gpu2 goes away mid-answer: the answer ends with its error; home,
    // the failover, is never asked.
    chat_on(db, "gpu2", "ollama").await;
    gpu2.push_reply(Reply::text("half of an answer that breaks").with_fault(Fault::DropAfter(2)));
    let home_before = home.chat_bodies().len();
    let out = chat("s4").await;
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("broke off"), "{err}");
    assert!(!err.contains("[host]"), "{err}");
    assert_eq!(home.chat_bodies().len(), home_before);

    // A host that does not exist is refused, with the ones that do.
    let out = output(hearth(&[
        "chat", "--host", "nope", "--url", &url, "--db", db, "hi",
    ]))
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("there is no host `nope`"),
        "{}",
        text(&out.stderr)
    );
}
