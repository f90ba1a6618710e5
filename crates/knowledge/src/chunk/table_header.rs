//! A table's header row, for the passages cut from below it. A long table
//! (a worksheet of a thousand rows, a Markdown table of prices) is cut
//! into many passages, and all but the first would be rows of bare values
//! ("| 2026-10-03 | 4 | 812 |") that neither the search nor the model can
//! read without the row naming the columns. That row goes with each of
//! them in its heading path ("Harvest › columns: Date | Field | Kg"),
//! which is searched, embedded and shown with the passage, while the
//! passage's own text and lines stay the file's.

use super::outside_fences;

/// The most of a header row a heading holds, in characters: a sheet as
/// wide as a spreadsheet allows would otherwise make every heading longer
/// than its passage. A longer row is cut after its last whole cell.
pub(super) const MAX_COLUMNS_CHARS: usize = 200;

/// The tables of a Markdown text: runs of lines that begin with `|`
/// (outside fenced code), each with its first line as its header. In a
/// Markdown file a table is one as GitHub reads it, its second line a
/// delimiter row (`|---|---|`): prose or a table's rows after a code
/// block that begin with a bar are not a new table. The Markdown Hearth
/// writes of a sheet or a document's table has no delimiter row.
#[derive(Default)]
pub(super) struct TableHeaders {
    /// (byte offset where the table's second line starts, where the table
    /// ends, its columns as a heading shows them), in order.
    tables: Vec<(usize, usize, String)>,
}

impl TableHeaders {
    pub(super) fn of(text: &str, delimited: bool) -> Self {
        let mut tables = Vec::new();
        // The table being read: its first line's text, where its second
        // line starts, where its last line ends.
        let mut open: Option<(&str, usize, usize)> = None;
        for (start, line) in outside_fences(text) {
            let is_row =
                line.len() - line.trim_start().len() <= 3 && line.trim_start().starts_with('|');
            open = match open {
                Some((first, body, end)) if is_row && start == end => {
                    Some((first, body, start + line.len()))
                }
                Some(table) => {
                    tables.extend(Self::closed(table));
                    is_row.then_some((line, start + line.len(), start + line.len()))
                }
                None => is_row.then_some((line, start + line.len(), start + line.len())),
            };
        }
        tables.extend(open.and_then(Self::closed));
        if delimited {
            tables.retain(|(body, _, _)| text[*body..].lines().next().is_some_and(is_delimiter));
        }
        Self { tables }
    }

    /// A table read whole: kept when it has lines below its first and a
    /// first line that names something.
    fn closed((first, body, end): (&str, usize, usize)) -> Option<(usize, usize, String)> {
        (body < end)
            .then(|| columns(first))
            .flatten()
            .map(|c| (body, end, c))
    }

    /// The columns of the table that byte `at` lies in below its first
    /// line, if it does: a passage that starts there lacks its header.
    pub(super) fn columns_at(&self, at: usize) -> Option<&str> {
        let i = self.tables.partition_point(|(body, _, _)| *body <= at);
        let (_, end, columns) = &self.tables[i.checked_sub(1)?];
        (at < *end).then_some(columns.as_str())
    }
}

/// A header line's cells as a heading shows them ("Date | Field | Kg"):
/// the outer bars dropped, cut to [`MAX_COLUMNS_CHARS`]; `None` for a
/// line of no text or a Markdown delimiter row (`|---|:--:|`).
fn columns(line: &str) -> Option<String> {
    let line = line.trim();
    let inner = line.strip_prefix('|').unwrap_or(line);
    // A last `\|` is an escaped bar in the last cell, not the row's end.
    let inner = match inner.strip_suffix('|') {
        Some(rest) if !rest.ends_with('\\') => rest,
        _ => inner,
    };
    let cells: Vec<&str> = inner.split(" | ").map(str::trim).collect();
    if is_delimiter(line) || cells.iter().all(|c| c.is_empty()) {
        return None;
    }
    // Every cell in its place, blank ones too ("|  | Q1 | Q2 |" has its
    // corner empty: "Q1" is the second column, not the first).
    let mut shown = String::new();
    for (i, cell) in cells.into_iter().enumerate() {
        let sep = if i == 0 { "" } else { " | " };
        if shown.chars().count() + sep.len() + cell.chars().count() > MAX_COLUMNS_CHARS {
            if i == 0 {
                // One cell longer than the bound: its beginning.
                shown.extend(cell.chars().take(MAX_COLUMNS_CHARS - 1));
                shown.push('…');
            } else {
                shown.push_str(" | …");
            }
            break;
        }
        shown.push_str(sep);
        shown.push_str(cell);
    }
    Some(shown)
}

/// Whether `line` is a Markdown table's delimiter row (`|---|:--:|`).
fn is_delimiter(line: &str) -> bool {
    let line = line.trim();
    line.contains('-')
        && line
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_below_the_first_have_its_columns_and_the_first_has_none() {
        let text = "# Harvest\n\n| Date | Field | Kg |\n| 2026-10-03 | 4 | 812 |\n| 2026-10-04 | 2 | 640 |\n\nAfter.\n";
        let t = TableHeaders::of(text, false);
        let at = |s: &str| text.find(s).unwrap_or(usize::MAX);
        assert_eq!(t.columns_at(at("| Date")), None, "the header's own line");
        assert_eq!(t.columns_at(at("| 2026-10-03")), Some("Date | Field | Kg"));
        assert_eq!(t.columns_at(at("| 2026-10-04")), Some("Date | Field | Kg"));
        assert_eq!(t.columns_at(at("After.")), None, "below the table");
        assert_eq!(t.columns_at(at("# Harvest")), None, "above it");
    }

    #[test]
    fn a_markdown_delimiter_row_is_not_a_column_and_each_table_has_its_own() {
        let text = "| Name | Price |\n|---|:--:|\n| tea | 3 |\n\n| City | Zone |\n| Oslo | CET |\n";
        let t = TableHeaders::of(text, false);
        let at = |s: &str| text.find(s).unwrap_or(usize::MAX);
        assert_eq!(t.columns_at(at("|---")), Some("Name | Price"));
        assert_eq!(t.columns_at(at("| tea")), Some("Name | Price"));
        assert_eq!(t.columns_at(at("| Oslo")), Some("City | Zone"));
        // A table whose first line is a delimiter names nothing.
        assert!(
            TableHeaders::of("|---|---|\n| a | b |\n", false)
                .tables
                .is_empty()
        );
    }

    #[test]
    fn bars_in_code_and_lone_rows_make_no_table() {
        let text = "```\n| not | a table |\n| in | code |\n```\n| one row |\n\nText | with a bar\n";
        assert!(TableHeaders::of(text, false).tables.is_empty());
    }

    #[test]
    fn escaped_bars_stay_in_their_cell_and_a_wide_header_is_cut_after_a_whole_cell() {
        assert_eq!(
            columns(r"| a \| b | c \|").as_deref(),
            Some(r"a \| b | c \|")
        );
        let wide = format!("|{}", " column name |".repeat(40));
        let shown = columns(&wide).unwrap_or_default();
        assert!(shown.chars().count() <= MAX_COLUMNS_CHARS + 4, "{shown}");
        assert!(shown.ends_with("column name | …"), "{shown}");
        assert_eq!(columns("|  |   |"), None);
        // A blank corner keeps the columns in their places.
        assert_eq!(columns("|  | Q1 | Q2 |").as_deref(), Some(" | Q1 | Q2"));
        let long = format!("| {} | b |", "x".repeat(300));
        let shown = columns(&long).unwrap_or_default();
        assert_eq!(shown.chars().count(), MAX_COLUMNS_CHARS);
        assert!(shown.ends_with("x…"), "{shown}");
    }

    #[test]
    fn in_a_markdown_file_a_table_has_a_delimiter_row() {
        let text = "| Name | Price |\n|---|---|\n| tea | 3 |\n```\nx\n```\n| two |\n| three |\n\n| prose | with bars |\n| more | bars |\n";
        let t = TableHeaders::of(text, true);
        let at = |s: &str| text.find(s).unwrap_or(usize::MAX);
        assert_eq!(t.columns_at(at("| tea")), Some("Name | Price"));
        assert_eq!(
            t.columns_at(at("| three")),
            None,
            "rows after a code block are no new table"
        );
        assert_eq!(t.columns_at(at("| more")), None);
        // Without the rule (a sheet's Markdown), both are tables.
        let t = TableHeaders::of(text, false);
        assert_eq!(t.columns_at(at("| three")), Some("two"));
    }
}
