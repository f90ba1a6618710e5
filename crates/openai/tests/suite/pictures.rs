//! Pictures on an OpenAI-compatible server, which does not say whether a
//! model can see: the first refusal (llama.cpp's 500 "image input is not
//! supported", as the simulator answers for a model without `vision`)
//! teaches the backend, the message is answered without its picture and
//! with a note, later requests leave the session's pictures out, and a new
//! picture is refused before anything is kept.

use std::sync::Arc;

use hearth_core::{Agent, Attachment, AttachmentKind, Body, ModelBackend, Profile, StaticProfiles};
use hearth_openai::OpenAiBackend;
use hearth_protocol::EventKind;
use hearth_sim::{ModelSpec, Reply, Script};

use crate::support::{MODEL, client, events, last, model, sim, text_of};

/// A 1×1 PNG.
const PNG: &str = "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082";

fn picture() -> Attachment {
    let bytes: Vec<u8> = (0..PNG.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&PNG[i..i + 2], 16).unwrap())
        .collect();
    Attachment {
        sha256: "b".repeat(64),
        name: "cat.png".into(),
        kind: AttachmentKind::Image,
        mime: "image/png".into(),
        size: bytes.len() as u64,
        given: None,
        chars: None,
        body: Some(Body(bytes.into())),
    }
}

fn pictures_in(body: &serde_json::Value) -> usize {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|p| p["type"] == "image_url")
        .count()
}

fn setup(model: ModelSpec, replies: &[&str]) -> (Script, Profile) {
    let mut script = Script::with_models(vec![model]);
    for r in replies {
        script = script.with_reply(Reply::text(*r));
    }
    (script, Profile::new("Chat", MODEL))
}

#[tokio::test]
async fn a_model_the_server_cannot_show_pictures_is_answered_without_them_from_then_on() {
    let (script, profile) = setup(model(), &["I cannot see it.", "Still no picture."]);
    let sim = sim(script).await;
    let backend = Arc::new(OpenAiBackend::new(client(&sim)));
    assert_eq!(backend.sees_images(MODEL).await, None, "unknown up front");
    // As the app holds it: in a slot the settings can swap.
    let slot = hearth_core::BackendSlot::new(backend.clone());
    let agent = Agent::builder(slot.clone(), Arc::new(StaticProfiles::single("", profile))).build();

    let mut run = agent.run_stream_with("s", "What is in this picture?", vec![picture()]);
    let evs = events(&mut run).await;
    assert!(
        matches!(last(&evs), EventKind::StreamEnd { .. }),
        "{evs:#?}"
    );
    assert_eq!(text_of(&evs), "I cannot see it.");
    assert_eq!(backend.sees_images(MODEL).await, Some(false), "learned");
    assert_eq!(
        slot.sees_images(MODEL).await,
        Some(false),
        "also through the slot"
    );
    let bodies = sim.completion_bodies();
    assert_eq!(
        bodies.len(),
        2,
        "the refused request, then the one answered"
    );
    assert_eq!(pictures_in(&bodies[0]), 1);
    assert_eq!(pictures_in(&bodies[1]), 0);
    let note = "[Hearth: 1 picture(s) attached here are not shown: this model cannot see images.]";
    let said = bodies[1]["messages"].as_array().unwrap().last().unwrap()["content"].to_string();
    assert!(
        said.contains("What is in this picture?") && said.contains(note),
        "{said}"
    );
    // Kept as sent by the person: the picture stays with the message.
    let kept = agent.store().history("s").await.unwrap();
    assert_eq!(kept[0].attachments.len(), 1);

    // The next turn sends the earlier message without its picture at once.
    let mut run = agent.run_stream("s", "And now?");
    let evs = events(&mut run).await;
    assert_eq!(text_of(&evs), "Still no picture.");
    let bodies = sim.completion_bodies();
    assert_eq!(bodies.len(), 3, "no refused request");
    assert_eq!(pictures_in(&bodies[2]), 0);
    assert!(bodies[2]["messages"].to_string().contains(note));

    // A new picture is refused before anything is kept or sent.
    let mut run = agent.run_stream_with("s", "And this one?", vec![picture()]);
    let evs = events(&mut run).await;
    let EventKind::Error { error, .. } = last(&evs) else {
        panic!("{evs:#?}")
    };
    assert!(
        error.message.contains("cannot see images"),
        "{}",
        error.message
    );
    assert_eq!(sim.completion_bodies().len(), 3);
    assert_eq!(agent.store().history("s").await.unwrap().len(), 4);
}

#[tokio::test]
async fn a_model_that_sees_gets_the_picture() {
    let spec = ModelSpec::new(MODEL).with_capabilities(&["completion", "vision"]);
    let (script, profile) = setup(spec, &["A tiny square."]);
    let sim = sim(script).await;
    let backend = Arc::new(OpenAiBackend::new(client(&sim)));
    let agent = Agent::builder(
        backend.clone(),
        Arc::new(StaticProfiles::single("", profile)),
    )
    .build();
    let mut run = agent.run_stream_with("s", "What is this?", vec![picture()]);
    let evs = events(&mut run).await;
    assert_eq!(text_of(&evs), "A tiny square.");
    let bodies = sim.completion_bodies();
    assert_eq!(bodies.len(), 1);
    assert_eq!(pictures_in(&bodies[0]), 1);
    let url = bodies[0]["messages"].to_string();
    assert!(url.contains("data:image/png;base64,"), "{url}");
    assert_eq!(backend.sees_images(MODEL).await, None);
}
