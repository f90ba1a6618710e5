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
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use hearth_core::StoreError;
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
    async fn load(&self) -> Result<Kept, StoreError>;
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
    ) -> Result<HashMap<String, String>, StoreError> {
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

/// One server's tools as first listed while it runs what it runs now:
/// across restarts of its process, and of Hearth where the hub keeps a
/// [`Book`]. A tool that differs later is asked despite a pre-approval.
pub(crate) struct FirstSeen {
    /// Each tool's fingerprint, by the server's name for it.
    prints: std::sync::Mutex<HashMap<String, String>>,
    book: Option<Arc<Book>>,
    /// The book was read. Marked only once it was: a start stopped during
    /// the read, or a record that could not be read, reads it next time.
    recalled: AtomicBool,
}

/// How a listing compares with the first one.
pub(crate) enum Compared {
    /// Per tool, in the listing's order: whether it changed.
    Known(Vec<bool>),
    /// The record could not be read (why): every tool counts as changed,
    /// and this listing was not taken as the first.
    Unread(StoreError),
}

impl FirstSeen {
    pub(crate) fn new(book: Option<Arc<Book>>) -> Self {
        Self {
            prints: std::sync::Mutex::default(),
            book,
            recalled: AtomicBool::new(false),
        }
    }

    /// `listed`: each tool's name and fingerprint now. A tool never seen
    /// before becomes its own first listing (and is recorded).
    pub(crate) async fn compare(
        &self,
        server: &str,
        runs: &str,
        listed: &[(String, String)],
    ) -> Compared {
        if let Some(book) = &self.book
            && !self.recalled.load(Ordering::SeqCst)
        {
            match book.reference(server, runs).await {
                Ok(kept) => {
                    let mut first = self.prints.lock().unwrap_or_else(|e| e.into_inner());
                    for (tool, print) in kept {
                        first.entry(tool).or_insert(print);
                    }
                    self.recalled.store(true, Ordering::SeqCst);
                }
                // Fails closed: no listing is known to be the first.
                Err(e) => return Compared::Unread(e),
            }
        }
        let (changed, grown) = {
            let mut first = self.prints.lock().unwrap_or_else(|e| e.into_inner());
            let known = first.len();
            let changed = listed
                .iter()
                .map(|(name, now)| first.entry(name.clone()).or_insert_with(|| now.clone()) != now)
                .collect();
            (changed, (first.len() != known).then(|| first.clone()))
        };
        if let (Some(book), Some(first)) = (&self.book, grown) {
            book.record(server, runs, &first).await;
        }
        Compared::Known(changed)
    }
}
