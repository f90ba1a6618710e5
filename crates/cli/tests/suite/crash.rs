//! Crash safety: SIGKILL the CLI mid-run, many times (mid-stream, around
//! tool results, during prompt evaluation). Each kill first waits for an
//! event that puts the run where the kill should land — the n-th answer
//! piece or tool event on the child's `--json` output, or the simulator
//! holding the prompt evaluation — then waits a seeded random offset. A
//! kill counts when the store had to repair the run it cut, i.e. it really
//! landed mid-run; the test goes on until it has `KILLS` of them, so
//! machine speed changes how many attempts that takes, not the outcome.
//! After every kill the database is sound, nothing that was complete is
//! lost, every session is a valid conversation, and the next turn in that
//! session works.

use std::collections::{HashMap, HashSet};
use std::process::Stdio;
use std::time::{Duration, Instant};

use hearth_core::{ChatMessage, MessageStatus, Role, SessionStore};
use hearth_protocol::{AgentEvent, EventKind};
use hearth_sim::{Hold, ModelSpec, Reply, Script, ToolCallSpec};
use hearth_store::{OUTCOME_UNKNOWN, Store};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::ChildStdout;

use super::basics::{T, hearth, output, sim};
use crate::MODEL;

/// Kills that must land mid-run.
const KILLS: usize = 120;
/// Attempts allowed to get them: a kill whose random offset outlasts the
/// run does not count.
const MAX_ATTEMPTS: usize = 2 * KILLS;
/// The whole test's bound; it only ends a hang.
const DEADLINE: Duration = Duration::from_secs(900);
const SESSIONS: usize = 5;

/// Seeded xorshift: the same kill moments on every run.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// An event of the run on the child's `--json` output.
#[derive(Debug, Clone, Copy)]
enum Mark {
    Text,
    ToolStarted,
    ToolEnded,
}

impl Mark {
    fn matches(self, kind: &EventKind) -> bool {
        matches!(
            (self, kind),
            (Self::Text, EventKind::TextDelta { .. })
                | (Self::ToolStarted, EventKind::ToolStarted { .. })
                | (Self::ToolEnded, EventKind::ToolEvent { .. })
        )
    }
}

/// Where a kill is aimed: what it waits for before its random offset.
#[derive(Debug, Clone, Copy)]
enum Moment {
    /// The n-th such event of the run (1-based).
    After(Mark, u64),
    /// The simulator holds the turn's prompt evaluation (the run cannot
    /// end before the kill).
    Evaluating,
}

fn base() -> Script {
    Script::with_models(vec![ModelSpec::new(MODEL).with_capabilities(&["tools"])])
}

/// Sixty answer pieces, ` word0` to ` word59`.
fn story() -> String {
    (0..60).map(|w| format!(" word{w}")).collect()
}

/// A long streamed answer.
fn long_answer() -> Script {
    base().with_reply(Reply::text(story()).with_token_ms(3))
}

/// Turn `i`'s script and where its kill is aimed.
fn turn(i: usize, rng: &mut Rng) -> (Script, Moment) {
    let base = base();
    match i % 3 {
        // Kills land mid-stream, with checkpoints.
        0 => (long_answer(), Moment::After(Mark::Text, 1 + rng.below(50))),
        // Two tool rounds then an answer: kills land around tool results.
        1 => {
            let script = base
                .with_reply(
                    Reply::tool_calls(vec![
                        ToolCallSpec::new("calculator", json!({"expression": "6*7"})),
                        ToolCallSpec::new("current_time", json!({})),
                    ])
                    .with_token_ms(5),
                )
                .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
                    "calculator",
                    json!({"expression": "1+1"}),
                )]))
                .with_reply(Reply::text(story()).with_token_ms(2));
            // Three calls in all, then 60 answer pieces.
            let moment = match rng.below(3) {
                0 => Moment::After(Mark::ToolStarted, 1 + rng.below(3)),
                1 => Moment::After(Mark::ToolEnded, 1 + rng.below(3)),
                _ => Moment::After(Mark::Text, 1 + rng.below(50)),
            };
            (script, moment)
        }
        // Held prompt evaluation: kills land before any output.
        _ => (base.with_reply(Reply::text("short")), Moment::Evaluating),
    }
}

/// Reads the run's events until the `nth` `mark`; an error when the run or
/// its output ends first.
async fn reached(
    lines: &mut Lines<BufReader<ChildStdout>>,
    mark: Mark,
    nth: u64,
) -> Result<(), String> {
    let mut seen = 0;
    while let Some(line) = lines.next_line().await.unwrap() {
        let e: AgentEvent = serde_json::from_str(&line).unwrap();
        if e.scope.is_subagent {
            continue;
        }
        if e.kind.is_terminal() {
            return Err(format!("the run ended after {seen}: {line}"));
        }
        if mark.matches(&e.kind) {
            seen += 1;
            if seen == nth {
                return Ok(());
            }
        }
    }
    Err(format!("the output ended after {seen}"))
}

/// Every tool call on the branch has exactly one result.
fn assert_valid(session: &str, history: &[ChatMessage]) {
    let results: Vec<&str> = history
        .iter()
        .filter(|m| m.role == Role::Tool)
        .filter_map(|m| m.tool_call_id.as_deref())
        .collect();
    let unique: HashSet<&str> = results.iter().copied().collect();
    assert_eq!(
        unique.len(),
        results.len(),
        "{session}: a call answered twice: {history:#?}"
    );
    for m in history {
        for c in &m.tool_calls {
            assert!(
                unique.contains(c.id.as_str()),
                "{session}: call {} has no result: {history:#?}",
                c.id
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_at_random_moments_loses_nothing_complete() {
    let dir = tempfile::tempdir().unwrap();
    let db_path = dir.path().join("h.sqlite");
    let db = db_path.to_str().unwrap().to_owned();
    let sim = sim(Script::default()).await;
    let url = sim.url();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut before: HashMap<String, Vec<ChatMessage>> = HashMap::new();
    let started = Instant::now();
    let (mut kills, mut attempts) = (0, 0);

    while kills < KILLS {
        assert!(
            attempts < MAX_ATTEMPTS,
            "only {kills} of {attempts} kills landed mid-run (want {KILLS})"
        );
        assert!(
            started.elapsed() < DEADLINE,
            "{kills} mid-run kills in {attempts} attempts, then the {DEADLINE:?} bound passed"
        );
        let i = attempts;
        attempts += 1;
        let session = format!("s{}", i % SESSIONS);
        let (script, moment) = turn(i, &mut rng);
        sim.set_script(script);
        if matches!(moment, Moment::Evaluating) {
            sim.hold(Hold::PromptEval);
        }
        let evals = sim.stats().prompt_evals;
        let msg = format!("turn {i}");
        let mut cmd = hearth(&[
            "chat",
            "--db",
            &db,
            "--url",
            &url,
            "--model",
            MODEL,
            "--session",
            &session,
            "--json",
            &msg,
        ]);
        // Shown with the test's output if it fails.
        cmd.stderr(Stdio::inherit());
        let mut child = cmd.spawn().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();

        let aimed = match moment {
            Moment::After(mark, nth) => tokio::time::timeout(T, reached(&mut lines, mark, nth))
                .await
                .unwrap_or_else(|_| Err(format!("no {mark:?} #{nth} within {T:?}"))),
            Moment::Evaluating => sim
                .wait_until(|s| s.prompt_evals > evals, T)
                .await
                .map(drop)
                .map_err(|s| format!("no prompt evaluation within {T:?}: {s:?}")),
        };
        if let Err(e) = aimed {
            let _ = child.start_kill();
            panic!("turn {i}, aiming at {moment:?}: {e}");
        }
        let offset = match moment {
            Moment::After(..) => rng.below(16),
            Moment::Evaluating => rng.below(30),
        };
        tokio::time::sleep(Duration::from_millis(offset)).await;
        child.start_kill().unwrap();
        let status = tokio::time::timeout(T, child.wait())
            .await
            .expect("a killed child is reaped")
            .unwrap();
        sim.release(Hold::PromptEval);
        // Killed, or done by itself when the offset outlasted the run.
        assert!(
            status.code().is_none() || status.success(),
            "turn {i}: {status:?}"
        );

        let (store, report) = Store::open(&db_path).await.unwrap();
        assert!(report.recovered_runs <= 1, "turn {i}: {report:?}");
        let mid_run = report.recovered_runs == 1;
        if mid_run {
            kills += 1;
            assert!(
                status.code().is_none(),
                "turn {i}: exited with its run open"
            );
            // The cut answer still says what wrote it, and that it was cut
            // off rather than stopped (user pass 2026-12, defect 31), even
            // when the kill came before any model call ended.
            let runs = store.answer_runs(&session).await.unwrap();
            let cut = runs.last().unwrap();
            assert_eq!(
                (cut.model.as_deref(), cut.host.as_deref(), cut.cut_off),
                (Some(MODEL), Some("ollama"), true),
                "turn {i}: {runs:?}"
            );
            assert!(runs[..runs.len() - 1].iter().all(|r| r.model.is_some()));
        }
        assert_eq!(store.integrity_check().await.unwrap(), "ok", "turn {i}");
        for s in 0..SESSIONS {
            let id = format!("s{s}");
            let h = store.history(&id).await.unwrap();
            assert_valid(&id, &h);
            // Append-only: what was there before is still there, unchanged.
            let old = before.get(&id).cloned().unwrap_or_default();
            assert!(h.len() >= old.len(), "turn {i}: {id} lost messages");
            assert_eq!(&h[..old.len()], &old[..], "turn {i}: {id} changed");
            before.insert(id, h);
        }
        if matches!(moment, Moment::Evaluating) {
            // Held: the kill could only land mid-run, before any output, and
            // the repair added nothing after the user's message.
            assert!(mid_run, "turn {i}: {report:?}");
            let last = before[&session].last().unwrap();
            assert_eq!(
                (last.role, last.content.as_str()),
                (Role::User, msg.as_str())
            );
        }
        drop(store);

        // Every tenth turn: the next turn in that session works to the end.
        if i % 10 == 9 {
            sim.set_script(long_answer());
            let out = output(hearth(&[
                "chat",
                "--db",
                &db,
                "--url",
                &url,
                "--model",
                MODEL,
                "--session",
                &session,
                "next",
            ]))
            .await;
            assert!(
                out.status.success(),
                "turn {i}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(String::from_utf8_lossy(&out.stdout).contains("word59"));
        }
    }

    let (mut unknown, mut interrupted) = (0, 0);
    for h in before.values() {
        unknown += h.iter().filter(|m| m.content == OUTCOME_UNKNOWN).count();
        interrupted += h
            .iter()
            .filter(|m| m.status == MessageStatus::Interrupted)
            .count();
    }
    eprintln!(
        "{attempts} attempts, {kills} killed mid-run, {interrupted} interrupted answers, {unknown} outcome-unknown results"
    );
    assert!(
        interrupted > 0,
        "some kills landed mid-stream and were recovered"
    );
    // Kills between a tool call and its result are rare (built-in tools are
    // instant); hearth-store's own tests cover that repair deterministically.
}
