//! The API key, kept out of every place text goes: `Debug` and `Display`
//! print `***`, error messages are scrubbed of it, and the header that
//! carries it is marked sensitive (so reqwest's own `Debug` hides it too).

use std::fmt;
use std::str::FromStr;

/// A secret bearer token for `Authorization: Bearer …`.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// A key from its text; `None` when the text is blank (an empty
    /// environment variable means "no key", not "an empty key").
    pub fn new(key: impl Into<String>) -> Option<Self> {
        let key = key.into().trim().to_owned();
        (!key.is_empty()).then_some(Self(key))
    }

    /// The secret itself, for the one header that carries it.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// The secret, for the desktop's secret store: the only place besides
    /// the request header that it goes.
    pub fn reveal(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced by `***` (servers
    /// sometimes echo a rejected key in their error message).
    pub(crate) fn scrub(&self, text: &str) -> String {
        text.replace(&self.0, "***")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Parsing for command lines (`--api-key`); a blank key is refused.
impl FromStr for ApiKey {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::new(s).ok_or_else(|| "the API key is empty".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_never_printed() {
        let k = ApiKey::new(" sk-secret ").unwrap();
        assert_eq!(format!("{k:?} {k}"), "ApiKey(***) ***");
        assert_eq!(k.expose(), "sk-secret");
        assert_eq!(k.scrub("bad key sk-secret given"), "bad key *** given");
        assert_eq!(ApiKey::new("  "), None);
        assert!("".parse::<ApiKey>().is_err());
    }
}
