//! The window: configuration, the frame loop, camera input, the side panel and the
//! automation options (`--frames`, `--screenshot`, `--dump-state`).
//!
//! One frame, in order:
//! 1. egui: the right side panel; what is left of the window is the world viewport.
//! 2. input: wheel zoom about the cursor, right/middle drag pan, left button to the
//!    testbed, keys. Pointer events egui wants (over the panel, dragging a slider) and keys
//!    while egui has keyboard focus do not reach the world.
//! 3. `Testbed::update`: at most one fixed step.
//! 4. draw: background, grid, `Testbed::draw_world` through `MacroquadDraw`, then egui.
//! 5. screenshots, and the exit check for `--frames`.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use egui_macroquad::egui;
use macroquad::input::{
    is_key_pressed, is_mouse_button_down, is_mouse_button_pressed, is_mouse_button_released,
    is_quit_requested, mouse_position, mouse_wheel, prevent_quit, KeyCode, MouseButton,
};
use macroquad::math::Rect;
use macroquad::window::{
    clear_background, next_frame, screen_dpi_scale, screen_height, screen_width, Conf,
};

use super::camera::Camera;
use super::draw::{draw_grid, to_mq, MacroquadDraw, BACKGROUND};
use super::screenshot::{save_screen, write_text};
use super::testbed::Testbed;
use crate::physics::Vec2;

/// Window title.
pub const TITLE: &str = "Impulse testbed";
/// Initial window size (logical px).
pub const WINDOW_SIZE: (i32, i32) = (1280, 720);
/// Width of the egui side panel on the right (egui points = logical px).
pub const PANEL_WIDTH: f32 = 320.0;
/// Zoom factor per mouse wheel notch.
pub const WHEEL_ZOOM: f32 = 1.15;

/// What the command line asks of the window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AppOptions {
    /// Scene file to open (the demo when `None`).
    pub scene: Option<PathBuf>,
    /// Run this many frames, then exit 0 (for automation). `None`: until closed.
    pub frames: Option<u64>,
    /// Save a PNG of the last frame here.
    pub screenshot: Option<PathBuf>,
    /// Write the final state as JSON here.
    pub dump_state: Option<PathBuf>,
}

/// The macroquad window configuration: 1280x720, resizable, HiDPI aware.
pub fn window_conf() -> Conf {
    Conf {
        window_title: TITLE.to_owned(),
        window_width: WINDOW_SIZE.0,
        window_height: WINDOW_SIZE.1,
        window_resizable: true,
        high_dpi: true,
        sample_count: 4,
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
    let testbed = match Testbed::new(options.scene.as_deref()) {
        Ok(testbed) => testbed,
        Err(message) => {
            eprintln!("testbed: {message}");
            return 1;
        }
    };
    let code = Rc::new(Cell::new(0));
    let out = code.clone();
    macroquad::Window::from_config(window_conf(), async move {
        out.set(run(options, testbed).await);
    });
    code.get()
}

/// Refuse early what would fail late: no display, or output folders that do not exist.
fn check_environment(options: &AppOptions) -> Result<(), String> {
    #[cfg(all(unix, not(target_os = "macos"), not(target_os = "android")))]
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        return Err(
            "no display (DISPLAY is not set); run under `xvfb-run -a` for a headless \
                    window"
                .to_owned(),
        );
    }
    for path in [&options.screenshot, &options.dump_state]
        .into_iter()
        .flatten()
    {
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !parent.is_dir() {
            return Err(format!(
                "cannot write {}: folder {} does not exist",
                path.display(),
                parent.display()
            ));
        }
    }
    Ok(())
}

/// Panel requests that act on the window side (camera, screenshots).
#[derive(Default)]
struct PanelActions {
    frame_scene: bool,
    screenshot: bool,
}

/// The frame loop. Returns the exit code.
pub async fn run(options: AppOptions, mut testbed: Testbed) -> i32 {
    prevent_quit(); // so closing the window still writes --screenshot / --dump-state
    egui_macroquad::cfg(|ctx| ctx.set_pixels_per_point(screen_dpi_scale()));

    let mut camera = Camera::default();
    let mut framed = false;
    let mut frame: u64 = 0;
    let mut pan_from: Option<Vec2> = None;
    let mut left_down = false;
    let mut status = String::new();
    let mut exit_code = 0;

    loop {
        let quitting = is_quit_requested();
        let screen = Vec2::new(screen_width(), screen_height());

        // 1. egui. The world viewport is what the panel leaves.
        let mut actions = PanelActions::default();
        let mut world_rect = Rect::new(0.0, 0.0, screen.x - PANEL_WIDTH, screen.y);
        egui_macroquad::ui(|ctx| {
            egui::SidePanel::right("testbed_panel")
                .exact_width(PANEL_WIDTH)
                .resizable(false)
                .show(ctx, |ui| {
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        ui.heading(TITLE);
                        ui.separator();
                        testbed.ui(ui);
                        ui.separator();
                        view_ui(ui, &camera, &mut actions, &status);
                    });
                });
            let r = ctx.available_rect();
            world_rect = Rect::new(r.min.x, r.min.y, r.width(), r.height());
        });
        let (egui_pointer, egui_keyboard) = egui_pointer_and_keyboard();
        camera.set_viewport(world_rect);
        if !framed {
            if let Some(bounds) = testbed.bounds() {
                camera.frame(bounds);
            }
            framed = true;
        }

        // 2. Input.
        let mouse = Vec2::from(mouse_position());
        let in_world = camera.viewport_contains(mouse) && !egui_pointer;
        let (_, wheel) = mouse_wheel();
        if wheel != 0.0 && in_world {
            camera.zoom_at(mouse, WHEEL_ZOOM.powf(wheel.clamp(-5.0, 5.0)));
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
        if is_mouse_button_pressed(MouseButton::Left) && in_world {
            left_down = true;
            testbed.mouse_down(camera.screen_to_world(mouse));
        } else if left_down {
            testbed.mouse_move(camera.screen_to_world(mouse));
        }
        if left_down && is_mouse_button_released(MouseButton::Left) {
            left_down = false;
            testbed.mouse_up();
        }
        if !egui_keyboard {
            if is_key_pressed(KeyCode::F) {
                actions.frame_scene = true;
            }
            if is_key_pressed(KeyCode::F12) {
                actions.screenshot = true;
            }
            if is_key_pressed(KeyCode::P) {
                testbed.toggle_pause();
            }
            if is_key_pressed(KeyCode::O) {
                testbed.request_step();
            }
        }
        if actions.frame_scene {
            if let Some(bounds) = testbed.bounds() {
                camera.frame(bounds);
            }
        }

        // 3. Physics.
        testbed.update();

        // 4. Draw: world under the world camera, then egui in screen space.
        clear_background(to_mq(BACKGROUND));
        let mut draw = MacroquadDraw::begin(&camera, screen);
        draw_grid(&camera);
        testbed.draw_world(&mut draw);
        draw.finish();
        egui_macroquad::draw();
        frame += 1;

        // 5. Screenshots and exit.
        if actions.screenshot {
            let path = PathBuf::from(format!("impulse-screenshot-{frame:05}.png"));
            status = match save_screen(&path) {
                Ok(()) => format!("saved {}", path.display()),
                Err(e) => e,
            };
            println!("{status}");
        }
        let last = quitting || options.frames.is_some_and(|n| frame >= n);
        if last {
            if let Some(path) = &options.screenshot {
                if let Err(e) = save_screen(path) {
                    eprintln!("testbed: {e}");
                    exit_code = 1;
                }
            }
            if let Some(path) = &options.dump_state {
                if let Err(e) = write_text(path, &testbed.state_json()) {
                    eprintln!("testbed: {e}");
                    exit_code = 1;
                }
            }
            return exit_code;
        }
        next_frame().await;
    }
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

/// The View section of the panel: camera readout, framing, screenshots, controls.
fn view_ui(ui: &mut egui::Ui, camera: &Camera, actions: &mut PanelActions, status: &str) {
    egui::CollapsingHeader::new("View")
        .default_open(true)
        .show(ui, |ui| {
            let c = camera.center();
            ui.label(format!(
                "centre ({:.2}, {:.2}) m   {:.1} px/m",
                c.x,
                c.y,
                camera.pixels_per_metre()
            ));
            ui.horizontal(|ui| {
                if ui.button("Frame scene (F)").clicked() {
                    actions.frame_scene = true;
                }
                if ui.button("Screenshot (F12)").clicked() {
                    actions.screenshot = true;
                }
            });
            if !status.is_empty() {
                ui.label(status);
            }
        });
    egui::CollapsingHeader::new("Controls")
        .default_open(false)
        .show(ui, |ui| {
            ui.label("Wheel: zoom about the cursor");
            ui.label("Right or middle drag: pan");
            ui.label("Left drag: grab (with the World)");
            ui.label("F: frame the scene   F12: screenshot");
            ui.label("P: pause / run   O: single step");
        });
}
