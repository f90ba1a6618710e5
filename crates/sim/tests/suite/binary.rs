//! The `hearth-sim` binary: its listening line, serving, and exit code 2
//! for a bad script.

use std::process::Stdio;

use pretty_assertions::assert_eq;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

use super::support::T;

const BIN: &str = env!("CARGO_BIN_EXE_hearth-sim");

#[tokio::test]
async fn prints_its_listening_line_and_serves() {
    let dir = std::env::temp_dir().join(format!("hearth-sim-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        r#"{"models":[{"name":"m:1b"}],"replies":[{"content":"from file"}]}"#,
    )
    .unwrap();
    let mut child = Command::new(BIN)
        .args(["--port", "0", "--script"])
        .arg(&script)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    tokio::time::timeout(T, stdout.read_line(&mut line))
        .await
        .unwrap()
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("{line:?}"));
    let addr = url.strip_prefix("http://127.0.0.1:").unwrap();
    assert!(addr.parse::<u16>().unwrap() > 0);

    let mut s = tokio::net::TcpStream::connect(format!("127.0.0.1:{addr}"))
        .await
        .unwrap();
    let body = r#"{"model":"m:1b","stream":false,"messages":[{"role":"user","content":"x"}]}"#;
    let req = format!(
        "POST /api/chat HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    tokio::time::timeout(T, s.read_to_string(&mut out))
        .await
        .unwrap()
        .unwrap();
    assert!(out.starts_with("HTTP/1.1 200 OK"), "{out}");
    assert!(out.contains(r#""content":"from file""#), "{out}");

    child.start_kill().unwrap();
    tokio::time::timeout(T, child.wait())
        .await
        .unwrap()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_bad_script_exits_with_code_2() {
    let dir = std::env::temp_dir().join(format!("hearth-sim-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("bad.json");
    std::fs::write(&script, r#"{"replies":[{"fault":"explode"}]}"#).unwrap();
    let out = tokio::time::timeout(
        T,
        Command::new(BIN)
            .args(["--port", "0", "--script"])
            .arg(&script)
            .output(),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("invalid script") && err.contains("invalid fault \"explode\""),
        "{err}"
    );

    let missing = Command::new(BIN)
        .args(["--port", "0", "--script", "/nonexistent/x.json"])
        .output()
        .await
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}
