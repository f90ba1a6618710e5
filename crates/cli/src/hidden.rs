//! A line typed at the terminal without showing it: an API key given to
//! `hearth hosts add --api-key-stdin` by hand. (Piped in, it is read as
//! is.)
//!
//! The echo is turned off *before* the prompt is written, so nothing typed
//! after the prompt appears can be shown. rpassword, the usual crate,
//! writes the prompt first and hides the input after: a key pasted at once
//! lands in that gap and is shown (docs/adr/0012-hidden-key-input.md).

use std::io::{BufRead, Write};

/// The first line of stdin, without its line end; at a terminal, `prompt`
/// is written to stderr and what is typed is not shown.
pub fn read_line(prompt: &str) -> std::io::Result<String> {
    let stdin = std::io::stdin();
    #[cfg(unix)]
    let _quiet = if std::io::IsTerminal::is_terminal(&stdin) {
        let quiet = Quiet::start(&stdin)?;
        let mut err = std::io::stderr();
        write!(err, "{prompt}")?;
        err.flush()?;
        Some(quiet)
    } else {
        None
    };
    #[cfg(not(unix))]
    let _ = prompt;
    let mut line = String::new();
    stdin.lock().read_line(&mut line)?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

/// The terminal's echo turned off until dropped (on an error too). The
/// Enter still moves to the next line (ECHONL).
#[cfg(unix)]
struct Quiet<'a> {
    fd: std::os::fd::BorrowedFd<'a>,
    saved: rustix::termios::Termios,
}

#[cfg(unix)]
impl<'a> Quiet<'a> {
    fn start(stdin: &'a std::io::Stdin) -> std::io::Result<Self> {
        use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
        use std::os::fd::AsFd;
        let fd = stdin.as_fd();
        let saved = tcgetattr(fd)?;
        let mut quiet = saved.clone();
        quiet.local_modes.remove(LocalModes::ECHO);
        quiet.local_modes.insert(LocalModes::ECHONL);
        tcsetattr(fd, OptionalActions::Now, &quiet)?;
        Ok(Self { fd, saved })
    }
}

#[cfg(unix)]
impl Drop for Quiet<'_> {
    fn drop(&mut self) {
        let _ =
            rustix::termios::tcsetattr(self.fd, rustix::termios::OptionalActions::Now, &self.saved);
    }
}
