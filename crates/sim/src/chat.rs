//! `POST /api/chat` up to the first generated token: validation (with
//! Ollama's error texts and statuses), the per-model FIFO queue, loading and
//! reloading, load and unload requests (empty `messages`), context fitting,
//! the prefix cache and prompt evaluation. Every wait races the client's
//! socket: a client that leaves while the model loads aborts the load; one
//! that leaves later cancels the generation and leaves the model loaded.
//!
//! The OpenAI API (`/v1/chat/completions`, in `openai`) arrives here too,
//! translated to an Ollama request as Ollama's own compatibility layer does,
//! so both APIs share the queue, the runners, the prefix cache, the replies
//! and the counters; only the error bodies and the reply format differ
//! ([`Dialect`]).
//!
//! Generation itself (tokens, tool calls, faults) is in `generate` (NDJSON)
//! and `sse` (server-sent events).

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::duration::KeepAlive;
use crate::fault::Fault;
use crate::generate::{self, Plan, Timing};
use crate::http::{Conn, Gone};
use crate::prompt;
use crate::respond::{Flow, reject, reject_openai};
use crate::script::{ModelSpec, Reply};
use crate::sse::{self, V1Options};
use crate::state::{Hold, Inner, Lease, LoadOptions, Runner, Shared};
use crate::wire::{self, ChatRequest, ChatResponse, Message, OutMessage};

/// A request that passed validation.
struct Checked {
    spec: ModelSpec,
    keep_alive: Option<KeepAlive>,
    think: bool,
    options: LoadOptions,
    /// Empty `messages` with `keep_alive` 0: unload, nothing else.
    unload_only: bool,
}

/// An error answered before any output.
type Rejection = (u16, String);

/// Which API a chat came in on: it decides the error bodies and how the
/// reply is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// `POST /api/chat`: NDJSON lines (or one object), `{"error": "…"}`.
    Ollama,
    /// `POST /v1/chat/completions`: server-sent events (or one object),
    /// `{"error": {"message": …, "type": …}}`. Scripted thinking is always
    /// streamed (as `reasoning_content`): there is no `think` switch.
    OpenAi(V1Options),
}

/// Serves one `POST /api/chat`.
pub(crate) async fn handle(
    shared: &Arc<Shared>,
    conn: &mut Conn,
    body: &[u8],
) -> Result<Flow, Gone> {
    match parse(body) {
        Ok(req) => serve(shared, conn, req, Dialect::Ollama).await,
        Err(message) => reject(conn, 400, &message).await,
    }
}

/// Serves one chat request of either API, from validation to the last
/// byte of the reply.
pub(crate) async fn serve(
    shared: &Arc<Shared>,
    conn: &mut Conn,
    req: ChatRequest,
    dialect: Dialect,
) -> Result<Flow, Gone> {
    let started = Instant::now();
    let checked = match shared.read(|inner| validate(inner, &req)) {
        Ok(checked) => checked,
        Err((status, message)) => return reject_as(conn, dialect, status, &message).await,
    };
    let name = checked.spec.name.clone();
    if checked.unload_only {
        shared.mutate(|inner| match inner.runners.get_mut(&name) {
            // Like Ollama's expireRunner: a busy runner goes when its
            // request ends.
            Some(runner) if runner.busy => runner.keep_alive = KeepAlive::For(Duration::ZERO),
            Some(_) => {
                inner.unload(&name);
            }
            None => {}
        });
        return answer_load(conn, &req.model, "unload").await;
    }

    // One request at a time per model; a client that leaves while queued
    // just leaves (dropping the lock future gives up its place).
    let queue = shared.queue(&name);
    let Ok(_turn) = conn.race(queue.lock_owned()).await else {
        shared.mutate(|inner| inner.counters.left_queue += 1);
        return Err(Gone);
    };

    let reply = if req.messages.is_empty() {
        None
    } else {
        let prompt = last_user(&req.messages);
        shared.mutate(|inner| inner.take_reply(&name, prompt))
    };
    if let Some(Fault::Status(code)) = reply.as_ref().and_then(|r| r.fault) {
        let message = format!("simulated error {code}");
        return reject_as(conn, dialect, code, &message).await;
    }

    let load_started = Instant::now();
    let _lease = ensure_loaded(shared, conn, &checked).await?;
    let load_ns = nanos(load_started.elapsed());

    if req.messages.is_empty() {
        return answer_load(conn, &req.model, "load").await;
    }

    let tools = req.tools.clone().unwrap_or_default();
    let num_ctx = shared.read(|inner| inner.runners.get(&name).map_or(4096, |r| r.num_ctx));
    let num_ctx = usize::try_from(num_ctx).unwrap_or(usize::MAX);
    let truncate = req.truncate.unwrap_or(true);
    let Some(fitted) = prompt::fit(&req.messages, &tools, num_ctx, truncate) else {
        return reject_as(
            conn,
            dialect,
            400,
            // Ollama's current wording (since the runner refuses an
            // over-long prompt with `truncate: false` instead of cutting it).
            "the prompt is longer than the context length currently available to the model; \
             shorten the prompt, adjust the context length in settings, or use a model with a \
             longer context length",
        )
        .await;
    };
    let eval_count = shared.mutate(|inner| {
        inner.counters.prompt_evals += 1;
        if fitted.dropped > 0 {
            inner.counters.truncated_prompts += 1;
        }
        let runner = inner.runners.get_mut(&name)?;
        let (kept, count) = prompt::uncached(&runner.cache, &fitted.tokens);
        runner.cache.truncate(kept);
        Some(count)
    });
    let eval_count = eval_count.unwrap_or(fitted.tokens.len());

    let reply = reply.unwrap_or_else(|| Reply::text(echo(&req.messages)));
    let eval_delay = match reply.prompt_eval_ms {
        Some(ms) => Duration::from_millis(ms),
        None => Duration::from_micros(
            checked
                .spec
                .prompt_us_per_token
                .saturating_mul(eval_count as u64),
        ),
    };
    // llama.cpp's server answers a streamed request with its head at once,
    // then evaluates the prompt (`Reply::head_first`).
    if reply.head_first && matches!(dialect, Dialect::OpenAi(_)) && req.stream.unwrap_or(true) {
        conn.set_stream_type("text/event-stream");
        conn.stream_piece(b"").await?;
    }
    let eval_started = Instant::now();
    let evaluated = async {
        tokio::time::sleep(eval_delay).await;
        shared.released(Hold::PromptEval).await;
    };
    if conn.race(evaluated).await.is_err() {
        shared.mutate(|inner| inner.counters.cancelled += 1);
        return Err(Gone);
    }
    // The engine's own figure is the evaluation it did, as modelled: the
    // time measured here would add a loaded machine's late wake-up (and a
    // test's hold) to it, and the cache's saving would read as noise. With
    // no cost modelled, the (tiny, never zero) time it took, as Ollama's.
    let prompt_eval_ns = if eval_delay.is_zero() {
        nanos(eval_started.elapsed())
    } else {
        nanos(eval_delay)
    };
    shared.mutate(|inner| {
        if let Some(runner) = inner.runners.get_mut(&name) {
            runner.cache.clone_from(&fitted.tokens);
        }
    });

    let think = checked.think || matches!(dialect, Dialect::OpenAi(_));
    let plan = Plan::new(&req.model, &reply, think, checked.spec.token_ms);
    let timing = Timing {
        started,
        load_ns,
        prompt_tokens: fitted.tokens.len() as u64,
        prompt_eval_count: eval_count as u64,
        prompt_eval_ns,
    };
    let outcome = match (dialect, req.stream.unwrap_or(true)) {
        (Dialect::Ollama, true) => generate::stream(conn, &plan, &timing, shared).await,
        (Dialect::Ollama, false) => generate::whole(conn, &plan, &timing).await,
        (Dialect::OpenAi(v1), true) => sse::stream(conn, &plan, &timing, v1).await,
        (Dialect::OpenAi(v1), false) => sse::whole(conn, &plan, &timing, v1).await,
    };
    match outcome {
        Err(Gone) => {
            shared.mutate(|inner| inner.counters.cancelled += 1);
            Err(Gone)
        }
        Ok(flow) => {
            if flow == Flow::Next {
                let text = fitted.tokens.concat() + &plan.rendered_reply();
                shared.mutate(|inner| {
                    if let Some(runner) = inner.runners.get_mut(&name) {
                        runner.cache = prompt::tokens(&text);
                    }
                });
            }
            Ok(flow)
        }
    }
}

fn parse(body: &[u8]) -> Result<ChatRequest, String> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err("missing request body".to_owned());
    }
    serde_json::from_slice(body).map_err(|e| e.to_string())
}

/// Checks in Ollama's order: body fields, model, unload shortcut,
/// capabilities, options.
fn validate(inner: &Inner, req: &ChatRequest) -> Result<Checked, Rejection> {
    let keep_alive = KeepAlive::from_json(req.keep_alive.as_ref()).map_err(|e| (400, e))?;
    let think = wire::think_enabled(req.think.as_ref()).map_err(|e| (400, e))?;
    if req.model.is_empty() {
        return Err((400, "model is required".to_owned()));
    }
    let spec = inner
        .model(&req.model)
        .filter(|m| m.installed)
        .cloned()
        .ok_or_else(|| {
            (
                404,
                format!("model {:?} not found, try pulling it first", req.model),
            )
        })?;
    let unload_only = req.messages.is_empty() && keep_alive.is_some_and(KeepAlive::is_zero);
    if !unload_only {
        if think && !spec.has_capability("thinking") {
            return Err((400, format!("{:?} does not support thinking", req.model)));
        }
        if req.tools.as_ref().is_some_and(|t| !t.is_empty()) && !spec.has_capability("tools") {
            return Err((
                400,
                format!("{} does not support tools", full_name(&spec.name)),
            ));
        }
    }
    let options = LoadOptions::from_options(req.options.as_ref()).map_err(|e| (400, e))?;
    Ok(Checked {
        spec,
        keep_alive,
        think,
        options,
        unload_only,
    })
}

/// The registry name Ollama prints in capability errors.
fn full_name(name: &str) -> String {
    if name.contains('/') {
        format!("registry.ollama.ai/{name}")
    } else {
        format!("registry.ollama.ai/library/{name}")
    }
}

/// Makes sure a runner with these load-time options is loaded and marks it
/// busy; the lease releases it. Reloads (unload + load) when the options
/// differ. A client that leaves during the load aborts it: the model is
/// not loaded, as when Ollama kills the runner.
async fn ensure_loaded(
    shared: &Arc<Shared>,
    conn: &mut Conn,
    checked: &Checked,
) -> Result<Lease, Gone> {
    let name = checked.spec.name.clone();
    let reused = shared.mutate(|inner| match inner.runners.get_mut(&name) {
        Some(runner) if runner.options == checked.options => {
            runner.busy = true;
            runner.expires_at = None;
            // An omitted keep_alive keeps what the runner had (Ollama's
            // useLoadedRunner).
            if let Some(ka) = checked.keep_alive {
                runner.keep_alive = ka;
            }
            true
        }
        Some(_) => {
            inner.unload(&name);
            false
        }
        None => false,
    });
    if !reused {
        shared.mutate(|inner| inner.counters.loads_started += 1);
        let load_ms = checked.spec.load_ms;
        let loaded = async {
            if load_ms > 0 {
                tokio::time::sleep(Duration::from_millis(load_ms)).await;
            }
            shared.released(Hold::Load).await;
        };
        if conn.race(loaded).await.is_err() {
            shared.mutate(|inner| inner.counters.aborted_loads += 1);
            return Err(Gone);
        }
        let runner = Runner {
            spec: checked.spec.clone(),
            options: checked.options,
            num_ctx: checked.options.num_ctx().min(checked.spec.context_length),
            keep_alive: checked.keep_alive.unwrap_or(KeepAlive::DEFAULT),
            expires_at: None,
            busy: true,
            cache: Vec::new(),
        };
        shared.mutate(|inner| {
            inner.counters.loads += 1;
            inner.runners.insert(name.clone(), runner);
        });
    }
    Ok(Lease::new(Arc::clone(shared), name))
}

/// The answer to a load or unload request: Ollama's `c.JSON`, so a
/// `Content-Length` body whatever `stream` says.
async fn answer_load(conn: &mut Conn, model: &str, reason: &'static str) -> Result<Flow, Gone> {
    let mut resp = ChatResponse::chunk(model, OutMessage::content(""));
    resp.done = true;
    resp.done_reason = Some(reason);
    conn.respond_json(200, &wire::go_json(&resp)).await?;
    Ok(Flow::Next)
}

/// An error before any output, in the error shape of `dialect`.
pub(crate) async fn reject_as(
    conn: &mut Conn,
    dialect: Dialect,
    status: u16,
    message: &str,
) -> Result<Flow, Gone> {
    match dialect {
        Dialect::Ollama => reject(conn, status, message).await,
        Dialect::OpenAi(_) => reject_openai(conn, status, message).await,
    }
}

/// The last user message's text (the last message's when none is).
fn last_user(messages: &[Message]) -> &str {
    messages
        .iter()
        .rev()
        .find(|m| m.role == "user")
        .or(messages.last())
        .map_or("", |m| m.content.as_str())
}

/// The reply when none is scripted: echoes the last user message.
fn echo(messages: &[Message]) -> String {
    format!("You said: {}", last_user(messages))
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
