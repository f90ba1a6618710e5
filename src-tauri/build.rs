//! Build script of the desktop shell: runs tauri-build, which reads
//! `tauri.conf.json`, embeds the frontend and icons, and compiles the
//! capabilities. The app manifest lists the shell's own commands so that
//! each gets an `allow-…` permission and is callable only where a
//! capability grants it.

/// Every command of `bindings.rs` (a test checks the two lists agree).
const COMMANDS: &[&str] = &[
    "app_version",
    "app_info",
    "page_events",
    "get_prefs",
    "set_prefs",
    "open_link",
    "backend_status",
    "set_ollama_url",
    "set_openai_url",
    "list_sessions",
    "search_sessions",
    "new_session",
    "open_session",
    "rename_session",
    "delete_session",
    "restore_session",
    "export_session",
    "import_file",
    "save_artifact",
    "choose_workspace",
    "save_unsent",
    "switch_branch",
    "run_trace",
    "send_message",
    "attach_file",
    "attachment_data",
    "regenerate",
    "edit_and_resend",
    "follow_run",
    "stop_run",
    "queue_message",
    "cancel_queued",
    "approve",
    "answer_plan",
    "voice_start",
    "voice_stop",
    "voice_status",
    "speak_text",
    "stop_speaking",
    "speaking_status",
    "list_profiles",
    "save_profile",
    "delete_profile",
    "set_default_profile",
    "set_persona",
    "switch_profile",
    "set_session_model",
    "list_hosts",
    "add_host",
    "remove_host",
    "set_session_host",
    "list_memories",
    "memory_history",
    "add_memory",
    "decline_memory",
    "edit_memory",
    "delete_memory",
    "memory_summary",
    "list_summaries",
    "edit_summary",
    "delete_summary",
    "list_models",
    "running_models",
    "delete_model",
    "check_model_settings",
    "set_model_settings",
    "preload_model",
    "unload_model",
    "start_pull",
    "cancel_pull",
    "list_pulls",
    "list_mcp_servers",
    "save_mcp_config",
    "restart_mcp_server",
    "mcp_server_log",
    "list_skills",
    "show_hooks",
];

fn main() {
    let manifest = tauri_build::AppManifest::new().commands(COMMANDS);
    let attributes = tauri_build::Attributes::new().app_manifest(manifest);
    if let Err(err) = tauri_build::try_build(attributes) {
        // A build script reports failure by exiting non-zero; the message is
        // what cargo shows the developer.
        eprintln!("tauri-build failed: {err:#}");
        std::process::exit(1);
    }
}
