//! Folders Hearth knows (docs/knowledge.md).
//!
//! The user names folders; [`Index::sync`] walks each (its `.gitignore`
//! and hidden files respected), reads the text of every file it can
//! ([`extract`]: Markdown, plain text, source code, HTML, PDF through the
//! store's bounded reader), splits it on its structure ([`chunk`]) and
//! keeps the passages in a database of their own, beside an FTS5 index of
//! the same passages. [`Index::embed_pending`] then gives each passage its
//! vector from the host's embedding model. [`Index::search`] finds
//! passages by words (BM25), by meaning (the vectors) and by both, fused by
//! reciprocal rank; [`SearchKnowledge`] is the agent's read-only tool.
//!
//! The index is derived data: a database of its own (`knowledge.db`, next
//! to the sessions'), so that it can be rebuilt, grow large, or fill a disk
//! without touching a conversation. Every step is resumable: a file's
//! passages replace its old ones in one transaction, and a passage without
//! a vector is simply embedded at the next pass.

mod chunk;
mod citations;
mod docx;
mod embed;
mod embedding_pass;
mod error;
mod extract;
mod fuse;
mod index;
mod odf;
mod office;
mod query;
mod schema;
mod scope;
mod sync;
mod tool;
mod vectors;
mod watch;

pub use chunk::{Chunk, MAX_CHUNK_CHARS, split};
pub use citations::{Citations, Quote, Source, check as check_citations, passages};
pub use embed::{EmbedReport, Embedder};
pub use error::KnowledgeError;
pub use extract::{Extracted, Kind, MAX_FILE_BYTES, Skipped, extract};
pub use fuse::{Fusion, Mode, RRF_K};
pub use index::{Folder, FolderStatus, Hit, Index};
pub use query::WORD_BUDGET;
pub use scope::Passage;
pub use sync::{Progress, SyncReport};
pub use tool::{ProjectOf, SearchKnowledge, numbered};
pub use watch::{FolderWatch, MAX_DELAY, Unwatched};
