//! Files the person attaches to a message (pasted, dropped, picked): the
//! page sends their bytes once, gets back what the store made of them, and
//! names them again when it sends the message. The page never names a path
//! on disk: it can only attach what it was given, and read back what was
//! attached.

use base64::Engine as _;
use hearth_core::Attachment;
use hearth_protocol::{AttachmentView, ErrorInfo};
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::State;

use crate::state::{AppState, invalid, store_error};

/// A file to send with a message: one `attach_file` returned.
#[derive(Debug, Clone, Serialize, Deserialize, Type)]
pub struct AttachmentRef {
    /// Its content address.
    pub sha256: String,
    /// Its name.
    pub name: String,
}

/// Base64 of the largest file Hearth attaches (a 50 MB PDF), and a little
/// room: anything longer is refused before it is decoded.
const MAX_BASE64: usize = (hearth_store::MAX_PDF_BYTES / 3 + 1) * 4 + 1024;

/// Keep a file the person attached: checked to be a picture or text from
/// its bytes (never its name), written once per content beside the
/// database. `data` is the file's bytes in base64.
#[tauri::command]
#[specta::specta]
pub async fn attach_file(
    state: State<'_, AppState>,
    name: String,
    data: String,
) -> Result<AttachmentView, ErrorInfo> {
    if data.len() > MAX_BASE64 {
        return Err(invalid(format!(
            "cannot attach {name}: it is over {} MB, the most Hearth reads",
            hearth_store::MAX_PDF_BYTES >> 20
        )));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.as_bytes())
        .map_err(|e| {
            invalid(format!(
                "cannot attach {name}: the page sent it garbled ({e})"
            ))
        })?;
    let a = state
        .store
        .add_file(&name, bytes)
        .await
        .map_err(store_error)?;
    Ok(hearth_core::attachment::view(&a))
}

/// An attached file as a `data:` URL (a picture's thumbnail, a text file
/// opened again). Only files the store holds, by their content address.
#[tauri::command]
#[specta::specta]
pub async fn attachment_data(
    state: State<'_, AppState>,
    sha256: String,
) -> Result<String, ErrorInfo> {
    let a = state.store.file(&sha256, "").await.map_err(store_error)?;
    let body = a.body.map(|b| b.0).unwrap_or_default();
    let mime = if a.mime.starts_with("text/") {
        format!("{};charset=utf-8", a.mime)
    } else {
        a.mime
    };
    Ok(format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&body)
    ))
}

/// The files `refs` names, with their bytes, to send with a message.
pub(crate) async fn resolve(
    state: &AppState,
    refs: &[AttachmentRef],
) -> Result<Vec<Attachment>, ErrorInfo> {
    let mut out = Vec::with_capacity(refs.len());
    for r in refs {
        out.push(
            state
                .store
                .file(&r.sha256, &r.name)
                .await
                .map_err(store_error)?,
        );
    }
    Ok(out)
}
