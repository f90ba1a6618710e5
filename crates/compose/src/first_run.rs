//! The first run's model. A new database's seeded profiles name
//! [`SEED_MODEL`] before any server has been asked, and a new user has
//! likely pulled something else: the first time Hearth sees the server's
//! models it moves those profiles to an installed one (one that chats and
//! calls tools where possible), once, and says so. A model the user chose
//! later is never touched.

use hearth_ollama::{Client, OllamaError, tagged};
use hearth_store::{Profiles, SEED_MODEL};

/// An installed model as the first run weighs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Installed {
    /// Name with tag, as `/api/tags` lists it.
    pub name: String,
    /// As the server lists them (`completion`, `tools`, `vision`, ...);
    /// empty when they could not be read.
    pub capabilities: Vec<String>,
    /// Size on disk, bytes.
    pub size: u64,
    /// When it was pulled (RFC 3339), when known.
    pub modified_at: Option<String>,
}

impl Installed {
    fn can(&self, capability: &str) -> bool {
        self.capabilities.iter().any(|c| c == capability)
    }

    /// It answers chat requests: not an embedding model. A model whose
    /// capabilities could not be read counts, unless its name says it
    /// embeds.
    pub fn chats(&self) -> bool {
        if self.capabilities.is_empty() {
            return !self.name.to_lowercase().contains("embed");
        }
        self.can("completion")
    }

    /// It can call tools (the Agent profile needs that).
    pub fn calls_tools(&self) -> bool {
        self.can("tools")
    }
}

/// Whether `model`, as a profile names it, is among `installed`: a name
/// without a tag is `NAME:latest`, as Ollama resolves it.
pub fn is_installed(model: &str, installed: &[Installed]) -> bool {
    let wanted = tagged(model);
    installed.iter().any(|m| tagged(&m.name) == wanted)
}

/// The model a new user's profiles should use: one that chats; of those,
/// one that calls tools when there is one; of those, the most recently
/// pulled (what the user just set up), then by name so the choice does
/// not depend on the server's order.
pub fn pick(installed: &[Installed]) -> Option<&Installed> {
    installed.iter().filter(|m| m.chats()).max_by(|a, b| {
        (a.calls_tools(), &a.modified_at)
            .cmp(&(b.calls_tools(), &b.modified_at))
            .then_with(|| b.name.cmp(&a.name))
    })
}

/// What the server holds, and what the first run did with it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FirstRun {
    /// The server's models, in its order.
    pub installed: Vec<Installed>,
    /// The model the seeded profiles were moved to, and which profiles.
    pub adopted: Option<(String, Vec<String>)>,
}

/// The server's models, each with its capabilities (`/api/tags`, or
/// `/api/show` from an older server; a model whose details cannot be read
/// is still listed, without them).
pub async fn installed(client: &Client) -> Result<Vec<Installed>, OllamaError> {
    Ok(client
        .described()
        .await?
        .into_iter()
        .map(|m| Installed {
            capabilities: m.capabilities,
            name: m.name,
            size: m.size,
            modified_at: m.modified_at,
        })
        .collect())
}

/// Reads the server's models and, the first time they are known, settles
/// the seeded profiles' model (docs/design.md §8). A server with no model
/// leaves them waiting: the first pull settles them.
pub async fn settle(profiles: &Profiles, client: &Client) -> Result<FirstRun, OllamaError> {
    let installed = installed(client).await?;
    let mut adopted = None;
    if profiles.seed_model_pending() && !installed.is_empty() {
        let choice = (!is_installed(SEED_MODEL, &installed))
            .then(|| pick(&installed))
            .flatten()
            .map(|m| m.name.clone());
        match profiles.settle_seed_model(choice.as_deref()).await {
            Ok(moved) if !moved.is_empty() => adopted = choice.map(|m| (m, moved)),
            Ok(_) => {}
            // The profiles keep the seed; the missing-model notice offers
            // the installed ones.
            Err(e) => tracing::warn!("could not settle the seeded profiles' model: {e}"),
        }
    }
    Ok(FirstRun { installed, adopted })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(name: &str, caps: &[&str], at: &str) -> Installed {
        Installed {
            name: name.into(),
            capabilities: caps.iter().map(|c| (*c).to_owned()).collect(),
            size: 1,
            modified_at: Some(at.into()),
        }
    }

    #[test]
    fn a_tool_capable_chat_model_is_picked_over_a_newer_one_without_tools() {
        let models = [
            m(
                "nomic-embed-text:latest",
                &["embedding"],
                "2026-11-03T00:00:00Z",
            ),
            m("gemma3:1b", &["completion"], "2026-11-02T00:00:00Z"),
            m(
                "qwen3:8b",
                &["completion", "tools", "thinking"],
                "2026-10-01T00:00:00Z",
            ),
            m(
                "mistral:7b",
                &["completion", "tools"],
                "2026-09-01T00:00:00Z",
            ),
        ];
        assert_eq!(pick(&models).unwrap().name, "qwen3:8b");
    }

    #[test]
    fn without_a_tool_capable_model_the_newest_chat_model_is_picked_and_never_an_embedder() {
        let models = [
            m("gemma3:1b", &["completion"], "2026-11-02T00:00:00Z"),
            m("phi3:mini", &["completion"], "2026-11-01T00:00:00Z"),
            m(
                "nomic-embed-text:latest",
                &["embedding"],
                "2026-11-03T00:00:00Z",
            ),
        ];
        assert_eq!(pick(&models).unwrap().name, "gemma3:1b");
        assert_eq!(pick(&models[2..]), None);
        // Unknown capabilities: the name decides.
        let unknown = [m("mxbai-embed-large:latest", &[], "2026-11-03T00:00:00Z")];
        assert_eq!(pick(&unknown), None);
    }

    #[test]
    fn a_name_without_a_tag_is_its_latest_tag() {
        let models = [
            m("llama3.2:latest", &[], "x"),
            m("registry.local:5000/team/coder", &[], "x"),
        ];
        assert!(is_installed("llama3.2", &models));
        assert!(is_installed("llama3.2:latest", &models));
        assert!(!is_installed("llama3.2:3b", &models));
        assert!(is_installed(
            "registry.local:5000/team/coder:latest",
            &models
        ));
        assert!(!is_installed("llama3.2", &[m("llama3.2:3b", &[], "x")]));
    }
}
