//! The user's hooks around tool calls, as commands run in the sandbox by
//! the real binary: one blocks a shell command with `rm` (the model is
//! told why, nothing is deleted), one rewrites a path, one that times out
//! blocks its call (fails closed), and one after a read redacts a secret
//! before the model sees it.

use hearth_protocol::{AgentEvent, EventKind, ToolOutcome};
use hearth_sim::{Reply, ToolCallSpec};
use serde_json::json;

use super::basics::{answering, hearth, ok, output, run_end, sim, turn_bodies, with_workers};

/// A test folder (its workspace is what the sandbox lets the hooks see
/// wherever the clone lives: bubblewrap gives them a private /tmp).
fn dir(name: &str) -> std::path::PathBuf {
    let d = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("hooks-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A Python hook script in `dir` (outside the workspace, where the model
/// cannot rewrite it; the sandbox shows it read-only), run as
/// `python3 SCRIPT`.
fn script(dir: &std::path::Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!("import json, sys\nevent = json.load(sys.stdin)\n{body}\n"),
    )
    .unwrap();
    format!("python3 {}", path.display())
}

fn results(evs: &[AgentEvent]) -> Vec<(String, ToolOutcome, String)> {
    evs.iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolEvent {
                name,
                outcome,
                output,
                ..
            } => Some((name.clone(), *outcome, output.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn hooks_block_rewrite_fail_closed_and_redact() {
    let home = dir("all");
    let ws = home.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("keep.txt"), "precious").unwrap();
    std::fs::write(ws.join("config.txt"), "token = SECRET-123\n").unwrap();
    let db = home.join("h.sqlite");
    let db = db.to_str().unwrap();
    let scripts = home.join("hooks");
    std::fs::create_dir_all(&scripts).unwrap();

    let block_rm = script(
        &scripts,
        "block_rm.py",
        r#"
if "rm" in event["arguments"]["command"].split():
    print(json.dumps({"decision": "block", "result": "rm is not allowed here; move files to trash/ instead"}))
"#,
    );
    let into_drafts = script(
        &scripts,
        "drafts.py",
        r#"
args = dict(event["arguments"])
if not args["path"].startswith("drafts/"):
    args["path"] = "drafts/" + args["path"]
print(json.dumps({"arguments": args}))
"#,
    );
    let redact = script(
        &scripts,
        "redact.py",
        r#"
print(json.dumps({"result": event["output"].replace("SECRET-123", "[redacted]")}))
"#,
    );
    let hooks = json!({
        "before_tool_call": [
            {"command": block_rm, "tools": ["run_shell"]},
            {"command": into_drafts, "tools": ["write_file"]},
            {"command": "sleep 30", "tools": ["list_dir"], "timeout_secs": 1}
        ],
        "after_tool_call": [
            {"command": redact, "tools": ["read_*"]}
        ]
    });
    let file = home.join("hooks.json");
    std::fs::write(&file, hooks.to_string()).unwrap();
    ok(&["hooks", "set", "--db", db, file.to_str().unwrap()]).await;
    let shown = ok(&["hooks", "show", "--db", db]).await;
    assert!(shown.contains("block_rm.py"), "{shown}");
    ok(&[
        "profiles",
        "set",
        "--db",
        db,
        "Hooked",
        "--model",
        crate::MODEL,
        "--tools",
        "all",
        "--workspace",
        ws.to_str().unwrap(),
        "--auto-approve",
        "run_shell,write_file,read_file,list_dir",
    ])
    .await;

    let sim = sim(with_workers("Hooks")
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "run_shell",
            json!({"command": "rm -f keep.txt"}),
        )]))
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "write_file",
            json!({"path": "plan.md", "content": "step 1"}),
        )]))
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "list_dir",
            json!({"path": "."}),
        )]))
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "read_file",
            json!({"path": "config.txt"}),
        )]))
        .with_reply(Reply::text("Done.")))
    .await;
    let evs = answering(
        hearth(&[
            "chat",
            "--db",
            db,
            "--url",
            &sim.url(),
            "--profile",
            "Hooked",
            "--json",
            "tidy up",
        ]),
        "",
    )
    .await;
    assert!(
        matches!(run_end(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    let r = results(&evs);
    assert_eq!(r.len(), 4, "{r:#?}");

    assert_eq!(r[0].1, ToolOutcome::Denied);
    assert_eq!(
        r[0].2,
        "rm is not allowed here; move files to trash/ instead"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("keep.txt")).unwrap(),
        "precious"
    );

    assert_eq!(r[1].1, ToolOutcome::Ok, "{}", r[1].2);
    assert_eq!(
        std::fs::read_to_string(ws.join("drafts/plan.md")).unwrap(),
        "step 1"
    );
    assert!(!ws.join("plan.md").exists());

    assert_eq!(r[2].1, ToolOutcome::Denied);
    assert!(r[2].2.contains("did not answer within 1 s"), "{}", r[2].2);
    assert!(r[2].2.contains("does not run"), "fails closed: {}", r[2].2);

    assert_eq!(r[3].1, ToolOutcome::Ok);
    assert!(r[3].2.contains("token = [redacted]"), "{}", r[3].2);
    let last = turn_bodies(&sim).pop().unwrap();
    let sent = last["messages"].to_string();
    assert!(
        sent.contains("[redacted]") && !sent.contains("SECRET-123"),
        "{sent}"
    );

    // A hook whose script lies in a profile's workspace, or is named
    // relative to it, is one the model can rewrite: `hearth hooks` says so
    // (security review N13), naming the workspace.
    let inside = ws.join("guard.py");
    std::fs::write(&inside, "print('{}')").unwrap();
    let risky = json!({
        "before_tool_call": [
            {"command": format!("python3 {}", inside.display())},
            {"command": "python3 check.py"},
            {"command": block_rm}
        ]
    });
    std::fs::write(&file, risky.to_string()).unwrap();
    let out = output(hearth(&[
        "hooks",
        "set",
        "--db",
        db,
        file.to_str().unwrap(),
    ]))
    .await;
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = said.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 2, "{said}");
    assert!(
        warnings[0].contains("inside the workspace")
            && warnings[0].contains(std::fs::canonicalize(&ws).unwrap().to_str().unwrap()),
        "{said}"
    );
    assert!(
        warnings[1].contains("`check.py` from the run's workspace"),
        "{said}"
    );
    std::fs::remove_dir_all(&home).ok();
}
