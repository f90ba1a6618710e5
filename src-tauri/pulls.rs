//! Model pulls owned by the app, not by a panel: queued and run one at a
//! time (several downloads at once only split the bandwidth), each with
//! its progress, speed and time left, and a Cancel. The webview reads them
//! (`list_pulls`), so closing the panel or reloading the page loses
//! nothing; the header shows the one going on.
//!
//! Cancelling drops the download's connection, which ends it in Ollama
//! (the layers already fetched stay on its disk and a later pull resumes).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use hearth_ollama::Client;
use tokio_util::sync::CancellationToken;

use crate::views::{PullState, PullView};

/// Finished pulls kept for the panel to show (the oldest go first).
const KEEP_FINISHED: usize = 20;
/// The span the speed is measured over.
const SPEED_WINDOW: Duration = Duration::from_secs(5);

struct Pull {
    model: String,
    client: Client,
    state: PullState,
    status: String,
    total: Option<u64>,
    completed: Option<u64>,
    error: Option<String>,
    /// Recent `(when, bytes done)` of the current layer, for the speed.
    samples: VecDeque<(Instant, u64)>,
    cancel: CancellationToken,
}

impl Pull {
    fn active(&self) -> bool {
        matches!(self.state, PullState::Queued | PullState::Running)
    }

    /// Bytes per second over the last few seconds of the current layer.
    fn speed(&self) -> Option<f64> {
        let (&(t0, b0), &(t1, b1)) = (self.samples.front()?, self.samples.back()?);
        let secs = t1.duration_since(t0).as_secs_f64();
        (secs >= 0.5 && b1 > b0).then(|| (b1 - b0) as f64 / secs)
    }

    fn view(&self) -> PullView {
        let speed = self.speed().filter(|_| self.state == PullState::Running);
        let left = match (speed, self.total, self.completed) {
            (Some(s), Some(t), Some(c)) if s > 0.0 && t >= c => Some((t - c) as f64 / s),
            _ => None,
        };
        PullView {
            model: self.model.clone(),
            state: self.state,
            status: self.status.clone(),
            total: self.total,
            completed: self.completed,
            bytes_per_sec: speed,
            seconds_left: left,
            error: self.error.clone(),
        }
    }

    /// Takes one progress line from the server.
    fn progress(&mut self, p: hearth_ollama::wire::PullProgress) {
        let now = Instant::now();
        if p.total != self.total {
            // A new layer: its bytes start again from zero.
            self.samples.clear();
        }
        self.status = shown_status(p.status);
        self.total = p.total;
        self.completed = p.completed;
        if let Some(done) = p.completed {
            self.samples.push_back((now, done));
            while self
                .samples
                .front()
                .is_some_and(|(t, _)| now.duration_since(*t) > SPEED_WINDOW)
            {
                self.samples.pop_front();
            }
        }
        if let Some(e) = p.error {
            self.error = Some(shown_error(&self.model, e));
        }
    }
}

/// The server's step as the panel says it: Ollama names a layer by its
/// digest ("pulling 8eeb52dfb3bb"), which tells a person nothing (user
/// pass 2026-12, defect 14).
fn shown_status(status: String) -> String {
    match status.strip_prefix("pulling ") {
        Some(digest) if digest.len() >= 12 && digest.bytes().all(|b| b.is_ascii_hexdigit()) => {
            "downloading".into()
        }
        _ => status,
    }
}

/// The server's reason as the panel says it: a name the registry does
/// not have reads "pull model manifest: file does not exist".
fn shown_error(model: &str, error: String) -> String {
    // Said once: the progress line's error comes back as the pull's.
    if error.contains("manifest")
        && error.contains("does not exist")
        && !error.starts_with("there is no model")
    {
        format!(
            "there is no model `{model}` in the Ollama library: check its name and tag \
             (for example qwen3:8b) at ollama.com/library (the server said: {error})"
        )
    } else {
        error
    }
}

#[derive(Default)]
struct Inner {
    pulls: Vec<Pull>,
    /// A task is taking pulls off the queue.
    working: bool,
}

/// The app's pulls.
#[derive(Clone, Default)]
pub struct Pulls(Arc<Mutex<Inner>>);

impl Pulls {
    fn with<T>(&self, f: impl FnOnce(&mut Inner) -> T) -> T {
        match self.0.lock() {
            Ok(mut g) => f(&mut g),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    /// Queues a pull of `model` from the server `client` talks to (nothing
    /// new when one of it is queued or running). Returns whether it was
    /// queued now.
    pub fn start(&self, model: &str, client: Client) -> bool {
        let spawn = self.with(|inner| {
            if inner.pulls.iter().any(|p| p.model == model && p.active()) {
                return None;
            }
            inner.pulls.retain(|p| p.model != model);
            inner.pulls.push(Pull {
                model: model.to_owned(),
                client,
                state: PullState::Queued,
                status: "waiting for the pulls before it".into(),
                total: None,
                completed: None,
                error: None,
                samples: VecDeque::new(),
                cancel: CancellationToken::new(),
            });
            Some(!std::mem::replace(&mut inner.working, true))
        });
        match spawn {
            None => false,
            Some(spawn) => {
                if spawn {
                    let me = self.clone();
                    tauri::async_runtime::spawn(async move { me.work().await });
                }
                true
            }
        }
    }

    /// Cancels the pull of `model` (queued or running); false when none was.
    pub fn cancel(&self, model: &str) -> bool {
        self.with(|inner| {
            let Some(p) = inner
                .pulls
                .iter_mut()
                .find(|p| p.model == model && p.active())
            else {
                return false;
            };
            p.cancel.cancel();
            if p.state == PullState::Queued {
                p.state = PullState::Cancelled;
                p.status = "cancelled".into();
            }
            true
        })
    }

    /// Every pull: the queue in order, then the finished ones.
    pub fn list(&self) -> Vec<PullView> {
        self.with(|inner| inner.pulls.iter().map(Pull::view).collect())
    }

    /// Takes pulls off the queue until it is empty.
    async fn work(self) {
        loop {
            let next = self.with(|inner| {
                let p = inner
                    .pulls
                    .iter_mut()
                    .find(|p| p.state == PullState::Queued);
                match p {
                    Some(p) => {
                        p.state = PullState::Running;
                        p.status = "starting".into();
                        Some((p.model.clone(), p.client.clone(), p.cancel.clone()))
                    }
                    None => {
                        inner.working = false;
                        None
                    }
                }
            });
            let Some((model, client, cancel)) = next else {
                return;
            };
            let outcome = tokio::select! {
                r = self.drive(&model, &client) => r,
                () = cancel.cancelled() => Err(None),
            };
            self.with(|inner| {
                if let Some(p) = inner
                    .pulls
                    .iter_mut()
                    .find(|p| p.model == model && p.state == PullState::Running)
                {
                    match outcome {
                        Ok(()) => {
                            p.state = PullState::Done;
                            p.status = "success".into();
                        }
                        Err(None) => {
                            p.state = PullState::Cancelled;
                            p.status = "cancelled".into();
                        }
                        Err(Some(e)) => {
                            p.state = PullState::Failed;
                            p.error = Some(shown_error(&model, e));
                        }
                    }
                }
                // The finished pulls beyond the last few go.
                let finished = inner.pulls.iter().filter(|p| !p.active()).count();
                let mut drop = finished.saturating_sub(KEEP_FINISHED);
                inner.pulls.retain(|p| {
                    if drop > 0 && !p.active() {
                        drop -= 1;
                        false
                    } else {
                        true
                    }
                });
            });
        }
    }

    /// Runs one pull to its end: `Err(Some(why))` when it failed.
    async fn drive(&self, model: &str, client: &Client) -> Result<(), Option<String>> {
        let stream = client.pull(model).await.map_err(|e| Some(e.to_string()))?;
        let mut stream = std::pin::pin!(stream);
        while let Some(item) = stream.next().await {
            let p = item.map_err(|e| Some(e.to_string()))?;
            let failed = p.error.clone();
            self.with(|inner| {
                if let Some(pull) = inner
                    .pulls
                    .iter_mut()
                    .find(|x| x.model == model && x.state == PullState::Running)
                {
                    pull.progress(p);
                }
            });
            if let Some(e) = failed {
                return Err(Some(e));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::until;
    use hearth_sim::{Hold, ModelSpec, Script, Sim};

    use super::*;

    /// Polls `check` every 10 ms; the 20 s bound only ends a hang.
    fn states(pulls: &Pulls) -> Vec<(String, PullState)> {
        pulls
            .list()
            .into_iter()
            .map(|p| (p.model, p.state))
            .collect()
    }

    #[tokio::test]
    async fn pulls_queue_one_at_a_time_and_a_cancel_ends_only_its_own() {
        let sim = Sim::start(Script::with_models(vec![
            ModelSpec::new("a:1b").with_installed(false),
            ModelSpec::new("b:1b").with_installed(false),
            ModelSpec::new("c:1b").with_installed(false),
        ]))
        .await
        .unwrap();
        let client = Client::new(&sim.url(), Default::default()).unwrap();
        let pulls = Pulls::default();
        assert!(pulls.start("a:1b", client.clone()));
        assert!(pulls.start("b:1b", client.clone()));
        assert!(pulls.start("c:1b", client.clone()));
        assert!(!pulls.start("a:1b", client.clone()), "already queued");
        // One runs, the others wait their turn.
        let running = |p: &Pulls| {
            p.list()
                .iter()
                .filter(|v| v.state == PullState::Running)
                .count()
        };
        assert!(running(&pulls) <= 1);
        assert!(pulls.cancel("c:1b"), "a queued pull is cancelled at once");
        until("a and b to finish", || {
            states(&pulls)
                .iter()
                .all(|(_, s)| !matches!(s, PullState::Queued | PullState::Running))
        })
        .await;
        assert_eq!(
            states(&pulls),
            [
                ("a:1b".into(), PullState::Done),
                ("b:1b".into(), PullState::Done),
                ("c:1b".into(), PullState::Cancelled)
            ]
        );
        let installed: Vec<String> = client
            .tags()
            .await
            .unwrap()
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(installed, ["a:1b", "b:1b"]);
        // The server saw no pull of the cancelled model.
        let pulled: Vec<String> = sim
            .requests()
            .into_iter()
            .filter(|r| r.path == "/api/pull")
            .map(|r| r.body["model"].as_str().unwrap_or("").to_owned())
            .collect();
        assert_eq!(pulled, ["a:1b", "b:1b"]);
    }

    #[tokio::test]
    async fn a_running_pull_cancelled_leaves_the_model_uninstalled_and_a_failure_says_why() {
        let sim = Sim::start(Script::with_models(vec![
            ModelSpec::new("big:70b").with_installed(false),
        ]))
        .await
        .unwrap();
        // The download stays at its first bytes until the test lets it go.
        sim.hold(Hold::Pull);
        let client = Client::new(&sim.url(), Default::default()).unwrap();
        let pulls = Pulls::default();
        pulls.start("big:70b", client.clone());
        until("bytes to arrive", || {
            pulls.list()[0].completed.is_some_and(|c| c > 0)
        })
        .await;
        assert!(pulls.cancel("big:70b"));
        until("the cancel", || {
            pulls.list()[0].state == PullState::Cancelled
        })
        .await;
        let view = pulls.list().remove(0);
        assert_eq!((view.bytes_per_sec, view.seconds_left), (None, None));
        // Still held at its first bytes: nothing was installed.
        assert!(client.tags().await.unwrap().is_empty());

        // A model the registry does not have: the server's reason.
        pulls.start("no-such-model", client);
        until("the failure", || {
            pulls
                .list()
                .iter()
                .any(|p| p.model == "no-such-model" && p.state == PullState::Failed)
        })
        .await;
        let failed = pulls.list().pop().unwrap();
        assert!(
            failed
                .error
                .as_deref()
                .unwrap_or("")
                .contains("file does not exist"),
            "{failed:?}"
        );
        assert!(
            failed.error.as_deref().unwrap_or("").starts_with(
                "there is no model `no-such-model` in the Ollama library: check its name and tag \
                 (for example qwen3:8b)"
            ),
            "{failed:?}"
        );
    }

    #[test]
    fn a_layer_is_downloading_not_a_digest() {
        assert_eq!(shown_status("pulling 8eeb52dfb3bb".into()), "downloading");
        assert_eq!(shown_status("pulling manifest".into()), "pulling manifest");
        assert_eq!(
            shown_status("verifying sha256 digest".into()),
            "verifying sha256 digest"
        );
    }
}
