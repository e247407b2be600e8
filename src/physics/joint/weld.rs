//! Weld joint: B keeps its position and angle relative to A. Rigid, the three rows are
//! solved together as one 3x3 block; with softness (hertz > 0) the angular row and the
//! 2x2 linear block are springs solved one after the other. Reference: seed 002 (fixed
//! joint: three constraints in one, 3x3 effective mass, warm starting, anchors relative to
//! the centre of mass) and seed 003 (weld Jacobian).
//!
//! ```text
//! C    = [(c_b + r_b) - (c_a + r_a);  angle_b - angle_a - reference_angle]
//! Cdot = [v_b + w_b x r_b - v_a - w_a x r_a;  w_b - w_a]
//! J    = [-I, -skew(r_a), I, skew(r_b);  0, -1, 0, 1]
//! K    = [m + i_a r_a.y^2 + i_b r_b.y^2,  -i_a r_a.x r_a.y - i_b r_b.x r_b.y,  -i_a r_a.y - i_b r_b.y;
//!         .,                               m + i_a r_a.x^2 + i_b r_b.x^2,      i_a r_a.x + i_b r_b.x;
//!         .,                               .,                                  i_a + i_b]
//!        with m = m_a + m_b (symmetric)
//! ```
//! Sign convention: impulses act negatively on A and positively on B.

use super::Anchors;
use super::{
    apply_angular, apply_linear, draw_anchors, inv_or_zero, point_velocity, rigid_softness,
    solve22, solve33, spring_softness,
};
use crate::physics::body::Body;
use crate::physics::debug_draw::{DebugDraw, DrawFlags};
use crate::physics::error::{check_finite_vec, check_non_negative, PhysicsResult};
use crate::physics::math::Vec2;
use crate::physics::solver::{SolverBody, StepContext};
use glam::Vec3;

/// Definition of a weld joint.
#[derive(Clone, Debug, PartialEq)]
pub struct WeldJointDef {
    /// The weld point, world metres. Default (0, 0).
    pub anchor: Vec2,
    /// Linear stiffness, Hz (>= 0; 0 = rigid). Default 0.
    pub linear_hertz: f32,
    /// Angular stiffness, Hz (>= 0; 0 = rigid). Default 0.
    pub angular_hertz: f32,
    /// Linear damping ratio (>= 0). Default 1.
    pub linear_damping_ratio: f32,
    /// Angular damping ratio (>= 0). Default 1.
    pub angular_damping_ratio: f32,
}

impl Default for WeldJointDef {
    fn default() -> Self {
        WeldJointDef {
            anchor: Vec2::ZERO,
            linear_hertz: 0.0,
            angular_hertz: 0.0,
            linear_damping_ratio: 1.0,
            angular_damping_ratio: 1.0,
        }
    }
}

impl WeldJointDef {
    pub fn new(anchor: Vec2) -> Self {
        WeldJointDef {
            anchor,
            ..Default::default()
        }
    }

    pub fn validate(&self) -> PhysicsResult<()> {
        check_finite_vec("anchor", self.anchor)?;
        check_non_negative("linear_hertz", self.linear_hertz)?;
        check_non_negative("angular_hertz", self.angular_hertz)?;
        check_non_negative("linear_damping_ratio", self.linear_damping_ratio)?;
        check_non_negative("angular_damping_ratio", self.angular_damping_ratio)?;
        Ok(())
    }
}

/// A weld joint.
#[derive(Clone, Debug)]
pub struct WeldJoint {
    pub(crate) local_anchor_a: Vec2,
    pub(crate) local_anchor_b: Vec2,
    pub(crate) reference_angle: f32,
    pub(crate) linear_hertz: f32,
    pub(crate) angular_hertz: f32,
    pub(crate) linear_damping_ratio: f32,
    pub(crate) angular_damping_ratio: f32,

    // Accumulated impulses.
    pub(crate) linear_impulse: Vec2,
    pub(crate) angular_impulse: f32,

    // Per step.
    /// The bodies and the anchors' arms, prepared before dispatch (`Anchors`).
    pub(crate) anchors: Anchors,
}

super::saved_state! {
    /// What a weld joint carries from step to step beyond its definition (see
    /// `JointState`); the order of the fields is the order of the state hash.
    WeldState for WeldJoint {
        local_anchor_a: Vec2,
        local_anchor_b: Vec2,
        reference_angle: f32,
        linear_impulse: Vec2,
        angular_impulse: f32,
    }
}

impl WeldJoint {
    pub(crate) fn new(def: &WeldJointDef, body_a: &Body, body_b: &Body) -> PhysicsResult<Self> {
        def.validate()?;
        Ok(WeldJoint {
            local_anchor_a: body_a.local_point(def.anchor),
            local_anchor_b: body_b.local_point(def.anchor),
            reference_angle: body_b.angle - body_a.angle,
            linear_hertz: def.linear_hertz,
            angular_hertz: def.angular_hertz,
            linear_damping_ratio: def.linear_damping_ratio,
            angular_damping_ratio: def.angular_damping_ratio,
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
    pub fn reference_angle(&self) -> f32 {
        self.reference_angle
    }
    /// (linear hertz, linear damping ratio, angular hertz, angular damping ratio).
    pub fn softness(&self) -> (f32, f32, f32, f32) {
        (
            self.linear_hertz,
            self.linear_damping_ratio,
            self.angular_hertz,
            self.angular_damping_ratio,
        )
    }
    /// Set the softness (values < 0 or not finite are ignored).
    pub fn set_softness(
        &mut self,
        linear_hertz: f32,
        linear_damping: f32,
        angular_hertz: f32,
        angular_damping: f32,
    ) {
        let ok = |x: f32| x.is_finite() && x >= 0.0;
        if ok(linear_hertz) && ok(linear_damping) && ok(angular_hertz) && ok(angular_damping) {
            self.linear_hertz = linear_hertz;
            self.linear_damping_ratio = linear_damping;
            self.angular_hertz = angular_hertz;
            self.angular_damping_ratio = angular_damping;
        }
    }
    pub fn reaction_force(&self, inv_dt: f32) -> Vec2 {
        self.linear_impulse * inv_dt
    }
    pub fn reaction_torque(&self, inv_dt: f32) -> f32 {
        self.angular_impulse * inv_dt
    }
    /// Distance between the anchors, metres.
    pub fn linear_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        (self.anchor_b(body_b) - self.anchor_a(body_a)).length()
    }
    /// Relative rotation, radians.
    pub fn angular_error(&self, body_a: &Body, body_b: &Body) -> f32 {
        (body_b.angle - body_a.angle - self.reference_angle).abs()
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
    // Solve: one 3x3 block when rigid; angular then linear when soft.

    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, use_bias: bool) {
        let pair = self.anchors.pair;
        let (mut a, mut b) = pair.load(bodies);
        let r_a = a.dq.rotate(self.anchors.frame_a);
        let r_b = b.dq.rotate(self.anchors.frame_b);
        let (k11, k12, k22) = pair.point_k(r_a, r_b);
        let (i_a, i_b) = (pair.i_a, pair.i_b);
        let k13 = -i_a * r_a.y - i_b * r_b.y;
        let k23 = i_a * r_a.x + i_b * r_b.x;
        let k33 = i_a + i_b;
        let rigid = self.linear_hertz == 0.0 && self.angular_hertz == 0.0;

        let c_lin = pair.separation(&a, &b, r_a, r_b);
        let c_ang = pair.relative_angle(&a, &b) - self.reference_angle;

        let block = if rigid {
            let s = rigid_softness(ctx, use_bias, None);
            let c_dot = point_velocity(&a, &b, r_a, r_b);
            let rhs = Vec3::new(
                c_dot.x + s.bias_rate * c_lin.x,
                c_dot.y + s.bias_rate * c_lin.y,
                b.w - a.w + s.bias_rate * c_ang,
            );
            solve33(
                Vec3::new(k11, k12, k13),
                Vec3::new(k12, k22, k23),
                Vec3::new(k13, k23, k33),
                rhs,
            )
            .map(|x| (x, s))
        } else {
            None
        };

        if let Some((x, s)) = block {
            let acc = Vec3::new(
                self.linear_impulse.x,
                self.linear_impulse.y,
                self.angular_impulse,
            );
            let impulse = -s.mass_scale * x - s.impulse_scale * acc;
            let p = Vec2::new(impulse.x, impulse.y);
            self.linear_impulse += p;
            self.angular_impulse += impulse.z;
            apply_linear(&mut a, &mut b, r_a, r_b, p);
            apply_angular(&mut a, &mut b, impulse.z);
        } else {
            // Angular row (a spring row is not a position constraint: skipped in the
            // position pass).
            if k33 > 0.0 && !(ctx.position_pass && self.angular_hertz > 0.0) {
                let s = if self.angular_hertz > 0.0 {
                    spring_softness(ctx, self.angular_hertz, self.angular_damping_ratio)
                } else {
                    rigid_softness(ctx, use_bias, None)
                };
                let c_dot = b.w - a.w;
                let impulse = -s.mass_scale * inv_or_zero(k33) * (c_dot + s.bias_rate * c_ang)
                    - s.impulse_scale * self.angular_impulse;
                self.angular_impulse += impulse;
                apply_angular(&mut a, &mut b, impulse);
            }
            // Linear 2x2 block.
            if ctx.position_pass && self.linear_hertz > 0.0 {
                pair.store(bodies, &a, &b);
                return;
            }
            let s = if self.linear_hertz > 0.0 {
                spring_softness(ctx, self.linear_hertz, self.linear_damping_ratio)
            } else {
                rigid_softness(ctx, use_bias, None)
            };
            let c_dot = point_velocity(&a, &b, r_a, r_b);
            let impulse = -s.mass_scale * solve22((k11, k12, k22), c_dot + s.bias_rate * c_lin)
                - s.impulse_scale * self.linear_impulse;
            self.linear_impulse += impulse;
            apply_linear(&mut a, &mut b, r_a, r_b, impulse);
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
    }
}
