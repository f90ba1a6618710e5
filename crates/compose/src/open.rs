//! What a front end gathers from the database before it composes an agent —
//! the profiles, the per-model settings, the saved hosts, the MCP servers,
//! the hooks, the skills, and the approvals its runs will ask — in one call
//! ([`open`]), for the desktop app and the CLI alike (each used to make
//! about a dozen calls of its own, in its own order). What differs between
//! them is said, not coded twice: how an unusable hook configuration is
//! met ([`UnusableHooks`]), and the backends and profile provider each
//! brings ([`Inputs::agent`]).

use std::sync::Arc;

use hearth_core::hooks::Hooks;
use hearth_core::{Agent, Approvals, Hosts, LoadOptions, ModelBackend, ModelSettings};
use hearth_core::{ProfileProvider, Runs};
use hearth_store::{Profiles, Store, StoreError};

use crate::{HooksError, Parts};

/// How a saved hook configuration that cannot be used is met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnusableHooks {
    /// The app opens and chats; every tool call is blocked with the reason
    /// until the user fixes the hooks.
    Block,
    /// The command refuses to start (`hearth chat`: the user is at the
    /// terminal to fix it now).
    Refuse,
}

/// Why the inputs could not be gathered.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The database failed reading the profiles or the settings.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The hooks cannot be used (only with [`UnusableHooks::Refuse`]).
    #[error(transparent)]
    Hooks(#[from] HooksError),
}

/// What the agent is composed from, read from the database once.
#[derive(Clone)]
pub struct Inputs {
    /// Sessions, memory, traces.
    pub store: Arc<Store>,
    /// The store's profiles (the CLI wraps them with its flags).
    pub profiles: Arc<Profiles>,
    /// Per-model load options.
    pub settings: Arc<ModelSettings>,
    /// The hosts the user added, shared with the agent.
    pub hosts: Arc<Hosts>,
    /// The MCP servers the user configured, none started.
    pub mcp: Arc<hearth_mcp::Hub>,
    /// The user's hooks (or, for the app, hooks that block every call when
    /// the saved ones cannot be used).
    pub hooks: Arc<dyn Hooks>,
    /// The user's skills.
    pub skills: Arc<hearth_tools::Skills>,
    /// The questions the agent's runs ask, shared with [`Inputs::runs`].
    pub approvals: Arc<Approvals>,
    /// The knowledge index, shared by the agent's tool and the front
    /// end's own use of it (`None`: it cannot be opened).
    pub knowledge: Option<hearth_knowledge::Index>,
}

/// Gather the inputs kept in `store`.
pub async fn open(store: Arc<Store>, unusable: UnusableHooks) -> Result<Inputs, OpenError> {
    let profiles = Profiles::load(&store).await?;
    let settings = Arc::new(store.model_settings(LoadOptions::default()).await?);
    let hosts = crate::saved_hosts(&store).await;
    let mcp = crate::mcp_hub(&store).await;
    let hooks = match unusable {
        UnusableHooks::Block => crate::hooks_or_blocking(&store).await,
        UnusableHooks::Refuse => crate::hooks(&store).await?,
    };
    let skills = crate::skills(&store, &profiles);
    let knowledge = crate::open_knowledge(&store);
    Ok(Inputs {
        store,
        profiles,
        settings,
        hosts,
        mcp,
        hooks,
        skills,
        approvals: Arc::default(),
        knowledge,
    })
}

impl Inputs {
    /// The agent over these inputs with the front end's `backend` (the
    /// default, Ollama), the backends a profile selects by name (`named`),
    /// and the profiles runs read (`provider`; `None`: the store's).
    pub fn agent(
        &self,
        backend: Arc<dyn ModelBackend>,
        named: Vec<(String, Arc<dyn ModelBackend>)>,
        provider: Option<Arc<dyn ProfileProvider>>,
    ) -> Arc<Agent> {
        crate::agent(Parts {
            backend,
            named,
            hosts: self.hosts.clone(),
            provider: provider.unwrap_or_else(|| self.profiles.clone()),
            profiles: self.profiles.clone(),
            store: self.store.clone(),
            settings: self.settings.clone(),
            approvals: self.approvals.clone(),
            mcp: self.mcp.clone(),
            hooks: self.hooks.clone(),
            skills: self.skills.clone(),
            knowledge: self.knowledge.clone(),
        })
    }

    /// The front end's one way to runs, answering the questions of the
    /// agents these inputs compose.
    pub fn runs(&self) -> Runs {
        Runs::new(self.approvals.clone())
    }
}
