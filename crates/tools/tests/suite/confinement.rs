//! Escapes from the workspace are refused in every form we could think of,
//! and nothing outside it is read or written.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hearth_core::{Tool, ToolContext, ToolError};
use hearth_tools::{EditFile, ListDir, ReadFile, SearchFiles, WriteFile};
use serde_json::{Value, json};

const SECRET: &str = "TOP-SECRET outside the workspace";

struct Setup {
    _tmp: tempfile::TempDir,
    ws: std::path::PathBuf,
    outside: std::path::PathBuf,
}

/// A workspace and, beside it, a folder with a secret file.
fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::fs::write(ws.join("inside.txt"), "inside").unwrap();
    Setup {
        _tmp: tmp,
        ws,
        outside,
    }
}

fn ctx(ws: &Path) -> ToolContext {
    hearth_test_support::tool_context("s", Some(ws))
}

async fn run(tool: &dyn Tool, ws: &Path, args: Value) -> Result<String, ToolError> {
    tool.call(args, &ctx(ws)).await
}

fn refused(r: &Result<String, ToolError>) -> String {
    match r {
        Ok(out) => panic!("expected a refusal, got {out:?}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(
                !msg.contains(SECRET),
                "the refusal leaked the secret: {msg}"
            );
            msg
        }
    }
}

#[tokio::test]
async fn dot_dot_and_absolute_paths_are_refused() {
    let s = setup();
    let outside_abs = s.outside.join("secret.txt");
    for path in [
        "../outside/secret.txt",
        "sub/../../outside/secret.txt",
        "./../outside/secret.txt",
        outside_abs.to_str().unwrap(),
        "/etc/passwd",
    ] {
        let msg = refused(&run(&ReadFile, &s.ws, json!({"path": path})).await);
        assert!(msg.contains("outside the workspace"), "{path}: {msg}");
    }
    // An absolute path inside the workspace is fine.
    let inside = s.ws.join("inside.txt");
    let ok = run(&ReadFile, &s.ws, json!({"path": inside.to_str().unwrap()}))
        .await
        .unwrap();
    assert!(ok.contains("inside"));
}

#[tokio::test]
async fn symlinks_out_and_symlinked_parents_are_refused_for_every_tool() {
    let s = setup();
    symlink(s.outside.join("secret.txt"), s.ws.join("link.txt")).unwrap();
    symlink(&s.outside, s.ws.join("door")).unwrap();
    symlink("/", s.ws.join("root")).unwrap();
    for path in ["link.txt", "door/secret.txt", "root/etc/passwd"] {
        refused(&run(&ReadFile, &s.ws, json!({"path": path})).await);
    }
    refused(&run(&ListDir, &s.ws, json!({"path": "door"})).await);
    refused(&run(&ListDir, &s.ws, json!({"path": "root"})).await);
    // Writes through a symlinked parent create nothing outside.
    refused(
        &run(
            &WriteFile,
            &s.ws,
            json!({"path": "door/new.txt", "content": "x"}),
        )
        .await,
    );
    assert!(!s.outside.join("new.txt").exists());
    // Writing "over" a symlink to an outside file does not change it.
    refused(
        &run(
            &WriteFile,
            &s.ws,
            json!({"path": "link.txt", "content": "x"}),
        )
        .await,
    );
    refused(
        &run(
            &EditFile,
            &s.ws,
            json!({"path": "link.txt", "old_text": "TOP", "new_text": "x"}),
        )
        .await,
    );
    assert_eq!(
        std::fs::read_to_string(s.outside.join("secret.txt")).unwrap(),
        SECRET
    );
    // The search does not follow links out.
    let found = run(&SearchFiles, &s.ws, json!({"pattern": "TOP-SECRET"}))
        .await
        .unwrap();
    assert!(found.starts_with("no matches"), "{found}");
    let found = run(&SearchFiles, &s.ws, json!({"pattern": "x", "path": "door"})).await;
    refused(&found);
}

#[tokio::test]
async fn a_symlink_swapped_in_after_any_check_is_still_refused() {
    let s = setup();
    let ws = s.ws.clone();
    let outside = s.outside.join("secret.txt");
    std::fs::write(ws.join("real.txt"), "harmless").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let (ws, stop) = (ws.clone(), stop.clone());
        std::thread::spawn(move || {
            let target = ws.join("flip.txt");
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::remove_file(&target);
                let _ = std::fs::hard_link(ws.join("real.txt"), &target)
                    .or_else(|_| std::fs::copy(ws.join("real.txt"), &target).map(|_| ()));
                let _ = std::fs::remove_file(&target);
                let _ = symlink(&outside, &target);
            }
        })
    };
    let mut read_ok = 0;
    for _ in 0..400 {
        if let Ok(out) = run(&ReadFile, &ws, json!({"path": "flip.txt"})).await {
            assert!(
                !out.contains(SECRET),
                "read the secret through a swapped link"
            );
            read_ok += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    // Whatever was read was never the secret (most reads race a missing or
    // hard-linked file and are refused, which is fine).
    let _ = read_ok;
}

#[tokio::test]
async fn hard_links_are_not_read_and_writes_never_reach_the_shared_file() {
    let s = setup();
    std::fs::hard_link(s.outside.join("secret.txt"), s.ws.join("hard.txt")).unwrap();
    let msg = refused(&run(&ReadFile, &s.ws, json!({"path": "hard.txt"})).await);
    assert!(msg.contains("hard-linked"), "{msg}");
    let found = run(&SearchFiles, &s.ws, json!({"pattern": "TOP"}))
        .await
        .unwrap();
    assert!(
        found.starts_with("no matches"),
        "search read a hard link: {found}"
    );
    refused(
        &run(
            &EditFile,
            &s.ws,
            json!({"path": "hard.txt", "old_text": "TOP", "new_text": "x"}),
        )
        .await,
    );
    // Overwriting the name replaces the workspace's entry, not the inode.
    run(
        &WriteFile,
        &s.ws,
        json!({"path": "hard.txt", "content": "new"}),
    )
    .await
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(s.outside.join("secret.txt")).unwrap(),
        SECRET
    );
    assert_eq!(
        std::fs::read_to_string(s.ws.join("hard.txt")).unwrap(),
        "new"
    );
}

#[tokio::test]
async fn odd_unicode_and_control_characters_are_refused() {
    let s = setup();
    for path in [
        "in\u{202E}txt.side",
        "inside.txt\u{0}",
        "in\u{200B}side.txt",
        "sub/\u{2066}x",
        "new\nline.txt",
    ] {
        let msg = refused(&run(&ReadFile, &s.ws, json!({"path": path})).await);
        assert!(msg.contains("control or invisible"), "{path:?}: {msg}");
        refused(&run(&WriteFile, &s.ws, json!({"path": path, "content": "x"})).await);
    }
    // Ordinary non-ASCII names work.
    run(
        &WriteFile,
        &s.ws,
        json!({"path": "sub/café ☕.txt", "content": "ok"}),
    )
    .await
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(s.ws.join("sub/café ☕.txt")).unwrap(),
        "ok"
    );
    // Nothing at all appeared outside.
    let mut names: Vec<_> = std::fs::read_dir(&s.outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, vec![std::ffi::OsString::from("secret.txt")]);
}

#[tokio::test]
async fn without_a_workspace_file_tools_refuse_clearly() {
    let mut c = ctx(Path::new("/"));
    c.workspace = None;
    let err = ReadFile
        .call(json!({"path": "etc/passwd"}), &c)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no workspace folder"), "{err}");
}
