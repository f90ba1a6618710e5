//! `hearth knowledge`: the folders Hearth searches for you (docs/knowledge.md).
//! Add a folder, sync it (its text read and split, then embedded by the
//! host's embedding model), search it, see what was left out and why.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Args, Subcommand, ValueEnum};
use hearth_knowledge::{Embedder, Folder, Index, KnowledgeError, Mode, Progress};

use crate::backend::{self, BackendKind};

/// Arguments of `hearth knowledge`.
#[derive(Debug, Args)]
pub struct KnowledgeArgs {
    /// The sessions' database; the index is `knowledge.sqlite` beside it
    /// (default: $HEARTH_DB, else hearth.sqlite in your data folder).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    /// The kind of server that embeds (for `sync` and `search`).
    #[arg(long, value_enum, default_value_t, global = true)]
    backend: BackendKind,
    /// The server's URL (default: $OLLAMA_HOST or Ollama's; for `openai`
    /// the `/v1` root, e.g. llama.cpp's `http://127.0.0.1:8080/v1`). A key,
    /// if the server needs one, from $HEARTH_API_KEY.
    #[arg(long, global = true)]
    url: Option<String>,
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// The folders and what each holds (the default).
    List {
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
    /// Add a folder (it is read at the next `sync`).
    Add {
        /// The folder.
        path: PathBuf,
        /// The project it belongs to (default: every chat's).
        #[arg(long)]
        project: Option<String>,
    },
    /// Remove a folder and its passages (your files are not touched).
    Remove {
        /// The folder.
        path: PathBuf,
    },
    /// The files of a folder that were left out, and why.
    Skipped {
        /// The folder.
        path: PathBuf,
    },
    /// Show or choose the embedding model (e.g. nomic-embed-text on
    /// Ollama). A new model embeds every passage again at the next sync.
    Model {
        /// The model to use from now on.
        name: Option<String>,
    },
    /// Read what changed in every folder, then embed what has no vector.
    /// Ctrl-C stops it; the next sync goes on where it stopped.
    Sync {
        /// Only read the text; embed later.
        #[arg(long)]
        no_embed: bool,
    },
    /// Drop every vector and embed everything again (after the server's
    /// model changed under the same name).
    Reembed,
    /// Search by words and meaning; each passage with its file and lines.
    Search {
        /// What to look for.
        query: String,
        /// How many passages.
        #[arg(long, default_value_t = 5)]
        limit: usize,
        /// Words, meaning, or both fused.
        #[arg(long, value_enum, default_value_t = SearchMode::Hybrid)]
        mode: SearchMode,
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `--mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SearchMode {
    Hybrid,
    Words,
    Meaning,
}

impl From<SearchMode> for Mode {
    fn from(m: SearchMode) -> Self {
        match m {
            SearchMode::Hybrid => Mode::Hybrid,
            SearchMode::Words => Mode::Words,
            SearchMode::Meaning => Mode::Meaning,
        }
    }
}

/// Runs `hearth knowledge`.
pub async fn run(args: KnowledgeArgs) -> ExitCode {
    match run_inner(args).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("hearth: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run_inner(args: KnowledgeArgs) -> Result<ExitCode, String> {
    let db = crate::db::path(args.db.clone())?;
    let index = Index::open(&hearth_compose::knowledge_path(&db)).map_err(|e| e.to_string())?;
    let action = args.action.unwrap_or(Action::List { json: false });
    let embedder = |index: &Index| -> Result<Option<Embedder>, String> {
        let Some(model) = index.model().map_err(|e| e.to_string())? else {
            return Ok(None);
        };
        let backends = backend::build(args.backend, args.url.as_deref(), backend::key_from_env())?;
        let server = backends.named.map_or(backends.default, |(_, b)| b);
        Ok(Some(Embedder::new(server, model)))
    };
    match action {
        Action::List { json } => {
            let folders = index.folders().map_err(|e| e.to_string())?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&folders).unwrap_or_default()
                );
            } else if folders.is_empty() {
                println!("No knowledge folders. Add one: hearth knowledge add PATH");
            } else {
                // Projects by name, where a folder belongs to one.
                let mut names = std::collections::HashMap::new();
                if folders.iter().any(|f| f.project.is_some()) {
                    let store = crate::db::open(Some(db.clone())).await?;
                    let profiles = hearth_store::Profiles::load(&store)
                        .await
                        .map_err(|e| e.to_string())?;
                    for p in profiles.project_list() {
                        names.insert(p.id, p.name);
                    }
                }
                for f in &folders {
                    println!("{}", describe(f, &names));
                }
                match index.model().map_err(|e| e.to_string())? {
                    Some(m) => println!("embedding model: {m}"),
                    None => println!(
                        "embedding model: none (search by words only; choose one: hearth knowledge model NAME)"
                    ),
                }
            }
        }
        Action::Add { path, project } => {
            let project = match project {
                Some(name) => {
                    let store = crate::db::open(Some(db.clone())).await?;
                    let profiles = hearth_store::Profiles::load(&store)
                        .await
                        .map_err(|e| e.to_string())?;
                    Some(crate::projects::find(&profiles, &name)?.id)
                }
                None => None,
            };
            let f = index
                .add_folder(&path, project.as_deref())
                .map_err(|e| e.to_string())?;
            println!(
                "Added {} (read at the next `hearth knowledge sync`)",
                f.path.display()
            );
        }
        Action::Remove { path } => {
            let f = index.remove_folder(&path).map_err(|e| e.to_string())?;
            println!("Removed {} and its {} passages", f.path.display(), f.chunks);
        }
        Action::Skipped { path } => {
            let f = index.find_folder(&path).map_err(|e| e.to_string())?;
            let files = index.skipped_files(&f, 10_000).map_err(|e| e.to_string())?;
            if files.is_empty() {
                println!("No file of {} was left out.", f.path.display());
            }
            for (file, why) in files {
                println!("{file}: {why}");
            }
        }
        Action::Model { name } => match name {
            Some(n) => {
                index.set_model(&n).map_err(|e| e.to_string())?;
                let held = index.vectors_model().map_err(|e| e.to_string())?;
                match held {
                    Some((old, _)) if old != n => println!(
                        "Embedding model: {n}. The next sync embeds every passage again (they are {old}'s now)."
                    ),
                    _ => println!("Embedding model: {n}"),
                }
            }
            None => match index.model().map_err(|e| e.to_string())? {
                Some(m) => println!("{m}"),
                None => println!("none"),
            },
        },
        Action::Sync { no_embed } => return sync(&index, embedder(&index)?, no_embed).await,
        Action::Reembed => {
            let pending = index.folders().map_err(|e| e.to_string())?;
            index.forget_vectors().map_err(|e| e.to_string())?;
            println!(
                "Dropped the vectors of {} passages; embedding them again.",
                pending.iter().map(|f| f.embedded).sum::<u64>()
            );
            return sync(&index, embedder(&index)?, false).await;
        }
        Action::Search {
            query,
            limit,
            mode,
            json,
        } => {
            let e = embedder(&index)?;
            let hits = index
                .search(e.as_ref(), &query, limit.clamp(1, 100), mode.into(), None)
                .await
                .map_err(|e| e.to_string())?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&hits).unwrap_or_default()
                );
            } else if hits.is_empty() {
                println!("Nothing found.");
            } else {
                for (i, h) in hits.iter().enumerate() {
                    let heading = h
                        .heading
                        .as_deref()
                        .map(|h| format!(" — {h}"))
                        .unwrap_or_default();
                    println!(
                        "[{}] {}:{}-{}{heading}\n{}\n",
                        i + 1,
                        h.path.display(),
                        h.start_line,
                        h.end_line,
                        h.text.trim()
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn describe(f: &Folder, projects: &std::collections::HashMap<String, String>) -> String {
    let project = f
        .project
        .as_deref()
        .map(|p| format!(" [project {}]", projects.get(p).map_or(p, String::as_str)))
        .unwrap_or_default();
    let state = match f.status {
        hearth_knowledge::FolderStatus::Ready => String::new(),
        other => format!(
            " ({}{})",
            serde_json::to_value(other)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            f.detail
                .as_deref()
                .map(|d| format!(": {d}"))
                .unwrap_or_default()
        ),
    };
    format!(
        "{}{project}: {} files, {} read, {} left out; {} passages, {} embedded{state}",
        f.path.display(),
        f.files,
        f.indexed,
        f.skipped,
        f.chunks,
        f.embedded
    )
}

/// The text pass, then the embedding pass; Ctrl-C stops either (exit 130).
async fn sync(
    index: &Index,
    embedder: Option<Embedder>,
    no_embed: bool,
) -> Result<ExitCode, String> {
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let stop = stop.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                stop.store(true, Ordering::SeqCst);
            }
        })
    };
    let progress: Arc<dyn Fn(&Progress) + Send + Sync> = Arc::new(|p: &Progress| {
        if p.seen.is_multiple_of(500) {
            eprintln!("{}: {} files, {} read", p.folder.display(), p.seen, p.read);
        }
    });
    let report = index
        .sync(None, stop.clone(), progress)
        .await
        .map_err(|e| e.to_string())?;
    println!(
        "Read {} changed files ({} passages), {} unchanged, {} left out, {} gone{}",
        report.indexed,
        report.chunks,
        report.unchanged,
        report.skipped,
        report.removed,
        if report.missing > 0 {
            format!("; {} folders not there (kept)", report.missing)
        } else {
            String::new()
        }
    );
    if report.stopped {
        watcher.abort();
        println!("Stopped; the next sync goes on from here.");
        return Ok(ExitCode::from(130));
    }
    if no_embed {
        watcher.abort();
        return Ok(ExitCode::SUCCESS);
    }
    let Some(embedder) = embedder else {
        watcher.abort();
        println!("{}", KnowledgeError::NoModel);
        return Ok(ExitCode::SUCCESS);
    };
    let pending = index.unembedded().map_err(|e| e.to_string())?;
    if pending > 0 {
        eprintln!("embedding {pending} passages with {}", embedder.model());
    }
    let embed = index
        .embed_pending(&embedder, &stop, &|done, total| {
            if done.is_multiple_of(512) || done == total {
                eprintln!("embedded {done} of {total}");
            }
        })
        .await;
    watcher.abort();
    let embed = embed.map_err(|e| format!("{e}; search by words still works"))?;
    if let Some(old) = &embed.replaced_model {
        println!(
            "The vectors of {old} were replaced by {}'s ({} numbers each).",
            embedder.model(),
            embed.dims
        );
    }
    println!("Embedded {} passages", embed.embedded);
    if stop.load(Ordering::SeqCst) {
        println!("Stopped; {} passages wait for a vector.", embed.left);
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
