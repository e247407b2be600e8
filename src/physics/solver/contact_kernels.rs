//! The contact kernels of the families added beside the classic solver and the soft step
//! (issue 13). They run over the scalar constraints of `ContactConstraint` (these families
//! never colour contacts into SIMD batches) and leave the classic and soft-step kernels of
//! `contact.rs` untouched.
//!
//! Notation as in `contact.rs`: arms `r_a`, `r_b` from the centres of mass to the contact
//! point at prepare time, normal n (A to B), tangent `t = (n.y, -n.x)`. Since prepare, body
//! X has moved by `dp_X` and turned by `dq_X`, so its current arm is `r_X' = dq_X r_X` and
//! the two anchors, which coincided at prepare, have drifted apart by
//!
//! ```text
//! d = (dp_b + r_b' - r_b) - (dp_a + r_a' - r_a)
//! s = separation + n . d      (current separation)
//! s_t = t . d                 (tangential drift, what sticky and static friction undo)
//! ```
//!
//! - **Jacobi** (`solve_jacobi`): every constraint reads the velocities of the iteration's
//!   start and adds its change to a per-body sum; the sums are applied scaled by the
//!   relaxation factor w (`v += w sum dv`), and each constraint's accumulated impulses move
//!   by the same fraction (`lambda = old + w (new - old)`), so impulses and velocities stay
//!   consistent. Both ends satisfy the clamps (`lambda_n >= 0`, `|lambda_t| <= mu lambda_n`),
//!   so their convex combination does too.
//! - **Current anchors** (`solve_anchored`, TGS-Soft and TGS-NGS): the Jacobian uses `r'`
//!   and the target the current separation `s`. (TGS-Sticky's kernel, with its friction
//!   anchors kept across steps, is `contact_sticky.rs`.)
//! - **NGS position pass** (`solve_positions_ngs`, Box2D v2.4's
//!   `b2ContactSolver::SolvePositionConstraints`): per point,
//!   `C = clamp(beta (s + slop), -MAX_LINEAR_CORRECTION, 0)`, `K` with the current arms,
//!   position impulse `P = -C / K n` moving the bodies at once (`dp -= m_a P`,
//!   `angle -= i_a r_a' x P`).
//! - **XPBD** (`solve_positions_xpbd`, `solve_velocities_xpbd`; Macklin et al. 2019, Mueller
//!   et al. 2020): per point with `s < 0`, `lambda = -s / (w_a + w_b + alpha / h^2)` with
//!   generalized inverse masses `w_X = m_X + i_X (r_X' x n)^2` and compliance alpha
//!   (quartered against a body that does not move, as Solver2D); static friction then
//!   undoes `s_t` completely when `|lambda_t| <= mu lambda_n`. After velocities are derived
//!   from the motion, the velocity pass removes the normal velocity of every point that was
//!   pushed and applies dynamic friction `dv_t = -sign(v_t) min(mu lambda_n / h, |v_t|)`.

use super::contact::{
    apply, load, relative_velocity, solve_contact_pair, store, BiasMode, ContactConstraint,
    ContactSolver,
};
use super::{SolverBody, StepContext};
use crate::physics::limits;
use crate::physics::math::{cross, Vec2};
use crate::physics::settings::MAX_LINEAR_CORRECTION;

/// TGS-Sticky (`contact_sticky.rs`): fraction of the penetration (all of it beyond zero)
/// removed per sub-step (Solver2D's 0.8), capped at `contact_push_max_velocity`.
pub const STICKY_BAUMGARTE: f32 = 0.8;

/// TGS-Sticky: fraction of the friction anchors' tangential drift removed per sub-step
/// (Solver2D's 0.5).
pub const STICKY_FRICTION_FRACTION: f32 = 0.5;

/// The normal velocity target of the current-anchor kernel (speculative points always
/// target `s / h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnchoredBias {
    /// Soft push-out (the soft step's coefficients): TGS-Soft's solve pass.
    Soft,
    /// Rigid, no push-out: the relax passes.
    Relax,
    /// Rigid, no push-out, overlap left to a position pass: TGS-NGS.
    Speculative,
    /// Rigid Baumgarte push-out of `STICKY_BAUMGARTE`: TGS-Sticky (`contact_sticky.rs`).
    Baumgarte,
}

/// An accumulated impulse held inside the range the loader accepts for saved impulses
/// (`limits::ACCUMULATED_IMPULSE`), NaN as 0: a diverging Jacobi sweep sums infinities
/// (`inf - inf`), and a NaN friction bound would make `clamp` panic. Values inside the
/// range are unchanged.
#[inline]
pub(super) fn held(x: f32) -> f32 {
    let max = limits::ACCUMULATED_IMPULSE.max;
    if x.is_nan() {
        0.0
    } else {
        x.clamp(-max, max)
    }
}

/// The current arms of a point and the drift of its anchors since prepare.
#[inline]
pub(super) fn moved(a: &SolverBody, b: &SolverBody, r_a: Vec2, r_b: Vec2) -> (Vec2, Vec2, Vec2) {
    let ra = a.dq.rotate(r_a);
    let rb = b.dq.rotate(r_b);
    let d = (b.dp - a.dp) + (rb - r_b) - (ra - r_a);
    (ra, rb, d)
}

/// Move a body by a position impulse's effect: `dp` and a turn `da`.
#[inline]
fn shift(body: &mut SolverBody, dp: Vec2, da: f32) {
    body.dp += dp;
    body.d_angle += da;
    body.dq = body.dq.integrate(da);
}

/// Apply a position impulse `p` at the current arms (negative on A, positive on B).
#[inline]
fn push(a: &mut SolverBody, b: &mut SolverBody, ra: Vec2, rb: Vec2, p: Vec2) {
    shift(a, -a.inv_mass * p, -a.inv_inertia * cross(ra, p));
    shift(b, b.inv_mass * p, b.inv_inertia * cross(rb, p));
}

/// Write back the motion of the two bodies (never the shared static body 0).
#[inline]
fn store_motion(bodies: &mut [SolverBody], c: &ContactConstraint, a: &SolverBody, b: &SolverBody) {
    if c.index_a != 0 {
        bodies[c.index_a] = *a;
    }
    if c.index_b != 0 {
        bodies[c.index_b] = *b;
    }
}

/// Generalized inverse mass of a body at arm `r` along `dir`.
#[inline]
fn inverse_mass(body: &SolverBody, r: Vec2, dir: Vec2) -> f32 {
    let rn = cross(r, dir);
    body.inv_mass + body.inv_inertia * rn * rn
}

impl ContactSolver {
    /// Jacobi: one iteration over every constraint from the velocities of its start, the
    /// changes applied afterwards scaled by `relaxation` (see the module docs).
    pub(crate) fn solve_jacobi(
        &mut self,
        bodies: &mut [SolverBody],
        ctx: &StepContext,
        mode: BiasMode,
        deltas: &mut Vec<(Vec2, f32)>,
    ) {
        let w = ctx.settings.jacobi_relaxation;
        deltas.clear();
        deltas.resize(bodies.len(), (Vec2::ZERO, 0.0));
        for c in &mut self.scalar {
            let (a0, b0) = load(bodies, c.index_a, c.index_b);
            let (mut a, mut b) = (a0, b0);
            let before = c.points;
            solve_contact_pair(c, &mut a, &mut b, ctx, mode);
            for (cp, old) in c.points[..c.count].iter_mut().zip(&before) {
                cp.normal_impulse =
                    held(old.normal_impulse + w * (cp.normal_impulse - old.normal_impulse));
                cp.tangent_impulse =
                    held(old.tangent_impulse + w * (cp.tangent_impulse - old.tangent_impulse));
                cp.max_normal_impulse = held(cp.max_normal_impulse);
            }
            for (k, new, old) in [(c.index_a, a, a0), (c.index_b, b, b0)] {
                let finite = new.v.is_finite() && new.w.is_finite();
                if k != 0 && finite {
                    deltas[k].0 += w * (new.v - old.v);
                    deltas[k].1 += w * (new.w - old.w);
                }
            }
        }
        for (body, &(dv, dw)) in bodies.iter_mut().zip(deltas.iter()).skip(1) {
            body.v += dv;
            body.w += dw;
        }
    }

    /// One Gauss-Seidel pass with current anchors (the TGS families).
    pub(crate) fn solve_anchored(
        &mut self,
        bodies: &mut [SolverBody],
        ctx: &StepContext,
        bias: AnchoredBias,
    ) {
        for c in &mut self.scalar {
            solve_anchored_contact(c, bodies, ctx, bias);
        }
    }

    /// One NGS position iteration over every constraint (Box2D v2.4).
    pub(crate) fn solve_positions_ngs(&self, bodies: &mut [SolverBody], ctx: &StepContext) {
        let beta = ctx.settings.bias_factor;
        let slop = ctx.settings.allowed_penetration;
        for c in &self.scalar {
            let (mut a, mut b) = load(bodies, c.index_a, c.index_b);
            let n = c.normal;
            for cp in &c.points[..c.count] {
                let (ra, rb, d) = moved(&a, &b, cp.r_a, cp.r_b);
                let s = n.dot(d) + cp.separation;
                let error = (beta * (s + slop)).clamp(-MAX_LINEAR_CORRECTION, 0.0);
                let k = inverse_mass(&a, ra, n) + inverse_mass(&b, rb, n);
                if k > 0.0 && error < 0.0 {
                    push(&mut a, &mut b, ra, rb, (-error / k) * n);
                }
            }
            store_motion(bodies, c, &a, &b);
        }
    }

    /// XPBD: project every contact's position constraints once (see the module docs). The
    /// point's position impulse of this sub-step is kept in `last_normal_increment`; its
    /// normal and tangent impulses, as impulses per sub-step (`lambda / h`), in
    /// `normal_impulse` and `tangent_impulse` for restitution and reporting.
    pub(crate) fn solve_positions_xpbd(&mut self, bodies: &mut [SolverBody], ctx: &StepContext) {
        let alpha = ctx.settings.xpbd_compliance * ctx.inv_dt * ctx.inv_dt;
        for c in &mut self.scalar {
            let (mut a, mut b) = load(bodies, c.index_a, c.index_b);
            let n = c.normal;
            let t = Vec2::new(n.y, -n.x);
            let fixed = a.inv_mass == 0.0 || b.inv_mass == 0.0;
            let alpha = if fixed { 0.25 * alpha } else { alpha };
            for cp in &mut c.points[..c.count] {
                let (ra, rb, d) = moved(&a, &b, cp.r_a, cp.r_b);
                let s = n.dot(d) + cp.separation;
                let w = inverse_mass(&a, ra, n) + inverse_mass(&b, rb, n);
                cp.last_normal_increment = 0.0;
                cp.normal_impulse = 0.0;
                cp.tangent_impulse = 0.0;
                if s >= 0.0 || w + alpha <= 0.0 {
                    continue;
                }
                let lambda = -s / (w + alpha);
                cp.last_normal_increment = lambda;
                cp.normal_impulse = held(lambda * ctx.inv_dt);
                cp.max_normal_impulse = held(cp.max_normal_impulse.max(cp.normal_impulse));
                push(&mut a, &mut b, ra, rb, lambda * n);
            }
            for cp in &mut c.points[..c.count] {
                let lambda_n = cp.last_normal_increment;
                if lambda_n <= 0.0 {
                    continue;
                }
                let (ra, rb, d) = moved(&a, &b, cp.r_a, cp.r_b);
                let w = inverse_mass(&a, ra, t) + inverse_mass(&b, rb, t);
                if w <= 0.0 {
                    continue;
                }
                let lambda = -t.dot(d) / w;
                if lambda.abs() > c.friction * lambda_n {
                    continue; // sliding: dynamic friction acts in the velocity pass
                }
                cp.tangent_impulse = held(lambda * ctx.inv_dt);
                push(&mut a, &mut b, ra, rb, lambda * t);
            }
            store_motion(bodies, c, &a, &b);
        }
    }

    /// XPBD: the velocity pass after velocities were derived from the motion.
    pub(crate) fn solve_velocities_xpbd(&mut self, bodies: &mut [SolverBody], ctx: &StepContext) {
        for c in &mut self.scalar {
            let (mut a, mut b) = load(bodies, c.index_a, c.index_b);
            let n = c.normal;
            let t = Vec2::new(n.y, -n.x);
            for cp in &c.points[..c.count] {
                if cp.last_normal_increment <= 0.0 {
                    continue;
                }
                let (ra, rb, _) = moved(&a, &b, cp.r_a, cp.r_b);
                let w = inverse_mass(&a, ra, n) + inverse_mass(&b, rb, n);
                if w > 0.0 {
                    let vn = relative_velocity(&a, &b, ra, rb).dot(n);
                    apply(&mut a, &mut b, ra, rb, (-vn / w) * n);
                }
                let w = inverse_mass(&a, ra, t) + inverse_mass(&b, rb, t);
                let vt = relative_velocity(&a, &b, ra, rb).dot(t);
                if w > 0.0 && vt != 0.0 {
                    let limit = c.friction * cp.last_normal_increment * ctx.inv_dt;
                    let dv = -vt.signum() * limit.min(vt.abs());
                    apply(&mut a, &mut b, ra, rb, (dv / w) * t);
                }
            }
            store(bodies, c.index_a, c.index_b, &a, &b);
        }
    }
}

/// One constraint with current anchors: normal first, then friction.
fn solve_anchored_contact(
    c: &mut ContactConstraint,
    bodies: &mut [SolverBody],
    ctx: &StepContext,
    bias: AnchoredBias,
) {
    let (mut a, mut b) = load(bodies, c.index_a, c.index_b);
    let n = c.normal;
    let t = Vec2::new(n.y, -n.x);
    let max_push = ctx.settings.contact_push_max_velocity;
    for cp in &mut c.points[..c.count] {
        let (ra, rb, d) = moved(&a, &b, cp.r_a, cp.r_b);
        let s = n.dot(d) + cp.separation;
        let (target, mass_scale, impulse_scale) = if s > 0.0 {
            (s * ctx.inv_dt, 1.0, 0.0)
        } else {
            match bias {
                AnchoredBias::Soft => {
                    let soft = c.softness;
                    let target = (soft.mass_scale * soft.bias_rate * s).max(-max_push);
                    (target, soft.mass_scale, soft.impulse_scale)
                }
                AnchoredBias::Baumgarte => {
                    ((STICKY_BAUMGARTE * s * ctx.inv_dt).max(-max_push), 1.0, 0.0)
                }
                AnchoredBias::Relax | AnchoredBias::Speculative => (0.0, 1.0, 0.0),
            }
        };
        let vn = relative_velocity(&a, &b, ra, rb).dot(n);
        let lambda =
            -cp.normal_mass * (mass_scale * vn + target) - impulse_scale * cp.normal_impulse;
        let new_impulse = held((cp.normal_impulse + lambda).max(0.0));
        let lambda = new_impulse - cp.normal_impulse;
        cp.normal_impulse = new_impulse;
        cp.last_normal_increment = lambda;
        cp.max_normal_impulse = cp.max_normal_impulse.max(lambda);
        apply(&mut a, &mut b, ra, rb, lambda * n);
    }
    for cp in &mut c.points[..c.count] {
        let (ra, rb, _) = moved(&a, &b, cp.r_a, cp.r_b);
        let vt = relative_velocity(&a, &b, ra, rb).dot(t);
        let (target, max_friction) = (0.0, c.friction * cp.normal_impulse);
        let max_friction = held(max_friction).abs();
        let lambda = -cp.tangent_mass * (vt + target);
        let new_impulse = held(cp.tangent_impulse + lambda).clamp(-max_friction, max_friction);
        let lambda = new_impulse - cp.tangent_impulse;
        cp.tangent_impulse = new_impulse;
        apply(&mut a, &mut b, ra, rb, lambda * t);
    }
    store(bodies, c.index_a, c.index_b, &a, &b);
}
