//! Skills: folders of instructions the user keeps (the Agent Skills
//! format other agent tools share: a `SKILL.md` with a name and a
//! description in its front matter, then the instructions, and files
//! beside it). The model is shown each offered skill's name and
//! description in the `load_skill` tool, and loads a skill's instructions
//! when a task fits it; nothing of a skill is sent before that.
//!
//! [`Skills`] is a core `ToolSource`: before each model call it reads the
//! folder again (a skill added or fixed is seen without a restart), and it
//! gives each run a `load_skill` over the skills its profile enables
//! (`Profile::skills`), or no tool when there are none, so a user without
//! skills sends exactly what they sent before.

mod catalog;
mod load;

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use hearth_core::{Offer, Tool, ToolSource, Unavailable};

pub use catalog::{
    Catalog, MAX_SKILL_BYTES, MAX_SKILLS, Problem, SKILL_FILE, Skill, SkillError, bad_name, parse,
    scan,
};
pub use load::{LOAD_SKILL, LoadSkill, loaded};

/// The profiles' workspaces, as they are at each read of the folder.
type Workspaces = Arc<dyn Fn() -> Vec<PathBuf> + Send + Sync>;

/// The user's skills folder, read into a catalog.
pub struct Skills {
    folder: PathBuf,
    catalog: RwLock<Arc<Catalog>>,
    workspaces: Workspaces,
}

impl Skills {
    /// The skills in `folder`, read now.
    pub fn new(folder: PathBuf) -> Self {
        Self::outside(folder, Vec::new)
    }

    /// The skills in `folder`, read now; one whose folder is linked in from
    /// inside a workspace `workspaces` names (asked at each read) is not
    /// offered (see [`scan`]).
    pub fn outside(
        folder: PathBuf,
        workspaces: impl Fn() -> Vec<PathBuf> + Send + Sync + 'static,
    ) -> Self {
        let workspaces: Workspaces = Arc::new(workspaces);
        let catalog = RwLock::new(Arc::new(scan(&folder, &workspaces())));
        Self {
            folder,
            catalog,
            workspaces,
        }
    }

    /// The folder skills are read from.
    pub fn folder(&self) -> &std::path::Path {
        &self.folder
    }

    /// The catalog as last read.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog
            .read()
            .map(|c| c.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }

    /// Reads the folder again; the catalog as it is now.
    pub fn reload(&self) -> Arc<Catalog> {
        self.replace(scan(&self.folder, &(self.workspaces)()))
    }

    fn replace(&self, fresh: Catalog) -> Arc<Catalog> {
        let mut current = self.catalog.write().unwrap_or_else(|e| e.into_inner());
        // Kept when nothing changed, so tools built from it stay the same
        // value (and the same bytes in every request).
        if **current != fresh {
            *current = Arc::new(fresh);
        }
        current.clone()
    }
}

#[async_trait]
impl ToolSource for Skills {
    fn tools(&self, _servers: &[String]) -> Vec<Arc<dyn Tool>> {
        Vec::new()
    }

    async fn prepare(&self, _servers: &[String]) -> Vec<Unavailable> {
        Vec::new()
    }

    fn tools_for(&self, offer: &Offer) -> Vec<Arc<dyn Tool>> {
        LoadSkill::new(self.catalog(), |name| offer.enables_skill(name))
            .map(|t| Arc::new(t) as Arc<dyn Tool>)
            .into_iter()
            .collect()
    }

    async fn prepare_for(&self, _offer: &Offer) -> Vec<Unavailable> {
        // A folder of a hundred small files: cheap, but file I/O all the
        // same, so off the async threads.
        let folder = self.folder.clone();
        let workspaces = (self.workspaces)();
        if let Ok(fresh) = tokio::task::spawn_blocking(move || scan(&folder, &workspaces)).await {
            self.replace(fresh);
        }
        // A broken skill is shown in the Tools panel and by `hearth skills
        // list`; the run goes on with the others.
        Vec::new()
    }
}
