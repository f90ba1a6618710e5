//! Which model server `hearth chat` talks to. Ollama is the agent's default
//! backend; `--backend openai` registers an OpenAI-compatible server
//! (llama.cpp, LM Studio, vLLM, LocalAI) under the name `openai` and points
//! the profile at it, the same per-profile seam the desktop app uses
//! (`Profile::backend` + `AgentBuilder::named_backend`).

use std::str::FromStr;
use std::sync::Arc;

use clap::ValueEnum;
use hearth_core::ModelBackend;
use hearth_openai::ApiKey;

/// The kinds of server `--backend` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum BackendKind {
    /// Ollama's own API (`/api/chat`).
    #[default]
    Ollama,
    /// An OpenAI-compatible `/v1/chat/completions`.
    Openai,
}

/// `$HEARTH_API_KEY` as given: a blank value (an exported but
/// empty variable) means no key rather than an error. Its `Debug` shows
/// `ApiKey(***)`, never the key.
#[derive(Debug, Clone)]
pub struct KeyArg(Option<ApiKey>);

impl FromStr for KeyArg {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self(ApiKey::new(s)))
    }
}

/// The key in `$HEARTH_API_KEY`, the one place `hearth chat` takes it from
/// (a key given as `--api-key` on the command line is refused: other
/// programs read command lines).
pub fn key_from_env() -> Option<KeyArg> {
    std::env::var("HEARTH_API_KEY")
        .ok()
        .map(|k| KeyArg(ApiKey::new(k)))
}

/// The name the OpenAI-compatible backend is registered under.
pub const OPENAI: &str = hearth_compose::OPENAI;

/// The backends of one run.
pub struct Backends {
    /// The agent's default backend (Ollama).
    pub default: Arc<dyn ModelBackend>,
    /// A named backend the profile selects, with its name.
    pub named: Option<(&'static str, Arc<dyn ModelBackend>)>,
}

impl Backends {
    /// What the profile's `backend` must say to use these.
    pub fn profile_backend(&self) -> Option<String> {
        self.named.as_ref().map(|(name, _)| (*name).to_owned())
    }
}

/// Builds the backends for `kind`. `url` is the server's URL (Ollama's, or
/// the OpenAI root for `openai`); `key` is only used by `openai`. The error
/// says what is wrong with the URL or key (never the key itself).
pub fn build(
    kind: BackendKind,
    url: Option<&str>,
    key: Option<KeyArg>,
) -> Result<Backends, String> {
    let key = key.and_then(|k| k.0);
    let ollama_url = match kind {
        BackendKind::Ollama => url,
        BackendKind::Openai => None,
    };
    let default = hearth_compose::ollama(ollama_url)
        .map_err(|e| e.to_string())?
        .backend;
    let named = match kind {
        BackendKind::Ollama => None,
        BackendKind::Openai => {
            let backend = hearth_compose::openai(url, key).map_err(|e| e.to_string())?;
            Some((OPENAI, backend))
        }
    };
    Ok(Backends { default, named })
}
