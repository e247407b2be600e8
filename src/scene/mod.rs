//! Scenes: RON files to and from a `World`. Depends on the core, serde and ron; no GUI.
//!
//! - [`format`]: the file types (every field defaulted, unknown fields refused).
//! - [`error`]: `SceneError`, with file, line and column or the body and field at fault.
//! - [`build`]: file to world, reporting every problem of a file, never half-loading.
//! - [`generators`]: pyramids, stacks, grids, chains, seeded scatters.
//! - [`export`]: world to file text, exact enough to continue the simulation bit for bit.
//! - [`catalog`]: the scene library under `scenes/`, the one registry of scenes.
//!
//! `scenes/README.md` documents the format field by field.

pub mod build;
pub mod catalog;
pub mod error;
pub mod export;
pub mod format;
pub mod generators;

use std::path::Path;

pub use error::{SceneError, SceneErrors};
pub use format::{CameraFile, SceneFile, SettingsFile};

use crate::physics::World;

/// A loaded scene: what the menu shows and the world to step.
pub struct Scene {
    pub name: String,
    pub category: String,
    pub description: String,
    pub camera: CameraFile,
    pub world: World,
}

/// The RON options of scene files: `implicit_some` (optional fields take bare values) and
/// `unwrap_variant_newtypes` (`Revolute(anchor: (0, 1))` rather than `Revolute((anchor: ...))`).
pub fn ron_options() -> ron::Options {
    use ron::extensions::Extensions;
    ron::Options::default()
        .with_default_extension(Extensions::IMPLICIT_SOME)
        .with_default_extension(Extensions::UNWRAP_VARIANT_NEWTYPES)
}

/// Parse scene text. `file` names the file in messages.
pub fn parse(text: &str, file: &str) -> Result<SceneFile, SceneErrors> {
    ron_options()
        .from_str::<SceneFile>(text)
        .map_err(|e| SceneErrors::one(error::from_ron(file, &e)))
}

/// Parse and build scene text.
pub fn load_str(text: &str, file: &str) -> Result<Scene, SceneErrors> {
    let scene = parse(text, file)?;
    build::build(&scene, file)
}

/// Read a file as scene text, with an error naming it when it cannot be read.
pub fn read_file(path: &Path) -> Result<String, SceneErrors> {
    std::fs::read_to_string(path).map_err(|e| {
        SceneErrors::one(SceneError::Io {
            file: path.display().to_string(),
            message: format!("cannot read the file: {e}"),
        })
    })
}

/// Read, parse and build a scene file.
pub fn load_file(path: &Path) -> Result<Scene, SceneErrors> {
    let text = read_file(path)?;
    load_str(&text, &path.display().to_string())
}
