//! The documented range of every number a user can give (a scene file, `--set`, a core
//! definition or a `World` setter), in one place: unit, range and why.
//!
//! The ranges are not physical advice (objects between 0.1 m and 10 m behave best) but the
//! envelope inside which the engine's f32 arithmetic cannot overflow or lose the meaning of
//! a number: products such as `mass * r^2`, `omega^2`, `friction_a * friction_b` or `v . v`
//! stay far below `f32::MAX` (3.4e38) for every combination of in-range inputs, and the
//! smallest masses and inertias stay far above the point where their inverses overflow.
//!
//! Every check of a user number goes through [`crate::physics::error`]'s `check_*`
//! functions, which look the field up here by name ([`range_of`]): a field listed here is
//! refused outside its range with an error naming the field, the value and the range.
//!
//! | quantity | fields | unit | range | why |
//! |---|---|---|---|---|
//! | coordinate | positions, anchors, centres, vertices, points, targets, offsets, axes (before normalising) | m | ±1e6 | f32 spacing at 1e6 m is 6 cm (12 slops): contacts no longer resolve; Box2D v3's `B2_HUGE` is 1e5 |
//! | length | translations, lengths, separations | m | ±4e6 | the farthest two coordinates can be apart |
//! | size | half widths, radii | m | 0.005 ..= 1e3 | below the linear slop (5 mm) contacts and hulls degenerate (1e-9 m circles gave NaN); above, see arms |
//! | reach | farthest point of a shape from its body's origin | m | ..= 1e3 | contact arms; a 9.5e5 m dynamic circle gave NaN |
//! | joint arm | joint anchor from the origin of each body it joins | m | ..= 50 | effective masses grow with the arm squared: NaN at 1e6, 1e4, 500 and 100 m |
//! | angle | angles, angle limits, offsets | rad | ±1e7 | past 1e7 rad one f32 step is a whole radian |
//! | speed | body velocities in scene files, motor speeds, speed tolerances | m/s, rad/s | ±1e4 | 25 x the 400 m/s cap; `v . v` far from overflow (1e37 m/s left a NaN joint impulse) |
//! | angle of a body in a scene file | | rad | ±1e7 | as other angles |
//! | density | shape density | kg/m² | 0, or 1e-3 ..= 1e5 | mass and inertia of the largest shape stay finite (1e38 overflowed the mass), the smallest inertia's inverse too |
//! | friction | shape friction | 1 | 0 ..= 100 | `sqrt(f_a f_b)` and the friction bound stay finite (1e20 gave `inf * 0`) |
//! | restitution | shape restitution | 1 | 0 ..= 1 | above 1 a bounce adds energy (hundreds pumped speeds to infinity) |
//! | damping | linear, angular damping | 1/s | 0 ..= 1e3 | |
//! | gravity scale | body gravity scale | 1 | ±100 | |
//! | gravity | world gravity, per component | m/s² | ±1e3 | 100 g; 1e6 ended in NaN |
//! | step rate | `step_hz` | Hz | 10 ..= 1e4 | below 10 Hz a step moves a body 40 m at the speed cap (1 Hz ended in NaN) |
//! | stiffness | hertz of springs, joints, contacts | Hz | 0 ..= 1e4 | `omega^2 h^2` stays finite (1e30 Hz gave NaN) |
//! | damping ratio | damping ratios | 1 | 0 ..= 1e3 | |
//! | force, torque | motor, mouse and friction maxima, joint break thresholds (0 and up), applied forces | N, N m | ±1e12 | one step of it on the lightest body stays far below the speed where `v . v` overflows |
//! | impulse | applied impulses | N s | ±1e10 | the same, applied at once |
//! | accumulated impulse | saved contact and joint impulses | N s | ±1e30 | times the largest inverse mass stays finite |
//! | saved state | body angles and velocities given to the core (definitions, setters, restore), and positions, angles and speeds of a file with a `state` section (an export) | m, rad, m/s | ±1e18 | what the engine itself may reach (the step caps speeds only before the solve); its square stays finite |
//! | softness | revolute softness | 1/kg | 0 ..= 1e6 | |
//! | ratio | gear and pulley ratios | 1 | ±1e3 | `ratio^2 m` stays finite |
//! | time | sleep time, time to sleep | s | 0 ..= 1e9 | |
//! | slop | allowed penetration | m | 0 ..= 1 | |
//! | relaxation | `jacobi_relaxation` | 1 | 0 ..= 1 (above 0) | above 1 each contact's correction overshoots |
//! | compliance | `xpbd_compliance` | m/N | 0 ..= 1 | a 1 kg box would sink metres under its own weight |
//!
//! Arms: every point of a shape lies within [`MAX_ARM`] (1e3 m) of its body's origin
//! (`ShapeDef::validate`), and a joint's anchors within [`MAX_JOINT_ARM`] (50 m) of the
//! origins of the bodies they join (checked by `World::create_joint` and the scene loader;
//! an export's joints are exempt, their bodies may have moved apart since).
//!
//! Counts: a scene may make at most [`MAX_BODIES`] bodies, [`MAX_SHAPES`] shapes,
//! [`MAX_JOINTS`] joints, and [`MAX_SHAPES_PER_BODY`] shapes on one body, generators
//! included; a scene past a total is refused before anything is built. A scene whose shapes
//! overlap in more than [`MAX_OVERLAPPING_PAIRS`] pairs when it starts is refused too.

/// A documented range: `min ..= max` in `unit`, and why.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub name: &'static str,
    pub unit: &'static str,
    pub min: f32,
    pub max: f32,
    pub why: &'static str,
}

impl Range {
    pub fn contains(&self, value: f32) -> bool {
        value >= self.min && value <= self.max
    }

    /// "between -1e6 and 1e6 m (a coordinate: ...)".
    pub fn describe(&self) -> String {
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        };
        format!(
            "between {} and {}{unit} ({}: {})",
            number(self.min),
            number(self.max),
            self.name,
            self.why
        )
    }
}

/// A number for messages: plain for ordinary magnitudes, exponent form for huge and tiny
/// ones (`1e6`, not `1000000`).
pub fn number(v: f32) -> String {
    let a = v.abs();
    if v == 0.0 || !v.is_finite() || (1e-3..1e4).contains(&a) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

const fn range(
    name: &'static str,
    unit: &'static str,
    min: f32,
    max: f32,
    why: &'static str,
) -> Range {
    Range {
        name,
        unit,
        min,
        max,
        why,
    }
}

/// Largest coordinate, metres.
pub const MAX_COORDINATE: f32 = 1e6;
/// Smallest half width or radius, metres (the linear slop).
pub const MIN_SIZE: f32 = 0.005;
/// Smallest non-zero density, kg/m².
pub const MIN_DENSITY: f32 = 1e-3;
/// Largest ratio of a box's long side to its short side. Past about 1e6 the hull test no
/// longer sees the box's corners (its export would not load); 1e4 leaves a margin.
pub const MAX_ASPECT_RATIO: f32 = 1e4;

pub const COORDINATE: Range = range(
    "a coordinate",
    "m",
    -MAX_COORDINATE,
    MAX_COORDINATE,
    "past 1e6 m the f32 spacing is 6 cm and contacts no longer resolve",
);
pub const LENGTH: Range = range(
    "a length",
    "m",
    -4.0 * MAX_COORDINATE,
    4.0 * MAX_COORDINATE,
    "the farthest two coordinates can be apart",
);
pub const SIZE: Range = range(
    "a size",
    "m",
    MIN_SIZE,
    MAX_ARM,
    "below the 5 mm linear slop contacts and inertias degenerate; above 1e3 m see MAX_ARM",
);
pub const ANGLE: Range = range(
    "an angle",
    "rad",
    -1e7,
    1e7,
    "past 1e7 rad one f32 step is a whole radian",
);
pub const SPEED: Range = range(
    "a speed",
    "m/s",
    -1e4,
    1e4,
    "25 times the engine's 400 m/s cap, far from overflow in v . v",
);
pub const ANGULAR_SPEED: Range = range(
    "an angular speed",
    "rad/s",
    -1e4,
    1e4,
    "far above the engine's 47 rad/s cap, far from overflow",
);
pub const DENSITY: Range = range(
    "a density",
    "kg/m^2",
    0.0,
    1e5,
    "the mass and inertia of the largest shape stay finite",
);
pub const FRICTION: Range = range(
    "a friction coefficient",
    "",
    0.0,
    100.0,
    "real materials are below 2; the mixed friction and its bound stay finite",
);
pub const RESTITUTION: Range = range(
    "a restitution",
    "",
    0.0,
    1.0,
    "above 1 every bounce adds energy",
);
pub const DAMPING: Range = range(
    "a damping",
    "1/s",
    0.0,
    1e3,
    "a body stops within a step already at 1e3",
);
pub const GRAVITY_SCALE: Range = range(
    "a gravity scale",
    "",
    -100.0,
    100.0,
    "with gravity up to 1e3 m/s^2 it stays far from overflow",
);
pub const GRAVITY: Range = range(
    "a gravity component",
    "m/s^2",
    -1e3,
    1e3,
    "100 g; much more and one step outruns the speed cap",
);
pub const STEP_HZ: Range = range(
    "a step rate",
    "Hz",
    10.0,
    1e4,
    "below 10 Hz a body at the speed cap moves 40 m in a step",
);
pub const HERTZ: Range = range(
    "a stiffness",
    "Hz",
    0.0,
    1e4,
    "omega^2 h^2 of a spring stays finite",
);
pub const DAMPING_RATIO: Range = range("a damping ratio", "", 0.0, 1e3, "far above critical (1)");
pub const FORCE: Range = range(
    "a force",
    "N",
    -1e12,
    1e12,
    "one step of it on the lightest body stays far from overflow",
);
pub const TORQUE: Range = range(
    "a torque",
    "N m",
    -1e12,
    1e12,
    "one step of it on the lightest body stays far from overflow",
);
pub const IMPULSE: Range = range(
    "an impulse",
    "N s",
    -1e10,
    1e10,
    "on the lightest body it stays far from overflow",
);
pub const ACCUMULATED_IMPULSE: Range = range(
    "an accumulated impulse",
    "N s",
    -1e30,
    1e30,
    "times the largest inverse mass it stays finite",
);
/// Positions, angles and speeds of a saved world (a file with a `state` section). The step
/// caps speeds at 400 m/s only before the solve and does not yet keep bodies inside the
/// coordinate range, so a world can hold larger numbers than a user may give; its export
/// must still load. Any number whose square is finite is accepted there.
pub const SAVED_STATE: Range = range(
    "a saved position, angle or speed",
    "",
    -1e18,
    1e18,
    "its square stays finite",
);
pub const SOFTNESS: Range = range(
    "a softness",
    "1/kg",
    0.0,
    1e6,
    "far softer than any joint needs",
);
pub const RATIO: Range = range(
    "a ratio",
    "",
    -1e3,
    1e3,
    "ratio^2 times a mass stays finite",
);
pub const TIME: Range = range("a time", "s", 0.0, 1e9, "thirty years");
pub const SLOP: Range = range("a penetration", "m", 0.0, 1.0, "larger than most bodies");
/// Jacobi relaxation: the fraction of the summed changes applied.
pub const RELAXATION: Range = range(
    "a relaxation factor",
    "1",
    0.0,
    1.0,
    "above 1 each contact's correction overshoots",
);
/// XPBD contact compliance.
pub const COMPLIANCE: Range = range(
    "a compliance",
    "m/N",
    0.0,
    1.0,
    "a 1 kg box would sink metres under its own weight",
);
/// Camera height (the view), metres.
pub const VIEW: Range = range(
    "a view height",
    "m",
    1e-3,
    4.0 * MAX_COORDINATE,
    "the whole world",
);

/// Largest reach of a shape, metres: the distance from its body's origin to any of its
/// points. Contact arms lie within it; a dynamic circle of 9.5e5 m on a joint made NaN.
pub const MAX_ARM: f32 = 1e3;
/// Largest joint arm, metres: the distance from a body's origin to a joint anchor on it.
/// The solver's effective masses grow with the square of the arm: the fuzzer found NaN with
/// arms of 1e6, 1e4 and 500 m, and a soft-step welded cantilever went NaN with 100 m arms
/// (not with 50 m).
pub const MAX_JOINT_ARM: f32 = 50.0;

/// Most pairs of shapes whose boxes overlap when a scene starts (each becomes a contact, a
/// few hundred bytes): bodies generated on top of each other make one per pair, the square
/// of their count. A scene that starts with more is refused.
pub const MAX_OVERLAPPING_PAIRS: u64 = 250_000;

/// Most bodies a scene may make, generators included.
pub const MAX_BODIES: u64 = 200_000;
/// Most shapes a scene may make, generators included.
pub const MAX_SHAPES: u64 = 400_000;
/// Most joints a scene may make, generators included.
pub const MAX_JOINTS: u64 = 200_000;
/// Most shapes on one body in a scene. Loading adds a body's shapes at once
/// (`World::create_shapes`), in time linear in their count (a release `testbed check` of one
/// body with 16,000 boxes takes 0.25 s, 65,536 take 0.95 s; one shape at a time, 30,000 took
/// 15 s); stepping such a body still costs its shape count every step (16,000 boxes: about
/// 45 ms a step; 65,536: 380 ms), hence the limit.
pub const MAX_SHAPES_PER_BODY: usize = 16_384;

/// The documented range of a user field, by name: the part after the last `.` of
/// `"box.half_width"`, `"Box.half_width"` or `"material.density"`. `None`: only finiteness
/// (and the caller's own checks) apply.
pub fn range_of(field: &str) -> Option<&'static Range> {
    // A polygon's rounding radius may be zero (user polygons have none).
    if field.eq_ignore_ascii_case("polygon.radius") {
        return Some(&LENGTH);
    }
    // A body's pose and velocity as the core takes them (definitions, setters, the exact
    // restore of an export): anything the engine can hold. Hand-written files are held to
    // the physical ranges of `file_range_of`.
    if matches!(
        field,
        "center" | "angle" | "linear_velocity" | "angular_velocity"
    ) {
        return Some(&SAVED_STATE);
    }
    let key = field.rsplit('.').next().unwrap_or(field);
    Some(match key {
        "position" | "anchor" | "anchor_a" | "anchor_b" | "ground_anchor_a" | "ground_anchor_b"
        | "target" | "point" | "center" | "center_a" | "center_b" | "point_a" | "point_b"
        | "vertices" | "centroid" | "linear_offset" | "origin" | "spacing" | "min" | "max"
        | "step" | "local_anchor_a" | "local_anchor_b" | "proxy_boxes" | "reach_boxes" | "axis" => {
            &COORDINATE
        }
        "lower_translation" | "upper_translation" | "length" | "min_length" | "max_length"
        | "length_a" | "length_b" | "constant" | "separation" | "base_separation" | "jitter"
        | "column_spacing" | "row_height" => &LENGTH,
        "half_width" | "half_height" | "half_size" | "radius" => &SIZE,
        "angle" | "lower_angle" | "upper_angle" | "offset" | "angular_offset"
        | "reference_angle" | "max_angle" => &ANGLE,
        "motor_speed"
        | "restitution_threshold"
        | "contact_push_max_velocity"
        | "linear_sleep_tolerance" => &SPEED,
        "angular_sleep_tolerance" => &ANGULAR_SPEED,
        "density" => &DENSITY,
        "friction" => &FRICTION,
        "restitution" => &RESTITUTION,
        "linear_damping" | "angular_damping" => &DAMPING,
        "gravity_scale" => &GRAVITY_SCALE,
        "gravity" => &GRAVITY,
        "step_hz" => &STEP_HZ,
        "hertz" | "linear_hertz" | "angular_hertz" | "contact_hertz" | "joint_hertz"
        | "spring_hertz" => &HERTZ,
        "damping_ratio"
        | "spring_damping_ratio"
        | "linear_damping_ratio"
        | "angular_damping_ratio"
        | "contact_damping_ratio"
        | "joint_damping_ratio" => &DAMPING_RATIO,
        "force" | "max_force" | "max_motor_force" | "break_force" => &FORCE,
        "torque" | "max_torque" | "max_motor_torque" | "break_torque" => &TORQUE,
        "impulse" => &IMPULSE,
        "normal_impulse" | "tangent_impulse" | "max_normal_impulse" | "linear_impulse"
        | "angular_impulse" | "motor_impulse" | "lower_impulse" | "upper_impulse"
        | "perp_impulse" | "spring_impulse" => &ACCUMULATED_IMPULSE,
        "softness" => &SOFTNESS,
        "ratio" => &RATIO,
        "sleep_time" | "time_to_sleep" => &TIME,
        "allowed_penetration" => &SLOP,
        "jacobi_relaxation" => &RELAXATION,
        "xpbd_compliance" => &COMPLIANCE,
        "height" => &VIEW,
        _ => return None,
    })
}

/// The range of a field in a hand-written scene file: [`range_of`], except that a body's
/// angle and velocities are held to physical ranges (a file giving a bob 1e37 m/s is
/// wrong; the core itself accepts any speed whose square is finite, which an export of a
/// world the engine sped up may hold).
pub fn file_range_of(field: &str) -> Option<&'static Range> {
    match field {
        "center" => Some(&COORDINATE),
        "angle" => Some(&ANGLE),
        "linear_velocity" => Some(&SPEED),
        "angular_velocity" => Some(&ANGULAR_SPEED),
        _ => range_of(field),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_range_is_ordered_and_finite() {
        for r in [
            COORDINATE,
            LENGTH,
            SIZE,
            ANGLE,
            SPEED,
            ANGULAR_SPEED,
            DENSITY,
            FRICTION,
            RESTITUTION,
            DAMPING,
            GRAVITY_SCALE,
            GRAVITY,
            STEP_HZ,
            HERTZ,
            DAMPING_RATIO,
            FORCE,
            TORQUE,
            IMPULSE,
            ACCUMULATED_IMPULSE,
            SAVED_STATE,
            SOFTNESS,
            RATIO,
            TIME,
            SLOP,
            VIEW,
        ] {
            assert!(
                r.min.is_finite() && r.max.is_finite() && r.min < r.max,
                "{r:?}"
            );
        }
    }

    #[test]
    fn fields_are_found_by_their_last_name() {
        assert_eq!(range_of("Box.half_width"), Some(&SIZE));
        assert_eq!(range_of("material.density"), Some(&DENSITY));
        assert_eq!(range_of("position"), Some(&COORDINATE));
        assert_eq!(range_of("Circle.center"), Some(&COORDINATE));
        assert_eq!(range_of("center"), Some(&SAVED_STATE));
        assert_eq!(file_range_of("linear_velocity"), Some(&SPEED));
        assert_eq!(range_of("no_such_field"), None);
    }

    /// The largest shape at the largest density, and the smallest at the smallest: mass,
    /// inertia and their inverses stay finite.
    #[test]
    fn extreme_masses_stay_finite() {
        let big = 2.0 * MAX_COORDINATE;
        let mass = DENSITY.max * big * big;
        let inertia = mass * big * big / 6.0;
        assert!(mass.is_finite() && inertia.is_finite());
        let small = std::f32::consts::PI * MIN_SIZE * MIN_SIZE * MIN_DENSITY;
        let small_inertia = 0.5 * small * MIN_SIZE * MIN_SIZE;
        assert!(small_inertia > 0.0 && (1.0 / small_inertia).is_finite());
        // One step of the largest force at the lowest step rate on the lightest body.
        let dv = FORCE.max / STEP_HZ.min / small;
        assert!((dv * dv * 2.0).is_finite());
    }
}
