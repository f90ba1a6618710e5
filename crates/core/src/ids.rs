//! Id minting. Random (v4) ids so two front ends on one database never
//! collide, with readable prefixes for logs.

/// A new run id (`run_…`).
pub fn new_run_id() -> String {
    format!("run_{}", uuid::Uuid::new_v4().simple())
}

/// A new session id (`ses_…`).
pub fn new_session_id() -> String {
    format!("ses_{}", uuid::Uuid::new_v4().simple())
}

/// A sub-agent's session id: `subagent_` + 12 hex digits, so its scratchpad
/// is isolated from the parent's and from other sub-agents (docs/background.md
/// §1.1).
pub fn new_subagent_session_id() -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    format!("subagent_{}", &hex[..12])
}

/// A tool-call id for a call the backend sent without one.
pub(crate) fn new_call_id() -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    format!("call_{}", &hex[..12])
}

#[cfg(test)]
mod tests {
    #[test]
    fn subagent_ids_have_the_seed_shape() {
        let id = super::new_subagent_session_id();
        let hex = id.strip_prefix("subagent_").unwrap();
        assert_eq!(hex.len(), 12);
        assert!(hex.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(id, super::new_subagent_session_id());
    }
}
