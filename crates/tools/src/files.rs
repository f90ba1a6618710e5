//! read_file, list_dir, write_file, edit_file.

use std::time::Duration;

use async_trait::async_trait;
use hearth_core::{Tool, ToolContext, ToolEffect, ToolError, ToolSpec};
use serde_json::{Value, json};

use crate::confine::Workspace;
use crate::output::{MAX_OUTPUT_CHARS, cap};

/// How long a file operation may take (a hung network mount).
const FILE_TIMEOUT: Duration = Duration::from_secs(20);

/// Most entries list_dir shows.
const MAX_ENTRIES: usize = 500;

pub(crate) fn str_arg<'a>(args: &'a Value, name: &str) -> Result<&'a str, ToolError> {
    args.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::InvalidArguments(format!("`{name}` (a string) is required")))
}

/// Run blocking file work off the async threads, with a timeout.
pub(crate) async fn blocking<T: Send + 'static>(
    what: &str,
    f: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    match tokio::time::timeout(FILE_TIMEOUT, tokio::task::spawn_blocking(f)).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => Err(ToolError::Failed(format!("{what} failed: {e}"))),
        Err(_) => Err(ToolError::Failed(format!(
            "{what} took longer than {} s and was abandoned",
            FILE_TIMEOUT.as_secs()
        ))),
    }
}

/// What a file call that writes would reach: the path as it resolves in
/// the workspace (what the approval shows), or why the call is refused
/// before anyone is asked (no workspace; a path that leaves it).
fn target(arguments: &Value, ctx: &ToolContext) -> Result<std::path::PathBuf, ToolError> {
    let Some(root) = ctx.workspace.as_deref() else {
        return Err(ToolError::Failed("this profile has no workspace folder, so file tools are off; the user can set one in the profile".into()));
    };
    let path = arguments.get("path").and_then(Value::as_str).unwrap_or("");
    crate::confine::relative_to(root, "workspace", path).map(|rel| root.join(rel))
}

/// The resolved path for the approval text (a call that cannot resolve is
/// refused before it is shown; its raw path stands in).
fn shown_target(arguments: &Value, ctx: &ToolContext) -> String {
    target(arguments, ctx).map_or_else(
        |_| {
            arguments
                .get("path")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned()
        },
        |p| p.display().to_string(),
    )
}

fn in_workspace(ctx: &ToolContext, what: &str) -> String {
    match &ctx.workspace {
        Some(w) => format!("{what} in {}", w.display()),
        None => what.to_owned(),
    }
}

/// Reads a text file of the workspace, by lines.
pub struct ReadFile;

#[async_trait]
impl Tool for ReadFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "read_file".into(),
            description: "Read a text file in the workspace. Lines are numbered from 1; use offset and limit for long files.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "path relative to the workspace"},
                    "offset": {"type": "integer", "description": "first line to show (1-based)", "default": 1},
                    "limit": {"type": "integer", "description": "most lines to show", "default": 2000}
                },
                "required": ["path"]
            }),
        }
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let path = str_arg(&args, "path")?.to_owned();
        let offset = args
            .get("offset")
            .and_then(Value::as_u64)
            .unwrap_or(1)
            .max(1);
        let limit = args
            .get("limit")
            .and_then(Value::as_u64)
            .unwrap_or(2000)
            .max(1);
        let ws = Workspace::open(ctx)?;
        let p = path.clone();
        let bytes = blocking("reading", move || ws.read(&p)).await?;
        if bytes.iter().take(8192).any(|b| *b == 0) {
            return Err(ToolError::Failed(format!("`{path}` is a binary file")));
        }
        let text = String::from_utf8_lossy(&bytes);
        let total = text.lines().count();
        let first = usize::try_from(offset - 1).unwrap_or(usize::MAX);
        let want = usize::try_from(limit).unwrap_or(usize::MAX);
        // Whole lines only, as many as fit under the cap; the notice says
        // where to continue.
        let budget = MAX_OUTPUT_CHARS - 200;
        let mut out = String::new();
        let mut next = first;
        for (i, line) in text.lines().enumerate().skip(first).take(want) {
            let row = format!("{:>6}\t{line}\n", i + 1);
            if !out.is_empty() && out.len() + row.len() > budget {
                break;
            }
            out.push_str(&row);
            next = i + 1;
        }
        if next < total && next > first {
            out.push_str(&format!(
                "[{total} lines in all; call again with offset={} for more]\n",
                next + 1
            ));
        }
        if out.is_empty() {
            out = format!("(`{path}` has {total} lines; nothing at offset {offset})");
        }
        Ok(cap(
            out,
            MAX_OUTPUT_CHARS,
            "read_file",
            "call again with a larger offset or a smaller limit",
        ))
    }
}

/// Lists a folder of the workspace.
pub struct ListDir;

#[async_trait]
impl Tool for ListDir {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "list_dir".into(),
            description: "List the files and folders in a workspace folder (folders end with /)."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {"path": {"type": "string", "description": "folder relative to the workspace", "default": "."}}
            }),
        }
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let path = args
            .get("path")
            .and_then(Value::as_str)
            .unwrap_or(".")
            .to_owned();
        let ws = Workspace::open(ctx)?;
        blocking("listing", move || {
            let rel = ws.relative(&path)?;
            let dir = if rel.as_os_str() == "." {
                ws.dir().try_clone().map_err(|e| ws.io(&path, &e))?
            } else {
                ws.dir().open_dir(&rel).map_err(|e| ws.io(&path, &e))?
            };
            let mut rows = Vec::new();
            for entry in dir.entries().map_err(|e| ws.io(&path, &e))? {
                let entry = entry.map_err(|e| ws.io(&path, &e))?;
                let name = entry.file_name().to_string_lossy().into_owned();
                let kind = entry.file_type().map_err(|e| ws.io(&path, &e))?;
                rows.push(if kind.is_dir() {
                    format!("{name}/")
                } else if kind.is_symlink() {
                    format!("{name} (link)")
                } else {
                    let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                    format!("{name} ({size} bytes)")
                });
            }
            rows.sort();
            let total = rows.len();
            rows.truncate(MAX_ENTRIES);
            let mut out = rows.join("\n");
            if total > MAX_ENTRIES {
                out.push_str(&format!(
                    "\n[{total} entries; showing the first {MAX_ENTRIES}]"
                ));
            }
            if out.is_empty() {
                out = "(empty folder)".into();
            }
            Ok(out)
        })
        .await
    }
}

/// Creates or replaces a file of the workspace.
pub struct WriteFile;

#[async_trait]
impl Tool for WriteFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "write_file".into(),
            description: "Create or overwrite a text file in the workspace with the given content (folders are created). Asks the user first.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "path relative to the workspace"},
                    "content": {"type": "string", "description": "the whole new content"}
                },
                "required": ["path", "content"]
            }),
        }
    }

    fn effect(&self, _arguments: &Value) -> ToolEffect {
        ToolEffect::Mutating
    }

    fn reach(&self, arguments: &Value, ctx: &ToolContext) -> String {
        let bytes = arguments
            .get("content")
            .and_then(Value::as_str)
            .map_or(0, str::len);
        format!(
            "writes {bytes} bytes to `{}` (replacing it if it exists)",
            shown_target(arguments, ctx)
        )
    }

    fn refuse(&self, arguments: &Value, ctx: &ToolContext) -> Option<String> {
        target(arguments, ctx).err().map(|e| e.to_string())
    }

    fn warning(&self, arguments: &Value, ctx: &ToolContext) -> Option<String> {
        runs_later(arguments, ctx)
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let path = str_arg(&args, "path")?.to_owned();
        let content = str_arg(&args, "content")?.to_owned();
        let ws = Workspace::open(ctx)?;
        let p = path.clone();
        let n = content.len();
        blocking("writing", move || ws.write_atomic(&p, content.as_bytes())).await?;
        Ok(format!(
            "wrote {n} bytes to {}",
            in_workspace(ctx, &format!("`{path}`"))
        ))
    }
}

/// Replaces one exact piece of text in a file of the workspace.
pub struct EditFile;

#[async_trait]
impl Tool for EditFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "edit_file".into(),
            description: "Replace an exact piece of text in a workspace file. old_text must appear exactly once (include surrounding lines to make it unique). Asks the user first.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "old_text": {"type": "string", "description": "text to replace, exactly as in the file"},
                    "new_text": {"type": "string", "description": "replacement"}
                },
                "required": ["path", "old_text", "new_text"]
            }),
        }
    }

    fn effect(&self, _arguments: &Value) -> ToolEffect {
        ToolEffect::Mutating
    }

    fn reach(&self, arguments: &Value, ctx: &ToolContext) -> String {
        format!(
            "edits `{}`: replaces one exact piece of text",
            shown_target(arguments, ctx)
        )
    }

    fn refuse(&self, arguments: &Value, ctx: &ToolContext) -> Option<String> {
        target(arguments, ctx).err().map(|e| e.to_string())
    }

    fn warning(&self, arguments: &Value, ctx: &ToolContext) -> Option<String> {
        runs_later(arguments, ctx)
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let path = str_arg(&args, "path")?.to_owned();
        let old = str_arg(&args, "old_text")?.to_owned();
        let new = str_arg(&args, "new_text")?.to_owned();
        if old.is_empty() {
            return Err(ToolError::InvalidArguments(
                "`old_text` cannot be empty".into(),
            ));
        }
        let ws = Workspace::open(ctx)?;
        let p = path.clone();
        blocking("editing", move || {
            let bytes = ws.read(&p)?;
            let text = String::from_utf8(bytes)
                .map_err(|_| ToolError::Failed(format!("`{p}` is not UTF-8 text")))?;
            match text.matches(old.as_str()).count() {
                0 => Err(ToolError::Failed(format!(
                    "`old_text` does not appear in `{p}`; read the file and copy the text exactly"
                ))),
                1 => {
                    let edited = text.replacen(old.as_str(), &new, 1);
                    ws.write_atomic(&p, edited.as_bytes())?;
                    Ok(format!("edited `{p}`: replaced {} bytes with {}", old.len(), new.len()))
                }
                n => Err(ToolError::Failed(format!(
                    "`old_text` appears {n} times in `{p}`; include more surrounding text so it matches once"
                ))),
            }
        })
        .await
    }
}

/// The louder warning for writing the call's `path` (`later.rs`).
fn runs_later(arguments: &Value, ctx: &ToolContext) -> Option<String> {
    let path = arguments.get("path").and_then(Value::as_str)?;
    let ws = Workspace::open(ctx).ok()?;
    let rel = ws.relative(path).ok()?;
    crate::later::warning(ws.root(), &rel)
}
