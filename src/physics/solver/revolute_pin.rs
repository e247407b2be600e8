//! The revolute point constraint, written once, generic over the lane count (`Wide`):
//! `f32` for one joint at a time (a revolute joint's own solve, and the pins the colouring
//! could not place), `F32x4` and `F32x8` for the soft step's batches of free pins.
//!
//! Constraint (derivation in `joint/revolute.rs`), per lane, with `dp`, `dq` the bodies'
//! motion since the start of the step and `frame_a`, `frame_b` the arms then:
//! ```text
//! r_a = dq_a frame_a                  r_b = dq_b frame_b
//! C    = delta_center + (dp_b - dp_a) + (r_b - r_a)
//! Cdot = v_b + w_b x r_b - v_a - w_a x r_a
//! K    = [m_a + m_b + i_a r_a.y^2 + i_b r_b.y^2,   -i_a r_a.x r_a.y - i_b r_b.x r_b.y]
//!        [sym,                                      m_a + m_b + i_a r_a.x^2 + i_b r_b.x^2]
//! P   += -mass_scale (K + gamma I)^-1 (Cdot + bias_rate C + gamma P) - impulse_scale P
//! ```
//! `gamma` is Box2D-Lite's softness (a revolute joint with its own `softness`); the free
//! pins have none and skip those operations. `K^-1 b` by Cramer's rule, zero when `det K`
//! is zero or not finite (as `solve22`).
//!
//! Layout: the free pins are coloured (`graph.rs`); each colour is cut into batches of
//! `W::LANES`, padded with empty lanes (body 0 on both sides, zero masses: `det K = 0`, so
//! their impulse stays zero). Pins the colouring could not place are one-lane batches,
//! solved first. Every lane does the same operations in the same order, and pins of one
//! colour share no moving body, so a batch gives bitwise the results of solving its pins
//! one after the other (the tests below check it).

use super::contact_simd::{gather, scatter, store_index, BodyW};
use super::graph::ConstraintGraph;
use super::wide::{F32x4, Vec2W, Wide};
#[cfg(target_arch = "x86_64")]
use super::wide8::{avx2_available, F32x8};
use super::{Softness, SolverBody};
use crate::physics::growth::resize_total;
use crate::physics::joint::revolute::RevoluteRow;
use crate::physics::math::Vec2;
use crate::physics::threads::{DisjointMut, Threads};

/// What a pin's point rows know of their two bodies and anchors, `W::LANES` pins at once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PointRows<W: Wide> {
    pub inv_mass_a: W,
    pub inv_inertia_a: W,
    pub inv_mass_b: W,
    pub inv_inertia_b: W,
    /// Arms from the centres of mass at the start of the step, world axes.
    pub frame_a: Vec2W<W>,
    pub frame_b: Vec2W<W>,
    /// `center_b - center_a` at the start of the step.
    pub delta_center: Vec2W<W>,
}

/// The softness of one pass over the point rows, splatted.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PointSoftness<W: Wide> {
    pub bias_rate: W,
    pub neg_mass_scale: W,
    pub impulse_scale: W,
    /// Box2D-Lite's softness `gamma`, when the joint has one.
    pub gamma: Option<W>,
}

impl<W: Wide> PointSoftness<W> {
    pub fn new(softness: Softness, gamma: Option<f32>) -> PointSoftness<W> {
        PointSoftness {
            bias_rate: W::splat(softness.bias_rate),
            neg_mass_scale: W::splat(-softness.mass_scale),
            impulse_scale: W::splat(softness.impulse_scale),
            gamma: gamma.map(W::splat),
        }
    }
}

impl<W: Wide> PointRows<W> {
    const EMPTY: PointRows<W> = PointRows {
        inv_mass_a: W::ZERO,
        inv_inertia_a: W::ZERO,
        inv_mass_b: W::ZERO,
        inv_inertia_b: W::ZERO,
        frame_a: Vec2W::ZERO,
        frame_b: Vec2W::ZERO,
        delta_center: Vec2W::ZERO,
    };

    /// The arms `dq frame` of both bodies.
    #[inline(always)]
    pub fn arms(&self, a: &BodyW<W>, b: &BodyW<W>) -> (Vec2W<W>, Vec2W<W>) {
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
    pub fn apply(
        &self,
        a: &mut BodyW<W>,
        b: &mut BodyW<W>,
        r_a: Vec2W<W>,
        r_b: Vec2W<W>,
        p: Vec2W<W>,
    ) {
        a.v.x -= self.inv_mass_a * p.x;
        a.v.y -= self.inv_mass_a * p.y;
        a.w -= self.inv_inertia_a * (r_a.x * p.y - r_a.y * p.x);
        b.v.x += self.inv_mass_b * p.x;
        b.v.y += self.inv_mass_b * p.y;
        b.w += self.inv_inertia_b * (r_b.x * p.y - r_b.y * p.x);
    }

    /// Warm start: apply the accumulated impulse at the current arms.
    #[inline(always)]
    pub fn warm_start(&self, a: &mut BodyW<W>, b: &mut BodyW<W>, impulse: Vec2W<W>) {
        let (r_a, r_b) = self.arms(a, b);
        self.apply(a, b, r_a, r_b, impulse);
    }

    /// One pass over the point rows: the impulse increment, accumulated into `impulse` and
    /// applied to the bodies.
    #[inline(always)]
    pub fn solve(
        &self,
        a: &mut BodyW<W>,
        b: &mut BodyW<W>,
        impulse: &mut Vec2W<W>,
        soft: &PointSoftness<W>,
    ) {
        let zero = W::ZERO;
        let one = W::splat(1.0);
        let (r_a, r_b) = self.arms(a, b);

        // 1. Position error and velocity error.
        let c = Vec2W {
            x: (self.delta_center.x + (b.dp.x - a.dp.x)) + (r_b.x - r_a.x),
            y: (self.delta_center.y + (b.dp.y - a.dp.y)) + (r_b.y - r_a.y),
        };
        let c_dot = Vec2W {
            x: ((b.v.x - b.w * r_b.y) - a.v.x) + a.w * r_a.y,
            y: ((b.v.y + b.w * r_b.x) - a.v.y) - a.w * r_a.x,
        };
        let mut rhs = Vec2W {
            x: c_dot.x + soft.bias_rate * c.x,
            y: c_dot.y + soft.bias_rate * c.y,
        };

        // 2. K (plus gamma) and Cramer's rule (zero impulse when singular or not finite).
        let m = self.inv_mass_a + self.inv_mass_b;
        let (i_a, i_b) = (self.inv_inertia_a, self.inv_inertia_b);
        let mut k11 = (m + i_a * r_a.y * r_a.y) + i_b * r_b.y * r_b.y;
        let k12 = -i_a * r_a.x * r_a.y - i_b * r_b.x * r_b.y;
        let mut k22 = (m + i_a * r_a.x * r_a.x) + i_b * r_b.x * r_b.x;
        if let Some(gamma) = soft.gamma {
            k11 += gamma;
            k22 += gamma;
            rhs = Vec2W {
                x: rhs.x + gamma * impulse.x,
                y: rhs.y + gamma * impulse.y,
            };
        }
        let det = k11 * k22 - k12 * k12;
        let usable = W::select(det.eq(zero), zero, det.finite());
        let inv = one / det;
        let sol = Vec2W {
            x: W::select(usable, inv * (k22 * rhs.x - k12 * rhs.y), zero),
            y: W::select(usable, inv * (k11 * rhs.y - k12 * rhs.x), zero),
        };

        // 3. Soft impulse, accumulated; applied at the arms.
        let increment = Vec2W {
            x: soft.neg_mass_scale * sol.x - soft.impulse_scale * impulse.x,
            y: soft.neg_mass_scale * sol.y - soft.impulse_scale * impulse.y,
        };
        impulse.x += increment.x;
        impulse.y += increment.y;
        self.apply(a, b, r_a, r_b, increment);
    }
}

impl BodyW<f32> {
    /// One solver body as a one-lane batch body.
    #[inline(always)]
    pub(crate) fn of(body: &SolverBody) -> BodyW<f32> {
        BodyW {
            v: Vec2W {
                x: body.v.x,
                y: body.v.y,
            },
            w: body.w,
            d_angle: body.d_angle,
            dp: Vec2W {
                x: body.dp.x,
                y: body.dp.y,
            },
            dq_c: body.dq.c,
            dq_s: body.dq.s,
        }
    }

    /// Its velocities back into `body`.
    #[inline(always)]
    pub(crate) fn store_velocity(&self, body: &mut SolverBody) {
        body.v = Vec2::new(self.v.x, self.v.y);
        body.w = self.w;
    }
}

/// `W::LANES` free pins of one colour, struct-of-arrays.
#[derive(Clone, Copy, Debug)]
pub struct PinBatch<W: Wide> {
    index_a: W::Index,
    index_b: W::Index,
    /// Where each lane's bodies are written back (0: a fixed body, not written; see
    /// `contact_simd::store_index`).
    store_a: W::Index,
    store_b: W::Index,
    /// Joint slot of each lane (`u32::MAX`: empty lane).
    joints: W::Index,
    rows: PointRows<W>,
    linear_impulse: Vec2W<W>,
}

impl<W: Wide> PinBatch<W> {
    fn empty() -> PinBatch<W> {
        PinBatch {
            index_a: W::index_splat(0),
            index_b: W::index_splat(0),
            store_a: W::index_splat(0),
            store_b: W::index_splat(0),
            joints: W::index_splat(u32::MAX),
            rows: PointRows::EMPTY,
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
        self.store_a.as_mut()[l] = store_index(row.index_a as usize, a);
        self.store_b.as_mut()[l] = store_index(row.index_b as usize, b);
        let rows = &mut self.rows;
        rows.inv_mass_a.set_lane(l, a.inv_mass);
        rows.inv_inertia_a.set_lane(l, a.inv_inertia);
        rows.inv_mass_b.set_lane(l, b.inv_mass);
        rows.inv_inertia_b.set_lane(l, b.inv_inertia);
        set(&mut rows.frame_a, l, row.frame_a);
        set(&mut rows.frame_b, l, row.frame_b);
        set(&mut rows.delta_center, l, row.delta_center);
        set(&mut self.linear_impulse, l, row.linear_impulse);
    }
}

/// The soft step's free pins: the coloured ones in batches of four or eight, the others
/// (the overflow) one at a time through the same kernel. Buffers are reused.
#[derive(Clone, Debug, Default)]
pub struct Pins {
    graph: ConstraintGraph,
    /// Scratch of `build`: the rows' solver body pairs, for the colouring.
    pairs: Vec<(u32, u32)>,
    /// The pins the colouring could not place, solved first.
    overflow: Vec<PinBatch<f32>>,
    /// Four-wide batches (SSE2), used when the CPU lacks AVX2 or `force_four_lanes` is set.
    batches4: Vec<PinBatch<F32x4>>,
    /// Eight-wide batches (AVX2).
    #[cfg(target_arch = "x86_64")]
    batches8: Vec<PinBatch<F32x8>>,
    /// Batches of colour `c`: `starts[c]..starts[c + 1]` (non-empty colours only).
    starts: Vec<usize>,
    /// This step's batches are `batches8` (never set off x86_64).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    eight: bool,
    /// Always four lanes (tests compare the two widths).
    pub force_four_lanes: bool,
    /// No batches: every pin one at a time, in the batches' order (tests compare the
    /// widths).
    pub force_one_lane: bool,
}

impl Pins {
    /// The colouring of the last `build` of two pins or more (colours hold row positions).
    pub fn graph(&self) -> &ConstraintGraph {
        &self.graph
    }

    /// Drop every pin.
    pub fn clear(&mut self) {
        self.overflow.clear();
        self.starts.clear();
        self.batches4.clear();
        #[cfg(target_arch = "x86_64")]
        self.batches8.clear();
    }

    /// Colour the pins' rows (solver body pairs) so that rows of one colour share no moving
    /// body, then batch them colour by colour (colour 0, 1, ...); the rest go to the
    /// overflow, in order. Fewer than two pins are not coloured.
    /// The batches are written across `threads` (equal runs of batches, each written whole
    /// by one thread: the same batches for any thread count).
    pub(crate) fn build(&mut self, rows: &[RevoluteRow], bodies: &[SolverBody], threads: &Threads) {
        self.overflow.clear();
        self.starts.clear();
        self.eight = false;
        if rows.len() < 2 {
            self.clear();
            for row in rows {
                let mut batch = PinBatch::empty();
                batch.set_lane(0, row, bodies);
                self.overflow.push(batch);
            }
            return;
        }
        // A grid of joints keeps its pins, so its colours are usually kept (`color_pairs`).
        self.pairs.clear();
        self.pairs
            .extend(rows.iter().map(|r| (r.index_a, r.index_b)));
        self.graph
            .color_pairs(bodies.len(), (&self.pairs, None), |i| {
                bodies[i].inv_mass == 0.0 && bodies[i].inv_inertia == 0.0
            });
        for &k in &self.graph.overflow {
            let mut batch = PinBatch::empty();
            batch.set_lane(0, &rows[k as usize], bodies);
            self.overflow.push(batch);
        }
        let starts = &mut self.starts;
        if self.force_one_lane {
            self.batches4.clear();
            #[cfg(target_arch = "x86_64")]
            self.batches8.clear();
            let kept = self.overflow.len();
            let overflow = (&mut self.overflow, kept);
            fill(&self.graph, overflow, starts, rows, bodies, threads);
            starts.clear();
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if !self.force_four_lanes && avx2_available() {
            self.eight = true;
            self.batches4.clear();
            fill(
                &self.graph,
                (&mut self.batches8, 0),
                starts,
                rows,
                bodies,
                threads,
            );
            return;
        }
        #[cfg(target_arch = "x86_64")]
        self.batches8.clear();
        self.batches4.clear();
        fill(
            &self.graph,
            (&mut self.batches4, 0),
            starts,
            rows,
            bodies,
            threads,
        );
    }

    /// Soft step warm start: the overflow, then the batches colour by colour across
    /// `threads`.
    pub(crate) fn warm_start(&self, bodies: &mut [SolverBody], threads: &Threads) {
        warm_start(&self.overflow, bodies);
        let starts = &self.starts;
        #[cfg(target_arch = "x86_64")]
        if self.eight {
            threads.by_colour_ref(&self.batches8, starts, bodies, |batches, bodies| {
                // SAFETY: `eight` is only set when `avx2_available()`.
                unsafe { avx2::warm_start(batches, bodies) }
            });
            return;
        }
        threads.by_colour_ref(&self.batches4, starts, bodies, warm_start);
    }

    /// One pass over the pins with `softness` (rigid in the relax pass): the overflow,
    /// then the batches colour by colour across `threads`.
    pub(crate) fn solve(
        &mut self,
        bodies: &mut [SolverBody],
        softness: Softness,
        threads: &Threads,
    ) {
        solve(&mut self.overflow, bodies, softness);
        let starts = &self.starts;
        #[cfg(target_arch = "x86_64")]
        if self.eight {
            threads.by_colour(&mut self.batches8, starts, bodies, |batches, bodies| {
                // SAFETY: `eight` is only set when `avx2_available()`.
                unsafe { avx2::solve(batches, bodies, softness) }
            });
            return;
        }
        threads.by_colour(&mut self.batches4, starts, bodies, |batches, bodies| {
            solve(batches, bodies, softness)
        });
    }

    /// Number of pins in batches (the overflow left out).
    #[cfg(test)]
    pub fn batched_count(&self) -> usize {
        let mut count = 0;
        #[cfg(target_arch = "x86_64")]
        if self.eight {
            for_each_impulse(&self.batches8, &mut |_, _| count += 1);
            return count;
        }
        for_each_impulse(&self.batches4, &mut |_, _| count += 1);
        count
    }

    /// Every pin's joint slot and accumulated impulse.
    pub fn for_each_impulse(&self, mut f: impl FnMut(usize, Vec2)) {
        for_each_impulse(&self.overflow, &mut f);
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
    pub unsafe fn warm_start(batches: &[PinBatch<F32x8>], bodies: &mut [SolverBody]) {
        super::warm_start(batches, bodies)
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn solve(
        batches: &mut [PinBatch<F32x8>],
        bodies: &mut [SolverBody],
        softness: Softness,
    ) {
        super::solve(batches, bodies, softness)
    }
}

/// Pins per thread below which the batches are written on one thread.
const MIN_FILLED_PINS_PER_THREAD: usize = 256;

/// Cut every colour into batches, after the first `first` batches (kept; the rest are
/// overwritten or dropped); `starts` gets the first batch of each non-empty colour, then
/// the batch count. Written across `threads`: equal runs of batches, each batch whole by
/// one thread.
fn fill<W: Wide>(
    graph: &ConstraintGraph,
    (batches, first): (&mut Vec<PinBatch<W>>, usize),
    starts: &mut Vec<usize>,
    rows: &[RevoluteRow],
    bodies: &[SolverBody],
    threads: &Threads,
) where
    PinBatch<W>: Send,
{
    starts.clear();
    starts.push(first);
    let mut pins = 0;
    for list in graph.colors.iter().filter(|list| !list.is_empty()) {
        pins += list.len();
        starts.push(starts[starts.len() - 1] + list.len().div_ceil(W::LANES));
    }
    let total = starts[starts.len() - 1];
    // Every new batch is written whole below: no pass to empty them first.
    resize_total(batches, total, PinBatch::empty());
    let shared = DisjointMut::new(&mut batches[..]);
    let colours = graph.colors.iter().filter(|list| !list.is_empty());
    let worth_it = pins >= MIN_FILLED_PINS_PER_THREAD * threads.count();
    let starts = &starts[..];
    threads.split_fine(worth_it, |part, parts| {
        let per = (total - first).div_ceil(parts);
        let run = (first + part * per).min(total)..(first + (part + 1) * per).min(total);
        for (c, list) in colours.clone().enumerate() {
            let (from, to) = (starts[c].max(run.start), starts[c + 1].min(run.end));
            for b in from..to {
                let at = (b - starts[c]) * W::LANES;
                let chunk = &list[at..(at + W::LANES).min(list.len())];
                // SAFETY: batch `b` is in this part's run alone.
                let batch = unsafe { shared.get(b) };
                *batch = PinBatch::empty();
                for (l, &k) in chunk.iter().enumerate() {
                    batch.set_lane(l, &rows[k as usize], bodies);
                }
            }
        }
    });
}

#[inline(always)]
fn warm_start<W: Wide>(batches: &[PinBatch<W>], bodies: &mut [SolverBody]) {
    for batch in batches {
        let mut a = gather::<W>(bodies, &batch.index_a, true);
        let mut b = gather::<W>(bodies, &batch.index_b, true);
        batch.rows.warm_start(&mut a, &mut b, batch.linear_impulse);
        scatter(bodies, &batch.store_a, &a);
        scatter(bodies, &batch.store_b, &b);
    }
}

#[inline(always)]
fn solve<W: Wide>(batches: &mut [PinBatch<W>], bodies: &mut [SolverBody], softness: Softness) {
    let soft = PointSoftness::new(softness, None);
    for batch in batches {
        let mut a = gather::<W>(bodies, &batch.index_a, true);
        let mut b = gather::<W>(bodies, &batch.index_b, true);
        batch
            .rows
            .solve(&mut a, &mut b, &mut batch.linear_impulse, &soft);
        scatter(bodies, &batch.store_a, &a);
        scatter(bodies, &batch.store_b, &b);
    }
}

fn for_each_impulse<W: Wide>(batches: &[PinBatch<W>], f: &mut impl FnMut(usize, Vec2)) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::solver::test_rng::{bodies, Rng};

    /// Random free pins between random bodies (static body 0 included), sharing bodies, so
    /// that the colouring needs several colours and the batches have padded lanes.
    fn pins(rng: &mut Rng, body_count: usize, count: usize) -> Vec<RevoluteRow> {
        (0..count)
            .map(|k| {
                let index_a = rng.below(body_count + 1) as u32;
                let mut index_b = rng.below(body_count) as u32 + 1;
                if index_b == index_a {
                    index_b = index_a % body_count as u32 + 1;
                }
                RevoluteRow {
                    joint: k as u32,
                    index_a,
                    index_b,
                    frame_a: rng.vec(0.6),
                    frame_b: rng.vec(0.6),
                    delta_center: rng.vec(1.0),
                    linear_impulse: rng.vec(0.5),
                }
            })
            .collect()
    }

    /// Warm start, a soft pass and a rigid (relax) pass, twice; the bodies and the pins'
    /// impulses after.
    fn run(
        pins: &mut Pins,
        rows: &[RevoluteRow],
        start: &[SolverBody],
        threads: &Threads,
    ) -> (Vec<SolverBody>, Vec<(usize, Vec2)>) {
        let mut bodies = start.to_vec();
        pins.build(rows, &bodies, threads);
        let soft = Softness {
            bias_rate: 12.0,
            mass_scale: 0.8,
            impulse_scale: 0.1,
        };
        for _ in 0..2 {
            pins.warm_start(&mut bodies, threads);
            pins.solve(&mut bodies, soft, threads);
            pins.solve(&mut bodies, Softness::RIGID, threads);
        }
        let mut impulses = Vec::new();
        pins.for_each_impulse(|slot, p| impulses.push((slot, p)));
        impulses.sort_by_key(|&(slot, _)| slot);
        (bodies, impulses)
    }

    fn bits(bodies: &[SolverBody]) -> Vec<[u32; 3]> {
        bodies
            .iter()
            .map(|b| [b.v.x.to_bits(), b.v.y.to_bits(), b.w.to_bits()])
            .collect()
    }

    /// The one-lane, four-lane and (with AVX2) eight-lane paths of the pin kernel give
    /// bitwise the same bodies and impulses on random pins: lanes never interact, pins of
    /// one colour share no moving body, and every lane runs the same IEEE operations.
    #[test]
    fn one_four_and_eight_lane_pins_agree_bitwise() {
        for seed in 1..=20u32 {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9) | 1);
            let body_count = 8 + rng.below(40);
            let start = bodies(&mut rng, body_count);
            let count = 2 + rng.below(120);
            let rows = pins(&mut rng, body_count, count);
            let one = run(
                &mut Pins {
                    force_one_lane: true,
                    ..Pins::default()
                },
                &rows,
                &start,
                &Threads::default(),
            );
            let mut four_pins = Pins {
                force_four_lanes: true,
                ..Pins::default()
            };
            let four = run(&mut four_pins, &rows, &start, &Threads::default());
            assert!(four_pins.batched_count() > 0);
            let eight = run(&mut Pins::default(), &rows, &start, &Threads::default());
            assert_eq!(one.1.len(), rows.len());
            for (name, other) in [("four", &four), ("eight", &eight)] {
                assert_eq!(
                    bits(&one.0),
                    bits(&other.0),
                    "seed {seed}: one vs {name} lanes"
                );
                for (p, q) in one.1.iter().zip(&other.1) {
                    assert_eq!(p.0, q.0);
                    assert_eq!(
                        (p.1.x.to_bits(), p.1.y.to_bits()),
                        (q.1.x.to_bits(), q.1.y.to_bits()),
                        "seed {seed}: pin {} one vs {name} lanes",
                        p.0
                    );
                }
            }
        }
    }

    /// Batches written and solved across 2 and 3 threads give bitwise the bodies and
    /// impulses of one thread, at every width, with enough pins that the writes split.
    #[test]
    fn pins_built_across_threads_agree_bitwise() {
        for seed in 1..=4u32 {
            let mut rng = Rng(seed.wrapping_mul(0x85eb_ca6b) | 1);
            let body_count = 400 + rng.below(200);
            let start = bodies(&mut rng, body_count);
            let count = 1500 + rng.below(1000);
            let rows = pins(&mut rng, body_count, count);
            for (four, one) in [(false, false), (true, false), (false, true)] {
                let fresh = || Pins {
                    force_four_lanes: four,
                    force_one_lane: one,
                    ..Pins::default()
                };
                let alone = run(&mut fresh(), &rows, &start, &Threads::default());
                for count in [2, 3] {
                    let threads = Threads::new(count).unwrap();
                    let mut pins = fresh();
                    let team = run(&mut pins, &rows, &start, &threads);
                    // Built twice: the second build overwrites the first's batches.
                    let again = run(&mut pins, &rows, &start, &threads);
                    for other in [&team, &again] {
                        assert_eq!(
                            bits(&alone.0),
                            bits(&other.0),
                            "seed {seed}, {count} threads"
                        );
                        assert_eq!(alone.1.len(), other.1.len());
                        for (p, q) in alone.1.iter().zip(&other.1) {
                            assert_eq!(p.0, q.0);
                            assert_eq!(
                                (p.1.x.to_bits(), p.1.y.to_bits()),
                                (q.1.x.to_bits(), q.1.y.to_bits()),
                                "seed {seed}, {count} threads: pin {}",
                                p.0
                            );
                        }
                    }
                }
            }
        }
    }
}
