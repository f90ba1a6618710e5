//! What a grant is bound to, and when a profile change widens what the
//! model may do. A "yes" (pre-approved in a profile, or "allow for this
//! session") was given for one tool in one profile, one workspace and one
//! backend; it covers nothing else. A profile the model switches to, or a
//! sub-agent it starts, that could do more than the current one is put to
//! the user first.

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::profile::Profile;
use crate::tool::ToolContext;

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

    /// Whether `tool` runs without asking in the call's scope.
    pub(crate) fn covers(&self, tool: &str, ctx: &ToolContext) -> bool {
        self.tools.iter().any(|t| t == tool) && self.scope == ctx.scope
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
    if to.sandbox_off && !from.sandbox_off {
        out.push("runs shell commands WITHOUT the sandbox".into());
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
