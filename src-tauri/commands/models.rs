//! The models panel: installed and resident models, per-model load
//! settings with the warnings a change deserves, preload, unload (the only
//! place Hearth sends `keep_alive: 0`), delete, and pulls (queued and
//! followed by `pulls.rs`).

use hearth_core::{KeepAlive, LoadOptions};
use hearth_ollama::wire::{RunningModel, ShowResponse};
use hearth_protocol::ErrorInfo;
use tauri::State;

use crate::state::{AppState, invalid, ollama_error, store_error};
use crate::views::{ModelSettingsView, ModelView, PullView, RunningView, SettingsCheck};

/// Models installed in Ollama, with capabilities and Hearth's settings.
#[tauri::command]
#[specta::specta]
pub async fn list_models(state: State<'_, AppState>) -> Result<Vec<ModelView>, ErrorInfo> {
    let client = state.backend()?.client;
    let installed = client.described().await.map_err(ollama_error)?;
    let mut out = Vec::with_capacity(installed.len());
    for m in installed {
        out.push(ModelView {
            settings: settings_view(state.settings.load_options(&m.name)),
            capabilities: m.capabilities,
            context_length: m.details.context_length,
            family: m.details.family,
            parameter_size: m.details.parameter_size,
            quantization: m.details.quantization_level,
            size: m.size,
            name: m.name,
        });
    }
    Ok(out)
}

/// Models resident now (VRAM, CPU/GPU split, context, expiry).
#[tauri::command]
#[specta::specta]
pub async fn running_models(state: State<'_, AppState>) -> Result<Vec<RunningView>, ErrorInfo> {
    let running = state.backend()?.client.ps().await.map_err(ollama_error)?;
    Ok(running
        .into_iter()
        .map(|r| RunningView {
            name: r.name,
            size: r.size,
            size_vram: r.size_vram,
            context_length: r.context_length,
            expires_at: r.expires_at,
        })
        .collect())
}

/// Delete `model` from the server's disk (the panel asks first). Its load
/// settings in Hearth stay: pulled again, it loads as before.
#[tauri::command]
#[specta::specta]
pub async fn delete_model(state: State<'_, AppState>, model: String) -> Result<(), ErrorInfo> {
    let model = model.trim();
    if model.is_empty() {
        return Err(invalid("no model named"));
    }
    state
        .backend()?
        .client
        .delete(model)
        .await
        .map_err(ollama_error)
}

fn settings_view(o: LoadOptions) -> ModelSettingsView {
    ModelSettingsView {
        num_ctx: o.num_ctx,
        keep_alive_secs: o.keep_alive.as_secs(),
    }
}

/// Smallest and largest context windows Hearth accepts.
const NUM_CTX_RANGE: std::ops::RangeInclusive<u32> = 512..=1_048_576;

/// Validate what the user typed into load options for `model`.
fn options(
    state: &AppState,
    model: &str,
    num_ctx: u32,
    keep_alive_secs: i64,
) -> Result<LoadOptions, ErrorInfo> {
    if !NUM_CTX_RANGE.contains(&num_ctx) {
        return Err(invalid(format!(
            "the context window must be between {} and {} tokens",
            NUM_CTX_RANGE.start(),
            NUM_CTX_RANGE.end()
        )));
    }
    let keep_alive = KeepAlive::try_from(keep_alive_secs).map_err(|_| {
        invalid("keep-alive 0 would unload the model after every answer; use Unload instead")
    })?;
    Ok(LoadOptions {
        num_ctx,
        keep_alive,
        ..state.settings.load_options(model)
    })
}

/// Bytes of KV cache per token of context, from the GGUF metadata
/// (f16 keys and values: 2 × layers × kv heads × head size × 2 bytes).
fn kv_bytes_per_token(show: &ShowResponse) -> Option<u64> {
    let arch = show.model_info.get("general.architecture")?.as_str()?;
    let get = |k: &str| show.model_info.get(&format!("{arch}.{k}"))?.as_u64();
    let layers = get("block_count")?;
    let embedding = get("embedding_length")?;
    let heads = get("attention.head_count")?.max(1);
    let kv_heads = get("attention.head_count_kv").unwrap_or(heads);
    Some(2 * layers * kv_heads * (embedding / heads) * 2)
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
}

/// What changing `model` to `new` will do, in words: a reload, a window
/// past what the model was trained for, memory that will not fit on the
/// GPU. Pure, so it is tested without a server.
pub(crate) fn warnings(
    model: &str,
    new: LoadOptions,
    show: &ShowResponse,
    resident: Option<&RunningModel>,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(trained) = show.context_length()
        && u64::from(new.num_ctx) > trained
    {
        out.push(format!(
            "{model} was trained for {trained} tokens of context; past that its answers degrade."
        ));
    }
    let Some(r) = resident else {
        return out;
    };
    let current = r.context_length.unwrap_or(new.num_ctx);
    if current != new.num_ctx {
        out.push(format!(
            "{model} is loaded with a {current}-token window: its next request reloads it with {} tokens.",
            new.num_ctx
        ));
    }
    // Nothing in VRAM: a server without a GPU, where a window costs memory
    // but "VRAM" would be wrong (user pass 2026-12, defect 17).
    if new.num_ctx > current && r.size_vram > 0 {
        let extra = kv_bytes_per_token(show).map(|per| per * u64::from(new.num_ctx - current));
        let on_cpu = r.size.saturating_sub(r.size_vram);
        if on_cpu > 0 {
            out.push(format!(
                "{model} already does not fit in VRAM ({} of {} on the CPU); a larger window moves more of it to the CPU and slows it down.",
                gib(on_cpu),
                gib(r.size)
            ));
        } else if let Some(extra) = extra
            && extra * 4 > r.size
        {
            out.push(format!(
                "the larger window needs about {} more memory ({} now): it may not fit in VRAM, and what does not fit runs on the CPU.",
                gib(extra),
                gib(r.size)
            ));
        }
    }
    out
}

async fn check(
    state: &AppState,
    model: &str,
    new: LoadOptions,
) -> Result<SettingsCheck, ErrorInfo> {
    let client = state.backend()?.client;
    // The checks need the server; without it the change is still allowed.
    let show = client.show(model).await.unwrap_or_default();
    let running = client.ps().await.unwrap_or_default();
    let resident = running.iter().find(|r| r.name == model);
    Ok(SettingsCheck {
        warnings: warnings(model, new, &show, resident),
    })
}

/// The warnings a settings change would bring, before saving it.
#[tauri::command]
#[specta::specta]
pub async fn check_model_settings(
    state: State<'_, AppState>,
    model: String,
    num_ctx: u32,
    keep_alive_secs: i64,
) -> Result<SettingsCheck, ErrorInfo> {
    let new = options(&state, &model, num_ctx, keep_alive_secs)?;
    check(&state, &model, new).await
}

/// Save a model's load settings; every later request for it uses them.
#[tauri::command]
#[specta::specta]
pub async fn set_model_settings(
    state: State<'_, AppState>,
    model: String,
    num_ctx: u32,
    keep_alive_secs: i64,
) -> Result<SettingsCheck, ErrorInfo> {
    let new = options(&state, &model, num_ctx, keep_alive_secs)?;
    let result = check(&state, &model, new).await?;
    state
        .store
        .set_model_settings(&model, new)
        .await
        .map_err(store_error)?;
    state.settings.set(&model, new);
    Ok(result)
}

/// Load a model now with its settings, so the first answer starts at once.
#[tauri::command]
#[specta::specta]
pub async fn preload_model(state: State<'_, AppState>, model: String) -> Result<(), ErrorInfo> {
    let load = state.settings.load_options(&model);
    state
        .backend()?
        .client
        .preload(&model, &load)
        .await
        .map_err(ollama_error)
}

/// Free the model's memory (the only `keep_alive: 0` Hearth sends).
#[tauri::command]
#[specta::specta]
pub async fn unload_model(state: State<'_, AppState>, model: String) -> Result<(), ErrorInfo> {
    state
        .backend()?
        .client
        .unload(&model)
        .await
        .map_err(ollama_error)
}

/// Queue a pull of `model` (one runs at a time; nothing new when it is
/// already queued or running). Its progress is read with `list_pulls`, so
/// closing the panel or reloading the page loses nothing.
#[tauri::command]
#[specta::specta]
pub fn start_pull(state: State<'_, AppState>, model: String) -> Result<bool, ErrorInfo> {
    let model = model.trim();
    if model.is_empty() {
        return Err(invalid("which model? e.g. qwen3:8b"));
    }
    if model.chars().count() > 200 || model.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(invalid(format!(
            "`{}` is not a model name",
            model.escape_debug()
        )));
    }
    Ok(state.pulls.start(model, state.backend()?.client))
}

/// Cancel the pull of `model`, queued or running; false when there is none.
#[tauri::command]
#[specta::specta]
pub fn cancel_pull(state: State<'_, AppState>, model: String) -> bool {
    state.pulls.cancel(model.trim())
}

/// The pulls: the queue in order, then those finished lately.
#[tauri::command]
#[specta::specta]
pub fn list_pulls(state: State<'_, AppState>) -> Vec<PullView> {
    state.pulls.list()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn show() -> ShowResponse {
        serde_json::from_value(json!({
            "capabilities": ["completion", "tools"],
            "model_info": {
                "general.architecture": "llama",
                "llama.context_length": 32768,
                "llama.block_count": 32,
                "llama.embedding_length": 4096,
                "llama.attention.head_count": 32,
                "llama.attention.head_count_kv": 8
            }
        }))
        .unwrap()
    }

    fn opts(num_ctx: u32) -> LoadOptions {
        LoadOptions {
            num_ctx,
            ..LoadOptions::default()
        }
    }

    fn resident(ctx: u32, size: u64, vram: u64) -> RunningModel {
        RunningModel {
            name: "m".into(),
            size,
            size_vram: vram,
            expires_at: None,
            context_length: Some(ctx),
        }
    }

    #[test]
    fn kv_cache_size_follows_the_metadata() {
        // 2 × 32 layers × 8 kv heads × 128 × 2 bytes = 131072 bytes/token.
        assert_eq!(kv_bytes_per_token(&show()), Some(131_072));
    }

    #[test]
    fn no_warning_for_a_model_not_loaded_within_its_window() {
        assert!(warnings("m", opts(8192), &show(), None).is_empty());
    }

    #[test]
    fn past_the_trained_window_is_flagged() {
        let w = warnings("m", opts(65536), &show(), None);
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("trained for 32768"));
    }

    #[test]
    fn a_change_of_window_on_a_loaded_model_means_a_reload() {
        let r = resident(8192, 6 << 30, 6 << 30);
        let w = warnings("m", opts(4096), &show(), Some(&r));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("reloads it with 4096"));
        assert!(warnings("m", opts(8192), &show(), Some(&r)).is_empty());
    }

    #[test]
    fn growth_that_will_not_fit_is_flagged() {
        // +24576 tokens × 128 KiB = 3 GiB on a 6 GiB model: may not fit.
        let r = resident(8192, 6 << 30, 6 << 30);
        let w = warnings("m", opts(32768), &show(), Some(&r));
        assert!(w.iter().any(|s| s.contains("may not fit in VRAM")), "{w:?}");
        // Already split between CPU and GPU: said plainly.
        let split = resident(8192, 6 << 30, 4 << 30);
        let w = warnings("m", opts(16384), &show(), Some(&split));
        assert!(
            w.iter().any(|s| s.contains("does not fit in VRAM")),
            "{w:?}"
        );
        // A server without a GPU: nothing about VRAM.
        let cpu_only = resident(8192, 6 << 30, 0);
        let w = warnings("m", opts(32768), &show(), Some(&cpu_only));
        assert!(!w.iter().any(|s| s.contains("VRAM")), "{w:?}");
    }
}
