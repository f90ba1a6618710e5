//! A run's end is recorded whatever happens inside it. A panic in the loop
//! is caught and becomes a failed run (what it wrote so far repaired into
//! the conversation, as after a crash); a store that cannot record the end
//! is retried; and a run whose end still could not be recorded — or whose
//! future was dropped before it ended — is remembered and repaired before
//! the next run starts. Without this one bad answer or one busy database
//! locks the session (`RunInProgress`) until the app restarts.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;

use crate::error::RunError;
use crate::handle::RunOutcome;
use crate::message::MessageStatus;
use crate::run_ctx::RunCtx;
use crate::store::{SessionStore, StoreError};

/// Run `the_loop` to its outcome and record the run's end before it is
/// announced: a panic becomes a failed run (repaired like a crash's), the
/// queue is closed (what is still queued was not sent: the front end keeps
/// it), and a run whose end cannot be recorded is left in `stale` for the
/// next run to repair (`None`: a sub-agent's scratch store, nothing to do).
pub(crate) async fn ended(
    the_loop: impl Future<Output = RunOutcome>,
    ctx: &RunCtx,
    stale: Option<StaleRuns>,
) -> RunOutcome {
    let guard = EndGuard {
        stale,
        run_id: ctx.run_id.clone(),
    };
    let (outcome, crashed) = match AssertUnwindSafe(the_loop).catch_unwind().await {
        Ok(outcome) => (outcome, false),
        Err(panic) => {
            let why = panic_text(panic.as_ref());
            tracing::error!("run {} crashed: {why}", ctx.run_id);
            let error = RunError::Internal(format!(
                "the answer crashed ({why}); your message and what was written so far are kept, and you can send again"
            ));
            (RunOutcome::fail(error), true)
        }
    };
    ctx.steering.close();
    let status = match &outcome {
        RunOutcome::Answered { .. } => MessageStatus::Complete,
        RunOutcome::Stopped { .. } => MessageStatus::Interrupted,
        RunOutcome::Failed { .. } => MessageStatus::Error,
    };
    if record(ctx.store.as_ref(), &ctx.run_id, status, crashed).await {
        guard.recorded();
    }
    outcome
}

/// Runs of this process whose end is not recorded yet.
#[derive(Default, Clone)]
pub(crate) struct StaleRuns(Arc<Mutex<Vec<String>>>);

impl StaleRuns {
    fn push(&self, run_id: &str) {
        if let Ok(mut v) = self.0.lock() {
            v.push(run_id.to_owned());
        }
    }

    /// Repair every remembered run; those that still fail stay.
    pub(crate) async fn repair(&self, store: &dyn SessionStore) {
        let stale = self
            .0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default();
        for run_id in stale {
            if let Err(e) = store.repair_run(&run_id).await {
                tracing::warn!("repairing run {run_id} failed again: {e}");
                self.push(&run_id);
            } else {
                tracing::info!("repaired run {run_id}, whose end was not recorded");
            }
        }
    }
}

/// Remembers the run as stale if dropped before its end was recorded.
struct EndGuard {
    stale: Option<StaleRuns>,
    run_id: String,
}

impl EndGuard {
    fn recorded(mut self) {
        self.stale = None;
    }
}

impl Drop for EndGuard {
    fn drop(&mut self) {
        if let Some(stale) = self.stale.take() {
            stale.push(&self.run_id);
        }
    }
}

/// How often, and after what waits, recording the end is tried (a busy
/// database clears within seconds; a full disk does not, and then the run
/// is repaired before the next one).
const WAITS_MS: [u64; 4] = [50, 200, 800, 2_000];

/// Record the end: `status`, or after a crash the repair a dead process's
/// run gets. Retried; false when every try failed.
async fn record(
    store: &dyn SessionStore,
    run_id: &str,
    status: MessageStatus,
    crashed: bool,
) -> bool {
    let attempt = || async {
        if crashed {
            store.repair_run(run_id).await
        } else {
            store.end_run(run_id, status).await
        }
    };
    let mut last: Result<(), StoreError> = attempt().await;
    for wait in WAITS_MS {
        match &last {
            Ok(()) => return true,
            Err(e) => tracing::warn!("recording the end of run {run_id} failed: {e}; trying again"),
        }
        tokio::time::sleep(Duration::from_millis(wait)).await;
        last = attempt().await;
    }
    if let Err(e) = &last {
        tracing::warn!(
            "recording the end of run {run_id} failed: {e}; it is repaired before the next run"
        );
    }
    last.is_ok()
}

/// A panic's message, for the error the user sees.
fn panic_text(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown cause".to_owned())
}
