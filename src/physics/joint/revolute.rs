//! Revolute joint: two bodies share a point (a pin, hinge or axle), with an optional angle
//! limit and motor. Reference: seed 000 (Box2D-Lite's joint: local anchors, the 2x2 K as
//! K1 + K2 + K3, softness, bias factor, warm starting with the accumulated impulse P).
//!
//! Point constraint (2 rows), arms `r_a`, `r_b` from the centres of mass:
//! ```text
//! C    = (c_b + r_b) - (c_a + r_a)                       (metres, vector)
//! Cdot = v_b + w_b x r_b - v_a - w_a x r_a
//! J    = [-I, -skew(r_a), I, skew(r_b)]
//! K    = (m_a + m_b) I + i_a [r_a.y^2, -r_a.x r_a.y; -r_a.x r_a.y, r_a.x^2] + i_b [.. r_b ..]
//! ```
//! Box2D-Lite softness `gamma` (the joint's `softness`) adds to K's diagonal and feeds back
//! the accumulated impulse: `impulse = -(K + gamma I)^-1 (Cdot + bias + gamma P)` with
//! `bias = (bias_factor / dt) C`.
//!
//! Angle rows (spring, motor, lower and upper limit), `angle = angle_b - angle_a -
//! reference_angle`:
//! ```text
//! spring: C = angle, Cdot = w_b - w_a, soft (Box2D v3 `revolute_joint.c`):
//!         impulse = -mass_scale K^-1 (Cdot + bias_rate C) - impulse_scale P_spring
//!         with bias_rate, mass_scale, impulse_scale from (spring_hertz,
//!         spring_damping_ratio, dt) (`solver/softness.rs`); a physical spring, so it acts
//!         in the relax pass too (no bias switch), but not in the classic position pass
//! motor: Cdot = w_b - w_a - motor_speed,     |impulse| <= max_motor_torque dt
//! lower: C = angle - lower >= 0, Cdot = w_b - w_a,  impulse >= 0 (acts +B, -A)
//! upper: C = upper - angle >= 0, Cdot = w_a - w_b,  impulse >= 0 (acts -B, +A)
//! J = [0, -1, 0, 1] (or its negative for the upper limit),  K = i_a + i_b
//! ```
//! Sign convention: impulses act negatively on A and positively on B.

use super::rows::{Bound, Limit, LimitFields, Motor};
use super::state::OptionalImpulse;
use super::Anchors;
use super::{apply_angular, check_order, draw_anchors, rigid_softness, spring_softness};
use crate::physics::body::Body;
use crate::physics::debug_draw::{DebugDraw, DrawFlags, DrawKind};
use crate::physics::error::{check_finite, check_finite_vec, check_non_negative};
use crate::physics::error::{PhysicsError, PhysicsResult};
use crate::physics::math::{Rot, Vec2};
use crate::physics::settings::JointPath;
use crate::physics::solver::contact_simd::BodyW;
use crate::physics::solver::revolute_pin::{PointRows, PointSoftness};
use crate::physics::solver::wide::Vec2W;
use crate::physics::solver::{SolverBody, StepContext};

/// A vector as one lane of the point kernel.
fn lane(v: Vec2) -> Vec2W<f32> {
    Vec2W { x: v.x, y: v.y }
}

/// Definition of a revolute joint.
#[derive(Clone, Debug, PartialEq)]
pub struct RevoluteJointDef {
    /// The shared point, world metres. Default (0, 0).
    pub anchor: Vec2,
    /// `angle_b - angle_a` at which the joint angle is zero, radians: the limits are
    /// measured from it and the spring pulls towards it. Default `None` (the bodies'
    /// relative angle at creation).
    pub reference_angle: Option<f32>,
    /// Box2D-Lite softness added to K's diagonal (1/kg; `1 / (d + dt k)` for a spring of
    /// damping `d` and stiffness `k`). Classic solver only. Default 0 (rigid).
    pub softness: f32,
    /// Own Baumgarte factor (0..1) instead of the world's. Classic solver only; ignored when
    /// position correction is off. Default `None` (the world's `bias_factor`).
    pub bias_factor: Option<f32>,
    /// Limit the relative angle to `[lower_angle, upper_angle]`. Default off.
    pub enable_limit: bool,
    /// Radians, relative to the initial relative angle. Default 0.
    pub lower_angle: f32,
    /// Radians, relative to the initial relative angle. Default 0.
    pub upper_angle: f32,
    /// Drive the relative angular speed to `motor_speed`. Default off.
    pub enable_motor: bool,
    /// rad/s (B relative to A, counter-clockwise). Default 0.
    pub motor_speed: f32,
    /// N m (>= 0). Default 0.
    pub max_motor_torque: f32,
    /// A soft angular spring pulling the joint angle to 0 (the reference angle), Box2D v3's
    /// revolute spring. Default off.
    pub enable_spring: bool,
    /// Spring frequency, Hz (>= 0; 0: no spring). Default 0.
    pub spring_hertz: f32,
    /// Spring damping ratio (>= 0; 1 is critical). Default 0.
    pub spring_damping_ratio: f32,
}

impl Default for RevoluteJointDef {
    fn default() -> Self {
        RevoluteJointDef {
            anchor: Vec2::ZERO,
            reference_angle: None,
            softness: 0.0,
            bias_factor: None,
            enable_limit: false,
            lower_angle: 0.0,
            upper_angle: 0.0,
            enable_motor: false,
            motor_speed: 0.0,
            max_motor_torque: 0.0,
            enable_spring: false,
            spring_hertz: 0.0,
            spring_damping_ratio: 0.0,
        }
    }
}

impl RevoluteJointDef {
    /// A free pin at a world point.
    pub fn new(anchor: Vec2) -> Self {
        RevoluteJointDef {
            anchor,
            ..Default::default()
        }
    }

    pub fn validate(&self) -> PhysicsResult<()> {
        check_finite_vec("anchor", self.anchor)?;
        if let Some(reference) = self.reference_angle {
            check_finite("reference_angle", reference)?;
        }
        check_non_negative("softness", self.softness)?;
        if let Some(beta) = self.bias_factor {
            check_finite("bias_factor", beta)?;
            if !(0.0..=1.0).contains(&beta) {
                return Err(PhysicsError::new(
                    "bias_factor",
                    format!("must be between 0 and 1, got {beta}"),
                ));
            }
        }
        check_order(LIMIT.0, self.lower_angle, LIMIT.1, self.upper_angle)?;
        check_finite("motor_speed", self.motor_speed)?;
        check_non_negative("max_motor_torque", self.max_motor_torque)?;
        check_non_negative("spring_hertz", self.spring_hertz)?;
        check_non_negative("spring_damping_ratio", self.spring_damping_ratio)?;
        Ok(())
    }
}

/// The definition fields of the limits, for error messages.
const LIMIT: LimitFields = ("lower_angle", "upper_angle");

/// A revolute joint.
#[derive(Clone, Debug)]
pub struct RevoluteJoint {
    pub(crate) local_anchor_a: Vec2,
    pub(crate) local_anchor_b: Vec2,
    pub(crate) reference_angle: f32,
    pub(crate) softness: f32,
    pub(crate) bias_factor: Option<f32>,
    /// On the joint angle, radians, with its accumulated impulses.
    pub(crate) limit: Limit,
    /// On the relative angular speed, rad/s and N m, with its accumulated impulse.
    pub(crate) motor: Motor,
    /// Angular spring towards the reference angle: on, Hz, damping ratio.
    pub(crate) enable_spring: bool,
    pub(crate) spring_hertz: f32,
    pub(crate) spring_damping_ratio: f32,

    // Accumulated impulses of the point and the spring (kept across steps for warm
    // starting).
    pub(crate) linear_impulse: Vec2,
    pub(crate) spring_impulse: OptionalImpulse,

    // Per step.
    /// The bodies and the anchors' arms, prepared before dispatch (`Anchors`).
    pub(crate) anchors: Anchors,
    pub(crate) axial_mass: f32,
}

super::saved_state! {
    /// What a revolute joint carries from step to step beyond its definition (see
    /// `JointState`); the order of the fields is the order of the state hash.
    RevoluteState for RevoluteJoint {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        reference_angle: f32,
        linear_impulse: Vec2,
        motor_impulse: f32 = motor.impulse,
        lower_impulse: f32 = limit.lower_impulse,
        upper_impulse: f32 = limit.upper_impulse,
        spring_impulse: OptionalImpulse,
    }
}

impl RevoluteJoint {
    pub(crate) fn new(def: &RevoluteJointDef, body_a: &Body, body_b: &Body) -> PhysicsResult<Self> {
        def.validate()?;
        Ok(RevoluteJoint {
            local_anchor_a: body_a.local_point(def.anchor),
            local_anchor_b: body_b.local_point(def.anchor),
            reference_angle: def.reference_angle.unwrap_or(body_b.angle - body_a.angle),
            softness: def.softness,
            bias_factor: def.bias_factor,
            limit: Limit::new(def.enable_limit, def.lower_angle, def.upper_angle),
            motor: Motor::new(def.enable_motor, def.motor_speed, def.max_motor_torque),
            enable_spring: def.enable_spring,
            spring_hertz: def.spring_hertz,
            spring_damping_ratio: def.spring_damping_ratio,
            linear_impulse: Vec2::ZERO,
            spring_impulse: OptionalImpulse(0.0),
            anchors: Anchors::default(),
            axial_mass: 0.0,
        })
    }

    // ----------------------------------------------------------------------------------
    // Accessors.

    pub fn local_anchor_a(&self) -> Vec2 {
        self.local_anchor_a
    }
    pub fn local_anchor_b(&self) -> Vec2 {
        self.local_anchor_b
    }
    pub fn anchor_a(&self, body_a: &Body) -> Vec2 {
        body_a.world_point(self.local_anchor_a)
    }
    pub fn anchor_b(&self, body_b: &Body) -> Vec2 {
        body_b.world_point(self.local_anchor_b)
    }
    /// `angle_b - angle_a` at which the joint angle is zero, radians (the definition's, or
    /// the bodies' relative angle at creation).
    pub fn reference_angle(&self) -> f32 {
        self.reference_angle
    }
    /// Current joint angle `angle_b - angle_a - reference_angle`, radians.
    pub fn joint_angle(&self, body_a: &Body, body_b: &Body) -> f32 {
        body_b.angle - body_a.angle - self.reference_angle
    }
    pub fn softness(&self) -> f32 {
        self.softness
    }
    pub fn set_softness(&mut self, softness: f32) {
        if softness.is_finite() && softness >= 0.0 {
            self.softness = softness;
        }
    }
    pub fn bias_factor(&self) -> Option<f32> {
        self.bias_factor
    }
    pub fn set_bias_factor(&mut self, bias_factor: Option<f32>) {
        self.bias_factor = bias_factor.filter(|b| (0.0..=1.0).contains(b));
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
    /// Set the limits, radians. Refused (with the field named) when `lower > upper`.
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
    pub fn max_motor_torque(&self) -> f32 {
        self.motor.max
    }
    pub fn set_max_motor_torque(&mut self, torque: f32) {
        self.motor.set_max(torque);
    }
    /// The spring: (on, Hz, damping ratio).
    pub fn spring(&self) -> (bool, f32, f32) {
        (
            self.enable_spring,
            self.spring_hertz,
            self.spring_damping_ratio,
        )
    }
    /// Set the spring (hertz and damping ratio >= 0 and finite; other values are ignored).
    pub fn set_spring(&mut self, enable: bool, hertz: f32, damping_ratio: f32) {
        self.enable_spring = enable;
        if hertz.is_finite() && hertz >= 0.0 {
            self.spring_hertz = hertz;
        }
        if damping_ratio.is_finite() && damping_ratio >= 0.0 {
            self.spring_damping_ratio = damping_ratio;
        }
    }
    /// True when the spring acts (on, with a frequency above 0).
    fn spring_on(&self) -> bool {
        self.enable_spring && self.spring_hertz > 0.0
    }
    /// Spring torque of the last step, N m.
    pub fn spring_torque(&self, inv_dt: f32) -> f32 {
        self.spring_impulse.0 * inv_dt
    }
    /// The angular impulse of the motor and the spring (when on) together.
    fn axial_base(&self) -> f32 {
        if self.spring_on() {
            self.motor.impulse + self.spring_impulse.0
        } else {
            self.motor.impulse
        }
    }
    /// Motor torque of the last step, N m (`inv_dt` as in `Joint::reaction_force`).
    pub fn motor_torque(&self, inv_dt: f32) -> f32 {
        self.motor.impulse * inv_dt
    }
    pub fn reaction_force(&self, inv_dt: f32) -> Vec2 {
        self.linear_impulse * inv_dt
    }
    pub fn reaction_torque(&self, inv_dt: f32) -> f32 {
        self.limit.net_impulse(self.axial_base()) * inv_dt
    }
    /// Distance between the two anchors, metres.
    pub fn linear_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        (self.anchor_b(body_b) - self.anchor_a(body_a)).length()
    }
    /// How far the angle is outside the limits, radians (0 without limits).
    pub fn angular_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        if !self.limit.enabled {
            return 0.0;
        }
        self.limit.overrun(self.joint_angle(body_a, body_b))
    }

    /// Forget the accumulated impulses (warm starting off).
    pub(super) fn zero_impulses(&mut self) {
        self.linear_impulse = Vec2::ZERO;
        self.motor.impulse = 0.0;
        self.spring_impulse = OptionalImpulse(0.0);
        self.limit.reset();
    }

    // ----------------------------------------------------------------------------------
    // Prepare.

    pub(crate) fn prepare(
        &mut self,
        anchors: &Anchors,
        _body_a: &Body,
        _body_b: &Body,
        _ctx: &StepContext,
    ) {
        self.anchors = *anchors;
        let pair = anchors.pair;
        self.axial_mass = pair.axial_mass();
        self.limit.prepare();
        self.motor.prepare();
        if !self.spring_on() {
            self.spring_impulse = OptionalImpulse(0.0);
        }
    }

    // ----------------------------------------------------------------------------------
    // Warm start.

    pub(crate) fn warm_start(&mut self, bodies: &mut [SolverBody], _ctx: &StepContext) {
        let linear = self.linear_impulse;
        let axial = self.limit.net_impulse(self.axial_base());
        self.anchors.pair.warm_start_point(
            bodies,
            self.anchors.frame_a,
            self.anchors.frame_b,
            linear,
            axial,
        );
    }

    // ----------------------------------------------------------------------------------
    // Solve: spring, motor, limits, then the point.

    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, use_bias: bool) {
        let pair = self.anchors.pair;
        let (mut a, mut b) = pair.load(bodies);
        let mass = self.axial_mass;

        if !ctx.position_pass {
            // Spring: C = angle, Cdot = w_b - w_a, soft. Also in the relax pass: it is part
            // of the model, not drift correction (Box2D v3).
            if self.spring_on() && mass > 0.0 {
                let s = spring_softness(ctx, self.spring_hertz, self.spring_damping_ratio);
                let angle = pair.relative_angle(&a, &b) - self.reference_angle;
                let impulse = -s.mass_scale * mass * (b.w - a.w + s.bias_rate * angle)
                    - s.impulse_scale * self.spring_impulse.0;
                self.spring_impulse.0 += impulse;
                apply_angular(&mut a, &mut b, impulse);
            }
            // Motor: Cdot = w_b - w_a - motor_speed.
            if self.motor.enabled && mass > 0.0 {
                let inc = self.motor.solve(ctx, mass, b.w - a.w);
                apply_angular(&mut a, &mut b, inc);
            }
        }
        // Limits.
        if self.limit.enabled && mass > 0.0 {
            let angle = pair.relative_angle(&a, &b) - self.reference_angle;
            // Lower: C = angle - lower, Cdot = w_b - w_a.
            let inc = self
                .limit
                .solve_row(Bound::Lower, ctx, use_bias, mass, angle, b.w - a.w);
            apply_angular(&mut a, &mut b, inc);
            // Upper: C = upper - angle, Cdot = w_a - w_b (signs flipped).
            let inc = self
                .limit
                .solve_row(Bound::Upper, ctx, use_bias, mass, angle, a.w - b.w);
            apply_angular(&mut a, &mut b, -inc);
        }

        // Point. A Box2D-Lite soft joint (own softness or bias factor) corrects its drift in
        // the velocity iterations and sits out the classic position pass.
        let lite_soft = self.softness > 0.0 || self.bias_factor.is_some();
        if !(ctx.position_pass && lite_soft) {
            let (s, gamma) = match ctx.settings.solver.joint_path() {
                JointPath::Rigid if lite_soft => (
                    rigid_softness(
                        ctx,
                        use_bias,
                        Some(self.bias_factor.unwrap_or(ctx.settings.bias_factor)),
                    ),
                    self.softness,
                ),
                JointPath::Rigid => (rigid_softness(ctx, use_bias, None), 0.0),
                JointPath::Soft => (rigid_softness(ctx, use_bias, None), 0.0),
            };
            // The one point kernel (`solver/revolute_pin.rs`), one lane.
            let rows = PointRows::<f32> {
                inv_mass_a: pair.m_a,
                inv_inertia_a: pair.i_a,
                inv_mass_b: pair.m_b,
                inv_inertia_b: pair.i_b,
                frame_a: lane(self.anchors.frame_a),
                frame_b: lane(self.anchors.frame_b),
                delta_center: lane(pair.center_b - pair.center_a),
            };
            let (mut a1, mut b1) = (BodyW::of(&a), BodyW::of(&b));
            let mut impulse = lane(self.linear_impulse);
            rows.solve(
                &mut a1,
                &mut b1,
                &mut impulse,
                &PointSoftness::new(s, Some(gamma)),
            );
            self.linear_impulse = Vec2::new(impulse.x, impulse.y);
            a1.store_velocity(&mut a);
            b1.store_velocity(&mut b);
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
        if flags.joints && self.limit.enabled {
            // Two rays from the pin at the limit angles, in A's frame, and B's current one.
            const LENGTH: f32 = 0.5;
            let base = body_a.angle + self.reference_angle;
            for limit in [self.limit.lower, self.limit.upper] {
                let dir = Rot::from_angle(base + limit).x_axis();
                draw.draw_segment(p_b, p_b + LENGTH * dir, DrawKind::JointLimit);
            }
            let dir = Rot::from_angle(body_b.angle).x_axis();
            draw.draw_segment(p_b, p_b + LENGTH * dir, DrawKind::Joint);
        }
    }
}

/// A free pin (no limit, motor or spring) as the soft step packs it (`solver::revolute_pin::Pins`):
/// the point rows of `RevoluteJoint::solve`, solved by the same kernel (rigid in the relax
/// pass, `joint_softness` in the solve pass), several pins at a time. The accumulated
/// impulse goes back to the joint in the `store_joint_state` stage.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RevoluteRow {
    /// Slot of the joint in the world's joint arena.
    pub joint: u32,
    pub index_a: u32,
    pub index_b: u32,
    /// Arms from the centres of mass at the start of the step, world axes.
    pub frame_a: Vec2,
    pub frame_b: Vec2,
    /// `center_b - center_a` at the start of the step.
    pub delta_center: Vec2,
    pub linear_impulse: Vec2,
}

impl RevoluteRow {
    /// The row of a prepared joint, when the joint is a free pin (else `None`).
    pub(crate) fn of(joint: &RevoluteJoint, slot: usize) -> Option<RevoluteRow> {
        if joint.limit.enabled || joint.motor.enabled || joint.spring_on() {
            return None;
        }
        let pair = joint.anchors.pair;
        Some(RevoluteRow {
            joint: slot as u32,
            index_a: pair.index_a as u32,
            index_b: pair.index_b as u32,
            frame_a: joint.anchors.frame_a,
            frame_b: joint.anchors.frame_b,
            delta_center: pair.center_b - pair.center_a,
            linear_impulse: joint.linear_impulse,
        })
    }
}
