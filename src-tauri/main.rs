//! Entry point of the `hearth-app` binary: starts the desktop shell from
//! `hearth_app::run` and turns a startup failure into a message and a
//! non-zero exit status.

// No console window next to the app in Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

fn main() -> ExitCode {
    // run_shell re-executes this binary to sandbox a command.
    if let Some(code) = hearth_tools::sandbox::run_if_requested() {
        return code;
    }
    // The store re-executes it to read a PDF's or a spreadsheet's text,
    // bounded.
    if let Some(code) = hearth_store::run_reader_if_requested() {
        return code;
    }
    // `make bindings`: write ui/src/bindings.ts and leave (no window).
    let args: Vec<String> = std::env::args().skip(1).take(2).collect();
    if let [flag, path] = args.as_slice()
        && flag == "--export-bindings"
    {
        return match hearth_app::bindings::export(std::path::Path::new(path)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("hearth-app: cannot export the bindings: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(problem) = missing_display() {
        eprintln!("hearth-app: {problem}");
        return ExitCode::FAILURE;
    }
    match hearth_app::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("hearth-app: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Says why no window can open, when that is known before starting: on
/// Linux, GTK aborts the process with a panic and a backtrace when there is
/// no display, which tells a user nothing.
fn missing_display() -> Option<&'static str> {
    let linux = cfg!(target_os = "linux");
    let has_display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|var| std::env::var_os(var).is_some_and(|v| !v.is_empty()));
    (linux && !has_display).then_some(
        "no display: neither DISPLAY nor WAYLAND_DISPLAY is set. Start Hearth from a \
         graphical session, or on a virtual display with `xvfb-run -a hearth-app`.",
    )
}
