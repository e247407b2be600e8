//! Motor joint: drives B towards a target position and angle relative to A (B's origin at
//! `linear_offset` in A's frame, B's angle at `angle_a + angular_offset`), with a bounded
//! force and torque. Reference: Box2D v2/v3 `motor_joint` (the correction is a velocity
//! target, not drift correction); seed 000 for the 2x2 point K.
//!
//! With `r_a = q_a (linear_offset - local_center_a)` and `r_b = -q_b local_center_b`:
//! ```text
//! Linear (2 rows):  C = (c_b + r_b) - (c_a + r_a)
//!                   Cdot = v_b + w_b x r_b - v_a - w_a x r_a
//!                   J = [-I, -skew(r_a), I, skew(r_b)],  K as the revolute joint's
//!                   impulse = -K^-1 (Cdot + correction_factor / dt * C),  |P| <= max_force dt
//! Angular (1 row):  C = angle_b - angle_a - angular_offset,  Cdot = w_b - w_a
//!                   J = [0, -1, 0, 1],  K = i_a + i_b,  |L| <= max_torque dt
//! ```
//! The target velocity `correction_factor / dt * C` closes the error by that fraction per
//! step (a time constant of `dt / correction_factor`) until the force cap binds. It is not
//! applied in the soft step's relax pass. Sign convention: negative on A, positive on B.

use super::Anchors;
use super::{
    apply_angular, apply_linear, clamp_increment, clamp_increment_vec, draw_anchors,
    point_velocity, solve22,
};
use crate::physics::body::Body;
use crate::physics::debug_draw::{DebugDraw, DrawFlags};
use crate::physics::error::{check_finite, check_finite_vec, check_non_negative};
use crate::physics::error::{PhysicsError, PhysicsResult};
use crate::physics::math::Vec2;
use crate::physics::solver::{SolverBody, StepContext};

/// Definition of a motor joint.
#[derive(Clone, Debug, PartialEq)]
pub struct MotorJointDef {
    /// Target position of B's origin in A's frame, metres. Default `None`: where it is now.
    pub linear_offset: Option<Vec2>,
    /// Target `angle_b - angle_a`, radians. Default `None`: the initial relative angle.
    pub angular_offset: Option<f32>,
    /// N (>= 0). Default 1.
    pub max_force: f32,
    /// N m (>= 0). Default 1.
    pub max_torque: f32,
    /// Fraction of the error closed per step, 0..1. Default 0.3.
    pub correction_factor: f32,
}

impl Default for MotorJointDef {
    fn default() -> Self {
        MotorJointDef {
            linear_offset: None,
            angular_offset: None,
            max_force: 1.0,
            max_torque: 1.0,
            correction_factor: 0.3,
        }
    }
}

impl MotorJointDef {
    pub fn validate(&self) -> PhysicsResult<()> {
        if let Some(offset) = self.linear_offset {
            check_finite_vec("linear_offset", offset)?;
        }
        if let Some(offset) = self.angular_offset {
            check_finite("angular_offset", offset)?;
        }
        check_non_negative("max_force", self.max_force)?;
        check_non_negative("max_torque", self.max_torque)?;
        check_correction(self.correction_factor)
    }
}

fn check_correction(factor: f32) -> PhysicsResult<()> {
    check_finite("correction_factor", factor)?;
    if !(0.0..=1.0).contains(&factor) {
        return Err(PhysicsError::new(
            "correction_factor",
            format!("must be between 0 and 1, got {factor}"),
        ));
    }
    Ok(())
}

/// A motor joint.
#[derive(Clone, Debug)]
pub struct MotorJoint {
    pub(crate) linear_offset: Vec2,
    pub(crate) angular_offset: f32,
    pub(crate) max_force: f32,
    pub(crate) max_torque: f32,
    pub(crate) correction_factor: f32,

    // Accumulated impulses.
    pub(crate) linear_impulse: Vec2,
    pub(crate) angular_impulse: f32,

    // Per step.
    /// The bodies and the anchors' arms, prepared before dispatch (`Anchors`).
    pub(crate) anchors: Anchors,
}

super::saved_state! {
    /// What a motor joint carries from step to step beyond its definition (see
    /// `JointState`); the order of the fields is the order of the state hash.
    MotorState for MotorJoint {
        linear_offset: Vec2,
        angular_offset: f32,
        linear_impulse: Vec2,
        angular_impulse: f32,
    }
}

impl MotorJoint {
    pub(crate) fn new(def: &MotorJointDef, body_a: &Body, body_b: &Body) -> PhysicsResult<Self> {
        def.validate()?;
        Ok(MotorJoint {
            linear_offset: def
                .linear_offset
                .unwrap_or_else(|| body_a.local_point(body_b.origin)),
            angular_offset: def.angular_offset.unwrap_or(body_b.angle - body_a.angle),
            max_force: def.max_force,
            max_torque: def.max_torque,
            correction_factor: def.correction_factor,
            linear_impulse: Vec2::ZERO,
            angular_impulse: 0.0,
            anchors: Anchors::default(),
        })
    }

    // ----------------------------------------------------------------------------------
    // Accessors.

    /// The target point in the world.
    pub fn anchor_a(&self, body_a: &Body) -> Vec2 {
        body_a.world_point(self.linear_offset)
    }
    /// B's origin.
    pub fn anchor_b(&self, body_b: &Body) -> Vec2 {
        body_b.origin
    }
    pub fn linear_offset(&self) -> Vec2 {
        self.linear_offset
    }
    pub fn set_linear_offset(&mut self, offset: Vec2) {
        if offset.is_finite() {
            self.linear_offset = offset;
        }
    }
    pub fn angular_offset(&self) -> f32 {
        self.angular_offset
    }
    pub fn set_angular_offset(&mut self, offset: f32) {
        if offset.is_finite() {
            self.angular_offset = offset;
        }
    }
    pub fn set_max_force(&mut self, force: f32) {
        if force.is_finite() && force >= 0.0 {
            self.max_force = force;
        }
    }
    pub fn set_max_torque(&mut self, torque: f32) {
        if torque.is_finite() && torque >= 0.0 {
            self.max_torque = torque;
        }
    }
    pub fn set_correction_factor(&mut self, factor: f32) -> PhysicsResult<()> {
        check_correction(factor)?;
        self.correction_factor = factor;
        Ok(())
    }
    pub fn reaction_force(&self, inv_dt: f32) -> Vec2 {
        self.linear_impulse * inv_dt
    }
    pub fn reaction_torque(&self, inv_dt: f32) -> f32 {
        self.angular_impulse * inv_dt
    }
    /// Distance of B's origin from the target, metres.
    pub fn linear_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        (self.anchor_b(body_b) - self.anchor_a(body_a)).length()
    }
    /// Angle from the target angle, radians.
    pub fn angular_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        (body_b.angle - body_a.angle - self.angular_offset).abs()
    }

    /// Forget the accumulated impulses (warm starting off).
    pub(super) fn zero_impulses(&mut self) {
        self.linear_impulse = Vec2::ZERO;
        self.angular_impulse = 0.0;
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
    }

    // ----------------------------------------------------------------------------------
    // Warm start.

    pub(crate) fn warm_start(&mut self, bodies: &mut [SolverBody], _ctx: &StepContext) {
        let (linear, angular) = (self.linear_impulse, self.angular_impulse);
        self.anchors.pair.warm_start_point(
            bodies,
            self.anchors.frame_a,
            self.anchors.frame_b,
            linear,
            angular,
        );
    }

    // ----------------------------------------------------------------------------------
    // Solve: angular, then linear.

    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, use_bias: bool) {
        if ctx.position_pass {
            return; // a controller, not a position constraint
        }
        let pair = self.anchors.pair;
        let (mut a, mut b) = pair.load(bodies);
        let accumulate = ctx.settings.accumulate_impulses;
        let rate = if use_bias {
            self.correction_factor * ctx.inv_dt
        } else {
            0.0
        };

        // Angular.
        let axial_mass = pair.axial_mass();
        if axial_mass > 0.0 {
            let c = pair.relative_angle(&a, &b) - self.angular_offset;
            let c_dot = b.w - a.w;
            let impulse = -axial_mass * (c_dot + rate * c);
            let max = self.max_torque * ctx.dt;
            let inc = clamp_increment(&mut self.angular_impulse, impulse, -max, max, accumulate);
            apply_angular(&mut a, &mut b, inc);
        }

        // Linear.
        {
            let r_a = a.dq.rotate(self.anchors.frame_a);
            let r_b = b.dq.rotate(self.anchors.frame_b);
            let c = pair.separation(&a, &b, r_a, r_b);
            let c_dot = point_velocity(&a, &b, r_a, r_b);
            let impulse = -solve22(pair.point_k(r_a, r_b), c_dot + rate * c);
            let max = self.max_force * ctx.dt;
            let inc = clamp_increment_vec(&mut self.linear_impulse, impulse, max, accumulate);
            apply_linear(&mut a, &mut b, r_a, r_b, inc);
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
        draw_anchors(
            body_a,
            body_b,
            self.anchor_a(body_a),
            self.anchor_b(body_b),
            draw,
            flags,
        );
    }
}
