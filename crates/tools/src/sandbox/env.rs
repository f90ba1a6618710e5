//! The environment a sandboxed command gets: an allow-list, never the
//! whole of the app's. Keys (`HEARTH_API_KEY`, cloud tokens), agent sockets
//! (`SSH_AUTH_SOCK`, `DBUS_SESSION_BUS_ADDRESS`) and display handles stay
//! out, whatever their names.

use std::ffi::OsString;

/// Variables passed through by exact name: where programs are, who the
/// user is, language and time zone.
const PASSED: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ",
];

/// The variables a command runs with, taken from `vars` (the app's own
/// environment): the allow-list, the locale (`LC_*`), a dumb terminal, and
/// the temp folder (`/tmp`, private inside bubblewrap).
pub fn allowed_env(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    let mut out: Vec<(OsString, OsString)> = vars
        .into_iter()
        .filter(|(k, _)| {
            k.to_str()
                .is_some_and(|k| PASSED.contains(&k) || k.starts_with("LC_"))
        })
        .collect();
    out.push(("TERM".into(), "dumb".into()));
    out.push(("TMPDIR".into(), std::env::temp_dir().into()));
    if !out.iter().any(|(k, _)| k == "PATH") {
        out.push(("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()));
    }
    out
}
