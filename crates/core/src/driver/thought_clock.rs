//! How long a model call thought, for "Thought for 12 s".

use std::time::Instant;

use hearth_protocol::EventKind;

/// The time a model call spent reasoning: from its first reasoning piece
/// (or, for reasoning first shown as the answer and then taken back, that
/// answer's first piece) to the first piece of the answer after it, or the
/// end of the call. Reported once per call, as `thinking_ended`.
#[derive(Debug, Default)]
pub(super) struct ThoughtClock {
    since: Option<Instant>,
    /// The first piece of text, which may turn out to be reasoning.
    text_since: Option<Instant>,
    reported: bool,
}

impl ThoughtClock {
    pub(super) fn thinking(&mut self) {
        if self.since.is_none() && !self.reported {
            self.since = Some(Instant::now());
        }
    }

    pub(super) fn rethought(&mut self) {
        if !self.reported {
            self.since = self.since.or(self.text_since).or(Some(Instant::now()));
        }
        self.text_since = None;
    }

    pub(super) fn text(&mut self, sink: &crate::events::EventSink) {
        self.text_since.get_or_insert_with(Instant::now);
        self.end(sink);
    }

    pub(super) fn end(&mut self, sink: &crate::events::EventSink) {
        if let Some(since) = self.since.take() {
            self.reported = true;
            let ms = u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX);
            sink.emit(EventKind::ThinkingEnded { ms });
        }
    }
}
