//! Proposed plans waiting for the user's answer, by request id.

use std::collections::HashMap;
use std::sync::Mutex;

use hearth_protocol::PlanAnswer;
use tokio::sync::oneshot;

/// The plans waiting for an answer.
#[derive(Debug, Default)]
pub(crate) struct PlanAnswers {
    waiting: Mutex<HashMap<String, oneshot::Sender<PlanAnswer>>>,
}

impl PlanAnswers {
    /// Wait for the answer to `request_id` from here on; the receiver
    /// ends with an error when the request is withdrawn.
    pub(crate) fn ask(&self, request_id: &str) -> Waiting<'_> {
        let (tx, rx) = oneshot::channel();
        if let Ok(mut w) = self.waiting.lock() {
            w.insert(request_id.to_owned(), tx);
        }
        Waiting {
            answers: self,
            request_id: request_id.to_owned(),
            rx: Some(rx),
        }
    }

    /// Give `answer` to `request_id`; false when nothing waits for it.
    pub(crate) fn answer(&self, request_id: &str, answer: PlanAnswer) -> bool {
        let tx = self
            .waiting
            .lock()
            .ok()
            .and_then(|mut w| w.remove(request_id));
        tx.is_some_and(|tx| tx.send(answer).is_ok())
    }

    fn withdraw(&self, request_id: &str) {
        if let Ok(mut w) = self.waiting.lock() {
            w.remove(request_id);
        }
    }
}

/// One plan waiting; withdrawn when dropped (a stopped run).
pub(crate) struct Waiting<'a> {
    answers: &'a PlanAnswers,
    request_id: String,
    rx: Option<oneshot::Receiver<PlanAnswer>>,
}

impl Waiting<'_> {
    /// The answer; `None` when the request was withdrawn.
    pub(crate) async fn answer(&mut self) -> Option<PlanAnswer> {
        self.rx.take()?.await.ok()
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.answers.withdraw(&self.request_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_answer_reaches_its_request_once_and_a_dropped_wait_is_withdrawn() {
        let answers = PlanAnswers::default();
        let mut w = answers.ask("q1");
        assert!(
            !answers.answer("q2", PlanAnswer::Cancel),
            "nothing waits for q2"
        );
        assert!(answers.answer("q1", PlanAnswer::Run { plan: None }));
        assert!(!answers.answer("q1", PlanAnswer::Cancel), "answered once");
        assert_eq!(w.answer().await, Some(PlanAnswer::Run { plan: None }));
        drop(answers.ask("q3"));
        assert!(!answers.answer("q3", PlanAnswer::Cancel), "withdrawn");
    }
}
