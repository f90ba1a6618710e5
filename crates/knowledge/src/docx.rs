//! The text of a Word document (DOCX): `word/document.xml` inside its zip,
//! written as Markdown so it is split at its headings like any Markdown —
//! the paragraph styles "Title" and "Heading 1"… become `#` headings, list
//! paragraphs become items, a table's rows become lines of cells between
//! `|`. Read in this process: the zip and XML readers are safe Rust, and
//! the document's XML is read no further than [`MAX_XML_BYTES`] (a zip
//! that inflates a small file into gigabytes is refused, not followed).

use std::io::{Cursor, Read};

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

/// The most of `word/document.xml` read, inflated.
pub const MAX_XML_BYTES: u64 = 64 << 20;

/// The document's text as Markdown, or why it cannot be read.
pub(crate) fn docx_text(bytes: &[u8]) -> Result<String, String> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| format!("not a Word document ({e})"))?;
    let mut part = zip
        .by_name("word/document.xml")
        .map_err(|_| "not a Word document (no word/document.xml)".to_owned())?;
    let mut xml = String::new();
    (&mut part)
        .take(MAX_XML_BYTES + 1)
        .read_to_string(&mut xml)
        .map_err(|e| format!("the document cannot be read ({e})"))?;
    if xml.len() as u64 > MAX_XML_BYTES {
        return Err(format!(
            "the document's text is over {} MB",
            MAX_XML_BYTES >> 20
        ));
    }
    markdown(&xml)
}

/// A paragraph being read.
#[derive(Default)]
struct Para {
    text: String,
    heading: Option<usize>,
    item: bool,
}

fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.try_get_attribute(name).ok().flatten().and_then(|a| {
        a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .ok()
            .map(|v| v.into_owned())
    })
}

/// The Markdown heading level of a paragraph style (its id, as Word
/// writes it in English): "Title" 1, "Heading1" / "heading 1" 2… — one
/// below the title, so a section's path reads "Report › Costs".
fn heading_level(style: &str) -> Option<usize> {
    let s = style.to_ascii_lowercase().replace(' ', "");
    if s == "title" {
        return Some(1);
    }
    let n: usize = s.strip_prefix("heading")?.parse().ok()?;
    (1..=9).contains(&n).then_some((n + 1).min(6))
}

/// `word/document.xml` as Markdown.
fn markdown(xml: &str) -> Result<String, String> {
    let mut reader = Reader::from_str(xml);
    let mut out = String::new();
    let mut para: Option<Para> = None;
    let mut in_text = false;
    // Cells of the table row being read (a cell's paragraphs joined).
    let mut row: Option<Vec<String>> = None;
    let mut cell: Option<String> = None;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("the document's XML is broken ({e})"))?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                // `<w:t/>` and `<w:p/>` hold nothing: no text, no end tag.
                let empty = matches!(event, Event::Empty(_));
                let name = e.name();
                match name.as_ref() {
                    "w:p" if !empty => para = Some(Para::default()),
                    "w:pStyle" => {
                        if let (Some(p), Some(v)) = (para.as_mut(), attr(e, "w:val")) {
                            p.heading = heading_level(&v);
                        }
                    }
                    "w:numPr" => {
                        if let Some(p) = para.as_mut() {
                            p.item = true;
                        }
                    }
                    "w:t" if !empty => in_text = true,
                    "w:tab" => {
                        if let Some(p) = para.as_mut() {
                            p.text.push('\t');
                        }
                    }
                    "w:br" | "w:cr" => {
                        if let Some(p) = para.as_mut() {
                            p.text.push('\n');
                        }
                    }
                    "w:tr" if !empty => row = Some(Vec::new()),
                    "w:tc" if !empty => cell = Some(String::new()),
                    _ => {}
                }
            }
            Event::Text(t) if in_text => {
                if let Some(p) = para.as_mut() {
                    p.text.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) if in_text => {
                let c = match r.resolve_char_ref() {
                    Ok(Some(c)) => Some(c),
                    _ => match r.xml10_content().as_ref() {
                        "amp" => Some('&'),
                        "lt" => Some('<'),
                        "gt" => Some('>'),
                        "quot" => Some('"'),
                        "apos" => Some('\''),
                        _ => None,
                    },
                };
                if let (Some(p), Some(c)) = (para.as_mut(), c) {
                    p.text.push(c);
                }
            }
            Event::End(e) => match e.name().as_ref() {
                "w:t" => in_text = false,
                "w:p" => {
                    let Some(p) = para.take() else { continue };
                    let text = p.text.trim();
                    if let Some(c) = cell.as_mut() {
                        if !text.is_empty() {
                            if !c.is_empty() {
                                c.push(' ');
                            }
                            c.push_str(&text.replace('\n', " "));
                        }
                        continue;
                    }
                    if text.is_empty() {
                        continue;
                    }
                    match (p.heading, p.item) {
                        (Some(n), _) => {
                            out.push_str(&"#".repeat(n));
                            out.push(' ');
                            out.push_str(&text.replace('\n', " "));
                        }
                        (None, true) => {
                            out.push_str("- ");
                            out.push_str(text);
                        }
                        (None, false) => out.push_str(text),
                    }
                    out.push_str("\n\n");
                }
                "w:tc" => {
                    if let (Some(r), Some(c)) = (row.as_mut(), cell.take()) {
                        r.push(c.replace('|', "\\|"));
                    }
                }
                "w:tr" => {
                    if let Some(r) = row.take()
                        && r.iter().any(|c| !c.is_empty())
                    {
                        out.push_str("| ");
                        out.push_str(&r.join(" | "));
                        out.push_str(" |\n");
                    }
                }
                "w:tbl" => out.push('\n'),
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(out)
}
