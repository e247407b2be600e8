//! The scene menu: the catalog (`scene::catalog`, the one registry of scenes) with each
//! scene's display name read from its file, in menu order, plus the folder it was found in.
//! A missing or empty `scenes/` folder gives an empty menu and a message, never a panic.

use std::path::{Path, PathBuf};

use crate::scene::{self, catalog};

/// One scene of the menu.
#[derive(Clone, Debug, PartialEq)]
pub struct MenuEntry {
    pub category: &'static str,
    /// Path relative to the scenes folder, as the catalog spells it.
    pub file: &'static str,
    /// The full path.
    pub path: PathBuf,
    /// The scene's `name` (the file stem when the file cannot be parsed).
    pub name: String,
    /// `path` resolved (to recognise the file however it was named).
    pub canonical: PathBuf,
}

/// The scene menu.
#[derive(Clone, Debug, Default)]
pub struct Library {
    pub dir: PathBuf,
    /// Scenes whose file exists, in catalog order.
    pub entries: Vec<MenuEntry>,
    /// Why the menu is empty or short, for the panel.
    pub message: Option<String>,
}

/// The scene opened when neither `--scene` nor the preferences name one.
pub const DEFAULT_SCENE: &str = "box2d_lite/pyramid_stacking.ron";

impl Library {
    /// The menu for the folder `catalog::scenes_dir()` finds.
    pub fn scan() -> Library {
        Library::scan_dir(&catalog::scenes_dir())
    }

    /// The menu for the scenes under `dir`.
    pub fn scan_dir(dir: &Path) -> Library {
        let mut library = Library {
            dir: dir.to_path_buf(),
            ..Library::default()
        };
        if !dir.is_dir() {
            library.message = Some(format!(
                "No scenes folder at {}. Run the testbed from the repository, or set \
                 IMPULSE_SCENES to the scenes folder; `--scene FILE` opens any file.",
                dir.display()
            ));
            return library;
        }
        let mut missing = 0;
        for entry in catalog::CATALOG {
            let path = entry.path_in(dir);
            if !path.is_file() {
                missing += 1;
                continue;
            }
            let name = scene::read_file(&path)
                .ok()
                .and_then(|text| scene::parse(&text, entry.file).ok())
                .map(|f| f.name)
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| stem(entry.file));
            library.entries.push(MenuEntry {
                category: entry.category,
                file: entry.file,
                canonical: canonical(&path),
                path,
                name,
            });
        }
        if library.entries.is_empty() {
            library.message = Some(format!(
                "The scenes folder {} holds none of the library's scenes. Set IMPULSE_SCENES \
                 to the scenes folder; `--scene FILE` opens any file.",
                dir.display()
            ));
        } else if missing > 0 {
            library.message = Some(format!(
                "{missing} scene(s) of the library are missing from {}.",
                dir.display()
            ));
        }
        library
    }

    /// The categories in menu order, each once.
    pub fn categories(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for e in &self.entries {
            if !out.contains(&e.category) {
                out.push(e.category);
            }
        }
        out
    }

    /// The default scene's path, when the folder has it.
    pub fn default_scene(&self) -> Option<PathBuf> {
        self.entries
            .iter()
            .find(|e| e.file == DEFAULT_SCENE)
            .or_else(|| self.entries.first())
            .map(|e| e.path.clone())
    }

    /// The index of the entry for `path`, if it is one of the menu's files.
    pub fn index_of(&self, path: &Path) -> Option<usize> {
        let wanted = canonical(path);
        self.entries.iter().position(|e| e.canonical == wanted)
    }

    /// The entry `offset` places after the one for `current` (wrapping; before it for a
    /// negative offset). From a file outside the menu: the first (or last) entry.
    pub fn neighbour(&self, current: Option<&Path>, offset: isize) -> Option<&MenuEntry> {
        let n = self.entries.len() as isize;
        if n == 0 {
            return None;
        }
        let index = match current.and_then(|p| self.index_of(p)) {
            Some(i) => (i as isize + offset).rem_euclid(n),
            None if offset >= 0 => 0,
            None => n - 1,
        };
        self.entries.get(index as usize)
    }
}

/// `path` made absolute and resolved when possible (to compare paths).
pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

fn stem(file: &str) -> String {
    Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().replace('_', " "))
        .unwrap_or_else(|| file.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_lists_every_catalog_scene_with_its_name() {
        let library = Library::scan_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes"));
        assert_eq!(library.entries.len(), catalog::CATALOG.len());
        assert!(library.message.is_none());
        let pyramid = library.default_scene().unwrap();
        assert!(pyramid.ends_with(DEFAULT_SCENE));
        let i = library.index_of(&pyramid).unwrap();
        assert_eq!(library.entries[i].name, "Pyramid stacking");
        // Next and previous wrap around.
        let last = &library.entries[library.entries.len() - 1];
        let first = &library.entries[0];
        assert_eq!(library.neighbour(Some(&last.path), 1), Some(first));
        assert_eq!(library.neighbour(Some(&first.path), -1), Some(last));
        assert_eq!(library.neighbour(None, 1), Some(first));
        assert_eq!(
            library.categories(),
            catalog::categories(),
            "menu order is the catalog's"
        );
    }

    #[test]
    fn a_missing_or_empty_folder_gives_a_message() {
        let library = Library::scan_dir(Path::new("/no/such/scenes"));
        assert!(library.entries.is_empty());
        assert!(library
            .message
            .as_ref()
            .unwrap()
            .contains("/no/such/scenes"));
        assert!(library.neighbour(None, 1).is_none());
        let dir = std::env::temp_dir().join(format!("impulse-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let library = Library::scan_dir(&dir);
        assert!(library.entries.is_empty() && library.message.is_some());
        assert!(library.default_scene().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
