//! System notifications for a person looking elsewhere: a tool call waits
//! for their approval, a `/plan` plan waits to be run, or a long answer has
//! finished (or failed), while Hearth's window is not the focused one. Shown from Rust through
//! tauri-plugin-notification; the page has no notification permission.
//!
//! What is worth a notice is decided here from the run's events
//! ([`notice_for`]), and so is its end: a notice that asks for an answer
//! is withdrawn once the request is answered (in the window, by a standing
//! approval, by a stop) or the run ends ([`Watch::updates`]). Whether the
//! window is in the background, and the showing, are the shell's
//! (`system_notices.rs`), set once with [`Notices::set`].

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use hearth_protocol::{AgentEvent, EventKind};

/// A run shorter than this ends in front of the person who started it: its
/// end is not announced.
pub const LONG_RUN: Duration = Duration::from_secs(20);

/// The longest a quoted prompt or error is in a notice.
const QUOTE_CHARS: usize = 80;

/// The longest a tool call's reach is in a notice: what it runs and where
/// come first, the sandbox's terms after (and are on the card).
const REACH_CHARS: usize = 160;

/// One system notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// Its title line.
    pub title: String,
    /// Its text.
    pub body: String,
    /// The approval or plan request it asks about: its notice goes once
    /// that is answered. `None` for one that only tells.
    pub request_id: Option<String>,
    /// The session it is about (a sub-agent's notice names the session of
    /// the run it works for): a click on the notice opens it.
    pub session_id: String,
}

/// What a run's event does to the notices on the desktop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Update {
    /// Show this one.
    Show(Notice),
    /// The notices of these requests, and `why` they go (for the log).
    Withdraw {
        /// The requests.
        requests: Vec<String>,
        /// Answered, or their run ended.
        why: &'static str,
    },
}

type Show = Box<dyn Fn(Update) + Send + Sync>;

/// Where notices go: nowhere until the shell sets it (tests, the CLI-less
/// core), then to the shell's function for the whole app's life.
#[derive(Clone, Default)]
pub struct Notices(Arc<OnceLock<Show>>);

impl Notices {
    /// Send notices to `show` from now on (the first call wins).
    pub fn set(&self, show: impl Fn(Update) + Send + Sync + 'static) {
        if self.0.set(Box::new(show)).is_err() {
            tracing::warn!("notices were already set up");
        }
    }

    /// A watcher for one run of `session_id`, started now; `prompt` is
    /// what the person asked (quoted when its answer is announced).
    pub fn watch(&self, session_id: String, prompt: Option<String>) -> Watch {
        Watch {
            notices: self.clone(),
            session_id,
            started: Instant::now(),
            prompt,
            asking: BTreeSet::new(),
        }
    }
}

/// Watches one run's events for what is worth a notice.
pub struct Watch {
    notices: Notices,
    /// The run's session (its sub-agents' events carry their own).
    session_id: String,
    started: Instant,
    prompt: Option<String>,
    /// The requests whose notices were shown and are not answered yet.
    asking: BTreeSet<String>,
}

impl Watch {
    /// What one of the run's events does to its notices: a new one to
    /// show, and those whose request it answered (all that are left, once
    /// the run itself ends).
    pub fn updates(&mut self, event: &AgentEvent) -> Vec<Update> {
        let mut out = Vec::new();
        let (requests, why) = match &event.kind {
            EventKind::ApprovalResolved { request_id, .. }
            | EventKind::PlanAnswered { request_id, .. } => (
                self.asking
                    .take(request_id)
                    .map(|r| vec![r])
                    .unwrap_or_default(),
                "answered",
            ),
            EventKind::StreamEnd { .. }
            | EventKind::StreamStopped { .. }
            | EventKind::Error { .. }
                if !event.scope.is_subagent =>
            {
                (
                    std::mem::take(&mut self.asking).into_iter().collect(),
                    "the run ended",
                )
            }
            _ => (Vec::new(), ""),
        };
        if !requests.is_empty() {
            out.push(Update::Withdraw { requests, why });
        }
        if let Some(mut n) = notice_for(event, self.started.elapsed(), self.prompt.as_deref()) {
            n.session_id.clone_from(&self.session_id);
            if let Some(r) = &n.request_id {
                self.asking.insert(r.clone());
            }
            out.push(Update::Show(n));
        }
        out
    }

    /// Apply `update` where the shell said (nowhere until it did).
    pub fn apply(&self, update: Update) {
        if let Some(show) = self.notices.0.get() {
            show(update);
        }
    }

    /// Look at one of the run's events, and apply what it does.
    #[cfg(test)]
    fn see(&mut self, event: &AgentEvent) {
        for u in self.updates(event) {
            self.apply(u);
        }
    }
}

/// The notice `event` deserves in a run that started `elapsed` ago, if any:
/// every approval request (a sub-agent's too: the run waits on it), a
/// proposed plan, and the end or failure of the run itself after
/// [`LONG_RUN`]. A stop is the person's own doing (or the app's quit),
/// never announced. The text is plain: what the model chose (a command, an
/// error) has `&`, `<` and `>` escaped, since notification servers read
/// the body as markup (links, pictures).
pub fn notice_for(event: &AgentEvent, elapsed: Duration, prompt: Option<&str>) -> Option<Notice> {
    let asked = || {
        prompt
            .map(|p| format!(" to “{}”", quote(p)))
            .unwrap_or_default()
    };
    match &event.kind {
        EventKind::ApprovalRequested {
            tool,
            reach,
            request_id,
            ..
        } => Some(Notice {
            title: format!("Hearth asks before running {tool}"),
            body: format!("{}\nApprove or deny it in Hearth.", cut(reach, REACH_CHARS)),
            request_id: Some(request_id.clone()),
            session_id: event.scope.session_id.clone(),
        }),
        EventKind::PlanProposed { request_id, .. } => Some(Notice {
            title: "Hearth: a plan waits for you".to_owned(),
            body: format!(
                "The plan{} is ready: run it, edit it or cancel it in Hearth.",
                asked()
            ),
            request_id: Some(request_id.clone()),
            session_id: event.scope.session_id.clone(),
        }),
        EventKind::StreamEnd { .. } if !event.scope.is_subagent && elapsed >= LONG_RUN => {
            Some(Notice {
                title: "Hearth: the answer is ready".to_owned(),
                body: format!("The answer{} is ready.", asked()),
                request_id: None,
                session_id: event.scope.session_id.clone(),
            })
        }
        EventKind::Error { error, .. } if !event.scope.is_subagent && elapsed >= LONG_RUN => {
            Some(Notice {
                title: "Hearth: the answer failed".to_owned(),
                body: format!(
                    "The answer{} failed: {}",
                    asked(),
                    cut(&error.message, QUOTE_CHARS)
                ),
                request_id: None,
                session_id: event.scope.session_id.clone(),
            })
        }
        _ => None,
    }
}

/// `text` on one line, cut to [`QUOTE_CHARS`] characters with an ellipsis.
fn quote(text: &str) -> String {
    cut(text, QUOTE_CHARS)
}

/// `text` on one line, cut to `max` characters with an ellipsis, and
/// escaped for a body read as markup.
fn cut(text: &str, max: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let line = match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    };
    line.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use hearth_protocol::{ErrorCode, ErrorInfo, Recovery, RunScope, StopReason};

    fn event(kind: EventKind) -> AgentEvent {
        AgentEvent {
            scope: RunScope::top("s1", "r1"),
            kind,
            seq: 1,
        }
    }

    fn approval() -> EventKind {
        EventKind::ApprovalRequested {
            request_id: "q1".into(),
            call_id: "c1".into(),
            tool: "run_shell".into(),
            arguments: serde_json::json!({"command": "ls"}),
            reach: "runs `ls` in\nthe workspace".into(),
            session_allowed: false,
            warning: None,
        }
    }

    const LONG: Duration = LONG_RUN;
    const SHORT: Duration = Duration::from_secs(3);

    #[test]
    fn an_approval_is_announced_at_once_with_the_tool_and_what_it_reaches() {
        let n = notice_for(&event(approval()), Duration::ZERO, Some("list")).unwrap();
        assert_eq!(n.title, "Hearth asks before running run_shell");
        assert_eq!(
            n.body,
            "runs `ls` in the workspace\nApprove or deny it in Hearth."
        );
        // A long reach keeps its start: the command and the folder.
        let mut long = event(approval());
        if let EventKind::ApprovalRequested { reach, .. } = &mut long.kind {
            *reach = format!("runs `make test` in /home/u/p, {}", "sandboxed ".repeat(40));
        }
        let body = notice_for(&long, Duration::ZERO, None).unwrap().body;
        let first = body.lines().next().unwrap();
        assert!(
            first.starts_with("runs `make test` in /home/u/p, sandboxed"),
            "{first}"
        );
        assert_eq!(first.chars().count(), REACH_CHARS + 1);
        assert!(first.ends_with('…'));
        // A sub-agent's approval holds its parent's run too.
        let mut sub = event(approval());
        sub.scope.is_subagent = true;
        assert!(notice_for(&sub, Duration::ZERO, None).is_some());
    }

    #[test]
    fn only_a_long_runs_end_or_failure_is_announced_never_a_stop() {
        let end = event(EventKind::StreamEnd { iterations: 1 });
        assert_eq!(notice_for(&end, SHORT, Some("hi")), None);
        let n = notice_for(&end, LONG, Some("Summarize the report")).unwrap();
        assert_eq!(n.body, "The answer to “Summarize the report” is ready.");
        let failed = event(EventKind::Error {
            error: ErrorInfo {
                code: ErrorCode::BackendUnreachable,
                recovery: Recovery::Retry,
                message: "Ollama is not reachable".into(),
                details: None,
            },
            partial_text: String::new(),
        });
        assert_eq!(notice_for(&failed, SHORT, None), None);
        assert_eq!(
            notice_for(&failed, LONG, None).unwrap().body,
            "The answer failed: Ollama is not reachable"
        );
        let stopped = event(EventKind::StreamStopped {
            reason: StopReason::User,
            partial_text: "so far".into(),
        });
        assert_eq!(notice_for(&stopped, LONG, None), None);
        // A sub-agent's end is not the answer.
        let mut sub = end.clone();
        sub.scope.is_subagent = true;
        assert_eq!(notice_for(&sub, LONG, None), None);
        let text = event(EventKind::TextDelta {
            delta: "hello".into(),
        });
        assert_eq!(notice_for(&text, LONG, None), None);
    }

    #[test]
    fn what_the_model_chose_cannot_become_markup() {
        let mut call = event(approval());
        if let EventKind::ApprovalRequested { reach, .. } = &mut call.kind {
            *reach = r#"runs `make 2>&1 <in` <a href="https://x.example">here</a>"#.into();
        }
        let body = notice_for(&call, Duration::ZERO, None).unwrap().body;
        assert_eq!(
            body.lines().next().unwrap(),
            r#"runs `make 2&gt;&amp;1 &lt;in` &lt;a href="https://x.example"&gt;here&lt;/a&gt;"#
        );
        let plan = event(EventKind::PlanProposed {
            request_id: "p1".into(),
            plan: "1. <b>x</b>".into(),
        });
        let n = notice_for(&plan, Duration::ZERO, Some("Fix <the> test")).unwrap();
        assert_eq!(n.title, "Hearth: a plan waits for you");
        assert_eq!(
            n.body,
            "The plan to “Fix &lt;the&gt; test” is ready: run it, edit it or cancel it in Hearth."
        );
    }

    #[test]
    fn a_long_prompt_is_quoted_on_one_line_and_cut() {
        let prompt = format!("first line\n{}", "é".repeat(200));
        let n = notice_for(
            &event(EventKind::StreamEnd { iterations: 1 }),
            LONG,
            Some(&prompt),
        )
        .unwrap();
        let quoted = n.body.split('“').nth(1).unwrap().split('”').next().unwrap();
        assert!(quoted.starts_with("first line é"), "{quoted}");
        assert!(quoted.ends_with('…'));
        assert_eq!(quoted.chars().count(), QUOTE_CHARS + 1);
    }

    #[test]
    fn a_watch_shows_nothing_until_the_shell_sets_where_notices_go() {
        let notices = Notices::default();
        let mut watch = notices.watch("s1".into(), None);
        watch.see(&event(approval()));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        notices.set(move |n| sink.lock().unwrap().push(n));
        watch.see(&event(approval()));
        watch.see(&event(EventKind::StreamEnd { iterations: 1 }));
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 2, "{seen:?}");
        let Update::Show(n) = &seen[0] else {
            panic!("{seen:?}")
        };
        assert_eq!(n.title, "Hearth asks before running run_shell");
        assert_eq!(n.request_id.as_deref(), Some("q1"));
        assert_eq!(n.session_id, "s1");
        // The run ended with the request open: its notice goes with it.
        assert_eq!(
            seen[1],
            Update::Withdraw {
                requests: vec!["q1".into()],
                why: "the run ended"
            }
        );
    }

    fn asked(id: &str) -> AgentEvent {
        let mut e = event(approval());
        if let EventKind::ApprovalRequested { request_id, .. } = &mut e.kind {
            *request_id = id.into();
        }
        e
    }

    fn withdrawn(updates: &[Update]) -> Vec<String> {
        updates
            .iter()
            .flat_map(|u| match u {
                Update::Withdraw { requests, .. } => requests.clone(),
                Update::Show(_) => Vec::new(),
            })
            .collect()
    }

    #[test]
    fn a_notice_that_asks_is_withdrawn_once_answered_or_once_the_run_ends() {
        let mut watch = Notices::default().watch("s1".into(), Some("tidy up".into()));
        for id in ["q1", "q2", "q3"] {
            assert!(matches!(watch.updates(&asked(id))[..], [Update::Show(_)]));
        }
        let answered = |id: &str| {
            event(EventKind::ApprovalResolved {
                request_id: id.into(),
                decision: hearth_protocol::ApprovalDecision::Deny,
            })
        };
        assert_eq!(withdrawn(&watch.updates(&answered("q2"))), ["q2"]);
        // Answered twice (a sub-agent's echo), or a request never shown.
        assert!(watch.updates(&answered("q2")).is_empty());
        assert!(watch.updates(&answered("q9")).is_empty());
        // A sub-agent's end is not the run's.
        let mut sub_end = event(EventKind::StreamEnd { iterations: 1 });
        sub_end.scope.is_subagent = true;
        assert!(watch.updates(&sub_end).is_empty());
        let stopped = event(EventKind::StreamStopped {
            reason: StopReason::User,
            partial_text: String::new(),
        });
        assert_eq!(withdrawn(&watch.updates(&stopped)), ["q1", "q3"]);
        assert!(watch.updates(&stopped).is_empty());

        let mut watch = Notices::default().watch("s1".into(), None);
        watch.updates(&event(EventKind::PlanProposed {
            request_id: "p1".into(),
            plan: "1. x".into(),
        }));
        let answered = event(EventKind::PlanAnswered {
            request_id: "p1".into(),
            choice: hearth_protocol::PlanChoice::Cancelled,
        });
        assert_eq!(withdrawn(&watch.updates(&answered)), ["p1"]);
    }

    #[test]
    fn a_sub_agents_notice_is_about_the_session_the_person_is_in() {
        let mut watch = Notices::default().watch("s1".into(), None);
        let mut sub = asked("q1");
        sub.scope.session_id = "subagent_7".into();
        sub.scope.is_subagent = true;
        let [Update::Show(n)] = &watch.updates(&sub)[..] else {
            panic!("a sub-agent's approval is announced")
        };
        assert_eq!(n.session_id, "s1", "a click opens the person's session");
    }
}
