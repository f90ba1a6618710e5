//! Reading a streamed response body, one network chunk at a time, with an
//! idle timeout.

use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};

/// A response body as it arrives.
pub type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// What the next read of a body gave.
#[derive(Debug)]
pub enum Chunk {
    /// More bytes.
    Bytes(Bytes),
    /// The body ended.
    End,
    /// The connection dropped mid-body: the answer broke off.
    Dropped,
    /// Nothing came for `seconds`.
    Idle {
        /// The idle timeout.
        seconds: u64,
    },
}

/// The next chunk of `body`, waiting at most `idle` for it.
pub async fn next_chunk(body: &mut ByteStream, idle: Duration) -> Chunk {
    match tokio::time::timeout(idle, body.next()).await {
        Err(_) => Chunk::Idle {
            seconds: idle.as_secs(),
        },
        Ok(Some(Ok(bytes))) => Chunk::Bytes(bytes),
        Ok(Some(Err(_))) => Chunk::Dropped,
        Ok(None) => Chunk::End,
    }
}

/// Why a whole body could not be read.
#[derive(Debug, PartialEq, Eq)]
pub enum BodyError {
    /// It is longer than the caller reads.
    TooLarge {
        /// The most read.
        max: usize,
    },
    /// The connection dropped mid-body.
    Dropped,
    /// It did not all arrive within the time given.
    Timeout {
        /// The time given.
        seconds: u64,
    },
}

/// A whole (not streamed) body: at most `max` bytes, all of it within
/// `within` (a server that trickles one byte a minute is bounded too).
/// On failure, what had arrived (at most `max` bytes) comes with the
/// error, for an error message's text.
pub async fn read_body(
    mut body: ByteStream,
    max: usize,
    within: Duration,
) -> Result<Vec<u8>, (BodyError, Vec<u8>)> {
    let deadline = tokio::time::Instant::now() + within;
    let mut bytes = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, body.next()).await {
            Err(_) => {
                let seconds = within.as_secs();
                return Err((BodyError::Timeout { seconds }, bytes));
            }
            Ok(None) => return Ok(bytes),
            Ok(Some(Err(_))) => return Err((BodyError::Dropped, bytes)),
            Ok(Some(Ok(chunk))) => {
                let room = max - bytes.len();
                if chunk.len() > room {
                    bytes.extend_from_slice(&chunk[..room]);
                    return Err((BodyError::TooLarge { max }, bytes));
                }
                bytes.extend_from_slice(&chunk);
            }
        }
    }
}

/// The most of an error reply that is read: its message is in the first
/// few hundred bytes (security review L1: no body was bounded).
pub const MAX_ERROR_BODY: usize = 64 * 1024;

/// An error reply's text, for its message: at most [`MAX_ERROR_BODY`]
/// bytes, within `within`; what arrived of one cut short still says why.
pub async fn error_text(resp: reqwest::Response, within: Duration) -> String {
    let bytes = read_body(Box::pin(resp.bytes_stream()), MAX_ERROR_BODY, within)
        .await
        .unwrap_or_else(|(_, partial)| partial);
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(chunks: Vec<&'static [u8]>, then_wait: bool) -> ByteStream {
        let items = futures::stream::iter(chunks.into_iter().map(|c| Ok(Bytes::from_static(c))));
        if then_wait {
            Box::pin(items.chain(futures::stream::pending()))
        } else {
            Box::pin(items)
        }
    }

    #[tokio::test(start_paused = true)]
    async fn chunks_then_the_end_or_an_idle_timeout() {
        let idle = Duration::from_secs(300);
        let mut b = body(vec![b"a", b"b"], false);
        assert!(matches!(next_chunk(&mut b, idle).await, Chunk::Bytes(x) if x == "a"));
        assert!(matches!(next_chunk(&mut b, idle).await, Chunk::Bytes(x) if x == "b"));
        assert!(matches!(next_chunk(&mut b, idle).await, Chunk::End));
        let mut stuck = body(vec![b"a"], true);
        assert!(matches!(
            next_chunk(&mut stuck, idle).await,
            Chunk::Bytes(_)
        ));
        assert!(matches!(
            next_chunk(&mut stuck, idle).await,
            Chunk::Idle { seconds: 300 }
        ));
    }

    /// A whole body is read to its end; past `max` or past the time given
    /// it stops, with what had come.
    #[tokio::test(start_paused = true)]
    async fn a_whole_body_is_bounded_in_size_and_time() {
        let within = Duration::from_secs(300);
        assert_eq!(
            read_body(body(vec![b"ab", b"cd"], false), 10, within).await,
            Ok(b"abcd".to_vec())
        );
        assert_eq!(
            read_body(body(vec![b"abc", b"def"], false), 4, within).await,
            Err((BodyError::TooLarge { max: 4 }, b"abcd".to_vec()))
        );
        assert_eq!(
            read_body(body(vec![b"ab"], true), 10, within).await,
            Err((BodyError::Timeout { seconds: 300 }, b"ab".to_vec()))
        );
    }
}
