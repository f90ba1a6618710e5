//! `hearth mcp` and MCP tools in `hearth chat`, against the real
//! `mcp-server-time` from PyPI (installed by `scripts/setup.sh --test`):
//! import a configuration as other apps write it, check it, name it in a
//! profile, approve a call on the terminal; and a missing command is a
//! clear failure that costs a chat nothing but the tools.

use hearth_protocol::{EventKind, ToolOutcome};
use hearth_sim::{Reply, ToolCallSpec};
use serde_json::json;

use super::basics::{answering, hearth, ok, output, run_end, sim, turn_bodies, with_workers};

fn time_server() -> String {
    let base = std::env::var_os("HEARTH_TEST_TOOLS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(std::env::var_os("HOME").unwrap())
                .join(".cache/hearth-test-tools")
        });
    let bin = base.join("mcp-venv/bin/mcp-server-time");
    assert!(
        bin.exists(),
        "{} is missing: run scripts/setup.sh --test",
        bin.display()
    );
    bin.display().to_string()
}

#[tokio::test]
async fn an_imported_server_is_checked_named_in_a_profile_and_its_tool_approved() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    let config = dir.path().join("claude_desktop_config.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {
            "time": {"command": time_server(), "args": ["--local-timezone", "UTC"]},
            "gone": {"command": "hearth-no-such-mcp-server"}
        }})
        .to_string(),
    )
    .unwrap();
    ok(&["mcp", "import", "--db", db, config.to_str().unwrap()]).await;
    let listed = ok(&["mcp", "list", "--db", db]).await;
    assert!(
        listed.contains("time\t") && listed.contains("gone\thearth-no-such-mcp-server"),
        "{listed}"
    );

    let checked = ok(&["mcp", "check", "--db", db, "time"]).await;
    assert!(
        checked.contains("time__get_current_time\t[reads]"),
        "{checked}"
    );
    let out = output(hearth(&["mcp", "check", "--db", db, "gone"])).await;
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`hearth-no-such-mcp-server` was not found"),
        "{err}"
    );

    ok(&[
        "profiles",
        "set",
        "--db",
        db,
        "Timed",
        "--model",
        crate::MODEL,
        "--tools",
        "all",
        "--mcp",
        "time,gone",
    ])
    .await;
    let sim = sim(with_workers("Time")
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "time__get_current_time",
            json!({"timezone": "UTC"}),
        )]))
        .with_reply(Reply::text("It is now.")))
    .await;
    let evs = answering(
        hearth(&[
            "chat",
            "--db",
            db,
            "--url",
            &sim.url(),
            "--profile",
            "Timed",
            "--json",
            "what time is it?",
        ]),
        "y\n",
    )
    .await;
    assert!(
        matches!(run_end(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    let result = evs.iter().find_map(|e| match &e.kind {
        EventKind::ToolEvent {
            outcome, output, ..
        } => Some((*outcome, output.clone())),
        _ => None,
    });
    let (outcome, output) = result.expect("the tool ran");
    assert_eq!(outcome, ToolOutcome::Ok, "{output}");
    assert!(output.contains("\"timezone\": \"UTC\""), "{output}");
    let unavailable: Vec<&str> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolsUnavailable { server, .. } => Some(server.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(unavailable, ["gone"]);
    let turns = turn_bodies(&sim);
    assert_eq!(turns.len(), 2);
    for body in &turns {
        let names: Vec<&str> = body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["function"]["name"].as_str())
            .filter(|n| n.contains("__"))
            .collect();
        assert_eq!(names, ["time__convert_time", "time__get_current_time"]);
    }

    ok(&["mcp", "remove", "--db", db, "gone"]).await;
    let exported = ok(&["mcp", "export", "--db", db]).await;
    let back = hearth_mcp_shape(&exported);
    assert_eq!(back, vec!["time".to_owned()]);
}

fn hearth_mcp_shape(json_text: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(json_text).unwrap();
    v["mcpServers"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

/// A server's tokens (header and environment values) are kept but never
/// shown (security review N7): `mcp export` hides them unless asked, and
/// an export imported back keeps the saved values rather than saving the
/// placeholder.
#[tokio::test]
async fn tokens_are_kept_but_not_shown() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    let db = db.to_str().unwrap();
    let added = output(hearth(&[
        "mcp",
        "add",
        "--db",
        db,
        "remote",
        "--url",
        "https://mcp.example.invalid/mcp",
        "--header",
        "Authorization: Bearer tok-SECRET-4242",
    ]))
    .await;
    // No secret store on this session's bus: kept in the database, and said.
    let said = String::from_utf8_lossy(&added.stderr);
    assert!(added.status.success(), "{said}");
    assert!(
        said.contains("kept in Hearth's database, readable by your account only"),
        "{said}"
    );
    let shown = ok(&["mcp", "export", "--db", db]).await;
    assert!(!shown.contains("tok-SECRET-4242"), "{shown}");
    assert!(shown.contains(hearth_mcp::HIDDEN), "{shown}");
    let file = dir.path().join("export.json");
    std::fs::write(&file, &shown).unwrap();
    ok(&["mcp", "import", "--db", db, file.to_str().unwrap()]).await;
    let all = ok(&["mcp", "export", "--db", db, "--with-secrets"]).await;
    assert!(all.contains("Bearer tok-SECRET-4242"), "{all}");
    assert!(!all.contains(hearth_mcp::HIDDEN), "{all}");
    // The placeholder under a name with nothing saved is refused.
    std::fs::write(&file, shown.replace("\"remote\"", "\"other\"")).unwrap();
    let out = output(hearth(&[
        "mcp",
        "import",
        "--db",
        db,
        file.to_str().unwrap(),
    ]))
    .await;
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no value was saved"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
