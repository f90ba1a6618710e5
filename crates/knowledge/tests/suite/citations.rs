//! An answer's sources read back from the run's searches, its quotes
//! checked against them; the tool's numbering across a run; the folders a
//! chat in a project searches.

use std::sync::Arc;

use hearth_core::Tool;
use hearth_knowledge::{ProjectOf, SearchKnowledge, check_citations, passages};
use serde_json::json;

use super::{index_with, sync, write};

const FIRST: &str = "[1] /notes/garden.md, lines 1–4 (Garden › Roses)\nPrune roses in late winter, just above an outward-facing bud.\n\n[2] /notes/garden.md, lines 6–9 (Garden › Tomatoes)\nWater tomatoes at the base, never on the leaves.\n[3] is how my notes number things, not a header";
const SECOND: &str =
    "[3] /notes/kitchen/bread.md, lines 10–12\nA sourdough loaf needs a long, cool proof.";

#[test]
fn passages_are_read_back_with_file_lines_and_headings() {
    let p = passages(FIRST);
    assert_eq!(p.len(), 2, "{p:#?}");
    assert_eq!(
        (p[0].n, p[0].path.as_str(), p[0].start_line, p[0].end_line),
        (1, "/notes/garden.md", 1, 4)
    );
    assert_eq!(p[0].heading.as_deref(), Some("Garden › Roses"));
    assert!(p[0].text.starts_with("Prune roses"), "{:?}", p[0].text);
    // A line of a passage that looks like a header but is not one (no
    // path) stays its text.
    assert!(p[1].text.ends_with("not a header"), "{:?}", p[1].text);
    let q = passages(SECOND);
    assert_eq!((q[0].n, q[0].heading.clone()), (3, None));
    assert!(passages("No passage in the knowledge folders matches \"x\".").is_empty());
}

#[test]
fn quotes_are_checked_against_the_passage_they_cite() {
    let answer = "Prune them \"just above an outward-facing bud\" [1]. \
                  Water \u{201c}at the base\u{201d} [2].\n\n\
                  For bread, \"a long, warm proof\" is best [3].\n\n\
                  Tomatoes like \"long, cool proof\" [2], and see [7].\n\n\
                  \"prune roses in … winter\" [1][3]";
    let c = check_citations(answer, &[FIRST, SECOND]);
    assert_eq!(c.sources.len(), 3);
    assert!(c.sources.iter().all(|s| s.cited), "{:#?}", c.sources);
    assert_eq!(c.unknown, vec![7]);
    let q: Vec<(&str, Vec<u32>, Option<u32>, bool)> = c
        .quotes
        .iter()
        .map(|q| (q.text.as_str(), q.cites.clone(), q.found_in, q.holds()))
        .collect();
    assert_eq!(
        q,
        vec![
            ("just above an outward-facing bud", vec![1], Some(1), true),
            ("at the base", vec![2], Some(2), true),
            // Not what the source says.
            ("a long, warm proof", vec![3], None, false),
            // In a passage, but not the one cited.
            ("long, cool proof", vec![2], Some(3), false),
            // An ellipsis joins two parts in order; a group of markers
            // counts as one citation.
            ("prune roses in … winter", vec![1, 3], Some(1), true),
        ]
    );
}

#[test]
fn markers_that_are_links_footnotes_or_unquoted_words_are_not_citations() {
    let answer = "See [the guide](https://x) and [^1]; a \"term\" [1]; arr[0] = \"a b\"";
    let c = check_citations(answer, &[FIRST]);
    assert!(c.unknown.is_empty(), "{:?}", c.unknown);
    assert_eq!(
        c.sources.iter().map(|s| s.cited).collect::<Vec<_>>(),
        vec![true, false]
    );
    // One quoted word is a term; "a b" leans on [1] before it in the
    // paragraph and is not in its passage.
    assert_eq!(c.quotes.len(), 1, "{:#?}", c.quotes);
    assert!(!c.quotes[0].holds());
}

#[tokio::test]
async fn a_run_numbers_its_passages_once_and_a_project_chat_searches_its_own_folders() {
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    let mine = dir.path().join("mine");
    let theirs = dir.path().join("theirs");
    write(
        &shared,
        &[("a.md", "# Shared\n\nThe harbour ferry leaves at nine.\n")],
    );
    write(
        &mine,
        &[(
            "b.md",
            "# Mine\n\nThe harbour ferry to the island is blue.\n",
        )],
    );
    write(
        &theirs,
        &[(
            "c.md",
            "# Theirs\n\nThe harbour ferry is cancelled on Sundays.\n",
        )],
    );
    let index = index_with(dir.path(), &shared);
    index.add_folder(&mine, Some("prj_mine")).unwrap();
    index.add_folder(&theirs, Some("prj_theirs")).unwrap();
    sync(&index);

    let project_of: ProjectOf =
        Arc::new(|session: &str| (session == "in-mine").then(|| "prj_mine".to_owned()));
    let tool = SearchKnowledge::new(index.clone(), None, Some(project_of));
    let ctx = |session: &str, run: &str| {
        let mut c = hearth_test_support::tool_context(session, None);
        c.run_id = run.into();
        c
    };
    let out = tool
        .call(json!({"query": "harbour ferry"}), &ctx("in-mine", "r1"))
        .await
        .unwrap();
    let found = passages(&out);
    let files: Vec<&str> = found
        .iter()
        .map(|p| p.path.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(found.iter().map(|p| p.n).collect::<Vec<_>>(), vec![1, 2]);
    assert!(files.contains(&"a.md") && files.contains(&"b.md"), "{out}");
    assert!(!files.contains(&"c.md"), "another project's folder: {out}");

    // The same run's next search numbers on; another run starts at 1.
    let again = tool
        .call(json!({"query": "island"}), &ctx("in-mine", "r1"))
        .await
        .unwrap();
    assert_eq!(passages(&again)[0].n, 3, "{again}");
    let other = tool
        .call(json!({"query": "harbour ferry"}), &ctx("no-project", "r2"))
        .await
        .unwrap();
    let found = passages(&other);
    assert_eq!(found.len(), 1, "only the shared folder: {other}");
    assert_eq!(found[0].n, 1);

    // A folder moved to every chat is searched by every chat.
    assert_eq!(index.move_project_folders("prj_theirs", None).unwrap(), 1);
    let after = tool
        .call(
            json!({"query": "cancelled Sundays"}),
            &ctx("no-project", "r3"),
        )
        .await
        .unwrap();
    assert!(after.contains("cancelled on Sundays"), "{after}");

    // The passage a source opens, looked up by its file and lines.
    let p = &passages(&after)[0];
    let passage = index
        .passage(std::path::Path::new(&p.path), p.start_line, p.end_line)
        .unwrap()
        .unwrap();
    assert!(passage.text.contains("cancelled on Sundays"));
    assert!(
        index
            .passage(std::path::Path::new(&p.path), p.start_line, p.end_line + 9)
            .unwrap()
            .is_none()
    );
}
