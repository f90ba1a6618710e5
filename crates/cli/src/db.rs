//! Where the CLI's database lives: `--db`, else `$HEARTH_DB`, else
//! `hearth.sqlite` in the user's data folder (shared with the desktop app).

use std::path::PathBuf;

use hearth_store::Store;

/// The database path to use.
pub fn path(explicit: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(p) = explicit.or_else(|| std::env::var_os("HEARTH_DB").map(PathBuf::from)) {
        return Ok(p);
    }
    directories::ProjectDirs::from("dev", "Hearth", "Hearth")
        .map(|d| d.data_dir().join("hearth.sqlite"))
        .ok_or_else(|| "cannot find your data folder (is $HOME set?); pass --db PATH".to_owned())
}

/// Open the store, saying what opening did when it repaired or upgraded.
pub async fn open(explicit: Option<PathBuf>) -> Result<Store, String> {
    let path = path(explicit)?;
    let (store, report) = Store::open(&path).await.map_err(|e| e.to_string())?;
    if let Some(v) = report.migrated_from {
        let backup = report
            .backup
            .map(|b| b.display().to_string())
            .unwrap_or_default();
        eprintln!("hearth: upgraded the database from schema {v}; backup at {backup}");
    }
    if report.recovered_runs > 0 {
        eprintln!(
            "hearth: {} answer(s) interrupted by a crash were recovered and marked interrupted",
            report.recovered_runs
        );
    }
    Ok(store)
}
