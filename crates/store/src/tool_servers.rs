//! The MCP server configuration, kept as the `mcpServers` JSON the user
//! pasted or imported (the store does not read it: `hearth-mcp` does), in
//! the settings table beside the persona. Written in one statement, so a
//! crash leaves the old configuration or the new one.

use crate::error::StoreError;
use crate::store::Store;

const KEY: &str = "mcp_servers";

impl Store {
    /// The MCP configuration saved last (`None`: never saved).
    pub async fn mcp_servers_json(&self) -> Result<Option<String>, StoreError> {
        self.db()
            .call(|c| {
                let mut s = c.prepare("SELECT value FROM settings WHERE key = ?1")?;
                Ok(s.query_map([KEY], |r| r.get(0))?.next().transpose()?)
            })
            .await
    }

    /// Save the MCP configuration (checked by the caller).
    pub async fn set_mcp_servers_json(&self, json: &str) -> Result<(), StoreError> {
        let json = json.to_owned();
        self.db()
            .call(move |c| {
                c.execute(
                    "INSERT OR REPLACE INTO settings (key, value) VALUES (?1, ?2)",
                    [KEY, json.as_str()],
                )?;
                Ok(())
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn the_configuration_survives_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.db");
        let (store, _) = crate::Store::open(&path).await.unwrap();
        assert_eq!(store.mcp_servers_json().await.unwrap(), None);
        store
            .set_mcp_servers_json(r#"{"mcpServers":{}}"#)
            .await
            .unwrap();
        drop(store);
        let (store, _) = crate::Store::open(&path).await.unwrap();
        assert_eq!(
            store.mcp_servers_json().await.unwrap().as_deref(),
            Some(r#"{"mcpServers":{}}"#)
        );
    }
}
