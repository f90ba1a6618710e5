//! Profiles as two processes share one database (turn-2 security review
//! L6): what one writes, the other reads before its next run, not at its
//! next start.

use hearth_core::ProfileProvider;
use hearth_store::{Profiles, Store};

#[tokio::test]
async fn what_another_process_changed_is_read_before_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let (app_store, _) = Store::open(&path).await.unwrap();
    let app = Profiles::load(&app_store).await.unwrap();
    // Alone on the database, its own writes are in its copy already:
    // nothing to read again.
    let mut chat = app.by_name("Chat").unwrap();
    chat.temperature = Some(0.3);
    app.upsert(chat).await.unwrap();
    let mut agent = app.by_name("Agent").unwrap();
    agent.auto_approve = vec!["run_shell".into()];
    app.upsert(agent).await.unwrap();
    assert!(!app.refresh().await.unwrap());
    assert_eq!(app.by_name("Chat").unwrap().temperature, Some(0.3));

    // A second connection, as the CLI beside the app: it takes back the
    // Agent profile's pre-approvals and makes Agent the default.
    let (cli_store, _) = Store::open(&path).await.unwrap();
    let cli = Profiles::load(&cli_store).await.unwrap();
    let before = app.by_name("Agent").unwrap();
    let mut agent = cli.by_name("Agent").unwrap();
    agent.auto_approve.clear();
    agent.model = "qwen2.5-coder:1.5b".into();
    cli.upsert(agent).await.unwrap();
    cli.set_default("Agent").await.unwrap();

    // The app's copy is as it was until it reads again.
    assert_eq!(before.auto_approve, ["run_shell"]);
    assert_eq!(app.by_name("Agent").unwrap().model, before.model);
    assert!(app.refresh().await.unwrap(), "another process committed");
    let after = app.by_name("Agent").unwrap();
    assert_eq!(after.model, "qwen2.5-coder:1.5b");
    assert!(after.auto_approve.is_empty(), "{after:?}");
    assert_eq!(app.default_name(), "Agent");
    assert_eq!(app.active("a new session").name, "Agent");
    // Its own write is not lost in the reading.
    assert_eq!(app.by_name("Chat").unwrap().temperature, Some(0.3));
}
