//! The MCP servers' first tool listings kept in the database (security
//! review N4): a restart of Hearth reads them back, and a server removed
//! from the configuration takes them with it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use hearth_core::ToolSource;
use hearth_mcp::ServerConfig;
use hearth_store::Store;

fn scripted() -> ServerConfig {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../mcp/tests/fixtures/scripted_server.py");
    ServerConfig {
        command: Some("python3".into()),
        args: vec![script.display().to_string(), "ok".into()],
        ..ServerConfig::default()
    }
}

async fn listed(store: &Store) -> Option<hearth_mcp::Kept> {
    let json = store.mcp_listings_json().await.unwrap()?;
    Some(serde_json::from_str(&json).unwrap())
}

#[tokio::test]
async fn first_listings_outlive_a_restart_and_go_with_their_server() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("hearth.sqlite")).await.unwrap();
    let servers = BTreeMap::from([("s".to_owned(), scripted())]);
    hearth_compose::save_mcp_servers(&store, &servers)
        .await
        .unwrap();
    assert_eq!(listed(&store).await, None);

    let hub = hearth_compose::mcp_hub(&store).await;
    let wait = std::time::Duration::from_secs(60);
    let down = tokio::time::timeout(wait, hub.prepare(&["s".into()]))
        .await
        .expect("the server started within 60 s");
    assert!(down.is_empty(), "{down:?}");
    hub.shutdown().await;
    let first = listed(&store).await.expect("kept");
    assert_eq!(
        first.servers["s"].tools.keys().collect::<Vec<_>>(),
        ["grow", "hello"]
    );

    // Started again (a new hub over the same database): the same listing
    // matches the record, which stays as it was.
    let again = hearth_compose::mcp_hub(&store).await;
    let down = tokio::time::timeout(wait, again.prepare(&["s".into()]))
        .await
        .expect("the server started within 60 s");
    assert!(down.is_empty(), "{down:?}");
    again.shutdown().await;
    assert_eq!(listed(&store).await.as_ref(), Some(&first));

    // Removed from the configuration: its record goes too.
    hearth_compose::save_mcp_servers(&store, &BTreeMap::new())
        .await
        .unwrap();
    assert!(listed(&store).await.expect("kept").servers.is_empty());
}
