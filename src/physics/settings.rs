//! Every solver setting and every engine tolerance, each with its unit, default and what
//! changing it risks. `SolverSettings` can be changed between any two steps; the change takes
//! effect on the next step.

use super::error::{check_finite, check_finite_vec, check_non_negative, check_positive};
use super::error::{PhysicsError, PhysicsResult};
use super::math::Vec2;

/// Collision and constraint tolerance, metres (0.005). Shapes closer than this are treated
/// as touching in hull welding and clipping. Larger: visible gaps; smaller: jitter.
pub const LINEAR_SLOP: f32 = 0.005;

/// Largest distance, metres, by which a moving shape's broad-phase box is enlarged so that
/// small moves do not re-insert its proxy (0.1). Larger: more candidate pairs; smaller: more
/// tree updates.
pub const AABB_MARGIN: f32 = 0.1;

/// A moving shape's broad-phase margin as a fraction of its half-diagonal, capped at
/// `AABB_MARGIN` (0.125: 2.2 cm for a 25 cm box, the cap for boxes of 1.13 m and more).
/// Larger: a dense pile of small shapes pairs each with many more neighbours (a 0.1 m
/// margin on the tumbler's 25 cm boxes made 2.5x the pairs); smaller: more tree updates.
pub const AABB_MARGIN_FRACTION: f32 = 0.125;

/// Steps of motion, at the current velocity, that a moving shape's new broad-phase box
/// covers when it is re-inserted (2). A shape moving steadily then stays inside its box for
/// several steps instead of being re-inserted every step once its speed exceeds
/// `AABB_MARGIN` per step. Larger: longer boxes, more candidate pairs for fast shapes;
/// smaller: more tree updates.
pub const FAT_BOX_PREDICTION_STEPS: f32 = 2.0;

/// How far, metres, two bodies in contact may move relative to each other (translation plus
/// turn times extent) before the soft step recomputes their manifold instead of reusing it
/// (Box2D v3's contact recycling distance, 10 * LINEAR_SLOP). Larger: less narrow-phase
/// work, new contact features found later; 0 would disable recycling.
pub const CONTACT_RECYCLE_DISTANCE: f32 = 10.0 * LINEAR_SLOP;

/// Cosine of the largest turn of either body (0.98: about 11.5 degrees) with which a
/// manifold, whose normal is in world space, is still reused.
pub const CONTACT_RECYCLE_COS_ANGLE: f32 = 0.98;

/// Base speculative distance, metres (4 * LINEAR_SLOP): contact points are kept while the
/// shapes are this close even if not touching, plus the distance the pair can close in one
/// step. Smaller: fast bodies may tunnel; larger: more (harmless) contact points.
pub const SPECULATIVE_DISTANCE: f32 = 4.0 * LINEAR_SLOP;

/// Cap on the extra speculative distance from velocity, metres (about 10 body sizes at the
/// engine's scale). Bounds the work for absurd speeds.
pub const MAX_SPECULATIVE_DISTANCE: f32 = 8.0;

/// Largest speed, m/s, a body may reach (4 m per step at 60 Hz is 240 m/s, Box2D's limit
/// expressed per second at 60 Hz, with a little room). Guards against blow-ups turning into NaN.
pub const MAX_TRANSLATION_SPEED: f32 = 400.0;

/// Largest angular speed, rad/s (0.25 pi per step at 60 Hz).
pub const MAX_ROTATION_SPEED: f32 = 0.25 * std::f32::consts::PI * 60.0;

/// Position iterations of the classic solver's joint correction pass (non-linear
/// Gauss-Seidel, Box2D v2's `positionIterations`). More: joints closer to exact at a cost per
/// step; fewer: visible drift on long chains.
pub const JOINT_POSITION_ITERATIONS: u32 = 3;

/// Fraction of a rigid joint's position error removed by one position iteration (1: all of
/// it, as Box2D v2's joints do; contacts use `bias_factor` instead). Lower: softer, slower
/// recovery; above 1 overshoots.
pub const JOINT_POSITION_FRACTION: f32 = 1.0;

/// Largest move of a body by one joint in one position iteration, metres (Box2D v2's
/// `b2_maxLinearCorrection`). Keeps a large error (a joint torn apart by a drag) from
/// teleporting bodies.
pub const MAX_LINEAR_CORRECTION: f32 = 0.2;

/// Largest turn of a body by one joint in one position iteration, radians (8 degrees).
pub const MAX_ANGULAR_CORRECTION: f32 = 8.0 * std::f32::consts::PI / 180.0;

/// Which velocity solver runs the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SolverKind {
    /// Box2D-Lite's sequential impulses with Baumgarte position correction.
    #[default]
    Classic,
    /// Box2D v3's soft step: sub-steps, soft constraints and a relax pass.
    SoftStep,
}

/// Solver settings. Every field is public and documented with unit and default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverSettings {
    /// Which solver runs. Default `Classic`.
    pub solver: SolverKind,
    /// Velocity iterations per (sub-)step. Default 10. Fewer: soft, sinking stacks; more:
    /// slower steps.
    pub iterations: u32,
    /// The step is split into this many equal sub-steps. Default 1 (classic). Each classic
    /// sub-step is a full step (collide, solve, integrate) at dt / substeps.
    pub substeps: u32,
    /// On: clamp the accumulated impulse and apply the change (correct Coulomb and
    /// non-penetration in aggregate). Off: clamp each increment alone, as Box2D-Lite's
    /// `accumulateImpulses = false` does: stacks jitter and sink. Default on.
    pub accumulate_impulses: bool,
    /// Apply last step's impulses before iterating. Default on. Off: stacks need many more
    /// iterations to stand. Contacts are warm started only while `accumulate_impulses` is on
    /// (as in Box2D-Lite: without accumulation there is no impulse to carry over).
    pub warm_starting: bool,
    /// Baumgarte position correction: a velocity bias pushing penetration back to the slop.
    /// Default on. Off: penetration from round-off and gravity is never removed.
    pub position_correction: bool,
    /// Fraction of the penetration (beyond the slop) removed per step, 0..1. Default 0.2.
    /// Larger: faster recovery but bounce and jitter.
    pub bias_factor: f32,
    /// Penetration, metres, left alone by position correction (the slop). Default 0.01.
    /// Smaller: jitter; larger: visible overlap.
    pub allowed_penetration: f32,
    /// Solve the two points of a manifold together as a 2x2 mixed LCP (Box2D v2's block
    /// solver). Default on. Falls back to one point at a time when the 2x2 system is
    /// ill-conditioned. Risk: the exact 2x2 answer is not always the one that spreads load
    /// fastest. Points under both corners of a box (a stack) have `k12 < 0`, and one pass
    /// point by point pushes 12% less than the exact solution: the block solver stands
    /// stacks better. Points under a corner and the centre (a pyramid: `K = [3.5 2; 2 3.5]/kg`
    /// for 1 m boxes of 1 kg) have `k12 > 0`, and the pass pushes 12% more: with the block
    /// solver a cold-started pyramid of 38 rows or more at 10 iterations (slop 5 mm) sags
    /// deeper, is thrown up by the Baumgarte bias and bounces for some 20 s.
    pub block_solver: bool,
    /// Relative normal speed, m/s, below which restitution is ignored (so resting contact
    /// does not bounce). Default 1.
    pub restitution_threshold: f32,
    /// m/s^2. Default (0, -10), Box2D's.
    pub gravity: Vec2,
    /// Steps per second the world is meant to run at (the testbed's fixed dt is 1 / hz).
    /// Default 60.
    pub step_hz: f32,
    /// Let still bodies fall asleep. Default on.
    pub sleep: bool,
    /// Seconds a body must stay below the sleep speeds before its island sleeps. Default 0.5.
    pub time_to_sleep: f32,
    /// Speed, m/s, below which a body counts as still. Default 0.05.
    pub linear_sleep_tolerance: f32,
    /// Angular speed, rad/s, below which a body counts as still. Default 2 degrees/s.
    pub angular_sleep_tolerance: f32,
    /// Soft step: contact stiffness, Hz (capped at a quarter of the sub-step rate). Default 30.
    pub contact_hertz: f32,
    /// Soft step: contact damping ratio. Default 10.
    pub contact_damping_ratio: f32,
    /// Soft step: fastest push-out of overlap, m/s. Default 3.
    pub contact_push_max_velocity: f32,
    /// Soft step: joint stiffness, Hz. Default 60.
    pub joint_hertz: f32,
    /// Soft step: joint damping ratio. Default 2 (Box2D v3's benchmark), 5 for its samples.
    pub joint_damping_ratio: f32,
}

impl Default for SolverSettings {
    fn default() -> Self {
        SolverSettings {
            solver: SolverKind::Classic,
            iterations: 10,
            substeps: 1,
            accumulate_impulses: true,
            warm_starting: true,
            position_correction: true,
            bias_factor: 0.2,
            allowed_penetration: 0.01,
            block_solver: true,
            restitution_threshold: 1.0,
            gravity: Vec2::new(0.0, -10.0),
            step_hz: 60.0,
            sleep: true,
            time_to_sleep: 0.5,
            linear_sleep_tolerance: 0.05,
            angular_sleep_tolerance: 2.0_f32.to_radians(),
            contact_hertz: 30.0,
            contact_damping_ratio: 10.0,
            contact_push_max_velocity: 3.0,
            joint_hertz: 60.0,
            joint_damping_ratio: 2.0,
        }
    }
}

impl SolverSettings {
    /// The fixed time step, seconds.
    pub fn dt(&self) -> f32 {
        1.0 / self.step_hz
    }

    /// Check every number is in its valid range.
    pub fn validate(&self) -> PhysicsResult<()> {
        if self.iterations == 0 || self.iterations > 1000 {
            return Err(PhysicsError::new(
                "iterations",
                format!("must be 1 to 1000, got {}", self.iterations),
            ));
        }
        if self.substeps == 0 || self.substeps > 64 {
            return Err(PhysicsError::new(
                "substeps",
                format!("must be 1 to 64, got {}", self.substeps),
            ));
        }
        check_finite("bias_factor", self.bias_factor)?;
        if !(0.0..=1.0).contains(&self.bias_factor) {
            return Err(PhysicsError::new(
                "bias_factor",
                format!("must be between 0 and 1, got {}", self.bias_factor),
            ));
        }
        check_non_negative("allowed_penetration", self.allowed_penetration)?;
        check_non_negative("restitution_threshold", self.restitution_threshold)?;
        check_finite_vec("gravity", self.gravity)?;
        check_positive("step_hz", self.step_hz)?;
        if self.step_hz > 10_000.0 {
            return Err(PhysicsError::new(
                "step_hz",
                format!("must be at most 10000, got {}", self.step_hz),
            ));
        }
        check_non_negative("time_to_sleep", self.time_to_sleep)?;
        check_non_negative("linear_sleep_tolerance", self.linear_sleep_tolerance)?;
        check_non_negative("angular_sleep_tolerance", self.angular_sleep_tolerance)?;
        check_positive("contact_hertz", self.contact_hertz)?;
        check_non_negative("contact_damping_ratio", self.contact_damping_ratio)?;
        check_non_negative("contact_push_max_velocity", self.contact_push_max_velocity)?;
        check_positive("joint_hertz", self.joint_hertz)?;
        check_non_negative("joint_damping_ratio", self.joint_damping_ratio)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The doc comment lines above the line of `settings.rs` that starts with `item`.
    fn doc_of(item: &str) -> String {
        let source = include_str!("settings.rs");
        let lines: Vec<&str> = source.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with(item))
            .unwrap_or_else(|| panic!("`{item}` not found in settings.rs"));
        let mut doc = Vec::new();
        for line in lines[..at].iter().rev() {
            match line.trim_start().strip_prefix("///") {
                Some(text) => doc.push(text.trim()),
                None => break,
            }
        }
        doc.reverse();
        doc.join(" ")
    }

    /// The number a doc states for a value: the first `(x)` or `(x: ...` with a plain
    /// number `x`.
    fn documented_number(doc: &str) -> Option<f32> {
        doc.split('(').skip(1).find_map(|rest| {
            let end = rest.find([')', ':'])?;
            rest[..end].trim().parse().ok()
        })
    }

    /// Every constant whose doc states its value in parentheses says the value it has
    /// (issue 12: two of them documented 0.25 and 4 for 0.125 and 2).
    #[test]
    fn documented_constants_match_their_values() {
        let constants = [
            ("LINEAR_SLOP", LINEAR_SLOP),
            ("AABB_MARGIN", AABB_MARGIN),
            ("AABB_MARGIN_FRACTION", AABB_MARGIN_FRACTION),
            ("FAT_BOX_PREDICTION_STEPS", FAT_BOX_PREDICTION_STEPS),
            ("CONTACT_RECYCLE_DISTANCE", CONTACT_RECYCLE_DISTANCE),
            ("CONTACT_RECYCLE_COS_ANGLE", CONTACT_RECYCLE_COS_ANGLE),
            ("SPECULATIVE_DISTANCE", SPECULATIVE_DISTANCE),
            ("MAX_SPECULATIVE_DISTANCE", MAX_SPECULATIVE_DISTANCE),
            ("MAX_TRANSLATION_SPEED", MAX_TRANSLATION_SPEED),
            ("MAX_ROTATION_SPEED", MAX_ROTATION_SPEED),
            (
                "JOINT_POSITION_ITERATIONS",
                JOINT_POSITION_ITERATIONS as f32,
            ),
            ("JOINT_POSITION_FRACTION", JOINT_POSITION_FRACTION),
            ("MAX_LINEAR_CORRECTION", MAX_LINEAR_CORRECTION),
            ("MAX_ANGULAR_CORRECTION", MAX_ANGULAR_CORRECTION),
        ];
        let mut checked = 0;
        for (name, value) in constants {
            let doc = doc_of(&format!("pub const {name}:"));
            if let Some(documented) = documented_number(&doc) {
                assert_eq!(documented, value, "{name}: the doc says {documented}");
                checked += 1;
            }
        }
        assert!(checked >= 5, "only {checked} constants state their value");
    }

    /// Every field of `SolverSettings` documents its default as "Default X", and X is
    /// `SolverSettings::default()`'s value.
    #[test]
    fn documented_defaults_match_default_settings() {
        let d = SolverSettings::default();
        let on = |b: bool| if b { "on" } else { "off" };
        let fields: [(&str, String); 21] = [
            ("solver", format!("`{:?}`", d.solver)),
            ("iterations", d.iterations.to_string()),
            ("substeps", d.substeps.to_string()),
            ("accumulate_impulses", on(d.accumulate_impulses).into()),
            ("warm_starting", on(d.warm_starting).into()),
            ("position_correction", on(d.position_correction).into()),
            ("bias_factor", d.bias_factor.to_string()),
            ("allowed_penetration", d.allowed_penetration.to_string()),
            ("block_solver", on(d.block_solver).into()),
            ("restitution_threshold", d.restitution_threshold.to_string()),
            ("gravity", format!("({}, {})", d.gravity.x, d.gravity.y)),
            ("step_hz", d.step_hz.to_string()),
            ("sleep", on(d.sleep).into()),
            ("time_to_sleep", d.time_to_sleep.to_string()),
            (
                "linear_sleep_tolerance",
                d.linear_sleep_tolerance.to_string(),
            ),
            (
                "angular_sleep_tolerance",
                format!(
                    "{} degrees/s",
                    d.angular_sleep_tolerance.to_degrees().round()
                ),
            ),
            ("contact_hertz", d.contact_hertz.to_string()),
            ("contact_damping_ratio", d.contact_damping_ratio.to_string()),
            (
                "contact_push_max_velocity",
                d.contact_push_max_velocity.to_string(),
            ),
            ("joint_hertz", d.joint_hertz.to_string()),
            ("joint_damping_ratio", d.joint_damping_ratio.to_string()),
        ];
        assert!((2.0f32.to_radians() - d.angular_sleep_tolerance).abs() < 1e-9);
        for (name, value) in fields {
            let doc = doc_of(&format!("pub {name}:"));
            let stated = doc
                .split("Default ")
                .nth(1)
                .unwrap_or_else(|| panic!("{name}: no \"Default\" in its doc"));
            let stated = stated.trim_end_matches(|c: char| c == '.' || c.is_whitespace());
            assert!(
                stated.starts_with(&value)
                    && !stated[value.len()..].starts_with(|c: char| c.is_ascii_digit()),
                "{name}: the doc says \"Default {stated}\", the value is {value}"
            );
        }
    }

    #[test]
    fn defaults_are_valid_and_bad_values_refused() {
        assert!(SolverSettings::default().validate().is_ok());
        let bad = |s: SolverSettings| s.validate().unwrap_err().field;
        let base = SolverSettings::default();
        assert_eq!(
            bad(SolverSettings {
                bias_factor: 1.5,
                ..base
            }),
            "bias_factor"
        );
        assert_eq!(
            bad(SolverSettings {
                step_hz: f32::NAN,
                ..base
            }),
            "step_hz"
        );
        assert_eq!(
            bad(SolverSettings {
                iterations: 0,
                ..base
            }),
            "iterations"
        );
    }
}
