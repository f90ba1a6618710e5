//! The skills source and `load_skill`: which skills a profile is offered,
//! what the model is shown and given, and that a skill's files are read
//! only beneath its folder.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;

use hearth_core::{Offer, Tool, ToolContext, ToolRegistry, ToolSource};
use hearth_tools::{LOAD_SKILL, Skills};
use serde_json::json;

const SECRET: &str = "TOP-SECRET beside the skills";

fn skill(root: &Path, name: &str, description: &str, body: &str) {
    std::fs::create_dir_all(root.join(name)).unwrap();
    std::fs::write(
        root.join(name).join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n"),
    )
    .unwrap();
}

/// A skills folder with two skills (one with files beside it), a broken
/// one, and a secret next to the folder.
fn folder() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("skills");
    skill(
        &root,
        "commit-messages",
        "Writes commit messages in the team's style. Use when committing.",
        "# Commit messages\n\nSubject under 50 characters. See reference/style.md.",
    );
    std::fs::create_dir_all(root.join("commit-messages/reference")).unwrap();
    std::fs::write(
        root.join("commit-messages/reference/style.md"),
        "Use the imperative mood.",
    )
    .unwrap();
    std::fs::write(root.join("commit-messages/check.py"), "print('ok')").unwrap();
    std::fs::write(root.join("commit-messages/logo.bin"), [0xff, 0xfe, 0x00]).unwrap();
    skill(&root, "pdf-forms", "Fills PDF forms.", "Run fill.py.");
    std::fs::create_dir_all(root.join("broken")).unwrap();
    std::fs::write(root.join("broken/SKILL.md"), "no front matter").unwrap();
    std::fs::write(tmp.path().join("secret.txt"), SECRET).unwrap();
    (tmp, root)
}

fn ctx() -> ToolContext {
    hearth_test_support::tool_context("s", None)
}

fn offer(skills: Option<&[&str]>) -> Offer {
    Offer {
        tools: None,
        servers: Vec::new(),
        skills: skills.map(|s| s.iter().map(|&n| n.to_owned()).collect()),
        memory: Default::default(),
    }
}

fn load_skill(skills: &Skills, offer: &Offer) -> Arc<dyn Tool> {
    let mut tools = skills.tools_for(offer);
    assert_eq!(tools.len(), 1, "one load_skill tool");
    tools.remove(0)
}

#[test]
fn the_tool_lists_the_offered_skills_sorted_and_only_those() {
    let (_tmp, root) = folder();
    let skills = Skills::new(root);
    let all = load_skill(&skills, &offer(None)).spec();
    assert_eq!(all.name, LOAD_SKILL);
    assert!(
        all.description.ends_with(
            "Skills:\n- commit-messages: Writes commit messages in the team's style. Use when committing.\n- pdf-forms: Fills PDF forms."
        ),
        "{}",
        all.description
    );
    assert_eq!(
        all.parameters["properties"]["name"]["enum"],
        json!(["commit-messages", "pdf-forms"])
    );
    assert!(!all.description.contains("broken"));

    let one = load_skill(&skills, &offer(Some(&["pdf-forms", "no-such-skill"]))).spec();
    assert!(!one.description.contains("commit-messages"));
    assert_eq!(
        one.parameters["properties"]["name"]["enum"],
        json!(["pdf-forms"])
    );

    assert!(
        skills.tools_for(&offer(Some(&[]))).is_empty(),
        "none enabled: no tool"
    );
    assert!(
        skills.tools_for(&offer(Some(&["broken"]))).is_empty(),
        "a broken skill is not offered"
    );
}

#[test]
fn no_skills_means_no_tool_and_the_tool_list_is_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let skills = Arc::new(Skills::new(tmp.path().join("skills")));
    let mut registry = ToolRegistry::new();
    registry.add_source(skills);
    assert!(registry.specs(&offer(None)).is_empty());
}

#[tokio::test]
async fn a_skill_added_while_running_is_offered_at_the_next_model_call() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("skills");
    let skills = Arc::new(Skills::new(root.clone()));
    let mut registry = ToolRegistry::new();
    registry.add_source(skills.clone());
    assert!(registry.offered_names(&offer(None)).is_empty());

    skill(&root, "late", "Added later.", "Body.");
    assert!(
        registry.prepare(&offer(None)).await.is_empty(),
        "skills never make a server unavailable"
    );
    assert_eq!(registry.offered_names(&offer(None)), [LOAD_SKILL]);

    // Nothing changed: the same catalog value, so the same bytes.
    let before = skills.catalog();
    registry.prepare(&offer(None)).await;
    assert!(Arc::ptr_eq(&before, &skills.catalog()));
}

#[tokio::test]
async fn loading_gives_the_instructions_the_folder_and_the_files_beside() {
    let (_tmp, root) = folder();
    let skills = Skills::new(root.clone());
    let tool = load_skill(&skills, &offer(None));
    let out = tool
        .call(json!({"name": "commit-messages"}), &ctx())
        .await
        .unwrap();
    let folder = root.join("commit-messages");
    assert_eq!(
        out,
        format!(
            "<skill name=\"commit-messages\" folder=\"{}\">\n# Commit messages\n\nSubject under 50 characters. See reference/style.md.\n</skill>\nFiles in this skill (read one with load_skill and `file`): check.py, logo.bin, reference/style.md",
            folder.display()
        )
    );
    let file = tool
        .call(
            json!({"name": "commit-messages", "file": "reference/style.md"}),
            &ctx(),
        )
        .await
        .unwrap();
    assert_eq!(file, "Use the imperative mood.");
}

#[tokio::test]
async fn what_is_not_offered_or_not_inside_is_refused() {
    let (tmp, root) = folder();
    symlink(
        tmp.path().join("secret.txt"),
        root.join("pdf-forms/link.txt"),
    )
    .unwrap();
    let skills = Skills::new(root.clone());
    let tool = load_skill(&skills, &offer(Some(&["pdf-forms"])));

    let refusal = |r: Result<String, hearth_core::ToolError>| -> String {
        let msg = r.expect_err("refused").to_string();
        assert!(!msg.contains(SECRET), "{msg}");
        msg
    };
    let not_offered = refusal(tool.call(json!({"name": "commit-messages"}), &ctx()).await);
    assert!(
        not_offered
            .contains("no skill named \"commit-messages\" is offered; the skills are: pdf-forms"),
        "{not_offered}"
    );

    for escape in [
        "../secret.txt".to_owned(),
        tmp.path().join("secret.txt").display().to_string(),
        "link.txt".to_owned(),
        "../commit-messages/check.py".to_owned(),
    ] {
        let msg = refusal(
            tool.call(json!({"name": "pdf-forms", "file": escape}), &ctx())
                .await,
        );
        assert!(msg.contains("outside the skill folder"), "{escape}: {msg}");
    }
    let all = load_skill(&skills, &offer(None));
    let binary = refusal(
        all.call(
            json!({"name": "commit-messages", "file": "logo.bin"}),
            &ctx(),
        )
        .await,
    );
    assert!(binary.contains("is not text (3 bytes)"), "{binary}");
    let missing = refusal(
        all.call(
            json!({"name": "commit-messages", "file": "nope.md"}),
            &ctx(),
        )
        .await,
    );
    assert!(
        missing.contains("no such file or folder `nope.md` in the skill folder"),
        "{missing}"
    );
}

#[test]
fn a_long_listing_cuts_each_description_not_the_skills() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("skills");
    let long = "word ".repeat(190);
    for i in 0..40 {
        skill(&root, &format!("skill-{i:02}"), long.trim(), "Body.");
    }
    let skills = Skills::new(root);
    let spec = load_skill(&skills, &offer(None)).spec();
    let lines: Vec<&str> = spec
        .description
        .lines()
        .filter(|l| l.starts_with("- skill-"))
        .collect();
    assert_eq!(lines.len(), 40, "every skill is still listed");
    for line in lines {
        assert!(line.ends_with('…'), "{line}");
        assert!(line.chars().count() < 180, "{line}");
    }
}

/// A skill linked in from inside a profile's workspace is not offered
/// (security review N15: the model could rewrite its `SKILL.md` there and
/// its description would reach every request); the reason names both
/// places. Linked in from elsewhere it is offered, and a workspace added
/// later is seen at the next read.
#[test]
fn a_skill_linked_in_from_a_workspace_is_not_offered() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("skills");
    std::fs::create_dir_all(&root).unwrap();
    let (ws, mine) = (tmp.path().join("ws"), tmp.path().join("mine"));
    skill(
        &ws,
        "repo-skill",
        "Lives in a workspace.",
        "Do as the repo says.",
    );
    skill(&mine, "my-skill", "Lives in a folder of mine.", "Be kind.");
    symlink(ws.join("repo-skill"), root.join("repo-skill")).unwrap();
    symlink(mine.join("my-skill"), root.join("my-skill")).unwrap();
    let watched = Arc::new(std::sync::Mutex::new(vec![ws.clone()]));
    let seen = watched.clone();
    let skills = Skills::outside(root.clone(), move || seen.lock().unwrap().clone());
    let catalog = skills.catalog();
    assert_eq!(catalog.skills.keys().collect::<Vec<_>>(), ["my-skill"]);
    let problem = &catalog.problems[0];
    assert_eq!(problem.path, root.join("repo-skill"));
    let real_ws = std::fs::canonicalize(&ws).unwrap();
    assert!(
        problem.reason.contains("inside the workspace")
            && problem.reason.contains(real_ws.to_str().unwrap()),
        "{}",
        problem.reason
    );
    // Another profile works in the other folder now: neither is offered.
    watched.lock().unwrap().push(mine);
    assert!(skills.reload().skills.is_empty());
}
