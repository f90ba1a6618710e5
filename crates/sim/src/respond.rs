//! What a handler tells its connection, and the answers every route may
//! give before any output: an error in Ollama's shape or OpenAI's, Gin's
//! 404. A leaf: the router (`server.rs`) and the handlers it calls both use
//! it, so neither imports the other back.

use serde_json::{Value, json};

use crate::http::{Conn, Gone};
use crate::wire;

/// What a connection does after a handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Serve the next request (unless the client asked to close).
    Next,
    /// Close now, whatever state the response is in.
    Close,
}

/// Gin's answer to an unknown route.
pub(crate) async fn not_found(conn: &mut Conn) -> Result<Flow, Gone> {
    conn.respond(404, "text/plain", b"404 page not found")
        .await?;
    Ok(Flow::Next)
}

/// An error before any output: a real status and `{"error": ...}`.
pub(crate) async fn reject(conn: &mut Conn, status: u16, message: &str) -> Result<Flow, Gone> {
    conn.respond_json(status, &wire::error_body(message))
        .await?;
    Ok(Flow::Next)
}

/// An error before any output, OpenAI-shaped.
pub(crate) async fn reject_openai(
    conn: &mut Conn,
    status: u16,
    message: &str,
) -> Result<Flow, Gone> {
    conn.respond(status, "application/json", &openai_error(status, message))
        .await?;
    Ok(Flow::Next)
}

/// `{"error": {...}}` with the `type` and `code` OpenAI uses for `status`.
pub(crate) fn openai_error(status: u16, message: &str) -> Vec<u8> {
    let (kind, code) = match status {
        401 => ("invalid_request_error", json!("invalid_api_key")),
        403 => ("permission_error", Value::Null),
        404 if message.contains("model") => ("invalid_request_error", json!("model_not_found")),
        404 => ("not_found_error", Value::Null),
        429 => ("rate_limit_error", Value::Null),
        400..=499 => ("invalid_request_error", Value::Null),
        _ => ("server_error", Value::Null),
    };
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": code}});
    serde_json::to_vec(&body).unwrap_or_default()
}
