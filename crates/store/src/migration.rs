//! One schema step, as each table module declares its own (`migrate.rs`
//! orders and applies them). A leaf: the table modules import it, and the
//! runner imports the table modules.

/// One schema step.
pub(crate) struct Migration {
    /// The `user_version` after this step.
    pub version: i64,
    /// What it does.
    pub name: &'static str,
    /// The SQL.
    pub sql: &'static str,
}
