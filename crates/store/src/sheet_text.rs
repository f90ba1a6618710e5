//! The text of an Excel workbook (`.xlsx`, `.xlsm` and their templates,
//! and the old binary `.xls`), read with the `calamine` crate in the
//! bounded reader process (`reader.rs`), as Markdown: each worksheet
//! headed by its name, a line of cells for each row that has any, the
//! cells in their columns (up to 8 empty ones between two that are not,
//! one for a longer gap), what a formula last computed rather than the
//! formula. Chart sheets, dialog and macro sheets, and the macros
//! themselves are left out: Hearth reads a workbook, never runs it. The
//! Markdown has the shape the OpenDocument reader gives a `.ods`
//! (`hearth-knowledge`'s `odf.rs`), so both are split and found alike.

use std::io::Cursor;

use calamine::{
    Data, DataRef, ExcelDateTime, Reader, Sheet, SheetType, Xls, XlsError, Xlsx, XlsxError,
};

/// The largest workbook Hearth reads (what a knowledge folder reads of any
/// file but a PDF).
pub const MAX_SHEET_BYTES: usize = 16 << 20;

/// The most text a workbook gives: as much as the largest text file read;
/// past it, a sheet is a data dump, not a document.
pub const MAX_SHEET_TEXT: usize = 16 << 20;

/// The most empty cells written for a gap in a row: a table's blank column
/// keeps the columns after it in place, and a stray cell far to the right
/// does not turn into a line of thousands of empty cells (a longer gap is
/// one empty cell, as the OpenDocument reader writes a repeated column once).
const MAX_GAP: usize = 8;

/// What begins an `.xls`, an OLE compound file. A password-protected
/// `.xlsx` is one too (its encrypted zip inside).
const COMPOUND_FILE: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// What begins an `.xlsx`, a zip.
const ZIP: [u8; 4] = *b"PK\x03\x04";

/// Whether `bytes` begin as a workbook the reader opens: a file named
/// `.xls` is often a web page or tab-separated text a program exported, to
/// be read as what it is.
pub fn is_workbook(bytes: &[u8]) -> bool {
    bytes.starts_with(&COMPOUND_FILE) || bytes.starts_with(&ZIP)
}

/// The reason given for a workbook behind a password.
const PROTECTED: &str = "it is protected by a password";

/// The worksheets among a workbook's sheets, in its order.
fn worksheets(sheets: &[Sheet]) -> Vec<String> {
    sheets
        .iter()
        .filter(|s| s.typ == SheetType::WorkSheet)
        .map(|s| s.name.clone())
        .collect()
}

/// The reader's side: the workbook's Markdown, or why there is none. Run
/// only under the reader's limits: an `.xls` is laid out whole as it opens
/// (its declared size first), and a crafted one can ask for more memory
/// than a limit allows (the reader then ends, not Hearth). An `.xlsx` is
/// read a cell at a time: its shared strings are held, its cells are not.
pub(crate) fn markdown(bytes: &[u8]) -> Result<String, String> {
    let not_one = |e: &dyn std::fmt::Display| format!("not a spreadsheet Hearth reads ({e})");
    let mut out = Out::default();
    if bytes.starts_with(&COMPOUND_FILE) {
        let mut book = match Xls::new(Cursor::new(bytes)) {
            Ok(book) => book,
            Err(XlsError::Password) => return Err(PROTECTED.into()),
            // A protected `.xlsx` is a compound file without a workbook.
            Err(e) => {
                return Err(match Xlsx::new(Cursor::new(bytes)) {
                    Err(XlsxError::Password) => PROTECTED.into(),
                    _ => not_one(&e),
                });
            }
        };
        for name in worksheets(book.sheets_metadata()) {
            out.sheet(&name, |out| {
                let range = book.worksheet_range(&name).map_err(Broken::sheet)?;
                let (top, left) = range.start().unwrap_or_default();
                for (r, row) in (top..).zip(range.rows()) {
                    for (c, value) in (left..).zip(row) {
                        out.cell(r, c, shown(value))?;
                    }
                }
                Ok(())
            })?;
        }
    } else {
        let mut book = Xlsx::new(Cursor::new(bytes)).map_err(|e| match e {
            XlsxError::Password => PROTECTED.into(),
            e => not_one(&e),
        })?;
        for name in worksheets(book.sheets_metadata()) {
            out.sheet(&name, |out| {
                let mut cells = book.worksheet_cells_reader(&name).map_err(Broken::sheet)?;
                while let Some(cell) = cells.next_cell().map_err(Broken::sheet)? {
                    let (r, c) = cell.get_position();
                    out.cell(r, c, shown_ref(cell.get_value()))?;
                }
                Ok(())
            })?;
        }
    }
    out.finish().map_err(|e| match e {
        Broken::Sheet(why) => not_one(&why),
        Broken::Book(why) => why,
    })
}

/// Why text was not read: one sheet's (its cells cannot be read, the
/// others may be) or the whole workbook's (its text is over the bound).
#[derive(Debug)]
enum Broken {
    Sheet(String),
    Book(String),
}

impl Broken {
    fn sheet(e: impl std::fmt::Display) -> Self {
        Self::Sheet(e.to_string())
    }
}

impl From<String> for Broken {
    fn from(why: String) -> Self {
        Self::Book(why)
    }
}

/// A cell's value as the sheet shows it.
fn shown(value: &Data) -> String {
    match value {
        Data::Empty => String::new(),
        Data::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_owned(),
        Data::Float(f) => number(*f),
        Data::DateTime(d) => date(d),
        Data::DateTimeIso(iso) => iso_date(iso),
        other => other.to_string(),
    }
}

/// A value read a cell at a time, as the sheet shows it.
fn shown_ref(value: &DataRef<'_>) -> String {
    match value {
        DataRef::SharedString(s) => (*s).to_owned(),
        DataRef::String(s) => s.clone(),
        other => shown(&Data::from(other.clone())),
    }
}

/// Trailing zeros of a decimal fraction, and then its point, left out.
fn trimmed(digits: &str) -> &str {
    if digits.contains('.') {
        digits.trim_end_matches('0').trim_end_matches('.')
    } else {
        digits
    }
}

/// A number as a sheet shows it in its general format: at most 15
/// significant digits (a double's last ones are noise: 0.1 + 0.2 is
/// 0.30000000000000004 in the file), no trailing zeros, an exponent for
/// the very large and the very small.
fn number(f: f64) -> String {
    if !f.is_finite() {
        return f.to_string();
    }
    if f == 0.0 {
        return "0".into();
    }
    if f.fract() == 0.0 && f.abs() < 1e15 {
        return format!("{f:.0}");
    }
    let magnitude = f.abs().log10().floor() as i32;
    if !(-5..15).contains(&magnitude) {
        let s = format!("{f:.14e}");
        return match s.split_once('e') {
            Some((mantissa, exponent)) => format!("{}e{exponent}", trimmed(mantissa)),
            None => s,
        };
    }
    let decimals = (14 - magnitude).clamp(0, 20) as usize;
    trimmed(&format!("{f:.decimals$}")).to_owned()
}

/// A date, a time or a duration, as a reader writes one.
fn date(d: &ExcelDateTime) -> String {
    let serial = d.as_f64();
    if d.is_duration() {
        let seconds = (serial * 86_400.0).round() as i64;
        let sign = if seconds < 0 { "-" } else { "" };
        let s = seconds.abs();
        return format!("{sign}{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
    }
    let (y, mo, day, h, mi, s, _) = d.to_ymd_hms_milli();
    let time = if s == 0 {
        format!("{h:02}:{mi:02}")
    } else {
        format!("{h:02}:{mi:02}:{s:02}")
    };
    if (0.0..1.0).contains(&serial) {
        // A time of day alone (midnight too): its serial has no day.
        time
    } else if (h, mi, s) == (0, 0, 0) {
        format!("{y:04}-{mo:02}-{day:02}")
    } else {
        format!("{y:04}-{mo:02}-{day:02} {time}")
    }
}

/// An ISO 8601 date as [`date`] writes one ("2026-10-03T07:30:00" is
/// "2026-10-03 07:30"); anything else as it is.
fn iso_date(iso: &str) -> String {
    let Some((day, time)) = iso.split_once('T') else {
        return iso.to_owned();
    };
    let time = time.split('.').next().unwrap_or(time);
    match time {
        "00:00:00" | "00:00" => day.to_owned(),
        t => format!("{day} {}", t.strip_suffix(":00").unwrap_or(t)),
    }
}

/// The Markdown being written.
#[derive(Default)]
struct Out {
    text: String,
    /// The sheet whose heading waits for its first row (an empty sheet
    /// leaves nothing).
    heading: Option<String>,
    /// The row being read, and its cells so far by column.
    row: Option<u32>,
    cells: Vec<(u32, String)>,
    /// The bytes the row will take, counted toward the bound before it is
    /// written.
    row_bytes: usize,
    /// Worksheets read, and why the first that could not be was not.
    read: usize,
    broken: Option<String>,
}

impl Out {
    /// Worksheet `name`, its cells given by `read`. A sheet whose cells
    /// cannot be read (a damaged part of the file) leaves none of them,
    /// and says so under its name: the other sheets are still read, and a
    /// search for it finds why it holds nothing.
    fn sheet(
        &mut self,
        name: &str,
        read: impl FnOnce(&mut Self) -> Result<(), Broken>,
    ) -> Result<(), String> {
        // A name is one line: one with a line break would write headings.
        let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
        let name = if name.is_empty() {
            "Sheet".into()
        } else {
            name
        };
        let mark = self.text.len();
        self.heading = Some(name.clone());
        let done = match read(self) {
            Ok(()) => self.end_row().map_err(Broken::Book),
            failed => failed,
        };
        match done {
            Ok(()) => {
                self.read += 1;
                Ok(())
            }
            Err(Broken::Book(why)) => Err(why),
            Err(Broken::Sheet(why)) => {
                // One line: the reason may quote a name from the file.
                let why = why.split_whitespace().collect::<Vec<_>>().join(" ");
                self.text.truncate(mark);
                self.heading = None;
                self.row = None;
                self.cells.clear();
                self.row_bytes = 0;
                let note = format!(
                    "{}# {name}\n\nThis sheet could not be read ({why}).\n",
                    if self.text.is_empty() { "" } else { "\n" }
                );
                self.bounded(note.len())?;
                self.text.push_str(&note);
                self.broken.get_or_insert(why);
                Ok(())
            }
        }
    }

    /// The cell in row `r`, column `c` (from 0) holds `value`: an empty one
    /// adds nothing.
    fn cell(&mut self, r: u32, c: u32, value: String) -> Result<(), String> {
        let value = value
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace('|', "\\|");
        if value.is_empty() {
            return Ok(());
        }
        if self.row != Some(r) {
            self.end_row()?;
            self.row = Some(r);
        }
        // Its text, its separator, and at most `MAX_GAP` empty cells.
        self.row_bytes += value.len() + 3 * (MAX_GAP + 1);
        self.cells.push((c, value));
        self.bounded(self.row_bytes)
    }

    /// Whether `more` bytes still fit under [`MAX_SHEET_TEXT`].
    fn bounded(&self, more: usize) -> Result<(), String> {
        if self.text.len() + more > MAX_SHEET_TEXT {
            return Err(format!(
                "its text is over {} MB, the most Hearth reads of a spreadsheet",
                MAX_SHEET_TEXT >> 20
            ));
        }
        Ok(())
    }

    /// The row ends: its heading first if it is the sheet's first, then its
    /// cells in their columns (a gap of up to `MAX_GAP` kept as empty
    /// cells, a longer one as one).
    fn end_row(&mut self) -> Result<(), String> {
        self.row = None;
        self.row_bytes = 0;
        if self.cells.is_empty() {
            return Ok(());
        }
        let mut cells = std::mem::take(&mut self.cells);
        cells.sort_by_key(|(c, _)| *c);
        let mut line = String::from("|");
        let mut next = 0u32;
        for (c, value) in cells {
            let gap = c.saturating_sub(next) as usize;
            let empties = if gap > MAX_GAP { 1 } else { gap };
            line.push_str(&"  |".repeat(empties));
            line.push(' ');
            line.push_str(&value);
            line.push_str(" |");
            next = c.saturating_add(1);
        }
        line.push('\n');
        if let Some(name) = self.heading.take() {
            let heading = format!(
                "{}# {name}\n\n",
                if self.text.is_empty() { "" } else { "\n" }
            );
            self.bounded(heading.len() + line.len())?;
            self.text.push_str(&heading);
        }
        self.bounded(line.len())?;
        self.text.push_str(&line);
        Ok(())
    }

    /// The workbook's text; when no sheet could be read and one could
    /// not, why (a file with nothing to find is left out with its reason).
    fn finish(self) -> Result<String, Broken> {
        match self.broken {
            Some(why) if self.read == 0 => Err(Broken::Sheet(why)),
            _ => Ok(self.text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_a_sheet_shows_them() {
        assert_eq!(number(38.0), "38");
        assert_eq!(number(-4200.0), "-4200");
        assert_eq!(number(0.1 + 0.2), "0.3");
        assert_eq!(number(2.5), "2.5");
        assert_eq!(number(1.0 / 3.0), "0.333333333333333");
        assert_eq!(number(1e20), "1e20");
        assert_eq!(number(3.0000000000000005e-6), "3e-6");
        assert_eq!(number(1.234e-7), "1.234e-7");
        assert_eq!(number(0.0), "0");
        assert_eq!(number(-0.0), "0");
    }

    #[test]
    fn dates_times_and_durations_read_as_written() {
        use calamine::ExcelDateTimeType::{DateTime, TimeDelta};
        let at = |v, t| date(&ExcelDateTime::new(v, t, false));
        assert_eq!(at(45943.0, DateTime), "2025-10-13");
        assert_eq!(at(45943.5, DateTime), "2025-10-13 12:00");
        assert_eq!(at(0.75, DateTime), "18:00");
        assert_eq!(at(0.0, DateTime), "00:00");
        assert_eq!(at(45943.541, DateTime), "2025-10-13 12:59:02");
        assert_eq!(at(1.5, TimeDelta), "36:00:00");
        assert_eq!(iso_date("2026-10-03T00:00:00"), "2026-10-03");
        assert_eq!(iso_date("2026-08-01T07:30:00"), "2026-08-01 07:30");
        assert_eq!(iso_date("2026-08-01T07:30:15.250"), "2026-08-01 07:30:15");
    }

    #[test]
    fn rows_keep_their_columns_and_empty_sheets_leave_nothing() {
        let mut out = Out::default();
        out.sheet("Empty", |_| Ok(())).unwrap();
        out.sheet("Harvest\n# Injected", |out| {
            out.cell(0, 0, "Crop".into())?;
            out.cell(0, 2, "kg".into())?;
            out.cell(1, 2, "38".into())?;
            // Out of column order within its row: put in its column.
            out.cell(1, 0, "Pumpkins | squash".into())?;
            out.cell(1, 1, "  ".into())?;
            out.cell(5, 1, "a\nnote".into())?;
            // A stray cell far to the right: one empty cell for the gap.
            out.cell(6, 16_383, "far".into())?;
            Ok(())
        })
        .unwrap();
        // Damaged after a row was read: none of its rows are kept.
        out.sheet("Costs", |out| {
            out.cell(0, 0, "half a row".into())?;
            // A reason that quotes a name with a line break stays one line.
            Err(Broken::sheet("bad\n# XML"))
        })
        .unwrap();
        assert_eq!(
            out.finish().unwrap(),
            "# Harvest # Injected\n\n| Crop |  | kg |\n| Pumpkins \\| squash |  | 38 |\n|  | a note |\n|  | far |\n\n# Costs\n\nThis sheet could not be read (bad # XML).\n"
        );
        // No sheet read, one damaged: the workbook has nothing to read.
        let mut out = Out::default();
        out.sheet("Empty", |_| Err(Broken::sheet("bad XML")))
            .unwrap();
        assert!(matches!(out.finish(), Err(Broken::Sheet(why)) if why == "bad XML"));
    }

    #[test]
    fn a_sheet_past_the_bound_is_refused_while_read() {
        let mut out = Out::default();
        let cell = "x".repeat(32_000);
        let mut rows = 0;
        let e = out
            .sheet("Dump", |out| {
                for r in 0..1_000 {
                    out.cell(r, 0, cell.clone())?;
                    rows = r;
                }
                Ok(())
            })
            .unwrap_err();
        assert!(rows > 500 && rows < 600, "{rows}");
        assert!(e.contains("over 16 MB"), "{e}");
        // A cell of pipes counts as written, escaped: twice its length.
        let mut out = Out::default();
        let pipes = "|".repeat(32_000);
        let mut rows = 0;
        let refused = out.sheet("Pipes", |out| {
            for r in 0..1_000 {
                out.cell(r, 0, pipes.clone())?;
                rows = r;
            }
            Ok(())
        });
        assert!(refused.is_err() && rows > 250 && rows < 300, "{rows}");
    }
}
