//! What each installed model can do, in as few requests as the server
//! allows. Ollama 0.30 and later list every model's capabilities and
//! trained context length in `/api/tags`; an older server leaves them out,
//! and only then is `/api/show` asked, once per model that lacks them.

use crate::client::Client;
use crate::error::OllamaError;
use crate::wire::{InstalledModel, ShowResponse};

/// `model` as Ollama resolves it: a name without a tag is `NAME:latest`.
/// The tag follows the last `:` after the last `/` (a registry host may
/// carry a port: `host:5000/llama3`).
pub fn tagged(model: &str) -> String {
    let model = model.trim();
    let name_start = model.rfind('/').map_or(0, |i| i + 1);
    if model[name_start..].contains(':') {
        model.to_owned()
    } else {
        format!("{model}:latest")
    }
}

/// Fills what `/api/tags` left out from `/api/show`.
fn fill(model: &mut InstalledModel, show: &ShowResponse) {
    model.capabilities.clone_from(&show.capabilities);
    if model.details.context_length.is_none() {
        model.details.context_length = show.context_length();
    }
}

impl Client {
    /// The installed models with their capabilities and trained context
    /// length. A model whose details cannot be read is still listed,
    /// without them (empty capabilities).
    pub async fn described(&self) -> Result<Vec<InstalledModel>, OllamaError> {
        let mut models = self.tags().await?;
        let missing: Vec<usize> = (0..models.len())
            .filter(|&i| models[i].capabilities.is_empty())
            .collect();
        let shows =
            futures::future::join_all(missing.iter().map(|&i| self.show(&models[i].name))).await;
        for (i, show) in missing.into_iter().zip(shows) {
            if let Ok(show) = show {
                fill(&mut models[i], &show);
            }
        }
        Ok(models)
    }

    /// One model's capabilities and trained context length: from the
    /// listing when the server puts them there, else from `/api/show`
    /// (whose error, such as an unknown model, is the answer).
    pub async fn describe(
        &self,
        model: &str,
    ) -> Result<(Vec<String>, Option<u64>, Option<u64>), OllamaError> {
        let wanted = tagged(model);
        let listed = self
            .tags()
            .await?
            .into_iter()
            .find(|m| tagged(&m.name) == wanted && !m.capabilities.is_empty());
        if let Some(m) = listed {
            let parameters = m.details.parameter_size.as_deref().and_then(parameters_of);
            return Ok((m.capabilities, m.details.context_length, parameters));
        }
        let show = self.show(model).await?;
        let context = show.context_length();
        let parameters = show.parameter_count().or_else(|| {
            show.details
                .parameter_size
                .as_deref()
                .and_then(parameters_of)
        });
        Ok((show.capabilities, context, parameters))
    }
}

/// Ollama's `parameter_size` as a count: `"494.03M"` → 494,030,000,
/// `"7.6B"` → 7,600,000,000; `None` for what is not one.
pub fn parameters_of(size: &str) -> Option<u64> {
    let size = size.trim();
    let (number, scale) = match size.chars().last()? {
        'B' | 'b' => (&size[..size.len() - 1], 1e9),
        'M' | 'm' => (&size[..size.len() - 1], 1e6),
        'K' | 'k' => (&size[..size.len() - 1], 1e3),
        _ => (size, 1.0),
    };
    let n: f64 = number.trim().parse().ok()?;
    // A count is whole and positive; the float only carries the decimals
    // Ollama prints ("494.03M"), far inside f64's exact range.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    (n.is_finite() && n > 0.0).then(|| (n * scale).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::{parameters_of, tagged};

    #[test]
    fn parameter_sizes_read_as_counts() {
        assert_eq!(parameters_of("494.03M"), Some(494_030_000));
        assert_eq!(parameters_of("7.6B"), Some(7_600_000_000));
        assert_eq!(parameters_of("135M"), Some(135_000_000));
        assert_eq!(parameters_of("big"), None);
        assert_eq!(parameters_of(""), None);
    }

    #[test]
    fn a_name_without_a_tag_is_latest_and_a_registry_port_is_not_a_tag() {
        assert_eq!(tagged("llama3.2"), "llama3.2:latest");
        assert_eq!(tagged(" qwen3:8b "), "qwen3:8b");
        assert_eq!(tagged("host:5000/llama3"), "host:5000/llama3:latest");
        assert_eq!(tagged("host:5000/llama3:q4"), "host:5000/llama3:q4");
    }
}
