//! The HTTP client: one method per Ollama endpoint Hearth uses.

use futures::{Stream, StreamExt};
use hearth_core::LoadOptions;
pub use hearth_http::ClientOptions;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::OllamaError;
use crate::stream::{ChatStream, chat_stream, parse_line};
use crate::wire::{
    ChatChunk, ChatRequest, InstalledModel, Options, PsResponse, PullProgress, RunningModel,
    ShowResponse, TagsResponse, VersionResponse,
};

/// Where Ollama listens unless told otherwise.
pub const DEFAULT_URL: &str = "http://127.0.0.1:11434";

/// The base URL: the argument, else `$OLLAMA_HOST`, else [`DEFAULT_URL`].
/// Accepts what Ollama accepts in `OLLAMA_HOST`: `host`, `host:port`,
/// `scheme://host:port`; `0.0.0.0` (a listen address) means this machine.
pub fn resolve_base_url(explicit: Option<&str>) -> String {
    let raw = explicit
        .map(str::to_owned)
        .or_else(|| std::env::var("OLLAMA_HOST").ok())
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_URL.to_owned());
    let raw = raw.trim().trim_end_matches('/');
    let (scheme, rest) = match raw.split_once("://") {
        Some((s, r)) => (s.to_owned(), r.to_owned()),
        None => ("http".to_owned(), raw.to_owned()),
    };
    let rest = rest.replacen("0.0.0.0", "127.0.0.1", 1);
    let has_port = rest
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.chars().all(|c| c.is_ascii_digit()));
    if has_port || rest.contains('/') {
        format!("{scheme}://{rest}")
    } else {
        let port = if scheme == "https" { 443 } else { 11434 };
        format!("{scheme}://{rest}:{port}")
    }
}

/// An Ollama client.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base: String,
    options: ClientOptions,
}

impl Client {
    /// A client for `base_url` (see [`resolve_base_url`]).
    pub fn new(base_url: &str, options: ClientOptions) -> Result<Self, OllamaError> {
        let base = base_url.trim_end_matches('/').to_owned();
        if reqwest::Url::parse(&base).is_err() {
            return Err(OllamaError::InvalidUrl {
                url: base,
                detail: "expected something like http://127.0.0.1:11434".into(),
            });
        }
        // Ollama is usually on loopback: reached directly, never through a
        // system proxy.
        let http =
            hearth_http::build_client(&options, true).map_err(|e| OllamaError::InvalidUrl {
                url: base.clone(),
                detail: e.to_string(),
            })?;
        Ok(Self {
            http,
            base,
            options,
        })
    }

    /// The base URL.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Send a request; map transport errors and error statuses.
    async fn send(
        &self,
        req: reqwest::RequestBuilder,
        model: Option<&str>,
    ) -> Result<reqwest::Response, OllamaError> {
        let resp = hearth_http::send(req, self.options.first_byte_timeout)
            .await
            .map_err(|e| OllamaError::from_send(&self.base, e))?;
        let status = resp.status().as_u16();
        if resp.status().is_success() {
            return Ok(resp);
        }
        let body = hearth_http::error_text(resp, self.options.idle_timeout).await;
        Err(OllamaError::from_status(status, &body, model))
    }

    async fn get_json<T: DeserializeOwned>(&self, path: &str) -> Result<T, OllamaError> {
        let resp = self.send(self.http.get(self.url(path)), None).await?;
        json_body(resp, self.options.idle_timeout).await
    }

    async fn post_json<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
        model: Option<&str>,
    ) -> Result<T, OllamaError> {
        let resp = self
            .send(self.http.post(self.url(path)).json(body), model)
            .await?;
        json_body(resp, self.options.idle_timeout).await
    }

    /// Start a streaming chat. Resolves once Ollama has sent its status line,
    /// which it does only with the first token (after load and prompt
    /// evaluation).
    pub async fn chat_stream(&self, request: &ChatRequest) -> Result<ChatStream, OllamaError> {
        let mut request = request.clone();
        request.stream = true;
        let resp = self
            .send(
                self.http.post(self.url("/api/chat")).json(&request),
                Some(&request.model),
            )
            .await?;
        Ok(chat_stream(
            Box::pin(resp.bytes_stream()),
            self.options.idle_timeout,
        ))
    }

    /// A non-streaming chat: the whole answer as one object.
    pub async fn chat(&self, request: &ChatRequest) -> Result<ChatChunk, OllamaError> {
        let mut request = request.clone();
        request.stream = false;
        let resp = self
            .send(
                self.http.post(self.url("/api/chat")).json(&request),
                Some(&request.model),
            )
            .await?;
        let text = whole(resp, self.options.idle_timeout).await?;
        let chunk = parse_line(String::from_utf8_lossy(&text).trim())?;
        if chunk.done {
            Ok(chunk)
        } else {
            Err(OllamaError::Truncated)
        }
    }

    /// Load `model` with `load` options and return when it is resident: an
    /// empty chat, a request of its own so that stopping a chat never aborts
    /// a load (docs/design.md §4).
    pub async fn preload(&self, model: &str, load: &LoadOptions) -> Result<(), OllamaError> {
        let req = ChatRequest {
            model: model.to_owned(),
            messages: Vec::new(),
            tools: Vec::new(),
            think: None,
            stream: false,
            keep_alive: load.keep_alive.as_secs(),
            options: Options {
                num_ctx: Some(load.num_ctx),
                temperature: None,
                num_predict: None,
            },
            shift: Some(load.shift),
            truncate: None,
            format: None,
        };
        let _: serde_json::Value = self.post_json("/api/chat", &req, Some(model)).await?;
        Ok(())
    }

    /// Unload `model` now. The only request Hearth sends with `keep_alive: 0`.
    pub async fn unload(&self, model: &str) -> Result<(), OllamaError> {
        let body =
            serde_json::json!({"model": model, "messages": [], "keep_alive": 0, "stream": false});
        let _: serde_json::Value = self.post_json("/api/chat", &body, Some(model)).await?;
        Ok(())
    }

    /// One vector a text, in order (`POST /api/embed`). Ollama truncates
    /// a text longer than the model's window rather than refuse it.
    pub async fn embed(&self, model: &str, texts: &[String]) -> Result<Vec<Vec<f32>>, OllamaError> {
        #[derive(serde::Deserialize)]
        struct Embedded {
            embeddings: Vec<Vec<f32>>,
        }
        let body = serde_json::json!({"model": model, "input": texts, "truncate": true});
        let got: Embedded = self.post_json("/api/embed", &body, Some(model)).await?;
        if got.embeddings.len() != texts.len() {
            return Err(OllamaError::Malformed {
                detail: format!(
                    "{} embeddings for {} texts",
                    got.embeddings.len(),
                    texts.len()
                ),
            });
        }
        Ok(got.embeddings)
    }

    /// Server version.
    pub async fn version(&self) -> Result<String, OllamaError> {
        Ok(self
            .get_json::<VersionResponse>("/api/version")
            .await?
            .version)
    }

    /// Installed models.
    pub async fn tags(&self) -> Result<Vec<InstalledModel>, OllamaError> {
        Ok(self.get_json::<TagsResponse>("/api/tags").await?.models)
    }

    /// Resident models.
    pub async fn ps(&self) -> Result<Vec<RunningModel>, OllamaError> {
        Ok(self.get_json::<PsResponse>("/api/ps").await?.models)
    }

    /// Capabilities and metadata of `model`.
    pub async fn show(&self, model: &str) -> Result<ShowResponse, OllamaError> {
        self.post_json(
            "/api/show",
            &serde_json::json!({"model": model}),
            Some(model),
        )
        .await
    }

    /// Delete `model` from the server's disk (`DELETE /api/delete`); a copy
    /// already loaded stays until it expires.
    pub async fn delete(&self, model: &str) -> Result<(), OllamaError> {
        let body = serde_json::json!({ "model": model });
        self.send(
            self.http.delete(self.url("/api/delete")).json(&body),
            Some(model),
        )
        .await?;
        Ok(())
    }

    /// Download `model`, with progress. An in-band error ends the stream
    /// with an error.
    pub async fn pull(
        &self,
        model: &str,
    ) -> Result<impl Stream<Item = Result<PullProgress, OllamaError>> + Send + use<>, OllamaError>
    {
        let body = serde_json::json!({"model": model, "stream": true});
        let resp = self
            .send(self.http.post(self.url("/api/pull")).json(&body), None)
            .await?;
        let lines =
            crate::stream::ndjson_values(Box::pin(resp.bytes_stream()), self.options.idle_timeout);
        Ok(lines.map(|item| {
            let v = item?;
            let p: PullProgress =
                serde_json::from_value(v).map_err(|e| OllamaError::Malformed {
                    detail: e.to_string(),
                })?;
            match p.error {
                Some(message) => Err(OllamaError::Server {
                    status: None,
                    message,
                }),
                None => Ok(p),
            }
        }))
    }
}

/// The most of a whole (not streamed) reply that is read: a model list or
/// a model's details (its template, parameters and license) are well under.
const MAX_WHOLE_BODY: usize = 16 * 1024 * 1024;

/// A whole reply, bounded in size and in time.
async fn whole(
    resp: reqwest::Response,
    within: std::time::Duration,
) -> Result<Vec<u8>, OllamaError> {
    hearth_http::read_body(Box::pin(resp.bytes_stream()), MAX_WHOLE_BODY, within)
        .await
        .map_err(|(e, _)| e.into())
}

async fn json_body<T: DeserializeOwned>(
    resp: reqwest::Response,
    within: std::time::Duration,
) -> Result<T, OllamaError> {
    let bytes = whole(resp, within).await?;
    serde_json::from_slice(&bytes).map_err(|e| OllamaError::Malformed {
        detail: format!(
            "{e} in `{}`",
            String::from_utf8_lossy(&bytes[..bytes.len().min(120)])
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::resolve_base_url;

    #[test]
    fn ollama_host_forms_resolve_like_ollama() {
        assert_eq!(
            resolve_base_url(Some("http://10.1.2.3:8080/")),
            "http://10.1.2.3:8080"
        );
        assert_eq!(resolve_base_url(Some("0.0.0.0")), "http://127.0.0.1:11434");
        assert_eq!(resolve_base_url(Some("myhost:1234")), "http://myhost:1234");
        assert_eq!(
            resolve_base_url(Some("https://ollama.example")),
            "https://ollama.example:443"
        );
    }
}
