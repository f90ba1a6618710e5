//! What each phase may use. The restriction is the core's, not the
//! prompt's: a phase's sub-run gets a fixed profile whose tool list holds
//! only what the phase allows, and the registry refuses any other name
//! ("unknown tool") whatever the model asks for.

use hearth_protocol::WorkflowPhase;

use crate::profile::Profile;
use crate::tool::{Offer, ToolEffect, ToolRegistry};

/// Built-in tools no phase sub-run gets: they start other agents, switch
/// the session's profile, write the user's memory or drive the top run's
/// plan card — each a way out of the phase's limits.
const NEVER_IN_A_PHASE: [&str; 4] = ["spawn_agent", "switch_profile", "remember", "update_plan"];

/// The one tool that runs things, which only the reviewer gets (it still
/// asks first, and runs in the sandbox).
const RUN_SHELL: &str = "run_shell";

/// The tools `phase` may call, of those `base` (the session's profile)
/// offers: built-in tools that change nothing, and for the review
/// `run_shell`. Tool servers' tools (MCP) are left out: whatever they say
/// of themselves, they run outside Hearth. Sorted.
pub(crate) fn tools_for(
    registry: &ToolRegistry,
    base: &Profile,
    phase: WorkflowPhase,
) -> Vec<String> {
    registry
        .offered(&Offer::of(base))
        .into_iter()
        .filter(|(name, _)| registry.get(name).is_some())
        .filter(|(name, _)| !NEVER_IN_A_PHASE.contains(&name.as_str()))
        .filter(|(name, tool)| {
            tool.effect(&serde_json::json!({})) == ToolEffect::ReadOnly
                || (phase == WorkflowPhase::Review && name == RUN_SHELL)
        })
        .map(|(name, _)| name)
        .collect()
}

/// The fixed profile of a phase's sub-run: the session's model, prompt,
/// host and workspace, with only `tools`, no tool servers or skills, and no
/// planning step (the phase is the plan).
pub(crate) fn profile_for(base: &Profile, tools: Vec<String>) -> Profile {
    Profile {
        tools: Some(tools),
        mcp_servers: Vec::new(),
        skills: Some(Vec::new()),
        planning_enabled: false,
        ..base.clone()
    }
}
