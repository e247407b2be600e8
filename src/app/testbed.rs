//! `Testbed`: the seam between the window and the physics.
//!
//! The window loop (`window.rs`) owns the camera, input, egui and screenshots, and calls
//! exactly these methods each frame, in this order:
//!
//! 1. [`Testbed::ui`] inside the side panel (physics controls: pause, step, draw flags).
//! 2. [`Testbed::mouse_down`] / [`Testbed::mouse_move`] / [`Testbed::mouse_up`] for the left
//!    button in world coordinates, only when egui does not want the pointer.
//! 3. [`Testbed::update`]: advance the simulation by at most one fixed step.
//! 4. [`Testbed::draw_world`] with the world camera set.
//!
//! Plus [`Testbed::bounds`] for `F` (frame the scene) and [`Testbed::state_json`] for
//! `--dump-state`. To plug in the `World`, add it as a field, build it in `new` (from the
//! scene file), step it in `step`, call `world.debug_draw(d, self.draw_flags)` in
//! `draw_world`, and delete `demo.rs`. Nothing else in `app/` needs to change.

use std::path::{Path, PathBuf};

use egui_macroquad::egui;

use super::demo;
use super::draw::MacroquadDraw;
use crate::physics::{Aabb, DrawFlags, Vec2};

/// The physics side of the testbed.
pub struct Testbed {
    /// Scene file given on the command line, if any.
    scene: Option<PathBuf>,
    /// When true, `update` does nothing unless a single step was requested.
    pub paused: bool,
    /// What `draw_world` draws; every flag is a checkbox in the panel.
    pub draw_flags: DrawFlags,
    /// A single step was requested while paused (`O` key or the panel's Step button).
    step_requested: bool,
    /// Fixed steps taken so far.
    steps: u64,
    /// Simulated time (s): `steps * DT`.
    time: f32,
    /// Last left-button drag position in the world, for the (future) mouse joint.
    grab: Option<Vec2>,
}

impl Testbed {
    /// The fixed time step (s). The window steps at most once per frame, so runs are
    /// deterministic frame by frame and never depend on the frame rate (Xvfb has no vsync).
    pub const DT: f32 = 1.0 / 60.0;

    /// A testbed for the scene file `scene` (the demo picture when `None`). Fails with a
    /// message naming the file when it cannot be read; nothing is opened yet.
    pub fn new(scene: Option<&Path>) -> Result<Testbed, String> {
        if let Some(path) = scene {
            // The scene loader is not wired in yet; at least refuse unreadable files now so
            // the behaviour (error before any window opens) is already the final one.
            std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read scene file {}: {e}", path.display()))?;
        }
        Ok(Testbed {
            scene: scene.map(Path::to_path_buf),
            paused: false,
            draw_flags: DrawFlags::default(),
            step_requested: false,
            steps: 0,
            time: 0.0,
            grab: None,
        })
    }

    /// Fixed steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Simulated time (s).
    pub fn time(&self) -> f32 {
        self.time
    }

    /// Called once per frame: one fixed step when running, or the requested single step.
    pub fn update(&mut self) {
        if !self.paused || std::mem::take(&mut self.step_requested) {
            self.step();
        }
    }

    /// Advance by one fixed step of `DT`.
    pub fn step(&mut self) {
        self.steps += 1;
        self.time = self.steps as f32 * Self::DT;
    }

    /// Draw the world through `d` (the world camera is already set).
    pub fn draw_world(&self, d: &mut MacroquadDraw) {
        if self.draw_flags.shapes {
            demo::draw(d, self.time);
        }
        if let Some(p) = self.grab {
            use crate::physics::{Color, DebugDraw};
            d.draw_point(p, 6.0, Color::JOINT_ANCHOR);
        }
    }

    /// The world box to fit when the user presses `F`, or `None` for an empty world.
    pub fn bounds(&self) -> Option<Aabb> {
        Some(demo::bounds())
    }

    /// Left button pressed at world point `p` (m). The World's mouse joint goes here.
    pub fn mouse_down(&mut self, p: Vec2) {
        self.grab = Some(p);
    }

    /// Left button held and moved to world point `p` (m).
    pub fn mouse_move(&mut self, p: Vec2) {
        if self.grab.is_some() {
            self.grab = Some(p);
        }
    }

    /// Left button released.
    pub fn mouse_up(&mut self) {
        self.grab = None;
    }

    /// Toggle pause (`P`).
    pub fn toggle_pause(&mut self) {
        self.paused = !self.paused;
    }

    /// Request one step while paused (`O`); pauses if running.
    pub fn request_step(&mut self) {
        self.paused = true;
        self.step_requested = true;
    }

    /// The physics controls in the side panel.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        ui.label(match &self.scene {
            Some(path) => format!(
                "Scene: {} (loader not wired yet; demo shown)",
                path.display()
            ),
            None => "Scene: built-in demo".to_owned(),
        });
        ui.horizontal(|ui| {
            let label = if self.paused { "Run (P)" } else { "Pause (P)" };
            if ui.button(label).clicked() {
                self.toggle_pause();
            }
            if ui.button("Step (O)").clicked() {
                self.request_step();
            }
        });
        ui.label(format!(
            "step {}   t = {:.2} s   dt = {:.4} s",
            self.steps,
            self.time,
            Self::DT
        ));
        egui::CollapsingHeader::new("Draw")
            .default_open(true)
            .show(ui, |ui| {
                let f = &mut self.draw_flags;
                ui.checkbox(&mut f.shapes, "Shapes");
                ui.checkbox(&mut f.joints, "Joints");
                ui.checkbox(&mut f.joint_anchors, "Joint anchors");
                ui.checkbox(&mut f.contact_points, "Contact points");
                ui.checkbox(&mut f.contact_normals, "Contact normals");
                ui.checkbox(&mut f.normal_impulses, "Normal impulses");
                ui.checkbox(&mut f.friction_impulses, "Friction impulses");
                ui.checkbox(&mut f.aabbs, "AABBs");
                ui.checkbox(&mut f.centers_of_mass, "Centres of mass");
                ui.checkbox(&mut f.body_names, "Body names");
            });
    }

    /// The state written by `--dump-state`, as JSON. With the World this lists every body
    /// (name, position, angle, velocities); for now the step counter and time.
    pub fn state_json(&self) -> String {
        let scene = match &self.scene {
            Some(path) => json_string(&path.display().to_string()),
            None => "null".to_owned(),
        };
        format!(
            "{{\n  \"scene\": {scene},\n  \"steps\": {},\n  \"time\": {},\n  \"dt\": {},\n  \"bodies\": []\n}}\n",
            self.steps,
            self.time,
            Self::DT
        )
    }
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_fixed_and_pause_holds() {
        let mut t = Testbed::new(None).unwrap();
        for _ in 0..60 {
            t.update();
        }
        assert_eq!(t.steps(), 60);
        assert!((t.time() - 1.0).abs() < 1e-5);
        t.toggle_pause();
        t.update();
        assert_eq!(t.steps(), 60);
        t.request_step();
        t.update();
        t.update();
        assert_eq!(t.steps(), 61);
    }

    #[test]
    fn unreadable_scene_is_an_error_naming_the_file() {
        let err = Testbed::new(Some(Path::new("/no/such/scene.ron")))
            .err()
            .unwrap();
        assert!(err.contains("/no/such/scene.ron"), "{err}");
    }

    #[test]
    fn state_json_escapes_strings() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
        let t = Testbed::new(None).unwrap();
        assert!(t.state_json().contains("\"steps\": 0"));
    }
}
