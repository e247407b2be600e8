//! The optional rows on a joint's free coordinate `x` (the revolute's angle, the prismatic's
//! and the wheel's translation along the axis, the wheel's rotation, the angle joint's `C`,
//! the distance joint's length): [`Limit`], a lower and an upper one-sided row, and
//! [`Motor`], a speed row with a bounded impulse. The joint owns the Jacobian `J` of `x`: it
//! passes the row's `C` inputs, `Cdot` and effective mass `K^-1` in and applies the
//! increment that comes back along `J`. Reference: seed 003 (limits as one-sided rows);
//! Box2D v3 `revolute_joint.c` (speculative limits, motor clamped by `max * dt`).
//!
//! ```text
//! Limit, Cdot = J v the rate of x, K = J M^-1 J^T:
//!   lower: C = x - lower >= 0,  row Cdot =  Cdot,  impulse >= 0, applied along +J
//!   upper: C = upper - x >= 0,  row Cdot = -Cdot,  impulse >= 0, applied along -J
//!   impulse = -mass_scale K^-1 (row Cdot + bias) - impulse_scale * accumulated,
//!   (bias, softness) = limit_bias(C): speculative (bias = C / dt) while the gap is open.
//! Motor: Cdot = J v - speed,  impulse = -K^-1 Cdot,  |accumulated| <= max dt
//! ```
//! Each joint computes its row `Cdot` itself (the upper row's as the joint always wrote it,
//! e.g. `a.w - b.w`), so the arithmetic is the same, bit for bit, as when every joint
//! carried its own copy of these rows.

use super::{check_order, clamp_increment, limit_bias, LineRow};
use crate::physics::error::PhysicsResult;
use crate::physics::solver::{SolverBody, StepContext};

/// The definition field names of a joint's two bounds, for error messages
/// (`("lower_angle", "upper_angle")`, ...).
pub(crate) type LimitFields = (&'static str, &'static str);

/// The two one-sided rows of a [`Limit`] on a coordinate `x` with Jacobian `J`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Bound {
    /// `C = x - lower >= 0`, row `Cdot = J v`; the increment acts along `+J`.
    Lower,
    /// `C = upper - x >= 0`, row `Cdot = -J v`; the increment acts along `-J`.
    Upper,
}

/// Lower and upper bound on a joint coordinate, with their accumulated impulses.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limit {
    pub enabled: bool,
    /// Radians or metres, as the coordinate.
    pub lower: f32,
    pub upper: f32,
    /// Accumulated impulses of the two one-sided rows (both >= 0 while accumulating).
    pub lower_impulse: f32,
    pub upper_impulse: f32,
}

impl Limit {
    /// A limit with no accumulated impulse (the bounds as validated by the definition).
    pub fn new(enabled: bool, lower: f32, upper: f32) -> Limit {
        Limit {
            enabled,
            lower,
            upper,
            lower_impulse: 0.0,
            upper_impulse: 0.0,
        }
    }

    pub fn bounds(&self) -> (f32, f32) {
        (self.lower, self.upper)
    }

    /// Set the bounds. Refused (naming the definition field) when `lower > upper` or either
    /// is not finite.
    pub fn set(&mut self, fields: LimitFields, lower: f32, upper: f32) -> PhysicsResult<()> {
        check_order(fields.0, lower, fields.1, upper)?;
        self.lower = lower;
        self.upper = upper;
        Ok(())
    }

    /// How far `x` lies outside `[lower, upper]` (0 inside).
    pub fn overrun(&self, x: f32) -> f32 {
        (self.lower - x).max(x - self.upper).max(0.0)
    }

    /// `base + lower_impulse - upper_impulse`, summed in that order: the net impulse along
    /// `J` with `base` the joint's other row on the same Jacobian (motor, spring, equality).
    #[inline]
    pub fn net_impulse(&self, base: f32) -> f32 {
        base + self.lower_impulse - self.upper_impulse
    }

    /// Forget the accumulated impulses.
    pub fn reset(&mut self) {
        self.lower_impulse = 0.0;
        self.upper_impulse = 0.0;
    }

    /// Prepare: a disabled limit carries no impulse into the step.
    pub fn prepare(&mut self) {
        if !self.enabled {
            self.reset();
        }
    }

    /// One of the two rows (see [`Bound`]) on the coordinate `x`, with `c_dot` that row's
    /// `Cdot`. Returns the increment of its accumulated impulse, which stays `>= 0` (or each
    /// increment does, with `accumulate_impulses` off).
    #[inline]
    pub fn solve_row(
        &mut self,
        bound: Bound,
        ctx: &StepContext,
        use_bias: bool,
        mass: f32,
        x: f32,
        c_dot: f32,
    ) -> f32 {
        let (c, accumulated) = match bound {
            Bound::Lower => (x - self.lower, &mut self.lower_impulse),
            Bound::Upper => (self.upper - x, &mut self.upper_impulse),
        };
        let (bias, s) = limit_bias(ctx, use_bias, c);
        let impulse = -s.mass_scale * mass * (c_dot + bias) - s.impulse_scale * *accumulated;
        let accumulate = ctx.settings.accumulate_impulses;
        clamp_increment(accumulated, impulse, 0.0, f32::INFINITY, accumulate)
    }

    /// Both rows on a slide's translation `x` along `row` (prismatic and wheel joints):
    /// `Cdot = row.c_dot`, the upper row's `-row.c_dot`, applied along the row.
    #[inline]
    pub fn solve_line(
        &mut self,
        ctx: &StepContext,
        use_bias: bool,
        x: f32,
        row: &LineRow,
        a: &mut SolverBody,
        b: &mut SolverBody,
    ) {
        let mass = row.mass();
        let inc = self.solve_row(Bound::Lower, ctx, use_bias, mass, x, row.c_dot(a, b));
        row.apply(a, b, inc);
        let inc = self.solve_row(Bound::Upper, ctx, use_bias, mass, x, -row.c_dot(a, b));
        row.apply(a, b, -inc);
    }
}

/// A motor on a joint coordinate: drives its rate to `speed` with at most `max` (N m on an
/// angle, N on a translation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Motor {
    pub enabled: bool,
    /// rad/s or m/s, as the coordinate.
    pub speed: f32,
    /// N m or N (>= 0).
    pub max: f32,
    /// Accumulated impulse, `|impulse| <= max dt` while accumulating.
    pub impulse: f32,
}

impl Motor {
    /// A motor with no accumulated impulse (the values as validated by the definition).
    pub fn new(enabled: bool, speed: f32, max: f32) -> Motor {
        Motor {
            enabled,
            speed,
            max,
            impulse: 0.0,
        }
    }

    /// Set the target speed (a value that is not finite is ignored).
    pub fn set_speed(&mut self, speed: f32) {
        if speed.is_finite() {
            self.speed = speed;
        }
    }

    /// Set the largest torque or force (a negative or non-finite value is ignored).
    pub fn set_max(&mut self, max: f32) {
        if max.is_finite() && max >= 0.0 {
            self.max = max;
        }
    }

    /// Prepare: a disabled motor carries no impulse into the step.
    pub fn prepare(&mut self) {
        if !self.enabled {
            self.impulse = 0.0;
        }
    }

    /// The motor row with `rate = J v`: `Cdot = rate - speed`, `impulse = -mass Cdot`,
    /// clamped to `max * dt`. Returns the increment to apply along `J`.
    #[inline]
    pub fn solve(&mut self, ctx: &StepContext, mass: f32, rate: f32) -> f32 {
        let c_dot = rate - self.speed;
        let impulse = -mass * c_dot;
        let max = self.max * ctx.dt;
        clamp_increment(
            &mut self.impulse,
            impulse,
            -max,
            max,
            ctx.settings.accumulate_impulses,
        )
    }
}
