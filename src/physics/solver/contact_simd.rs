//! The soft step's contact solve, four constraints at a time (Box2D v3's
//! `contact_solver.c` idea, written for Impulse's contact model).
//!
//! Same constraint as `contact.rs` (read its derivation first): per point
//! `lambda = -mass_scale * normal_mass * (vn + bias) - impulse_scale * accumulated`, friction
//! before the normal so non-penetration has the last word, accumulated impulses clamped.
//!
//! Layout:
//! - `graph.rs` colours the contacts by their solver bodies: within a colour no two
//!   constraints share a moving body.
//! - Each colour is cut into batches of four (`ContactBatch`); the last batch of a colour is
//!   padded with empty lanes (static body 0 on both sides, all masses zero: their impulses
//!   stay exactly zero). Batches are stored colour after colour in one array and solved in
//!   that order; the batch is struct-of-arrays: every field is an `F32x4`, lane `l` belongs
//!   to constraint `l` of the batch.
//! - Body velocities are gathered per batch: the first 16 bytes of each `SolverBody`
//!   (`[v.x, v.y, w, d_angle]`) of the four A bodies are loaded and transposed into
//!   `v.x[4], v.y[4], w[4], d_angle[4]`; the same for B, and for `[dp, dq]` in the solve
//!   pass. After the batch they are transposed back and stored (scatter), skipping index 0,
//!   the shared static body. Fixed (kinematic) bodies may appear in several lanes: their
//!   inverse masses are zero, so every lane writes back the velocity it read.
//! - The few constraints the colouring could not place (overflow) are solved by the scalar
//!   code in `contact.rs`, before the batches, in every pass.
//! - Constraints are prepared by the scalar `ContactConstraint::prepare` one at a time and
//!   written straight into their lane; only overflow constraints are kept as scalars.
//! - After the step the accumulated impulses go straight back to the contacts
//!   (`store_impulses`) for the next warm start.
//!
//! Current separation (Box2D v3's anchors-fixed-in-the-body form): with `dp`, `dq` the
//! bodies' displacement and rotation since prepare,
//! ```text
//! s = n . (dp_b - dp_a + dq_b r_b - dq_a r_a) + adjusted_separation
//! adjusted_separation = separation - n . (r_b - r_a)
//! ```
//! which is the scalar solver's `separation + n . ((dp_b + dq_b r_b - r_b) - (dp_a + ...))`
//! regrouped so that the constant part is computed once.

use super::contact::ContactConstraint;
use super::graph::ConstraintGraph;
use super::wide::{F32x4, Vec2x4};
use super::{SolverBody, StepContext};
use crate::physics::contact::Contact;

/// Constraints per batch.
pub const LANES: usize = 4;

/// One point of four contact constraints.
#[derive(Clone, Copy, Debug)]
struct PointX4 {
    r_a: Vec2x4,
    r_b: Vec2x4,
    adjusted_separation: F32x4,
    normal_mass: F32x4,
    tangent_mass: F32x4,
    normal_impulse: F32x4,
    tangent_impulse: F32x4,
    max_normal_impulse: F32x4,
    /// Normal velocity before the iterations (restitution).
    relative_velocity: F32x4,
}

/// Four contact constraints of one colour, struct-of-arrays.
#[derive(Clone, Copy, Debug)]
pub struct ContactBatch {
    index_a: [u32; LANES],
    index_b: [u32; LANES],
    normal: Vec2x4,
    friction: F32x4,
    restitution: F32x4,
    bias_rate: F32x4,
    mass_scale: F32x4,
    impulse_scale: F32x4,
    inv_mass_a: F32x4,
    inv_inertia_a: F32x4,
    inv_mass_b: F32x4,
    inv_inertia_b: F32x4,
    points: [PointX4; 2],
    /// Index of each lane's contact in the world's array (`u32::MAX` for an empty lane).
    contacts: [u32; LANES],
    /// Any lane with restitution (the restitution pass skips the batch otherwise).
    any_restitution: bool,
}

impl ContactBatch {
    /// Four empty lanes.
    const EMPTY: ContactBatch = ContactBatch {
        index_a: [0; LANES],
        index_b: [0; LANES],
        normal: Vec2x4 {
            x: F32x4::ZERO,
            y: F32x4::ZERO,
        },
        friction: F32x4::ZERO,
        restitution: F32x4::ZERO,
        bias_rate: F32x4::ZERO,
        mass_scale: F32x4::ZERO,
        impulse_scale: F32x4::ZERO,
        inv_mass_a: F32x4::ZERO,
        inv_inertia_a: F32x4::ZERO,
        inv_mass_b: F32x4::ZERO,
        inv_inertia_b: F32x4::ZERO,
        points: [PointX4::EMPTY; 2],
        contacts: [u32::MAX; LANES],
        any_restitution: false,
    };
}

impl PointX4 {
    const EMPTY: PointX4 = PointX4 {
        r_a: Vec2x4 {
            x: F32x4::ZERO,
            y: F32x4::ZERO,
        },
        r_b: Vec2x4 {
            x: F32x4::ZERO,
            y: F32x4::ZERO,
        },
        adjusted_separation: F32x4::ZERO,
        normal_mass: F32x4::ZERO,
        tangent_mass: F32x4::ZERO,
        normal_impulse: F32x4::ZERO,
        tangent_impulse: F32x4::ZERO,
        max_normal_impulse: F32x4::ZERO,
        relative_velocity: F32x4::ZERO,
    };
}

/// The velocities of four bodies, one per lane; `dp`, `dq` only in the solve pass.
#[derive(Clone, Copy)]
struct BodyX4 {
    v: Vec2x4,
    w: F32x4,
    d_angle: F32x4,
    dp: Vec2x4,
    dq_c: F32x4,
    dq_s: F32x4,
}

/// Load `[v.x, v.y, w, d_angle]` (and with `motion`, `[dp.x, dp.y, dq.c, dq.s]`) of four
/// bodies into lanes.
#[inline(always)]
fn gather(bodies: &[SolverBody], index: &[u32; LANES], motion: bool) -> BodyX4 {
    let rows: [&SolverBody; LANES] = std::array::from_fn(|l| &bodies[index[l] as usize]);
    // SAFETY: `SolverBody` is `repr(C)` and starts with the eight floats v.x, v.y, w,
    // d_angle, dp.x, dp.y, dq.c, dq.s (see its docs); each pointer comes from a reference.
    let velocity = F32x4::transpose(
        rows.map(|r| unsafe { F32x4::load(r as *const SolverBody as *const f32) }),
    );
    let mut body = BodyX4 {
        v: Vec2x4 {
            x: velocity[0],
            y: velocity[1],
        },
        w: velocity[2],
        d_angle: velocity[3],
        dp: Vec2x4::default(),
        dq_c: F32x4::ZERO,
        dq_s: F32x4::ZERO,
    };
    if motion {
        // SAFETY: as above, floats 4..8 of the struct.
        let m = F32x4::transpose(
            rows.map(|r| unsafe { F32x4::load((r as *const SolverBody as *const f32).add(4)) }),
        );
        body.dp = Vec2x4 { x: m[0], y: m[1] };
        body.dq_c = m[2];
        body.dq_s = m[3];
    }
    body
}

/// Store the four bodies' `[v.x, v.y, w, d_angle]` back (never index 0).
#[inline(always)]
fn scatter(bodies: &mut [SolverBody], index: &[u32; LANES], body: &BodyX4) {
    let rows = F32x4::transpose([body.v.x, body.v.y, body.w, body.d_angle]);
    for (row, &i) in rows.iter().zip(index) {
        if i != 0 {
            let target = &mut bodies[i as usize];
            // SAFETY: the first four floats of the `repr(C)` struct (see `gather`).
            unsafe { row.store(target as *mut SolverBody as *mut f32) };
        }
    }
}

/// `v_b + w_b x r_b - v_a - w_a x r_a`.
#[inline(always)]
fn relative_velocity(a: &BodyX4, b: &BodyX4, r_a: Vec2x4, r_b: Vec2x4) -> Vec2x4 {
    Vec2x4 {
        x: (b.v.x - b.w * r_b.y) - (a.v.x - a.w * r_a.y),
        y: (b.v.y + b.w * r_b.x) - (a.v.y + a.w * r_a.x),
    }
}

impl ContactBatch {
    /// Apply the impulse `p` at the arms: `-p` on A, `+p` on B.
    #[inline(always)]
    fn apply(&self, a: &mut BodyX4, b: &mut BodyX4, r_a: Vec2x4, r_b: Vec2x4, p: Vec2x4) {
        a.v.x -= self.inv_mass_a * p.x;
        a.v.y -= self.inv_mass_a * p.y;
        a.w -= self.inv_inertia_a * (r_a.x * p.y - r_a.y * p.x);
        b.v.x += self.inv_mass_b * p.x;
        b.v.y += self.inv_mass_b * p.y;
        b.w += self.inv_inertia_b * (r_b.x * p.y - r_b.y * p.x);
    }

    /// Write a prepared scalar constraint into lane `l`.
    fn set_lane(&mut self, l: usize, c: &ContactConstraint, bodies: &[SolverBody]) {
        fn set(x: &mut F32x4, l: usize, value: f32) {
            x.set_lane(l, value);
        }
        self.index_a[l] = c.index_a as u32;
        self.index_b[l] = c.index_b as u32;
        self.contacts[l] = c.contact as u32;
        set(&mut self.normal.x, l, c.normal.x);
        set(&mut self.normal.y, l, c.normal.y);
        set(&mut self.friction, l, c.friction);
        set(&mut self.restitution, l, c.restitution);
        set(&mut self.bias_rate, l, c.softness.bias_rate);
        set(&mut self.mass_scale, l, c.softness.mass_scale);
        set(&mut self.impulse_scale, l, c.softness.impulse_scale);
        let (body_a, body_b) = (&bodies[c.index_a], &bodies[c.index_b]);
        set(&mut self.inv_mass_a, l, body_a.inv_mass);
        set(&mut self.inv_inertia_a, l, body_a.inv_inertia);
        set(&mut self.inv_mass_b, l, body_b.inv_mass);
        set(&mut self.inv_inertia_b, l, body_b.inv_inertia);
        // Unused points of a one-point manifold are all zeros: their impulses stay zero.
        for (p, cp) in self.points.iter_mut().zip(&c.points) {
            set(&mut p.r_a.x, l, cp.r_a.x);
            set(&mut p.r_a.y, l, cp.r_a.y);
            set(&mut p.r_b.x, l, cp.r_b.x);
            set(&mut p.r_b.y, l, cp.r_b.y);
            let adjusted = cp.separation - c.normal.dot(cp.r_b - cp.r_a);
            set(&mut p.adjusted_separation, l, adjusted);
            set(&mut p.normal_mass, l, cp.normal_mass);
            set(&mut p.tangent_mass, l, cp.tangent_mass);
            set(&mut p.normal_impulse, l, cp.normal_impulse);
            set(&mut p.tangent_impulse, l, cp.tangent_impulse);
            set(&mut p.max_normal_impulse, l, cp.max_normal_impulse);
            set(&mut p.relative_velocity, l, cp.relative_velocity);
        }
        self.any_restitution |= c.restitution != 0.0;
    }
}

/// The coloured, batched contact constraints of one step. Buffers are reused.
#[derive(Clone, Debug, Default)]
pub struct WideContacts {
    graph: ConstraintGraph,
    batches: Vec<ContactBatch>,
}

impl WideContacts {
    /// Colour the constraints given by their solver body pairs `(index_a, index_b)`, then
    /// fill the batches colour by colour: `prepare(k)` builds constraint `k` (its position
    /// in `pairs`). Constraints that fit no colour are left out: see `overflow`.
    pub fn build(
        &mut self,
        pairs: &[(u32, u32)],
        bodies: &[SolverBody],
        mut prepare: impl FnMut(usize) -> ContactConstraint,
    ) {
        self.graph.color(
            bodies.len(),
            pairs.iter().map(|&(a, b)| (a as usize, b as usize)),
            |i| bodies[i].inv_mass == 0.0 && bodies[i].inv_inertia == 0.0,
        );
        self.batches.clear();
        for list in &self.graph.colors {
            for chunk in list.chunks(LANES) {
                let mut batch = ContactBatch::EMPTY;
                for (l, &k) in chunk.iter().enumerate() {
                    batch.set_lane(l, &prepare(k as usize), bodies);
                }
                self.batches.push(batch);
            }
        }
    }

    /// Positions in `pairs` of the constraints the scalar solver handles (ascending).
    pub fn overflow(&self) -> &[u32] {
        &self.graph.overflow
    }

    /// Apply the accumulated impulses (warm start).
    pub fn warm_start(&self, bodies: &mut [SolverBody]) {
        for batch in &self.batches {
            let mut a = gather(bodies, &batch.index_a, false);
            let mut b = gather(bodies, &batch.index_b, false);
            let n = batch.normal;
            let t = Vec2x4 { x: n.y, y: -n.x };
            for p in &batch.points {
                let impulse = Vec2x4 {
                    x: p.normal_impulse * n.x + p.tangent_impulse * t.x,
                    y: p.normal_impulse * n.y + p.tangent_impulse * t.y,
                };
                batch.apply(&mut a, &mut b, p.r_a, p.r_b, impulse);
            }
            scatter(bodies, &batch.index_a, &a);
            scatter(bodies, &batch.index_b, &b);
        }
    }

    /// One pass over every batch: the solve pass (`use_bias`: soft push-out) or the relax
    /// pass (rigid, speculative only).
    pub fn solve(&mut self, bodies: &mut [SolverBody], ctx: &StepContext, use_bias: bool) {
        let zero = F32x4::ZERO;
        let one = F32x4::splat(1.0);
        let inv_h = F32x4::splat(ctx.inv_dt);
        let min_bias = F32x4::splat(-ctx.settings.contact_push_max_velocity);
        for batch in &mut self.batches {
            let mut a = gather(bodies, &batch.index_a, true);
            let mut b = gather(bodies, &batch.index_b, true);
            let n = batch.normal;
            let t = Vec2x4 { x: n.y, y: -n.x };
            let (bias_rate, mass_scale, impulse_scale) = if use_bias {
                (batch.bias_rate, batch.mass_scale, batch.impulse_scale)
            } else {
                (zero, one, zero)
            };
            let friction = batch.friction;

            // 1. Friction first: non-penetration matters more, so it has the last word.
            for i in 0..2 {
                let p = batch.points[i];
                let dv = relative_velocity(&a, &b, p.r_a, p.r_b);
                let vt = dv.dot(t);
                let lambda = -(p.tangent_mass * vt);
                let max_friction = friction * p.normal_impulse;
                let new_impulse = (p.tangent_impulse + lambda)
                    .max(-max_friction)
                    .min(max_friction);
                let lambda = new_impulse - p.tangent_impulse;
                batch.points[i].tangent_impulse = new_impulse;
                let impulse = Vec2x4 {
                    x: lambda * t.x,
                    y: lambda * t.y,
                };
                batch.apply(&mut a, &mut b, p.r_a, p.r_b, impulse);
            }

            // 2. Normal, one point at a time, with the velocity target of the current
            //    separation: speculative (s > 0) may close the gap in one sub-step; overlap
            //    is pushed out softly (solve pass) or not at all (relax pass).
            for i in 0..2 {
                let p = batch.points[i];
                let d = Vec2x4 {
                    x: (b.dp.x - a.dp.x) + (b.dq_c * p.r_b.x - b.dq_s * p.r_b.y)
                        - (a.dq_c * p.r_a.x - a.dq_s * p.r_a.y),
                    y: (b.dp.y - a.dp.y) + (b.dq_s * p.r_b.x + b.dq_c * p.r_b.y)
                        - (a.dq_s * p.r_a.x + a.dq_c * p.r_a.y),
                };
                let s = d.dot(n) + p.adjusted_separation;
                let speculative = s.gt(zero);
                let bias = F32x4::select(speculative, s * inv_h, (bias_rate * s).max(min_bias));
                let point_mass_scale = F32x4::select(speculative, one, mass_scale);
                let point_impulse_scale = F32x4::select(speculative, zero, impulse_scale);

                let vn = relative_velocity(&a, &b, p.r_a, p.r_b).dot(n);
                let lambda = -(p.normal_mass * point_mass_scale * (vn + bias))
                    - point_impulse_scale * p.normal_impulse;
                let new_impulse = (p.normal_impulse + lambda).max(zero);
                let lambda = new_impulse - p.normal_impulse;
                let point = &mut batch.points[i];
                point.normal_impulse = new_impulse;
                point.max_normal_impulse = point.max_normal_impulse.max(lambda);
                let impulse = Vec2x4 {
                    x: lambda * n.x,
                    y: lambda * n.y,
                };
                batch.apply(&mut a, &mut b, p.r_a, p.r_b, impulse);
            }

            scatter(bodies, &batch.index_a, &a);
            scatter(bodies, &batch.index_b, &b);
        }
    }

    /// Restitution: points that approached faster than the threshold and carried load
    /// leave at `e` times their approach speed (as `contact::apply_restitution`).
    pub fn apply_restitution(&mut self, bodies: &mut [SolverBody], ctx: &StepContext) {
        let zero = F32x4::ZERO;
        let threshold = F32x4::splat(-ctx.settings.restitution_threshold);
        for batch in &mut self.batches {
            if !batch.any_restitution {
                continue;
            }
            let mut a = gather(bodies, &batch.index_a, false);
            let mut b = gather(bodies, &batch.index_b, false);
            let n = batch.normal;
            for i in 0..2 {
                let p = batch.points[i];
                let active = p
                    .relative_velocity
                    .le(threshold)
                    .and(p.max_normal_impulse.gt(zero));
                if active.none() {
                    continue;
                }
                let vn = relative_velocity(&a, &b, p.r_a, p.r_b).dot(n);
                let lambda = -(p.normal_mass * (vn + batch.restitution * p.relative_velocity));
                let new_impulse = (p.normal_impulse + lambda).max(zero);
                let lambda = F32x4::select(active, new_impulse - p.normal_impulse, zero);
                let point = &mut batch.points[i];
                point.normal_impulse = F32x4::select(active, new_impulse, p.normal_impulse);
                point.max_normal_impulse = point.max_normal_impulse.max(lambda);
                let impulse = Vec2x4 {
                    x: lambda * n.x,
                    y: lambda * n.y,
                };
                batch.apply(&mut a, &mut b, p.r_a, p.r_b, impulse);
            }
            scatter(bodies, &batch.index_a, &a);
            scatter(bodies, &batch.index_b, &b);
        }
    }

    /// Copy the accumulated impulses to the contacts for the next warm start.
    pub fn store_impulses(&self, contacts: &mut [Contact]) {
        for batch in &self.batches {
            for (i, p) in batch.points.iter().enumerate() {
                let normal = p.normal_impulse.to_array();
                let tangent = p.tangent_impulse.to_array();
                let max_normal = p.max_normal_impulse.to_array();
                for (l, &k) in batch.contacts.iter().enumerate() {
                    if k == u32::MAX {
                        continue;
                    }
                    if let Some(mp) = contacts[k as usize].manifold.points_mut().get_mut(i) {
                        mp.normal_impulse = normal[l];
                        mp.tangent_impulse = tangent[l];
                        mp.max_normal_impulse = max_normal[l];
                    }
                }
            }
        }
    }
}
