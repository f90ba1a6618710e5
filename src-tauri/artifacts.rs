//! The scheme the artifact frames are served from, `hearth-artifact:`
//! (docs/security.md, "Artifacts"). The page draws an answer's diagram in
//! `<iframe sandbox="allow-scripts">` (mermaid, `artifact/render.html`) and
//! previews an answer's HTML through one (`artifact/preview.html`, which
//! puts the HTML in a frame with no scripts at all). Tauri gives every page
//! of `tauri://` the app's own CSP, which refuses the inline styles mermaid
//! writes; these pages need a policy of their own, so they are served here,
//! with it, and nothing else is: four files of the built UI, read through
//! Tauri's asset resolver (the embedded assets; `ui/dist` in a dev build).
//!
//! The frames' origin is opaque (no `allow-same-origin`), so they cannot
//! reach the app's page, and Tauri's scripts (IPC, its invoke key) are
//! given to the top frame only. WebKitGTK still lets any frame post to the
//! native IPC handler; Tauri drops a message without the per-launch invoke
//! key, which no frame can read (`tests/e2e/artifacts.e2e.mjs` forges one).

use tauri::http::{Request, Response, StatusCode, header};
use tauri::{Runtime, UriSchemeContext};

/// The scheme's name (`hearth-artifact://localhost/…` on Linux and macOS,
/// `http://hearth-artifact.localhost/…` on Windows).
pub const SCHEME: &str = "hearth-artifact";

/// What is served: the frames' pages and their one script each.
const FILES: [&str; 6] = [
    "artifact/render.html",
    "artifact/render.js",
    "artifact/preview.html",
    "artifact/preview.js",
    "artifact/mcp-app.html",
    "artifact/mcp-app.js",
];

/// The scheme's own origin, as a CSP source.
fn own() -> &'static str {
    if cfg!(any(windows, target_os = "android")) {
        "http://hearth-artifact.localhost"
    } else {
        "hearth-artifact:"
    }
}

/// The frames' CSP: scripts only from this scheme (a sandboxed frame's
/// opaque origin is not `'self'` to WebKitGTK), inline styles (mermaid's,
/// a previewed page's), pictures and fonts only inline as `data:`, and
/// nothing fetched, framed, posted or navigated to: `default-src 'none'`
/// covers `connect-src` (no `fetch`, no XHR, no IPC by `ipc:`), media and
/// objects; `frame-src 'none'` keeps a previewed page's frame from being
/// navigated anywhere (its first `srcdoc` is not a fetch). A previewed
/// page's frame inherits this policy.
pub fn csp() -> String {
    let own = own();
    format!(
        "default-src 'none'; script-src {own}; style-src 'unsafe-inline'; img-src data:; \
         font-src data:; base-uri 'none'; form-action 'none'; frame-src 'none'"
    )
}

/// The MCP app frame's CSP (`artifact/mcp-app.html`; docs/security.md,
/// "MCP Apps"). An MCP app is one HTML document with its scripts inline
/// (the project's own example is 218 KB of inline script), put by the
/// frame's script into an inner `<iframe sandbox="allow-scripts">` by
/// `srcdoc`, which inherits this policy: so inline scripts run, and that is
/// all they get. Nothing is fetched or connected to (`connect-src 'none'`:
/// no `fetch`, XHR, WebSocket or IPC), pictures, sounds and fonts only
/// inline, no frames, no objects, no forms, no `<base>`. The spec's default
/// allows `'self'` for scripts, styles, pictures and media; an opaque
/// origin has no self worth allowing, and the spec lets a host restrict
/// further. The domains an app's `_meta.ui.csp` asks for are shown to the
/// person and never added (no network for apps).
pub fn app_csp() -> String {
    let own = own();
    format!(
        "default-src 'none'; script-src 'unsafe-inline' {own}; style-src 'unsafe-inline'; \
         img-src data: blob:; media-src data: blob:; font-src data:; connect-src 'none'; \
         frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"
    )
}

/// Answers a request of the scheme: one of [`FILES`], with the frames'
/// CSP, else 404.
pub fn respond<R: Runtime>(
    ctx: UriSchemeContext<'_, R>,
    request: Request<Vec<u8>>,
) -> Response<Vec<u8>> {
    let path = request.uri().path().trim_start_matches('/');
    let not_found = || {
        Response::builder()
            .status(StatusCode::NOT_FOUND)
            .body(Vec::new())
            .unwrap_or_default()
    };
    if request.method() != tauri::http::Method::GET || !FILES.contains(&path) {
        tracing::warn!("{SCHEME}: refused {} {path}", request.method());
        return not_found();
    }
    let Some(asset) = ctx.app_handle().asset_resolver().get(path.to_owned()) else {
        return not_found();
    };
    // The resolver answers a missing file with the app's index.html: only
    // the file asked for is served.
    let script = path.ends_with(".js");
    let is_html = asset.mime_type().starts_with("text/html");
    let own_page = String::from_utf8_lossy(asset.bytes())
        .contains(&format!("src=\"/{}\"", path.replace(".html", ".js")));
    if script == is_html || (!script && !own_page) {
        tracing::warn!("{SCHEME}: {path} is not in the built UI");
        return not_found();
    }
    Response::builder()
        .status(StatusCode::OK)
        .header(
            header::CONTENT_TYPE,
            if script {
                "text/javascript"
            } else {
                "text/html"
            },
        )
        .header(
            "Content-Security-Policy",
            if path.starts_with("artifact/mcp-app.") {
                app_csp()
            } else {
                csp()
            },
        )
        .header("X-Content-Type-Options", "nosniff")
        .header("Referrer-Policy", "no-referrer")
        .header(header::CACHE_CONTROL, "no-store")
        .body(asset.bytes)
        .unwrap_or_else(|_| not_found())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of directive `name` in `csp` ("" when absent).
    fn directive(csp: &str, name: &str) -> String {
        csp.split(';')
            .map(str::trim)
            .find_map(|d| d.strip_prefix(name)?.strip_prefix(' '))
            .unwrap_or_default()
            .to_owned()
    }

    #[test]
    fn the_frames_policy_fetches_nothing_and_runs_only_its_own_scripts() {
        let csp = csp();
        let directive = |name: &str| directive(&csp, name);
        assert_eq!(directive("default-src"), "'none'");
        assert_eq!(directive("frame-src"), "'none'");
        assert_eq!(directive("img-src"), "data:");
        assert_eq!(directive("font-src"), "data:");
        assert_eq!(directive("style-src"), "'unsafe-inline'");
        let scripts = directive("script-src");
        assert!(
            scripts == "hearth-artifact:" || scripts == "http://hearth-artifact.localhost",
            "{scripts}"
        );
        for d in ["connect-src", "media-src", "object-src", "worker-src"] {
            assert_eq!(directive(d), "", "{d} must fall back to default-src 'none'");
        }
        assert!(
            !csp.contains("'unsafe-eval'") && !csp.contains("http:") && !csp.contains("https:")
        );
    }

    #[test]
    fn the_app_frames_policy_runs_inline_scripts_and_reaches_nothing() {
        let csp = app_csp();
        let directive = |name: &str| directive(&csp, name);
        for d in [
            "default-src",
            "connect-src",
            "frame-src",
            "object-src",
            "base-uri",
            "form-action",
        ] {
            assert_eq!(directive(d), "'none'", "{d}");
        }
        assert_eq!(directive("img-src"), "data: blob:");
        assert_eq!(directive("media-src"), "data: blob:");
        assert_eq!(directive("font-src"), "data:");
        assert!(directive("script-src").starts_with("'unsafe-inline' "));
        assert!(
            !csp.contains("'unsafe-eval'") && !csp.contains("http:") && !csp.contains("https:"),
            "no network source: {csp}"
        );
    }
}
