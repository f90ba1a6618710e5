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
}
