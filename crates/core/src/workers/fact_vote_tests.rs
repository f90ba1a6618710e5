use std::sync::Mutex as StdMutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;

use super::*;
use crate::backend::{BackendError, ModelRequest, ModelStream};
use crate::settings::LoadOptions;

/// An embedding model that places a text by the words it holds: one axis
/// per listed word, so "work" sentences sit together and "today" ones
/// elsewhere. It counts its requests and can be told to fail.
#[derive(Default)]
struct Words {
    requests: AtomicUsize,
    texts: AtomicUsize,
    models: StdMutex<Vec<String>>,
    fail: StdMutex<Option<&'static str>>,
}

const AXES: [&str; 6] = ["work", "live", "allergic", "today", "meeting", "tired"];

#[async_trait]
impl ModelBackend for Words {
    async fn chat(&self, _request: ModelRequest) -> Result<ModelStream, BackendError> {
        Err(BackendError::Truncated)
    }

    async fn preload(&self, _model: &str, _load: &LoadOptions) -> Result<(), BackendError> {
        Ok(())
    }

    async fn unload(&self, _model: &str) -> Result<(), BackendError> {
        Ok(())
    }

    async fn embed(&self, model: &str, texts: &[String]) -> Result<Vec<Vec<f32>>, BackendError> {
        self.requests.fetch_add(1, Ordering::SeqCst);
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        self.models.lock().unwrap().push(model.to_owned());
        let fail = *self.fail.lock().unwrap();
        match fail {
            Some("down") => Err(BackendError::BadRequest {
                message: "no such model".into(),
            }),
            Some("short") => Ok(vec![vec![1.0; AXES.len()]; texts.len().saturating_sub(1)]),
            Some("dims") => Ok(texts.iter().map(|_| vec![1.0; 3]).collect()),
            _ => Ok(texts
                .iter()
                .map(|t| {
                    let t = t.to_lowercase();
                    // A small constant keeps every vector non-zero.
                    AXES.iter()
                        .map(|w| if t.contains(w) { 1.0 } else { 0.01 })
                        .collect()
                })
                .collect()),
        }
    }
}

const EXAMPLES: &str = "# a comment\n\
1\tI work as a nurse.\n\
1\tI work at a bakery.\n\
1\tI live in Leeds.\n\
1\tI live with my sister.\n\
1\tI am allergic to nuts.\n\
1\tI work nights, I live alone.\n\
1\tI'm allergic to cats and work from home.\n\
0\tI am tired today.\n\
0\tI have a meeting today.\n\
0\tToday I am so tired.\n\
0\tMy meeting is today.\n\
0\tI had a meeting and I'm tired.\n\
0\tThe meeting today made me tired.\n\
0\tTired after today's meeting.\n\
2\tnot a label\n\
no tab at all\n\
1\t   \n";

fn vote(model: Option<&str>) -> FactVote {
    let model = model.map(str::to_owned);
    let chosen: ChosenModel = Arc::new(move || model.clone());
    FactVote::with_examples(chosen, EXAMPLES)
}

/// A token nobody cancels.
fn live() -> CancellationToken {
    CancellationToken::new()
}

fn s(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| (*t).to_owned()).collect()
}

#[test]
fn examples_are_labelled_lines_and_anything_else_is_skipped() {
    let parsed = parse_examples(EXAMPLES);
    assert_eq!(parsed.len(), 14);
    assert_eq!(parsed.iter().filter(|(f, _)| *f).count(), 7);
    assert_eq!(parsed[0], (true, "I work as a nurse.".to_owned()));
}

#[test]
fn the_shipped_examples_hold_both_kinds_in_number() {
    let parsed = parse_examples(super::EXAMPLES);
    let facts = parsed.iter().filter(|(f, _)| *f).count();
    assert!(parsed.len() >= 400, "{} examples", parsed.len());
    assert!(facts >= 150 && parsed.len() - facts >= 150, "{facts} facts");
    // The examples are development data: the newest held-out set is
    // scored once, on a vote that never saw it.
    assert!(!super::EXAMPLES.contains("heldout-7"));
}

#[tokio::test]
async fn a_sentence_is_kept_when_most_of_its_nearest_examples_are_facts() {
    let words = Arc::new(Words::default());
    let v = vote(Some("minilm"));
    let ballots = v
        .ballots(
            words.as_ref(),
            &s(&[
                "I work in a school and live in York.",
                "I have a meeting today and I'm tired.",
            ]),
            &live(),
        )
        .await
        .expect("a vote");
    assert_eq!(ballots.len(), 2);
    assert!(ballots[0].keeps(), "{:?}", ballots[0]);
    assert_eq!(ballots[0].facts, NEIGHBOURS);
    assert!(!ballots[1].keeps(), "{:?}", ballots[1]);
    assert_eq!(ballots[1].facts, 0);
    assert!(ballots[1].nearest.contains("meeting"), "{:?}", ballots[1]);
    assert_eq!(
        words.models.lock().unwrap().as_slice(),
        ["minilm", "minilm"]
    );
}

#[tokio::test]
async fn the_examples_are_embedded_once_per_model() {
    let words = Arc::new(Words::default());
    let chosen = Arc::new(StdMutex::new("a".to_owned()));
    let c = chosen.clone();
    let pick: ChosenModel = Arc::new(move || Some(c.lock().unwrap().clone()));
    let v = FactVote::with_examples(pick, EXAMPLES);
    v.ballots(words.as_ref(), &s(&["I work here."]), &live())
        .await
        .expect("a vote");
    v.ballots(words.as_ref(), &s(&["I live there."]), &live())
        .await
        .expect("a vote");
    // 14 examples once, then one sentence a vote.
    assert_eq!(words.texts.load(Ordering::SeqCst), 14 + 1 + 1);
    *chosen.lock().unwrap() = "b".to_owned();
    v.ballots(words.as_ref(), &s(&["I live there."]), &live())
        .await
        .expect("a vote");
    assert_eq!(words.texts.load(Ordering::SeqCst), 16 + 14 + 1);
}

#[tokio::test]
async fn no_model_chosen_takes_no_vote_and_asks_the_server_nothing() {
    let words = Arc::new(Words::default());
    assert!(
        vote(None)
            .ballots(words.as_ref(), &s(&["I work here."]), &live())
            .await
            .is_none()
    );
    assert_eq!(words.requests.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_failing_or_inconsistent_model_takes_no_vote() {
    for fail in ["down", "short"] {
        let words = Arc::new(Words::default());
        *words.fail.lock().unwrap() = Some(fail);
        let v = vote(Some("m"));
        assert!(
            v.ballots(words.as_ref(), &s(&["I work here."]), &live())
                .await
                .is_none(),
            "{fail}"
        );
        assert!(words.requests.load(Ordering::SeqCst) >= 1, "{fail}");
    }
    // Examples embedded by a sound model, then a sentence of another length.
    let words = Arc::new(Words::default());
    let v = vote(Some("m"));
    v.ballots(words.as_ref(), &s(&["I work here."]), &live())
        .await
        .expect("a vote");
    *words.fail.lock().unwrap() = Some("dims");
    assert!(
        v.ballots(words.as_ref(), &s(&["I work here."]), &live())
            .await
            .is_none()
    );
    // The model behind the name changed: its old vectors of the examples
    // are dropped, so the next vote embeds them again (all of one length).
    *words.fail.lock().unwrap() = None;
    let before = words.texts.load(Ordering::SeqCst);
    v.ballots(words.as_ref(), &s(&["I work here."]), &live())
        .await
        .expect("a vote");
    assert_eq!(words.texts.load(Ordering::SeqCst), before + 14 + 1);
}

#[test]
fn a_zero_vector_is_refused_and_others_are_scaled_to_one() {
    assert!(unit(vec![0.0, 0.0]).is_none());
    assert!(unit(vec![f32::NAN, 1.0]).is_none());
    let u = unit(vec![3.0, 4.0]).expect("unit");
    assert!((dot(&u, &u) - 1.0).abs() < 1e-6);
}

#[tokio::test]
async fn the_examples_vectors_are_kept_in_a_file_and_embedded_once_across_votes() {
    let dir = std::env::temp_dir().join(format!("hearth-vote-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let words = Arc::new(Words::default());
    let first = vote(Some("m")).cached_in(dir.clone());
    let a = first
        .ballots(words.as_ref(), &s(&["I work here."]), &live())
        .await
        .expect("a vote");
    assert_eq!(words.texts.load(Ordering::SeqCst), 14 + 1);
    // Another process (a new vote): the file serves, only the sentence is
    // embedded, and the verdict is the same.
    let second = vote(Some("m")).cached_in(dir.clone());
    let b = second
        .ballots(words.as_ref(), &s(&["I work here."]), &live())
        .await
        .expect("a vote");
    assert_eq!(words.texts.load(Ordering::SeqCst), 14 + 2);
    assert_eq!(a, b);
    // A file cut short is not believed: the examples are embedded again.
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "f32"))
        .expect("a cache file");
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() - 4]).unwrap();
    let third = vote(Some("m")).cached_in(dir.clone());
    third
        .ballots(words.as_ref(), &s(&["I work here."]), &live())
        .await
        .expect("a vote");
    assert_eq!(words.texts.load(Ordering::SeqCst), 14 + 2 + 14 + 1);
    assert_eq!(std::fs::read(&file).unwrap(), bytes);
    // Another model has a file of its own.
    let other = vote(Some("n")).cached_in(dir.clone());
    other
        .ballots(words.as_ref(), &s(&["I work here."]), &live())
        .await
        .expect("a vote");
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(files, 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_stopped_turn_or_too_few_examples_takes_no_vote() {
    let words = Arc::new(Words::default());
    let stopped = CancellationToken::new();
    stopped.cancel();
    assert!(
        vote(Some("m"))
            .ballots(words.as_ref(), &s(&["I work here."]), &stopped)
            .await
            .is_none()
    );
    assert_eq!(words.requests.load(Ordering::SeqCst), 0);
    // Six examples cannot give seven neighbours: no vote, not "drop all".
    let chosen: ChosenModel = Arc::new(|| Some("m".to_owned()));
    let few = FactVote::with_examples(chosen, "1\tI work.\n1\tI live.\n0\ta\n0\tb\n0\tc\n0\td\n");
    assert_eq!(few.examples(), 6);
    assert!(
        few.ballots(words.as_ref(), &s(&["I work here."]), &live())
            .await
            .is_none()
    );
}
