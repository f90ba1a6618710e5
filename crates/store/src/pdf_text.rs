//! The text of an attached PDF, read with the `pdf-extract` crate in a
//! child process. A PDF is the sender's, so it is untrusted, and the parser
//! has no bounds of its own: a form that draws itself overflowed the stack
//! and aborted the whole app, 40 nested forms spun past two minutes, an
//! 8 MB stream inflating to 8 GiB exhausted memory (security review N3).
//! `catch_unwind` catches none of these. So the parse runs in a process of
//! its own — the front end's binary again, started with [`READ_PDF_FLAG`]
//! (front ends call [`run_if_requested`] first thing in `main`) — with
//! limits on its memory, CPU time and stack, and a wall-clock bound on the
//! wait. Whatever kills it, the app and the session go on, and the file is
//! named as one whose text cannot be read.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::error::StoreError;

/// The largest PDF Hearth reads.
pub const MAX_PDF_BYTES: usize = 50 << 20;

/// The argument that turns a Hearth binary into the PDF reader: the PDF on
/// stdin, its text on stdout.
pub const READ_PDF_FLAG: &str = "--hearth-read-pdf";

/// The reader's address space: a real PDF's text takes a few MB to
/// extract; the inflating bomb asked for 4 GiB.
const READER_MEMORY_BYTES: u64 = 1 << 30;
/// The reader's CPU time: a 50 MB report reads in a few seconds.
const READER_CPU_SECONDS: u64 = 30;
/// The parsing thread's stack: far deeper than any real PDF nests, and
/// still a limit (a form that draws itself overflows it, and only the
/// reader ends).
const READER_STACK_BYTES: usize = 64 << 20;
/// How long the app waits for the reader: past its CPU limit, for a reader
/// that blocks without spending CPU.
const READER_WAIT: Duration = Duration::from_secs(60);

/// The most text read back (the kept text's own limit is checked after).
const MAX_TEXT_OUT: u64 = 64 << 20;

static READER: OnceLock<PathBuf> = OnceLock::new();
static LIMITS: OnceLock<(u64, u64)> = OnceLock::new();

/// The binary that reads PDFs (one that calls [`run_if_requested`]); by
/// default this process's own executable. Set once, before the first PDF.
pub fn set_reader(path: impl Into<PathBuf>) {
    let _ = READER.set(path.into());
}

/// Other limits for the reader (memory in bytes, CPU seconds), set once
/// before the first PDF: tests show a bomb stopped without spending the
/// real limits' gigabyte and half minute.
#[doc(hidden)]
pub fn set_reader_limits(memory_bytes: u64, cpu_seconds: u64) {
    let _ = LIMITS.set((memory_bytes, cpu_seconds));
}

/// Why a PDF's text could not be read. None is worth another try with the
/// same file: the file is named as one whose text cannot be read.
#[derive(Debug, thiserror::Error)]
enum PdfError {
    /// The reader process could not be started (this program not found,
    /// no processes left).
    #[error("the PDF reader cannot be started ({0})")]
    NoReader(std::io::Error),
    /// It ran past the wait and was stopped.
    #[error("reading it took longer than {} s, so it was stopped", READER_WAIT.as_secs())]
    TooSlow,
    /// It finished but wrote what is not text.
    #[error("the PDF reader wrote no text")]
    NotText,
    /// A limit killed it (memory, CPU time, stack).
    #[error(
        "the PDF reader ran out of memory, time or stack on it (the PDF may be built to do that)"
    )]
    Limits,
    /// It failed without a word.
    #[error("the PDF reader failed on it")]
    Failed,
    /// It failed and said why (the last line of its stderr).
    #[error("{0}")]
    Said(String),
}

fn reader() -> Result<PathBuf, PdfError> {
    if let Some(p) = READER.get() {
        return Ok(p.clone());
    }
    std::env::current_exe().map_err(PdfError::NoReader)
}

/// When this process was started as the PDF reader, read the PDF on stdin,
/// write its text to stdout and say how it went; `None`: a normal start.
pub fn run_if_requested() -> Option<ExitCode> {
    if std::env::args_os().nth(1).as_deref() != Some(std::ffi::OsStr::new(READ_PDF_FLAG)) {
        return None;
    }
    Some(read_pdf_here())
}

/// The reader's side: limits first (given after the flag, else the
/// defaults), then the parse on a thread with a bounded stack.
fn read_pdf_here() -> ExitCode {
    use rustix::process::{Resource, Rlimit, setrlimit};
    let given: Vec<u64> = std::env::args()
        .skip(2)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (memory, cpu) = match given.as_slice() {
        [m, c] => (*m, *c),
        _ => (READER_MEMORY_BYTES, READER_CPU_SECONDS),
    };
    for (resource, value) in [(Resource::As, memory), (Resource::Cpu, cpu)] {
        let limit = Rlimit {
            current: Some(value),
            maximum: Some(value),
        };
        if let Err(e) = setrlimit(resource, limit) {
            eprintln!("hearth: cannot limit the PDF reader ({e})");
            return ExitCode::from(2);
        }
    }
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin()
        .take(MAX_PDF_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
    {
        eprintln!("hearth: reading the PDF: {e}");
        return ExitCode::from(2);
    }
    let parsed = std::thread::Builder::new()
        .stack_size(READER_STACK_BYTES)
        .spawn(move || pdf_extract::extract_text_from_mem(&bytes).map_err(|e| e.to_string()))
        .map_err(|e| e.to_string())
        .and_then(|t| {
            t.join()
                .map_err(|_| "the PDF reader failed on it".to_owned())
        });
    match parsed {
        Ok(Ok(text)) => {
            let mut out = std::io::stdout().lock();
            if out
                .write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                return ExitCode::from(2);
            }
            ExitCode::SUCCESS
        }
        Ok(Err(why)) | Err(why) => {
            eprintln!("{why}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the reader on `bytes`: the text, or why there is none.
fn extract(bytes: &[u8]) -> Result<String, PdfError> {
    let (memory, cpu) = LIMITS
        .get()
        .copied()
        .unwrap_or((READER_MEMORY_BYTES, READER_CPU_SECONDS));
    let mut child = Command::new(reader()?)
        .arg(READ_PDF_FLAG)
        .args([memory.to_string(), cpu.to_string()])
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(PdfError::NoReader)?;
    // Fed and drained on threads of their own: a reader that stops reading
    // or writes more than a pipe holds must not block the wait below.
    let stdin = child.stdin.take();
    let input = bytes.to_vec();
    let feeding = std::thread::spawn(move || {
        if let Some(mut s) = stdin {
            let _ = s.write_all(&input);
        }
    });
    let stdout = child.stdout.take();
    let reading = std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = stdout {
            let _ = s.take(MAX_TEXT_OUT).read_to_end(&mut out);
        }
        out
    });
    let stderr = child.stderr.take();
    let erring = std::thread::spawn(move || {
        let mut err = String::new();
        if let Some(s) = stderr {
            let _ = s.take(4096).read_to_string(&mut err);
        }
        err
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < READER_WAIT => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(None) | Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let _ = feeding.join();
    let out = reading.join().unwrap_or_default();
    let err = erring.join().unwrap_or_default();
    let Some(status) = status else {
        return Err(PdfError::TooSlow);
    };
    if status.success() {
        return String::from_utf8(out).map_err(|_| PdfError::NotText);
    }
    let why = err.lines().last().unwrap_or_default().trim();
    Err(
        match std::os::unix::process::ExitStatusExt::signal(&status) {
            Some(_) => PdfError::Limits,
            None if why.is_empty() => PdfError::Failed,
            None => PdfError::Said(why.to_owned()),
        },
    )
}

/// The text of `bytes`, a PDF named `name`.
pub(crate) fn text_of(name: &str, bytes: &[u8]) -> Result<String, StoreError> {
    pdf_text(bytes).map_err(|why| StoreError::Attachment(format!("cannot attach {name}: {why}")))
}

/// The text of the PDF `bytes`, read in the bounded child process; the
/// error says why it cannot be read, in words for the user (knowledge
/// folders keep it beside the file).
pub fn pdf_text(bytes: &[u8]) -> Result<String, String> {
    if bytes.len() > MAX_PDF_BYTES {
        return Err(format!(
            "the PDF is {} MB; the most Hearth reads is {} MB",
            bytes.len() >> 20,
            MAX_PDF_BYTES >> 20
        ));
    }
    let text = extract(bytes).map_err(|e| format!("its text cannot be read ({e})"))?;
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
        return Err("it has no text to read (a scanned PDF holds pictures of its pages)".into());
    }
    Ok(out)
}
