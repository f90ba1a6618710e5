//! Hosts' API keys, kept in the desktop's secret store: the Secret Service
//! that GNOME Keyring and KWallet provide, through the keyring crates
//! (`keyring-core` with its D-Bus store; `libdbus` is already linked for
//! the window toolkit, so this store adds no second D-Bus stack). A key is
//! never written to the database or a log: the database only notes that a
//! host has one ([`Host::keyed`]), so hosts without a key never touch the
//! secret store, and a machine without one still runs them.
//!
//! One item per host: service `hearth`, user `host:NAME`, labelled
//! "Hearth: API key of host NAME" (what the desktop's keyring manager
//! shows). The MCP servers' environment and header values are one more
//! item per database (`crate::mcp_store`): user [`mcp_item_user`].

use std::collections::HashMap;
use std::fmt;

use hearth_openai::ApiKey;
use hearth_store::Host;
use keyring_core::api::CredentialStoreApi;

/// The Secret Service attribute `service` of Hearth's items.
pub const SERVICE: &str = "hearth";

/// The Secret Service attribute `username` of `host`'s item.
pub fn item_user(host: &str) -> String {
    format!("host:{host}")
}

/// Why a key could not be kept, read or forgotten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError(String);

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KeyError {}

/// The Secret Service attribute `username` of the item holding every MCP
/// server's environment and header values for the database at `db`: one
/// item, so loading them is one read and at most one unlock prompt; per
/// database, since each has its own servers (`hearth --db`).
pub fn mcp_item_user(db: &std::path::Path) -> String {
    let db = std::fs::canonicalize(db).unwrap_or_else(|_| db.to_path_buf());
    format!("mcp:{}", db.display())
}

/// One item of Hearth's: its user attribute, its label, and what it holds
/// in words (for errors).
struct Item {
    user: String,
    label: String,
    what: String,
}

impl Item {
    fn host(host: &str) -> Self {
        Self {
            user: item_user(host),
            label: format!("Hearth: API key of host {host}"),
            what: format!("the API key of host `{host}`"),
        }
    }

    fn mcp(db: &std::path::Path) -> Self {
        let user = mcp_item_user(db);
        Self {
            label: format!(
                "Hearth: environment and header values of the MCP servers ({})",
                &user["mcp:".len()..]
            ),
            user,
            what: "the MCP servers' environment and header values".to_owned(),
        }
    }
}

fn failed(doing: &str, what: &str, e: &keyring_core::Error) -> KeyError {
    let why = match e {
        keyring_core::Error::NoStorageAccess(_) => {
            "the keyring is locked (unlock it in the desktop's keyring manager)".to_owned()
        }
        other => other.to_string(),
    };
    KeyError(format!(
        "could not {doing} {what} in the desktop's secret store: {why}"
    ))
}

/// The entry of `item` (blocking: D-Bus).
fn entry(item: &Item, doing: &str) -> Result<keyring_core::Entry, KeyError> {
    let store = dbus_secret_service_keyring_store::Store::new().map_err(|e| {
        KeyError(format!(
            "could not {doing} {}: Hearth keeps keys in the desktop's \
             secret store (GNOME Keyring, KWallet: the Secret Service), and none answers on this \
             session's D-Bus ({e})",
            item.what
        ))
    })?;
    let modifiers = HashMap::from([("label", item.label.as_str())]);
    store
        .build(SERVICE, &item.user, Some(&modifiers))
        .map_err(|e| failed(doing, &item.what, &e))
}

fn set_blocking(item: &Item, secret: &str) -> Result<(), KeyError> {
    entry(item, "save")?
        .set_password(secret)
        .map_err(|e| failed("save", &item.what, &e))
}

fn get_blocking(item: &Item) -> Result<Option<String>, KeyError> {
    match entry(item, "read")?.get_password() {
        Ok(k) => Ok(Some(k)),
        Err(keyring_core::Error::NoEntry) => Ok(None),
        Err(e) => Err(failed("read", &item.what, &e)),
    }
}

fn forget_blocking(item: &Item) -> Result<(), KeyError> {
    match entry(item, "remove")?.delete_credential() {
        Ok(()) | Err(keyring_core::Error::NoEntry) => Ok(()),
        Err(e) => Err(failed("remove", &item.what, &e)),
    }
}

/// How long reading a key may wait: a locked keyring asks the desktop to
/// unlock it, and nothing (the app's start, a chat, the host list) waits
/// on that prompt longer than this.
const READ_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// How long saving or removing a key may wait (the user is there to answer
/// an unlock prompt).
const WRITE_WAIT: std::time::Duration = std::time::Duration::from_secs(120);

async fn blocking<T: Send + 'static>(
    wait: std::time::Duration,
    f: impl FnOnce() -> Result<T, KeyError> + Send + 'static,
) -> Result<T, KeyError> {
    match tokio::time::timeout(wait, tokio::task::spawn_blocking(f)).await {
        Ok(done) => done.map_err(|e| KeyError(format!("the secret store call failed: {e}")))?,
        Err(_) => Err(KeyError(format!(
            "the desktop's secret store did not answer within {} s (is the keyring locked?)",
            wait.as_secs()
        ))),
    }
}

/// Keep `key` as `host`'s, replacing one kept before.
pub async fn set(host: &str, key: &ApiKey) -> Result<(), KeyError> {
    let (item, key) = (Item::host(host), key.clone());
    blocking(WRITE_WAIT, move || set_blocking(&item, key.reveal())).await
}

/// `host`'s key; `None` when none is kept.
pub async fn get(host: &str) -> Result<Option<ApiKey>, KeyError> {
    let item = Item::host(host);
    blocking(READ_WAIT, move || {
        Ok(get_blocking(&item)?.and_then(ApiKey::new))
    })
    .await
}

/// Forget `host`'s key; nothing to forget is not an error.
pub async fn forget(host: &str) -> Result<(), KeyError> {
    let item = Item::host(host);
    blocking(WRITE_WAIT, move || forget_blocking(&item)).await
}

/// Keep `json` (every MCP server's values) as the MCP item of the
/// database at `db`, replacing it.
pub async fn set_mcp_values(db: &std::path::Path, json: String) -> Result<(), KeyError> {
    let item = Item::mcp(db);
    blocking(WRITE_WAIT, move || set_blocking(&item, &json)).await
}

/// The MCP item of the database at `db`; `None` when none is kept.
pub async fn mcp_values(db: &std::path::Path) -> Result<Option<String>, KeyError> {
    let item = Item::mcp(db);
    blocking(READ_WAIT, move || get_blocking(&item)).await
}

/// Forget the MCP item of the database at `db`; nothing to forget is not
/// an error.
pub async fn forget_mcp_values(db: &std::path::Path) -> Result<(), KeyError> {
    let item = Item::mcp(db);
    blocking(WRITE_WAIT, move || forget_blocking(&item)).await
}

/// The key a host's requests carry: none for a host without one; for one
/// with a key that cannot be read (or not within a few seconds: a locked
/// keyring), none either, and the reason is logged (the server's refusal
/// then says what is missing).
pub async fn of(host: &Host) -> Option<ApiKey> {
    if !host.keyed {
        return None;
    }
    match get(&host.name).await {
        Ok(Some(k)) => Some(k),
        Ok(None) => {
            tracing::warn!(
                "host `{}` has an API key, but the secret store holds none for it",
                host.name
            );
            None
        }
        Err(e) => {
            tracing::warn!("{e}");
            None
        }
    }
}
