//! Mouse joint: a soft spring drags a point of body B to a target (the testbed's mouse).
//! Body A is not moved (it is usually the ground). Reference: Box2D v3 `mouse_joint.c`
//! (soft point constraint with a force cap); seed 000 for the 2x2 point K.
//!
//! ```text
//! C    = (c_b + r_b) - target
//! Cdot = v_b + w_b x r_b
//! J    = [I, skew(r_b)]       (B only)
//! K    = m_b I + i_b [r_b.y^2, -r_b.x r_b.y; -r_b.x r_b.y, r_b.x^2]
//! impulse = -mass_scale K^-1 (Cdot + bias_rate C) - impulse_scale P,  |P| <= max_force dt
//! ```
//! with the soft coefficients of a spring of `hertz` and `damping_ratio` (always on, also in
//! the soft step's relax pass). Sign convention: the impulse acts on B.

use super::Anchors;
use super::{clamp_increment_vec, solve22, spring_softness, BodyPair, ANCHOR_SIZE};
use crate::physics::body::Body;
use crate::physics::debug_draw::{DebugDraw, DrawFlags, DrawKind};
use crate::physics::error::PhysicsResult;
use crate::physics::error::{check_finite_vec, check_non_negative, check_positive};
use crate::physics::math::{cross, cross_sv, Vec2};
use crate::physics::solver::{SolverBody, StepContext};

/// Definition of a mouse joint.
#[derive(Clone, Debug, PartialEq)]
pub struct MouseJointDef {
    /// Initial target, world metres; also the grabbed point of B. Default (0, 0).
    pub target: Vec2,
    /// Spring frequency, Hz (> 0). Default 5.
    pub hertz: f32,
    /// Damping ratio (>= 0). Default 0.7.
    pub damping_ratio: f32,
    /// N (>= 0). Default 1000.
    pub max_force: f32,
}

impl Default for MouseJointDef {
    fn default() -> Self {
        MouseJointDef {
            target: Vec2::ZERO,
            hertz: 5.0,
            damping_ratio: 0.7,
            max_force: 1000.0,
        }
    }
}

impl MouseJointDef {
    pub fn new(target: Vec2, max_force: f32) -> Self {
        MouseJointDef {
            target,
            max_force,
            ..Default::default()
        }
    }

    pub fn validate(&self) -> PhysicsResult<()> {
        check_finite_vec("target", self.target)?;
        check_positive("hertz", self.hertz)?;
        check_non_negative("damping_ratio", self.damping_ratio)?;
        check_non_negative("max_force", self.max_force)?;
        Ok(())
    }
}

/// A mouse joint.
#[derive(Clone, Debug)]
pub struct MouseJoint {
    pub(crate) target: Vec2,
    pub(crate) local_anchor_b: Vec2,
    pub(crate) hertz: f32,
    pub(crate) damping_ratio: f32,
    pub(crate) max_force: f32,

    // Accumulated impulse.
    pub(crate) impulse: Vec2,

    // Per step.
    pub(crate) pair: BodyPair,
    pub(crate) frame_b: Vec2,
}

super::saved_state! {
    /// What a mouse joint carries from step to step beyond its definition (see
    /// `JointState`); the order of the fields is the order of the state hash.
    MouseState for MouseJoint {
        target: Vec2,
        local_anchor_b: Vec2,
        impulse: Vec2,
    }
}

impl MouseJoint {
    pub(crate) fn new(def: &MouseJointDef, _body_a: &Body, body_b: &Body) -> PhysicsResult<Self> {
        def.validate()?;
        Ok(MouseJoint {
            target: def.target,
            local_anchor_b: body_b.local_point(def.target),
            hertz: def.hertz,
            damping_ratio: def.damping_ratio,
            max_force: def.max_force,
            impulse: Vec2::ZERO,
            pair: BodyPair::default(),
            frame_b: Vec2::ZERO,
        })
    }

    // ----------------------------------------------------------------------------------
    // Accessors.

    /// The target.
    pub fn anchor_a(&self, _body_a: &Body) -> Vec2 {
        self.target
    }
    /// The grabbed point of B.
    pub fn anchor_b(&self, body_b: &Body) -> Vec2 {
        body_b.world_point(self.local_anchor_b)
    }
    pub fn target(&self) -> Vec2 {
        self.target
    }
    /// Move the target (non-finite points are ignored). Get the joint through
    /// `World::joint_mut` so that B wakes up.
    pub fn set_target(&mut self, target: Vec2) {
        if target.is_finite() {
            self.target = target;
        }
    }
    pub fn set_spring(&mut self, hertz: f32, damping_ratio: f32) {
        if hertz.is_finite() && hertz > 0.0 {
            self.hertz = hertz;
        }
        if damping_ratio.is_finite() && damping_ratio >= 0.0 {
            self.damping_ratio = damping_ratio;
        }
    }
    pub fn max_force(&self) -> f32 {
        self.max_force
    }
    pub fn set_max_force(&mut self, force: f32) {
        if force.is_finite() && force >= 0.0 {
            self.max_force = force;
        }
    }
    pub fn reaction_force(&self, inv_dt: f32) -> Vec2 {
        self.impulse * inv_dt
    }
    pub fn reaction_torque(&self, _inv_dt: f32) -> f32 {
        0.0
    }
    /// Distance of the grabbed point from the target, metres.
    pub fn linear_error(&self, _body_a: &Body, body_b: &Body) -> f32 {
        (self.anchor_b(body_b) - self.target).length()
    }
    pub fn angular_error(&self, _body_a: &Body, _body_b: &Body) -> f32 {
        0.0
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
        self.pair = anchors.pair;
        self.frame_b = anchors.frame_b;
    }

    // ----------------------------------------------------------------------------------
    // Warm start.

    /// Forget the accumulated impulse (warm starting off).
    pub(super) fn zero_impulses(&mut self) {
        self.impulse = Vec2::ZERO;
    }

    pub(crate) fn warm_start(&mut self, bodies: &mut [SolverBody], _ctx: &StepContext) {
        let index_b = self.pair.index_b;
        if index_b == 0 {
            return;
        }
        let b = &mut bodies[index_b];
        let r_b = b.dq.rotate(self.frame_b);
        b.v += b.inv_mass * self.impulse;
        b.w += b.inv_inertia * cross(r_b, self.impulse);
    }

    // ----------------------------------------------------------------------------------
    // Solve.

    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, _use_bias: bool) {
        if ctx.position_pass {
            return; // a controller, not a position constraint
        }
        let pair = self.pair;
        if pair.index_b == 0 {
            return;
        }
        let b = &mut bodies[pair.index_b];
        let r_b = b.dq.rotate(self.frame_b);
        let s = spring_softness(ctx, self.hertz, self.damping_ratio);
        let c = pair.center_b + b.dp + r_b - self.target;
        let c_dot = b.v + cross_sv(b.w, r_b);
        let k = (
            pair.m_b + pair.i_b * r_b.y * r_b.y,
            -pair.i_b * r_b.x * r_b.y,
            pair.m_b + pair.i_b * r_b.x * r_b.x,
        );
        let impulse =
            -s.mass_scale * solve22(k, c_dot + s.bias_rate * c) - s.impulse_scale * self.impulse;
        let max = self.max_force * ctx.dt;
        let inc = clamp_increment_vec(
            &mut self.impulse,
            impulse,
            max,
            ctx.settings.accumulate_impulses,
        );
        b.v += b.inv_mass * inc;
        b.w += b.inv_inertia * cross(r_b, inc);
    }

    // ----------------------------------------------------------------------------------
    // Draw.

    pub(crate) fn draw(
        &self,
        _body_a: &Body,
        body_b: &Body,
        draw: &mut dyn DebugDraw,
        flags: &DrawFlags,
    ) {
        let p_b = self.anchor_b(body_b);
        if flags.joints {
            draw.draw_segment(self.target, p_b, DrawKind::Joint);
        }
        if flags.joint_anchors {
            draw.draw_point(self.target, ANCHOR_SIZE, DrawKind::JointLimit);
            draw.draw_point(p_b, ANCHOR_SIZE, DrawKind::JointAnchor);
        }
    }
}
