//! The parts the joint files share: `Anchors` and `BodyPair` (what `prepare` starts from),
//! the point and line rows' helpers, the soft and rigid coefficients, small solvers, checks
//! and the anchor drawing; and the optional rows on a joint's free coordinate `x` (the revolute's angle, the prismatic's
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

use crate::physics::body::Body;
use crate::physics::debug_draw::{DebugDraw, DrawFlags, DrawKind};
use crate::physics::error::{check_finite, check_finite_vec, PhysicsError, PhysicsResult};
use crate::physics::limits;
use crate::physics::math::{cross, cross_sv, Vec2};
use crate::physics::settings::{JointPath, JOINT_POSITION_FRACTION};
use crate::physics::solver::{Softness, SolverBody, StepContext};
use glam::Vec3;

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
        // Held inside the accumulated-impulse range the loader accepts (a saved 1e30 grew one
        // rounding step past it and its export no longer loaded); with accumulation off the
        // kept sum of increments too. Values inside the range are unchanged.
        let max = limits::ACCUMULATED_IMPULSE.max;
        let inc = clamp_increment(accumulated, impulse, 0.0, max, accumulate);
        if *accumulated > max {
            *accumulated = max;
        }
        inc
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

// --------------------------------------------------------------------------------------
// Helpers shared by the joint files.

/// What every joint's `prepare` starts from, computed once before dispatch: the bodies as
/// the step sees them and the arms from their centres of mass to the joint's anchors
/// (world axes; see `Joint::local_anchors`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Anchors {
    pub pair: BodyPair,
    pub frame_a: Vec2,
    pub frame_b: Vec2,
}

/// The two bodies of a joint as one (sub-)step sees them: solver indices, inverse masses
/// (zero for index 0, the shared static body) and the state at the start of the step.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BodyPair {
    pub index_a: usize,
    pub index_b: usize,
    pub m_a: f32,
    pub m_b: f32,
    pub i_a: f32,
    pub i_b: f32,
    /// Centres of mass at the start of the step, world.
    pub center_a: Vec2,
    pub center_b: Vec2,
    /// Angles at the start of the step, radians (unwrapped).
    pub angle_a: f32,
    pub angle_b: f32,
}

impl BodyPair {
    pub fn new(index_a: usize, index_b: usize, body_a: &Body, body_b: &Body) -> BodyPair {
        let (m_a, i_a) = if index_a == 0 {
            (0.0, 0.0)
        } else {
            (body_a.inv_mass, body_a.inv_inertia)
        };
        let (m_b, i_b) = if index_b == 0 {
            (0.0, 0.0)
        } else {
            (body_b.inv_mass, body_b.inv_inertia)
        };
        BodyPair {
            index_a,
            index_b,
            m_a,
            m_b,
            i_a,
            i_b,
            center_a: body_a.center,
            center_b: body_b.center,
            angle_a: body_a.angle,
            angle_b: body_b.angle,
        }
    }

    #[inline]
    pub fn load(&self, bodies: &[SolverBody]) -> (SolverBody, SolverBody) {
        (bodies[self.index_a], bodies[self.index_b])
    }

    /// Write the velocities back (index 0, the shared static body, is never written).
    #[inline]
    pub fn store(&self, bodies: &mut [SolverBody], body_a: &SolverBody, body_b: &SolverBody) {
        if self.index_a != 0 {
            bodies[self.index_a].v = body_a.v;
            bodies[self.index_a].w = body_a.w;
        }
        if self.index_b != 0 {
            bodies[self.index_b].v = body_b.v;
            bodies[self.index_b].w = body_b.w;
        }
    }

    /// Current `d = (c_b + r_b) - (c_a + r_a)` from the displacements since step start.
    #[inline]
    pub fn separation(&self, a: &SolverBody, b: &SolverBody, r_a: Vec2, r_b: Vec2) -> Vec2 {
        (self.center_b - self.center_a) + (b.dp - a.dp) + (r_b - r_a)
    }

    /// Current `angle_b - angle_a`, radians.
    #[inline]
    pub fn relative_angle(&self, a: &SolverBody, b: &SolverBody) -> f32 {
        (self.angle_b - self.angle_a) + (b.d_angle - a.d_angle)
    }

    /// Inverse of `i_a + i_b` (0 when neither body can turn).
    pub fn axial_mass(&self) -> f32 {
        inv_or_zero(self.i_a + self.i_b)
    }

    /// The 2x2 K of a point constraint `C = p_b - p_a` (seed 000: `K = K1 + K2 + K3`) as
    /// `(k11, k12, k22)`:
    /// ```text
    /// K = (m_a + m_b) I + i_a [r_a.y^2, -r_a.x r_a.y; ., r_a.x^2] + i_b [same with r_b]
    /// ```
    pub fn point_k(&self, r_a: Vec2, r_b: Vec2) -> (f32, f32, f32) {
        let m = self.m_a + self.m_b;
        let k11 = m + self.i_a * r_a.y * r_a.y + self.i_b * r_b.y * r_b.y;
        let k12 = -self.i_a * r_a.x * r_a.y - self.i_b * r_b.x * r_b.y;
        let k22 = m + self.i_a * r_a.x * r_a.x + self.i_b * r_b.x * r_b.x;
        (k11, k12, k22)
    }

    /// Warm start a point block and an angular row (revolute, weld, motor, friction joints):
    /// the accumulated `linear` impulse at the arms (`frame_a`, `frame_b` turned by the
    /// sub-step rotations), then the `angular` one.
    pub fn warm_start_point(
        &self,
        bodies: &mut [SolverBody],
        frame_a: Vec2,
        frame_b: Vec2,
        linear: Vec2,
        angular: f32,
    ) {
        let (mut a, mut b) = self.load(bodies);
        let r_a = a.dq.rotate(frame_a);
        let r_b = b.dq.rotate(frame_b);
        apply_linear(&mut a, &mut b, r_a, r_b, linear);
        apply_angular(&mut a, &mut b, angular);
        self.store(bodies, &a, &b);
    }
}

/// The geometry of a slide (prismatic and wheel joints) at the current sub-step: the arms,
/// `d = (c_b + r_b) - (c_a + r_a)` and the axis fixed in A with `perp = skew(axis)`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slide {
    pub pair: BodyPair,
    pub r_a: Vec2,
    pub r_b: Vec2,
    pub d: Vec2,
    pub axis: Vec2,
    pub perp: Vec2,
}

impl Slide {
    /// From the arms and axis at step start (`frame_a`, `frame_b`, `axis_a`, world axes)
    /// turned by the sub-step rotations.
    #[inline]
    pub fn new(
        pair: &BodyPair,
        frame_a: Vec2,
        frame_b: Vec2,
        axis_a: Vec2,
        a: &SolverBody,
        b: &SolverBody,
    ) -> Slide {
        let r_a = a.dq.rotate(frame_a);
        let r_b = b.dq.rotate(frame_b);
        let d = pair.separation(a, b, r_a, r_b);
        let axis = a.dq.rotate(axis_a);
        Slide {
            pair: *pair,
            r_a,
            r_b,
            d,
            axis,
            perp: Vec2::new(-axis.y, axis.x),
        }
    }

    /// The line row along `dir` (`axis` or `perp`):
    /// `J = [-dir, -s_a, dir, s_b]`, `s_a = (d + r_a) x dir`, `s_b = r_b x dir`,
    /// `K = m_a + m_b + i_a s_a^2 + i_b s_b^2`.
    #[inline]
    pub fn row(&self, dir: Vec2) -> LineRow {
        let s_a = cross(self.d + self.r_a, dir);
        let s_b = cross(self.r_b, dir);
        let p = &self.pair;
        LineRow {
            dir,
            s_a,
            s_b,
            k: p.m_a + p.m_b + p.i_a * s_a * s_a + p.i_b * s_b * s_b,
        }
    }

    /// Warm start the two line rows: `axial` along the axis, then `perp` across it.
    #[inline]
    pub fn warm_start(&self, a: &mut SolverBody, b: &mut SolverBody, axial: f32, perp: f32) {
        self.row(self.axis).apply(a, b, axial);
        self.row(self.perp).apply(a, b, perp);
    }
}

/// One line row `J = [-dir, -s_a, dir, s_b]` of a [`Slide`], with its `K`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LineRow {
    pub dir: Vec2,
    pub s_a: f32,
    pub s_b: f32,
    pub k: f32,
}

impl LineRow {
    /// `K^-1` (0 when nothing can move along the row).
    #[inline]
    pub fn mass(&self) -> f32 {
        inv_or_zero(self.k)
    }

    /// `Cdot = dir . (v_b - v_a) + s_b w_b - s_a w_a`.
    #[inline]
    pub fn c_dot(&self, a: &SolverBody, b: &SolverBody) -> f32 {
        self.dir.dot(b.v - a.v) + self.s_b * b.w - self.s_a * a.w
    }

    /// Apply the impulse `lambda` along the row.
    #[inline]
    pub fn apply(&self, a: &mut SolverBody, b: &mut SolverBody, lambda: f32) {
        apply_axial(a, b, self.dir, self.s_a, self.s_b, lambda);
    }
}

/// Arm from the centre of mass to a body-frame anchor (relative to the body origin), in
/// world axes.
#[inline]
pub(crate) fn arm(body: &Body, local_anchor: Vec2) -> Vec2 {
    body.q.rotate(local_anchor - body.local_center)
}

#[inline]
pub(crate) fn inv_or_zero(k: f32) -> f32 {
    if k > 0.0 {
        1.0 / k
    } else {
        0.0
    }
}

/// Relative velocity of the anchor points: `v_b + w_b x r_b - v_a - w_a x r_a`.
#[inline]
pub(crate) fn point_velocity(a: &SolverBody, b: &SolverBody, r_a: Vec2, r_b: Vec2) -> Vec2 {
    b.v + cross_sv(b.w, r_b) - a.v - cross_sv(a.w, r_a)
}

/// Apply the linear impulse `p` at the arms: `-p` on A, `+p` on B.
#[inline]
pub(crate) fn apply_linear(a: &mut SolverBody, b: &mut SolverBody, r_a: Vec2, r_b: Vec2, p: Vec2) {
    a.v -= a.inv_mass * p;
    a.w -= a.inv_inertia * cross(r_a, p);
    b.v += b.inv_mass * p;
    b.w += b.inv_inertia * cross(r_b, p);
}

/// Apply the angular impulse `l`: `-l` on A, `+l` on B.
#[inline]
pub(crate) fn apply_angular(a: &mut SolverBody, b: &mut SolverBody, l: f32) {
    a.w -= a.inv_inertia * l;
    b.w += b.inv_inertia * l;
}

/// Apply an impulse `lambda` along a line Jacobian `[-axis, -s_a, axis, s_b]`.
#[inline]
pub(crate) fn apply_axial(
    a: &mut SolverBody,
    b: &mut SolverBody,
    axis: Vec2,
    s_a: f32,
    s_b: f32,
    lambda: f32,
) {
    let p = lambda * axis;
    a.v -= a.inv_mass * p;
    a.w -= a.inv_inertia * lambda * s_a;
    b.v += b.inv_mass * p;
    b.w += b.inv_inertia * lambda * s_b;
}

/// The softness of a rigid equality constraint for this pass.
/// - Classic: Baumgarte, `bias_rate = bias_factor / dt` with the joint's own factor when
///   given, else the world's; 0 when position correction is off.
/// - Soft step (every solver on the soft joint path): the world's `joint_softness` when
///   `use_bias`, rigid without bias in relax.
pub(crate) fn rigid_softness(
    ctx: &StepContext,
    use_bias: bool,
    bias_factor: Option<f32>,
) -> Softness {
    match ctx.settings.solver.joint_path() {
        // Classic (and every solver on the rigid joint path): a rigid row has no bias in the velocity iterations; its position error
        // is removed by the position pass (NGS, Box2D v2), which removes the whole error per
        // iteration (clamped by the world). A joint with its own `bias_factor` (Box2D-Lite's soft
        // revolute) keeps Box2D-Lite's velocity-level Baumgarte instead.
        JointPath::Rigid => {
            let on = ctx.settings.position_correction && use_bias;
            let bias_rate = match bias_factor {
                Some(beta) if on && !ctx.position_pass => beta * ctx.inv_dt,
                None if on && ctx.position_pass => JOINT_POSITION_FRACTION * ctx.inv_dt,
                _ => 0.0,
            };
            Softness {
                bias_rate,
                mass_scale: 1.0,
                impulse_scale: 0.0,
            }
        }
        JointPath::Soft if use_bias => ctx.joint_softness,
        JointPath::Soft => Softness::RIGID,
    }
}

/// Bias and softness of a one-sided constraint (limit, rope) with position `c` (`c >= 0`
/// wanted): when `c > 0` the gap may close within this step (speculative, `bias = c / dt`,
/// rigid); otherwise as a rigid constraint, `bias = bias_rate * c`.
pub(crate) fn limit_bias(ctx: &StepContext, use_bias: bool, c: f32) -> (f32, Softness) {
    if c > 0.0 {
        (c * ctx.inv_dt, Softness::RIGID)
    } else {
        let s = rigid_softness(ctx, use_bias, None);
        (s.bias_rate * c, s)
    }
}

/// A spring of `hertz` and `damping_ratio` for this (sub-)step (rigid-free when `hertz`
/// is 0: callers skip the spring then).
pub(crate) fn spring_softness(ctx: &StepContext, hertz: f32, damping_ratio: f32) -> Softness {
    Softness::new(hertz, damping_ratio, ctx.dt)
}

/// Add the increment `delta` to the accumulated impulse `acc` and return the increment to
/// apply. With `accumulate`, the accumulated impulse is kept in `[lo, hi]` (sequential
/// impulses); without it, the increment itself is clamped (the naive scheme the toggle
/// demonstrates).
#[inline]
pub(crate) fn clamp_increment(
    acc: &mut f32,
    delta: f32,
    lo: f32,
    hi: f32,
    accumulate: bool,
) -> f32 {
    if accumulate {
        let old = *acc;
        *acc = (old + delta).clamp(lo, hi);
        *acc - old
    } else {
        let d = delta.clamp(lo, hi);
        *acc += d;
        d
    }
}

/// As [`clamp_increment`] for a vector impulse bounded in length by `max`.
#[inline]
pub(crate) fn clamp_increment_vec(acc: &mut Vec2, delta: Vec2, max: f32, accumulate: bool) -> Vec2 {
    let clamp = |v: Vec2| {
        if v.length_squared() > max * max {
            v * (max / v.length())
        } else {
            v
        }
    };
    if accumulate {
        let old = *acc;
        *acc = clamp(old + delta);
        *acc - old
    } else {
        let d = clamp(delta);
        *acc += d;
        d
    }
}

/// Solve the symmetric 2x2 system `[k11 k12; k12 k22] x = b` (zero when singular).
#[inline]
pub(crate) fn solve22(k: (f32, f32, f32), b: Vec2) -> Vec2 {
    let (k11, k12, k22) = k;
    let det = k11 * k22 - k12 * k12;
    if det == 0.0 || !det.is_finite() {
        return Vec2::ZERO;
    }
    let inv = 1.0 / det;
    Vec2::new(inv * (k22 * b.x - k12 * b.y), inv * (k11 * b.y - k12 * b.x))
}

/// Solve the 3x3 system with columns `ex, ey, ez` by Cramer's rule. `None` when singular.
pub(crate) fn solve33(ex: Vec3, ey: Vec3, ez: Vec3, b: Vec3) -> Option<Vec3> {
    let det = ex.dot(ey.cross(ez));
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let inv = 1.0 / det;
    Some(Vec3::new(
        inv * b.dot(ey.cross(ez)),
        inv * ex.dot(b.cross(ez)),
        inv * ex.dot(ey.cross(b)),
    ))
}

/// `Ok` when `lower <= upper` (both finite).
pub(crate) fn check_order(
    lower_field: &'static str,
    lower: f32,
    upper_field: &'static str,
    upper: f32,
) -> PhysicsResult<()> {
    check_finite(lower_field, lower)?;
    check_finite(upper_field, upper)?;
    if lower > upper {
        return Err(PhysicsError::new(
            lower_field,
            format!("must not exceed {upper_field} ({upper}), got {lower}"),
        ));
    }
    Ok(())
}

/// A unit vector from a world axis; refuses zero length and NaN.
pub(crate) fn unit_axis(field: &'static str, axis: Vec2) -> PhysicsResult<Vec2> {
    check_finite_vec(field, axis)?;
    let len = axis.length();
    if len < 1e-6 {
        return Err(PhysicsError::new(
            field,
            "must be a direction (non-zero length), got (0, 0)",
        ));
    }
    Ok(axis / len)
}

// Drawing helpers.

/// Size of anchor dots, pixels.
pub(crate) const ANCHOR_SIZE: f32 = 6.0;

/// Lines from the centres of moving bodies to their anchors and a dot on each anchor.
pub(crate) fn draw_anchors(
    body_a: &Body,
    body_b: &Body,
    p_a: Vec2,
    p_b: Vec2,
    draw: &mut dyn DebugDraw,
    flags: &DrawFlags,
) {
    if flags.joints {
        if body_a.kind != crate::physics::body::BodyKind::Static {
            draw.draw_segment(body_a.center, p_a, DrawKind::Joint);
        }
        if body_b.kind != crate::physics::body::BodyKind::Static {
            draw.draw_segment(body_b.center, p_b, DrawKind::Joint);
        }
        if (p_b - p_a).length_squared() > 1e-8 {
            draw.draw_segment(p_a, p_b, DrawKind::Joint);
        }
    }
    if flags.joint_anchors {
        draw.draw_point(p_a, ANCHOR_SIZE, DrawKind::JointAnchor);
        draw.draw_point(p_b, ANCHOR_SIZE, DrawKind::JointAnchor);
    }
}
