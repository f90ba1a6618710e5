//! Files attached to messages. The bytes live beside the database, one
//! file per SHA-256 of its content (`<database>.files/<sha256>`), written
//! whole or not at all; the `files` table says what each is, and
//! `attachments` which message carries which file under which name. A
//! file no message refers to (its session deleted for good, or attached
//! and never sent) is removed a day later, when the store opens.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hearth_core::{Attachment, AttachmentKind, Body};
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use crate::clock::now_ms;
use crate::error::StoreError;
use crate::migration::Migration;

pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 17,
    name: "attachments",
    sql: "CREATE TABLE files (
              sha256 TEXT PRIMARY KEY,
              kind TEXT NOT NULL,
              mime TEXT NOT NULL,
              size INTEGER NOT NULL,
              added_at INTEGER NOT NULL
          );
          CREATE TABLE attachments (
              message_id INTEGER NOT NULL REFERENCES messages(id),
              position INTEGER NOT NULL,
              sha256 TEXT NOT NULL REFERENCES files(sha256),
              name TEXT NOT NULL,
              given INTEGER,
              chars INTEGER,
              PRIMARY KEY (message_id, position)
          );
          CREATE INDEX attachments_by_file ON attachments(sha256);",
}];

/// The largest picture Hearth attaches (Ollama's own request limit is
/// about this; a bigger photo is better scaled down first).
pub const MAX_IMAGE_BYTES: usize = 20 << 20;
/// The largest text file (its text is cut to the window anyway).
pub const MAX_TEXT_BYTES: usize = 10 << 20;

/// How long a file nobody refers to is kept (an attachment the composer
/// holds and has not sent yet).
const UNSENT_GRACE_MS: i64 = 86_400_000;

/// A file as it is kept: what it is, its media type, and the bytes kept
/// (a PDF's text, not the PDF).
pub(crate) struct Intake {
    pub kind: AttachmentKind,
    pub mime: String,
    pub bytes: Vec<u8>,
    /// The file's own size, which its chip shows (a PDF's, not its text's:
    /// user pass 2026-12, defect 34).
    pub size: u64,
}

/// What a file is, from its bytes (never from its name or a claimed
/// type), and what is kept of it.
pub(crate) fn intake(name: &str, bytes: Vec<u8>) -> Result<Intake, StoreError> {
    if infer::get(&bytes).is_some_and(|t| t.mime_type() == "application/pdf") {
        let text = crate::reader::text_of(name, &bytes)?;
        if text.len() > MAX_TEXT_BYTES {
            return Err(StoreError::Attachment(format!(
                "cannot attach {name}: its text is {} MB; the most Hearth attaches as text is {} MB",
                text.len() >> 20,
                MAX_TEXT_BYTES >> 20
            )));
        }
        return Ok(Intake {
            kind: AttachmentKind::Text,
            mime: "application/pdf".to_owned(),
            bytes: text.into_bytes(),
            size: bytes.len() as u64,
        });
    }
    let (kind, mime) = classify(name, &bytes)?;
    let size = bytes.len() as u64;
    Ok(Intake {
        kind,
        mime,
        bytes,
        size,
    })
}

fn refuse<T>(name: &str, why: impl std::fmt::Display) -> Result<T, StoreError> {
    Err(StoreError::Attachment(format!(
        "cannot attach {name}: {why}"
    )))
}

/// What a file is, from its bytes: a picture a model can take, or UTF-8
/// text.
fn classify(name: &str, bytes: &[u8]) -> Result<(AttachmentKind, String), StoreError> {
    if let Some(t) = infer::get(bytes) {
        if picture_type(t.mime_type()) {
            return check_picture(name, bytes).map(|mime| (AttachmentKind::Image, mime));
        }
        if t.matcher_type() != infer::MatcherType::Text {
            return refuse(
                name,
                format!(
                    "it is {}; Hearth attaches pictures (PNG, JPEG, WebP, GIF), PDFs and text files",
                    t.mime_type()
                ),
            );
        }
    }
    check_text(name, bytes).map(|()| (AttachmentKind::Text, "text/plain".to_owned()))
}

fn picture_type(mime: &str) -> bool {
    matches!(
        mime,
        "image/png" | "image/jpeg" | "image/webp" | "image/gif"
    )
}

/// `bytes` as a picture a model can take: its media type, from the bytes.
pub(crate) fn check_picture(name: &str, bytes: &[u8]) -> Result<String, StoreError> {
    let Some(mime) = infer::get(bytes)
        .map(|t| t.mime_type())
        .filter(|m| picture_type(m))
    else {
        return refuse(name, "it is not a picture (PNG, JPEG, WebP, GIF)");
    };
    if bytes.len() > MAX_IMAGE_BYTES {
        return refuse(
            name,
            format!(
                "the picture is {} MB; the most Hearth sends is {} MB",
                bytes.len() >> 20,
                MAX_IMAGE_BYTES >> 20
            ),
        );
    }
    Ok(mime.to_owned())
}

/// `bytes` as text Hearth keeps: UTF-8 without NUL, within the size.
pub(crate) fn check_text(name: &str, bytes: &[u8]) -> Result<(), StoreError> {
    if bytes.len() > MAX_TEXT_BYTES {
        return refuse(
            name,
            format!(
                "the file is {} MB; the most Hearth attaches as text is {} MB",
                bytes.len() >> 20,
                MAX_TEXT_BYTES >> 20
            ),
        );
    }
    if bytes.contains(&0) || std::str::from_utf8(bytes).is_err() {
        return refuse(
            name,
            "it is neither a picture (PNG, JPEG, WebP, GIF) nor UTF-8 text",
        );
    }
    Ok(())
}

fn kind_str(k: AttachmentKind) -> &'static str {
    match k {
        AttachmentKind::Image => "image",
        AttachmentKind::Text => "text",
    }
}

fn parse_kind(s: &str) -> Result<AttachmentKind, StoreError> {
    match s {
        "image" => Ok(AttachmentKind::Image),
        "text" => Ok(AttachmentKind::Text),
        other => Err(StoreError::Corrupt(format!(
            "unknown attachment kind `{other}`"
        ))),
    }
}

/// The folder of a database's files.
pub(crate) fn dir_of(db: &Path) -> PathBuf {
    let mut name = db.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".files");
    db.with_file_name(name)
}

fn io(path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Io {
        path: path.display().to_string(),
        detail: e.to_string(),
    }
}

/// Write `bytes` as `dir/<sha256>` unless it is there: to a temporary
/// name, synced, then renamed, so a crash leaves the whole file or none.
pub(crate) fn write_file(dir: &Path, bytes: &[u8]) -> Result<String, StoreError> {
    let sha = address(bytes);
    let path = dir.join(&sha);
    if path.exists() {
        return Ok(sha);
    }
    crate::private::create_dir(dir).map_err(|e| io(dir, e))?;
    let tmp = dir.join(format!(".{sha}.{}", uuid::Uuid::new_v4()));
    let written = (|| {
        let mut f = crate::private::create_file(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        std::fs::File::open(dir)?.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(&path, e));
    }
    Ok(sha)
}

/// The name `bytes` are kept under: their SHA-256, hex.
pub(crate) fn address(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Whether `name` is an address (so it cannot name anything outside the
/// folder).
fn is_address(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of file `sha256`.
pub(crate) fn read_body(dir: &Path, sha256: &str) -> Result<Body, StoreError> {
    // The name comes from the database or a front end: hex only, so it
    // cannot name anything outside the folder.
    if !is_address(sha256) {
        return Err(StoreError::Attachment(format!(
            "no attached file `{sha256}`"
        )));
    }
    let path = dir.join(sha256);
    match std::fs::read(&path) {
        Ok(b) => Ok(Body(Arc::from(b))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(StoreError::Attachment(format!(
            "the attached file {sha256} is missing from {}",
            dir.display()
        ))),
        Err(e) => Err(io(&path, e)),
    }
}

/// Record a written file.
pub(crate) fn add(
    conn: &Connection,
    sha256: &str,
    kind: AttachmentKind,
    mime: &str,
    size: u64,
) -> Result<(), StoreError> {
    let size = i64::try_from(size).unwrap_or(i64::MAX);
    // Attached again: it is fresh again (the sweep's grace starts anew).
    // What it is comes from the bytes just checked, over a row an import
    // wrote for a file it did not carry.
    conn.execute(
        "INSERT INTO files (sha256, kind, mime, size, added_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(sha256) DO UPDATE SET added_at = excluded.added_at,
             kind = excluded.kind, mime = excluded.mime, size = excluded.size",
        params![sha256, kind_str(kind), mime, size, now_ms()],
    )?;
    Ok(())
}

/// File `sha256` as an attachment named `name` (no body).
pub(crate) fn file(conn: &Connection, sha256: &str, name: &str) -> Result<Attachment, StoreError> {
    let row = conn
        .query_row(
            "SELECT kind, mime, size FROM files WHERE sha256 = ?1",
            [sha256],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            },
        )
        .optional()?;
    let Some((kind, mime, size)) = row else {
        return Err(StoreError::Attachment(format!(
            "no attached file `{sha256}` (attach it again)"
        )));
    };
    Ok(Attachment {
        sha256: sha256.to_owned(),
        name: name.to_owned(),
        kind: parse_kind(&kind)?,
        mime,
        size: u64::try_from(size).unwrap_or(0),
        given: None,
        chars: None,
        body: None,
    })
}

/// Attach `list` to message `message_id`. Call inside the append's
/// transaction.
pub(crate) fn insert(
    conn: &Connection,
    message_id: i64,
    list: &[Attachment],
) -> Result<(), StoreError> {
    for (i, a) in list.iter().enumerate() {
        let exists: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM files WHERE sha256 = ?1)",
            [&a.sha256],
            |r| r.get(0),
        )?;
        if !exists {
            add(conn, &a.sha256, a.kind, &a.mime, a.size)?;
        }
        let small = |n: Option<u64>| n.map(|n| i64::try_from(n).unwrap_or(i64::MAX));
        conn.execute(
            "INSERT INTO attachments (message_id, position, sha256, name, given, chars)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                message_id,
                i64::try_from(i).unwrap_or(i64::MAX),
                a.sha256,
                a.name,
                small(a.given),
                small(a.chars)
            ],
        )?;
    }
    Ok(())
}

/// The attachments of messages `ids`, in order, by message (no bodies).
pub(crate) fn of_messages(
    conn: &Connection,
    ids: &[i64],
) -> Result<HashMap<i64, Vec<Attachment>>, StoreError> {
    let mut out: HashMap<i64, Vec<Attachment>> = HashMap::new();
    if ids.is_empty() {
        return Ok(out);
    }
    let json = serde_json::to_string(ids).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let mut stmt = conn.prepare_cached(
        "SELECT a.message_id, a.sha256, a.name, a.given, a.chars, f.kind, f.mime, f.size
         FROM attachments a JOIN files f ON f.sha256 = a.sha256
         WHERE a.message_id IN (SELECT value FROM json_each(?1))
         ORDER BY a.message_id, a.position",
    )?;
    let rows = stmt.query_map([json], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<i64>>(3)?,
            r.get::<_, Option<i64>>(4)?,
            r.get::<_, String>(5)?,
            r.get::<_, String>(6)?,
            r.get::<_, i64>(7)?,
        ))
    })?;
    for row in rows {
        let (id, sha256, name, given, chars, kind, mime, size) = row?;
        let count = |n: Option<i64>| n.map(|n| u64::try_from(n).unwrap_or(0));
        out.entry(id).or_default().push(Attachment {
            sha256,
            name,
            kind: parse_kind(&kind)?,
            mime,
            size: u64::try_from(size).unwrap_or(0),
            given: count(given),
            chars: count(chars),
            body: None,
        });
    }
    Ok(out)
}

/// Forget the attachments of session `id`'s messages (it is being removed
/// for good). Inside the purge's transaction.
pub(crate) fn forget_session(conn: &Connection, id: &str) -> Result<(), StoreError> {
    conn.execute(
        "DELETE FROM attachments WHERE message_id IN (SELECT id FROM messages WHERE session_id = ?1)",
        [id],
    )?;
    Ok(())
}

/// Remove the files no message refers to that were added over a day ago;
/// how many went. The rows go first, in one transaction that checks again
/// that nothing refers to them (another process may be attaching the same
/// content), then the files; a file whose removal fails is only logged.
pub(crate) fn sweep(conn: &mut Connection, dir: &Path) -> Result<usize, StoreError> {
    let cutoff = now_ms() - UNSENT_GRACE_MS;
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let orphans: Vec<String> = {
        let mut stmt = tx.prepare(
            "DELETE FROM files WHERE added_at < ?1
             AND NOT EXISTS (SELECT 1 FROM attachments a WHERE a.sha256 = files.sha256)
             RETURNING sha256",
        )?;
        stmt.query_map([cutoff], |r| r.get(0))?
            .collect::<Result<_, _>>()?
    };
    tx.commit()?;
    for sha in &orphans {
        match std::fs::remove_file(dir.join(sha)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!("could not remove attached file {sha}: {e}"),
        }
    }
    Ok(orphans.len())
}

impl crate::Store {
    /// The folder this database keeps attached files in.
    pub fn files_dir(&self) -> PathBuf {
        dir_of(self.path())
    }

    /// Keep `bytes` as a file to attach under `name`: checked to be a
    /// picture, a PDF (its text is kept) or text, written once per
    /// content. What a front end sends with the message
    /// ([`hearth_core::Agent::run_stream_with`]).
    pub async fn add_file(&self, name: &str, bytes: Vec<u8>) -> Result<Attachment, StoreError> {
        let dir = self.files_dir();
        let named = name.to_owned();
        let (
            sha256,
            Intake {
                kind,
                mime,
                bytes,
                size,
            },
        ) = tokio::task::spawn_blocking(move || {
            let kept = intake(&named, bytes)?;
            write_file(&dir, &kept.bytes).map(|sha| (sha, kept))
        })
        .await
        .map_err(|e| StoreError::Attachment(format!("keeping the file failed: {e}")))??;
        let (sha, m) = (sha256.clone(), mime.clone());
        self.db()
            .call(move |c| add(c, &sha, kind, &m, size))
            .await?;
        Ok(Attachment {
            sha256,
            name: name.to_owned(),
            kind,
            mime,
            size,
            given: None,
            chars: None,
            body: Some(Body(Arc::from(bytes))),
        })
    }

    /// A file added earlier, as an attachment named `name`, with its bytes.
    pub async fn file(&self, sha256: &str, name: &str) -> Result<Attachment, StoreError> {
        let (sha, n) = (sha256.to_owned(), name.to_owned());
        let mut a = self.db().call(move |c| file(c, &sha, &n)).await?;
        // Removed by hand: still attachable (the model is told it is gone).
        if self.files_dir().join(sha256).exists() {
            a.body = Some(self.body(sha256).await?);
        }
        Ok(a)
    }

    /// The bytes of file `sha256` (a picture's thumbnail, a file reopened).
    pub async fn body(&self, sha256: &str) -> Result<Body, StoreError> {
        let (dir, sha) = (self.files_dir(), sha256.to_owned());
        tokio::task::spawn_blocking(move || read_body(&dir, &sha))
            .await
            .map_err(|e| StoreError::Attachment(format!("reading the file failed: {e}")))?
    }

    /// Fill in the bytes of `messages`' attachments. A file gone from the
    /// folder (removed by hand) is left without bytes, and the model is
    /// told it is gone ([`hearth_core::attached::with_file_text`]): the
    /// session stays usable. Any other failure to read is an error.
    pub(crate) async fn load_bodies(
        &self,
        messages: &mut [hearth_core::ChatMessage],
    ) -> Result<(), StoreError> {
        for a in messages.iter_mut().flat_map(|m| m.attachments.iter_mut()) {
            a.body = self.loaded_body(&a.sha256).await?;
            if a.body.is_none() {
                tracing::warn!("attached file {} ({}) is missing", a.sha256, a.name);
            }
        }
        Ok(())
    }

    /// The bytes of file `sha256`; `None` when it is gone from the folder
    /// (removed by hand). Any other failure to read is an error.
    pub(crate) async fn loaded_body(&self, sha256: &str) -> Result<Option<Body>, StoreError> {
        if is_address(sha256) && !self.files_dir().join(sha256).exists() {
            return Ok(None);
        }
        self.body(sha256).await.map(Some)
    }
}
