//! Angle joint: ties B's angle to A's, `angle_b = ratio * angle_a + offset` (ratio 1: fixed
//! relative angle; other ratios: a gear), either held exactly or kept within limits.
//! Reference: seed 003 (angle constraint: Jacobian and K).
//!
//! ```text
//! C    = angle_b - ratio * angle_a - offset
//! Cdot = w_b - ratio * w_a
//! J    = [0, -ratio, 0, 1]
//! K    = ratio^2 i_a + i_b
//! ```
//! Without limits `C = 0` is an equality; with limits two one-sided rows hold
//! `lower_angle <= C <= upper_angle` (`C - lower >= 0` and `upper - C >= 0`, the second
//! with J negated). Sign convention: an impulse `lambda` turns B by `+i_b lambda` and A by
//! `-ratio i_a lambda`.

use super::rows::{Bound, Limit, LimitFields};
use super::Anchors;
use super::{check_order, inv_or_zero, rigid_softness, BodyPair};
use crate::physics::body::{Body, BodyKind};
use crate::physics::debug_draw::{DebugDraw, DrawFlags, DrawKind};
use crate::physics::error::{check_finite, PhysicsResult};
use crate::physics::math::{Rot, Vec2};
use crate::physics::solver::{SolverBody, StepContext};

/// Definition of an angle joint.
#[derive(Clone, Debug, PartialEq)]
pub struct AngleJointDef {
    /// `angle_b = ratio * angle_a + offset` (any finite number; negative reverses).
    /// Default 1.
    pub ratio: f32,
    /// Radians. Default `None`: the initial `angle_b - ratio * angle_a`.
    pub offset: Option<f32>,
    /// Keep `C = angle_b - ratio * angle_a - offset` within `[lower_angle, upper_angle]`
    /// instead of at 0. Default off.
    pub enable_limit: bool,
    /// Radians. Default 0.
    pub lower_angle: f32,
    /// Radians. Default 0.
    pub upper_angle: f32,
}

impl Default for AngleJointDef {
    fn default() -> Self {
        AngleJointDef {
            ratio: 1.0,
            offset: None,
            enable_limit: false,
            lower_angle: 0.0,
            upper_angle: 0.0,
        }
    }
}

impl AngleJointDef {
    pub fn validate(&self) -> PhysicsResult<()> {
        check_finite("ratio", self.ratio)?;
        if let Some(offset) = self.offset {
            check_finite("offset", offset)?;
        }
        check_order(LIMIT.0, self.lower_angle, LIMIT.1, self.upper_angle)?;
        Ok(())
    }
}

/// The definition fields of the limits, for error messages.
const LIMIT: LimitFields = ("lower_angle", "upper_angle");

/// An angle joint.
#[derive(Clone, Debug)]
pub struct AngleJoint {
    pub(crate) ratio: f32,
    pub(crate) offset: f32,
    /// On `C`, radians, with the accumulated impulses of its two rows.
    pub(crate) limit: Limit,

    // Accumulated impulse of the equality (the limits' are in `limit`).
    pub(crate) impulse: f32,

    // Per step.
    pub(crate) pair: BodyPair,
    pub(crate) mass: f32,
}

super::saved_state! {
    /// What a angle joint carries from step to step beyond its definition (see
    /// `JointState`); the order of the fields is the order of the state hash.
    AngleState for AngleJoint {
        offset: f32,
        impulse: f32,
        lower_impulse: f32 = limit.lower_impulse,
        upper_impulse: f32 = limit.upper_impulse,
    }
}

impl AngleJoint {
    pub(crate) fn new(def: &AngleJointDef, body_a: &Body, body_b: &Body) -> PhysicsResult<Self> {
        def.validate()?;
        Ok(AngleJoint {
            ratio: def.ratio,
            offset: def
                .offset
                .unwrap_or(body_b.angle - def.ratio * body_a.angle),
            limit: Limit::new(def.enable_limit, def.lower_angle, def.upper_angle),
            impulse: 0.0,
            pair: BodyPair::default(),
            mass: 0.0,
        })
    }

    // ----------------------------------------------------------------------------------
    // Accessors.

    pub fn anchor_a(&self, body_a: &Body) -> Vec2 {
        body_a.center
    }
    pub fn anchor_b(&self, body_b: &Body) -> Vec2 {
        body_b.center
    }
    pub fn ratio(&self) -> f32 {
        self.ratio
    }
    pub fn offset(&self) -> f32 {
        self.offset
    }
    pub fn set_offset(&mut self, offset: f32) {
        if offset.is_finite() {
            self.offset = offset;
        }
    }
    pub fn enable_limit(&mut self, on: bool) {
        self.limit.enabled = on;
    }
    pub fn set_limits(&mut self, lower: f32, upper: f32) -> PhysicsResult<()> {
        self.limit.set(LIMIT, lower, upper)
    }
    /// Current `C = angle_b - ratio * angle_a - offset`, radians.
    pub fn joint_angle(&self, body_a: &Body, body_b: &Body) -> f32 {
        body_b.angle - self.ratio * body_a.angle - self.offset
    }
    /// No force: the joint only turns the bodies.
    pub fn reaction_force(&self, _inv_dt: f32) -> Vec2 {
        Vec2::ZERO
    }
    pub fn reaction_torque(&self, inv_dt: f32) -> f32 {
        self.limit.net_impulse(self.impulse) * inv_dt
    }
    pub fn linear_error(&self, _body_a: &Body, _body_b: &Body) -> f32 {
        0.0
    }
    /// `|C|` without limits, the overrun of the limits with them; radians.
    pub fn angular_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        let c = self.joint_angle(body_a, body_b);
        if self.limit.enabled {
            self.limit.overrun(c)
        } else {
            c.abs()
        }
    }

    /// Forget the accumulated impulses (warm starting off).
    pub(super) fn zero_impulses(&mut self) {
        self.impulse = 0.0;
        self.limit.reset();
    }

    /// Turn the bodies by the impulse `lambda` along `J = [0, -ratio, 0, 1]`.
    fn apply(&self, a: &mut SolverBody, b: &mut SolverBody, lambda: f32) {
        a.w -= a.inv_inertia * self.ratio * lambda;
        b.w += b.inv_inertia * lambda;
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
        let pair = anchors.pair;
        self.pair = pair;
        self.mass = inv_or_zero(self.ratio * self.ratio * pair.i_a + pair.i_b);
        if self.limit.enabled {
            self.impulse = 0.0;
        }
        self.limit.prepare();
    }

    // ----------------------------------------------------------------------------------
    // Warm start.

    pub(crate) fn warm_start(&mut self, bodies: &mut [SolverBody], _ctx: &StepContext) {
        let (mut a, mut b) = self.pair.load(bodies);
        self.apply(&mut a, &mut b, self.limit.net_impulse(self.impulse));
        self.pair.store(bodies, &a, &b);
    }

    // ----------------------------------------------------------------------------------
    // Solve.

    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, use_bias: bool) {
        if self.mass == 0.0 {
            return;
        }
        let pair = self.pair;
        let (mut a, mut b) = pair.load(bodies);
        let angle_a = pair.angle_a + a.d_angle;
        let angle_b = pair.angle_b + b.d_angle;
        let c = angle_b - self.ratio * angle_a - self.offset;
        let c_dot = b.w - self.ratio * a.w;

        if self.limit.enabled {
            let inc = self
                .limit
                .solve_row(Bound::Lower, ctx, use_bias, self.mass, c, c_dot);
            self.apply(&mut a, &mut b, inc);
            let c_dot = -(b.w - self.ratio * a.w);
            let inc = self
                .limit
                .solve_row(Bound::Upper, ctx, use_bias, self.mass, c, c_dot);
            self.apply(&mut a, &mut b, -inc);
        } else {
            let s = rigid_softness(ctx, use_bias, None);
            let impulse = -s.mass_scale * self.mass * (c_dot + s.bias_rate * c)
                - s.impulse_scale * self.impulse;
            self.impulse += impulse;
            self.apply(&mut a, &mut b, impulse);
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
        // A short ray from each centre along its body's angle, and a line between them.
        const LENGTH: f32 = 0.5;
        if flags.joints {
            for body in [body_a, body_b] {
                if body.kind != BodyKind::Static {
                    let dir = Rot::from_angle(body.angle).x_axis();
                    draw.draw_segment(body.center, body.center + LENGTH * dir, DrawKind::Joint);
                }
            }
            draw.draw_segment(body_a.center, body_b.center, DrawKind::Joint);
        }
        if flags.joint_anchors {
            draw.draw_point(body_a.center, super::ANCHOR_SIZE, DrawKind::JointAnchor);
            draw.draw_point(body_b.center, super::ANCHOR_SIZE, DrawKind::JointAnchor);
        }
    }
}
