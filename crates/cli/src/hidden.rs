//! A line typed at the terminal without showing it: an API key given to
//! `hearth hosts add --api-key-stdin` by hand. (Piped in, it is read as
//! is.)
//!
//! The echo is turned off *before* the prompt is written, so nothing typed
//! after the prompt appears can be shown. rpassword, the usual crate,
//! writes the prompt first and hides the input after: a key pasted at once
//! lands in that gap and is shown (docs/adr/0012-hidden-key-input.md).
//! Ctrl+C at the prompt gives the terminal its echo back before the
//! command ends: killed by the signal, it would stay silent for the shell.

use std::io::{BufRead, Write};

/// The first line of stdin, without its line end; at a terminal, `prompt`
/// is written to stderr and what is typed is not shown.
pub async fn read_line(prompt: &str) -> std::io::Result<String> {
    #[cfg(unix)]
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        return read_quietly(prompt).await;
    }
    let _ = prompt;
    tokio::task::spawn_blocking(first_line)
        .await
        .map_err(std::io::Error::other)?
}

fn first_line() -> std::io::Result<String> {
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

/// At a terminal: Ctrl+C is caught before the echo goes off (a
/// `SIGINT` in between would end the command with the echo off), and ends
/// the command once the terminal is restored, with the shell's status for
/// an interrupt.
#[cfg(unix)]
async fn read_quietly(prompt: &str) -> std::io::Result<String> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupts = signal(SignalKind::interrupt())?;
    let quiet = Quiet::start()?;
    let mut err = std::io::stderr();
    write!(err, "{prompt}")?;
    err.flush()?;
    let line = tokio::select! {
        line = tokio::task::spawn_blocking(first_line) => line.map_err(std::io::Error::other)?,
        _ = interrupts.recv() => {
            drop(quiet);
            eprintln!();
            std::process::exit(130);
        }
    };
    drop(quiet);
    // A handled SIGINT stays handled for the process: a later Ctrl+C (while
    // the host is asked) still ends the command.
    tokio::spawn(async move {
        interrupts.recv().await;
        std::process::exit(130);
    });
    line
}

/// The terminal's echo turned off until dropped (on an error too). The
/// Enter still moves to the next line (ECHONL).
#[cfg(unix)]
struct Quiet {
    saved: rustix::termios::Termios,
}

#[cfg(unix)]
impl Quiet {
    fn start() -> std::io::Result<Self> {
        use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
        use std::os::fd::AsFd;
        let stdin = std::io::stdin();
        let saved = tcgetattr(stdin.as_fd())?;
        let mut quiet = saved.clone();
        quiet.local_modes.remove(LocalModes::ECHO);
        quiet.local_modes.insert(LocalModes::ECHONL);
        tcsetattr(stdin.as_fd(), OptionalActions::Now, &quiet)?;
        Ok(Self { saved })
    }
}

#[cfg(unix)]
impl Drop for Quiet {
    fn drop(&mut self) {
        use std::os::fd::AsFd;
        let _ = rustix::termios::tcsetattr(
            std::io::stdin().as_fd(),
            rustix::termios::OptionalActions::Now,
            &self.saved,
        );
    }
}
