//! `hearth plan` (and `hearth chat "/plan …"`): the workflow's phases on
//! the terminal, and the question its plan waits on — run, edit in
//! `$VISUAL`/`$EDITOR`, or cancel.

use std::io::Write;

use hearth_protocol::{
    AgentEvent, EventKind, PhaseOutcome, PlanAnswer, PlanChoice, Verdict, WorkflowPhase,
};

use crate::chat::{shown, text};

/// What of a phase's own sub-run is not printed: its streaming (the report
/// is printed whole when the phase ends) and its own end (the phase's end
/// says how it went). Its tool calls and questions are printed as any.
pub(crate) fn is_phase_talk(event: &AgentEvent) -> bool {
    event.scope.is_subagent
        && event
            .scope
            .parent_call_id
            .as_deref()
            .is_some_and(|c| c.starts_with("phase_"))
        && !matches!(
            event.kind,
            EventKind::ToolStarted { .. }
                | EventKind::ToolEvent { .. }
                | EventKind::ApprovalRequested { .. }
                | EventKind::ApprovalResolved { .. }
                | EventKind::InputFlagged { .. }
        )
}

/// Print one of the workflow's own events (on stderr: stdout carries the
/// implement passes' answers).
pub(crate) fn print(kind: &EventKind) {
    match kind {
        EventKind::PhaseStarted { phase, cycle, .. } => match phase {
            WorkflowPhase::Explore => eprintln!("[explore] reading (nothing can be changed)"),
            WorkflowPhase::Plan => eprintln!("[plan] writing the plan from the findings"),
            WorkflowPhase::Implement => eprintln!("[implement] pass {cycle}"),
            WorkflowPhase::Review => {
                eprintln!("[review] checking pass {cycle} (reads and runs, writes nothing)");
            }
        },
        EventKind::PhaseEnded {
            phase,
            outcome,
            report,
            ..
        } => match (phase, outcome) {
            (WorkflowPhase::Explore, PhaseOutcome::Done) => {
                eprintln!("[explore] findings:\n{}", text(report));
            }
            // The plan is printed with its question; a pass's answer was
            // streamed; the review's verdict follows.
            (WorkflowPhase::Plan | WorkflowPhase::Implement, PhaseOutcome::Done) => {}
            (WorkflowPhase::Review, PhaseOutcome::Done) => {
                eprintln!("[review]\n{}", text(report));
            }
            (p, PhaseOutcome::Stopped) => eprintln!("[{}] stopped", p.as_str()),
            (p, PhaseOutcome::Failed) => eprintln!("[{}] failed: {}", p.as_str(), shown(report)),
        },
        EventKind::PlanProposed { plan, .. } => eprintln!("[plan]\n{}", text(plan)),
        EventKind::PlanAnswered { choice, .. } => eprintln!(
            "[plan] {}",
            match choice {
                PlanChoice::Run => "carrying it out",
                PlanChoice::Edited => "carrying out your edit",
                PlanChoice::Cancelled => "cancelled: nothing was changed",
            }
        ),
        EventKind::ReviewVerdict {
            verdict,
            punch_list,
            fixing,
            checks,
            ..
        } => {
            let what = match verdict {
                Verdict::Done => "DONE",
                Verdict::NeedsFix => "NEEDS_FIX",
                Verdict::Unreadable => "no verdict could be read",
            };
            if *checks == 0 {
                eprintln!("[verdict] {what} (the reviewer read and ran nothing: its word alone)");
            } else {
                eprintln!("[verdict] {what} (after {checks} checks)");
            }
            for item in punch_list {
                eprintln!("  - {}", shown(item));
            }
            if *fixing {
                eprintln!("[verdict] sending it back to be fixed");
            } else if *verdict == Verdict::Unreadable {
                eprintln!(
                    "[verdict] the review gave no readable verdict again: the work is not confirmed done"
                );
            } else if *verdict != Verdict::Done {
                eprintln!("[verdict] no fix pass left: the work is not confirmed done");
            }
        }
        _ => {}
    }
}

/// Ask on the terminal what to do with the proposed plan. No answer (no
/// terminal) cancels: nothing is carried out that nobody approved.
pub(crate) async fn ask(plan: &str) -> PlanAnswer {
    loop {
        eprint!("[plan] run it [r], edit it first [e], cancel [c]? ");
        let _ = std::io::stderr().flush();
        let answer = read_line().await;
        match answer.as_str() {
            "r" | "run" | "y" | "yes" => return PlanAnswer::Run { plan: None },
            "e" | "edit" => match edit(plan.to_owned()).await {
                Ok(edited) => {
                    eprintln!("[plan] as edited:\n{}", text(&edited));
                    return PlanAnswer::Run { plan: Some(edited) };
                }
                Err(e) => eprintln!("[plan] cannot edit it: {e}"),
            },
            _ => return PlanAnswer::Cancel,
        }
    }
}

async fn read_line() -> String {
    let line = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await;
    match line {
        Ok(Ok(l)) => l.trim().to_lowercase(),
        _ => String::new(),
    }
}

/// Open `plan` in the user's editor and read it back.
async fn edit(plan: String) -> Result<String, String> {
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".into());
    tokio::task::spawn_blocking(move || {
        let path = std::env::temp_dir().join(format!(
            "hearth-plan-{}-{}.md",
            std::process::id(),
            chrono::Utc::now().timestamp_millis()
        ));
        std::fs::write(&path, plan).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let mut words = editor.split_whitespace();
        let program = words.next().unwrap_or("vi");
        let status = std::process::Command::new(program)
            .args(words)
            .arg(&path)
            .status()
            .map_err(|e| format!("cannot start `{editor}`: {e}"));
        let read = std::fs::read_to_string(&path);
        let _ = std::fs::remove_file(&path);
        match status? {
            s if s.success() => read.map_err(|e| e.to_string()),
            s => Err(format!("`{editor}` ended with {s}")),
        }
    })
    .await
    .map_err(|e| e.to_string())?
}

/// What the chat loop does with a workflow's event: answer a proposed plan
/// (`--yes` runs it; else the question, which Ctrl-C cancels), and note
/// whether the last verdict left the work unconfirmed (exit status 3).
pub(crate) async fn follow(
    kind: &EventKind,
    runs: &hearth_core::Runs,
    yes: bool,
    stop: &tokio_util::sync::CancellationToken,
    unconfirmed: &mut bool,
) {
    match kind {
        EventKind::PlanProposed { request_id, plan } => {
            let answer = if yes {
                PlanAnswer::Run { plan: None }
            } else {
                tokio::select! {
                    a = ask(plan) => a,
                    () = stop.cancelled() => PlanAnswer::Cancel,
                }
            };
            runs.answer_plan(request_id, answer);
        }
        EventKind::ReviewVerdict {
            verdict, fixing, ..
        } => *unconfirmed = !*fixing && *verdict != Verdict::Done,
        _ => {}
    }
}
