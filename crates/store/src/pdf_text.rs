//! What is read of a PDF: its text through the `pdf-extract` crate, run
//! only in the bounded reader process (`reader.rs`), then tidied.

/// The largest PDF Hearth reads.
pub const MAX_PDF_BYTES: usize = 50 << 20;

/// The reader's side: the PDF's text as `pdf-extract` gives it.
pub(crate) fn parse(bytes: &[u8]) -> Result<String, String> {
    pdf_extract::extract_text_from_mem(bytes).map_err(|e| e.to_string())
}

/// The text as it is kept: page breaks (form feeds) as line ends, runs of
/// blank lines as one, trimmed.
pub(crate) fn tidy(text: &str) -> String {
    let text = text.replace('\u{c}', "\n");
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines().map(str::trim_end) {
        blank = if line.is_empty() { blank + 1 } else { 0 };
        if blank <= 1 {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.trim().to_owned()
}
