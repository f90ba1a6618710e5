//! The reviewer's verdict, read from its answer, and what the workflow
//! does with it. Only a verdict that parses as `DONE` ends the work: an
//! answer with no readable verdict counts as `NEEDS_FIX` once (a false
//! "done" ships broken work, a false "needs fix" costs one pass), and is
//! reported the second time.

use hearth_protocol::Verdict;
use serde_json::Value;

/// A verdict with its punch list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Review {
    pub(crate) verdict: Verdict,
    pub(crate) punch_list: Vec<String>,
}

/// The punch list of a verdict that could not be read.
pub(crate) const UNREADABLE_PUNCH: &str = "The review gave no verdict that could be read: check the work against the plan, run each check it names, and fix what fails.";

/// The punch list of a `NEEDS_FIX` that named nothing.
pub(crate) const UNNAMED_PUNCH: &str = "The reviewer found the work unfinished without saying where: run each check the plan names and fix what fails.";

/// Read the verdict in `answer`: the last JSON object in it with a
/// `verdict` key (inside a code fence or not), else a line that is only
/// `DONE` or `NEEDS_FIX` (a small model may drop the JSON).
pub(crate) fn read(answer: &str) -> Review {
    if let Some(review) = last_json_verdict(answer) {
        return review;
    }
    let bare = answer
        .lines()
        .rev()
        .map(|l| l.trim().trim_matches(['*', '`', '.', ' ']))
        .find_map(|l| {
            let l = l.strip_prefix("VERDICT:").unwrap_or(l).trim();
            verdict_word(l)
        });
    match bare {
        Some(Verdict::NeedsFix) => Review {
            verdict: Verdict::NeedsFix,
            punch_list: vec![UNNAMED_PUNCH.to_owned()],
        },
        Some(v) => Review {
            verdict: v,
            punch_list: Vec::new(),
        },
        None => unreadable(),
    }
}

fn unreadable() -> Review {
    Review {
        verdict: Verdict::Unreadable,
        punch_list: vec![UNREADABLE_PUNCH.to_owned()],
    }
}

fn verdict_word(word: &str) -> Option<Verdict> {
    let w: String = word
        .chars()
        .map(|c| match c {
            '-' | ' ' => '_',
            c => c.to_ascii_uppercase(),
        })
        .collect();
    match w.as_str() {
        "DONE" => Some(Verdict::Done),
        "NEEDS_FIX" => Some(Verdict::NeedsFix),
        _ => None,
    }
}

fn last_json_verdict(answer: &str) -> Option<Review> {
    let starts: Vec<usize> = answer.match_indices('{').map(|(i, _)| i).collect();
    starts.into_iter().rev().find_map(|i| {
        let value = serde_json::Deserializer::from_str(&answer[i..])
            .into_iter::<Value>()
            .next()?
            .ok()?;
        let verdict = verdict_word(value.get("verdict")?.as_str()?)?;
        let mut punch_list: Vec<String> = match value.get("punch_list") {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| match v {
                    Value::String(s) => Some(s.trim().to_owned()),
                    Value::Null => None,
                    other => Some(other.to_string()),
                })
                .filter(|s| !s.is_empty())
                .collect(),
            Some(Value::String(s)) if !s.trim().is_empty() => vec![s.trim().to_owned()],
            _ => Vec::new(),
        };
        match verdict {
            Verdict::Done => punch_list.clear(),
            _ if punch_list.is_empty() => punch_list.push(UNNAMED_PUNCH.to_owned()),
            _ => {}
        }
        Some(Review {
            verdict,
            punch_list,
        })
    })
}

/// What follows a review of implement pass `cycle`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AfterReview {
    /// The work is done.
    Finish,
    /// Send the punch list back for another implement pass.
    Fix,
    /// Still not done, and no pass is left (or a second unreadable
    /// verdict): the workflow ends and says so.
    GiveUp,
}

/// Decide what follows `verdict` on pass `cycle` (from 1), when a
/// `NEEDS_FIX` may send the work back `max_fixes` times and
/// `unreadable_before` verdicts could not be read already.
pub(crate) fn after(
    verdict: Verdict,
    cycle: u32,
    max_fixes: u32,
    unreadable_before: u32,
) -> AfterReview {
    let pass_left = cycle <= max_fixes;
    match verdict {
        Verdict::Done => AfterReview::Finish,
        Verdict::NeedsFix if pass_left => AfterReview::Fix,
        Verdict::Unreadable if pass_left && unreadable_before == 0 => AfterReview::Fix,
        Verdict::NeedsFix | Verdict::Unreadable => AfterReview::GiveUp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_json_verdict_wins_fenced_or_not() {
        let r = read(
            "I ran `cargo test`: 1 failed.\n```json\n{\"verdict\": \"NEEDS_FIX\", \"punch_list\": [\"add() returns a-b\", \"\"]}\n```",
        );
        assert_eq!(r.verdict, Verdict::NeedsFix);
        assert_eq!(r.punch_list, ["add() returns a-b"]);
        let r = read(
            "Earlier: {\"verdict\":\"NEEDS_FIX\",\"punch_list\":[\"x\"]} then fixed.\n{\"verdict\":\"done\",\"punch_list\":[\"ignored\"]}",
        );
        assert_eq!(r.verdict, Verdict::Done);
        assert!(r.punch_list.is_empty());
    }

    #[test]
    fn a_bare_word_is_read_and_anything_else_is_unreadable() {
        assert_eq!(read("All checks pass.\n\n**DONE**").verdict, Verdict::Done);
        let r = read("VERDICT: needs fix");
        assert_eq!(r.verdict, Verdict::NeedsFix);
        assert_eq!(r.punch_list, [UNNAMED_PUNCH]);
        for answer in [
            "",
            "Looks good to me!",
            "{\"verdict\": \"maybe\"}",
            "{\"verdict\": ",
            "I am done with it",
        ] {
            let r = read(answer);
            assert_eq!(r.verdict, Verdict::Unreadable, "{answer:?}");
            assert_eq!(r.punch_list, [UNREADABLE_PUNCH]);
        }
    }

    #[test]
    fn a_needs_fix_without_a_list_names_what_to_do() {
        let r = read("{\"verdict\":\"NEEDS_FIX\"}");
        assert_eq!(r.punch_list, [UNNAMED_PUNCH]);
        let r = read("{\"verdict\":\"NEEDS_FIX\",\"punch_list\":\"tests fail\"}");
        assert_eq!(r.punch_list, ["tests fail"]);
    }

    #[test]
    fn fixes_are_bounded_and_an_unreadable_verdict_is_forgiven_once() {
        use AfterReview::*;
        use Verdict::*;
        let table = [
            // verdict, pass, most fixes, unreadable before -> next
            (Done, 1, 2, 0, Finish),
            (NeedsFix, 1, 2, 0, Fix),
            (NeedsFix, 2, 2, 0, Fix),
            (NeedsFix, 3, 2, 0, GiveUp),
            (NeedsFix, 1, 0, 0, GiveUp),
            (Unreadable, 1, 2, 0, Fix),
            (Unreadable, 2, 2, 1, GiveUp),
            (NeedsFix, 2, 2, 1, Fix),
            (Unreadable, 3, 2, 0, GiveUp),
            (Done, 3, 2, 1, Finish),
        ];
        for (verdict, cycle, max, unreadable, want) in table {
            assert_eq!(
                after(verdict, cycle, max, unreadable),
                want,
                "{verdict:?} on pass {cycle} of {max} fixes, {unreadable} unreadable before"
            );
        }
    }
}
