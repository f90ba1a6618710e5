//! Per-model load options as the user set them (context length, how long
//! the model stays loaded, context shift): the `model_settings` table over
//! the defaults for every other model (docs/design.md §8).

use hearth_core::{KeepAlive, LoadOptions, ModelSettings};
use rusqlite::params;

use crate::clock::now_ms;
use crate::error::StoreError;
use crate::store::Store;

impl Store {
    /// Per-model load options as stored, over `defaults` for other models.
    pub async fn model_settings(&self, defaults: LoadOptions) -> Result<ModelSettings, StoreError> {
        let rows = self
            .db()
            .call(|c| {
                let mut stmt =
                    c.prepare("SELECT model, num_ctx, keep_alive, shift FROM model_settings")?;
                let rows = stmt.query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, u32>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, bool>(3)?,
                    ))
                })?;
                Ok(rows.collect::<Result<Vec<_>, _>>()?)
            })
            .await?;
        let settings = ModelSettings::with_defaults(defaults);
        for (model, num_ctx, keep_alive, shift) in rows {
            let keep_alive = KeepAlive::try_from(keep_alive).map_err(StoreError::Corrupt)?;
            settings.set(
                &model,
                LoadOptions {
                    num_ctx,
                    keep_alive,
                    shift,
                },
            );
        }
        Ok(settings)
    }

    /// Store one model's load options (its next request reloads it).
    pub async fn set_model_settings(&self, model: &str, o: LoadOptions) -> Result<(), StoreError> {
        let m = model.to_owned();
        self.db()
            .call(move |c| {
                c.execute(
                    "INSERT INTO model_settings (model, num_ctx, keep_alive, shift, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT(model) DO UPDATE SET num_ctx = ?2, keep_alive = ?3, shift = ?4, updated_at = ?5",
                    params![m, o.num_ctx, o.keep_alive.as_secs(), o.shift, now_ms()],
                )?;
                Ok(())
            })
            .await
    }
}
