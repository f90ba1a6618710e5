//! The user's hooks: configured commands that get each event as JSON on
//! stdin and answer with JSON on stdout (docs/extending.md has both
//! shapes), the convention other agent tools use. Each runs in run_shell's
//! sandbox (no network, writes only inside the profile's workspace or a
//! scratch folder, a cut-down environment), with a timeout. A hook that
//! fails — it cannot start, times out, exits non-zero, or answers what is
//! not JSON — blocks the call it was asked about (`before_tool_call` fails
//! closed); after a call or before a model call, its failure is reported
//! and changes nothing.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use hearth_core::hooks::{After, Before, Hooks, Outcome};
use hearth_core::{ChatMessage, ToolCall, ToolContext};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use crate::sandbox::{self, Confinement};
use crate::shell::{GroupGuard, drain};

/// Seconds a hook may take unless its configuration says otherwise.
pub const DEFAULT_HOOK_TIMEOUT_SECS: u64 = 10;

/// One hook command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookCommand {
    /// A shell command line (`sh -c`).
    pub command: String,
    /// The tools it is asked about (a name, or a prefix ending in `*`);
    /// empty: every tool. Unused for `before_model_call`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// Seconds it may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
}

/// Every hook, by event.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookConfig {
    /// Asked before each call (in order; the first block wins, argument
    /// changes carry on to the next hook).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before_tool_call: Vec<HookCommand>,
    /// Asked after each call that ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after_tool_call: Vec<HookCommand>,
    /// Asked before each model call of a conversation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before_model_call: Vec<HookCommand>,
}

/// Why a text is not a hook configuration: the user fixes it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookConfigError {
    /// Not JSON, or not the configuration's shape (the parser's words).
    #[error("not a hook configuration: {0}")]
    Malformed(String),
    /// A hook with no command.
    #[error("a hook's \"command\" is empty")]
    EmptyCommand,
}

/// Why one hook gave no usable answer. Before a tool call, any of these
/// blocks the call (a hook that cannot judge it fails closed); after a
/// call or before a model call, it is logged and changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum HookFailure {
    /// Hooks only run sandboxed, and this machine has no sandbox: no hook
    /// runs here until it has one.
    #[error("hooks run sandboxed, and this machine cannot sandbox ({0})")]
    NoSandbox(String),
    /// Its scratch folder (a run without a workspace) cannot be made.
    #[error("cannot make its scratch folder: {0}")]
    Scratch(String),
    /// The folder it runs in cannot be resolved.
    #[error("{}: {detail}", .folder.display())]
    Folder {
        /// The folder.
        folder: PathBuf,
        /// The system's words.
        detail: String,
    },
    /// No sandboxed command line could be built.
    #[error("no sandbox")]
    NoCommand,
    /// The command could not be started.
    #[error("cannot start: {0}")]
    Spawn(String),
    /// It took longer than its timeout, and was stopped.
    #[error("it did not answer within {0} s")]
    Timeout(u64),
    /// It failed: a non-zero exit code (`None`: a signal), and the start
    /// of what it wrote on stderr.
    #[error("it exited with {}{}", exit_code(*.code), after_colon(.stderr))]
    Exit {
        /// Its exit code.
        code: Option<i32>,
        /// The start of its stderr.
        stderr: String,
    },
    /// Its end could not be waited for.
    #[error("it could not be waited for: {0}")]
    Wait(String),
    /// It printed what is not JSON.
    #[error("its answer is not JSON ({0})")]
    NotJson(String),
    /// It answered JSON that is not an object.
    #[error("its answer is not a JSON object")]
    NotAnObject,
    /// A `decision` the event does not have (`allowed` names those it has).
    #[error("its \"decision\" {value} is not {allowed}")]
    Decision {
        /// What it answered.
        value: Value,
        /// The decisions this event takes.
        allowed: &'static str,
    },
    /// `arguments` that are not an object.
    #[error("its \"arguments\" is not a JSON object")]
    BadArguments,
    /// A `result` that is not a string.
    #[error("its \"result\" is not a string")]
    BadResult,
}

fn exit_code(code: Option<i32>) -> String {
    code.map_or_else(|| "a signal".to_owned(), |c| format!("code {c}"))
}

fn after_colon(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(": {text}")
    }
}

impl HookConfig {
    /// The configuration in `json`, or why it is not one.
    pub fn parse(json: &str) -> Result<Self, HookConfigError> {
        let config: Self =
            serde_json::from_str(json).map_err(|e| HookConfigError::Malformed(e.to_string()))?;
        for h in config
            .before_tool_call
            .iter()
            .chain(&config.after_tool_call)
            .chain(&config.before_model_call)
        {
            if h.command.trim().is_empty() {
                return Err(HookConfigError::EmptyCommand);
            }
        }
        Ok(config)
    }

    /// A warning for each hook whose command names a file inside one of
    /// `workspaces` (security review N13): there the model can rewrite it,
    /// with the file tools or a command, and the user's guard becomes
    /// "pass". A relative path counts too: a hook runs in the run's
    /// workspace, so it is read from there.
    pub fn in_workspaces(&self, workspaces: &[PathBuf]) -> Vec<String> {
        let roots: Vec<PathBuf> = workspaces
            .iter()
            .map(|w| std::fs::canonicalize(w).unwrap_or_else(|_| w.clone()))
            .collect();
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let mut warnings = Vec::new();
        for h in self
            .before_tool_call
            .iter()
            .chain(&self.after_tool_call)
            .chain(&self.before_model_call)
        {
            for word in h.command.split_whitespace() {
                let word = word.trim_matches(|c| c == '"' || c == '\'');
                let path = match word.strip_prefix("~/") {
                    Some(rest) => match &home {
                        Some(home) => home.join(rest),
                        None => continue,
                    },
                    None => PathBuf::from(word),
                };
                let looks_like_file = word.contains('/')
                    || Path::new(word).extension().is_some_and(|e| {
                        matches!(e.to_str(), Some("py" | "sh" | "js" | "mjs" | "rb" | "pl"))
                    });
                if !looks_like_file {
                    continue;
                }
                if path.is_relative() {
                    warnings.push(format!(
                        "the hook `{}` runs `{word}` from the run's workspace, where the model can rewrite it: give its full path, outside every workspace",
                        h.command
                    ));
                    break;
                }
                let real = std::fs::canonicalize(&path).unwrap_or(path);
                if let Some(ws) = roots.iter().find(|r| real.starts_with(r)) {
                    warnings.push(format!(
                        "the hook `{}` runs {}, inside the workspace {}, where the model can rewrite it: keep hook scripts outside every workspace",
                        h.command,
                        real.display(),
                        ws.display()
                    ));
                    break;
                }
            }
        }
        warnings
    }

    /// Whether no hook is configured.
    pub fn is_empty(&self) -> bool {
        self.before_tool_call.is_empty()
            && self.after_tool_call.is_empty()
            && self.before_model_call.is_empty()
    }
}

/// The configured hooks, run as sandboxed commands.
pub struct CommandHooks {
    config: HookConfig,
    launcher: PathBuf,
    /// What a hook must not change even inside the workspace (Hearth's own
    /// data), as for `run_shell`.
    protected: Vec<PathBuf>,
    /// Where a hook may write when the run has no workspace.
    scratch: PathBuf,
}

impl CommandHooks {
    /// `config`, run through the sandbox `launcher` (the Hearth binary).
    pub fn new(config: HookConfig, launcher: PathBuf) -> Self {
        let scratch = std::env::temp_dir().join(format!("hearth-hooks-{}", std::process::id()));
        Self {
            config,
            launcher,
            protected: Vec::new(),
            scratch,
        }
    }

    /// Keep `paths` read-only to hooks, as commands keep them (security
    /// review N13: hooks ran with none).
    #[must_use]
    pub fn protecting(mut self, paths: Vec<PathBuf>) -> Self {
        self.protected = sandbox::real_paths(paths);
        self
    }

    /// Runs `hook` with `input`; its answer (`Value::Null` when it printed
    /// nothing), or why it failed.
    async fn run(
        &self,
        hook: &HookCommand,
        input: &Value,
        workspace: Option<&Path>,
    ) -> Result<Value, HookFailure> {
        let confinement = sandbox::confinement(&self.launcher).clone();
        if let Confinement::Unavailable(why) = &confinement {
            return Err(HookFailure::NoSandbox(why.clone()));
        }
        let dir = match workspace {
            Some(w) => w.to_path_buf(),
            None => {
                std::fs::create_dir_all(&self.scratch)
                    .map_err(|e| HookFailure::Scratch(e.to_string()))?;
                self.scratch.clone()
            }
        };
        let dir = std::fs::canonicalize(&dir).map_err(|e| HookFailure::Folder {
            detail: e.to_string(),
            folder: dir,
        })?;
        let (program, argv) = sandbox::shell_command(
            &confinement,
            &self.launcher,
            &dir,
            &dir,
            &hook.command,
            &self.protected,
            false,
        )
        .ok_or(HookFailure::NoCommand)?;
        let mut cmd = Command::new(program);
        cmd.args(argv)
            .env_clear()
            .envs(sandbox::allowed_env(std::env::vars_os()))
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if !matches!(confinement, Confinement::Landlock { .. }) {
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|e| HookFailure::Spawn(e.to_string()))?;
        let mut guard = GroupGuard(child.id().and_then(|id| i32::try_from(id).ok()));
        let (stdin, out, err) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let body = input.to_string();
        let work = async {
            let feed = async {
                if let Some(mut stdin) = stdin {
                    // A hook that does not read its input is its own affair.
                    let _ = stdin.write_all(body.as_bytes()).await;
                }
            };
            let read = |r: Option<tokio::process::ChildStdout>| async move {
                match r {
                    Some(r) => drain(r).await,
                    None => (Vec::new(), 0),
                }
            };
            let read_err = |r: Option<tokio::process::ChildStderr>| async move {
                match r {
                    Some(r) => drain(r).await,
                    None => (Vec::new(), 0),
                }
            };
            let ((), o, e, status) = tokio::join!(feed, read(out), read_err(err), child.wait());
            (o, e, status)
        };
        let secs = hook.timeout_secs.unwrap_or(DEFAULT_HOOK_TIMEOUT_SECS);
        let (o, e, status) = match tokio::time::timeout(Duration::from_secs(secs), work).await {
            Ok(r) => r,
            Err(_) => {
                guard.kill();
                return Err(HookFailure::Timeout(secs));
            }
        };
        guard.kill();
        let stderr = String::from_utf8_lossy(&e.0)
            .trim()
            .chars()
            .take(500)
            .collect::<String>();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => {
                return Err(HookFailure::Exit {
                    code: s.code(),
                    stderr,
                });
            }
            Err(e) => return Err(HookFailure::Wait(e.to_string())),
        }
        let text = String::from_utf8_lossy(&o.0);
        if text.trim().is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_str(text.trim()).map_err(|e| HookFailure::NotJson(e.to_string()))
    }
}

fn applies(hook: &HookCommand, tool: &str) -> bool {
    hook.tools.is_empty()
        || hook.tools.iter().any(|t| match t.strip_suffix('*') {
            Some(prefix) => tool.starts_with(prefix),
            None => t == tool,
        })
}

/// What a `before_tool_call` hook may answer.
#[derive(Debug, PartialEq)]
enum BeforeAnswer {
    Pass,
    Arguments(Value),
    Block(String),
}

/// A `before_tool_call` answer, or why it is not one (nothing printed is
/// a pass; anything unexpected is an error, and the call is blocked).
fn read_before(answer: &Value) -> Result<BeforeAnswer, HookFailure> {
    if answer.is_null() {
        return Ok(BeforeAnswer::Pass);
    }
    let Value::Object(o) = answer else {
        return Err(HookFailure::NotAnObject);
    };
    match o.get("decision") {
        None => {}
        Some(Value::String(d)) if d == "pass" => {}
        Some(Value::String(d)) if d == "block" => {
            let result = o.get("result").and_then(Value::as_str);
            return Ok(BeforeAnswer::Block(
                result.unwrap_or("blocked by a hook").to_owned(),
            ));
        }
        Some(other) => {
            return Err(HookFailure::Decision {
                value: other.clone(),
                allowed: "\"pass\" or \"block\"",
            });
        }
    }
    match o.get("arguments") {
        None => Ok(BeforeAnswer::Pass),
        Some(a @ Value::Object(_)) => Ok(BeforeAnswer::Arguments(a.clone())),
        Some(_) => Err(HookFailure::BadArguments),
    }
}

/// An `after_tool_call` answer: (end the batch, the new result), or why it
/// is not one.
fn read_after(answer: &Value) -> Result<(bool, Option<String>), HookFailure> {
    if answer.is_null() {
        return Ok((false, None));
    }
    let Value::Object(o) = answer else {
        return Err(HookFailure::NotAnObject);
    };
    let end = match o.get("decision") {
        None => false,
        Some(Value::String(d)) if d == "pass" => false,
        Some(Value::String(d)) if d == "end_batch" => true,
        Some(other) => {
            return Err(HookFailure::Decision {
                value: other.clone(),
                allowed: "\"pass\" or \"end_batch\"",
            });
        }
    };
    match o.get("result") {
        None => Ok((end, None)),
        Some(Value::String(r)) => Ok((end, Some(r.clone()))),
        Some(_) => Err(HookFailure::BadResult),
    }
}

#[async_trait]
impl Hooks for CommandHooks {
    async fn before_tool_call(&self, call: &ToolCall, ctx: &ToolContext) -> Before {
        let mut arguments = call.arguments.clone();
        let mut changed = false;
        for hook in self
            .config
            .before_tool_call
            .iter()
            .filter(|h| applies(h, &call.name))
        {
            let input = json!({
                "event": "before_tool_call",
                "tool": call.name,
                "arguments": arguments,
                "session_id": ctx.session_id,
                "call_id": ctx.call_id,
            });
            let judged = self
                .run(hook, &input, ctx.workspace.as_deref())
                .await
                .and_then(|answer| read_before(&answer));
            match judged {
                Err(why) => {
                    tracing::warn!(hook = %hook.command, %why, "a before_tool_call hook failed: the call is blocked");
                    return Before::Block(format!(
                        "blocked: the hook `{}` failed ({why}), and a call its hook cannot judge does not run",
                        hook.command
                    ));
                }
                Ok(BeforeAnswer::Block(result)) => return Before::Block(result),
                Ok(BeforeAnswer::Arguments(a)) => {
                    arguments = a;
                    changed = true;
                }
                Ok(BeforeAnswer::Pass) => {}
            }
        }
        if changed {
            Before::Arguments(arguments)
        } else {
            Before::Pass
        }
    }

    async fn after_tool_call(
        &self,
        call: &ToolCall,
        outcome: Outcome<'_>,
        ctx: &ToolContext,
    ) -> After {
        let mut output = outcome.output.to_owned();
        let mut replaced = false;
        for hook in self
            .config
            .after_tool_call
            .iter()
            .filter(|h| applies(h, &call.name))
        {
            let input = json!({
                "event": "after_tool_call",
                "tool": call.name,
                "arguments": call.arguments,
                "ok": outcome.ok,
                "output": output,
                "session_id": ctx.session_id,
                "call_id": ctx.call_id,
            });
            let judged = self
                .run(hook, &input, ctx.workspace.as_deref())
                .await
                .and_then(|answer| read_after(&answer));
            match judged {
                Err(why) => {
                    tracing::warn!(hook = %hook.command, %why, "an after_tool_call hook failed: the result is kept");
                }
                Ok((end, result)) => {
                    if let Some(r) = result {
                        output = r;
                        replaced = true;
                    }
                    if end {
                        return After::EndBatch(replaced.then_some(output));
                    }
                }
            }
        }
        if replaced {
            After::Replace(output)
        } else {
            After::Pass
        }
    }

    async fn before_model_call(
        &self,
        messages: &[ChatMessage],
        session_id: &str,
    ) -> Option<Vec<ChatMessage>> {
        let mut current: Option<Vec<ChatMessage>> = None;
        for hook in &self.config.before_model_call {
            let shown = current.as_deref().unwrap_or(messages);
            let input = json!({
                "event": "before_model_call",
                "session_id": session_id,
                "messages": shown,
            });
            match self.run(hook, &input, None).await {
                Err(why) => {
                    tracing::warn!(hook = %hook.command, %why, "a before_model_call hook failed: the messages are kept");
                }
                Ok(answer) => {
                    if let Some(m) = answer.get("messages") {
                        match serde_json::from_value::<Vec<ChatMessage>>(m.clone()) {
                            Ok(m) => current = Some(m),
                            Err(e) => {
                                tracing::warn!(hook = %hook.command, "a before_model_call hook's messages are malformed: {e}");
                            }
                        }
                    }
                }
            }
        }
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_clear_answer_lets_a_call_through() {
        assert_eq!(read_before(&Value::Null), Ok(BeforeAnswer::Pass));
        assert_eq!(
            read_before(&json!({"decision": "pass"})),
            Ok(BeforeAnswer::Pass)
        );
        assert_eq!(
            read_before(&json!({"arguments": {"path": "a"}})),
            Ok(BeforeAnswer::Arguments(json!({"path": "a"})))
        );
        assert_eq!(
            read_before(&json!({"decision": "block", "result": "no"})),
            Ok(BeforeAnswer::Block("no".into()))
        );
        for garbage in [
            json!({"decision": "deny"}),
            json!("block"),
            json!([]),
            json!({"arguments": "rm -rf /"}),
            json!({"decision": true}),
        ] {
            assert!(read_before(&garbage).is_err(), "{garbage}");
        }
    }

    #[test]
    fn an_after_answer_may_replace_and_end_together() {
        assert_eq!(read_after(&Value::Null), Ok((false, None)));
        assert_eq!(
            read_after(&json!({"decision": "end_batch", "result": "x"})),
            Ok((true, Some("x".into())))
        );
        assert!(read_after(&json!({"result": 3})).is_err());
        assert!(read_after(&json!({"decision": "stop"})).is_err());
    }

    /// What is wrong with an answer is a variant of its own, in the
    /// words the log and the blocked call always had.
    #[test]
    fn a_bad_answer_is_named() {
        let e = read_before(&json!({"decision": "deny"})).unwrap_err();
        assert_eq!(
            e,
            HookFailure::Decision {
                value: json!("deny"),
                allowed: "\"pass\" or \"block\""
            }
        );
        assert_eq!(
            e.to_string(),
            "its \"decision\" \"deny\" is not \"pass\" or \"block\""
        );
        assert_eq!(
            read_after(&json!({"decision": true}))
                .unwrap_err()
                .to_string(),
            "its \"decision\" true is not \"pass\" or \"end_batch\""
        );
        assert_eq!(read_before(&json!([])), Err(HookFailure::NotAnObject));
        assert_eq!(
            read_before(&json!({"arguments": "rm -rf /"})),
            Err(HookFailure::BadArguments)
        );
        assert_eq!(
            read_after(&json!({"result": 3})),
            Err(HookFailure::BadResult)
        );
        let exit = |code, stderr: &str| {
            HookFailure::Exit {
                code,
                stderr: stderr.into(),
            }
            .to_string()
        };
        assert_eq!(exit(Some(2), ""), "it exited with code 2");
        assert_eq!(exit(None, "boom"), "it exited with a signal: boom");
        assert_eq!(
            HookConfig::parse(r#"{"before_tool_call": [{"command": " "}]}"#),
            Err(HookConfigError::EmptyCommand)
        );
        assert!(matches!(
            HookConfig::parse("{"),
            Err(HookConfigError::Malformed(_))
        ));
    }

    #[test]
    fn a_hook_applies_to_its_tools() {
        let hook = |tools: &[&str]| HookCommand {
            command: "true".into(),
            tools: tools.iter().map(|t| (*t).to_owned()).collect(),
            timeout_secs: None,
        };
        assert!(applies(&hook(&[]), "run_shell"));
        assert!(applies(&hook(&["read_*"]), "read_file"));
        assert!(!applies(&hook(&["read_*"]), "write_file"));
        assert!(!applies(&hook(&["run_shell"]), "run_shell_x"));
    }
}
