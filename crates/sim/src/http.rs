//! HTTP/1.1 framing on one TCP connection, written by hand on tokio +
//! httparse.
//!
//! Owns request parsing (head, `Content-Length` body, keep-alive), response
//! writing (`Content-Length` or chunked, one chunk per written piece, the
//! head only with the first piece), and the one thing a framework would not
//! give us: [`Conn::race`], which runs any wait of a handler against a read
//! of the socket, so a client that leaves is seen at once — while queued,
//! while the model loads, during prompt evaluation, during a stall — and not
//! only at the next write. Knows nothing about Ollama.

use std::fmt::Write as _;
use std::future::Future;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

/// Largest request head accepted (431 beyond).
const MAX_HEAD: usize = 64 * 1024;
/// Largest request body accepted (413 beyond).
const MAX_BODY: usize = 64 * 1024 * 1024;
/// Bytes buffered ahead while a request is processed; past this the
/// connection stops reading (and so stops watching for a close) until the
/// current response is done.
const MAX_AHEAD: usize = 1024 * 1024;

/// The client went away: EOF or an error on read, or a failed write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Gone;

/// One parsed request.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// Path without the query string.
    pub path: String,
    /// The `Authorization` header, if sent (the `/v1` API checks keys).
    pub authorization: Option<String>,
    /// The body (empty when none).
    pub body: Bytes,
}

/// A request that cannot be served: answer this status and close.
#[derive(Debug, Clone)]
pub(crate) struct Reject {
    pub status: u16,
    pub message: &'static str,
}

/// The response being written on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No byte of the response written yet.
    Idle,
    /// Chunked head written; pieces follow.
    Streaming,
}

/// One client connection.
pub(crate) struct Conn {
    rd: OwnedReadHalf,
    /// Bytes read but not yet consumed (the start of the next request).
    buf: BytesMut,
    /// Read side saw EOF or an error.
    eof: bool,
    wr: OwnedWriteHalf,
    phase: Phase,
    /// The current response is the last on this connection.
    closing: bool,
    /// The current request is a `HEAD`: heads without bodies.
    head_only: bool,
    /// `Content-Type` of a streamed response (NDJSON unless a handler says
    /// otherwise).
    stream_type: &'static str,
    /// Called after every chunk of a streamed response is written (the
    /// server counts them for tests).
    on_chunk: Box<dyn Fn() + Send + Sync>,
}

impl Conn {
    pub(crate) fn new(stream: TcpStream, on_chunk: Box<dyn Fn() + Send + Sync>) -> Self {
        // Every piece must leave at once: split UTF-8 and token timing tests
        // depend on it.
        let _ = stream.set_nodelay(true);
        let (rd, wr) = stream.into_split();
        Self {
            rd,
            buf: BytesMut::with_capacity(8 * 1024),
            eof: false,
            wr,
            phase: Phase::Idle,
            closing: false,
            head_only: false,
            stream_type: NDJSON,
            on_chunk,
        }
    }

    /// Sets the `Content-Type` of the streamed response about to start
    /// (the default is NDJSON; the OpenAI API streams `text/event-stream`).
    pub(crate) fn set_stream_type(&mut self, content_type: &'static str) {
        self.stream_type = content_type;
    }

    /// Makes the current response the last on this connection.
    pub(crate) fn set_closing(&mut self) {
        self.closing = true;
    }

    /// Whether the connection ends after the current response.
    pub(crate) fn closing(&self) -> bool {
        self.closing
    }

    /// Reads the next request. `Ok(None)`: the client closed the connection
    /// (cleanly between requests, or in the middle of one).
    pub(crate) async fn read_request(&mut self) -> Result<Option<Request>, Reject> {
        self.phase = Phase::Idle;
        self.stream_type = NDJSON;
        let head = loop {
            let mut headers = [httparse::EMPTY_HEADER; 64];
            let mut req = httparse::Request::new(&mut headers);
            match req.parse(&self.buf) {
                Ok(httparse::Status::Complete(head_len)) => {
                    let parsed = interpret(&req)?;
                    let _ = self.buf.split_to(head_len);
                    break parsed;
                }
                Ok(httparse::Status::Partial) => {}
                Err(httparse::Error::TooManyHeaders) => {
                    return Err(reject(431, "request header fields too large"));
                }
                Err(_) => return Err(reject(400, "malformed request")),
            }
            if self.buf.len() > MAX_HEAD {
                return Err(reject(431, "request header fields too large"));
            }
            if !self.fill().await {
                return Ok(None);
            }
        };
        let Head {
            method,
            path,
            content_length,
            keep_alive,
            expect_continue,
            authorization,
        } = head;
        self.closing = !keep_alive;
        self.head_only = method == "HEAD";
        if content_length > MAX_BODY {
            return Err(reject(413, "request body too large"));
        }
        if expect_continue
            && self.buf.len() < content_length
            && self.write(b"HTTP/1.1 100 Continue\r\n\r\n").await.is_err()
        {
            return Ok(None);
        }
        while self.buf.len() < content_length {
            if !self.fill().await {
                return Ok(None);
            }
        }
        let body = self.buf.split_to(content_length).freeze();
        Ok(Some(Request {
            method,
            path,
            authorization,
            body,
        }))
    }

    /// Reads more bytes; false on EOF or error.
    async fn fill(&mut self) -> bool {
        if self.eof {
            return false;
        }
        match self.rd.read_buf(&mut self.buf).await {
            Ok(0) | Err(_) => {
                self.eof = true;
                false
            }
            Ok(_) => true,
        }
    }

    /// Runs `fut` while watching the socket: `Err(Gone)` as soon as the
    /// client closes or resets the connection, whichever comes first. A
    /// ready `fut` still loses to a close already visible, so
    /// `race(async {})` is a cheap "is the client still there?" check.
    pub(crate) async fn race<F: Future>(&mut self, fut: F) -> Result<F::Output, Gone> {
        let Self { rd, buf, eof, .. } = self;
        tokio::select! {
            biased;
            () = watch(rd, buf, eof) => Err(Gone),
            out = fut => Ok(out),
        }
    }

    /// Waits until the client leaves.
    pub(crate) async fn until_gone(&mut self) {
        let _ = self.race(std::future::pending::<()>()).await;
    }

    /// Sleeps `ms` milliseconds unless the client leaves first.
    pub(crate) async fn pause(&mut self, ms: u64) -> Result<(), Gone> {
        if ms == 0 {
            return self.race(async {}).await;
        }
        self.race(tokio::time::sleep(std::time::Duration::from_millis(ms)))
            .await
    }

    /// Writes a complete response with a `Content-Length` body.
    pub(crate) async fn respond(
        &mut self,
        status: u16,
        content_type: &str,
        body: &[u8],
    ) -> Result<(), Gone> {
        self.respond_split(status, content_type, body, None).await
    }

    /// Writes a JSON response (Go's encoding: no trailing newline).
    pub(crate) async fn respond_json(&mut self, status: u16, body: &[u8]) -> Result<(), Gone> {
        self.respond(status, "application/json; charset=utf-8", body)
            .await
    }

    /// Writes a complete response, optionally in two writes cut at byte
    /// `split` of the body with a pause of `pause_ms` between them.
    pub(crate) async fn respond_split(
        &mut self,
        status: u16,
        content_type: &str,
        body: &[u8],
        split: Option<(usize, u64)>,
    ) -> Result<(), Gone> {
        let mut out = self.head(status, content_type, Some(body.len()));
        if self.head_only {
            return self.write(&out).await;
        }
        match split {
            Some((at, pause_ms)) if at > 0 && at < body.len() => {
                out.extend_from_slice(&body[..at]);
                self.write(&out).await?;
                self.pause(pause_ms).await?;
                self.write(&body[at..]).await
            }
            _ => {
                out.extend_from_slice(body);
                self.write(&out).await
            }
        }
    }

    /// Writes one piece of a chunked streamed response (NDJSON, or what
    /// [`Conn::set_stream_type`] set) as its own chunk; the first piece
    /// carries the `200` head.
    pub(crate) async fn stream_piece(&mut self, piece: &[u8]) -> Result<(), Gone> {
        let mut out = if self.phase == Phase::Idle {
            self.phase = Phase::Streaming;
            self.head(200, self.stream_type, None)
        } else {
            Vec::with_capacity(piece.len() + 16)
        };
        if piece.is_empty() {
            // An empty chunk would be the terminator.
            return self.write(&out).await;
        }
        out.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        out.extend_from_slice(piece);
        out.extend_from_slice(b"\r\n");
        self.write(&out).await?;
        (self.on_chunk)();
        Ok(())
    }

    /// Ends a chunked response properly (head first if nothing was written).
    pub(crate) async fn end_stream(&mut self) -> Result<(), Gone> {
        if self.phase == Phase::Idle {
            self.stream_piece(b"").await?;
        }
        self.phase = Phase::Idle;
        self.write(b"0\r\n\r\n").await
    }

    fn head(&self, status: u16, content_type: &str, length: Option<usize>) -> Vec<u8> {
        let mut h = String::with_capacity(192);
        let date = chrono::Utc::now().format("%a, %d %b %Y %H:%M:%S GMT");
        let _ = write!(
            h,
            "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nDate: {date}\r\n",
            reason(status)
        );
        match length {
            Some(n) => {
                let _ = write!(h, "Content-Length: {n}\r\n");
            }
            None => h.push_str("Transfer-Encoding: chunked\r\n"),
        }
        if self.closing {
            h.push_str("Connection: close\r\n");
        }
        h.push_str("\r\n");
        h.into_bytes()
    }

    async fn write(&mut self, bytes: &[u8]) -> Result<(), Gone> {
        self.wr.write_all(bytes).await.map_err(|_| Gone)?;
        self.wr.flush().await.map_err(|_| Gone)
    }
}

/// Reads ahead until EOF or error; returns then. Bytes read are kept for
/// the next request. Cancel-safe: `read_buf` loses nothing when dropped.
/// Like Go's `net/http` background read (which cancels Ollama's request
/// context), a half-close by the client counts as leaving.
async fn watch(rd: &mut OwnedReadHalf, buf: &mut BytesMut, eof: &mut bool) {
    loop {
        if *eof {
            return;
        }
        if buf.len() >= MAX_AHEAD {
            std::future::pending::<()>().await;
        }
        match rd.read_buf(buf).await {
            Ok(0) | Err(_) => {
                *eof = true;
                return;
            }
            Ok(_) => {}
        }
    }
}

fn reject(status: u16, message: &'static str) -> Reject {
    Reject { status, message }
}

/// `Content-Type` of NDJSON streams.
const NDJSON: &str = "application/x-ndjson";

/// What the request head says.
struct Head {
    method: String,
    path: String,
    content_length: usize,
    keep_alive: bool,
    expect_continue: bool,
    authorization: Option<String>,
}

/// Reads the parts of a request head the simulator uses.
fn interpret(req: &httparse::Request<'_, '_>) -> Result<Head, Reject> {
    let method = req.method.unwrap_or("GET").to_owned();
    let target = req.path.unwrap_or("/");
    let path = target.split('?').next().unwrap_or("/").to_owned();
    let http11 = req.version == Some(1);
    let mut keep_alive = http11;
    let mut length = 0usize;
    let mut expect_continue = false;
    let mut authorization = None;
    for h in req.headers.iter() {
        let value = String::from_utf8_lossy(h.value);
        let value = value.trim();
        if h.name.eq_ignore_ascii_case("content-length") {
            length = value
                .parse()
                .map_err(|_| reject(400, "invalid Content-Length"))?;
        } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
            // Clients of Ollama send Content-Length; a chunked request body
            // is not worth supporting in a test double.
            return Err(reject(411, "length required"));
        } else if h.name.eq_ignore_ascii_case("connection") {
            for token in value.split(',') {
                let token = token.trim();
                if token.eq_ignore_ascii_case("close") {
                    keep_alive = false;
                } else if token.eq_ignore_ascii_case("keep-alive") {
                    keep_alive = true;
                }
            }
        } else if h.name.eq_ignore_ascii_case("expect") {
            expect_continue = value.eq_ignore_ascii_case("100-continue");
        } else if h.name.eq_ignore_ascii_case("authorization") {
            authorization = Some(value.to_owned());
        }
    }
    Ok(Head {
        method,
        path,
        content_length: length,
        keep_alive,
        expect_continue,
        authorization,
    })
}

/// Reason phrases for the statuses the simulator answers (or is scripted to).
pub(crate) fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Unknown",
    }
}
