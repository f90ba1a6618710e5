//! One configured server's life: started when a run first needs it,
//! listed anew when it says its tools changed, restarted after a crash
//! (at once the first time, then with a growing pause), stopped with the
//! app. A server that fails to start is retried in the background, so no
//! run waits twice for the same broken server.

use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use hearth_core::Tool;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde::Serialize;

use crate::command;
use crate::config::{
    DEFAULT_CALL_TIMEOUT_SECS, DEFAULT_START_TIMEOUT_SECS, ServerConfig, Transport,
};
use crate::log::ServerLog;
use crate::tool::McpTool;

/// A server that ran this long before it died counts as healthy: its
/// next crash restarts it at once again.
const HEALTHY_RUN: Duration = Duration::from_secs(30);
/// The longest pause between restarts.
const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// The variables of Hearth's environment a stdio server gets (and `LC_*`).
const INHERITED_ENV: &[&str] = &[
    "HOME",
    "LOGNAME",
    "USER",
    "SHELL",
    "TERM",
    "LANG",
    "TMPDIR",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
];
/// How long listing tools may take once the server is up.
const LIST_TIMEOUT: Duration = Duration::from_secs(30);

/// What a server is doing, for the panel and the CLI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Status {
    /// Not started (no run has needed it yet, or the app stopped it).
    Stopped,
    /// Starting now.
    Starting,
    /// Up, with this many tools.
    Running {
        /// The server's own name and version, as it reported them.
        server: String,
        /// Tools it offers.
        tools: usize,
    },
    /// Cannot serve; why, and when it is tried again.
    Failed {
        /// What went wrong and what to do.
        reason: String,
        /// Failures in a row.
        attempts: u32,
        /// Seconds until the next try (0: at the next run).
        retry_in_secs: u64,
    },
    /// The configuration says not to start it.
    Disabled,
}

/// Why a server cannot serve a run now ([`Server::prepare`]), by what
/// can be done about it: [`ServerError::waits_for_user`] when only a
/// change of its configuration or the machine helps, otherwise Hearth's
/// own retries may get it up. The text says what happened and what to do,
/// and is what runs, the Tools panel and `hearth mcp check` show.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ServerError {
    /// Its configuration says not to start it.
    #[error("it is disabled in its configuration")]
    Disabled,
    /// Its last start failed, and Hearth is starting it again in the
    /// background now.
    #[error("{0} (Hearth is trying again now)")]
    Retrying(Box<ServerError>),
    /// Its last start failed; Hearth tries again after a pause.
    #[error("{last} (Hearth tries again in {} s)", .wait.as_secs().max(1))]
    Paused {
        /// The failure.
        last: Box<ServerError>,
        /// Until the next try.
        wait: Duration,
    },
    /// Its values are in the desktop's secret store, which could not be
    /// read when Hearth loaded them.
    #[error(
        "its environment and header values are kept in the desktop's secret store, \
         which could not be read when Hearth loaded them (is the keyring locked? \
         unlock it, then open the Tools panel again or run `hearth mcp check {server}`)"
    )]
    SecretStoreLocked {
        /// The server's name.
        server: String,
    },
    /// Its entry is not a valid server.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// Its program cannot be found or run.
    #[error(transparent)]
    Command(#[from] command::CommandError),
    /// Its program was found but the system could not start it.
    #[error("`{}` could not be started: {detail}", .program.display())]
    Spawn {
        /// The program.
        program: std::path::PathBuf,
        /// The system's words.
        detail: String,
    },
    /// A header name that HTTP does not allow.
    #[error("header {name:?}: {detail}")]
    HeaderName {
        /// The name as configured.
        name: String,
        /// Why it is not one.
        detail: String,
    },
    /// A header value that HTTP does not allow.
    #[error("header {name}: {detail}")]
    HeaderValue {
        /// The header's name.
        name: String,
        /// Why its value is not one.
        detail: String,
    },
    /// It started but did not finish the handshake in time.
    #[error(
        "it did not answer `initialize` within {secs} s (is it an MCP server? set \
         \"startTimeoutSecs\" if it needs longer){log}"
    )]
    InitializeTimeout {
        /// The limit.
        secs: u64,
        /// The last lines of its output.
        log: String,
    },
    /// The handshake failed (it exited, answered what is not MCP, the
    /// URL refused).
    #[error("it failed to start: {detail}{log}")]
    Handshake {
        /// The SDK's words.
        detail: String,
        /// The last lines of its output.
        log: String,
    },
    /// It did not list its tools in time.
    #[error("it did not list its tools within {secs} s")]
    ListTimeout {
        /// The limit.
        secs: u64,
    },
    /// Listing its tools failed.
    #[error("listing its tools failed: {detail}{log}")]
    List {
        /// The SDK's words.
        detail: String,
        /// The last lines of its output.
        log: String,
    },
    /// It exited after it had started.
    #[error("it exited while running{log}")]
    Exited {
        /// The last lines of its output.
        log: String,
    },
}

impl ServerError {
    /// Only the user can make it serve: its configuration is wrong or
    /// off, its program missing, its secrets locked away. Trying again as
    /// it is fails the same way (Hearth still retries, in case the
    /// machine changed: a program installed, a keyring unlocked).
    pub fn waits_for_user(&self) -> bool {
        match self {
            Self::Retrying(last) | Self::Paused { last, .. } => last.waits_for_user(),
            Self::Disabled
            | Self::SecretStoreLocked { .. }
            | Self::Config(_)
            | Self::Command(_)
            | Self::HeaderName { .. }
            | Self::HeaderValue { .. } => true,
            Self::Spawn { .. }
            | Self::InitializeTimeout { .. }
            | Self::Handshake { .. }
            | Self::ListTimeout { .. }
            | Self::List { .. }
            | Self::Exited { .. } => false,
        }
    }
}

/// A speech server's session tools (`dyn_tools`): only voice input and
/// read aloud call them.
fn is_session_tool(name: &str) -> bool {
    use hearth_core::voice::{SPEAK, SPEECH_STATUS, START, STOP, STOP_SPEAKING, UPDATES};
    [START, UPDATES, STOP, SPEAK, STOP_SPEAKING, SPEECH_STATUS].contains(&name)
}

/// When the next start is tried ([`Server::next_try`]).
enum NextTry {
    Now,
    Background { reason: ServerError },
    Later { reason: ServerError, wait: Duration },
}

struct Failure {
    reason: ServerError,
    attempts: u32,
    retry_at: Instant,
    /// It crashed after starting (the next start is tried inline once).
    crashed: bool,
}

/// The client side of the connection: Hearth's name, and a flag the
/// server's `tools/list_changed` raises.
#[derive(Clone)]
struct Handler {
    list_changed: Arc<AtomicBool>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        // The newest revision that has an `initialize` handshake: rmcp's
        // latest (2026-07-28) has none, so announcing it in `initialize`
        // named a revision that handshake does not belong to (servers on
        // 2025-11-25 negotiated down; a strict one could refuse).
        // MCP Apps (`apps.rs`): a server may then give its tools an app.
        let mut capabilities = ClientCapabilities::default();
        let mut ui = serde_json::Map::new();
        ui.insert(
            "mimeTypes".into(),
            serde_json::json!([crate::apps::APP_MIME]),
        );
        capabilities.extensions =
            Some(std::iter::once((crate::apps::EXTENSION.to_owned(), ui)).collect());
        ClientConfig::new(
            capabilities,
            Implementation::new("hearth", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        self.list_changed.store(true, Ordering::SeqCst);
        std::future::ready(())
    }
}

/// Clears `starting` when a start ends, however it ends.
struct NotStartingOnDrop<'a>(&'a Server);

impl Drop for NotStartingOnDrop<'_> {
    fn drop(&mut self) {
        if let Ok(mut v) = self.0.view.write() {
            v.starting = false;
        }
    }
}

struct Connection {
    service: RunningService<RoleClient, Handler>,
    started: Instant,
    /// A call found the transport gone ([`McpTool`] raises it).
    broken: Arc<AtomicBool>,
}

/// One configured server.
pub struct Server {
    name: String,
    config: ServerConfig,
    log: Arc<ServerLog>,
    list_changed: Arc<AtomicBool>,
    /// Held while starting, listing or stopping: one at a time.
    conn: tokio::sync::Mutex<Option<Connection>>,
    /// What readers see without waiting.
    view: RwLock<View>,
    /// Its tools as first listed (`listings.rs`): a tool that differs
    /// later is asked despite a pre-approval.
    first: crate::listings::FirstSeen,
    /// Calls of its tools whose apps can be shown (shared by the hub).
    views: Arc<crate::apps::AppViews>,
    /// Unique in the process: a server configured anew is another one.
    id: u64,
}

/// The next [`Server::id`].
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

#[derive(Default)]
struct View {
    tools: Vec<Arc<McpTool>>,
    /// The live connection's peer, for an app's resource reads.
    peer: Option<rmcp::service::Peer<RoleClient>>,
    server: String,
    starting: bool,
    /// A start is being retried in the background.
    retrying: bool,
    failure: Option<Failure>,
    /// Crashes in a row, each soon after its start (a run of
    /// [`HEALTHY_RUN`] or more starts the count again).
    crashes: u32,
}

impl Server {
    /// `name` with `config`; nothing starts yet.
    pub fn new(name: &str, config: ServerConfig) -> Arc<Self> {
        Self::kept_in(name, config, None, Arc::default())
    }

    /// [`Server::new`], its first listing kept in `book`.
    pub(crate) fn kept_in(
        name: &str,
        config: ServerConfig,
        book: Option<Arc<crate::listings::Book>>,
        views: Arc<crate::apps::AppViews>,
    ) -> Arc<Self> {
        Arc::new(Self {
            name: name.to_owned(),
            config,
            log: Arc::new(ServerLog::default()),
            list_changed: Arc::new(AtomicBool::new(false)),
            conn: tokio::sync::Mutex::new(None),
            view: RwLock::new(View::default()),
            first: crate::listings::FirstSeen::new(book),
            views,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its configuration.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Its output so far (stderr and log notifications).
    pub fn log(&self) -> Vec<String> {
        self.log.lines()
    }

    /// Its tools while it runs.
    pub fn tools(&self) -> Vec<Arc<McpTool>> {
        self.view
            .read()
            .map(|v| v.tools.clone())
            .unwrap_or_default()
    }

    /// Its tools as Hearth tools, for a model: all but a speech server's
    /// session tools, which only voice input calls (security review N16:
    /// offered, a model could listen to the microphone or to what the
    /// computer plays, or end the user's own session), and a speaker's,
    /// which only read aloud calls (a model could talk over the user, or
    /// silence what they asked to hear).
    /// Nor a tool its server shows only its apps (`_meta.ui.visibility`
    /// without "model": the spec says the model must not see it).
    pub fn dyn_tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools()
            .into_iter()
            .filter(|t| !is_session_tool(t.remote_name()) && t.ui().model)
            .map(|t| t as Arc<dyn Tool>)
            .collect()
    }

    /// Its tool `name` as an app of this server may call it: listed, shown
    /// to apps (`visibility` holds "app"), and not a speech session tool
    /// (which only the app's own voice controls call). Each refusal is a
    /// sentence for the person and the app.
    pub fn app_tool(&self, name: &str) -> Result<Arc<McpTool>, String> {
        let server = &self.name;
        let Some(tool) = self.tools().into_iter().find(|t| t.remote_name() == name) else {
            return Err(format!(
                "the MCP server \"{server}\" has no tool `{}` (running now)",
                hearth_core::visible::visible(name, false)
            ));
        };
        if is_session_tool(name) || !tool.ui().app {
            return Err(format!(
                "the MCP server \"{server}\" does not let its apps call `{name}`"
            ));
        }
        Ok(tool)
    }

    /// Reads `uri` of this server for an app (its own document, or a
    /// resource the app asks for): the server must be running.
    pub async fn read_resource(
        &self,
        uri: &str,
    ) -> Result<rmcp::model::ReadResourceResult, String> {
        let peer = self.view.read().ok().and_then(|v| v.peer.clone());
        let Some(peer) = peer else {
            return Err(format!(
                "the MCP server \"{}\" is not running; run a tool of it again to start it",
                self.name
            ));
        };
        let params = rmcp::model::ReadResourceRequestParams::new(uri.to_owned());
        match tokio::time::timeout(LIST_TIMEOUT, peer.read_resource(params)).await {
            Err(_) => Err(format!(
                "the MCP server \"{}\" did not answer the read of {uri} within {} s",
                self.name,
                LIST_TIMEOUT.as_secs()
            )),
            Ok(Err(e)) => {
                self.log
                    .push(&format!("[hearth] reading {uri} failed: {e}"));
                Err(format!(
                    "the MCP server \"{}\" could not read {uri}: {e}",
                    self.name
                ))
            }
            Ok(Ok(r)) => Ok(r),
        }
    }

    /// Adds Hearth's own line to its log (the Tools panel's).
    pub fn note(&self, text: &str) {
        self.log.push(&format!("[hearth] {text}"));
    }

    /// Adds what an app of this server logged to its log (the Tools
    /// panel's), marked as the app's.
    pub fn app_log(&self, level: &str, text: &str) {
        let level: String = level
            .chars()
            .filter(char::is_ascii_alphabetic)
            .take(12)
            .collect();
        let text: String = text.chars().take(2_000).collect();
        self.log.push(&format!("[app {level}] {text}"));
    }

    /// The calls of its tools whose apps can be shown.
    pub fn views(&self) -> &Arc<crate::apps::AppViews> {
        &self.views
    }

    /// Its identity in this process: a server of the same name configured
    /// anew (anything changed) has another.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// What it is doing now.
    pub fn status(&self) -> Status {
        if self.config.disabled {
            return Status::Disabled;
        }
        let Ok(v) = self.view.read() else {
            return Status::Stopped;
        };
        if v.starting {
            return Status::Starting;
        }
        if let Some(f) = &v.failure {
            return Status::Failed {
                reason: f.reason.to_string(),
                attempts: f.attempts,
                retry_in_secs: f
                    .retry_at
                    .saturating_duration_since(Instant::now())
                    .as_secs(),
            };
        }
        if v.server.is_empty() {
            Status::Stopped
        } else {
            Status::Running {
                server: v.server.clone(),
                tools: v.tools.len(),
            }
        }
    }

    /// Start it now, in the background, when it is stopped (a server the
    /// user just added is usable at once, not "stopped" until a run needs
    /// it: user pass 2026-12, defect 5). It reads as starting from this
    /// call on; a failure shows as for any start.
    pub fn start_soon(self: &Arc<Self>) {
        if !matches!(self.status(), Status::Stopped) {
            return;
        }
        if let Ok(mut v) = self.view.write() {
            v.starting = true;
        }
        let me = self.clone();
        tokio::spawn(async move {
            if let Err(e) = me.prepare().await {
                tracing::info!(server = %me.name, "a server started after its save cannot serve: {e}");
            }
            // A start that never began (another held the connection and
            // found it up) leaves no mark.
            if let Ok(mut v) = me.view.write()
                && v.server.is_empty()
                && v.failure.is_none()
            {
                v.starting = false;
            }
        });
    }

    /// Make it ready for a run: start it (inline the first time, and once
    /// after a crash), list its tools again if it said they changed.
    /// `Err` says why it cannot serve now; a failed start is then retried
    /// in the background once its pause is over.
    pub async fn prepare(self: &Arc<Self>) -> Result<(), ServerError> {
        if self.config.disabled {
            return Err(ServerError::Disabled);
        }
        // A retry in the background holds the connection while it starts:
        // runs are told at once instead of waiting for it.
        if let Some(reason) = self.retrying() {
            return Err(ServerError::Retrying(Box::new(reason)));
        }
        let mut conn = self.conn.lock().await;
        if let Some(c) = conn.as_ref() {
            // The process may have exited since the last run: rmcp's loop
            // then ends and closes the peer's channel (`is_closed` alone
            // does not see an end of file).
            let gone = c.service.is_closed()
                || c.service.peer().is_transport_closed()
                || c.broken.load(Ordering::SeqCst);
            if !gone {
                if self.list_changed.swap(false, Ordering::SeqCst)
                    && let Err(e) = self.list(c).await
                {
                    // The old list stays; the next change tries again.
                    self.log.push(&format!("[hearth] {e}"));
                }
                return Ok(());
            }
            let ran = c.started.elapsed();
            *conn = None;
            self.fail(
                ServerError::Exited {
                    log: self.log.tail(5),
                },
                true,
                ran >= HEALTHY_RUN,
            );
        }
        match self.next_try() {
            NextTry::Now => {}
            NextTry::Later { reason, wait } => {
                return Err(ServerError::Paused {
                    last: Box::new(reason),
                    wait,
                });
            }
            NextTry::Background { reason } => {
                if let Ok(mut v) = self.view.write() {
                    v.retrying = true;
                }
                // The task waits for the lock this call holds, so it
                // starts once this call has returned.
                let me = self.clone();
                tokio::spawn(async move {
                    let mut conn = me.conn.lock().await;
                    if conn.is_none() {
                        me.start(&mut conn).await.ok();
                    }
                    if let Ok(mut v) = me.view.write() {
                        v.retrying = false;
                    }
                });
                return Err(ServerError::Retrying(Box::new(reason)));
            }
        }
        self.start(&mut conn).await
    }

    /// When to try starting it: now, inline (never failed, or the first
    /// restart after a crash), in the background (a failed start whose
    /// pause is over), or not yet.
    fn next_try(&self) -> NextTry {
        let Ok(v) = self.view.read() else {
            return NextTry::Now;
        };
        match &v.failure {
            None => NextTry::Now,
            Some(f) if f.crashed && f.attempts <= 1 => NextTry::Now,
            Some(f) => {
                let wait = f.retry_at.saturating_duration_since(Instant::now());
                let reason = f.reason.clone();
                if wait.is_zero() {
                    NextTry::Background { reason }
                } else {
                    NextTry::Later { reason, wait }
                }
            }
        }
    }

    /// Stop it now and forget past failures (the panel's Restart does
    /// this and then [`Self::prepare`]).
    pub async fn stop(&self) {
        let mut conn = self.conn.lock().await;
        if let Some(mut c) = conn.take() {
            // Closing the transport ends a stdio child (its stdin closes,
            // and the transport kills it when dropped).
            c.service
                .close_with_timeout(Duration::from_secs(5))
                .await
                .ok();
        }
        if let Ok(mut v) = self.view.write() {
            *v = View::default();
        }
    }

    /// The last failure's reason while a background retry runs.
    fn retrying(&self) -> Option<ServerError> {
        let v = self.view.read().ok()?;
        if !v.retrying {
            return None;
        }
        v.failure.as_ref().map(|f| f.reason.clone())
    }

    async fn start(&self, conn: &mut Option<Connection>) -> Result<(), ServerError> {
        if let Ok(mut v) = self.view.write() {
            v.starting = true;
        }
        // A start dropped midway (the run was stopped) is not "starting"
        // for ever.
        let _starting = NotStartingOnDrop(self);
        let result = self.connect().await;
        match result {
            Ok(c) => {
                let listed = self.list(&c).await;
                match listed {
                    Ok(()) => {
                        *conn = Some(c);
                        Ok(())
                    }
                    Err(reason) => {
                        self.fail(reason.clone(), false, false);
                        Err(reason)
                    }
                }
            }
            Err(reason) => {
                self.fail(reason.clone(), false, false);
                Err(reason)
            }
        }
    }

    /// Record a failure; the pause before the next try doubles with each
    /// failure in a row (none before the first restart after a crash).
    fn fail(&self, reason: ServerError, crashed: bool, was_healthy: bool) {
        tracing::warn!(server = %self.name, %reason, "MCP server unavailable");
        let Ok(mut v) = self.view.write() else {
            return;
        };
        let attempts = if crashed {
            v.crashes = if was_healthy { 1 } else { v.crashes + 1 };
            v.crashes
        } else {
            v.failure.as_ref().map_or(1, |f| f.attempts + 1)
        };
        let pause = if crashed && attempts <= 1 {
            Duration::ZERO
        } else {
            Duration::from_secs(1 << attempts.min(6)).min(MAX_BACKOFF)
        };
        v.tools.clear();
        v.peer = None;
        v.server.clear();
        v.starting = false;
        v.failure = Some(Failure {
            reason,
            attempts,
            retry_at: Instant::now() + pause,
            crashed,
        });
    }

    async fn connect(&self) -> Result<Connection, ServerError> {
        if self.config.waits_for_secret_store() {
            return Err(ServerError::SecretStoreLocked {
                server: self.name.clone(),
            });
        }
        let handler = Handler {
            list_changed: self.list_changed.clone(),
        };
        let timeout = Duration::from_secs(
            self.config
                .start_timeout_secs
                .unwrap_or(DEFAULT_START_TIMEOUT_SECS),
        );
        let transport = self.config.transport(&self.name)?;
        let served = match transport {
            Transport::Stdio => {
                let child = self.spawn().await?;
                tokio::time::timeout(timeout, handler.serve(child)).await
            }
            Transport::Http => {
                let transport = self.http_transport()?;
                tokio::time::timeout(timeout, handler.serve(transport)).await
            }
        };
        let service = match served {
            Err(_) => {
                return Err(ServerError::InitializeTimeout {
                    secs: timeout.as_secs(),
                    log: self.log.tail(5),
                });
            }
            Ok(Err(e)) => {
                return Err(ServerError::Handshake {
                    detail: e.to_string(),
                    log: self.log.tail(5),
                });
            }
            Ok(Ok(s)) => s,
        };
        Ok(Connection {
            service,
            started: Instant::now(),
            broken: Arc::new(AtomicBool::new(false)),
        })
    }

    async fn spawn(&self) -> Result<TokioChildProcess, ServerError> {
        let program = self.config.command.as_deref().unwrap_or_default();
        let resolved = command::resolve(program, std::env::var_os("PATH")).await?;
        let mut cmd = tokio::process::Command::new(&resolved.program);
        // Only what a program needs to run gets through (as the MCP SDKs'
        // own launchers do), then the entry's `env`: no key or token of
        // Hearth's environment reaches a server.
        cmd.args(&self.config.args)
            .env_clear()
            .envs(std::env::vars_os().filter(|(k, _)| {
                k.to_str()
                    .is_some_and(|k| INHERITED_ENV.contains(&k) || k.starts_with("LC_"))
            }))
            .env("PATH", &resolved.path)
            .envs(&self.config.env)
            // A process group of its own: a terminal's Ctrl-C goes to
            // Hearth, which stops what it runs in order (`hearth voice`
            // asks the speech server to finish the sentence), instead of
            // killing the server mid-call.
            .process_group(0)
            .kill_on_drop(true);
        match &self.config.cwd {
            Some(dir) => {
                cmd.current_dir(dir);
            }
            None => {
                if let Some(home) = std::env::var_os("HOME") {
                    cmd.current_dir(home);
                }
            }
        }
        let (child, stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| ServerError::Spawn {
                program: resolved.program.clone(),
                detail: e.to_string(),
            })?;
        if let Some(stderr) = stderr {
            let log = self.log.clone();
            tokio::spawn(async move { log.follow(stderr).await });
        }
        Ok(child)
    }

    fn http_transport(
        &self,
    ) -> Result<rmcp::transport::StreamableHttpClientTransport<reqwest::Client>, ServerError> {
        let url = self.config.url.clone().unwrap_or_default();
        let mut config = StreamableHttpClientTransportConfig::with_uri(url);
        let mut headers = std::collections::HashMap::new();
        for (name, value) in &self.config.headers {
            if name.eq_ignore_ascii_case("authorization")
                && let Some(token) = value.strip_prefix("Bearer ")
            {
                config = config.auth_header(token.to_owned());
                continue;
            }
            let name =
                http::HeaderName::try_from(name.as_str()).map_err(|e| ServerError::HeaderName {
                    name: name.clone(),
                    detail: e.to_string(),
                })?;
            let value = http::HeaderValue::try_from(value.as_str()).map_err(|e| {
                ServerError::HeaderValue {
                    name: name.to_string(),
                    detail: e.to_string(),
                }
            })?;
            headers.insert(name, value);
        }
        config = config.custom_headers(headers);
        Ok(rmcp::transport::StreamableHttpClientTransport::from_config(
            config,
        ))
    }

    /// List the tools of a fresh connection and publish them.
    async fn list(&self, c: &Connection) -> Result<(), ServerError> {
        self.list_changed.store(false, Ordering::SeqCst);
        let listed = tokio::time::timeout(LIST_TIMEOUT, c.service.peer().list_all_tools()).await;
        let tools = match listed {
            Err(_) => {
                return Err(ServerError::ListTimeout {
                    secs: LIST_TIMEOUT.as_secs(),
                });
            }
            Ok(Err(e)) => {
                return Err(ServerError::List {
                    detail: e.to_string(),
                    log: self.log.tail(5),
                });
            }
            Ok(Ok(t)) => t,
        };
        let runs = self.config.describe();
        let call_timeout = Duration::from_secs(
            self.config
                .call_timeout_secs
                .unwrap_or(DEFAULT_CALL_TIMEOUT_SECS),
        );
        // The list is the server's text, untrusted: a tool the screen
        // refuses is left out (and the Tools panel's log says why), and at
        // most MAX_TOOLS_PER_SERVER are offered, in the server's order.
        let mut tools: Vec<rmcp::model::Tool> = tools
            .into_iter()
            .filter(|t| match crate::tool::screen(t) {
                None => true,
                Some(why) => {
                    self.log.push(&format!(
                        "[hearth] left out `{}`: {why}",
                        hearth_core::visible::visible(&t.name, false)
                    ));
                    false
                }
            })
            .collect();
        if tools.len() > crate::tool::MAX_TOOLS_PER_SERVER {
            self.log.push(&format!(
                "[hearth] left out {} of its {} tools: a server offers the model at most {}",
                tools.len() - crate::tool::MAX_TOOLS_PER_SERVER,
                tools.len(),
                crate::tool::MAX_TOOLS_PER_SERVER
            ));
            tools.truncate(crate::tool::MAX_TOOLS_PER_SERVER);
        }
        // The reference is the first listing ever seen while the server runs
        // what it runs now, in this process or an earlier one.
        let listed: Vec<(String, String)> = tools
            .iter()
            .map(|t| (t.name.to_string(), crate::tool::fingerprint(t)))
            .collect();
        let changed = match self.first.compare(&self.name, &runs, &listed).await {
            crate::listings::Compared::Known(changed) => {
                for ((name, _), _) in listed.iter().zip(&changed).filter(|(_, c)| **c) {
                    self.log.push(&format!(
                        "[hearth] `{}` changed its description or input schema since it was first listed: every call is asked, pre-approved or not",
                        hearth_core::visible::visible(name, false)
                    ));
                }
                changed
            }
            crate::listings::Compared::Unread(why) => {
                self.log.push(&format!(
                    "[hearth] the record of its tools' first listings could not be read ({}): every call is asked, pre-approved or not",
                    why.message
                ));
                vec![true; tools.len()]
            }
        };
        let mut built: Vec<Arc<McpTool>> = tools
            .into_iter()
            .zip(changed)
            .map(|(t, changed)| {
                Arc::new(
                    McpTool::new(
                        &self.name,
                        runs.clone(),
                        t,
                        c.service.peer().clone(),
                        self.log.clone(),
                        call_timeout,
                        c.broken.clone(),
                        (self.views.clone(), self.id),
                    )
                    .changed(changed),
                )
            })
            .collect();
        built.sort_by_key(|t| t.spec().name);
        // Two tools whose names become the same (`read.file` and
        // `read_file`, or a cut at 64 characters) are both left out: a
        // pre-approval names one tool, and must not pass to another.
        let mut counts = std::collections::HashMap::new();
        for t in &built {
            *counts.entry(t.spec().name).or_insert(0u32) += 1;
        }
        built.retain(|t| {
            let name = t.spec().name;
            let unique = counts.get(&name) == Some(&1);
            if !unique {
                self.log.push(&format!(
                    "[hearth] left out `{}`: another tool of this server has the same name here ({name})",
                    t.remote_name()
                ));
            }
            unique
        });
        let server = c
            .service
            .peer_info()
            .and_then(|i| i.server_info.clone())
            .map(|i| format!("{} {}", i.name, i.version))
            .unwrap_or_else(|| self.name.clone());
        if let Ok(mut v) = self.view.write() {
            v.tools = built;
            v.peer = Some(c.service.peer().clone());
            v.server = server;
            v.starting = false;
            v.failure = None;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A start that failed on the server's side may pass on Hearth's next
    /// try; one that needs the user's hand does not, however it is
    /// wrapped. The words are the ones runs and the panel always showed.
    #[test]
    fn a_failure_says_whether_the_user_must_act() {
        let exited = ServerError::Exited { log: String::new() };
        let locked = ServerError::SecretStoreLocked {
            server: "notes".into(),
        };
        for (e, user) in [
            (ServerError::Disabled, true),
            (locked.clone(), true),
            (
                ServerError::Command(command::CommandError::Missing("/x".into())),
                true,
            ),
            (
                ServerError::HeaderName {
                    name: "a b".into(),
                    detail: "invalid HTTP header name".into(),
                },
                true,
            ),
            (exited.clone(), false),
            (
                ServerError::InitializeTimeout {
                    secs: 1,
                    log: String::new(),
                },
                false,
            ),
            (ServerError::ListTimeout { secs: 30 }, false),
            (ServerError::Retrying(Box::new(exited.clone())), false),
            (ServerError::Retrying(Box::new(locked.clone())), true),
            (
                ServerError::Paused {
                    last: Box::new(locked.clone()),
                    wait: Duration::from_secs(4),
                },
                true,
            ),
        ] {
            assert_eq!(e.waits_for_user(), user, "{e}");
        }
        assert_eq!(
            ServerError::Retrying(Box::new(exited.clone())).to_string(),
            "it exited while running (Hearth is trying again now)"
        );
        // A pause under a second still says 1 s.
        assert_eq!(
            ServerError::Paused {
                last: Box::new(exited),
                wait: Duration::from_millis(300),
            }
            .to_string(),
            "it exited while running (Hearth tries again in 1 s)"
        );
        assert_eq!(
            ServerError::HeaderName {
                name: "a b".into(),
                detail: "invalid HTTP header name".into(),
            }
            .to_string(),
            "header \"a b\": invalid HTTP header name"
        );
        assert!(
            locked
                .to_string()
                .ends_with("open the Tools panel again or run `hearth mcp check notes`)"),
            "{locked}"
        );
    }
}
