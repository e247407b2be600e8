//! Distance joint: the distance between two anchors is held rigid, sprung, or kept within
//! `[min_length, max_length]` (a rope: spring on with 0 hertz, limit on). Reference: Box2D
//! v3 `distance_joint.c` (rigid, spring and limit rows on one axis); seed 000 for the
//! sequential-impulse form.
//!
//! With `d = (c_b + r_b) - (c_a + r_a)`, `length = |d|`, `u = d / length`:
//! ```text
//! C    = length - rest_length     (spring, rigid)
//!        length - min_length >= 0, max_length - length >= 0   (limits; J negated for max)
//! Cdot = u . (v_b + w_b x r_b - v_a - w_a x r_a)
//! J    = [-u, -(r_a x u), u, r_b x u]
//! K    = m_a + m_b + i_a (r_a x u)^2 + i_b (r_b x u)^2
//! ```
//! Sign convention: impulses act negatively on A and positively on B along `u` (A to B).

use super::rows::{Bound, Limit, LimitFields};
use super::Anchors;
use super::{
    apply_linear, draw_anchors, inv_or_zero, point_velocity, rigid_softness, spring_softness,
};
use crate::physics::body::Body;
use crate::physics::debug_draw::{DebugDraw, DrawFlags, DrawKind};
use crate::physics::error::PhysicsResult;
use crate::physics::error::{check_finite, check_finite_vec, check_non_negative, PhysicsError};
use crate::physics::math::{cross, Vec2};
use crate::physics::solver::{SolverBody, StepContext};

/// Shortest length the joint works with, metres (the axis is undefined at 0).
const MIN_LENGTH: f32 = 0.005;

/// Definition of a distance joint.
#[derive(Clone, Debug, PartialEq)]
pub struct DistanceJointDef {
    /// Anchor on A, world metres. Default (0, 0).
    pub anchor_a: Vec2,
    /// Anchor on B, world metres. Default (1, 0).
    pub anchor_b: Vec2,
    /// Rest length, metres (>= 0). Default `None`: the initial anchor distance.
    pub length: Option<f32>,
    /// Spring instead of a rigid rod (with `hertz` 0: free length, e.g. a rope). Default off.
    pub enable_spring: bool,
    /// Spring frequency, Hz (>= 0). Default 0.
    pub hertz: f32,
    /// Spring damping ratio (>= 0). Default 0.
    pub damping_ratio: f32,
    /// Keep the length within `[min_length, max_length]`. Default off.
    pub enable_limit: bool,
    /// Metres (>= 0). Default 0.
    pub min_length: f32,
    /// Metres (>= min_length). Default `UNBOUNDED_LENGTH` (4e6 m, the longest length the
    /// engine holds: Box2D v3's `B2_HUGE` idea; `f32::MAX` here overflowed the limit's bias
    /// to infinity and made NaN).
    pub max_length: f32,
}

/// What an unbounded `max_length` means: the longest length in range.
pub const UNBOUNDED_LENGTH: f32 = crate::physics::limits::LENGTH.max;

impl Default for DistanceJointDef {
    fn default() -> Self {
        DistanceJointDef {
            anchor_a: Vec2::ZERO,
            anchor_b: Vec2::X,
            length: None,
            enable_spring: false,
            hertz: 0.0,
            damping_ratio: 0.0,
            enable_limit: false,
            min_length: 0.0,
            max_length: UNBOUNDED_LENGTH,
        }
    }
}

impl DistanceJointDef {
    /// A rigid rod between two world anchors, at their current distance.
    pub fn new(anchor_a: Vec2, anchor_b: Vec2) -> Self {
        DistanceJointDef {
            anchor_a,
            anchor_b,
            ..Default::default()
        }
    }

    /// A rope: free up to `max_length`, metres.
    pub fn rope(anchor_a: Vec2, anchor_b: Vec2, max_length: f32) -> Self {
        DistanceJointDef {
            anchor_a,
            anchor_b,
            enable_spring: true,
            enable_limit: true,
            max_length,
            ..Default::default()
        }
    }

    /// A spring of `hertz` and `damping_ratio`, rest at the current distance.
    pub fn spring(anchor_a: Vec2, anchor_b: Vec2, hertz: f32, damping_ratio: f32) -> Self {
        DistanceJointDef {
            anchor_a,
            anchor_b,
            enable_spring: true,
            hertz,
            damping_ratio,
            ..Default::default()
        }
    }

    pub fn validate(&self) -> PhysicsResult<()> {
        check_finite_vec("anchor_a", self.anchor_a)?;
        check_finite_vec("anchor_b", self.anchor_b)?;
        if let Some(length) = self.length {
            check_non_negative("length", length)?;
        }
        check_non_negative("hertz", self.hertz)?;
        check_non_negative("damping_ratio", self.damping_ratio)?;
        check_non_negative("min_length", self.min_length)?;
        check_finite("max_length", self.max_length)?;
        if self.min_length > self.max_length {
            return Err(PhysicsError::new(
                "min_length",
                format!(
                    "must not exceed max_length ({}), got {}",
                    self.max_length, self.min_length
                ),
            ));
        }
        Ok(())
    }
}

/// The definition fields of the length range, for error messages.
const LIMIT: LimitFields = ("min_length", "max_length");

/// A distance joint.
#[derive(Clone, Debug)]
pub struct DistanceJoint {
    pub(crate) local_anchor_a: Vec2,
    pub(crate) local_anchor_b: Vec2,
    pub(crate) length: f32,
    pub(crate) enable_spring: bool,
    pub(crate) hertz: f32,
    pub(crate) damping_ratio: f32,
    /// `[min_length, max_length]`, metres, with the accumulated impulses of its two rows.
    pub(crate) limit: Limit,

    // Accumulated impulse: rigid or spring (the limits' are in `limit`).
    pub(crate) impulse: f32,

    // Per step.
    /// The bodies and the anchors' arms, prepared before dispatch (`Anchors`).
    pub(crate) anchors: Anchors,
    /// Axis at step start (for the reaction force).
    pub(crate) axis: Vec2,
}

super::saved_state! {
    /// What a distance joint carries from step to step beyond its definition (see
    /// `JointState`); the order of the fields is the order of the state hash.
    DistanceState for DistanceJoint {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        length: f32,
        impulse: f32,
        lower_impulse: f32 = limit.lower_impulse,
        upper_impulse: f32 = limit.upper_impulse,
    }
}

impl DistanceJoint {
    pub(crate) fn new(def: &DistanceJointDef, body_a: &Body, body_b: &Body) -> PhysicsResult<Self> {
        def.validate()?;
        let length = def
            .length
            .unwrap_or((def.anchor_b - def.anchor_a).length())
            .max(MIN_LENGTH);
        Ok(DistanceJoint {
            local_anchor_a: body_a.local_point(def.anchor_a),
            local_anchor_b: body_b.local_point(def.anchor_b),
            length,
            enable_spring: def.enable_spring,
            hertz: def.hertz,
            damping_ratio: def.damping_ratio,
            limit: Limit::new(def.enable_limit, def.min_length, def.max_length),
            impulse: 0.0,
            anchors: Anchors::default(),
            axis: Vec2::X,
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
    /// Rest length, metres.
    pub fn length(&self) -> f32 {
        self.length
    }
    pub fn set_length(&mut self, length: f32) {
        if length.is_finite() && length >= 0.0 {
            self.length = length.max(MIN_LENGTH);
        }
    }
    /// Current anchor distance, metres.
    pub fn current_length(&self, body_a: &Body, body_b: &Body) -> f32 {
        (self.anchor_b(body_b) - self.anchor_a(body_a)).length()
    }
    pub fn set_spring(&mut self, enable: bool, hertz: f32, damping_ratio: f32) {
        self.enable_spring = enable;
        if hertz.is_finite() && hertz >= 0.0 {
            self.hertz = hertz;
        }
        if damping_ratio.is_finite() && damping_ratio >= 0.0 {
            self.damping_ratio = damping_ratio;
        }
    }
    pub fn enable_limit(&mut self, on: bool) {
        self.limit.enabled = on;
    }
    pub fn set_length_range(&mut self, min_length: f32, max_length: f32) -> PhysicsResult<()> {
        check_non_negative(LIMIT.0, min_length)?;
        self.limit.set(LIMIT, min_length, max_length)
    }
    pub fn reaction_force(&self, inv_dt: f32) -> Vec2 {
        self.limit.net_impulse(self.impulse) * self.axis * inv_dt
    }
    pub fn reaction_torque(&self, _inv_dt: f32) -> f32 {
        0.0
    }
    /// Rigid: `|length - rest|`; with limits: the overrun; a spring without limits: 0.
    pub fn linear_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        let l = self.current_length(body_a, body_b);
        let mut e = 0.0;
        if self.is_rigid() {
            e = (l - self.length).abs();
        }
        if self.limit.enabled {
            e = f32::max(e, self.limit.overrun(l));
        }
        e
    }
    pub fn angular_error(&self, _body_a: &Body, _body_b: &Body) -> f32 {
        0.0
    }

    fn is_rigid(&self) -> bool {
        !self.enable_spring || (self.limit.enabled && self.limit.lower == self.limit.upper)
    }

    /// Forget the accumulated impulses (warm starting off).
    pub(super) fn zero_impulses(&mut self) {
        self.impulse = 0.0;
        self.limit.reset();
    }

    /// Arms, axis and length at the current sub-step.
    fn rod(&self, a: &SolverBody, b: &SolverBody) -> (Vec2, Vec2, Vec2, f32) {
        let r_a = a.dq.rotate(self.anchors.frame_a);
        let r_b = b.dq.rotate(self.anchors.frame_b);
        let d = self.anchors.pair.separation(a, b, r_a, r_b);
        let length = d.length();
        let u = if length > 0.0 { d / length } else { self.axis };
        (r_a, r_b, u, length)
    }

    // ----------------------------------------------------------------------------------
    // Prepare.

    pub(crate) fn prepare(
        &mut self,
        anchors: &Anchors,
        body_a: &Body,
        body_b: &Body,
        _ctx: &StepContext,
    ) {
        self.anchors = *anchors;
        let d = (body_b.center + self.anchors.frame_b) - (body_a.center + self.anchors.frame_a);
        if d.length_squared() > 0.0 {
            self.axis = d.normalize();
        }
        self.limit.prepare();
        if !self.is_rigid() && self.hertz == 0.0 {
            self.impulse = 0.0;
        }
    }

    // ----------------------------------------------------------------------------------
    // Warm start.

    pub(crate) fn warm_start(&mut self, bodies: &mut [SolverBody], _ctx: &StepContext) {
        let (mut a, mut b) = self.anchors.pair.load(bodies);
        let (r_a, r_b, u, _) = self.rod(&a, &b);
        let total = self.limit.net_impulse(self.impulse);
        apply_linear(&mut a, &mut b, r_a, r_b, total * u);
        self.anchors.pair.store(bodies, &a, &b);
    }

    // ----------------------------------------------------------------------------------
    // Solve: spring, limits, or the rigid rod.

    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, use_bias: bool) {
        let pair = self.anchors.pair;
        let (mut a, mut b) = pair.load(bodies);
        let (r_a, r_b, u, length) = self.rod(&a, &b);
        let ru_a = cross(r_a, u);
        let ru_b = cross(r_b, u);
        let mass =
            inv_or_zero(pair.m_a + pair.m_b + pair.i_a * ru_a * ru_a + pair.i_b * ru_b * ru_b);
        let c_dot = |a: &SolverBody, b: &SolverBody| u.dot(point_velocity(a, b, r_a, r_b));

        if self.is_rigid() {
            let s = rigid_softness(ctx, use_bias, None);
            let c = length - self.length;
            let impulse = -s.mass_scale * mass * (c_dot(&a, &b) + s.bias_rate * c)
                - s.impulse_scale * self.impulse;
            self.impulse += impulse;
            apply_linear(&mut a, &mut b, r_a, r_b, impulse * u);
        } else if self.hertz > 0.0 && !ctx.position_pass {
            let s = spring_softness(ctx, self.hertz, self.damping_ratio);
            let c = length - self.length;
            let impulse = -s.mass_scale * mass * (c_dot(&a, &b) + s.bias_rate * c)
                - s.impulse_scale * self.impulse;
            self.impulse += impulse;
            apply_linear(&mut a, &mut b, r_a, r_b, impulse * u);
        }

        if self.limit.enabled {
            // Lower: C = length - min_length; upper: C = max_length - length (J negated).
            let inc =
                self.limit
                    .solve_row(Bound::Lower, ctx, use_bias, mass, length, c_dot(&a, &b));
            apply_linear(&mut a, &mut b, r_a, r_b, inc * u);
            let inc =
                self.limit
                    .solve_row(Bound::Upper, ctx, use_bias, mass, length, -c_dot(&a, &b));
            apply_linear(&mut a, &mut b, r_a, r_b, -inc * u);
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
            let u = (p_b - p_a).normalize_or_zero();
            let perp = Vec2::new(-u.y, u.x);
            for l in [self.limit.lower, self.limit.upper] {
                if l > 0.0 && l < 1.0e4 {
                    let p = p_a + l * u;
                    draw.draw_segment(p - 0.15 * perp, p + 0.15 * perp, DrawKind::JointLimit);
                }
            }
        }
    }
}
