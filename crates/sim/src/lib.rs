//! # hearth-sim: a faithful Ollama simulator on loopback
//!
//! Ollama cannot be installed on the build machines, so tests, benchmarks and
//! UI demos talk to this instead: an HTTP server on `127.0.0.1` that behaves
//! like Ollama ([`OLLAMA_VERSION`]) where Hearth depends on it (docs/design.md §3–§6, §10).
//! It has its own wire types, written from Ollama's behaviour, and depends on
//! no other Hearth crate, so a bug in the client cannot hide behind the same
//! bug here.
//!
//! ## Why hand-written HTTP
//!
//! The HTTP/1.1 layer is tokio + `httparse`, not hyper or axum. The
//! simulator must see a client disconnect at every moment — while a request
//! waits in its model's queue, while the model loads, during prompt
//! evaluation before any byte of the response, during a stall — because
//! that is what decides between "abort the load" and "cancel the generation
//! and keep the model". hyper offers no way to notice a closed connection
//! without writing to it (hyperium/hyper#2917). Owning the socket also gives
//! exact write boundaries: one chunk per written piece, a line cut inside a
//! UTF-8 character, a connection closed with no chunked terminator.
//!
//! ## Behaviour
//!
//! - `POST /api/chat`: NDJSON chunks (`stream` defaults to true) or one JSON
//!   object. No status line until the first token: queueing, loading and
//!   prompt evaluation happen before the head is written. Errors before
//!   output are a real status and `{"error": ...}`: unknown model (404),
//!   bad `keep_alive` (400, Go's `time: invalid duration "x"`), `think` or
//!   `tools` for a model without the capability (400), context overflow
//!   with `truncate: false` (400), invalid JSON (400).
//! - Empty `messages` is a load request (`done_reason: "load"`); with
//!   `keep_alive: 0` an unload (`"unload"`).
//! - A runner table: load delay, load-time options (`num_ctx`, `num_batch`,
//!   `num_gpu`, `num_thread`, `main_gpu`, `use_mmap`, `use_mlock`,
//!   `low_vram`, `numa`; absent = default, so a request without `num_ctx`
//!   after a load with 8192 reloads), reload when they change,
//!   `keep_alive` expiry (number = seconds, string = Go duration, negative =
//!   forever, default 5m on a new load; an omitted value keeps the runner's),
//!   unload on `keep_alive: 0`. A client that leaves during a load aborts
//!   it (the model is not loaded); one that leaves later cancels the
//!   generation and the model stays loaded.
//! - One request at a time per model, others queued FIFO.
//! - A one-slot prefix cache per runner: only the prompt tokens not shared
//!   with the previous prompt and reply (at least one) cost evaluation
//!   time; `prompt_eval_count` is the whole prompt, as Ollama reports it
//!   (the OpenAI dialect's `timings.prompt_n` is the uncached part, as
//!   llama.cpp's server reports it). Prompts over `num_ctx` lose their
//!   oldest non-system messages.
//! - `/api/tags` (with `capabilities` and `details.context_length`, as
//!   Ollama lists them since 0.30; a script's `legacy_tags` leaves them
//!   out, as older servers did), `/api/show` (capabilities,
//!   `<family>.context_length`), `/api/ps` (`size_vram`, `context_length`,
//!   `expires_at`), `/api/version` ([`OLLAMA_VERSION`]), `/api/pull` (NDJSON progress; an unknown
//!   name fails in-band after the 200). Anything else: 404.
//!
//! ## The OpenAI-compatible API (`/v1`)
//!
//! Like Ollama (and llama.cpp's server, vLLM, LM Studio), the simulator
//! also speaks OpenAI's API, from the same model table, replies, faults,
//! queues, runners and counters:
//!
//! - `POST /v1/chat/completions`: validated with OpenAI's rules and 400
//!   texts (`tool_calls[].function.arguments` must be a JSON string; a
//!   `tool` message needs the `tool_call_id` of a call in the assistant
//!   message before it; every call needs its result), then served as the
//!   equivalent `/api/chat` request would be (`stream` defaults to false;
//!   no `keep_alive` or `options`, so the defaults apply). A stream is
//!   `text/event-stream`: `data: {chat.completion.chunk}` events — one per
//!   token (`reasoning_content` for scripted thinking, always streamed;
//!   then `content`), each tool call as a first piece with `index`, `id`
//!   (minted `call_<n>_<index>` when the script gives none), `type` and
//!   `function.name`, then `function.arguments` fragments of up to six
//!   characters (a scripted `arguments` string goes out as it is, to
//!   script arguments that are not JSON); a chunk with `finish_reason` (`stop` or `tool_calls`;
//!   calls scripted `tool_calls_on_done` come whole in it); with
//!   `stream_options.include_usage` a chunk with no choices, `usage`
//!   (`prompt_tokens_details.cached_tokens` from the prefix cache) and
//!   llama.cpp's `timings`; then `data: [DONE]`. Errors before output are
//!   `{"error": {"message", "type", "param", "code"}}` (an unknown model is
//!   a 404 with code `model_not_found`).
//! - `GET /v1/models`: the installed models (`{"object":"list","data":[{"id"}]}`).
//! - With a script `api_key`, a `/v1` request without `Authorization:
//!   Bearer KEY` is a 401 (`invalid_api_key`). Other `/v1` paths: 404.
//! - Faults: `status:CODE` answers CODE with the OpenAI error body;
//!   `drop_after:N` closes the socket (no `finish_reason`, no `[DONE]`);
//!   `error_after:N` sends `data: {"error": {...}}` then `[DONE]`;
//!   `malformed_after:N` a data line that is not JSON, then `[DONE]`;
//!   `stall_after:N` holds the connection; `no_done` ends the body with
//!   neither a `finish_reason` nor `[DONE]`; `split_utf8` cuts every event
//!   inside a character. A client that leaves counts in `cancelled` as on
//!   `/api/chat`.
//!
//! ## Script format
//!
//! ```json
//! {
//!   "models": [
//!     {"name": "qwen3:8b", "load_ms": 1500, "context_length": 40960,
//!      "capabilities": ["completion", "tools", "thinking"],
//!      "size": 5225388164, "size_vram": 4000000000,
//!      "token_ms": 20, "prompt_us_per_token": 50,
//!      "family": "qwen3", "parameter_size": "8.2B",
//!      "quantization_level": "Q4_K_M"},
//!     {"name": "llama3.2:3b", "installed": false}
//!   ],
//!   "replies": [
//!     {"thinking": "The user greets me.", "content": "Hello! 👋"},
//!     {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}, "id": "call_1"}],
//!      "tool_calls_on_done": true},
//!     {"model": "qwen3:8b", "prompt_eval_ms": 3000, "token_ms": 50,
//!      "content": "héllo wörld 🌍", "split_utf8": true},
//!     {"content": "one two three four", "fault": "drop_after:2"}
//!   ],
//!   "api_key": "sk-test"
//! }
//! ```
//!
//! `api_key` (absent: none) is the key `/v1` requests must carry;
//! `legacy_tags` (false) answers `/api/tags` as Ollama before 0.30.
//! `models` (absent: the default table of [`Script::default_models`]):
//! `name` (required), `load_ms` (0), `context_length` (32768),
//! `capabilities` (`["completion"]`), `size`, `size_vram` (= `size`),
//! `installed` (true; false = pullable), `token_ms` (0, the per-token delay
//! of replies that set none), `prompt_us_per_token` (0), `family`,
//! `parameter_size`, `quantization_level`.
//!
//! `replies` are taken in order by chat requests that carry messages (on
//! either API), when
//! the request reaches the front of its model's queue; a reply with `model`
//! only matches that model, one with `when` only a request whose last user
//! message contains that text (the first matching reply is taken). Fields:
//! `prompt_eval_ms` (else `prompt_us_per_token` × uncached tokens: the
//! simulator waits that long and reports it as `prompt_eval_duration`),
//! `token_ms`, `thinking` (streamed first, only when the request's `think`
//! is truthy), `content`, `tool_calls` (`name`, `arguments` object, `id`
//! sent only when given), `tool_calls_on_done`, `split_utf8` (each line
//! written in two pieces cut inside its first multi-byte character, with a
//! short pause between), `fault`. With no reply queued the model answers
//! `You said: <last user message>`. Text streams in word pieces with their
//! leading space; multi-byte characters are never cut except by
//! `split_utf8`.
//!
//! Faults (`N` counts token lines, thinking and content alike):
//! `status:CODE` (that status, `{"error":"simulated error CODE"}`, before
//! any output and before loading), `drop_after:N` (close the socket: no
//! done line, no chunked terminator), `error_after:N` (an in-band
//! `{"error":"simulated in-band error"}` line, then a proper end),
//! `malformed_after:N` (a line that is not JSON, then a proper end),
//! `stall_after:N` (nothing more until the client leaves; counted as
//! cancelled), `no_done` (everything but the done line, then a proper end).
//!
//! ## Control endpoints
//!
//! `GET /sim/stats` ([`Stats`]: requests, loads begun, completed and
//! aborted, prompt evaluations begun, chunks streamed, clients that left a
//! queue, cancelled generations, unloads), `GET /sim/requests` (every request but
//! `/sim/*`, as [`RecordedRequest`]s in arrival order), `POST /sim/script`
//! (replace models and queued replies), `POST /sim/reply` (queue one
//! [`Reply`]), `POST /sim/reset` (zero the counters, clear the capture).
//!
//! ## In-process use
//!
//! Besides the endpoints' equivalents, the handle can hold requests at a
//! moment of their life ([`Hold`]: the end of a load, the end of prompt
//! evaluation) until the test releases them, so that a test acting "during
//! the load" never races a timer; [`SimHandle::wait_until`] waits on the
//! counters without polling.
//!
//! ```no_run
//! use std::time::Duration;
//! use hearth_sim::{Fault, ModelSpec, Reply, Script, Sim};
//!
//! # async fn demo() -> std::io::Result<()> {
//! let script = Script::with_models(vec![
//!     ModelSpec::new("m:1b").with_load_ms(2000).with_capabilities(&["tools"]),
//! ])
//! .with_reply(Reply::text("hi there").with_prompt_eval_ms(500))
//! .with_reply(Reply::text("a b c d").with_fault(Fault::DropAfter(2)));
//! let sim = Sim::start(script).await?;
//! let base = sim.url(); // http://127.0.0.1:PORT
//! // ... drive a client against `base` ...
//! let stats = sim
//!     .wait_until(|s| s.loads == 1, Duration::from_secs(5))
//!     .await
//!     .unwrap_or_else(|s| s);
//! assert_eq!(stats.aborted_loads, 0);
//! # Ok(()) }
//! ```

mod api;
mod chat;
mod control;
mod duration;
mod embed;
mod fault;
mod generate;
mod http;
mod openai;
mod prompt;
mod respond;
mod script;
mod server;
mod sse;
mod state;
mod wire;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub use embed::vector as embedding_of;
pub use fault::{Fault, FaultParseError};
pub use script::{ModelSpec, Reply, Script, ToolCallSpec};
pub use state::{Hold, RecordedRequest, Stats};

use crate::state::Shared;

/// The Ollama version the simulator reports on `/api/version`, and the one
/// whose source its wire shapes were last checked against (the `/api/tags`
/// fields, the overflow error's text).
pub const OLLAMA_VERSION: &str = "0.32.15";

/// Starts simulators.
#[derive(Debug, Clone, Copy)]
pub struct Sim;

impl Sim {
    /// Starts a simulator on `127.0.0.1` with a free port. Must be called
    /// inside a tokio runtime (the server runs on it).
    pub async fn start(script: Script) -> io::Result<SimHandle> {
        Self::bind(SocketAddr::from(([127, 0, 0, 1], 0)), script).await
    }

    /// Starts a simulator on this address (port 0 = any free port).
    pub async fn bind(addr: SocketAddr, script: Script) -> io::Result<SimHandle> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::new(script));
        let tasks = vec![
            tokio::spawn(server::accept_loop(listener, Arc::clone(&shared))),
            tokio::spawn(Arc::clone(&shared).reap_forever()),
        ];
        tracing::debug!(%addr, "hearth-sim listening");
        Ok(SimHandle {
            addr,
            shared,
            tasks,
        })
    }
}

/// A running simulator. Dropping it stops the server: the accept loop,
/// every connection (mid-response ones included) and the expiry task.
#[derive(Debug)]
pub struct SimHandle {
    addr: SocketAddr,
    shared: Arc<Shared>,
    tasks: Vec<JoinHandle<()>>,
}

impl SimHandle {
    /// The base URL clients use, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The counters and the loaded models now (expired runners unloaded
    /// first).
    pub fn stats(&self) -> Stats {
        self.shared.stats()
    }

    /// The length of the vectors embedding requests get from now on (a
    /// server whose model changed under an index).
    pub fn set_embed_dims(&self, dims: usize) {
        self.shared.mutate(|inner| inner.embed_dims = dims.max(1));
    }

    /// Every embedding request fails with `status` from now on (`None`:
    /// they succeed again).
    pub fn fail_embeddings(&self, status: Option<u16>) {
        self.shared.mutate(|inner| inner.embed_fault = status);
    }

    /// Embedding requests with an input longer than `max` bytes fail with
    /// llama.cpp's 500 from now on (`None`: any length).
    pub fn refuse_embedding_inputs_over(&self, max: Option<usize>) {
        self.shared.mutate(|inner| inner.embed_max_bytes = max);
    }

    /// Every request but `/sim/*`, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.read(|inner| inner.requests.clone())
    }

    /// The bodies of the `POST /api/chat` requests, in arrival order.
    pub fn chat_bodies(&self) -> Vec<serde_json::Value> {
        self.bodies("/api/chat")
    }

    /// The bodies of the `POST /v1/chat/completions` requests, in arrival
    /// order.
    pub fn completion_bodies(&self) -> Vec<serde_json::Value> {
        self.bodies("/v1/chat/completions")
    }

    fn bodies(&self, path: &str) -> Vec<serde_json::Value> {
        self.shared.read(|inner| {
            inner
                .requests
                .iter()
                .filter(|r| r.method == "POST" && r.path == path)
                .map(|r| r.body.clone())
                .collect()
        })
    }

    /// Replaces the script (models and queued replies); loaded models stay
    /// loaded.
    pub fn set_script(&self, script: Script) {
        self.shared.set_script(script);
    }

    /// Queues a reply after those already queued.
    pub fn push_reply(&self, reply: Reply) {
        self.shared.mutate(|inner| inner.replies.push_back(reply));
    }

    /// Replies still queued.
    pub fn pending_replies(&self) -> usize {
        self.shared.read(|inner| inner.replies.len())
    }

    /// Zeroes the counters and clears the capture (loaded models stay).
    pub fn reset(&self) {
        self.shared.reset();
    }

    /// Holds every chat request that reaches `point` there until
    /// [`SimHandle::release`]: a test that must act "while the model loads"
    /// or "while the prompt is evaluated" waits for the counter that says
    /// the request got there (`loads_started`, `prompt_evals`) and acts,
    /// with no timer to race. A client that leaves meanwhile aborts the
    /// load or cancels the generation, as without the hold.
    pub fn hold(&self, point: Hold) {
        self.shared.set_hold(point, true);
    }

    /// Lets the requests held at `point` go on, and the next ones pass.
    pub fn release(&self, point: Hold) {
        self.shared.set_hold(point, false);
    }

    /// Waits until `pred` holds for the stats, re-checking on every change
    /// of a counter, the runner table or the capture (no polling). `Ok`
    /// with the stats that satisfied it, or `Err` with the last stats when
    /// `timeout` passes first.
    pub async fn wait_until<F>(&self, pred: F, timeout: Duration) -> Result<Stats, Stats>
    where
        F: Fn(&Stats) -> bool,
    {
        let mut changes = self.shared.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            changes.borrow_and_update();
            let stats = self.stats();
            if pred(&stats) {
                return Ok(stats);
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                _ => {
                    let stats = self.stats();
                    return if pred(&stats) { Ok(stats) } else { Err(stats) };
                }
            }
        }
    }

    /// Stops the server now (the same as dropping the handle).
    pub fn shutdown(self) {}
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}
