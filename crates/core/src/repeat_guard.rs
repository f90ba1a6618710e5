//! The repeat guard ("StormBreaker", docs/background.md §5.6): small models
//! often call the same tool with the same arguments again and again. The
//! third identical call in a sliding window is suppressed; the first time a
//! whole batch is suppressed the model gets one structured chance to change
//! course (reflect, then pivot); if it keeps repeating, the run ends instead
//! of spinning to the iteration cap. Pure: no I/O, no clock.

use std::collections::VecDeque;

use crate::message::ToolCall;

/// Calls remembered.
const WINDOW: usize = 12;
/// The call that makes this many identical ones is suppressed.
const LIMIT: usize = 3;

/// The result given to a suppressed call the first time a whole batch is
/// suppressed: not "don't repeat yourself", which tends to reinforce the
/// loop, but a prompt to reflect and pick a different approach.
pub const REFLECT_PROMPT: &str = "Not run: you already made this exact call twice and got its result above. \
Before you go on:\n\
1. State what the call was trying to achieve and why repeating it is not working.\n\
2. Name the assumption that might be wrong, and what the earlier results actually show.\n\
3. Propose 2-3 fundamentally different approaches (another tool, other arguments, another reading of the request) and pick one.\n\
4. Proceed with that approach; or, if nothing can work with the tools you have, say so plainly instead of retrying.";

/// The result of a suppressed call when some other call in its batch ran.
pub const SUPPRESSED: &str = "Not run: you already made this exact call twice; its result is above. Use it, or try something different.";

/// What to do with one batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Run every call.
    RunAll,
    /// Run the calls not listed; answer the listed ones (by index) with
    /// `result` instead.
    Suppress {
        /// Indexes of the suppressed calls.
        indexes: Vec<usize>,
        /// The result they get.
        result: &'static str,
    },
    /// Every call repeats again after the model was asked to pivot: end
    /// the run.
    GiveUp,
}

/// Tracks recent calls of one run.
#[derive(Debug, Default)]
pub struct RepeatGuard {
    /// Recent calls: key, and whether the call mutates.
    recent: VecDeque<(String, bool)>,
    reflected: bool,
}

fn key(call: &ToolCall) -> String {
    // serde_json sorts object keys, so equal arguments give equal text.
    format!("{}\u{0}{}", call.name, call.arguments)
}

impl RepeatGuard {
    /// A mutating call ran: the state changed, so reading again is not a
    /// loop. Reads are forgotten; identical mutating calls still count (the
    /// same failing command run again and again is a storm).
    pub fn forget_reads(&mut self) {
        self.recent.retain(|(_, mutating)| *mutating);
    }

    /// Judge a batch and remember its calls; `mutating(call)` tells which
    /// calls change state.
    pub fn judge(&mut self, calls: &[ToolCall], mutating: impl Fn(&ToolCall) -> bool) -> Verdict {
        let mut suppressed = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            let k = key(call);
            let seen = self.recent.iter().filter(|(r, _)| *r == k).count();
            if seen + 1 >= LIMIT {
                suppressed.push(i);
            }
            self.recent.push_back((k, mutating(call)));
            if self.recent.len() > WINDOW {
                self.recent.pop_front();
            }
        }
        if suppressed.is_empty() {
            // A batch that runs in full is progress: a later storm gets its
            // own reflect prompt.
            self.reflected = false;
            return Verdict::RunAll;
        }
        if suppressed.len() < calls.len() {
            return Verdict::Suppress {
                indexes: suppressed,
                result: SUPPRESSED,
            };
        }
        if self.reflected {
            return Verdict::GiveUp;
        }
        self.reflected = true;
        Verdict::Suppress {
            indexes: suppressed,
            result: REFLECT_PROMPT,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, args: serde_json::Value) -> ToolCall {
        ToolCall {
            id: "x".into(),
            name: name.into(),
            arguments: args,
        }
    }

    #[test]
    fn the_third_identical_call_is_suppressed_then_the_run_gives_up() {
        let mut s = RepeatGuard::default();
        let c = || vec![call("calculator", json!({"expression": "1+1"}))];
        assert_eq!(s.judge(&c(), |_| false), Verdict::RunAll);
        assert_eq!(s.judge(&c(), |_| false), Verdict::RunAll);
        assert_eq!(
            s.judge(&c(), |_| false),
            Verdict::Suppress {
                indexes: vec![0],
                result: REFLECT_PROMPT
            }
        );
        assert_eq!(s.judge(&c(), |_| false), Verdict::GiveUp);
    }

    #[test]
    fn a_write_makes_reading_again_fresh_but_not_writing_again() {
        let mut s = RepeatGuard::default();
        let read = call("read", json!({"path": "a"}));
        let write = call("write", json!({"path": "a", "text": "x"}));
        let is_write = |c: &ToolCall| c.name == "write";
        for _ in 0..2 {
            assert_eq!(
                s.judge(std::slice::from_ref(&read), is_write),
                Verdict::RunAll
            );
            assert_eq!(
                s.judge(std::slice::from_ref(&write), is_write),
                Verdict::RunAll
            );
            s.forget_reads();
        }
        // A third read after a write is fine; a third identical write is not.
        assert_eq!(
            s.judge(std::slice::from_ref(&read), is_write),
            Verdict::RunAll
        );
        assert!(matches!(
            s.judge(std::slice::from_ref(&write), is_write),
            Verdict::Suppress { .. }
        ));
    }

    #[test]
    fn argument_order_does_not_matter_and_different_calls_pass() {
        let mut s = RepeatGuard::default();
        let a = call("t", serde_json::from_str(r#"{"a":1,"b":2}"#).unwrap());
        let b = call("t", serde_json::from_str(r#"{"b":2,"a":1}"#).unwrap());
        assert_eq!(
            s.judge(std::slice::from_ref(&a), |_| false),
            Verdict::RunAll
        );
        assert_eq!(
            s.judge(std::slice::from_ref(&b), |_| false),
            Verdict::RunAll
        );
        // A mixed batch: only the repeat is suppressed.
        let other = call("t", json!({"a": 9}));
        assert_eq!(
            s.judge(&[other, a], |_| false),
            Verdict::Suppress {
                indexes: vec![1],
                result: SUPPRESSED
            }
        );
        // Varying arguments are progress, not a storm.
        let mut s = RepeatGuard::default();
        for i in 0..30 {
            assert_eq!(
                s.judge(&[call("read", json!({"page": i}))], |_| false),
                Verdict::RunAll
            );
        }
    }
}
