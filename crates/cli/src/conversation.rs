//! The conversation the CLI's message commands share (`hearth chat`,
//! `hearth plan`, `hearth voice`): the model server and session flags, and
//! the agent composed over what they name (backends, profiles, hosts, MCP
//! servers, hooks, skills), with the session ready for its next message.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use hearth_compose::{OpenError, UnusableHooks};
use hearth_core::new_session_id;
use hearth_core::tools::ProfileSwitcher;
use hearth_store::Profiles;

use crate::backend::{BackendKind, KeyArg, build};
use crate::chat::ChatArgs;
use crate::overrides::Overrides;

/// The model server and the session: the arguments `hearth chat`, `hearth
/// plan` and `hearth voice` share.
#[derive(Debug, Args)]
pub(crate) struct Conversation {
    /// The model server's URL: Ollama's (default: $OLLAMA_HOST, else
    /// http://127.0.0.1:11434), or with --backend openai the server's
    /// OpenAI root (default: http://127.0.0.1:8080/v1).
    #[arg(long)]
    pub url: Option<String>,
    /// Which kind of server to talk to (an OpenAI-compatible one takes its
    /// API key from $HEARTH_API_KEY).
    #[arg(long, value_enum, default_value_t)]
    pub backend: BackendKind,
    /// Refused: a key on the command line can be read by every program
    /// you run (`/proc/PID/cmdline`), a sandboxed command included. For
    /// --backend openai, put it in $HEARTH_API_KEY (sent as a bearer token,
    /// never shown), or keep it with `hearth hosts add … --api-key-stdin`.
    #[arg(long = "api-key", value_name = "REFUSED", hide = true)]
    pub api_key_on_command_line: Option<String>,
    /// API key for --backend openai, sent as a bearer token (never shown);
    /// from $HEARTH_API_KEY only, never the command line.
    #[arg(skip = crate::backend::key_from_env())]
    pub api_key: Option<KeyArg>,
    /// Move this session to a host added with `hearth hosts add` (or
    /// `ollama`, the default server); it stays there for its next messages.
    #[arg(long, value_name = "NAME", conflicts_with = "backend")]
    pub host: Option<String>,
    /// Model to use instead of the profile's, as the server names it (e.g. qwen3:8b).
    #[arg(long)]
    pub model: Option<String>,
    /// Profile to use for this session from now on (see `hearth profiles`).
    #[arg(long)]
    pub profile: Option<String>,
    /// Print one protocol event per line (JSON) instead of plain text.
    #[arg(long)]
    pub json: bool,
    /// The database (default: $HEARTH_DB, else hearth.sqlite in your data folder).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Continue this session (default: a new one).
    #[arg(long)]
    pub session: Option<String>,
    /// Put this session in a project (`hearth projects`): it works in the
    /// project's folder, follows its instructions, and uses its profile
    /// and model unless it chose its own.
    #[arg(long, value_name = "NAME")]
    pub project: Option<String>,
}

/// What a front end of the CLI that runs messages needs: the agent over
/// the backends, profiles, hosts, MCP servers, hooks and skills the
/// arguments name, and the session it talks in (`hearth chat`, `hearth
/// plan`, `hearth voice`).
pub(crate) struct Composed {
    pub agent: Arc<hearth_core::Agent>,
    /// What the command does to runs (send, answer again, approve, answer
    /// a plan): the core's one way in, over the agent's approvals.
    pub runs: hearth_core::Runs,
    pub mcp: Arc<hearth_mcp::Hub>,
    pub session: String,
    /// The files of `--attach`, kept in the store.
    pub attachments: Vec<hearth_core::Attachment>,
    /// The profiles the agent reads (a long conversation refreshes them
    /// between turns: another process may change them).
    pub profiles: Arc<Profiles>,
    /// The sessions' store (the answer's sources are read from it).
    pub store: Arc<hearth_store::Store>,
}

/// An MCP server a command cannot work without (`hearth voice`'s speech
/// server), and what to print when there is none.
pub(crate) struct Needs<'a> {
    pub server: &'a str,
    pub missing: fn(&str),
}

/// Compose the agent for `args`; on failure the error is printed and the
/// exit code returned. The server `needs` names is looked for before
/// anything changes (exit code 2 without it).
pub(crate) async fn compose(
    args: &ChatArgs,
    needs: Option<Needs<'_>>,
) -> Result<Composed, ExitCode> {
    let fail = |e: &dyn std::fmt::Display, code: ExitCode| {
        eprintln!("hearth: {e}");
        code
    };
    if args.conv.api_key_on_command_line.is_some() {
        return Err(fail(
            &"--api-key is refused: a key on the command line can be read by every program you run, \
              a sandboxed command included. Put it in $HEARTH_API_KEY, or keep it for a host with \
              `hearth hosts add NAME URL --kind openai --api-key-stdin`",
            ExitCode::from(2),
        ));
    }
    let backends = build(
        args.conv.backend,
        args.conv.url.as_deref(),
        args.conv.api_key.clone(),
    )
    .map_err(|e| fail(&e, ExitCode::from(2)))?;
    let store = crate::db::open(args.conv.db.clone())
        .await
        .map_err(|e| fail(&e, ExitCode::FAILURE))?;
    if let Some(Needs { server, missing }) = needs {
        match hearth_compose::mcp_servers_as_stored(&store).await {
            Ok(servers) if servers.contains_key(server) => {}
            Ok(_) => {
                missing(server);
                return Err(ExitCode::from(2));
            }
            Err(e) => return Err(fail(&e, ExitCode::FAILURE)),
        }
    }
    // Everything the agent is composed from, read once; hooks that cannot
    // be used stop the command before anything changes.
    let inputs = hearth_compose::open(Arc::new(store), UnusableHooks::Refuse)
        .await
        .map_err(|e| match e {
            OpenError::Hooks(e) => {
                let e = format!(
                    "the hooks cannot be used ({e}); fix them with `hearth hooks set` or `hearth hooks clear`"
                );
                fail(&e, ExitCode::FAILURE)
            }
            OpenError::Store(e) => fail(&e, ExitCode::FAILURE),
        })?;
    let (store, profiles, hosts) = (&inputs.store, inputs.profiles.clone(), &inputs.hosts);
    // Before anything is changed: a file that cannot be attached leaves
    // the session, its profile and its host as they were.
    let attachments = attach_files(store, &args.attach)
        .await
        .map_err(|e| fail(&e, ExitCode::from(2)))?;
    if args.conv.backend == BackendKind::Ollama && profiles.seed_model_pending() {
        settle_seed_model(&profiles, args.conv.url.as_deref()).await;
    }
    let session = args.conv.session.clone().unwrap_or_else(new_session_id);
    // The project first: its profile decides the host the session pins.
    if let Some(name) = &args.conv.project {
        let Some(project) = profiles.find_project(name) else {
            let e = format!(
                "there is no project `{name}`; make it with `hearth projects create {name}`"
            );
            return Err(fail(&e, ExitCode::from(2)));
        };
        profiles
            .move_session(&session, Some(&project.id))
            .await
            .map_err(|e| fail(&e, ExitCode::FAILURE))?;
    }
    if let Some(name) = &args.conv.profile
        && let Err(e) = profiles.switch(&session, name).await
    {
        return Err(fail(&e, ExitCode::from(2)));
    }
    // A session stays on the host it started on; `--host` moves it.
    let placed = match args.conv.host.as_deref() {
        Some(name) if name != hearth_core::DEFAULT_HOST && hosts.get(name).is_none() => {
            let e = format!(
                "there is no host `{name}`; add it with `hearth hosts add {name} URL` (hosts: {})",
                hosts.names().join(", ")
            );
            return Err(fail(&e, ExitCode::from(2)));
        }
        Some(name) => {
            let host = (name != hearth_core::DEFAULT_HOST).then_some(name);
            profiles.set_session_host(&session, host).await
        }
        None => profiles.pin_session_host(&session).await,
    };
    placed.map_err(|e| fail(&e, ExitCode::FAILURE))?;
    let mut attachments = attachments;
    if args.knowledge || args.no_knowledge {
        profiles
            .set_session_knowledge(&session, args.knowledge)
            .await
            .map_err(|e| fail(&e, ExitCode::FAILURE))?;
    }
    if profiles.session_knowledge(&session)
        && let (Some(index), Some(text)) = (&inputs.knowledge, args.message.as_deref())
    {
        let project = profiles.session_project(&session).map(|p| p.id);
        match hearth_compose::passages_for(
            index,
            backends.default.clone(),
            project.as_deref(),
            text,
        )
        .await
        {
            Ok(Some(passages)) => attachments.push(
                store
                    .add_file(hearth_compose::PASSAGES_FILE, passages.into_bytes())
                    .await
                    .map_err(|e| fail(&e, ExitCode::FAILURE))?,
            ),
            Ok(None) => {
                eprintln!("hearth: no passage of your knowledge folders matches this message")
            }
            Err(e) => eprintln!(
                "hearth: the knowledge folders could not be searched ({e}); the message goes without them"
            ),
        }
    }
    let provider = Arc::new(Overrides {
        inner: profiles.clone(),
        model: args.conv.model.clone(),
        no_tools: args.no_tools,
        max_iterations: args.max_iterations,
        backend: backends.profile_backend(),
    });
    let named = backends
        .named
        .into_iter()
        .map(|(name, b)| (name.to_owned(), b))
        .collect();
    let agent = inputs.agent(backends.default, named, Some(provider));
    Ok(Composed {
        agent,
        runs: inputs.runs(),
        mcp: inputs.mcp.clone(),
        session,
        attachments,
        profiles,
        store: inputs.store.clone(),
    })
}

/// Keep each file of `--attach` in the store; the first that cannot be
/// read or attached is the error.
async fn attach_files(
    store: &hearth_store::Store,
    paths: &[PathBuf],
) -> Result<Vec<hearth_core::Attachment>, String> {
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        let bytes = tokio::fs::read(path)
            .await
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        out.push(
            store
                .add_file(&name, bytes)
                .await
                .map_err(|e| e.to_string())?,
        );
    }
    Ok(out)
}

/// A new database's seeded profiles name a model before any server was
/// asked: the first chat moves them to one this server has, and says so
/// (`hearth_compose::first_run`). A server that cannot be asked leaves
/// them waiting; the run then says what is wrong.
async fn settle_seed_model(profiles: &Profiles, url: Option<&str>) {
    let Ok(server) = hearth_compose::ollama(url) else {
        return;
    };
    match hearth_compose::first_run::settle(profiles, &server.client).await {
        Ok(run) => {
            if let Some((model, moved)) = run.adopted {
                eprintln!(
                    "hearth: the profiles {} now use {model}, a model this server has ({} is not installed); change it with `hearth profiles set NAME --model M`",
                    moved.join(", "),
                    hearth_store::SEED_MODEL
                );
            }
        }
        Err(e) => tracing::debug!("the seeded profiles wait for the server: {e}"),
    }
}
