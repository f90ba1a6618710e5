//! The model servers profiles name (docs/design.md §8, "Hosts"): the agent's
//! default backend plus any number of named hosts, which a front end may add
//! and remove while the agent runs; and failover, a profile's list of hosts
//! tried in order when the one it names cannot be reached before any output.
//!
//! Failover is narrow on purpose. A run moves to the next host only when the
//! current one refuses the connection (`BackendError::Unreachable`) and the
//! run has had no answer from any host yet: once a stream opened, a host that
//! goes away ends the answer with its error, never with a silent switch to a
//! server that has neither the model's cache nor the answer so far. Every
//! move is announced (`EventKind::HostFailover`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use hearth_protocol::EventKind;

use crate::backend::{BackendError, ModelBackend, ModelRequest, ModelStream};
use crate::events::EventSink;
use crate::settings::LoadOptions;

/// The name the agent's default backend answers to (Ollama at the URL the
/// front end configured); a profile without a host uses it.
pub const DEFAULT_HOST: &str = "ollama";

/// Named model servers, shared between the agent and the front end that
/// configures them; a request goes to what the name holds when it is made.
#[derive(Default)]
pub struct Hosts(RwLock<HashMap<String, Arc<dyn ModelBackend>>>);

impl Hosts {
    /// No hosts.
    pub fn new() -> Arc<Self> {
        Arc::default()
    }

    /// Add `name`, or replace what it held.
    pub fn set(&self, name: impl Into<String>, backend: Arc<dyn ModelBackend>) {
        self.0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(name.into(), backend);
    }

    /// Forget `name`; runs already on it keep their backend.
    pub fn remove(&self, name: &str) {
        self.0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(name);
    }

    /// The backend `name` holds now.
    pub fn get(&self, name: &str) -> Option<Arc<dyn ModelBackend>> {
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(name)
            .cloned()
    }

    /// The names, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .keys()
            .cloned()
            .collect();
        names.sort();
        names
    }
}

/// One run's way to its hosts: the profile's host, then its failover hosts,
/// in order. Sticky: once the run moved on, it stays there.
pub(crate) struct Failover {
    chain: Vec<(String, Arc<dyn ModelBackend>)>,
    at: AtomicUsize,
    /// A host answered: no more moves in this run.
    answered: AtomicBool,
    sink: EventSink,
}

impl Failover {
    /// `chain` is the profile's host first; it must not be empty.
    pub(crate) fn new(chain: Vec<(String, Arc<dyn ModelBackend>)>, sink: EventSink) -> Self {
        Self {
            chain,
            at: AtomicUsize::new(0),
            answered: AtomicBool::new(false),
            sink,
        }
    }

    fn current(&self) -> (usize, &Arc<dyn ModelBackend>) {
        let i = self.at.load(Ordering::SeqCst).min(self.chain.len() - 1);
        (i, &self.chain[i].1)
    }

    /// After `error` from host `i`: move to the next host when the rules
    /// allow (announced), and say whether to try again.
    fn move_on(&self, i: usize, error: &BackendError) -> bool {
        if !matches!(error, BackendError::Unreachable { .. })
            || self.answered.load(Ordering::SeqCst)
            || i + 1 >= self.chain.len()
        {
            return false;
        }
        // Two requests of one run racing here move it once.
        if self
            .at
            .compare_exchange(i, i + 1, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            self.sink.emit(EventKind::HostFailover {
                from: self.chain[i].0.clone(),
                to: self.chain[i + 1].0.clone(),
                reason: error.to_string(),
            });
        }
        true
    }
}

#[async_trait]
impl ModelBackend for Failover {
    async fn chat(&self, request: ModelRequest) -> Result<ModelStream, BackendError> {
        loop {
            let (i, backend) = self.current();
            match backend.chat(request.clone()).await {
                Ok(stream) => {
                    self.answered.store(true, Ordering::SeqCst);
                    return Ok(stream);
                }
                Err(e) if self.move_on(i, &e) => {}
                Err(e) => return Err(e),
            }
        }
    }

    async fn preload(&self, model: &str, load: &LoadOptions) -> Result<(), BackendError> {
        loop {
            let (i, backend) = self.current();
            match backend.preload(model, load).await {
                Err(e) if self.move_on(i, &e) => {}
                done => return done,
            }
        }
    }

    async fn unload(&self, model: &str) -> Result<(), BackendError> {
        self.current().1.unload(model).await
    }

    async fn context_window(&self, model: &str) -> Option<u32> {
        self.current().1.context_window(model).await
    }

    async fn sees_images(&self, model: &str) -> Option<bool> {
        self.current().1.sees_images(model).await
    }

    async fn parameter_count(&self, model: &str) -> Option<u64> {
        self.current().1.parameter_count(model).await
    }

    /// A host that is down hands over as a chat does: indexing goes on at
    /// the next host (whose model must be the same for the vectors to mean
    /// the same; the index checks the dimension).
    async fn embed(&self, model: &str, texts: &[String]) -> Result<Vec<Vec<f32>>, BackendError> {
        loop {
            let (i, backend) = self.current();
            match backend.embed(model, texts).await {
                Err(e) if self.move_on(i, &e) => {}
                done => return done,
            }
        }
    }
}
