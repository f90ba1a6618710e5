//! search_files: a regular expression over the workspace's text files,
//! honouring .gitignore files, walking only through directory handles
//! opened beneath the workspace (symlinks are not followed).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use cap_std::fs::{Dir, MetadataExt};
use hearth_core::{Tool, ToolContext, ToolError, ToolSpec};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use regex::RegexBuilder;
use serde_json::{Value, json};

use crate::confine::Workspace;
use crate::files::{blocking, str_arg};
use crate::output::{MAX_OUTPUT_CHARS, cap};

/// Most matching lines reported.
const MAX_MATCHES: usize = 200;
/// Files larger than this are skipped.
const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;
/// Most files looked at, and for how long.
const MAX_FILES: usize = 50_000;
const BUDGET: Duration = Duration::from_secs(10);

/// Searches file contents by regular expression.
pub struct SearchFiles;

/// The .gitignore rules in force in one folder: each with the folder
/// (relative to the workspace) it came from.
type Rules = Vec<(PathBuf, Gitignore)>;

fn ignored(rules: &Rules, rel: &Path, is_dir: bool) -> bool {
    for (base, gi) in rules.iter().rev() {
        let Ok(under) = rel.strip_prefix(base) else {
            continue;
        };
        let m = gi.matched(under, is_dir);
        if m.is_ignore() {
            return true;
        }
        if m.is_whitelist() {
            return false;
        }
    }
    false
}

/// The most of a `.gitignore` that is read: a real one is a few KB; a huge
/// or sparse one is cut, not read into memory whole.
const MAX_GITIGNORE_BYTES: u64 = 1 << 20;

fn rules_in(dir: &Dir, base: &Path) -> Option<(PathBuf, Gitignore)> {
    use std::io::Read;
    // Opened without blocking and taken only when it is a regular file: a
    // FIFO named .gitignore (left by an earlier command or a tarball) held
    // the search, and a thread of the app's pool, forever.
    let file = crate::confine::open_for_reading(dir, Path::new(".gitignore")).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_GITIGNORE_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut b = GitignoreBuilder::new("");
    for line in text.lines() {
        let _ = b.add_line(None, line);
    }
    b.build().ok().map(|gi| (base.to_path_buf(), gi))
}

struct Search {
    re: regex::Regex,
    hits: Vec<String>,
    files: usize,
    deadline: Instant,
    truncated: bool,
}

impl Search {
    fn walk(&mut self, dir: &Dir, rel: &Path, mut rules: Rules) {
        if let Some(r) = rules_in(dir, rel) {
            rules.push(r);
        }
        let Ok(entries) = dir.entries() else {
            return;
        };
        let mut names: Vec<(String, bool, bool)> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let t = e.file_type().ok()?;
                Some((
                    e.file_name().to_string_lossy().into_owned(),
                    t.is_dir(),
                    t.is_file(),
                ))
            })
            .collect();
        names.sort();
        for (name, is_dir, is_file) in names {
            if self.truncated || Instant::now() > self.deadline || self.files >= MAX_FILES {
                self.truncated = true;
                return;
            }
            if name == ".git" {
                continue;
            }
            let path = rel.join(&name);
            if ignored(&rules, &path, is_dir) {
                continue;
            }
            if is_dir {
                if let Ok(sub) = dir.open_dir(&name) {
                    self.walk(&sub, &path, rules.clone());
                }
            } else if is_file {
                self.files += 1;
                self.file(dir, &name, &path);
            }
        }
    }

    fn file(&mut self, dir: &Dir, name: &str, path: &Path) {
        // One handle, checked and read: a hard-linked file (which may come
        // from outside the workspace) is skipped as read_file refuses it.
        // Never blocks on a FIFO (see open_for_reading); it is skipped below.
        let Ok(mut file) = crate::confine::open_for_reading(dir, Path::new(name)) else {
            return;
        };
        let Ok(meta) = file.metadata() else { return };
        if !meta.is_file() || meta.nlink() > 1 || meta.len() > MAX_FILE_BYTES {
            return;
        }
        let mut bytes = Vec::new();
        if std::io::Read::read_to_end(&mut file, &mut bytes).is_err() {
            return;
        }
        if bytes.iter().take(8192).any(|b| *b == 0) {
            return;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (i, line) in text.lines().enumerate() {
            if self.re.is_match(line) {
                if self.hits.len() >= MAX_MATCHES {
                    self.truncated = true;
                    return;
                }
                let line: String = line.chars().take(300).collect();
                self.hits
                    .push(format!("{}:{}: {}", path.display(), i + 1, line.trim_end()));
            }
        }
    }
}

#[async_trait]
impl Tool for SearchFiles {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "search_files".into(),
            description: "Search the workspace's text files for a regular expression (files in .gitignore are skipped). Returns path:line: text.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "regular expression (Rust syntax)"},
                    "path": {"type": "string", "description": "folder to search, relative to the workspace", "default": "."},
                    "case_insensitive": {"type": "boolean", "default": false}
                },
                "required": ["pattern"]
            }),
        }
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let pattern = str_arg(&args, "pattern")?.to_owned();
        let path = args
            .get("path")
            .and_then(Value::as_str)
            .unwrap_or(".")
            .to_owned();
        let insensitive = args
            .get("case_insensitive")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let re = RegexBuilder::new(&pattern)
            .case_insensitive(insensitive)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| ToolError::InvalidArguments(format!("bad regular expression: {e}")))?;
        let ws = Workspace::open(ctx)?;
        let out = blocking("searching", move || {
            let rel = ws.relative(&path)?;
            let start = if rel.as_os_str() == "." {
                ws.dir().try_clone().map_err(|e| ws.io(&path, &e))?
            } else {
                ws.dir().open_dir(&rel).map_err(|e| ws.io(&path, &e))?
            };
            // Rules of the folders above the start still apply.
            let mut rules = Rules::new();
            let mut base = PathBuf::new();
            for c in rel.components().filter(|c| c.as_os_str() != ".") {
                if let Ok(d) = if base.as_os_str().is_empty() {
                    ws.dir().try_clone()
                } else {
                    ws.dir().open_dir(&base)
                } && let Some(r) = rules_in(&d, &base)
                {
                    rules.push(r);
                }
                base.push(c);
            }
            let mut s = Search {
                re,
                hits: Vec::new(),
                files: 0,
                deadline: Instant::now() + BUDGET,
                truncated: false,
            };
            let start_rel = if rel.as_os_str() == "." { PathBuf::new() } else { rel };
            s.walk(&start, &start_rel, rules);
            let mut out = if s.hits.is_empty() {
                format!("no matches in {} files", s.files)
            } else {
                s.hits.join("\n")
            };
            if s.truncated {
                out.push_str(&format!(
                    "\n[search stopped early after {} matches in {} files; narrow the pattern or the path]",
                    s.hits.len(),
                    s.files
                ));
            }
            Ok(out)
        })
        .await?;
        Ok(cap(
            out,
            MAX_OUTPUT_CHARS,
            "search_files",
            "narrow the pattern or the path",
        ))
    }
}
