//! Turns: send, regenerate, edit-and-resend, stop, and steering (messages
//! typed while a run is going). Each run's events go to the page over the
//! `Channel` it passed; the run itself lives in `LiveRuns`.

use hearth_core::{QueueError, UserInput};
use hearth_protocol::{AgentEvent, ApprovalDecision, ErrorInfo, PlanAnswer};
use tauri::ipc::Channel;
use tauri::{State, Webview};

use super::attachments::{AttachmentRef, resolve};
use super::profiles::profile_error;
use crate::state::{AppState, invalid, store_error};
use crate::views::QueueResult;

/// The agent for a new run in `session_id`, once the session is known to
/// be idle and is kept on the host it started on (the first run decides).
async fn agent_for(
    state: &AppState,
    session_id: &str,
) -> Result<std::sync::Arc<hearth_core::Agent>, ErrorInfo> {
    state
        .runs
        .ensure_idle(session_id)
        .map_err(|e| e.to_info())?;
    // A profile changed by another process (`hearth profiles set` beside
    // the app) holds from this run on, not from the app's next start.
    state.profiles.refresh().await.map_err(store_error)?;
    state
        .profiles
        .pin_session_host(session_id)
        .await
        .map_err(profile_error)?;
    Ok(state.backend()?.agent)
}

/// Send the user's message and stream the answer to `on_event`. Returns the
/// run id (for `stop_run`).
#[tauri::command]
#[specta::specta]
pub async fn send_message(
    webview: Webview,
    state: State<'_, AppState>,
    session_id: String,
    text: String,
    attachments: Vec<AttachmentRef>,
    on_event: Channel<AgentEvent>,
) -> Result<String, ErrorInfo> {
    // The core decides what the message starts and refuses what it cannot
    // send, before the session's host is pinned.
    let input = UserInput {
        text: text.clone(),
        files: resolve(&state, &attachments).await?,
    };
    input.check().map_err(|e| e.to_info())?;
    let agent = agent_for(&state, &session_id).await?;
    let handle = agent.send(&session_id, input).map_err(|e| e.to_info())?;
    state
        .runs
        .adopt(handle, Some(text), webview.label(), on_event)
}

/// Answer again. With `message_id` (the first message of the answer to
/// redo) the old answer is kept on its own branch; without (Retry after a
/// failed run), the last user message is answered again, and what a
/// failed run left after it (a partial answer) is kept on its own branch.
#[tauri::command]
#[specta::specta]
pub async fn regenerate(
    webview: Webview,
    state: State<'_, AppState>,
    session_id: String,
    message_id: Option<i64>,
    on_event: Channel<AgentEvent>,
) -> Result<String, ErrorInfo> {
    let handle = answer_again(&state, &session_id, message_id).await?;
    state.runs.adopt(handle, None, webview.label(), on_event)
}

/// The run [`regenerate`] starts.
pub(crate) async fn answer_again(
    state: &AppState,
    session_id: &str,
    message_id: Option<i64>,
) -> Result<hearth_core::RunHandle, ErrorInfo> {
    let agent = agent_for(state, session_id).await?;
    match message_id {
        Some(id) => state.store.fork(session_id, id).await,
        // Before, a break-off's partial answer made the run refuse: "the
        // conversation does not end with your message" (user pass
        // 2026-12, defect 2).
        None => state
            .store
            .fork_before_last_answer(session_id)
            .await
            .map(|_| ()),
    }
    .map_err(store_error)?;
    Ok(agent.regenerate_stream(session_id))
}

/// Replace a user message with `text` and answer it: the edited message
/// starts a new branch; the old one stays reachable.
#[tauri::command]
#[specta::specta]
pub async fn edit_and_resend(
    webview: Webview,
    state: State<'_, AppState>,
    session_id: String,
    message_id: i64,
    text: String,
    on_event: Channel<AgentEvent>,
) -> Result<String, ErrorInfo> {
    let agent = agent_for(&state, &session_id).await?;
    // The edited message keeps the files the original carried.
    let kept: Vec<AttachmentRef> = state
        .store
        .branch_messages(&session_id)
        .await
        .map_err(store_error)?
        .into_iter()
        .find(|m| m.id == message_id)
        .map(|m| {
            m.message
                .attachments
                .into_iter()
                .map(|a| AttachmentRef {
                    sha256: a.sha256,
                    name: a.name,
                })
                .collect()
        })
        .unwrap_or_default();
    let input = UserInput {
        text: text.clone(),
        files: resolve(&state, &kept).await?,
    };
    // Refused before the fork, which would move the branch for nothing.
    input.check().map_err(|e| e.to_info())?;
    state
        .store
        .fork(&session_id, message_id)
        .await
        .map_err(store_error)?;
    let handle = agent.send(&session_id, input).map_err(|e| e.to_info())?;
    state
        .runs
        .adopt(handle, Some(text), webview.label(), on_event)
}

/// Follow the session's live run from after event `after_seq` (the last
/// number this page saw; 0 for all): the events it missed, then the live
/// ones, go to `on_event`. False when no run is going (the page re-reads
/// the session instead).
#[tauri::command]
#[specta::specta]
pub fn follow_run(
    state: State<'_, AppState>,
    session_id: String,
    after_seq: u32,
    on_event: Channel<AgentEvent>,
) -> bool {
    state.runs.follow(&session_id, after_seq, on_event)
}

/// Stop a run at once; the model stays loaded. False when it already ended.
#[tauri::command]
#[specta::specta]
pub fn stop_run(state: State<'_, AppState>, run_id: String) -> bool {
    state.runs.stop(&run_id)
}

/// Queue a message typed while a run is going; it joins the conversation
/// at the next turn boundary.
#[tauri::command]
#[specta::specta]
pub fn queue_message(
    state: State<'_, AppState>,
    session_id: String,
    text: String,
) -> Result<QueueResult, ErrorInfo> {
    // A queued message joins the run going on; `/plan` is a run of its own.
    hearth_core::queueable(&text).map_err(|e| e.to_info())?;
    let Some(queue) = state.runs.steering(&session_id) else {
        return Ok(QueueResult::RunEnded);
    };
    match queue.push(&text) {
        Ok(queue_id) => Ok(QueueResult::Queued { queue_id }),
        Err(QueueError::Closed) => Ok(QueueResult::RunEnded),
        Err(e @ QueueError::Empty) => Err(invalid(e.to_string())),
    }
}

/// Answer a tool's approval request: allow once, allow the tool for the
/// rest of the session, or deny. False when the request is no longer
/// waiting (answered already, or its run stopped).
#[tauri::command]
#[specta::specta]
pub fn approve(state: State<'_, AppState>, request_id: String, decision: ApprovalDecision) -> bool {
    state.approvals.answer(&request_id, decision)
}

/// Answer a `/plan` plan (`plan_proposed`): run it, run it as edited, or
/// cancel. False when it is no longer waiting.
#[tauri::command]
#[specta::specta]
pub fn answer_plan(state: State<'_, AppState>, request_id: String, answer: PlanAnswer) -> bool {
    state.approvals.answer_plan(&request_id, answer)
}

/// Take back a queued message. False when it was already sent.
#[tauri::command]
#[specta::specta]
pub fn cancel_queued(state: State<'_, AppState>, session_id: String, queue_id: String) -> bool {
    state
        .runs
        .steering(&session_id)
        .is_some_and(|q| q.cancel(&queue_id))
}
