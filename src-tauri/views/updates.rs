//! What the Settings page shows about updates (docs/updates.md).

use serde::{Deserialize, Serialize};
use specta::Type;

/// The answer to "Check for updates".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum UpdateCheck {
    /// This copy cannot update itself; `why` says so and what to do instead.
    Unavailable {
        /// One sentence for the person.
        why: String,
    },
    /// The newest version is the one running.
    UpToDate {
        /// The running version.
        current: String,
    },
    /// A newer version is offered: what it is and what it changes. Nothing
    /// is downloaded until the person asks for it.
    Available {
        /// The running version.
        current: String,
        /// The version offered.
        version: String,
        /// What it changes, as its publisher wrote it (plain text: the page
        /// shows it as text, never as HTML).
        notes: Option<String>,
        /// When it was published (RFC 3339), when said.
        date: Option<String>,
    },
}

/// How an update being installed goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum UpdateProgress {
    /// Bytes of the package received so far, of `total` when the server
    /// said its size.
    Downloading {
        /// Received so far.
        received: u64,
        /// The package's size, when known.
        total: Option<u64>,
    },
    /// The package is downloaded and its signature checked: the system's
    /// package tool installs it (it may ask for the password).
    Installing,
    /// Installed: the app restarts into the new version.
    Restarting,
}
