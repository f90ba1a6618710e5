//! `load_skill`: the one tool through which the model sees the user's
//! skills. Its description lists the skills a profile offers (name and
//! description, sorted, so the tool list stays byte-stable across calls:
//! docs/design.md §5); a call returns a skill's instructions, or one file
//! beside them, read beneath the skill's folder by the kernel like the
//! workspace's files (`confine`). It only reads: it never asks.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use hearth_core::{Tool, ToolContext, ToolError, ToolSpec};
use serde_json::{Value, json};

use super::catalog::{Catalog, SKILL_FILE, Skill};
use crate::confine::Workspace;
use crate::files::str_arg;
use crate::output::{MAX_OUTPUT_CHARS, cap};

/// The tool's name.
pub const LOAD_SKILL: &str = "load_skill";

/// Above this many characters of listing, each description is cut (every
/// request carries the list; a small model's window is small).
const LISTING_BUDGET: usize = 6_000;
/// What a description is cut to when the listing is over its budget.
const SHORT_DESCRIPTION: usize = 160;
/// Most files a loaded skill lists.
const MAX_LISTED_FILES: usize = 50;
/// How deep into a skill's folder its files are listed.
const MAX_DEPTH: usize = 3;

/// `load_skill` over the skills one offer enables.
pub struct LoadSkill {
    catalog: Arc<Catalog>,
    /// The enabled skills' names, sorted.
    names: Vec<String>,
}

impl LoadSkill {
    /// The tool for the skills of `catalog` that `enabled` keeps; `None`
    /// when it keeps none (then no tool is offered at all).
    pub fn new(catalog: Arc<Catalog>, enabled: impl Fn(&str) -> bool) -> Option<Self> {
        let names: Vec<String> = catalog
            .skills
            .keys()
            .filter(|n| enabled(n))
            .cloned()
            .collect();
        (!names.is_empty()).then_some(Self { catalog, names })
    }

    fn skill(&self, name: &str) -> Option<&Skill> {
        self.names
            .iter()
            .any(|n| n == name)
            .then(|| self.catalog.skills.get(name))
            .flatten()
    }

    fn listing(&self) -> String {
        let full: Vec<String> = self
            .names
            .iter()
            .filter_map(|n| self.catalog.skills.get(n))
            .map(|s| format!("- {}: {}", s.name, s.description))
            .collect();
        if full.iter().map(String::len).sum::<usize>() <= LISTING_BUDGET {
            return full.join("\n");
        }
        self.names
            .iter()
            .filter_map(|n| self.catalog.skills.get(n))
            .map(|s| {
                let mut d: String = s.description.chars().take(SHORT_DESCRIPTION).collect();
                if d.len() < s.description.len() {
                    d.push('…');
                }
                format!("- {}: {d}", s.name)
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The files of a skill's folder other than `SKILL.md`, relative, sorted;
/// hidden ones and links are passed over. The second value says whether
/// more were left out.
fn files_of(folder: &Path) -> (Vec<String>, bool) {
    fn walk(root: &Path, dir: &Path, depth: usize, out: &mut Vec<String>, more: &mut bool) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() && depth < MAX_DEPTH {
                walk(root, &path, depth + 1, out, more);
            } else if kind.is_file() {
                let Ok(rel) = path.strip_prefix(root) else {
                    continue;
                };
                if rel == Path::new(SKILL_FILE) {
                    continue;
                }
                if out.len() == MAX_LISTED_FILES {
                    *more = true;
                    return;
                }
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    let (mut out, mut more) = (Vec::new(), false);
    walk(folder, folder, 1, &mut out, &mut more);
    (out, more)
}

/// What loading `skill` gives the model: its instructions, where it lives
/// (a script it names is run from there), and the files beside it.
pub fn loaded(skill: &Skill) -> String {
    let mut out = format!(
        "<skill name=\"{}\" folder=\"{}\">\n{}\n</skill>",
        skill.name,
        skill.folder.display(),
        skill.body
    );
    let (files, more) = files_of(&skill.folder);
    if !files.is_empty() {
        out.push_str(&format!(
            "\nFiles in this skill (read one with {LOAD_SKILL} and `file`): {}{}",
            files.join(", "),
            if more { ", …" } else { "" }
        ));
    }
    cap(
        out,
        MAX_OUTPUT_CHARS,
        LOAD_SKILL,
        "the rest of SKILL.md is not shown",
    )
}

/// One file beside a skill's instructions, read beneath its folder.
fn read_beside(skill: &Skill, file: &str) -> Result<String, ToolError> {
    let folder = Workspace::open_at(skill.folder.clone(), "skill folder")?;
    let bytes = folder.read(file)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        ToolError::Failed(format!(
            "`{file}` is not text ({} bytes); only text files of a skill can be read",
            e.as_bytes().len()
        ))
    })?;
    Ok(cap(
        text,
        MAX_OUTPUT_CHARS,
        LOAD_SKILL,
        "the rest of the file is not shown",
    ))
}

#[async_trait]
impl Tool for LoadSkill {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: LOAD_SKILL.into(),
            description: format!(
                "Loads a skill: the user's own instructions for one kind of task. When a task \
                 fits a skill below, load it first and follow it. With `file`, reads a file the \
                 skill's instructions mention (a path inside the skill's folder).\n\nSkills:\n{}",
                self.listing()
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "enum": self.names, "description": "The skill's name"},
                    "file": {"type": "string", "description": "A file inside the skill's folder, e.g. reference.md (leave out to get the skill's instructions)"}
                },
                "required": ["name"]
            }),
        }
    }

    fn reach(&self, arguments: &Value, _ctx: &ToolContext) -> String {
        let name = arguments.get("name").and_then(Value::as_str).unwrap_or("?");
        format!("reads the skill {name:?}")
    }

    async fn call(&self, arguments: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        let name = str_arg(&arguments, "name")?;
        let skill = self.skill(name).ok_or_else(|| {
            ToolError::InvalidArguments(format!(
                "no skill named {name:?} is offered; the skills are: {}",
                self.names.join(", ")
            ))
        })?;
        let file = arguments
            .get("file")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(str::to_owned);
        let skill = skill.clone();
        tokio::task::spawn_blocking(move || match file {
            None => Ok(loaded(&skill)),
            Some(file) => read_beside(&skill, &file),
        })
        .await
        .map_err(|e| ToolError::Failed(format!("reading the skill failed: {e}")))?
    }
}
