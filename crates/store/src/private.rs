//! Hearth's data is the user's alone (security review N7): the database
//! holds conversations, memory and MCP servers' settings, the attachments
//! folder the files they sent. Folders Hearth makes are 0700, the database
//! (and so its WAL and shared-memory files, which SQLite makes with the
//! database's mode) and attached files 0600, whatever the umask. A folder
//! that already existed is left as it is: it may be one the user chose for
//! other things too (`--db ~/Documents/h.sqlite`).

use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// `dir` and any missing folder above it, made 0700.
pub(crate) fn create_dir(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// A new file at `path`, 0600 from the start.
pub(crate) fn create_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
}

/// The database at `db` made 0600 before SQLite opens it (a new one is
/// created so, never readable by others for a moment), and its files from
/// an older Hearth, which the umask made readable to everyone, narrowed.
pub(crate) fn database_files(db: &Path) -> io::Result<()> {
    if db.as_os_str() == ":memory:" {
        return Ok(());
    }
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(db)?;
    for suffix in ["", "-wal", "-shm"] {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        let path = PathBuf::from(name);
        match path.metadata() {
            Ok(m) if m.permissions().mode() & 0o077 != 0 => {
                let mode = m.permissions().mode() & !0o077;
                std::fs::set_permissions(&path, Permissions::from_mode(mode))?;
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
