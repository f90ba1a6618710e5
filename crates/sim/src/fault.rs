//! Faults a script injects into one reply, and their string form.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A fault injected into one reply. In a script it is a string:
/// `status:CODE`, `drop_after:N`, `error_after:N`, `malformed_after:N`,
/// `stall_after:N` or `no_done`. `N` counts streamed token lines (thinking
/// and content alike); an `N` past the last token applies after the last one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Fault {
    /// Answer this HTTP status and `{"error":"simulated error CODE"}` before
    /// any output.
    Status(u16),
    /// After N tokens close the socket: no done line, no chunked terminator.
    DropAfter(usize),
    /// After N tokens an in-band `{"error":"simulated in-band error"}` line,
    /// then a proper end of the response.
    ErrorAfter(usize),
    /// After N tokens a line that is not JSON, then a proper end.
    MalformedAfter(usize),
    /// After N tokens nothing more, the connection held open until the
    /// client leaves (counted as cancelled).
    StallAfter(usize),
    /// Every token, then a proper end without a done line.
    NoDone,
}

/// A fault string that is none of the accepted forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid fault {0:?}: expected status:CODE, drop_after:N, error_after:N, \
     malformed_after:N, stall_after:N or no_done"
)]
pub struct FaultParseError(pub String);

impl FromStr for Fault {
    type Err = FaultParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || FaultParseError(s.to_owned());
        if s == "no_done" {
            return Ok(Self::NoDone);
        }
        let (kind, arg) = s.split_once(':').ok_or_else(bad)?;
        if kind == "status" {
            let code: u16 = arg.parse().map_err(|_| bad())?;
            if !(100..=599).contains(&code) {
                return Err(bad());
            }
            return Ok(Self::Status(code));
        }
        let n: usize = arg.parse().map_err(|_| bad())?;
        match kind {
            "drop_after" => Ok(Self::DropAfter(n)),
            "error_after" => Ok(Self::ErrorAfter(n)),
            "malformed_after" => Ok(Self::MalformedAfter(n)),
            "stall_after" => Ok(Self::StallAfter(n)),
            _ => Err(bad()),
        }
    }
}

impl TryFrom<String> for Fault {
    type Error = FaultParseError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<Fault> for String {
    fn from(f: Fault) -> Self {
        f.to_string()
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Status(c) => write!(f, "status:{c}"),
            Self::DropAfter(n) => write!(f, "drop_after:{n}"),
            Self::ErrorAfter(n) => write!(f, "error_after:{n}"),
            Self::MalformedAfter(n) => write!(f, "malformed_after:{n}"),
            Self::StallAfter(n) => write!(f, "stall_after:{n}"),
            Self::NoDone => f.write_str("no_done"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_round_trip() {
        for s in [
            "status:503",
            "drop_after:3",
            "error_after:0",
            "malformed_after:2",
            "stall_after:1",
            "no_done",
        ] {
            let f: Fault = s.parse().unwrap();
            assert_eq!(f.to_string(), s);
        }
        for bad in [
            "status:99",
            "drop_after:-1",
            "drop",
            "explode:3",
            "status:x",
        ] {
            let err = bad.parse::<Fault>().unwrap_err();
            assert!(err.to_string().contains("expected status:CODE"), "{err}");
        }
    }
}
