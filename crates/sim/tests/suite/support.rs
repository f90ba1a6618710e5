//! A raw HTTP/1.1 client on a tokio `TcpStream`: the tests assert bytes on
//! the wire (chunk boundaries, a missing terminator, nothing before the
//! first token), which a full client library would hide.

use std::time::Duration;

use hearth_sim::SimHandle;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The longest any single wait in these tests may take; it only ends a
/// hang.
pub const T: Duration = Duration::from_secs(10);

/// A parsed response.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// The body (chunks concatenated).
    pub body: Vec<u8>,
    /// Chunk payloads as the server framed them (chunked responses only).
    pub chunks: Vec<Vec<u8>>,
    /// Whether the body ended properly (terminator or full length).
    pub complete: bool,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    pub fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }

    /// NDJSON lines, each parsed.
    pub fn lines(&self) -> Vec<Value> {
        self.text()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")))
            .collect()
    }

    /// Concatenated `message.content` of the lines.
    pub fn content(&self) -> String {
        self.lines()
            .iter()
            .filter_map(|l| l["message"]["content"].as_str().map(str::to_owned))
            .collect()
    }
}

/// One client connection.
pub struct Raw {
    stream: TcpStream,
    buf: Vec<u8>,
    eof: bool,
}

impl Raw {
    pub async fn connect(sim: &SimHandle) -> Self {
        let stream = TcpStream::connect(sim.addr()).await.unwrap();
        stream.set_nodelay(true).unwrap();
        Self {
            stream,
            buf: Vec::new(),
            eof: false,
        }
    }

    /// Sends a request; `body` None = no body.
    pub async fn send_raw(&mut self, method: &str, path: &str, body: Option<&[u8]>, extra: &str) {
        let body = body.unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: sim\r\nContent-Length: {}\r\n{extra}\r\n",
            body.len()
        );
        let mut out = head.into_bytes();
        out.extend_from_slice(body);
        self.stream.write_all(&out).await.unwrap();
    }

    pub async fn send(&mut self, method: &str, path: &str, body: &Value) {
        let bytes = serde_json::to_vec(body).unwrap();
        self.send_raw(method, path, Some(&bytes), "").await;
    }

    /// Whatever arrives within `wait` (stops early at EOF). Only for
    /// checking that nothing arrives while the server is known to be held
    /// (a window that is too short can only pass wrongly, never fail).
    pub async fn read_for(&mut self, wait: Duration) -> Vec<u8> {
        let deadline = tokio::time::Instant::now() + wait;
        while !self.eof {
            let mut tmp = [0u8; 4096];
            match tokio::time::timeout_at(deadline, self.stream.read(&mut tmp)).await {
                Err(_) => break,
                Ok(Ok(0) | Err(_)) => self.eof = true,
                Ok(Ok(n)) => self.buf.extend_from_slice(&tmp[..n]),
            }
        }
        std::mem::take(&mut self.buf)
    }

    /// Everything up to and including the first `needle` (each read within
    /// `T`); the rest stays buffered.
    pub async fn read_until(&mut self, needle: &[u8]) -> Vec<u8> {
        loop {
            if let Some(i) = self.buf.windows(needle.len()).position(|w| w == needle) {
                return self.buf.drain(..i + needle.len()).collect();
            }
            assert!(
                self.fill().await,
                "closed before {:?}: {:?}",
                String::from_utf8_lossy(needle),
                String::from_utf8_lossy(&self.buf)
            );
        }
    }

    async fn fill(&mut self) -> bool {
        if self.eof {
            return false;
        }
        let mut tmp = [0u8; 4096];
        match tokio::time::timeout(T, self.stream.read(&mut tmp)).await {
            Err(_) => panic!("no data from the simulator within {T:?}"),
            Ok(Ok(0) | Err(_)) => {
                self.eof = true;
                false
            }
            Ok(Ok(n)) => {
                self.buf.extend_from_slice(&tmp[..n]);
                true
            }
        }
    }

    async fn line(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Some(i) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line = self.buf[..i].to_vec();
                self.buf.drain(..i + 2);
                return Some(line);
            }
            if !self.fill().await {
                return None;
            }
        }
    }

    async fn exact(&mut self, n: usize) -> Option<Vec<u8>> {
        while self.buf.len() < n {
            if !self.fill().await {
                return None;
            }
        }
        Some(self.buf.drain(..n).collect())
    }

    /// Reads one whole response (panics if none starts within `T`).
    pub async fn response(&mut self) -> Response {
        let status_line = self
            .line()
            .await
            .expect("connection closed before a status line");
        let status_line = String::from_utf8(status_line).unwrap();
        let status: u16 = status_line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let line = self.line().await.expect("connection closed in the head");
            if line.is_empty() {
                break;
            }
            let line = String::from_utf8(line).unwrap();
            let (n, v) = line.split_once(':').unwrap();
            headers.push((n.trim().to_owned(), v.trim().to_owned()));
        }
        let mut resp = Response {
            status,
            headers,
            body: Vec::new(),
            chunks: Vec::new(),
            complete: false,
        };
        if resp.header("transfer-encoding") == Some("chunked") {
            loop {
                let Some(size) = self.line().await else {
                    return resp;
                };
                let size = usize::from_str_radix(std::str::from_utf8(&size).unwrap(), 16).unwrap();
                let Some(data) = self.exact(size + 2).await else {
                    return resp;
                };
                if size == 0 {
                    resp.complete = true;
                    return resp;
                }
                resp.body.extend_from_slice(&data[..size]);
                resp.chunks.push(data[..size].to_vec());
            }
        }
        let len: usize = resp.header("content-length").unwrap().parse().unwrap();
        if let Some(body) = self.exact(len).await {
            resp.body = body;
            resp.complete = true;
        }
        resp
    }

    /// Whether the server closed the connection (within `T`).
    pub async fn closed(&mut self) -> bool {
        while self.fill().await {}
        self.eof
    }
}

/// One request on a fresh connection.
pub async fn request(sim: &SimHandle, method: &str, path: &str, body: &Value) -> Response {
    let mut c = Raw::connect(sim).await;
    c.send(method, path, body).await;
    c.response().await
}

/// `POST /api/chat` on a fresh connection.
pub async fn chat(sim: &SimHandle, body: Value) -> Response {
    request(sim, "POST", "/api/chat", &body).await
}

/// A chat body with one user message.
pub fn ask(model: &str, text: &str) -> Value {
    json!({"model": model, "messages": [{"role": "user", "content": text}]})
}

/// Sets extra fields on a JSON object.
pub fn with(mut body: Value, extra: Value) -> Value {
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    body
}

/// The done line of a streamed response.
pub fn done_line(resp: &Response) -> Value {
    resp.lines()
        .into_iter()
        .find(|l| l["done"] == json!(true))
        .unwrap_or_else(|| panic!("no done line in {}", resp.text()))
}

impl Raw {
    /// Writes bytes as they are.
    pub async fn send_raw_bytes(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.unwrap();
    }

    /// Closes the connection (as a client that gives up does).
    pub fn close(self) {
        drop(self);
    }
}

impl Raw {
    /// The bytes of one read (after anything already buffered).
    pub async fn read_once(&mut self) -> Vec<u8> {
        if self.buf.is_empty() {
            assert!(self.fill().await, "connection closed");
        }
        std::mem::take(&mut self.buf)
    }
}
