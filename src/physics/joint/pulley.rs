//! Pulley joint: a rope from A's anchor over ground anchor A, then over ground anchor B down
//! to B's anchor; `length_a + ratio * length_b` stays at its initial value (ratio != 1: a
//! block and tackle). Reference: seed 001 (pulley constraint, derivative, Jacobian, scalar
//! K with the ratio).
//!
//! With ground anchors `g_a`, `g_b` (fixed in the world), anchors `p = c + r`:
//! ```text
//! u_a  = (p_a - g_a) / length_a,  u_b = (p_b - g_b) / length_b
//! C    = (length_a + ratio * length_b) - constant          (sign: C > 0 rope too long)
//! Cdot = u_a . (v_a + w_a x r_a) + ratio * u_b . (v_b + w_b x r_b)
//! J    = [u_a, r_a x u_a, ratio u_b, ratio (r_b x u_b)]
//! K    = m_a + i_a (r_a x u_a)^2 + ratio^2 (m_b + i_b (r_b x u_b)^2)
//! ```
//! Sign convention (differs from the other joints: both bodies hang on the same rope): an
//! impulse `lambda` moves A by `J_a^T lambda` and B by `J_b^T lambda`; a taut rope has
//! `lambda < 0` (pulls both bodies towards their ground anchors).
//!
//! An equality: the rope can push as well as pull (Box2D v2's pulley does the same).

use super::Anchors;
use super::{inv_or_zero, rigid_softness, ANCHOR_SIZE};
use crate::physics::body::Body;
use crate::physics::debug_draw::{DebugDraw, DrawFlags, DrawKind};
use crate::physics::error::{check_finite, check_finite_vec, PhysicsError, PhysicsResult};
use crate::physics::math::{cross, cross_sv, Vec2};
use crate::physics::solver::{SolverBody, StepContext};

/// Rope segments shorter than this, metres, have no direction (their row is dropped).
const MIN_LENGTH: f32 = 0.01;

/// Definition of a pulley joint.
#[derive(Clone, Debug, PartialEq)]
pub struct PulleyJointDef {
    /// Where A's rope goes over the pulley, world metres. Default (-1, 1).
    pub ground_anchor_a: Vec2,
    /// Where B's rope goes over the pulley, world metres. Default (1, 1).
    pub ground_anchor_b: Vec2,
    /// Rope end on A, world metres. Default (-1, 0).
    pub anchor_a: Vec2,
    /// Rope end on B, world metres. Default (1, 0).
    pub anchor_b: Vec2,
    /// Block and tackle ratio (> 0): `length_a + ratio * length_b` is held. Default 1.
    pub ratio: f32,
}

impl Default for PulleyJointDef {
    fn default() -> Self {
        PulleyJointDef {
            ground_anchor_a: Vec2::new(-1.0, 1.0),
            ground_anchor_b: Vec2::new(1.0, 1.0),
            anchor_a: Vec2::new(-1.0, 0.0),
            anchor_b: Vec2::new(1.0, 0.0),
            ratio: 1.0,
        }
    }
}

impl PulleyJointDef {
    pub fn validate(&self) -> PhysicsResult<()> {
        check_finite_vec("ground_anchor_a", self.ground_anchor_a)?;
        check_finite_vec("ground_anchor_b", self.ground_anchor_b)?;
        check_finite_vec("anchor_a", self.anchor_a)?;
        check_finite_vec("anchor_b", self.anchor_b)?;
        check_finite("ratio", self.ratio)?;
        if self.ratio <= 0.0 {
            return Err(PhysicsError::new(
                "ratio",
                format!("must be greater than zero, got {}", self.ratio),
            ));
        }
        Ok(())
    }
}

/// A pulley joint.
#[derive(Clone, Debug)]
pub struct PulleyJoint {
    pub(crate) ground_anchor_a: Vec2,
    pub(crate) ground_anchor_b: Vec2,
    pub(crate) local_anchor_a: Vec2,
    pub(crate) local_anchor_b: Vec2,
    pub(crate) length_a: f32,
    pub(crate) length_b: f32,
    pub(crate) ratio: f32,
    /// `length_a + ratio * length_b` at creation, metres.
    pub(crate) constant: f32,

    // Accumulated impulse.
    pub(crate) impulse: f32,

    // Per step.
    /// The bodies and the anchors' arms, prepared before dispatch (`Anchors`).
    pub(crate) anchors: Anchors,
    /// Rope direction at B at step start (for the reaction force).
    pub(crate) u_b: Vec2,
}

super::saved_state! {
    /// What a pulley joint carries from step to step beyond its definition (see
    /// `JointState`); the order of the fields is the order of the state hash.
    PulleyState for PulleyJoint {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        length_a: f32,
        length_b: f32,
        constant: f32,
        impulse: f32,
    }
}

/// The rope at the current sub-step.
struct Rope {
    r_a: Vec2,
    r_b: Vec2,
    u_a: Vec2,
    u_b: Vec2,
    c: f32,
}

impl PulleyJoint {
    pub(crate) fn new(def: &PulleyJointDef, body_a: &Body, body_b: &Body) -> PhysicsResult<Self> {
        def.validate()?;
        let length_a = (def.anchor_a - def.ground_anchor_a).length();
        let length_b = (def.anchor_b - def.ground_anchor_b).length();
        Ok(PulleyJoint {
            ground_anchor_a: def.ground_anchor_a,
            ground_anchor_b: def.ground_anchor_b,
            local_anchor_a: body_a.local_point(def.anchor_a),
            local_anchor_b: body_b.local_point(def.anchor_b),
            length_a,
            length_b,
            ratio: def.ratio,
            constant: length_a + def.ratio * length_b,
            impulse: 0.0,
            anchors: Anchors::default(),
            u_b: Vec2::ZERO,
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
    pub fn ground_anchor_a(&self) -> Vec2 {
        self.ground_anchor_a
    }
    pub fn ground_anchor_b(&self) -> Vec2 {
        self.ground_anchor_b
    }
    pub fn ratio(&self) -> f32 {
        self.ratio
    }
    /// Initial rope lengths (a, b), metres.
    pub fn initial_lengths(&self) -> (f32, f32) {
        (self.length_a, self.length_b)
    }
    /// `length_a + ratio * length_b` that the joint holds, metres.
    pub fn constant(&self) -> f32 {
        self.constant
    }
    /// Current rope lengths (a, b), metres.
    pub fn current_lengths(&self, body_a: &Body, body_b: &Body) -> (f32, f32) {
        (
            (self.anchor_a(body_a) - self.ground_anchor_a).length(),
            (self.anchor_b(body_b) - self.ground_anchor_b).length(),
        )
    }
    pub fn reaction_force(&self, inv_dt: f32) -> Vec2 {
        self.impulse * self.ratio * self.u_b * inv_dt
    }
    pub fn reaction_torque(&self, _inv_dt: f32) -> f32 {
        0.0
    }
    /// `|length_a + ratio * length_b - constant|`, metres.
    pub fn linear_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        let (la, lb) = self.current_lengths(body_a, body_b);
        (la + self.ratio * lb - self.constant).abs()
    }
    pub fn angular_error(&self, _body_a: &Body, _body_b: &Body) -> f32 {
        0.0
    }

    fn rope(&self, a: &SolverBody, b: &SolverBody) -> Rope {
        let r_a = a.dq.rotate(self.anchors.frame_a);
        let r_b = b.dq.rotate(self.anchors.frame_b);
        let d_a = self.anchors.pair.center_a + a.dp + r_a - self.ground_anchor_a;
        let d_b = self.anchors.pair.center_b + b.dp + r_b - self.ground_anchor_b;
        let (la, lb) = (d_a.length(), d_b.length());
        let dir = |d: Vec2, l: f32| if l > MIN_LENGTH { d / l } else { Vec2::ZERO };
        Rope {
            r_a,
            r_b,
            u_a: dir(d_a, la),
            u_b: dir(d_b, lb),
            c: la + self.ratio * lb - self.constant,
        }
    }

    /// Apply `lambda` along J: `J_a^T lambda` to A, `J_b^T lambda` to B.
    fn apply(&self, a: &mut SolverBody, b: &mut SolverBody, rope: &Rope, lambda: f32) {
        let p_a = lambda * rope.u_a;
        let p_b = self.ratio * lambda * rope.u_b;
        a.v += a.inv_mass * p_a;
        a.w += a.inv_inertia * cross(rope.r_a, p_a);
        b.v += b.inv_mass * p_b;
        b.w += b.inv_inertia * cross(rope.r_b, p_b);
    }

    // ----------------------------------------------------------------------------------
    // Prepare.

    pub(crate) fn prepare(
        &mut self,
        anchors: &Anchors,
        _body_a: &Body,
        body_b: &Body,
        _ctx: &StepContext,
    ) {
        self.anchors = *anchors;
        let d_b = body_b.center + self.anchors.frame_b - self.ground_anchor_b;
        self.u_b = d_b.normalize_or_zero();
    }

    // ----------------------------------------------------------------------------------
    // Warm start.

    /// Forget the accumulated impulse (warm starting off).
    pub(super) fn zero_impulses(&mut self) {
        self.impulse = 0.0;
    }

    pub(crate) fn warm_start(&mut self, bodies: &mut [SolverBody], _ctx: &StepContext) {
        let (mut a, mut b) = self.anchors.pair.load(bodies);
        let rope = self.rope(&a, &b);
        self.apply(&mut a, &mut b, &rope, self.impulse);
        self.anchors.pair.store(bodies, &a, &b);
    }

    // ----------------------------------------------------------------------------------
    // Solve.

    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, use_bias: bool) {
        let pair = self.anchors.pair;
        let (mut a, mut b) = pair.load(bodies);
        let rope = self.rope(&a, &b);
        let ru_a = cross(rope.r_a, rope.u_a);
        let ru_b = cross(rope.r_b, rope.u_b);
        let k = pair.m_a
            + pair.i_a * ru_a * ru_a
            + self.ratio * self.ratio * (pair.m_b + pair.i_b * ru_b * ru_b);
        let mass = inv_or_zero(k);
        let s = rigid_softness(ctx, use_bias, None);
        let c_dot = rope.u_a.dot(a.v + cross_sv(a.w, rope.r_a))
            + self.ratio * rope.u_b.dot(b.v + cross_sv(b.w, rope.r_b));
        let impulse =
            -s.mass_scale * mass * (c_dot + s.bias_rate * rope.c) - s.impulse_scale * self.impulse;
        self.impulse += impulse;
        self.apply(&mut a, &mut b, &rope, impulse);
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
        let (g_a, g_b) = (self.ground_anchor_a, self.ground_anchor_b);
        if flags.joints {
            draw.draw_segment(g_a, p_a, DrawKind::Joint);
            draw.draw_segment(g_b, p_b, DrawKind::Joint);
            draw.draw_segment(g_a, g_b, DrawKind::Joint);
        }
        if flags.joint_anchors {
            for p in [p_a, p_b] {
                draw.draw_point(p, ANCHOR_SIZE, DrawKind::JointAnchor);
            }
            for g in [g_a, g_b] {
                draw.draw_point(g, ANCHOR_SIZE, DrawKind::JointLimit);
            }
        }
    }
}
