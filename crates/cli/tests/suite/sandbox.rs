//! The shell sandbox under attack. Each case drives the real CLI against
//! hearth-sim with a scripted hostile model that calls `run_shell`; the
//! user approves (as a user fooled by an innocent-looking command would),
//! and the real sandbox must hold. Every case runs under both mechanisms:
//! bubblewrap (the machine has it: `scripts/setup.sh` installs it) and
//! Landlock with seccomp (forced with `HEARTH_SANDBOX=landlock`). A case
//! fails, never skips, where the mechanism it names does not run.
//!
//! `tests/unprivileged/run.sh` runs the suite once more where bubblewrap
//! cannot create its user namespace (as under Ubuntu's AppArmor
//! restriction), with [`NO_USERNS`] set: there the bubblewrap cases must
//! fall back to Landlock by themselves, say why in the question, and
//! still refuse every attack.

use std::io::ErrorKind;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::{Path, PathBuf};
use std::time::Duration;

use hearth_protocol::EventKind;
use hearth_sim::{Reply, ToolCallSpec};
use serde_json::json;

use super::basics::{answering, hearth, ok, sim, with_workers};
use crate::MODEL;

/// Set where this machine refuses user namespaces to the suite's user
/// (`tests/unprivileged/run.sh` makes such a place).
const NO_USERNS: &str = "HEARTH_TEST_NO_USERNS";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mechanism {
    Bubblewrap,
    Landlock,
}

/// A workspace, the temp folder Hearth runs with (the Landlock fallback
/// leaves it writable), and a folder outside both — side by side, so the
/// case holds wherever the checkout and the system temp folder are.
struct Place {
    dir: tempfile::TempDir,
    ws: PathBuf,
    outside: PathBuf,
    db: String,
}

impl Place {
    fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }
}

fn place() -> Place {
    let dir = tempfile::tempdir().unwrap();
    let (ws, outside) = (dir.path().join("ws"), dir.path().join("outside"));
    for d in [&ws, &outside, &dir.path().join("tmp")] {
        std::fs::create_dir_all(d).unwrap();
    }
    let db = dir.path().join("h.sqlite").to_str().unwrap().to_owned();
    Place {
        dir,
        ws,
        outside,
        db,
    }
}

/// What the user was asked and what the command printed.
struct Ran {
    reach: String,
    output: String,
}

/// One hostile turn: the model asks to run `command`, the user says yes.
async fn attack(mechanism: Mechanism, at: &Place, command: &str, env: &[(&str, &str)]) -> Ran {
    attack_holding(mechanism, at, command, env, None).await
}

/// [`attack`], with Hearth started holding descriptor 9 open for appending
/// to `fd9` (as a wrapper script's `exec 9>>~/log` leaves it).
async fn attack_holding(
    mechanism: Mechanism,
    at: &Place,
    command: &str,
    env: &[(&str, &str)],
    fd9: Option<&Path>,
) -> Ran {
    std::fs::write(at.ws.join("attack.py"), ATTACKS).unwrap();
    ok(&[
        "profiles",
        "--db",
        &at.db,
        "set",
        "Shell",
        "--model",
        MODEL,
        "--tools",
        "run_shell",
        "--workspace",
        at.ws.to_str().unwrap(),
    ])
    .await;
    let sim = sim(with_workers("Shell")
        .with_reply(Reply::tool_calls(vec![ToolCallSpec {
            name: "run_shell".into(),
            arguments: json!({"command": command}),
            id: None,
        }]))
        .with_reply(Reply::text("Ran it.")))
    .await;
    let mut cmd = hearth(&[
        "chat",
        "--db",
        &at.db,
        "--url",
        &sim.url(),
        "--profile",
        "Shell",
        "--json",
        "tidy up",
    ]);
    match mechanism {
        Mechanism::Landlock => cmd.env("HEARTH_SANDBOX", "landlock"),
        Mechanism::Bubblewrap => cmd.env_remove("HEARTH_SANDBOX"),
    };
    cmd.env("TMPDIR", at.tmp()).envs(env.iter().copied());
    if let Some(file) = fd9 {
        cmd = holding_fd9(&cmd, file);
    }
    let evs = answering(cmd, "y\n").await;
    let reach = evs
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ApprovalRequested { reach, .. } => Some(reach.clone()),
            _ => None,
        })
        .expect("the command was put to the user");
    let output = evs
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ToolEvent { output, .. } => Some(output.clone()),
            _ => None,
        })
        .expect("a tool result");
    // The question names the mechanism that ran: the case fails where the
    // machine did not enforce the one it tests.
    let named = match mechanism {
        Mechanism::Bubblewrap if std::env::var_os(NO_USERNS).is_some() => {
            "sandboxed by Landlock and seccomp (bubblewrap cannot create its namespaces on this system)"
        }
        Mechanism::Bubblewrap => "sandboxed by bubblewrap",
        Mechanism::Landlock => "sandboxed by Landlock and seccomp",
    };
    assert!(reach.contains(named), "expected {mechanism:?}: {reach}");
    eprintln!("ran under {mechanism:?}: {reach}");
    Ran { reach, output }
}

/// `cmd` started by a shell that first opens descriptor 9 on `file`.
fn holding_fd9(cmd: &tokio::process::Command, file: &Path) -> tokio::process::Command {
    let std = cmd.as_std();
    let mut wrapped = tokio::process::Command::new("bash");
    wrapped
        .arg("-c")
        .arg(r#"exec 9>>"$0"; exec "$@""#)
        .arg(file)
        .arg(std.get_program())
        .args(std.get_args())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    for (key, value) in std.get_envs() {
        match value {
            Some(v) => wrapped.env(key, v),
            None => wrapped.env_remove(key),
        };
    }
    wrapped
}

const BOTH: [Mechanism; 2] = [Mechanism::Bubblewrap, Mechanism::Landlock];

/// What the hostile commands run: one attempt per call, printing
/// `refused: LABEL ERRNO` when the system said no and `done: LABEL` when
/// it let it happen, so a case can tell a refusal from an attack that
/// never ran. Written into the workspace before each case.
const ATTACKS: &str = r#"
import os, socket, sys
def attempt(label, f):
    try:
        f()
        print("done:", label)
    except OSError as e:
        print("refused:", label, e.errno)
what, arg = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
if what == "open-trunc":
    attempt(what, lambda: os.close(os.open(arg, os.O_RDONLY | os.O_TRUNC)))
elif what == "open3-trunc":
    # Access mode 3, "neither read nor write": no write right asked of
    # Landlock before ABI 3, and it still truncates.
    attempt(what, lambda: os.close(os.open(arg, os.O_ACCMODE | os.O_TRUNC)))
elif what == "truncate":
    attempt(what, lambda: os.truncate(arg, 0))
elif what == "unix":
    attempt(what, lambda: socket.socket(socket.AF_UNIX).connect(arg))
elif what == "abstract":
    attempt(what, lambda: socket.socket(socket.AF_UNIX).connect("\0" + arg))
elif what == "tcp":
    attempt(what, lambda: socket.create_connection(("127.0.0.1", int(arg)), timeout=5))
elif what == "chmod":
    attempt(what, lambda: os.chmod(arg, 0o777))
elif what == "tty":
    import fcntl, termios
    attempt(what, lambda: fcntl.ioctl(os.open("/dev/tty", os.O_RDWR), termios.TIOCSTI, b"y"))
elif what == "fork":
    # A fork bomb that stops itself at `arg` children: how far it got.
    import signal
    kids = []
    try:
        while len(kids) < int(arg):
            pid = os.fork()
            if pid == 0:
                signal.pause()
                os._exit(0)
            kids.append(pid)
        print("forked:", len(kids))
    except OSError as e:
        print("fork refused after", len(kids), "errno", e.errno)
    for pid in kids:
        os.kill(pid, 9)
    for pid in kids:
        os.waitpid(pid, 0)
"#;

fn refused(ran: &Ran, label: &str) {
    assert!(
        ran.output.contains(&format!("refused: {label} ")),
        "{label} was not refused: {}",
        ran.output
    );
}

async fn writes_stay_inside(m: Mechanism) {
    let at = place();
    let escape = at.outside.join("escape.txt");
    let ran = attack(
        m,
        &at,
        &format!(
            "echo in > inside.txt; echo out > {}; echo done",
            escape.display()
        ),
        &[],
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(at.ws.join("inside.txt")).unwrap(),
        "in\n"
    );
    assert!(ran.output.contains("done"), "{}", ran.output);
    assert!(!escape.exists(), "wrote outside: {}", ran.output);
    assert!(ran.reach.contains("writes only inside"), "{}", ran.reach);
}

#[tokio::test]
async fn a_command_writes_only_inside_the_workspace() {
    for m in BOTH {
        writes_stay_inside(m).await;
    }
}

async fn truncation_outside(m: Mechanism) {
    let at = place();
    let victim = at.outside.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let v = victim.display();
    let ran = attack(
        m,
        &at,
        &format!(
            "python3 attack.py open-trunc {v}; python3 attack.py open3-trunc {v}; \
             python3 attack.py truncate {v}; true > {v}; echo tried"
        ),
        &[],
    )
    .await;
    refused(&ran, "open-trunc");
    refused(&ran, "open3-trunc");
    refused(&ran, "truncate");
    assert!(ran.output.contains("tried"), "{}", ran.output);
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "precious",
        "{}",
        ran.output
    );
}

#[tokio::test]
async fn a_file_outside_cannot_be_truncated() {
    for m in BOTH {
        truncation_outside(m).await;
    }
}

/// Nothing connected to `listener` (its backlog is empty).
fn untouched(listener: &UnixListener) -> bool {
    listener.set_nonblocking(true).unwrap();
    matches!(listener.accept(), Err(e) if e.kind() == ErrorKind::WouldBlock)
}

async fn sockets_of_other_programs(m: Mechanism) {
    let at = place();
    // A service outside the workspace (what D-Bus, systemd, Docker or an
    // ssh-agent are), on a path and on an abstract name.
    let path = at.outside.join("service.sock");
    let by_path = UnixListener::bind(&path).unwrap();
    let name = format!("hearth-test-{}", std::process::id());
    let by_name =
        UnixListener::bind_addr(&SocketAddr::from_abstract_name(name.as_bytes()).unwrap()).unwrap();
    let ran = attack(
        m,
        &at,
        &format!(
            "python3 attack.py unix {}; python3 attack.py abstract {name}",
            path.display()
        ),
        &[],
    )
    .await;
    refused(&ran, "unix");
    refused(&ran, "abstract");
    assert!(
        untouched(&by_path),
        "reached the service by path: {}",
        ran.output
    );
    assert!(
        untouched(&by_name),
        "reached the abstract socket: {}",
        ran.output
    );
}

#[tokio::test]
async fn other_programs_sockets_cannot_be_reached() {
    for m in BOTH {
        sockets_of_other_programs(m).await;
    }
}

async fn network(m: Mechanism) {
    let at = place();
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    let ran = attack(m, &at, &format!("python3 attack.py tcp {port}"), &[]).await;
    refused(&ran, "tcp");
    server.set_nonblocking(true).unwrap();
    assert!(
        matches!(server.accept(), Err(e) if e.kind() == ErrorKind::WouldBlock),
        "reached the network: {}",
        ran.output
    );
    assert!(ran.reach.contains("no network"), "{}", ran.reach);
}

#[tokio::test]
async fn the_network_cannot_be_reached() {
    for m in BOTH {
        network(m).await;
    }
}

/// A descriptor Hearth inherited reaches no command (security review N8):
/// Hearth starts holding one open on a file outside the workspace, and the
/// command's write through it fails; the command sees only stdin, stdout
/// and stderr (and what it opens itself).
async fn descriptors(m: Mechanism) {
    let at = place();
    let log = at.outside.join("log");
    std::fs::write(&log, "").unwrap();
    let ran = attack_holding(
        m,
        &at,
        "echo \"fds: $(ls /proc/self/fd | tr '\\n' ' ')\"; echo planted >&9 && echo wrote-9 || echo no-fd-9",
        &[],
        Some(&log),
    )
    .await;
    assert!(ran.output.contains("no-fd-9"), "{}", ran.output);
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "", "{}", ran.output);
    // `ls` lists 0, 1, 2 and its own listing's descriptor (3), no more.
    let listed = ran
        .output
        .lines()
        .find_map(|l| l.strip_prefix("fds: "))
        .expect("the listing");
    let fds: Vec<&str> = listed.split_whitespace().collect();
    assert!(fds.len() <= 4 && !fds.contains(&"9"), "{}", ran.output);
}

#[tokio::test]
async fn a_descriptor_hearth_inherited_reaches_no_command() {
    for m in BOTH {
        descriptors(m).await;
    }
}

async fn environment(m: Mechanism) {
    let at = place();
    let ran = attack(
        m,
        &at,
        "env; cat /proc/$PPID/environ /proc/$PPID/cmdline; echo listed",
        &[
            ("HEARTH_API_KEY", "sk-hearth-secret"),
            ("AWS_SECRET_ACCESS_KEY", "aws-secret"),
            ("SSH_AUTH_SOCK", "/tmp/ssh-agent.sock"),
        ],
    )
    .await;
    assert!(ran.output.contains("listed"), "{}", ran.output);
    for secret in ["sk-hearth-secret", "aws-secret", "SSH_AUTH_SOCK"] {
        assert!(
            !ran.output.contains(secret),
            "{secret} leaked: {}",
            ran.output
        );
    }
    assert!(ran.output.contains("PATH="), "{}", ran.output);
}

#[tokio::test]
async fn no_secret_reaches_a_command_through_the_environment() {
    for m in BOTH {
        environment(m).await;
    }
}

async fn signals(m: Mechanism) {
    let at = place();
    let mut victim = std::process::Command::new("sleep")
        .arg("1000")
        .spawn()
        .unwrap();
    let ran = attack(
        m,
        &at,
        &format!("kill -KILL {}; echo tried", victim.id()),
        &[],
    )
    .await;
    let alive = victim.try_wait().unwrap().is_none();
    victim.kill().unwrap();
    victim.wait().unwrap();
    assert!(ran.output.contains("tried"), "{}", ran.output);
    if ran.reach.contains("could still send signals") {
        // Said plainly where the kernel cannot stop it (Landlock below
        // level 6 without bubblewrap); not this machine's case when the
        // assertion below runs.
        eprintln!("this kernel cannot scope signals: {}", ran.reach);
    } else {
        assert!(alive, "a process outside was killed: {}", ran.output);
    }
}

#[tokio::test]
async fn a_process_outside_cannot_be_signalled() {
    for m in BOTH {
        signals(m).await;
    }
}

/// Takes `lock` exclusively, waiting up to 20 s: true once whoever held
/// it is gone (the kernel drops a dead process's locks).
async fn lock_freed(lock: &Path) -> bool {
    let file = std::fs::File::open(lock).unwrap();
    let waited = tokio::task::spawn_blocking(move || file.lock());
    matches!(
        tokio::time::timeout(Duration::from_secs(20), waited).await,
        Ok(Ok(Ok(())))
    )
}

async fn escape_past_the_end(m: Mechanism) {
    let at = place();
    let lock = at.ws.join("held.lock");
    std::fs::write(&lock, "").unwrap();
    let l = lock.display();
    // A process that leaves the command's group and session, holding a
    // lock while it lives; the command returns once it holds it.
    let ran = attack(
        m,
        &at,
        &format!(
            "(setsid flock {l} sleep 1000 || flock {l} sleep 1000) </dev/null >/dev/null 2>&1 & \
             until ! flock -n {l} true; do sleep 0.01; done; echo started"
        ),
        &[],
    )
    .await;
    assert!(ran.output.contains("started"), "{}", ran.output);
    assert!(
        lock_freed(&lock).await,
        "a process started by the command outlived it: {}",
        ran.output
    );
}

#[tokio::test]
async fn nothing_a_command_starts_outlives_it() {
    for m in BOTH {
        escape_past_the_end(m).await;
    }
}

/// Where Landlock lets a command write (its own workspace), the seccomp
/// filter still refuses what Landlock cannot say on older kernels or at
/// all: a read-only open that truncates, truncate(2), permission changes;
/// and the terminal is out of reach. Only the Landlock fallback runs these
/// through seccomp alone (bubblewrap's read-only root stops them first
/// outside the workspace).
#[tokio::test]
async fn the_filter_holds_inside_the_workspace_too() {
    let at = place();
    std::fs::write(at.ws.join("mine.txt"), "kept").unwrap();
    let ran = attack(
        Mechanism::Landlock,
        &at,
        "python3 attack.py open-trunc mine.txt; python3 attack.py open3-trunc mine.txt; \
         python3 attack.py truncate mine.txt; python3 attack.py chmod mine.txt; \
         python3 attack.py tty",
        &[],
    )
    .await;
    for label in ["open-trunc", "open3-trunc", "truncate", "chmod", "tty"] {
        refused(&ran, label);
    }
    assert_eq!(
        std::fs::read_to_string(at.ws.join("mine.txt")).unwrap(),
        "kept"
    );
}

/// What git runs from stays as it is, under both mechanisms (security
/// review N1): not only `.git/hooks` and `.git/config`, but `.git` whole (a
/// `commondir` written there made git take config and hooks from a folder
/// the command made; `.git` renamed and made anew carried new hooks), and
/// the hooks folder the config names (husky's). Work beside them goes on:
/// an existing file and an existing folder are written.
async fn git_stays(m: Mechanism) {
    let at = place();
    let config = "[core]\n\thooksPath = .husky/_\n";
    std::fs::create_dir_all(at.ws.join(".git/hooks")).unwrap();
    std::fs::write(at.ws.join(".git/config"), config).unwrap();
    std::fs::write(at.ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::create_dir_all(at.ws.join(".husky/_")).unwrap();
    std::fs::write(at.ws.join(".husky/_/pre-commit"), "npm test\n").unwrap();
    std::fs::create_dir_all(at.ws.join("src")).unwrap();
    std::fs::write(at.ws.join("README.md"), "# r\n").unwrap();
    // A repository nested in the workspace (a vendored clone).
    std::fs::create_dir_all(at.ws.join("vendor/lib/.git/hooks")).unwrap();
    std::fs::write(at.ws.join("vendor/lib/.git/config"), "[core]\n").unwrap();
    std::fs::write(at.ws.join("vendor/lib/lib.c"), "int x;\n").unwrap();
    let ran = attack(
        m,
        &at,
        "echo ../.cache/g > .git/commondir; echo evil > .git/hooks/pre-commit; \
         echo '[core] fsmonitor = evil' >> .git/config; mv .git .git-old; \
         echo evil >> .husky/_/pre-commit; echo ok > src/notes.txt; echo more >> README.md; \
         echo evil > vendor/lib/.git/hooks/post-checkout; \
         echo '[core] fsmonitor = evil' >> vendor/lib/.git/config; echo 'int y;' >> vendor/lib/lib.c; \
         echo tried",
        &[],
    )
    .await;
    assert!(ran.output.contains("tried"), "{}", ran.output);
    for planted in [
        ".git/commondir",
        ".git/hooks/pre-commit",
        ".git-old",
        "vendor/lib/.git/hooks/post-checkout",
    ] {
        assert!(
            !at.ws.join(planted).exists(),
            "{m:?}: {planted} was made: {}",
            ran.output
        );
    }
    let read = |p: &str| std::fs::read_to_string(at.ws.join(p)).unwrap();
    assert_eq!(read(".git/config"), config, "{m:?}: {}", ran.output);
    assert_eq!(
        read(".husky/_/pre-commit"),
        "npm test\n",
        "{m:?}: {}",
        ran.output
    );
    assert_eq!(read("src/notes.txt"), "ok\n", "{m:?}: {}", ran.output);
    assert_eq!(read("README.md"), "# r\nmore\n", "{m:?}: {}", ran.output);
    assert_eq!(
        read("vendor/lib/.git/config"),
        "[core]\n",
        "{m:?}: {}",
        ran.output
    );
    assert_eq!(
        read("vendor/lib/lib.c"),
        "int x;\nint y;\n",
        "{m:?}: {}",
        ran.output
    );
    assert!(
        ran.reach.contains("where .git, and the hooks"),
        "{}",
        ran.reach
    );
}

#[tokio::test]
async fn what_git_runs_from_stays_as_it_is() {
    for m in BOTH {
        git_stays(m).await;
    }
}

/// A folder above a protected one moved away and made anew: Landlock
/// refuses the move (nothing is made or removed beside a protected path);
/// where bubblewrap lets it happen (a mount point's parent can be
/// renamed), the result tells the user what was replaced.
async fn moved_around(m: Mechanism) {
    let at = place();
    std::fs::create_dir_all(at.ws.join(".git")).unwrap();
    std::fs::write(
        at.ws.join(".git/config"),
        "[core]\n\thooksPath = tools/hooks\n",
    )
    .unwrap();
    std::fs::create_dir_all(at.ws.join("tools/hooks")).unwrap();
    std::fs::write(at.ws.join("tools/hooks/pre-commit"), "make lint\n").unwrap();
    let ran = attack(
        m,
        &at,
        "mv tools tools-old && mkdir -p tools/hooks && echo evil > tools/hooks/pre-commit; echo tried",
        &[],
    )
    .await;
    assert!(ran.output.contains("tried"), "{}", ran.output);
    let hook = std::fs::read_to_string(at.ws.join("tools/hooks/pre-commit")).unwrap();
    let kept = hook == "make lint\n" && !at.ws.join("tools-old").exists();
    let reported = ran
        .output
        .contains("[Hearth: this command replaced, removed or made tools/hooks");
    match m {
        Mechanism::Landlock => assert!(kept, "{}", ran.output),
        Mechanism::Bubblewrap => assert!(kept || reported, "{}", ran.output),
    }
}

#[tokio::test]
async fn a_hooks_folder_moved_away_is_refused_or_reported() {
    for m in BOTH {
        moved_around(m).await;
    }
}

/// A workspace that holds Hearth's own database (the home folder as the
/// workspace does): a command there is asked every time, pre-approved or
/// not, and the question says why.
#[tokio::test]
async fn a_workspace_holding_hearths_data_is_asked_every_time() {
    let at = place();
    let data = at.ws.join(".local/share/hearth");
    std::fs::create_dir_all(&data).unwrap();
    let db = data.join("h.sqlite").to_str().unwrap().to_owned();
    let ws = at.ws.to_str().unwrap();
    ok(&[
        "profiles",
        "--db",
        &db,
        "set",
        "Shell",
        "--model",
        MODEL,
        "--tools",
        "run_shell",
        "--workspace",
        ws,
        "--auto-approve",
        "run_shell",
    ])
    .await;
    let sim = sim(with_workers("Shell")
        .with_reply(Reply::tool_calls(vec![ToolCallSpec {
            name: "run_shell".into(),
            arguments: json!({"command": "echo hello"}),
            id: None,
        }]))
        .with_reply(Reply::text("Ran it.")))
    .await;
    let mut cmd = hearth(&[
        "chat",
        "--db",
        &db,
        "--url",
        &sim.url(),
        "--profile",
        "Shell",
        "--json",
        "say hello",
    ]);
    cmd.env("TMPDIR", at.tmp());
    let evs = answering(cmd, "y\n").await;
    let warning = evs
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ApprovalRequested { warning, .. } => Some(warning.clone()),
            _ => None,
        })
        .expect("the pre-approved command was asked all the same");
    let warning = warning.expect("the question says why");
    assert!(warning.contains("holds Hearth's own data"), "{warning}");
}

/// Under bubblewrap the git hooks of the workspace stay read-only: a hook
/// planted there would run later, outside any sandbox.
#[tokio::test]
async fn git_hooks_stay_read_only_under_bubblewrap() {
    let at = place();
    std::fs::create_dir_all(at.ws.join(".git/hooks")).unwrap();
    std::fs::write(at.ws.join(".git/config"), "[core]\n").unwrap();
    let ran = attack(
        Mechanism::Bubblewrap,
        &at,
        "echo evil > .git/hooks/pre-commit; echo '[core] fsmonitor = evil' >> .git/config; \
         echo ok > notes.txt; echo tried",
        &[],
    )
    .await;
    assert!(ran.output.contains("tried"), "{}", ran.output);
    assert!(
        !at.ws.join(".git/hooks/pre-commit").exists(),
        "{}",
        ran.output
    );
    assert_eq!(
        std::fs::read_to_string(at.ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
    if std::env::var_os(NO_USERNS).is_some() {
        // Fallen back to Landlock, which keeps .git as it is by letting
        // nothing be made beside it (what its question says).
        assert!(!at.ws.join("notes.txt").exists(), "{}", ran.output);
    } else {
        assert_eq!(
            std::fs::read_to_string(at.ws.join("notes.txt")).unwrap(),
            "ok\n"
        );
    }
}

/// A fork bomb ends at the process limit, not at the machine's (turn-2
/// review L10): the command starts with no core files and a task limit of
/// what its user runs plus 1,024. The kernel exempts root from that limit,
/// so as root the limits are read; as a desktop user
/// (`tests/unprivileged/run.sh` runs this suite so) a bomb of 3,000 forks
/// is refused after about 1,024 (a few more inside bubblewrap).
async fn forks(m: Mechanism) {
    let at = place();
    let ran = attack(
        m,
        &at,
        "echo \"limits: $(ulimit -c) \
         $(sed -n 's/^Max processes *\\([0-9a-z]*\\).*/\\1/p' /proc/self/limits) $(id -u)\"; \
         [ \"$(id -u)\" = 0 ] || python3 attack.py fork 3000",
        &[],
    )
    .await;
    let limits: Vec<String> = ran
        .output
        .lines()
        .find_map(|l| l.strip_prefix("limits: "))
        .expect("the limits")
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let [core, tasks, uid] = limits.as_slice() else {
        panic!("{}", ran.output)
    };
    assert_eq!(core, "0", "{}", ran.output);
    let tasks: u64 = tasks.parse().unwrap_or_else(|_| panic!("{}", ran.output));
    assert!(tasks >= 1024, "{}", ran.output);
    if uid != "0" {
        let got: u64 = ran
            .output
            .lines()
            .find_map(|l| l.strip_prefix("fork refused after "))
            .and_then(|r| r.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("the bomb was not stopped: {}", ran.output));
        // Other processes of this user (the suite's) share the 1,024. Inside
        // bubblewrap's user namespace a few tasks Hearth counts (started
        // before the namespace) are charged outside it, so the bomb may get
        // that many more: a few, never the machine's limit.
        assert!((256..=1024 + 64).contains(&got), "{}", ran.output);
        assert!(ran.output.contains("errno 11"), "{}", ran.output);
    }
}

#[tokio::test]
async fn a_fork_bomb_ends_at_the_process_limit() {
    for m in BOTH {
        forks(m).await;
    }
}
