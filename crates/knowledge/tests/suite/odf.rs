//! OpenDocument files (LibreOffice's .odt, .ods, .odp): their text read as
//! Markdown — headings, items, table rows, a spreadsheet's sheets, a
//! slide's title — and what is not the document's text (a comment, the
//! deleted text of a tracked change) left out; a file that is not one
//! left out with why.

use std::io::Write;

use hearth_knowledge::Mode;
use zip::write::SimpleFileOptions;

use super::{index_with, sync};

/// An OpenDocument file holding `body` as the body of its `content.xml`.
fn odf(styles: &str, body: &str) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let deflated =
        SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("mimetype", stored).unwrap();
    zip.write_all(b"application/vnd.oasis.opendocument.text")
        .unwrap();
    zip.start_file("content.xml", deflated).unwrap();
    let content = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<office:document-content \
         xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" \
         xmlns:style=\"urn:oasis:names:tc:opendocument:xmlns:style:1.0\" \
         xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" \
         xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\" \
         xmlns:draw=\"urn:oasis:names:tc:opendocument:xmlns:drawing:1.0\" \
         xmlns:presentation=\"urn:oasis:names:tc:opendocument:xmlns:presentation:1.0\" \
         xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\n\
         <office:automatic-styles>{styles}</office:automatic-styles>\n\
         <office:body>\n{body}\n</office:body></office:document-content>"
    );
    zip.write_all(content.as_bytes()).unwrap();
    zip.finish().unwrap();
    out.into_inner()
}

#[tokio::test]
async fn opendocument_text_sheets_and_slides_are_read_as_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    // A text document as LibreOffice writes one: the title through an
    // automatic style whose parent is "Title", spaces as text:s, a list,
    // a table, a comment and a tracked deletion.
    let text = odf(
        "<style:style style:name=\"P1\" style:family=\"paragraph\" style:parent-style-name=\"Title\"/>",
        "<office:text>\
         <text:tracked-changes><text:changed-region text:id=\"c1\"><text:deletion>\
         <text:p>The boiler was never serviced.</text:p></text:deletion></text:changed-region></text:tracked-changes>\
         <text:p text:style-name=\"P1\">Annual report</text:p>\
         <text:h text:outline-level=\"1\">Costs &amp; savings</text:h>\
         <text:p>The boiler was\n   replaced in <text:span>March</text:span>.<text:s text:c=\"2\"/>Paid\
         <office:annotation><dc:creator>Ann</dc:creator><text:p>Check the invoice</text:p></office:annotation> in full.</text:p>\
         <text:list><text:list-item><text:p>Insulation of the loft</text:p></text:list-item></text:list>\
         <table:table table:name=\"Table1\"><table:table-row>\
         <table:table-cell><text:p>Boiler</text:p></table:table-cell>\
         <table:table-cell><text:p>4 200 €</text:p></table:table-cell>\
         <table:table-cell table:number-columns-repeated=\"3\"/></table:table-row></table:table>\
         </office:text>",
    );
    std::fs::write(docs.join("report.odt"), text).unwrap();
    // A spreadsheet: a sheet's name heads its rows; a million empty rows
    // in one element are one row, read once.
    let sheet = odf(
        "",
        "<office:spreadsheet><table:table table:name=\"Harvest\">\
         <table:table-row><table:table-cell><text:p>Pumpkins</text:p></table:table-cell>\
         <table:table-cell><text:p>38 kg</text:p></table:table-cell></table:table-row>\
         <table:table-row table:number-rows-repeated=\"1048574\"><table:table-cell table:number-columns-repeated=\"1024\"/></table:table-row>\
         </table:table></office:spreadsheet>",
    );
    std::fs::write(docs.join("garden.ods"), sheet).unwrap();
    // A presentation: the title frame's text is the slide's heading.
    let slides = odf(
        "",
        "<office:presentation><draw:page draw:name=\"page1\">\
         <draw:frame presentation:class=\"title\"><draw:text-box><text:p>Quarterly plan</text:p></draw:text-box></draw:frame>\
         <draw:frame presentation:class=\"outline\"><draw:text-box><text:list><text:list-item>\
         <text:p>Hire two welders</text:p></text:list-item></text:list></draw:text-box></draw:frame>\
         </draw:page></office:presentation>",
    );
    std::fs::write(docs.join("plan.odp"), slides).unwrap();
    std::fs::write(docs.join("fake.odt"), b"this is not a zip").unwrap();

    let index = index_with(dir.path(), &docs);
    let report = sync(&index);
    assert_eq!((report.indexed, report.skipped), (3, 1), "{report:?}");

    let hits = index
        .search(None, "boiler replaced March", 5, Mode::Words, None)
        .await
        .unwrap();
    assert_eq!(hits[0].rel_path, "report.odt");
    assert_eq!(hits[0].heading.as_deref(), Some("Annual report"));
    let text = &hits[0].text;
    assert!(text.contains("## Costs & savings"), "{text}");
    assert!(
        text.contains("The boiler was replaced in March.  Paid in full."),
        "{text}"
    );
    assert!(text.contains("- Insulation of the loft"), "{text}");
    // The three empty cells at the row's end are left out.
    assert!(text.trim_end().ends_with("| Boiler | 4 200 € |"), "{text}");
    // Neither the comment nor the deleted sentence is the document's text.
    for gone in ["Check the invoice", "Ann", "never serviced"] {
        let found = index
            .search(None, gone, 5, Mode::Words, None)
            .await
            .unwrap();
        assert!(
            found.iter().all(|h| !h.text.contains(gone)),
            "{gone}: {found:?}"
        );
    }

    let hits = index
        .search(None, "pumpkins", 5, Mode::Words, None)
        .await
        .unwrap();
    assert_eq!(hits[0].rel_path, "garden.ods");
    assert_eq!(hits[0].heading.as_deref(), Some("Harvest"));
    assert_eq!(hits[0].text.trim_end(), "# Harvest\n\n| Pumpkins | 38 kg |");

    let hits = index
        .search(None, "welders", 5, Mode::Words, None)
        .await
        .unwrap();
    assert_eq!(hits[0].rel_path, "plan.odp");
    assert_eq!(hits[0].heading.as_deref(), Some("Quarterly plan"));
    assert!(hits[0].text.contains("- Hire two welders"), "{:?}", hits[0]);

    let folder = &index.folders().unwrap()[0];
    let skipped = index.skipped_files(folder, 10).unwrap();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].0, "fake.odt");
    assert!(
        skipped[0].1.starts_with("not an OpenDocument file"),
        "{}",
        skipped[0].1
    );
}
