//! The typed IPC surface: every command the UI may call, exported with
//! tauri-specta to `ui/src/bindings.ts` (committed). The test
//! `bindings_are_current` regenerates the file and fails when it differs,
//! so the TypeScript can never drift from the Rust types; `make bindings`
//! rewrites it (see [`export`]).

use tauri::Wry;
use tauri_specta::{Builder, collect_commands};

use crate::commands::{
    app, attachments, chat, hosts, knowledge, mcp_apps, memory, models, profiles, projects,
    sessions, speak, tools, transfer, updates, voice,
};

/// The commands, in one place. `build.rs` lists the same names for the app
/// manifest (a test checks the two lists agree).
pub fn builder() -> Builder<Wry> {
    Builder::<Wry>::new()
        // The wire format the page was built against: a page that meets a
        // core speaking another one says so (ui/src/state/chat.svelte.ts).
        .constant("PROTOCOL_VERSION", hearth_protocol::PROTOCOL_VERSION)
        .commands(collect_commands![
            app::app_version,
            app::app_info,
            app::page_events,
            app::get_prefs,
            app::set_prefs,
            app::open_link,
            app::backend_status,
            app::set_ollama_url,
            app::set_openai_url,
            updates::check_update,
            updates::install_update,
            sessions::list_sessions,
            sessions::search_sessions,
            sessions::new_session,
            sessions::open_session,
            sessions::rename_session,
            sessions::delete_session,
            sessions::restore_session,
            transfer::export_session,
            transfer::import_file,
            transfer::save_artifact,
            profiles::choose_workspace,
            sessions::save_unsent,
            sessions::switch_branch,
            sessions::run_trace,
            chat::send_message,
            attachments::attach_file,
            attachments::attachment_data,
            chat::regenerate,
            chat::edit_and_resend,
            chat::follow_run,
            chat::stop_run,
            chat::queue_message,
            chat::cancel_queued,
            chat::approve,
            chat::answer_plan,
            voice::voice_start,
            voice::voice_stop,
            voice::voice_status,
            speak::speak_text,
            speak::stop_speaking,
            speak::speaking_status,
            knowledge::knowledge_status,
            knowledge::knowledge_choose_folder,
            knowledge::knowledge_add_folder,
            knowledge::knowledge_remove_folder,
            knowledge::knowledge_skipped,
            knowledge::knowledge_set_model,
            knowledge::knowledge_sync,
            knowledge::knowledge_stop_sync,
            knowledge::knowledge_search,
            projects::list_projects,
            projects::create_project,
            projects::update_project,
            projects::delete_project,
            projects::move_session,
            projects::set_session_knowledge,
            projects::export_project,
            projects::answer_sources,
            projects::knowledge_passage,
            profiles::list_profiles,
            profiles::save_profile,
            profiles::delete_profile,
            profiles::set_default_profile,
            profiles::set_persona,
            profiles::switch_profile,
            sessions::set_session_model,
            hosts::list_hosts,
            hosts::add_host,
            hosts::remove_host,
            hosts::set_session_host,
            memory::list_memories,
            memory::memory_history,
            memory::add_memory,
            memory::decline_memory,
            memory::edit_memory,
            memory::delete_memory,
            memory::memory_summary,
            memory::list_summaries,
            memory::edit_summary,
            memory::delete_summary,
            models::list_models,
            models::running_models,
            models::delete_model,
            models::check_model_settings,
            models::set_model_settings,
            models::preload_model,
            models::unload_model,
            models::start_pull,
            models::cancel_pull,
            models::list_pulls,
            tools::list_mcp_servers,
            tools::save_mcp_config,
            tools::restart_mcp_server,
            tools::mcp_server_log,
            tools::list_skills,
            tools::show_hooks,
            mcp_apps::mcp_app_view,
            mcp_apps::mcp_app_call_tool,
            mcp_apps::mcp_app_read_resource,
            mcp_apps::mcp_app_open_link,
            mcp_apps::mcp_app_log,
        ])
        // Ids and byte sizes stay far below 2^53.
        .dangerously_cast_bigints_to_number()
        // One TypeScript type per Rust type (not a `_Serialize` and a
        // `_Deserialize` variant): the UI reads what it sends back.
        .disable_serde_phases()
}

/// Where the generated TypeScript lives, relative to the repository root.
pub const BINDINGS_PATH: &str = "ui/src/bindings.ts";

/// Write the bindings to `path` (`make bindings`: the app binary run with
/// `--export-bindings PATH`).
///
/// # Errors
/// The exporter's, when a type cannot be expressed or the file written.
pub fn export(path: &std::path::Path) -> Result<(), String> {
    builder()
        .export(typescript(), path)
        .map_err(|e| e.to_string())
}

/// The TypeScript exporter with the header the file carries.
pub fn typescript() -> specta_typescript::Typescript {
    specta_typescript::Typescript::default()
        .header("// Generated from the Rust commands by tauri-specta (src-tauri/bindings.rs).\n// Do not edit: run `make bindings` after changing a command or a type.\n")
}
