//! The workspace, opened once as a directory handle; every file is opened
//! *beneath* it by the kernel (cap-std: `openat2(RESOLVE_BENEATH)` on
//! Linux, a component-by-component walk elsewhere), so `..`, absolute
//! paths and symlinks that lead out fail at the moment of opening — there
//! is no check-then-open window for a swapped symlink to slip through.
//! Hard links cannot be told apart by path: a file with more than one link
//! is refused for reading, and writes replace the directory entry (a new
//! file), never the shared inode.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, File, MetadataExt, OpenOptions, OpenOptionsExt};
use hearth_core::{ToolContext, ToolError};

/// Largest file the tools read whole.
pub const MAX_READ_BYTES: u64 = 8 * 1024 * 1024;

/// The profile's workspace folder, open.
pub struct Workspace {
    root: PathBuf,
    dir: Dir,
    /// What the folder is, in errors ("workspace", "skill folder").
    label: &'static str,
}

fn fail(msg: impl Into<String>) -> ToolError {
    ToolError::Failed(msg.into())
}

/// `path` as the model gave it, made relative to `root` (the folder a
/// `label` names in errors), from the text alone: no file is touched, so
/// a call can be refused before the user is asked. An absolute path inside
/// `root` is accepted; the kernel still decides whether it stays inside
/// once symlinks are followed.
pub fn relative_to(root: &Path, label: &str, path: &str) -> Result<PathBuf, ToolError> {
    if path.chars().any(deceptive) {
        return Err(fail(format!(
            "the path {path:?} holds control or invisible characters; use a plain path"
        )));
    }
    let p = Path::new(path);
    let rel = if p.is_absolute() {
        p.strip_prefix(root)
            .map_err(|_| outside(root, label, path))?
    } else {
        p
    };
    if rel.components().any(|c| matches!(c, Component::ParentDir)) {
        // The kernel would refuse a `..` that leaves; one that stays
        // inside is refused too, so the answer never depends on layout.
        return Err(outside(root, label, path));
    }
    let rel: PathBuf = rel
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    Ok(if rel.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        rel
    })
}

/// The error for a path that leads outside `root`.
fn outside(root: &Path, label: &str, path: &str) -> ToolError {
    fail(format!(
        "`{path}` is outside the {label} {}; file tools only reach files inside it",
        root.display()
    ))
}

/// A number that differs between calls (time and a counter).
fn nonce() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    t ^ COUNTER.fetch_add(1, Ordering::Relaxed).rotate_left(48)
}

/// Characters that make a path read differently from what it is
/// (direction overrides, invisible joiners) or that no file name should
/// hold (controls).
fn deceptive(c: char) -> bool {
    hearth_core::visible::is_deceptive(c, false)
}

/// Opens a file beneath `dir` for reading without blocking in `open(2)`:
/// a FIFO would block it until a writer comes (forever, for one the model
/// made), a device may too. With `O_NONBLOCK` the open returns at once and
/// the caller's type check refuses anything but a regular file; reads of a
/// regular file are not affected by the flag.
pub(crate) fn open_for_reading(dir: &Dir, rel: &Path) -> std::io::Result<File> {
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY;
    let mut opts = OpenOptions::new();
    opts.read(true).custom_flags(flags.bits() as i32);
    dir.open_with(rel, &opts)
}

impl Workspace {
    /// The run's workspace; an error the model can relay when the profile
    /// has none or it cannot be opened.
    pub fn open(ctx: &ToolContext) -> Result<Self, ToolError> {
        let root = ctx.workspace.clone().ok_or_else(|| {
            fail("this profile has no workspace folder, so file tools are off; the user can set one in the profile")
        })?;
        Self::open_at(root, "workspace")
    }

    /// Another folder whose files are read the same way (a skill's), named
    /// `label` in errors.
    pub fn open_at(root: PathBuf, label: &'static str) -> Result<Self, ToolError> {
        let dir = Dir::open_ambient_dir(&root, ambient_authority())
            .map_err(|e| fail(format!("cannot open the {label} {}: {e}", root.display())))?;
        Ok(Self { root, dir, label })
    }

    /// The workspace folder as configured.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory handle everything is opened beneath.
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// A path as the model gave it, made relative to the workspace. An
    /// absolute path inside the workspace is accepted; the kernel still
    /// decides whether it stays inside once symlinks are followed.
    pub fn relative(&self, path: &str) -> Result<PathBuf, ToolError> {
        relative_to(&self.root, self.label, path)
    }

    /// The error for a path that leads outside.
    pub fn outside(&self, path: &str) -> ToolError {
        outside(&self.root, self.label, path)
    }

    /// An I/O error as the model should read it.
    pub fn io(&self, path: &str, e: &std::io::Error) -> ToolError {
        let text = e.to_string();
        if text.contains("outside of the filesystem") || text.contains("escape") {
            return self.outside(path);
        }
        match e.kind() {
            std::io::ErrorKind::NotFound => fail(format!(
                "no such file or folder `{path}` in the {}",
                self.label
            )),
            std::io::ErrorKind::PermissionDenied => fail(format!("permission denied for `{path}`")),
            _ => fail(format!("`{path}`: {text}")),
        }
    }

    /// Read a whole regular file (at most [`MAX_READ_BYTES`]).
    pub fn read(&self, path: &str) -> Result<Vec<u8>, ToolError> {
        let rel = self.relative(path)?;
        let mut file = open_for_reading(&self.dir, &rel).map_err(|e| self.io(path, &e))?;
        let meta = file.metadata().map_err(|e| self.io(path, &e))?;
        if meta.is_dir() {
            return Err(fail(format!("`{path}` is a folder; use list_dir")));
        }
        if !meta.is_file() {
            return Err(fail(format!(
                "`{path}` is not a regular file (a FIFO, socket or device), so it is not read"
            )));
        }
        if meta.nlink() > 1 {
            return Err(fail(format!(
                "`{path}` is hard-linked ({} links): it may be a file from outside the {}, so it is not read",
                meta.nlink(),
                self.label
            )));
        }
        if meta.len() > MAX_READ_BYTES {
            return Err(fail(format!(
                "`{path}` is {} bytes, more than the {MAX_READ_BYTES} the tools read; search it with search_files",
                meta.len()
            )));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        // Bounded again as it is read: a file that grows after the size
        // was checked (a log, a FIFO-like device) stops at the limit.
        (&mut file)
            .take(MAX_READ_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| self.io(path, &e))?;
        if bytes.len() as u64 > MAX_READ_BYTES {
            return Err(fail(format!(
                "`{path}` grew past the {MAX_READ_BYTES} bytes the tools read while it was read; search it with search_files"
            )));
        }
        Ok(bytes)
    }

    /// Replace (or create) a file atomically: the new content goes to a
    /// temporary file beside it, synced, then renamed over the name. A
    /// crash or a stop leaves the old file or the new one, never half.
    pub fn write_atomic(&self, path: &str, content: &[u8]) -> Result<(), ToolError> {
        let rel = self.relative(path)?;
        let name = rel
            .file_name()
            .ok_or_else(|| fail(format!("`{path}` names no file")))?
            .to_owned();
        let parent_rel = rel.parent().filter(|p| !p.as_os_str().is_empty());
        let parent = match parent_rel {
            Some(p) => {
                self.dir.create_dir_all(p).map_err(|e| self.io(path, &e))?;
                self.dir.open_dir(p).map_err(|e| self.io(path, &e))?
            }
            None => self.dir.try_clone().map_err(|e| self.io(path, &e))?,
        };
        let existing = parent.symlink_metadata(&name).ok();
        if let Some(meta) = &existing {
            if meta.is_symlink() {
                return Err(fail(format!(
                    "`{path}` is a symbolic link; write to the file it points to instead"
                )));
            }
            if meta.is_dir() {
                return Err(fail(format!("`{path}` is a folder")));
            }
        }
        // A name no other writer uses (two sessions may write one file).
        let tmp = format!(
            ".{}.hearth-{}-{:016x}.tmp",
            name.to_string_lossy(),
            std::process::id(),
            nonce()
        );
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        let mut f = parent
            .open_with(&tmp, &options)
            .map_err(|e| self.io(path, &e))?;
        let written = (|| {
            // The file keeps its mode (a 0600 secret stays 0600, a script
            // stays executable).
            if let Some(meta) = &existing {
                f.set_permissions(meta.permissions())?;
            }
            f.write_all(content)?;
            f.sync_all()?;
            parent.rename(&tmp, &parent, &name)
        })();
        if let Err(e) = written {
            // Ours to remove: this call created it (create_new).
            let _ = parent.remove_file(&tmp);
            return Err(self.io(path, &e));
        }
        Ok(())
    }
}
