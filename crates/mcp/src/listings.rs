//! Each tool's first listing, kept across Hearth's restarts (security
//! review N4). A tool that changes what it tells the model after the user
//! pre-approved it is asked again on every call; without this record a
//! restart of Hearth made the changed listing the new reference, and the
//! pre-approval (by name) covered it again.
//!
//! The record holds, per server, the program line it runs (redacted as the
//! Tools panel shows it: a configuration that runs something else starts
//! afresh) and a SHA-256 of each tool's description and schema. Where it is
//! kept is the front end's choice ([`Listings`]: the database, through
//! hearth-compose).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// What every server's first listings were.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    /// By server name.
    pub servers: BTreeMap<String, ServerListing>,
}

/// One server's first listing.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerListing {
    /// The program line (or URL) it ran, redacted.
    pub runs: String,
    /// Each tool's fingerprint, by the server's name for it.
    pub tools: BTreeMap<String, String>,
}

/// Where the record lives.
#[async_trait]
pub trait Listings: Send + Sync {
    /// The record as kept (empty when there is none); `Err` when it cannot
    /// be read now (a busy database): the hub then fails closed, and never
    /// writes a record it could not read first.
    async fn load(&self) -> Result<Kept, String>;
    /// Keep `kept` in place of the record.
    async fn save(&self, kept: &Kept);
}

/// The record shared by a hub's servers: one read-modify-write at a time.
pub(crate) struct Book {
    place: Arc<dyn Listings>,
    lock: tokio::sync::Mutex<()>,
}

impl Book {
    pub(crate) fn new(place: Arc<dyn Listings>) -> Arc<Self> {
        Arc::new(Self {
            place,
            lock: tokio::sync::Mutex::new(()),
        })
    }

    /// The fingerprints `server` listed first while it ran `runs`.
    pub(crate) async fn reference(
        &self,
        server: &str,
        runs: &str,
    ) -> Result<HashMap<String, String>, String> {
        let _one = self.lock.lock().await;
        Ok(self
            .place
            .load()
            .await?
            .servers
            .remove(server)
            .filter(|s| s.runs == runs)
            .map(|s| s.tools.into_iter().collect())
            .unwrap_or_default())
    }

    /// Keep `tools` as `server`'s first listing while it runs `runs`. A
    /// record that cannot be read is not written over (it would lose the
    /// other servers' listings).
    pub(crate) async fn record(&self, server: &str, runs: &str, tools: &HashMap<String, String>) {
        let _one = self.lock.lock().await;
        let Ok(mut kept) = self.place.load().await else {
            return;
        };
        let listing = ServerListing {
            runs: runs.to_owned(),
            tools: tools.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        };
        if kept.servers.get(server) == Some(&listing) {
            return;
        }
        kept.servers.insert(server.to_owned(), listing);
        self.place.save(&kept).await;
    }
}
