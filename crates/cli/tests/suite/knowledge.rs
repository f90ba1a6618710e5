//! `hearth knowledge` end to end against hearth-sim's embeddings, and the
//! agent's `search_knowledge` tool as `hearth chat` composes it.

use hearth_sim::{Reply, ToolCallSpec};
use serde_json::json;

use super::basics::{hearth, ok, output, sim, turn_bodies, with_workers};
use crate::MODEL;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A throwaway folder: the path of its database, and its empty `docs`.
fn folder() -> (tempfile::TempDir, String, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite").to_str().unwrap().to_owned();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    (dir, db, docs)
}

/// The passages a search by words finds in `db`'s folders, as JSON.
async fn by_words(db: &str, query: &str) -> serde_json::Value {
    let hits = ok(&[
        "knowledge",
        "--db",
        db,
        "search",
        query,
        "--mode",
        "words",
        "--json",
    ])
    .await;
    serde_json::from_str(&hits).unwrap()
}

#[tokio::test]
async fn a_folder_is_synced_embedded_searched_and_what_was_left_out_says_why() {
    let (_dir, db, docs) = folder();
    let db = db.as_str();
    std::fs::write(
        docs.join("boat.md"),
        "# Boat\n\n## Engine\n\nChange the impeller every spring.\n",
    )
    .unwrap();
    // Not a PDF at all: the bounded reader (this binary again) says so.
    std::fs::write(docs.join("broken.pdf"), b"%PDF-1.4 garbage without objects").unwrap();
    let sim = sim(hearth_sim::Script::default()).await;
    let v1 = format!("{}/v1", sim.url());
    let k = |rest: &[&str]| {
        let mut args = vec!["knowledge", "--db", db, "--backend", "openai", "--url", &v1];
        args.extend_from_slice(rest);
        args.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>()
    };
    let run = |args: Vec<String>| async move {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(&refs).await
    };
    run(k(&["add", docs.to_str().unwrap()])).await;
    let out = run(k(&["sync"])).await;
    assert!(out.contains("no embedding model is set"), "{out}");
    run(k(&["model", MODEL])).await;
    let out = run(k(&["sync"])).await;
    assert!(out.contains("Embedded 1 passages"), "{out}");
    assert_eq!(sim.stats().embedded_texts, 1);
    let again = run(k(&["sync"])).await;
    assert!(
        again.contains("2 unchanged") && again.contains("Embedded 0"),
        "{again}"
    );

    let skipped = run(k(&["skipped", docs.to_str().unwrap()])).await;
    assert!(
        skipped.starts_with("broken.pdf: its text cannot be read"),
        "{skipped}"
    );

    let hits = run(k(&["search", "impeller spring", "--json"])).await;
    let hits: serde_json::Value = serde_json::from_str(&hits).unwrap();
    assert_eq!(hits[0]["rel_path"], "boat.md");
    assert_eq!(hits[0]["heading"], "Boat");
    assert_eq!(hits[0]["word_rank"], 1);
    assert_eq!(hits[0]["meaning_rank"], 1);

    let list = run(k(&["list"])).await;
    assert!(
        list.contains("2 files, 1 read, 1 left out; 1 passages, 1 embedded"),
        "{list}"
    );
    let bad = output(hearth(
        &k(&["add", "/nonexistent/folder"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    ))
    .await;
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("/nonexistent/folder"),
        "{}",
        text(&bad.stderr)
    );
    let removed = run(k(&["remove", docs.to_str().unwrap()])).await;
    assert!(removed.contains("and its 1 passages"), "{removed}");
}

#[tokio::test]
async fn workbooks_in_a_folder_are_found_by_their_cells_under_their_sheets_name() {
    let (_dir, db, docs) = folder();
    let db = db.as_str();
    // As openpyxl and xlwt wrote them (crates/store/tests/sheets/make.py).
    let sheets = concat!(env!("CARGO_MANIFEST_DIR"), "/../store/tests/sheets");
    for name in ["harvest.xlsx", "harvest.xls"] {
        std::fs::copy(format!("{sheets}/{name}"), docs.join(name)).unwrap();
    }
    // Named like a workbook, and not one: the reader (this binary again)
    // says so, and the others are read.
    std::fs::write(docs.join("broken.xlsx"), b"PK\x03\x04 not a zip").unwrap();
    // What programs export as `.xls`: a web page and tab-separated text,
    // read as what they are.
    std::fs::write(
        docs.join("bank.xls"),
        "<html><body><table><tr><td>Pumpkin seeds</td><td>12.50</td></tr></table></body></html>",
    )
    .unwrap();
    std::fs::write(
        docs.join("export.xls"),
        "Variety\tYield\nMarrowfat peas\t7\n",
    )
    .unwrap();
    let folder = docs.to_str().unwrap();
    ok(&["knowledge", "--db", db, "add", folder]).await;
    ok(&["knowledge", "--db", db, "sync"]).await;

    let hits = by_words(db, "pumpkins").await;
    // (bank.xls's "Pumpkin seeds" matches too.)
    let mut found: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["rel_path"].as_str().unwrap().starts_with("harvest"))
        .map(|h| {
            assert_eq!(h["heading"], "Harvest", "{h}");
            let text = h["text"].as_str().unwrap();
            assert!(
                text.contains("| Pumpkins | 38 | 2026-10-03 | TRUE |"),
                "{text}"
            );
            h["rel_path"].as_str().unwrap()
        })
        .collect();
    found.sort_unstable();
    assert_eq!(found, ["harvest.xls", "harvest.xlsx"]);

    for (query, file) in [("seeds", "bank.xls"), ("marrowfat", "export.xls")] {
        let hits = by_words(db, query).await;
        assert_eq!(hits[0]["rel_path"], file, "{hits}");
    }

    let skipped = ok(&["knowledge", "--db", db, "skipped", folder]).await;
    assert!(
        skipped.starts_with("broken.xlsx: its text cannot be read (not a spreadsheet Hearth reads"),
        "{skipped}"
    );
}

#[tokio::test]
async fn a_row_deep_in_a_long_sheet_is_found_under_the_columns_its_header_row_names() {
    let (_dir, db, docs) = folder();
    let db = db.as_str();
    // 400 rows under one header row, as openpyxl wrote them
    // (crates/store/tests/sheets/make.py): row 321 is many passages below it.
    let sheets = concat!(env!("CARGO_MANIFEST_DIR"), "/../store/tests/sheets");
    std::fs::copy(format!("{sheets}/ledger.xlsx"), docs.join("ledger.xlsx")).unwrap();
    ok(&["knowledge", "--db", db, "add", docs.to_str().unwrap()]).await;
    ok(&["knowledge", "--db", db, "sync"]).await;
    let hits = by_words(db, "Hollowbrook").await;
    let hit = &hits[0];
    assert_eq!(hit["rel_path"], "ledger.xlsx", "{hits}");
    assert_eq!(
        hit["heading"], "Ledger › columns: Date | Account | Payee | Amount (EUR)",
        "{hit}"
    );
    let text = hit["text"].as_str().unwrap();
    assert!(
        text.contains("| 2026-11-18 | Tools | Hollowbrook Nursery | 481.5 |"),
        "{text}"
    );
    assert!(
        !text.contains("| Date |"),
        "the passage is the sheet's own rows: {text}"
    );
    assert!(hit["start_line"].as_u64().unwrap() > 100, "{hit}");
}

#[tokio::test]
async fn a_pdf_over_16_mb_goes_to_the_pdf_reader_whose_own_limit_is_50() {
    let (_dir, db, docs) = folder();
    let db = db.as_str();
    // 17 MB: over what is read of other files, under a PDF's 50 MB. Not a
    // PDF inside, so the reader (this binary again) is what refuses it.
    let mut big = b"%PDF-1.4\n".to_vec();
    big.resize(17 << 20, b'%');
    std::fs::write(docs.join("big.pdf"), &big).unwrap();
    std::fs::write(docs.join("big.txt"), &big).unwrap();
    let folder = docs.to_str().unwrap();
    ok(&["knowledge", "--db", db, "add", folder]).await;
    ok(&["knowledge", "--db", db, "sync"]).await;
    let skipped = ok(&["knowledge", "--db", db, "skipped", folder]).await;
    let lines: Vec<&str> = skipped.lines().collect();
    assert_eq!(lines.len(), 2, "{skipped}");
    assert!(lines.contains(&"big.txt: larger than 16 MB"), "{skipped}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("big.pdf: its text cannot be read (")),
        "{skipped}"
    );
}

#[tokio::test]
async fn the_agent_searches_knowledge_and_gets_numbered_passages_with_their_source() {
    let (_dir, db, docs) = folder();
    let db = db.as_str();
    std::fs::write(
        docs.join("garden.md"),
        "# Garden\n\nPrune the roses in late winter.\n",
    )
    .unwrap();
    ok(&["knowledge", "--db", db, "add", docs.to_str().unwrap()]).await;
    ok(&["knowledge", "--db", db, "sync"]).await;
    ok(&[
        "profiles",
        "set",
        "--db",
        db,
        "Finder",
        "--model",
        MODEL,
        "--tools",
        "search_knowledge",
    ])
    .await;
    let sim = sim(with_workers("Roses")
        .with_reply(Reply::tool_calls(vec![ToolCallSpec::new(
            "search_knowledge",
            json!({"query": "when to prune roses"}),
        )]))
        .with_reply(Reply::text("In late winter [1].")))
    .await;
    let url = sim.url();
    let out = output(hearth(&[
        "chat",
        "--db",
        db,
        "--url",
        &url,
        "--model",
        MODEL,
        "--profile",
        "Finder",
        "When do I prune the roses?",
    ]))
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("In late winter [1]."));
    let last = turn_bodies(&sim).last().cloned().unwrap();
    let result = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    let file = docs.canonicalize().unwrap().join("garden.md");
    assert!(
        result.contains(&format!("[1] {}, lines 1–3 (Garden)", file.display())),
        "{result}"
    );
    assert!(
        result.contains("Prune the roses in late winter."),
        "{result}"
    );
}
