//! Turns: send, regenerate, edit-and-resend, stop, and steering (messages
//! typed while a run is going). Each run's events go to the page over the
//! `Channel` it passed; the run itself lives in `LiveRuns`.

use hearth_core::voice::AnswerReader;
use hearth_core::{Enqueued, UserInput};
use hearth_protocol::{AgentEvent, ApprovalDecision, ErrorInfo, PlanAnswer};
use tauri::ipc::Channel;
use tauri::{State, Webview};

use super::attachments::{AttachmentRef, resolve};
use super::profiles::profile_error;
use crate::state::{AppState, store_error};
use crate::views::QueueResult;

/// The agent for a run in `session_id` that the core accepted: a profile
/// changed by another process (`hearth profiles set` beside the app) holds
/// from this run on, and the session is kept on the host it started on
/// (the first run decides).
async fn agent_for(
    state: &AppState,
    session_id: &str,
) -> Result<std::sync::Arc<hearth_core::Agent>, ErrorInfo> {
    state.profiles.refresh().await.map_err(store_error)?;
    state
        .profiles
        .pin_session_host(session_id)
        .await
        .map_err(profile_error)?;
    Ok(state.backend()?.agent)
}

/// What reads the run about to start in `session_id` aloud, if anything:
/// its profile says so, or the microphone listens. A new message first
/// ends what was being read.
async fn reading_for(state: &AppState, session_id: &str) -> Option<AnswerReader> {
    state.speaking.stop().await;
    let read = hearth_core::ProfileProvider::active(state.profiles.as_ref(), session_id).read_aloud;
    if !crate::speaking::reads_run(read, state.voice.status().state) {
        return None;
    }
    let server = super::speak::speaker_server(state).await?;
    Some(state.speaking.on(server).reader())
}

/// Send the user's message and stream the answer to `on_event`. Returns the
/// run id (for `stop_run`). The core decides what the message starts and
/// refuses what it cannot send, before the session's host is pinned.
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
    let mut files = resolve(&state, &attachments).await?;
    if state.profiles.session_knowledge(&session_id)
        && let Some(passages) = knowledge_passages(&state, &session_id, &text).await
    {
        files.push(passages);
    }
    let input = UserInput { text, files };
    let following = state
        .runs
        .ops()
        .send(&session_id, input, webview.label(), async || {
            agent_for(&state, &session_id).await
        })
        .await?;
    let reading = reading_for(&state, &session_id).await;
    Ok(state.runs.show(&session_id, following, on_event, reading))
}

/// The best passages of the knowledge folders for `text`, as a file to
/// attach to the message (docs/knowledge.md). A search that fails leaves
/// the message without them, and says why in the log: the message is
/// sent all the same.
async fn knowledge_passages(
    state: &AppState,
    session_id: &str,
    text: &str,
) -> Option<hearth_core::Attachment> {
    let index = state.knowledge.index().ok()?;
    let project = state.profiles.session_project(session_id).map(|p| p.id);
    let found =
        hearth_compose::passages_for(index, state.knowledge.backend(), project.as_deref(), text)
            .await;
    let passages = match found {
        Ok(p) => p?,
        Err(e) => {
            tracing::warn!("no knowledge passages for this message: {e}");
            return None;
        }
    };
    match state
        .store
        .add_file(hearth_compose::PASSAGES_FILE, passages.into_bytes())
        .await
    {
        Ok(a) => Some(a),
        Err(e) => {
            tracing::warn!("the knowledge passages could not be kept: {e}");
            None
        }
    }
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
    let following = answer_again(&state, &session_id, message_id, webview.label()).await?;
    let reading = reading_for(&state, &session_id).await;
    Ok(state.runs.show(&session_id, following, on_event, reading))
}

/// The run [`regenerate`] starts, for `owner`.
pub(crate) async fn answer_again(
    state: &AppState,
    session_id: &str,
    message_id: Option<i64>,
    owner: &str,
) -> Result<hearth_core::Following, ErrorInfo> {
    state
        .runs
        .ops()
        .regenerate(session_id, message_id, owner, async || {
            agent_for(state, session_id).await
        })
        .await
}

/// Replace a user message with `text` and answer it: the edited message
/// (with the files the original carried) starts a new branch; the old one
/// stays reachable.
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
    let following = state
        .runs
        .ops()
        .edit_and_resend(
            &session_id,
            message_id,
            &text,
            webview.label(),
            async || agent_for(&state, &session_id).await,
        )
        .await?;
    let reading = reading_for(&state, &session_id).await;
    Ok(state.runs.show(&session_id, following, on_event, reading))
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

/// Stop a run at once; the model stays loaded, and what was being read
/// aloud stops too. False when it already ended.
#[tauri::command]
#[specta::specta]
pub fn stop_run(state: State<'_, AppState>, run_id: String) -> bool {
    if let Some(aloud) = state.speaking.current() {
        tauri::async_runtime::spawn(async move { aloud.stop().await });
    }
    state.runs.ops().stop(&run_id)
}

/// Queue a message typed while a run is going; it joins the conversation
/// at the next turn boundary (`/plan`, a run of its own, is refused).
#[tauri::command]
#[specta::specta]
pub fn queue_message(
    state: State<'_, AppState>,
    session_id: String,
    text: String,
) -> Result<QueueResult, ErrorInfo> {
    Ok(match state.runs.ops().queue(&session_id, &text)? {
        Enqueued::Queued(queue_id) => QueueResult::Queued { queue_id },
        Enqueued::RunEnded => QueueResult::RunEnded,
    })
}

/// Answer a tool's approval request: allow once, allow the tool for the
/// rest of the session, or deny. False when the request is no longer
/// waiting (answered already, or its run stopped).
#[tauri::command]
#[specta::specta]
pub fn approve(state: State<'_, AppState>, request_id: String, decision: ApprovalDecision) -> bool {
    state.runs.ops().approve(&request_id, decision)
}

/// Answer a `/plan` plan (`plan_proposed`): run it, run it as edited, or
/// cancel. False when it is no longer waiting.
#[tauri::command]
#[specta::specta]
pub fn answer_plan(state: State<'_, AppState>, request_id: String, answer: PlanAnswer) -> bool {
    state.runs.ops().answer_plan(&request_id, answer)
}

/// Take back a queued message. False when it was already sent.
#[tauri::command]
#[specta::specta]
pub fn cancel_queued(state: State<'_, AppState>, session_id: String, queue_id: String) -> bool {
    state.runs.ops().cancel_queued(&session_id, &queue_id)
}
