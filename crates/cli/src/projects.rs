//! `hearth projects`: group sessions into projects, each with what its
//! sessions share — a workspace folder, a default profile and model,
//! instructions, knowledge folders (docs/projects.md). Presentation only:
//! the store's `Profiles` does the work.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use hearth_knowledge::Index;
use hearth_store::{Profiles, Project, ProjectDraft, Store};

/// Arguments of `hearth projects`.
#[derive(Debug, Args)]
pub struct ProjectsArgs {
    /// The database (default: $HEARTH_DB, else hearth.sqlite in your data folder).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    action: Option<Action>,
}

/// A project's settings on the command line; on `set`, a field not given
/// stays, and an empty one (`--model ""`) is cleared.
#[derive(Debug, Args)]
struct Fields {
    /// The folder its sessions' file tools and commands work in (a full
    /// path), instead of their profile's.
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// The profile its sessions use unless they choose one.
    #[arg(long)]
    profile: Option<String>,
    /// The model its sessions use unless they choose one.
    #[arg(long)]
    model: Option<String>,
    /// Said to the model in every session of the project.
    #[arg(long, conflicts_with = "instructions_file")]
    instructions: Option<String>,
    /// The instructions, from a file.
    #[arg(long, value_name = "FILE")]
    instructions_file: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// List projects with how many sessions each holds (the default).
    List,
    /// A project's settings, sessions and knowledge folders.
    Show {
        /// Its name (any case) or id.
        name: String,
    },
    /// Make a project.
    Create {
        /// Its name.
        name: String,
        #[command(flatten)]
        fields: Fields,
    },
    /// Change a project.
    Set {
        /// Its name (any case) or id.
        name: String,
        /// A new name.
        #[arg(long)]
        rename: Option<String>,
        #[command(flatten)]
        fields: Fields,
    },
    /// Delete a project. Its sessions stay, outside any project; its
    /// knowledge folders are no longer searched (the files stay).
    Delete {
        /// Its name (any case) or id.
        name: String,
    },
    /// Put a session in a project, or with --none in none.
    Move {
        /// Session id.
        session: String,
        /// The project's name (any case) or id.
        #[arg(required_unless_present = "none")]
        project: Option<String>,
        /// Take the session out of its project.
        #[arg(long, conflicts_with = "project")]
        none: bool,
    },
    /// Write a project (its settings and every session in it) as Markdown,
    /// or as JSON that `hearth sessions import` reads back.
    Export {
        /// Its name (any case) or id.
        name: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Md)]
        format: Format,
        /// Write to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// What `export` writes.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// Markdown, for reading.
    Md,
    /// JSON (`hearth.project`, version 1), for programs.
    Json,
}

/// Run `hearth projects`.
pub async fn run(args: ProjectsArgs) -> ExitCode {
    match run_inner(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hearth: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The project a person named, or an error that lists the projects.
pub(crate) fn find(profiles: &Profiles, name: &str) -> Result<Project, String> {
    profiles.find_project(name).ok_or_else(|| {
        let names: Vec<String> = profiles
            .project_list()
            .into_iter()
            .map(|p| p.name)
            .collect();
        if names.is_empty() {
            format!(
                "there is no project `{name}` (there are none yet: hearth projects create NAME)"
            )
        } else {
            format!(
                "there is no project `{name}` (projects: {})",
                names.join(", ")
            )
        }
    })
}

fn instructions(fields: &Fields) -> Result<Option<String>, String> {
    match (&fields.instructions, &fields.instructions_file) {
        (Some(t), _) => Ok(Some(t.clone())),
        (None, Some(f)) => std::fs::read_to_string(f)
            .map(Some)
            .map_err(|e| format!("cannot read {}: {e}", f.display())),
        (None, None) => Ok(None),
    }
}

async fn run_inner(args: ProjectsArgs) -> Result<(), String> {
    let db = crate::db::path(args.db.clone())?;
    let store = crate::db::open(args.db).await?;
    let profiles = Profiles::load(&store).await.map_err(|e| e.to_string())?;
    match args.action.unwrap_or(Action::List) {
        Action::List => {
            let list = store.projects().await.map_err(|e| e.to_string())?;
            if list.is_empty() {
                println!("No projects. Make one: hearth projects create NAME");
            }
            for s in list {
                println!(
                    "{}  {:>4} session{}  {}",
                    s.project.id,
                    s.sessions,
                    if s.sessions == 1 { " " } else { "s" },
                    s.project.name
                );
            }
        }
        Action::Show { name } => {
            let p = find(&profiles, &name)?;
            show(&store, &db, &p).await?;
        }
        Action::Create { name, fields } => {
            let draft = ProjectDraft {
                name,
                workspace: fields.workspace.clone(),
                profile: fields.profile.clone(),
                model: fields.model.clone(),
                instructions: instructions(&fields)?.unwrap_or_default(),
            };
            let p = profiles
                .create_project(draft)
                .await
                .map_err(|e| e.to_string())?;
            println!("Made project {} ({})", p.name, p.id);
        }
        Action::Set {
            name,
            rename,
            fields,
        } => {
            let p = find(&profiles, &name)?;
            let keep = |new: Option<String>, old: Option<String>| match new {
                Some(n) if n.trim().is_empty() => None,
                Some(n) => Some(n),
                None => old,
            };
            let draft = ProjectDraft {
                name: rename.unwrap_or(p.name.clone()),
                workspace: match fields.workspace.clone() {
                    Some(w) if w.as_os_str().is_empty() => None,
                    Some(w) => Some(w),
                    None => p.workspace.clone(),
                },
                profile: keep(fields.profile.clone(), p.profile.clone()),
                model: keep(fields.model.clone(), p.model.clone()),
                instructions: instructions(&fields)?.unwrap_or(p.instructions.clone()),
            };
            let p = profiles
                .update_project(&p.id, draft)
                .await
                .map_err(|e| e.to_string())?;
            println!("Changed project {}", p.name);
        }
        Action::Delete { name } => {
            let p = find(&profiles, &name)?;
            let forgotten = forget_folders(&db, &p.id)?;
            let moved = profiles
                .delete_project(&p.id)
                .await
                .map_err(|e| e.to_string())?;
            println!(
                "Deleted project {}: {moved} session{} kept outside any project{}",
                p.name,
                if moved == 1 { "" } else { "s" },
                match forgotten {
                    0 => String::new(),
                    n => format!(
                        "; {n} knowledge folder{} no longer searched (the files stay)",
                        if n == 1 { "" } else { "s" }
                    ),
                }
            );
        }
        Action::Move {
            session,
            project,
            none: _,
        } => {
            let target = match project {
                Some(name) => Some(find(&profiles, &name)?),
                None => None,
            };
            if !store
                .sessions()
                .await
                .map_err(|e| e.to_string())?
                .iter()
                .any(|s| s.id == session)
            {
                return Err(format!(
                    "there is no session `{session}` (hearth sessions list)"
                ));
            }
            profiles
                .move_session(&session, target.as_ref().map(|p| p.id.as_str()))
                .await
                .map_err(|e| e.to_string())?;
            match target {
                Some(p) => println!("Moved {session} to {}", p.name),
                None => println!("Moved {session} out of its project"),
            }
        }
        Action::Export { name, format, out } => {
            let p = find(&profiles, &name)?;
            let knowledge: Vec<PathBuf> = Index::open(&hearth_compose::knowledge_path(&db))
                .and_then(|index| index.folders())
                .map_err(|e| e.to_string())?
                .into_iter()
                .filter(|f| f.project.as_deref() == Some(p.id.as_str()))
                .map(|f| f.path)
                .collect();
            let text = match format {
                Format::Md => store
                    .export_project_markdown(&p.id, &knowledge)
                    .await
                    .map_err(|e| e.to_string())?,
                Format::Json => {
                    let v = store
                        .export_project_json(&p.id, &knowledge)
                        .await
                        .map_err(|e| e.to_string())?;
                    let mut t = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
                    t.push('\n');
                    t
                }
            };
            crate::sessions::write(out.as_ref(), &text)?;
            if let Some(path) = out {
                eprintln!("exported project {} to {}", p.name, path.display());
            }
        }
    }
    Ok(())
}

async fn show(store: &Store, db: &std::path::Path, p: &Project) -> Result<(), String> {
    println!("{} ({})", p.name, p.id);
    let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| "(the session's own)".into());
    println!(
        "  workspace: {}",
        p.workspace
            .as_ref()
            .map_or("(the profile's)".into(), |w| w.display().to_string())
    );
    println!("  profile: {}", or_none(&p.profile));
    println!("  model: {}", or_none(&p.model));
    if p.instructions.is_empty() {
        println!("  instructions: (none)");
    } else {
        println!("  instructions:");
        for line in p.instructions.lines() {
            println!("    {line}");
        }
    }
    let index = Index::open(&hearth_compose::knowledge_path(db)).map_err(|e| e.to_string())?;
    let folders: Vec<_> = index
        .folders()
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|f| f.project.as_deref() == Some(p.id.as_str()))
        .collect();
    if folders.is_empty() {
        println!(
            "  knowledge folders: (none of its own; add one with hearth knowledge add PATH --project \"{}\")",
            p.name
        );
    }
    for f in folders {
        println!("  knowledge folder: {}", f.path.display());
    }
    let sessions: Vec<_> = store
        .sessions()
        .await
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|s| s.project.as_deref() == Some(p.id.as_str()))
        .collect();
    println!("  sessions: {}", sessions.len());
    for s in sessions {
        let title = if s.title.is_empty() {
            s.opening.as_str()
        } else {
            s.title.as_str()
        };
        println!("    {}  {:>5} msgs  {title}", s.id, s.messages);
    }
    Ok(())
}

/// Removes project `id`'s knowledge folders from the index (the files
/// stay); how many.
fn forget_folders(db: &std::path::Path, id: &str) -> Result<usize, String> {
    let path = hearth_compose::knowledge_path(db);
    if !path.exists() {
        return Ok(0);
    }
    let index = Index::open(&path).map_err(|e| e.to_string())?;
    let mut n = 0;
    for f in index.folders().map_err(|e| e.to_string())? {
        if f.project.as_deref() == Some(id) {
            index.remove_folder(&f.path).map_err(|e| e.to_string())?;
            n += 1;
        }
    }
    Ok(n)
}
