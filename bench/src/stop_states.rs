//! (b) Stop latency at moments reached by state rather than by a random
//! delay: while the model loads (the simulator holds the load), during a
//! tool call (a tool that never returns) and inside a sub-agent (its
//! answer streaming). Each is timed from `RunHandle::stop()` until
//! `stream_stopped` is delivered; inside a sub-agent also until the
//! simulator saw the child's connection close. A stop during a load closes
//! nothing: the load goes on (and must not be aborted).

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use hearth_core::{Agent, ModelBackend, RunHandle, Tool, ToolContext, ToolError, ToolSpec};
use hearth_protocol::EventKind;
use hearth_sim::{Hold, Reply, SimHandle, ToolCallSpec};
use serde_json::{Value, json};

use crate::MODEL;
use crate::stop_latency::{Rng, WAIT, closed, stopped};

/// A tool that never returns: the run is stopped while it runs.
pub struct Block;

#[async_trait]
impl Tool for Block {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "block".into(),
            description: "waits until the run is stopped".into(),
            parameters: json!({"type": "object", "properties": {}}),
        }
    }

    async fn call(&self, _arguments: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        std::future::pending().await
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Reads the run's events until `hit` says so.
async fn until(
    run: &mut RunHandle,
    i: usize,
    what: &str,
    hit: impl Fn(&hearth_protocol::AgentEvent) -> bool,
) -> Result<(), String> {
    let wait = async {
        while let Some(e) = run.next_event().await {
            if hit(&e) {
                return Ok(());
            }
            if e.kind.is_terminal() && !e.scope.is_subagent {
                return Err(format!("run {i} ended before {what}: {:?}", e.kind));
            }
        }
        Err(format!("run {i} ended before {what}"))
    };
    tokio::time::timeout(WAIT, wait)
        .await
        .map_err(|_| format!("run {i}: no {what}"))?
}

/// Stops while the model loads: unloaded first, the load held by the
/// simulator, the stop pressed once the load began.
pub async fn while_loading(
    sim: &SimHandle,
    agent: &Arc<Agent>,
    backend: &Arc<dyn ModelBackend>,
    stops: usize,
) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for i in 0..stops {
        backend
            .unload(MODEL)
            .await
            .map_err(|e| format!("unload: {e}"))?;
        sim.hold(Hold::Load);
        let before = sim.stats();
        let mut run = agent.run_stream(&format!("load{i}"), "go");
        sim.wait_until(|s| s.loads_started > before.loads_started, WAIT)
            .await
            .map_err(|s| format!("run {i}: no load began: {s:?}"))?;
        let t0 = Instant::now();
        run.stop();
        let latency = stopped(&mut run, t0, i).await;
        sim.release(Hold::Load);
        out.push(ms(latency?));
        tokio::time::timeout(WAIT, agent.loads().settled())
            .await
            .map_err(|_| format!("run {i}: the load never ended"))?;
        let after = sim.stats();
        if after.aborted_loads != before.aborted_loads || after.loads != before.loads + 1 {
            return Err(format!("run {i}: the stop hurt the load: {after:?}"));
        }
    }
    Ok(out)
}

/// Stops while a tool runs (one that never returns).
pub async fn during_tool(
    sim: &SimHandle,
    agent: &Arc<Agent>,
    stops: usize,
) -> Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for i in 0..stops {
        sim.push_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "block",
            json!({}),
        )]));
        let mut run = agent.run_stream(&format!("tool{i}"), "go");
        until(&mut run, i, "the tool call", |e| {
            matches!(e.kind, EventKind::ToolStarted { .. })
        })
        .await?;
        let t0 = Instant::now();
        run.stop();
        out.push(ms(stopped(&mut run, t0, i).await?));
    }
    Ok(out)
}

/// Stops while a sub-agent's answer streams, at a seeded random moment
/// after its first piece.
pub async fn in_subagent(
    sim: &SimHandle,
    agent: &Arc<Agent>,
    stops: usize,
) -> Result<Vec<f64>, String> {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let words: String = (0..2000).map(|i| format!(" t{i}")).collect();
    let mut out = Vec::new();
    for i in 0..stops {
        sim.push_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "spawn_agent",
            json!({"task": "count"}),
        )]));
        sim.push_reply(Reply::text(words.clone()).with_token_ms(1));
        let before = sim.stats();
        let mut run = agent.run_stream(&format!("sub{i}"), "go");
        until(&mut run, i, "the sub-agent's answer", |e| {
            e.scope.is_subagent && matches!(e.kind, EventKind::TextDelta { .. })
        })
        .await?;
        tokio::time::sleep(Duration::from_millis(rng.below(30))).await;
        let t0 = Instant::now();
        run.stop();
        let (a, b) = tokio::join!(
            stopped(&mut run, t0, i),
            closed(sim, before.cancelled, t0, i)
        );
        out.push(ms(a?.max(b?)));
    }
    Ok(out)
}
