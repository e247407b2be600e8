//! The probe: a body or a joint picked in the window (Ctrl+click) and one of its quantities
//! traced over the last `TRACE_SECONDS` of simulated time, one line per compared world; and
//! the solver's residual per iteration of the step shown.
//!
//! Handles are the same in every compared world (they are copies of one scene receiving the
//! same inputs), so one pick names the same body everywhere.

use std::collections::VecDeque;

use egui_macroquad::egui::{self, Color32, RichText};
use egui_plot::{HLine, Line, Plot, PlotPoints, VLine};

use super::compare::legend_color;
use super::solver_view::Inspection;
use crate::lab::Comparison;
use crate::physics::{BodyHandle, Color, JointHandle, JointKind, Vec2, World};

/// Simulated seconds of trace kept and shown.
pub const TRACE_SECONDS: f64 = 10.0;
/// A Ctrl+click this close to a joint's anchors or the line between them (screen pixels)
/// picks the joint rather than the body under the cursor.
pub const JOINT_PICK_PIXELS: f32 = 10.0;
/// Residuals below this are drawn at it on the log scale, N s.
pub const RESIDUAL_FLOOR: f32 = 1e-9;

/// What is picked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pick {
    Body(BodyHandle),
    Joint(JointHandle),
}

/// A quantity of the pick to trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// Centre of mass height, m.
    Height,
    /// Speed of the centre of mass, m/s.
    Speed,
    /// Body angle, degrees.
    Angle,
    /// Joint position error, m.
    LinearError,
    /// Joint angle error, degrees.
    AngularError,
    /// Joint reaction force on B, N (against its `break_force`).
    Force,
    /// Joint reaction torque on B, N m (against its `break_torque`).
    Torque,
}

impl Quantity {
    pub const BODY: [Quantity; 3] = [Quantity::Height, Quantity::Speed, Quantity::Angle];
    pub const JOINT: [Quantity; 4] = [
        Quantity::LinearError,
        Quantity::AngularError,
        Quantity::Force,
        Quantity::Torque,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Quantity::Height => "height (m)",
            Quantity::Speed => "speed (m/s)",
            Quantity::Angle => "angle (°)",
            Quantity::LinearError => "linear error (m)",
            Quantity::AngularError => "angular error (°)",
            Quantity::Force => "force (N)",
            Quantity::Torque => "torque (N m)",
        }
    }

    /// The quantity called `name` (`height`, `speed`, `angle`, `linear`, `angular`).
    pub fn parse(name: &str) -> Option<Quantity> {
        match name.trim().to_lowercase().as_str() {
            "height" | "y" => Some(Quantity::Height),
            "speed" => Some(Quantity::Speed),
            "angle" => Some(Quantity::Angle),
            "linear" | "linear_error" => Some(Quantity::LinearError),
            "angular" | "angular_error" => Some(Quantity::AngularError),
            "force" => Some(Quantity::Force),
            "torque" => Some(Quantity::Torque),
            _ => None,
        }
    }
}

/// The pick, its trace, and whether the residual plot is wanted.
#[derive(Clone, Debug)]
pub struct Probe {
    pub pick: Option<Pick>,
    pub quantity: Quantity,
    /// (step, simulated time, value per world; NaN where the pick is gone).
    samples: VecDeque<(u64, f64, Vec<f32>)>,
}

impl Default for Probe {
    fn default() -> Self {
        Probe {
            pick: None,
            quantity: Quantity::Height,
            samples: VecDeque::new(),
        }
    }
}

/// The value of `quantity` of `pick` in `world`, if it applies and still exists.
pub fn measure(world: &World, pick: Pick, quantity: Quantity) -> Option<f32> {
    match pick {
        Pick::Body(h) => {
            let b = world.body(h)?;
            match quantity {
                Quantity::Height => Some(b.center().y),
                Quantity::Speed => Some(b.linear_velocity().length()),
                Quantity::Angle => Some(b.angle().to_degrees()),
                _ => None,
            }
        }
        Pick::Joint(h) => {
            let j = world.joint(h)?;
            let (a, b) = (world.body(j.body_a())?, world.body(j.body_b())?);
            match quantity {
                Quantity::LinearError => Some(j.linear_error(a, b)),
                Quantity::AngularError => Some(j.angular_error(a, b).to_degrees()),
                Quantity::Force => Some(j.reaction_force(world.joint_inv_dt()).length()),
                Quantity::Torque => Some(j.reaction_torque(world.joint_inv_dt()).abs()),
                _ => None,
            }
        }
    }
}

/// The threshold a joint quantity is plotted against: `break_force` for the force,
/// `break_torque` for the torque.
pub fn threshold(world: &World, pick: Pick, quantity: Quantity) -> Option<f32> {
    let Pick::Joint(h) = pick else {
        return None;
    };
    let j = world.joint(h)?;
    match quantity {
        Quantity::Force => j.break_force(),
        Quantity::Torque => j.break_torque(),
        _ => None,
    }
}

/// The joint near `point` (within `radius` m of an anchor or of the line between them), else
/// the body under it. Mouse joints are not picked.
pub fn pick_at(world: &World, point: Vec2, radius: f32) -> Option<Pick> {
    let mut best: Option<(f32, JointHandle)> = None;
    for (h, j) in world.joints() {
        if matches!(j.kind(), JointKind::Mouse(_)) {
            continue;
        }
        let (Some(a), Some(b)) = (world.body(j.body_a()), world.body(j.body_b())) else {
            continue;
        };
        let (pa, pb) = (j.anchor_a(a), j.anchor_b(b));
        let d = distance_to_segment(point, pa, pb);
        if d <= radius && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, h));
        }
    }
    if let Some((_, h)) = best {
        return Some(Pick::Joint(h));
    }
    world.body_at_point(point).map(Pick::Body)
}

fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 {
        ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (a + t * ab)).length()
}

impl Probe {
    /// Pick something else (or nothing): the trace starts over, and the quantity follows
    /// the kind of pick.
    pub fn set_pick(&mut self, pick: Option<Pick>) {
        if pick == self.pick {
            return;
        }
        self.pick = pick;
        self.samples.clear();
        match pick {
            Some(Pick::Body(_)) if !Quantity::BODY.contains(&self.quantity) => {
                self.quantity = Quantity::Height
            }
            Some(Pick::Joint(_)) if !Quantity::JOINT.contains(&self.quantity) => {
                self.quantity = Quantity::LinearError
            }
            _ => {}
        }
    }

    pub fn set_quantity(&mut self, quantity: Quantity) {
        if quantity != self.quantity {
            self.quantity = quantity;
            self.samples.clear();
        }
    }

    pub fn clear(&mut self) {
        self.samples.clear();
    }

    /// Samples kept.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Record the live state after a step.
    pub fn sample(&mut self, state: &Comparison) {
        let Some(pick) = self.pick else {
            return;
        };
        let Some(first) = state.sessions.first() else {
            return;
        };
        let values = state
            .sessions
            .iter()
            .map(|s| measure(&s.world, pick, self.quantity).unwrap_or(f32::NAN))
            .collect();
        let t = first.world.time();
        self.samples
            .push_back((first.world.step_count(), t, values));
        while self
            .samples
            .front()
            .is_some_and(|(_, t0, _)| t - t0 > TRACE_SECONDS)
        {
            self.samples.pop_front();
        }
    }

    /// Forget the samples after `step` (the run resumed from it).
    pub fn truncate_after(&mut self, step: u64) {
        while self.samples.back().is_some_and(|(s, _, _)| *s > step) {
            self.samples.pop_back();
        }
    }

    /// (time, value) points of world `i`, NaN values left out.
    pub fn points(&self, i: usize) -> Vec<[f64; 2]> {
        self.samples
            .iter()
            .filter_map(|(_, t, v)| {
                let y = *v.get(i)?;
                y.is_finite().then_some([*t, y as f64])
            })
            .collect()
    }

    /// The trace plot (one line per world, a marker at the time shown) and the residual
    /// plot of the step shown. The values above each plot, in the worlds' colours, are its
    /// legend. While a step is inspected (`inspection`), the residual plot's iteration axis
    /// follows it: the whole step's residuals faint, the iterations run so far bright, and
    /// a marker at the current iteration.
    pub fn ui(
        &self,
        ui: &mut egui::Ui,
        shown: &Comparison,
        labels: &[String],
        inspection: Option<&Inspection>,
    ) {
        let n = shown.sessions.len();
        let now = shown.sessions.first().map_or(0.0, |s| s.world.time());
        match self.pick {
            None => {
                ui.label("Ctrl+click a body or a joint to plot it.");
            }
            Some(pick) => {
                let values: Vec<String> = shown
                    .sessions
                    .iter()
                    .map(|s| {
                        measure(&s.world, pick, self.quantity)
                            .map_or("-".to_owned(), |v| format!("{v:.3}"))
                    })
                    .collect();
                values_row(ui, self.quantity.label(), &values, n);
                let limit = shown
                    .sessions
                    .first()
                    .and_then(|s| threshold(&s.world, pick, self.quantity));
                if let Some(t) = limit {
                    ui.label(
                        RichText::new(format!("breaks above {t} (red line)"))
                            .color(Color32::from_rgb(255, 80, 80)),
                    );
                }
                let mut trace = Plot::new("probe_plot")
                    .height(PLOT_HEIGHT)
                    .allow_drag(false)
                    .allow_zoom(false)
                    .allow_scroll(false)
                    .allow_boxed_zoom(false)
                    .include_x(now - TRACE_SECONDS)
                    .include_x(now)
                    .x_axis_label("t (s)");
                if let Some(t) = limit {
                    trace = trace.include_y(0.0).include_y(1.1 * t as f64);
                }
                trace.show(ui, |plot| {
                    for i in 0..n {
                        let label = labels.get(i).cloned().unwrap_or_default();
                        plot.line(
                            Line::new(label, PlotPoints::from(self.points(i)))
                                .color(color32(legend_color(i)))
                                .width(1.5),
                        );
                    }
                    plot.vline(VLine::new("shown", now).color(Color32::GRAY));
                    if let Some(t) = limit {
                        plot.hline(
                            HLine::new("threshold", t as f64).color(Color32::from_rgb(255, 80, 80)),
                        );
                    }
                });
            }
        }
        // Residuals of the step shown, log scale (log10 plotted, labelled as powers of 10).
        let residuals: Vec<&[f32]> = shown
            .sessions
            .iter()
            .map(|s| s.world.iteration_residuals())
            .collect();
        let last: Vec<String> = residuals
            .iter()
            .map(|r| r.last().map_or("-".to_owned(), |v| format!("{v:.2e}")))
            .collect();
        values_row(ui, "residual per iteration (N s, log), last", &last, n);
        Plot::new("residual_plot")
            .height(PLOT_HEIGHT)
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .include_x(0.0)
            .include_x(inspection.map_or(0.0, |i| {
                i.totals.iter().map(|t| t.iteration).max().unwrap_or(0) as f64
            }))
            .x_axis_label("iteration")
            .y_axis_formatter(|mark, _| format!("1e{}", mark.value.round()))
            .show(ui, |plot| {
                let log_points = |r: &[f32]| -> Vec<[f64; 2]> {
                    r.iter()
                        .enumerate()
                        .map(|(k, &v)| {
                            let v = if v.is_finite() { v } else { 0.0 };
                            [(k + 1) as f64, (v.max(RESIDUAL_FLOOR) as f64).log10()]
                        })
                        .collect()
                };
                if let Some(inspection) = inspection {
                    for (i, r) in inspection.full_residuals.iter().enumerate() {
                        let faint = color32(legend_color(i)).gamma_multiply(0.35);
                        plot.line(
                            Line::new("whole step", PlotPoints::from(log_points(r)))
                                .color(faint)
                                .width(1.0),
                        );
                    }
                    if inspection.point.is_some() {
                        let k = inspection.current().iteration as f64;
                        plot.vline(VLine::new("iteration shown", k).color(Color32::WHITE));
                    }
                }
                for (i, r) in residuals.iter().enumerate() {
                    let points = log_points(r);
                    let label = labels.get(i).cloned().unwrap_or_default();
                    plot.line(
                        Line::new(label, PlotPoints::from(points))
                            .color(color32(legend_color(i)))
                            .width(1.5),
                    );
                }
            });
    }
}

/// Height of the probe's plots, points.
const PLOT_HEIGHT: f32 = 100.0;

/// `label: v1 / v2 / ...` with each world's value in its legend colour (plain for one world).
fn values_row(ui: &mut egui::Ui, label: &str, values: &[String], worlds: usize) {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 6.0;
        ui.label(format!("{label}:"));
        for (i, v) in values.iter().enumerate() {
            let text = RichText::new(v);
            ui.label(if worlds > 1 {
                text.color(color32(legend_color(i)))
            } else {
                text
            });
        }
    });
}

/// The core's colour as egui's.
pub fn color32(c: Color) -> Color32 {
    let u = |x: f32| (255.0 * x.clamp(0.0, 1.0)).round() as u8;
    Color32::from_rgba_unmultiplied(u(c.r), u(c.g), u(c.b), u(c.a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::Session;
    use crate::physics::{
        joint::RevoluteJointDef, BodyDef, Geometry, JointDef, Polygon, ShapeDef, SolverSettings,
    };

    fn pendulum() -> (World, BodyHandle, JointHandle) {
        let mut world = World::new(SolverSettings::default());
        let ground = world.create_body(&BodyDef::fixed(Vec2::ZERO)).unwrap();
        let bob = world
            .create_body(&BodyDef::dynamic(Vec2::new(2.0, 0.0)))
            .unwrap();
        let square = Geometry::Polygon(Polygon::new_box(0.25, 0.25).unwrap());
        world.create_shape(bob, &ShapeDef::new(square)).unwrap();
        let def = RevoluteJointDef {
            anchor: Vec2::ZERO,
            ..Default::default()
        };
        let joint = world
            .create_joint(&JointDef::new(ground, bob, def))
            .unwrap();
        (world, bob, joint)
    }

    #[test]
    fn picks_prefer_a_nearby_joint_and_trace_every_world() {
        let (world, bob, joint) = pendulum();
        assert_eq!(
            pick_at(&world, Vec2::new(2.1, 0.1), 0.05),
            Some(Pick::Body(bob))
        );
        assert_eq!(
            pick_at(&world, Vec2::new(0.02, 0.0), 0.05),
            Some(Pick::Joint(joint))
        );
        assert_eq!(pick_at(&world, Vec2::new(5.0, 5.0), 0.05), None);

        let mut state = Comparison {
            sessions: vec![
                Session::new("a", world.clone()),
                Session::new("b", world.clone()),
            ],
        };
        let mut probe = Probe::default();
        probe.set_pick(Some(Pick::Body(bob)));
        for _ in 0..30 {
            state.step();
            probe.sample(&state);
        }
        assert_eq!(probe.len(), 30);
        let p = probe.points(1);
        assert!(p[29][1] < p[0][1], "the bob swings down: {p:?}");
        probe.truncate_after(10);
        assert_eq!(probe.len(), 10);
        probe.set_pick(Some(Pick::Joint(joint)));
        assert_eq!(probe.quantity, Quantity::LinearError);
        assert!(probe.is_empty());
        let err = measure(
            &state.sessions[0].world,
            Pick::Joint(joint),
            Quantity::LinearError,
        );
        assert!(err.is_some_and(|e| e.is_finite() && e < 0.05), "{err:?}");
    }
}
