//! Hearth's MCP client as the official conformance suite drives a client
//! (`@modelcontextprotocol/conformance client --command …`): the suite
//! starts a test server for one scenario and runs this program with the
//! server's URL as its last argument and the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO`. This program does what Hearth does with a
//! configured streamable-HTTP server — start it through a [`Hub`], list its
//! tools, call them as a model's tool call would — so the suite checks the
//! very code the app runs. It exits non-zero when the client fails.
//! Run by `crates/mcp/tests/suite/conformance.rs`.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use hearth_core::{ToolContext, ToolSource};
use hearth_mcp::{Hub, ServerConfig};
use serde_json::{Value, json};

/// The name the server is configured under (its tools are `conformance__…`).
const NAME: &str = "conformance";
/// Bounds every step: the suite's own timeout is 30 s.
const WAIT: Duration = Duration::from_secs(25);

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: conformance_client URL (MCP_CONFORMANCE_SCENARIO names the scenario)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    match tokio::time::timeout(WAIT, run(&url, &scenario)).await {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("conformance client ({scenario}): {e}");
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!("conformance client ({scenario}): no end within {WAIT:?}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str, scenario: &str) -> Result<(), String> {
    let config = ServerConfig {
        url: Some(url.to_owned()),
        ..ServerConfig::default()
    };
    let hub = Hub::new(BTreeMap::from([(NAME.to_owned(), config)]));
    let down = hub.prepare(&[NAME.to_owned()]).await;
    if !down.is_empty() {
        return Err(format!("the server did not start: {down:?}"));
    }
    let server = hub.server(NAME).ok_or("the server is not configured")?;
    let tools = server.dyn_tools();
    let names: Vec<String> = tools.iter().map(|t| t.spec().name).collect();
    println!("tools: {names:?}");
    // Each scenario's tool, called with what its schema asks for.
    let call: Option<(&str, Value)> = match scenario {
        "tools_call" => Some(("add_numbers", json!({"a": 5, "b": 3}))),
        "sse-retry" => Some(("test_reconnection", json!({}))),
        "elicitation-sep1034-client-defaults" => {
            Some(("test_client_elicitation_defaults", json!({})))
        }
        _ => None,
    };
    let result = match call {
        None => Ok(()),
        Some((tool, args)) => {
            let wanted = format!("{NAME}__{tool}");
            let t = tools
                .iter()
                .find(|t| t.spec().name == wanted)
                .ok_or_else(|| format!("{wanted} is not among {names:?}"))?;
            t.call(args, &context())
                .await
                .map(|out| println!("{wanted}: {out}"))
                .map_err(|e| format!("{wanted} failed: {e}"))
        }
    };
    hub.shutdown().await;
    result
}

/// A tool call's context outside any run.
fn context() -> ToolContext {
    ToolContext {
        session_id: "conformance".into(),
        conversation: "conformance".into(),
        run_id: "r".into(),
        call_id: "c".into(),
        cancel: tokio_util::sync::CancellationToken::new(),
        events: hearth_core::EventSink::discard(hearth_protocol::RunScope::top("conformance", "r")),
        workspace: None,
        scope: hearth_core::rights::Scope::default(),
        approver: None,
        depth: 0,
        sandbox_off: false,
        read_only: false,
        window: 0,
    }
}
