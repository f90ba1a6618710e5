//! The simulator's own endpoints under `/sim/`, the HTTP face of the
//! library handle for a simulator run as a separate process:
//! `GET /sim/stats`, `GET /sim/requests`, `POST /sim/script` (replace models
//! and queued replies), `POST /sim/reply` (queue one reply),
//! `POST /sim/reset` (zero counters, clear the capture), `POST /sim/tokens`
//! (`{"budget": n}` or `{"budget": null}`: how many more tokens streamed
//! Ollama replies may write, or no limit; `{"allow": n}`: n more). Not
//! recorded in the capture and not counted.

use std::sync::Arc;

use crate::http::{Conn, Gone};
use crate::respond::{Flow, reject};
use crate::script::{Reply, Script};
use crate::state::Shared;
use crate::wire;

/// The body of `POST /sim/tokens`.
#[derive(serde::Deserialize)]
#[serde(rename_all = "snake_case")]
enum TokenBudget {
    /// Tokens still allowed from now on; `null`: no limit.
    Budget(Option<u64>),
    /// This many more.
    Allow(u64),
}

/// Serves a `/sim/*` request; `None` when the path is not one of them.
pub(crate) async fn handle(
    shared: &Arc<Shared>,
    conn: &mut Conn,
    method: &str,
    path: &str,
    body: &[u8],
) -> Option<Result<Flow, Gone>> {
    let ok = || wire::go_json(&serde_json::json!({ "status": "ok" }));
    let out = match (method, path) {
        ("GET", "/sim/stats") => {
            let stats = shared.stats();
            conn.respond_json(200, &wire::go_json(&stats)).await
        }
        ("GET", "/sim/requests") => {
            let requests = shared.read(|inner| inner.requests.clone());
            conn.respond_json(200, &wire::go_json(&requests)).await
        }
        ("POST", "/sim/script") => match serde_json::from_slice::<Script>(body) {
            Ok(script) => {
                shared.set_script(script);
                conn.respond_json(200, &ok()).await
            }
            Err(e) => return Some(reject(conn, 400, &format!("invalid script: {e}")).await),
        },
        ("POST", "/sim/reply") => match serde_json::from_slice::<Reply>(body) {
            Ok(reply) => {
                shared.mutate(|inner| inner.replies.push_back(reply));
                conn.respond_json(200, &ok()).await
            }
            Err(e) => return Some(reject(conn, 400, &format!("invalid reply: {e}")).await),
        },
        ("POST", "/sim/tokens") => match serde_json::from_slice::<TokenBudget>(body) {
            Ok(TokenBudget::Budget(budget)) => {
                shared.set_token_budget(budget);
                conn.respond_json(200, &ok()).await
            }
            Ok(TokenBudget::Allow(n)) => {
                shared.allow_tokens(n);
                conn.respond_json(200, &ok()).await
            }
            Err(e) => return Some(reject(conn, 400, &format!("invalid token budget: {e}")).await),
        },
        ("POST", "/sim/reset") => {
            shared.reset();
            conn.respond_json(200, &ok()).await
        }
        _ => return None,
    };
    Some(out.map(|()| Flow::Next))
}
