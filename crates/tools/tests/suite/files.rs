//! The file tools inside the workspace: reading by lines, listing, writing
//! atomically, exact-match edits, search with .gitignore, output caps.

use std::path::Path;

use hearth_core::{Tool, ToolContext, ToolEffect};
use hearth_tools::{EditFile, ListDir, ReadFile, Scratchpad, SearchFiles, WriteFile};
use pretty_assertions::assert_eq;
use serde_json::json;

fn ctx(ws: &Path, session: &str) -> ToolContext {
    hearth_test_support::tool_context(session, Some(ws))
}

#[tokio::test]
async fn read_numbers_lines_and_pages_long_files() {
    let tmp = tempfile::tempdir().unwrap();
    let text: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(tmp.path().join("big.txt"), text).unwrap();
    let c = ctx(tmp.path(), "s");
    let first = ReadFile.call(json!({"path": "big.txt"}), &c).await.unwrap();
    assert!(first.starts_with("     1\tline 1\n"));
    let next: usize = first
        .rsplit("offset=")
        .next()
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("a continuation offset");
    assert!(
        first.contains(&format!("{:>6}\tline {}\n", next - 1, next - 1)),
        "whole lines up to the offset"
    );
    assert!(first.len() < 24_000);
    let page = ReadFile
        .call(json!({"path": "big.txt", "offset": 2999, "limit": 5}), &c)
        .await
        .unwrap();
    assert_eq!(page, "  2999\tline 2999\n  3000\tline 3000\n");
    std::fs::write(tmp.path().join("bin"), [0u8, 1, 2]).unwrap();
    let err = ReadFile.call(json!({"path": "bin"}), &c).await.unwrap_err();
    assert!(err.to_string().contains("binary"));
}

#[tokio::test]
async fn write_then_edit_exactly_once_and_refuse_ambiguity() {
    let tmp = tempfile::tempdir().unwrap();
    let c = ctx(tmp.path(), "s");
    assert_eq!(WriteFile.effect(&json!({})), ToolEffect::Mutating);
    assert_eq!(EditFile.effect(&json!({})), ToolEffect::Mutating);
    let reach = WriteFile.reach(&json!({"path": "a/b.txt", "content": "xy"}), &c);
    assert!(
        reach.contains("a/b.txt") && reach.contains("2 bytes"),
        "{reach}"
    );
    WriteFile
        .call(json!({"path": "a/b.txt", "content": "one two two"}), &c)
        .await
        .unwrap();
    let err = EditFile
        .call(
            json!({"path": "a/b.txt", "old_text": "two", "new_text": "2"}),
            &c,
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("appears 2 times"), "{err}");
    let err = EditFile
        .call(
            json!({"path": "a/b.txt", "old_text": "three", "new_text": "3"}),
            &c,
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("does not appear"), "{err}");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("a/b.txt")).unwrap(),
        "one two two"
    );
    EditFile
        .call(
            json!({"path": "a/b.txt", "old_text": "one", "new_text": "1"}),
            &c,
        )
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("a/b.txt")).unwrap(),
        "1 two two"
    );
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(tmp.path().join("a")).unwrap().collect();
    assert_eq!(names.len(), 1);
    let listing = ListDir.call(json!({}), &c).await.unwrap();
    assert_eq!(listing, "a/");
}

#[tokio::test]
async fn search_honours_gitignore_and_reports_path_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("target/debug")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
    std::fs::write(root.join("src/.gitignore"), "gen.rs\n").unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {\n    needle();\n}\n").unwrap();
    std::fs::write(root.join("src/gen.rs"), "needle").unwrap();
    std::fs::write(root.join("target/debug/out.rs"), "needle").unwrap();
    std::fs::write(root.join("run.log"), "needle").unwrap();
    std::fs::write(root.join(".git/config"), "needle").unwrap();
    let c = ctx(root, "s");
    let out = SearchFiles
        .call(json!({"pattern": "need(le)"}), &c)
        .await
        .unwrap();
    assert_eq!(out, "src/main.rs:2:     needle();");
    let out = SearchFiles
        .call(
            json!({"pattern": "NEEDLE", "case_insensitive": true, "path": "src"}),
            &c,
        )
        .await
        .unwrap();
    assert_eq!(out, "src/main.rs:2:     needle();");
    let err = SearchFiles
        .call(json!({"pattern": "("}), &c)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("bad regular expression"));
}

#[tokio::test]
async fn each_session_has_its_own_scratchpad() {
    let tmp = tempfile::tempdir().unwrap();
    let pad = Scratchpad::default();
    let (a, b) = (
        ctx(tmp.path(), "ses_a"),
        ctx(tmp.path(), "subagent_0123456789ab"),
    );
    pad.call(json!({"action": "append", "text": "note A"}), &a)
        .await
        .unwrap();
    assert_eq!(
        pad.call(json!({"action": "read"}), &b).await.unwrap(),
        "(the scratchpad is empty)"
    );
    assert_eq!(
        pad.call(json!({"action": "read"}), &a).await.unwrap(),
        "note A"
    );
    pad.call(json!({"action": "clear"}), &a).await.unwrap();
    assert_eq!(
        pad.call(json!({"action": "read"}), &a).await.unwrap(),
        "(the scratchpad is empty)"
    );
}

#[tokio::test]
async fn a_rewrite_keeps_the_files_mode() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join(".env");
    std::fs::write(&secret, "A=1").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let script = tmp.path().join("run.sh");
    std::fs::write(&script, "echo").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let c = ctx(tmp.path(), "s");
    WriteFile
        .call(json!({"path": ".env", "content": "A=2"}), &c)
        .await
        .unwrap();
    EditFile
        .call(
            json!({"path": "run.sh", "old_text": "echo", "new_text": "echo hi"}),
            &c,
        )
        .await
        .unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&secret), 0o600);
    assert_eq!(mode(&script), 0o755);
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "echo hi");
}

/// A FIFO in the workspace (one command or another tool can make it): it
/// used to block `open(2)` forever, and each call left a blocked thread
/// behind. Refused at once by the readers, skipped by the search. The
/// timeouts only bound a hang.
#[tokio::test]
async fn a_fifo_is_refused_at_once_not_waited_on() {
    let tmp = tempfile::tempdir().unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(tmp.path().join("pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::write(tmp.path().join("plain.txt"), "needle\n").unwrap();
    let c = ctx(tmp.path(), "s");
    let bound = std::time::Duration::from_secs(15);
    let err = tokio::time::timeout(bound, ReadFile.call(json!({"path": "pipe"}), &c))
        .await
        .expect("read_file returned")
        .unwrap_err();
    assert!(err.to_string().contains("not a regular file"), "{err}");
    let edit = json!({"path": "pipe", "old_text": "a", "new_text": "b"});
    let err = tokio::time::timeout(bound, EditFile.call(edit, &c))
        .await
        .expect("edit_file returned")
        .unwrap_err();
    assert!(err.to_string().contains("not a regular file"), "{err}");
    let out = tokio::time::timeout(bound, SearchFiles.call(json!({"pattern": "needle"}), &c))
        .await
        .expect("search_files returned")
        .unwrap();
    assert_eq!(out, "plain.txt:1: needle");
}

/// A FIFO named `.gitignore` (security review N5): the search read it
/// with a blocking read, and never returned. It is not a file of rules:
/// the folder is searched as if it had none. The timeout only bounds a hang.
#[tokio::test]
async fn a_fifo_named_gitignore_does_not_hold_the_search() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("src")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(tmp.path().join("src/.gitignore"))
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::write(tmp.path().join("src/lib.rs"), "needle\n").unwrap();
    let c = ctx(tmp.path(), "s");
    let bound = std::time::Duration::from_secs(15);
    let out = tokio::time::timeout(bound, SearchFiles.call(json!({"pattern": "needle"}), &c))
        .await
        .expect("search_files returned")
        .unwrap();
    assert_eq!(out, "src/lib.rs:1: needle");
}

#[test]
fn a_write_outside_the_workspace_is_refused_before_anyone_is_asked_and_the_approval_shows_the_real_path()
 {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("work");
    std::fs::create_dir_all(&ws).unwrap();
    let c = ctx(&ws, "s");
    for bad in ["../escape.txt", "/etc/passwd", "a/../../b"] {
        let write = json!({"path": bad, "content": "x"});
        let why = WriteFile.refuse(&write, &c).expect(bad);
        assert!(
            why.contains("is outside the workspace") && why.contains(&ws.display().to_string()),
            "{why}"
        );
        let edit = json!({"path": bad, "old_text": "a", "new_text": "b"});
        assert!(EditFile.refuse(&edit, &c).is_some(), "{bad}");
    }
    let inside = json!({"path": "./notes/today.md", "content": "hello"});
    assert_eq!(WriteFile.refuse(&inside, &c), None);
    assert_eq!(
        WriteFile.reach(&inside, &c),
        format!(
            "writes 5 bytes to `{}` (replacing it if it exists)",
            ws.join("notes/today.md").display()
        )
    );
    // No workspace: refused, with what to do.
    let mut none = ctx(&ws, "s");
    none.workspace = None;
    assert!(
        WriteFile
            .refuse(&inside, &none)
            .unwrap()
            .contains("no workspace folder")
    );
}
