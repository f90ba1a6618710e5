//! What a grant is bound to, and when a profile change widens what the
//! model may do. A "yes" (pre-approved in a profile, or "allow for this
//! session") was given for one tool in one profile, one workspace and one
//! backend; it covers nothing else. A profile the model switches to, or a
//! sub-agent it starts, that could do more than the current one is put to
//! the user first.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::profile::Profile;

/// Where a grant holds: profile, workspace and backend.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Scope {
    /// Profile name.
    pub profile: String,
    /// Its workspace.
    pub workspace: Option<PathBuf>,
    /// Its backend (`None`: the default).
    pub backend: Option<String>,
}

impl Scope {
    /// The scope of a profile as it is now.
    pub fn of(profile: &Profile) -> Self {
        Self {
            profile: profile.name.clone(),
            workspace: profile.workspace.clone(),
            backend: profile.backend.clone(),
        }
    }
}

/// Tools a profile pre-approved, bound to the scope it had when the run
/// started.
#[derive(Debug, Clone, Default)]
pub(crate) struct Preapproved {
    pub tools: Vec<String>,
    pub scope: Scope,
}

impl Preapproved {
    pub(crate) fn of(profile: &Profile) -> Self {
        Self {
            tools: profile.auto_approve.clone(),
            scope: Scope::of(profile),
        }
    }

    /// Whether `tool` runs without asking in a call's scope (its
    /// `ToolContext::scope`).
    pub(crate) fn covers(&self, tool: &str, scope: &Scope) -> bool {
        self.tools.iter().any(|t| t == tool) && self.scope == *scope
    }
}

fn tool_set(tools: Option<&Vec<String>>) -> Option<BTreeSet<&str>> {
    tools.map(|t| t.iter().map(String::as_str).collect())
}

/// How `to` could do more than `from`, one phrase per way, for the
/// question put to the user (empty: it widens nothing).
pub fn widening(from: &Profile, to: &Profile) -> Vec<String> {
    let mut out = Vec::new();
    if to.workspace.is_some() && to.workspace != from.workspace {
        let now = from
            .workspace
            .as_ref()
            .map_or_else(|| "none".to_owned(), |w| w.display().to_string());
        out.push(format!(
            "works in {} (now: {now})",
            to.workspace
                .as_ref()
                .map(|w| w.display().to_string())
                .unwrap_or_default()
        ));
    }
    match (tool_set(from.tools.as_ref()), tool_set(to.tools.as_ref())) {
        (Some(_), None) => out.push("can use every tool".into()),
        (Some(a), Some(b)) => {
            let more: Vec<&str> = b.difference(&a).copied().collect();
            if !more.is_empty() {
                out.push(format!("adds the tools {}", more.join(", ")));
            }
        }
        (None, _) => {}
    }
    let more: Vec<&str> = to
        .auto_approve
        .iter()
        .filter(|t| !from.auto_approve.contains(t))
        .map(String::as_str)
        .collect();
    if !more.is_empty() {
        out.push(format!("runs {} without asking", more.join(", ")));
    }
    let servers: Vec<&str> = to
        .mcp_servers
        .iter()
        .filter(|s| !from.mcp_servers.contains(s))
        .map(String::as_str)
        .collect();
    if !servers.is_empty() {
        out.push(format!(
            "starts the MCP servers {} (programs that run with your rights) and offers their tools",
            servers.join(", ")
        ));
    }
    if to.sandbox_off && !from.sandbox_off {
        out.push("runs shell commands WITHOUT the sandbox".into());
    }
    if guard_rank(to.input_guard) < guard_rank(from.input_guard) {
        out.push(format!(
            "screens less for prompt injections (input guard {:?}, now {:?})",
            to.input_guard, from.input_guard
        ));
    }
    if to.backend != from.backend {
        out.push(format!(
            "sends the conversation to the backend {}",
            to.backend.as_deref().unwrap_or("Ollama (the default)")
        ));
    }
    out
}

/// A profile that may do nothing, to compare `like` with when the caller's
/// own profile is unknown.
pub(crate) fn nothing(like: &Profile) -> Profile {
    let mut p = Profile::new(String::new(), like.model.clone());
    p.tools = Some(Vec::new());
    p.backend.clone_from(&like.backend);
    p
}

/// How much the input guard does, for comparing two profiles.
fn guard_rank(mode: hearth_protocol::GuardMode) -> u8 {
    use hearth_protocol::GuardMode;
    match mode {
        GuardMode::Off => 0,
        GuardMode::Log => 1,
        GuardMode::Warn => 2,
        GuardMode::Block => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hearth_protocol::GuardMode;

    fn base() -> Profile {
        Profile {
            tools: Some(vec!["read_file".into(), "write_file".into()]),
            workspace: Some("/home/sam/notes".into()),
            auto_approve: vec!["write_file".into()],
            input_guard: GuardMode::Block,
            ..Profile::new("Notes", "m")
        }
    }

    #[test]
    fn every_way_a_profile_can_do_more_is_named() {
        let from = base();
        type Change = Box<dyn Fn(&mut Profile)>;
        let cases: Vec<(&str, Change, &str)> = vec![
            (
                "workspace",
                Box::new(|p| p.workspace = Some("/home/sam".into())),
                "works in /home/sam",
            ),
            ("all tools", Box::new(|p| p.tools = None), "every tool"),
            (
                "a tool",
                Box::new(|p| p.tools.as_mut().unwrap().push("run_shell".into())),
                "adds the tools run_shell",
            ),
            (
                "pre-approval",
                Box::new(|p| p.auto_approve.push("run_shell".into())),
                "runs run_shell without asking",
            ),
            (
                "no sandbox",
                Box::new(|p| p.sandbox_off = true),
                "WITHOUT the sandbox",
            ),
            (
                "weaker guard",
                Box::new(|p| p.input_guard = GuardMode::Off),
                "screens less",
            ),
            (
                "backend",
                Box::new(|p| p.backend = Some("cloud".into())),
                "backend cloud",
            ),
            (
                "an MCP server",
                Box::new(|p| p.mcp_servers.push("fs".into())),
                "starts the MCP servers fs",
            ),
        ];
        for (what, change, said) in cases {
            let mut to = base();
            change(&mut to);
            let wider = widening(&from, &to);
            assert_eq!(wider.len(), 1, "{what}: {wider:?}");
            assert!(wider[0].contains(said), "{what}: {wider:?}");
        }
    }

    #[test]
    fn a_profile_that_does_less_or_the_same_widens_nothing() {
        let from = base();
        assert!(widening(&from, &base()).is_empty());
        let mut less = base();
        less.tools = Some(vec!["read_file".into()]);
        less.auto_approve.clear();
        less.workspace = None;
        assert!(widening(&from, &less).is_empty());
    }
}
