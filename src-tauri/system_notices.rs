//! Notices on the desktop, through tauri-plugin-notification (D-Bus on
//! Linux): shown while the window is in the background, taken off the
//! screen once they have nothing left to say, and a click on one brings
//! the window forward.
//!
//! - A notice that asks (an approval, a plan) is withdrawn once its request
//!   is answered or its run ends (`notices.rs` says when): left up, it
//!   would ask for something already decided.
//! - When the window takes the focus, every notice still up is withdrawn:
//!   the person is in front of what they said.
//! - A click on a notice (the server's `default` action, the plugin's
//!   `tap`) shows and focuses the window, as a second launch does, and
//!   asks the page to open the notice's session (`page_events.rs`).
//!
//! The plugin tracks each notice by an id of ours and sends it on a
//! blocking task, on the one connection it keeps. Closing waits for a
//! `Notify` under way, but one not yet begun (the first notice also
//! connects to the bus first) is not closed: a withdrawal in that gap
//! leaves the notice up. The ids of those that ask are kept until their
//! request is answered, so a later withdrawal still finds them. Every
//! D-Bus call runs on a blocking thread: a slow or hung notification
//! server must not hold the window's thread or the run's events.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};

use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_notification::NotificationExt;

use crate::desktop::{Focus, bring_forward};
use crate::notices::{Notice, Update};
use crate::page_events::{PageEvent, PageEvents};

/// The most notices whose session is remembered for a click.
const MAX_REMEMBERED: usize = 256;

/// The notices this app has up, by the plugin's id.
#[derive(Default)]
pub struct OnScreen {
    next: AtomicI32,
    /// The ids of those that ask, by request.
    asking: Mutex<HashMap<String, i32>>,
    /// The session of each notice that may still be up, by id.
    about: Mutex<HashMap<i32, String>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl OnScreen {
    fn asking(&self) -> std::sync::MutexGuard<'_, HashMap<String, i32>> {
        lock(&self.asking)
    }

    fn about(&self) -> std::sync::MutexGuard<'_, HashMap<i32, String>> {
        lock(&self.about)
    }
}

/// Keep track of notices, and bring the window forward, on the notice's
/// session, when one is clicked. Once, in setup.
pub fn set_up<R: Runtime>(app: &AppHandle<R>) {
    app.manage(OnScreen::default());
    let handle = app.clone();
    let clicked = app.notification().on_action(move |action| {
        if action.action_id() != "tap" {
            return;
        }
        let session = action.notification().and_then(|n| {
            handle
                .try_state::<OnScreen>()
                .and_then(|on| on.about().get(&n.id()).cloned())
        });
        bring_forward(&handle, "a click on a notice");
        match (session, handle.try_state::<PageEvents>()) {
            (Some(session_id), Some(page)) => {
                tracing::info!("a click on a notice: opening session {session_id}");
                page.send(PageEvent::OpenSession { session_id });
            }
            _ => tracing::debug!("a click on a notice of no known session"),
        }
    });
    if let Err(e) = clicked {
        tracing::warn!("clicks on notices will not show the window: {e}");
    }
}

/// Apply what a run's event did to its notices.
pub fn apply<R: Runtime>(app: &AppHandle<R>, update: Update) {
    match update {
        Update::Show(notice) => show(app, notice),
        Update::Withdraw { requests, why } => {
            let Some(on) = app.try_state::<OnScreen>() else {
                return;
            };
            let ids: Vec<i32> = {
                let mut asking = on.asking();
                requests.iter().filter_map(|r| asking.remove(r)).collect()
            };
            if ids.is_empty() {
                return;
            }
            tracing::debug!("notices withdrawn ({why}): {requests:?}");
            let app = app.clone();
            tauri::async_runtime::spawn_blocking(move || {
                if let Err(e) = app.notification().remove_active(ids) {
                    tracing::warn!("cannot withdraw the notices of {requests:?}: {e}");
                }
            });
        }
    }
}

/// The window took the focus: nothing on the desktop needs saying. Called
/// on the window's thread: the closing runs elsewhere. The ids of those
/// that ask stay, for a withdrawal of one shown in the meantime; each
/// notice's session goes once the server says it closed (a server may
/// focus the window before it reports the click that did it).
pub fn window_focused<R: Runtime>(app: &AppHandle<R>) {
    let app = app.clone();
    tauri::async_runtime::spawn_blocking(move || {
        if let Err(e) = app.notification().remove_all_active() {
            tracing::warn!("cannot withdraw the notices on screen: {e}");
        }
    });
}

/// Show `notice` as a system notification, unless the window has the focus
/// or the person turned notifications off (Settings). A desktop without a
/// notification server loses the notice, nothing else.
fn show<R: Runtime>(app: &AppHandle<R>, notice: Notice) {
    if app.try_state::<Focus>().is_some_and(|f| f.get()) {
        tracing::debug!("not shown (the window has the focus): {}", notice.title);
        return;
    }
    // Read here rather than kept: Settings writes the file, and a notice
    // is rare enough (an approval, a long answer) for one small read.
    if !crate::prefs::load(app).notify {
        tracing::debug!("not shown (notifications are off): {}", notice.title);
        return;
    }
    let Some(on) = app.try_state::<OnScreen>() else {
        return;
    };
    let id = on.next.fetch_add(1, Ordering::Relaxed) + 1;
    if let Some(r) = &notice.request_id {
        on.asking().insert(r.clone(), id);
    }
    {
        let mut about = on.about();
        // A server that never says a notice closed: the oldest go.
        while about.len() >= MAX_REMEMBERED {
            let Some(oldest) = about.keys().min().copied() else {
                break;
            };
            about.remove(&oldest);
        }
        about.insert(id, notice.session_id.clone());
    }
    let handle = app.clone();
    tracing::info!("notice: {}", notice.title);
    if let Err(e) = app
        .notification()
        .builder()
        .id(id)
        .on_close(move || {
            if let Some(on) = handle.try_state::<OnScreen>() {
                on.about().remove(&id);
            }
        })
        .title(&notice.title)
        .body(&notice.body)
        .show()
    {
        tracing::warn!("cannot show the notification {:?}: {e}", notice.title);
    }
}
