//! `hearth plan` through the real CLI, the real file and shell tools and
//! hearth-sim's scripted model: a tiny project with a failing test is
//! explored (a write the model tries there is refused), planned, fixed and
//! reviewed by running the test; the phases are stored with the run's
//! answer and traced as spans.

use std::path::PathBuf;

use hearth_protocol::{AgentEvent, EventKind, PhaseOutcome, SpanKind, Verdict, WorkflowPhase};
use hearth_sim::{Reply, ToolCallSpec};
use hearth_store::Store;
use serde_json::{Value, json};

use super::basics::{answering, hearth, ok, run_end, sim, with_workers};
use crate::MODEL;

const BROKEN: &str = "def add(a, b):\n    return a - b\n";
const FIXED: &str = "def add(a, b):\n    return a + b\n";
const TEST: &str =
    "from calc import add\nassert add(2, 2) == 4, 'add(2, 2) is not 4'\nprint('ok')\n";

fn when(mut r: Reply, phrase: &str) -> Reply {
    r.when = Some(phrase.into());
    r
}

fn call(name: &str, arguments: Value) -> Reply {
    Reply::tool_calls(vec![ToolCallSpec::new(name, arguments)])
}

const EXPLORE: &str = "You are exploring before any change";
const PLAN: &str = "Write an implementation plan";
const IMPLEMENT: &str = "Carry out this approved plan";
const FIX: &str = "A reviewer checked the work";
const REVIEW: &str = "Review finished work";

/// A project folder holding the broken `calc.py` (and, with `test`, its
/// failing test), a database beside it, and a "Coder" profile working in
/// the folder with `tools`, pre-approving `approved`.
async fn project(test: bool, tools: &str, approved: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("calc.py"), BROKEN).unwrap();
    if test {
        std::fs::write(project.join("test_calc.py"), TEST).unwrap();
    }
    let path = dir.path().join("h.sqlite");
    ok(&[
        "profiles",
        "--db",
        path.to_str().unwrap(),
        "set",
        "Coder",
        "--model",
        MODEL,
        "--tools",
        tools,
        "--workspace",
        project.to_str().unwrap(),
        "--auto-approve",
        approved,
    ])
    .await;
    (dir, project, path)
}

#[tokio::test]
async fn plan_fixes_a_failing_test_in_four_phases_and_keeps_them() {
    let (_dir, project, path) = project(
        true,
        "read_file,list_dir,write_file,run_shell",
        "write_file,run_shell",
    )
    .await;
    let db = path.to_str().unwrap();
    let script = with_workers("Fix add")
        // Explore: reads, then is talked into writing — refused.
        .with_reply(when(call("read_file", json!({"path": "calc.py"})), EXPLORE))
        .with_reply(when(
            call("write_file", json!({"path": "calc.py", "content": "pwned"})),
            EXPLORE,
        ))
        .with_reply(when(
            Reply::text("## Relevant files\n- calc.py: add() returns a - b\n- test_calc.py: asserts add(2, 2) == 4"),
            EXPLORE,
        ))
        .with_reply(when(
            Reply::text("## Files to touch\n- calc.py\n## Steps\n1. return a + b in calc.py\n## Verify\n- python3 test_calc.py"),
            PLAN,
        ))
        // Implement, first pass: a wrong fix.
        .with_reply(when(
            call("write_file", json!({"path": "calc.py", "content": "def add(a, b):\n    return a + b + 1\n"})),
            IMPLEMENT,
        ))
        .with_reply(when(Reply::text("calc.py now adds, plus one"), IMPLEMENT))
        // Review, first: runs the test, which fails.
        .with_reply(when(call("run_shell", json!({"command": "python3 test_calc.py"})), REVIEW))
        .with_reply(when(
            Reply::text("The test fails.\n{\"verdict\": \"NEEDS_FIX\", \"punch_list\": [\"add(2, 2) must be 4: use a + b\"]}"),
            REVIEW,
        ))
        // The fix pass, then the second review.
        .with_reply(when(call("write_file", json!({"path": "calc.py", "content": FIXED})), FIX))
        .with_reply(when(Reply::text("calc.py adds now"), FIX))
        .with_reply(when(call("run_shell", json!({"command": "python3 test_calc.py"})), REVIEW))
        .with_reply(when(Reply::text("It passes.\n{\"verdict\": \"DONE\"}"), REVIEW));
    let sim = sim(script).await;
    // The plan is shown and the user answers "r" (run it).
    let evs = answering(
        hearth(&[
            "plan",
            "--db",
            db,
            "--url",
            &sim.url(),
            "--profile",
            "Coder",
            "--json",
            "make the failing test in test_calc.py pass",
        ]),
        "r\n",
    )
    .await;
    assert!(
        matches!(run_end(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    assert_eq!(
        std::fs::read_to_string(project.join("calc.py")).unwrap(),
        FIXED
    );
    // The write in the exploring phase never ran.
    let refused = evs.iter().any(|e| {
        e.scope.parent_call_id.as_deref() == Some("phase_explore_0")
            && matches!(&e.kind, EventKind::ToolEvent { name, output, .. }
                if name == "write_file" && output.contains("unknown tool"))
    });
    assert!(refused, "{evs:#?}");
    // The review ran the test for real: it failed, then passed.
    let shell: Vec<String> = evs
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolEvent { name, output, .. } if name == "run_shell" => {
                Some(output.clone())
            }
            _ => None,
        })
        .collect();
    assert_eq!(shell.len(), 2, "{shell:#?}");
    assert!(shell[0].contains("add(2, 2) is not 4"), "{}", shell[0]);
    assert!(shell[1].contains("ok"), "{}", shell[1]);
    let verdicts = verdicts(&evs);
    assert_eq!(
        verdicts,
        [(Verdict::NeedsFix, true), (Verdict::Done, false)]
    );
    // What the simulator was offered in each phase (the last user message
    // names the phase): explore and plan only read, the review reads and
    // runs, the implement passes have the profile's tools.
    let mut offered: Vec<(&str, Vec<String>)> = Vec::new();
    for body in sim.chat_bodies() {
        let last = body["messages"]
            .as_array()
            .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_owned();
        let named = [
            (EXPLORE, "explore"),
            (PLAN, "plan"),
            (IMPLEMENT, "implement"),
            (FIX, "fix"),
            (REVIEW, "review"),
        ];
        let Some(phase) = named
            .iter()
            .find_map(|(p, name)| last.starts_with(p).then_some(*name))
        else {
            continue;
        };
        let mut tools: Vec<String> = body["tools"]
            .as_array()
            .map(|t| {
                t.iter()
                    .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        tools.sort();
        offered.push((phase, tools));
    }
    for (phase, tools) in &offered {
        let want: &[&str] = match *phase {
            "explore" | "plan" => &["list_dir", "read_file"],
            "review" => &["list_dir", "read_file", "run_shell"],
            _ => &["list_dir", "read_file", "run_shell", "write_file"],
        };
        assert_eq!(tools, want, "{phase}");
    }
    let phases: Vec<&str> = offered.iter().map(|(p, _)| *p).collect();
    assert_eq!(
        phases,
        [
            "explore",
            "explore",
            "explore",
            "plan",
            "implement",
            "implement",
            "review",
            "review",
            "fix",
            "fix",
            "review",
            "review"
        ]
    );

    // Every phase is kept with the run's answer, and traced.
    let run_id = evs[0].scope.run_id.clone();
    let (store, _) = Store::open(&path).await.unwrap();
    let spans: Vec<String> = store
        .spans(&run_id)
        .await
        .unwrap()
        .into_iter()
        .filter(|s| s.kind == SpanKind::Phase)
        .map(|s| s.name)
        .collect();
    assert_eq!(
        spans,
        [
            "explore",
            "plan",
            "implement",
            "review",
            "implement",
            "review"
        ]
    );
    let session = evs[0].scope.session_id.clone();
    let shown = store.answers_shown(&session).await.unwrap();
    assert_eq!(shown.len(), 1, "one run");
    assert_eq!(shown[0].0, run_id);
    let shown = Value::Array(shown[0].1.clone());
    let ended = kept_phases(&shown);
    use PhaseOutcome::Done;
    use WorkflowPhase::*;
    assert_eq!(
        ended,
        [
            (Explore, Done),
            (Plan, Done),
            (Implement, Done),
            (Review, Done),
            (Implement, Done),
            (Review, Done)
        ]
    );
    let text = shown.to_string();
    assert!(
        text.contains("add() returns a - b"),
        "the findings are kept"
    );
    assert!(
        text.contains("1. return a + b in calc.py"),
        "the plan is kept"
    );
    assert!(text.contains("review_verdict"), "the verdicts are kept");
}

fn verdicts(evs: &[AgentEvent]) -> Vec<(Verdict, bool)> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::ReviewVerdict {
                verdict, fixing, ..
            } => Some((*verdict, *fixing)),
            _ => None,
        })
        .collect()
}

/// The `phase_ended` events a stored session shows again.
fn kept_phases(shown: &Value) -> Vec<(WorkflowPhase, PhaseOutcome)> {
    shown
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "phase_ended")
        .map(|e| {
            (
                serde_json::from_value(e["phase"].clone()).unwrap(),
                serde_json::from_value(e["outcome"].clone()).unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn plan_without_an_answer_carries_out_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let script = with_workers("Nothing")
        .with_reply(when(Reply::text("## Relevant files\n- none"), EXPLORE))
        .with_reply(when(Reply::text("## Steps\n1. delete everything"), PLAN))
        .with_reply(when(
            call("write_file", json!({"path": "x", "content": "x"})),
            IMPLEMENT,
        ));
    let sim = sim(script).await;
    let mut cmd = hearth(&[
        "plan",
        "--db",
        db.to_str().unwrap(),
        "--url",
        &sim.url(),
        "--model",
        MODEL,
        "--json",
        "tidy the project",
    ]);
    cmd.stdin(std::process::Stdio::null());
    let out = super::basics::output(cmd).await;
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let evs = super::basics::events(&out.stdout);
    assert!(evs.iter().any(|e| matches!(
        &e.kind,
        EventKind::PlanAnswered {
            choice: hearth_protocol::PlanChoice::Cancelled,
            ..
        }
    )));
    assert!(!evs.iter().any(|e| matches!(
        &e.kind,
        EventKind::PhaseStarted {
            phase: WorkflowPhase::Implement,
            ..
        }
    )));
}

/// The review runs commands with the project folder read-only, under
/// either sandbox: a reviewer talked into "fixing" things itself (even
/// with run_shell pre-approved) changes nothing, and can still read.
#[tokio::test]
async fn the_review_cannot_write_even_through_the_shell() {
    for landlock in [false, true] {
        let (dir, project, path) =
            project(false, "read_file,write_file,run_shell", "write_file").await;
        let db = path.to_str().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let attack = "echo pwned > calc.py; echo new > new.txt; cat calc.py";
        let script = with_workers("Review")
            .with_reply(when(Reply::text("## Relevant files\n- calc.py"), EXPLORE))
            .with_reply(when(Reply::text("## Steps\n1. fix calc.py"), PLAN))
            .with_reply(when(Reply::text("I changed nothing."), IMPLEMENT))
            .with_reply(when(call("run_shell", json!({"command": attack})), REVIEW))
            .with_reply(when(Reply::text("{\"verdict\": \"DONE\"}"), REVIEW));
        let sim = sim(script).await;
        let mut cmd = hearth(&[
            "plan",
            "--db",
            db,
            "--url",
            &sim.url(),
            "--profile",
            "Coder",
            "--yes",
            "--json",
            "fix calc.py",
        ]);
        if landlock {
            cmd.env("HEARTH_SANDBOX", "landlock");
        }
        cmd.env("TMPDIR", &tmp);
        // The user allows the reviewer's command (as a user fooled by it would).
        let evs = answering(cmd, "y\n").await;
        let mechanism = if landlock { "Landlock" } else { "bubblewrap" };
        assert!(
            matches!(run_end(&evs), EventKind::StreamEnd { .. }),
            "{mechanism}: {evs:#?}"
        );
        assert_eq!(
            std::fs::read_to_string(project.join("calc.py")).unwrap(),
            BROKEN,
            "{mechanism}"
        );
        assert!(!project.join("new.txt").exists(), "{mechanism}");
        let reach = evs
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::ApprovalRequested { reach, .. } => Some(reach.clone()),
                _ => None,
            })
            .expect("the command was put to the user");
        let named = if landlock {
            "sandboxed by Landlock and seccomp"
        } else {
            "sandboxed by bubblewrap"
        };
        assert!(reach.contains(named), "{mechanism}: {reach}");
        assert!(reach.contains("the folder is read-only too"), "{reach}");
        let output = evs
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::ToolEvent { name, output, .. } if name == "run_shell" => {
                    Some(output.clone())
                }
                _ => None,
            })
            .expect("the reviewer's command ran");
        assert!(
            output.contains("return a - b"),
            "{mechanism}: it could read: {output}"
        );
        assert!(
            output.contains("Read-only") || output.contains("ermission denied"),
            "{mechanism}: {output}"
        );
    }
}
