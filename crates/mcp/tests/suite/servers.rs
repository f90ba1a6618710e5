//! Real servers: listing, annotations, calls, results of every kind, both
//! transports.

use hearth_core::{ToolEffect, ToolError, ToolSource};
use hearth_mcp::{ServerConfig, Status};
use serde_json::json;

use crate::support::{ctx, everything, filesystem, hub, time, tool, within};

#[tokio::test]
async fn everything_lists_its_tools_with_their_hints_and_answers_calls() {
    let mut config = everything();
    config
        .env
        .insert("HEARTH_TEST_VAR".into(), "visible".into());
    let hub = hub("everything", config);
    let down = within("start", hub.prepare(&["everything".into()])).await;
    assert!(down.is_empty(), "{down:?}");
    let status = hub.server("everything").unwrap().status();
    let Status::Running { server, tools } = status else {
        panic!("{status:?}")
    };
    assert!(server.contains("everything"), "{server}");
    assert!(tools >= 5, "{tools}");

    let echo = tool(&hub, "everything", "everything__echo");
    assert!(
        echo.spec()
            .description
            .starts_with("[MCP server everything] ")
    );
    assert_eq!(echo.effect(&json!({})), ToolEffect::ReadOnly);
    assert!(
        echo.needs_approval(&json!({})),
        "a read-only claim still asks"
    );
    let reach = echo.reach(&json!({"message": "hi"}), &ctx());
    assert!(
        reach.contains("MCP server \"everything\"") && reach.contains("only reads"),
        "{reach}"
    );
    assert!(reach.contains("does not confine"), "{reach}");
    let out = within("echo", echo.call(json!({"message": "hi"}), &ctx())).await;
    assert_eq!(out.unwrap(), "Echo: hi");

    let sum = tool(&hub, "everything", "everything__get-sum");
    let out = within("sum", sum.call(json!({"a": 2, "b": 3}), &ctx()))
        .await
        .unwrap();
    assert!(out.contains('5'), "{out}");

    let image = tool(&hub, "everything", "everything__get-tiny-image");
    let out = within("image", image.call(json!({}), &ctx()))
        .await
        .unwrap();
    assert!(out.contains("[image: image/png, about"), "{out}");
    assert!(
        !out.contains("iVBOR"),
        "no raw base64 reaches the model: {out}"
    );

    // Only what a program needs of Hearth's environment gets through, then
    // the entry's own `env`.
    let env = tool(&hub, "everything", "everything__get-env");
    let out = within("env", env.call(json!({}), &ctx())).await.unwrap();
    assert!(
        out.contains("HEARTH_TEST_VAR") && out.contains("visible"),
        "{out}"
    );
    assert!(out.contains("\"PATH\""), "{out}");
    assert!(
        !out.contains("CARGO_MANIFEST_DIR"),
        "Hearth's own environment leaked: {out}"
    );

    let bad = within("echo", echo.call(json!("not an object"), &ctx())).await;
    assert!(
        matches!(bad, Err(ToolError::InvalidArguments(_))),
        "{bad:?}"
    );
    hub.shutdown().await;
    assert_eq!(hub.server("everything").unwrap().status(), Status::Stopped);
}

#[tokio::test]
async fn the_time_server_from_pypi_answers() {
    let hub = hub("time", time());
    let down = within("start", hub.prepare(&["time".into()])).await;
    assert!(down.is_empty(), "{down:?}");
    let now = tool(&hub, "time", "time__get_current_time");
    let out = within("call", now.call(json!({"timezone": "UTC"}), &ctx()))
        .await
        .unwrap();
    assert!(out.contains("\"timezone\"") && out.contains("UTC"), "{out}");
    let bad = within("call", now.call(json!({"timezone": "Not/AZone"}), &ctx())).await;
    let Err(ToolError::Failed(why)) = bad else {
        panic!("{bad:?}")
    };
    assert!(
        why.contains("Not/AZone"),
        "the server's own error reaches the model: {why}"
    );
}

#[tokio::test]
async fn the_filesystem_server_keeps_to_its_root() {
    let root = tempfile::tempdir().unwrap();
    let root_path = root.path().canonicalize().unwrap();
    std::fs::write(root_path.join("notes.md"), "inside").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "TOP-SECRET-CONTENT").unwrap();
    let hub = hub("fs", filesystem(&root_path));
    let down = within("start", hub.prepare(&["fs".into()])).await;
    assert!(down.is_empty(), "{down:?}");
    let read = tool(&hub, "fs", "fs__read_text_file");
    let inside = root_path.join("notes.md").display().to_string();
    let out = within("read", read.call(json!({"path": inside}), &ctx()))
        .await
        .unwrap();
    assert_eq!(out.trim(), "inside");
    let secret = outside.path().join("secret.txt").display().to_string();
    let out = within("read", read.call(json!({"path": secret}), &ctx())).await;
    let Err(ToolError::Failed(why)) = out else {
        panic!("read outside its root: {out:?}")
    };
    assert!(
        !why.contains("TOP-SECRET-CONTENT") && why.to_lowercase().contains("denied"),
        "{why}"
    );
    let write = tool(&hub, "fs", "fs__write_file");
    assert_eq!(write.effect(&json!({})), ToolEffect::Mutating);
    let reach = write.reach(&json!({}), &ctx());
    assert!(reach.contains("may change or delete"), "{reach}");
}

#[tokio::test]
async fn streamable_http_reaches_the_same_server() {
    // server-everything's own streamable HTTP transport, on a free port.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let stdio = everything();
    let mut child = tokio::process::Command::new("node")
        .arg(&stdio.args[0])
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // Wait for its "listening" line, not for time.
    let stderr = child.stderr.take().unwrap();
    within("listening", async {
        use tokio::io::AsyncBufReadExt;
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.contains("listening") {
                return;
            }
        }
        panic!("the server exited before listening");
    })
    .await;
    let config = ServerConfig {
        url: Some(format!("http://127.0.0.1:{port}/mcp")),
        ..ServerConfig::default()
    };
    let hub = hub("web", config);
    let down = within("start", hub.prepare(&["web".into()])).await;
    assert!(down.is_empty(), "{down:?}");
    let echo = tool(&hub, "web", "web__echo");
    let out = within("echo", echo.call(json!({"message": "over http"}), &ctx())).await;
    assert_eq!(out.unwrap(), "Echo: over http");
    hub.shutdown().await;
}
