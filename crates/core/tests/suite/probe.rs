//! Test tools: one that sleeps and records how many calls overlap, one that
//! switches the active profile.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use hearth_core::{StaticProfiles, Tool, ToolContext, ToolEffect, ToolError, ToolSpec};
use serde_json::{Value, json};

#[derive(Default)]
pub struct Probe {
    pub name: &'static str,
    pub mutating: bool,
    /// Refuses "allow for this session" (as run_shell does).
    pub ask_every_time: bool,
    pub in_flight: AtomicUsize,
    pub max_in_flight: AtomicUsize,
    pub calls: AtomicUsize,
}

impl Probe {
    pub fn new(name: &'static str, mutating: bool) -> Arc<Self> {
        Arc::new(Self {
            name,
            mutating,
            ..Self::default()
        })
    }
}

#[async_trait]
impl Tool for Probe {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.into(),
            description: "sleeps for `ms` then echoes `tag`".into(),
            parameters: json!({"type": "object", "properties": {"ms": {"type": "integer"}, "tag": {"type": "string"}}}),
        }
    }

    fn session_allowance(&self) -> bool {
        !self.ask_every_time
    }

    fn effect(&self, _args: &Value) -> ToolEffect {
        if self.mutating {
            ToolEffect::Mutating
        } else {
            ToolEffect::ReadOnly
        }
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        if args.get("fail").is_some() {
            return Err(ToolError::Failed("probe asked to fail".into()));
        }
        Ok(format!(
            "{}:{}",
            self.name,
            args.get("tag").and_then(Value::as_str).unwrap_or("")
        ))
    }
}

pub struct Switch(pub Arc<StaticProfiles>);

#[async_trait]
impl Tool for Switch {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "switch_profile".into(),
            description: "switch the active profile".into(),
            parameters: json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        }
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        let name = args["name"].as_str().unwrap_or_default();
        if self.0.switch(name) {
            Ok(format!("switched to {name}"))
        } else {
            Err(ToolError::Failed(format!("no profile {name}")))
        }
    }
}
