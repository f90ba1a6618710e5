//! `hearth ps`: what Ollama has resident, like `ollama ps`.

use std::process::ExitCode;

use chrono::{DateTime, Utc};
use clap::Args;
use hearth_ollama::wire::RunningModel;
use hearth_ollama::{Client, ClientOptions, resolve_base_url};

/// Arguments of `hearth ps`.
#[derive(Debug, Args)]
pub struct PsArgs {
    /// Ollama's URL (default: $OLLAMA_HOST, else http://127.0.0.1:11434).
    #[arg(long)]
    url: Option<String>,
}

/// Run `hearth ps`.
pub async fn run(args: PsArgs) -> ExitCode {
    let url = resolve_base_url(args.url.as_deref());
    let models = match Client::new(&url, ClientOptions::default()) {
        Ok(c) => c.ps().await,
        Err(e) => Err(e),
    };
    match models {
        Ok(models) => {
            print!("{}", table(&models, Utc::now()));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("hearth: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The table, one row per resident model.
pub fn table(models: &[RunningModel], now: DateTime<Utc>) -> String {
    let mut rows = vec![[
        "NAME".to_owned(),
        "SIZE".to_owned(),
        "VRAM".to_owned(),
        "PROCESSOR".to_owned(),
        "CONTEXT".to_owned(),
        "UNTIL".to_owned(),
    ]];
    for m in models {
        rows.push([
            m.name.clone(),
            human_bytes(m.size),
            human_bytes(m.size_vram),
            processor(m.size, m.size_vram),
            m.context_length
                .map_or_else(|| "-".to_owned(), |c| c.to_string()),
            until(m.expires_at.as_deref(), now),
        ]);
    }
    let widths: Vec<usize> = (0..6)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(cells.join("   ").trim_end());
        out.push('\n');
    }
    if models.is_empty() {
        out.push_str("(no model is loaded)\n");
    }
    out
}

/// The CPU/GPU split, as `ollama ps` shows it.
fn processor(size: u64, vram: u64) -> String {
    if size == 0 {
        return "-".into();
    }
    let gpu = (vram.min(size) as f64 * 100.0 / size as f64).round() as u64;
    match gpu {
        100 => "100% GPU".into(),
        0 => "100% CPU".into(),
        g => format!("{}%/{g}% CPU/GPU", 100 - g),
    }
}

fn human_bytes(b: u64) -> String {
    const GB: f64 = 1024.0 * 1024.0 * 1024.0;
    const MB: f64 = 1024.0 * 1024.0;
    let b = b as f64;
    if b >= GB {
        format!("{:.1} GB", b / GB)
    } else {
        format!("{:.0} MB", b / MB)
    }
}

fn until(expires_at: Option<&str>, now: DateTime<Utc>) -> String {
    let Some(t) = expires_at.and_then(|s| DateTime::parse_from_rfc3339(s).ok()) else {
        return "-".into();
    };
    let secs = (t.with_timezone(&Utc) - now).num_seconds();
    match secs {
        s if s > 365 * 24 * 3600 => "forever".into(),
        s if s <= 0 => "now".into(),
        s if s < 60 => format!("{s} seconds from now"),
        s if s < 3600 => format!("{} minutes from now", s / 60),
        s => format!("{:.1} hours from now", s as f64 / 3600.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_expiry_read_like_ollama_ps() {
        assert_eq!(processor(100, 100), "100% GPU");
        assert_eq!(processor(100, 0), "100% CPU");
        assert_eq!(processor(100, 52), "48%/52% CPU/GPU");
        let now = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(
            until(Some("2026-01-01T00:30:00Z"), now),
            "30 minutes from now"
        );
        assert_eq!(until(Some("2318-01-01T00:00:00Z"), now), "forever");
        let t = table(
            &[RunningModel {
                name: "qwen3:8b".into(),
                size: 6 * 1024 * 1024 * 1024,
                size_vram: 6 * 1024 * 1024 * 1024,
                expires_at: Some("2026-01-01T00:05:00Z".into()),
                context_length: Some(8192),
            }],
            now,
        );
        assert!(
            t.contains("qwen3:8b   6.0 GB   6.0 GB   100% GPU    8192      5 minutes from now"),
            "{t}"
        );
    }
}
