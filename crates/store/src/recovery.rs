//! Repairing runs that a crash (or a kill) left unfinished, so every session
//! loads as a valid conversation: the checkpointed answer becomes an
//! interrupted message, and every tool call without a result gets
//! [`OUTCOME_UNKNOWN`] — the call may or may not have run, so it is never
//! reported as cancelled.

use hearth_core::{ChatMessage, MessageStatus, Role};
use rusqlite::{Connection, TransactionBehavior};

use crate::error::StoreError;
use crate::{instance, messages, runs};

/// The result given to a tool call whose end was never recorded.
pub const OUTCOME_UNKNOWN: &str = "outcome unknown: Hearth stopped (crash or kill) before this call's result was recorded; it may or may not have run";

/// Repair the open runs of dead instances (in one session, or all).
/// Returns how many runs were repaired.
pub(crate) fn recover(
    conn: &mut Connection,
    me: &str,
    session: Option<&str>,
) -> Result<usize, StoreError> {
    let mut repaired = 0;
    for (run_id, session_id, owner) in runs::open_runs(conn, session)? {
        if !instance::is_dead(conn, &owner, me)? {
            continue;
        }
        let calls = repair(conn, &run_id, &session_id, true)?;
        tracing::info!(run = %run_id, session = %session_id, calls, "repaired an interrupted run");
        repaired += 1;
    }
    Ok(repaired)
}

/// Repair one open run of this process whose end was never recorded (it
/// crashed, or recording its end failed): the same repair as a dead
/// process's run. Nothing when it has ended.
pub(crate) fn repair_own(conn: &mut Connection, run_id: &str) -> Result<(), StoreError> {
    let session = runs::open_runs(conn, None)?
        .into_iter()
        .find(|(id, _, _)| id == run_id)
        .map(|(_, session, _)| session);
    if let Some(session) = session {
        // This process lives: the run is not "cut off" (Hearth did not
        // close), only its end went unrecorded.
        let calls = repair(conn, run_id, &session, false)?;
        tracing::info!(run = %run_id, session = %session, calls, "repaired a run whose end was not recorded");
    }
    Ok(())
}

/// Give the run's unanswered calls [`OUTCOME_UNKNOWN`], keep its draft as
/// an interrupted answer, and end it, in one transaction. Returns how many
/// calls were answered. `cut_off`: the process that ran it is gone (a
/// crash or a kill), which the answer says.
fn repair(
    conn: &mut Connection,
    run_id: &str,
    session_id: &str,
    cut_off: bool,
) -> Result<usize, StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // Tool calls of this run on the branch that have no result.
    let branch = messages::branch(&tx, session_id, None)?;
    // Only this run's results count: ids may repeat across turns.
    let answered: std::collections::HashSet<String> = branch
        .iter()
        .filter(|s| s.message.role == Role::Tool && s.run_id.as_deref() == Some(run_id))
        .filter_map(|s| s.message.tool_call_id.clone())
        .collect();
    let open_calls: Vec<_> = branch
        .iter()
        .filter(|s| s.run_id.as_deref() == Some(run_id))
        .flat_map(|s| s.message.tool_calls.iter())
        .filter(|c| !answered.contains(&c.id))
        .cloned()
        .collect();
    for call in &open_calls {
        messages::append(
            &tx,
            session_id,
            run_id,
            ChatMessage::tool_result(call, OUTCOME_UNKNOWN),
        )?;
    }
    if let Some((content, thinking)) = runs::take_draft(&tx, run_id)?
        && (!content.is_empty() || thinking.as_deref().is_some_and(|t| !t.is_empty()))
    {
        let m = ChatMessage {
            thinking,
            status: MessageStatus::Interrupted,
            ..ChatMessage::assistant(content)
        };
        messages::append(&tx, session_id, run_id, m)?;
    }
    runs::end(&tx, run_id, MessageStatus::Interrupted)?;
    if cut_off {
        runs::mark_cut_off(&tx, run_id)?;
    }
    tx.commit()?;
    Ok(open_calls.len())
}
