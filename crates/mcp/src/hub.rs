//! Every configured server, as one source of tools for the agent. A
//! profile names the servers it uses; their tools are offered to its runs
//! only (docs/extending.md).

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use hearth_core::{Tool, ToolSource, Unavailable};

use crate::config::ServerConfig;
use crate::server::Server;

/// The configured servers.
#[derive(Default)]
pub struct Hub {
    servers: RwLock<BTreeMap<String, Arc<Server>>>,
}

impl Hub {
    /// A hub with `servers`, none started.
    pub fn new(servers: BTreeMap<String, ServerConfig>) -> Arc<Self> {
        let hub = Arc::new(Self::default());
        if let Ok(mut map) = hub.servers.write() {
            for (name, config) in servers {
                map.insert(name.clone(), Server::new(&name, config));
            }
        }
        hub
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
                map.entry(name.clone())
                    .or_insert_with(|| Server::new(&name, config));
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
                reason,
            })
        });
        futures::future::join_all(starts)
            .await
            .into_iter()
            .flatten()
            .collect()
    }
}
