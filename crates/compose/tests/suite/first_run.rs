//! The first run against hearth-sim: the seeded profiles are moved to an
//! installed model once, only when the seed is not installed, and never
//! again.

use hearth_compose::first_run;
use hearth_sim::{ModelSpec, Script, Sim};
use hearth_store::{Profiles, SEED_MODEL, Store};

fn model(name: &str, caps: &[&str]) -> ModelSpec {
    ModelSpec::new(name).with_capabilities(caps)
}

async fn fresh(dir: &tempfile::TempDir) -> (Store, std::sync::Arc<Profiles>) {
    let (store, _) = Store::open(dir.path().join("hearth.sqlite")).await.unwrap();
    let profiles = Profiles::load(&store).await.unwrap();
    (store, profiles)
}

fn models_of(profiles: &Profiles) -> Vec<(String, String)> {
    profiles
        .list()
        .into_iter()
        .map(|p| (p.name, p.model))
        .collect()
}

#[tokio::test]
async fn a_server_without_the_seed_model_gets_the_seeds_moved_to_a_tool_capable_one_once() {
    let sim = Sim::start(Script::with_models(vec![
        model("gemma3:1b", &["completion"]),
        model("qwen3:8b", &["completion", "tools", "thinking"]),
    ]))
    .await
    .unwrap();
    let client = hearth_ollama::Client::new(&sim.url(), Default::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (store, profiles) = fresh(&dir).await;
    assert!(profiles.seed_model_pending());

    let run = first_run::settle(&profiles, &client).await.unwrap();
    assert_eq!(run.installed.len(), 2);
    assert_eq!(
        run.adopted,
        Some(("qwen3:8b".into(), vec!["Agent".into(), "Chat".into()]))
    );
    assert_eq!(
        models_of(&profiles),
        [
            ("Agent".into(), "qwen3:8b".into()),
            ("Chat".into(), "qwen3:8b".into())
        ]
    );

    // Written to the database, and settled for good: a model the user
    // picks later is never moved again.
    let mut chat = profiles
        .list()
        .into_iter()
        .find(|p| p.name == "Chat")
        .unwrap();
    chat.model = SEED_MODEL.into();
    profiles.upsert(chat).await.unwrap();
    drop(profiles);
    let reopened = Profiles::load(&store).await.unwrap();
    assert!(!reopened.seed_model_pending());
    let again = first_run::settle(&reopened, &client).await.unwrap();
    assert_eq!(again.adopted, None);
    assert_eq!(
        models_of(&reopened),
        [
            ("Agent".into(), "qwen3:8b".into()),
            ("Chat".into(), SEED_MODEL.into())
        ]
    );
}

#[tokio::test]
async fn a_server_with_the_seed_model_keeps_it_and_an_empty_server_leaves_the_seeds_waiting() {
    let empty = Sim::start(Script::with_models(Vec::new())).await.unwrap();
    let client = hearth_ollama::Client::new(&empty.url(), Default::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (_store, profiles) = fresh(&dir).await;
    let run = first_run::settle(&profiles, &client).await.unwrap();
    assert_eq!(run, first_run::FirstRun::default());
    assert!(profiles.seed_model_pending(), "the first pull settles them");

    let with_seed = Sim::start(Script::with_models(vec![
        model("llama3.2:latest", &["completion", "tools"]),
        model("qwen3:8b", &["completion", "tools"]),
    ]))
    .await
    .unwrap();
    let client = hearth_ollama::Client::new(&with_seed.url(), Default::default()).unwrap();
    let run = first_run::settle(&profiles, &client).await.unwrap();
    assert_eq!(run.adopted, None);
    assert!(!profiles.seed_model_pending());
    assert!(models_of(&profiles).iter().all(|(_, m)| m == SEED_MODEL));
}

#[tokio::test]
async fn settling_keeps_a_profile_saved_since_by_another_process() {
    let sim = Sim::start(Script::with_models(vec![model(
        "qwen3:8b",
        &["completion", "tools"],
    )]))
    .await
    .unwrap();
    let client = hearth_ollama::Client::new(&sim.url(), Default::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (store, app) = fresh(&dir).await;
    // The CLI beside the app, on the same database, saves both seeded
    // profiles after the app has read them: Agent with a new prompt (still
    // on the seed model), Chat moved to a model the user chose.
    let cli = Profiles::load(&store).await.unwrap();
    let mut agent = cli.list().into_iter().find(|p| p.name == "Agent").unwrap();
    agent.system_prompt = "Answer in French.".into();
    cli.upsert(agent).await.unwrap();
    let mut chat = cli.list().into_iter().find(|p| p.name == "Chat").unwrap();
    chat.model = "mistral:7b".into();
    cli.upsert(chat).await.unwrap();

    let run = first_run::settle(&app, &client).await.unwrap();
    assert_eq!(run.adopted, Some(("qwen3:8b".into(), vec!["Agent".into()])));
    let agent = app.list().into_iter().find(|p| p.name == "Agent").unwrap();
    assert_eq!(agent.system_prompt, "Answer in French.");
    // The app's copy is the database's now, the CLI's choice included.
    let chat = app.list().into_iter().find(|p| p.name == "Chat").unwrap();
    assert_eq!(chat.model, "mistral:7b");
    drop((app, cli));
    let reopened = Profiles::load(&store).await.unwrap();
    let stored: Vec<_> = reopened
        .list()
        .into_iter()
        .map(|p| (p.name, p.model, p.system_prompt))
        .collect();
    assert_eq!(
        stored[0],
        (
            "Agent".into(),
            "qwen3:8b".into(),
            "Answer in French.".into()
        )
    );
    assert_eq!(
        (stored[1].0.as_str(), stored[1].1.as_str()),
        ("Chat", "mistral:7b")
    );
}
