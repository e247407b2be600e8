//! Preferences: what the user changed in the testbed and expects back next time (draw
//! options, the last scene, stepping, the panel's width and open sections), kept in a small
//! RON file.
//!
//! Where: `$IMPULSE_SETTINGS` when set (an empty value turns persistence off); otherwise
//! `$XDG_CONFIG_HOME/impulse/impulse-settings.ron`, or `~/.config/impulse/impulse-settings.ron`.
//! Automated runs (`--frames`) neither read nor write the file unless `IMPULSE_SETTINGS` names
//! one, so a test never depends on, nor changes, the user's preferences.
//!
//! Writes go to a temporary file renamed into place. A file that cannot be read or parsed is
//! ignored (defaults are used) with a message for the panel, never a crash; every field has a
//! default and unknown fields are skipped, so files from older or newer versions still load.
//! Solver settings are not preferences: they belong to the scene and restart with it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::physics::threads::MAX_THREADS;
use crate::physics::DrawFlags;

/// Name of the preferences file.
pub const FILE_NAME: &str = "impulse-settings.ron";
/// Environment variable naming the preferences file (empty: do not persist).
pub const ENV_VAR: &str = "IMPULSE_SETTINGS";

/// How the simulation advances per drawn frame.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Stepping {
    /// Exactly this many fixed steps per frame (deterministic frame by frame; at 60 frames
    /// per second and a 60 Hz step, one step per frame is real time).
    StepsPerFrame(u32),
    /// As many fixed steps as `time scale x elapsed wall time` asks for (1.0 is real time),
    /// at most `MAX_STEPS_PER_FRAME` per frame.
    TimeScale(f32),
}

impl Default for Stepping {
    fn default() -> Self {
        Stepping::StepsPerFrame(1)
    }
}

/// `DrawFlags` as the preferences file spells them (the core has no serde).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DrawPrefs {
    pub shapes: bool,
    pub joints: bool,
    pub joint_anchors: bool,
    pub contact_points: bool,
    pub contact_normals: bool,
    pub normal_impulses: bool,
    pub friction_impulses: bool,
    pub aabbs: bool,
    pub centers_of_mass: bool,
    pub body_names: bool,
    pub joint_forces: bool,
}

impl Default for DrawPrefs {
    fn default() -> Self {
        DrawPrefs::from(DrawFlags::default())
    }
}

impl From<DrawFlags> for DrawPrefs {
    fn from(f: DrawFlags) -> Self {
        DrawPrefs {
            shapes: f.shapes,
            joints: f.joints,
            joint_anchors: f.joint_anchors,
            contact_points: f.contact_points,
            contact_normals: f.contact_normals,
            normal_impulses: f.normal_impulses,
            friction_impulses: f.friction_impulses,
            aabbs: f.aabbs,
            centers_of_mass: f.centers_of_mass,
            body_names: f.body_names,
            joint_forces: f.joint_forces,
        }
    }
}

impl From<DrawPrefs> for DrawFlags {
    fn from(f: DrawPrefs) -> Self {
        DrawFlags {
            shapes: f.shapes,
            joints: f.joints,
            joint_anchors: f.joint_anchors,
            contact_points: f.contact_points,
            contact_normals: f.contact_normals,
            normal_impulses: f.normal_impulses,
            friction_impulses: f.friction_impulses,
            aabbs: f.aabbs,
            centers_of_mass: f.centers_of_mass,
            body_names: f.body_names,
            joint_forces: f.joint_forces,
        }
    }
}

/// Which sections of the side panel are open.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sections {
    pub scenes: bool,
    pub run: bool,
    pub solver: bool,
    pub draw: bool,
    pub stats: bool,
    pub view: bool,
    pub compare: bool,
    pub plots: bool,
    /// The Joint events section (breakable joints).
    pub joint_events: bool,
}

impl Default for Sections {
    fn default() -> Self {
        Sections {
            scenes: true,
            run: true,
            solver: true,
            draw: false,
            stats: true,
            view: false,
            compare: false,
            plots: false,
            joint_events: true,
        }
    }
}

/// Everything remembered between runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Preferences {
    /// The scene file open at exit (opened next time when no `--scene` is given).
    pub last_scene: Option<PathBuf>,
    pub draw: DrawPrefs,
    pub stepping: Stepping,
    /// Width of the side panel, egui points.
    pub panel_width: f32,
    pub sections: Sections,
    /// Threads each world steps on (`World::set_thread_count`; the results do not depend
    /// on it). 1 to `MAX_THREADS`.
    pub threads: usize,
}

impl Default for Preferences {
    fn default() -> Self {
        Preferences {
            last_scene: None,
            draw: DrawPrefs::default(),
            stepping: Stepping::default(),
            panel_width: DEFAULT_PANEL_WIDTH,
            sections: Sections::default(),
            threads: 1,
        }
    }
}

/// Default width of the side panel (egui points).
pub const DEFAULT_PANEL_WIDTH: f32 = 340.0;
/// Narrowest and widest side panel (egui points).
pub const PANEL_WIDTH_RANGE: (f32, f32) = (260.0, 640.0);

impl Preferences {
    /// Parse preferences text. Out-of-range numbers are brought into range.
    pub fn parse(text: &str) -> Result<Preferences, String> {
        let mut prefs: Preferences = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(text)
            .map_err(|e| format!("{}:{}: {}", e.span.start.line, e.span.start.col, e.code))?;
        prefs.sanitize();
        Ok(prefs)
    }

    /// The file text (pretty RON).
    pub fn to_text(&self) -> String {
        let config = ron::ser::PrettyConfig::new()
            .depth_limit(3)
            .struct_names(true);
        let body = ron::ser::to_string_pretty(self, config)
            .unwrap_or_else(|_| "Preferences()".to_string());
        format!(
            "// Impulse testbed preferences; rewritten by the testbed. Delete to reset.\n{body}\n"
        )
    }

    fn sanitize(&mut self) {
        let (lo, hi) = PANEL_WIDTH_RANGE;
        self.panel_width = if self.panel_width.is_finite() {
            self.panel_width.clamp(lo, hi)
        } else {
            DEFAULT_PANEL_WIDTH
        };
        self.stepping = match self.stepping {
            Stepping::StepsPerFrame(n) => Stepping::StepsPerFrame(n.min(MAX_STEPS_PER_FRAME)),
            Stepping::TimeScale(s) if s.is_finite() => {
                Stepping::TimeScale(s.clamp(TIME_SCALE_RANGE.0, TIME_SCALE_RANGE.1))
            }
            Stepping::TimeScale(_) => Stepping::TimeScale(1.0),
        };
        self.threads = self.threads.clamp(1, MAX_THREADS);
    }
}

/// Most fixed steps taken in one frame (also the cap of the time-scale mode, so a slow
/// scene slows down instead of spiralling).
pub const MAX_STEPS_PER_FRAME: u32 = 16;
/// Slowest and fastest time scale.
pub const TIME_SCALE_RANGE: (f32, f32) = (0.01, 8.0);

/// Where the preferences live, and whether they are read and written at all.
#[derive(Clone, Debug, PartialEq)]
pub struct PreferencesFile {
    /// `None`: persistence is off.
    pub path: Option<PathBuf>,
}

impl PreferencesFile {
    /// The file for this run (see the module docs). `automated`: a `--frames` run.
    pub fn locate(automated: bool) -> PreferencesFile {
        if let Some(value) = std::env::var_os(ENV_VAR) {
            let path = (!value.is_empty()).then(|| PathBuf::from(value));
            return PreferencesFile { path };
        }
        if automated {
            return PreferencesFile { path: None };
        }
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME")
                    .filter(|v| !v.is_empty())
                    .map(|home| PathBuf::from(home).join(".config"))
            });
        PreferencesFile {
            path: config.map(|dir| dir.join("impulse").join(FILE_NAME)),
        }
    }

    /// Read the preferences. A missing file gives the defaults silently; an unreadable or
    /// corrupt one gives the defaults and a message saying it was ignored.
    pub fn load(&self) -> (Preferences, Option<String>) {
        let Some(path) = &self.path else {
            return (Preferences::default(), None);
        };
        match std::fs::read_to_string(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Preferences::default(), None),
            Err(e) => (
                Preferences::default(),
                Some(format!(
                    "Ignored the settings file {}: cannot read it: {e}",
                    crate::files::escape(path)
                )),
            ),
            Ok(text) => match Preferences::parse(&text) {
                Ok(prefs) => (prefs, None),
                Err(e) => (
                    Preferences::default(),
                    Some(format!(
                        "Ignored the corrupt settings file {}:{e}. Defaults are used; the file \
                         is rewritten when a setting changes.",
                        crate::files::escape(path)
                    )),
                ),
            },
        }
    }

    /// Write the preferences (creating the folder), via a temporary file renamed into place.
    /// Does nothing when persistence is off.
    pub fn save(&self, prefs: &Preferences) -> Result<(), String> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        crate::files::write_atomic(path, prefs.to_text()).map_err(|e| format!("cannot write {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let prefs = Preferences {
            last_scene: Some(PathBuf::from("scenes/box2d_lite/pyramid_stacking.ron")),
            draw: DrawPrefs {
                contact_points: true,
                ..DrawPrefs::default()
            },
            stepping: Stepping::TimeScale(0.5),
            panel_width: 400.0,
            sections: Sections {
                solver: false,
                ..Sections::default()
            },
            threads: 2,
        };
        assert_eq!(Preferences::parse(&prefs.to_text()).unwrap(), prefs);
    }

    #[test]
    fn missing_fields_default_and_unknown_fields_are_skipped() {
        let prefs = Preferences::parse("(draw: (contact_points: true), future_field: 3)").unwrap();
        assert!(prefs.draw.contact_points && prefs.draw.shapes);
        assert_eq!(prefs.stepping, Stepping::StepsPerFrame(1));
        let prefs = Preferences::parse("(panel_width: 1e9, stepping: TimeScale(inf))");
        // `inf` is not RON for a float here; either way nothing panics.
        if let Ok(p) = prefs {
            assert!(p.panel_width <= PANEL_WIDTH_RANGE.1);
        }
        let prefs = Preferences::parse("(panel_width: 1e9, stepping: StepsPerFrame(1000))");
        let prefs = prefs.unwrap();
        assert_eq!(prefs.panel_width, PANEL_WIDTH_RANGE.1);
        assert_eq!(prefs.stepping, Stepping::StepsPerFrame(MAX_STEPS_PER_FRAME));
        // Thread counts are brought into 1..=MAX_THREADS.
        assert_eq!(Preferences::parse("(threads: 0)").unwrap().threads, 1);
        assert_eq!(
            Preferences::parse("(threads: 100000)").unwrap().threads,
            MAX_THREADS
        );
        assert_eq!(Preferences::parse("()").unwrap().threads, 1);
    }

    #[test]
    fn corrupt_file_is_ignored_with_a_message() {
        let dir = std::env::temp_dir().join(format!("impulse-prefs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(FILE_NAME);
        std::fs::write(&path, "(draw: (shapes: maybe))").unwrap();
        let file = PreferencesFile {
            path: Some(path.clone()),
        };
        let (prefs, message) = file.load();
        assert_eq!(prefs, Preferences::default());
        let message = message.unwrap();
        assert!(
            message.contains("corrupt") && message.contains(FILE_NAME),
            "{message}"
        );
        // Saving replaces it with a good file.
        file.save(&prefs).unwrap();
        assert_eq!(file.load(), (Preferences::default(), None));
        // A missing file is silent.
        std::fs::remove_file(&path).unwrap();
        assert_eq!(file.load(), (Preferences::default(), None));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
