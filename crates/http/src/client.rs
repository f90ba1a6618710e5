//! Timeouts, building a client, and sending a request up to its response
//! head.

use std::time::Duration;

/// Timeouts. There is no overall timeout: answers stream for minutes.
#[derive(Debug, Clone, Copy)]
pub struct ClientOptions {
    /// To open the TCP connection.
    pub connect_timeout: Duration,
    /// From sending a request to the response head. Servers that hold the
    /// head back until the first token (Ollama does) include loading the
    /// model and evaluating the prompt in it, which on a CPU or a slow GPU
    /// takes minutes. Where the head comes at once and the prompt is read
    /// after it (llama.cpp's server), the OpenAI-compatible client gives
    /// the wait for the body's first bytes what is left of it.
    pub first_byte_timeout: Duration,
    /// Between two reads of a streaming answer.
    pub idle_timeout: Duration,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            first_byte_timeout: Duration::from_secs(15 * 60),
            idle_timeout: Duration::from_secs(5 * 60),
        }
    }
}

/// A client with `options`' connect timeout. `direct`: never through a
/// system proxy (a local server is reached directly: a proxy would only
/// get in the way, and see the user's prompts).
pub fn build_client(options: &ClientOptions, direct: bool) -> reqwest::Result<reqwest::Client> {
    let mut http = reqwest::Client::builder().connect_timeout(options.connect_timeout);
    if direct {
        http = http.no_proxy();
    }
    http.build()
}

/// Whether `url` names this machine.
pub fn is_loopback(url: &reqwest::Url) -> bool {
    let host = url.host_str().unwrap_or_default();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Why a request got no response head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendFailure {
    /// Nothing listens there (refused, no route, unknown host).
    Unreachable {
        /// The innermost cause, in the system's words.
        detail: String,
    },
    /// It took too long.
    Timeout {
        /// What was being waited for.
        phase: &'static str,
        /// The limit, in seconds (0: the connect timeout).
        seconds: u64,
    },
    /// The connection broke before the head came (a server that sends no
    /// head until the first token closed it: the answer broke off before it
    /// began).
    Broken {
        /// The innermost cause.
        detail: String,
    },
}

/// Send `req` and wait for the response head, at most `first_byte`. An
/// error status is a response: each client words it for its server.
pub async fn send(
    req: reqwest::RequestBuilder,
    first_byte: Duration,
) -> Result<reqwest::Response, SendFailure> {
    let sent = tokio::time::timeout(first_byte, req.send())
        .await
        .map_err(|_| SendFailure::Timeout {
            phase: "waiting for the response to start",
            seconds: first_byte.as_secs(),
        })?;
    sent.map_err(|e| {
        if e.is_connect() {
            SendFailure::Unreachable {
                detail: root_cause(&e),
            }
        } else if e.is_timeout() {
            SendFailure::Timeout {
                phase: "connecting",
                seconds: 0,
            }
        } else {
            SendFailure::Broken {
                detail: root_cause(&e),
            }
        }
    })
}

/// The innermost cause of `e`: "Connection refused (os error 111)" rather
/// than "error sending request".
pub fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    cur.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_told_apart() {
        for (url, local) in [
            ("http://127.0.0.1:8080/v1", true),
            ("http://localhost:11434", true),
            ("http://[::1]:11434", true),
            ("http://192.168.1.20:11434", false),
            ("https://api.example.com/v1", false),
        ] {
            assert_eq!(
                is_loopback(&reqwest::Url::parse(url).unwrap()),
                local,
                "{url}"
            );
        }
    }

    #[tokio::test]
    async fn nothing_listening_is_unreachable() {
        // A port just released: nothing listens there.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let http = build_client(&ClientOptions::default(), true).unwrap();
        let failed = send(
            http.get(format!("http://127.0.0.1:{port}/")),
            Duration::from_secs(30),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(&failed, SendFailure::Unreachable { detail } if !detail.is_empty()),
            "{failed:?}"
        );
    }
}
