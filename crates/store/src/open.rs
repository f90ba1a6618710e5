//! Opening the database: creating its folder and file private, migrating
//! it (a backup first), registering this process, and repairing the runs a
//! dead process left open.

use std::path::{Path, PathBuf};

use crate::db::{Db, connect};
use crate::error::StoreError;
use crate::instance;
use crate::migrate::{SCHEMA_VERSION, migrate};
use crate::store::{OpenReport, Store};
use crate::{recovery, sessions};

impl Store {
    /// Open (creating, migrating and repairing as needed) the database at
    /// `path`.
    pub async fn open(path: impl AsRef<Path>) -> Result<(Self, OpenReport), StoreError> {
        Self::open_at_version(path.as_ref().to_owned(), SCHEMA_VERSION).await
    }

    /// Open at an older schema version (tests of upgrades).
    #[doc(hidden)]
    pub async fn open_at_version(
        path: PathBuf,
        version: i64,
    ) -> Result<(Self, OpenReport), StoreError> {
        let p = path.clone();
        let opened = tokio::task::spawn_blocking(move || -> Result<_, StoreError> {
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                crate::private::create_dir(dir).map_err(|e| StoreError::Io {
                    path: dir.display().to_string(),
                    detail: e.to_string(),
                })?;
            }
            crate::private::database_files(&p).map_err(|e| StoreError::Io {
                path: p.display().to_string(),
                detail: e.to_string(),
            })?;
            let mut conn = connect(&p)?;
            let migrated = migrate(&mut conn, &p, version)?;
            let mut report = OpenReport {
                migrated_from: (migrated.from > 0 && migrated.from < version)
                    .then_some(migrated.from),
                backup: migrated.backup,
                recovered_runs: 0,
            };
            let instance = if version >= 2 {
                let id = instance::register(&conn)?;
                report.recovered_runs = recovery::recover(&mut conn, &id, None)?;
                if version >= crate::migrate::SCHEMA_VERSION {
                    let purged = sessions::purge_deleted(&mut conn)?;
                    // Housekeeping: a failure is logged, never a reason not to open.
                    match crate::attachments::sweep(&mut conn, &crate::attachments::dir_of(&p)) {
                        Ok(0) => {}
                        Ok(swept) => {
                            tracing::info!(swept, "removed attached files no message refers to")
                        }
                        Err(e) => tracing::warn!("removing unused attached files failed: {e}"),
                    }
                    if purged > 0 {
                        tracing::info!(
                            purged,
                            "removed sessions deleted over {} days ago",
                            sessions::UNDO_DAYS
                        );
                    }
                }
                id
            } else {
                String::new()
            };
            Ok((conn, instance, report))
        })
        .await
        .map_err(|e| StoreError::Io {
            path: path.display().to_string(),
            detail: e.to_string(),
        })??;
        let (conn, instance, report) = opened;
        let me = instance.clone();
        let db = Db::spawn(conn, move |c| {
            if !me.is_empty() {
                instance::heartbeat(c, &me);
            }
        })?;
        Ok((
            Self {
                db,
                instance: instance.into(),
                path,
            },
            report,
        ))
    }
}
