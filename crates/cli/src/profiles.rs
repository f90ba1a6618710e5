//! `hearth profiles`: list, show, create or edit, delete profiles; set the
//! default profile and the persona.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use hearth_core::{Profile, ProfileProvider};
use hearth_store::Profiles;

/// Arguments of `hearth profiles`.
#[derive(Debug, Args)]
pub struct ProfilesArgs {
    /// The database (default: $HEARTH_DB, else hearth.sqlite in your data folder).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    action: Option<Action>,
}

// Parsed once per process from the command line: the size of the `Set`
// variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Action {
    /// List profiles (the default).
    List,
    /// Print one profile as JSON.
    Show {
        /// Profile name.
        name: String,
    },
    /// Create a profile or change fields of one.
    Set {
        /// Profile name.
        name: String,
        /// Model.
        #[arg(long)]
        model: Option<String>,
        /// Profile prompt.
        #[arg(long)]
        prompt: Option<String>,
        /// Tools: `all`, `none`, or a comma-separated list.
        #[arg(long)]
        tools: Option<String>,
        /// Planning phase: on or off.
        #[arg(long)]
        planning: Option<Toggle>,
        /// Cap on model calls per message.
        #[arg(long)]
        max_iterations: Option<u32>,
        /// Sampling temperature (0–2).
        #[arg(long)]
        temperature: Option<f64>,
        /// Reasoning: `default` (the field is not sent: a thinking model
        /// thinks), `on`, `off`, or a level for models that take one:
        /// `low`, `medium`, `high` (gpt-oss).
        #[arg(long)]
        think: Option<String>,
        /// The host that serves the profile (`hearth hosts`); `ollama` is
        /// the default server. Sessions already started stay on theirs.
        #[arg(long)]
        host: Option<String>,
        /// Hosts tried in order when the profile's host cannot be reached
        /// before any output: a comma-separated list, or "" for none.
        #[arg(long)]
        failover: Option<String>,
        /// Folder the file tools (and run_shell) work in; "" removes it.
        #[arg(long)]
        workspace: Option<std::path::PathBuf>,
        /// Tools that run without asking: a comma-separated list, or "" for none.
        #[arg(long)]
        auto_approve: Option<String>,
        /// MCP servers whose tools the profile offers: a comma-separated
        /// list of configured names (`hearth mcp list`), or "" for none.
        #[arg(long)]
        mcp: Option<String>,
        /// Skills offered through load_skill: `all` (the default), `none`,
        /// or a comma-separated list of names (`hearth skills list`).
        #[arg(long)]
        skills: Option<String>,
        /// Facts learned from conversations: `auto` (kept at once, the
        /// default), `ask` (proposed; kept with `hearth memory add`) or
        /// `off`.
        #[arg(long)]
        memory: Option<String>,
        /// Most tokens per answer (sent as num_predict / max_tokens).
        #[arg(long)]
        max_output_tokens: Option<u32>,
        /// `hearth plan`: how many times a review that finds the work
        /// unfinished may send it back for another pass (default 2; 0: one
        /// pass, reviewed once).
        #[arg(long)]
        review_cycles: Option<u32>,
        /// run_shell's sandbox: on (the default), or off to run commands
        /// with your full rights where this machine cannot sandbox them.
        #[arg(long)]
        sandbox: Option<Toggle>,
    },
    /// Delete a profile.
    Delete {
        /// Profile name.
        name: String,
    },
    /// Make a profile the one new sessions start with.
    Default {
        /// Profile name.
        name: String,
    },
    /// Show the persona, or set it.
    Persona {
        /// New persona text ("" clears it).
        text: Option<String>,
    },
}

/// on/off.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Toggle {
    On,
    Off,
}

/// A comma-separated list of names.
fn names(list: &str) -> Vec<String> {
    list.split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `all` (`None`), `none` (empty) or a comma-separated list.
fn choice(text: &str) -> Option<Vec<String>> {
    match text {
        "all" => None,
        "none" => Some(Vec::new()),
        list => Some(names(list)),
    }
}

fn summary(p: &Profile, default: &str) -> String {
    let tools = match &p.tools {
        None => "all tools".to_owned(),
        Some(t) if t.is_empty() => "no tools".to_owned(),
        Some(t) => t.join(","),
    };
    let mark = if p.name == default { " (default)" } else { "" };
    let mut host = p
        .backend
        .clone()
        .unwrap_or_else(|| hearth_core::DEFAULT_HOST.to_owned());
    if !p.failover.is_empty() {
        host = format!("{host} (failover {})", p.failover.join(","));
    }
    format!(
        "{}{mark}  model={}  host={host}  {tools}  planning={}  max_iterations={}",
        p.name,
        p.model,
        if p.planning_enabled { "on" } else { "off" },
        p.max_iterations
    )
}

/// Run `hearth profiles`.
pub async fn run(args: ProfilesArgs) -> ExitCode {
    let result = async {
        let store = crate::db::open(args.db).await?;
        let profiles = Profiles::load(&store).await.map_err(|e| e.to_string())?;
        match args.action.unwrap_or(Action::List) {
            Action::List => {
                let default = profiles.default_name();
                for p in profiles.list() {
                    println!("{}", summary(&p, &default));
                }
            }
            Action::Show { name } => {
                let p = profiles
                    .by_name(&name)
                    .ok_or(format!("no profile named `{name}`"))?;
                println!(
                    "{}",
                    serde_json::to_string_pretty(&p).map_err(|e| e.to_string())?
                );
            }
            Action::Set {
                name,
                model,
                prompt,
                tools,
                planning,
                max_iterations,
                temperature,
                think,
                host,
                failover,
                workspace,
                auto_approve,
                mcp,
                skills,
                memory,
                max_output_tokens,
                review_cycles,
                sandbox,
            } => {
                let existing = profiles.by_name(&name);
                let created = existing.is_none();
                let mut p =
                    existing.unwrap_or_else(|| Profile::new(&name, hearth_store::SEED_MODEL));
                if let Some(m) = model {
                    p.model = m;
                }
                if let Some(t) = prompt {
                    p.system_prompt = t;
                }
                if let Some(t) = tools {
                    p.tools = choice(&t);
                }
                if let Some(t) = skills {
                    p.skills = choice(&t);
                }
                if let Some(m) = memory {
                    p.memory = match m.as_str() {
                        "auto" => hearth_protocol::MemoryMode::Auto,
                        "ask" => hearth_protocol::MemoryMode::Ask,
                        "off" => hearth_protocol::MemoryMode::Off,
                        other => {
                            return Err(format!(
                                "--memory takes auto, ask or off, not `{other}`"
                            ));
                        }
                    };
                }
                if let Some(t) = planning {
                    p.planning_enabled = matches!(t, Toggle::On);
                }
                if let Some(n) = max_iterations {
                    p.max_iterations = n;
                }
                if temperature.is_some() {
                    p.temperature = temperature;
                }
                if let Some(t) = think {
                    p.think = match t.as_str() {
                        "default" => None,
                        other => Some(hearth_core::Think::parse(other).ok_or_else(|| {
                            format!(
                                "--think takes default, on, off, low, medium or high, not `{other}`"
                            )
                        })?),
                    };
                }
                if host.is_some() || failover.is_some() {
                    let known = store.hosts().await.map_err(|e| e.to_string())?;
                    let check = |h: &str| {
                        if h == hearth_core::DEFAULT_HOST
                            || h == hearth_compose::OPENAI
                            || known.iter().any(|k| k.name == h)
                        {
                            Ok(())
                        } else {
                            Err(format!(
                                "there is no host `{h}`; add it with `hearth hosts add {h} URL`"
                            ))
                        }
                    };
                    if let Some(h) = host {
                        check(&h)?;
                        p.backend = (h != hearth_core::DEFAULT_HOST).then_some(h);
                    }
                    if let Some(list) = failover {
                        let list = names(&list);
                        list.iter().try_for_each(|h| check(h))?;
                        p.failover = list;
                    }
                }
                if let Some(w) = workspace {
                    p.workspace = if w.as_os_str().is_empty() {
                        None
                    } else {
                        // Relative folders are taken from where the command runs.
                        Some(std::path::absolute(&w).map_err(|e| e.to_string())?)
                    };
                }
                if let Some(list) = auto_approve {
                    p.auto_approve = names(&list);
                }
                if let Some(list) = mcp {
                    p.mcp_servers = names(&list);
                }
                if let Some(n) = max_output_tokens {
                    p.max_output_tokens = n.max(1);
                }
                if let Some(n) = review_cycles {
                    p.review_cycles = n;
                }
                if let Some(t) = sandbox {
                    p.sandbox_off = matches!(t, Toggle::Off);
                    if p.sandbox_off {
                        eprintln!(
                            "warning: run_shell in `{name}` now runs commands NOT sandboxed, with your full rights (each is still asked for)"
                        );
                    }
                }
                profiles.upsert(p.clone()).await.map_err(|e| e.to_string())?;
                eprintln!(
                    "{} profile `{name}`",
                    if created { "created" } else { "updated" }
                );
                println!("{}", summary(&p, &profiles.default_name()));
            }
            Action::Delete { name } => profiles.delete(&name).await.map_err(|e| e.to_string())?,
            Action::Default { name } => profiles.set_default(&name).await.map_err(|e| e.to_string())?,
            Action::Persona { text: None } => println!("{}", profiles.persona()),
            Action::Persona { text: Some(t) } => profiles.set_persona(&t).await.map_err(|e| e.to_string())?,
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
