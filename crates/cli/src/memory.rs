//! `hearth memory`: read, add, edit and delete what Hearth remembers about
//! you and the compaction summaries of long sessions, and see where each
//! came from.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

/// Arguments of `hearth memory`.
#[derive(Debug, Args)]
pub struct MemoryArgs {
    /// The database (default: $HEARTH_DB, else hearth.sqlite in your data folder).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// List memories with their source (the default).
    List {
        /// Include deleted memories.
        #[arg(long)]
        all: bool,
    },
    /// One memory with its earlier versions.
    Show {
        /// Memory id.
        id: i64,
    },
    /// Add a memory.
    Add {
        /// The fact.
        text: String,
    },
    /// Decline a fact memory proposed: it is never proposed or learned again.
    Decline {
        /// The fact, as proposed.
        text: String,
    },
    /// Rewrite a memory (the old text is kept and never learned again).
    Edit {
        /// Memory id.
        id: i64,
        /// New text.
        text: String,
    },
    /// Delete a memory (it is never learned again).
    Delete {
        /// Memory id.
        id: i64,
    },
    /// The summary new sessions start with.
    Summary,
    /// Compaction summaries of long sessions, with where they came from.
    Summaries {
        /// Only this session's.
        #[arg(long)]
        session: Option<String>,
        /// Include replaced and deleted ones.
        #[arg(long)]
        all: bool,
    },
    /// Rewrite a compaction summary (the old one is kept).
    EditSummary {
        /// Summary id.
        id: i64,
        /// New text.
        text: String,
    },
    /// Delete a compaction summary (the session is sent in full again).
    DeleteSummary {
        /// Summary id.
        id: i64,
    },
}

fn provenance(source: &str, session: Option<&str>) -> String {
    match (source, session) {
        ("user", _) => "written by you".to_owned(),
        (s, Some(sess)) => format!("learned by {s} in {sess}"),
        (s, None) => format!("learned by {s}"),
    }
}

/// Run `hearth memory`.
pub async fn run(args: MemoryArgs) -> ExitCode {
    let result = async {
        let store = crate::db::open(args.db).await?;
        let e = |e: hearth_store::StoreError| e.to_string();
        match args.action.unwrap_or(Action::List { all: false }) {
            Action::List { all } => {
                let list = store.memories(all).await.map_err(e)?;
                if list.is_empty() {
                    println!("(nothing remembered)");
                }
                for m in list {
                    let deleted = if m.deleted_at.is_some() {
                        " [deleted]"
                    } else {
                        ""
                    };
                    let category = m
                        .category
                        .as_deref()
                        .map(|c| format!("{c}, "))
                        .unwrap_or_default();
                    println!(
                        "#{}  {}{deleted}  ({category}{}, given to {} session{})",
                        m.id,
                        m.content,
                        provenance(&m.source, m.session_id.as_deref()),
                        m.uses,
                        if m.uses == 1 { "" } else { "s" }
                    );
                }
            }
            Action::Show { id } => {
                let (m, versions) = store.memory(id).await.map_err(e)?;
                println!("#{} v{}: {}", m.id, m.version, m.content);
                println!("  {}", provenance(&m.source, m.session_id.as_deref()));
                if let Some(run) = &m.run_id {
                    println!("  run {run}");
                }
                if let Some(c) = &m.category {
                    println!("  category: {c}");
                }
                if let Some(q) = &m.quote {
                    println!("  the user's words: \"{q}\"");
                }
                println!("  given to {} session(s)", m.uses);
                for v in versions {
                    println!("  v{} ({}): {}", v.version, v.source, v.content);
                }
            }
            Action::Add { text } => {
                let id = store.add_memory(&text).await.map_err(e)?;
                println!("#{id}");
            }
            Action::Decline { text } => {
                if text.trim().is_empty() {
                    return Err("no fact given".to_owned());
                }
                store.decline_memory(&text).await.map_err(e)?;
                println!("declined: it will not be proposed again");
            }
            Action::Edit { id, text } => store.edit_memory(id, &text).await.map_err(e)?,
            Action::Delete { id } => store.delete_memory(id).await.map_err(e)?,
            Action::Summary => println!("{}", store.memory_summary().await.map_err(e)?),
            Action::Summaries { session, all } => {
                let list = store.summaries(session.as_deref(), all).await.map_err(e)?;
                if list.is_empty() {
                    println!("(no summaries)");
                }
                for s in list {
                    let state = match (s.deleted_at, s.replaced_by) {
                        (Some(_), _) => " [deleted]".to_owned(),
                        (None, Some(by)) => format!(" [replaced by #{by}]"),
                        (None, None) => String::new(),
                    };
                    let when = chrono::DateTime::from_timestamp_millis(s.created_at)
                        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
                        .unwrap_or_default();
                    println!(
                        "#{}{state}  session {} up to message {}, by {} ({}), {when}",
                        s.id, s.session_id, s.upto_message_id, s.model, s.source
                    );
                    println!("    {}", s.content.replace('\n', "\n    "));
                }
            }
            Action::EditSummary { id, text } => {
                let new = store.edit_summary(id, &text).await.map_err(e)?;
                println!("#{new} replaces #{id}");
            }
            Action::DeleteSummary { id } => store.delete_summary(id).await.map_err(e)?,
        }
        Ok::<(), String>(())
    }
    .await;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hearth: {e}");
            ExitCode::FAILURE
        }
    }
}
