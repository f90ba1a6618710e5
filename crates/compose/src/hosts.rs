//! What a host says about itself when asked: whether it answers, its
//! version (Ollama tells it; an OpenAI-compatible server does not) and the
//! models it serves. The CLI's `hearth hosts` and the app's host list read
//! it the same way.

use hearth_store::{Host, HostKind};

/// A host's answer to "are you there?".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    /// The server's version, when it says.
    pub version: Option<String>,
    /// The models it serves, by name.
    pub models: Vec<String>,
    /// Why it could not be asked (`None`: it answered).
    pub error: Option<String>,
}

/// Ask `host` (a few seconds at most: the clients' connect timeouts).
pub async fn health(host: &Host) -> Health {
    let down = |e: String| Health {
        version: None,
        models: Vec::new(),
        error: Some(e),
    };
    match host.kind {
        HostKind::Ollama => {
            let server = match crate::ollama(Some(&host.url)) {
                Ok(s) => s,
                Err(e) => return down(e.to_string()),
            };
            let asked = async {
                let version = server.client.version().await?;
                Ok::<_, hearth_ollama::OllamaError>((version, server.client.tags().await?))
            };
            match asked.await {
                Ok((version, tags)) => Health {
                    version: Some(version),
                    models: tags.into_iter().map(|m| m.name).collect(),
                    error: None,
                },
                Err(e) => down(hearth_core::BackendError::from(e).to_string()),
            }
        }
        HostKind::Openai => {
            let url = hearth_openai::resolve_base_url(Some(&host.url));
            let client = match hearth_openai::Client::new(
                &url,
                None,
                hearth_openai::ClientOptions::default(),
            ) {
                Ok(c) => c,
                Err(e) => return down(e.to_string()),
            };
            match client.models().await {
                Ok(models) => Health {
                    version: None,
                    models,
                    error: None,
                },
                Err(e) => down(hearth_core::BackendError::from(e).to_string()),
            }
        }
    }
}
