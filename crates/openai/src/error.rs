//! Errors of the OpenAI-compatible client, each saying what to do.
//!
//! They reach front ends through the core's `BackendError`, whose variants
//! are shared with Ollama; the variants that have no Ollama twin (a refused
//! key, a wrong base URL, a model the server does not serve) travel as
//! `BadRequest` with this crate's full message, which is the one that says
//! what to fix.

use hearth_core::BackendError;
use hearth_http::SendFailure;

use crate::key::ApiKey;

/// What went wrong talking to an OpenAI-compatible server.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OpenAiError {
    /// Nothing answers at the URL.
    #[error(
        "cannot reach the OpenAI-compatible server at {url}: is it running? Start it (llama-server, LM Studio, vLLM, LocalAI) or fix the backend URL ({detail})"
    )]
    Unreachable {
        /// Base URL tried.
        url: String,
        /// The connection error.
        detail: String,
    },
    /// The URL itself is unusable.
    #[error("`{url}` is not a usable server URL: {detail}")]
    InvalidUrl {
        /// What was given.
        url: String,
        /// Why it is unusable.
        detail: String,
    },
    /// 401 or 403: the key is missing, wrong, or lacks the permission. The
    /// server's own words are left out: some echo the key.
    #[error("{}", unauthorized_text(*status, *key_sent, url))]
    Unauthorized {
        /// HTTP status.
        status: u16,
        /// Whether a key was sent.
        key_sent: bool,
        /// Base URL.
        url: String,
    },
    /// 404 naming the model: the server does not serve it.
    #[error(
        "the server at {url} does not serve model `{model}`: check the model name (GET {url}/models lists them) ({message})"
    )]
    ModelNotFound {
        /// The model asked for.
        model: String,
        /// Base URL.
        url: String,
        /// The server's words.
        message: String,
    },
    /// 404 for the path: the base URL is wrong.
    #[error(
        "no such endpoint: {endpoint} (HTTP 404). Is the base URL right? It usually ends in /v1, e.g. http://127.0.0.1:8080/v1"
    )]
    NoSuchEndpoint {
        /// The URL requested.
        endpoint: String,
    },
    /// Another 4xx: the request was refused.
    #[error("the server rejected the request (HTTP {status}): {message}")]
    BadRequest {
        /// HTTP status.
        status: u16,
        /// The server's words.
        message: String,
    },
    /// 5xx, or an `{"error"}` event inside a stream.
    #[error("the server failed: {message}")]
    Server {
        /// HTTP status when it came as one; `None` for an in-band error.
        status: Option<u16>,
        /// The server's words.
        message: String,
    },
    /// The stream ended with neither `[DONE]` nor a `finish_reason`, or the
    /// connection dropped.
    #[error("the answer broke off: the stream ended before the model finished")]
    Truncated,
    /// An event that is not a valid chunk.
    #[error("the server sent an invalid event: {detail}")]
    Malformed {
        /// What was wrong, with the start of the event.
        detail: String,
    },
    /// Nothing arrived within the allowed time.
    #[error("the server sent nothing for {seconds} s ({phase}); it may be overloaded or stuck")]
    Timeout {
        /// Which wait.
        phase: &'static str,
        /// How long we waited.
        seconds: u64,
    },
}

fn unauthorized_text(status: u16, key_sent: bool, url: &str) -> String {
    if key_sent {
        format!(
            "the server at {url} refused the API key (HTTP {status}): check the key in the backend settings (CLI: --api-key or HEARTH_API_KEY)"
        )
    } else {
        format!(
            "the server at {url} wants an API key (HTTP {status}): set one in the backend settings (CLI: --api-key or HEARTH_API_KEY)"
        )
    }
}

impl OpenAiError {
    /// Classify a reqwest error from sending a request to `url`.
    pub(crate) fn from_send(url: &str, e: SendFailure) -> Self {
        match e {
            SendFailure::Unreachable { detail } => Self::Unreachable {
                url: url.to_owned(),
                detail,
            },
            SendFailure::Timeout { phase, seconds } => Self::Timeout { phase, seconds },
            // Closed before the response head: some servers send none until
            // the first token, so the answer broke off before it began.
            // Classified as Ollama's client does, so the core retries it
            // the same way (`model_call.rs`: a dropped connection is worth
            // another attempt, a status-less server error is not).
            SendFailure::Broken { .. } => Self::Truncated,
        }
    }

    /// Map an HTTP error status and body to an error. `base` is the base
    /// URL, `endpoint` the URL requested, `model` the model asked for.
    pub(crate) fn from_status(
        status: u16,
        body: &str,
        base: &str,
        endpoint: &str,
        model: Option<&str>,
        key: Option<&ApiKey>,
    ) -> Self {
        let (message, code) = error_message(body);
        let message = match key {
            Some(k) => k.scrub(&message),
            None => message,
        };
        match status {
            401 | 403 => Self::Unauthorized {
                status,
                key_sent: key.is_some(),
                url: base.to_owned(),
            },
            404 => match model {
                Some(m)
                    if code.as_deref() == Some("model_not_found") || mentions_model(&message) =>
                {
                    Self::ModelNotFound {
                        model: m.to_owned(),
                        url: base.to_owned(),
                        message,
                    }
                }
                _ => Self::NoSuchEndpoint {
                    endpoint: endpoint.to_owned(),
                },
            },
            // Too many requests is transient: retried, not a settings problem.
            429 => Self::Server {
                status: Some(status),
                message,
            },
            400..=499 => Self::BadRequest { status, message },
            _ => Self::Server {
                status: Some(status),
                message,
            },
        }
    }
}

/// A 404 about the model says so: OpenAI and vLLM write "The model `x` does
/// not exist", Ollama's `/v1` `model "x" not found`; a 404 for a path
/// ("404 page not found", "File Not Found") does not mention a model.
fn mentions_model(message: &str) -> bool {
    message.to_ascii_lowercase().contains("model")
}

/// The message and code of an error body, in the shapes servers use:
/// `{"error": {"message", "code"}}` (OpenAI, llama.cpp, vLLM),
/// `{"error": "text"}`, `{"message"}` (older vLLM), `{"detail"}` (FastAPI),
/// or plain text.
/// A whole reply that could not be read.
impl From<hearth_http::BodyError> for OpenAiError {
    fn from(e: hearth_http::BodyError) -> Self {
        match e {
            hearth_http::BodyError::TooLarge { max } => Self::Malformed {
                detail: format!("a reply of more than {max} bytes"),
            },
            hearth_http::BodyError::Dropped => Self::Truncated,
            hearth_http::BodyError::Timeout { seconds } => Self::Timeout {
                phase: "reading a reply",
                seconds,
            },
        }
    }
}

impl OpenAiError {
    /// This error with `key` taken out of every text the server chose (an
    /// error inside an event stream, or one sent with a 200, may echo the
    /// request's header; security review L2).
    pub(crate) fn scrubbed(self, key: Option<&ApiKey>) -> Self {
        let Some(k) = key else {
            return self;
        };
        match self {
            Self::Server { status, message } => Self::Server {
                status,
                message: k.scrub(&message),
            },
            Self::BadRequest { status, message } => Self::BadRequest {
                status,
                message: k.scrub(&message),
            },
            Self::Malformed { detail } => Self::Malformed {
                detail: k.scrub(&detail),
            },
            Self::ModelNotFound {
                model,
                url,
                message,
            } => Self::ModelNotFound {
                model,
                url,
                message: k.scrub(&message),
            },
            other => other,
        }
    }
}

pub(crate) fn error_message(body: &str) -> (String, Option<String>) {
    let plain = || body.trim().chars().take(500).collect::<String>();
    let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
        return (plain(), None);
    };
    let err = v.get("error").unwrap_or(&v);
    let code = err.get("code").and_then(|c| match c {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    });
    let message = err
        .as_str()
        .or_else(|| err.get("message").and_then(|m| m.as_str()))
        .or_else(|| v.get("detail").and_then(|m| m.as_str()))
        .map(str::to_owned)
        .unwrap_or_else(plain);
    (message, code)
}

impl From<OpenAiError> for BackendError {
    fn from(e: OpenAiError) -> Self {
        match e {
            OpenAiError::Unreachable { url, detail } => Self::Unreachable { url, detail },
            OpenAiError::InvalidUrl { url, detail } => Self::InvalidUrl { url, detail },
            // The core's ModelNotFound tells the user to `ollama pull`,
            // which no OpenAI-compatible server offers: the fix is the
            // model name in the settings, so it travels as a bad request.
            e @ (OpenAiError::Unauthorized { .. }
            | OpenAiError::ModelNotFound { .. }
            | OpenAiError::NoSuchEndpoint { .. }) => Self::BadRequest {
                message: e.to_string(),
            },
            OpenAiError::BadRequest { status, message } => Self::BadRequest {
                message: format!("HTTP {status}: {message}"),
            },
            OpenAiError::Server { status, message } => Self::Server { status, message },
            OpenAiError::Truncated => Self::Truncated,
            OpenAiError::Malformed { detail } => Self::Malformed { detail },
            e @ OpenAiError::Timeout { .. } => Self::Timeout {
                detail: e.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "http://h:1/v1";
    const EP: &str = "http://h:1/v1/chat/completions";

    fn status(code: u16, body: &str, key: Option<&ApiKey>) -> OpenAiError {
        OpenAiError::from_status(code, body, BASE, EP, Some("m"), key)
    }

    /// A connection closed before the response head is an answer that
    /// broke off before it began, as Ollama's client says: the core
    /// retries that. (It was a server error without a status, which the
    /// core does not retry.)
    #[test]
    fn a_connection_broken_before_the_head_is_a_truncated_answer() {
        let e = OpenAiError::from_send(
            BASE,
            SendFailure::Broken {
                detail: "connection closed before message completed".into(),
            },
        );
        assert_eq!(e, OpenAiError::Truncated);
        let b = BackendError::from(e);
        assert_eq!(b, BackendError::Truncated);
        let info = b.to_info();
        assert_eq!(
            (info.code, info.recovery),
            (
                hearth_protocol::ErrorCode::StreamTruncated,
                hearth_protocol::Recovery::Retry
            )
        );
    }

    #[test]
    fn auth_errors_say_what_to_set_and_never_echo_the_key() {
        let key = ApiKey::new("sk-123").unwrap();
        let e = status(
            401,
            r#"{"error":{"message":"Incorrect API key provided: sk-123","type":"invalid_request_error"}}"#,
            Some(&key),
        );
        let text = e.to_string();
        assert!(text.contains("refused the API key (HTTP 401)"), "{text}");
        assert!(!text.contains("sk-123"), "{text}");
        let text = status(401, "", None).to_string();
        assert!(text.contains("wants an API key"), "{text}");
        let b: BackendError = status(403, "", Some(&key)).into();
        assert_eq!(b.to_info().code, hearth_protocol::ErrorCode::BadRequest);
    }

    #[test]
    fn a_404_tells_the_model_from_the_path() {
        let e = status(
            404,
            r#"{"error":{"message":"The model `m` does not exist.","type":"invalid_request_error","code":"model_not_found"}}"#,
            None,
        );
        assert!(matches!(e, OpenAiError::ModelNotFound { .. }), "{e:?}");
        let e = status(404, "404 page not found", None);
        assert_eq!(
            e,
            OpenAiError::NoSuchEndpoint {
                endpoint: EP.into()
            }
        );
        assert!(e.to_string().contains("/v1"));
        let e = status(
            404,
            r#"{"error":{"code":404,"message":"File Not Found"}}"#,
            None,
        );
        assert!(matches!(e, OpenAiError::NoSuchEndpoint { .. }), "{e:?}");
    }

    #[test]
    fn error_bodies_in_every_shape() {
        assert_eq!(
            error_message(r#"{"error":{"message":"a","code":400}}"#),
            ("a".into(), Some("400".into()))
        );
        assert_eq!(error_message(r#"{"error":"b"}"#).0, "b");
        assert_eq!(error_message(r#"{"object":"error","message":"c"}"#).0, "c");
        assert_eq!(error_message(r#"{"detail":"Not Found"}"#).0, "Not Found");
        assert_eq!(error_message("busy\n").0, "busy");
        let e = status(503, r#"{"error":{"message":"loading model"}}"#, None);
        assert_eq!(
            e,
            OpenAiError::Server {
                status: Some(503),
                message: "loading model".into()
            }
        );
    }
}
