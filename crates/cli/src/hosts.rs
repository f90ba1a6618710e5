//! `hearth hosts`: the model servers a profile or a session can name
//! besides the default Ollama — more Ollama machines, and OpenAI-compatible
//! servers (llama.cpp, LM Studio, vLLM, LocalAI). `hearth chat --host NAME`
//! moves a session to one; a profile names one with `--host` and lists
//! failover hosts with `--failover`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use hearth_store::{Host, HostKind, Profiles};

/// Arguments of `hearth hosts`.
#[derive(Debug, Args)]
pub struct HostsArgs {
    /// The database (default: $HEARTH_DB, else hearth.sqlite in your data folder).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    action: Option<Action>,
}

/// The API a host speaks.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Kind {
    /// Ollama's own API.
    Ollama,
    /// An OpenAI-compatible `/v1` (llama.cpp, LM Studio, vLLM, LocalAI).
    Openai,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Each host with its URL, whether it answers, its version and how
    /// many models it serves (the default).
    List,
    /// Add a host, or change the URL or kind of one.
    Add {
        /// What profiles and sessions call it (letters, digits, - _ .).
        name: String,
        /// Its base URL (e.g. http://gpu2:11434, http://box:8080/v1).
        url: String,
        /// The API it speaks.
        #[arg(long, value_enum, default_value = "ollama")]
        kind: Kind,
        /// Read the server's API key from the first line of stdin (never an
        /// argument, which other users can see): it is kept in the desktop's
        /// secret store, never in the database. Without it, a host keeps
        /// the key it has.
        #[arg(long)]
        api_key_stdin: bool,
    },
    /// Forget a host and its key; sessions on it go back to the default
    /// server.
    Remove {
        /// The host's name.
        name: String,
    },
}

/// Run `hearth hosts`.
pub async fn run(args: HostsArgs) -> ExitCode {
    let result = async {
        let store = crate::db::open(args.db).await?;
        match args.action.unwrap_or(Action::List) {
            Action::List => {
                let default = hearth_store::Host {
                    name: hearth_core::DEFAULT_HOST.to_owned(),
                    kind: HostKind::Ollama,
                    url: hearth_ollama::resolve_base_url(None),
                    keyed: false,
                };
                let mut hosts = vec![default];
                hosts.extend(store.hosts().await.map_err(|e| e.to_string())?);
                let checks = hosts.iter().map(hearth_compose::hosts::health);
                for (h, health) in hosts.iter().zip(futures::future::join_all(checks).await) {
                    let state = match &health.error {
                        Some(e) => format!("unreachable: {e}"),
                        None => format!(
                            "up{}, {} model(s)",
                            health
                                .version
                                .map(|v| format!(" (version {v})"))
                                .unwrap_or_default(),
                            health.models.len()
                        ),
                    };
                    let key = if h.keyed { "  (API key in the secret store)" } else { "" };
                    println!("{}  {}  {}  {state}{key}", h.name, h.kind.as_str(), h.url);
                }
            }
            Action::Add {
                name,
                url,
                kind,
                api_key_stdin,
            } => {
                let kind = match kind {
                    Kind::Ollama => HostKind::Ollama,
                    Kind::Openai => HostKind::Openai,
                };
                let key = if api_key_stdin {
                    Some(read_key(&name).await?)
                } else {
                    None
                };
                let host = Host {
                    name,
                    kind,
                    url,
                    keyed: false,
                };
                let (host, _) = hearth_compose::hosts::save(&store, host, key)
                    .await
                    .map_err(|e| e.to_string())?;
                let health = hearth_compose::hosts::health(&host).await;
                match health.error {
                    None => eprintln!(
                        "added `{}`: it answers, {} model(s)",
                        host.name,
                        health.models.len()
                    ),
                    Some(e) => eprintln!("added `{}`, but it does not answer now: {e}", host.name),
                }
            }
            Action::Remove { name } => {
                let profiles = Profiles::load(&store).await.map_err(|e| e.to_string())?;
                let removed = hearth_compose::hosts::remove(&store, &profiles, &name)
                    .await
                    .map_err(|e| e.to_string())?;
                if !removed {
                    return Err(format!("there is no host `{name}`"));
                }
                let users: Vec<String> = profiles
                    .names_using_host(&name);
                if !users.is_empty() {
                    eprintln!(
                        "removed `{name}`; the profiles {} still name it and will say so when they run",
                        users.join(", ")
                    );
                }
            }
        }
        Ok::<_, String>(())
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

/// The key on the first line of stdin (typed at a terminal, not shown).
async fn read_key(host: &str) -> Result<hearth_openai::ApiKey, String> {
    let line = crate::hidden::read_line(&format!("API key for `{host}` (not shown): "))
        .await
        .map_err(|e| format!("could not read the API key from stdin: {e}"))?;
    hearth_openai::ApiKey::new(line)
        .ok_or_else(|| "--api-key-stdin: the first line of stdin is empty".to_owned())
}
