//! Wheel (line) joint: B's anchor stays on a line fixed in A; B turns freely. A suspension
//! spring acts along the line, a motor on the rotation, optional limits on the translation.
//! Reference: seed 003 (line constraint: Jacobian and K); Box2D v3 `wheel_joint.c` for the
//! spring and soft-step form.
//!
//! With `d = (c_b + r_b) - (c_a + r_a)`, `axis` fixed in A, `perp = skew(axis)`:
//! ```text
//! Line (point-to-line, rigid):
//!   C    = perp . d
//!   Cdot = perp . (v_b - v_a) + s_b w_b - s_a w_a,  s_a = (d + r_a) x perp, s_b = r_b x perp
//!   J    = [-perp, -s_a, perp, s_b],  K = m_a + m_b + i_a s_a^2 + i_b s_b^2
//! Spring, motor-free axial rows (translation = axis . d):
//!   C    = translation (spring: soft, rest at the initial configuration; limits: one-sided)
//!   Cdot = axis . (v_b - v_a) + a_b w_b - a_a w_a,  a_a = (d + r_a) x axis, a_b = r_b x axis
//!   J    = [-axis, -a_a, axis, a_b],  K = m_a + m_b + i_a a_a^2 + i_b a_b^2
//! Motor (rotation): Cdot = w_b - w_a - motor_speed,  J = [0, -1, 0, 1],  K = i_a + i_b
//! ```
//! Sign convention: impulses act negatively on A and positively on B.

use super::rows::{Limit, LimitFields, Motor};
use super::Anchors;
use super::{
    apply_angular, check_order, draw_anchors, rigid_softness, spring_softness, unit_axis, Slide,
};
use crate::physics::body::Body;
use crate::physics::debug_draw::{DebugDraw, DrawFlags, DrawKind};
use crate::physics::error::{check_finite, check_finite_vec, check_non_negative, PhysicsResult};
use crate::physics::math::Vec2;
use crate::physics::solver::{SolverBody, StepContext};

/// Definition of a wheel joint.
#[derive(Clone, Debug, PartialEq)]
pub struct WheelJointDef {
    /// The wheel's axle point, world metres (usually B's centre). Default (0, 0).
    pub anchor: Vec2,
    /// Suspension direction, world (normalised). Default (0, 1).
    pub axis: Vec2,
    /// Spring along the axis, rest at the initial configuration. Default on.
    pub enable_spring: bool,
    /// Spring frequency, Hz (>= 0; 0 = no spring, free slide). Default 1.
    pub hertz: f32,
    /// Spring damping ratio (>= 0; 1 = critical). Default 0.7.
    pub damping_ratio: f32,
    /// Drive the relative angular speed. Default off.
    pub enable_motor: bool,
    /// rad/s. Default 0.
    pub motor_speed: f32,
    /// N m (>= 0). Default 0.
    pub max_motor_torque: f32,
    /// Limit the translation along the axis. Default off.
    pub enable_limit: bool,
    /// Metres. Default 0.
    pub lower_translation: f32,
    /// Metres. Default 0.
    pub upper_translation: f32,
}

impl Default for WheelJointDef {
    fn default() -> Self {
        WheelJointDef {
            anchor: Vec2::ZERO,
            axis: Vec2::Y,
            enable_spring: true,
            hertz: 1.0,
            damping_ratio: 0.7,
            enable_motor: false,
            motor_speed: 0.0,
            max_motor_torque: 0.0,
            enable_limit: false,
            lower_translation: 0.0,
            upper_translation: 0.0,
        }
    }
}

impl WheelJointDef {
    pub fn new(anchor: Vec2, axis: Vec2) -> Self {
        WheelJointDef {
            anchor,
            axis,
            ..Default::default()
        }
    }

    pub fn validate(&self) -> PhysicsResult<()> {
        check_finite_vec("anchor", self.anchor)?;
        unit_axis("axis", self.axis)?;
        check_non_negative("hertz", self.hertz)?;
        check_non_negative("damping_ratio", self.damping_ratio)?;
        check_finite("motor_speed", self.motor_speed)?;
        check_non_negative("max_motor_torque", self.max_motor_torque)?;
        check_order(
            LIMIT.0,
            self.lower_translation,
            LIMIT.1,
            self.upper_translation,
        )?;
        Ok(())
    }
}

/// The definition fields of the limits, for error messages.
const LIMIT: LimitFields = ("lower_translation", "upper_translation");

/// A wheel joint.
#[derive(Clone, Debug)]
pub struct WheelJoint {
    pub(crate) local_anchor_a: Vec2,
    pub(crate) local_anchor_b: Vec2,
    pub(crate) local_axis_a: Vec2,
    pub(crate) enable_spring: bool,
    pub(crate) hertz: f32,
    pub(crate) damping_ratio: f32,
    /// On the rotation, rad/s and N m, with its accumulated impulse.
    pub(crate) motor: Motor,
    /// On the translation, metres, with its accumulated impulses.
    pub(crate) limit: Limit,

    // Accumulated impulses of the line and the spring.
    pub(crate) perp_impulse: f32,
    pub(crate) spring_impulse: f32,

    // Per step.
    /// The bodies and the anchors' arms, prepared before dispatch (`Anchors`).
    pub(crate) anchors: Anchors,
    pub(crate) axis_a: Vec2,
    pub(crate) motor_mass: f32,
}

super::saved_state! {
    /// What a wheel joint carries from step to step beyond its definition (see
    /// `JointState`); the order of the fields is the order of the state hash.
    WheelState for WheelJoint {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        local_axis_a: Vec2,
        perp_impulse: f32,
        spring_impulse: f32,
        motor_impulse: f32 = motor.impulse,
        lower_impulse: f32 = limit.lower_impulse,
        upper_impulse: f32 = limit.upper_impulse,
    }
}

impl WheelJoint {
    pub(crate) fn new(def: &WheelJointDef, body_a: &Body, body_b: &Body) -> PhysicsResult<Self> {
        def.validate()?;
        let axis = unit_axis("axis", def.axis)?;
        Ok(WheelJoint {
            local_anchor_a: body_a.local_point(def.anchor),
            local_anchor_b: body_b.local_point(def.anchor),
            local_axis_a: body_a.q.inv_rotate(axis),
            enable_spring: def.enable_spring,
            hertz: def.hertz,
            damping_ratio: def.damping_ratio,
            motor: Motor::new(def.enable_motor, def.motor_speed, def.max_motor_torque),
            limit: Limit::new(
                def.enable_limit,
                def.lower_translation,
                def.upper_translation,
            ),
            perp_impulse: 0.0,
            spring_impulse: 0.0,
            anchors: Anchors::default(),
            axis_a: Vec2::Y,
            motor_mass: 0.0,
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
    pub fn axis(&self, body_a: &Body) -> Vec2 {
        body_a.q.rotate(self.local_axis_a)
    }
    /// Current translation along the axis, metres.
    pub fn translation(&self, body_a: &Body, body_b: &Body) -> f32 {
        self.axis(body_a)
            .dot(self.anchor_b(body_b) - self.anchor_a(body_a))
    }
    pub fn spring(&self) -> (bool, f32, f32) {
        (self.enable_spring, self.hertz, self.damping_ratio)
    }
    /// Set the spring (hertz and damping ratio >= 0; other values are ignored).
    pub fn set_spring(&mut self, enable: bool, hertz: f32, damping_ratio: f32) {
        self.enable_spring = enable;
        if hertz.is_finite() && hertz >= 0.0 {
            self.hertz = hertz;
        }
        if damping_ratio.is_finite() && damping_ratio >= 0.0 {
            self.damping_ratio = damping_ratio;
        }
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
    pub fn set_max_motor_torque(&mut self, torque: f32) {
        self.motor.set_max(torque);
    }
    pub fn enable_limit(&mut self, on: bool) {
        self.limit.enabled = on;
    }
    pub fn set_limits(&mut self, lower: f32, upper: f32) -> PhysicsResult<()> {
        self.limit.set(LIMIT, lower, upper)
    }
    pub fn reaction_force(&self, inv_dt: f32) -> Vec2 {
        let perp = Vec2::new(-self.axis_a.y, self.axis_a.x);
        let axial = self.limit.net_impulse(self.spring_impulse);
        (self.perp_impulse * perp + axial * self.axis_a) * inv_dt
    }
    pub fn reaction_torque(&self, inv_dt: f32) -> f32 {
        self.motor.impulse * inv_dt
    }
    /// Sideways distance of B's anchor from the line (plus any limit overrun), metres.
    pub fn linear_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        let axis = self.axis(body_a);
        let d = self.anchor_b(body_b) - self.anchor_a(body_a);
        let mut e = Vec2::new(-axis.y, axis.x).dot(d).abs();
        if self.limit.enabled {
            e += self.limit.overrun(axis.dot(d));
        }
        e
    }
    /// Rotation is free: always 0.
    pub fn angular_error(&self, _body_a: &Body, _body_b: &Body) -> f32 {
        0.0
    }

    /// Forget the accumulated impulses (warm starting off).
    pub(super) fn zero_impulses(&mut self) {
        self.perp_impulse = 0.0;
        self.spring_impulse = 0.0;
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
        let pair = anchors.pair;
        self.axis_a = body_a.q.rotate(self.local_axis_a);
        self.motor_mass = pair.axial_mass();
        if !self.enable_spring || self.hertz == 0.0 {
            self.spring_impulse = 0.0;
        }
        self.limit.prepare();
        self.motor.prepare();
    }

    // ----------------------------------------------------------------------------------
    // Warm start.

    pub(crate) fn warm_start(&mut self, bodies: &mut [SolverBody], _ctx: &StepContext) {
        let (mut a, mut b) = self.anchors.pair.load(bodies);
        let g = self.slide(&a, &b);
        let axial = self.limit.net_impulse(self.spring_impulse);
        g.warm_start(&mut a, &mut b, axial, self.perp_impulse);
        apply_angular(&mut a, &mut b, self.motor.impulse);
        self.anchors.pair.store(bodies, &a, &b);
    }

    // ----------------------------------------------------------------------------------
    // Solve: spring, motor, limits, then the line.

    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, use_bias: bool) {
        let pair = self.anchors.pair;
        let (mut a, mut b) = pair.load(bodies);
        let g = self.slide(&a, &b);
        let axial = g.row(g.axis);
        let axial_mass = axial.mass();
        let translation = g.axis.dot(g.d);

        if !ctx.position_pass {
            // Spring (always on, also in the relax pass: it is part of the model, not drift
            // correction).
            if self.enable_spring && self.hertz > 0.0 {
                let s = spring_softness(ctx, self.hertz, self.damping_ratio);
                let c_dot = axial.c_dot(&a, &b);
                let impulse = -s.mass_scale * axial_mass * (c_dot + s.bias_rate * translation)
                    - s.impulse_scale * self.spring_impulse;
                self.spring_impulse += impulse;
                axial.apply(&mut a, &mut b, impulse);
            }

            // Motor: Cdot = w_b - w_a - motor_speed.
            if self.motor.enabled && self.motor_mass > 0.0 {
                let inc = self.motor.solve(ctx, self.motor_mass, b.w - a.w);
                apply_angular(&mut a, &mut b, inc);
            }
        }
        // Limits.
        if self.limit.enabled {
            self.limit
                .solve_line(ctx, use_bias, translation, &axial, &mut a, &mut b);
        }

        // Point-to-line.
        {
            let line = g.row(g.perp);
            let mass = line.mass();
            let soft = rigid_softness(ctx, use_bias, None);
            let c = g.perp.dot(g.d);
            let c_dot = line.c_dot(&a, &b);
            let impulse = -soft.mass_scale * mass * (c_dot + soft.bias_rate * c)
                - soft.impulse_scale * self.perp_impulse;
            self.perp_impulse += impulse;
            line.apply(&mut a, &mut b, impulse);
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
            draw.draw_segment(p_a - axis, p_a + axis, DrawKind::Joint);
            if self.limit.enabled {
                for t in [self.limit.lower, self.limit.upper] {
                    let p = p_a + t * axis;
                    draw.draw_segment(p - 0.25 * perp, p + 0.25 * perp, DrawKind::JointLimit);
                }
            }
        }
    }
}
