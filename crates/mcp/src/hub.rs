//! Every configured server, as one source of tools for the agent. A
//! profile names the servers it uses; their tools are offered to its runs
//! only (docs/extending.md).

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use hearth_core::{Tool, ToolSource, Unavailable};

use crate::apps::{AppCall, AppViews};
use crate::config::ServerConfig;
use crate::listings::{Book, Listings};
use crate::server::Server;

/// The configured servers.
#[derive(Default)]
pub struct Hub {
    servers: RwLock<BTreeMap<String, Arc<Server>>>,
    /// Where the servers' first listings are kept across restarts.
    book: Option<Arc<Book>>,
    /// Calls of tools with apps, of every server (`apps.rs`).
    views: Arc<AppViews>,
}

impl Hub {
    /// A hub with `servers`, none started; each tool's first listing is
    /// the reference for this process only.
    pub fn new(servers: BTreeMap<String, ServerConfig>) -> Arc<Self> {
        Self::build(servers, None)
    }

    /// [`Hub::new`], each tool's first listing kept in `listings` across
    /// restarts of Hearth (security review N4: a restart is no way to make
    /// a changed tool's description trusted).
    pub fn with_listings(
        servers: BTreeMap<String, ServerConfig>,
        listings: Arc<dyn Listings>,
    ) -> Arc<Self> {
        Self::build(servers, Some(Book::new(listings)))
    }

    fn build(servers: BTreeMap<String, ServerConfig>, book: Option<Arc<Book>>) -> Arc<Self> {
        let views = Arc::<AppViews>::default();
        let servers = servers
            .into_iter()
            .map(|(name, config)| {
                let server = Server::kept_in(&name, config, book.clone(), views.clone());
                (name, server)
            })
            .collect();
        Arc::new(Self {
            servers: RwLock::new(servers),
            book,
            views,
        })
    }

    /// The call `call_id` of run `run_id` when its tool has an app that
    /// can be shown, with its server: `None` for a call with no app (or
    /// one made before Hearth started); an error when the server was
    /// removed or configured anew in any way (an app talks to the server
    /// that made it, never to another one given its name, its credentials
    /// or its environment).
    pub fn app_call(
        &self,
        run_id: &str,
        call_id: &str,
    ) -> Result<Option<(AppCall, Arc<Server>)>, String> {
        let Some(call) = self.views.get(run_id, call_id) else {
            return Ok(None);
        };
        match self.server(&call.server) {
            Some(server) if server.id() == call.server_id => Ok(Some((call, server))),
            _ => Err(format!(
                "the MCP server \"{}\" was removed or changed since this call, so its app is not shown",
                call.server
            )),
        }
    }

    /// Take a new configuration: servers removed or changed are stopped
    /// (a changed one starts again, as configured now, when next needed);
    /// unchanged ones keep running.
    pub async fn configure(&self, servers: BTreeMap<String, ServerConfig>) {
        let mut stale = Vec::new();
        if let Ok(mut map) = self.servers.write() {
            let old = std::mem::take(&mut *map);
            for (name, server) in old {
                match servers.get(&name) {
                    Some(config) if config == server.config() => {
                        map.insert(name, server);
                    }
                    _ => stale.push(server),
                }
            }
            for (name, config) in servers {
                map.entry(name.clone()).or_insert_with(|| {
                    Server::kept_in(&name, config, self.book.clone(), self.views.clone())
                });
            }
        }
        for server in stale {
            server.stop().await;
        }
    }

    /// Start the servers called `names` that are stopped (and not
    /// disabled), in the background: after a save, what the user added or
    /// changed is usable at once.
    pub fn start_soon(&self, names: &[String]) {
        for server in names.iter().filter_map(|n| self.server(n)) {
            server.start_soon();
        }
    }

    /// The server called `name`.
    pub fn server(&self, name: &str) -> Option<Arc<Server>> {
        self.servers.read().ok()?.get(name).cloned()
    }

    /// Every server, by name.
    pub fn servers(&self) -> Vec<Arc<Server>> {
        self.servers
            .read()
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Stop every server (the app is closing).
    pub async fn shutdown(&self) {
        for server in self.servers() {
            server.stop().await;
        }
    }
}

#[async_trait]
impl ToolSource for Hub {
    fn tools(&self, servers: &[String]) -> Vec<Arc<dyn Tool>> {
        servers
            .iter()
            .filter_map(|name| self.server(name))
            .flat_map(|s| s.dyn_tools())
            .collect()
    }

    async fn prepare(&self, servers: &[String]) -> Vec<Unavailable> {
        let starts = servers.iter().map(|name| async move {
            let Some(server) = self.server(name) else {
                return Some(Unavailable {
                    server: name.clone(),
                    reason: "no MCP server of this name is configured (add it in Tools, or \
                             remove it from the profile)"
                        .into(),
                });
            };
            server.prepare().await.err().map(|reason| Unavailable {
                server: name.clone(),
                reason: reason.to_string(),
            })
        });
        futures::future::join_all(starts)
            .await
            .into_iter()
            .flatten()
            .collect()
    }
}
