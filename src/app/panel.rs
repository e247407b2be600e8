//! The side panel's physics sections: Scenes, Run (with the rewind timeline), Compare,
//! Solver, Draw, Stats and Plots (the window adds View). Every change applies the frame it is
//! made: solver settings as a `lab::Input` for the world being edited, scene changes,
//! restarts and compared worlds as requests applied at the start of the next
//! `Testbed::update`.
//!
//! Widgets a test needs to click are recorded by name in `Testbed::layout` with their screen
//! rectangle (see `--layout-out` in `window.rs`).

use egui_macroquad::egui::{self, Color32, RichText};

use super::compare::{legend_color, Preset};
use super::preferences::{Stepping, MAX_STEPS_PER_FRAME, TIME_SCALE_RANGE};
use super::probe::{color32, Pick, Quantity};
use super::rewind::REWIND_SECONDS;
use super::solver_view::{ColorBy, InspectStep};
use super::testbed::{FrameInfo, Request, Testbed};
use crate::files::escape;
use crate::lab::compare::MAX_WORLDS;
use crate::physics::threads::MAX_THREADS;
use crate::physics::{SolverKind, SolverSettings};

/// Colour of error text.
pub const ERROR_COLOR: Color32 = Color32::from_rgb(255, 110, 100);
/// Colour of notices.
pub const NOTICE_COLOR: Color32 = Color32::from_rgb(255, 200, 90);

/// A collapsing section whose open state is kept in `open` (remembered between runs).
pub fn section(ui: &mut egui::Ui, title: &str, open: &mut bool, add: impl FnOnce(&mut egui::Ui)) {
    let response = egui::CollapsingHeader::new(RichText::new(title).strong())
        .id_salt(title)
        .default_open(*open)
        .show(ui, add);
    *open = response.openness > 0.5;
}

impl Testbed {
    /// Record a widget's rectangle under `name` when it is visible.
    pub(super) fn track(&mut self, ui: &egui::Ui, name: &'static str, response: &egui::Response) {
        if ui.is_rect_visible(response.rect) {
            self.view.layout.insert(name, response.rect);
        } else {
            self.view.layout.remove(name);
        }
    }

    /// The physics sections of the side panel.
    pub fn ui(&mut self, ui: &mut egui::Ui, frame: &FrameInfo) {
        for notice in &self.scene.notices {
            ui.label(RichText::new(escape(notice)).color(NOTICE_COLOR));
        }
        if !self.scene.errors.is_empty() {
            ui.label(
                RichText::new(format!(
                    "The scene file has errors; still running: {}",
                    escape(&self.scene.info.name)
                ))
                .color(ERROR_COLOR)
                .strong(),
            );
            for e in &self.scene.errors {
                ui.label(RichText::new(escape(e)).color(ERROR_COLOR).monospace());
            }
        }
        for e in &self.scene.step_errors {
            ui.label(RichText::new(escape(e)).color(ERROR_COLOR).monospace());
        }
        let mut sections = self.view.sections;
        section(ui, "Scenes", &mut sections.scenes, |ui| self.scenes_ui(ui));
        section(ui, "Run", &mut sections.run, |ui| self.run_ui(ui));
        section(ui, "Compare", &mut sections.compare, |ui| {
            self.compare_ui(ui)
        });
        section(ui, "Solver", &mut sections.solver, |ui| self.solver_ui(ui));
        section(ui, "Draw", &mut sections.draw, |ui| self.draw_ui(ui));
        section(ui, "Stats", &mut sections.stats, |ui| {
            self.stats_ui(ui, frame)
        });
        section(ui, "Plots", &mut sections.plots, |ui| self.plots_ui(ui));
        section(ui, "Joint events", &mut sections.joint_events, |ui| {
            self.joint_events_ui(ui)
        });
        self.view.sections = sections;
    }

    fn scenes_ui(&mut self, ui: &mut egui::Ui) {
        let current = self
            .scene
            .path
            .as_deref()
            .and_then(|p| self.scene.library.index_of(p));
        let mut open = None;
        let reveal = self.view.menu_revealed != self.scene.path;
        self.view.menu_revealed = self.scene.path.clone();
        for category in self.scene.library.categories() {
            let has_current =
                current.is_some_and(|i| self.scene.library.entries[i].category == category);
            let title = if has_current {
                RichText::new(category).strong()
            } else {
                RichText::new(category)
            };
            // The current scene's category opens when the scene changes; the user may close
            // it again.
            let force_open = (has_current && reveal).then_some(true);
            egui::CollapsingHeader::new(title)
                .id_salt(("category", category))
                .default_open(has_current)
                .open(force_open)
                .show(ui, |ui| {
                    for (i, entry) in self.scene.library.entries.iter().enumerate() {
                        if entry.category != category {
                            continue;
                        }
                        let response = ui
                            .selectable_label(current == Some(i), escape(&entry.name))
                            .on_hover_text(escape(&entry.path));
                        if response.clicked() {
                            open = Some(entry.path.clone());
                        }
                    }
                });
        }
        if let Some(path) = open {
            self.input.requests.push(Request::Open(path));
        }
        ui.horizontal(|ui| {
            if ui.button("< Previous [").clicked() {
                self.input.requests.push(Request::Neighbour(-1));
            }
            if ui.button("Next ] >").clicked() {
                self.input.requests.push(Request::Neighbour(1));
            }
        });
        ui.label(RichText::new(escape(&self.scene.info.name)).strong());
        if !self.scene.info.description.is_empty() {
            ui.label(&self.scene.info.description);
        }
        if let Some(path) = &self.scene.path {
            ui.label(
                RichText::new(format!("{} (reloaded when it changes)", escape(path)))
                    .small()
                    .weak(),
            );
        }
    }

    fn run_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            let label = if self.run.paused {
                "Run (P)"
            } else {
                "Pause (P)"
            };
            let r = ui.button(label);
            self.track(ui, "pause", &r);
            if r.clicked() {
                self.toggle_pause();
            }
            let r = ui.button("Step (O)");
            self.track(ui, "single_step", &r);
            if r.clicked() {
                self.request_step();
            }
            let r = ui.button("Restart (R)");
            self.track(ui, "restart", &r);
            if r.clicked() {
                self.input.requests.push(Request::Restart);
            }
            let r = ui.button("Bomb (Space)");
            self.track(ui, "bomb", &r);
            if r.clicked() {
                self.input.requests.push(Request::Bomb);
            }
        });

        // Step rate: the fixed dt is 1 / step_hz, the same in every world.
        let mut hz = self.settings().step_hz;
        let r = ui.add(
            egui::Slider::new(&mut hz, 15.0..=480.0)
                .logarithmic(true)
                .text("step rate (Hz)"),
        );
        self.track(ui, "step_hz", &r);
        if r.changed() {
            for i in 0..self.lab.live.sessions.len() {
                let settings = SolverSettings {
                    step_hz: hz,
                    ..*self.lab.live.sessions[i].world.settings()
                };
                if let Err(message) = self.set_world_settings(i, settings) {
                    self.add_notice(message);
                }
            }
        }

        let mut per_frame = matches!(self.run.stepping, Stepping::StepsPerFrame(_));
        ui.horizontal(|ui| {
            ui.radio_value(&mut per_frame, true, "steps per frame");
            ui.radio_value(&mut per_frame, false, "time scale");
        });
        match (&mut self.run.stepping, per_frame) {
            (Stepping::StepsPerFrame(n), true) => {
                ui.add(egui::Slider::new(n, 0..=MAX_STEPS_PER_FRAME).text("steps / frame"));
            }
            (Stepping::TimeScale(s), false) => {
                ui.add(
                    egui::Slider::new(s, TIME_SCALE_RANGE.0..=TIME_SCALE_RANGE.1)
                        .logarithmic(true)
                        .text("x real time"),
                );
            }
            (stepping, true) => *stepping = Stepping::StepsPerFrame(1),
            (stepping, false) => *stepping = Stepping::TimeScale(1.0),
        }
        let most = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(self.run.threads, MAX_THREADS)
            .max(2);
        let r = ui.add(egui::Slider::new(&mut self.run.threads, 1..=most).text("threads"));
        let r = r.on_hover_text(
            "threads each world steps on: the narrow phase and the soft step's colour-by-colour \
             solve are split across them; the results are identical for any count. A world \
             times its steps and runs them on one thread while one has been the faster (the \
             step time in the stats says so)",
        );
        self.track(ui, "threads", &r);
        let dt = self.world().settings().dt();
        ui.label(format!(
            "step {}   t = {:.2} s   dt = {:.2} ms   {} step(s) last frame",
            self.world().step_count(),
            self.world().time(),
            1000.0 * dt,
            self.run.frame_steps
        ));
        self.timeline_ui(ui);
        self.inside_step_ui(ui);
    }

    /// Iteration stepping inside the next step, and fork into compare.
    fn inside_step_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.label("inside the step:");
            let inspecting = self.inspection().is_some();
            for (name, label, step, enabled) in [
                (
                    "iteration_back",
                    "◀ iteration (U)",
                    InspectStep::PreviousIteration,
                    inspecting,
                ),
                (
                    "iteration_next",
                    "iteration ▶ (I)",
                    InspectStep::NextIteration,
                    true,
                ),
                (
                    "substep_next",
                    "sub-step ▶ (J)",
                    InspectStep::NextSubstep,
                    true,
                ),
                (
                    "finish_step",
                    "finish step (Enter)",
                    InspectStep::Finish,
                    inspecting,
                ),
            ] {
                let r = ui.add_enabled(enabled, egui::Button::new(label).small());
                self.track(ui, name, &r);
                if r.clicked() {
                    self.inspect(step);
                }
            }
        });
        if let Some(inspection) = self.inspection() {
            ui.label(
                RichText::new(inspection.status())
                    .small()
                    .color(Color32::from_rgb(140, 215, 255)),
            );
        }
        let n = self.lab.live.sessions.len();
        ui.horizontal_wrapped(|ui| {
            let mut preset = self.view.fork_preset.clone();
            egui::ComboBox::from_id_salt("fork_preset")
                .selected_text(preset.label().to_owned())
                .show_ui(ui, |ui| {
                    for p in Preset::menu() {
                        let label = p.label().to_owned();
                        ui.selectable_value(&mut preset, p, label);
                    }
                });
            self.view.fork_preset = preset;
            let r = ui
                .add_enabled(
                    self.run.paused && n < MAX_WORLDS,
                    egui::Button::new("fork into compare").small(),
                )
                .on_hover_text(
                    "paused: add a world with this preset that starts from the frame shown \
                     (exactly its state; the scene does not restart)",
                );
            self.track(ui, "fork", &r);
            if r.clicked() {
                self.input
                    .requests
                    .push(Request::Fork(self.view.fork_preset.clone()));
            }
        });
    }

    /// The rewind timeline: the recorded steps, scrubbed while paused (dragging it pauses).
    fn timeline_ui(&mut self, ui: &mut egui::Ui) {
        let (oldest, newest, shown) = self.timeline();
        let mut step = shown;
        ui.horizontal(|ui| {
            ui.label("timeline");
            let r = ui.add_enabled(
                newest > oldest,
                egui::Slider::new(&mut step, oldest..=newest.max(oldest + 1))
                    .clamping(egui::SliderClamping::Always)
                    .show_value(false),
            );
            let r = r.on_hover_text(format!(
                "the last {REWIND_SECONDS:.0} s are recorded: pause and drag to look back; run, \
                 step or act to resume from the step shown (the later steps are forgotten)"
            ));
            self.track(ui, "timeline", &r);
            if r.changed() && step != shown {
                self.scrub(step);
            }
            for (label, delta) in [("<", -1i64), (">", 1)] {
                let b = ui.add_enabled(newest > oldest, egui::Button::new(label).small());
                if b.clicked() {
                    self.scrub(shown.saturating_add_signed(delta));
                }
            }
        });
        let status = if shown == newest {
            format!("recorded steps {oldest}..{newest} (live)")
        } else {
            format!("showing step {shown} of {oldest}..{newest}: run or step to resume from here")
        };
        let text = RichText::new(status).small();
        ui.label(if shown == newest {
            text.weak()
        } else {
            text.color(NOTICE_COLOR)
        });
    }

    /// Compared worlds: the legend, which one the Solver section edits, adding from the
    /// presets or as a copy, removing.
    fn compare_ui(&mut self, ui: &mut egui::Ui) {
        ui.label(
            RichText::new(
                "Run the scene in up to four worlds with different solver settings, overlaid; \
                 inputs act on all. Adding or removing a world restarts the scene.",
            )
            .small(),
        );
        let n = self.lab.live.sessions.len();
        let mut remove = None;
        let mut focus = self.lab.focus;
        egui::Grid::new("compare_worlds")
            .num_columns(3)
            .show(ui, |ui| {
                for i in 0..n {
                    let color = color32(legend_color(i));
                    let label = format!("■ {} {}", i + 1, self.lab.live.sessions[i].label);
                    ui.radio_value(&mut focus, i, RichText::new(label).color(color))
                        .on_hover_text("edit this world's settings in the Solver section");
                    let s = self.lab.live.sessions[i].world.settings();
                    ui.label(
                        RichText::new(format!(
                            "{}, {} it, {} sub",
                            s.solver.label(),
                            s.iterations,
                            s.substeps
                        ))
                        .small(),
                    );
                    if ui
                        .add_enabled(n > 1, egui::Button::new("✖").small())
                        .clicked()
                    {
                        remove = Some(i);
                    }
                    ui.end_row();
                }
            });
        self.lab.focus = focus.min(n - 1);
        if let Some(i) = remove {
            self.input.requests.push(Request::RemoveWorld(i));
        }
        ui.add_enabled_ui(n < MAX_WORLDS, |ui| {
            ui.horizontal_wrapped(|ui| {
                ui.label("add:");
                for preset in Preset::menu() {
                    let r = ui.small_button(preset.label());
                    if r.clicked() {
                        self.input.requests.push(Request::AddWorld(preset));
                    }
                }
                let r = ui
                    .small_button("copy of the edited world")
                    .on_hover_text("the settings of the world selected above");
                self.track(ui, "add_copy", &r);
                if r.clicked() {
                    self.input.requests.push(Request::AddWorld(Preset::Copy));
                }
            });
        });
    }

    /// The pick's trace and the residual plot.
    fn plots_ui(&mut self, ui: &mut egui::Ui) {
        let quantities: &[Quantity] = match self.lab.probe.pick {
            Some(Pick::Joint(_)) => &Quantity::JOINT,
            _ => &Quantity::BODY,
        };
        if let Some(pick) = self.lab.probe.pick {
            let world = self.world();
            let name = match pick {
                Pick::Body(h) => world
                    .body(h)
                    .map(|b| format!("body {}", escape(b.name().unwrap_or("(unnamed)")))),
                Pick::Joint(h) => world.joint(h).map(|j| {
                    let name = escape(j.name().unwrap_or(""));
                    format!("{} joint {name}", j.kind().type_name())
                }),
            };
            let mut quantity = self.lab.probe.quantity;
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(name.unwrap_or_else(|| "(gone)".into())).strong());
                for &q in quantities {
                    ui.radio_value(&mut quantity, q, q.label());
                }
            });
            self.lab.probe.set_quantity(quantity);
            if let Pick::Joint(h) = pick {
                self.picked_joint_ui(ui, h);
            }
        }
        let labels = self.labels();
        self.lab
            .probe
            .ui(ui, self.shown(), &labels, self.lab.inspection.as_ref());
    }

    /// Apply new solver settings; a refusal becomes a notice.
    fn apply_settings(&mut self, settings: SolverSettings) {
        if let Err(message) = self.set_settings(settings) {
            self.add_notice(message);
        }
    }

    fn solver_ui(&mut self, ui: &mut egui::Ui) {
        if self.comparing() {
            let i = self.lab.focus;
            ui.label(
                RichText::new(format!(
                    "editing world {} {}",
                    i + 1,
                    self.lab.live.sessions[i].label
                ))
                .color(color32(legend_color(i)))
                .strong(),
            );
        }
        let before = *self.settings();
        let mut s = before;
        ui.horizontal(|ui| {
            ui.label("solver");
            ui.radio_value(&mut s.solver, SolverKind::Classic, "Classic")
                .on_hover_text("Box2D-Lite's sequential impulses with Baumgarte correction");
            ui.radio_value(&mut s.solver, SolverKind::SoftStep, "Soft step")
                .on_hover_text("Box2D v3's sub-stepped soft constraints with relax");
        });
        // Solver2D's other families (issue 13); each setting below shows only when it
        // applies to the selected solver (`SolverKind::uses`).
        egui::ComboBox::from_id_salt("solver_family")
            .selected_text(s.solver.label())
            .show_ui(ui, |ui| {
                for kind in SolverKind::ALL {
                    ui.selectable_value(&mut s.solver, kind, kind.label());
                }
            })
            .response
            .on_hover_text("every solver of Solver2D's comparison; see each solver file's header");
        let uses = |name: &str| s.solver.uses(name);
        let show = [
            "warm_starting",
            "accumulate_impulses",
            "position_correction",
            "block_solver",
            "iterations",
            "bias_factor",
            "allowed_penetration",
            "contact_hertz",
            "contact_damping_ratio",
            "contact_push_max_velocity",
            "joint_hertz",
            "joint_damping_ratio",
            "relax_iterations",
            "position_iterations",
            "jacobi_relaxation",
            "xpbd_compliance",
        ]
        .map(uses);
        let [show_warm, show_acc, show_pos, show_block, show_iterations, show_bias, show_slop, show_chz, show_cdr, show_push, show_jhz, show_jdr, show_relax, show_positions, show_jacobi, show_xpbd] =
            show;
        let checks: [(&'static str, &str, &mut bool, &str); 5] = [
            (
                "warm_starting",
                "warm starting",
                &mut s.warm_starting,
                "apply last step's impulses first",
            ),
            (
                "accumulate_impulses",
                "accumulate impulses",
                &mut s.accumulate_impulses,
                "clamp the accumulated impulse (off: clamp each increment, Box2D-Lite's jitter)",
            ),
            (
                "position_correction",
                "position correction",
                &mut s.position_correction,
                "Baumgarte bias pushing penetration back to the slop",
            ),
            (
                "block_solver",
                "block solver",
                &mut s.block_solver,
                "solve two-point manifolds together (2x2 LCP)",
            ),
            (
                "sleep",
                "sleep",
                &mut s.sleep,
                "let still bodies fall asleep",
            ),
        ];
        let shown = [show_warm, show_acc, show_pos, show_block, true];
        let mut tracked = Vec::new();
        ui.horizontal_wrapped(|ui| {
            for ((name, label, value, hint), shown) in checks.into_iter().zip(shown) {
                if shown {
                    let r = ui.checkbox(value, label).on_hover_text(hint);
                    tracked.push((name, r));
                }
            }
        });
        for (name, r) in &tracked {
            self.track(ui, name, r);
        }
        if show_iterations {
            let r = ui.add(egui::Slider::new(&mut s.iterations, 1..=100).text("iterations"));
            self.track(ui, "iterations", &r);
        }
        ui.add(egui::Slider::new(&mut s.substeps, 1..=16).text("sub-steps"));
        if show_relax {
            ui.add(egui::Slider::new(&mut s.relax_iterations, 0..=100).text("relax iterations"));
        }
        if show_positions {
            ui.add(
                egui::Slider::new(&mut s.position_iterations, 0..=100).text("position iterations"),
            );
        }
        if show_jacobi {
            ui.add(
                egui::Slider::new(&mut s.jacobi_relaxation, 0.05..=1.0).text("Jacobi relaxation"),
            );
        }
        if show_xpbd {
            ui.add(
                egui::Slider::new(&mut s.xpbd_compliance, 0.0..=1e-3)
                    .logarithmic(true)
                    .text("XPBD compliance (m/N)"),
            );
        }
        if show_bias {
            ui.add(egui::Slider::new(&mut s.bias_factor, 0.0..=1.0).text("bias factor"));
        }
        if show_slop {
            ui.add(
                egui::Slider::new(&mut s.allowed_penetration, 0.0..=0.1)
                    .text("allowed penetration (m)"),
            );
        }
        ui.add(
            egui::Slider::new(&mut s.restitution_threshold, 0.0..=10.0)
                .text("restitution threshold (m/s)"),
        );
        ui.horizontal(|ui| {
            ui.label("gravity (m/s²)");
            ui.add(
                egui::DragValue::new(&mut s.gravity.x)
                    .speed(0.1)
                    .range(-100.0..=100.0)
                    .prefix("x "),
            );
            ui.add(
                egui::DragValue::new(&mut s.gravity.y)
                    .speed(0.1)
                    .range(-100.0..=100.0)
                    .prefix("y "),
            );
        });
        ui.add(egui::Slider::new(&mut s.time_to_sleep, 0.0..=5.0).text("time to sleep (s)"));
        ui.add(
            egui::Slider::new(&mut s.linear_sleep_tolerance, 0.0..=1.0).text("sleep speed (m/s)"),
        );
        let mut degrees = s.angular_sleep_tolerance.to_degrees();
        ui.add(egui::Slider::new(&mut degrees, 0.0..=45.0).text("sleep spin (°/s)"));
        if (degrees - before.angular_sleep_tolerance.to_degrees()).abs() > 1e-4 {
            s.angular_sleep_tolerance = degrees.to_radians();
        }
        if show_chz || show_push || show_jhz {
            ui.label(RichText::new("Soft constraints").strong());
        }
        if show_chz {
            ui.add(
                egui::Slider::new(&mut s.contact_hertz, 1.0..=240.0).text("contact stiffness (Hz)"),
            );
        }
        if show_cdr {
            ui.add(
                egui::Slider::new(&mut s.contact_damping_ratio, 0.0..=20.0)
                    .text("contact damping ratio"),
            );
        }
        if show_push {
            ui.add(
                egui::Slider::new(&mut s.contact_push_max_velocity, 0.0..=10.0)
                    .text("max push-out (m/s)"),
            );
        }
        if show_jhz {
            ui.add(egui::Slider::new(&mut s.joint_hertz, 1.0..=240.0).text("joint stiffness (Hz)"));
        }
        if show_jdr {
            ui.add(
                egui::Slider::new(&mut s.joint_damping_ratio, 0.0..=20.0)
                    .text("joint damping ratio"),
            );
        }
        if s != before {
            self.apply_settings(s);
        }
        let differs = *self.settings() != self.reset_target();
        let label = if self.comparing() {
            "Reset to the world's preset"
        } else {
            "Reset to the scene's settings"
        };
        let r = ui.add_enabled(differs, egui::Button::new(label));
        self.track(ui, "reset_settings", &r);
        if r.clicked() {
            self.input.requests.push(Request::ResetSettings);
        }
    }

    fn draw_ui(&mut self, ui: &mut egui::Ui) {
        let mut f = self.view.draw_flags;
        let items: [(&'static str, &str, &mut bool); 11] = [
            ("draw_shapes", "shapes", &mut f.shapes),
            ("draw_joints", "joints", &mut f.joints),
            ("draw_joint_anchors", "joint anchors", &mut f.joint_anchors),
            (
                "draw_contact_points",
                "contact points",
                &mut f.contact_points,
            ),
            (
                "draw_contact_normals",
                "contact normals",
                &mut f.contact_normals,
            ),
            (
                "draw_normal_impulses",
                "normal impulses",
                &mut f.normal_impulses,
            ),
            (
                "draw_friction_impulses",
                "friction impulses",
                &mut f.friction_impulses,
            ),
            ("draw_aabbs", "AABBs", &mut f.aabbs),
            (
                "draw_centers_of_mass",
                "centres of mass",
                &mut f.centers_of_mass,
            ),
            ("draw_body_names", "body names", &mut f.body_names),
            ("draw_joint_forces", "joint forces", &mut f.joint_forces),
        ];
        let mut tracked = Vec::new();
        egui::Grid::new("draw_flags").num_columns(2).show(ui, |ui| {
            for (i, (name, label, value)) in items.into_iter().enumerate() {
                tracked.push((name, ui.checkbox(value, label)));
                if i % 2 == 1 {
                    ui.end_row();
                }
            }
        });
        for (name, r) in &tracked {
            self.track(ui, name, r);
        }
        self.view.draw_flags = f;
        self.solver_draw_ui(ui);
        ui.horizontal_wrapped(|ui| {
            ui.label("colours:");
            for (label, color) in [
                ("static", super::draw::STATIC_COLOR),
                ("kinematic", super::draw::KINEMATIC_COLOR),
                ("dynamic", super::draw::DYNAMIC_COLOR),
                ("asleep", super::draw::SLEEPING_COLOR),
            ] {
                let c = Color32::from_rgb(
                    (255.0 * color.r) as u8,
                    (255.0 * color.g) as u8,
                    (255.0 * color.b) as u8,
                );
                ui.label(RichText::new(label).color(c));
            }
        });
    }

    /// The solver view: colour contacts and joints by error or impulse change, and the
    /// solver's structure. The legend is drawn over the world.
    fn solver_draw_ui(&mut self, ui: &mut egui::Ui) {
        let mut color_by = self.view.solver_draw.color_by;
        ui.horizontal_wrapped(|ui| {
            ui.label("colour contacts and joints by:");
            for (name, label, value) in [
                ("color_by_off", "nothing", ColorBy::Off),
                ("color_by_error", "error", ColorBy::Error),
                ("color_by_impulse", "impulse change", ColorBy::ImpulseChange),
            ] {
                let r = ui.radio_value(&mut color_by, value, label);
                self.track(ui, name, &r);
            }
        });
        self.set_color_by(color_by);
        let mut f = self.view.solver_draw;
        let mut tracked = Vec::new();
        egui::Grid::new("solver_draw")
            .num_columns(2)
            .show(ui, |ui| {
                tracked.push((
                    "draw_graph_colors",
                    ui.checkbox(&mut f.graph_colors, "graph colours"),
                ));
                tracked.push(("draw_islands", ui.checkbox(&mut f.islands, "islands")));
                ui.end_row();
                tracked.push((
                    "draw_feature_ids",
                    ui.checkbox(&mut f.feature_ids, "feature ids"),
                ));
                tracked.push((
                    "draw_warm_started",
                    ui.checkbox(&mut f.warm_started, "warm-started / recycled"),
                ));
                ui.end_row();
            });
        for (name, r) in &tracked {
            self.track(ui, name, r);
        }
        f.color_by = self.view.solver_draw.color_by;
        self.view.solver_draw = f;
    }

    fn stats_ui(&mut self, ui: &mut egui::Ui, frame: &FrameInfo) {
        let shown = self.shown();
        let n = shown.sessions.len();
        egui::Grid::new("stats_grid")
            .num_columns(n + 1)
            .show(ui, |ui| {
                if n > 1 {
                    ui.label("");
                    for i in 0..n {
                        ui.label(
                            RichText::new(format!("{}", i + 1))
                                .color(color32(legend_color(i)))
                                .strong(),
                        );
                    }
                    ui.end_row();
                }
                let mut row = |name: &str, value: &dyn Fn(usize) -> String| {
                    ui.label(name);
                    for i in 0..n {
                        ui.label(value(i));
                    }
                    ui.end_row();
                };
                let world = |i: usize| &shown.sessions[i].world;
                row("bodies", &|i| {
                    format!(
                        "{} ({} awake)",
                        world(i).body_count(),
                        world(i).stats().awake_bodies
                    )
                });
                row("contacts", &|i| {
                    let s = world(i).stats();
                    format!("{} ({} pairs)", s.contacts, s.pairs)
                });
                row("manifold points", &|i| {
                    world(i).stats().manifold_points.to_string()
                });
                row("  reused manifolds", &|i| {
                    world(i).stats().manifolds_reused.to_string()
                });
                row("  proxies moved / new pairs", &|i| {
                    let s = world(i).stats();
                    format!("{} / {}", s.proxies_moved, s.pairs_created)
                });
                row("joints", &|i| world(i).joint_count().to_string());
                row("step", &|i| {
                    let (w, s) = (world(i), world(i).stats());
                    if s.threads_used == 1 && w.thread_count() > 1 {
                        // `threads.rs`: one thread has been the faster lately.
                        format!("{:.3} ms, on 1 of {} threads", s.total_ms, w.thread_count())
                    } else {
                        format!("{:.3} ms", s.total_ms)
                    }
                });
                row("  broad / narrow", &|i| {
                    let s = world(i).stats();
                    format!("{:.3} / {:.3} ms", s.broad_phase_ms, s.narrow_phase_ms)
                });
                row("  solve / integrate", &|i| {
                    let s = world(i).stats();
                    format!("{:.3} / {:.3} ms", s.solve_ms, s.integrate_ms)
                });
                row("kinetic energy", &|i| {
                    format!("{:.3} J", world(i).stats().kinetic_energy + 0.0)
                });
                row("max penetration", &|i| {
                    format!("{:.2} mm", 1000.0 * world(i).stats().max_penetration)
                });
                let frame_ms = if frame.fps > 0.0 {
                    1000.0 / frame.fps
                } else {
                    0.0
                };
                ui.label("frame rate");
                ui.label(format!("{:.0} fps ({frame_ms:.1} ms)", frame.fps));
                ui.end_row();
            });
        let labels = self.labels();
        self.lab.history.ui(ui, &labels);
    }
}
