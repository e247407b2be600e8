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

use super::solver_view::{ColorBy, SolverDrawFlags};
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

/// The Draw section as the preferences file spells it: the core's `DrawFlags` (the core has
/// no serde) and the solver view's toggles (`SolverDrawFlags`), every checkbox and the
/// colouring choice. A file from before a toggle existed loads with that toggle's default.
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
    /// Joint reaction forces (arrows) and torques (circles).
    pub joint_forces: bool,
    /// Contacts and joints coloured by their error or their last impulse change.
    pub color_by: ColorBy,
    /// Contacts and joints in their constraint-graph colour.
    pub graph_colors: bool,
    /// Bodies in their island's colour.
    pub islands: bool,
    /// Contact feature ids.
    pub feature_ids: bool,
    /// Warm-started, cold and recycled contacts marked.
    pub warm_started: bool,
}

impl Default for DrawPrefs {
    fn default() -> Self {
        DrawPrefs::new(&DrawFlags::default(), &SolverDrawFlags::default())
    }
}

impl DrawPrefs {
    /// The Draw section's state: the core's flags and the solver view's.
    pub fn new(f: &DrawFlags, s: &SolverDrawFlags) -> Self {
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
            color_by: s.color_by,
            graph_colors: s.graph_colors,
            islands: s.islands,
            feature_ids: s.feature_ids,
            warm_started: s.warm_started,
        }
    }

    /// The solver view's toggles.
    pub fn solver_draw(&self) -> SolverDrawFlags {
        SolverDrawFlags {
            color_by: self.color_by,
            graph_colors: self.graph_colors,
            islands: self.islands,
            feature_ids: self.feature_ids,
            warm_started: self.warm_started,
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
                        "Ignored the corrupt settings file {}:{e}. Defaults are used; when a \
                         setting changes the file is rewritten, its text kept as {}.",
                        crate::files::escape(path),
                        crate::files::escape(kept_copy(path))
                    )),
                ),
            },
        }
    }

    /// Write the preferences (creating the folder), via a temporary file renamed into place.
    /// Does nothing when persistence is off. A file there that does not parse (a hand edit
    /// gone wrong, before or during the run) is first copied to `kept_copy(path)`, and
    /// nothing is written when that copy fails: the user's text is never lost.
    pub fn save(&self, prefs: &Preferences) -> Result<(), String> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        if let Ok(old) = std::fs::read_to_string(path) {
            if Preferences::parse(&old).is_err() {
                let kept = kept_copy(path);
                crate::files::write_atomic(&kept, old).map_err(|e| {
                    format!(
                        "cannot keep the corrupt settings file {} as {}, so it is left as it \
                         is: {e}",
                        crate::files::escape(path),
                        crate::files::escape(&kept)
                    )
                })?;
            }
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        crate::files::write_atomic(path, prefs.to_text()).map_err(|e| format!("cannot write {e}"))
    }
}

/// Where the text of a corrupt preferences file is kept before the file is rewritten: the
/// same name with `.bad` added.
pub fn kept_copy(path: &std::path::Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".bad");
    PathBuf::from(name)
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

    type Toggle = fn(&mut DrawPrefs);

    /// Every Draw toggle, by its field name in the file, with a setter.
    fn draw_toggles() -> Vec<(&'static str, Toggle)> {
        vec![
            ("shapes", |d| d.shapes = !d.shapes),
            ("joints", |d| d.joints = !d.joints),
            ("joint_anchors", |d| d.joint_anchors = !d.joint_anchors),
            ("contact_points", |d| d.contact_points = !d.contact_points),
            ("contact_normals", |d| {
                d.contact_normals = !d.contact_normals
            }),
            ("normal_impulses", |d| {
                d.normal_impulses = !d.normal_impulses
            }),
            ("friction_impulses", |d| {
                d.friction_impulses = !d.friction_impulses
            }),
            ("aabbs", |d| d.aabbs = !d.aabbs),
            ("centers_of_mass", |d| {
                d.centers_of_mass = !d.centers_of_mass
            }),
            ("body_names", |d| d.body_names = !d.body_names),
            ("joint_forces", |d| d.joint_forces = !d.joint_forces),
            ("graph_colors", |d| d.graph_colors = !d.graph_colors),
            ("islands", |d| d.islands = !d.islands),
            ("feature_ids", |d| d.feature_ids = !d.feature_ids),
            ("warm_started", |d| d.warm_started = !d.warm_started),
            ("color_by", |d| d.color_by = ColorBy::Error),
            ("color_by", |d| d.color_by = ColorBy::ImpulseChange),
        ]
    }

    /// Each Draw toggle changed alone survives the file and the testbed's two flag sets
    /// (`DrawFlags`, `SolverDrawFlags`): a field left out of a conversion or of the file
    /// comes back at its default and fails here.
    #[test]
    fn every_draw_toggle_round_trips() {
        let toggles = draw_toggles();
        // Every field of `DrawPrefs` is listed (a new toggle must be added here).
        let text = Preferences::default().to_text();
        let fields = text
            .lines()
            .skip_while(|l| !l.contains("draw: DrawPrefs("))
            .skip(1)
            .take_while(|l| !l.trim_start().starts_with(')'))
            .count();
        let listed: std::collections::BTreeSet<_> = toggles.iter().map(|t| t.0).collect();
        assert_eq!(fields, listed.len(), "fields in\n{text}");
        for (name, toggle) in toggles {
            let mut draw = DrawPrefs::default();
            toggle(&mut draw);
            assert_ne!(draw, DrawPrefs::default(), "{name}");
            let prefs = Preferences {
                draw,
                ..Preferences::default()
            };
            let text = prefs.to_text();
            assert!(text.contains(&format!("{name}: ")), "{name} not in\n{text}");
            assert_eq!(Preferences::parse(&text).unwrap(), prefs, "{name}");
            // Through the testbed's flags and back.
            let flags: DrawFlags = draw.into();
            assert_eq!(DrawPrefs::new(&flags, &draw.solver_draw()), draw, "{name}");
        }
        // All of them changed at once.
        let mut draw = DrawPrefs::default();
        for (_, toggle) in draw_toggles() {
            toggle(&mut draw);
        }
        let prefs = Preferences {
            draw,
            ..Preferences::default()
        };
        assert_eq!(Preferences::parse(&prefs.to_text()).unwrap(), prefs);
    }

    /// A file written before the solver view's toggles existed (the testbed's own output at
    /// the time) loads: what it says is kept, the new toggles take their defaults.
    #[test]
    fn a_file_from_before_the_solver_view_loads() {
        let old = "// Impulse testbed preferences; rewritten by the testbed. Delete to reset.
Preferences(
    last_scene: Some(\"scenes/box2d_lite/pyramid_stacking.ron\"),
    draw: DrawPrefs(
        shapes: true,
        joints: false,
        joint_anchors: true,
        contact_points: true,
        contact_normals: false,
        normal_impulses: true,
        friction_impulses: false,
        aabbs: false,
        centers_of_mass: false,
        body_names: true,
        joint_forces: true,
    ),
    stepping: TimeScale(0.5),
    panel_width: 400.0,
    sections: Sections(
        scenes: true,
        run: true,
        solver: false,
        draw: true,
        stats: true,
        view: false,
        compare: false,
        plots: false,
        joint_events: true,
    ),
    threads: 2,
)
";
        let prefs = Preferences::parse(old).unwrap();
        let d = prefs.draw;
        assert!(d.shapes && !d.joints && d.contact_points && d.normal_impulses);
        assert!(d.body_names && d.joint_forces && !d.aabbs);
        assert_eq!(d.solver_draw(), SolverDrawFlags::default());
        assert_eq!(prefs.stepping, Stepping::TimeScale(0.5));
        assert_eq!(prefs.panel_width, 400.0);
        assert!(!prefs.sections.solver && prefs.sections.draw);
        assert_eq!(prefs.threads, 2);
        // Written back, it gains the new toggles and loads the same.
        assert_eq!(Preferences::parse(&prefs.to_text()).unwrap(), prefs);
    }

    /// A bad value of a new toggle is an error naming the line, the column and the problem;
    /// the rewrite that follows keeps the bad text beside the file.
    #[test]
    fn a_corrupt_file_is_named_and_kept_when_rewritten() {
        let text = "(\n  draw: (islands: true, color_by: Sideways),\n  threads: 2,\n)";
        let err = Preferences::parse(text).unwrap_err();
        assert!(err.starts_with("2:"), "{err}");
        assert!(err.contains("Sideways"), "{err}");
        let err = Preferences::parse("(draw: (feature_ids: 3))").unwrap_err();
        assert!(err.starts_with("1:") && err.contains("bool"), "{err}");

        let dir = std::env::temp_dir().join(format!("impulse-prefs-kept-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(FILE_NAME);
        std::fs::write(&path, text).unwrap();
        let file = PreferencesFile {
            path: Some(path.clone()),
        };
        let (prefs, message) = file.load();
        assert_eq!(prefs, Preferences::default());
        let message = message.unwrap();
        let kept = kept_copy(&path);
        assert!(
            message.contains("2:") && message.contains(&kept.display().to_string()),
            "{message}"
        );
        // Nothing is copied until the file is rewritten.
        assert!(!kept.exists());
        let mut changed = Preferences::default();
        changed.draw.graph_colors = true;
        file.save(&changed).unwrap();
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), text);
        assert_eq!(file.load(), (changed.clone(), None));
        // A good file is rewritten without a copy.
        std::fs::remove_file(&kept).unwrap();
        file.save(&Preferences::default()).unwrap();
        assert!(!kept.exists());
        // When the copy cannot be made, the corrupt file is left alone.
        std::fs::write(&path, text).unwrap();
        std::fs::create_dir(&kept).unwrap();
        let err = file.save(&changed).unwrap_err();
        assert!(err.contains("left as it is"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
