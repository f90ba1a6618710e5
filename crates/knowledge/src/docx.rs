//! The text of a Word document (DOCX): `word/document.xml` inside its zip,
//! written as Markdown so it is split at its headings like any Markdown —
//! the paragraph styles "Title" and "Heading 1"… become `#` headings, list
//! paragraphs become items, a table's rows become lines of cells between
//! `|`. Read in this process: the zip and XML readers are safe Rust, and
//! the document's XML is read no further than [`crate::office::MAX_XML_BYTES`] (a zip
//! that inflates a small file into gigabytes is refused, not followed).

use quick_xml::Reader;
use quick_xml::events::Event;

use crate::office::{Markdown, Para, attr, next_event, reference, zip_part};

/// The document's text as Markdown, or why it cannot be read.
pub(crate) fn docx_text(bytes: &[u8]) -> Result<String, String> {
    markdown(&zip_part(bytes, "word/document.xml", "a Word document")?)
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
    let mut md = Markdown::default();
    let mut para: Option<Para> = None;
    let mut in_text = false;
    loop {
        let event = next_event(&mut reader)?;
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
                    "w:tr" if !empty => md.row(),
                    "w:tc" if !empty => md.cell(),
                    _ => {}
                }
            }
            Event::Text(t) if in_text => {
                if let Some(p) = para.as_mut() {
                    p.text.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) if in_text => {
                if let (Some(p), Some(c)) = (para.as_mut(), reference(&r)) {
                    p.text.push(c);
                }
            }
            Event::End(e) => match e.name().as_ref() {
                "w:t" => in_text = false,
                "w:p" => {
                    if let Some(p) = para.take() {
                        md.paragraph(p);
                    }
                }
                "w:tc" => md.end_cell(),
                "w:tr" => md.end_row(),
                "w:tbl" => md.end_table(),
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(md.out)
}
