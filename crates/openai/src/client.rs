//! The HTTP client: `POST {base}/chat/completions` (streamed) and
//! `GET {base}/models`, where `base` is the server's OpenAI root, usually
//! ending in `/v1`.

pub use hearth_http::ClientOptions;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue};

use crate::error::OpenAiError;
use crate::key::ApiKey;
use crate::stream::{DeltaStream, delta_stream};
use crate::wire::{ChatRequest, ModelList};

/// Where llama.cpp's `llama-server` listens unless told otherwise.
pub const DEFAULT_URL: &str = "http://127.0.0.1:8080/v1";

/// The base URL from what a person typed: the argument, else
/// [`DEFAULT_URL`]. Adds `http://` when no scheme is given and `/v1` when no
/// path is (every server Hearth targets serves the API there); drops a
/// trailing `/chat/completions` pasted from a curl example.
pub fn resolve_base_url(explicit: Option<&str>) -> String {
    let raw = explicit
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or(DEFAULT_URL);
    let raw = raw.trim_end_matches('/');
    let raw = raw.strip_suffix("/chat/completions").unwrap_or(raw);
    let (scheme, rest) = raw.split_once("://").unwrap_or(("http", raw));
    let rest = rest.replacen("0.0.0.0", "127.0.0.1", 1);
    if rest.contains('/') {
        format!("{scheme}://{rest}")
    } else {
        format!("{scheme}://{rest}/v1")
    }
}

/// The scheme, host and port `url` (as [`resolve_base_url`] reads it)
/// sends to; `None` when it is not a URL. A saved key goes only to the
/// origin it was given for.
pub fn origin(url: &str) -> Option<String> {
    let parsed = reqwest::Url::parse(&resolve_base_url(Some(url))).ok()?;
    Some(parsed.origin().ascii_serialization())
}

/// The most of a whole (not streamed) reply that is read: a model list of
/// thousands of entries is well under it.
const MAX_WHOLE_BODY: usize = 8 * 1024 * 1024;

/// A client for one OpenAI-compatible server.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base: String,
    key: Option<ApiKey>,
    /// `Bearer <key>`, marked sensitive.
    auth: Option<HeaderValue>,
    options: ClientOptions,
}

impl Client {
    /// A client for `base_url` (see [`resolve_base_url`]), sending
    /// `Authorization: Bearer <key>` when a key is given.
    pub fn new(
        base_url: &str,
        key: Option<ApiKey>,
        options: ClientOptions,
    ) -> Result<Self, OpenAiError> {
        let base = base_url.trim_end_matches('/').to_owned();
        let url = reqwest::Url::parse(&base).map_err(|_| OpenAiError::InvalidUrl {
            url: base.clone(),
            detail: format!("expected something like {DEFAULT_URL}"),
        })?;
        // A key over plain http to another machine is readable by anyone
        // on the network between (security review N12): refused, not sent.
        if key.is_some() && url.scheme() == "http" && !hearth_http::is_loopback(&url) {
            return Err(OpenAiError::InvalidUrl {
                url: base.clone(),
                detail: "an API key is sent only over https://, or to a server on this computer: \
                         over plain http:// anyone on the network between could read it"
                    .into(),
            });
        }
        let auth = match &key {
            None => None,
            Some(k) => {
                let mut v =
                    HeaderValue::from_str(&format!("Bearer {}", k.expose())).map_err(|_| {
                        OpenAiError::InvalidUrl {
                            url: base.clone(),
                            detail: "the API key holds characters an HTTP header cannot carry"
                                .into(),
                        }
                    })?;
                v.set_sensitive(true);
                Some(v)
            }
        };
        // A local server is reached directly: a system proxy would only get
        // in the way (and see the user's prompts). A remote one may need it.
        let direct = hearth_http::is_loopback(&url);
        let http =
            hearth_http::build_client(&options, direct).map_err(|e| OpenAiError::InvalidUrl {
                url: base.clone(),
                detail: e.to_string(),
            })?;
        Ok(Self {
            http,
            base,
            key,
            auth,
            options,
        })
    }

    /// The base URL.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// Send a request; map transport errors and error statuses.
    async fn send(
        &self,
        req: reqwest::RequestBuilder,
        endpoint: &str,
        model: Option<&str>,
    ) -> Result<reqwest::Response, OpenAiError> {
        let req = match &self.auth {
            Some(v) => req.header(AUTHORIZATION, v.clone()),
            None => req,
        };
        let resp = hearth_http::send(req, self.options.first_byte_timeout)
            .await
            .map_err(|e| OpenAiError::from_send(&self.base, e))?;
        let status = resp.status().as_u16();
        if resp.status().is_success() {
            return Ok(resp);
        }
        let body = hearth_http::error_text(resp, self.options.idle_timeout).await;
        Err(OpenAiError::from_status(
            status,
            &body,
            &self.base,
            endpoint,
            model,
            self.key.as_ref(),
        ))
    }

    /// Start a streaming chat. Resolves once the server has sent the
    /// response head (some servers hold it back until the first token).
    pub async fn chat_stream(&self, request: &ChatRequest) -> Result<DeltaStream, OpenAiError> {
        let endpoint = format!("{}/chat/completions", self.base);
        let mut request = request.clone();
        request.stream = true;
        let req = self
            .http
            .post(&endpoint)
            .header(ACCEPT, "text/event-stream")
            .json(&request);
        let asked = std::time::Instant::now();
        let resp = self.send(req, &endpoint, Some(&request.model)).await?;
        // What is left of the first-byte timeout, and never less than the
        // idle one: the body's first bytes may wait for the whole prompt
        // to be read (`stream::EventReader::first_wait`).
        let first_wait = self
            .options
            .first_byte_timeout
            .saturating_sub(asked.elapsed())
            .max(self.options.idle_timeout);
        let json = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("application/json"));
        if json {
            // One object instead of events: an error some servers send with
            // a 200, or a server that does not stream.
            let body = self.whole(resp).await?;
            let body = String::from_utf8_lossy(&body);
            let (message, _) = crate::error::error_message(&body);
            return Err(if body.contains("\"error\"") {
                OpenAiError::Server {
                    status: None,
                    message,
                }
                .scrubbed(self.key.as_ref())
            } else {
                OpenAiError::Malformed {
                    detail: "one JSON object instead of an event stream: the server may not support `stream: true`".into(),
                }
            });
        }
        let key = self.key.clone();
        let deltas = delta_stream(
            Box::pin(resp.bytes_stream()),
            first_wait,
            self.options.idle_timeout,
        );
        Ok(Box::pin(futures::StreamExt::map(deltas, move |d| {
            d.map_err(|e| e.scrubbed(key.as_ref()))
        })))
    }

    /// A whole reply, bounded in size and time.
    async fn whole(&self, resp: reqwest::Response) -> Result<Vec<u8>, OpenAiError> {
        hearth_http::read_body(
            Box::pin(resp.bytes_stream()),
            MAX_WHOLE_BODY,
            self.options.idle_timeout,
        )
        .await
        .map_err(|(e, _)| e.into())
    }

    /// One vector a text, in order (`POST /embeddings`; llama.cpp's server
    /// serves it when started with `--embedding`). The server's `index`
    /// puts each back in place: the order of `data` is not promised.
    pub async fn embed(&self, model: &str, texts: &[String]) -> Result<Vec<Vec<f32>>, OpenAiError> {
        #[derive(serde::Deserialize)]
        struct Item {
            index: usize,
            embedding: Vec<f32>,
        }
        #[derive(serde::Deserialize)]
        struct Embedded {
            data: Vec<Item>,
        }
        let endpoint = format!("{}/embeddings", self.base);
        let body = serde_json::json!({"model": model, "input": texts, "encoding_format": "float"});
        let resp = self
            .send(
                self.http.post(&endpoint).json(&body),
                &endpoint,
                Some(model),
            )
            .await?;
        let bytes = self.whole(resp).await?;
        let got: Embedded = serde_json::from_slice(&bytes).map_err(|e| OpenAiError::Malformed {
            detail: format!(
                "{e} in `{}`",
                String::from_utf8_lossy(&bytes[..bytes.len().min(120)])
            ),
        })?;
        let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        for item in got.data {
            match out.get_mut(item.index) {
                Some(slot @ None) => *slot = Some(item.embedding),
                _ => {
                    return Err(OpenAiError::Malformed {
                        detail: format!("embedding index {} out of place", item.index),
                    });
                }
            }
        }
        out.into_iter()
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| OpenAiError::Malformed {
                detail: format!("fewer embeddings than the {} texts sent", texts.len()),
            })
    }

    /// The names of the models the server offers.
    pub async fn models(&self) -> Result<Vec<String>, OpenAiError> {
        Ok(self
            .model_entries()
            .await?
            .into_iter()
            .map(|m| m.id)
            .collect())
    }

    /// The models the server offers, with what it says of each.
    pub async fn model_entries(&self) -> Result<Vec<crate::wire::ModelEntry>, OpenAiError> {
        let endpoint = format!("{}/models", self.base);
        let resp = self.send(self.http.get(&endpoint), &endpoint, None).await?;
        let bytes = self.whole(resp).await?;
        let list: ModelList =
            serde_json::from_slice(&bytes).map_err(|e| OpenAiError::Malformed {
                detail: format!(
                    "{e} in `{}`",
                    String::from_utf8_lossy(&bytes[..bytes.len().min(120)])
                ),
            })?;
        Ok(list.data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_resolve_to_the_v1_root() {
        assert_eq!(resolve_base_url(None), DEFAULT_URL);
        assert_eq!(
            resolve_base_url(Some("127.0.0.1:1234")),
            "http://127.0.0.1:1234/v1"
        );
        assert_eq!(
            resolve_base_url(Some("http://0.0.0.0:8000/")),
            "http://127.0.0.1:8000/v1"
        );
        assert_eq!(
            resolve_base_url(Some("https://openrouter.ai/api/v1")),
            "https://openrouter.ai/api/v1"
        );
        assert_eq!(
            resolve_base_url(Some("http://h:8080/v1/chat/completions")),
            "http://h:8080/v1"
        );
    }

    #[test]
    fn the_key_is_not_in_the_debug_output() {
        let c = Client::new(
            "http://127.0.0.1:1/v1",
            ApiKey::new("sk-topsecret"),
            ClientOptions::default(),
        )
        .unwrap();
        let dbg = format!("{c:?}");
        assert!(!dbg.contains("topsecret"), "{dbg}");
        assert!(Client::new("not a url", None, ClientOptions::default()).is_err());
    }
}
