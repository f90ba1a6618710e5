//! `hearth hooks`: the commands Hearth asks before and after each tool
//! call and before each model call (docs/extending.md has the JSON they
//! read and write). Set from a file, shown, or cleared.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

/// Arguments of `hearth hooks`.
#[derive(Debug, Args)]
pub struct HooksArgs {
    /// The database (default: $HEARTH_DB, else hearth.sqlite in your data folder).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Print the hook configuration (the default).
    Show,
    /// Replace the hook configuration with a JSON file's (`-`: standard input).
    Set {
        /// The file.
        file: PathBuf,
    },
    /// Remove every hook.
    Clear,
}

/// Run `hearth hooks`.
pub async fn run(args: HooksArgs) -> ExitCode {
    let result = async {
        let store = crate::db::open(args.db).await?;
        match args.action.unwrap_or(Action::Show) {
            Action::Show => {
                let json = store.hooks_json().await.map_err(|e| e.to_string())?;
                let json = json.unwrap_or_else(|| "{}".into());
                println!("{json}");
                if let Ok(config) = hearth_tools::HookConfig::parse(&json) {
                    warn(&store, &config).await;
                }
                Ok(())
            }
            Action::Set { file } => set(&store, &file).await,
            Action::Clear => {
                store
                    .set_hooks_json("{}")
                    .await
                    .map_err(|e| e.to_string())?;
                eprintln!("hooks cleared");
                Ok(())
            }
        }
    };
    match result.await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hearth: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn set(store: &hearth_store::Store, file: &std::path::Path) -> Result<(), String> {
    let text = if file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
            .map_err(|e| format!("reading standard input: {e}"))?
    } else {
        std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?
    };
    let config = hearth_tools::HookConfig::parse(&text).map_err(|e| e.to_string())?;
    let json = serde_json::to_string_pretty(&config).map_err(|e| e.to_string())?;
    store
        .set_hooks_json(&json)
        .await
        .map_err(|e| e.to_string())?;
    eprintln!(
        "hooks saved: {} before tool calls, {} after, {} before model calls",
        config.before_tool_call.len(),
        config.after_tool_call.len(),
        config.before_model_call.len()
    );
    warn(store, &config).await;
    Ok(())
}

/// Each hook a model could rewrite, on stderr.
async fn warn(store: &hearth_store::Store, config: &hearth_tools::HookConfig) {
    for w in hearth_compose::hook_warnings(store, config).await {
        eprintln!("warning: {w}");
    }
}
