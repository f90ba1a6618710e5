//! `hearth`: the terminal front end over the same core as the desktop app.
//! For headless runs, scripts and benchmarks. It only wires the core to
//! Ollama and prints events; no agent logic lives here.

mod backend;
mod chat;
mod conversation;
mod db;
mod hidden;
mod hooks;
mod hosts;
mod knowledge;
mod mcp;
mod memory;
mod overrides;
mod plan;
mod profiles;
mod projects;
mod ps;
mod sessions;
mod skills;
mod voice;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Hearth from the terminal.
#[derive(Debug, Parser)]
#[command(
    name = "hearth",
    version,
    about = "Chat with local models through Ollama, from the terminal"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Send one message and stream the answer. Ctrl-C stops it at once
    /// without unloading the model (exit code 130); during a model load it
    /// waits for the load to finish, a second Ctrl-C leaves at once.
    Chat(chat::ChatArgs),
    /// List the models Ollama has resident, with VRAM and context.
    Ps(ps::PsArgs),
    /// List, show, rename, delete, restore, search and export stored sessions.
    Sessions(sessions::SessionsArgs),
    /// List and edit profiles and the persona.
    Profiles(profiles::ProfilesArgs),
    /// Group sessions into projects that share a folder, a profile and
    /// model, instructions and knowledge folders.
    Projects(projects::ProjectsArgs),
    /// Read, edit and delete what Hearth remembers about you.
    Memory(memory::MemoryArgs),
    /// Add, import, list, check and remove MCP servers (tools you bring).
    Mcp(mcp::McpArgs),
    /// Carry out a big task in four phases: explore (read-only), plan
    /// (read-only, shown to you to run, edit or cancel), implement (a
    /// normal run: approvals and Ctrl-C as ever), review (reads and runs
    /// checks, writes nothing; unfinished work goes back to be fixed).
    Plan(chat::ChatArgs),
    /// List, add and remove model servers (hosts) besides the default Ollama.
    Hosts(hosts::HostsArgs),
    /// Talk instead of typing: listen on a speech-to-text MCP server (the
    /// microphone, what this computer plays, or a WAV file) and send each
    /// thing said as a message; said during an answer, it is queued.
    Voice(voice::VoiceArgs),
    /// Set, show or clear the commands run around tool and model calls.
    Hooks(hooks::HooksArgs),
    /// List your skills (SKILL.md folders), show one, or print their folder.
    Skills(skills::SkillsArgs),
    /// Folders Hearth searches for you: add, sync, search, see what was
    /// left out.
    Knowledge(knowledge::KnowledgeArgs),
}

fn main() -> ExitCode {
    // run_shell re-executes this binary to sandbox a command.
    if let Some(code) = hearth_tools::sandbox::run_if_requested() {
        return code;
    }
    // The store re-executes it to read a PDF's or a spreadsheet's text,
    // bounded.
    if let Some(code) = hearth_store::run_reader_if_requested() {
        return code;
    }
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("HEARTH_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("hearth: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        match cli.command {
            Command::Chat(args) => chat::run(args).await,
            Command::Voice(args) => voice::run(args).await,
            Command::Plan(mut args) => {
                args.plan = true;
                chat::run(args).await
            }
            Command::Ps(args) => ps::run(args).await,
            Command::Sessions(args) => sessions::run(args).await,
            Command::Profiles(args) => profiles::run(args).await,
            Command::Projects(args) => projects::run(args).await,
            Command::Memory(args) => memory::run(args).await,
            Command::Mcp(args) => mcp::run(args).await,
            Command::Hosts(args) => hosts::run(args).await,
            Command::Hooks(args) => hooks::run(args).await,
            Command::Skills(args) => skills::run(args).await,
            Command::Knowledge(args) => knowledge::run(args).await,
        }
    })
}
