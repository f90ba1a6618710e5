//! The embedding pass: every passage without a vector given one, in
//! batches. The passages without one are the to-do list, so a pass
//! stopped or killed goes on where it was, and memory holds one batch.

use std::sync::atomic::{AtomicBool, Ordering};

use rusqlite::params;

use crate::embed::{EmbedReport, Embedder};
use crate::error::KnowledgeError;
use crate::index::Index;
use crate::vectors::encode;

/// Passages a request: few enough that a slow CPU server answers each in
/// seconds, many enough that the request overhead is small.
const BATCH: usize = 16;

/// What a passage is embedded as: where it is, then its text (a passage
/// that says "run it with --force" means more under "Reset › Recovery"
/// of recovery.md).
fn embedding_input(path: &str, heading: Option<&str>, text: &str) -> String {
    match heading {
        Some(h) => format!("{path} — {h}\n{text}"),
        None => format!("{path}\n{text}"),
    }
}

impl Index {
    /// Gives every passage without a vector one from `embedder`, in
    /// batches, until none is left or `stop` is set; `progress(done,
    /// total)` after each batch. A model other than the one the vectors
    /// were made with first drops them all (the report says so): vectors
    /// of two models cannot be compared.
    pub async fn embed_pending(
        &self,
        embedder: &Embedder,
        stop: &AtomicBool,
        progress: &(dyn Fn(u64, u64) + Send + Sync),
    ) -> Result<EmbedReport, KnowledgeError> {
        let mut report = EmbedReport::default();
        let held = self.vectors_model()?;
        if let Some((old, _)) = held.as_ref().filter(|(m, _)| m != embedder.model()) {
            report.replaced_model = Some(old.clone());
            self.forget_vectors()?;
        }
        let mut dims = self.vectors_model()?.map(|(_, d)| d);
        let total = self.unembedded()?;
        loop {
            if stop.load(Ordering::SeqCst) {
                report.left = self.unembedded()?;
                return Ok(report);
            }
            let batch = self.next_batch()?;
            if batch.is_empty() {
                break;
            }
            let inputs: Vec<String> = batch.iter().map(|b| b.1.clone()).collect();
            let vectors = embedder.embed_batch(&inputs).await?;
            let lengths: Vec<usize> = vectors.iter().flatten().map(Vec::len).collect();
            let got = lengths.first().copied().unwrap_or(0);
            if lengths.iter().any(|l| *l != got) {
                return Err(KnowledgeError::Embedding {
                    model: embedder.model().to_owned(),
                    detail: "vectors of different lengths".into(),
                });
            }
            match dims {
                _ if got == 0 => {}
                Some(held) if held != got => {
                    return Err(KnowledgeError::Dimension {
                        model: embedder.model().to_owned(),
                        got,
                        held,
                    });
                }
                Some(_) => {}
                None => {
                    self.set_meta("vectors_model", embedder.model())?;
                    self.set_meta("dims", &got.to_string())?;
                    dims = Some(got);
                }
            }
            {
                let mut conn = self.conn();
                let tx = conn.transaction()?;
                {
                    let mut stmt =
                        tx.prepare_cached("UPDATE chunks SET embedding = ?2 WHERE id = ?1")?;
                    // A passage the server never took keeps an empty vector:
                    // not asked again, found by its words.
                    for ((id, _), v) in batch.iter().zip(&vectors) {
                        let blob = v.as_deref().map(encode).unwrap_or_default();
                        stmt.execute(params![id, blob])?;
                    }
                }
                tx.commit()?;
            }
            self.vectors_changed();
            let refused = vectors.iter().filter(|v| v.is_none()).count() as u64;
            report.refused += refused;
            report.embedded += batch.len() as u64 - refused;
            progress(report.embedded, total.max(report.embedded));
        }
        report.dims = dims.unwrap_or(0);
        Ok(report)
    }

    /// Drops every vector (the next pass embeds everything again): for a
    /// server whose model changed under the same name.
    pub fn forget_vectors(&self) -> Result<(), KnowledgeError> {
        self.conn().execute_batch(
            "BEGIN; UPDATE chunks SET embedding = NULL WHERE embedding IS NOT NULL;
             DELETE FROM meta WHERE key IN ('vectors_model', 'dims'); COMMIT;",
        )?;
        self.vectors_changed();
        Ok(())
    }

    /// How many passages have no vector.
    pub fn unembedded(&self) -> Result<u64, KnowledgeError> {
        Ok(self.conn().query_row(
            "SELECT count(*) FROM chunks WHERE embedding IS NULL",
            [],
            |r| r.get(0),
        )?)
    }

    fn next_batch(&self) -> Result<Vec<(i64, String)>, KnowledgeError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT id, path, heading, text FROM chunks WHERE embedding IS NULL ORDER BY id LIMIT ?1",
        )?;
        let rows = stmt.query_map([BATCH as i64], |r| {
            let path: String = r.get(1)?;
            let heading: Option<String> = r.get(2)?;
            let text: String = r.get(3)?;
            Ok((r.get(0)?, embedding_input(&path, heading.as_deref(), &text)))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
