//! MCP Apps (`apps.rs`): the extension declared, a tool's app and who may
//! call it read from its `_meta`, the model's call kept for the app with
//! the server's whole result, and the app's document read and checked;
//! against the MCP Apps project's own example server and, for what it
//! does not show (visibility, wrong types), the scripted one.

use hearth_core::{ToolContext, ToolSource};
use hearth_mcp::apps::app_document;
use hearth_mcp::{ServerConfig, Status};
use serde_json::json;

use crate::support::{basic_app, ctx, hub, scripted, tool, within};

fn call_ctx(run: &str, call: &str) -> ToolContext {
    let mut c = ctx();
    run.clone_into(&mut c.run_id);
    call.clone_into(&mut c.call_id);
    c
}

#[tokio::test]
async fn the_example_servers_app_gets_its_call_its_document_and_its_own_calls() {
    let hub = hub("basic", basic_app());
    let down = within("start", hub.prepare(&["basic".into()])).await;
    assert!(down.is_empty(), "{down:?}");
    let server = hub.server("basic").unwrap();
    assert!(matches!(server.status(), Status::Running { .. }));
    let get_time = server
        .tools()
        .into_iter()
        .find(|t| t.remote_name() == "get-time")
        .expect("get-time listed");
    assert_eq!(
        get_time.ui().resource_uri.as_deref(),
        Some("ui://get-time/mcp-app.html")
    );

    // The model's call: text for the model, the whole result for the app.
    let model_tool = tool(&hub, "basic", "basic__get-time");
    let text = within(
        "call",
        model_tool.call(json!({}), &call_ctx("run-1", "call-1")),
    )
    .await
    .unwrap();
    assert!(
        text.contains('T') && text.ends_with('Z'),
        "an ISO time: {text}"
    );
    let (call, app_server) = hub
        .app_call("run-1", "call-1")
        .unwrap()
        .expect("kept for its app");
    assert_eq!(app_server.name(), "basic");
    assert_eq!(call.tool, "get-time");
    let result = call.result.expect("the result is kept");
    assert_eq!(result["structuredContent"]["time"], json!(text));
    assert!(hub.app_call("run-1", "other").unwrap().is_none());
    assert!(hub.app_call("run-2", "call-1").unwrap().is_none());

    // Its document, as the server serves it.
    let read = within("read", app_server.read_resource(&call.resource_uri))
        .await
        .unwrap();
    let doc = app_document(&call.resource_uri, &read).unwrap();
    assert!(
        doc.html.contains("id=\"get-time-btn\""),
        "the example's own page"
    );
    assert!(doc.asked_domains.is_empty());

    // The app's own call (its "Get Server Time" button).
    let own = app_server.app_tool("get-time").unwrap();
    let again = within("app call", own.call_for_app(serde_json::Map::new()))
        .await
        .unwrap();
    let again = serde_json::to_value(again).unwrap();
    assert!(again["structuredContent"]["time"].is_string(), "{again}");
    assert!(app_server.app_tool("no-such-tool").is_err());
}

#[tokio::test]
async fn visibility_keeps_app_tools_from_the_model_and_model_tools_from_apps() {
    let hub = hub("apps", scripted("apps"));
    let down = within("start", hub.prepare(&["apps".into()])).await;
    assert!(down.is_empty(), "{down:?}");
    let server = hub.server("apps").unwrap();

    // The extension is declared in `initialize`.
    let log = server.log().join("\n");
    assert!(
        log.contains(r#"client extensions {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}"#),
        "{log}"
    );

    let offered: Vec<String> = server.dyn_tools().iter().map(|t| t.spec().name).collect();
    assert!(offered.contains(&"apps__show".to_owned()), "{offered:?}");
    assert!(offered.contains(&"apps__secret".to_owned()), "{offered:?}");
    assert!(
        !offered.contains(&"apps__refresh".to_owned()),
        "an app-only tool is not the model's: {offered:?}"
    );

    assert!(server.app_tool("refresh").is_ok());
    assert!(server.app_tool("show").is_ok());
    let refused = server.app_tool("secret").err().unwrap();
    assert!(
        refused.contains("does not let its apps call `secret`"),
        "{refused}"
    );

    // A call with an app is kept with its arguments and result; one whose
    // "app" is a web page, or that has none, is not.
    let show = tool(&hub, "apps", "apps__show");
    within(
        "show",
        show.call(json!({"start": 3}), &call_ctx("r", "show-1")),
    )
    .await
    .unwrap();
    let (call, _) = hub.app_call("r", "show-1").unwrap().unwrap();
    assert_eq!(call.arguments, json!({"start": 3}));
    assert_eq!(call.result.unwrap()["structuredContent"]["tool"], "show");
    for (name, id) in [("apps__web", "web-1"), ("apps__secret", "secret-1")] {
        within(
            name,
            tool(&hub, "apps", name).call(json!({}), &call_ctx("r", id)),
        )
        .await
        .unwrap();
        assert!(
            hub.app_call("r", id).unwrap().is_none(),
            "{name} has no app"
        );
    }

    // Documents: the app's, checked; one of the wrong type refused; an
    // unknown one is the server's error.
    let read = within("read", server.read_resource("ui://apps/show.html"))
        .await
        .unwrap();
    let doc = app_document("ui://apps/show.html", &read).unwrap();
    assert_eq!(doc.asked_domains, ["https://api.example"]);
    assert_eq!(doc.prefers_border, Some(true));
    let plain = within("read", server.read_resource("ui://apps/plain.html"))
        .await
        .unwrap();
    assert!(
        app_document("ui://apps/plain.html", &plain)
            .unwrap_err()
            .contains("not an MCP app")
    );
    let missing = within("read", server.read_resource("ui://apps/none"))
        .await
        .unwrap_err();
    assert!(
        missing.contains("could not read ui://apps/none"),
        "{missing}"
    );

    // Configured anew under the same name — only its environment changed
    // (a key the app must not get to use) — it is not the server the app
    // came from.
    let mut other: ServerConfig = scripted("apps");
    other.env.insert("API_KEY".into(), "another account".into());
    hub.configure(std::iter::once(("apps".to_owned(), other)).collect())
        .await;
    let gone = hub.app_call("r", "show-1").err().unwrap();
    assert!(
        gone.contains("removed or changed since this call"),
        "{gone}"
    );
}
