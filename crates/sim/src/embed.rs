//! Embeddings: Ollama's `POST /api/embed` and OpenAI's `POST /v1/embeddings`.
//! A text's vector is its words hashed into [`Inner::embed_dims`] buckets
//! and normalised, so texts sharing words are near and the same text gives
//! the same vector every time: enough for a client's plumbing and its
//! faults (a server that fails, or changes its dimension mid-index), which
//! a real embedding model cannot show on demand. Quality is measured on a
//! real model (the knowledge benchmark), never here.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::http::{Conn, Gone};
use crate::respond::{Flow, reject, reject_openai};
use crate::state::{Inner, Shared};

/// Which wire the request came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    Ollama,
    OpenAi,
}

/// Serves one embedding request.
pub(crate) async fn handle(
    shared: &Arc<Shared>,
    conn: &mut Conn,
    body: &[u8],
    wire: Wire,
) -> Result<Flow, Gone> {
    let Ok(req) = serde_json::from_slice::<Value>(body) else {
        return fail(conn, wire, 400, "invalid JSON body").await;
    };
    let model = req["model"].as_str().unwrap_or_default().to_owned();
    let texts: Vec<String> = match &req["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_owned())
            .collect(),
        _ => {
            return fail(
                conn,
                wire,
                400,
                "input must be a string or a list of strings",
            )
            .await;
        }
    };
    let outcome = shared.mutate(|inner: &mut Inner| {
        if let Some(status) = inner.embed_fault {
            return Err((status, format!("simulated error {status}")));
        }
        if let Some(max) = inner.embed_max_bytes
            && texts.iter().any(|t| t.len() > max)
        {
            return Err((
                500,
                "input is too large to process. increase the physical batch size".to_owned(),
            ));
        }
        if inner.model(&model).is_none() {
            return Err((
                404,
                format!("model \"{model}\" not found, try pulling it first"),
            ));
        }
        inner.counters.embed_requests += 1;
        inner.counters.embedded_texts += texts.len() as u64;
        Ok(inner.embed_dims)
    });
    let dims = match outcome {
        Ok(d) => d,
        Err((status, message)) => return fail(conn, wire, status, &message).await,
    };
    let vectors: Vec<Vec<f32>> = texts.iter().map(|t| vector(t, dims)).collect();
    let out = match wire {
        Wire::Ollama => json!({
            "model": model,
            "embeddings": vectors,
            "total_duration": 1_000_000,
            "load_duration": 0,
            "prompt_eval_count": texts.iter().map(|t| t.split_whitespace().count()).sum::<usize>(),
        }),
        Wire::OpenAi => json!({
            "object": "list",
            "model": model,
            // Backwards, as the index says where each belongs.
            "data": vectors.iter().enumerate().rev().map(|(i, v)| json!({
                "object": "embedding", "index": i, "embedding": v,
            })).collect::<Vec<_>>(),
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        }),
    };
    conn.respond_json(200, &serde_json::to_vec(&out).unwrap_or_default())
        .await?;
    Ok(Flow::Next)
}

/// An error before any output, in the request's wire's shape.
async fn fail(conn: &mut Conn, wire: Wire, status: u16, message: &str) -> Result<Flow, Gone> {
    match wire {
        Wire::Ollama => reject(conn, status, message).await,
        Wire::OpenAi => reject_openai(conn, status, message).await,
    }
}

/// The words of `text` (lowercased, letters and digits) hashed into `dims`
/// buckets, normalised to length 1; all zeros for a text without words.
pub fn vector(text: &str, dims: usize) -> Vec<f32> {
    let mut v = vec![0f32; dims.max(1)];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let mut h = 0xcbf2_9ce4_8422_2325_u64;
        for b in word.to_lowercase().bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
        let i = (h % v.len() as u64) as usize;
        v[i] += if (h >> 32) & 1 == 0 { 1.0 } else { -1.0 };
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}
