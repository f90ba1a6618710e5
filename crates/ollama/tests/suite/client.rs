//! The model-management endpoints: version, tags, show, ps, pull, delete.

use futures::StreamExt;
use hearth_ollama::OllamaError;
use hearth_sim::{ModelSpec, Script};

use crate::support::{MODEL, client, model, sim};

#[tokio::test]
async fn version_tags_show_and_ps() {
    let sim = sim(Script::with_models(vec![
        model()
            .with_context_length(32768)
            .with_size(4_000_000_000)
            .with_size_vram(3_000_000_000),
        ModelSpec::new("small:1b"),
    ]))
    .await;
    let c = client(&sim);
    assert_eq!(c.version().await.unwrap(), hearth_sim::OLLAMA_VERSION);
    let tags = c.tags().await.unwrap();
    let names: Vec<_> = tags.iter().map(|m| m.name.as_str()).collect();
    assert!(
        names.contains(&MODEL) && names.contains(&"small:1b"),
        "{names:?}"
    );
    let show = c.show(MODEL).await.unwrap();
    assert!(show.has("tools"));
    assert_eq!(show.context_length(), Some(32768));
    assert!(c.ps().await.unwrap().is_empty());
    c.preload(MODEL, &hearth_core::LoadOptions::default())
        .await
        .unwrap();
    let ps = c.ps().await.unwrap();
    assert_eq!(ps.len(), 1);
    assert_eq!(ps[0].name, MODEL);
    assert_eq!(ps[0].context_length, Some(8192));
    assert_eq!(
        (ps[0].size, ps[0].size_vram),
        (4_000_000_000, 3_000_000_000)
    );
    assert!(ps[0].expires_at.is_some());
    assert!(matches!(
        c.show("nope:1b").await,
        Err(OllamaError::ModelNotFound { .. })
    ));
}

#[tokio::test]
async fn pull_reports_progress_and_in_band_failure() {
    let sim = sim(Script::with_models(vec![
        ModelSpec::new("fresh:7b").with_installed(false),
    ]))
    .await;
    let c = client(&sim);
    let progress: Vec<_> = c.pull("fresh:7b").await.unwrap().collect().await;
    assert!(progress.iter().all(Result::is_ok), "{progress:?}");
    let last = progress.last().unwrap().as_ref().unwrap();
    assert_eq!(last.status, "success");
    assert!(
        progress
            .iter()
            .any(|p| p.as_ref().unwrap().completed.is_some())
    );
    assert!(c.tags().await.unwrap().iter().any(|m| m.name == "fresh:7b"));

    let failed: Vec<_> = c.pull("no-such-model").await.unwrap().collect().await;
    let err = failed.last().unwrap().as_ref().unwrap_err();
    assert!(err.to_string().contains("file does not exist"), "{err}");
}

#[tokio::test]
async fn delete_removes_an_installed_model_and_a_missing_one_is_named() {
    let sim = sim(Script::with_models(vec![model(), ModelSpec::new("old:7b")])).await;
    let c = client(&sim);
    c.delete("old:7b").await.unwrap();
    let names: Vec<_> = c
        .tags()
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.name)
        .collect();
    assert_eq!(names, [MODEL]);
    assert!(matches!(
        c.delete("old:7b").await,
        Err(OllamaError::ModelNotFound { model }) if model == "old:7b"
    ));
    // A pull brings it back.
    let progress: Vec<_> = c.pull("old:7b").await.unwrap().collect().await;
    assert!(progress.iter().all(Result::is_ok), "{progress:?}");
    assert!(c.tags().await.unwrap().iter().any(|m| m.name == "old:7b"));
    let deletes = sim
        .requests()
        .into_iter()
        .filter(|r| r.method == "DELETE" && r.path == "/api/delete")
        .count();
    assert_eq!(deletes, 2);
}

fn shows(sim: &hearth_sim::SimHandle) -> usize {
    sim.requests()
        .iter()
        .filter(|r| r.path == "/api/show")
        .count()
}

/// Ollama 0.30 and later list capabilities and the trained context in
/// `/api/tags`: describing every model takes that one request. An older
/// server leaves them out, and each model is asked `/api/show` instead.
#[tokio::test]
async fn models_are_described_from_the_listing_and_from_show_only_on_an_older_server() {
    let models = || {
        vec![
            model().with_context_length(32768),
            ModelSpec::new("see:1b").with_capabilities(&["completion", "vision"]),
        ]
    };
    for legacy in [false, true] {
        let mut script = Script::with_models(models());
        if legacy {
            script = script.with_legacy_tags();
        }
        let sim = sim(script).await;
        let c = client(&sim);
        let described = c.described().await.unwrap();
        let caps: Vec<_> = described
            .iter()
            .map(|m| {
                (
                    m.name.as_str(),
                    m.capabilities.clone(),
                    m.details.context_length,
                )
            })
            .collect();
        assert_eq!(
            caps,
            [
                (
                    MODEL,
                    vec!["completion".into(), "tools".into()],
                    Some(32768)
                ),
                (
                    "see:1b",
                    vec!["completion".into(), "vision".into()],
                    Some(32768)
                ),
            ],
            "legacy: {legacy}"
        );
        assert_eq!(shows(&sim), if legacy { 2 } else { 0 }, "legacy: {legacy}");

        // One model, as the backend asks before its first request; a name
        // without a tag is found as `:latest`'s would be.
        // Its size comes with it, from the listing or from `/api/show`.
        let (caps, context, parameters) = c.describe(MODEL).await.unwrap();
        assert_eq!((caps.len(), context), (2, Some(32768)));
        assert_eq!(parameters, Some(3_200_000_000), "legacy: {legacy}");
        assert_eq!(shows(&sim), if legacy { 3 } else { 0 }, "legacy: {legacy}");
        assert!(matches!(
            c.describe("nope:1b").await,
            Err(OllamaError::ModelNotFound { .. })
        ));
    }
}
