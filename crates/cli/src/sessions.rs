//! `hearth sessions`: list, show, rename, delete and restore sessions.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use hearth_core::{MessageStatus, Role, SessionStore};

/// Arguments of `hearth sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    /// The database (default: $HEARTH_DB, else hearth.sqlite in your data folder).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// List sessions, newest first (the default).
    List,
    /// Print a session's current branch.
    Show {
        /// Session id.
        id: String,
    },
    /// Give a session a title.
    Rename {
        /// Session id.
        id: String,
        /// New title.
        title: String,
    },
    /// Delete a session (undo with `restore`).
    Delete {
        /// Session id.
        id: String,
    },
    /// Undo a delete.
    Restore {
        /// Session id.
        id: String,
    },
}

/// Run `hearth sessions`.
pub async fn run(args: SessionsArgs) -> ExitCode {
    let store = match crate::db::open(args.db).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("hearth: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = match args.action.unwrap_or(Action::List) {
        Action::List => store.sessions().await.map(|list| {
            if list.is_empty() {
                println!("(no sessions)");
            }
            for s in list {
                let title = if s.title.is_empty() {
                    "(untitled)"
                } else {
                    &s.title
                };
                println!("{}  {:>5} msgs  {title}", s.id, s.messages);
            }
        }),
        Action::Show { id } => match store.history(&id).await {
            Ok(h) => {
                for m in h {
                    let who = match m.role {
                        Role::System => "system",
                        Role::User => "you",
                        Role::Assistant => "model",
                        Role::Tool => "tool",
                    };
                    let flag = match m.status {
                        MessageStatus::Complete => "",
                        MessageStatus::Interrupted => " [interrupted]",
                        MessageStatus::Error => " [error]",
                    };
                    println!("{who}{flag}: {}", m.content);
                    for c in &m.tool_calls {
                        println!("  → {} {}", c.name, c.arguments);
                    }
                }
                Ok(())
            }
            Err(e) => {
                eprintln!("hearth: {e}");
                return ExitCode::FAILURE;
            }
        },
        Action::Rename { id, title } => store.rename(&id, &title).await,
        Action::Delete { id } => store
            .delete(&id)
            .await
            .map(|()| eprintln!("deleted; undo with `hearth sessions restore {id}`")),
        Action::Restore { id } => store.restore(&id).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hearth: {e}");
            ExitCode::FAILURE
        }
    }
}
