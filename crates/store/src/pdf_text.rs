//! The text of an attached PDF, read with the `pdf-extract` crate. A PDF
//! is the sender's, so it is untrusted: a malformed one is an error that
//! names it, and a panic inside the parser (it has had some on odd files)
//! is caught and reported the same way, never taking the app down.

use crate::error::StoreError;

/// The largest PDF Hearth reads.
pub const MAX_PDF_BYTES: usize = 50 << 20;

/// The text of `bytes`, a PDF named `name`.
pub(crate) fn text_of(name: &str, bytes: &[u8]) -> Result<String, StoreError> {
    let refuse = |why: String| StoreError::Attachment(format!("cannot attach {name}: {why}"));
    if bytes.len() > MAX_PDF_BYTES {
        return Err(refuse(format!(
            "the PDF is {} MB; the most Hearth reads is {} MB",
            bytes.len() >> 20,
            MAX_PDF_BYTES >> 20
        )));
    }
    let read = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem(bytes));
    let text = match read {
        Ok(Ok(t)) => t,
        Ok(Err(e)) => return Err(refuse(format!("its text cannot be read ({e})"))),
        Err(_) => {
            return Err(refuse(
                "its text cannot be read (the PDF reader failed on it)".into(),
            ));
        }
    };
    // Page breaks come as form feeds; runs of blank lines add nothing.
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
    let out = out.trim().to_owned();
    if out.is_empty() {
        return Err(refuse(
            "it has no text to read (a scanned PDF holds pictures of its pages)".into(),
        ));
    }
    Ok(out)
}
