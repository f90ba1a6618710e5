//! The document reader on its own (`hearth-reader --hearth-read-pdf <
//! file.pdf`, `hearth-reader --hearth-read-sheet < book.xlsx`). The front
//! ends are their own readers (`hearth_store::run_reader_if_requested`
//! first thing in `main`); a test binary cannot be one, so the tests point
//! the store at this one (`hearth_store::set_reader`).

use std::process::ExitCode;

fn main() -> ExitCode {
    hearth_store::run_reader_if_requested().unwrap_or_else(|| {
        eprintln!(
            "usage: hearth-reader {} < file.pdf, or {} < book.xlsx",
            hearth_store::READ_PDF_FLAG,
            hearth_store::READ_SHEET_FLAG
        );
        ExitCode::from(2)
    })
}
