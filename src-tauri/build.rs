//! Build script of the desktop shell: runs tauri-build, which reads
//! `tauri.conf.json`, embeds the frontend and icons, and compiles the
//! capabilities. The app manifest lists the shell's own commands so that
//! each gets an `allow-…` permission and is callable only where a
//! capability grants it.

fn main() {
    let manifest = tauri_build::AppManifest::new().commands(&["app_version"]);
    let attributes = tauri_build::Attributes::new().app_manifest(manifest);
    if let Err(err) = tauri_build::try_build(attributes) {
        // A build script reports failure by exiting non-zero; the message is
        // what cargo shows the developer.
        eprintln!("tauri-build failed: {err:#}");
        std::process::exit(1);
    }
}
