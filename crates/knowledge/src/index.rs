//! The index: folders added and removed, what each holds, and search.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::{Connection, OptionalExtension, params};

use crate::embed::Embedder;
use crate::error::KnowledgeError;
use crate::fuse::{Fusion, Mode, fuse};
use crate::query::{self, WORD_BUDGET};
use crate::schema;
use crate::vectors::{Vectors, decode, dot};

/// How many passages each list gives the fusion: deep enough that a
/// passage one list ranks 40th can still rise on the other's vote.
const FUSION_DEPTH: usize = 50;

/// The knowledge index. Cheap to clone: clones share one connection.
#[derive(Clone)]
pub struct Index {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("path", &self.inner.path)
            .finish()
    }
}

struct Inner {
    conn: Mutex<Connection>,
    path: PathBuf,
    /// Bumped by every write that adds or drops a vector: a cached matrix
    /// of another generation is read again.
    generation: AtomicU64,
    /// Matches one word search may rank (crate::query::WORD_BUDGET).
    word_budget: AtomicU64,
    /// How the lists are fused (crate::fuse::Fusion).
    fusion: Mutex<Fusion>,
    vectors: Mutex<Option<Arc<Vectors>>>,
}

/// The result of a search's part on a blocking thread.
fn joined<T>(
    r: Result<Result<T, KnowledgeError>, tokio::task::JoinError>,
) -> Result<T, KnowledgeError> {
    r.map_err(|e| KnowledgeError::Worker(format!("the search failed ({e})")))?
}

/// A knowledge folder and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Folder {
    /// Its id in the index.
    pub id: i64,
    /// Its path (canonical).
    pub path: PathBuf,
    /// The project it belongs to (`None`: every chat's).
    pub project: Option<String>,
    /// Files seen in it.
    pub files: u64,
    /// Files with passages.
    pub indexed: u64,
    /// Files left out, each with its reason (`hearth knowledge files`).
    pub skipped: u64,
    /// Passages.
    pub chunks: u64,
    /// Passages with a vector.
    pub embedded: u64,
    /// Where its sync stands.
    pub status: FolderStatus,
    /// What went wrong, for [`FolderStatus::Missing`] and
    /// [`FolderStatus::Failed`].
    pub detail: Option<String>,
    /// When it was last synced whole (seconds since the epoch).
    pub synced_at: Option<i64>,
}

/// Where a folder's sync stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FolderStatus {
    /// Added, never synced.
    New,
    /// A sync is walking it (or was, when it was killed: the next sync
    /// goes on).
    Syncing,
    /// Synced whole.
    Ready,
    /// The folder is not there (an unplugged drive): its passages are
    /// kept, and found, until it is removed.
    Missing,
    /// The walk failed.
    Failed,
}

impl FolderStatus {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::New => "new",
            Self::Syncing => "syncing",
            Self::Ready => "ready",
            Self::Missing => "missing",
            Self::Failed => "failed",
        }
    }

    fn parse(s: &str) -> Self {
        match s {
            "syncing" => Self::Syncing,
            "ready" => Self::Ready,
            "missing" => Self::Missing,
            "failed" => Self::Failed,
            _ => Self::New,
        }
    }
}

/// A passage found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hit {
    /// The passage's id.
    pub chunk: i64,
    /// The file (absolute).
    pub path: PathBuf,
    /// The file inside its folder.
    pub rel_path: String,
    /// The headings above the passage.
    pub heading: Option<String>,
    /// Its first line.
    pub start_line: u32,
    /// Its last line.
    pub end_line: u32,
    /// Its text.
    pub text: String,
    /// The fused score (higher is better).
    pub score: f32,
    /// Its rank by words (1-based), if that list found it.
    pub word_rank: Option<usize>,
    /// Its rank by meaning, if that list found it.
    pub meaning_rank: Option<usize>,
}

impl Index {
    /// Opens (creating) the index at `path`.
    pub fn open(path: &Path) -> Result<Self, KnowledgeError> {
        let conn = schema::open(path)?;
        Ok(Self::with(conn, path.to_owned()))
    }

    fn with(conn: Connection, path: PathBuf) -> Self {
        Self {
            inner: Arc::new(Inner {
                conn: Mutex::new(conn),
                path,
                generation: AtomicU64::new(0),
                word_budget: AtomicU64::new(WORD_BUDGET),
                fusion: Mutex::new(Fusion::default()),
                vectors: Mutex::new(None),
            }),
        }
    }

    /// Sets how many matches one word search may rank before its
    /// commonest words are left out (the default suits a desktop index;
    /// tests and the benchmark set others to see the cut at a small scale).
    pub fn set_word_budget(&self, matches: u64) {
        self.inner.word_budget.store(matches, Ordering::Relaxed);
    }

    /// Sets how the two lists are fused (the benchmark measures others).
    pub fn set_fusion(&self, fusion: Fusion) {
        *self.inner.fusion.lock().unwrap_or_else(|p| p.into_inner()) = fusion;
    }

    /// Passage ids by BM25, best first, the query cut to the budget
    /// ([`Index::set_word_budget`]; crate::query::by_words).
    fn by_words(
        &self,
        query: &str,
        depth: usize,
        folders: Option<&[i64]>,
    ) -> Result<Vec<i64>, KnowledgeError> {
        let budget = self.inner.word_budget.load(Ordering::Relaxed);
        query::by_words(&self.conn(), query, depth, folders, budget)
    }

    /// Where the database is.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    pub(crate) fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic mid-statement leaves SQLite's own transaction to roll
        // back; the connection itself is still sound.
        self.inner
            .conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Marks a change of the vectors (a cached matrix is stale).
    pub(crate) fn vectors_changed(&self) {
        self.inner.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// Adds `path` (a folder) for `project` (`None`: every chat). Adding
    /// one already there changes nothing; one inside or around another is
    /// refused (its files would be found twice).
    pub fn add_folder(&self, path: &Path, project: Option<&str>) -> Result<Folder, KnowledgeError> {
        let bad = |detail: String| KnowledgeError::Folder {
            path: path.display().to_string(),
            detail,
        };
        let canon = path.canonicalize().map_err(|e| bad(e.to_string()))?;
        if !canon.is_dir() {
            return Err(bad("not a folder".into()));
        }
        for other in self.folders()? {
            if other.path == canon {
                return Ok(other);
            }
            if canon.starts_with(&other.path) || other.path.starts_with(&canon) {
                return Err(bad(format!(
                    "overlaps the knowledge folder {}; remove that one first",
                    other.path.display()
                )));
            }
        }
        let text = canon.to_string_lossy().into_owned();
        self.conn().execute(
            "INSERT INTO folders (path, project, added_at) VALUES (?1, ?2, ?3)",
            params![text, project, now()],
        )?;
        self.folder(&canon)?
            .ok_or_else(|| KnowledgeError::UnknownFolder(text))
    }

    /// Removes the folder at `path` with all its passages (the files
    /// themselves are not touched).
    pub fn remove_folder(&self, path: &Path) -> Result<Folder, KnowledgeError> {
        let folder = self.find_folder(path)?;
        self.conn()
            .execute("DELETE FROM folders WHERE id = ?1", [folder.id])?;
        self.vectors_changed();
        Ok(folder)
    }

    /// The folder at `path` (as given or canonical).
    pub fn find_folder(&self, path: &Path) -> Result<Folder, KnowledgeError> {
        let canon = path.canonicalize().unwrap_or_else(|_| path.to_owned());
        for p in [canon.as_path(), path] {
            if let Some(f) = self.folder(p)? {
                return Ok(f);
            }
        }
        Err(KnowledgeError::UnknownFolder(path.display().to_string()))
    }

    fn folder(&self, path: &Path) -> Result<Option<Folder>, KnowledgeError> {
        let text = path.to_string_lossy();
        Ok(self
            .folders()?
            .into_iter()
            .find(|f| f.path.to_string_lossy() == text))
    }

    /// Every folder, with its counts.
    pub fn folders(&self) -> Result<Vec<Folder>, KnowledgeError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT f.id, f.path, f.project, f.state, f.detail, f.synced_at,
                (SELECT count(*) FROM files WHERE folder_id = f.id),
                (SELECT count(*) FROM files WHERE folder_id = f.id AND chunks > 0),
                (SELECT count(*) FROM files WHERE folder_id = f.id AND skipped IS NOT NULL),
                (SELECT coalesce(sum(chunks), 0) FROM files WHERE folder_id = f.id),
                (SELECT count(*) FROM chunks c INDEXED BY chunks_unembedded
                   JOIN files x ON x.id = c.file_id
                   WHERE c.embedding IS NULL AND x.folder_id = f.id),
                (SELECT count(*) FROM chunks c INDEXED BY chunks_given_up
                   JOIN files x ON x.id = c.file_id
                   WHERE length(c.embedding) = 0 AND x.folder_id = f.id)
             FROM folders f ORDER BY f.path",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(Folder {
                id: r.get(0)?,
                path: PathBuf::from(r.get::<_, String>(1)?),
                project: r.get(2)?,
                status: FolderStatus::parse(&r.get::<_, String>(3)?),
                detail: r.get(4)?,
                synced_at: r.get(5)?,
                files: r.get(6)?,
                indexed: r.get(7)?,
                skipped: r.get(8)?,
                chunks: r.get(9)?,
                // Every passage but those waiting for a vector and those
                // given up on: two small indexes, not every row.
                embedded: r
                    .get::<_, u64>(9)?
                    .saturating_sub(r.get::<_, u64>(10)?)
                    .saturating_sub(r.get::<_, u64>(11)?),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The index's own file.
    pub fn file(&self) -> &Path {
        &self.inner.path
    }

    /// Every folder's path, project and state, without the counts
    /// [`Index::folders`] walks every passage for: what a list of projects
    /// or the watch needs, read as often as the sidebar is.
    pub fn folder_places(
        &self,
    ) -> Result<Vec<(PathBuf, Option<String>, FolderStatus)>, KnowledgeError> {
        let conn = self.conn();
        let mut stmt =
            conn.prepare_cached("SELECT path, project, state FROM folders ORDER BY path")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                PathBuf::from(r.get::<_, String>(0)?),
                r.get(1)?,
                FolderStatus::parse(&r.get::<_, String>(2)?),
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether any folder is in the index (one cheap query: asked before
    /// every model call that could offer the search).
    pub fn has_folders(&self) -> Result<bool, KnowledgeError> {
        Ok(self
            .conn()
            .query_row("SELECT EXISTS (SELECT 1 FROM folders)", [], |r| r.get(0))?)
    }

    /// The files left out of `folder`, with why (at most `limit`).
    pub fn skipped_files(
        &self,
        folder: &Folder,
        limit: usize,
    ) -> Result<Vec<(String, String)>, KnowledgeError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT rel_path, skipped FROM files WHERE folder_id = ?1 AND skipped IS NOT NULL
             ORDER BY rel_path LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![folder.id, limit as i64], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A value of `meta`.
    pub(crate) fn meta(&self, key: &str) -> Result<Option<String>, KnowledgeError> {
        Ok(self
            .conn()
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()?)
    }

    pub(crate) fn set_meta(&self, key: &str, value: &str) -> Result<(), KnowledgeError> {
        self.conn().execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [key, value],
        )?;
        Ok(())
    }

    /// The embedding model the user chose, if any.
    pub fn model(&self) -> Result<Option<String>, KnowledgeError> {
        self.meta("model")
    }

    /// Chooses the embedding model. The vectors of another model stay until
    /// the next embedding pass replaces them (and says so).
    pub fn set_model(&self, model: &str) -> Result<(), KnowledgeError> {
        self.set_meta("model", model)
    }

    /// No embedding model: search by words only (the vectors stay until
    /// another model replaces them).
    pub fn clear_model(&self) -> Result<(), KnowledgeError> {
        self.conn()
            .execute("DELETE FROM meta WHERE key = 'model'", [])?;
        Ok(())
    }

    /// The model and dimension the vectors held were made with.
    pub fn vectors_model(&self) -> Result<Option<(String, usize)>, KnowledgeError> {
        let model = self.meta("vectors_model")?;
        let dims = self.meta("dims")?.and_then(|d| d.parse().ok());
        Ok(model.zip(dims))
    }

    fn has_vectors_of(&self, e: &Embedder) -> Result<bool, KnowledgeError> {
        Ok(self.vectors_model()?.is_some_and(|(m, _)| m == e.model()))
    }

    /// Passages found for `query`, best first, at most `limit`. `folders`
    /// narrows the search (`None`: all). Search by meaning needs
    /// `embedder` and the vectors of its model; without them, or with a
    /// server that fails the query, a hybrid search is a search by words.
    pub async fn search(
        &self,
        embedder: Option<&Embedder>,
        query: &str,
        limit: usize,
        mode: Mode,
        folders: Option<&[i64]>,
    ) -> Result<Vec<Hit>, KnowledgeError> {
        let depth = FUSION_DEPTH.max(limit);
        let folders = folders.map(<[i64]>::to_vec);
        let embed_with = match (mode, embedder) {
            (Mode::Words, _) => None,
            (_, Some(e)) if self.has_vectors_of(e)? => Some(e),
            (Mode::Meaning, Some(_)) => return Ok(Vec::new()),
            (Mode::Meaning, None) => return Err(KnowledgeError::NoModel),
            (Mode::Hybrid, _) => None,
        };
        // The word search runs while the query is embedded: a model server
        // takes about as long to embed one query as the search takes.
        let words = (mode != Mode::Meaning).then(|| {
            let (this, query, folders) = (self.clone(), query.to_owned(), folders.clone());
            tokio::task::spawn_blocking(move || this.by_words(&query, depth, folders.as_deref()))
        });
        let vector = match embed_with {
            None => None,
            Some(e) if mode == Mode::Meaning => Some(e.embed_query(query).await?),
            // The server for meaning is down or refuses the query: words
            // still find.
            Some(e) => match e.embed_query(query).await {
                Ok(v) => Some(v),
                Err(err) => {
                    tracing::warn!("searching by words only: {err}");
                    None
                }
            },
        };
        // The scan of the vectors needs the connection only to rank its
        // candidates again, so it runs beside the word search too.
        let meaning = vector.map(|v| {
            let (this, folders) = (self.clone(), folders.clone());
            tokio::task::spawn_blocking(move || this.by_meaning(&v, depth, folders.as_deref()))
        });
        let words = match words {
            Some(task) => joined(task.await)?,
            None => Vec::new(),
        };
        let meaning = match meaning {
            Some(task) => joined(task.await)?,
            None => Vec::new(),
        };
        let this = self.clone();
        joined(tokio::task::spawn_blocking(move || this.fused(&words, &meaning, limit)).await)
    }

    /// The hits of the two lists fused, best first, at most `limit`.
    fn fused(
        &self,
        words: &[i64],
        meaning: &[i64],
        limit: usize,
    ) -> Result<Vec<Hit>, KnowledgeError> {
        let f = *self.inner.fusion.lock().unwrap_or_else(|p| p.into_inner());
        let fused = fuse(&[(words, 1.0), (meaning, f.meaning_weight)], f.k);
        let rank = |list: &[i64], id: i64| list.iter().position(|x| *x == id).map(|p| p + 1);
        let mut hits = Vec::new();
        for (id, score) in fused.into_iter().take(limit) {
            if let Some(mut hit) = self.hit(id)? {
                hit.score = score;
                hit.word_rank = rank(words, id);
                hit.meaning_rank = rank(meaning, id);
                hits.push(hit);
            }
        }
        Ok(hits)
    }

    /// Passage ids by cosine to `vector`, best first: candidates from the
    /// 8-bit scan (twice as many as needed), ranked again on their exact
    /// stored vectors.
    pub(crate) fn by_meaning(
        &self,
        vector: &[f32],
        depth: usize,
        folders: Option<&[i64]>,
    ) -> Result<Vec<i64>, KnowledgeError> {
        let vectors = self.vectors(vector.len())?;
        let fetch = if folders.is_some() { depth * 4 } else { depth };
        let candidates = vectors.nearest(vector, fetch * 2);
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT k.embedding, x.folder_id FROM chunks k JOIN files x ON x.id = k.file_id
             WHERE k.id = ?1",
        )?;
        let mut exact: Vec<(i64, f32)> = Vec::with_capacity(candidates.len());
        for (id, _) in candidates {
            let row: Option<(Vec<u8>, i64)> = stmt
                .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()?;
            let Some((blob, folder)) = row else { continue };
            if folders.is_some_and(|f| !f.contains(&folder)) || blob.len() != vector.len() * 4 {
                continue;
            }
            let v: Vec<f32> = decode(&blob).collect();
            exact.push((id, dot(&v, vector)));
        }
        exact.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(exact.into_iter().take(depth).map(|(id, _)| id).collect())
    }

    /// The matrix of vectors of length `dims`, read again when stale.
    fn vectors(&self, dims: usize) -> Result<Arc<Vectors>, KnowledgeError> {
        let generation = self.inner.generation.load(Ordering::SeqCst);
        let mut cached = self
            .inner
            .vectors
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(v) = cached.as_ref()
            && v.generation == generation
            && v.dims() == dims
        {
            return Ok(Arc::clone(v));
        }
        let loaded = Arc::new(Vectors::load(&self.conn(), dims, generation)?);
        *cached = Some(Arc::clone(&loaded));
        Ok(loaded)
    }

    /// The passage `id` with its file.
    pub fn hit(&self, id: i64) -> Result<Option<Hit>, KnowledgeError> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(
            "SELECT k.id, f.path, x.rel_path, k.heading, k.start_line, k.end_line, k.text
             FROM chunks k JOIN files x ON x.id = k.file_id JOIN folders f ON f.id = x.folder_id
             WHERE k.id = ?1",
        )?;
        Ok(stmt
            .query_row([id], |r| {
                let folder: String = r.get(1)?;
                let rel: String = r.get(2)?;
                Ok(Hit {
                    chunk: r.get(0)?,
                    path: Path::new(&folder).join(&rel),
                    rel_path: rel,
                    heading: r.get(3)?,
                    start_line: r.get(4)?,
                    end_line: r.get(5)?,
                    text: r.get(6)?,
                    score: 0.0,
                    word_rank: None,
                    meaning_rank: None,
                })
            })
            .optional()?)
    }
}

/// Seconds since the epoch.
pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}
