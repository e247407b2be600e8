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

use super::rows::{Limit, LimitFields, Motor};
use super::Anchors;
use super::{apply_angular, check_order, draw_anchors, rigid_softness, solve22, unit_axis, Slide};
use crate::physics::body::Body;
use crate::physics::debug_draw::{DebugDraw, DrawFlags, DrawKind};
use crate::physics::error::{check_finite, check_finite_vec, check_non_negative, PhysicsResult};
use crate::physics::math::Vec2;
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
            LIMIT.0,
            self.lower_translation,
            LIMIT.1,
            self.upper_translation,
        )?;
        check_finite("motor_speed", self.motor_speed)?;
        check_non_negative("max_motor_force", self.max_motor_force)?;
        Ok(())
    }
}

/// The definition fields of the limits, for error messages.
const LIMIT: LimitFields = ("lower_translation", "upper_translation");

/// A prismatic joint.
#[derive(Clone, Debug)]
pub struct PrismaticJoint {
    pub(crate) local_anchor_a: Vec2,
    pub(crate) local_anchor_b: Vec2,
    /// Unit axis in A's frame.
    pub(crate) local_axis_a: Vec2,
    pub(crate) reference_angle: f32,
    /// On the translation, metres, with its accumulated impulses.
    pub(crate) limit: Limit,
    /// Along the axis, m/s and N, with its accumulated impulse.
    pub(crate) motor: Motor,

    // Accumulated impulse of the line + angle block: (perpendicular, angular).
    pub(crate) impulse: Vec2,

    // Per step.
    /// The bodies and the anchors' arms, prepared before dispatch (`Anchors`).
    pub(crate) anchors: Anchors,
    pub(crate) axis_a: Vec2,
}

super::saved_state! {
    /// What a prismatic joint carries from step to step beyond its definition (see
    /// `JointState`); the order of the fields is the order of the state hash.
    PrismaticState for PrismaticJoint {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        local_axis_a: Vec2,
        reference_angle: f32,
        impulse: Vec2,
        motor_impulse: f32 = motor.impulse,
        lower_impulse: f32 = limit.lower_impulse,
        upper_impulse: f32 = limit.upper_impulse,
    }
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
            limit: Limit::new(
                def.enable_limit,
                def.lower_translation,
                def.upper_translation,
            ),
            motor: Motor::new(def.enable_motor, def.motor_speed, def.max_motor_force),
            impulse: Vec2::ZERO,
            anchors: Anchors::default(),
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
        self.limit.enabled
    }
    pub fn enable_limit(&mut self, on: bool) {
        self.limit.enabled = on;
    }
    pub fn limits(&self) -> (f32, f32) {
        self.limit.bounds()
    }
    pub fn set_limits(&mut self, lower: f32, upper: f32) -> PhysicsResult<()> {
        self.limit.set(LIMIT, lower, upper)
    }
    pub fn is_motor_enabled(&self) -> bool {
        self.motor.enabled
    }
    pub fn enable_motor(&mut self, on: bool) {
        self.motor.enabled = on;
    }
    pub fn motor_speed(&self) -> f32 {
        self.motor.speed
    }
    pub fn set_motor_speed(&mut self, speed: f32) {
        self.motor.set_speed(speed);
    }
    pub fn set_max_motor_force(&mut self, force: f32) {
        self.motor.set_max(force);
    }
    pub fn motor_force(&self, inv_dt: f32) -> f32 {
        self.motor.impulse * inv_dt
    }
    pub fn reaction_force(&self, inv_dt: f32) -> Vec2 {
        let perp = Vec2::new(-self.axis_a.y, self.axis_a.x);
        let axial = self.limit.net_impulse(self.motor.impulse);
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
        if self.limit.enabled {
            e += self.limit.overrun(axis.dot(d));
        }
        e
    }
    /// Relative rotation, radians.
    pub fn angular_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        (body_b.angle - body_a.angle - self.reference_angle).abs()
    }

    /// Forget the accumulated impulses (warm starting off).
    pub(super) fn zero_impulses(&mut self) {
        self.impulse = Vec2::ZERO;
        self.motor.impulse = 0.0;
        self.limit.reset();
    }

    /// Arms, separation and axis at the current sub-step.
    fn slide(&self, a: &SolverBody, b: &SolverBody) -> Slide {
        Slide::new(
            &self.anchors.pair,
            self.anchors.frame_a,
            self.anchors.frame_b,
            self.axis_a,
            a,
            b,
        )
    }

    // ----------------------------------------------------------------------------------
    // Prepare.

    pub(crate) fn prepare(
        &mut self,
        anchors: &Anchors,
        body_a: &Body,
        _body_b: &Body,
        _ctx: &StepContext,
    ) {
        self.anchors = *anchors;
        self.axis_a = body_a.q.rotate(self.local_axis_a);
        self.limit.prepare();
        self.motor.prepare();
    }

    // ----------------------------------------------------------------------------------
    // Warm start.

    pub(crate) fn warm_start(&mut self, bodies: &mut [SolverBody], _ctx: &StepContext) {
        let (mut a, mut b) = self.anchors.pair.load(bodies);
        let g = self.slide(&a, &b);
        let axial = self.limit.net_impulse(self.motor.impulse);
        g.warm_start(&mut a, &mut b, axial, self.impulse.x);
        apply_angular(&mut a, &mut b, self.impulse.y);
        self.anchors.pair.store(bodies, &a, &b);
    }

    // ----------------------------------------------------------------------------------
    // Solve: motor, limits, then the line + angle block.

    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, use_bias: bool) {
        let pair = self.anchors.pair;
        let (mut a, mut b) = pair.load(bodies);
        let g = self.slide(&a, &b);
        let (i_a, i_b) = (pair.i_a, pair.i_b);

        // Axial rows share one Jacobian.
        let axial = g.row(g.axis);
        let axial_mass = axial.mass();

        if !ctx.position_pass {
            // Motor: Cdot = axis . (v_b - v_a) + a_b w_b - a_a w_a - motor_speed.
            if self.motor.enabled {
                let inc = self.motor.solve(ctx, axial_mass, axial.c_dot(&a, &b));
                axial.apply(&mut a, &mut b, inc);
            }
        }
        // Limits.
        if self.limit.enabled {
            let translation = g.axis.dot(g.d);
            self.limit
                .solve_line(ctx, use_bias, translation, &axial, &mut a, &mut b);
        }

        // Line + angle block.
        {
            let line = g.row(g.perp);
            let (s_a, s_b) = (line.s_a, line.s_b);
            let k11 = line.k;
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
            let c_dot = Vec2::new(line.c_dot(&a, &b), b.w - a.w);
            let impulse = -soft.mass_scale * solve22((k11, k12, k22), c_dot + soft.bias_rate * c)
                - soft.impulse_scale * self.impulse;
            self.impulse += impulse;
            line.apply(&mut a, &mut b, impulse.x);
            apply_angular(&mut a, &mut b, impulse.y);
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
            if self.limit.enabled {
                let lower = p_a + self.limit.lower * axis;
                let upper = p_a + self.limit.upper * axis;
                draw.draw_segment(lower, upper, DrawKind::Joint);
                draw.draw_segment(
                    lower - 0.25 * perp,
                    lower + 0.25 * perp,
                    DrawKind::JointLimit,
                );
                draw.draw_segment(
                    upper - 0.25 * perp,
                    upper + 0.25 * perp,
                    DrawKind::JointLimit,
                );
            } else {
                draw.draw_segment(p_a - axis, p_a + axis, DrawKind::Joint);
            }
        }
    }
}
