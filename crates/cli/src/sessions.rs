//! `hearth sessions`: list, show, rename, delete and restore sessions;
//! search them and export one. Presentation only: the store does the work.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use hearth_core::{MessageStatus, Role, SessionStore};
use hearth_store::{MATCH_END, MATCH_START, SearchHit, Store};

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
    List {
        /// Only the sessions of this project (`hearth projects`).
        #[arg(long, value_name = "NAME")]
        project: Option<String>,
    },
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
    /// Find messages containing every word (also as a prefix; accents
    /// ignored), newest first, in every branch of every session not deleted.
    Search {
        /// Words to find; quotes and search operators are plain text.
        #[arg(required = true)]
        query: Vec<String>,
        /// At most this many results.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Only in the sessions of this project (`hearth projects`).
        #[arg(long, value_name = "NAME")]
        project: Option<String>,
    },
    /// Write a session as Markdown (its current branch) or JSON (every
    /// branch, the current one marked).
    Export {
        /// Session id.
        id: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Md)]
        format: Format,
        /// Write to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Import conversations: ChatGPT's conversations.json, an Open WebUI
    /// chat export, or a Hearth JSON export of a session or a project. Each
    /// becomes a new session; a project's come in a project of its name.
    Import {
        /// The export file.
        file: PathBuf,
    },
}

/// What `export` writes.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// Markdown, for reading.
    Md,
    /// JSON (`hearth.session`, version 1), for programs.
    Json,
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
    let profiles = match hearth_store::Profiles::load(&store).await {
        Ok(p) => p,
        Err(e) => {
            eprintln!("hearth: {e}");
            return ExitCode::FAILURE;
        }
    };
    // `--project NAME`: the project's id, or the error that names them.
    let project = |name: Option<String>| -> Result<Option<String>, String> {
        name.map(|n| crate::projects::find(&profiles, &n).map(|p| p.id))
            .transpose()
    };
    let result = match args.action.unwrap_or(Action::List { project: None }) {
        Action::List { project: name } => {
            let only = match project(name) {
                Ok(p) => p,
                Err(e) => return report(Err(e)),
            };
            store.sessions().await.map(|list| {
                let list: Vec<_> = list
                    .into_iter()
                    .filter(|s| only.is_none() || s.project == only)
                    .collect();
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
            })
        }
        Action::Show { id } => match store.history(&id).await {
            Ok(h) => {
                for m in h {
                    let who = who(m.role);
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
        Action::Search {
            query,
            limit,
            project: name,
        } => {
            let only = match project(name) {
                Ok(p) => p,
                Err(e) => return report(Err(e)),
            };
            return report(search(&store, &query.join(" "), limit, only.as_deref()).await);
        }
        Action::Export { id, format, out } => {
            return report(export(&store, &id, format, out).await);
        }
        Action::Import { file } => return report(import(&store, &profiles, &file).await),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hearth: {e}");
            ExitCode::FAILURE
        }
    }
}

fn report(r: Result<(), String>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hearth: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Print the hits, two lines each: where, then the extract with the matched
/// words in bold (on a terminal) or between `**` (in a pipe).
async fn search(
    store: &Store,
    query: &str,
    limit: usize,
    project: Option<&str>,
) -> Result<(), String> {
    let hits = store
        .search_in(query, limit, project)
        .await
        .map_err(|e| e.to_string())?;
    let (bold, plain) = if std::io::stdout().is_terminal() {
        ("\x1b[1m", "\x1b[0m")
    } else {
        ("**", "**")
    };
    let mut text = String::new();
    if hits.is_empty() {
        text.push_str("(no matches)\n");
    }
    for SearchHit {
        session_id,
        session_title,
        message_id,
        role,
        snippet,
    } in hits
    {
        let title = if session_title.is_empty() {
            "(untitled)"
        } else {
            &session_title
        };
        let snippet = snippet
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace(MATCH_START, bold)
            .replace(MATCH_END, plain);
        text.push_str(&format!(
            "{session_id}  #{message_id}  {}  {title}\n    {snippet}\n",
            who(role)
        ));
    }
    write(None, &text)
}

/// Import `file`; print each new session, then what was imported.
async fn import(
    store: &Store,
    profiles: &hearth_store::Profiles,
    file: &std::path::Path,
) -> Result<(), String> {
    let text = tokio::fs::read_to_string(file)
        .await
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let r = store.import(&text).await.map_err(|e| e.to_string())?;
    if let Some((project, note)) = profiles
        .adopt_import(&r)
        .await
        .map_err(|e| format!("the sessions were imported, but not their project: {e}"))?
    {
        eprintln!("in project {} ({})", project.name, project.id);
        if let Some(note) = note {
            eprintln!("note: {note}");
        }
    }
    for id in &r.sessions {
        println!("{id}");
    }
    let left = if r.skipped > 0 {
        format!(
            "; {} left out (system prompts, tool messages, pictures)",
            r.skipped
        )
    } else {
        String::new()
    };
    eprintln!(
        "imported {} conversation(s) from {} with {} message(s){left}",
        r.sessions.len(),
        r.source.name(),
        r.messages
    );
    Ok(())
}

/// Export to `out`, or to standard output.
async fn export(
    store: &Store,
    id: &str,
    format: Format,
    out: Option<PathBuf>,
) -> Result<(), String> {
    let text = match format {
        Format::Md => store.export_markdown(id).await,
        Format::Json => store.export_json(id).await.map(|j| format!("{j:#}\n")),
    }
    .map_err(|e| e.to_string())?;
    write(out.as_ref(), &text)?;
    if let Some(path) = out {
        eprintln!("exported session {id} to {}", path.display());
    }
    Ok(())
}

pub(crate) fn write(path: Option<&PathBuf>, text: &str) -> Result<(), String> {
    match path {
        Some(p) => {
            std::fs::write(p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
        }
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write to standard output: {e}")),
    }
}

/// How `show` and `search` name an author.
fn who(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "you",
        Role::Assistant => "model",
        Role::Tool => "tool",
    }
}
