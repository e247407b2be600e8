//! The soft step's free revolute pins (`joint::revolute::RevoluteRow`), four or eight at a
//! time: the contact batches' layout (`contact_simd.rs`) applied to the pin's point rows.
//!
//! Constraint (derivation in `joint/revolute.rs`), per lane, with `dp`, `dq` the bodies'
//! motion since the start of the step and `frame_a`, `frame_b` the arms then:
//! ```text
//! r_a = dq_a frame_a                  r_b = dq_b frame_b
//! C    = delta_center + (dp_b - dp_a) + (r_b - r_a)
//! Cdot = v_b + w_b x r_b - v_a - w_a x r_a
//! K    = [m_a + m_b + i_a r_a.y^2 + i_b r_b.y^2,   -i_a r_a.x r_a.y - i_b r_b.x r_b.y]
//!        [sym,                                      m_a + m_b + i_a r_a.x^2 + i_b r_b.x^2]
//! P   += -mass_scale K^-1 (Cdot + bias_rate C) - impulse_scale P
//! ```
//! `K^-1 b` by Cramer's rule, zero when `det K` is zero or not finite (as `solve22`).
//!
//! Layout: the rows are coloured (`graph.rs`, by the caller); each colour is cut into
//! batches of `W::LANES`, padded with empty lanes (body 0 on both sides, zero masses:
//! `det K = 0`, so their impulse stays zero). Rows the colouring could not place stay scalar
//! and are solved first, as before. Every lane does the scalar row's operations in the
//! same order, and rows of one colour share no moving body, so a batch gives bitwise the
//! results of solving its rows one after the other.

use super::contact_simd::{gather, scatter, BodyW};
use super::graph::ConstraintGraph;
use super::wide::{F32x4, Vec2W, Wide};
#[cfg(target_arch = "x86_64")]
use super::wide8::{avx2_available, F32x8};
use super::{Softness, SolverBody};
use crate::physics::joint::revolute::RevoluteRow;
use crate::physics::math::Vec2;

/// `W::LANES` free pins of one colour, struct-of-arrays.
#[derive(Clone, Copy, Debug)]
pub struct RevoluteBatch<W: Wide> {
    index_a: W::Index,
    index_b: W::Index,
    /// Joint slot of each lane (`u32::MAX`: empty lane).
    joints: W::Index,
    inv_mass_a: W,
    inv_inertia_a: W,
    inv_mass_b: W,
    inv_inertia_b: W,
    frame_a: Vec2W<W>,
    frame_b: Vec2W<W>,
    delta_center: Vec2W<W>,
    linear_impulse: Vec2W<W>,
}

impl<W: Wide> RevoluteBatch<W> {
    fn empty() -> RevoluteBatch<W> {
        RevoluteBatch {
            index_a: W::index_splat(0),
            index_b: W::index_splat(0),
            joints: W::index_splat(u32::MAX),
            inv_mass_a: W::ZERO,
            inv_inertia_a: W::ZERO,
            inv_mass_b: W::ZERO,
            inv_inertia_b: W::ZERO,
            frame_a: Vec2W::ZERO,
            frame_b: Vec2W::ZERO,
            delta_center: Vec2W::ZERO,
            linear_impulse: Vec2W::ZERO,
        }
    }

    /// Write `row` into lane `l`.
    fn set_lane(&mut self, l: usize, row: &RevoluteRow, bodies: &[SolverBody]) {
        fn set<W: Wide>(v: &mut Vec2W<W>, l: usize, value: Vec2) {
            v.x.set_lane(l, value.x);
            v.y.set_lane(l, value.y);
        }
        self.index_a.as_mut()[l] = row.index_a;
        self.index_b.as_mut()[l] = row.index_b;
        self.joints.as_mut()[l] = row.joint;
        let (a, b) = (&bodies[row.index_a as usize], &bodies[row.index_b as usize]);
        self.inv_mass_a.set_lane(l, a.inv_mass);
        self.inv_inertia_a.set_lane(l, a.inv_inertia);
        self.inv_mass_b.set_lane(l, b.inv_mass);
        self.inv_inertia_b.set_lane(l, b.inv_inertia);
        set(&mut self.frame_a, l, row.frame_a);
        set(&mut self.frame_b, l, row.frame_b);
        set(&mut self.delta_center, l, row.delta_center);
        set(&mut self.linear_impulse, l, row.linear_impulse);
    }

    /// The arms `dq frame` of both bodies.
    #[inline(always)]
    fn arms(&self, a: &BodyW<W>, b: &BodyW<W>) -> (Vec2W<W>, Vec2W<W>) {
        let rotate = |c: W, s: W, v: Vec2W<W>| Vec2W {
            x: c * v.x - s * v.y,
            y: s * v.x + c * v.y,
        };
        (
            rotate(a.dq_c, a.dq_s, self.frame_a),
            rotate(b.dq_c, b.dq_s, self.frame_b),
        )
    }

    /// Apply the impulse `p` at the arms: `-p` on A, `+p` on B (`apply_linear`).
    #[inline(always)]
    fn apply(&self, a: &mut BodyW<W>, b: &mut BodyW<W>, r_a: Vec2W<W>, r_b: Vec2W<W>, p: Vec2W<W>) {
        a.v.x -= self.inv_mass_a * p.x;
        a.v.y -= self.inv_mass_a * p.y;
        a.w -= self.inv_inertia_a * (r_a.x * p.y - r_a.y * p.x);
        b.v.x += self.inv_mass_b * p.x;
        b.v.y += self.inv_mass_b * p.y;
        b.w += self.inv_inertia_b * (r_b.x * p.y - r_b.y * p.x);
    }
}

/// The coloured, batched free pins of one step. Buffers are reused.
#[derive(Clone, Debug, Default)]
pub struct WideRevolutes {
    batches4: Vec<RevoluteBatch<F32x4>>,
    #[cfg(target_arch = "x86_64")]
    batches8: Vec<RevoluteBatch<F32x8>>,
    /// This step's batches are `batches8` (never set off x86_64).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    eight: bool,
    /// Always four lanes (tests compare the two widths).
    pub force_four_lanes: bool,
}

impl WideRevolutes {
    /// Drop every batch.
    pub fn clear(&mut self) {
        self.batches4.clear();
        #[cfg(target_arch = "x86_64")]
        self.batches8.clear();
    }

    /// Batch the coloured rows: `graph` coloured `rows` (by position).
    pub(crate) fn build(
        &mut self,
        graph: &ConstraintGraph,
        rows: &[RevoluteRow],
        bodies: &[SolverBody],
    ) {
        self.clear();
        self.eight = false;
        #[cfg(target_arch = "x86_64")]
        if !self.force_four_lanes && avx2_available() {
            self.eight = true;
            fill(graph, &mut self.batches8, rows, bodies);
            return;
        }
        fill(graph, &mut self.batches4, rows, bodies);
    }

    /// Soft step warm start.
    pub fn warm_start(&self, bodies: &mut [SolverBody]) {
        #[cfg(target_arch = "x86_64")]
        if self.eight {
            // SAFETY: `eight` is only set when `avx2_available()`.
            unsafe { avx2::warm_start(&self.batches8, bodies) };
            return;
        }
        warm_start(&self.batches4, bodies);
    }

    /// One pass over the pins with `softness` (rigid in the relax pass).
    pub fn solve(&mut self, bodies: &mut [SolverBody], softness: Softness) {
        #[cfg(target_arch = "x86_64")]
        if self.eight {
            // SAFETY: `eight` is only set when `avx2_available()`.
            unsafe { avx2::solve(&mut self.batches8, bodies, softness) };
            return;
        }
        solve(&mut self.batches4, bodies, softness);
    }

    /// Number of batched pins.
    #[cfg(test)]
    pub fn for_each_count(&self) -> usize {
        let mut count = 0;
        self.for_each_impulse(|_, _| count += 1);
        count
    }

    /// Every pin's joint slot and accumulated impulse.
    pub fn for_each_impulse(&self, mut f: impl FnMut(usize, Vec2)) {
        #[cfg(target_arch = "x86_64")]
        if self.eight {
            for_each_impulse(&self.batches8, &mut f);
            return;
        }
        for_each_impulse(&self.batches4, &mut f);
    }
}

/// The AVX2 copies of the kernels (see `contact_simd.rs`).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::*;

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn warm_start(batches: &[RevoluteBatch<F32x8>], bodies: &mut [SolverBody]) {
        super::warm_start(batches, bodies)
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn solve(
        batches: &mut [RevoluteBatch<F32x8>],
        bodies: &mut [SolverBody],
        softness: Softness,
    ) {
        super::solve(batches, bodies, softness)
    }
}

fn fill<W: Wide>(
    graph: &ConstraintGraph,
    batches: &mut Vec<RevoluteBatch<W>>,
    rows: &[RevoluteRow],
    bodies: &[SolverBody],
) {
    for list in &graph.colors {
        for chunk in list.chunks(W::LANES) {
            let mut batch = RevoluteBatch::empty();
            for (l, &k) in chunk.iter().enumerate() {
                batch.set_lane(l, &rows[k as usize], bodies);
            }
            batches.push(batch);
        }
    }
}

#[inline(always)]
fn warm_start<W: Wide>(batches: &[RevoluteBatch<W>], bodies: &mut [SolverBody]) {
    for batch in batches {
        let mut a = gather::<W>(bodies, &batch.index_a, true);
        let mut b = gather::<W>(bodies, &batch.index_b, true);
        let (r_a, r_b) = batch.arms(&a, &b);
        batch.apply(&mut a, &mut b, r_a, r_b, batch.linear_impulse);
        scatter(bodies, &batch.index_a, &a);
        scatter(bodies, &batch.index_b, &b);
    }
}

#[inline(always)]
fn solve<W: Wide>(batches: &mut [RevoluteBatch<W>], bodies: &mut [SolverBody], softness: Softness) {
    let zero = W::ZERO;
    let one = W::splat(1.0);
    let bias_rate = W::splat(softness.bias_rate);
    let neg_mass_scale = W::splat(-softness.mass_scale);
    let impulse_scale = W::splat(softness.impulse_scale);
    for batch in batches {
        let mut a = gather::<W>(bodies, &batch.index_a, true);
        let mut b = gather::<W>(bodies, &batch.index_b, true);
        let (r_a, r_b) = batch.arms(&a, &b);

        // 1. Position error and velocity error.
        let c = Vec2W {
            x: (batch.delta_center.x + (b.dp.x - a.dp.x)) + (r_b.x - r_a.x),
            y: (batch.delta_center.y + (b.dp.y - a.dp.y)) + (r_b.y - r_a.y),
        };
        let c_dot = Vec2W {
            x: ((b.v.x - b.w * r_b.y) - a.v.x) + a.w * r_a.y,
            y: ((b.v.y + b.w * r_b.x) - a.v.y) - a.w * r_a.x,
        };
        let rhs = Vec2W {
            x: c_dot.x + bias_rate * c.x,
            y: c_dot.y + bias_rate * c.y,
        };

        // 2. K and Cramer's rule (zero impulse when K is singular or not finite).
        let m = batch.inv_mass_a + batch.inv_mass_b;
        let (i_a, i_b) = (batch.inv_inertia_a, batch.inv_inertia_b);
        let k11 = (m + i_a * r_a.y * r_a.y) + i_b * r_b.y * r_b.y;
        let k12 = -i_a * r_a.x * r_a.y - i_b * r_b.x * r_b.y;
        let k22 = (m + i_a * r_a.x * r_a.x) + i_b * r_b.x * r_b.x;
        let det = k11 * k22 - k12 * k12;
        let usable = W::select(det.eq(zero), zero, det.finite());
        let inv = one / det;
        let sol = Vec2W {
            x: W::select(usable, inv * (k22 * rhs.x - k12 * rhs.y), zero),
            y: W::select(usable, inv * (k11 * rhs.y - k12 * rhs.x), zero),
        };

        // 3. Soft impulse, accumulated; applied at the arms.
        let impulse = Vec2W {
            x: neg_mass_scale * sol.x - impulse_scale * batch.linear_impulse.x,
            y: neg_mass_scale * sol.y - impulse_scale * batch.linear_impulse.y,
        };
        batch.linear_impulse.x += impulse.x;
        batch.linear_impulse.y += impulse.y;
        batch.apply(&mut a, &mut b, r_a, r_b, impulse);
        scatter(bodies, &batch.index_a, &a);
        scatter(bodies, &batch.index_b, &b);
    }
}

fn for_each_impulse<W: Wide>(batches: &[RevoluteBatch<W>], f: &mut impl FnMut(usize, Vec2)) {
    for batch in batches {
        for (l, &j) in batch.joints.as_ref().iter().enumerate() {
            if j != u32::MAX {
                let p = Vec2::new(
                    batch.linear_impulse.x.lane(l),
                    batch.linear_impulse.y.lane(l),
                );
                f(j as usize, p);
            }
        }
    }
}
