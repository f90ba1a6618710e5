//! `hosts add --api-key-stdin` at a terminal: the key is asked for and
//! never shown, and the terminal is left as it was, also when the prompt
//! is left with Ctrl+C. The command runs on a real pseudo-terminal
//! (util-linux `script`); input is typed only once the prompt shows (the
//! echo is off by then: a key typed before it is shown by any program),
//! and what the terminal showed is read back, with `stty -a` after it.

use std::process::Stdio;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::basics::T;

const KEY: &str = "sk-hearth-test-4f2a9c";
const PROMPT: &str = "API key for `box` (not shown): ";

/// `hosts add` on a pseudo-terminal, then the command's status and the
/// terminal's modes. No secret store is reachable: a key that was read is
/// refused after reading.
struct Terminal {
    _child: Child,
    _dir: tempfile::TempDir,
    input: ChildStdin,
    screen: ChildStdout,
    shown: Vec<u8>,
}

impl Terminal {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("tty.sqlite").display().to_string();
        let nowhere = format!("unix:path={}", dir.path().join("no-bus").display());
        let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        // The shell traps SIGINT (the terminal sends it to the whole
        // foreground group) so that it goes on to the lines after.
        let line = format!(
            "trap 'echo' INT; {} hosts add box http://127.0.0.1:1/v1 --kind openai --api-key-stdin --db {}; echo \"status $?\"; stty -a",
            quote(env!("CARGO_BIN_EXE_hearth")),
            quote(&db)
        );
        let mut child = Command::new("script")
            .args(["-qfc", &line, "/dev/null"])
            .env("DBUS_SESSION_BUS_ADDRESS", &nowhere)
            .env("HEARTH_DB", &db)
            // `script -c` runs the line with $SHELL.
            .env("SHELL", "/bin/sh")
            .env_remove("OLLAMA_HOST")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("script (util-linux) runs");
        Self {
            input: child.stdin.take().unwrap(),
            screen: child.stdout.take().unwrap(),
            _child: child,
            _dir: dir,
            shown: Vec::new(),
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.shown).into_owned()
    }

    async fn until_shown(&mut self, what: &str) {
        let mut buf = [0u8; 4096];
        let read = async {
            while !self.text().contains(what) {
                let n = self.screen.read(&mut buf).await.unwrap();
                assert!(
                    n > 0,
                    "the terminal closed before {what:?}: {}",
                    self.text()
                );
                self.shown.extend_from_slice(&buf[..n]);
            }
        };
        if tokio::time::timeout(T, read).await.is_err() {
            panic!("{what:?} in time: {}", self.text());
        }
    }

    async fn type_in(&mut self, keys: &[u8]) {
        self.input.write_all(keys).await.unwrap();
        self.input.flush().await.unwrap();
    }

    /// Everything shown until the line ends.
    async fn ended(mut self) -> String {
        tokio::time::timeout(T, self.screen.read_to_end(&mut self.shown))
            .await
            .expect("the command ended in time")
            .unwrap();
        self.text()
    }
}

fn echo_is_on(shown: &str) -> bool {
    let modes: Vec<&str> = shown.split([' ', ';', '\r', '\n']).collect();
    modes.contains(&"echo") && !modes.contains(&"-echo")
}

#[tokio::test]
async fn a_key_typed_at_a_terminal_is_not_shown() {
    let mut term = Terminal::start();
    term.until_shown(PROMPT).await;
    term.type_in(format!("{KEY}\n").as_bytes()).await;
    let shown = term.ended().await;
    // The key was read (no secret store here: refused after reading it).
    assert!(
        shown.contains("could not save the API key of host `box`"),
        "{shown}"
    );
    assert!(!shown.contains(KEY), "the key was shown: {shown}");
    assert!(echo_is_on(&shown), "the echo is back on: {shown}");
}

#[tokio::test]
async fn ctrl_c_at_the_prompt_gives_the_terminal_its_echo_back() {
    let mut term = Terminal::start();
    term.until_shown(PROMPT).await;
    // Half a key, then Ctrl+C (the terminal turns it into SIGINT).
    term.type_in(&KEY.as_bytes()[..8]).await;
    term.type_in(b"\x03").await;
    let shown = term.ended().await;
    assert!(
        shown.contains("status 130"),
        "ended as interrupted: {shown}"
    );
    assert!(!shown.contains(&KEY[..8]), "the key was shown: {shown}");
    assert!(echo_is_on(&shown), "the echo is back on: {shown}");
}
