use serde_json::Value;

use super::*;
use crate::sanitize::split_thinking;

/// Feeds `pieces`, then the end; what the screen shows at each step and
/// whether anything had to be replaced.
fn stream(pieces: &[&str]) -> (Vec<String>, bool) {
    let mut shown = ShownText::default();
    let mut screen = String::new();
    let mut steps = Vec::new();
    let mut replaced = false;
    let mut apply = |change: Option<ShownChange>, screen: &mut String| match change {
        Some(ShownChange::Append(more)) => screen.push_str(&more),
        Some(ShownChange::Replace(all)) => {
            replaced = true;
            *screen = all;
        }
        None => {}
    };
    for p in pieces {
        apply(shown.push(p), &mut screen);
        steps.push(screen.clone());
    }
    apply(shown.finish(), &mut screen);
    steps.push(screen);
    (steps, replaced)
}

/// Answers as small models write them (tests/fixtures/sanitizer.json, the
/// same file the page's suite reads): streamed one character at a time,
/// or cut in two anywhere, the screen only grows and ends as the stored
/// view.
#[test]
fn the_live_answer_is_the_stored_view_in_the_making() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/sanitizer.json");
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for case in fixture["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let expected = case["output"].as_str().unwrap();
        // Reasoning tags are split off before (think_tags.rs).
        let (_, text) = split_thinking(case["input"].as_str().unwrap());
        let chars: Vec<String> = text.chars().map(String::from).collect();
        let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
        let (steps, replaced) = stream(&pieces);
        assert!(!replaced, "{name}: something shown had to be taken back");
        assert!(
            steps.windows(2).all(|w| w[1].starts_with(&w[0])),
            "{name}: {steps:#?}"
        );
        assert_eq!(steps.last().unwrap(), expected, "{name}");
        let cuts = text.char_indices().map(|(i, _)| i).filter(|&i| i > 0);
        for cut in cuts {
            let (steps, _) = stream(&[&text[..cut], &text[cut..]]);
            assert_eq!(steps.last().unwrap(), expected, "{name}, cut at {cut}");
        }
    }
}

#[test]
fn what_may_still_become_a_dropped_tag_is_held() {
    let (steps, _) = stream(&["Sure.", " <fin", "al>Hi</final>"]);
    assert_eq!(steps, ["Sure.", "Sure.", "Sure. Hi", "Sure. Hi"]);
    let (steps, _) = stream(&["Reading.<tool_call>{\"name\":", "\"x\"}</tool_call> Done."]);
    assert_eq!(steps, ["Reading.", "Reading. Done.", "Reading. Done."]);
    let (steps, _) = stream(&["Say\n[Tool", " Call: read]\n{}\n\nok"]);
    assert_eq!(steps, ["Say", "Say\nok", "Say\nok"]);
}

#[test]
fn a_tag_quoted_in_code_is_not_held() {
    let (steps, replaced) = stream(&["Use `<parameter name=\"path\">` ", "for the path."]);
    assert!(!replaced);
    assert_eq!(steps[0], "Use `<parameter name=\"path\">`");
    assert_eq!(
        steps.last().unwrap(),
        "Use `<parameter name=\"path\">` for the path."
    );
    // Unquoted, the same tag holds what follows until it closes.
    let (steps, _) = stream(&["Use <parameter name=\"path\">", "a.txt"]);
    assert_eq!(steps[..2], ["Use", "Use"]);
}

#[test]
fn a_paragraph_that_may_be_a_repeat_waits() {
    let mut shown = ShownText::default();
    assert_eq!(
        shown.push("Done.\n\nDone"),
        Some(ShownChange::Append("Done.".into()))
    );
    assert_eq!(shown.push("."), None, "said twice: kept once");
    assert_eq!(
        shown.push("\n\nNext"),
        Some(ShownChange::Append("\n\nNext".into()))
    );
    assert_eq!(shown.finish(), None);
}

#[test]
fn what_no_longer_extends_the_screen_replaces_it() {
    let mut shown = ShownText::default();
    assert_eq!(
        shown.change_to("Hello there".into()),
        Some(ShownChange::Append("Hello there".into()))
    );
    assert_eq!(
        shown.change_to("Hello".into()),
        Some(ShownChange::Replace("Hello".into()))
    );
    assert_eq!(shown.change_to("Hello".into()), None);
}

/// Plain text after a paragraph that repeats the one before is not simply
/// appended: the repeat was dropped, and now it is a paragraph of its own.
#[test]
fn plain_text_after_a_dropped_repeat_is_worked_out_again() {
    let (steps, replaced) = stream(&["Done.\n\nDone.", " And more."]);
    assert!(!replaced);
    assert_eq!(
        steps,
        [
            "Done.",
            "Done.\n\nDone. And more.",
            "Done.\n\nDone. And more."
        ]
    );
    // Cut anywhere, plain pieces give what one piece gives.
    let text = "Intro line.\n\n[Tool Call: x]\n{}\n\nDone. Done.\n\nDone. Done. Fine.";
    let whole = stream(&[text]).0.pop().unwrap();
    for cut in 1..text.len() {
        assert_eq!(
            stream(&[&text[..cut], &text[cut..]]).0.pop().unwrap(),
            whole,
            "cut at {cut}"
        );
    }
    let chars: Vec<String> = text.chars().map(String::from).collect();
    let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
    let (steps, _) = stream(&pieces);
    assert_eq!(steps.last().unwrap(), &whole);
    assert!(
        steps.windows(2).all(|w| w[1].starts_with(&w[0])),
        "{steps:#?}"
    );
}

/// The shortcut for plain pieces never changes what is shown: answers made
/// of the pieces the sanitizer cares about, in a thousand random orders
/// and cuts, show at every step what working it all out again shows.
#[test]
fn plain_pieces_show_what_a_full_pass_shows() {
    const BITS: [&str; 30] = [
        "Done.",
        " and",
        "D",
        "one",
        ".",
        "\n",
        "\n\n",
        "[Tool Call: x]",
        "[Sys",
        "tem Message]",
        "<tool_call>",
        "</tool_call>",
        "<fin",
        "al>",
        "`",
        " ",
        "\nDone.",
        "\nD",
        "\n ",
        "[x",
        " [",
        "x]",
        ">",
        " < b",
        "a>",
        "\n[Tool Call: y]",
        "\n `x`",
        "<invoke q=\"a ",
        "\">",
        "\r\n",
    ];
    let mut seed: u64 = 0x5eed;
    let mut next = |n: usize| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        usize::try_from(seed >> 33).unwrap() % n
    };
    for _ in 0..1000 {
        let len = 1 + next(30);
        let pieces: Vec<&str> = (0..len).map(|_| BITS[next(BITS.len())]).collect();
        let mut shown = ShownText::default();
        let mut screen = String::new();
        let mut raw = String::new();
        for p in &pieces {
            raw.push_str(p);
            match shown.push(p) {
                Some(ShownChange::Append(more)) => screen.push_str(&more),
                Some(ShownChange::Replace(all)) => screen = all,
                None => {}
            }
            assert_eq!(screen, held_view(&raw).trim_end(), "{pieces:?}");
        }
    }
}

/// A tag whose attributes hold a `<` is held from its own `<`, so the `>`
/// that closes it takes nothing back.
#[test]
fn a_tag_with_a_less_than_inside_is_held_whole() {
    let (steps, replaced) = stream(&["Call <invoke name=\"s\" q=\"x < y", "\">", " done"]);
    assert!(!replaced, "{steps:?}");
    assert_eq!(steps, ["Call", "Call", "Call  done", "Call  done"]);
}

/// A first line that is only a carriage return is a blank line, live as
/// stored.
#[test]
fn blank_first_lines_are_blank_live_as_stored() {
    let (steps, replaced) = stream(&["\r\nHello"]);
    assert!(!replaced);
    assert_eq!(steps, ["Hello", "Hello"]);
}
