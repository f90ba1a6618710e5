//! `hearth mcp`: the MCP servers Hearth can use, in the `mcpServers` shape
//! other apps use (import one as it is), and a check that starts a server
//! and lists its tools or says why it cannot start. A profile offers a
//! server's tools once it names the server (`hearth profiles set NAME
//! --mcp SERVER,…`).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use hearth_core::{Tool, ToolSource};
use hearth_mcp::{ServerConfig, Status};
use hearth_store::Store;

/// Arguments of `hearth mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The database (default: $HEARTH_DB, else hearth.sqlite in your data folder).
    #[arg(long, global = true)]
    db: Option<PathBuf>,
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// List the configured servers (the default).
    List,
    /// Add or replace a server: `hearth mcp add NAME -- COMMAND ARGS…` or
    /// `hearth mcp add NAME --url URL`.
    Add {
        /// Its name (letters, digits, '-', '_'; it prefixes its tools).
        name: String,
        /// Its streamable HTTP endpoint, instead of a command.
        #[arg(long)]
        url: Option<String>,
        /// An HTTP header, `Name: value` (repeatable).
        #[arg(long = "header")]
        headers: Vec<String>,
        /// An environment variable for the command, `NAME=value` (repeatable).
        #[arg(long = "env")]
        env: Vec<String>,
        /// The command and its arguments (after `--`).
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Add the servers of an `mcpServers` JSON file (`-`: standard input);
    /// a server of the same name is replaced.
    Import {
        /// The file.
        file: PathBuf,
    },
    /// Print the configuration as `mcpServers` JSON, with environment and
    /// header values hidden (imported back, the hidden ones keep their
    /// saved values).
    Export {
        /// Print the values too (tokens included).
        #[arg(long)]
        with_secrets: bool,
    },
    /// Remove a server.
    Remove {
        /// Its name.
        name: String,
    },
    /// Start a server, list its tools, and stop it; on failure say why
    /// (with its last output) and exit 1.
    Check {
        /// Its name.
        name: String,
    },
}

/// Run `hearth mcp`.
pub async fn run(args: McpArgs) -> ExitCode {
    let result = async {
        let store = crate::db::open(args.db).await?;
        act(&store, args.action.unwrap_or(Action::List)).await
    };
    match result.await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("hearth: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn act(store: &Store, action: Action) -> Result<ExitCode, String> {
    // Listing and a plain export show no value: they never ask the
    // desktop's secret store (no unlock prompt for a list).
    let shows_no_value = matches!(
        action,
        Action::List
            | Action::Export {
                with_secrets: false
            }
    );
    let mut servers = if shows_no_value {
        hearth_compose::mcp_servers_as_stored(store)
            .await
            .map_err(|e| e.to_string())?
    } else {
        hearth_compose::mcp_servers(store)
            .await
            .map_err(|e| e.to_string())?
    };
    match action {
        Action::List => {
            if servers.is_empty() {
                println!("no MCP servers (add one with `hearth mcp add` or `hearth mcp import`)");
            }
            for (name, config) in &servers {
                let off = if config.disabled { "  [disabled]" } else { "" };
                println!("{name}\t{}{off}", config.describe());
            }
        }
        Action::Add {
            name,
            url,
            headers,
            env,
            command,
        } => {
            let mut config = ServerConfig {
                url,
                ..ServerConfig::default()
            };
            if let Some((program, rest)) = command.split_first() {
                config.command = Some(program.clone());
                config.args = rest.to_vec();
            }
            for h in headers {
                let (k, v) = h
                    .split_once(':')
                    .ok_or_else(|| format!("--header {h:?}: expected `Name: value`"))?;
                config
                    .headers
                    .insert(k.trim().to_owned(), v.trim().to_owned());
            }
            for e in env {
                let (k, v) = e
                    .split_once('=')
                    .ok_or_else(|| format!("--env {e:?}: expected NAME=value"))?;
                config.env.insert(k.to_owned(), v.to_owned());
            }
            servers.insert(name.clone(), config);
            save(store, &servers).await?;
            eprintln!(
                "saved MCP server `{name}`; a profile offers its tools once it names it (hearth profiles set PROFILE --mcp {name})"
            );
        }
        Action::Import { file } => {
            let mut text = String::new();
            if file.as_os_str() == "-" {
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map_err(|e| format!("reading standard input: {e}"))?;
            } else {
                text = std::fs::read_to_string(&file)
                    .map_err(|e| format!("{}: {e}", file.display()))?;
            }
            let mut added = hearth_mcp::parse(&text).map_err(|e| e.to_string())?;
            hearth_mcp::keep_hidden(&mut added, &servers).map_err(|e| e.to_string())?;
            let names: Vec<String> = added.keys().cloned().collect();
            servers.extend(added);
            save(store, &servers).await?;
            eprintln!("imported {} server(s): {}", names.len(), names.join(", "));
        }
        Action::Export { with_secrets } => {
            let shown = if with_secrets {
                servers
            } else {
                hearth_mcp::hide_secrets(&servers)
            };
            println!("{}", hearth_mcp::to_json(&shown));
        }
        Action::Remove { name } => {
            if servers.remove(&name).is_none() {
                return Err(format!("no MCP server named `{name}`"));
            }
            save(store, &servers).await?;
            eprintln!("removed MCP server `{name}`");
        }
        Action::Check { name } => {
            let Some(config) = servers.remove(&name) else {
                return Err(format!("no MCP server named `{name}`"));
            };
            return Ok(check(&name, config).await);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Validate the whole configuration, then save it (its values in the
/// desktop's secret store when one takes them); says where the values went.
async fn save(store: &Store, servers: &BTreeMap<String, ServerConfig>) -> Result<(), String> {
    let kept = hearth_compose::save_mcp_servers(store, servers)
        .await
        .map_err(|e| e.to_string())?;
    if let Some(note) = kept.note() {
        eprintln!("hearth: {note}");
    }
    Ok(())
}

async fn check(name: &str, config: ServerConfig) -> ExitCode {
    let hub = hearth_mcp::Hub::new(BTreeMap::from([(name.to_owned(), config)]));
    let down = hub.prepare(&[name.to_owned()]).await;
    let code = if let Some(d) = down.first() {
        eprintln!("hearth: MCP server `{name}` cannot start: {}", d.reason);
        ExitCode::FAILURE
    } else {
        let server = hub.server(name);
        if let Some(Status::Running { server, tools }) = server.as_ref().map(|s| s.status()) {
            println!("{name}: {server}, {tools} tool(s)");
        }
        for tool in server.map(|s| s.tools()).unwrap_or_default() {
            let (read_only, destructive, _) = tool.hints();
            let kind = match (read_only, destructive) {
                (Some(true), _) => "reads",
                (_, Some(false)) => "writes",
                _ => "writes, may delete",
            };
            println!("  {}\t[{kind}]", tool.spec().name);
        }
        ExitCode::SUCCESS
    };
    hub.shutdown().await;
    code
}
