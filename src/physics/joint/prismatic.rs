//! Prismatic joint: B slides along an axis fixed in A, without relative rotation; optional
//! translation limits and a linear motor. Reference: seed 003 (line constraint plus angle
//! constraint, Jacobians and K); Box2D v3 `prismatic_joint.c` for the soft-step form.
//!
//! With `d = (c_b + r_b) - (c_a + r_a)`, `axis` fixed in A (turns with A), `perp = skew(axis)`:
//! ```text
//! Line + angle block (2 rows, solved together):
//!   C    = [perp . d,  angle_b - angle_a - reference_angle]
//!   Cdot = [perp . (v_b - v_a) + s_b w_b - s_a w_a,  w_b - w_a]
//!          s_a = (d + r_a) x perp,  s_b = r_b x perp
//!   J    = [-perp, -s_a, perp, s_b;  0, -1, 0, 1]
//!   K    = [m_a + m_b + i_a s_a^2 + i_b s_b^2,  i_a s_a + i_b s_b;
//!           i_a s_a + i_b s_b,                  i_a + i_b]
//! Axial rows (motor, lower and upper limit on translation = axis . d):
//!   Cdot = axis . (v_b - v_a) + a_b w_b - a_a w_a,  a_a = (d + r_a) x axis, a_b = r_b x axis
//!   J    = [-axis, -a_a, axis, a_b],  K = m_a + m_b + i_a a_a^2 + i_b a_b^2
//!   lower: C = translation - lower >= 0;  upper: C = upper - translation >= 0 (J negated)
//! ```
//! Sign convention: impulses act negatively on A and positively on B.

use super::{
    apply_axial, arm, check_order, clamp_increment, draw_anchors, inv_or_zero, limit_bias,
    rigid_softness, solve22, unit_axis, BodyPair,
};
use crate::physics::body::Body;
use crate::physics::debug_draw::{Color, DebugDraw, DrawFlags};
use crate::physics::error::{check_finite, check_finite_vec, check_non_negative, PhysicsResult};
use crate::physics::math::{cross, Vec2};
use crate::physics::solver::{SolverBody, StepContext};

/// Definition of a prismatic joint.
#[derive(Clone, Debug, PartialEq)]
pub struct PrismaticJointDef {
    /// A point on the slide, world metres; translation 0 is the initial configuration.
    /// Default (0, 0).
    pub anchor: Vec2,
    /// Slide direction, world (any non-zero length; normalised). Default (1, 0).
    pub axis: Vec2,
    /// Limit the translation to `[lower_translation, upper_translation]`. Default off.
    pub enable_limit: bool,
    /// Metres along the axis. Default 0.
    pub lower_translation: f32,
    /// Metres along the axis. Default 0.
    pub upper_translation: f32,
    /// Drive the relative speed along the axis to `motor_speed`. Default off.
    pub enable_motor: bool,
    /// m/s along the axis. Default 0.
    pub motor_speed: f32,
    /// N (>= 0). Default 0.
    pub max_motor_force: f32,
}

impl Default for PrismaticJointDef {
    fn default() -> Self {
        PrismaticJointDef {
            anchor: Vec2::ZERO,
            axis: Vec2::X,
            enable_limit: false,
            lower_translation: 0.0,
            upper_translation: 0.0,
            enable_motor: false,
            motor_speed: 0.0,
            max_motor_force: 0.0,
        }
    }
}

impl PrismaticJointDef {
    pub fn new(anchor: Vec2, axis: Vec2) -> Self {
        PrismaticJointDef {
            anchor,
            axis,
            ..Default::default()
        }
    }

    pub fn validate(&self) -> PhysicsResult<()> {
        check_finite_vec("anchor", self.anchor)?;
        unit_axis("axis", self.axis)?;
        check_order(
            "lower_translation",
            self.lower_translation,
            "upper_translation",
            self.upper_translation,
        )?;
        check_finite("motor_speed", self.motor_speed)?;
        check_non_negative("max_motor_force", self.max_motor_force)?;
        Ok(())
    }
}

/// A prismatic joint.
#[derive(Clone, Debug)]
pub struct PrismaticJoint {
    pub(crate) local_anchor_a: Vec2,
    pub(crate) local_anchor_b: Vec2,
    /// Unit axis in A's frame.
    pub(crate) local_axis_a: Vec2,
    pub(crate) reference_angle: f32,
    pub(crate) enable_limit: bool,
    pub(crate) lower_translation: f32,
    pub(crate) upper_translation: f32,
    pub(crate) enable_motor: bool,
    pub(crate) motor_speed: f32,
    pub(crate) max_motor_force: f32,

    // Accumulated impulses: (perpendicular, angular), motor, limits.
    pub(crate) impulse: Vec2,
    pub(crate) motor_impulse: f32,
    pub(crate) lower_impulse: f32,
    pub(crate) upper_impulse: f32,

    // Per step.
    pub(crate) pair: BodyPair,
    pub(crate) frame_a: Vec2,
    pub(crate) frame_b: Vec2,
    pub(crate) axis_a: Vec2,
}

/// The geometry of the slide at the current sub-step.
struct Slide {
    r_a: Vec2,
    r_b: Vec2,
    d: Vec2,
    axis: Vec2,
    perp: Vec2,
}

impl PrismaticJoint {
    pub(crate) fn new(
        def: &PrismaticJointDef,
        body_a: &Body,
        body_b: &Body,
    ) -> PhysicsResult<Self> {
        def.validate()?;
        let axis = unit_axis("axis", def.axis)?;
        Ok(PrismaticJoint {
            local_anchor_a: body_a.local_point(def.anchor),
            local_anchor_b: body_b.local_point(def.anchor),
            local_axis_a: body_a.q.inv_rotate(axis),
            reference_angle: body_b.angle - body_a.angle,
            enable_limit: def.enable_limit,
            lower_translation: def.lower_translation,
            upper_translation: def.upper_translation,
            enable_motor: def.enable_motor,
            motor_speed: def.motor_speed,
            max_motor_force: def.max_motor_force,
            impulse: Vec2::ZERO,
            motor_impulse: 0.0,
            lower_impulse: 0.0,
            upper_impulse: 0.0,
            pair: BodyPair::default(),
            frame_a: Vec2::ZERO,
            frame_b: Vec2::ZERO,
            axis_a: Vec2::X,
        })
    }

    // ----------------------------------------------------------------------------------
    // Accessors.

    pub fn anchor_a(&self, body_a: &Body) -> Vec2 {
        body_a.world_point(self.local_anchor_a)
    }
    pub fn anchor_b(&self, body_b: &Body) -> Vec2 {
        body_b.world_point(self.local_anchor_b)
    }
    /// The slide direction in world axes (turns with A).
    pub fn axis(&self, body_a: &Body) -> Vec2 {
        body_a.q.rotate(self.local_axis_a)
    }
    /// Current translation of B's anchor along the axis, metres.
    pub fn translation(&self, body_a: &Body, body_b: &Body) -> f32 {
        self.axis(body_a)
            .dot(self.anchor_b(body_b) - self.anchor_a(body_a))
    }
    pub fn is_limit_enabled(&self) -> bool {
        self.enable_limit
    }
    pub fn enable_limit(&mut self, on: bool) {
        self.enable_limit = on;
    }
    pub fn limits(&self) -> (f32, f32) {
        (self.lower_translation, self.upper_translation)
    }
    pub fn set_limits(&mut self, lower: f32, upper: f32) -> PhysicsResult<()> {
        check_order("lower_translation", lower, "upper_translation", upper)?;
        self.lower_translation = lower;
        self.upper_translation = upper;
        Ok(())
    }
    pub fn is_motor_enabled(&self) -> bool {
        self.enable_motor
    }
    pub fn enable_motor(&mut self, on: bool) {
        self.enable_motor = on;
    }
    pub fn motor_speed(&self) -> f32 {
        self.motor_speed
    }
    pub fn set_motor_speed(&mut self, speed: f32) {
        if speed.is_finite() {
            self.motor_speed = speed;
        }
    }
    pub fn set_max_motor_force(&mut self, force: f32) {
        if force.is_finite() && force >= 0.0 {
            self.max_motor_force = force;
        }
    }
    pub fn motor_force(&self, inv_dt: f32) -> f32 {
        self.motor_impulse * inv_dt
    }
    pub fn reaction_force(&self, inv_dt: f32) -> Vec2 {
        let perp = Vec2::new(-self.axis_a.y, self.axis_a.x);
        let axial = self.motor_impulse + self.lower_impulse - self.upper_impulse;
        (self.impulse.x * perp + axial * self.axis_a) * inv_dt
    }
    pub fn reaction_torque(&self, inv_dt: f32) -> f32 {
        self.impulse.y * inv_dt
    }
    /// Sideways distance of B's anchor from the slide plus any limit overrun, metres.
    pub fn linear_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        let axis = self.axis(body_a);
        let d = self.anchor_b(body_b) - self.anchor_a(body_a);
        let perp = Vec2::new(-axis.y, axis.x);
        let mut e = perp.dot(d).abs();
        if self.enable_limit {
            let t = axis.dot(d);
            e += (self.lower_translation - t)
                .max(t - self.upper_translation)
                .max(0.0);
        }
        e
    }
    /// Relative rotation, radians.
    pub fn angular_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        (body_b.angle - body_a.angle - self.reference_angle).abs()
    }

    fn zero_impulses(&mut self) {
        self.impulse = Vec2::ZERO;
        self.motor_impulse = 0.0;
        self.lower_impulse = 0.0;
        self.upper_impulse = 0.0;
    }

    fn slide(&self, a: &SolverBody, b: &SolverBody) -> Slide {
        let r_a = a.dq.rotate(self.frame_a);
        let r_b = b.dq.rotate(self.frame_b);
        let d = self.pair.separation(a, b, r_a, r_b);
        let axis = a.dq.rotate(self.axis_a);
        Slide {
            r_a,
            r_b,
            d,
            axis,
            perp: Vec2::new(-axis.y, axis.x),
        }
    }

    // ----------------------------------------------------------------------------------
    // Prepare.

    pub(crate) fn prepare(
        &mut self,
        pair: BodyPair,
        body_a: &Body,
        body_b: &Body,
        ctx: &StepContext,
    ) {
        self.pair = pair;
        self.frame_a = arm(body_a, self.local_anchor_a);
        self.frame_b = arm(body_b, self.local_anchor_b);
        self.axis_a = body_a.q.rotate(self.local_axis_a);
        if !ctx.warm_starting() {
            self.zero_impulses();
        }
        if !self.enable_limit {
            self.lower_impulse = 0.0;
            self.upper_impulse = 0.0;
        }
        if !self.enable_motor {
            self.motor_impulse = 0.0;
        }
    }

    // ----------------------------------------------------------------------------------
    // Warm start.

    pub(crate) fn warm_start(&mut self, bodies: &mut [SolverBody], ctx: &StepContext) {
        if !ctx.warm_starting() {
            self.zero_impulses();
            return;
        }
        let (mut a, mut b) = self.pair.load(bodies);
        let g = self.slide(&a, &b);
        let axial = self.motor_impulse + self.lower_impulse - self.upper_impulse;
        let a_a = cross(g.d + g.r_a, g.axis);
        let a_b = cross(g.r_b, g.axis);
        let s_a = cross(g.d + g.r_a, g.perp);
        let s_b = cross(g.r_b, g.perp);
        apply_axial(&mut a, &mut b, g.axis, a_a, a_b, axial);
        apply_axial(&mut a, &mut b, g.perp, s_a, s_b, self.impulse.x);
        a.w -= a.inv_inertia * self.impulse.y;
        b.w += b.inv_inertia * self.impulse.y;
        self.pair.store(bodies, &a, &b);
    }

    // ----------------------------------------------------------------------------------
    // Solve: motor, limits, then the line + angle block.

    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, use_bias: bool) {
        let pair = self.pair;
        let (mut a, mut b) = pair.load(bodies);
        let accumulate = ctx.settings.accumulate_impulses;
        let g = self.slide(&a, &b);
        let (m_a, m_b, i_a, i_b) = (pair.m_a, pair.m_b, pair.i_a, pair.i_b);

        // Axial rows share one Jacobian.
        let a_a = cross(g.d + g.r_a, g.axis);
        let a_b = cross(g.r_b, g.axis);
        let axial_mass = inv_or_zero(m_a + m_b + i_a * a_a * a_a + i_b * a_b * a_b);
        let axial_c_dot =
            |a: &SolverBody, b: &SolverBody| g.axis.dot(b.v - a.v) + a_b * b.w - a_a * a.w;

        if !ctx.position_pass {
            // Motor.
            if self.enable_motor {
                let c_dot = axial_c_dot(&a, &b) - self.motor_speed;
                let impulse = -axial_mass * c_dot;
                let max = self.max_motor_force * ctx.dt;
                let inc = clamp_increment(&mut self.motor_impulse, impulse, -max, max, accumulate);
                apply_axial(&mut a, &mut b, g.axis, a_a, a_b, inc);
            }
        }
        // Limits.
        if self.enable_limit {
            let translation = g.axis.dot(g.d);
            {
                let c = translation - self.lower_translation;
                let (bias, s) = limit_bias(ctx, use_bias, c);
                let c_dot = axial_c_dot(&a, &b);
                let impulse = -s.mass_scale * axial_mass * (c_dot + bias)
                    - s.impulse_scale * self.lower_impulse;
                let inc = clamp_increment(
                    &mut self.lower_impulse,
                    impulse,
                    0.0,
                    f32::INFINITY,
                    accumulate,
                );
                apply_axial(&mut a, &mut b, g.axis, a_a, a_b, inc);
            }
            {
                let c = self.upper_translation - translation;
                let (bias, s) = limit_bias(ctx, use_bias, c);
                let c_dot = -axial_c_dot(&a, &b);
                let impulse = -s.mass_scale * axial_mass * (c_dot + bias)
                    - s.impulse_scale * self.upper_impulse;
                let inc = clamp_increment(
                    &mut self.upper_impulse,
                    impulse,
                    0.0,
                    f32::INFINITY,
                    accumulate,
                );
                apply_axial(&mut a, &mut b, g.axis, a_a, a_b, -inc);
            }
        }

        // Line + angle block.
        {
            let s_a = cross(g.d + g.r_a, g.perp);
            let s_b = cross(g.r_b, g.perp);
            let k11 = m_a + m_b + i_a * s_a * s_a + i_b * s_b * s_b;
            let k12 = i_a * s_a + i_b * s_b;
            let mut k22 = i_a + i_b;
            if k22 == 0.0 {
                // Neither body turns: the angle row is void; keep K invertible.
                k22 = 1.0;
            }
            let soft = rigid_softness(ctx, use_bias, None);
            let c = Vec2::new(
                g.perp.dot(g.d),
                pair.relative_angle(&a, &b) - self.reference_angle,
            );
            let c_dot = Vec2::new(g.perp.dot(b.v - a.v) + s_b * b.w - s_a * a.w, b.w - a.w);
            let impulse = -soft.mass_scale * solve22((k11, k12, k22), c_dot + soft.bias_rate * c)
                - soft.impulse_scale * self.impulse;
            self.impulse += impulse;
            apply_axial(&mut a, &mut b, g.perp, s_a, s_b, impulse.x);
            a.w -= a.inv_inertia * impulse.y;
            b.w += b.inv_inertia * impulse.y;
        }

        pair.store(bodies, &a, &b);
    }

    // ----------------------------------------------------------------------------------
    // Draw.

    pub(crate) fn draw(
        &self,
        body_a: &Body,
        body_b: &Body,
        draw: &mut dyn DebugDraw,
        flags: &DrawFlags,
    ) {
        let p_a = self.anchor_a(body_a);
        let p_b = self.anchor_b(body_b);
        draw_anchors(body_a, body_b, p_a, p_b, draw, flags);
        if flags.joints {
            let axis = self.axis(body_a);
            let perp = Vec2::new(-axis.y, axis.x);
            if self.enable_limit {
                let lower = p_a + self.lower_translation * axis;
                let upper = p_a + self.upper_translation * axis;
                draw.draw_segment(lower, upper, Color::JOINT);
                draw.draw_segment(lower - 0.25 * perp, lower + 0.25 * perp, Color::JOINT_LIMIT);
                draw.draw_segment(upper - 0.25 * perp, upper + 0.25 * perp, Color::JOINT_LIMIT);
            } else {
                draw.draw_segment(p_a - axis, p_a + axis, Color::JOINT);
            }
        }
    }
}
