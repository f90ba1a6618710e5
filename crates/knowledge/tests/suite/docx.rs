//! Word documents: their text read as Markdown (headings, items, table
//! rows), found with their heading path; a file that is not one, and one
//! whose text inflates past the bound, left out with why.

use std::io::Write;

use hearth_knowledge::Mode;
use zip::write::SimpleFileOptions;

use super::{index_with, sync};

/// A DOCX holding `document` as its `word/document.xml`.
fn docx(document: &str) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let opts = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("[Content_Types].xml", opts).unwrap();
    zip.write_all(b"<Types/>").unwrap();
    zip.start_file("word/document.xml", opts).unwrap();
    zip.write_all(document.as_bytes()).unwrap();
    zip.finish().unwrap();
    out.into_inner()
}

fn para(style: Option<&str>, list: bool, text: &str) -> String {
    let style = style
        .map(|s| format!("<w:pStyle w:val=\"{s}\"/>"))
        .unwrap_or_default();
    let list = if list {
        "<w:numPr><w:ilvl w:val=\"0\"/></w:numPr>"
    } else {
        ""
    };
    format!(
        "<w:p><w:pPr>{style}{list}</w:pPr><w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>"
    )
}

const BODY_START: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>";
const BODY_END: &str = "</w:body></w:document>";

#[tokio::test]
async fn a_word_document_is_read_with_its_headings_items_and_tables() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let document = [
        BODY_START.to_owned(),
        para(Some("Title"), false, "Annual report"),
        para(Some("Heading1"), false, "Costs &amp; savings"),
        para(None, false, "The boiler was replaced in &#x4D;arch."),
        para(None, true, "Insulation of the loft"),
        "<w:tbl><w:tr><w:tc>".into(),
        para(None, false, "Boiler"),
        "</w:tc><w:tc>".into(),
        para(None, false, "4 200 €"),
        "</w:tc></w:tr></w:tbl>".into(),
        "<w:p/><w:p><w:r><w:t/></w:r></w:p>".into(),
        BODY_END.to_owned(),
    ]
    .concat();
    std::fs::write(docs.join("report.docx"), docx(&document)).unwrap();
    std::fs::write(docs.join("fake.docx"), b"this is not a zip").unwrap();
    // 65 MB of text inflated from a few kilobytes.
    let bomb = format!(
        "{BODY_START}{}{BODY_END}",
        para(None, false, &"a".repeat(65 << 20))
    );
    std::fs::write(docs.join("bomb.docx"), docx(&bomb)).unwrap();
    let index = index_with(dir.path(), &docs);
    let report = sync(&index);
    assert_eq!((report.indexed, report.skipped), (1, 2), "{report:?}");

    let hits = index
        .search(None, "boiler replaced March", 5, Mode::Words, None)
        .await
        .unwrap();
    assert_eq!(hits[0].rel_path, "report.docx");
    // One passage for so short a document: its path starts at the title,
    // and the section is a heading inside it (entities read as text).
    assert_eq!(hits[0].heading.as_deref(), Some("Annual report"));
    let text = &hits[0].text;
    assert!(text.contains("## Costs & savings"), "{text}");
    assert!(text.contains("The boiler was replaced in March."), "{text}");
    assert!(text.contains("- Insulation of the loft"), "{text}");
    assert!(text.contains("| Boiler | 4 200 € |"), "{text}");

    let folder = &index.folders().unwrap()[0];
    let skipped = index.skipped_files(folder, 10).unwrap();
    assert_eq!(skipped[0].0, "bomb.docx");
    assert_eq!(skipped[0].1, "the document's text is over 64 MB");
    assert_eq!(skipped[1].0, "fake.docx");
    assert!(
        skipped[1].1.starts_with("not a Word document"),
        "{}",
        skipped[1].1
    );
}
