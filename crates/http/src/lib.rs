//! What Hearth's HTTP model clients (`hearth-ollama`, `hearth-openai`)
//! share, written once: the timeouts and how a client is built
//! ([`ClientOptions`], [`build_client`]), sending a request up to its
//! response head ([`send`], failures by kind), reading a streamed body with
//! an idle timeout ([`next_chunk`]) and cutting bytes into lines with
//! bounded memory ([`LineBuf`]). What differs stays in each client: the
//! wire format, NDJSON versus server-sent events, and how a failure is
//! worded for its server. Whether a failure is retried is decided once, in
//! the core (`model_call.rs`).

mod body;
mod client;
mod lines;

pub use body::{BodyError, ByteStream, Chunk, MAX_ERROR_BODY, error_text, next_chunk, read_body};
pub use client::{ClientOptions, SendFailure, build_client, is_loopback, root_cause, send};
pub use lines::{LineBuf, TooLong};
