//! Memory's vote: does a sentence the user wrote of themselves state a
//! lasting fact about them, or a task, a passing state, someone else's
//! story? Its [`NEIGHBOURS`] nearest labelled examples decide, by the
//! meaning of the words (the embedding model the user chose for knowledge
//! folders), not by a list of phrasings.
//!
//! Why: five rounds of refusals written from one benchmark set's failures
//! each left the next, unseen set near precision 0.7 (BENCHMARKS.md, issue
//! 48): a screen of phrasings does not generalise. The examples are the
//! sentences memory picked from the benchmark's development sets, labelled
//! by whether they name an expected fact (`bench/memory/fact_examples.py`
//! writes `fact_examples.tsv`); a new sentence is kept when most of its
//! nearest examples are facts. How it chose its size and how it did on a
//! set none of the examples came from: BENCHMARKS.md, "Memory's vote".
//!
//! The sentences are embedded on the host serving the conversation; the
//! examples once per model, kept in a file beside the database (`cache`).
//! Without an embedding model, or when it fails, every sentence goes on to
//! the model as before: the vote only ever asks about fewer sentences.

use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::backend::ModelBackend;

/// The labelled examples: `1<TAB>sentence` (a durable fact about the user)
/// or `0<TAB>sentence`; `#` starts a comment.
const EXAMPLES: &str = include_str!("fact_examples.tsv");

/// How many nearest examples vote (a sentence is kept by a majority).
/// Seven, chosen on the development sets by holding each one out in turn
/// (BENCHMARKS.md, "Memory's vote": 3 to 15 neighbours all kept about 0.88
/// of the fact sentences and dropped about 0.70 of the others).
pub const NEIGHBOURS: usize = 7;

/// How many texts one embedding request carries.
pub const BATCH: usize = 64;

/// The longest a vote may take, the examples' first embedding included (on
/// a loaded 2-core machine all-MiniLM-L6-v2 embeds the ~500 in about 30 s);
/// past it memory asks about every sentence, as without a vote.
pub const VOTE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// Which embedding model to use now (the one knowledge folders use), if
/// any: asked at each vote, so a model chosen later counts at once.
pub type ChosenModel = Arc<dyn Fn() -> Option<String> + Send + Sync>;

/// The examples, embedded once per model.
struct Embedded {
    model: String,
    vectors: Vec<Vec<f32>>,
    facts: Vec<bool>,
}

/// Memory's vote over labelled examples (see the module's header).
pub struct FactVote {
    chosen: ChosenModel,
    examples: Vec<(bool, String)>,
    embedded: Mutex<Option<Arc<Embedded>>>,
    /// Where the examples' vectors are kept between processes (each
    /// `hearth chat` is one), so a model embeds them once, not per message.
    cache: Option<PathBuf>,
    /// A failed vote was logged as a warning already.
    warned: AtomicBool,
}

impl std::fmt::Debug for FactVote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FactVote")
            .field("examples", &self.examples.len())
            .finish_non_exhaustive()
    }
}

/// How one sentence fared.
#[derive(Debug, Clone, PartialEq)]
pub struct Ballot {
    /// Of its [`NEIGHBOURS`] nearest examples, how many are facts.
    pub facts: usize,
    /// The nearest example, for the log.
    pub nearest: String,
}

impl Ballot {
    /// A majority of facts.
    pub fn keeps(&self) -> bool {
        self.facts * 2 > NEIGHBOURS
    }
}

/// The examples of `text` (see [`EXAMPLES`]); a malformed line is skipped.
fn parse_examples(text: &str) -> Vec<(bool, String)> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (label, sentence) = l.split_once('\t')?;
            let fact = match label {
                "1" => true,
                "0" => false,
                _ => return None,
            };
            let sentence = sentence.trim();
            (!sentence.is_empty()).then(|| (fact, sentence.to_owned()))
        })
        .collect()
}

/// `v` scaled to length 1 (`None` for a zero or non-finite vector).
fn unit(mut v: Vec<f32>) -> Option<Vec<f32>> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return None;
    }
    v.iter_mut().for_each(|x| *x /= norm);
    Some(v)
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The ballot of `sentence` (a unit vector) among `embedded`.
fn ballot(sentence: &[f32], embedded: &Embedded, texts: &[(bool, String)]) -> Ballot {
    let mut scored: Vec<(f32, usize)> = embedded
        .vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (dot(sentence, v), i))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.truncate(NEIGHBOURS);
    Ballot {
        facts: scored.iter().filter(|(_, i)| embedded.facts[*i]).count(),
        nearest: scored
            .first()
            .map(|(_, i)| texts[*i].1.clone())
            .unwrap_or_default(),
    }
}

impl FactVote {
    /// A vote through the embedding model `chosen` names, over the
    /// examples shipped with Hearth.
    pub fn new(chosen: ChosenModel) -> Self {
        Self::with_examples(chosen, EXAMPLES)
    }

    /// As [`FactVote::new`] over other examples (same format).
    pub fn with_examples(chosen: ChosenModel, examples: &str) -> Self {
        Self {
            chosen,
            examples: parse_examples(examples),
            embedded: Mutex::new(None),
            cache: None,
            warned: AtomicBool::new(false),
        }
    }

    /// Keeps the examples' vectors in files in `folder` (one per model and
    /// set of examples; a file that does not match is embedded again). A
    /// folder that is not one (an in-memory database's "") keeps nothing.
    pub fn cached_in(mut self, folder: PathBuf) -> Self {
        self.cache = folder.is_dir().then_some(folder);
        self
    }

    /// How many examples it votes with.
    pub fn examples(&self) -> usize {
        self.examples.len()
    }

    /// The cache file of `model`'s vectors of these examples.
    fn cache_file(&self, model: &str) -> Option<PathBuf> {
        let folder = self.cache.as_ref()?;
        // Not a stable hash across Rust releases, and need not be: another
        // name only embeds the examples once more.
        let mut hasher = std::hash::DefaultHasher::new();
        (model, &self.examples).hash(&mut hasher);
        Some(folder.join(format!("memory-examples-{:016x}.f32", hasher.finish())))
    }

    /// Unit vectors of `texts` from `model`, checked: one per text, all of
    /// one length.
    async fn vectors(
        backend: &dyn ModelBackend,
        model: &str,
        texts: &[String],
    ) -> Result<Vec<Vec<f32>>, String> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            let got = backend
                .embed(model, chunk)
                .await
                .map_err(|e| e.to_string())?;
            if got.len() != chunk.len() {
                return Err(format!(
                    "{model} gave {} vectors for {} texts",
                    got.len(),
                    chunk.len()
                ));
            }
            for v in got {
                out.push(unit(v).ok_or_else(|| format!("{model} gave an empty vector"))?);
            }
        }
        let dims = out.first().map_or(0, Vec::len);
        if out.iter().any(|v| v.len() != dims) {
            return Err(format!("{model} gave vectors of different lengths"));
        }
        Ok(out)
    }

    /// The examples embedded with `model` (the first vote with a model
    /// embeds them, about 500 short sentences; later ones reuse them).
    async fn embedded(
        &self,
        backend: &dyn ModelBackend,
        model: &str,
    ) -> Result<Arc<Embedded>, String> {
        let mut held = self.embedded.lock().await;
        if let Some(e) = held.as_ref().filter(|e| e.model == model) {
            return Ok(e.clone());
        }
        let file = self.cache_file(model);
        let vectors = match file
            .as_deref()
            .and_then(|f| cache::read(f, self.examples.len()))
        {
            Some(v) => v,
            None => {
                let texts: Vec<String> = self.examples.iter().map(|(_, s)| s.clone()).collect();
                let v = Self::vectors(backend, model, &texts).await?;
                if let Some(f) = &file
                    && let Err(e) = cache::write(f, &v)
                {
                    tracing::debug!(
                        "memory: the examples' vectors not kept in {}: {e}",
                        f.display()
                    );
                }
                v
            }
        };
        let e = Arc::new(Embedded {
            model: model.to_owned(),
            vectors,
            facts: self.examples.iter().map(|(f, _)| *f).collect(),
        });
        *held = Some(e.clone());
        Ok(e)
    }

    /// One ballot per sentence, in order, by the chosen embedding model on
    /// `backend` (the host serving the conversation); `None` when there is
    /// no vote to take: no embedding model chosen, too few examples, the
    /// model failed or took longer than [`VOTE_TIMEOUT`] (said in the log:
    /// memory then asks about every sentence), or `cancel` fired (the user
    /// started a new turn or stopped: the worker asks nothing then).
    pub async fn ballots(
        &self,
        backend: &dyn ModelBackend,
        sentences: &[String],
        cancel: &CancellationToken,
    ) -> Option<Vec<Ballot>> {
        let model = (self.chosen)()?;
        if self.examples.len() < NEIGHBOURS || sentences.is_empty() || cancel.is_cancelled() {
            return None;
        }
        let taken = async {
            let embedded = self.embedded(backend, &model).await?;
            let vectors = Self::vectors(backend, &model, sentences).await?;
            let dims = embedded.vectors.first().map_or(0, Vec::len);
            if vectors.iter().any(|v| v.len() != dims) {
                // The model behind the name changed (a server swapped it):
                // the examples are embedded again next time.
                self.forget(&model).await;
                return Err(format!(
                    "{model} gave vectors of another length than the examples' ({dims})"
                ));
            }
            Ok::<_, String>(
                vectors
                    .iter()
                    .map(|v| ballot(v, &embedded, &self.examples))
                    .collect(),
            )
        };
        let outcome = tokio::select! {
            () = cancel.cancelled() => return None,
            r = tokio::time::timeout(VOTE_TIMEOUT, taken) => r,
        };
        let failed = match outcome {
            Ok(Ok(ballots)) => return Some(ballots),
            Ok(Err(e)) => e,
            Err(_) => format!("{model} took longer than {} s", VOTE_TIMEOUT.as_secs()),
        };
        // Said once a process: a host without the model would say it after
        // every message.
        if self.warned.swap(true, Ordering::Relaxed) {
            tracing::debug!(
                "memory: no vote on the sentences ({failed}); asking about all of them"
            );
        } else {
            tracing::warn!("memory: no vote on the sentences ({failed}); asking about all of them");
        }
        None
    }

    /// Drops `model`'s vectors of the examples, held and kept.
    async fn forget(&self, model: &str) {
        let mut held = self.embedded.lock().await;
        if held.as_ref().is_some_and(|e| e.model == model) {
            *held = None;
        }
        if let Some(f) = self.cache_file(model) {
            let _ = std::fs::remove_file(f);
        }
    }
}

mod cache;

#[cfg(test)]
#[path = "fact_vote_tests.rs"]
mod tests;
