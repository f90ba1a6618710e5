use super::Speakable;

/// Everything `text` says, fed in pieces of `step` characters.
fn spoken(text: &str, step: usize) -> Vec<String> {
    let mut s = Speakable::new();
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    for piece in chars.chunks(step) {
        out.extend(s.push(&piece.iter().collect::<String>()));
    }
    out.extend(s.finish());
    out
}

/// The same sentences however the stream is cut.
fn each_cut(text: &str) -> Vec<String> {
    let whole = spoken(text, usize::MAX >> 1);
    for step in [1, 2, 3, 7, 16] {
        assert_eq!(spoken(text, step), whole, "cut every {step} characters");
    }
    whole
}

#[test]
fn prose_is_cut_into_sentences() {
    assert_eq!(
        each_cut("Hello there! The answer is 3.5 metres, e.g. about 11 feet. Is that right? Yes"),
        [
            "Hello there!",
            "The answer is 3.5 metres, e.g. about 11 feet.",
            "Is that right?",
            "Yes"
        ]
    );
}

#[test]
fn a_sentence_is_given_as_soon_as_it_ends_while_the_line_streams() {
    let mut s = Speakable::new();
    assert!(s.push("The first sentence").is_empty());
    // Its full stop alone is not an end: "3." may be "3.5".
    assert!(s.push(" ends here.").is_empty());
    assert_eq!(s.push(" The"), ["The first sentence ends here."]);
    assert!(s.push(" second").is_empty());
    assert_eq!(s.finish(), ["The second"]);
}

#[test]
fn formatting_marks_are_not_read() {
    assert_eq!(
        each_cut(
            "# Setup\n\nRun **cargo build** with `--release` and _then_ see [the docs](https://example.com/x).\n"
        ),
        [
            "Setup",
            "Run cargo build with --release and then see the docs."
        ]
    );
    assert_eq!(
        each_cut("Keep my_variable_name as is, ~~not this~~ and $x^2$.\n"),
        ["Keep my_variable_name as is, not this and x^2."]
    );
}

#[test]
fn list_items_and_quotes_are_sentences_of_their_own() {
    assert_eq!(
        each_cut(
            "Steps:\n- install it\n- run it\n1. first\n2) second\n> quoted words\n---\nEnd.\n"
        ),
        [
            "Steps:",
            "install it",
            "run it",
            "first",
            "second",
            "quoted words",
            "End."
        ]
    );
}

#[test]
fn a_code_block_is_summarised_not_read() {
    let text = "Here it is:\n\n```rust\nfn main() {\n    println!(\"hi. there! \");\n}\n```\n\nThat prints hi.\n";
    assert_eq!(
        each_cut(text),
        [
            "Here it is:",
            "A code block in rust, 3 lines.",
            "That prints hi."
        ]
    );
    assert_eq!(each_cut("```\nx\n```"), ["A code block, 1 line."]);
    // An answer that ends inside a block still says it was there.
    assert_eq!(
        each_cut("~~~python\na = 1\nb = 2"),
        ["A code block in python, 2 lines."]
    );
    // Long inline code is summarised too; an address is "a link".
    assert_eq!(
        each_cut(
            "Use `let value = compute_the_thing(with, many, arguments, here)` from https://docs.rs/x. Done.\n"
        ),
        ["Use some code from a link.", "Done."]
    );
}

#[test]
fn a_table_is_named_by_its_columns_and_rows() {
    let text = "Results:\n\n| Model | Score | Size |\n|---|:---:|---|\n| a | 1 | 2 |\n| b | 3 | 4 |\n\nBoth work.";
    assert_eq!(
        each_cut(text),
        [
            "Results:",
            "A table of Model, Score and Size, with 2 rows.",
            "Both work."
        ]
    );
}

#[test]
fn html_tags_and_images_say_nothing_or_what_they_are() {
    assert_eq!(
        each_cut("A <b>bold</b> word and ![a cat](cat.png) here.\n"),
        ["A bold word and an image: a cat here."]
    );
}

#[test]
fn nothing_speakable_gives_nothing() {
    assert!(each_cut("").is_empty());
    assert!(each_cut("\n\n---\n***\n").is_empty());
    assert!(each_cut("...").is_empty());
}

#[test]
fn initials_and_abbreviations_do_not_end_sentences() {
    assert_eq!(
        each_cut("Ask Dr. Smith or J. Doe, i.e. the team. They know."),
        ["Ask Dr. Smith or J. Doe, i.e. the team.", "They know."]
    );
}

#[test]
fn a_paste_of_a_megabyte_is_read_in_bounded_steps() {
    // One line with no full stop, streamed: it is cut at spaces into
    // utterances a voice takes, every word kept, none split.
    let mut s = Speakable::new();
    let chunk = "word ".repeat(200);
    let mut said = Vec::new();
    for _ in 0..1000 {
        said.extend(s.push(&chunk));
    }
    said.extend(s.finish());
    assert!(said.len() > 1000, "{} utterances", said.len());
    assert!(
        said.iter().all(|u| u.len() <= super::LONGEST),
        "one is too long"
    );
    let words: usize = said
        .iter()
        .map(|u| u.split_whitespace().filter(|w| *w == "word").count())
        .sum();
    assert_eq!(words, 200_000);
}
