//! A host's API key in the desktop's real secret store: GNOME Keyring's
//! Secret Service on a private D-Bus session, in a temporary home (never
//! the user's keyring). The key reaches the server and the keyring, never
//! the database; removing the host removes it from the keyring; a session
//! without a secret store saves nothing and says why.

use std::process::Stdio;

use hearth_sim::Script;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

use super::basics::{T, hearth, output, sim};
use crate::MODEL;

const KEY: &str = "sk-hearth-test-4f2a9c";

/// GNOME Keyring on a D-Bus session of its own, unlocked.
struct SecretService {
    address: String,
    _bus: Child,
    _keyring: Child,
    _dir: tempfile::TempDir,
}

impl SecretService {
    async fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        std::fs::create_dir(&run).unwrap();
        let mut bus = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address=1"])
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("dbus-daemon (package dbus) runs");
        let mut address = String::new();
        let mut lines = BufReader::new(bus.stdout.take().unwrap());
        tokio::time::timeout(T, lines.read_line(&mut address))
            .await
            .expect("dbus-daemon printed its address in time")
            .unwrap();
        let address = address.trim().to_owned();
        let mut keyring = Command::new("gnome-keyring-daemon")
            .args(["--foreground", "--unlock", "--components=secrets"])
            .env("HOME", dir.path())
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_RUNTIME_DIR", &run)
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("gnome-keyring-daemon (package gnome-keyring) runs");
        // `--unlock` reads the login keyring's password from stdin, to its end.
        let mut stdin = keyring.stdin.take().unwrap();
        stdin.write_all(b"test-password").await.unwrap();
        drop(stdin);
        let service = Self {
            address,
            _bus: bus,
            _keyring: keyring,
            _dir: dir,
        };
        tokio::time::timeout(T, async {
            while !service.secrets_owned().await {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("the keyring took the Secret Service name in time");
        service
    }

    /// `dbus-send ARGS` on this bus; its stdout.
    async fn dbus_send(&self, args: &[&str]) -> String {
        let out = Command::new("dbus-send")
            .args(["--session", "--print-reply"])
            .args(args)
            .env("DBUS_SESSION_BUS_ADDRESS", &self.address)
            .output()
            .await
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    async fn secrets_owned(&self) -> bool {
        self.dbus_send(&[
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
            "string:org.freedesktop.secrets",
        ])
        .await
        .contains("boolean true")
    }

    /// The keyring's items for host `name`, as Hearth labels them.
    async fn items(&self, name: &str) -> usize {
        self.items_of(&format!("host:{name}")).await
    }

    /// The keyring's items of Hearth's with user attribute `user`.
    async fn items_of(&self, user: &str) -> usize {
        self.dbus_send(&[
            "--dest=org.freedesktop.secrets",
            "/org/freedesktop/secrets",
            "org.freedesktop.Secret.Service.SearchItems",
            &format!("dict:string:string:service,hearth,username,{user}"),
        ])
        .await
        .matches("object path")
        .count()
    }

    /// `hearth ARGS --db DB` on this bus (`--db DB` before a `--`, which
    /// starts a server's command line), `stdin` as its input.
    async fn hearth(&self, db: &str, args: &[&str], stdin: &str) -> (bool, String, String) {
        let mut all = args.to_vec();
        let at = all.iter().position(|a| *a == "--").unwrap_or(all.len());
        all.splice(at..at, ["--db", db]);
        let mut cmd = hearth(&all);
        cmd.env("DBUS_SESSION_BUS_ADDRESS", &self.address)
            .stdin(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(stdin.as_bytes()).await.unwrap();
        drop(input);
        let out = tokio::time::timeout(T, child.wait_with_output())
            .await
            .expect("hearth finished in time")
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// Every byte of the database's files (the WAL included).
fn database_bytes(db: &str) -> Vec<u8> {
    ["", "-wal", "-shm"]
        .iter()
        .filter_map(|s| std::fs::read(format!("{db}{s}")).ok())
        .flatten()
        .collect()
}

#[tokio::test]
async fn a_hosts_api_key_lives_in_the_desktops_secret_store_and_goes_with_the_host() {
    let keys = SecretService::start().await;
    let box_ = sim(Script::default().with_api_key(KEY)).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("keys.sqlite").display().to_string();
    let url = format!("{}/v1", box_.url());
    let add = [
        "hosts",
        "add",
        "box",
        &url,
        "--kind",
        "openai",
        "--api-key-stdin",
    ];

    // Saved: the server answers to it at once, the keyring has it, the
    // database does not.
    let (ok, _, err) = keys.hearth(&db, &add, &format!("{KEY}\n")).await;
    assert!(ok, "{err}");
    assert!(err.contains("added `box`: it answers"), "{err}");
    assert_eq!(keys.items("box").await, 1);
    let (ok, list, _) = keys.hearth(&db, &["hosts", "list"], "").await;
    assert!(ok);
    assert!(
        list.contains(&format!("box  openai  {url}  up, "))
            && list.contains("(API key in the secret store)"),
        "{list}"
    );

    // A chat on the host: its requests carry the key (the server refuses
    // any other).
    let (ok, out, err) = keys
        .hearth(
            &db,
            &[
                "chat",
                "--host",
                "box",
                "--model",
                MODEL,
                "--no-tools",
                "hello there",
            ],
            "",
        )
        .await;
    assert!(ok, "{err}");
    assert!(!out.trim().is_empty(), "an answer: {err}");
    let db_bytes = database_bytes(&db);
    assert!(
        !db_bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
        "the key is not in the database"
    );

    // Repointed at another server without the key given again: refused
    // (security review N12: the key would go to whoever serves there), the
    // host and its key as they were.
    let elsewhere = sim(Script::default()).await;
    let moved = format!("{}/v1", elsewhere.url());
    let (ok, _, err) = keys
        .hearth(
            &db,
            &["hosts", "add", "box", &moved, "--kind", "openai"],
            "",
        )
        .await;
    assert!(!ok, "a keyed host was repointed");
    assert!(err.contains("has an API key saved for"), "{err}");
    let (_, list, _) = keys.hearth(&db, &["hosts", "list"], "").await;
    assert!(list.contains(&url) && !list.contains(&moved), "{list}");
    assert_eq!(keys.items("box").await, 1);
    assert_eq!(elsewhere.requests().len(), 0, "nothing was sent there");

    // A key over plain http to another machine is refused before anything
    // is sent or kept.
    let (ok, _, err) = keys
        .hearth(
            &db,
            &[
                "hosts",
                "add",
                "far",
                "http://192.0.2.7:8080/v1",
                "--kind",
                "openai",
                "--api-key-stdin",
            ],
            &format!("{KEY}\n"),
        )
        .await;
    assert!(!ok, "a key was accepted over plain http");
    assert!(err.contains("sent only over https://"), "{err}");
    assert_eq!(keys.items("far").await, 0);

    // Removed with the host.
    let (ok, _, err) = keys.hearth(&db, &["hosts", "remove", "box"], "").await;
    assert!(ok, "{err}");
    assert_eq!(keys.items("box").await, 0);
}

/// An MCP server's header and environment values (tokens) live in the
/// secret store (security review N7): the database holds placeholders,
/// Hearth reads them back to use them, and they go when no server has any.
#[tokio::test]
async fn an_mcp_servers_tokens_live_in_the_secret_store() {
    const TOKEN: &str = "tok-SECRET-4242";
    let keys = SecretService::start().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("mcp.sqlite").display().to_string();
    let (ok, _, err) = keys
        .hearth(
            &db,
            &[
                "mcp",
                "add",
                "remote",
                "--url",
                "https://mcp.example.invalid/mcp",
                "--header",
                &format!("Authorization: Bearer {TOKEN}"),
            ],
            "",
        )
        .await;
    assert!(ok, "{err}");
    assert!(err.contains("kept in the desktop's secret store"), "{err}");
    assert_eq!(
        keys.items_of(&hearth_compose::keys::mcp_item_user(std::path::Path::new(
            &db
        )))
        .await,
        1
    );
    let (ok, _, err) = keys
        .hearth(
            &db,
            &[
                "mcp",
                "add",
                "gh",
                "--env",
                "GITHUB_TOKEN=ghp-SECRET-77",
                "--",
                "npx",
                "server-github",
            ],
            "",
        )
        .await;
    assert!(ok, "{err}");
    let bytes = database_bytes(&db);
    for secret in [TOKEN, "ghp-SECRET-77"] {
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "{secret} is in the database"
        );
    }
    // Shown hidden; given back whole when asked, read from the keyring.
    let (ok, shown, _) = keys.hearth(&db, &["mcp", "export"], "").await;
    assert!(
        ok && !shown.contains(TOKEN) && shown.contains(hearth_mcp::HIDDEN),
        "{shown}"
    );
    let (ok, all, err) = keys
        .hearth(&db, &["mcp", "export", "--with-secrets"], "")
        .await;
    assert!(ok, "{err}");
    assert!(
        all.contains(&format!("Bearer {TOKEN}")) && all.contains("ghp-SECRET-77"),
        "{all}"
    );
    // Removing one server keeps the other's value; removing the last
    // removes the item.
    let (ok, _, err) = keys.hearth(&db, &["mcp", "remove", "remote"], "").await;
    assert!(ok, "{err}");
    let (_, all, _) = keys
        .hearth(&db, &["mcp", "export", "--with-secrets"], "")
        .await;
    assert!(
        all.contains("ghp-SECRET-77") && !all.contains(TOKEN),
        "{all}"
    );
    let (ok, _, err) = keys.hearth(&db, &["mcp", "remove", "gh"], "").await;
    assert!(ok, "{err}");
    assert_eq!(
        keys.items_of(&hearth_compose::keys::mcp_item_user(std::path::Path::new(
            &db
        )))
        .await,
        0
    );
}

/// Kept in the secret store, then the store is gone: the server is not
/// started with the placeholder, and says why; a save that would lose the
/// values is refused.
#[tokio::test]
async fn mcp_values_the_store_cannot_give_are_never_sent() {
    let keys = SecretService::start().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("gone.sqlite").display().to_string();
    let (ok, _, err) = keys
        .hearth(
            &db,
            &[
                "mcp",
                "add",
                "remote",
                "--url",
                "http://127.0.0.1:9/mcp",
                "--header",
                "Authorization: Bearer tok-9",
            ],
            "",
        )
        .await;
    assert!(ok, "{err}");
    drop(keys);
    // The plain `hearth` helper: a bus where nothing listens.
    let out = output(hearth(&["mcp", "check", "remote", "--db", &db])).await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("kept in the desktop's secret store, which could not be read"),
        "{err}"
    );
    let out = output(hearth(&[
        "mcp",
        "add",
        "other",
        "--url",
        "http://127.0.0.1:9/x",
        "--db",
        &db,
    ]))
    .await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a save dropped the kept values");
    assert!(err.contains("nothing was saved"), "{err}");
}

#[tokio::test]
async fn without_a_secret_store_a_key_is_refused_and_nothing_is_saved() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("nokeys.sqlite").display().to_string();
    // A bus address where nothing listens.
    let nowhere = format!("unix:path={}", dir.path().join("no-bus").display());
    let mut cmd = hearth(&[
        "hosts",
        "add",
        "box",
        "http://127.0.0.1:1/v1",
        "--kind",
        "openai",
        "--api-key-stdin",
        "--db",
        &db,
    ]);
    cmd.env("DBUS_SESSION_BUS_ADDRESS", &nowhere)
        .stdin(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    input
        .write_all(format!("{KEY}\n").as_bytes())
        .await
        .unwrap();
    drop(input);
    let out = tokio::time::timeout(T, child.wait_with_output())
        .await
        .expect("hearth finished in time")
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("could not save the API key of host `box`")
            && err.contains("desktop's secret store"),
        "{err}"
    );
    assert!(!err.contains(KEY), "{err}");
    let list = output(hearth(&["hosts", "list", "--db", &db])).await;
    assert!(!String::from_utf8_lossy(&list.stdout).contains("box"));
}
