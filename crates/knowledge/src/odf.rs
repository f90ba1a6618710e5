//! The text of an OpenDocument file — LibreOffice's text documents
//! (`.odt`), spreadsheets (`.ods`) and presentations (`.odp`): its
//! `content.xml` inside its zip, written as Markdown as a Word document's
//! is (`office.rs`). Headings (`text:h` at their outline level, a
//! paragraph in the "Title" style, a slide's title frame) become `#`
//! headings one below the title, list items items, table rows lines of
//! cells; a spreadsheet's sheets are headed by their names. Comments,
//! footnote marks, the deleted text of tracked changes, forms and scripts
//! are left out; a repeated empty row or column is read once, never
//! expanded (a sheet says "1,048,576 rows" in one element).

use std::collections::HashMap;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::office::{Markdown, Para, attr, next_event, reference, zip_part};

/// The file's text as Markdown, or why it cannot be read.
pub(crate) fn odf_text(bytes: &[u8]) -> Result<String, String> {
    markdown(&zip_part(bytes, "content.xml", "an OpenDocument file")?)
}

/// Elements whose content is not the document's text.
const LEFT_OUT: &[&str] = &[
    "office:annotation",
    "office:annotation-end",
    "text:note-citation",
    "text:tracked-changes",
    "office:forms",
    "office:scripts",
    "office:event-listeners",
    "text:sequence-decls",
    "svg:title",
    "svg:desc",
];

/// Whether paragraph style `name` is, or derives from, the "Title" style
/// (LibreOffice gives a paragraph an automatic style "P1" whose parent is
/// the one the user picked).
fn is_title<'a>(styles: &'a HashMap<String, String>, mut name: &'a str) -> bool {
    for _ in 0..8 {
        if name == "Title" {
            return true;
        }
        match styles.get(name) {
            Some(parent) => name = parent,
            None => return false,
        }
    }
    false
}

fn number(e: &BytesStart<'_>, name: &str) -> Option<usize> {
    attr(e, name).and_then(|v| v.trim().parse().ok())
}

/// `content.xml` as Markdown.
fn markdown(xml: &str) -> Result<String, String> {
    let mut reader = Reader::from_str(xml);
    let mut md = Markdown::default();
    // Automatic styles: name → parent style.
    let mut styles: HashMap<String, String> = HashMap::new();
    // Open paragraphs, innermost last (a text box inside a paragraph).
    let mut paras: Vec<Para> = Vec::new();
    let mut skip = 0usize;
    let mut items = 0usize;
    // Open frames: whether each is a slide's title.
    let mut frames: Vec<bool> = Vec::new();
    let mut spreadsheet = false;
    loop {
        let event = next_event(&mut reader)?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                let name = e.name();
                let name = name.as_ref();
                if skip > 0 {
                    skip += usize::from(!empty);
                    continue;
                }
                if LEFT_OUT.contains(&name) {
                    skip = usize::from(!empty);
                    continue;
                }
                match name {
                    "style:style" => {
                        if let (Some(n), Some(p)) =
                            (attr(e, "style:name"), attr(e, "style:parent-style-name"))
                        {
                            styles.insert(n, p);
                        }
                    }
                    "office:spreadsheet" => spreadsheet = true,
                    "text:p" | "text:h" if !empty => {
                        let heading = if name == "text:h" {
                            let level = number(e, "text:outline-level").unwrap_or(1);
                            Some((level.clamp(1, 9) + 1).min(6))
                        } else if frames.contains(&true)
                            || attr(e, "text:style-name").is_some_and(|s| is_title(&styles, &s))
                        {
                            Some(1)
                        } else {
                            None
                        };
                        paras.push(Para {
                            heading,
                            item: items > 0,
                            ..Para::default()
                        });
                    }
                    "text:s" => {
                        if let Some(p) = paras.last_mut() {
                            let n = number(e, "text:c").unwrap_or(1).clamp(1, 64);
                            p.text.push_str(&" ".repeat(n));
                        }
                    }
                    "text:tab" => {
                        if let Some(p) = paras.last_mut() {
                            p.text.push('\t');
                        }
                    }
                    "text:line-break" => {
                        if let Some(p) = paras.last_mut() {
                            p.text.push('\n');
                        }
                    }
                    "text:list-item" if !empty => items += 1,
                    "draw:frame" if !empty => {
                        frames.push(attr(e, "presentation:class").as_deref() == Some("title"));
                    }
                    "table:table" if !empty && spreadsheet => {
                        if let Some(sheet) = attr(e, "table:name") {
                            md.paragraph(Para {
                                text: sheet,
                                heading: Some(1),
                                item: false,
                            });
                        }
                    }
                    "table:table-row" if !empty => md.row(),
                    "table:table-cell" => {
                        md.cell();
                        if empty {
                            md.end_cell();
                        }
                    }
                    _ => {}
                }
            }
            Event::Text(t) if skip == 0 => {
                if let Some(p) = paras.last_mut() {
                    // XML's own line breaks and indentation are not the
                    // document's spaces (those are `text:s`): a run of
                    // white space is one space.
                    let text = t.xml10_content();
                    let mut last_space = p.text.ends_with(' ');
                    for c in text.chars() {
                        if c.is_whitespace() {
                            if !last_space {
                                p.text.push(' ');
                            }
                            last_space = true;
                        } else {
                            p.text.push(c);
                            last_space = false;
                        }
                    }
                }
            }
            Event::GeneralRef(r) if skip == 0 => {
                if let (Some(p), Some(c)) = (paras.last_mut(), reference(&r)) {
                    p.text.push(c);
                }
            }
            Event::End(e) => {
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                match e.name().as_ref() {
                    "text:p" | "text:h" => {
                        if let Some(p) = paras.pop() {
                            md.paragraph(p);
                        }
                    }
                    "text:list-item" => items = items.saturating_sub(1),
                    "draw:frame" => {
                        frames.pop();
                    }
                    "table:table-cell" => md.end_cell(),
                    "table:table-row" => md.end_row(),
                    "table:table" => md.end_table(),
                    _ => {}
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(md.out)
}
