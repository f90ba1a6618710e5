//! The profiles a new database starts with, and their model settled once
//! the server's models are known: a new database is written before any
//! server is asked, so the seeds name [`SEED_MODEL`] until then.

use hearth_core::Profile;
use rusqlite::TransactionBehavior;

use super::{Profiles, read_profiles, write_profile};
use crate::error::StoreError;

/// The model the seeded profiles start with, until Hearth has seen the
/// server's models ([`Profiles::settle_seed_model`]).
pub const SEED_MODEL: &str = "llama3.2";

/// Set in `settings` while the seeded profiles still wait for a model the
/// server has: a new database is written before any server is asked.
pub(super) const SEED_PENDING: &str = "seed_model_pending";

/// The profiles a new database starts with.
pub(super) fn seeds() -> Vec<Profile> {
    let mut chat = Profile::new("Chat", SEED_MODEL);
    chat.tools = Some(Vec::new());
    chat.system_prompt = "You are Hearth, a helpful assistant running on the user's own computer. Answer clearly and concisely.".into();
    let mut agent = Profile::new("Agent", SEED_MODEL);
    agent.tools = None;
    agent.planning_enabled = true;
    agent.system_prompt = "You are Hearth, an assistant that can use tools on the user's computer. Plan multi-step work, \
                           use tools when they help, and say plainly what you did."
        .into();
    vec![chat, agent]
}

impl Profiles {
    /// Whether the seeded profiles still name [`SEED_MODEL`] only because
    /// no server had been asked yet.
    pub fn seed_model_pending(&self) -> bool {
        self.read(|c| c.seed_pending)
    }

    /// Settle the seeded profiles' model once, the first time the server's
    /// models are known: `Some(model)` moves every profile that still names
    /// [`SEED_MODEL`] to `model` (the seed is not installed there), `None`
    /// keeps them (it is). Returns the profiles moved; nothing happens
    /// after the first call, so a model the user chose later is never
    /// touched.
    pub async fn settle_seed_model(&self, model: Option<&str>) -> Result<Vec<String>, StoreError> {
        if !self.seed_model_pending() {
            return Ok(Vec::new());
        }
        let _writing = self.writes.lock().await;
        let target = model.map(str::to_owned);
        let settled = self
            .store
            .db()
            .call(move |c| {
                let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
                // Another process (the CLI beside the app) may have settled
                // them already.
                if tx.execute("DELETE FROM settings WHERE key = ?1", [SEED_PENDING])? == 0 {
                    return Ok(None);
                }
                // The profiles as stored now, not as cached: one saved
                // since the cache was read (by the CLI beside the app)
                // keeps its other fields, and one whose model was chosen
                // meanwhile is not moved.
                let mut stored = read_profiles(&tx)?;
                let mut moved = Vec::new();
                if let Some(m) = target {
                    for p in stored.iter_mut().filter(|p| p.model == SEED_MODEL) {
                        p.model.clone_from(&m);
                        write_profile(&tx, p)?;
                        moved.push(p.name.clone());
                    }
                }
                tx.commit()?;
                Ok(Some((stored, moved)))
            })
            .await?;
        let mut names = Vec::new();
        self.write(|c| {
            c.seed_pending = false;
            // The cache takes them all as read: it was older.
            if let Some((stored, moved)) = settled {
                c.profiles = stored.into_iter().map(|p| (p.name.clone(), p)).collect();
                names = moved;
            }
        });
        Ok(names)
    }
}
