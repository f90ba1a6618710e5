//! Hearth's built-in tools that touch the machine: files in the profile's
//! workspace (read, list, search, write, edit), a shell, and a per-session
//! scratchpad. Each declares a JSON schema, whether it mutates (mutating
//! calls run alone and ask the user first: `hearth_core::approvals`), a
//! timeout, and a cap on its output with a visible notice (docs/background.md
//! §4.2).
//!
//! File tools are confined by how files are opened (`confine`), not by
//! checking path strings. The shell cannot be confined that way: it always
//! asks, starts in the workspace, and its approval says plainly that it
//! runs with the user's own rights.
//!
//! The user's skills (`skills`) are offered through one read-only tool,
//! `load_skill`, whose files are read the same confined way.

mod confine;
mod files;
mod hooks;
mod later;
mod output;
pub mod sandbox;
mod scratchpad;
mod search;
mod shell;
pub mod skills;

use std::sync::Arc;

use hearth_core::ToolRegistry;

pub use confine::Workspace;
pub use files::{EditFile, ListDir, ReadFile, WriteFile};
pub use hooks::{
    CommandHooks, DEFAULT_HOOK_TIMEOUT_SECS, HookCommand, HookConfig, HookConfigError,
};
pub use output::{MAX_OUTPUT_CHARS, cap};
pub use scratchpad::Scratchpad;
pub use search::SearchFiles;
pub use shell::RunShell;
pub use skills::{LOAD_SKILL, Skills};

/// Add the file, shell and scratchpad tools to `registry`. `shell_launcher`
/// is the Hearth binary that runs commands sandboxed (it calls
/// [`sandbox::run_if_requested`] in `main`); with `None` commands are
/// refused unless a profile turns the sandbox off. `protected`: Hearth's own
/// data, kept read-only to commands.
pub fn register(
    registry: &mut ToolRegistry,
    shell_launcher: Option<std::path::PathBuf>,
    protected: Vec<std::path::PathBuf>,
) {
    registry
        .register(Arc::new(ReadFile))
        .register(Arc::new(ListDir))
        .register(Arc::new(SearchFiles))
        .register(Arc::new(WriteFile))
        .register(Arc::new(EditFile))
        .register(Arc::new(
            RunShell::new(shell_launcher).protecting(protected),
        ))
        .register(Arc::new(Scratchpad::default()));
}
