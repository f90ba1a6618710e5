//! Where the MCP servers' configuration is kept (security review N7): the
//! database holds the configuration; the values of their environments and
//! headers, where users put tokens, go to the desktop's secret store
//! (`keys`, one item for all servers of a database) and the database holds
//! [`hearth_mcp::IN_SECRET_STORE`] in their place. A machine without a
//! secret store keeps them in the database (created `0600`, readable by
//! the user's own account only), and the save says so.

use std::collections::BTreeMap;

use hearth_mcp::{Secrets, ServerConfig};
use hearth_store::Store;

use crate::keys;

/// Why the MCP servers' configuration could not be read or saved.
#[derive(Debug, thiserror::Error)]
pub enum McpStoreError {
    /// The database failed; [`hearth_store::StoreError::failure`] says
    /// whether a retry may pass.
    #[error(transparent)]
    Store(#[from] hearth_store::StoreError),
    /// The configuration (the one saved, or the one to save) is not one
    /// Hearth can use: the user fixes the entry it names.
    #[error(transparent)]
    Config(#[from] hearth_mcp::ConfigError),
    /// A server's values are still the placeholder of ones the secret
    /// store could not give: saving would lose them, so nothing was saved
    /// (the user unlocks the keyring and saves again).
    #[error(
        "the values of MCP server `{0}` are in the desktop's secret store, which could not \
         be read: unlock the keyring and try again (nothing was saved)"
    )]
    SecretStoreLocked(String),
    /// The values could not be written out for the secret store.
    #[error(transparent)]
    Encode(#[from] serde_json::Error),
}

/// Where a save put the environment and header values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretsKept {
    /// No server has any.
    NoneToKeep,
    /// In the desktop's secret store.
    SecretStore,
    /// In Hearth's database, because no secret store took them (why).
    Database(String),
}

impl SecretsKept {
    /// What a front end tells the user after a save; `None` when there is
    /// nothing to say.
    pub fn note(&self) -> Option<String> {
        match self {
            Self::NoneToKeep => None,
            Self::SecretStore => Some(
                "environment and header values are kept in the desktop's secret store".to_owned(),
            ),
            Self::Database(why) => Some(format!(
                "environment and header values are kept in Hearth's database, readable by your \
                 account only: {why}"
            )),
        }
    }
}

/// The MCP servers saved in `store` (none when never saved), as saved: a
/// value kept in the secret store is [`hearth_mcp::IN_SECRET_STORE`].
/// Enough to show them (values are hidden anyway) without asking the
/// secret store.
pub async fn mcp_servers_as_stored(
    store: &Store,
) -> Result<BTreeMap<String, ServerConfig>, McpStoreError> {
    match store.mcp_servers_json().await? {
        Some(json) => Ok(hearth_mcp::parse(&json)?),
        None => Ok(Default::default()),
    }
}

/// The MCP servers saved in `store` with their values. Values kept in the
/// secret store are read from it (one read); when it cannot be read (no
/// store, a locked keyring not unlocked within a few seconds) the reason
/// is logged and those servers keep the placeholder, which keeps them
/// from starting and says why.
pub async fn mcp_servers(store: &Store) -> Result<BTreeMap<String, ServerConfig>, McpStoreError> {
    let mut servers = mcp_servers_as_stored(store).await?;
    if hearth_mcp::any_in_secret_store(&servers) {
        match keys::mcp_values(store.path()).await {
            Ok(Some(json)) => match serde_json::from_str::<BTreeMap<String, Secrets>>(&json) {
                Ok(values) => hearth_mcp::join_secrets(&mut servers, &values),
                Err(e) => tracing::warn!("the secret store's MCP values are unreadable: {e}"),
            },
            Ok(None) => tracing::warn!(
                "MCP servers' values are kept in the secret store, but it holds none for Hearth"
            ),
            Err(e) => tracing::warn!("{e}"),
        }
    }
    Ok(servers)
}

/// Check `servers` whole, then save them: their values in the secret store
/// when one takes them, else in the database. Refused, nothing changed,
/// when a value is still the placeholder of one that could not be read
/// (saving would lose it).
pub async fn save_mcp_servers(
    store: &Store,
    servers: &BTreeMap<String, ServerConfig>,
) -> Result<SecretsKept, McpStoreError> {
    let json = hearth_mcp::to_json(servers);
    hearth_mcp::parse(&json)?;
    if let Some(name) = servers
        .iter()
        .find_map(|(name, c)| c.waits_for_secret_store().then_some(name))
    {
        return Err(McpStoreError::SecretStoreLocked(name.clone()));
    }
    let had_kept = hearth_mcp::any_in_secret_store(&mcp_servers_as_stored(store).await?);
    let (stored, values) = hearth_mcp::split_secrets(servers);
    let (json, kept) = if values.is_empty() {
        (json, SecretsKept::NoneToKeep)
    } else {
        let values_json = serde_json::to_string(&values)?;
        match keys::set_mcp_values(store.path(), values_json).await {
            Ok(()) => (hearth_mcp::to_json(&stored), SecretsKept::SecretStore),
            Err(e) => (json, SecretsKept::Database(e.to_string())),
        }
    };
    store.set_mcp_servers_json(&json).await?;
    // Values the store no longer needs are forgotten (only when some were
    // kept there: a machine that never used it is not asked).
    if had_kept
        && kept != SecretsKept::SecretStore
        && let Err(e) = keys::forget_mcp_values(store.path()).await
    {
        tracing::warn!("{e}");
    }
    forget_listings_of_removed(store, servers).await;
    Ok(kept)
}

/// A server removed from the configuration takes its first listings with
/// it: added again, its tools are listed afresh (how a user accepts a
/// server's changed tools, after reading them in the Tools panel).
async fn forget_listings_of_removed(store: &Store, servers: &BTreeMap<String, ServerConfig>) {
    use hearth_mcp::Listings;
    let place = KeptListings(store.clone());
    let Ok(mut kept) = place.load().await else {
        return;
    };
    let before = kept.servers.len();
    kept.servers.retain(|name, _| servers.contains_key(name));
    if kept.servers.len() != before {
        place.save(&kept).await;
    }
}

/// The MCP servers' first tool listings, kept in the database beside their
/// configuration (hearth-mcp's `listings.rs` says why). A record that
/// cannot be read is taken as none (every tool's next listing becomes its
/// reference, as after a fresh install) and logged; one the database
/// cannot give now is an error (the hub fails closed); one that cannot be
/// written is logged.
pub(crate) struct KeptListings(pub Store);

#[async_trait::async_trait]
impl hearth_mcp::Listings for KeptListings {
    async fn load(&self) -> Result<hearth_mcp::Kept, hearth_core::StoreError> {
        match self.0.mcp_listings_json().await {
            // A record that does not parse can never be read: it is taken
            // as none (and written afresh), as after a new install.
            Ok(Some(json)) => Ok(serde_json::from_str(&json).unwrap_or_else(|e| {
                tracing::warn!("the MCP servers' first listings are unreadable: {e}");
                hearth_mcp::Kept::default()
            })),
            Ok(None) => Ok(hearth_mcp::Kept::default()),
            Err(e) => {
                tracing::warn!("could not read the MCP servers' first listings: {e}");
                Err(e.into())
            }
        }
    }

    async fn save(&self, kept: &hearth_mcp::Kept) {
        let json = match serde_json::to_string(kept) {
            Ok(json) => json,
            Err(e) => return tracing::warn!("could not write the MCP listings: {e}"),
        };
        if let Err(e) = self.0.set_mcp_listings_json(&json).await {
            tracing::warn!("could not keep the MCP servers' first listings: {e}");
        }
    }
}
