//! The embedding model on a host: vectors for texts, normalised and
//! checked, and a batch the server refuses in part taken apart.

use std::sync::Arc;

use hearth_core::{BackendError, ModelBackend};

use crate::error::KnowledgeError;
use crate::vectors::normalised;

/// How often a passage the server refuses is cut in half and sent again
/// (llama.cpp refuses a text longer than its batch; Ollama cuts it
/// itself): 1,000 characters become 125 at most.
const MAX_HALVINGS: usize = 3;

/// The embedding model on a host.
#[derive(Clone)]
pub struct Embedder {
    backend: Arc<dyn ModelBackend>,
    model: String,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("model", &self.model)
            .finish()
    }
}

/// What an embedding pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct EmbedReport {
    /// Passages given a vector.
    pub embedded: u64,
    /// Passages still without one (a stop).
    pub left: u64,
    /// Passages the server refused even cut to an eighth: found by their
    /// words only.
    pub refused: u64,
    /// The vectors of this model replaced those of another (named).
    pub replaced_model: Option<String>,
    /// The vectors' length.
    pub dims: usize,
}

impl Embedder {
    /// `model` on `backend`.
    pub fn new(backend: Arc<dyn ModelBackend>, model: impl Into<String>) -> Self {
        Self {
            backend,
            model: model.into(),
        }
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Vectors for `texts`, normalised, checked for count and length.
    pub(crate) async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, KnowledgeError> {
        self.embed_or_refused(texts).await.map_err(|(e, _)| e)
    }

    /// As [`Embedder::embed`]; the flag says whether the server refused
    /// these texts (an error status, a reply it could not make) rather than
    /// could not be asked (down, too slow, no such model).
    async fn embed_or_refused(
        &self,
        texts: &[String],
    ) -> Result<Vec<Vec<f32>>, (KnowledgeError, bool)> {
        let failed = |detail: String| KnowledgeError::Embedding {
            model: self.model.clone(),
            detail,
        };
        let got = match self.backend.embed(&self.model, texts).await {
            Ok(v) => v,
            Err(e) => {
                let refused = matches!(
                    e,
                    BackendError::Server { .. }
                        | BackendError::BadRequest { .. }
                        | BackendError::ContextOverflow { .. }
                );
                return Err((failed(e.to_string()), refused));
            }
        };
        if got.len() != texts.len() {
            return Err((
                failed(format!(
                    "{} vectors for {} passages",
                    got.len(),
                    texts.len()
                )),
                false,
            ));
        }
        let dims = got.first().map_or(0, Vec::len);
        got.into_iter()
            .map(|v| {
                if v.len() != dims || dims == 0 {
                    return Err((
                        failed("vectors of different lengths in one reply".into()),
                        false,
                    ));
                }
                normalised(v)
                    .ok_or_else(|| (failed("a vector of zeros or not numbers".into()), false))
            })
            .collect()
    }

    /// Vectors for a batch the server may refuse in part: the whole batch
    /// first; refused, one passage at a time, each cut in half until the
    /// server takes it. `None` for a passage it never takes — once the
    /// server has shown that it still embeds at all (a two-letter probe): a
    /// server that fails everything is an error of the pass, and no
    /// passage is given up on for it.
    pub(crate) async fn embed_batch(
        &self,
        texts: &[String],
    ) -> Result<Vec<Option<Vec<f32>>>, KnowledgeError> {
        match self.embed_or_refused(texts).await {
            Ok(v) => return Ok(v.into_iter().map(Some).collect()),
            Err((e, false)) => return Err(e),
            Err((e, true)) => tracing::debug!("batch refused, one at a time: {e}"),
        }
        let mut out = Vec::with_capacity(texts.len());
        let mut alive = false;
        for text in texts {
            let mut text = text.clone();
            let mut got = None;
            let mut last = None;
            for _ in 0..=MAX_HALVINGS {
                match self.embed_or_refused(std::slice::from_ref(&text)).await {
                    Ok(mut v) => {
                        got = v.pop();
                        alive = true;
                        break;
                    }
                    Err((e, false)) => return Err(e),
                    Err((e, true)) => {
                        tracing::debug!("passage refused ({} bytes): {e}", text.len());
                        last = Some(e);
                        let mut cut = text.len() / 2;
                        while !text.is_char_boundary(cut) {
                            cut -= 1;
                        }
                        text.truncate(cut);
                    }
                }
            }
            if got.is_none() && !alive {
                if let Err((e, _)) = self.embed_or_refused(&["ok".to_owned()]).await {
                    return Err(last.unwrap_or(e));
                }
                alive = true;
            }
            out.push(got);
        }
        Ok(out)
    }

    /// The vector of a search.
    pub(crate) async fn embed_query(&self, query: &str) -> Result<Vec<f32>, KnowledgeError> {
        let mut v = self.embed(&[query.to_owned()]).await?;
        v.pop().ok_or_else(|| KnowledgeError::Embedding {
            model: self.model.clone(),
            detail: "no vector for the query".into(),
        })
    }
}
