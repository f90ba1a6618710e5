//! Projects: sessions grouped, and what a project gives the sessions in it
//! (workspace, profile and model unless they chose their own,
//! instructions); moving, deleting, searching and exporting per project.

use std::path::PathBuf;

use hearth_core::{ChatMessage, ProfileProvider, SessionStore};
use hearth_store::{ImportSource, Profiles, ProjectDraft, Store};
use pretty_assertions::assert_eq;

fn draft(name: &str) -> ProjectDraft {
    ProjectDraft {
        name: name.into(),
        ..ProjectDraft::default()
    }
}

#[tokio::test]
async fn a_project_gives_its_sessions_workspace_profile_model_and_instructions() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let profiles = Profiles::load(&store).await.unwrap();
    let before = profiles.active("ses_a");
    assert_eq!(before.name, "Chat");

    let garden = profiles
        .create_project(ProjectDraft {
            name: "  Garden  ".into(),
            workspace: Some(PathBuf::from("/home/me/garden")),
            profile: Some("Agent".into()),
            model: Some("qwen2.5:7b".into()),
            instructions: "Answer in metric units.".into(),
        })
        .await
        .unwrap();
    assert_eq!(garden.name, "Garden", "trimmed");
    assert!(garden.id.starts_with("prj_"));

    profiles
        .move_session("ses_a", Some(&garden.id))
        .await
        .unwrap();
    let p = profiles.active("ses_a");
    assert_eq!(p.name, "Agent", "the project's profile");
    assert_eq!(p.model, "qwen2.5:7b", "the project's model");
    assert_eq!(p.workspace, Some(PathBuf::from("/home/me/garden")));
    assert!(
        p.system_prompt
            .ends_with("## Project \"Garden\"\nAnswer in metric units."),
        "{}",
        p.system_prompt
    );
    // A session's own choices win over its project's.
    profiles.switch_to("ses_a", "Chat").await.unwrap();
    profiles
        .set_session_model("ses_a", Some("llama3.2:3b"))
        .await
        .unwrap();
    let p = profiles.active("ses_a");
    assert_eq!((p.name.as_str(), p.model.as_str()), ("Chat", "llama3.2:3b"));
    assert_eq!(p.workspace, Some(PathBuf::from("/home/me/garden")));
    // A session elsewhere is untouched.
    assert_eq!(profiles.active("ses_b"), before);

    // What the app's list shows, and a second process reads the same.
    let listed = store.sessions().await.unwrap();
    assert_eq!(listed[0].project.as_deref(), Some(garden.id.as_str()));
    let (other, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let other = Profiles::load(&other).await.unwrap();
    assert_eq!(other.session_project("ses_a").unwrap().name, "Garden");
    assert_eq!(other.find_project("gARDEN").unwrap().id, garden.id);

    // Out of the project: its own choices stay, the project's go.
    profiles.move_session("ses_a", None).await.unwrap();
    let p = profiles.active("ses_a");
    assert_eq!(p.workspace, None);
    assert!(!p.system_prompt.contains("Project"));
}

#[tokio::test]
async fn bad_projects_are_refused_and_deleting_one_keeps_its_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let profiles = Profiles::load(&store).await.unwrap();
    let a = profiles.create_project(draft("Taxes")).await.unwrap();
    let refused = |e: hearth_store::ProfileError| e.to_string();
    for (bad, why) in [
        (draft("taxes"), "a project named `taxes` exists"),
        (draft("   "), "a project needs a name"),
        (draft("two\nlines"), "a project's name is one line of text"),
        (
            ProjectDraft {
                workspace: Some("~/taxes".into()),
                ..draft("T2")
            },
            "the workspace must be a full path such as /home/you/project, not `~/taxes`",
        ),
        (
            ProjectDraft {
                profile: Some("Nope".into()),
                ..draft("T3")
            },
            "no profile named `Nope`",
        ),
    ] {
        assert_eq!(
            refused(profiles.create_project(bad).await.unwrap_err()),
            why
        );
    }
    let long = ProjectDraft {
        instructions: "x".repeat(hearth_store::MAX_PROJECT_INSTRUCTIONS + 1),
        ..draft("T4")
    };
    assert!(refused(profiles.create_project(long).await.unwrap_err()).contains("knowledge folder"));
    // Renaming to its own name in another case is not a clash.
    let renamed = profiles
        .update_project(&a.id, draft("TAXES"))
        .await
        .unwrap();
    assert_eq!(
        (renamed.id.as_str(), renamed.name.as_str()),
        (a.id.as_str(), "TAXES")
    );
    assert!(profiles.move_session("s1", Some("prj_none")).await.is_err());
    assert!(
        profiles
            .move_session("subagent_0123456789ab", Some(&a.id))
            .await
            .is_err()
    );

    for s in ["s1", "s2"] {
        store
            .append(s, "r", ChatMessage::user(format!("receipt {s}")))
            .await
            .unwrap();
        profiles.move_session(s, Some(&a.id)).await.unwrap();
    }
    assert_eq!(store.projects().await.unwrap()[0].sessions, 2);
    assert_eq!(profiles.delete_project(&a.id).await.unwrap(), 2);
    assert!(store.projects().await.unwrap().is_empty());
    let listed = store.sessions().await.unwrap();
    assert_eq!(listed.len(), 2, "the sessions stay");
    assert!(listed.iter().all(|s| s.project.is_none()));
    assert!(profiles.session_project("s1").is_none());
}

#[tokio::test]
async fn search_and_export_per_project_and_a_project_imports_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let profiles = Profiles::load(&store).await.unwrap();
    let trip = profiles
        .create_project(ProjectDraft {
            instructions: "We travel by train.".into(),
            ..draft("Trip")
        })
        .await
        .unwrap();
    for (s, text) in [
        ("in1", "ferry to Skye"),
        ("in2", "ferry times"),
        ("out", "ferry model"),
    ] {
        store.append(s, "r", ChatMessage::user(text)).await.unwrap();
        store
            .append(s, "r", ChatMessage::assistant(format!("About the {text}.")))
            .await
            .unwrap();
        if s != "out" {
            profiles.move_session(s, Some(&trip.id)).await.unwrap();
        }
    }
    assert_eq!(store.search("ferry", 20).await.unwrap().len(), 6);
    let inside = store.search_in("ferry", 20, Some(&trip.id)).await.unwrap();
    assert_eq!(inside.len(), 4);
    assert!(inside.iter().all(|h| h.session_id != "out"));

    let notes = std::path::PathBuf::from("/home/someone/notes");
    let md = store
        .export_project_markdown(&trip.id, std::slice::from_ref(&notes))
        .await
        .unwrap();
    assert!(md.starts_with("# Project: Trip\n"), "{md}");
    assert!(
        md.contains("- Knowledge folder: `/home/someone/notes`\n"),
        "{md}"
    );
    assert!(
        md.contains("## Instructions\n\nWe travel by train.\n"),
        "{md}"
    );
    assert!(md.contains("ferry to Skye") && md.contains("ferry times"));
    assert!(!md.contains("ferry model"), "a session outside it");

    let json = store
        .export_project_json(&trip.id, std::slice::from_ref(&notes))
        .await
        .unwrap();
    assert_eq!(json["format"], "hearth.project");
    assert_eq!(
        json["project"]["knowledge_folders"][0],
        "/home/someone/notes"
    );
    assert_eq!(json["sessions"].as_array().unwrap().len(), 2);

    // Into another database: the project comes with its sessions.
    let (there, _) = Store::open(dir.path().join("other.sqlite")).await.unwrap();
    let there_profiles = Profiles::load(&there).await.unwrap();
    there_profiles.create_project(draft("Trip")).await.unwrap();
    let report = there.import(&json.to_string()).await.unwrap();
    assert_eq!(report.source, ImportSource::HearthProject);
    assert_eq!(report.sessions.len(), 2);
    let (made, note) = there_profiles.adopt_import(&report).await.unwrap().unwrap();
    assert_eq!(made.name, "Trip (imported)", "the name was taken there");
    assert_eq!(made.instructions, "We travel by train.");
    // Its knowledge folder is said, not added (the index is the caller's:
    // the import hands nothing to it).
    assert_eq!(report.knowledge_folders, ["/home/someone/notes"]);
    let note = note.expect("the folders are said");
    assert!(
        note.contains(
            "the knowledge folders /home/someone/notes; a file does not add folders here"
        ),
        "{note}"
    );
    let listed = there.sessions().await.unwrap();
    assert_eq!(listed.len(), 2);
    assert!(
        listed
            .iter()
            .all(|s| s.project.as_deref() == Some(made.id.as_str()))
    );
    let texts: Vec<String> = {
        let mut v = Vec::new();
        for s in &report.sessions {
            v.push(there.history(s).await.unwrap()[0].content.clone());
        }
        v
    };
    assert!(texts.contains(&"ferry to Skye".to_owned()), "{texts:?}");
}
