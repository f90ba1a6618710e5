//! What a host says about itself when asked: whether it answers, its
//! version (Ollama tells it; an OpenAI-compatible server does not) and the
//! models it serves; and saving and removing one with its API key. The
//! CLI's `hearth hosts` and the app's host list do both the same way.

use std::sync::Arc;

use hearth_core::ModelBackend;
use hearth_openai::ApiKey;
use hearth_store::{Host, HostKind, Profiles, Store};

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

/// Ask `host` (a few seconds at most: the clients' connect timeouts), with
/// its key when it has one.
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
            let key = crate::keys::of(host).await;
            let client = match hearth_openai::Client::new(
                &url,
                key,
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

/// Why a host could not be saved.
#[derive(Debug)]
pub enum SaveError {
    /// The request itself is wrong (a bad name or URL, a key for Ollama):
    /// the user changes it.
    Refused(String),
    /// The key could not be kept, or the database not written.
    Failed(String),
}

impl std::fmt::Display for SaveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Refused(m) | Self::Failed(m) => f.write_str(m),
        }
    }
}

impl From<hearth_store::ProfileError> for SaveError {
    fn from(e: hearth_store::ProfileError) -> Self {
        match e {
            hearth_store::ProfileError::Refused(m) => Self::Refused(m),
            other => Self::Failed(other.to_string()),
        }
    }
}

/// Add `host`, or change the one of its name, with `key` when given
/// (`None` keeps the key it has). The key goes to the secret store first,
/// so the database never notes a key the store lacks; a store that cannot
/// keep it saves nothing. Returns the host as saved and its backend.
pub async fn save(
    store: &Store,
    mut host: Host,
    key: Option<ApiKey>,
) -> Result<(Host, Arc<dyn ModelBackend>), SaveError> {
    host.check()?;
    if key.is_some() && host.kind == HostKind::Ollama {
        return Err(SaveError::Refused(format!(
            "`{}` is an Ollama host, and Ollama takes no API key: a key is for an \
             OpenAI-compatible server (--kind openai)",
            host.name
        )));
    }
    let saved = store
        .hosts()
        .await
        .map_err(|e| SaveError::Failed(e.to_string()))?;
    let keyed_before = saved.iter().find(|h| h.name == host.name && h.keyed);
    // A saved key follows a change of URL only within its origin (security
    // review N12): repointed elsewhere, the next request would hand the key
    // to whoever serves the new address.
    if let Some(before) = keyed_before
        && key.is_none()
        && hearth_openai::origin(&before.url) != hearth_openai::origin(&host.url)
    {
        return Err(SaveError::Refused(format!(
            "`{}` has an API key saved for {}; it is not sent to {} unless you give it again \
             (or remove the host and add it without one)",
            host.name,
            hearth_openai::origin(&before.url).unwrap_or_else(|| before.url.clone()),
            hearth_openai::origin(&host.url).unwrap_or_else(|| host.url.clone()),
        )));
    }
    let had_key = keyed_before.is_some();
    // Built first: it checks the URL and that the key can be sent, so a
    // refused change never replaces a working key.
    let backend = match (&key, host.kind) {
        (Some(k), _) => crate::host_backend(&host, Some(k.clone())),
        (None, HostKind::Openai) if had_key => {
            host.keyed = true;
            crate::host_backend(&host, crate::keys::of(&host).await)
        }
        (None, _) => crate::host_backend(&host, None),
    }
    .map_err(|e| SaveError::Refused(e.to_string()))?;
    if let Some(k) = &key {
        crate::keys::set(&host.name, k)
            .await
            .map_err(|e| SaveError::Failed(e.to_string()))?;
        host.keyed = true;
    }
    if let Err(e) = store.put_host(&host).await {
        // A key kept for a host the database does not know would never be
        // removed.
        if key.is_some() && !had_key {
            let _ = crate::keys::forget(&host.name).await;
        }
        return Err(e.into());
    }
    // An Ollama host takes no key: one it had is removed.
    if host.kind == HostKind::Ollama
        && had_key
        && let Err(e) = crate::keys::forget(&host.name).await
    {
        tracing::warn!("{e}");
    }
    Ok((host, backend))
}

/// Forget host `name` (its sessions go back to the default server) and
/// its key; false when there was no such host. A key the secret store
/// would not let go of is reported in the log: the host is gone all the
/// same.
pub async fn remove(
    store: &Store,
    profiles: &Profiles,
    name: &str,
) -> Result<bool, hearth_store::ProfileError> {
    let keyed = store
        .hosts()
        .await?
        .iter()
        .any(|h| h.name == name && h.keyed);
    if !profiles.remove_host(name).await? {
        return Ok(false);
    }
    if keyed && let Err(e) = crate::keys::forget(name).await {
        tracing::warn!("{e}");
    }
    Ok(true)
}
