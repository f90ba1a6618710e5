//! Built-in tools. Each declares its JSON schema and whether it mutates.

mod arith;
mod calculator;
mod read_attachment;
mod remember;
mod spawn_agent;
mod switch_profile;
mod time;
mod update_plan;

pub use calculator::Calculator;
pub use read_attachment::ReadAttachment;
pub use remember::Remember;
pub use spawn_agent::SpawnAgent;
pub use switch_profile::{ProfileSwitcher, SwitchError, SwitchProfile};
pub use time::CurrentTime;
pub use update_plan::UpdatePlan;

use std::sync::Arc;

use crate::tool::ToolRegistry;

/// A registry with the harmless built-in tools.
pub fn builtin_registry() -> ToolRegistry {
    let mut r = ToolRegistry::new();
    r.register(Arc::new(CurrentTime))
        .register(Arc::new(Calculator))
        .register(Arc::new(UpdatePlan));
    r
}
