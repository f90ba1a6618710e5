//! What a person sends to start a run, and the rules every front end used
//! to check on its own (the desktop shell and the CLI each did): a message
//! is not empty, `/plan …` starts the phased workflow and carries no
//! files, and `/plan` is never queued into a run going on. One place
//! decides; the front ends pass what the person typed.

use crate::attachment::Attachment;
use crate::error::RunError;

/// A message to send: what was typed and the files attached to it (each
/// already in the store).
#[derive(Debug, Clone, Default)]
pub struct UserInput {
    /// The typed text (`/plan …` starts the workflow).
    pub text: String,
    /// Attached files.
    pub files: Vec<Attachment>,
}

/// What a [`UserInput`] starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Start<'a> {
    /// The `/plan` workflow for this request.
    Plan(&'a str),
    /// A plain run answering the message.
    Message,
}

impl UserInput {
    /// A message without files.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            files: Vec::new(),
        }
    }

    /// What it starts, or why it cannot be sent: an empty message, or a
    /// `/plan` with files. Checked before anything is kept or moved (an
    /// edit's fork), so a refused message changes nothing.
    pub fn check(&self) -> Result<(), RunError> {
        self.start().map(drop)
    }

    pub(crate) fn start(&self) -> Result<Start<'_>, RunError> {
        if self.text.trim().is_empty() && self.files.is_empty() {
            return Err(RunError::EmptyMessage);
        }
        match crate::workflow::request_in(&self.text) {
            Some(_) if !self.files.is_empty() => Err(RunError::PlanWithFiles),
            Some(request) => Ok(Start::Plan(request)),
            None => Ok(Start::Message),
        }
    }
}

/// Whether `text`, typed while a run is going, may join it (a queued
/// message): `/plan` starts a run of its own.
pub fn queueable(text: &str) -> Result<(), RunError> {
    if crate::workflow::request_in(text).is_some() {
        return Err(RunError::PlanNotQueueable);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_place_decides_what_a_message_starts() {
        assert_eq!(
            UserInput::text("/plan fix the test").start().unwrap(),
            Start::Plan("fix the test")
        );
        assert_eq!(UserInput::text("hello").start().unwrap(), Start::Message);
        // `/plan` alone is a workflow the run refuses with its own words.
        assert_eq!(UserInput::text("/plan").start().unwrap(), Start::Plan(""));
        // "/planet" is a message.
        assert_eq!(UserInput::text("/planet").start().unwrap(), Start::Message);
        for refused in [UserInput::text("   "), UserInput::default()] {
            let e = refused.check().unwrap_err().to_string();
            assert!(e.contains("the message is empty"), "{e}");
        }
        let mut with_file = UserInput::text("/plan x");
        with_file.files = vec![crate::attachment::tests::text_file("a.txt", "a")];
        assert!(
            with_file
                .check()
                .unwrap_err()
                .to_string()
                .contains("no attached files")
        );
        // Files alone are a message.
        let files_only = UserInput {
            text: String::new(),
            files: vec![crate::attachment::tests::text_file("a.txt", "a")],
        };
        assert_eq!(files_only.start().unwrap(), Start::Message);
        assert!(queueable("/plan later").is_err());
        assert!(queueable("and also this").is_ok());
    }
}
