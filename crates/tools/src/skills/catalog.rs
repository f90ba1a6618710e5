//! The skills folder read into a catalog: each sub-folder with a
//! `SKILL.md` (YAML front matter, then Markdown instructions) checked
//! against the Agent Skills format, and every folder that does not pass
//! kept as a problem with its reason, for the Tools panel and
//! `hearth skills list`. Reading is plain file I/O; parsing and checking
//! are pure ([`parse`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// Largest `SKILL.md` read. The format asks for a few thousand tokens; a
/// file of megabytes is a mistake, not a skill.
pub const MAX_SKILL_BYTES: u64 = 256 * 1024;

/// Most skills offered at once: each costs its description in every
/// request's tool list.
pub const MAX_SKILLS: usize = 100;

/// Longest name and description the format allows.
const MAX_NAME: usize = 64;
const MAX_DESCRIPTION: usize = 1024;

/// One skill that passed the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Its name (the folder's name too).
    pub name: String,
    /// What it does and when to use it, on one line.
    pub description: String,
    /// The instructions: `SKILL.md` after the front matter.
    pub body: String,
    /// Its folder.
    pub folder: PathBuf,
    /// Its licence, when it names one.
    pub license: Option<String>,
    /// What it needs of the machine, when it says.
    pub compatibility: Option<String>,
}

/// A folder that is not offered, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The folder (or file) concerned.
    pub path: PathBuf,
    /// What is wrong, and what to do, in words.
    pub reason: String,
}

/// What the skills folder holds: the skills by name, and what could not
/// be used.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    /// The folder read.
    pub folder: PathBuf,
    /// Skills that passed, by name.
    pub skills: BTreeMap<String, Skill>,
    /// Folders that did not, in the order of their names.
    pub problems: Vec<Problem>,
}

/// The front matter fields of the format. Other fields (agents add their
/// own) are ignored.
#[derive(Debug, Deserialize)]
struct Front {
    name: Option<String>,
    description: Option<String>,
    license: Option<String>,
    compatibility: Option<String>,
}

/// Why a folder is not offered as a skill: what its `SKILL.md` must
/// change (or the folder must hold) to pass.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SkillError {
    /// The folder has no `SKILL.md`.
    #[error("no {SKILL_FILE} in this folder (a skill is a folder with a {SKILL_FILE})")]
    NoFile,
    /// `SKILL.md` cannot be read (the system's words).
    #[error("cannot read {SKILL_FILE}: {0}")]
    Unreadable(String),
    /// `SKILL.md` is a folder or a device.
    #[error("{SKILL_FILE} is not a regular file")]
    NotAFile,
    /// `SKILL.md` is longer than [`MAX_SKILL_BYTES`] (its size).
    #[error(
        "{SKILL_FILE} has {0} bytes, more than the {MAX_SKILL_BYTES} Hearth reads; move details into files beside it"
    )]
    TooBig(u64),
    /// `SKILL.md` is not UTF-8.
    #[error("{SKILL_FILE} is not UTF-8 text")]
    NotUtf8,
    /// No front matter.
    #[error(
        "SKILL.md must start with YAML front matter: a line `---`, `name:` and `description:`, then `---`"
    )]
    NoFrontMatter,
    /// Front matter without its closing line.
    #[error("the front matter of SKILL.md has no closing `---` line")]
    Unclosed,
    /// Front matter that is not YAML (the parser's words, on one line).
    #[error("the front matter is not valid YAML: {0}")]
    Yaml(String),
    /// No `name`.
    #[error("the front matter has no `name`")]
    NoName,
    /// A name against the format's rule ([`bad_name`]).
    #[error("the name {name:?} does not fit the format: {why}")]
    BadName {
        /// The name.
        name: String,
        /// The rule it breaks.
        why: &'static str,
    },
    /// A name that is not the folder's.
    #[error("the name {name:?} is not the folder's name {folder:?}; rename one so they match")]
    NotTheFolder {
        /// The name.
        name: String,
        /// The folder's name.
        folder: String,
    },
    /// No `description`, or an empty one.
    #[error("the front matter has no `description` (what the skill does and when to use it)")]
    NoDescription,
    /// A description longer than the format allows (its length).
    #[error(
        "the description has {0} characters, more than the {MAX_DESCRIPTION} the format allows"
    )]
    LongDescription(usize),
    /// Control or invisible characters in the name or description.
    #[error(
        "the description holds control or invisible characters, which would show the model something you cannot see"
    )]
    Hidden,
    /// Nothing after the front matter.
    #[error("SKILL.md has no instructions after its front matter")]
    NoBody,
}

/// Why a name breaks the format's rule, if it does: 1 to 64 lowercase
/// letters, digits and hyphens, no hyphen first, last or twice in a row.
pub fn bad_name(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Some("a name has 1 to 64 characters");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Some("a name has only lowercase letters, digits and hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Some("a name does not start or end with a hyphen, nor hold two in a row");
    }
    None
}

/// Splits `SKILL.md` into its front matter and its body.
fn split(text: &str) -> Result<(&str, &str), SkillError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or(SkillError::NoFrontMatter)?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Ok((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(SkillError::Unclosed)
}

/// Folds white space (a YAML block scalar's line breaks included) into
/// single spaces: the description is shown on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Checks the text of `SKILL.md` found in the folder `folder` (whose last
/// component is the name the skill must have).
pub fn parse(folder: &Path, text: &str) -> Result<Skill, SkillError> {
    let dir_name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (front, body) = split(text)?;
    let front: Front =
        serde_saphyr::from_str(front).map_err(|e| SkillError::Yaml(one_line(&e.to_string())))?;
    let name = front
        .name
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .ok_or(SkillError::NoName)?;
    if let Some(why) = bad_name(&name) {
        return Err(SkillError::BadName { name, why });
    }
    if name != dir_name {
        return Err(SkillError::NotTheFolder {
            name,
            folder: dir_name,
        });
    }
    let description = one_line(front.description.as_deref().unwrap_or(""));
    if description.is_empty() {
        return Err(SkillError::NoDescription);
    }
    let length = description.chars().count();
    if length > MAX_DESCRIPTION {
        return Err(SkillError::LongDescription(length));
    }
    if description
        .chars()
        .chain(name.chars())
        .any(|c| hearth_core::visible::is_deceptive(c, false))
    {
        return Err(SkillError::Hidden);
    }
    let body = body.trim();
    if body.is_empty() {
        return Err(SkillError::NoBody);
    }
    Ok(Skill {
        name,
        description,
        body: body.to_owned(),
        folder: folder.to_path_buf(),
        license: front
            .license
            .map(|l| one_line(&l))
            .filter(|l| !l.is_empty()),
        compatibility: front
            .compatibility
            .map(|c| one_line(&c))
            .filter(|c| !c.is_empty()),
    })
}

/// Reads one skill folder.
fn read_skill(folder: &Path) -> Result<Skill, SkillError> {
    let file = folder.join(SKILL_FILE);
    let meta = std::fs::metadata(&file).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => SkillError::NoFile,
        _ => SkillError::Unreadable(e.to_string()),
    })?;
    if !meta.is_file() {
        return Err(SkillError::NotAFile);
    }
    if meta.len() > MAX_SKILL_BYTES {
        return Err(SkillError::TooBig(meta.len()));
    }
    let bytes = std::fs::read(&file).map_err(|e| SkillError::Unreadable(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|_| SkillError::NotUtf8)?;
    parse(folder, &text)
}

/// Where a linked skill folder really is, when that lies inside one of
/// `workspaces` (security review N15): there the model can rewrite its
/// `SKILL.md` with the file tools or a command (the sandbox keeps the
/// skills folder read-only, not where a link in it points), and the
/// description goes into every request as a standing instruction.
fn linked_in_from_a_workspace(folder: &Path, workspaces: &[PathBuf]) -> Option<String> {
    let linked = folder
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink());
    if !linked {
        return None;
    }
    let real = std::fs::canonicalize(folder).ok()?;
    let ws = workspaces
        .iter()
        .map(|w| std::fs::canonicalize(w).unwrap_or_else(|_| w.clone()))
        .find(|w| real.starts_with(w))?;
    Some(format!(
        "not offered: it is linked in from {}, inside the workspace {}, where the model could rewrite it; copy it into the skills folder, or keep it in a folder no profile works in",
        real.display(),
        ws.display()
    ))
}

/// Reads the skills folder. A folder that does not exist yet holds no
/// skills (it is not an error: the user has not added any). A skill linked
/// in from inside one of `workspaces` (the profiles') is not offered.
pub fn scan(folder: &Path, workspaces: &[PathBuf]) -> Catalog {
    let mut catalog = Catalog {
        folder: folder.to_path_buf(),
        ..Catalog::default()
    };
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return catalog,
        Err(e) => {
            catalog.problems.push(Problem {
                path: folder.to_path_buf(),
                reason: format!("cannot read the skills folder: {e}"),
            });
            return catalog;
        }
    };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        // A linked folder counts: people keep skills in a repository of
        // their own and link them in.
        .filter(|e| e.path().is_dir())
        .map(|e| e.path())
        .collect();
    folders.sort();
    for folder in folders {
        if let Some(reason) = linked_in_from_a_workspace(&folder, workspaces) {
            catalog.problems.push(Problem {
                path: folder,
                reason,
            });
            continue;
        }
        match read_skill(&folder) {
            Ok(skill) if catalog.skills.len() >= MAX_SKILLS => catalog.problems.push(Problem {
                path: folder,
                reason: format!(
                    "not offered: Hearth offers at most {MAX_SKILLS} skills ({:?} is one more)",
                    skill.name
                ),
            }),
            Ok(skill) => {
                catalog.skills.insert(skill.name.clone(), skill);
            }
            Err(reason) => catalog.problems.push(Problem {
                path: folder,
                reason: reason.to_string(),
            }),
        }
    }
    catalog
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(name: &str) -> PathBuf {
        PathBuf::from("/skills").join(name)
    }

    #[test]
    fn a_plain_skill_is_read_with_its_optional_fields() {
        let text = "---\nname: pdf-forms\ndescription: Fill PDF forms. Use when the user sends a form.\nlicense: Apache-2.0\nmetadata:\n  author: me\nallowed-tools: Bash(python3:*)\nversion: 2\n---\n\n# Filling forms\n\nRun scripts/fill.py.\n";
        let skill = parse(&at("pdf-forms"), text).unwrap();
        assert_eq!(skill.name, "pdf-forms");
        assert_eq!(
            skill.description,
            "Fill PDF forms. Use when the user sends a form."
        );
        assert_eq!(skill.body, "# Filling forms\n\nRun scripts/fill.py.");
        assert_eq!(skill.license.as_deref(), Some("Apache-2.0"));
        assert_eq!(skill.folder, at("pdf-forms"));
    }

    #[test]
    fn a_folded_or_literal_description_is_one_line() {
        let folded = "---\nname: commits\ndescription: >\n  Writes commit messages.\n  Use when committing.\n---\nBody\n";
        assert_eq!(
            parse(&at("commits"), folded).unwrap().description,
            "Writes commit messages. Use when committing."
        );
        let literal =
            "---\r\nname: commits\r\ndescription: |\r\n  Line one\r\n  line two\r\n---\r\nBody\r\n";
        assert_eq!(
            parse(&at("commits"), literal).unwrap().description,
            "Line one line two"
        );
    }

    #[test]
    fn each_broken_rule_is_named() {
        let cases = [
            (
                "no front matter",
                "# Just markdown\n",
                "must start with YAML front matter",
            ),
            (
                "unclosed",
                "---\nname: x\ndescription: y\n",
                "no closing `---`",
            ),
            (
                "bad yaml",
                "---\nname: [x\ndescription: y\n---\nB\n",
                "not valid YAML",
            ),
            ("no name", "---\ndescription: y\n---\nB\n", "no `name`"),
            (
                "no description",
                "---\nname: ok\n---\nB\n",
                "no `description`",
            ),
            (
                "empty description",
                "---\nname: ok\ndescription: \"  \"\n---\nB\n",
                "no `description`",
            ),
            (
                "capitals",
                "---\nname: PDF\ndescription: y\n---\nB\n",
                "lowercase letters",
            ),
            (
                "double hyphen",
                "---\nname: a--b\ndescription: y\n---\nB\n",
                "two in a row",
            ),
            (
                "leading hyphen",
                "---\nname: -a\ndescription: y\n---\nB\n",
                "start or end",
            ),
            (
                "no body",
                "---\nname: ok\ndescription: y\n---\n\n",
                "no instructions",
            ),
            (
                "hidden text",
                "---\nname: ok\ndescription: \"fine\\u202Eevil\"\n---\nB\n",
                "invisible",
            ),
        ];
        for (what, text, expected) in cases {
            let folder = if what == "capitals" {
                at("PDF")
            } else {
                at("ok")
            };
            let err = parse(&folder, text).expect_err(what).to_string();
            assert!(err.contains(expected), "{what}: {err}");
        }
        let long = format!("---\nname: ok\ndescription: {}\n---\nB\n", "w ".repeat(600));
        let err = parse(&at("ok"), &long).unwrap_err();
        assert_eq!(err, SkillError::LongDescription(1199));
        assert!(err.to_string().contains("more than the 1024"), "{err}");
    }

    #[test]
    fn the_name_must_be_the_folders() {
        let err = parse(&at("other"), "---\nname: mine\ndescription: d\n---\nB\n").unwrap_err();
        assert_eq!(
            err,
            SkillError::NotTheFolder {
                name: "mine".into(),
                folder: "other".into()
            }
        );
        assert_eq!(
            err.to_string(),
            "the name \"mine\" is not the folder's name \"other\"; rename one so they match"
        );
    }

    #[test]
    fn a_folder_is_read_in_name_order_with_its_problems() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (name, text) in [
            ("b-good", "---\nname: b-good\ndescription: second\n---\nB\n"),
            ("a-good", "---\nname: a-good\ndescription: first\n---\nA\n"),
            ("broken", "---\nname: broken\n---\nB\n"),
        ] {
            std::fs::create_dir(root.join(name)).unwrap();
            std::fs::write(root.join(name).join(SKILL_FILE), text).unwrap();
        }
        std::fs::create_dir(root.join("empty")).unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join("README.md"), "not a skill").unwrap();
        std::fs::create_dir(root.join("huge")).unwrap();
        std::fs::write(
            root.join("huge").join(SKILL_FILE),
            "x".repeat(usize::try_from(MAX_SKILL_BYTES).unwrap() + 1),
        )
        .unwrap();

        let catalog = scan(root, &[]);
        assert_eq!(
            catalog.skills.keys().collect::<Vec<_>>(),
            ["a-good", "b-good"]
        );
        let problems: Vec<(String, &str)> = catalog
            .problems
            .iter()
            .map(|p| {
                (
                    p.path.file_name().unwrap().to_string_lossy().into_owned(),
                    p.reason.as_str(),
                )
            })
            .collect();
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert_eq!(problems[0].0, "broken");
        assert!(problems[0].1.contains("no `description`"));
        assert_eq!(problems[1].0, "empty");
        assert!(problems[1].1.contains("no SKILL.md"));
        assert_eq!(problems[2].0, "huge");
        assert!(problems[2].1.contains("more than the"));
    }

    #[test]
    fn a_missing_folder_holds_no_skills() {
        let dir = tempfile::tempdir().unwrap();
        let catalog = scan(&dir.path().join("skills"), &[]);
        assert!(catalog.skills.is_empty() && catalog.problems.is_empty());
    }
}
