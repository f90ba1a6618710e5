//! Reading an untrusted document's text in a child process. A PDF or a
//! spreadsheet is the sender's, and neither parser has bounds of its own:
//! a PDF form that draws itself overflowed the stack and aborted the whole
//! app, 40 nested forms spun past two minutes, an 8 MB stream inflating to
//! 8 GiB exhausted memory (security review N3); the spreadsheet reader
//! lays an `.xls` sheet out as one block from its first used cell to its
//! last, so two cells far apart ask for gigabytes. `catch_unwind` catches
//! none of these. So the parse runs in a process of its own — the front
//! end's binary again, started with [`READ_PDF_FLAG`] or
//! [`READ_SHEET_FLAG`] (front ends call [`run_if_requested`] first thing in
//! `main`) — with limits on its memory, CPU time and stack, and a
//! wall-clock bound on the wait. Whatever kills it, the app and the session
//! go on, and the file is named as one whose text cannot be read. What is
//! read of each format, and how, is in `pdf_text.rs` and `sheet_text.rs`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::error::StoreError;
use crate::pdf_text::MAX_PDF_BYTES;
use crate::sheet_text::{MAX_SHEET_BYTES, MAX_SHEET_TEXT};

/// The argument that turns a Hearth binary into the PDF reader: the PDF on
/// stdin, its text on stdout.
pub const READ_PDF_FLAG: &str = "--hearth-read-pdf";

/// The argument that turns a Hearth binary into the spreadsheet reader:
/// the workbook on stdin, its sheets as Markdown on stdout.
pub const READ_SHEET_FLAG: &str = "--hearth-read-sheet";

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

/// The most text read back (the kept text's own limit is checked after);
/// a reader that writes more is refused, not cut short.
const MAX_TEXT_OUT: u64 = 64 << 20;

static READER: OnceLock<PathBuf> = OnceLock::new();
static LIMITS: OnceLock<(u64, u64)> = OnceLock::new();

/// The binary that reads documents (one that calls [`run_if_requested`]);
/// by default this process's own executable. Set once, before the first.
pub fn set_reader(path: impl Into<PathBuf>) {
    let _ = READER.set(path.into());
}

/// Other limits for the reader (memory in bytes, CPU seconds), set once
/// before the first document: tests show a bomb stopped without spending
/// the real limits' gigabyte and half minute.
#[doc(hidden)]
pub fn set_reader_limits(memory_bytes: u64, cpu_seconds: u64) {
    let _ = LIMITS.set((memory_bytes, cpu_seconds));
}

/// What a reader reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Pdf,
    /// An Excel workbook (`.xlsx`, `.xlsm`, `.xls`).
    Sheet,
}

impl Format {
    const ALL: [Format; 2] = [Format::Pdf, Format::Sheet];

    fn flag(self) -> &'static str {
        match self {
            Format::Pdf => READ_PDF_FLAG,
            Format::Sheet => READ_SHEET_FLAG,
        }
    }

    /// The reader, in the words of a reason.
    fn reader(self) -> &'static str {
        match self {
            Format::Pdf => "the PDF reader",
            Format::Sheet => "the spreadsheet reader",
        }
    }

    /// The file, in the words of a reason.
    fn file(self) -> &'static str {
        match self {
            Format::Pdf => "the PDF",
            Format::Sheet => "the spreadsheet",
        }
    }

    /// The most of it the reader takes in.
    fn max_bytes(self) -> usize {
        match self {
            Format::Pdf => MAX_PDF_BYTES,
            Format::Sheet => MAX_SHEET_BYTES,
        }
    }

    /// Its text: run only in the reader, under its limits.
    fn parse(self, bytes: &[u8]) -> Result<String, String> {
        match self {
            Format::Pdf => crate::pdf_text::parse(bytes),
            Format::Sheet => crate::sheet_text::markdown(bytes),
        }
    }
}

/// Why a document's text could not be read. None is worth another try
/// with the same file: the file is named as one whose text cannot be read.
#[derive(Debug)]
struct ReaderError {
    format: Format,
    why: Why,
}

#[derive(Debug)]
enum Why {
    /// The reader process could not be started (this program not found,
    /// no processes left).
    NoReader(std::io::Error),
    /// It ran past the wait and was stopped.
    TooSlow,
    /// It finished but wrote what is not text.
    NotText,
    /// It wrote more than [`MAX_TEXT_OUT`].
    TooMuch,
    /// A limit killed it (memory, CPU time, stack).
    Limits,
    /// It failed without a word.
    Failed,
    /// It failed and said why (the last line of its stderr).
    Said(String),
}

impl std::fmt::Display for ReaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reader = self.format.reader();
        match &self.why {
            Why::NoReader(e) => write!(f, "{reader} cannot be started ({e})"),
            Why::TooSlow => write!(
                f,
                "reading it took longer than {} s, so it was stopped",
                READER_WAIT.as_secs()
            ),
            Why::NotText => write!(f, "{reader} wrote no text"),
            Why::TooMuch => write!(
                f,
                "{reader} wrote more than {} MB of text",
                MAX_TEXT_OUT >> 20
            ),
            Why::Limits => write!(
                f,
                "{reader} ran out of memory, time or stack on it ({} may be built to do that)",
                self.format.file()
            ),
            Why::Failed => write!(f, "{reader} failed on it"),
            Why::Said(why) => f.write_str(why),
        }
    }
}

fn reader() -> std::io::Result<PathBuf> {
    if let Some(p) = READER.get() {
        return Ok(p.clone());
    }
    std::env::current_exe()
}

/// When this process was started as a reader, read the document on stdin,
/// write its text to stdout and say how it went; `None`: a normal start.
pub fn run_if_requested() -> Option<ExitCode> {
    let flag = std::env::args_os().nth(1)?;
    let format = Format::ALL.into_iter().find(|f| flag == f.flag())?;
    Some(read_here(format))
}

/// The reader's side: limits first (given after the flag, else the
/// defaults), then the parse on a thread with a bounded stack.
fn read_here(format: Format) -> ExitCode {
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
            eprintln!("hearth: cannot limit {} ({e})", format.reader());
            return ExitCode::from(2);
        }
    }
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin()
        .take(format.max_bytes() as u64 + 1)
        .read_to_end(&mut bytes)
    {
        eprintln!("hearth: reading {}: {e}", format.file());
        return ExitCode::from(2);
    }
    let parsed = std::thread::Builder::new()
        .stack_size(READER_STACK_BYTES)
        .spawn(move || format.parse(&bytes))
        .map_err(|e| e.to_string())
        .and_then(|t| {
            t.join()
                .map_err(|_| format!("{} failed on it", format.reader()))
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

/// Runs the reader of `format` on `bytes`: the text, or why there is none.
fn read(format: Format, bytes: &[u8]) -> Result<String, ReaderError> {
    let error = |why| ReaderError { format, why };
    let (memory, cpu) = LIMITS
        .get()
        .copied()
        .unwrap_or((READER_MEMORY_BYTES, READER_CPU_SECONDS));
    let mut child = Command::new(reader().map_err(|e| error(Why::NoReader(e)))?)
        .arg(format.flag())
        .args([memory.to_string(), cpu.to_string()])
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| error(Why::NoReader(e)))?;
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
            let _ = s.take(MAX_TEXT_OUT + 1).read_to_end(&mut out);
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
        return Err(error(Why::TooSlow));
    };
    if out.len() as u64 > MAX_TEXT_OUT {
        return Err(error(Why::TooMuch));
    }
    if status.success() {
        return String::from_utf8(out).map_err(|_| error(Why::NotText));
    }
    let why = err.lines().last().unwrap_or_default().trim();
    Err(error(
        match std::os::unix::process::ExitStatusExt::signal(&status) {
            Some(_) => Why::Limits,
            None if why.is_empty() => Why::Failed,
            None => Why::Said(why.to_owned()),
        },
    ))
}

/// The text of `bytes`, a PDF named `name`, for an attachment.
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
    let text = read(Format::Pdf, bytes).map_err(|e| format!("its text cannot be read ({e})"))?;
    let text = crate::pdf_text::tidy(&text);
    if text.is_empty() {
        return Err("it has no text to read (a scanned PDF holds pictures of its pages)".into());
    }
    Ok(text)
}

/// The text of the Excel workbook `bytes` as Markdown (`sheet_text.rs`),
/// read in the bounded child process; the error says why it cannot be
/// read, in words for the user.
pub fn sheet_text(bytes: &[u8]) -> Result<String, String> {
    if bytes.len() > MAX_SHEET_BYTES {
        return Err(format!(
            "the spreadsheet is over {} MB, the most Hearth reads",
            MAX_SHEET_BYTES >> 20
        ));
    }
    let text = read(Format::Sheet, bytes).map_err(|e| format!("its text cannot be read ({e})"))?;
    // The reader bounds what it writes; so does what it is read back by.
    if text.len() > MAX_SHEET_TEXT {
        return Err(format!(
            "its text is over {} MB, the most Hearth reads of a spreadsheet",
            MAX_SHEET_TEXT >> 20
        ));
    }
    let text = text.trim().to_owned();
    if text.is_empty() {
        return Err("it has no text to read (its sheets are empty)".into());
    }
    Ok(text)
}
