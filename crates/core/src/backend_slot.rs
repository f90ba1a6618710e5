//! A backend whose server can be replaced under a running agent: the app
//! points at another URL by swapping the client in the slot, not by
//! building another agent, so approvals, loads in flight, the summarizers
//! and the token calibration carry over. Each request goes to the server in
//! the slot when it is made (a run in progress sends its next call to the
//! new server).

use std::sync::{Arc, RwLock};

use async_trait::async_trait;

use crate::backend::{BackendError, ModelBackend, ModelRequest, ModelStream};
use crate::settings::LoadOptions;

/// A replaceable backend (see the module docs).
pub struct BackendSlot(RwLock<Arc<dyn ModelBackend>>);

impl BackendSlot {
    /// A slot holding `backend`.
    pub fn new(backend: Arc<dyn ModelBackend>) -> Arc<Self> {
        Arc::new(Self(RwLock::new(backend)))
    }

    /// The backend in the slot now.
    pub fn current(&self) -> Arc<dyn ModelBackend> {
        // A panic while swapping leaves the old or the new backend: both
        // work.
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Put `backend` in the slot; requests made from now on go to it.
    pub fn replace(&self, backend: Arc<dyn ModelBackend>) {
        *self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = backend;
    }
}

#[async_trait]
impl ModelBackend for BackendSlot {
    async fn chat(&self, request: ModelRequest) -> Result<ModelStream, BackendError> {
        self.current().chat(request).await
    }

    async fn preload(&self, model: &str, load: &LoadOptions) -> Result<(), BackendError> {
        self.current().preload(model, load).await
    }

    async fn unload(&self, model: &str) -> Result<(), BackendError> {
        self.current().unload(model).await
    }

    async fn context_window(&self, model: &str) -> Option<u32> {
        self.current().context_window(model).await
    }

    async fn sees_images(&self, model: &str) -> Option<bool> {
        self.current().sees_images(model).await
    }

    async fn parameter_count(&self, model: &str) -> Option<u64> {
        self.current().parameter_count(model).await
    }

    async fn embed(&self, model: &str, texts: &[String]) -> Result<Vec<Vec<f32>>, BackendError> {
        self.current().embed(model, texts).await
    }
}
