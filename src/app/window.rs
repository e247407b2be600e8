//! The window: configuration, the frame loop ([`run`], its frame order documented there),
//! camera input, the side panel's View section, preferences and the messages over the world
//! view. What the command line asks of the window is [`AppOptions`]; the scripted part
//! (`--frames`, `--screenshot`, `--dump-state`, `--compare`, `--pick` and the hidden test
//! hooks `--catalog-smoke`, `--layout-out`, `--max-fps`, `--bomb-at`,
//! `--rewind-to`/`--rewind-at`) is `automation.rs`, called at fixed points of the frame.

use std::cell::Cell;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};

use egui_macroquad::egui;
use macroquad::input::{
    is_key_down, is_key_pressed, is_mouse_button_down, is_mouse_button_pressed,
    is_mouse_button_released, is_quit_requested, mouse_position, mouse_wheel, prevent_quit,
    KeyCode, MouseButton,
};
use macroquad::math::Rect;
use macroquad::shapes::draw_rectangle;
use macroquad::text::{draw_text, measure_text};
use macroquad::time::get_frame_time;
use macroquad::window::{
    clear_background, next_frame, screen_dpi_scale, screen_height, screen_width, Conf,
};

use super::automation::{check_environment, Automation};
use super::camera::Camera;
use super::draw::{draw_grid, to_mq, MacroquadDraw, BACKGROUND};
use super::panel::section;
use super::preferences::{Preferences, PreferencesFile, PANEL_WIDTH_RANGE};
use super::probe::JOINT_PICK_PIXELS;
use super::screenshot::save_screen;
use super::testbed::{FrameInfo, Key, Testbed};
use crate::files::escape;
use crate::physics::{Color, Vec2};
use crate::scene::CameraFile;

/// Window title.
pub const TITLE: &str = "Impulse testbed";
/// Initial window size (logical px).
pub const WINDOW_SIZE: (i32, i32) = (1280, 720);
/// Zoom factor per mouse wheel notch.
pub const WHEEL_ZOOM: f32 = 1.15;
pub use super::automation::SMOKE_FRAMES;
/// Preferences are written at most this often while they change (and once at exit).
const PREFERENCES_EVERY: Duration = Duration::from_secs(1);

/// What the command line asks of the window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AppOptions {
    /// Scene file to open (the last or the default scene when `None`).
    pub scene: Option<PathBuf>,
    /// Run this many frames, then exit 0 (for automation). `None`: until closed. With
    /// `catalog_smoke`: frames per scene.
    pub frames: Option<u64>,
    /// Save a PNG of the last frame here.
    pub screenshot: Option<PathBuf>,
    /// Write the final state as JSON here (the `testbed run --json` object plus the solver
    /// settings and the testbed's own state).
    pub dump_state: Option<PathBuf>,
    /// Test hook: open every catalog scene in turn (after an empty world), run it for
    /// `frames` frames and write
    /// `NN_<file>.png` and `NN_<file>.json` (the dump-state object) into this folder.
    pub catalog_smoke: Option<PathBuf>,
    /// Test hook: rewrite this JSON file every few frames with the world viewport, the
    /// camera and the screen rectangles of the panel's named widgets.
    pub layout_out: Option<PathBuf>,
    /// Test hook: sleep so that frames come at most this often per second (Xvfb has no
    /// vsync, so a scripted drag would otherwise race through thousands of frames).
    pub max_fps: Option<f32>,
    /// Compare mode from the start: the presets named, comma separated
    /// (`"classic,classic no warm starting,soft step"`; see `compare::parse_compare`).
    pub compare: Option<String>,
    /// Test hook: fire the bomb (as `Space` does) after these frames.
    pub bomb_at: Vec<u64>,
    /// Test hook: after frame `rewind_at` (default: half of `--frames`), pause, scrub the
    /// timeline back to this step (through a few steps on the way, as a drag would) and run
    /// on from it.
    pub rewind_to: Option<u64>,
    pub rewind_at: Option<u64>,
    /// Test hook: pick the body or joint of this name, or at this world point `X,Y` (m), for
    /// the Plots section (opened), with an optional quantity:
    /// `NAME[:height|speed|angle|linear|angular]`.
    pub pick: Option<String>,
    /// Threads each world steps on (overrides the preferences; saved with them).
    pub threads: Option<usize>,
}

impl AppOptions {
    /// An automated run: preferences are neither read nor written unless
    /// `IMPULSE_SETTINGS` names a file.
    pub fn automated(&self) -> bool {
        self.frames.is_some() || self.catalog_smoke.is_some()
    }
}

/// The macroquad window configuration: 1280x720, resizable, HiDPI aware, 4x multisampling
/// (`IMPULSE_MSAA=1` turns it off: free on a GPU, it costs a software rasteriser such as
/// Xvfb's llvmpipe most of its frame time).
pub fn window_conf() -> Conf {
    Conf {
        window_title: TITLE.to_owned(),
        window_width: WINDOW_SIZE.0,
        window_height: WINDOW_SIZE.1,
        window_resizable: true,
        high_dpi: true,
        sample_count: std::env::var("IMPULSE_MSAA")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|n: &i32| (1..=16).contains(n))
            .unwrap_or(4),
        ..Default::default()
    }
}

/// Open the window and run until it is closed or `--frames` is reached. Returns the process
/// exit code: 0 on success, 1 when the options or the environment are unusable (reported on
/// stderr before any window opens) or an output file could not be written.
pub fn open_window(options: AppOptions) -> i32 {
    if let Err(message) = check_environment(&options) {
        eprintln!("testbed: {message}");
        return 1;
    }
    let prefs_file = PreferencesFile::locate(options.automated());
    let (prefs, prefs_message) = prefs_file.load();
    let mut testbed = match Testbed::new(options.scene.as_deref(), &prefs) {
        Ok(testbed) => testbed,
        Err(message) => {
            eprintln!("testbed: {message}");
            return 1;
        }
    };
    if let Some(message) = prefs_message {
        eprintln!("testbed: {message}");
        testbed.add_notice(message);
    }
    if let Some(threads) = options.threads {
        testbed.run.threads = threads;
    }
    if let Err(message) = Automation::setup(&options, &mut testbed) {
        eprintln!("testbed: {message}");
        return 1;
    }
    let code = Rc::new(Cell::new(0));
    let out = code.clone();
    macroquad::Window::from_config(window_conf(), async move {
        out.set(run(options, testbed, prefs_file, prefs).await);
    });
    code.get()
}

/// Panel requests that act on the window side (camera, screenshots).
#[derive(Default)]
struct PanelActions {
    frame_scene: bool,
    screenshot: bool,
}

/// The frame loop. Returns the exit code. One frame, in order:
///
/// 1. egui: the right side panel (resizable); what is left of the window is the world view.
///    A camera request of a newly opened scene is applied to that view.
/// 2. input: wheel zoom about the cursor, right/middle drag pan, left drag to the testbed's
///    mouse joint (every world), Ctrl+click to pick for the plots, keys. A press egui wants
///    (over the panel, on a widget) never reaches the world, and a drag belongs to wherever
///    it started; keys go to egui while it has focus. Then the automation's input
///    (`Automation::before_update`: `--bomb-at`, `--rewind-to`).
/// 3. `Testbed::update`: requests, file reload, this frame's fixed steps.
/// 4. draw: background, grid, `Testbed::draw_world` through `MacroquadDraw`, messages (the
///    compare legend, the rewound step), egui.
/// 5. the screenshot key (F12), the preferences (at most once a second, and on the last
///    frame), the automation's outputs and exit check (`Automation::after_frame`), then
///    `--max-fps`'s wait and the next frame.
pub async fn run(
    options: AppOptions,
    mut testbed: Testbed,
    prefs_file: PreferencesFile,
    prefs: Preferences,
) -> i32 {
    prevent_quit(); // so closing the window still writes --screenshot / --dump-state
    egui_macroquad::cfg(|ctx| ctx.set_pixels_per_point(screen_dpi_scale()));

    let mut camera = Camera::default();
    let mut frame: u64 = 0;
    let mut pan_from: Option<Vec2> = None;
    let mut left_down = false;
    let mut status = String::new();
    let mut panel_width = prefs.panel_width;
    let mut saved_prefs = prefs;
    let mut prefs_saved_at = Instant::now();
    let mut frame_seconds: f32 = 1.0 / 60.0;
    let mut automation = Automation::new(options, &mut testbed);

    loop {
        let quitting = is_quit_requested();
        let screen = Vec2::new(screen_width(), screen_height());
        let frame_dt = get_frame_time();
        if frame_dt.is_finite() && frame_dt > 0.0 {
            frame_seconds += 0.05 * (frame_dt.min(1.0) - frame_seconds);
        }
        let info = FrameInfo {
            fps: 1.0 / frame_seconds.max(1e-4),
            frames: frame,
        };

        // 1. egui. The world viewport is what the panel leaves.
        let mut actions = PanelActions::default();
        let mut world_rect = Rect::new(0.0, 0.0, screen.x - panel_width, screen.y);
        egui_macroquad::ui(|ctx| {
            let response = egui::SidePanel::right("testbed_panel")
                .default_width(panel_width)
                .width_range(PANEL_WIDTH_RANGE.0..=PANEL_WIDTH_RANGE.1)
                .resizable(true)
                .show(ctx, |ui| {
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        ui.heading(TITLE);
                        testbed.ui(ui, &info);
                        let mut open = testbed.view.sections.view;
                        section(ui, "View", &mut open, |ui| {
                            view_ui(ui, &camera, &mut actions, &status)
                        });
                        testbed.view.sections.view = open;
                    });
                });
            panel_width = response.response.rect.width();
            let r = ctx.available_rect();
            world_rect = Rect::new(r.min.x, r.min.y, r.width(), r.height());
        });
        let (egui_pointer, egui_keyboard) = egui_pointer_and_keyboard();
        camera.set_viewport(world_rect);
        if let Some(view) = testbed.take_camera_request() {
            show_scene_camera(&mut camera, view);
        }

        // 2. Input.
        let mouse = Vec2::from(mouse_position());
        let in_world = camera.viewport_contains(mouse) && !egui_pointer;
        let (_, wheel) = mouse_wheel();
        if wheel != 0.0 && in_world {
            camera.zoom_at(
                mouse,
                WHEEL_ZOOM.powf(wheel.signum() * wheel.abs().min(5.0)),
            );
        }
        let pan_pressed = is_mouse_button_pressed(MouseButton::Right)
            || is_mouse_button_pressed(MouseButton::Middle);
        if pan_pressed && in_world {
            pan_from = Some(mouse);
        }
        if let Some(from) = pan_from {
            camera.pan(mouse - from);
            pan_from = Some(mouse);
            if !is_mouse_button_down(MouseButton::Right)
                && !is_mouse_button_down(MouseButton::Middle)
            {
                pan_from = None;
            }
        }
        let ctrl = is_key_down(KeyCode::LeftControl) || is_key_down(KeyCode::RightControl);
        if is_mouse_button_pressed(MouseButton::Left) && in_world && ctrl {
            testbed.pick(
                camera.screen_to_world(mouse),
                camera.pixels_to_metres(JOINT_PICK_PIXELS),
            );
        } else if is_mouse_button_pressed(MouseButton::Left) && in_world {
            left_down = true;
            testbed.mouse_down(camera.screen_to_world(mouse));
        } else if left_down {
            testbed.mouse_move(camera.screen_to_world(mouse));
        }
        if left_down
            && (is_mouse_button_released(MouseButton::Left)
                || !is_mouse_button_down(MouseButton::Left))
        {
            left_down = false;
            testbed.mouse_up();
        }
        if !egui_keyboard {
            for (code, key) in [
                (KeyCode::P, Key::Pause),
                (KeyCode::O, Key::SingleStep),
                (KeyCode::R, Key::Restart),
                (KeyCode::Space, Key::Bomb),
                (KeyCode::PageDown, Key::NextScene),
                (KeyCode::RightBracket, Key::NextScene),
                (KeyCode::PageUp, Key::PreviousScene),
                (KeyCode::LeftBracket, Key::PreviousScene),
                (KeyCode::I, Key::NextIteration),
                (KeyCode::U, Key::PreviousIteration),
                (KeyCode::J, Key::NextSubstep),
                (KeyCode::Enter, Key::FinishStep),
            ] {
                if is_key_pressed(code) {
                    testbed.key(key);
                }
            }
            if is_key_pressed(KeyCode::F) {
                actions.frame_scene = true;
            }
            if is_key_pressed(KeyCode::F12) {
                actions.screenshot = true;
            }
        }
        if actions.frame_scene {
            if let Some(region) = testbed.frame_region() {
                camera.frame(region);
            }
        }

        automation.before_update(frame, &mut testbed);

        // 3. Physics.
        testbed.update(frame_dt);

        // 4. Draw: world under the world camera, messages, then egui in screen space.
        clear_background(to_mq(BACKGROUND));
        let mut draw = MacroquadDraw::begin(&camera, screen);
        draw_grid(&camera);
        testbed.draw_world(&mut draw);
        draw.finish();
        draw_messages(&camera, &testbed);
        egui_macroquad::draw();
        frame += 1;

        // 5. Screenshot key, preferences, automation, exit.
        if actions.screenshot {
            let path = PathBuf::from(format!("impulse-screenshot-{frame:05}.png"));
            status = match save_screen(&path) {
                Ok(()) => format!("saved {}", escape(&path)),
                Err(e) => e,
            };
            println!("{status}");
        }
        let prefs_now = testbed.preferences(panel_width);
        let last = automation.is_last(frame, quitting);
        if prefs_now != saved_prefs && (last || prefs_saved_at.elapsed() >= PREFERENCES_EVERY) {
            if let Err(e) = prefs_file.save(&prefs_now) {
                testbed.add_notice(format!("cannot save the preferences: {e}"));
            }
            saved_prefs = prefs_now;
            prefs_saved_at = Instant::now();
        }
        if let Some(code) = automation.after_frame(frame, quitting, &camera, &mut testbed, screen) {
            return code;
        }
        automation.throttle();
        next_frame().await;
    }
}

/// Centre the view on a scene's camera: its height fills the viewport's height.
fn show_scene_camera(camera: &mut Camera, view: CameraFile) {
    camera.set_center(view.center);
    camera.set_view_height(view.height);
}

/// Whether egui wants the pointer (over the panel, or dragging a widget) and the keyboard.
fn egui_pointer_and_keyboard() -> (bool, bool) {
    let mut wants = (false, false);
    egui_macroquad::cfg(|ctx| {
        wants = (
            ctx.wants_pointer_input() || ctx.is_pointer_over_area(),
            ctx.wants_keyboard_input(),
        );
    });
    wants
}

/// Messages over the world view: the first scene error (the panel has them all), and for an
/// empty world the notices (no scenes folder) or a hint.
fn draw_messages(camera: &Camera, testbed: &Testbed) {
    let view = camera.viewport();
    // (text, colour, with a colour swatch before it)
    let mut lines: Vec<(String, Color, bool)> = Vec::new();
    if let Some(first) = testbed.errors().first() {
        lines.push((
            format!(
                "Scene file has errors (still running: {}):",
                escape(&testbed.info().name)
            ),
            Color::rgb(1.0, 0.45, 0.4),
            false,
        ));
        lines.push((escape(first), Color::rgb(1.0, 0.45, 0.4), false));
    }
    if testbed.world().body_count() == 0 {
        for notice in testbed.notices() {
            lines.push((escape(notice), Color::rgb(1.0, 0.8, 0.35), false));
        }
        if testbed.errors().is_empty() && testbed.notices().is_empty() {
            lines.push((
                "Empty world: pick a scene in the panel".to_string(),
                Color::rgb(0.8, 0.8, 0.8),
                false,
            ));
        }
    }
    if testbed.comparing() {
        for (label, color) in testbed.legend() {
            lines.push((escape(label), color, true));
        }
    }
    if let Some(inspection) = testbed.inspection() {
        lines.push((inspection.status(), Color::rgb(0.55, 0.85, 1.0), false));
    }
    lines.extend(super::solver_view::legend_lines(&testbed.view.solver_draw));
    let (oldest, newest, shown) = testbed.timeline();
    if shown != newest {
        lines.push((
            format!("rewound: step {shown} of {oldest}..{newest} (run to resume from here)"),
            Color::rgb(1.0, 0.8, 0.35),
            false,
        ));
    }
    let size = 18.0;
    let mut y = view.y + 28.0;
    for (text, color, swatch) in lines {
        let x = if swatch {
            draw_rectangle(view.x + 16.0, y - 12.0, 22.0, 12.0, to_mq(color));
            view.x + 46.0
        } else {
            view.x + 16.0
        };
        for line in wrap(&text, view.w - 32.0, size) {
            draw_text(&line, x, y, size, to_mq(color));
            y += size + 4.0;
        }
    }
}

/// Split `text` into lines at most `width` pixels wide at font `size`.
fn wrap(text: &str, width: f32, size: f32) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && measure_text(&candidate, None, size as u16, 1.0).width > width {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The View section of the panel: camera readout, framing, screenshots, the controls.
fn view_ui(ui: &mut egui::Ui, camera: &Camera, actions: &mut PanelActions, status: &str) {
    let c = camera.center();
    ui.label(format!(
        "centre ({:.2}, {:.2}) m   {:.1} px/m",
        c.x,
        c.y,
        camera.pixels_per_metre()
    ));
    ui.horizontal(|ui| {
        if ui.button("Frame bodies (F)").clicked() {
            actions.frame_scene = true;
        }
        if ui.button("Screenshot (F12)").clicked() {
            actions.screenshot = true;
        }
    });
    if !status.is_empty() {
        ui.label(status);
    }
    ui.label(egui::RichText::new("Controls").strong());
    egui::Grid::new("controls").num_columns(2).show(ui, |ui| {
        for (key, what) in CONTROLS {
            ui.label(*key);
            ui.label(*what);
            ui.end_row();
        }
    });
}

/// The controls, as the panel and the README list them.
pub const CONTROLS: &[(&str, &str)] = &[
    (
        "Left drag",
        "grab a dynamic body (mouse joint; every compared world)",
    ),
    ("Ctrl+click", "pick a body or joint to plot (Plots section)"),
    ("Wheel", "zoom about the cursor"),
    ("Right/middle drag", "pan"),
    ("F", "frame the moving bodies (and static pieces near them)"),
    ("P", "pause / run"),
    ("O", "single step"),
    ("R", "restart the scene"),
    ("Space", "launch a bomb"),
    ("PgDn or ]", "next scene"),
    ("PgUp or [", "previous scene"),
    ("F12", "screenshot"),
    ("I", "next solver iteration inside the step (pauses)"),
    ("U", "back one solver iteration"),
    ("J", "next sub-step inside the step"),
    ("Enter", "finish the step being inspected"),
    (
        "Timeline (Run)",
        "while paused, drag to rewind up to 20 s; run to resume from there",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automated_runs_are_the_ones_with_frames_or_smoke() {
        assert!(!AppOptions::default().automated());
        assert!(AppOptions {
            frames: Some(3),
            ..AppOptions::default()
        }
        .automated());
        assert!(AppOptions {
            catalog_smoke: Some("x".into()),
            ..AppOptions::default()
        }
        .automated());
    }
}
