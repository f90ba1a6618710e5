//! Per-invocation overrides (`--model`, `--no-tools`, `--max-iterations`,
//! `--backend`)
//! over the stored profiles, without rewriting them.

use std::sync::Arc;

use hearth_core::{Profile, ProfileProvider};

/// A profile provider that adjusts what the inner one returns.
pub struct Overrides {
    /// The stored profiles.
    pub inner: Arc<dyn ProfileProvider>,
    /// Use this model instead of the profile's.
    pub model: Option<String>,
    /// Offer no tools.
    pub no_tools: bool,
    /// Cap model calls.
    pub max_iterations: Option<u32>,
    /// Serve the profile from this named backend (`--backend`).
    pub backend: Option<String>,
}

impl Overrides {
    fn apply(&self, mut p: Profile) -> Profile {
        if let Some(m) = &self.model {
            p.model.clone_from(m);
        }
        if self.no_tools {
            p.tools = Some(Vec::new());
        }
        if let Some(n) = self.max_iterations {
            p.max_iterations = n.max(1);
        }
        if self.backend.is_some() {
            p.backend.clone_from(&self.backend);
        }
        p
    }
}

impl ProfileProvider for Overrides {
    fn persona(&self) -> String {
        self.inner.persona()
    }

    fn active(&self, session_id: &str) -> Profile {
        self.apply(self.inner.active(session_id))
    }

    fn by_name(&self, name: &str) -> Option<Profile> {
        self.inner.by_name(name).map(|p| self.apply(p))
    }
}
