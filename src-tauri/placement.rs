//! Where the window opens. The window-state plugin gives it the size and
//! place it had at the last quit; one that would not fit the screen it
//! opens on (saved on a bigger screen, or mostly off it: a second screen
//! since unplugged) is made to fit and centred, twice over:
//! - before it is first shown ([`fit_saved_place`]), from the plugin's
//!   file and the screens the display has, so it does not appear at the
//!   bigger screen's size and then shrink (a hidden window's own size and
//!   screen read as nothing, so it cannot be asked). What is fitted is
//!   the inside: a window manager's frame still comes on top;
//! - once it is up ([`fit_on_screen`]), by its real size with that frame,
//!   which nothing knows before: a framed window may shrink by the
//!   frame's width once the page has loaded.
//!
//! A maximized or full-screen window is the window manager's. Under
//! Wayland the first step is skipped: a window's place is neither read
//! nor set there (the plugin saves 0, 0), so which screen it opens on is
//! the compositor's, and only the second step, on the screen it is on,
//! applies.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use tauri::{AppHandle, Manager, Runtime, WebviewWindow};

/// What [`fit_saved_place`] and [`fit_on_screen`] say when they move the
/// window.
const MOVED: &str = "the window's saved place does not fit this screen: centred";

/// Before the window is first shown (it is made hidden): a saved place
/// that does not fit the screen it would open on is fitted now, from the
/// window-state plugin's file and the screens the display has.
pub fn fit_saved_place<R: Runtime>(app: &AppHandle<R>, window: &WebviewWindow<R>) {
    if wayland() {
        return;
    }
    let Ok(dir) = app.path().app_config_dir() else {
        return;
    };
    let Some(saved) = saved_place(&dir.join(tauri_plugin_window_state::DEFAULT_FILENAME)) else {
        return;
    };
    let area = |m: &tauri::Monitor| {
        let a = m.work_area();
        Place {
            x: a.position.x,
            y: a.position.y,
            width: a.size.width,
            height: a.size.height,
        }
    };
    // The primary screen first: where the system opens a window that
    // touches none. A screen that reports no area is no place to go.
    let mut screens: Vec<Place> = app
        .primary_monitor()
        .ok()
        .flatten()
        .iter()
        .map(area)
        .collect();
    screens.extend(
        app.available_monitors()
            .unwrap_or_default()
            .iter()
            .map(area),
    );
    screens.retain(|s| s.width > 0 && s.height > 0);
    let Some(to) = screen_for(saved, &screens).and_then(|screen| fitted(saved, screen)) else {
        return;
    };
    tracing::info!("{MOVED}, before it is shown");
    // The place first, as the plugin does: on screens of different
    // scales, a size set before a move across them would be rescaled.
    if let Err(e) = window
        .set_position(tauri::PhysicalPosition::new(to.x, to.y))
        .and_then(|()| window.set_size(tauri::PhysicalSize::new(to.width, to.height)))
    {
        tracing::warn!("cannot fit the window to the screen: {e}");
    }
}

/// A Wayland session that GTK draws on as such (not through XWayland).
fn wayland() -> bool {
    let backend = std::env::var("GDK_BACKEND").unwrap_or_default();
    std::env::var_os("WAYLAND_DISPLAY").is_some_and(|d| !d.is_empty())
        && !backend.starts_with("x11")
}

/// The place the window-state plugin saved for the main window (its
/// outer corner and inner size, in pixels): `None` when there is none,
/// the window was maximized or full-screen, or the file cannot be read
/// (the plugin then leaves the window at its default).
fn saved_place(file: &Path) -> Option<Place> {
    place_in(&std::fs::read_to_string(file).ok()?)
}

/// [`saved_place`], from the file's text.
fn place_in(text: &str) -> Option<Place> {
    use serde_json::Value;
    let all: Value = serde_json::from_str(text).ok()?;
    let main = all.get("main")?;
    let flag = |k: &str| main.get(k).and_then(Value::as_bool).unwrap_or(false);
    if flag("maximized") || flag("fullscreen") {
        return None;
    }
    let int = |k: &str| {
        main.get(k)
            .and_then(Value::as_i64)
            .and_then(|n| i32::try_from(n).ok())
    };
    let size = |k: &str| {
        main.get(k)
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n > 0)
    };
    Some(Place {
        x: int("x")?,
        y: int("y")?,
        width: size("width")?,
        height: size("height")?,
    })
}

/// The screen a window at `window` opens on: the one its middle is on,
/// else the one it covers most (as a screen is chosen for a window once
/// it is up), else the first of `screens` (the primary: where the system
/// opens a window that touches no screen).
fn screen_for(window: Place, screens: &[Place]) -> Option<Place> {
    let inside = |p: i64, o: i32, a: u32| p >= i64::from(o) && p < i64::from(o) + i64::from(a);
    let (mx, my) = (
        i64::from(window.x) + i64::from(window.width / 2),
        i64::from(window.y) + i64::from(window.height / 2),
    );
    // The length two spans share (0 when apart).
    let shared = |p: i32, l: u32, o: i32, a: u32| {
        let start = i64::from(p).max(i64::from(o));
        let end = (i64::from(p) + i64::from(l)).min(i64::from(o) + i64::from(a));
        (end - start).max(0)
    };
    let covered = |s: &Place| {
        shared(window.x, window.width, s.x, s.width)
            * shared(window.y, window.height, s.y, s.height)
    };
    screens
        .iter()
        .find(|s| inside(mx, s.x, s.width) && inside(my, s.y, s.height))
        .or_else(|| {
            screens
                .iter()
                .filter(|s| covered(s) > 0)
                .max_by_key(|s| covered(s))
        })
        .or_else(|| screens.first())
        .copied()
}

/// Make a restored window fit its screen, once per process (a reload
/// leaves it where the person put it): one saved on a bigger screen is
/// shrunk to it, and one mostly off it (its middle outside) is centred. A
/// maximized or full-screen window is the window manager's.
pub fn fit_on_screen<R: Runtime>(window: &tauri::Window<R>) {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::Relaxed)
        || window.is_maximized().unwrap_or(true)
        || window.is_fullscreen().unwrap_or(true)
    {
        return;
    }
    let (Ok(Some(screen)), Ok(position), Ok(outer), Ok(inner)) = (
        window.current_monitor(),
        window.outer_position(),
        window.outer_size(),
        window.inner_size(),
    ) else {
        return;
    };
    let now = Place {
        x: position.x,
        y: position.y,
        width: outer.width,
        height: outer.height,
    };
    let area = screen.work_area();
    let screen = Place {
        x: area.position.x,
        y: area.position.y,
        width: area.size.width,
        height: area.size.height,
    };
    let Some(to) = fitted(now, screen) else {
        return;
    };
    tracing::info!("{MOVED}");
    // The size asked for is the inside; the frame (a window manager's) is
    // what the outside has more.
    let frame = (
        outer.width.saturating_sub(inner.width),
        outer.height.saturating_sub(inner.height),
    );
    let size = tauri::PhysicalSize::new(
        to.width.saturating_sub(frame.0),
        to.height.saturating_sub(frame.1),
    );
    if let Err(e) = window
        .set_size(size)
        .and_then(|()| window.set_position(tauri::PhysicalPosition::new(to.x, to.y)))
    {
        tracing::warn!("cannot fit the window to the screen: {e}");
    }
}

/// A window's or a screen's rectangle, in physical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Place {
    x: i32,
    y: i32,
    width: u32,
    height: u32,
}

/// Where `window` goes to be usable on `screen`: `None` when it is no
/// bigger than the screen and its middle is on it (a window the person
/// left partly off an edge stays there); else no bigger than the screen,
/// centred on it.
fn fitted(window: Place, screen: Place) -> Option<Place> {
    let middle_on = |p: i32, s: u32, o: i32, a: u32| {
        let middle = i64::from(p) + i64::from(s / 2);
        middle >= i64::from(o) && middle < i64::from(o) + i64::from(a)
    };
    if window.width <= screen.width
        && window.height <= screen.height
        && middle_on(window.x, window.width, screen.x, screen.width)
        && middle_on(window.y, window.height, screen.y, screen.height)
    {
        return None;
    }
    let (width, height) = (
        window.width.min(screen.width),
        window.height.min(screen.height),
    );
    let centre =
        |o: i32, a: u32, s: u32| i32::try_from(i64::from(o) + i64::from((a - s) / 2)).unwrap_or(o);
    Some(Place {
        x: centre(screen.x, screen.width, width),
        y: centre(screen.y, screen.height, height),
        width,
        height,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_bigger_than_its_screen_or_off_it_is_made_whole_and_centred() {
        let screen = Place {
            x: 0,
            y: 0,
            width: 1280,
            height: 800,
        };
        let at = |x, y, width, height| Place {
            x,
            y,
            width,
            height,
        };
        // Whole already: left where it is.
        assert_eq!(fitted(at(210, 130, 900, 640), screen), None);
        assert_eq!(fitted(at(0, 0, 1280, 800), screen), None);
        // Saved on a bigger screen: the screen's size, centred.
        assert_eq!(
            fitted(at(100, 50, 2400, 1400), screen),
            Some(at(0, 0, 1280, 800))
        );
        // Partly off an edge, its middle on the screen: left there.
        assert_eq!(fitted(at(700, 100, 800, 600), screen), None);
        // Mostly off the right edge: centred, its size kept.
        assert_eq!(
            fitted(at(1000, 100, 800, 600), screen),
            Some(at(240, 100, 800, 600))
        );
        // Off a second screen that is gone (negative place).
        assert_eq!(
            fitted(at(-1500, 20, 1000, 700), screen),
            Some(at(140, 50, 1000, 700))
        );
        // A screen that does not start at 0 (a panel on the left).
        let right = Place {
            x: 1920,
            y: 0,
            width: 1000,
            height: 700,
        };
        assert_eq!(
            fitted(at(100, 100, 800, 600), right),
            Some(at(2020, 50, 800, 600))
        );
    }

    #[test]
    fn the_saved_place_is_read_as_the_plugin_writes_it_and_a_screen_is_chosen_for_it() {
        let at = |x, y, width, height| Place {
            x,
            y,
            width,
            height,
        };
        let file = r#"{"main":{"width":2400,"height":1400,"x":100,"y":50,"prev_x":100,"prev_y":50,"maximized":false,"visible":true,"decorated":true,"fullscreen":false}}"#;
        assert_eq!(place_in(file), Some(at(100, 50, 2400, 1400)));
        // Maximized or full-screen: the window manager's; nothing, or
        // nonsense: the plugin's default.
        for other in [
            file.replace(r#""maximized":false"#, r#""maximized":true"#),
            file.replace(r#""fullscreen":false"#, r#""fullscreen":true"#),
            file.replace("main", "other"),
            file.replace("2400", "0"),
            file.replace("2400", "-5"),
            "not json".to_owned(),
        ] {
            assert_eq!(place_in(&other), None, "{other}");
        }
        let primary = at(0, 0, 1280, 800);
        let left = at(-1920, 0, 1920, 1080);
        let screens = [primary, left, primary];
        // Its middle on the left screen; on the primary; touching the left
        // one only.
        assert_eq!(screen_for(at(-1500, 20, 1000, 700), &screens), Some(left));
        assert_eq!(screen_for(at(-100, 20, 2400, 700), &screens), Some(primary));
        assert_eq!(screen_for(at(-2400, 20, 600, 700), &screens), Some(left));
        // Its middle below both: the one it covers most, not the first it
        // touches (the primary, listed first).
        assert_eq!(screen_for(at(-1500, 500, 2000, 1200), &screens), Some(left));
        // On none: the primary.
        assert_eq!(
            screen_for(at(5000, 5000, 600, 700), &screens),
            Some(primary)
        );
        assert_eq!(screen_for(at(0, 0, 10, 10), &[]), None);
        // Saved on a bigger screen: fitted to this one before it is shown.
        let saved = place_in(file).unwrap();
        assert_eq!(
            screen_for(saved, &[primary]).and_then(|s| fitted(saved, s)),
            Some(primary)
        );
    }
}
