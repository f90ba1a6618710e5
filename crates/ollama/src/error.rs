//! Errors of the Ollama client, each saying what to do.

use hearth_core::BackendError;
use hearth_http::SendFailure;

/// What went wrong talking to Ollama.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OllamaError {
    /// Nothing answers at the URL.
    #[error(
        "cannot reach Ollama at {url}: is it running? Start it with `ollama serve`, or point Hearth at it with --url or OLLAMA_HOST ({detail})"
    )]
    Unreachable {
        /// Base URL tried.
        url: String,
        /// The connection error.
        detail: String,
    },
    /// The URL itself is unusable.
    #[error("`{url}` is not a usable Ollama URL: {detail}")]
    InvalidUrl {
        /// What was given.
        url: String,
        /// Why it is unusable.
        detail: String,
    },
    /// 404 for a model: it is not installed.
    #[error("model `{model}` is not installed in Ollama: run `ollama pull {model}`")]
    ModelNotFound {
        /// The model name.
        model: String,
    },
    /// 4xx: the request was refused.
    #[error("Ollama rejected the request (HTTP {status}): {message}")]
    BadRequest {
        /// HTTP status.
        status: u16,
        /// Ollama's words.
        message: String,
    },
    /// 5xx, or an `{"error"}` line inside a stream.
    #[error("Ollama failed: {message}")]
    Server {
        /// HTTP status when it came as one; `None` for an in-band error.
        status: Option<u16>,
        /// Ollama's words.
        message: String,
    },
    /// The stream ended (or the connection dropped) before the final line.
    #[error("the answer broke off: the stream ended before the model finished")]
    Truncated,
    /// A line that is not a valid Ollama message.
    #[error("Ollama sent an invalid line: {detail}")]
    Malformed {
        /// What was wrong, with the start of the line.
        detail: String,
    },
    /// Nothing arrived within the allowed time.
    #[error("Ollama sent nothing for {seconds} s ({phase}); it may be overloaded or stuck")]
    Timeout {
        /// Which wait.
        phase: &'static str,
        /// How long we waited.
        seconds: u64,
    },
}

/// A whole reply that could not be read.
impl From<hearth_http::BodyError> for OllamaError {
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

impl OllamaError {
    /// Classify a reqwest error from sending a request to `url`.
    pub(crate) fn from_send(url: &str, e: SendFailure) -> Self {
        match e {
            SendFailure::Unreachable { detail } => Self::Unreachable {
                url: url.to_owned(),
                detail,
            },
            SendFailure::Timeout { phase, seconds } => Self::Timeout { phase, seconds },
            // Ollama sends no status line until the first token: a connection
            // closed before it is an answer that broke off before it began.
            SendFailure::Broken { .. } => Self::Truncated,
        }
    }

    /// Map an HTTP error status and body to an error, for `model`.
    pub(crate) fn from_status(status: u16, body: &str, model: Option<&str>) -> Self {
        let message = serde_json::from_str::<serde_json::Value>(body)
            .ok()
            .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_owned))
            .unwrap_or_else(|| body.chars().take(500).collect());
        match (status, model) {
            (404, Some(m)) => Self::ModelNotFound {
                model: m.to_owned(),
            },
            // Too many requests is transient: retried, not a settings problem.
            (429, _) => Self::Server {
                status: Some(status),
                message,
            },
            (400..=499, _) => Self::BadRequest { status, message },
            _ => Self::Server {
                status: Some(status),
                message,
            },
        }
    }
}

/// Whether a 400's text says the prompt is longer than the context window
/// (worded differently across Ollama versions: "the input length exceeds
/// the context length", "input length … exceeds maximum context length",
/// and since the runner refuses instead of truncating, "the prompt is
/// longer than the context length currently available to the model; …").
fn is_overflow(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("context") && (m.contains("exceed") || m.contains("longer than"))
}

impl From<OllamaError> for BackendError {
    fn from(e: OllamaError) -> Self {
        match e {
            OllamaError::Unreachable { url, detail } => Self::Unreachable { url, detail },
            OllamaError::InvalidUrl { url, detail } => Self::InvalidUrl { url, detail },
            OllamaError::ModelNotFound { model } => Self::ModelNotFound { model },
            // With `truncate: false` an over-long prompt is refused
            // instead of losing its oldest messages.
            OllamaError::BadRequest { message, .. } if is_overflow(&message) => {
                Self::ContextOverflow { message }
            }
            OllamaError::BadRequest { message, .. } => Self::BadRequest { message },
            OllamaError::Server { status, message } => Self::Server { status, message },
            OllamaError::Truncated => Self::Truncated,
            OllamaError::Malformed { detail } => Self::Malformed { detail },
            e @ OllamaError::Timeout { .. } => Self::Timeout {
                detail: e.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An address that is not one is said to be wrong, not "is it
    /// running?" (user pass 2026-12, defect 28).
    #[test]
    fn an_address_that_is_not_one_is_a_setting_to_fix() {
        let e = crate::Client::new("http://not a url:11434", Default::default())
            .expect_err("not a URL");
        let info = BackendError::from(e).to_info();
        assert_eq!(info.code, hearth_protocol::ErrorCode::InvalidInput);
        assert_eq!(info.recovery, hearth_protocol::Recovery::FixConfig);
        assert!(
            info.message
                .starts_with("cannot use `http://not a url:11434` as the model server's address"),
            "{}",
            info.message
        );
        assert!(!info.message.contains("is it running"), "{}", info.message);
    }

    #[test]
    fn every_wording_of_an_overflow_is_one() {
        for message in [
            "the input length exceeds the context length",
            "input length (5000) exceeds maximum context length (4096)",
            "the prompt is longer than the context length currently available to the model; \
             shorten the prompt, adjust the context length in settings, or use a model with a \
             longer context length",
        ] {
            let e = OllamaError::from_status(400, &format!(r#"{{"error":"{message}"}}"#), None);
            assert!(
                matches!(BackendError::from(e), BackendError::ContextOverflow { .. }),
                "{message}"
            );
        }
        let other = OllamaError::from_status(400, r#"{"error":"invalid options"}"#, None);
        assert!(matches!(
            BackendError::from(other),
            BackendError::BadRequest { .. }
        ));
    }

    #[test]
    fn status_mapping_names_the_pull_command() {
        let e = OllamaError::from_status(
            404,
            r#"{"error":"model \"x\" not found"}"#,
            Some("qwen3:8b"),
        );
        assert_eq!(
            e.to_string(),
            "model `qwen3:8b` is not installed in Ollama: run `ollama pull qwen3:8b`"
        );
        let e = OllamaError::from_status(400, r#"{"error":"bad"}"#, Some("m"));
        assert_eq!(
            e,
            OllamaError::BadRequest {
                status: 400,
                message: "bad".into()
            }
        );
        let e = OllamaError::from_status(503, "busy", None);
        assert_eq!(
            e,
            OllamaError::Server {
                status: Some(503),
                message: "busy".into()
            }
        );
    }
}
