//! The simulator's shared state: the script in force, the runner table
//! (loaded models, their load-time options, expiry, prefix cache), the
//! counters, the request capture, and the change signal `wait_until`
//! listens to.
//!
//! A std `Mutex` guards it all: every critical section is a few map
//! operations and never spans an `.await`, so an async mutex would only add
//! cost. Per-model request queues are tokio mutexes (fair, so FIFO) kept
//! apart from it, because a request holds its queue for its whole length.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

use crate::duration::KeepAlive;
use crate::script::{ModelSpec, Reply, Script};

/// Counters for assertions, as `GET /sim/stats` returns them. A test
/// waits on them ([`crate::SimHandle::wait_until`]) to act at a known moment
/// of a request: arrived, loading, evaluating the prompt, streaming.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Stats {
    /// Requests seen, `/sim/*` excluded.
    pub requests: u64,
    /// Chat requests seen: `POST /api/chat` (load and unload requests
    /// included) and `POST /v1/chat/completions`.
    pub chat_requests: u64,
    /// Model loads begun: completed, aborted or still under way.
    pub loads_started: u64,
    /// Completed model loads.
    pub loads: u64,
    /// Unloads: `keep_alive` 0, expiry, or a reload for other options.
    pub unloads: u64,
    /// Loads abandoned because the client left while the model loaded.
    pub aborted_loads: u64,
    /// Prompt evaluations begun (the request got past its queue and the
    /// load; no byte of the answer is written before its end).
    pub prompt_evals: u64,
    /// Chunks written in streamed replies: a token line or event, a
    /// tool-call piece, an argument fragment, the done line.
    pub chunks_sent: u64,
    /// Requests whose client left while they waited in their model's queue
    /// (they took no reply and cancelled nothing).
    pub left_queue: u64,
    /// Generations cancelled because the client left (prompt evaluation,
    /// streaming, or a stall).
    pub cancelled: u64,
    /// Prompts that lost their oldest messages to fit `num_ctx`.
    pub truncated_prompts: u64,
    /// Embedding requests answered (`/api/embed`, `/v1/embeddings`).
    pub embed_requests: u64,
    /// Texts embedded, over all those requests.
    pub embedded_texts: u64,
    /// Names of the loaded models, sorted.
    pub loaded: Vec<String>,
}

/// One captured request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// HTTP method.
    pub method: String,
    /// Path, without the query string.
    pub path: String,
    /// The body parsed as JSON; `null` when empty or not JSON.
    pub body: Value,
}

/// A moment of a chat request where the simulator can hold every request
/// until the test releases it ([`crate::SimHandle::hold`]), so that "while
/// the model loads" or "while the prompt is evaluated" lasts exactly as
/// long as the test needs, however slow the machine. A held request still
/// sees its client leave: that aborts the load or cancels the generation,
/// as it would at that moment without the hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// The end of a model load (after its `load_ms`): the model is not
    /// loaded until the release.
    Load,
    /// The end of prompt evaluation (after its time): no byte of the answer
    /// is written until the release.
    PromptEval,
    /// A pull after its first bytes: no more progress (and no install)
    /// until the release.
    Pull,
}

impl Hold {
    fn slot(self) -> usize {
        match self {
            Self::Load => 0,
            Self::PromptEval => 1,
            Self::Pull => 2,
        }
    }
}

/// Load-time options of a runner: a request whose effective values differ
/// forces a reload. An absent option means its default, as in Ollama.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LoadOptions {
    ints: [i64; 5],
    use_mmap: Option<bool>,
    flags: [bool; 3],
}

const INT_OPTIONS: [(&str, i64); 5] = [
    ("num_ctx", 4096),
    ("num_batch", 512),
    ("num_gpu", -1),
    ("num_thread", 0),
    ("main_gpu", 0),
];
const FLAG_OPTIONS: [&str; 3] = ["use_mlock", "low_vram", "numa"];

impl LoadOptions {
    /// Reads the load-time options of a request's `options`; other keys are
    /// ignored. The error text is Ollama's.
    pub(crate) fn from_options(options: Option<&Map<String, Value>>) -> Result<Self, String> {
        let get = |k: &str| options.and_then(|o| o.get(k)).filter(|v| !v.is_null());
        let mut ints = [0; 5];
        for (slot, (key, default)) in ints.iter_mut().zip(INT_OPTIONS) {
            *slot = match get(key) {
                None => default,
                Some(v) => v
                    .as_f64()
                    .map(|f| f as i64)
                    .ok_or_else(|| format!("option {key:?} must be of type integer"))?,
            };
        }
        let flag = |key: &str| match get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(format!("option {key:?} must be of type boolean")),
        };
        let use_mmap = flag("use_mmap")?;
        let mut flags = [false; 3];
        for (slot, key) in flags.iter_mut().zip(FLAG_OPTIONS) {
            *slot = flag(key)?.unwrap_or(false);
        }
        Ok(Self {
            ints,
            use_mmap,
            flags,
        })
    }

    /// The requested `num_ctx` (at least 4, as Ollama enforces).
    pub(crate) fn num_ctx(&self) -> u64 {
        self.ints[0].max(4).unsigned_abs()
    }
}

/// A loaded model.
#[derive(Debug, Clone)]
pub(crate) struct Runner {
    /// The model as the script described it when it was loaded.
    pub spec: ModelSpec,
    pub options: LoadOptions,
    /// Effective context: `num_ctx` capped at the trained context length.
    pub num_ctx: u64,
    pub keep_alive: KeepAlive,
    /// When an idle runner expires; `None` while busy or kept forever.
    pub expires_at: Option<Instant>,
    pub busy: bool,
    /// The one-slot prefix cache: tokens of the last prompt and its reply.
    pub cache: Vec<String>,
}

/// The length of embedding vectors until a test sets another.
pub(crate) const DEFAULT_EMBED_DIMS: usize = 64;

/// Everything behind the state lock.
#[derive(Debug)]
pub(crate) struct Inner {
    pub models: Vec<ModelSpec>,
    pub replies: VecDeque<Reply>,
    /// The key `/v1/*` requests must carry, if any.
    pub api_key: Option<String>,
    /// `/api/tags` as before Ollama 0.30.
    pub legacy_tags: bool,
    pub counters: Stats,
    pub runners: BTreeMap<String, Runner>,
    pub requests: Vec<RecordedRequest>,
    /// The length of the vectors embedding requests get.
    pub embed_dims: usize,
    /// A status every embedding request fails with, when set.
    pub embed_fault: Option<u16>,
    /// Inputs longer than this (bytes) fail the request with a 500, as
    /// llama.cpp's server refuses a text longer than its batch.
    pub embed_max_bytes: Option<usize>,
}

impl Inner {
    /// Finds a model by the name a client sent: exact, or `NAME:latest`
    /// for a name without a tag.
    pub(crate) fn model(&self, name: &str) -> Option<&ModelSpec> {
        self.models.iter().find(|m| m.name == name).or_else(|| {
            let base = name.rsplit('/').next().unwrap_or(name);
            if base.contains(':') {
                return None;
            }
            let tagged = format!("{name}:latest");
            self.models.iter().find(|m| m.name == tagged)
        })
    }

    /// Unloads a runner if loaded, counting it.
    pub(crate) fn unload(&mut self, name: &str) -> bool {
        let gone = self.runners.remove(name).is_some();
        if gone {
            self.counters.unloads += 1;
        }
        gone
    }

    /// Takes the first queued reply that this model may answer, for a
    /// request whose last user message is `prompt`.
    pub(crate) fn take_reply(&mut self, model: &str, prompt: &str) -> Option<Reply> {
        let at = self.replies.iter().position(|r| {
            let for_model = match &r.model {
                None => true,
                Some(m) => m == model || self.model(m).is_some_and(|s| s.name == model),
            };
            for_model && r.when.as_deref().is_none_or(|w| prompt.contains(w))
        })?;
        self.replies.remove(at)
    }

    /// Unloads idle runners whose `keep_alive` ran out; true if any did.
    fn reap(&mut self, now: Instant) -> bool {
        let expired: Vec<String> = self
            .runners
            .iter()
            .filter(|(_, r)| !r.busy && r.expires_at.is_some_and(|t| t <= now))
            .map(|(n, _)| n.clone())
            .collect();
        for name in &expired {
            self.unload(name);
        }
        !expired.is_empty()
    }

    fn snapshot(&self) -> Stats {
        Stats {
            loaded: self.runners.keys().cloned().collect(),
            ..self.counters.clone()
        }
    }
}

/// State shared by the server tasks and the handle.
#[derive(Debug)]
pub(crate) struct Shared {
    inner: Mutex<Inner>,
    /// Bumped on every change of counters, runners or capture.
    version: watch::Sender<u64>,
    /// Wakes the expiry task when an expiry time changes.
    pub reaper: Notify,
    /// Which [`Hold`] points hold requests now.
    holds: watch::Sender<[bool; 3]>,
    /// How many more tokens streamed Ollama replies may write (`None`: no
    /// limit). A test sets a budget and raises it step by step, to see
    /// the answer at each step with no timer to race (`POST /sim/tokens`).
    token_budget: watch::Sender<Option<u64>>,
    queues: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl Shared {
    pub(crate) fn new(script: Script) -> Self {
        Self {
            inner: Mutex::new(Inner {
                models: script.models,
                replies: script.replies.into(),
                api_key: script.api_key,
                legacy_tags: script.legacy_tags,
                counters: Stats::default(),
                runners: BTreeMap::new(),
                requests: Vec::new(),
                embed_dims: DEFAULT_EMBED_DIMS,
                embed_fault: None,
                embed_max_bytes: None,
            }),
            version: watch::Sender::new(0),
            reaper: Notify::new(),
            holds: watch::Sender::new([false; 3]),
            token_budget: watch::Sender::new(None),
            queues: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave a half-made change
        // that matters to a test double; keep serving.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Changes the state (after reaping expired runners) and signals it.
    pub(crate) fn mutate<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let out = {
            let mut inner = self.lock();
            inner.reap(Instant::now());
            f(&mut inner)
        };
        self.version.send_modify(|v| *v = v.wrapping_add(1));
        out
    }

    /// Reads the state after reaping expired runners; signals only if
    /// something expired.
    pub(crate) fn read<R>(&self, f: impl FnOnce(&Inner) -> R) -> R {
        let (out, reaped) = {
            let mut inner = self.lock();
            let reaped = inner.reap(Instant::now());
            (f(&inner), reaped)
        };
        if reaped {
            self.version.send_modify(|v| *v = v.wrapping_add(1));
        }
        out
    }

    /// The counters and the loaded models now.
    pub(crate) fn stats(&self) -> Stats {
        self.read(Inner::snapshot)
    }

    /// A receiver that sees every change.
    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }

    /// Holds requests at `point` (`true`) or lets them go on (`false`).
    pub(crate) fn set_hold(&self, point: Hold, held: bool) {
        self.holds.send_modify(|h| h[point.slot()] = held);
    }

    /// Resolves once `point` holds nothing (at once when it is not held).
    pub(crate) async fn released(&self, point: Hold) {
        let mut holds = self.holds.subscribe();
        // The sender lives in `self`, so the wait cannot see it closed.
        let _ = holds.wait_for(|h| !h[point.slot()]).await;
    }

    /// Limits the tokens streamed replies may write from now on (`None`:
    /// no limit).
    pub(crate) fn set_token_budget(&self, budget: Option<u64>) {
        self.token_budget.send_replace(budget);
    }

    /// Lets `n` more tokens be written (nothing when there is no limit).
    pub(crate) fn allow_tokens(&self, n: u64) {
        self.token_budget.send_if_modified(|b| match b {
            Some(left) => {
                *left = left.saturating_add(n);
                true
            }
            None => false,
        });
    }

    /// Waits until one more token may be written, and takes it from the
    /// budget (at once when there is no limit).
    pub(crate) async fn take_token(&self) {
        let mut budget = self.token_budget.subscribe();
        loop {
            budget.borrow_and_update();
            let mut taken = false;
            self.token_budget.send_if_modified(|b| match b {
                None => {
                    taken = true;
                    false
                }
                Some(left) if *left > 0 => {
                    *left -= 1;
                    taken = true;
                    true
                }
                Some(_) => false,
            });
            if taken {
                return;
            }
            // The sender lives in `self`, so this cannot see it closed.
            let _ = budget.changed().await;
        }
    }

    /// Counts one chunk written in a streamed reply.
    pub(crate) fn chunk_sent(&self) {
        self.mutate(|inner| inner.counters.chunks_sent += 1);
    }

    /// The request queue of one model (created on first use).
    pub(crate) fn queue(&self, model: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(queues.entry(model.to_owned()).or_default())
    }

    /// Replaces the script: models, queued replies, API key. Loaded runners
    /// stay.
    pub(crate) fn set_script(&self, script: Script) {
        self.mutate(|inner| {
            inner.models = script.models;
            inner.replies = script.replies.into();
            inner.api_key = script.api_key;
            inner.legacy_tags = script.legacy_tags;
        });
    }

    /// Zeroes the counters and clears the capture.
    pub(crate) fn reset(&self) {
        self.mutate(|inner| {
            inner.counters = Stats::default();
            inner.requests.clear();
        });
    }

    /// Ends a request's use of a runner: starts its `keep_alive` clock, or
    /// unloads it now for `keep_alive` 0.
    pub(crate) fn release(&self, model: &str) {
        self.mutate(|inner| {
            let Some(runner) = inner.runners.get_mut(model) else {
                return;
            };
            runner.busy = false;
            match runner.keep_alive {
                KeepAlive::Forever => runner.expires_at = None,
                ka if ka.is_zero() => {
                    inner.unload(model);
                }
                KeepAlive::For(d) => runner.expires_at = Some(Instant::now() + d),
            }
        });
        self.reaper.notify_one();
    }

    /// Unloads runners as their `keep_alive` runs out. Sleeps until the
    /// next expiry or until an expiry changes; never polls.
    pub(crate) async fn reap_forever(self: Arc<Self>) {
        loop {
            let next = self.read(|inner| {
                inner
                    .runners
                    .values()
                    .filter(|r| !r.busy)
                    .filter_map(|r| r.expires_at)
                    .min()
            });
            match next {
                Some(at) => {
                    tokio::select! {
                        () = tokio::time::sleep_until(at) => {}
                        () = self.reaper.notified() => {}
                    }
                }
                None => self.reaper.notified().await,
            }
        }
    }
}

/// Keeps a runner marked busy for one request; releasing it on drop, so
/// every way out of a request (answer, error, client gone, task aborted)
/// starts the `keep_alive` clock.
pub(crate) struct Lease {
    shared: Arc<Shared>,
    model: String,
}

impl Lease {
    pub(crate) fn new(shared: Arc<Shared>, model: String) -> Self {
        Self { shared, model }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.shared.release(&self.model);
    }
}
