//! Excel workbooks, as openpyxl and xlwt write them (`tests/sheets/make.py`),
//! read by the bounded reader in a process of its own (`hearth-reader`
//! here; the front ends are their own readers): each worksheet headed by
//! its name, a line of cells for each row, the cells in their columns. An
//! `.xlsx` is read a cell at a time, so two cells at a sheet's opposite
//! corners cost nothing; an `.xls` is laid out whole, and one whose layout
//! passes the reader's memory limit ends only the reader. The limits are
//! the PDF suite's (256 MB, 2 s of CPU), lower than the app's.

fn workbook(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/sheets/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn use_the_reader() {
    hearth_store::set_reader(env!("CARGO_BIN_EXE_hearth-reader"));
    hearth_store::set_reader_limits(256 << 20, 2);
}

/// What both harvest workbooks read as: the empty sheet between the two
/// leaves nothing; the fourth row is empty; the fifth has a cell in its
/// third column only.
const HARVEST: &str = "# Harvest\n\n\
    | Crop | Weight (kg) | Picked | Organic |\n\
    | Pumpkins | 38 | 2026-10-03 | TRUE |\n\
    | Beans \\| runner | 4.25 | 2026-08-01 07:30 | FALSE |\n\
    |  |  | Water the squash at dusk |\n\
    \n\
    # Notes\n\n\
    | Seed order goes in by February |";

#[test]
fn an_xlsx_and_an_xls_read_as_markdown_sheet_by_sheet() {
    use_the_reader();
    for name in ["harvest.xlsx", "harvest.xls"] {
        let text = hearth_store::sheet_text(&workbook(name)).unwrap();
        assert_eq!(text, HARVEST, "{name}");
    }
}

#[test]
fn two_cells_at_an_xlsx_sheets_opposite_corners_read_a_cell_at_a_time() {
    use_the_reader();
    // Laid out whole, A1 to XFD1048576 would be 17 billion cells; read a
    // cell at a time it is two, the second in the 16,384th column (the gap
    // before it written as one empty cell).
    let text = hearth_store::sheet_text(&workbook("far-apart.xlsx")).unwrap();
    assert_eq!(text, "# Far\n\n| first |\n|  | last |");
}

#[test]
fn an_xls_laid_out_past_the_readers_memory_ends_only_the_reader() {
    use_the_reader();
    // A1 and IV65536: 16.7 million cells laid out, past 256 MB.
    let e = hearth_store::sheet_text(&workbook("far-apart.xls")).unwrap_err();
    assert!(
        e.starts_with("its text cannot be read (the spreadsheet reader ran out of memory"),
        "{e}"
    );
    // This process goes on, and the next workbook reads.
    let text = hearth_store::sheet_text(&workbook("harvest.xls")).unwrap();
    assert!(text.contains("| Pumpkins | 38 |"), "{text}");
}

#[test]
fn a_workbook_behind_a_password_is_named_so() {
    use_the_reader();
    let e = hearth_store::sheet_text(&workbook("protected.xlsx")).unwrap_err();
    assert_eq!(e, "its text cannot be read (it is protected by a password)");
}

#[test]
fn what_is_not_a_workbook_is_named_so() {
    use_the_reader();
    let e = hearth_store::sheet_text(b"this is not a zip").unwrap_err();
    assert!(
        e.starts_with("its text cannot be read (not a spreadsheet Hearth reads"),
        "{e}"
    );
    // An .xls's header with nothing after it.
    let mut cut = workbook("harvest.xls");
    cut.truncate(600);
    let e = hearth_store::sheet_text(&cut).unwrap_err();
    assert!(e.starts_with("its text cannot be read ("), "{e}");
    let too_big = vec![0u8; hearth_store::MAX_SHEET_BYTES + 1];
    let e = hearth_store::sheet_text(&too_big).unwrap_err();
    assert_eq!(e, "the spreadsheet is over 16 MB, the most Hearth reads");
}

#[test]
fn a_damaged_sheet_is_named_so_under_its_name_and_the_others_are_read() {
    use_the_reader();
    // Harvest's part ends in its third row: the rows read before the break
    // are not kept (a damaged sheet is read whole or not at all), and the
    // sheet after it is read as in the whole workbook.
    let text = hearth_store::sheet_text(&workbook("damaged.xlsx")).unwrap();
    let (harvest, notes) = text
        .split_once("\n\n# Notes")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        harvest.starts_with("# Harvest\n\nThis sheet could not be read (Xml error: "),
        "{text}"
    );
    assert!(!harvest.contains("Pumpkins"), "{text}");
    assert_eq!(notes, "\n\n| Seed order goes in by February |");
    // With no sheet read, the workbook is left out with the reason.
    let e = hearth_store::sheet_text(&workbook("damaged-all.xlsx")).unwrap_err();
    assert!(
        e.starts_with("its text cannot be read (not a spreadsheet Hearth reads (Xml error: "),
        "{e}"
    );
}
