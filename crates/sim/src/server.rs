//! The accept loop, the per-connection request loop, request capture and
//! routing. Each connection is one task serving its requests in turn
//! (keep-alive); the accept loop owns the connection tasks, so aborting it
//! ends them all.

use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use crate::http::{Conn, Gone, Request};
use crate::respond::{Flow, not_found};
use crate::state::{RecordedRequest, Shared};
use crate::{api, chat, control, embed, openai};

/// Accepts connections until aborted.
pub(crate) async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    conns.spawn(connection(stream, Arc::clone(&shared)));
                }
                Err(e) => {
                    // Out of file descriptors and the like: back off a little.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            },
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
}

async fn connection(stream: TcpStream, shared: Arc<Shared>) {
    let counter = Arc::clone(&shared);
    let mut conn = Conn::new(stream, Box::new(move || counter.chunk_sent()));
    loop {
        let req = match conn.read_request().await {
            Ok(Some(req)) => req,
            Ok(None) => return,
            Err(rejected) => {
                conn.set_closing();
                let body = rejected.message.as_bytes();
                let _ = conn
                    .respond(rejected.status, "text/plain; charset=utf-8", body)
                    .await;
                return;
            }
        };
        tracing::debug!(method = %req.method, path = %req.path, "request");
        let flow = dispatch(&shared, &mut conn, req)
            .await
            .unwrap_or(Flow::Close);
        if flow == Flow::Close || conn.closing() {
            return;
        }
    }
}

async fn dispatch(shared: &Arc<Shared>, conn: &mut Conn, req: Request) -> Result<Flow, Gone> {
    let method = req.method.as_str();
    let path = req.path.as_str();
    if path.starts_with("/sim/") {
        if let Some(out) = control::handle(shared, conn, method, path, &req.body).await {
            return out;
        }
        return not_found(conn).await;
    }
    record(shared, &req);
    if path.starts_with("/v1/") {
        return openai::dispatch(shared, conn, &req).await;
    }
    match (method, path) {
        ("GET" | "HEAD", "/") => {
            conn.respond(200, "text/plain; charset=utf-8", b"Ollama is running")
                .await?;
            Ok(Flow::Next)
        }
        ("GET" | "HEAD", "/api/version") => api::version(conn).await,
        ("POST", "/api/chat") => chat::handle(shared, conn, &req.body).await,
        ("POST", "/api/embed") => embed::handle(shared, conn, &req.body, embed::Wire::Ollama).await,
        ("GET" | "HEAD", "/api/tags") => api::tags(shared, conn).await,
        ("POST", "/api/show") => api::show(shared, conn, &req.body).await,
        ("GET", "/api/ps") => api::ps(shared, conn).await,
        ("POST", "/api/pull") => api::pull(shared, conn, &req.body).await,
        ("DELETE", "/api/delete") => api::delete(shared, conn, &req.body).await,
        _ => not_found(conn).await,
    }
}

fn record(shared: &Shared, req: &Request) {
    let body = serde_json::from_slice(&req.body).unwrap_or(serde_json::Value::Null);
    let is_chat =
        req.method == "POST" && matches!(req.path.as_str(), "/api/chat" | "/v1/chat/completions");
    let recorded = RecordedRequest {
        method: req.method.clone(),
        path: req.path.clone(),
        body,
    };
    shared.mutate(|inner| {
        inner.counters.requests += 1;
        if is_chat {
            inner.counters.chat_requests += 1;
        }
        inner.requests.push(recorded);
    });
}
