//! What extends Hearth, kept as the JSON the user gave (the store does not
//! read it): the MCP server configuration (`mcpServers`, read by
//! `hearth-mcp`) and the hook configuration (read by `hearth-tools`), in
//! the settings table beside the persona. Each is written in one
//! statement, so a crash leaves the old configuration or the new one.

use crate::error::StoreError;
use crate::store::Store;

const MCP: &str = "mcp_servers";
const HOOKS: &str = "hooks";
const MCP_LISTINGS: &str = "mcp_listings";

impl Store {
    /// The MCP configuration saved last (`None`: never saved).
    pub async fn mcp_servers_json(&self) -> Result<Option<String>, StoreError> {
        self.setting(MCP).await
    }

    /// Save the MCP configuration (checked by the caller).
    pub async fn set_mcp_servers_json(&self, json: &str) -> Result<(), StoreError> {
        self.set_setting(MCP, json).await
    }

    /// The MCP servers' first tool listings, as hearth-mcp keeps them
    /// (`None`: none kept yet).
    pub async fn mcp_listings_json(&self) -> Result<Option<String>, StoreError> {
        self.setting(MCP_LISTINGS).await
    }

    /// Keep the MCP servers' first tool listings.
    pub async fn set_mcp_listings_json(&self, json: &str) -> Result<(), StoreError> {
        self.set_setting(MCP_LISTINGS, json).await
    }

    /// The hook configuration saved last (`None`: never saved).
    pub async fn hooks_json(&self) -> Result<Option<String>, StoreError> {
        self.setting(HOOKS).await
    }

    /// Save the hook configuration (checked by the caller).
    pub async fn set_hooks_json(&self, json: &str) -> Result<(), StoreError> {
        self.set_setting(HOOKS, json).await
    }

    async fn setting(&self, key: &'static str) -> Result<Option<String>, StoreError> {
        self.db()
            .call(move |c| {
                let mut s = c.prepare("SELECT value FROM settings WHERE key = ?1")?;
                Ok(s.query_map([key], |r| r.get(0))?.next().transpose()?)
            })
            .await
    }

    async fn set_setting(&self, key: &'static str, value: &str) -> Result<(), StoreError> {
        let value = value.to_owned();
        self.db()
            .call(move |c| {
                c.execute(
                    "INSERT OR REPLACE INTO settings (key, value) VALUES (?1, ?2)",
                    [key, value.as_str()],
                )?;
                Ok(())
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn the_configurations_survive_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let (store, _) = crate::Store::open(&path).await.unwrap();
        assert_eq!(store.mcp_servers_json().await.unwrap(), None);
        store
            .set_mcp_servers_json(r#"{"mcpServers":{}}"#)
            .await
            .unwrap();
        store.set_hooks_json("{}").await.unwrap();
        drop(store);
        let (store, _) = crate::Store::open(&path).await.unwrap();
        assert_eq!(
            store.mcp_servers_json().await.unwrap().as_deref(),
            Some(r#"{"mcpServers":{}}"#)
        );
        assert_eq!(store.hooks_json().await.unwrap().as_deref(), Some("{}"));
    }
}
