//! What reading a Word document (`docx.rs`) and an OpenDocument file
//! (`odf.rs`) share: one XML part read out of the file's zip no further
//! than [`MAX_XML_BYTES`] (a zip that inflates a small file into gigabytes
//! is refused, not followed), XML attributes and character references, and
//! the Markdown a paragraph or a table row becomes — so that both are split
//! at their headings like any Markdown.

use std::io::{Cursor, Read};

use quick_xml::Reader;
use quick_xml::events::{BytesRef, BytesStart, Event};

/// The most of a document's XML part read, inflated.
pub const MAX_XML_BYTES: u64 = 64 << 20;

/// The XML part `name` of the zip `bytes`; `what` names the kind of
/// document in the reasons ("a Word document").
pub(crate) fn zip_part(bytes: &[u8], name: &str, what: &str) -> Result<String, String> {
    let mut zip =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| format!("not {what} ({e})"))?;
    let mut part = zip
        .by_name(name)
        .map_err(|_| format!("not {what} (no {name})"))?;
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
    Ok(xml)
}

/// The next event of the document's XML, or why it cannot be read.
pub(crate) fn next_event<'a>(reader: &mut Reader<&'a [u8]>) -> Result<Event<'a>, String> {
    reader
        .read_event()
        .map_err(|e| format!("the document's XML is broken ({e})"))
}

/// An attribute's value, references resolved.
pub(crate) fn attr(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.try_get_attribute(name).ok().flatten().and_then(|a| {
        a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .ok()
            .map(|v| v.into_owned())
    })
}

/// The character a reference in text stands for (`&#x4D;`, `&amp;`…);
/// `None` for an entity XML does not define.
pub(crate) fn reference(r: &BytesRef<'_>) -> Option<char> {
    match r.resolve_char_ref() {
        Ok(Some(c)) => Some(c),
        _ => match r.xml10_content().as_ref() {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => None,
        },
    }
}

/// A paragraph being read.
#[derive(Debug, Default)]
pub(crate) struct Para {
    pub text: String,
    /// Its Markdown heading level.
    pub heading: Option<usize>,
    /// An item of a list.
    pub item: bool,
}

/// The Markdown being written: paragraphs, and the cells of the table row
/// being read.
#[derive(Debug, Default)]
pub(crate) struct Markdown {
    pub out: String,
    row: Option<Vec<String>>,
    cell: Option<String>,
}

impl Markdown {
    /// A finished paragraph: a heading, an item or text, or a part of the
    /// open table cell. An empty one adds nothing.
    pub fn paragraph(&mut self, p: Para) {
        let text = p.text.trim();
        if let Some(c) = self.cell.as_mut() {
            if !text.is_empty() {
                if !c.is_empty() {
                    c.push(' ');
                }
                c.push_str(&text.replace('\n', " "));
            }
            return;
        }
        if text.is_empty() {
            return;
        }
        match (p.heading, p.item) {
            (Some(n), _) => {
                self.out.push_str(&"#".repeat(n));
                self.out.push(' ');
                self.out.push_str(&text.replace('\n', " "));
            }
            (None, true) => {
                self.out.push_str("- ");
                self.out.push_str(text);
            }
            (None, false) => self.out.push_str(text),
        }
        self.out.push_str("\n\n");
    }

    /// A table row begins.
    pub fn row(&mut self) {
        self.row = Some(Vec::new());
    }

    /// A cell of the row begins.
    pub fn cell(&mut self) {
        self.cell = Some(String::new());
    }

    /// The cell ends (`|` in it escaped).
    pub fn end_cell(&mut self) {
        if let (Some(r), Some(c)) = (self.row.as_mut(), self.cell.take()) {
            r.push(c.replace('|', "\\|"));
        }
    }

    /// The row ends: a line of its cells, the empty ones at its end left
    /// out (a spreadsheet's row runs to its last column); nothing for a
    /// row of none.
    pub fn end_row(&mut self) {
        let Some(mut r) = self.row.take() else { return };
        while r.last().is_some_and(String::is_empty) {
            r.pop();
        }
        if !r.is_empty() {
            self.out.push_str("| ");
            self.out.push_str(&r.join(" | "));
            self.out.push_str(" |\n");
        }
    }

    /// The table ends.
    pub fn end_table(&mut self) {
        self.out.push('\n');
    }
}
