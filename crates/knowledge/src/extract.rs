//! The text of a file, by its kind. Every file is the user's own but not
//! necessarily well-formed: a file that cannot be read is a [`Skipped`]
//! with its reason, never an error of the whole sync.

use std::path::Path;

/// The largest file read (a PDF has the store's own limit): past it a
/// text file is a log or a dump, not a document.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// How much of a file is looked at to tell text from binary.
const SNIFF_BYTES: usize = 8 << 10;

/// What a file holds, which decides how it is split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Markdown (and HTML, turned into Markdown): split at its headings.
    Markdown,
    /// Prose without markup: split at paragraphs, then lines and sentences.
    Text,
    /// Source code or configuration: split at blank lines, then lines.
    Code,
    /// A PDF: its text, read by the store's bounded child process.
    Pdf,
    /// An HTML page.
    Html,
    /// A Word document (DOCX).
    Docx,
    /// An OpenDocument text, spreadsheet or presentation (LibreOffice).
    OpenDocument,
    /// An Excel workbook: its sheets, read by the store's bounded child
    /// process.
    Spreadsheet,
}

impl Kind {
    /// The name kept in the index.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Markdown => "markdown",
            Self::Text => "text",
            Self::Code => "code",
            Self::Pdf => "pdf",
            Self::Html => "html",
            Self::Docx => "docx",
            Self::OpenDocument => "opendocument",
            Self::Spreadsheet => "spreadsheet",
        }
    }
}

/// A file's text, ready to split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    /// How it is split ([`Kind::Html`] comes out as [`Kind::Markdown`], a
    /// PDF as [`Kind::Text`]).
    pub kind: Kind,
    /// What the file was: the Markdown Hearth writes of a workbook or a
    /// document differs from a person's (its tables have no delimiter
    /// rows), and [`crate::chunk::split`] reads it so.
    pub source: Kind,
    /// The text.
    pub text: String,
}

/// Why a file has no passages. Kept with the file, so the user sees which
/// files were left out and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Skipped {
    /// Not text (a NUL byte or invalid UTF-8 at its start).
    #[error("not a text file")]
    Binary,
    /// Larger than [`MAX_FILE_BYTES`].
    #[error("larger than {} MB", MAX_FILE_BYTES >> 20)]
    TooLarge,
    /// Text whose content could not be read (an unreadable PDF, a file
    /// that vanished, a permission).
    #[error("{0}")]
    Unreadable(String),
    /// Nothing but whitespace.
    #[error("empty")]
    Empty,
}

const MARKDOWN: &[&str] = &["md", "markdown", "mdx", "mkd"];
const HTML: &[&str] = &["html", "htm", "xhtml"];
const TEXT: &[&str] = &[
    "txt", "text", "rst", "org", "adoc", "asciidoc", "tex", "csv", "tsv",
];
const CODE: &[&str] = &[
    "rs",
    "py",
    "js",
    "mjs",
    "cjs",
    "ts",
    "tsx",
    "jsx",
    "go",
    "java",
    "kt",
    "kts",
    "scala",
    "c",
    "h",
    "cc",
    "cpp",
    "cxx",
    "hpp",
    "hh",
    "cs",
    "fs",
    "rb",
    "php",
    "swift",
    "m",
    "mm",
    "sh",
    "bash",
    "zsh",
    "fish",
    "ps1",
    "sql",
    "toml",
    "yaml",
    "yml",
    "json",
    "jsonc",
    "ini",
    "cfg",
    "conf",
    "css",
    "scss",
    "less",
    "svelte",
    "vue",
    "lua",
    "r",
    "jl",
    "hs",
    "ml",
    "mli",
    "ex",
    "exs",
    "erl",
    "clj",
    "dart",
    "zig",
    "nim",
    "pl",
    "pm",
    "proto",
    "graphql",
    "cmake",
    "gradle",
    "xml",
    "vim",
    "el",
    "nix",
    "tf",
    "dockerfile",
    "makefile",
];
/// Extensions that are never text worth reading, skipped without opening
/// the file (a folder of photos costs a walk, not a read of each).
const NEVER: &[&str] = &[
    "png",
    "jpg",
    "jpeg",
    "gif",
    "webp",
    "bmp",
    "ico",
    "tif",
    "tiff",
    "heic",
    "mp3",
    "wav",
    "flac",
    "ogg",
    "m4a",
    "mp4",
    "mkv",
    "mov",
    "avi",
    "webm",
    "zip",
    "gz",
    "xz",
    "bz2",
    "zst",
    "7z",
    "rar",
    "tar",
    "iso",
    "dmg",
    "exe",
    "dll",
    "so",
    "dylib",
    "o",
    "a",
    "class",
    "jar",
    "pyc",
    "wasm",
    "bin",
    "dat",
    "db",
    "sqlite",
    "sqlite3",
    "gguf",
    "onnx",
    "safetensors",
    "pt",
    "woff",
    "woff2",
    "ttf",
    "otf",
    "eot",
    "psd",
    "ai",
    "sketch",
    "fig",
    "lock",
];

/// The kind a path suggests; `None` for one to sniff.
fn kind_by_name(path: &Path) -> Option<Result<Kind, Skipped>> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    if matches!(
        name.as_str(),
        "makefile" | "dockerfile" | "justfile" | "cmakelists.txt"
    ) {
        return Some(Ok(Kind::Code));
    }
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    let ext = ext.as_str();
    Some(if MARKDOWN.contains(&ext) {
        Ok(Kind::Markdown)
    } else if HTML.contains(&ext) {
        Ok(Kind::Html)
    } else if TEXT.contains(&ext) {
        Ok(Kind::Text)
    } else if CODE.contains(&ext) {
        Ok(Kind::Code)
    } else if ext == "pdf" {
        Ok(Kind::Pdf)
    } else if ext == "docx" {
        Ok(Kind::Docx)
    } else if matches!(ext, "odt" | "ods" | "odp") {
        Ok(Kind::OpenDocument)
    } else if matches!(ext, "xlsx" | "xlsm" | "xltx" | "xltm" | "xls") {
        Ok(Kind::Spreadsheet)
    } else if NEVER.contains(&ext) {
        Err(Skipped::Binary)
    } else {
        return None;
    })
}

/// Whether a file is worth opening at all, from its name alone: `false`
/// for pictures, archives, binaries.
pub(crate) fn worth_reading(path: &Path) -> bool {
    !matches!(kind_by_name(path), Some(Err(_)))
}

/// Whether the bytes look like text: no NUL and valid UTF-8 in the first
/// [`SNIFF_BYTES`] (a multi-byte character cut at the end is allowed).
fn looks_like_text(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
    if head.contains(&0) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && head.len() == SNIFF_BYTES,
    }
}

/// The text of the file at `path` whose bytes are `bytes`.
pub fn extract(path: &Path, bytes: &[u8]) -> Result<Extracted, Skipped> {
    let named = kind_by_name(path);
    // A PDF has the store's own, larger limit.
    if bytes.len() as u64 > MAX_FILE_BYTES && named != Some(Ok(Kind::Pdf)) {
        return Err(Skipped::TooLarge);
    }
    let kind = match named {
        // Named as a workbook and not one: many programs export a web page
        // or tab-separated text as `.xls`, to be read as what it is.
        Some(Ok(Kind::Spreadsheet)) if !hearth_store::is_workbook(bytes) => {
            if !looks_like_text(bytes) {
                return Err(Skipped::Binary);
            }
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(SNIFF_BYTES)]);
            let head = head.to_ascii_lowercase();
            if head.contains("<html") || head.contains("<table") {
                Kind::Html
            } else {
                Kind::Text
            }
        }
        Some(known) => known?,
        None if looks_like_text(bytes) => Kind::Text,
        None => return Err(Skipped::Binary),
    };
    let extracted = match kind {
        Kind::Pdf => {
            let text = hearth_store::pdf_text(bytes).map_err(Skipped::Unreadable)?;
            Extracted {
                source: kind,
                kind: Kind::Text,
                text,
            }
        }
        Kind::Docx => Extracted {
            source: kind,
            kind: Kind::Markdown,
            text: crate::docx::docx_text(bytes).map_err(Skipped::Unreadable)?,
        },
        Kind::OpenDocument => Extracted {
            source: kind,
            kind: Kind::Markdown,
            text: crate::odf::odf_text(bytes).map_err(Skipped::Unreadable)?,
        },
        Kind::Spreadsheet => Extracted {
            source: kind,
            kind: Kind::Markdown,
            text: hearth_store::sheet_text(bytes).map_err(Skipped::Unreadable)?,
        },
        Kind::Html => {
            let html = String::from_utf8_lossy(bytes);
            let doc = dom_query::Document::from(html.as_ref());
            Extracted {
                source: kind,
                kind: Kind::Markdown,
                text: doc
                    .md(Some(&[
                        "script", "style", "meta", "head", "noscript", "template", "svg",
                    ]))
                    .to_string(),
            }
        }
        _ => {
            if !looks_like_text(bytes) {
                return Err(Skipped::Binary);
            }
            Extracted {
                source: kind,
                kind,
                text: String::from_utf8_lossy(bytes).into_owned(),
            }
        }
    };
    if extracted.text.trim().is_empty() {
        return Err(Skipped::Empty);
    }
    Ok(extracted)
}
