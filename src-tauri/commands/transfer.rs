//! Export a session and import other apps' conversations, through the
//! system's Save and Open dialogs (`dialogs.rs`): the file is written and
//! read here, so the page never handles a path or a file's bytes.

use std::path::Path;

use hearth_protocol::ErrorInfo;
use hearth_store::MAX_IMPORT_BYTES;
use tauri::{AppHandle, State};

use crate::dialogs::{self, Ask};
use crate::state::{AppState, internal, invalid, store_error};
use crate::views::{ArtifactFormat, ExportFormat, ImportView};

/// Export the session to a file the person picks in a Save dialog, which
/// opens in Downloads with the session's title as the name. Returns the
/// path written, or `None` when the person cancelled (nothing is written).
#[tauri::command]
#[specta::specta]
pub async fn export_session(
    app: AppHandle,
    state: State<'_, AppState>,
    session_id: String,
    format: ExportFormat,
) -> Result<Option<String>, ErrorInfo> {
    // The body first: a session that cannot be exported says so before
    // the person picks a file.
    let body = match format {
        ExportFormat::Markdown => state
            .store
            .export_markdown(&session_id)
            .await
            .map_err(store_error)?,
        ExportFormat::Json => pretty(
            &state
                .store
                .export_json(&session_id)
                .await
                .map_err(store_error)?,
        )?,
    };
    let title = hearth_core::SessionStore::title(state.store.as_ref(), &session_id)
        .await
        .ok()
        .flatten()
        .unwrap_or_default();
    let shown = if title.trim().is_empty() {
        "this conversation".to_owned()
    } else {
        format!("“{}”", title.trim())
    };
    let Some(path) = save_export(&app, body, format, &shown, &title, &session_id).await? else {
        return Ok(None);
    };
    tracing::info!("exported {session_id} to {}", path.display());
    Ok(Some(path.display().to_string()))
}

/// Writes an export's `body` (Markdown, or JSON already printed) to a file
/// the person picks in a Save dialog titled "Export `shown` as …", which
/// opens in Downloads named after `title` (or `id`). `None` when the
/// person cancelled (nothing is written).
pub(crate) async fn save_export(
    app: &AppHandle,
    body: String,
    format: ExportFormat,
    shown: &str,
    title: &str,
    id: &str,
) -> Result<Option<std::path::PathBuf>, ErrorInfo> {
    let (ext, label) = match format {
        ExportFormat::Markdown => ("md", "Markdown"),
        ExportFormat::Json => ("json", "JSON"),
    };
    let folder = dialogs::start_folder(app);
    let name = suggested_name(folder.as_deref(), title, id, ext);
    let ask = Ask {
        title: format!("Export {shown} as {label}"),
        folder,
        name: Some(name),
        filter: Some((label, if ext == "md" { &["md"] } else { &["json"] })),
    };
    let Some(path) = dialogs::save(app, ask).await else {
        return Ok(None);
    };
    tokio::fs::write(&path, body)
        .await
        .map_err(|e| internal(format!("cannot write {}: {e}", path.display())))?;
    Ok(Some(path))
}

/// JSON as an export is written: indented, for a person who opens it.
pub(crate) fn pretty(v: &serde_json::Value) -> Result<String, ErrorInfo> {
    serde_json::to_string_pretty(v).map_err(|e| internal(e.to_string()))
}

/// The most an artifact may be, in bytes as written (a PNG drawn at most
/// 8192 pixels a side is far less): anything longer is refused before the
/// dialog is shown.
const MAX_ARTIFACT_BYTES: usize = 64 << 20;

/// Save an artifact of an answer (a diagram or picture as SVG or PNG, a
/// page as HTML) to a file the person picks in a Save dialog, which opens
/// in Downloads with `name` and the format's extension. `data` is the
/// source as text (SVG, HTML) or the PNG's bytes in base64. Returns the
/// path written, or `None` when the person cancelled.
#[tauri::command]
#[specta::specta]
pub async fn save_artifact(
    app: AppHandle,
    name: String,
    format: ArtifactFormat,
    data: String,
) -> Result<Option<String>, ErrorInfo> {
    let (bytes, ext, label, what): (Vec<u8>, &'static str, &'static str, &'static str) =
        match format {
            ArtifactFormat::Svg => (data.into_bytes(), "svg", "SVG image", "SVG"),
            ArtifactFormat::Html => (data.into_bytes(), "html", "HTML page", "HTML"),
            ArtifactFormat::Png => {
                use base64::Engine as _;
                if data.len() > MAX_ARTIFACT_BYTES / 3 * 4 + 4 {
                    return Err(invalid("the picture is too large to save"));
                }
                let png = base64::engine::general_purpose::STANDARD
                    .decode(data.as_bytes())
                    .map_err(|e| invalid(format!("the page sent the picture garbled ({e})")))?;
                if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
                    return Err(invalid("the page sent a picture that is not a PNG"));
                }
                (png, "png", "PNG image", "PNG")
            }
        };
    if bytes.len() > MAX_ARTIFACT_BYTES {
        return Err(invalid(format!(
            "it is {} MB; the most Hearth saves is {} MB",
            bytes.len().div_ceil(1 << 20),
            MAX_ARTIFACT_BYTES >> 20
        )));
    }
    let folder = dialogs::start_folder(&app);
    let file = suggested_name(folder.as_deref(), &name, "artifact", ext);
    let ask = Ask {
        title: format!("Save as {what}"),
        folder,
        name: Some(file),
        filter: Some((
            label,
            match format {
                ArtifactFormat::Svg => &["svg"],
                ArtifactFormat::Png => &["png"],
                ArtifactFormat::Html => &["html", "htm"],
            },
        )),
    };
    let Some(path) = dialogs::save(&app, ask).await else {
        return Ok(None);
    };
    tokio::fs::write(&path, bytes)
        .await
        .map_err(|e| internal(format!("cannot write {}: {e}", path.display())))?;
    tracing::info!("saved an artifact to {}", path.display());
    Ok(Some(path.display().to_string()))
}

/// Import another app's conversations from a file the person picks in an
/// Open dialog: ChatGPT's conversations.json, an Open WebUI export or a
/// Hearth JSON export. Each conversation becomes a new session; nothing is
/// written when the file is refused. `None` when the person cancelled.
#[tauri::command]
#[specta::specta]
pub async fn import_file(
    app: AppHandle,
    state: State<'_, AppState>,
) -> Result<Option<ImportView>, ErrorInfo> {
    let ask = Ask {
        title: "Import conversations".to_owned(),
        folder: dialogs::start_folder(&app),
        name: None,
        filter: Some(("Conversation exports (JSON)", &["json"])),
    };
    let Some(path) = dialogs::open(&app, ask).await else {
        return Ok(None);
    };
    let text = read_export(&path).await?;
    let report = state.store.import(&text).await.map_err(store_error)?;
    // A project's export comes in a project of its name.
    let adopted = state
        .profiles
        .adopt_import(&report)
        .await
        .map_err(super::profiles::profile_error)?;
    tracing::info!(
        "imported {} conversations from {}",
        report.sessions.len(),
        path.display()
    );
    let mut view: ImportView = report.into();
    if let Some((project, note)) = adopted {
        view.project = Some(project.name);
        view.note = note;
    }
    Ok(Some(view))
}

/// The text of an export: a plain file (a pipe or a device could block the
/// read forever), refused before reading when it is larger than the store
/// imports (a multi-gigabyte file is not read into memory), and read no
/// further than that if it grew meanwhile.
async fn read_export(path: &Path) -> Result<String, ErrorInfo> {
    use tokio::io::AsyncReadExt;
    let cannot = |e: std::io::Error| invalid(format!("cannot read {}: {e}", path.display()));
    let meta = tokio::fs::metadata(path).await.map_err(cannot)?;
    if !meta.is_file() {
        return Err(invalid(format!("{} is not a file", path.display())));
    }
    let too_large = |size: u64| {
        invalid(format!(
            "{} is {} MB; the most Hearth imports at once is {} MB",
            path.display(),
            size.div_ceil(1 << 20),
            MAX_IMPORT_BYTES >> 20
        ))
    };
    if meta.len() > MAX_IMPORT_BYTES as u64 {
        return Err(too_large(meta.len()));
    }
    let file = tokio::fs::File::open(path).await.map_err(cannot)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_IMPORT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .await
        .map_err(cannot)?;
    if bytes.len() > MAX_IMPORT_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|_| {
        invalid(format!(
            "{} is not text (an export is a JSON file)",
            path.display()
        ))
    })
}

/// `<title>.<ext>` (letters, digits, spaces, `-` and `_` of the session's
/// title), or `hearth-<session>.<ext>` for an untitled one, with `-2`,
/// `-3`… when `folder` already holds that name, so the suggestion never
/// replaces an earlier export. Nothing in a title or an id can name
/// another folder.
pub(crate) fn suggested_name(
    folder: Option<&Path>,
    title: &str,
    session_id: &str,
    ext: &str,
) -> String {
    let keep = |c: &char| c.is_alphanumeric() || *c == '_' || *c == '-' || *c == ' ';
    let named: String = title
        .chars()
        .filter(keep)
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let named: String = named.chars().take(80).collect();
    let stem = if named.trim().is_empty() {
        let safe: String = session_id
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
            .collect();
        format!("hearth-{safe}")
    } else {
        named.trim().to_owned()
    };
    let taken = |name: &str| folder.is_some_and(|f| f.join(name).exists());
    let mut name = format!("{stem}.{ext}");
    let mut n = 2;
    while taken(&name) {
        name = format!("{stem}-{n}.{ext}");
        n += 1;
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggested_names_follow_the_title_never_an_existing_file_and_cannot_escape() {
        let dir = tempfile::tempdir().unwrap();
        let first = suggested_name(Some(dir.path()), "", "ses_1/../../x", "md");
        assert_eq!(first, "hearth-ses_1x.md");
        std::fs::write(dir.path().join(&first), "x").unwrap();
        let second = suggested_name(Some(dir.path()), "  ", "ses_1/../../x", "md");
        assert_eq!(second, "hearth-ses_1x-2.md");
        let titled = suggested_name(
            Some(dir.path()),
            "../Tea: brewing /etc/passwd\n",
            "s",
            "json",
        );
        assert_eq!(titled, "Tea brewing etcpasswd.json");
        assert_eq!(
            suggested_name(None, "", "ses_1/../../x", "md"),
            "hearth-ses_1x.md"
        );
    }

    #[tokio::test]
    async fn an_export_too_large_or_not_text_is_refused_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let binary = dir.path().join("picture.json");
        std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x89]).unwrap();
        let e = read_export(&binary).await.unwrap_err();
        assert!(
            e.message.contains("picture.json is not text"),
            "{}",
            e.message
        );

        let big = dir.path().join("huge.json");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_IMPORT_BYTES as u64 + 1).unwrap();
        let e = read_export(&big).await.unwrap_err();
        assert!(
            e.message
                .contains("huge.json is 201 MB; the most Hearth imports at once is 200 MB"),
            "{}",
            e.message
        );

        let folder = read_export(dir.path()).await.unwrap_err();
        assert!(
            folder.message.ends_with("is not a file"),
            "{}",
            folder.message
        );

        let gone = read_export(&dir.path().join("gone.json"))
            .await
            .unwrap_err();
        assert!(gone.message.contains("cannot read"), "{}", gone.message);

        let ok = dir.path().join("ok.json");
        std::fs::write(&ok, "[]").unwrap();
        assert_eq!(read_export(&ok).await.unwrap(), "[]");
    }
}
