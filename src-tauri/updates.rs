//! Hearth updating itself (docs/updates.md): a newer package, signed with
//! the key whose public half is built into this copy, found at the update
//! address, shown with what it changes, and installed only when the person
//! asks — then the app restarts into it on the same database.
//!
//! tauri-plugin-updater does the work (fetching the description, checking
//! the signature with minisign, handing the package to `dpkg -i` or
//! `rpm -U` through pkexec, a graphical sudo or sudo). What this adds:
//! - **Which copies may update.** Only one built with an update key
//!   (`HEARTH_UPDATE_PUBKEY` at build time: a build without one — a
//!   developer's, a distribution's own — never replaces itself) and
//!   installed from a package. The plugin would treat any other binary as
//!   an AppImage and write the download over it: a copy run from the build
//!   folder or an unpacked package is told to update the way it was
//!   installed instead.
//! - **Where it asks.** `$HEARTH_UPDATE_URL` (a mirror, the tests), else
//!   the address the build was given (`HEARTH_UPDATE_ENDPOINT`). Only
//!   https (the plugin refuses anything else in a release build); the
//!   signature is what makes a package trusted, not the address.
//! - **What the person reads.** Every failure says what happened and that
//!   the running version keeps running: a package tool that fails leaves
//!   the old package installed, and a download that does not verify is
//!   never handed to it.

use std::sync::Mutex;
use std::time::Duration;

use tauri::utils::config::BundleType;
use tauri_plugin_updater::{Error, Update};

/// The public update key this copy trusts (minisign, base64 as
/// `tauri signer generate` writes it), fixed when it was built.
const PUBKEY: Option<&str> = option_env!("HEARTH_UPDATE_PUBKEY");

/// The update description's address this copy was built with.
const ENDPOINT: Option<&str> = option_env!("HEARTH_UPDATE_ENDPOINT");

/// How long fetching the description or the package may stall.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// What an update needs, or why this copy cannot have one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The trusted public key.
    pub pubkey: String,
    /// Where the update description is.
    pub endpoint: String,
}

/// This copy's update source: its build's key, the address from
/// `$HEARTH_UPDATE_URL` or its build, and the package it was installed
/// from. `Err` is the sentence the person reads.
pub fn source() -> Result<Source, String> {
    let url = std::env::var("HEARTH_UPDATE_URL").ok();
    // Flatpak's own file in every sandbox it makes (a Flatpak built from
    // the .deb keeps the .deb's mark, and has no dpkg inside).
    let flatpak = std::path::Path::new("/.flatpak-info").exists();
    source_of(
        PUBKEY,
        (!flatpak)
            .then(tauri::utils::platform::bundle_type)
            .flatten(),
        url.as_deref().or(ENDPOINT),
    )
    .map_err(|why| {
        if flatpak {
            "This copy of Hearth is a Flatpak: `flatpak update` (or your software centre) \
             updates it."
                .to_owned()
        } else {
            why
        }
    })
}

/// [`source`] from its parts.
pub fn source_of(
    pubkey: Option<&str>,
    bundle: Option<BundleType>,
    endpoint: Option<&str>,
) -> Result<Source, String> {
    let Some(pubkey) = pubkey.map(str::trim).filter(|k| !k.is_empty()) else {
        return Err(
            "This build of Hearth has no update key, so it does not update itself: \
             update it the way you installed it."
                .to_owned(),
        );
    };
    // The plugin installs a download as what the copy was bundled as; a
    // binary that no bundle marked would be overwritten as an AppImage.
    if !matches!(bundle, Some(BundleType::Deb | BundleType::Rpm)) {
        return Err(
            "This copy of Hearth was not installed from its .deb or .rpm package, so it \
             cannot replace itself: update it the way you installed it."
                .to_owned(),
        );
    }
    let Some(endpoint) = endpoint.map(str::trim).filter(|e| !e.is_empty()) else {
        return Err(
            "This build of Hearth was given no address to look for updates at: \
             update it the way you installed it."
                .to_owned(),
        );
    };
    Ok(Source {
        pubkey: pubkey.to_owned(),
        endpoint: endpoint.to_owned(),
    })
}

/// The update last found by a check, kept until it is installed or a new
/// check replaces it: the one installed is the one whose notes were shown.
#[derive(Default)]
pub struct Pending(Mutex<Option<Update>>);

impl Pending {
    /// Keep `update` (or forget the last one: `None`).
    pub fn set(&self, update: Option<Update>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = update;
    }

    /// The update of version `version`, when that is the one last found.
    pub fn take(&self, version: &str) -> Option<Update> {
        let mut pending = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match pending.as_ref() {
            Some(u) if u.version == version => pending.take(),
            _ => None,
        }
    }
}

/// The version a downloaded package says it is (its own control data,
/// read by the package tool that will install it): the description's
/// version is only a claim, and a genuinely signed older package offered
/// under a newer number would otherwise roll the app back.
pub fn package_version(bytes: &[u8]) -> Result<String, String> {
    use std::io::Write;
    let query: &[&str] = match tauri::utils::platform::bundle_type() {
        Some(BundleType::Deb) => &["dpkg-deb", "--field"],
        Some(BundleType::Rpm) => &["rpm", "-qp", "--queryformat", "%{VERSION}"],
        _ => return Err("this copy was not installed from a package".to_owned()),
    };
    let mut file = tempfile::NamedTempFile::new()
        .map_err(|e| format!("cannot keep the download to read it: {e}"))?;
    file.write_all(bytes)
        .and_then(|()| file.flush())
        .map_err(|e| format!("cannot keep the download to read it: {e}"))?;
    let mut command = std::process::Command::new(query[0]);
    command.args(&query[1..]).arg(file.path());
    if query[0] == "dpkg-deb" {
        command.arg("Version");
    }
    let out = command
        .output()
        .map_err(|e| format!("cannot run {}: {e}", query[0]))?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    if !out.status.success() || version.is_empty() {
        return Err(format!(
            "{} cannot read it as a package ({})",
            query[0],
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(version)
}

/// The sentence for a package whose own version is not the one offered.
pub fn not_as_offered(current: &str, offered: &str, inside: &str) -> String {
    format!(
        "The update was not installed: the package is version {inside}, not the {offered} it \
         was offered as. Hearth {current} keeps running."
    )
}

/// The sentence for a failed check.
pub fn check_failed(endpoint: &str, e: &Error) -> String {
    let what = match e {
        Error::Reqwest(e) if e.is_timeout() => "it did not answer in time".to_owned(),
        Error::Reqwest(e) => format!("it could not be reached ({e})"),
        Error::Network(e) => format!("it answered with an error ({e})"),
        Error::ReleaseNotFound | Error::Serialization(_) | Error::Semver(_) => {
            "its answer is not an update description".to_owned()
        }
        Error::TargetsNotFound(t) => format!(
            "it offers nothing for this system (it has no {})",
            t.join(" or ")
        ),
        Error::InsecureTransportProtocol => "it is not an https address".to_owned(),
        e => e.to_string(),
    };
    format!("Could not check for updates at {endpoint}: {what}.")
}

/// The sentence for an update that was not installed; `current` keeps
/// running.
pub fn install_failed(current: &str, e: &Error) -> String {
    let what = match e {
        Error::Minisign(_) | Error::Base64(_) | Error::SignatureUtf8(_) => {
            "its signature does not match Hearth's update key, so it was not installed".to_owned()
        }
        Error::InvalidUpdaterFormat => {
            "the download is not the package this copy was installed from, so it was not \
             installed"
                .to_owned()
        }
        Error::AuthenticationFailed => {
            "the password was refused or the prompt was closed, so nothing was installed".to_owned()
        }
        Error::DebInstallFailed | Error::PackageInstallFailed => {
            "the system's package tool did not install it (no password given, or it \
             failed: see its output in the terminal Hearth was started from)"
                .to_owned()
        }
        Error::Reqwest(e) => format!("the download failed ({e})"),
        e => e.to_string(),
    };
    format!("The update was not installed: {what}. Hearth {current} keeps running.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_packaged_copy_built_with_a_key_and_an_address_updates_itself() {
        let ok = source_of(
            Some(" KEY \n"),
            Some(BundleType::Deb),
            Some("https://u.example/latest.json"),
        );
        assert_eq!(
            ok,
            Ok(Source {
                pubkey: "KEY".into(),
                endpoint: "https://u.example/latest.json".into()
            })
        );
        assert!(source_of(Some("K"), Some(BundleType::Rpm), Some("https://u")).is_ok());

        let no_key = source_of(None, Some(BundleType::Deb), Some("https://u")).unwrap_err();
        assert!(no_key.contains("no update key"), "{no_key}");
        let blank_key = source_of(Some("  "), Some(BundleType::Deb), Some("https://u"));
        assert!(blank_key.is_err());

        // A build folder's binary (no bundle marked it), and bundles that
        // are not shipped: never written over as an AppImage.
        for bundle in [None, Some(BundleType::AppImage), Some(BundleType::Msi)] {
            let why = source_of(Some("K"), bundle, Some("https://u")).unwrap_err();
            assert!(why.contains("not installed from its .deb or .rpm"), "{why}");
        }

        let no_address = source_of(Some("K"), Some(BundleType::Deb), Some("")).unwrap_err();
        assert!(no_address.contains("no address"), "{no_address}");
        assert!(source_of(Some("K"), Some(BundleType::Deb), None).is_err());
    }

    #[test]
    fn a_failure_says_what_happened_and_that_the_running_version_stays() {
        let signature = install_failed(
            "0.1.0",
            &Error::SignatureUtf8("not base64 of a signature".into()),
        );
        assert_eq!(
            signature,
            "The update was not installed: its signature does not match Hearth's update key, \
             so it was not installed. Hearth 0.1.0 keeps running."
        );
        let tool = install_failed("0.1.0", &Error::DebInstallFailed);
        assert!(tool.contains("package tool did not install it"), "{tool}");
        assert!(tool.ends_with("Hearth 0.1.0 keeps running."), "{tool}");

        let targets = check_failed(
            "https://u/latest.json",
            &Error::TargetsNotFound(vec!["linux-x86_64-deb".into(), "linux-x86_64".into()]),
        );
        assert_eq!(
            targets,
            "Could not check for updates at https://u/latest.json: it offers nothing for this \
             system (it has no linux-x86_64-deb or linux-x86_64)."
        );
        let not_json = check_failed("https://u", &Error::ReleaseNotFound);
        assert!(not_json.ends_with("its answer is not an update description."));
    }
}
