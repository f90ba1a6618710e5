//! Which links from an answer the desktop's opener is given (review L4).
//!
//! An answer is untrusted text, and its links are the model's. A web link
//! only shows a page in the browser. A mail link is handed to the user's
//! mail program, and its header fields can do more than address a message:
//! `attach=` (Evolution and older Thunderbird honour it) attaches a local
//! file, and `bcc=` copies someone the user never sees in the link. So a
//! mail link is opened only when it carries addresses, a subject and a
//! body; anything else is refused with the field named.

use percent_encoding::percent_decode_str;
use tauri::Url;

/// The header fields a mail link from an answer may set (RFC 6068 names
/// them case-insensitively).
const MAIL_FIELDS: [&str; 3] = ["to", "subject", "body"];

/// One address as a mail link writes it, `local@domain`: no query,
/// separator, quote or space can hide inside (a `%3F` decoded by the mail
/// program would start fields).
fn plain_address(address: &str) -> bool {
    let plain = |part: &str| {
        !part.is_empty()
            && !part
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || "@?&,;<>\"'()\\".contains(c))
    };
    address
        .split_once('@')
        .is_some_and(|(local, domain)| plain(local) && plain(domain))
}

/// The link as the opener gets it, or why it is not opened.
pub fn openable(link: &str) -> Result<Url, String> {
    if link.chars().any(char::is_control) {
        return Err("a link with control characters is not opened".into());
    }
    let url = Url::parse(link).map_err(|_| "only http, https and mailto links are opened")?;
    // A web link says where it goes as written: `https:éx` is read by the
    // URL standard as `https://xn--x-9fa/`, a host the text never showed.
    let written = link
        .trim_start()
        .get(url.scheme().len()..)
        .is_some_and(|rest| rest.starts_with("://"));
    match url.scheme() {
        "http" | "https" if url.host().is_some() && !written => {
            Err("this web link does not begin `https://` and its host, so it is not opened".into())
        }
        "http" | "https" if url.host().is_some() => Ok(url),
        "mailto" => mail(url),
        _ => Err("only http, https and mailto links are opened".into()),
    }
}

fn mail(url: Url) -> Result<Url, String> {
    // A mail program may read what follows `#` as more header fields
    // (Evolution splits the link at its first `?`, wherever it is).
    if url.fragment().is_some() {
        return Err(
            "this mail link has a part after `#`, which could set more fields, so it is not opened"
                .into(),
        );
    }
    let decoded = percent_decode_str(url.path())
        .decode_utf8()
        .map_err(|_| "this mail link's address is not text")?;
    let addresses: Vec<&str> = decoded.split(',').map(str::trim).collect();
    if decoded.is_empty() && url.query().is_none() {
        return Err("this mail link has no address".into());
    }
    if !decoded.is_empty() && !addresses.iter().all(|a| plain_address(a)) {
        return Err(format!(
            "this mail link's address `{decoded}` is not a plain address, so it is not opened"
        ));
    }
    for (field, value) in url.query_pairs() {
        let name = field.to_ascii_lowercase();
        if !MAIL_FIELDS.contains(&name.as_str()) {
            return Err(format!(
                "this mail link would also set `{field}`: a link in an answer may only give \
                 the address, subject and body (it could attach a file or copy someone in), \
                 so it is not opened"
            ));
        }
        if name == "to" && !value.split(',').map(str::trim).all(plain_address) {
            return Err(format!(
                "this mail link's address `{value}` is not a plain address, so it is not opened"
            ));
        }
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_links_open_and_other_schemes_do_not() {
        assert_eq!(
            openable("https://example.com/a b").unwrap().as_str(),
            "https://example.com/a%20b"
        );
        assert!(openable("HTTP://example.com").is_ok());
        for bad in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "smb://host/share",
            "https://",
            "é://x",
            "https://example.com/\u{7}",
            "",
            "https:éx",
            "http:example.com",
            "https:/example.com",
            "data:text/html,x",
            "http://",
            "https://a\nb",
            "vbscript:x",
            "htté://x",
        ] {
            assert!(openable(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_mail_link_opens_with_address_subject_and_body_only() {
        assert!(openable("mailto:hi@example.com").is_ok());
        assert!(openable("mailto:a@example.com,b@example.org?subject=Hi&body=Line%0Atwo").is_ok());
        assert!(openable("MAILTO:hi@example.com?To=c@example.net").is_ok());
        for (bad, says) in [
            (
                "mailto:hi@example.com?attach=/home/u/.ssh/id_ed25519",
                "`attach`",
            ),
            ("mailto:hi@example.com?Attachment=~/.gnupg", "`Attachment`"),
            ("mailto:hi@example.com?%61ttach=/etc/shadow", "`attach`"),
            ("mailto:hi@example.com?bcc=eve@example.net", "`bcc`"),
            (
                "mailto:hi@example.com#?attach=/home/u/.ssh/id_ed25519",
                "after `#`",
            ),
            (
                "mailto:hi@example.com?subject=Hi#&attach=/etc/passwd",
                "after `#`",
            ),
            (
                "mailto:hi@example.com%3Fattach=/etc/passwd",
                "not a plain address",
            ),
            (
                "mailto:hi@example.com?to=x@y.z%3Fattach%3D/etc",
                "not a plain address",
            ),
            ("mailto:", "no address"),
            ("mailto:nobody", "not a plain address"),
        ] {
            let why = openable(bad).expect_err(bad);
            assert!(why.contains(says), "{bad}: {why}");
        }
    }
}
