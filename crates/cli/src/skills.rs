//! `hearth skills`: the user's skills (folders with a `SKILL.md`), listed
//! with what keeps a folder from being offered, one shown as the model
//! gets it, and the folder they live in (docs/extending.md).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

/// Arguments of `hearth skills`.
#[derive(Debug, Args)]
pub struct SkillsArgs {
    /// The database; skills live in `skills` beside it unless
    /// $HEARTH_SKILLS_DIR names another folder (default: $HEARTH_DB, else
    /// hearth.sqlite in your data folder).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Each skill with its description, then each folder that is not a
    /// usable skill and why (the default).
    List,
    /// What the model gets when it loads a skill.
    Show {
        /// The skill's name.
        name: String,
    },
    /// Print the skills folder (a skill is a sub-folder with a SKILL.md).
    Path,
}

/// Run `hearth skills`.
pub async fn run(args: SkillsArgs) -> ExitCode {
    let result = async {
        let store = crate::db::open(args.db).await?;
        let folder = hearth_compose::skills_folder(&store);
        let profiles = hearth_store::Profiles::load(&store)
            .await
            .map_err(|e| e.to_string())?;
        let catalog = hearth_tools::skills::scan(&folder, &hearth_compose::workspaces(&profiles));
        match args.action.unwrap_or(Action::List) {
            Action::Path => println!("{}", folder.display()),
            Action::List => {
                if catalog.skills.is_empty() && catalog.problems.is_empty() {
                    eprintln!(
                        "no skills in {} (add a folder with a SKILL.md there)",
                        folder.display()
                    );
                }
                for skill in catalog.skills.values() {
                    println!("{}  {}", skill.name, skill.description);
                }
                for problem in &catalog.problems {
                    println!(
                        "[not offered] {}: {}",
                        problem.path.display(),
                        problem.reason
                    );
                }
            }
            Action::Show { name } => {
                let skill = catalog.skills.get(&name).ok_or_else(|| {
                    match catalog.problems.iter().find(|p| p.path.ends_with(&name)) {
                        Some(p) => format!("the skill `{name}` cannot be used: {}", p.reason),
                        None => format!("no skill named `{name}` in {}", folder.display()),
                    }
                })?;
                println!("{}", hearth_tools::skills::loaded(skill));
            }
        }
        Ok::<(), String>(())
    };
    match result.await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hearth: {e}");
            ExitCode::FAILURE
        }
    }
}
