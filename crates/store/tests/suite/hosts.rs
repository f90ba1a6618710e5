//! Hosts the user adds, and the host a session stays on.

use hearth_core::{Profile, ProfileProvider};
use hearth_store::{Host, HostKind, ProfileError, Profiles, Store};
use pretty_assertions::assert_eq;

fn host(name: &str, kind: HostKind, url: &str) -> Host {
    Host {
        name: name.into(),
        kind,
        url: url.into(),
        keyed: false,
    }
}

#[tokio::test]
async fn hosts_are_added_changed_listed_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    store
        .put_host(&host("gpu2", HostKind::Ollama, "http://gpu2:11434"))
        .await
        .unwrap();
    store
        .put_host(&host("box", HostKind::Openai, " http://box:8080/v1 "))
        .await
        .unwrap();
    store
        .put_host(&host("gpu2", HostKind::Ollama, "http://10.0.0.2:11434"))
        .await
        .unwrap();
    assert_eq!(
        store.hosts().await.unwrap(),
        vec![
            host("box", HostKind::Openai, "http://box:8080/v1"),
            host("gpu2", HostKind::Ollama, "http://10.0.0.2:11434"),
        ]
    );
    assert!(store.remove_host("box").await.unwrap());
    assert!(!store.remove_host("box").await.unwrap());
    assert_eq!(store.hosts().await.unwrap().len(), 1);
}

/// The database notes that a host has a key, never the key; a host
/// changed without one keeps it, and a removed host's note goes with it.
#[tokio::test]
async fn a_hosts_key_is_noted_kept_across_a_change_and_gone_with_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let keyed = Host {
        keyed: true,
        ..host("box", HostKind::Openai, "http://box:8080/v1")
    };
    store.put_host(&keyed).await.unwrap();
    store
        .put_host(&host("box", HostKind::Openai, "http://box2:8080/v1"))
        .await
        .unwrap();
    let saved = store.hosts().await.unwrap();
    assert_eq!(
        (saved[0].url.as_str(), saved[0].keyed),
        ("http://box2:8080/v1", true)
    );
    assert!(store.remove_host("box").await.unwrap());
    store
        .put_host(&host("box", HostKind::Openai, "http://box:8080/v1"))
        .await
        .unwrap();
    assert!(!store.hosts().await.unwrap()[0].keyed);
}

#[tokio::test]
async fn a_host_with_a_reserved_or_odd_name_or_no_http_url_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    for bad in [
        host("ollama", HostKind::Ollama, "http://x:1"),
        host("openai", HostKind::Openai, "http://x:1"),
        host("a b", HostKind::Ollama, "http://x:1"),
        host("", HostKind::Ollama, "http://x:1"),
        host("gpu", HostKind::Ollama, "file:///etc/passwd"),
        host("gpu", HostKind::Ollama, "x:1"),
    ] {
        let e = store.put_host(&bad).await.unwrap_err();
        assert!(matches!(e, ProfileError::Refused(_)), "{bad:?}: {e}");
    }
    assert!(store.hosts().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_session_stays_on_the_host_it_started_on_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    {
        let (store, _) = Store::open(&path).await.unwrap();
        let profiles = Profiles::load(&std::sync::Arc::new(store)).await.unwrap();
        let mut on_gpu2 = Profile::new("Remote", "m");
        on_gpu2.backend = Some("gpu2".into());
        profiles.upsert(on_gpu2.clone()).await.unwrap();
        profiles.switch_to("s1", "Remote").await.unwrap();
        profiles.pin_session_host("s1").await.unwrap();
        profiles.pin_session_host("s2").await.unwrap();
        assert_eq!(profiles.session_host("s1"), Some(Some("gpu2".into())));
        assert_eq!(profiles.session_host("s2"), Some(None));
        // The profile moves to another host: the sessions stay.
        on_gpu2.backend = Some("gpu3".into());
        profiles.upsert(on_gpu2).await.unwrap();
        profiles.pin_session_host("s1").await.unwrap();
        assert_eq!(profiles.active("s1").backend.as_deref(), Some("gpu2"));
        profiles.switch_to("s2", "Remote").await.unwrap();
        assert_eq!(profiles.active("s2").backend, None);
        // A new session starts on the profile's host.
        profiles.switch_to("s3", "Remote").await.unwrap();
        assert_eq!(profiles.session_host("s3"), None);
        assert_eq!(profiles.active("s3").backend.as_deref(), Some("gpu3"));
    }
    let (store, _) = Store::open(&path).await.unwrap();
    let profiles = Profiles::load(&std::sync::Arc::new(store)).await.unwrap();
    assert_eq!(profiles.active("s1").backend.as_deref(), Some("gpu2"));
    assert_eq!(profiles.active("s2").backend, None);
    // The user moves s2 on purpose; removing its host sends it home.
    profiles.set_session_host("s2", Some("gpu3")).await.unwrap();
    assert_eq!(profiles.active("s2").backend.as_deref(), Some("gpu3"));
    profiles.remove_host("gpu3").await.unwrap();
    assert_eq!(profiles.active("s2").backend, None);
}
