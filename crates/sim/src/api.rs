//! The model-management endpoints: `/api/tags`, `/api/show`, `/api/ps`,
//! `/api/version`, `/api/pull` (NDJSON progress), shaped as Ollama's Go
//! structs write them (field order, `omitempty`).
//!
//! Reads the model table and the runner table; `/api/pull` is the only one
//! that changes them (a pulled model becomes installed).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::time::Instant;

use crate::duration::KeepAlive;
use crate::http::{Conn, Gone};
use crate::respond::{Flow, reject};
use crate::script::ModelSpec;
use crate::state::Shared;
use crate::wire;

/// A fixed modification time, so listings are reproducible.
const MODIFIED_AT: &str = "2025-10-01T12:00:00Z";

/// Pause between pull progress lines.
const PULL_STEP_MS: u64 = 2;

/// `details` of tags, show and ps.
#[derive(Debug, Serialize)]
struct Details {
    parent_model: &'static str,
    format: &'static str,
    family: String,
    families: Vec<String>,
    parameter_size: String,
    quantization_level: String,
    /// Only in `/api/tags` (Ollama 0.30 and later); `omitempty` in Go.
    #[serde(skip_serializing_if = "Option::is_none")]
    context_length: Option<u64>,
}

fn details(spec: &ModelSpec) -> Details {
    Details {
        parent_model: "",
        format: "gguf",
        family: spec.family.clone(),
        families: vec![spec.family.clone()],
        parameter_size: spec.parameter_size.clone(),
        quantization_level: spec.quantization_level.clone(),
        context_length: None,
    }
}

/// A deterministic fake sha256 (hex) for a model name.
pub(crate) fn digest_hex(name: &str) -> String {
    (0u64..4)
        .map(|seed| {
            let mut h = 0xcbf2_9ce4_8422_2325_u64 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            for b in name.bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            format!("{h:016x}")
        })
        .collect()
}

/// `GET /api/version`.
pub(crate) async fn version(conn: &mut Conn) -> Result<Flow, Gone> {
    let body = wire::go_json(&serde_json::json!({ "version": crate::OLLAMA_VERSION }));
    conn.respond_json(200, &body).await?;
    Ok(Flow::Next)
}

/// `GET /api/tags`: installed models, with capabilities and the trained
/// context length as Ollama 0.30 and later list them (unless the script
/// asks for `legacy_tags`).
pub(crate) async fn tags(shared: &Arc<Shared>, conn: &mut Conn) -> Result<Flow, Gone> {
    #[derive(Serialize)]
    struct Entry {
        name: String,
        model: String,
        modified_at: &'static str,
        size: u64,
        digest: String,
        details: Details,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        capabilities: Vec<String>,
    }
    let models: Vec<Entry> = shared.read(|inner| {
        let full = !inner.legacy_tags;
        inner
            .models
            .iter()
            .filter(|m| m.installed)
            .map(|m| Entry {
                name: m.name.clone(),
                model: m.name.clone(),
                modified_at: MODIFIED_AT,
                size: m.size,
                digest: digest_hex(&m.name),
                details: Details {
                    context_length: full.then_some(m.context_length),
                    ..details(m)
                },
                capabilities: if full {
                    m.capabilities.clone()
                } else {
                    Vec::new()
                },
            })
            .collect()
    });
    let body = wire::go_json(&serde_json::json!({ "models": models }));
    conn.respond_json(200, &body).await?;
    Ok(Flow::Next)
}

/// The `{"model"}` (or legacy `{"name"}`) body of show and pull.
#[derive(Debug, Default, Deserialize)]
struct NameRequest {
    #[serde(default)]
    model: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    stream: Option<bool>,
}

impl NameRequest {
    fn parse(body: &[u8]) -> Result<(String, bool), String> {
        let req: Self = serde_json::from_slice(body).map_err(|e| e.to_string())?;
        let name = if req.model.is_empty() {
            req.name
        } else {
            req.model
        };
        if name.is_empty() {
            return Err("model is required".to_owned());
        }
        Ok((name, req.stream.unwrap_or(true)))
    }
}

/// `POST /api/show`: details, `model_info` with the context length,
/// capabilities.
pub(crate) async fn show(shared: &Arc<Shared>, conn: &mut Conn, body: &[u8]) -> Result<Flow, Gone> {
    #[derive(Serialize)]
    struct Show {
        modelfile: String,
        parameters: &'static str,
        template: &'static str,
        details: Details,
        model_info: BTreeMap<String, Value>,
        capabilities: Vec<String>,
        modified_at: &'static str,
    }
    let name = match NameRequest::parse(body) {
        Ok((name, _)) => name,
        Err(message) => return reject(conn, 400, &message).await,
    };
    let Some(spec) = shared.read(|inner| inner.model(&name).filter(|m| m.installed).cloned())
    else {
        return reject(conn, 404, &format!("model '{name}' not found")).await;
    };
    let arch = spec.family.clone();
    let mut model_info = BTreeMap::new();
    model_info.insert("general.architecture".to_owned(), Value::from(arch.clone()));
    model_info.insert(
        "general.parameter_count".to_owned(),
        Value::from(parameter_count(&spec.parameter_size)),
    );
    model_info.insert(
        format!("{arch}.context_length"),
        Value::from(spec.context_length),
    );
    let show = Show {
        modelfile: format!(
            "# Modelfile generated by \"ollama show\"\nFROM {}\n",
            spec.name
        ),
        parameters: "",
        template: "{{ .Prompt }}",
        details: details(&spec),
        model_info,
        capabilities: spec.capabilities.clone(),
        modified_at: MODIFIED_AT,
    };
    conn.respond_json(200, &wire::go_json(&show)).await?;
    Ok(Flow::Next)
}

/// `"3.2B"` → 3200000000, `"999.89M"` → 999890000.
pub(crate) fn parameter_count(size: &str) -> u64 {
    let (num, scale) = match size.chars().last() {
        Some('B') => (&size[..size.len() - 1], 1e9),
        Some('M') => (&size[..size.len() - 1], 1e6),
        Some('K') => (&size[..size.len() - 1], 1e3),
        _ => (size, 1.0),
    };
    num.parse::<f64>().map_or(0, |n| (n * scale).round() as u64)
}

/// `GET /api/ps`: loaded runners with VRAM, context length and expiry.
pub(crate) async fn ps(shared: &Arc<Shared>, conn: &mut Conn) -> Result<Flow, Gone> {
    #[derive(Serialize)]
    struct Entry {
        name: String,
        model: String,
        size: u64,
        digest: String,
        details: Details,
        expires_at: String,
        size_vram: u64,
        context_length: u64,
    }
    let now = Instant::now();
    let wall = chrono::Utc::now();
    let models: Vec<Entry> = shared.read(|inner| {
        inner
            .runners
            .values()
            .map(|r| {
                let left = match (r.expires_at, r.keep_alive) {
                    (Some(at), _) => Some(at.saturating_duration_since(now)),
                    (None, KeepAlive::For(d)) => Some(d),
                    (None, KeepAlive::Forever) => None,
                };
                // Forever shows as Go's far future (now + max Duration).
                let left = left.unwrap_or(std::time::Duration::from_secs(9_223_372_036));
                let at = chrono::TimeDelta::from_std(left)
                    .ok()
                    .and_then(|d| wall.checked_add_signed(d))
                    .unwrap_or(wall);
                Entry {
                    name: r.spec.name.clone(),
                    model: r.spec.name.clone(),
                    size: r.spec.size,
                    digest: digest_hex(&r.spec.name),
                    details: details(&r.spec),
                    expires_at: wire::rfc3339(&at),
                    size_vram: r.spec.vram(),
                    context_length: r.num_ctx,
                }
            })
            .collect()
    });
    let body = wire::go_json(&serde_json::json!({ "models": models }));
    conn.respond_json(200, &body).await?;
    Ok(Flow::Next)
}

/// One line of pull progress (Go's `ProgressResponse`).
#[derive(Debug, Serialize)]
struct Progress {
    status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    digest: Option<String>,
    #[serde(skip_serializing_if = "is_zero")]
    total: u64,
    #[serde(skip_serializing_if = "is_zero")]
    completed: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn status(s: &str) -> Progress {
    Progress {
        status: s.to_owned(),
        digest: None,
        total: 0,
        completed: 0,
    }
}

const UNKNOWN_MANIFEST: &str = "pull model manifest: file does not exist";

/// `POST /api/pull`: progress lines, then the model is installed. A name
/// the script does not know fails in-band after the 200 (or with a 500 when
/// `stream` is false), as Ollama does.
/// `DELETE /api/delete`: the model is no longer installed (a pull brings
/// it back); 404 when it is not installed. Like Ollama, a copy already
/// loaded stays until it expires.
pub(crate) async fn delete(
    shared: &Arc<Shared>,
    conn: &mut Conn,
    body: &[u8],
) -> Result<Flow, Gone> {
    let name = match NameRequest::parse(body) {
        Ok((name, _)) => name,
        Err(message) => return reject(conn, 400, &message).await,
    };
    let removed = shared.mutate(|inner| {
        let found = inner.model(&name).filter(|m| m.installed)?.name.clone();
        let m = inner.models.iter_mut().find(|m| m.name == found)?;
        m.installed = false;
        Some(())
    });
    if removed.is_none() {
        return reject(conn, 404, &format!("model '{name}' not found")).await;
    }
    conn.respond(200, "application/json; charset=utf-8", b"")
        .await?;
    Ok(Flow::Next)
}

pub(crate) async fn pull(shared: &Arc<Shared>, conn: &mut Conn, body: &[u8]) -> Result<Flow, Gone> {
    let (name, stream) = match NameRequest::parse(body) {
        Ok(parsed) => parsed,
        Err(message) => return reject(conn, 400, &message).await,
    };
    let spec = shared.read(|inner| inner.model(&name).cloned());
    let install = |spec: &ModelSpec| {
        shared.mutate(|inner| {
            if let Some(m) = inner.models.iter_mut().find(|m| m.name == spec.name) {
                m.installed = true;
            }
        });
    };
    if !stream {
        let Some(spec) = spec else {
            return reject(conn, 500, UNKNOWN_MANIFEST).await;
        };
        conn.pause(PULL_STEP_MS * 4).await?;
        install(&spec);
        conn.respond_json(200, &wire::go_json(&status("success")))
            .await?;
        return Ok(Flow::Next);
    }
    conn.stream_piece(&wire::line(&status("pulling manifest")))
        .await?;
    conn.pause(PULL_STEP_MS).await?;
    let Some(spec) = spec else {
        let line = wire::line(&serde_json::json!({ "error": UNKNOWN_MANIFEST }));
        conn.stream_piece(&line).await?;
        conn.end_stream().await?;
        return Ok(Flow::Next);
    };
    let hex = digest_hex(&spec.name);
    let total = spec.size;
    for step in 0..=4u64 {
        let progress = Progress {
            status: format!("pulling {}", &hex[..12]),
            digest: Some(format!("sha256:{hex}")),
            total,
            completed: total / 4 * step + if step == 4 { total % 4 } else { 0 },
        };
        conn.stream_piece(&wire::line(&progress)).await?;
        conn.pause(PULL_STEP_MS).await?;
        if step == 1 {
            shared.released(crate::Hold::Pull).await;
        }
    }
    for s in ["verifying sha256 digest", "writing manifest"] {
        conn.stream_piece(&wire::line(&status(s))).await?;
        conn.pause(PULL_STEP_MS).await?;
    }
    install(&spec);
    conn.stream_piece(&wire::line(&status("success"))).await?;
    conn.end_stream().await?;
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_stable_sha256_shaped() {
        let d = digest_hex("llama3.2:3b");
        assert_eq!(d.len(), 64);
        assert_eq!(d, digest_hex("llama3.2:3b"));
        assert_ne!(d, digest_hex("qwen3:8b"));
    }

    #[test]
    fn parameter_counts() {
        assert_eq!(parameter_count("3.2B"), 3_200_000_000);
        assert_eq!(parameter_count("999.89M"), 999_890_000);
        assert_eq!(parameter_count("x"), 0);
    }
}
