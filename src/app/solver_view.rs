//! The solver at work, inside a step: iteration stepping ([`Inspection`]), the error
//! colouring of contacts and joints with its legend, and the drawing of the solver's
//! structure (graph colours, islands, feature ids, warm-started and recycled contacts).
//!
//! Iteration stepping keeps the frame the step starts from (the frame shown: live or
//! rewound) and re-runs the step from a copy of it with `World::step_until` to the chosen
//! halt point: stepping is deterministic, so each view is exactly the state after that many
//! iterations (or at the start of that sub-step). Stepping past the last iteration, or
//! "finish step", runs the step whole the ordinary way (recorded, so the timeline goes on).
//! Nothing here asks which solver runs: the points are counted by the solver's stages.
//!
//! The core reports the values (`physics::inspect`); the colours come from `draw.rs`.

use super::draw::{
    error_ramp, graph_color, island_color, COLD_STARTED_COLOR, FEATURE_ID_COLOR, OVERFLOW_COLOR,
    RECYCLED_COLOR, WARM_STARTED_COLOR,
};
use crate::lab::Comparison;
use crate::physics::world::draw_geometry;
use crate::physics::{Color, DebugDraw, HaltPoint, StepProgress, World};

/// What contacts and joints are coloured by (`Off`, `Error` or `ImpulseChange` in the
/// preferences file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ColorBy {
    #[default]
    Off,
    /// Penetration beyond the slop (contacts), position gap (joints), metres.
    Error,
    /// How much the last solver iteration changed the accumulated impulse, N s.
    ImpulseChange,
}

/// The solver view's toggles (Draw section).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolverDrawFlags {
    pub color_by: ColorBy,
    /// Contacts and joints in their constraint-graph colour (soft step).
    pub graph_colors: bool,
    /// Bodies in their island's colour, dark when the island sleeps.
    pub islands: bool,
    /// Each contact point's feature id, in hex.
    pub feature_ids: bool,
    /// Rings on warm-started (green) and cold (magenta) contact points; a blue tick along the
    /// normal of recycled manifolds.
    pub warm_started: bool,
}

/// The legend's range: values at or below `LO` take the ramp's start, at or above `HI` its
/// end, logarithmic between.
pub const ERROR_RANGE_M: (f32, f32) = (1e-4, 1e-1);
pub const IMPULSE_RANGE_NS: (f32, f32) = (1e-3, 10.0);

/// Position of `value` on a logarithmic legend `range`, 0..1.
pub fn ramp_position(value: f32, range: (f32, f32)) -> f32 {
    if value.is_nan() || value <= range.0 {
        return 0.0;
    }
    let (lo, hi) = (range.0.log10(), range.1.log10());
    ((value.log10() - lo) / (hi - lo)).clamp(0.0, 1.0)
}

/// One press of the iteration controls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InspectStep {
    NextIteration,
    PreviousIteration,
    NextSubstep,
    Finish,
}

/// The step under inspection: the frame it starts from and the view at the halt point.
#[derive(Clone)]
pub struct Inspection {
    /// The worlds before the step (the frame shown when inspection began).
    start: Comparison,
    /// The worlds stopped at `point` (the start frame until the first press).
    pub view: Comparison,
    /// The halt point shown (`None`: the start frame).
    pub point: Option<HaltPoint>,
    /// Where each world stopped.
    pub progress: Vec<StepProgress>,
    /// A whole step of each world: its sub-steps and iterations.
    pub totals: Vec<StepProgress>,
    /// Each world's residual per iteration over the whole step.
    pub full_residuals: Vec<Vec<f32>>,
}

impl Inspection {
    /// Inspect the step that follows `frame`; `track_impulses`: record impulse changes.
    pub fn new(frame: &Comparison, track_impulses: bool) -> Inspection {
        let mut start = frame.clone();
        for s in &mut start.sessions {
            s.world.set_record_residuals(true);
            s.world.set_track_impulse_changes(track_impulses);
        }
        let mut totals = Vec::new();
        let mut full_residuals = Vec::new();
        for s in &start.sessions {
            let mut w = s.world.clone();
            let dt = w.settings().dt();
            w.step(dt);
            totals.push(w.step_progress());
            full_residuals.push(w.iteration_residuals().to_vec());
        }
        Inspection {
            view: start.clone(),
            start,
            point: None,
            progress: vec![StepProgress::default(); frame.sessions.len()],
            totals,
            full_residuals,
        }
    }

    /// Record impulse changes or not, and show the same point again.
    pub fn set_track_impulses(&mut self, on: bool) {
        for s in &mut self.start.sessions {
            s.world.set_track_impulse_changes(on);
        }
        if let Some(point) = self.point {
            self.goto(point);
        }
    }

    /// Show every world stopped at `point`. False (and nothing changes) when every world
    /// ran its whole step: the point lies past the step's end.
    pub fn goto(&mut self, point: HaltPoint) -> bool {
        let mut view = self.start.clone();
        let progress: Vec<StepProgress> = view
            .sessions
            .iter_mut()
            .map(|s| {
                let dt = s.world.settings().dt();
                s.world.step_until(dt, point)
            })
            .collect();
        if progress.iter().all(|p| !p.halted) {
            return false;
        }
        self.view = view;
        self.progress = progress;
        self.point = Some(point);
        true
    }

    /// The progress of the first world still halted (the one the counters follow).
    pub fn current(&self) -> StepProgress {
        self.progress
            .iter()
            .copied()
            .find(|p| p.halted)
            .unwrap_or_default()
    }

    /// Apply one press. False when the step is to be finished (the press went past its end,
    /// or asked to finish).
    pub fn press(&mut self, step: InspectStep) -> bool {
        let now = self.current();
        match step {
            InspectStep::NextIteration => {
                let next = if self.point.is_none() {
                    1
                } else {
                    now.iteration + 1
                };
                self.goto(HaltPoint::Iteration(next))
            }
            InspectStep::PreviousIteration => {
                if self.point.is_some() {
                    self.goto(HaltPoint::Iteration(now.iteration.saturating_sub(1)));
                }
                true
            }
            InspectStep::NextSubstep => self.goto(HaltPoint::Substep(now.substep.max(1) + 1)),
            InspectStep::Finish => false,
        }
    }

    /// The line the window shows while inspecting.
    pub fn status(&self) -> String {
        let total = self.totals.first().copied().unwrap_or_default();
        match self.point {
            None => format!(
                "inspecting the next step ({} sub-step(s), {} iterations): I next iteration",
                total.substep, total.iteration
            ),
            Some(_) => {
                let p = self.current();
                format!(
                    "inside the step: sub-step {} of {}, iteration {} of {} ({} in this \
                     sub-step); I next, U back, J next sub-step, Enter finish",
                    p.substep, total.substep, p.iteration, total.iteration, p.substep_iteration
                )
            }
        }
    }
}

/// Draw the solver view of `world` over it (after the bodies and the core's debug draw).
pub fn draw_solver(world: &World, flags: &SolverDrawFlags, d: &mut dyn DebugDraw) {
    if flags.islands {
        let islands = world.body_islands();
        for island in &islands {
            let Some(body) = world.body(island.body) else {
                continue;
            };
            let color = island_color(island.island, island.awake);
            for &s in body.shapes() {
                if let Some(shape) = world.shape(s) {
                    draw_geometry(d, shape.geometry(), &body.transform(), color);
                }
            }
        }
    }
    let contacts = flags.color_by != ColorBy::Off
        || flags.graph_colors
        || flags.feature_ids
        || flags.warm_started;
    if contacts {
        for p in world.contact_point_reports() {
            if flags.warm_started {
                let ring = if p.warm_started {
                    WARM_STARTED_COLOR
                } else {
                    COLD_STARTED_COLOR
                };
                d.draw_point(p.point, 13.0, ring.into());
                d.draw_point(p.point, 9.0, Color::rgb(0.1, 0.1, 0.12).into());
                if p.recycled {
                    d.draw_segment(p.point, p.point - 0.2 * p.normal, RECYCLED_COLOR.into());
                }
            }
            if flags.graph_colors {
                let c = p.color.map_or(OVERFLOW_COLOR.scaled(0.5), graph_color);
                d.draw_point(p.point, 9.0, c.into());
            }
            if let Some(c) = value_color(flags.color_by, p.error, p.impulse_change) {
                d.draw_point(p.point, 6.0, c.into());
            }
            if flags.feature_ids {
                d.draw_string(p.point, &format!("{:x}", p.id), FEATURE_ID_COLOR.into());
            }
        }
    }
    if flags.color_by != ColorBy::Off || flags.graph_colors {
        for j in world.joint_reports() {
            if flags.graph_colors {
                let c = j.color.map_or(OVERFLOW_COLOR.scaled(0.5), graph_color);
                d.draw_point(j.anchor_a, 10.0, c.into());
                d.draw_point(j.anchor_b, 10.0, c.into());
            }
            if let Some(c) = value_color(flags.color_by, j.error, j.impulse_change) {
                d.draw_segment(j.anchor_a, j.anchor_b, c.into());
                d.draw_point(j.anchor_a, 6.0, c.into());
                d.draw_point(j.anchor_b, 6.0, c.into());
            }
        }
    }
}

/// The ramp colour of an error (m) or an impulse change (N s), by `color_by`; `None` when
/// not colouring (or the change was not recorded for this step).
fn value_color(color_by: ColorBy, error: f32, impulse_change: Option<f32>) -> Option<Color> {
    match color_by {
        ColorBy::Off => None,
        ColorBy::Error => Some(error_ramp(ramp_position(error, ERROR_RANGE_M))),
        ColorBy::ImpulseChange => {
            impulse_change.map(|v| error_ramp(ramp_position(v, IMPULSE_RANGE_NS)))
        }
    }
}

/// The legend lines the window shows over the world: (text, colour, with a swatch).
pub fn legend_lines(flags: &SolverDrawFlags) -> Vec<(String, Color, bool)> {
    let mut lines = Vec::new();
    let text = Color::rgb(0.85, 0.85, 0.85);
    // Swatches at the range's start and each decade up to its end.
    let ramp = |lines: &mut Vec<(String, Color, bool)>, range: (f32, f32), labels: [&str; 4]| {
        let values = [range.0, range.0 * 10.0, range.0 * 100.0, range.1];
        for (v, label) in values.iter().zip(labels) {
            lines.push((
                label.to_string(),
                error_ramp(ramp_position(*v, range)),
                true,
            ));
        }
    };
    match flags.color_by {
        ColorBy::Off => {}
        ColorBy::Error => {
            lines.push((
                "error: contact penetration beyond the slop, joint gap".to_string(),
                text,
                false,
            ));
            ramp(
                &mut lines,
                ERROR_RANGE_M,
                ["0.1 mm or less", "1 mm", "1 cm", "10 cm or more"],
            );
        }
        ColorBy::ImpulseChange => {
            lines.push((
                "impulse change in the last iteration (N s)".to_string(),
                text,
                false,
            ));
            ramp(
                &mut lines,
                IMPULSE_RANGE_NS,
                ["0.001 or less", "0.01", "0.1", "10 or more"],
            );
        }
    }
    if flags.graph_colors {
        lines.push((
            "graph colour: constraints of one colour share no moving body".to_string(),
            graph_color(crate::physics::GraphColor::Color(0)),
            true,
        ));
        lines.push((
            "solved one at a time (overflow, not batched); grey: not coloured".to_string(),
            OVERFLOW_COLOR,
            true,
        ));
    }
    if flags.warm_started {
        lines.push((
            "warm-started contact point".to_string(),
            WARM_STARTED_COLOR,
            true,
        ));
        lines.push((
            "cold (new) contact point".to_string(),
            COLD_STARTED_COLOR,
            true,
        ));
        lines.push(("manifold recycled (tick)".to_string(), RECYCLED_COLOR, true));
    }
    if flags.islands {
        lines.push((
            "bodies in their island's colour, dark when asleep".to_string(),
            island_color(1, true),
            true,
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::{fixtures, Session};

    fn pile() -> Comparison {
        let mut world = fixtures::pile(12, 4);
        for _ in 0..40 {
            world.step(1.0 / 60.0);
        }
        Comparison {
            sessions: vec![Session::new("pile", world)],
        }
    }

    #[test]
    fn ramp_positions_are_logarithmic_and_clamped() {
        assert_eq!(ramp_position(0.0, ERROR_RANGE_M), 0.0);
        assert_eq!(ramp_position(f32::NAN, ERROR_RANGE_M), 0.0);
        assert_eq!(ramp_position(1.0, ERROR_RANGE_M), 1.0);
        assert!((ramp_position(1e-2, ERROR_RANGE_M) - 2.0 / 3.0).abs() < 1e-5);
        let (g, r) = (error_ramp(0.0), error_ramp(1.0));
        assert!(g.g > g.r && r.r > r.g, "green to red: {g:?} {r:?}");
    }

    #[test]
    fn pressing_through_a_step_ends_in_the_plain_step() {
        let frame = pile();
        let mut plain = frame.clone();
        plain.step();
        let mut ins = Inspection::new(&frame, true);
        let total = ins.totals[0].iteration;
        assert!(total > 0);
        let mut presses = 0;
        while ins.press(InspectStep::NextIteration) {
            presses += 1;
            assert_eq!(ins.current().iteration, presses);
            assert_eq!(
                ins.view.sessions[0].world.iteration_residuals().len(),
                presses as usize
            );
            assert!(presses <= total);
        }
        assert_eq!(
            presses, total,
            "every iteration is a point, then the step ends"
        );
        ins.press(InspectStep::PreviousIteration);
        assert_eq!(ins.current().iteration, total - 1);
        // Finishing is the ordinary step: the start frame stepped whole.
        let mut finished = ins.start.clone();
        finished.step();
        assert_eq!(
            finished.sessions[0].world.state_hash(),
            plain.sessions[0].world.state_hash()
        );
        assert!(!ins.press(InspectStep::Finish));
    }

    #[test]
    fn an_empty_world_inspects_and_draws_nothing_without_panicking() {
        let frame = Comparison {
            sessions: vec![Session::new("empty", World::default())],
        };
        let mut ins = Inspection::new(&frame, true);
        assert!(ins.press(InspectStep::NextIteration));
        assert!(ins.press(InspectStep::NextSubstep) || ins.point.is_some());
        assert!(!ins.status().is_empty());
    }
}
