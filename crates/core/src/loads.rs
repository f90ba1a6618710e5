//! Model loads the agent started with their own request (docs/architecture.md,
//! Stop). They run in detached tasks so that Stop never cancels them: a
//! disconnect during a load makes Ollama abort it. The same holds for a front end
//! that exits — its connections close with it — so one that is about to
//! leave asks [`Loads`] whether a load is still in flight and waits for it
//! ([`Loads::settled`]). Depends on nothing but tokio and the backend trait.

use std::sync::Arc;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::backend::{BackendError, ModelBackend};
use crate::settings::LoadOptions;

/// The detached model loads of one agent (every run and sub-agent), counted
/// while in flight. Cloning shares the count.
#[derive(Debug, Clone)]
pub struct Loads {
    in_flight: Arc<watch::Sender<usize>>,
}

impl Default for Loads {
    fn default() -> Self {
        Self {
            in_flight: Arc::new(watch::Sender::new(0)),
        }
    }
}

impl Loads {
    /// Starts `backend.preload(model, load)` in its own task, counted from
    /// now until the task ends (by finishing, failing or being aborted).
    pub(crate) fn spawn(
        &self,
        backend: Arc<dyn ModelBackend>,
        model: String,
        load: LoadOptions,
    ) -> JoinHandle<Result<(), BackendError>> {
        self.in_flight.send_modify(|n| *n += 1);
        let done = Done(Arc::clone(&self.in_flight));
        tokio::spawn(async move {
            let _done = done;
            backend.preload(&model, &load).await
        })
    }

    /// How many loads are in flight now.
    pub fn in_flight(&self) -> usize {
        *self.in_flight.borrow()
    }

    /// Resolves when no load is in flight (at once when none is).
    pub async fn settled(&self) {
        let mut count = self.in_flight.subscribe();
        // The sender lives in `self`: the wait cannot see it closed.
        let _ = count.wait_for(|n| *n == 0).await;
    }
}

/// Uncounts a load when its task ends, however it ends.
struct Done(Arc<watch::Sender<usize>>);

impl Drop for Done {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use async_trait::async_trait;
    use tokio::sync::Notify;

    use super::*;
    use crate::backend::{ModelRequest, ModelStream};

    /// Loads that end when the test says so.
    #[derive(Default)]
    struct Gate(Notify);

    #[async_trait]
    impl ModelBackend for Gate {
        async fn chat(&self, _request: ModelRequest) -> Result<ModelStream, BackendError> {
            Err(BackendError::Truncated)
        }

        async fn preload(&self, _model: &str, _load: &LoadOptions) -> Result<(), BackendError> {
            self.0.notified().await;
            Ok(())
        }

        async fn unload(&self, _model: &str) -> Result<(), BackendError> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn counts_loads_until_they_end_and_settles_after_the_last() {
        let loads = Loads::default();
        tokio::time::timeout(Duration::from_secs(10), loads.settled())
            .await
            .unwrap();
        let (a, b) = (Arc::new(Gate::default()), Arc::new(Gate::default()));
        let first = loads.spawn(a.clone(), "m".into(), LoadOptions::default());
        let second = loads.spawn(b, "m".into(), LoadOptions::default());
        assert_eq!(loads.in_flight(), 2);
        let settled = tokio::spawn({
            let loads = loads.clone();
            async move { loads.settled().await }
        });
        a.0.notify_one();
        first.await.unwrap().unwrap();
        assert_eq!(loads.in_flight(), 1);
        assert!(!settled.is_finished());
        // An aborted load is uncounted too.
        second.abort();
        tokio::time::timeout(Duration::from_secs(10), settled)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(loads.in_flight(), 0);
    }
}
