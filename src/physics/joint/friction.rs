//! Friction joint: top-down friction. Resists relative motion of two anchor points and
//! relative rotation, up to a maximum force and torque (a puck sliding on a table seen
//! from above, with A the table). Reference: Box2D v2 `b2FrictionJoint`; seed 000 for the
//! 2x2 point K.
//!
//! ```text
//! Linear (2 rows): Cdot = v_b + w_b x r_b - v_a - w_a x r_a    (velocity only, no C)
//!                  J = [-I, -skew(r_a), I, skew(r_b)],  K as the revolute joint's
//!                  impulse = -K^-1 Cdot,  |P| <= max_force dt
//! Angular (1 row): Cdot = w_b - w_a,  J = [0, -1, 0, 1],  K = i_a + i_b,  |L| <= max_torque dt
//! ```
//! Sign convention: impulses act negatively on A and positively on B.

use super::Anchors;
use super::{
    apply_angular, apply_linear, clamp_increment, clamp_increment_vec, draw_anchors,
    point_velocity, solve22,
};
use crate::physics::body::Body;
use crate::physics::debug_draw::{DebugDraw, DrawFlags};
use crate::physics::error::{check_finite_vec, check_non_negative, PhysicsResult};
use crate::physics::math::Vec2;
use crate::physics::solver::{SolverBody, StepContext};

/// Definition of a friction joint.
#[derive(Clone, Debug, PartialEq)]
pub struct FrictionJointDef {
    /// The point where friction acts, world metres (usually B's centre). Default (0, 0).
    pub anchor: Vec2,
    /// N (>= 0). Default 0.
    pub max_force: f32,
    /// N m (>= 0). Default 0.
    pub max_torque: f32,
}

impl Default for FrictionJointDef {
    fn default() -> Self {
        FrictionJointDef {
            anchor: Vec2::ZERO,
            max_force: 0.0,
            max_torque: 0.0,
        }
    }
}

impl FrictionJointDef {
    pub fn new(anchor: Vec2, max_force: f32, max_torque: f32) -> Self {
        FrictionJointDef {
            anchor,
            max_force,
            max_torque,
        }
    }

    pub fn validate(&self) -> PhysicsResult<()> {
        check_finite_vec("anchor", self.anchor)?;
        check_non_negative("max_force", self.max_force)?;
        check_non_negative("max_torque", self.max_torque)?;
        Ok(())
    }
}

/// A friction joint.
#[derive(Clone, Debug)]
pub struct FrictionJoint {
    pub(crate) local_anchor_a: Vec2,
    pub(crate) local_anchor_b: Vec2,
    pub(crate) max_force: f32,
    pub(crate) max_torque: f32,

    // Accumulated impulses.
    pub(crate) linear_impulse: Vec2,
    pub(crate) angular_impulse: f32,

    // Per step.
    /// The bodies and the anchors' arms, prepared before dispatch (`Anchors`).
    pub(crate) anchors: Anchors,
}

super::saved_state! {
    /// What a friction joint carries from step to step beyond its definition (see
    /// `JointState`); the order of the fields is the order of the state hash.
    FrictionState for FrictionJoint {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        linear_impulse: Vec2,
        angular_impulse: f32,
    }
}

impl FrictionJoint {
    pub(crate) fn new(def: &FrictionJointDef, body_a: &Body, body_b: &Body) -> PhysicsResult<Self> {
        def.validate()?;
        Ok(FrictionJoint {
            local_anchor_a: body_a.local_point(def.anchor),
            local_anchor_b: body_b.local_point(def.anchor),
            max_force: def.max_force,
            max_torque: def.max_torque,
            linear_impulse: Vec2::ZERO,
            angular_impulse: 0.0,
            anchors: Anchors::default(),
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
    pub fn max_force(&self) -> f32 {
        self.max_force
    }
    pub fn set_max_force(&mut self, force: f32) {
        if force.is_finite() && force >= 0.0 {
            self.max_force = force;
        }
    }
    pub fn max_torque(&self) -> f32 {
        self.max_torque
    }
    pub fn set_max_torque(&mut self, torque: f32) {
        if torque.is_finite() && torque >= 0.0 {
            self.max_torque = torque;
        }
    }
    pub fn reaction_force(&self, inv_dt: f32) -> Vec2 {
        self.linear_impulse * inv_dt
    }
    pub fn reaction_torque(&self, inv_dt: f32) -> f32 {
        self.angular_impulse * inv_dt
    }
    /// A velocity constraint: no position error.
    pub fn linear_error(&self, _body_a: &Body, _body_b: &Body) -> f32 {
        0.0
    }
    pub fn angular_error(&self, _body_a: &Body, _body_b: &Body) -> f32 {
        0.0
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

    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, _use_bias: bool) {
        if ctx.position_pass {
            return; // a controller, not a position constraint
        }
        let pair = self.anchors.pair;
        let (mut a, mut b) = pair.load(bodies);
        let accumulate = ctx.settings.accumulate_impulses;

        let axial_mass = pair.axial_mass();
        if axial_mass > 0.0 {
            let impulse = -axial_mass * (b.w - a.w);
            let max = self.max_torque * ctx.dt;
            let inc = clamp_increment(&mut self.angular_impulse, impulse, -max, max, accumulate);
            apply_angular(&mut a, &mut b, inc);
        }

        {
            let r_a = a.dq.rotate(self.anchors.frame_a);
            let r_b = b.dq.rotate(self.anchors.frame_b);
            let c_dot = point_velocity(&a, &b, r_a, r_b);
            let impulse = -solve22(pair.point_k(r_a, r_b), c_dot);
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
