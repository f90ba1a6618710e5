//! The PDF reader on its own (`hearth-read-pdf --hearth-read-pdf < file.pdf`).
//! The front ends are their own readers (`hearth_store::run_pdf_reader_if_requested`
//! first thing in `main`); a test binary cannot be one, so the store's tests
//! point the store at this one (`hearth_store::set_pdf_reader`).

use std::process::ExitCode;

fn main() -> ExitCode {
    hearth_store::run_pdf_reader_if_requested().unwrap_or_else(|| {
        eprintln!(
            "usage: hearth-read-pdf {} < file.pdf",
            hearth_store::READ_PDF_FLAG
        );
        ExitCode::from(2)
    })
}
