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

/// Steps of motion, at the current velocity, that a moving shape's new broad-phase reach
/// (the box it pairs with static shapes by) covers when renewed (2); in the soft step, for
/// a body with no touching contact only (in flight: a falling body, a swinging chain; the
/// other solvers predict every box, and their reach is their fat box). A shape moving
/// steadily then keeps its reach for several steps instead of renewing it every step once
/// its speed exceeds `AABB_MARGIN` per step. A body touching another gets its one step of
/// sweep alone: its motion changes at each collision, so a predicted box is soon left
/// anyway, and its longer box paired with more of the pile (the spinner's churn: 47,000
/// pairs and 7,200 made a step with the prediction, 32,000 and 1,600 without, when the
/// soft step still paired moving shapes by their reaches). Larger: longer boxes, more
/// candidate pairs for fast shapes; smaller: more static queries.
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

/// Which solver runs the step: Solver2D's ten families (each a file under
/// `physics/solver/`, whose header states its idea, position handling and known failure).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SolverKind {
    /// PGS: Box2D-Lite's sequential impulses with Baumgarte position correction, with every
    /// toggle (warm starting, accumulation, block solver, position correction).
    #[default]
    Classic,
    /// Box2D v3's soft step: sub-steps, soft constraints and a relax pass.
    SoftStep,
    /// Jacobi: every contact solved from the velocities of the iteration's start, the
    /// changes summed and applied scaled by `jacobi_relaxation`; soft, with relax passes.
    Jacobi,
    /// PGS on velocities without bias, then non-linear Gauss-Seidel position iterations
    /// (Box2D v2.4).
    PgsNgs,
    /// As `PgsNgs`, with two-point manifolds solved as one 2x2 block.
    PgsNgsBlock,
    /// PGS with soft constraints in one step, then `relax_iterations` passes without bias.
    PgsSoft,
    /// Sub-steps with current anchors, Baumgarte push-out and sticky (position-level)
    /// friction; no warm starting.
    TgsSticky,
    /// Sub-steps with current anchors and soft constraints, a relax pass per sub-step.
    TgsSoft,
    /// Sub-steps with current anchors, rigid velocity rows and one NGS position pass per
    /// sub-step.
    TgsNgs,
    /// Extended position-based dynamics: sub-steps that predict positions, project the
    /// contacts (compliance `xpbd_compliance`) and derive velocities from the motion.
    Xpbd,
}

/// How a solver treats the rigid rows of joints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointPath {
    /// No bias in the velocity iterations; the position error is removed by the NGS joint
    /// position pass (Box2D v2). Box2D-Lite's soft revolute keeps its velocity Baumgarte.
    Rigid,
    /// Soft rows (`joint_hertz`, `joint_damping_ratio`) in the biased passes, rigid in the
    /// relax passes.
    Soft,
}

impl SolverKind {
    /// Every solver, in the order of Solver2D's comparison (the verdict table's order).
    pub const ALL: [SolverKind; 10] = [
        SolverKind::Jacobi,
        SolverKind::Classic,
        SolverKind::PgsNgs,
        SolverKind::PgsNgsBlock,
        SolverKind::PgsSoft,
        SolverKind::SoftStep,
        SolverKind::TgsSticky,
        SolverKind::TgsSoft,
        SolverKind::TgsNgs,
        SolverKind::Xpbd,
    ];

    /// The name used in tables and the panel.
    pub fn label(self) -> &'static str {
        match self {
            SolverKind::Classic => "PGS (classic)",
            SolverKind::SoftStep => "soft step",
            SolverKind::Jacobi => "Jacobi",
            SolverKind::PgsNgs => "PGS-NGS",
            SolverKind::PgsNgsBlock => "PGS-NGS-Block",
            SolverKind::PgsSoft => "PGS-Soft",
            SolverKind::TgsSticky => "TGS-Sticky",
            SolverKind::TgsSoft => "TGS-Soft",
            SolverKind::TgsNgs => "TGS-NGS",
            SolverKind::Xpbd => "XPBD",
        }
    }

    /// How many stretches of time a joint's stored impulse covers in one step of
    /// `substeps` sub-steps: the reaction force is `impulse * this / dt`. One sub-step for
    /// the solvers that warm start (or restart) their impulses every sub-step or run full
    /// steps of `dt / substeps`; the whole step for TGS-Sticky and XPBD, whose impulses are
    /// zeroed once per step and summed over its sub-steps.
    pub fn impulse_spans(self, substeps: u32) -> u32 {
        match self {
            SolverKind::TgsSticky | SolverKind::Xpbd => 1,
            _ => substeps.max(1),
        }
    }

    /// True for the solvers that collide once per step and split it into `substeps`
    /// sub-steps of one iteration each (`iterations` does not apply); the others run
    /// `substeps` full steps (collide included) of `iterations` iterations.
    pub fn sub_steps(self) -> bool {
        matches!(
            self,
            SolverKind::SoftStep
                | SolverKind::TgsSticky
                | SolverKind::TgsSoft
                | SolverKind::TgsNgs
                | SolverKind::Xpbd
        )
    }

    /// How this solver treats joints' rigid rows (see each solver's header).
    pub fn joint_path(self) -> JointPath {
        match self {
            SolverKind::Classic
            | SolverKind::PgsNgs
            | SolverKind::PgsNgsBlock
            | SolverKind::TgsNgs
            | SolverKind::Xpbd => JointPath::Rigid,
            SolverKind::SoftStep
            | SolverKind::Jacobi
            | SolverKind::PgsSoft
            | SolverKind::TgsSticky
            | SolverKind::TgsSoft => JointPath::Soft,
        }
    }

    /// True when the setting named `field` changes what this solver does (the Solver panel
    /// shows only these; the shared settings, gravity, sleep and the like, always apply).
    pub fn uses(self, field: &str) -> bool {
        use SolverKind::*;
        match field {
            "iterations" => !self.sub_steps(),
            "accumulate_impulses" | "position_correction" | "block_solver" => self == Classic,
            "warm_starting" => !matches!(self, TgsSticky | Xpbd),
            "bias_factor" | "allowed_penetration" => {
                matches!(self, Classic | PgsNgs | PgsNgsBlock | TgsNgs)
            }
            "contact_hertz" | "contact_damping_ratio" => {
                matches!(self, SoftStep | Jacobi | PgsSoft | TgsSoft)
            }
            "contact_push_max_velocity" => {
                matches!(self, SoftStep | Jacobi | PgsSoft | TgsSoft | TgsSticky)
            }
            "joint_hertz" | "joint_damping_ratio" => self.joint_path() == JointPath::Soft,
            "relax_iterations" => matches!(self, Jacobi | PgsSoft | TgsSticky),
            "position_iterations" => matches!(self, PgsNgs | PgsNgsBlock),
            "jacobi_relaxation" => self == Jacobi,
            "xpbd_compliance" => self == Xpbd,
            _ => true,
        }
    }
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
    /// Jacobi, PGS-Soft and TGS-Sticky: passes without bias after the positions moved
    /// (Solver2D's extra iterations), 0 to 1000. Default 3. Fewer: the push-out velocity
    /// stays in the bodies (stacks jump); more: slower steps.
    pub relax_iterations: u32,
    /// PGS-NGS and PGS-NGS-Block: non-linear Gauss-Seidel position iterations over the
    /// contacts per step (Box2D v2's `positionIterations`), 0 to 1000. Default 3. Fewer:
    /// overlap stays; more: slower steps (each recomputes every contact's separation).
    pub position_iterations: u32,
    /// Jacobi: fraction of the summed velocity changes applied per iteration, above 0 and at
    /// most 1. Default 0.5. Higher: a body pushed by several contacts at once gets each
    /// contact's full correction and overshoots (a box on two points bounces); lower: slower
    /// convergence, stacks sink.
    pub jacobi_relaxation: f32,
    /// XPBD: contact compliance, m/N (inverse stiffness; Solver2D's 1e-5), 0 to 1. Default
    /// 0.00001. 0: rigid contacts, energetic push-out; larger: softer contacts that overlap
    /// more under load.
    pub xpbd_compliance: f32,
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
            relax_iterations: 3,
            position_iterations: 3,
            jacobi_relaxation: 0.5,
            xpbd_compliance: 1e-5,
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
        for (field, value) in [
            ("relax_iterations", self.relax_iterations),
            ("position_iterations", self.position_iterations),
        ] {
            if value > 1000 {
                return Err(PhysicsError::new(
                    field,
                    format!("must be 0 to 1000, got {value}"),
                ));
            }
        }
        check_positive("jacobi_relaxation", self.jacobi_relaxation)?;
        if self.jacobi_relaxation > 1.0 {
            return Err(PhysicsError::new(
                "jacobi_relaxation",
                format!(
                    "must be above 0 and at most 1, got {}",
                    self.jacobi_relaxation
                ),
            ));
        }
        check_non_negative("xpbd_compliance", self.xpbd_compliance)?;
        if self.xpbd_compliance > 1.0 {
            return Err(PhysicsError::new(
                "xpbd_compliance",
                format!("must be 0 to 1, got {}", self.xpbd_compliance),
            ));
        }
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
        let fields: [(&str, String); 25] = [
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
            ("relax_iterations", d.relax_iterations.to_string()),
            ("position_iterations", d.position_iterations.to_string()),
            ("jacobi_relaxation", d.jacobi_relaxation.to_string()),
            ("xpbd_compliance", d.xpbd_compliance.to_string()),
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
