//! `Testbed`: the seam between the window and the physics. It owns the scene (the file, its
//! metadata), the worlds running it (a `lab::Comparison`: one world, or up to four when
//! comparing solver settings), the run state (pause, stepping, the rewind recording), the draw
//! flags, the probe (pick and plots), the statistics history and the file watch.
//!
//! Everything the user does to the worlds goes through [`Testbed::input`] as a `lab::Input`
//! (grab, drag, release, bomb, settings), recorded for rewind and applied to every world
//! alike (settings to the world being edited). The mouse joint and the bomb are the lab's
//! (`lab::Session`): the testbed only picks the bomb's random throw.
//!
//! The window loop (`window.rs`) owns the camera, input, egui and screenshots, and calls
//! exactly these methods each frame, in this order:
//!
//! 1. [`Testbed::ui`] inside the side panel (`panel.rs`: scenes, run and its timeline,
//!    compare, solver, draw, stats, plots).
//! 2. [`Testbed::mouse_down`] / [`Testbed::mouse_move`] / [`Testbed::mouse_up`] for the left
//!    button in world coordinates, only when the press started in the world view;
//!    [`Testbed::pick`] for Ctrl+click; keys through [`Testbed::key`].
//! 3. [`Testbed::update`]: apply panel requests, reload a changed scene file, take this
//!    frame's fixed steps.
//! 4. [`Testbed::draw_world`] with the world camera set.
//!
//! Plus [`Testbed::take_camera_request`] (frame a newly opened scene), [`Testbed::frame_region`]
//! for `F` (frame the scene) and [`Testbed::state_json`] for `--dump-state`.
//!
//! What is shown is the live state, or, while paused and scrubbing the timeline, a rebuilt
//! older step ([`Rewind`]). Any input, a step or pressing run makes the step shown the
//! present and forgets the recorded future.
//!
//! Scenes: the scene *chosen* (highlighted in the menu, watched on disk) may differ from the
//! scene *running*: when a chosen file fails to load (a syntax error, a joint type this build
//! cannot map), the last good scene keeps running and the errors stay in the panel until the
//! file is fixed. Restart rebuilds the running scene from its last good file text, keeping the
//! solver settings as the user set them; opening or reloading a file takes the file's settings
//! (through each compared world's preset).

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::Instant;

use egui_macroquad::egui;

use super::breaks::JointLog;
use super::compare::{legend_color, Preset};
use super::draw::{draw_worlds, MacroquadDraw};
use super::framing::frame_region;
use super::library::{canonical, Library};
use super::plots::History;
use super::preferences::{DrawPrefs, Preferences, Sections, Stepping, MAX_STEPS_PER_FRAME};
use super::probe::{pick_at, Pick, Probe};
use super::report::{
    settings_report, to_json_line, DumpExtra, InspectReport, Labelled, PickReport, RewindReport,
    SteppingReport, TestbedReport, WindowReport, WorldReport,
};
use super::rewind::Rewind;
use super::solver_view::{draw_solver, ColorBy, InspectStep, Inspection, SolverDrawFlags};
use super::watch::FileWatch;
use crate::files::escape;
use crate::lab::compare::MAX_WORLDS;
use crate::lab::{Comparison, Input, Replay, Session};
use crate::physics::quarantine::describe_quarantine;
use crate::physics::threads::MAX_THREADS;
use crate::physics::{Aabb, BodyKind, Color, DrawFlags, SolverSettings, Vec2, World};
use crate::scene::{self, CameraFile, SceneFile};

pub use crate::lab::session::{MOUSE_DAMPING_RATIO, MOUSE_FORCE_PER_WEIGHT, MOUSE_HERTZ};

/// Step times kept for the `--dump-state` statistics (median, p95, max).
pub const STEP_TIMES_KEPT: usize = 600;
/// Longest frame the time-scale mode catches up on, seconds (after a stall, the simulation
/// slows down instead of taking hundreds of steps).
pub const MAX_FRAME_SECONDS: f32 = 0.25;

/// Bomb: Box2D-Lite's 1 m box of 50 kg, scaled with the scene's camera (1 m for a 21 m view).
const BOMB_VIEW_HEIGHT: f32 = 21.0;

/// What the running scene is.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneInfo {
    pub name: String,
    pub category: String,
    pub description: String,
    pub camera: CameraFile,
}

impl Default for SceneInfo {
    fn default() -> Self {
        SceneInfo {
            name: "(no scene)".to_string(),
            category: String::new(),
            description: String::new(),
            camera: CameraFile::default(),
        }
    }
}

/// What the window tells the panel about the frame loop.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameInfo {
    /// Frames per second, smoothed.
    pub fps: f32,
    /// Frames drawn so far.
    pub frames: u64,
}

/// Requests from the panel and keys, applied at the start of `update`.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    Open(PathBuf),
    /// Next (+1) or previous (-1) scene of the menu.
    Neighbour(isize),
    Restart,
    Bomb,
    ResetSettings,
    /// Add a compared world (restarts the scene in every world).
    AddWorld(Preset),
    /// Remove compared world `i` (restarts the scene in every world).
    RemoveWorld(usize),
    /// Add a world with this preset starting from the frame shown (paused; no restart).
    Fork(Preset),
}

/// The keys the testbed handles (the window maps macroquad's key codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Pause,
    SingleStep,
    Restart,
    Bomb,
    NextScene,
    PreviousScene,
    /// Iteration stepping inside the step (`solver_view.rs`).
    NextIteration,
    PreviousIteration,
    NextSubstep,
    FinishStep,
}

/// The physics side of the testbed, in five parts: the scene and its loading, the lab (the
/// worlds, their presets, the recording, statistics and probe), the run state (pause,
/// stepping, step times), the user's input in progress, and the view (draw flags, panel).
pub struct Testbed {
    pub(super) scene: SceneState,
    pub(super) lab: LabState,
    /// Pause and stepping (`paused` and `stepping` are the user's).
    pub run: RunState,
    pub(super) input: InputState,
    /// Draw flags and panel state (`draw_flags`, `solver_draw` and `sections` are the user's).
    pub view: ViewState,
}

/// The scene chosen and the scene running, and their loading.
pub(super) struct SceneState {
    /// The scene menu.
    pub(super) library: Library,
    /// The scene file chosen: highlighted in the menu and watched.
    pub(super) path: Option<PathBuf>,
    /// The running scene (from the last good load).
    pub(super) info: SceneInfo,
    /// The last good file, for restarts; and the name it was loaded under.
    pub(super) good_file: Option<(SceneFile, String)>,
    /// The running scene's own settings (the Solver section's reset button).
    pub(super) settings: SolverSettings,
    /// Errors of the chosen file, one `file:line:col: message` each (empty when it loaded).
    pub(super) errors: Vec<String>,
    /// Messages for the top of the panel (ignored settings file, missing scenes folder).
    pub(super) notices: Vec<String>,
    /// What the step's quarantine caught since the scene started (a body whose state went
    /// non-finite, frozen), one line each; shown in the panel as errors.
    pub(super) step_errors: Vec<String>,
    pub(super) watch: Option<FileWatch>,
    /// The camera of a newly opened scene, until the window takes it.
    pub(super) camera_request: Option<CameraFile>,
}

/// The worlds and what is measured and recorded of them.
pub(super) struct LabState {
    /// The live worlds (the newest step): one, or up to `MAX_WORLDS` when comparing.
    pub(super) live: Comparison,
    /// Where each world's settings come from (one per world of `live`).
    pub(super) presets: Vec<Preset>,
    /// The world the Solver section edits.
    pub(super) focus: usize,
    /// The recording of the last seconds, and the older step shown while scrubbing.
    pub(super) rewind: Rewind,
    /// The statistics of the last seconds (the Stats section's plots).
    pub(super) history: History,
    /// The picked body or joint and its trace.
    pub(super) probe: Probe,
    /// The recent joint events of every world (`breaks.rs`).
    pub(super) joint_log: JointLog,
    /// The step under inspection (iteration stepping), shown instead of the frame.
    pub(super) inspection: Option<Inspection>,
}

/// Pause, stepping and step times.
pub struct RunState {
    /// When true, `update` steps only when a single step was requested.
    pub paused: bool,
    pub(super) step_requested: bool,
    pub stepping: Stepping,
    /// Simulated seconds owed by the time-scale mode.
    pub(super) accumulator: f32,
    /// Steps taken in the last frame.
    pub(super) frame_steps: u32,
    /// Step times of each world, ms.
    pub(super) step_times: Vec<VecDeque<f64>>,
    /// Sum of the last frame's step times of each world, ms.
    pub(super) frame_step_ms: Vec<f32>,
    /// Threads each world steps on (`World::set_thread_count`), 1 to `MAX_THREADS`.
    pub threads: usize,
}

/// The user's input in progress: the mouse, the bomb's random throw, queued requests.
pub(super) struct InputState {
    /// True while the left button holds (or tries to hold) a body.
    pub(super) mouse_held: bool,
    /// The last drag target sent (a drag to the same point is not an input).
    pub(super) drag_target: Option<Vec2>,
    pub(super) rng: u64,
    /// Panel and key requests, applied at the start of the next `update`.
    pub(super) requests: Vec<Request>,
}

/// What is drawn and how the panel stands.
pub struct ViewState {
    /// What `draw_world` draws; every flag is a checkbox in the panel.
    pub draw_flags: DrawFlags,
    /// The solver view: error colouring and the solver's structure.
    pub solver_draw: SolverDrawFlags,
    /// The preset "fork into compare" adds.
    pub fork_preset: Preset,
    /// Which panel sections are open (remembered in the preferences).
    pub sections: Sections,
    /// The scene whose category the menu last opened.
    pub(super) menu_revealed: Option<PathBuf>,
    /// Screen rectangles of named panel widgets, from the last frame (for test automation).
    pub(super) layout: HashMap<&'static str, egui::Rect>,
}

impl Testbed {
    /// A testbed on `scene` or, without it, on the preferences' last scene or the library's
    /// default. Fails only when `scene` names a file that cannot be read (before any window
    /// opens); a file with errors opens an empty world with the errors in the panel, and is
    /// watched so that fixing it loads it.
    pub fn new(scene: Option<&Path>, prefs: &Preferences) -> Result<Testbed, String> {
        Testbed::with_library(scene, prefs, Library::scan())
    }

    /// `new` with a given scene menu.
    pub fn with_library(
        scene: Option<&Path>,
        prefs: &Preferences,
        library: Library,
    ) -> Result<Testbed, String> {
        if let Some(path) = scene {
            std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read scene file {}: {e}", escape(path)))?;
        }
        let mut notices = Vec::new();
        notices.extend(library.message.clone());
        let path = scene.map(Path::to_path_buf).or_else(|| {
            prefs
                .last_scene
                .clone()
                .filter(|p| p.is_file())
                .or_else(|| library.default_scene())
        });
        let lab = Comparison {
            sessions: vec![Session::new(Preset::Scene.label(), World::default())],
        };
        let mut testbed = Testbed {
            scene: SceneState {
                library,
                path: None,
                info: SceneInfo::default(),
                good_file: None,
                settings: SolverSettings::default(),
                errors: Vec::new(),
                notices,
                step_errors: Vec::new(),
                watch: None,
                camera_request: None,
            },
            lab: LabState {
                rewind: Rewind::new(&lab),
                live: lab,
                presets: vec![Preset::Scene],
                focus: 0,
                history: History::default(),
                probe: Probe::default(),
                joint_log: JointLog::default(),
                inspection: None,
            },
            run: RunState {
                paused: false,
                step_requested: false,
                stepping: prefs.stepping,
                threads: prefs.threads.clamp(1, MAX_THREADS),
                accumulator: 0.0,
                frame_steps: 0,
                step_times: vec![VecDeque::new()],
                frame_step_ms: vec![0.0],
            },
            input: InputState {
                mouse_held: false,
                drag_target: None,
                rng: 0x9e37_79b9_7f4a_7c15,
                requests: Vec::new(),
            },
            view: ViewState {
                draw_flags: prefs.draw.into(),
                solver_draw: prefs.draw.solver_draw(),
                fork_preset: Preset::Verdict("soft step"),
                sections: prefs.sections,
                menu_revealed: None,
                layout: HashMap::new(),
            },
        };
        match path {
            Some(path) => testbed.open(&path),
            None => testbed.scene.camera_request = Some(CameraFile::default()),
        }
        Ok(testbed)
    }

    // ----------------------------------------------------------------------------------
    // Accessors.

    /// The worlds shown: the live ones, an older step while scrubbing, or the step under
    /// inspection stopped inside.
    pub fn shown(&self) -> &Comparison {
        if let Some(inspection) = &self.lab.inspection {
            return &inspection.view;
        }
        self.lab.rewind.view().unwrap_or(&self.lab.live)
    }

    /// The step under inspection, when iteration stepping.
    pub fn inspection(&self) -> Option<&Inspection> {
        self.lab.inspection.as_ref()
    }

    /// The first world shown (the only one unless comparing).
    pub fn world(&self) -> &World {
        &self.shown().sessions[0].world
    }

    /// True when more than one world runs.
    pub fn comparing(&self) -> bool {
        self.lab.live.sessions.len() > 1
    }

    /// The legend: each world's label (numbered when comparing) and colour.
    pub fn legend(&self) -> Vec<(String, Color)> {
        self.lab
            .live
            .sessions
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("{} {}", i + 1, s.label), legend_color(i)))
            .collect()
    }

    /// The worlds' labels.
    pub fn labels(&self) -> Vec<String> {
        self.legend().into_iter().map(|(l, _)| l).collect()
    }

    pub fn info(&self) -> &SceneInfo {
        &self.scene.info
    }

    /// The scene file chosen (highlighted in the menu, watched on disk).
    pub fn scene_path(&self) -> Option<&Path> {
        self.scene.path.as_deref()
    }

    /// Errors of the chosen scene file (empty when it is the one running).
    pub fn errors(&self) -> &[String] {
        &self.scene.errors
    }

    /// Messages shown at the top of the panel.
    pub fn notices(&self) -> &[String] {
        &self.scene.notices
    }

    pub fn add_notice(&mut self, message: String) {
        if !self.scene.notices.contains(&message) {
            self.scene.notices.push(message);
        }
    }

    /// The scene menu.
    pub fn library(&self) -> &Library {
        &self.scene.library
    }

    /// Fixed steps taken in the scene shown.
    pub fn steps(&self) -> u64 {
        self.world().step_count()
    }

    /// Simulated time shown (s).
    pub fn time(&self) -> f64 {
        self.world().time()
    }

    /// The recorded range (oldest and newest step) and the step shown.
    pub fn timeline(&self) -> (u64, u64, u64) {
        (
            self.lab.rewind.oldest(),
            self.lab.rewind.newest(),
            self.lab.rewind.shown_step(),
        )
    }

    /// The picked body or joint.
    pub fn picked(&self) -> Option<Pick> {
        self.lab.probe.pick
    }

    /// Screen rectangles (egui points) of named panel widgets, as last laid out.
    pub fn layout(&self) -> &HashMap<&'static str, egui::Rect> {
        &self.view.layout
    }

    /// The camera of a newly opened scene, once.
    pub fn take_camera_request(&mut self) -> Option<CameraFile> {
        self.scene.camera_request.take()
    }

    /// What the preferences remember of the testbed (the window adds the panel width).
    pub fn preferences(&self, panel_width: f32) -> Preferences {
        Preferences {
            last_scene: self.scene.path.as_deref().map(canonical),
            draw: DrawPrefs::new(&self.view.draw_flags, &self.view.solver_draw),
            stepping: self.run.stepping,
            threads: self.run.threads,
            panel_width,
            sections: self.view.sections,
        }
    }

    /// Queue a request (applied at the start of the next `update`).
    pub fn request(&mut self, request: Request) {
        self.input.requests.push(request);
    }

    // ----------------------------------------------------------------------------------
    // Scenes.

    /// Read, parse and build a scene file: the file, the scene, or every error as text.
    fn load(path: &Path) -> Result<(SceneFile, scene::Scene, String), Vec<String>> {
        let name = path.display().to_string();
        let errors =
            |e: scene::SceneErrors| -> Vec<String> { e.iter().map(|e| e.to_string()).collect() };
        let text = scene::read_file(path).map_err(errors)?;
        let file = scene::parse(&text, &name).map_err(errors)?;
        let built = scene::build::build(&file, &name).map_err(errors)?;
        Ok((file, built, name))
    }

    /// Open `path` as the chosen scene. On success it runs, framed by its camera; on failure
    /// the running scene keeps running and the errors show in the panel.
    pub fn open(&mut self, path: &Path) {
        self.scene.path = Some(path.to_path_buf());
        self.scene.watch = Some(FileWatch::new(path));
        match Testbed::load(path) {
            Ok((file, built, name)) => {
                self.scene.camera_request = Some(built.camera);
                self.install(file, built, name);
            }
            Err(errors) => self.fail(errors),
        }
    }

    /// Open an empty world (no file): used for reference screenshots.
    pub fn open_empty(&mut self) {
        self.scene.path = None;
        self.scene.watch = None;
        self.scene.good_file = None;
        self.scene.errors.clear();
        self.scene.info = SceneInfo::default();
        let world = World::default();
        self.scene.settings = *world.settings();
        self.lab.probe.set_pick(None);
        self.start_from_presets(world);
        self.scene.camera_request = Some(self.scene.info.camera);
    }

    /// Reload the chosen file after it changed on disk: the camera stays where it is.
    fn reload(&mut self) {
        let Some(path) = self.scene.path.clone() else {
            return;
        };
        match Testbed::load(&path) {
            Ok((file, built, name)) => {
                eprintln!("testbed: reloaded {}", escape(&path));
                self.install(file, built, name);
            }
            Err(errors) => self.fail(errors),
        }
    }

    /// Make a freshly built scene the running one.
    fn install(&mut self, file: SceneFile, built: scene::Scene, name: String) {
        self.scene.info = SceneInfo {
            name: built.name,
            category: built.category,
            description: built.description,
            camera: built.camera,
        };
        self.scene.settings = *built.world.settings();
        self.scene.good_file = Some((file, name));
        self.scene.errors.clear();
        self.lab.probe.set_pick(None);
        self.start_from_presets(built.world);
    }

    /// The chosen file has errors: keep the running scene, show (and log) the errors.
    fn fail(&mut self, errors: Vec<String>) {
        if errors != self.scene.errors {
            for e in &errors {
                eprintln!("testbed: {}", escape(e));
            }
            eprintln!(
                "testbed: still running the last good scene: {}",
                escape(&self.scene.info.name)
            );
        }
        self.scene.errors = errors;
    }

    /// Run `base` in one world per preset, each with its preset's settings.
    fn start_from_presets(&mut self, base: World) {
        self.scene.step_errors.clear();
        let settings = self
            .lab
            .presets
            .iter()
            .map(|p| p.settings(&self.scene.settings))
            .collect();
        self.start(base, settings);
    }

    /// Run `base` in one world per entry of `settings` (labelled by the presets): new worlds,
    /// a new recording, and the run state of the old worlds forgotten.
    fn start(&mut self, base: World, settings: Vec<SolverSettings>) {
        let configs: Vec<(String, SolverSettings)> = self
            .lab
            .presets
            .iter()
            .zip(settings)
            .map(|(p, s)| (p.label().to_owned(), s))
            .collect();
        self.lab.live = Comparison::new(&base, &configs);
        self.lab.inspection = None;
        let n = self.lab.live.sessions.len();
        self.lab.focus = self.lab.focus.min(n.saturating_sub(1));
        self.lab.rewind = Rewind::new(&self.lab.live);
        self.input.mouse_held = false;
        self.input.drag_target = None;
        self.run.accumulator = 0.0;
        self.run.step_times = vec![VecDeque::new(); n];
        self.run.frame_step_ms = vec![0.0; n];
        self.lab.history.clear();
        self.lab.probe.clear();
        self.lab.joint_log.clear();
    }

    /// Rebuild the running scene from its last good file in every world, keeping each
    /// world's current solver settings.
    pub fn restart(&mut self) {
        self.restart_with(self.live_settings());
    }

    /// The solver settings of every live world, in order.
    fn live_settings(&self) -> Vec<SolverSettings> {
        let sessions = &self.lab.live.sessions;
        sessions.iter().map(|s| *s.world.settings()).collect()
    }

    fn restart_with(&mut self, settings: Vec<SolverSettings>) {
        let base = match &self.scene.good_file {
            Some((file, name)) => match scene::build::build(file, name) {
                Ok(built) => built.world,
                Err(_) => return,
            },
            None => World::new(settings.first().copied().unwrap_or_default()),
        };
        self.start(base, settings);
    }

    // ----------------------------------------------------------------------------------
    // Compare.

    /// Compare the scene under these presets (replacing the worlds; one preset: no compare).
    /// The scene restarts.
    pub fn set_compare(&mut self, presets: Vec<Preset>) {
        if presets.is_empty() {
            return;
        }
        let presets: Vec<Preset> = presets.into_iter().take(MAX_WORLDS).collect();
        let settings = presets
            .iter()
            .map(|p| p.settings(&self.scene.settings))
            .collect();
        self.lab.presets = presets;
        self.lab.focus = 0;
        self.restart_with(settings);
    }

    /// Add a world (at most `MAX_WORLDS`): a preset's settings on this scene, or a copy of
    /// the world being edited. The scene restarts in every world, so they start together.
    pub fn add_world(&mut self, preset: Preset) {
        if self.lab.live.sessions.len() >= MAX_WORLDS {
            return;
        }
        let mut settings = self.live_settings();
        settings.push(match preset {
            Preset::Copy => settings[self.lab.focus.min(settings.len() - 1)],
            ref p => p.settings(&self.scene.settings),
        });
        self.lab.presets.push(preset);
        self.lab.focus = self.lab.presets.len() - 1;
        self.restart_with(settings);
    }

    /// Remove world `i` (the last world stays). The scene restarts.
    pub fn remove_world(&mut self, i: usize) {
        if self.lab.live.sessions.len() <= 1 || i >= self.lab.live.sessions.len() {
            return;
        }
        let mut settings = self.live_settings();
        settings.remove(i);
        self.lab.presets.remove(i);
        if self.lab.focus >= i && self.lab.focus > 0 {
            self.lab.focus -= 1;
        }
        self.restart_with(settings);
    }

    // ----------------------------------------------------------------------------------
    // Inputs.

    /// Apply a user input to the worlds (every world alike; `WorldSettings` to its world),
    /// recorded for rewind. When an older step is shown, it becomes the present first.
    pub fn input(&mut self, input: Input) {
        self.resume();
        self.lab.rewind.record_input(&self.lab.live, input.clone());
        self.lab.live.apply(&input);
    }

    /// Make the step shown the live one, forgetting the recorded future (nothing to do when
    /// the live step is shown). A grab the shown frame had is let go unless the mouse holds.
    fn resume(&mut self) {
        self.lab.inspection = None;
        let Some(state) = self.lab.rewind.resume() else {
            return;
        };
        self.lab.probe.truncate_after(state.step_count());
        self.lab.joint_log.truncate_after(state.step_count());
        self.lab.live = state;
        if !self.input.mouse_held && self.lab.live.sessions.iter().any(|s| s.grab().is_some()) {
            self.lab.rewind.record_input(&self.lab.live, Input::Release);
            self.lab.live.apply(&Input::Release);
        }
    }

    /// Show recorded step `step` (clamped to the recorded range); pauses.
    pub fn scrub(&mut self, step: u64) {
        self.run.paused = true;
        self.lab.inspection = None;
        self.lab.rewind.scrub(step, self.residuals_wanted());
    }

    /// True while the Plots section is open: the worlds record their solver residuals.
    fn residuals_wanted(&self) -> bool {
        self.view.sections.plots
    }

    /// Solver settings of the world being edited, now (the panel calls this the frame they
    /// change). Invalid settings are refused with a message.
    pub fn set_settings(&mut self, settings: SolverSettings) -> Result<(), String> {
        self.set_world_settings(self.lab.focus, settings)
    }

    /// Solver settings of world `world`.
    pub fn set_world_settings(
        &mut self,
        world: usize,
        settings: SolverSettings,
    ) -> Result<(), String> {
        settings
            .validate()
            .map_err(|e| format!("setting refused: {e}"))?;
        if self
            .lab
            .live
            .sessions
            .get(world)
            .map(|s| *s.world.settings())
            == Some(settings)
        {
            return Ok(());
        }
        self.input(Input::WorldSettings { world, settings });
        Ok(())
    }

    /// The settings of the world being edited.
    pub fn settings(&self) -> &SolverSettings {
        let shown = self.shown();
        shown.sessions[self.lab.focus.min(shown.sessions.len() - 1)]
            .world
            .settings()
    }

    /// The settings "reset" restores for the world being edited: its preset on the scene's.
    pub fn reset_target(&self) -> SolverSettings {
        self.lab
            .presets
            .get(self.lab.focus)
            .map_or(self.scene.settings, |p| p.settings(&self.scene.settings))
    }

    /// Put the scene's own solver settings back (through the preset of the world edited).
    pub fn reset_settings(&mut self) {
        let _ = self.set_settings(self.reset_target());
    }

    // ----------------------------------------------------------------------------------
    // Running.

    /// Toggle pause (`P`). Running again resumes from the step shown.
    pub fn toggle_pause(&mut self) {
        self.run.paused = !self.run.paused;
        if !self.run.paused {
            self.resume();
        }
    }

    /// Request one step (`O`); pauses if running.
    pub fn request_step(&mut self) {
        self.run.paused = true;
        self.run.step_requested = true;
    }

    /// A key the testbed handles was pressed.
    pub fn key(&mut self, key: Key) {
        match key {
            Key::Pause => self.toggle_pause(),
            Key::SingleStep => self.request_step(),
            Key::Restart => self.request(Request::Restart),
            Key::Bomb => self.request(Request::Bomb),
            Key::NextScene => self.request(Request::Neighbour(1)),
            Key::PreviousScene => self.request(Request::Neighbour(-1)),
            Key::NextIteration => self.inspect(InspectStep::NextIteration),
            Key::PreviousIteration => self.inspect(InspectStep::PreviousIteration),
            Key::NextSubstep => self.inspect(InspectStep::NextSubstep),
            Key::FinishStep => self.inspect(InspectStep::Finish),
        }
    }

    /// Called once per frame, `frame_dt` wall-clock seconds after the last: apply requests,
    /// reload a changed scene file, then take this frame's fixed steps of `1 / step_hz`.
    pub fn update(&mut self, frame_dt: f32) {
        for request in std::mem::take(&mut self.input.requests) {
            self.apply(request);
        }
        if self.scene.watch.as_mut().is_some_and(FileWatch::poll) {
            self.reload();
        }
        let residuals = self.residuals_wanted();
        let track = self.view.solver_draw.color_by == ColorBy::ImpulseChange;
        for s in &mut self.lab.live.sessions {
            if s.world.iteration_residuals().is_empty() == residuals {
                s.world.set_record_residuals(residuals);
            }
            s.world.set_track_impulse_changes(track);
        }
        let steps = self.steps_this_frame(frame_dt);
        self.run.frame_steps = steps;
        self.run.frame_step_ms.iter_mut().for_each(|ms| *ms = 0.0);
        for _ in 0..steps {
            self.step();
        }
        let samples: Vec<[f32; 3]> = self
            .shown()
            .sessions
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let stats = s.world.stats();
                let step_ms = if steps > 0 {
                    self.run.frame_step_ms[i] / steps as f32
                } else {
                    self.run.step_times[i].back().copied().unwrap_or(0.0) as f32
                };
                [step_ms, stats.kinetic_energy, stats.max_penetration]
            })
            .collect();
        self.lab.history.record(frame_dt as f64, &samples);
    }

    fn apply(&mut self, request: Request) {
        match request {
            Request::Open(path) => self.open(&path),
            Request::Neighbour(offset) => {
                let next = self
                    .scene
                    .library
                    .neighbour(self.scene.path.as_deref(), offset)
                    .map(|e| e.path.clone());
                if let Some(path) = next {
                    self.open(&path);
                }
            }
            Request::Restart => self.restart(),
            Request::Bomb => self.launch_bomb(),
            Request::ResetSettings => self.reset_settings(),
            Request::AddWorld(preset) => self.add_world(preset),
            Request::RemoveWorld(i) => self.remove_world(i),
            Request::Fork(preset) => self.fork(preset),
        }
    }

    /// How many fixed steps this frame takes.
    fn steps_this_frame(&mut self, frame_dt: f32) -> u32 {
        if self.run.paused {
            return u32::from(std::mem::take(&mut self.run.step_requested));
        }
        self.run.step_requested = false;
        match self.run.stepping {
            Stepping::StepsPerFrame(n) => n.min(MAX_STEPS_PER_FRAME),
            Stepping::TimeScale(scale) => {
                let dt = self.lab.live.sessions[0].world.settings().dt();
                let frame = if frame_dt.is_finite() {
                    frame_dt.clamp(0.0, MAX_FRAME_SECONDS)
                } else {
                    0.0
                };
                self.run.accumulator += frame * scale.max(0.0);
                let owed = (self.run.accumulator / dt).floor();
                let steps = (owed.max(0.0) as u32).min(MAX_STEPS_PER_FRAME);
                self.run.accumulator -= steps as f32 * dt;
                if steps == MAX_STEPS_PER_FRAME {
                    // Too slow to keep up: drop the debt rather than spiral.
                    self.run.accumulator = self.run.accumulator.min(dt);
                }
                steps
            }
        }
    }

    /// Advance every world by one fixed step of its `1 / step_hz` (from the step shown), and
    /// record it.
    pub fn step(&mut self) {
        self.resume();
        for (i, session) in self.lab.live.sessions.iter_mut().enumerate() {
            // The count is clamped where it is set, so this is never refused; a world that
            // could not start its threads keeps the ones it has (the same results).
            let _ = session.world.set_thread_count(self.run.threads);
            let start = Instant::now();
            session.step();
            let ms = start.elapsed().as_secs_f64() * 1000.0;
            self.run.frame_step_ms[i] += ms as f32;
            let times = &mut self.run.step_times[i];
            if times.len() == STEP_TIMES_KEPT {
                times.pop_front();
            }
            times.push_back(ms);
        }
        self.note_quarantine();
        self.lab.rewind.record_step(&self.lab.live);
        self.lab.probe.sample(&self.lab.live);
        self.lab.joint_log.record(&self.lab.live);
    }

    /// An error line (panel and log) for each world whose last step froze a body or reset a
    /// constraint because its state went non-finite (`physics/quarantine.rs`).
    fn note_quarantine(&mut self) {
        let many = self.lab.live.sessions.len() > 1;
        for session in &self.lab.live.sessions {
            let Some(line) = describe_quarantine(&session.world) else {
                continue;
            };
            let line = if many {
                format!("{}: {line}", session.label)
            } else {
                line
            };
            eprintln!("testbed: error: {}", escape(&line));
            const KEPT: usize = 8;
            if self.scene.step_errors.len() < KEPT {
                self.scene.step_errors.push(line);
            }
        }
    }

    /// The quarantine's error lines since the scene started (see `note_quarantine`).
    pub fn step_errors(&self) -> &[String] {
        &self.scene.step_errors
    }

    /// A uniform random number in `lo..hi` (xorshift; the testbed needs no quality).
    fn random(&mut self, lo: f32, hi: f32) -> f32 {
        self.input.rng ^= self.input.rng << 13;
        self.input.rng ^= self.input.rng >> 7;
        self.input.rng ^= self.input.rng << 17;
        lo + (hi - lo) * ((self.input.rng >> 40) as f32 / (1u64 << 24) as f32)
    }

    /// Launch the bomb (`Space`): Box2D-Lite's heavy box, fired from above the scene towards
    /// its lower middle at high speed and spinning, the same throw in every world. The bomb
    /// is one body, thrown again each time.
    pub fn launch_bomb(&mut self) {
        let camera = self.scene.info.camera;
        let half_height = 0.5 * camera.height.max(0.1);
        let half_size = (0.5 * camera.height / BOMB_VIEW_HEIGHT).clamp(0.1, 5.0);
        let position =
            camera.center + Vec2::new(self.random(-1.4, 1.4) * half_height, 0.75 * half_height);
        let aim = camera.center - Vec2::new(0.0, 0.66 * half_height);
        let angle = self.random(-1.5, 1.5);
        let angular_velocity = self.random(-20.0, 20.0);
        self.input(Input::Bomb {
            position,
            angle,
            velocity: 1.5 * (aim - position),
            angular_velocity,
            half_size,
        });
    }

    // ----------------------------------------------------------------------------------
    // Inside the step and forks.

    /// One press of the iteration controls (pauses): the first press starts inspecting the
    /// step after the frame shown; a press past the step's end, or "finish", runs the step
    /// whole the ordinary way (recorded).
    pub fn inspect(&mut self, step: InspectStep) {
        self.run.paused = true;
        if self.lab.inspection.is_none() {
            if matches!(step, InspectStep::Finish | InspectStep::PreviousIteration) {
                if step == InspectStep::Finish {
                    self.run.step_requested = true;
                }
                return;
            }
            let track = self.view.solver_draw.color_by == ColorBy::ImpulseChange;
            self.lab.inspection = Some(Inspection::new(self.shown(), track));
        }
        let more = self
            .lab
            .inspection
            .as_mut()
            .is_some_and(|inspection| inspection.press(step));
        if !more {
            self.lab.inspection = None;
            self.run.step_requested = true;
        }
    }

    /// Colour contacts and joints by `color_by` (an inspected step records impulse changes
    /// when asked to).
    pub fn set_color_by(&mut self, color_by: ColorBy) {
        if color_by == self.view.solver_draw.color_by {
            return;
        }
        self.view.solver_draw.color_by = color_by;
        if let Some(inspection) = self.lab.inspection.as_mut() {
            inspection.set_track_impulses(color_by == ColorBy::ImpulseChange);
        }
    }

    /// Fork into compare: add a world with `preset`'s settings that starts from the frame
    /// shown (a rewound one: it becomes the present, its future forgotten), an exact copy of
    /// the edited world's state (`World::restore_settings` changes the settings without
    /// waking anything). The other worlds go on from the same frame; the recording starts
    /// again here. At most `MAX_WORLDS`.
    pub fn fork(&mut self, preset: Preset) {
        if self.lab.live.sessions.len() >= MAX_WORLDS {
            self.add_notice(format!("fork: at most {MAX_WORLDS} worlds"));
            return;
        }
        self.resume();
        let focus = self.lab.focus.min(self.lab.live.sessions.len() - 1);
        let mut session = self.lab.live.sessions[focus].clone();
        let settings = match preset {
            Preset::Copy => *session.world.settings(),
            ref p => p.settings(&self.scene.settings),
        };
        if let Err(e) = session.world.restore_settings(settings) {
            self.add_notice(format!("fork: {e}"));
            return;
        }
        session.label = format!(
            "{} (fork at step {})",
            preset.label(),
            session.world.step_count()
        );
        self.lab.live.sessions.push(session);
        self.lab.presets.push(preset);
        self.lab.focus = self.lab.live.sessions.len() - 1;
        self.lab.rewind = Rewind::new(&self.lab.live);
        self.run.step_times.push(VecDeque::new());
        self.run.frame_step_ms.push(0.0);
        self.lab.history.clear();
        self.run.paused = true;
    }

    // ----------------------------------------------------------------------------------
    // Mouse.

    /// Left button pressed at world point `p` (m): every world grabs the dynamic body there,
    /// at that point, with the lab's soft mouse joint. True when a body was grabbed.
    pub fn mouse_down(&mut self, p: Vec2) -> bool {
        self.mouse_up();
        let grabbable = self.shown().sessions.iter().any(|s| {
            s.world
                .body_at_point(p)
                .and_then(|b| s.world.body(b))
                .is_some_and(|b| b.kind() == BodyKind::Dynamic)
        });
        if !grabbable {
            return false;
        }
        self.input.mouse_held = true;
        self.input.drag_target = Some(p);
        self.input(Input::Grab(p));
        self.grabbing()
    }

    /// Left button held and moved to world point `p` (m): move the grab's target.
    pub fn mouse_move(&mut self, p: Vec2) {
        if !self.input.mouse_held || self.input.drag_target == Some(p) {
            return;
        }
        if self.lab.live.sessions.iter().any(|s| s.grab().is_some()) {
            self.input.drag_target = Some(p);
            self.input(Input::Drag(p));
        }
    }

    /// Left button released: let go.
    pub fn mouse_up(&mut self) {
        self.input.mouse_held = false;
        self.input.drag_target = None;
        if self.shown().sessions.iter().any(|s| s.grab().is_some()) {
            self.input(Input::Release);
        }
    }

    /// True while a body is held by the mouse (in any world shown).
    pub fn grabbing(&self) -> bool {
        self.shown().sessions.iter().any(|s| s.grab().is_some())
    }

    /// The grabbed point of the body and the target it is pulled to, while dragging (the
    /// first world's).
    pub fn pull(&self) -> Option<(Vec2, Vec2)> {
        self.shown().sessions[0].grab_line()
    }

    /// Ctrl+click at world point `p` (m), `radius` m of slack for joints: pick the joint or
    /// body there for the Plots section (nothing there: no pick).
    pub fn pick(&mut self, p: Vec2, radius: f32) {
        let pick = pick_at(self.world(), p, radius);
        self.lab.probe.set_pick(pick);
    }

    /// Pick the body or joint called `name` (`--pick`); false when there is none.
    pub fn pick_named(&mut self, name: &str) -> bool {
        let world = self.world();
        let pick = world
            .body_by_name(name)
            .map(Pick::Body)
            .or_else(|| world.joint_by_name(name).map(Pick::Joint));
        self.lab.probe.set_pick(pick);
        pick.is_some()
    }

    // ----------------------------------------------------------------------------------
    // Drawing.

    /// Draw the worlds shown through `d` (the world camera is already set): `draw::draw_worlds`
    /// with the draw flags and the pick, then the solver view (`solver_view::draw_solver`).
    pub fn draw_world(&self, d: &mut MacroquadDraw) {
        draw_worlds(self.shown(), &self.view.draw_flags, self.lab.probe.pick, d);
        self.draw_joint_flashes(d);
        for s in &self.shown().sessions {
            draw_solver(&s.world, &self.view.solver_draw, d);
        }
    }

    /// The world box to fit when the user presses `F` (`framing::frame_region`: the moving
    /// bodies and the static pieces near them, not a wide ground), over every world shown;
    /// `None` for an empty world.
    pub fn frame_region(&self) -> Option<Aabb> {
        self.shown()
            .sessions
            .iter()
            .filter_map(|s| frame_region(&s.world))
            .reduce(|a, b| a.union(&b))
    }

    // ----------------------------------------------------------------------------------
    // State dump.

    /// The `--dump-state` JSON: the object `testbed run --json` prints for the first world
    /// shown (`report::WorldReport`, with the step times of the last steps), plus `settings`
    /// (every solver setting now in force), `testbed` (scene file, name, errors, pause,
    /// stepping, draw flags, mouse, rewind range, pick), when comparing `worlds` (the same
    /// object for every world, with its `label` and `settings`), and the window's members.
    pub fn state_json(&self, window: &WindowReport) -> String {
        let times = |i: usize| -> Vec<f64> { self.run.step_times[i].iter().copied().collect() };
        let worlds = self.comparing().then(|| {
            self.shown()
                .sessions
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let own = Labelled {
                        label: &s.label,
                        settings: settings_report(s.world.settings()),
                    };
                    WorldReport::new(&s.world, &times(i), own)
                })
                .collect()
        });
        let extra = DumpExtra {
            settings: settings_report(self.world().settings()),
            testbed: self.testbed_report(),
            worlds,
            window: *window,
        };
        let mut report = WorldReport::new(self.world(), &times(0), extra);
        report.joint_events = self.lab.joint_log.reports(self.comparing());
        to_json_line(&report)
    }

    fn testbed_report(&self) -> TestbedReport<'_> {
        let (oldest, newest, shown) = self.timeline();
        TestbedReport {
            scene: self.scene.path.as_ref().map(|p| p.display().to_string()),
            name: &self.scene.info.name,
            errors: &self.scene.errors,
            notices: &self.scene.notices,
            paused: self.run.paused,
            stepping: match self.run.stepping {
                Stepping::StepsPerFrame(n) => SteppingReport::StepsPerFrame(n),
                Stepping::TimeScale(s) => SteppingReport::TimeScale(s),
            },
            draw: DrawPrefs::new(&self.view.draw_flags, &self.view.solver_draw),
            grabbing: self.grabbing(),
            bodies: self.world().body_count(),
            worlds: self.lab.live.sessions.len(),
            rewind: RewindReport {
                oldest,
                newest,
                shown,
            },
            pick: self.lab.probe.pick.map(|pick| match pick {
                Pick::Body(h) => PickReport::Body(h.index()),
                Pick::Joint(h) => PickReport::Joint(h.index()),
            }),
            trace_samples: self.lab.probe.len(),
            inspect: self.lab.inspection.as_ref().map(|i| {
                let p = i.current();
                InspectReport {
                    substep: p.substep,
                    iteration: p.iteration,
                    substep_iteration: p.substep_iteration,
                    halted: p.halted,
                    total_iterations: i.totals.first().map_or(0, |t| t.iteration),
                }
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenes() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")
    }

    fn testbed(file: &str) -> Testbed {
        let library = Library::scan_dir(&scenes());
        Testbed::with_library(Some(&scenes().join(file)), &Preferences::default(), library).unwrap()
    }

    #[test]
    fn steps_are_fixed_and_pause_holds() {
        let mut t = testbed("box2d_lite/single_box.ron");
        for _ in 0..60 {
            t.update(1.0 / 60.0);
        }
        assert_eq!(t.steps(), 60);
        assert!((t.time() - 1.0).abs() < 1e-5);
        // Frame time does not change the step count in steps-per-frame mode.
        t.update(0.5);
        assert_eq!(t.steps(), 61);
        t.toggle_pause();
        t.update(1.0 / 60.0);
        assert_eq!(t.steps(), 61);
        t.request_step();
        t.update(1.0 / 60.0);
        t.update(1.0 / 60.0);
        assert_eq!(t.steps(), 62);
        t.toggle_pause();
        t.run.stepping = Stepping::StepsPerFrame(3);
        t.update(1.0 / 60.0);
        assert_eq!(t.steps(), 65);
    }

    /// The Draw section the preferences give is the one the testbed shows, and the one it
    /// remembers (every toggle changed from its default, the colouring too), also after a
    /// scene change and in `--dump-state`.
    #[test]
    fn draw_preferences_reach_the_testbed_and_come_back() {
        use crate::app::solver_view::ColorBy;
        let mut prefs = Preferences::default();
        let d = &mut prefs.draw;
        for flag in [
            &mut d.shapes,
            &mut d.joints,
            &mut d.joint_anchors,
            &mut d.contact_points,
            &mut d.contact_normals,
            &mut d.normal_impulses,
            &mut d.friction_impulses,
            &mut d.aabbs,
            &mut d.centers_of_mass,
            &mut d.body_names,
            &mut d.joint_forces,
            &mut d.graph_colors,
            &mut d.islands,
            &mut d.feature_ids,
            &mut d.warm_started,
        ] {
            *flag = !*flag;
        }
        d.color_by = ColorBy::ImpulseChange;
        let library = Library::scan_dir(&scenes());
        let file = scenes().join("box2d_lite/single_box.ron");
        let mut t = Testbed::with_library(Some(&file), &prefs, library).unwrap();
        assert!(t.view.solver_draw.islands && t.view.draw_flags.joint_forces);
        assert_eq!(t.view.solver_draw.color_by, ColorBy::ImpulseChange);
        assert_eq!(t.preferences(400.0).draw, prefs.draw);
        t.open(&scenes().join("box2d_lite/pyramid_stacking.ron"));
        t.update(1.0 / 60.0);
        assert_eq!(t.preferences(400.0).draw, prefs.draw);
        assert_eq!(t.testbed_report().draw, prefs.draw);
    }

    #[test]
    fn time_scale_follows_the_wall_clock() {
        let mut t = testbed("box2d_lite/single_box.ron");
        t.run.stepping = Stepping::TimeScale(0.5);
        // 2 s of 240 Hz frames at half speed: 1 s simulated = 60 steps of 1/60 s.
        for _ in 0..480 {
            t.update(1.0 / 240.0);
        }
        assert!((59..=61).contains(&t.steps()), "{}", t.steps());
        // A stall is not caught up on beyond the cap.
        let before = t.steps();
        t.update(10.0);
        assert!(t.steps() - before <= MAX_STEPS_PER_FRAME as u64);
    }

    /// A body whose state went non-finite was hidden (velocity zeroed). The window shows an
    /// error line naming it, once, until the scene restarts.
    #[test]
    fn a_body_the_quarantine_froze_is_an_error_line() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fuzz_corpus/contact_impulse_at_range_edge_goes_non_finite.ron");
        let library = Library::scan_dir(&scenes());
        let mut t = Testbed::with_library(Some(&file), &Preferences::default(), library).unwrap();
        assert!(t.errors().is_empty() && t.step_errors().is_empty());
        for _ in 0..10 {
            t.step();
        }
        assert_eq!(t.step_errors().len(), 1, "{:?}", t.step_errors());
        assert!(
            t.step_errors()[0].contains("body \"speck\"") && t.step_errors()[0].contains("frozen"),
            "{:?}",
            t.step_errors()
        );
    }

    #[test]
    fn unreadable_scene_is_an_error_naming_the_file() {
        let err = Testbed::new(
            Some(Path::new("/no/such/scene.ron")),
            &Preferences::default(),
        )
        .err()
        .unwrap();
        assert!(err.contains("/no/such/scene.ron"), "{err}");
    }

    #[test]
    fn a_broken_scene_keeps_the_last_good_one_running() {
        let mut t = testbed("box2d_lite/single_box.ron");
        let name = t.info().name.clone();
        assert!(t.errors().is_empty());
        t.request(Request::Open(
            scenes().join("box2d_lite/simple_pendulum.ron"),
        ));
        t.update(1.0 / 60.0);
        // Either the pendulum loads (joints mapped) or its error shows and the box runs on.
        if t.errors().is_empty() {
            assert_ne!(t.info().name, name);
        } else {
            assert_eq!(t.info().name, name);
            assert!(
                t.errors()[0].contains("simple_pendulum.ron"),
                "{:?}",
                t.errors()
            );
            assert!(t.world().body_by_name("box").is_some());
            assert_eq!(t.steps(), 1, "still stepping the last good scene");
        }
    }

    #[test]
    fn the_mouse_drags_a_dynamic_body_and_not_the_ground() {
        let mut t = testbed("box2d_lite/single_box.ron");
        let b = t.world().body_by_name("box").unwrap();
        for _ in 0..120 {
            t.update(1.0 / 60.0);
        }
        let start = t.world().body(b).unwrap().position();
        assert!(!t.mouse_down(Vec2::new(20.0, -5.0)), "ground is static");
        assert!(t.mouse_down(start));
        for i in 0..120 {
            t.mouse_move(start + Vec2::new(0.05 * i as f32, 2.0));
            t.update(1.0 / 60.0);
        }
        let (anchor, target) = t.pull().unwrap();
        assert!((anchor - target).length() < 1.0, "{anchor} {target}");
        t.mouse_up();
        assert!(!t.grabbing() && t.pull().is_none());
        let end = t.world().body(b).unwrap().position();
        assert!(end.x - start.x > 4.0, "{start} -> {end}");
        assert!(t.world().joint_count() == 0);
    }

    #[test]
    fn bombs_replace_each_other_and_restart_clears_them() {
        let mut t = testbed("box2d_lite/pyramid_stacking.ron");
        let bodies = t.world().body_count();
        t.key(Key::Bomb);
        t.update(1.0 / 60.0);
        t.key(Key::Bomb);
        t.update(1.0 / 60.0);
        assert_eq!(t.world().body_count(), bodies + 1);
        let bomb = t.world().body_by_name("bomb").unwrap();
        let v = t.world().body(bomb).unwrap().linear_velocity();
        assert!(v.length() > 10.0 && v.y < 0.0, "{v}");
        t.key(Key::Restart);
        t.update(1.0 / 60.0);
        assert_eq!(t.world().body_count(), bodies);
        assert_eq!(t.steps(), 1);
    }

    #[test]
    fn restart_keeps_user_settings_and_reset_restores_the_scene_s() {
        let mut t = testbed("box2d_lite/single_box.ron");
        let mut s = *t.world().settings();
        s.warm_starting = false;
        t.set_settings(s).unwrap();
        t.restart();
        assert!(!t.world().settings().warm_starting);
        t.request(Request::ResetSettings);
        t.update(1.0 / 60.0);
        assert!(t.world().settings().warm_starting);
        s.iterations = 0;
        assert!(t.set_settings(s).is_err());
    }

    #[test]
    fn state_json_is_the_run_json_plus_settings_and_testbed() {
        let mut t = testbed("box2d_lite/single_box.ron");
        t.update(1.0 / 60.0);
        let json = t.state_json(&WindowReport {
            frames: Some(1),
            ..WindowReport::default()
        });
        assert!(json.starts_with("{\"steps\":1,"), "{json}");
        assert!(
            json.contains("\"settings\":{\"solver\":\"Classic\""),
            "{json}"
        );
        assert!(json.contains("\"warm_starting\":true"), "{json}");
        assert!(json.contains("\"name\":\"A single box\""), "{json}");
        assert!(json.trim_end().ends_with(",\"frames\":1}"), "{json}");
    }

    #[test]
    fn next_and_previous_walk_the_menu() {
        let mut t = testbed("box2d_lite/single_box.ron");
        t.key(Key::NextScene);
        t.update(1.0 / 60.0);
        let second = t.library().entries[1].path.clone();
        assert_eq!(t.scene_path(), Some(second.as_path()));
        t.key(Key::PreviousScene);
        t.key(Key::PreviousScene);
        t.update(1.0 / 60.0);
        let last = t.library().entries.last().unwrap().path.clone();
        assert_eq!(t.scene_path(), Some(last.as_path()));
    }

    fn alone(file: &str, settings: SolverSettings, steps: u64) -> u64 {
        let mut world = scene::load_file(&scenes().join(file)).unwrap().world;
        world.set_settings(settings).unwrap();
        for _ in 0..steps {
            let dt = world.settings().dt();
            world.step(dt);
        }
        world.state_hash()
    }

    #[test]
    fn compared_worlds_each_run_as_they_would_alone() {
        let file = "box2d_lite/pyramid_stacking.ron";
        let mut t = testbed(file);
        let presets = crate::app::compare::parse_compare("classic,no warm starting,soft step");
        t.set_compare(presets.unwrap());
        assert!(t.comparing());
        for _ in 0..90 {
            t.update(1.0 / 60.0);
        }
        let hashes: Vec<u64> = t
            .shown()
            .sessions
            .iter()
            .map(|s| s.world.state_hash())
            .collect();
        for (s, h) in t.shown().sessions.iter().zip(&hashes) {
            assert_eq!(s.world.step_count(), 90);
            assert_eq!(*h, alone(file, *s.world.settings(), 90), "{}", s.label);
        }
        assert!(hashes[0] != hashes[1] && hashes[1] != hashes[2]);
        // Settings reach the world being edited only; adding and removing restart.
        t.lab.focus = 1;
        let mut s = *t.settings();
        s.iterations = 3;
        t.set_settings(s).unwrap();
        assert_eq!(t.shown().sessions[1].world.settings().iterations, 3);
        assert_eq!(t.shown().sessions[0].world.settings().iterations, 10);
        t.request(Request::AddWorld(Preset::Copy));
        t.update(1.0 / 60.0);
        assert_eq!(t.shown().sessions.len(), 4);
        assert_eq!(t.shown().sessions[3].world.settings().iterations, 3);
        assert_eq!(t.steps(), 1, "restarted");
        t.request(Request::AddWorld(Preset::Scene));
        t.update(1.0 / 60.0);
        assert_eq!(t.shown().sessions.len(), 4, "four at most");
        let json = t.state_json(&WindowReport::default());
        assert!(json.contains("\"worlds\":[{\"steps\":2,"), "{json}");
        assert!(json.contains("\"label\":\"soft step\""), "{json}");
        for i in (0..4).rev() {
            t.request(Request::RemoveWorld(i));
            t.update(1.0 / 60.0);
        }
        assert_eq!(t.shown().sessions.len(), 1);
        assert!(!t.comparing());
    }

    #[test]
    fn a_drag_acts_on_every_compared_world() {
        let mut t = testbed("box2d_lite/single_box.ron");
        t.set_compare(vec![
            Preset::Verdict("classic"),
            Preset::Verdict("soft step"),
        ]);
        for _ in 0..120 {
            t.update(1.0 / 60.0);
        }
        let b = t.world().body_by_name("box").unwrap();
        let start = t.world().body(b).unwrap().position();
        assert!(t.mouse_down(start));
        for i in 0..120 {
            t.mouse_move(start + Vec2::new(0.05 * i as f32, 2.0));
            t.update(1.0 / 60.0);
        }
        t.mouse_up();
        for s in &t.shown().sessions {
            let end = s.world.body(b).unwrap().position();
            assert!(end.x - start.x > 4.0, "{}: {start} -> {end}", s.label);
            assert!(s.grab().is_none());
        }
    }

    #[test]
    fn scrubbing_shows_recorded_steps_and_resuming_replays_the_same_run() {
        let file = "box2d_lite/pyramid_stacking.ron";
        let run = |rewind: bool| {
            let mut t = testbed(file);
            let mut hashes = Vec::new();
            for frame in 0..120 {
                if frame == 20 {
                    t.key(Key::Bomb);
                }
                t.update(1.0 / 60.0);
                hashes.push(t.world().state_hash());
                if rewind && frame == 99 {
                    t.scrub(70);
                    assert_eq!(t.steps(), 70);
                    assert_eq!(t.world().state_hash(), hashes[69]);
                    t.scrub(30);
                    assert_eq!(t.world().state_hash(), hashes[29]);
                    t.scrub(31);
                    assert_eq!(t.world().state_hash(), hashes[30]);
                    assert!(t.run.paused);
                    t.update(1.0 / 60.0);
                    assert_eq!(t.steps(), 31, "paused: scrubbing does not step");
                    t.toggle_pause();
                    assert_eq!(t.timeline(), (0, 31, 31), "the future is forgotten");
                }
            }
            (t.steps(), t.world().state_hash(), hashes)
        };
        let (steps, hash, _) = run(true);
        assert_eq!(steps, 120 - 100 + 31 - 1 + 1);
        let (_, _, straight) = run(false);
        assert_eq!(hash, straight[steps as usize - 1]);
    }

    /// Fork into compare from a rewound frame: the new world starts from exactly that
    /// state under its preset (nothing restarts, nothing wakes), and the first world goes
    /// on as it did before the rewind.
    #[test]
    fn forking_a_rewound_frame_starts_the_new_world_from_it() {
        let mut t = testbed("box2d_lite/pyramid_stacking.ron");
        let mut hashes = Vec::new();
        for _ in 0..90 {
            t.update(1.0 / 60.0);
            hashes.push(t.world().state_hash());
        }
        t.scrub(40);
        t.fork(Preset::Verdict("soft step"));
        let shown = t.shown();
        assert_eq!(shown.sessions.len(), 2);
        assert_eq!(t.steps(), 40, "the rewound frame is the present");
        for s in &shown.sessions {
            assert_eq!(s.world.state_hash(), hashes[39], "{}", s.label);
            assert_eq!(s.world.step_count(), 40);
        }
        assert_eq!(
            shown.sessions[1].world.settings().solver,
            crate::physics::SolverKind::SoftStep
        );
        assert!(t.run.paused);
        t.toggle_pause();
        for _ in 0..20 {
            t.update(1.0 / 60.0);
        }
        let shown = t.shown();
        assert_eq!(shown.sessions[0].world.state_hash(), hashes[59]);
        assert_ne!(shown.sessions[1].world.state_hash(), hashes[59]);
        assert_eq!(
            t.timeline(),
            (40, 60, 60),
            "the recording starts at the fork"
        );
    }

    /// Iteration stepping shows the halted step; finishing it is the ordinary step.
    #[test]
    fn iteration_stepping_shows_the_step_inside_and_finishes_it() {
        let mut t = testbed("box2d_lite/pyramid_stacking.ron");
        for _ in 0..30 {
            t.update(1.0 / 60.0);
        }
        let mut plain = t.shown().clone();
        plain.step();
        t.key(Key::NextIteration);
        t.key(Key::NextIteration);
        t.key(Key::NextIteration);
        t.key(Key::PreviousIteration);
        assert!(t.run.paused);
        let p = t.inspection().unwrap().current();
        assert_eq!((p.halted, p.iteration), (true, 2));
        assert_eq!(t.steps(), 30, "inside step 31");
        let mut alone = t.lab.live.sessions[0].world.clone();
        let dt = alone.settings().dt();
        alone.step_until(dt, crate::physics::HaltPoint::Iteration(2));
        assert_eq!(t.world().state_hash(), alone.state_hash());
        t.key(Key::FinishStep);
        t.update(1.0 / 60.0);
        assert!(t.inspection().is_none());
        assert_eq!(t.steps(), 31);
        assert_eq!(t.world().state_hash(), plain.sessions[0].world.state_hash());
    }

    /// Opening a scene shows the camera its file sets; only `F` frames the bodies (here the
    /// pyramid, not Box2D-Lite's 100 m ground), in every compared world.
    #[test]
    fn a_scene_opens_on_its_camera_and_f_frames_its_bodies() {
        let mut t = testbed("box2d_lite/pyramid_stacking.ron");
        let camera = t.take_camera_request().unwrap();
        assert_eq!((camera.center, camera.height), (Vec2::new(0.0, 7.0), 21.0));
        assert_eq!(t.take_camera_request(), None);
        let region = t.frame_region().unwrap();
        assert!(region.max.x - region.min.x < 15.0, "{region:?}");
        assert!(
            region.min.y > -0.5,
            "the ground's depth is not framed: {region:?}"
        );
        t.set_compare(vec![Preset::Scene, Preset::Verdict("soft step")]);
        for _ in 0..30 {
            t.update(1.0 / 60.0);
        }
        let region = t.frame_region().unwrap();
        for session in &t.shown().sessions {
            for (_, body) in session.world.bodies() {
                if body.kind() == BodyKind::Dynamic {
                    assert!(region.contains_point(body.center()), "{region:?}");
                }
            }
        }
    }
}
