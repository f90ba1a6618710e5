//! The run's Load step: the model is loaded with a request of its own,
//! which Stop never cancels (docs/design.md §4), and the window the server
//! really gave it is learned for the budget.

use std::sync::Arc;

use hearth_protocol::EventKind;

use crate::backend::ModelBackend;
use crate::error::RunError;
use crate::profile::Profile;
use crate::run::Run;
use crate::run_state::Observation;

impl Run<'_> {
    /// Load the model (docs/architecture.md, Stop): a disconnect during a
    /// load makes Ollama abort it and kill the runner, so the preload runs
    /// in a detached task, counted in [`crate::Loads`]; Stop only stops
    /// waiting for it.
    pub(crate) async fn preload(
        &self,
        backend: &Arc<dyn ModelBackend>,
        profile: &Profile,
    ) -> Observation {
        let ctx = self.ctx;
        let model = profile.model.clone();
        let load = self.deps.settings.load_options(&model);
        // The page says "loading the model" until it is (a big model from
        // a slow disk takes minutes, and nothing else streams meanwhile).
        ctx.sink.emit(EventKind::ModelLoading {
            model: model.clone(),
        });
        let task = self.deps.loads.spawn(backend.clone(), model, load);
        let joined = tokio::select! {
            biased;
            () = ctx.cancel.cancelled() => None,
            j = task => Some(j),
        };
        ctx.sink.emit(EventKind::ModelLoaded {
            model: profile.model.clone(),
        });
        let Some(joined) = joined else {
            return Observation::Interrupted;
        };
        match joined {
            Ok(Ok(())) => {
                // What the server really gives the model (a num_ctx above
                // the trained length is capped by Ollama).
                let reported = tokio::select! {
                    biased;
                    () = ctx.cancel.cancelled() => None,
                    w = backend.context_window(&profile.model) => w,
                };
                // A stop during the query must not forget what is known.
                if let Some(n) = reported
                    && let Ok(mut w) = self.deps.reported_windows.lock()
                {
                    w.insert(profile.model.clone(), Some(n));
                }
                Observation::Loaded(self.deps.load_key(profile))
            }
            Ok(Err(e)) => Observation::Failed(e.into()),
            Err(e) => Observation::Failed(RunError::Internal(e.to_string())),
        }
    }
}
