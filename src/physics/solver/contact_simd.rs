//! The soft step's contact solve, one kernel generic over the lane count (Box2D v3's
//! `contact_solver.c` idea, written for Impulse's contact model): one constraint at a time
//! (`f32`) for the constraints the colouring could not place, four (`F32x4`, SSE2), eight
//! (`F32x8`, AVX2) or sixteen (`F32x16`, AVX-512F) at a time for the coloured ones.
//!
//! Same constraint as `contact.rs` (read its derivation first): per point
//! `lambda = -normal_mass * (mass_scale * vn + bias) - impulse_scale * accumulated`, friction
//! before the normal so non-penetration has the last word, accumulated impulses clamped.
//!
//! Layout:
//! - `graph.rs` colours the contacts by their solver bodies: within a colour no two
//!   constraints share a moving body.
//! - The kernel is written once, as methods of `ContactBatch<W>` generic over the SIMD word
//!   (`wide::Wide`): `warm_start`, `solve` (with or without bias: the solve and relax
//!   passes), `restitution`; `set_lane` prepares and `store_impulses` stores. Every lane
//!   runs the same IEEE operations in the same order and never looks at another lane, so a
//!   constraint gives bitwise the same result alone (`f32`), in four, eight or sixteen lanes
//!   (the tests below and in `step.rs` check it).
//! - Width: sixteen lanes (`F32x16`) when the CPU has AVX-512F, else eight (`F32x8`) when
//!   it has AVX2, else four (`F32x4`) (`WideContacts::next_width`); the choice is made at
//!   run time, every build; the wide copies of the loops are `#[target_feature]` functions
//!   in `avx2` and `avx512` below (`wide_entry_points!`). `force_four_lanes`,
//!   `force_eight_lanes` and `force_one_lane` (every constraint through the one-lane path)
//!   exist for the tests that compare the widths (`World::set_lanes`).
//! - Each colour is cut into batches of `LANES` (`ContactBatch`); the last batch of a colour is
//!   padded with empty lanes (static body 0 on both sides, all masses zero: their impulses
//!   stay exactly zero). Batches are stored colour after colour in one array and solved in
//!   that order; the batch is struct-of-arrays: every field is a `W`, lane `l` belongs
//!   to constraint `l` of the batch. What the iterations do not read (the lanes' contacts,
//!   manifold checks and restitution) is in a parallel array (`BatchExtra`).
//! - Body velocities are gathered per batch: the first 16 bytes of each `SolverBody`
//!   (`[v.x, v.y, w, d_angle]`) of the batch's A bodies are loaded and transposed into
//!   `v.x[], v.y[], w[], d_angle[]`; the same for B, and for `[dp, dq]` in the solve
//!   pass. After the batch they are transposed back and stored (scatter), skipping index 0,
//!   the shared static body. Fixed (kinematic) bodies may appear in several lanes: their
//!   inverse masses are zero, so every lane writes back the velocity it read.
//! - The constraints the colouring could not place (overflow) are one-lane batches, solved
//!   before the coloured batches in every pass.
//! - Constraints are prepared by the scalar `ContactConstraint::prepare` one at a time and
//!   written straight into their lane (`set_lane`).
//! - A pile at rest keeps its constraints, colouring and layout from step to step: then a
//!   lane whose contact the narrow phase recycled is refreshed (`refresh_lane`) rather than
//!   prepared: its normal, anchors, masses and coefficients are already in the lane, its
//!   warm start is what the last store gave the contact, and its new separations come from
//!   the check the narrow phase made while recycling. The same floats without reading the
//!   contact, which the prepare reads in colour order, scattered (many pyramids' prepare:
//!   about 50 ns a constraint prepared, 30 refreshed). The lane's checks are scalar; what
//!   it writes is written for the whole batch at once (`refresh_lanes`).
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
use super::wide::{F32x4, Vec2W, Wide};
#[cfg(target_arch = "x86_64")]
use super::wide16::{avx512_available, F32x16};
#[cfg(target_arch = "x86_64")]
use super::wide8::{avx2_available, F32x8};
use super::{Softness, SolverBody, StepContext};
use crate::physics::contact::{Contact, RecycledChecks};
use crate::physics::growth::{reserve_total, resize_total};
use crate::physics::limits::ACCUMULATED_IMPULSE;
use crate::physics::math::Vec2;
use crate::physics::quarantine::{store_and_hold, store_with, ContactTally, ManifoldCheck};
use crate::physics::threads::{DisjointMut, Threads};
use std::sync::Mutex;

/// One point of a batch of contact constraints.
#[derive(Clone, Copy, Debug)]
struct PointW<W> {
    r_a: Vec2W<W>,
    r_b: Vec2W<W>,
    adjusted_separation: W,
    normal_mass: W,
    tangent_mass: W,
    normal_impulse: W,
    tangent_impulse: W,
    max_normal_impulse: W,
}

impl<W: Wide> PointW<W> {
    /// Mask of the lanes whose three impulses are finite.
    #[inline(always)]
    fn impulses_finite(&self) -> W {
        self.normal_impulse
            .finite()
            .and(self.tangent_impulse.finite())
            .and(self.max_normal_impulse.finite())
    }
}

/// `BatchExtra::manifold_state`'s flag: the manifold's normal, points and separations
/// are finite (the low bits hold its point count).
const MANIFOLD_FINITE: u32 = 1 << 8;

#[cfg(target_arch = "x86_64")]
const _: () = {
    use std::mem::size_of;
    assert!(size_of::<ContactBatch<F32x16>>() == 1984);
    assert!(size_of::<BatchExtra<F32x16>>() == 512);
    assert!(size_of::<ContactBatch<F32x8>>() == 1024);
    assert!(size_of::<BatchExtra<F32x8>>() == 256);
    assert!(size_of::<ContactBatch<F32x4>>() == 512);
    assert!(size_of::<BatchExtra<F32x4>>() == 128);
};

/// `W::LANES` contact constraints of one colour, struct-of-arrays: what the warm start,
/// solve and relax passes read and write, which stream every batch twelve times a step
/// (three passes of four sub-steps). What only the prepare, the restitution pass and the
/// store need of the same lanes is beside it, in the `BatchExtra` of the same index in a
/// parallel array. Cache-line aligned: eight lanes are 1,024 bytes, sixteen whole lines
/// (with the extra in it, a batch was 1,248 bytes and began mid-line every other time;
/// split and aligned, many pyramids' warm start took 0.83 ms a step instead of 1.01 and
/// its prepare 1.10 instead of 1.26).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct ContactBatch<W: Wide> {
    index_a: W::Index,
    index_b: W::Index,
    /// Where each lane's bodies are written back: the index, or 0 (not written) for a
    /// fixed body, which several lanes and threads may share (`threads.rs`).
    store_a: W::Index,
    store_b: W::Index,
    normal: Vec2W<W>,
    friction: W,
    inv_mass_a: W,
    inv_inertia_a: W,
    inv_mass_b: W,
    inv_inertia_b: W,
    points: [PointW<W>; 2],
}

/// The rest of a batch's lanes (`ContactBatch`): their contacts and manifold checks (the
/// prepare and the store) and their restitution (the restitution pass); 256 bytes for
/// eight lanes.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct BatchExtra<W: Wide> {
    /// Index of each lane's contact in the world's array (`u32::MAX` for an empty lane).
    contacts: W::Index,
    /// What the store needs of each lane's manifold (`ManifoldCheck`), kept by the prepare,
    /// which reads the manifold anyway: its live point count, plus `MANIFOLD_FINITE`.
    manifold_state: W::Index,
    /// Each point's separation as the prepare read it (`ManifoldCheck::separations`).
    separations: [W; 2],
    restitution: W,
    /// Each point's normal velocity before the iterations, read only by the restitution
    /// pass: 0 in a batch without restitution, which that pass skips (`finish_lanes`).
    relative_velocity: [W; 2],
    /// Any lane with restitution (the restitution pass skips the batch otherwise).
    any_restitution: bool,
}

impl<W: Wide> BatchExtra<W> {
    /// Empty lanes only.
    fn empty() -> BatchExtra<W> {
        BatchExtra {
            contacts: W::index_splat(u32::MAX),
            manifold_state: W::index_splat(0),
            separations: [W::ZERO; 2],
            restitution: W::ZERO,
            relative_velocity: [W::ZERO; 2],
            any_restitution: false,
        }
    }

    /// Keep lane `l`'s manifold check for the store (`store_batch`).
    #[inline(always)]
    fn set_manifold_check(&mut self, l: usize, check: ManifoldCheck) {
        let finite = if check.finite { MANIFOLD_FINITE } else { 0 };
        self.manifold_state.as_mut()[l] = check.count as u32 | finite;
        for (s, separation) in self.separations.iter_mut().zip(check.separations) {
            s.set_lane(l, separation);
        }
    }

    /// Lane `l`'s manifold check, as the prepare kept it.
    #[inline(always)]
    fn manifold_check(&self, l: usize) -> ManifoldCheck {
        let state = self.manifold_state.as_ref()[l];
        ManifoldCheck {
            count: (state & !MANIFOLD_FINITE) as usize,
            finite: state & MANIFOLD_FINITE != 0,
            separations: [
                lanes(&self.separations[0])[l],
                lanes(&self.separations[1])[l],
            ],
        }
    }
}

impl<W: Wide> ContactBatch<W> {
    /// Empty lanes only.
    fn empty() -> ContactBatch<W> {
        ContactBatch {
            index_a: W::index_splat(0),
            index_b: W::index_splat(0),
            store_a: W::index_splat(0),
            store_b: W::index_splat(0),
            normal: Vec2W::ZERO,
            friction: W::ZERO,
            inv_mass_a: W::ZERO,
            inv_inertia_a: W::ZERO,
            inv_mass_b: W::ZERO,
            inv_inertia_b: W::ZERO,
            points: [PointW::EMPTY; 2],
        }
    }
}

impl<W: Wide> PointW<W> {
    const EMPTY: PointW<W> = PointW {
        r_a: Vec2W::ZERO,
        r_b: Vec2W::ZERO,
        adjusted_separation: W::ZERO,
        normal_mass: W::ZERO,
        tangent_mass: W::ZERO,
        normal_impulse: W::ZERO,
        tangent_impulse: W::ZERO,
        max_normal_impulse: W::ZERO,
    };
}

/// The velocities of a batch's bodies, one per lane; `dp`, `dq` only in the solve pass.
#[derive(Clone, Copy)]
pub(crate) struct BodyW<W> {
    pub v: Vec2W<W>,
    pub w: W,
    pub d_angle: W,
    pub dp: Vec2W<W>,
    pub dq_c: W,
    pub dq_s: W,
}

/// Load `[v.x, v.y, w, d_angle]` (and with `motion`, `[dp.x, dp.y, dq.c, dq.s]`) of the
/// bodies `index` into lanes.
#[inline(always)]
pub(super) fn gather<W: Wide>(bodies: &[SolverBody], index: &W::Index, motion: bool) -> BodyW<W> {
    let index = index.as_ref();
    // Bounds checked once here; the pointers below stay inside `bodies`.
    for &i in index {
        assert!((i as usize) < bodies.len(), "solver body {i} out of range");
    }
    let base = bodies.as_ptr();
    // SAFETY: `SolverBody` is `repr(C)` and starts with the eight floats v.x, v.y, w,
    // d_angle, dp.x, dp.y, dq.c, dq.s (see its docs); every index was checked above.
    let velocity = unsafe { W::load_rows(|l| base.add(index[l] as usize) as *const f32) };
    let mut body = BodyW {
        v: Vec2W {
            x: velocity[0],
            y: velocity[1],
        },
        w: velocity[2],
        d_angle: velocity[3],
        dp: Vec2W::ZERO,
        dq_c: W::ZERO,
        dq_s: W::ZERO,
    };
    if motion {
        // SAFETY: as above, floats 4..8 of the struct.
        let m = unsafe { W::load_rows(|l| (base.add(index[l] as usize) as *const f32).add(4)) };
        body.dp = Vec2W { x: m[0], y: m[1] };
        body.dq_c = m[2];
        body.dq_s = m[3];
    }
    body
}

/// Store the bodies' `[v.x, v.y, w, d_angle]` back (never index 0, the shared static body).
#[inline(always)]
pub(super) fn scatter<W: Wide>(bodies: &mut [SolverBody], index: &W::Index, body: &BodyW<W>) {
    let index = index.as_ref();
    for &i in index {
        assert!((i as usize) < bodies.len(), "solver body {i} out of range");
    }
    let base = bodies.as_mut_ptr();
    // SAFETY: the first four floats of the `repr(C)` struct (see `gather`); every index was
    // checked above; index 0 maps to null, which `store_rows` skips.
    unsafe {
        W::store_rows([body.v.x, body.v.y, body.w, body.d_angle], |l| {
            let i = index[l] as usize;
            if i == 0 {
                std::ptr::null_mut()
            } else {
                base.add(i) as *mut f32
            }
        })
    };
}

/// Where a lane writes body `index` back: 0 (nowhere) for a body that cannot move, whose
/// velocity a constraint never changes; it may sit in lanes of several threads.
#[inline]
pub(super) fn store_index(index: usize, body: &SolverBody) -> u32 {
    if body.inv_mass == 0.0 && body.inv_inertia == 0.0 {
        0
    } else {
        index as u32
    }
}

/// `v_b + w_b x r_b - v_a - w_a x r_a`.
#[inline(always)]
fn relative_velocity<W: Wide>(
    a: &BodyW<W>,
    b: &BodyW<W>,
    r_a: Vec2W<W>,
    r_b: Vec2W<W>,
) -> Vec2W<W> {
    Vec2W {
        x: (b.v.x - b.w * r_b.y) - (a.v.x - a.w * r_a.y),
        y: (b.v.y + b.w * r_b.x) - (a.v.y + a.w * r_a.x),
    }
}

impl<W: Wide> ContactBatch<W> {
    /// Apply the impulse `p` at the arms: `-p` on A, `+p` on B.
    #[inline(always)]
    fn apply(&self, a: &mut BodyW<W>, b: &mut BodyW<W>, r_a: Vec2W<W>, r_b: Vec2W<W>, p: Vec2W<W>) {
        a.v.x -= self.inv_mass_a * p.x;
        a.v.y -= self.inv_mass_a * p.y;
        a.w -= self.inv_inertia_a * (r_a.x * p.y - r_a.y * p.x);
        b.v.x += self.inv_mass_b * p.x;
        b.v.y += self.inv_mass_b * p.y;
        b.w += self.inv_inertia_b * (r_b.x * p.y - r_b.y * p.x);
    }

    /// Write lane `l`'s per-constraint fields (everything but the points); the masses and
    /// where the bodies are written back come from the solver bodies.
    #[inline(always)]
    fn set_lane_common(
        &mut self,
        x: &mut BatchExtra<W>,
        l: usize,
        lane: &LaneCommon,
        bodies: &[SolverBody],
    ) {
        fn set<W: Wide>(x: &mut W, l: usize, value: f32) {
            x.set_lane(l, value);
        }
        let (index_a, index_b) = lane.bodies;
        let (body_a, body_b) = (&bodies[index_a], &bodies[index_b]);
        self.index_a.as_mut()[l] = index_a as u32;
        self.index_b.as_mut()[l] = index_b as u32;
        x.contacts.as_mut()[l] = lane.contact;
        self.store_a.as_mut()[l] = store_index(index_a, body_a);
        self.store_b.as_mut()[l] = store_index(index_b, body_b);
        set(&mut self.normal.x, l, lane.normal.x);
        set(&mut self.normal.y, l, lane.normal.y);
        set(&mut self.friction, l, lane.friction);
        set(&mut x.restitution, l, lane.restitution);
        set(&mut self.inv_mass_a, l, body_a.inv_mass);
        set(&mut self.inv_inertia_a, l, body_a.inv_inertia);
        set(&mut self.inv_mass_b, l, body_b.inv_mass);
        set(&mut self.inv_inertia_b, l, body_b.inv_inertia);
        x.any_restitution |= lane.restitution != 0.0;
    }

    /// Prepare: write a prepared scalar constraint into lane `l`. The batch keeps no
    /// softness: the solve gives the lane the step's static or contact softness by whether
    /// it holds the fixed body (`StepW::soft`), which is what `c.softness` is when `c` was
    /// prepared by the step.
    fn set_lane(
        &mut self,
        x: &mut BatchExtra<W>,
        l: usize,
        c: &ContactConstraint,
        bodies: &[SolverBody],
    ) {
        fn set<W: Wide>(x: &mut W, l: usize, value: f32) {
            x.set_lane(l, value);
        }
        let lane = LaneCommon {
            bodies: (c.index_a, c.index_b),
            contact: c.contact as u32,
            normal: c.normal,
            friction: c.friction,
            restitution: c.restitution,
        };
        self.set_lane_common(x, l, &lane, bodies);
        // A prepared constraint keeps no contact positions: its check is of the normal and
        // the separations alone.
        let live = &c.points[..c.count.min(2)];
        x.set_manifold_check(
            l,
            ManifoldCheck {
                count: live.len(),
                finite: c.normal.is_finite() && live.iter().all(|p| p.separation.is_finite()),
                separations: [0, 1].map(|k| live.get(k).map_or(0.0, |p| p.separation)),
            },
        );
        // Unused points of a one-point manifold are all zeros: their impulses stay zero.
        for ((p, v), cp) in self
            .points
            .iter_mut()
            .zip(&mut x.relative_velocity)
            .zip(&c.points)
        {
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
            set(v, l, cp.relative_velocity);
        }
    }

    /// Prepare, first half: copy lane `l`'s inputs from a contact (`ContactLane`) into
    /// the batch, one float at a time; `finish_lanes` then computes the masses, the
    /// relative velocities and the adjusted separations of every lane at once. Until then
    /// `adjusted_separation` holds the raw separation and `tangent_mass` is 1 for a live
    /// point, 0 for an unused one. Together they write the same floats, computed the same
    /// way, as `ContactConstraint::prepare_with` followed by `set_lane`.
    fn set_lane_inputs(
        &mut self,
        x: &mut BatchExtra<W>,
        l: usize,
        src: &ContactLane,
        bodies: &[SolverBody],
    ) {
        fn set<W: Wide>(x: &mut W, l: usize, value: f32) {
            x.set_lane(l, value);
        }
        let (contact, ctx) = (src.contact, src.ctx);
        let manifold = &contact.manifold;
        let (index_a, index_b) = (src.index_a as usize, src.index_b as usize);
        let warm = ctx.warm_starting() && ctx.settings.accumulate_impulses;
        let lane = LaneCommon {
            bodies: (index_a, index_b),
            contact: src.contact_index,
            normal: manifold.normal,
            friction: contact.friction,
            restitution: contact.restitution,
        };
        self.set_lane_common(x, l, &lane, bodies);
        x.set_manifold_check(l, ManifoldCheck::of(manifold));
        let points = manifold.points();
        for (k, p) in self.points.iter_mut().enumerate() {
            // An unused point is `ContactConstraintPoint::default()`: all zeros.
            let (r_a, r_b) = src.arms[k];
            let (mut separation, mut live) = (0.0, 0.0);
            let (mut normal_impulse, mut tangent_impulse) = (0.0, 0.0);
            if let Some(mp) = points.get(k) {
                separation = mp.separation;
                live = 1.0;
                if warm {
                    normal_impulse = mp.normal_impulse;
                    tangent_impulse = mp.tangent_impulse;
                }
            }
            set(&mut p.r_a.x, l, r_a.x);
            set(&mut p.r_a.y, l, r_a.y);
            set(&mut p.r_b.x, l, r_b.x);
            set(&mut p.r_b.y, l, r_b.y);
            set(&mut p.adjusted_separation, l, separation);
            set(&mut p.tangent_mass, l, live);
            set(&mut p.normal_impulse, l, normal_impulse);
            set(&mut p.tangent_impulse, l, tangent_impulse);
            set(&mut p.max_normal_impulse, l, 0.0);
        }
    }

    /// Prepare, first half, for a lane that holds the constraint of the step before
    /// (`WideContacts::build_lanes`: the colouring was kept, so the lane holds the same
    /// contact between the same solver bodies), whose manifold the narrow phase recycled,
    /// so that its normal, point count and anchors are the ones the lane was prepared
    /// from, as are its friction and restitution (the softness is the step's, `StepW`); and
    /// the last store wrote each contact what its lane held. Writes the manifold's new
    /// check (`check`, whose separations are the new raw separations) and marks the lane
    /// in `marks`, from which `refresh_lanes` then writes what `set_lane_inputs` would from
    /// the contact, for every marked lane at once (`warm`: last step's impulses are the
    /// warm start). Returns false, writing nothing, when the point count or a body's mass
    /// changed (then the lane is prepared afresh).
    #[inline(always)]
    fn refresh_lane(
        &mut self,
        x: &mut BatchExtra<W>,
        l: usize,
        (check, warm): (ManifoldCheck, bool),
        bodies: &[SolverBody],
        marks: &mut RefreshMarks<W>,
    ) -> bool {
        let old = x.manifold_check(l);
        let same = |x: &W, value: f32| lanes(x)[l].to_bits() == value.to_bits();
        let body_a = &bodies[self.index_a.as_ref()[l] as usize];
        let body_b = &bodies[self.index_b.as_ref()[l] as usize];
        if old.count != check.count
            || !same(&self.inv_mass_a, body_a.inv_mass)
            || !same(&self.inv_inertia_a, body_a.inv_inertia)
            || !same(&self.inv_mass_b, body_b.inv_mass)
            || !same(&self.inv_inertia_b, body_b.inv_inertia)
        {
            return false;
        }
        let on = f32::from_bits(u32::MAX);
        marks.refreshed.set_lane(l, on);
        for (k, live) in marks.live.iter_mut().enumerate() {
            if k < old.count {
                live.set_lane(l, on);
            }
        }
        if old.finite {
            marks.finite.set_lane(l, on);
        }
        marks.warm = warm;
        x.set_manifold_check(l, check);
        true
    }

    /// The refresh of every lane `marks` marks (`refresh_lane`), at once: the separations
    /// of the new check (`set_lane_inputs`' raw separations), and as the warm start the
    /// impulses the store wrote (held when the manifold the lane was prepared from and the
    /// impulses were finite, as given otherwise: `store_with`). The masses are left as the
    /// lane holds them (`finish_lanes` takes the live points from `marks`), as are the
    /// other lanes.
    #[inline(always)]
    fn refresh_lanes(&mut self, x: &mut BatchExtra<W>, marks: &RefreshMarks<W>) {
        let zero = W::ZERO;
        let all = W::splat(f32::from_bits(u32::MAX));
        let on = marks.refreshed;
        // Only the live points' impulses count (a one-point lane's second is zeros). (No
        // closures: they would not be compiled with the AVX2 copy's target feature.)
        let [p0, p1] = &self.points;
        let finite = marks
            .finite
            .and(W::select(marks.live[0], p0.impulses_finite(), all))
            .and(W::select(marks.live[1], p1.impulses_finite(), all));
        for (k, p) in self.points.iter_mut().enumerate() {
            let live = marks.live[k];
            let warm = if marks.warm { live } else { zero };
            let normal = W::select(finite, hold(p.normal_impulse), p.normal_impulse);
            let tangent = W::select(finite, hold(p.tangent_impulse), p.tangent_impulse);
            let (normal, tangent) = (
                W::select(warm, normal, zero),
                W::select(warm, tangent, zero),
            );
            p.normal_impulse = W::select(on, normal, p.normal_impulse);
            p.tangent_impulse = W::select(on, tangent, p.tangent_impulse);
            p.adjusted_separation = W::select(on, x.separations[k], p.adjusted_separation);
            p.max_normal_impulse = W::select(on, zero, p.max_normal_impulse);
        }
        // `restitution != 0.0` in a refreshed lane (a NaN counts, as in `set_lane_common`).
        let restitution = W::select(x.restitution.eq(zero), zero, all).and(on);
        x.any_restitution |= !restitution.none();
    }

    /// Ask for what refreshing this batch's lanes reads besides the batch: each lane's
    /// contact's check and its two solver bodies.
    #[inline(always)]
    fn prefetch_refresh(&self, x: &BatchExtra<W>, recycled: RecycledChecks, bodies: &[SolverBody]) {
        for l in 0..W::LANES {
            let contact = x.contacts.as_ref()[l];
            if contact == u32::MAX {
                continue;
            }
            if let Some(check) = recycled.slot(contact as usize) {
                prefetch_whole(check);
            }
            prefetch_whole(
                bodies
                    .as_ptr()
                    .wrapping_add(self.index_a.as_ref()[l] as usize),
            );
            prefetch_whole(
                bodies
                    .as_ptr()
                    .wrapping_add(self.index_b.as_ref()[l] as usize),
            );
        }
    }

    /// `refresh_lanes` for the lanes `marks` marks, then `finish_lanes`.
    #[inline(always)]
    fn refresh_and_finish(
        &mut self,
        x: &mut BatchExtra<W>,
        bodies: &[SolverBody],
        marks: Option<&RefreshMarks<W>>,
    ) {
        match marks {
            Some(marks) => {
                self.refresh_lanes(x, marks);
                self.finish_lanes(x, bodies, marks.refreshed, marks.live);
            }
            None => self.finish_lanes(x, bodies, W::ZERO, [W::ZERO; 2]),
        }
    }

    /// Prepare, second half, every lane at once (see `set_lane_inputs`), in the scalar
    /// prepare's operation order so that each lane gets the same bits:
    /// ```text
    /// k_normal  = m_a + m_b + i_a (r_a x n)^2 + i_b (r_b x n)^2,   normal_mass = 1 / k_normal
    /// k_tangent = the same with t = (n.y, -n.x),                    tangent_mass = 1 / k_tangent
    /// relative_velocity   = n . (v_b + w_b x r_b - v_a - w_a x r_a)
    /// adjusted_separation = separation - n . (r_b - r_a)
    /// ```
    /// (masses 0 where K is not positive; an unused point or empty lane keeps zeros).
    ///
    /// The lanes of `refreshed` (`refresh_lanes`; `live`: their live points) hold the
    /// masses they were prepared with, from the same arms, normal and body masses: those are
    /// computed again only when some other lane needs them, and give the same bits. The
    /// relative velocities are read only by the restitution pass, which skips a batch
    /// without restitution: there they are 0 and the bodies are not read.
    #[inline(always)]
    fn finish_lanes(
        &mut self,
        x: &mut BatchExtra<W>,
        bodies: &[SolverBody],
        refreshed: W,
        live: [W; 2],
    ) {
        let n = self.normal;
        let zero = W::ZERO;
        // A lane with a contact that was not refreshed. (Loops, not closures: a closure
        // would not be compiled with the AVX2 copy's target feature.)
        let mut fresh = false;
        for l in 0..W::LANES {
            fresh |= x.contacts.as_ref()[l] != u32::MAX && lanes(&refreshed)[l].to_bits() == 0;
        }
        let live = [
            W::select(refreshed, live[0], self.points[0].tangent_mass.gt(zero)),
            W::select(refreshed, live[1], self.points[1].tangent_mass.gt(zero)),
        ];
        if fresh {
            self.finish_masses(live);
        }
        if x.any_restitution {
            let a = gather::<W>(bodies, &self.index_a, false);
            let b = gather::<W>(bodies, &self.index_b, false);
            for ((p, v), live) in self.points.iter().zip(&mut x.relative_velocity).zip(live) {
                let (r_a, r_b) = (p.r_a, p.r_b);
                // dv = v_b + w_b x r_b - v_a - w_a x r_a, with w x r = (-w r.y, w r.x).
                let dv_x = b.v.x + (-b.w) * r_b.y - a.v.x - (-a.w) * r_a.y;
                let dv_y = b.v.y + b.w * r_b.x - a.v.y - a.w * r_a.x;
                *v = W::select(live, n.x * dv_x + n.y * dv_y, zero);
            }
        } else {
            x.relative_velocity = [zero; 2];
        }
        for p in &mut self.points {
            let (r_a, r_b) = (p.r_a, p.r_b);
            let (d_x, d_y) = (r_b.x - r_a.x, r_b.y - r_a.y);
            p.adjusted_separation -= n.x * d_x + n.y * d_y;
        }
    }

    /// `finish_lanes`' normal and tangent masses, of every lane (`live`: its live points).
    #[inline(always)]
    fn finish_masses(&mut self, live: [W; 2]) {
        let n = self.normal;
        let t = Vec2W { x: n.y, y: -n.x };
        let (m_a, i_a) = (self.inv_mass_a, self.inv_inertia_a);
        let (m_b, i_b) = (self.inv_mass_b, self.inv_inertia_b);
        let (zero, one) = (W::ZERO, W::splat(1.0));
        let cross = |r: Vec2W<W>, v: Vec2W<W>| r.x * v.y - r.y * v.x;
        for (p, live) in self.points.iter_mut().zip(live) {
            let (r_a, r_b) = (p.r_a, p.r_b);
            let (rn_a, rn_b) = (cross(r_a, n), cross(r_b, n));
            let k_normal = m_a + m_b + i_a * rn_a * rn_a + i_b * rn_b * rn_b;
            let (rt_a, rt_b) = (cross(r_a, t), cross(r_b, t));
            let k_tangent = m_a + m_b + i_a * rt_a * rt_a + i_b * rt_b * rt_b;
            p.normal_mass = W::select(live.and(k_normal.gt(zero)), one / k_normal, zero);
            p.tangent_mass = W::select(live.and(k_tangent.gt(zero)), one / k_tangent, zero);
        }
    }

    /// Copy lane `l`'s accumulated impulses to its contact, and do the quarantine's
    /// contact pass for it while it is in cache (`store_and_hold`: one write of each). The
    /// manifold is checked as it is now (the overflow's store, and every lane's when the
    /// manifolds moved after the prepare); `store_batch` is this with the prepare's check.
    #[inline]
    fn store_lane(
        &self,
        x: &BatchExtra<W>,
        l: usize,
        contacts: &DisjointMut<Contact>,
        tally: &mut ContactTally,
    ) {
        let k = x.contacts.as_ref()[l];
        if k == u32::MAX {
            return;
        }
        // SAFETY: each contact has one constraint, stored by one thread.
        let contact = unsafe { contacts.get(k as usize) };
        let impulses = [0, 1].map(|i| {
            let p = &self.points[i];
            [
                p.normal_impulse.lane(l),
                p.tangent_impulse.lane(l),
                p.max_normal_impulse.lane(l),
            ]
        });
        store_and_hold(contact, impulses, tally);
    }

    /// `store_lane` for every lane, for manifolds unchanged since the prepare: the impulses
    /// are checked and held for all the lanes at once, then each contact is written with
    /// the manifold check the prepare kept (`store_with`), so the contact is only written,
    /// never read. (No closures: they would not be compiled with the AVX2 copy's target
    /// feature.)
    #[inline(always)]
    fn store_batch(
        &self,
        x: &BatchExtra<W>,
        contacts: &DisjointMut<Contact>,
        tally: &mut ContactTally,
    ) {
        let [p0, p1] = &self.points;
        let raw = [
            [p0.normal_impulse, p0.tangent_impulse, p0.max_normal_impulse],
            [p1.normal_impulse, p1.tangent_impulse, p1.max_normal_impulse],
        ];
        let held = [
            [hold(raw[0][0]), hold(raw[0][1]), hold(raw[0][2])],
            [hold(raw[1][0]), hold(raw[1][1]), hold(raw[1][2])],
        ];
        let finite = [p0.impulses_finite(), p1.impulses_finite()];
        for (l, &k) in x.contacts.as_ref().iter().enumerate() {
            if k == u32::MAX {
                continue;
            }
            // SAFETY: each contact has one constraint, stored by one thread.
            let contact = unsafe { contacts.get(k as usize) };
            let lane_finite = [
                lanes(&finite[0])[l].to_bits() != 0,
                lanes(&finite[1])[l].to_bits() != 0,
            ];
            store_with(
                contact,
                x.manifold_check(l),
                lane_of(&raw, l),
                lane_of(&held, l),
                lane_finite,
                tally,
            );
        }
    }

    /// Warm start: apply the accumulated impulses.
    #[inline(always)]
    fn warm_start(&self, a: &mut BodyW<W>, b: &mut BodyW<W>) {
        let n = self.normal;
        let t = Vec2W { x: n.y, y: -n.x };
        for p in &self.points {
            let impulse = Vec2W {
                x: p.normal_impulse * n.x + p.tangent_impulse * t.x,
                y: p.normal_impulse * n.y + p.tangent_impulse * t.y,
            };
            self.apply(a, b, p.r_a, p.r_b, impulse);
        }
    }

    /// One solve (`use_bias`: soft push-out) or relax (rigid, speculative only) iteration.
    #[inline(always)]
    fn solve(&mut self, a: &mut BodyW<W>, b: &mut BodyW<W>, step: &StepW<W>, use_bias: bool) {
        let zero = W::ZERO;
        let one = W::splat(1.0);
        let n = self.normal;
        let t = Vec2W { x: n.y, y: -n.x };
        // The soft push-out's coefficients: the static softness for a lane with the
        // fixed body (solver index 0), else the contact softness (`StepW`).
        let (bias_scale, mass_scale, impulse_scale) = if use_bias {
            let fixed = W::either_zero(&self.index_a, &self.index_b);
            let [contact, fixed_soft] = &step.soft;
            (
                W::select(fixed, fixed_soft[0], contact[0]),
                W::select(fixed, fixed_soft[1], contact[1]),
                W::select(fixed, fixed_soft[2], contact[2]),
            )
        } else {
            (zero, one, zero)
        };
        let friction = self.friction;

        // 1. Friction first: non-penetration matters more, so it has the last word.
        for i in 0..2 {
            let p = self.points[i];
            let dv = relative_velocity(a, b, p.r_a, p.r_b);
            let vt = dv.dot(t);
            let lambda = -(p.tangent_mass * vt);
            let max_friction = friction * p.normal_impulse;
            let new_impulse = (p.tangent_impulse + lambda)
                .max(-max_friction)
                .min(max_friction);
            let lambda = new_impulse - p.tangent_impulse;
            self.points[i].tangent_impulse = new_impulse;
            let impulse = Vec2W {
                x: lambda * t.x,
                y: lambda * t.y,
            };
            self.apply(a, b, p.r_a, p.r_b, impulse);
        }

        // 2. Normal, one point at a time, with the velocity target of the current
        //    separation: speculative (s > 0) may close the gap in one sub-step; overlap
        //    is pushed out softly (solve pass) or not at all (relax pass).
        for i in 0..2 {
            let p = self.points[i];
            let d = Vec2W {
                x: (b.dp.x - a.dp.x) + (b.dq_c * p.r_b.x - b.dq_s * p.r_b.y)
                    - (a.dq_c * p.r_a.x - a.dq_s * p.r_a.y),
                y: (b.dp.y - a.dp.y) + (b.dq_s * p.r_b.x + b.dq_c * p.r_b.y)
                    - (a.dq_s * p.r_a.x + a.dq_c * p.r_a.y),
            };
            let s = d.dot(n) + p.adjusted_separation;
            let speculative = s.gt(zero);
            let bias = W::select(
                speculative,
                s * step.inv_h,
                (bias_scale * s).max(step.min_bias),
            );
            let point_mass_scale = W::select(speculative, one, mass_scale);
            let point_impulse_scale = W::select(speculative, zero, impulse_scale);

            let vn = relative_velocity(a, b, p.r_a, p.r_b).dot(n);
            let lambda = -(p.normal_mass * (point_mass_scale * vn + bias))
                - point_impulse_scale * p.normal_impulse;
            let new_impulse = (p.normal_impulse + lambda).max(zero);
            let lambda = new_impulse - p.normal_impulse;
            let point = &mut self.points[i];
            point.normal_impulse = new_impulse;
            point.max_normal_impulse = point.max_normal_impulse.max(lambda);
            let impulse = Vec2W {
                x: lambda * n.x,
                y: lambda * n.y,
            };
            self.apply(a, b, p.r_a, p.r_b, impulse);
        }
    }

    /// Restitution: a point with restitution that approached faster than the threshold
    /// (`relative_velocity <= threshold`, negative) and carried load leaves at `e` times its
    /// approach speed. Other lanes are left bitwise untouched (their bodies' velocities and
    /// impulses are selected back), so a constraint's result does not depend on the lanes
    /// it shares a batch with, nor on whether the batch is skipped.
    #[inline(always)]
    fn restitution(&mut self, x: &BatchExtra<W>, a: &mut BodyW<W>, b: &mut BodyW<W>, threshold: W) {
        let zero = W::ZERO;
        let n = self.normal;
        for i in 0..2 {
            let p = self.points[i];
            let approach = x.relative_velocity[i];
            let active = W::select(
                x.restitution.eq(zero),
                zero,
                approach.le(threshold).and(p.max_normal_impulse.gt(zero)),
            );
            if active.none() {
                continue;
            }
            let vn = relative_velocity(a, b, p.r_a, p.r_b).dot(n);
            let lambda = -(p.normal_mass * (vn + x.restitution * approach));
            let new_impulse = (p.normal_impulse + lambda).max(zero);
            let lambda = new_impulse - p.normal_impulse;
            let point = &mut self.points[i];
            point.normal_impulse = W::select(active, new_impulse, p.normal_impulse);
            point.max_normal_impulse = W::select(
                active,
                p.max_normal_impulse.max(lambda),
                p.max_normal_impulse,
            );
            let (old_a, old_b) = (*a, *b);
            let impulse = Vec2W {
                x: lambda * n.x,
                y: lambda * n.y,
            };
            self.apply(a, b, p.r_a, p.r_b, impulse);
            a.keep_inactive(active, &old_a);
            b.keep_inactive(active, &old_b);
        }
    }
}

impl<W: Wide> BodyW<W> {
    /// The velocities of `old` back in the lanes where `active` is clear.
    #[inline(always)]
    fn keep_inactive(&mut self, active: W, old: &BodyW<W>) {
        self.v.x = W::select(active, self.v.x, old.v.x);
        self.v.y = W::select(active, self.v.y, old.v.y);
        self.w = W::select(active, self.w, old.w);
    }
}

/// The per-pass constants of the solve kernel, splatted.
#[derive(Clone, Copy, Debug)]
struct StepW<W> {
    /// 1 / h: the speculative velocity target `s / h`.
    inv_h: W,
    /// `-contact_push_max_velocity`: the soft push-out's cap.
    min_bias: W,
    /// The contact softness (`[0]`) and the static softness (`[1]`), each as
    /// `[mass_scale * bias_rate, mass_scale, impulse_scale]`: a batch keeps no softness of
    /// its own, its lanes take one of these by whether they hold the fixed body (the rule
    /// of the scalar prepare, `ContactConstraint::prepare_with`).
    soft: [[W; 3]; 2],
}

impl<W: Wide> StepW<W> {
    #[inline(always)]
    fn new(ctx: &StepContext) -> StepW<W> {
        StepW {
            inv_h: W::splat(ctx.inv_dt),
            min_bias: W::splat(-ctx.settings.contact_push_max_velocity),
            soft: [
                soft_words(ctx.contact_softness),
                soft_words(ctx.static_softness),
            ],
        }
    }
}

/// `StepW::soft`'s words of one softness (no closure: this runs inside the AVX2 entry
/// points).
#[inline(always)]
fn soft_words<W: Wide>(s: Softness) -> [W; 3] {
    [
        W::splat(s.mass_scale * s.bias_rate),
        W::splat(s.mass_scale),
        W::splat(s.impulse_scale),
    ]
}

/// What a lane is prepared from: a contact read directly (`ContactLane`, the step), or a
/// constraint already prepared (`ContactConstraint`, the tests that compare the kernels).
pub(crate) trait LaneSource {
    /// `write` leaves the batch for `ContactBatch::finish_lanes` to complete.
    const INPUTS_ONLY: bool;
    /// Write lane `l` of `batch` (and of its `extra`).
    fn write<W: Wide>(
        &self,
        batch: &mut ContactBatch<W>,
        extra: &mut BatchExtra<W>,
        l: usize,
        bodies: &[SolverBody],
    );
}

impl LaneSource for ContactConstraint {
    const INPUTS_ONLY: bool = false;
    #[inline(always)]
    fn write<W: Wide>(
        &self,
        batch: &mut ContactBatch<W>,
        extra: &mut BatchExtra<W>,
        l: usize,
        bodies: &[SolverBody],
    ) {
        batch.set_lane(extra, l, self, bodies);
    }
}

/// A constraint's fields other than its points (`ContactBatch::set_lane_common`).
struct LaneCommon {
    /// Solver body indices `(a, b)`.
    bodies: (usize, usize),
    /// Index of the contact in the world's array.
    contact: u32,
    normal: Vec2,
    friction: f32,
    restitution: f32,
}

/// A touching contact and its solver bodies, to be prepared into a lane: the soft step's
/// prepare (`ContactSolver::prepare_wide`) hands these to `WideContacts::build`.
pub(crate) struct ContactLane<'a> {
    pub contact: &'a Contact,
    /// Its index in the world's contact array.
    pub contact_index: u32,
    /// Solver body indices (0: the shared static body).
    pub index_a: u32,
    pub index_b: u32,
    /// Arms `(r_a, r_b)` of each manifold point (zeros past `count`).
    pub arms: [(Vec2, Vec2); 2],
    pub ctx: &'a StepContext,
}

impl LaneSource for ContactLane<'_> {
    const INPUTS_ONLY: bool = true;
    #[inline(always)]
    fn write<W: Wide>(
        &self,
        batch: &mut ContactBatch<W>,
        extra: &mut BatchExtra<W>,
        l: usize,
        bodies: &[SolverBody],
    ) {
        batch.set_lane_inputs(extra, l, self, bodies);
    }
}

/// What a lane's constraint is built from besides its contact and bodies: the lanes of
/// one build may be refreshed at the next only when the next's key is the same.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LaneKey {
    /// `ContactSet::generation`: the contacts are where they were.
    generation: u64,
    /// Last step's impulses are the warm start (`set_lane_inputs`).
    warm: bool,
    /// Lanes per batch.
    width: usize,
}

impl LaneKey {
    pub(crate) fn new(generation: u64, ctx: &StepContext) -> LaneKey {
        LaneKey {
            generation,
            warm: ctx.warm_starting() && ctx.settings.accumulate_impulses,
            width: 0,
        }
    }
}

/// Which lanes of a batch `ContactBatch::refresh_lane` took, for `refresh_lanes`: masks
/// (all bits set in a lane, or none) of the refreshed lanes, of their live points, and of
/// those whose manifold the last prepare found finite; and whether last step's impulses
/// are the warm start (the same for every lane).
#[derive(Clone, Copy, Debug)]
struct RefreshMarks<W> {
    refreshed: W,
    live: [W; 2],
    finite: W,
    warm: bool,
}

impl<W: Wide> RefreshMarks<W> {
    const NONE: RefreshMarks<W> = RefreshMarks {
        refreshed: W::ZERO,
        live: [W::ZERO; 2],
        finite: W::ZERO,
        warm: false,
    };
}

/// The coloured, batched contact constraints of one step, and the one-lane overflow.
/// Buffers are reused.
///
/// Clones keep their batches; a clone taken on one machine and stepped on another is
/// rebuilt at the next `build` anyway (batches live for one step).
#[derive(Clone, Debug, Default)]
pub struct WideContacts {
    graph: ConstraintGraph,
    /// The constraints the colouring could not place (all of them with `force_one_lane`),
    /// one lane each, solved first.
    overflow: Vec<ContactBatch<f32>>,
    overflow_extras: Vec<BatchExtra<f32>>,
    /// Four-wide batches (SSE2), used when the CPU lacks AVX2 or `force_four_lanes` is set.
    batches4: Vec<ContactBatch<F32x4>>,
    extras4: Vec<BatchExtra<F32x4>>,
    /// Eight-wide batches (AVX2).
    #[cfg(target_arch = "x86_64")]
    batches8: Vec<ContactBatch<F32x8>>,
    #[cfg(target_arch = "x86_64")]
    extras8: Vec<BatchExtra<F32x8>>,
    /// Sixteen-wide batches (AVX-512F).
    #[cfg(target_arch = "x86_64")]
    batches16: Vec<ContactBatch<F32x16>>,
    #[cfg(target_arch = "x86_64")]
    extras16: Vec<BatchExtra<F32x16>>,
    /// Batches of colour `c`: `starts[c]..starts[c + 1]` (non-empty colours only).
    starts: Vec<usize>,
    /// The constraint in each lane of the wide batches (`batch * LANES + lane`),
    /// `u32::MAX` for an empty lane.
    order: Vec<u32>,
    /// The constraint of each one-lane batch of the overflow.
    overflow_order: Vec<u32>,
    /// Lanes of this step's batches: 16 (`batches16`), 8 (`batches8`; neither off
    /// x86_64), else 4 (`batches4`, empty with `force_one_lane`); 0 before the first build.
    width: usize,
    /// The key of the last build, while every store since was `store_impulses`' batch
    /// store (then each lane's impulses are what its contact was given: the next build
    /// may refresh the lane instead of preparing it afresh; `refresh_lane`).
    lanes_key: Option<LaneKey>,
    /// The last build kept the colouring of the one before (`ConstraintGraph::color_pairs`).
    colours_kept: bool,
    /// How many lanes the last build refreshed.
    refreshed: usize,
    /// Always four lanes (tests compare the widths).
    pub force_four_lanes: bool,
    /// At most eight lanes (tests compare the widths).
    pub force_eight_lanes: bool,
    /// No batches: every constraint one at a time, in the batches' order (tests compare the
    /// widths).
    pub force_one_lane: bool,
}

impl WideContacts {
    /// Colour the constraints given by their solver body pairs `(index_a, index_b)`, then
    /// fill the batches colour by colour: `prepare(k)` builds constraint `k` (its position
    /// in `pairs`), and `prefetch(k)` asks for what it will read a few lanes ahead.
    /// Constraints that fit no colour go to the one-lane overflow, in order.
    #[cfg(test)]
    pub(crate) fn build<S: LaneSource>(
        &mut self,
        pairs: &[(u32, u32)],
        bodies: &[SolverBody],
        prepare: impl Fn(usize) -> S + Sync,
        prefetch: impl Fn(usize) + Sync,
        threads: &Threads,
    ) {
        self.build_lanes((pairs, None), bodies, (prepare, prefetch), None, threads);
    }

    /// `build`, refreshing lanes where it can: with `lanes = Some((key, recycled))`, when
    /// the colouring is kept (the same pairs, and so the same lane for each constraint:
    /// the caller passes `lanes` only when each constraint is the same contact as in the
    /// last build), the key is the last build's and every store since was a batch store,
    /// a coloured lane whose contact's manifold the narrow phase recycled (`recycled`
    /// has its check) is refreshed (`ContactBatch::refresh_lane`) instead of prepared from
    /// its contact: the same floats without reading the contact. `same_pairs`: whether the
    /// pairs are the last build's, when the caller knows (`ConstraintGraph::color_pairs`).
    pub(crate) fn build_lanes<S: LaneSource>(
        &mut self,
        (pairs, same_pairs): (&[(u32, u32)], Option<bool>),
        bodies: &[SolverBody],
        (prepare, prefetch): (impl Fn(usize) -> S + Sync, impl Fn(usize) + Sync),
        lanes: Option<(LaneKey, RecycledChecks)>,
        threads: &Threads,
    ) {
        let kept = self
            .graph
            .color_pairs(bodies.len(), (pairs, same_pairs), |i| {
                bodies[i].inv_mass == 0.0 && bodies[i].inv_inertia == 0.0
            });
        let width = self.next_width();
        self.colours_kept = kept;
        let last_key = self.lanes_key.take();
        let (key, refresh) = match lanes {
            Some((key, recycled)) => (Some(LaneKey { width, ..key }), Some((recycled, key.warm))),
            None => (None, None),
        };
        let refresh =
            refresh.filter(|_| kept && !self.force_one_lane && key.is_some() && key == last_key);
        self.lanes_key = key.filter(|_| !self.force_one_lane);
        self.width = width;
        self.overflow.clear();
        // Which constraint goes in each lane (`order`), colour by colour; then the batches
        // are filled in order, lane by lane (see `write_lanes`).
        self.overflow_order.clear();
        self.overflow_order.extend_from_slice(&self.graph.overflow);
        if self.force_one_lane {
            // Every colour in one-lane batches, solved in order on one thread: no colour
            // starts for the (empty) wide batches.
            for list in &self.graph.colors {
                self.overflow_order.extend_from_slice(list);
            }
        }
        let overflow = self.overflow_order.len();
        resize_total(&mut self.overflow, overflow, ContactBatch::empty());
        resize_total(&mut self.overflow_extras, overflow, BatchExtra::empty());
        let refreshing = refresh.is_some();
        self.keep_only(if self.force_one_lane { 1 } else { width });
        let lanes = Lanes {
            overflow_order: &self.overflow_order,
            bodies,
            prepare,
            prefetch,
            refresh,
        };
        if self.force_one_lane {
            self.starts.clear();
            self.starts.push(0);
            self.order.clear();
            let no_batches: &mut [ContactBatch<F32x4>] = &mut [];
            self.refreshed = write_lanes(
                &lanes,
                &self.order,
                (&mut self.overflow, &mut self.overflow_extras),
                (no_batches, &mut [], finish_lanes4),
                &Threads::default(),
            );
            return;
        }
        let (graph, layout) = (&self.graph, (&mut self.starts, &mut self.order));
        let overflow = (&mut self.overflow[..], &mut self.overflow_extras[..]);
        #[cfg(target_arch = "x86_64")]
        if width == 16 {
            let finish: FinishLanes<F32x16> = avx512::finish_lanes;
            let batches = (&mut self.batches16, &mut self.extras16, finish);
            self.refreshed = lay_out_and_write(
                graph, layout, &lanes, refreshing, overflow, batches, threads,
            );
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if width == 8 {
            let finish: FinishLanes<F32x8> = avx2::finish_lanes;
            let batches = (&mut self.batches8, &mut self.extras8, finish);
            self.refreshed = lay_out_and_write(
                graph, layout, &lanes, refreshing, overflow, batches, threads,
            );
            return;
        }
        let batches = (
            &mut self.batches4,
            &mut self.extras4,
            finish_lanes4 as FinishLanes<F32x4>,
        );
        self.refreshed = lay_out_and_write(
            graph, layout, &lanes, refreshing, overflow, batches, threads,
        );
    }

    /// The width of the next build's batches: the widest the CPU has and the `force_` flags
    /// allow.
    ///
    /// Sixteen lanes whatever the step's size. The passes are bound by the kernel's chain
    /// of dependent operations, which a wider word runs for twice the constraints. (Sixteen
    /// were once kept to steps of at most 16,384 constraints: without the passes asking for
    /// sixteen-lane batches ahead (`PASS_AHEAD`), the biggest scenes' warm start and
    /// prepare cost more than the solve and relax passes saved. With it, on this AMD Zen 4,
    /// many pyramids' 58,000 contacts, medians of alternating runs, ms a step: one thread
    /// 10.38 -> 10.28 (colour passes 4.92 -> 4.51, prepare 1.15 -> 1.50); two threads
    /// 6.12 -> 5.92. One thread: washer 9.18 -> 8.82, smash 8.06 -> 7.67.)
    fn next_width(&self) -> usize {
        if self.force_one_lane || self.force_four_lanes {
            return 4;
        }
        #[cfg(target_arch = "x86_64")]
        {
            if !self.force_eight_lanes && avx512_available() {
                return 16;
            }
            if avx2_available() {
                return 8;
            }
        }
        4
    }

    /// Free the batches of every width but `width` (1: none kept): a world whose width
    /// changes (`World::set_lanes`) would otherwise hold the room of both.
    fn keep_only(&mut self, width: usize) {
        fn free_unless<T>(keep: bool, v: &mut Vec<T>) {
            if !keep {
                *v = Vec::new();
            }
        }
        free_unless(width == 4, &mut self.batches4);
        free_unless(width == 4, &mut self.extras4);
        #[cfg(target_arch = "x86_64")]
        {
            free_unless(width == 8, &mut self.batches8);
            free_unless(width == 8, &mut self.extras8);
            free_unless(width == 16, &mut self.batches16);
            free_unless(width == 16, &mut self.extras16);
        }
    }

    /// How many lanes the last build refreshed instead of preparing (`build_lanes`).
    pub fn refreshed_count(&self) -> usize {
        self.refreshed
    }

    /// The contacts were given impulses by another store than this one's (the lanes are
    /// prepared afresh at the next build).
    pub(crate) fn forget_lanes(&mut self) {
        self.lanes_key = None;
    }

    /// The next build may refresh lanes: the last kept its colouring and every store since
    /// was a batch store (the narrow phase makes the recycled manifolds' checks only then:
    /// where the pairs change every step, a refresh never comes).
    pub(crate) fn refreshes_next(&self) -> bool {
        self.colours_kept && self.lanes_key.is_some()
    }

    /// The colouring of the last `build` (colours hold positions in `pairs`).
    pub fn graph(&self) -> &ConstraintGraph {
        &self.graph
    }

    /// Positions in `pairs` of the constraints the scalar solver handles (ascending).
    pub fn overflow(&self) -> &[u32] {
        &self.graph.overflow
    }

    /// Warm start: apply the accumulated impulses, the overflow first, then colour by
    /// colour across `threads`.
    pub(crate) fn warm_start(&self, bodies: &mut [SolverBody], threads: &Threads) {
        warm_start(&self.overflow, bodies);
        let starts = &self.starts;
        #[cfg(target_arch = "x86_64")]
        if self.width == 16 {
            threads.by_colour_ref(&self.batches16, starts, bodies, |batches, bodies| {
                // SAFETY: the width is 16 only when `avx512_available()`.
                unsafe { avx512::warm_start(batches, bodies) }
            });
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.width == 8 {
            threads.by_colour_ref(&self.batches8, starts, bodies, |batches, bodies| {
                // SAFETY: the width is 8 only when `avx2_available()`.
                unsafe { avx2::warm_start(batches, bodies) }
            });
            return;
        }
        threads.by_colour_ref(&self.batches4, starts, bodies, warm_start);
    }

    /// One pass over every constraint: the solve pass (`use_bias`: soft push-out) or the
    /// relax pass (rigid, speculative only); the overflow first, then colour by colour
    /// across `threads`.
    pub(crate) fn solve(
        &mut self,
        bodies: &mut [SolverBody],
        ctx: &StepContext,
        use_bias: bool,
        threads: &Threads,
    ) {
        solve(&mut self.overflow, bodies, ctx, use_bias);
        let starts = &self.starts;
        #[cfg(target_arch = "x86_64")]
        if self.width == 16 {
            threads.by_colour(&mut self.batches16, starts, bodies, |batches, bodies| {
                // SAFETY: the width is 16 only when `avx512_available()`.
                unsafe { avx512::solve(batches, bodies, ctx, use_bias) }
            });
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.width == 8 {
            threads.by_colour(&mut self.batches8, starts, bodies, |batches, bodies| {
                // SAFETY: the width is 8 only when `avx2_available()`.
                unsafe { avx2::solve(batches, bodies, ctx, use_bias) }
            });
            return;
        }
        threads.by_colour(&mut self.batches4, starts, bodies, |batches, bodies| {
            solve(batches, bodies, ctx, use_bias)
        });
    }

    /// Restitution: points that approached faster than the threshold and carried load
    /// leave at `e` times their approach speed (as `contact::apply_restitution`).
    pub(crate) fn apply_restitution(
        &mut self,
        bodies: &mut [SolverBody],
        ctx: &StepContext,
        threads: &Threads,
    ) {
        apply_restitution(&mut self.overflow, &self.overflow_extras, bodies, ctx);
        let starts = &self.starts;
        #[cfg(target_arch = "x86_64")]
        if self.width == 16 {
            // Runs on this CPU: the width is 16 only when `avx512_available()`.
            let kernel: RestitutionKernel<F32x16> = avx512::apply_restitution;
            let batches = (&mut self.batches16[..], &self.extras16[..]);
            restitution_by_colour(batches, kernel, starts, bodies, ctx, threads);
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if self.width == 8 {
            // Runs on this CPU: the width is 8 only when `avx2_available()`.
            let kernel: RestitutionKernel<F32x8> = avx2::apply_restitution;
            let batches = (&mut self.batches8[..], &self.extras8[..]);
            restitution_by_colour(batches, kernel, starts, bodies, ctx, threads);
            return;
        }
        let kernel: RestitutionKernel<F32x4> = apply_restitution;
        let batches = (&mut self.batches4[..], &self.extras4[..]);
        restitution_by_colour(batches, kernel, starts, bodies, ctx, threads);
    }

    /// Copy the accumulated impulses to the contacts for the next warm start, and hold
    /// them as the quarantine would (the tally of what was held is returned). The
    /// manifolds are as the prepare left them unless `moved` (a halted step moved their
    /// points and separations): then each is read and checked again.
    pub(crate) fn store_impulses(
        &mut self,
        contacts: &mut [Contact],
        threads: &Threads,
        moved: bool,
    ) -> ContactTally {
        if moved {
            // Checked against the moved manifolds: not what a refresh would give.
            self.lanes_key = None;
        }
        // After a halted step moved the manifolds, each lane is stored and checked alone.
        fn pick<W: Wide>(moved: bool, batch_store: StoreBatch<W>) -> StoreBatch<W> {
            if moved {
                store_batch_by_lane
            } else {
                batch_store
            }
        }
        let overflow = (&self.overflow[..], &self.overflow_extras[..]);
        #[cfg(target_arch = "x86_64")]
        if self.width == 16 {
            let store = pick(moved, avx512::store_batch as StoreBatch<F32x16>);
            let batches = (&self.batches16[..], &self.extras16[..], store);
            return store_impulses(overflow, batches, contacts, threads);
        }
        #[cfg(target_arch = "x86_64")]
        if self.width == 8 {
            let store = pick(moved, avx2::store_batch as StoreBatch<F32x8>);
            let batches = (&self.batches8[..], &self.extras8[..], store);
            return store_impulses(overflow, batches, contacts, threads);
        }
        let store = pick(moved, store_batch4 as StoreBatch<F32x4>);
        let batches = (&self.batches4[..], &self.extras4[..], store);
        store_impulses(overflow, batches, contacts, threads)
    }

    /// Number of constraints in the one-lane overflow.
    #[cfg(test)]
    pub fn overflow_count(&self) -> usize {
        self.overflow.len()
    }
}

/// The copies of the loops for one wide word: the generic kernels instantiated with `$word`
/// and compiled with `$feature` enabled. Only reached when the CPU has the feature
/// (`WideContacts::build` makes batches of `$word` only then).
macro_rules! wide_entry_points {
    ($module:ident, $word:ty, $feature:literal) => {
        #[cfg(target_arch = "x86_64")]
        mod $module {
            use super::*;

            /// `ContactBatch::finish_lanes` for this width. Only given to `write_lanes`
            /// when the CPU has the feature (`WideContacts::build`).
            pub fn finish_lanes(
                batch: &mut ContactBatch<$word>,
                extra: &mut BatchExtra<$word>,
                bodies: &[SolverBody],
                marks: Option<&RefreshMarks<$word>>,
            ) {
                #[target_feature(enable = $feature)]
                unsafe fn finish(
                    batch: &mut ContactBatch<$word>,
                    extra: &mut BatchExtra<$word>,
                    bodies: &[SolverBody],
                    marks: Option<&RefreshMarks<$word>>,
                ) {
                    batch.refresh_and_finish(extra, bodies, marks);
                }
                // SAFETY: `WideContacts::build` passes this only when the CPU has the
                // feature.
                unsafe { finish(batch, extra, bodies, marks) }
            }

            /// `ContactBatch::store_batch` for this width. Only given to `store_impulses`
            /// when the batches are this wide (the CPU has the feature).
            pub fn store_batch(
                batch: &ContactBatch<$word>,
                extra: &BatchExtra<$word>,
                contacts: &DisjointMut<Contact>,
                tally: &mut ContactTally,
            ) {
                #[target_feature(enable = $feature)]
                unsafe fn store(
                    batch: &ContactBatch<$word>,
                    extra: &BatchExtra<$word>,
                    contacts: &DisjointMut<Contact>,
                    tally: &mut ContactTally,
                ) {
                    batch.store_batch(extra, contacts, tally);
                }
                // SAFETY: batches this wide exist only when the CPU has the feature.
                unsafe { store(batch, extra, contacts, tally) }
            }

            /// # Safety
            /// The CPU must support the feature.
            #[target_feature(enable = $feature)]
            pub unsafe fn warm_start(batches: &[ContactBatch<$word>], bodies: &mut [SolverBody]) {
                super::warm_start(batches, bodies)
            }

            /// # Safety
            /// The CPU must support the feature.
            #[target_feature(enable = $feature)]
            pub unsafe fn solve(
                batches: &mut [ContactBatch<$word>],
                bodies: &mut [SolverBody],
                ctx: &StepContext,
                use_bias: bool,
            ) {
                super::solve(batches, bodies, ctx, use_bias)
            }

            /// # Safety
            /// The CPU must support the feature.
            #[target_feature(enable = $feature)]
            pub unsafe fn apply_restitution(
                batches: &mut [ContactBatch<$word>],
                extras: &[BatchExtra<$word>],
                bodies: &mut [SolverBody],
                ctx: &StepContext,
            ) {
                super::apply_restitution(batches, extras, bodies, ctx)
            }
        }
    };
}

wide_entry_points!(avx2, F32x8, "avx2");
wide_entry_points!(avx512, F32x16, "avx512f");

/// Cut every colour into batches of `W::LANES` and give each lane its constraint (`order`,
/// `u32::MAX` for an empty lane); `starts` gets the first
/// batch of each non-empty colour, then the batch count. The batches are reused from the
/// last step: `set_lane` overwrites every field of a lane, so only the lanes left empty (in
/// the last batch of a colour) are reset (`write_lanes` clears the restitution flags).
fn lay_out<W: Wide>(
    graph: &ConstraintGraph,
    (batches, extras): (&mut Vec<ContactBatch<W>>, &mut Vec<BatchExtra<W>>),
    starts: &mut Vec<usize>,
    order: &mut Vec<u32>,
) {
    starts.clear();
    starts.push(0);
    order.clear();
    let mut count = 0;
    for list in graph.colors.iter().filter(|list| !list.is_empty()) {
        count += list.len().div_ceil(W::LANES);
        reserve_total(order, count * W::LANES);
        order.extend_from_slice(list);
        order.resize(count * W::LANES, u32::MAX);
        starts.push(count);
    }
    batches.truncate(count);
    resize_total(batches, count, ContactBatch::empty());
    extras.truncate(count);
    resize_total(extras, count, BatchExtra::empty());
    let colors = graph.colors.iter().filter(|list| !list.is_empty());
    for (list, &end) in colors.zip(&starts[1..]) {
        if list.len() % W::LANES != 0 {
            batches[end - 1] = ContactBatch::empty();
            extras[end - 1] = BatchExtra::empty();
        }
    }
}

/// A width's restitution pass over some batches (`apply_restitution`, or its copy compiled
/// for a CPU feature: then only called when the CPU has it).
type RestitutionKernel<W> =
    unsafe fn(&mut [ContactBatch<W>], &[BatchExtra<W>], &mut [SolverBody], &StepContext);

/// The restitution pass colour by colour across `threads` (`Threads::by_colour_beside`).
/// `kernel` must be safe to call on this CPU (the caller picks the width's copy only when
/// the CPU has its feature, as for the batches themselves).
fn restitution_by_colour<W: Wide>(
    (batches, extras): (&mut [ContactBatch<W>], &[BatchExtra<W>]),
    kernel: RestitutionKernel<W>,
    starts: &[usize],
    bodies: &mut [SolverBody],
    ctx: &StepContext,
    threads: &Threads,
) where
    ContactBatch<W>: Send,
    BatchExtra<W>: Sync,
{
    threads.by_colour_beside(
        batches,
        extras,
        starts,
        bodies,
        |batches, extras, bodies| {
            // SAFETY: the caller passes a kernel the CPU runs (see above).
            unsafe { kernel(batches, extras, bodies, ctx) }
        },
    );
}

/// One width's batches: laid out from the colouring (unless `refreshing`: the same
/// colouring, so the same layout, and the lanes are read), then their lanes written
/// (`write_lanes`). Returns how many lanes were refreshed.
fn lay_out_and_write<W: Wide, S: LaneSource, P, F>(
    graph: &ConstraintGraph,
    (starts, order): (&mut Vec<usize>, &mut Vec<u32>),
    lanes: &Lanes<P, F>,
    refreshing: bool,
    overflow: (&mut [ContactBatch<f32>], &mut [BatchExtra<f32>]),
    (batches, extras, finish): BatchesOf<'_, W>,
    threads: &Threads,
) -> usize
where
    ContactBatch<W>: Send + Sync,
    BatchExtra<W>: Send + Sync,
    P: Fn(usize) -> S + Sync,
    F: Fn(usize) + Sync,
{
    if !refreshing {
        lay_out(graph, (&mut *batches, &mut *extras), starts, order);
    }
    write_lanes(lanes, order, overflow, (batches, extras, finish), threads)
}

/// One width's batch arrays and the finish of its prepare (`lay_out_and_write`).
type BatchesOf<'a, W> = (
    &'a mut Vec<ContactBatch<W>>,
    &'a mut Vec<BatchExtra<W>>,
    FinishLanes<W>,
);

/// Ask the CPU to bring in every cache line holding `*item` and no other (a hint: no effect
/// on results; nothing off x86_64): the first byte of each 64 and the last byte, which
/// covers the lines whatever the alignment (the size is a constant: no loop is left).
#[inline(always)]
pub(crate) fn prefetch_whole<T>(item: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = item as *const i8;
        let size = std::mem::size_of::<T>();
        let mut offset = 0;
        // SAFETY: a prefetch never faults and reads nothing the program sees; the
        // addresses are only computed (wrapping), never dereferenced.
        unsafe {
            while offset < size {
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(offset));
                offset += 64;
            }
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(size.max(1) - 1));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}

/// Constraints per thread below which `write_lanes` and `store_impulses` stay on one
/// thread (waking the team costs more).
const MIN_SPLIT: usize = 2048;

/// What `write_lanes` prepares from: the overflow's constraints (`WideContacts::
/// overflow_order`), the solver bodies, and the callbacks of `WideContacts::build_lanes`.
struct Lanes<'a, P, F> {
    overflow_order: &'a [u32],
    bodies: &'a [SolverBody],
    prepare: P,
    prefetch: F,
    /// Set when the coloured lanes may be refreshed (`WideContacts::build_lanes`): the
    /// recycled manifolds' checks, and whether last step's impulses are the warm start.
    refresh: Option<(RecycledChecks<'a>, bool)>,
}

/// How many lanes ahead `write_lanes` prefetches the contact it will prepare.
const PREPARE_AHEAD: usize = 8;

/// How many batches ahead `write_lanes` prefetches a batch whose lanes it refreshes.
const BATCHES_AHEAD: usize = 3;

/// How many batches ahead `write_lanes` asks for what a refreshed batch's lanes read.
const LANES_AHEAD: usize = 1;

/// Prepare every constraint into its slot, batch after batch and lane after lane (`order`),
/// so that each batch is written whole while it is in cache (written lane by lane in
/// contact order, every lane was a miss on the batch's cache lines); the contacts,
/// read in colour order instead, are prefetched `PREPARE_AHEAD` lanes ahead. With
/// `lanes.refresh`, a coloured lane whose contact (the one the lane holds: the colouring
/// was kept) has a recycled manifold's check is refreshed instead (`ContactBatch::
/// refresh_lane`, then `refresh_lanes` for the batch at once: the same floats); the
/// batches, then read, are prefetched `BATCHES_AHEAD` ahead, and what a batch's lanes will
/// read (the checks and the solver bodies, by the indices the lanes hold, not by `order`,
/// read scattered) `LANES_AHEAD` ahead. Across `threads`: part `p` of `parts` writes the
/// `p`-th equal run of batches (and part 0 the overflow), so every batch is written by one
/// thread. Each lane is `prepare(k)` whatever the order or thread count, so the batches
/// are the same bit for bit. Returns how many lanes were refreshed.
fn write_lanes<W: Wide, S: LaneSource, P, F>(
    lanes: &Lanes<P, F>,
    order: &[u32],
    (overflow, overflow_extras): (&mut [ContactBatch<f32>], &mut [BatchExtra<f32>]),
    (batches, extras, finish): (&mut [ContactBatch<W>], &mut [BatchExtra<W>], FinishLanes<W>),
    threads: &Threads,
) -> usize
where
    ContactBatch<W>: Send + Sync,
    BatchExtra<W>: Send + Sync,
    P: Fn(usize) -> S + Sync,
    F: Fn(usize) + Sync,
{
    // A refreshed lane is completed by `finish` (which only inputs-only sources call).
    let refresh = lanes.refresh.filter(|_| S::INPUTS_ONLY);
    let refreshed_total = std::sync::atomic::AtomicUsize::new(0);
    let batch_count = batches.len();
    assert_eq!(extras.len(), batch_count);
    assert_eq!(overflow_extras.len(), overflow.len());
    let (overflow, batches) = (DisjointMut::new(overflow), DisjointMut::new(batches));
    let (overflow_extras, extras) = (DisjointMut::new(overflow_extras), DisjointMut::new(extras));
    let total = lanes.overflow_order.len() + order.len();
    let worth_it = total >= MIN_SPLIT * threads.count();
    let bodies = lanes.bodies;
    threads.split_fine(worth_it, |part, parts| {
        if part == 0 {
            for (b, &k) in lanes.overflow_order.iter().enumerate() {
                // SAFETY: the overflow is written by part 0 only, each batch once.
                let (batch, extra) = unsafe { (overflow.get(b), overflow_extras.get(b)) };
                (lanes.prepare)(k as usize).write(batch, extra, 0, bodies);
                if S::INPUTS_ONLY {
                    batch.refresh_and_finish(extra, bodies, None);
                }
            }
        }
        let per = batch_count.div_ceil(parts).max(1);
        let end = ((part + 1) * per).min(batch_count);
        let first = (part * per).min(end);
        let run = &order[first * W::LANES..end * W::LANES];
        let mut refreshed_here = 0;
        for (i, lane_ks) in run.chunks_exact(W::LANES).enumerate() {
            if let Some((recycled, _)) = refresh {
                // Refreshing reads the lanes: the batch `BATCHES_AHEAD` on is asked for;
                // and what the lanes of the one `LANES_AHEAD` on will read, their
                // contacts' checks and their bodies, by the indices in its lanes.
                if first + i + BATCHES_AHEAD < end {
                    prefetch_whole(batches.ptr(first + i + BATCHES_AHEAD));
                    prefetch_whole(extras.ptr(first + i + BATCHES_AHEAD));
                }
                if first + i + LANES_AHEAD < end {
                    // SAFETY: batch `first + i + LANES_AHEAD` belongs to this part's run
                    // alone, and is only read here, before its turn.
                    let (next, next_extra) = unsafe {
                        (
                            &*batches.ptr(first + i + LANES_AHEAD),
                            &*extras.ptr(first + i + LANES_AHEAD),
                        )
                    };
                    next.prefetch_refresh(next_extra, recycled, bodies);
                }
            }
            // SAFETY: batch `first + i` belongs to this part's run alone.
            let (batch, extra) = unsafe { (batches.get(first + i), extras.get(first + i)) };
            // Its lanes set the flag again (cleared here, where the batch is written anyway,
            // not in `lay_out`: a pass over every batch for a byte).
            extra.any_restitution = false;
            let mut marks = RefreshMarks::NONE;
            let mut refreshed_lanes = 0;
            for (l, &k) in lane_ks.iter().enumerate() {
                if refresh.is_none() {
                    let ahead = run.get(i * W::LANES + l + PREPARE_AHEAD);
                    if let Some(&ahead) = ahead.filter(|&&k| k != u32::MAX) {
                        (lanes.prefetch)(ahead as usize);
                    }
                }
                if k == u32::MAX {
                    continue;
                }
                // Refreshing, the lane holds constraint `k`'s contact (`build_lanes`).
                let refreshed = refresh.is_some_and(|(recycled, warm)| {
                    let contact = extra.contacts.as_ref()[l] as usize;
                    recycled.get(contact).is_some_and(|check| {
                        batch.refresh_lane(extra, l, (check, warm), bodies, &mut marks)
                    })
                });
                if refreshed {
                    refreshed_lanes += 1;
                } else {
                    (lanes.prepare)(k as usize).write(batch, extra, l, bodies);
                }
            }
            refreshed_here += refreshed_lanes;
            if S::INPUTS_ONLY {
                finish(
                    batch,
                    extra,
                    bodies,
                    (refreshed_lanes > 0).then_some(&marks),
                );
            }
        }
        if refreshed_here > 0 {
            refreshed_total.fetch_add(refreshed_here, std::sync::atomic::Ordering::Relaxed);
        }
    });
    refreshed_total.into_inner()
}

/// `ContactBatch::finish_lanes` for one width (the AVX2 copy for eight lanes).
type FinishLanes<W> =
    fn(&mut ContactBatch<W>, &mut BatchExtra<W>, &[SolverBody], Option<&RefreshMarks<W>>);

/// The lanes of `x` in memory, in lane order.
#[inline(always)]
fn lanes<W: Wide>(x: &W) -> &[f32] {
    // SAFETY: every `Wide` is `W::LANES` floats in lane order (`set_lane` writes them so).
    unsafe { std::slice::from_raw_parts(x as *const W as *const f32, W::LANES) }
}

/// `quarantine::held` lane by lane (a NaN is kept as it is there too).
#[inline(always)]
fn hold<W: Wide>(v: W) -> W {
    let (max, min) = (
        W::splat(ACCUMULATED_IMPULSE.max),
        W::splat(-ACCUMULATED_IMPULSE.max),
    );
    W::select(v.gt(max), max, W::select(min.gt(v), min, v))
}

/// Lane `l` of a point pair's three impulses, read from memory (`Wide::lane` would copy
/// each word out whole).
#[inline(always)]
fn lane_of<W: Wide>(v: &[[W; 3]; 2], l: usize) -> [[f32; 3]; 2] {
    [
        [lanes(&v[0][0])[l], lanes(&v[0][1])[l], lanes(&v[0][2])[l]],
        [lanes(&v[1][0])[l], lanes(&v[1][1])[l], lanes(&v[1][2])[l]],
    ]
}

/// `ContactBatch::store_batch` for one width (the AVX2 copy for eight lanes).
type StoreBatch<W> = fn(&ContactBatch<W>, &BatchExtra<W>, &DisjointMut<Contact>, &mut ContactTally);

/// `ContactBatch::store_lane` for every lane of a batch: the store that reads and checks
/// each manifold as it is (after a halted step moved them).
fn store_batch_by_lane<W: Wide>(
    batch: &ContactBatch<W>,
    extra: &BatchExtra<W>,
    contacts: &DisjointMut<Contact>,
    tally: &mut ContactTally,
) {
    for l in 0..W::LANES {
        batch.store_lane(extra, l, contacts, tally);
    }
}

/// `ContactBatch::store_batch` for four lanes (SSE2 on x86_64).
fn store_batch4(
    batch: &ContactBatch<F32x4>,
    extra: &BatchExtra<F32x4>,
    contacts: &DisjointMut<Contact>,
    tally: &mut ContactTally,
) {
    batch.store_batch(extra, contacts, tally);
}

/// `ContactBatch::finish_lanes` for four lanes (SSE2 on x86_64).
fn finish_lanes4(
    batch: &mut ContactBatch<F32x4>,
    extra: &mut BatchExtra<F32x4>,
    bodies: &[SolverBody],
    marks: Option<&RefreshMarks<F32x4>>,
) {
    batch.refresh_and_finish(extra, bodies, marks);
}

/// Warm start: apply the accumulated impulses.
#[inline(always)]
fn warm_start<W: Wide>(batches: &[ContactBatch<W>], bodies: &mut [SolverBody]) {
    for (k, batch) in batches.iter().enumerate() {
        prefetch_pass_ahead(batches, k);
        let mut a = gather(bodies, &batch.index_a, false);
        let mut b = gather(bodies, &batch.index_b, false);
        batch.warm_start(&mut a, &mut b);
        scatter(bodies, &batch.store_a, &a);
        scatter(bodies, &batch.store_b, &b);
    }
}

/// How many batches ahead the warm start, solve and relax passes ask for a batch, when it
/// is at least `PREFETCH_PASS_LANES` wide.
const PASS_AHEAD: usize = 2;

/// The narrowest batch the passes ask for ahead. A sixteen-lane batch is 31 lines whose
/// fields the kernel reads out of order (many pyramids, one thread, AMD Zen 4, medians of
/// alternating runs, ms a step: warm start 1.60 -> 1.20, solve 1.85 -> 1.83); eight lanes
/// came in in time without (there the asking cost more: solve 2.03 -> 2.13).
const PREFETCH_PASS_LANES: usize = 16;

/// Ask for batch `k + PASS_AHEAD` when the batches are at least `PREFETCH_PASS_LANES` wide
/// (a pass's loop, at batch `k`).
#[inline(always)]
fn prefetch_pass_ahead<W: Wide>(batches: &[ContactBatch<W>], k: usize) {
    if W::LANES >= PREFETCH_PASS_LANES {
        if let Some(ahead) = batches.get(k + PASS_AHEAD) {
            prefetch_whole(ahead);
        }
    }
}

/// One solve (`use_bias`) or relax pass over every batch.
#[inline(always)]
fn solve<W: Wide>(
    batches: &mut [ContactBatch<W>],
    bodies: &mut [SolverBody],
    ctx: &StepContext,
    use_bias: bool,
) {
    let step = StepW::new(ctx);
    for k in 0..batches.len() {
        prefetch_pass_ahead(batches, k);
        let batch = &mut batches[k];
        let mut a = gather(bodies, &batch.index_a, true);
        let mut b = gather(bodies, &batch.index_b, true);
        batch.solve(&mut a, &mut b, &step, use_bias);
        scatter(bodies, &batch.store_a, &a);
        scatter(bodies, &batch.store_b, &b);
    }
}

/// Restitution pass over every batch with restitution.
#[inline(always)]
fn apply_restitution<W: Wide>(
    batches: &mut [ContactBatch<W>],
    extras: &[BatchExtra<W>],
    bodies: &mut [SolverBody],
    ctx: &StepContext,
) {
    let threshold = W::splat(-ctx.settings.restitution_threshold);
    assert_eq!(batches.len(), extras.len());
    for (batch, extra) in batches.iter_mut().zip(extras) {
        if !extra.any_restitution {
            continue;
        }
        let mut a = gather(bodies, &batch.index_a, false);
        let mut b = gather(bodies, &batch.index_b, false);
        batch.restitution(extra, &mut a, &mut b, threshold);
        scatter(bodies, &batch.store_a, &a);
        scatter(bodies, &batch.store_b, &b);
    }
}

/// How many batches ahead `store_impulses` asks for a batch's `BatchExtra` (the second
/// stream beside the batches, which the hardware did not bring in time).
const STORE_EXTRAS_AHEAD: usize = 2;

/// Copy the accumulated impulses to the contacts, batch after batch (each batch read
/// once, in memory order; the next batch's contacts are prefetched while this one is
/// stored); across `threads` by equal runs of batches (part 0 also stores the overflow).
/// Each contact has one constraint, so the threads write disjoint contacts, and what each
/// contact gets does not depend on the order; the tallies merge by sums and a maximum.
fn store_impulses<W: Wide>(
    (overflow, overflow_extras): (&[ContactBatch<f32>], &[BatchExtra<f32>]),
    (batches, extras, store_batch): (&[ContactBatch<W>], &[BatchExtra<W>], StoreBatch<W>),
    contacts: &mut [Contact],
    threads: &Threads,
) -> ContactTally
where
    ContactBatch<W>: Send + Sync,
    BatchExtra<W>: Send + Sync,
{
    assert_eq!(batches.len(), extras.len());
    let contacts = DisjointMut::new(contacts);
    let total = Mutex::new(ContactTally::default());
    let lanes = overflow.len() + batches.len() * W::LANES;
    let worth_it = lanes >= MIN_SPLIT * threads.count();
    threads.split_fine(worth_it, |part, parts| {
        let mut tally = ContactTally::default();
        if part == 0 {
            for (batch, extra) in overflow.iter().zip(overflow_extras) {
                batch.store_lane(extra, 0, &contacts, &mut tally);
            }
        }
        let per = batches.len().div_ceil(parts).max(1);
        let end = ((part + 1) * per).min(batches.len());
        let start = (part * per).min(end);
        let (run, run_extras) = (&batches[start..end], &extras[start..end]);
        for (i, (batch, extra)) in run.iter().zip(run_extras).enumerate() {
            if let Some(ahead) = run_extras.get(i + STORE_EXTRAS_AHEAD) {
                prefetch_whole(ahead);
            }
            if let Some(next) = run_extras.get(i + 1) {
                for &k in next.contacts.as_ref() {
                    if k != u32::MAX {
                        // The store writes the points' impulses alone: the contact's first
                        // line (`Contact`'s layout).
                        let contact = contacts.ptr(k as usize);
                        // SAFETY: `ptr` checked the index; only the address is taken.
                        prefetch_whole(unsafe { std::ptr::addr_of!((*contact).manifold.points) });
                    }
                }
            }
            store_batch(batch, extra, &contacts, &mut tally);
        }
        // The merge is a sum and a maximum: the same in any order.
        total
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .merge(&tally);
    });
    total
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::math::{Rot, Vec2};
    use crate::physics::settings::{SolverKind, SolverSettings};
    use crate::physics::solver::contact::{
        restitution_contact, solve_contact, warm_start_contact, BiasMode, ContactConstraintPoint,
    };
    use crate::physics::solver::test_rng::{bodies, Rng};

    /// Random one- and two-point constraints between random bodies (static body 0
    /// included, on either side: the batches take its softness from either index),
    /// sharing bodies, with warm-start impulses, speculative and overlapping points.
    fn constraints(
        rng: &mut Rng,
        bodies: &[SolverBody],
        count: usize,
        ctx: &StepContext,
    ) -> Vec<ContactConstraint> {
        let n = bodies.len() - 1;
        (0..count)
            .map(|k| {
                let mut index_a = rng.below(n + 1);
                let mut index_b = rng.below(n) + 1;
                if index_b == index_a {
                    index_b = index_a % n + 1;
                }
                if index_a == 0 && rng.below(2) == 0 {
                    (index_a, index_b) = (index_b, index_a);
                }
                // Axis normals and arms, separations and displacements on a binary grid:
                // the wide kernel's regrouped separation (`adjusted_separation`) is then
                // exact, as the scalar one is. (Otherwise its rounding, some 1e-8 m, is
                // amplified by the speculative target `s / h`.)
                let normal = [Vec2::X, Vec2::Y, -Vec2::X, -Vec2::Y][rng.below(4)];
                let tangent = Vec2::new(normal.y, -normal.x);
                let (a, b) = (bodies[index_a], bodies[index_b]);
                let mut points = [ContactConstraintPoint::default(); 2];
                let count = 1 + rng.below(2);
                for p in &mut points[..count] {
                    p.r_a = grid(rng, 0.5, 64.0);
                    p.r_b = grid(rng, 0.5, 64.0);
                    let k = |dir: Vec2| {
                        let (rn_a, rn_b) = (p.r_a.perp_dot(dir), p.r_b.perp_dot(dir));
                        a.inv_mass
                            + b.inv_mass
                            + a.inv_inertia * rn_a * rn_a
                            + b.inv_inertia * rn_b * rn_b
                    };
                    let (k_n, k_t) = (k(normal), k(tangent));
                    p.normal_mass = if k_n > 0.0 { 1.0 / k_n } else { 0.0 };
                    p.tangent_mass = if k_t > 0.0 { 1.0 / k_t } else { 0.0 };
                    p.separation = (rng.range(-0.05, 0.03) * 1024.0).round() / 1024.0;
                    p.normal_impulse = rng.range(0.0, 2.0);
                    p.tangent_impulse = rng.range(-0.5, 0.5);
                    p.relative_velocity = rng.range(-4.0, 1.0);
                }
                ContactConstraint {
                    index_a,
                    index_b,
                    contact: k,
                    normal,
                    friction: rng.range(0.0, 1.0),
                    restitution: if rng.below(3) == 0 { 0.5 } else { 0.0 },
                    softness: if index_a == 0 || index_b == 0 {
                        ctx.static_softness
                    } else {
                        ctx.contact_softness
                    },
                    points,
                    count,
                    k: [0.0; 3],
                    normal_mass_block: [0.0; 3],
                    use_block: false,
                }
            })
            .collect()
    }

    /// A vector in `-r..r` on the grid of `1 / steps`.
    fn grid(rng: &mut Rng, r: f32, steps: f32) -> Vec2 {
        (rng.vec(r) * steps).round() / steps
    }

    /// The passes of a soft sub-step over the scalar constraints, in the batches' order
    /// (overflow first, then colour by colour).
    fn run_scalar(
        list: &[ContactConstraint],
        start: &[SolverBody],
        ctx: &StepContext,
    ) -> Vec<SolverBody> {
        let mut graph = ConstraintGraph::default();
        graph.color(
            start.len(),
            list.iter().map(|c| (c.index_a, c.index_b)),
            |i| start[i].inv_mass == 0.0 && start[i].inv_inertia == 0.0,
        );
        let order: Vec<usize> = graph
            .overflow
            .iter()
            .chain(graph.colors.iter().flatten())
            .map(|&k| k as usize)
            .collect();
        let mut list: Vec<ContactConstraint> = order.iter().map(|&k| list[k]).collect();
        let mut bodies = start.to_vec();
        for c in &list {
            warm_start_contact(c, &mut bodies);
        }
        for mode in [BiasMode::Soft, BiasMode::Relax] {
            for c in &mut list {
                solve_contact(c, &mut bodies, ctx, mode);
            }
        }
        for c in &mut list {
            restitution_contact(c, &mut bodies, ctx);
        }
        bodies
    }

    /// A point's accumulated impulses: contact, point, bits of normal, tangent, max normal.
    type PointImpulses = (u32, usize, [u32; 3]);

    /// The soft sub-step's passes through `WideContacts` with the given width (1, 4, 8 or
    /// 16; sixteen falls back to eight without AVX-512F, eight to four without AVX2): the
    /// bodies after, and every point's accumulated impulses (contact, point, normal,
    /// tangent, max normal bits).
    fn run_wide(
        list: &[ContactConstraint],
        start: &[SolverBody],
        ctx: &StepContext,
        lanes: usize,
    ) -> (Vec<SolverBody>, Vec<PointImpulses>) {
        let mut wide = WideContacts {
            force_one_lane: lanes == 1,
            force_four_lanes: lanes == 4,
            force_eight_lanes: lanes == 8,
            ..WideContacts::default()
        };
        let pairs: Vec<(u32, u32)> = list
            .iter()
            .map(|c| (c.index_a as u32, c.index_b as u32))
            .collect();
        let mut bodies = start.to_vec();
        wide.build(&pairs, &bodies, |k| list[k], |_| {}, &Threads::default());
        if lanes == 1 {
            assert_eq!(wide.overflow_count(), list.len());
        }
        let threads = Threads::default();
        wide.warm_start(&mut bodies, &threads);
        for use_bias in [true, false] {
            wide.solve(&mut bodies, ctx, use_bias, &threads);
        }
        wide.apply_restitution(&mut bodies, ctx, &threads);
        let mut impulses = Vec::new();
        let mut eat = |batch_contacts: &[u32], points: [[f32; 3]; 2], l: usize| {
            for (i, p) in points.iter().enumerate() {
                impulses.push((batch_contacts[l], i, p.map(f32::to_bits)));
            }
        };
        for_each_lane(&wide.overflow, &wide.overflow_extras, &mut eat);
        for_each_lane(&wide.batches4, &wide.extras4, &mut eat);
        #[cfg(target_arch = "x86_64")]
        for_each_lane(&wide.batches8, &wide.extras8, &mut eat);
        #[cfg(target_arch = "x86_64")]
        for_each_lane(&wide.batches16, &wide.extras16, &mut eat);
        impulses.sort_by_key(|&(contact, point, _)| (contact, point));
        (bodies, impulses)
    }

    /// Every used lane of the batches: its contacts, its points' impulses, its lane.
    fn for_each_lane<W: Wide>(
        batches: &[ContactBatch<W>],
        extras: &[BatchExtra<W>],
        f: &mut impl FnMut(&[u32], [[f32; 3]; 2], usize),
    ) {
        assert_eq!(batches.len(), extras.len());
        for (batch, extra) in batches.iter().zip(extras) {
            for (l, &k) in extra.contacts.as_ref().iter().enumerate() {
                if k != u32::MAX {
                    let point = |p: &PointW<W>| {
                        [
                            p.normal_impulse.lane(l),
                            p.tangent_impulse.lane(l),
                            p.max_normal_impulse.lane(l),
                        ]
                    };
                    f(
                        extra.contacts.as_ref(),
                        batch.points.each_ref().map(point),
                        l,
                    );
                }
            }
        }
    }

    fn bits(bodies: &[SolverBody]) -> Vec<[u32; 3]> {
        bodies
            .iter()
            .map(|b| [b.v.x.to_bits(), b.v.y.to_bits(), b.w.to_bits()])
            .collect()
    }

    /// Random bodies (some resting on a grid of displacements) and constraints for `seed`,
    /// one in three bouncy.
    fn problem(seed: u32, ctx: &StepContext) -> (Vec<SolverBody>, Vec<ContactConstraint>) {
        let mut rng = Rng(seed.wrapping_mul(0x85eb_ca6b) | 1);
        // Up to three constraints per body: bodies shared across colours.
        let body_count = 20 + rng.below(60);
        let mut start = bodies(&mut rng, body_count);
        for b in &mut start[1..] {
            b.dp = grid(&mut rng, 0.05, 1024.0);
            b.dq = Rot::IDENTITY;
            b.d_angle = 0.0;
        }
        let count = 2 + rng.below(3 * body_count);
        let list = constraints(&mut rng, &start, count, ctx);
        (start, list)
    }

    fn soft_context() -> StepContext {
        let settings = SolverSettings {
            solver: SolverKind::SoftStep,
            ..SolverSettings::default()
        };
        StepContext::new(1.0 / 240.0, &settings)
    }

    /// The batch store (`store_batch`: impulses checked and held for all lanes at once)
    /// writes the contacts and counts the tally exactly as the lane-by-lane store
    /// (`store_lane`, `quarantine::store_and_hold`), for impulses in range, beyond it either
    /// way, infinite and NaN, and for manifolds with a point or a separation that is not
    /// finite; four and eight lanes. Then a refresh of the stored lanes (`refresh_lane`,
    /// `refresh_lanes`) gives every lane, bit for bit, what a prepare from the stored
    /// contacts gives.
    #[test]
    fn batch_store_is_the_lane_store() {
        use crate::physics::collision::Manifold;
        use crate::physics::contact::ManifoldCache;
        use crate::physics::{BodyHandle, ShapeHandle};
        let ctx = soft_context();
        let mut rng = Rng(0x5eed_0bad);
        let start = bodies(&mut rng, 400);
        let list = constraints(&mut rng, &start, 300, &ctx);
        let max = ACCUMULATED_IMPULSE.max;
        let specials = [
            f32::NAN,
            f32::INFINITY,
            -f32::INFINITY,
            2.0 * max,
            -2.0 * max,
            max,
        ];
        let value = |rng: &mut Rng| {
            if rng.below(6) == 0 {
                specials[rng.below(specials.len())]
            } else {
                rng.range(-3.0, 3.0)
            }
        };
        let contacts: Vec<Contact> = list
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let mut manifold = Manifold::EMPTY;
                manifold.normal = c.normal;
                let count = if c.points[1].normal_mass > 0.0 { 2 } else { 1 };
                for i in 0..count {
                    let bad = rng.below(40) == 0;
                    let point = if bad {
                        Vec2::new(f32::NAN, 0.0)
                    } else {
                        Vec2::X
                    };
                    let separation = if rng.below(40) == 0 {
                        f32::INFINITY
                    } else {
                        rng.range(-0.05, 0.01)
                    };
                    manifold.push(point, separation, i as u16);
                }
                Contact {
                    shape_a: ShapeHandle::new(2 * k as u32, 0),
                    shape_b: ShapeHandle::new(2 * k as u32 + 1, 0),
                    body_a: BodyHandle::new(c.index_a as u32, 0),
                    body_b: BodyHandle::new(c.index_b as u32, 0),
                    manifold,
                    friction: c.friction,
                    restitution: 0.0,
                    cache: ManifoldCache::default(),
                    recycled: false,
                    dead: false,
                }
            })
            .collect();
        let pairs: Vec<(u32, u32)> = list
            .iter()
            .map(|c| (c.index_a as u32, c.index_b as u32))
            .collect();
        fn poke<W: Wide>(batches: &mut [ContactBatch<W>], value: &mut impl FnMut() -> f32) {
            for batch in batches {
                for p in &mut batch.points {
                    for x in [
                        &mut p.normal_impulse,
                        &mut p.tangent_impulse,
                        &mut p.max_normal_impulse,
                    ] {
                        for l in 0..W::LANES {
                            x.set_lane(l, value());
                        }
                    }
                }
            }
        }
        // Each lane keeps the check of its own contact's manifold.
        fn kept_checks<W: Wide>(extras: &[BatchExtra<W>], contacts: &[Contact]) -> usize {
            let bits = |c: ManifoldCheck| (c.count, c.finite, c.separations.map(f32::to_bits));
            let mut lanes = 0;
            for extra in extras {
                for (l, &k) in extra.contacts.as_ref().iter().enumerate() {
                    if k != u32::MAX {
                        let of_contact = ManifoldCheck::of(&contacts[k as usize].manifold);
                        assert_eq!(bits(extra.manifold_check(l)), bits(of_contact), "lane {l}");
                        lanes += 1;
                    }
                }
            }
            lanes
        }
        fn by_lane<W: Wide>(
            (batches, extras): (&[ContactBatch<W>], &[BatchExtra<W>]),
            contacts: &mut [Contact],
        ) -> ContactTally {
            let contacts = DisjointMut::new(contacts);
            let mut tally = ContactTally::default();
            for (batch, extra) in batches.iter().zip(extras) {
                for l in 0..W::LANES {
                    batch.store_lane(extra, l, &contacts, &mut tally);
                }
            }
            tally
        }
        // The first impulse (contact, point, which) whose bits differ, if any.
        let first_difference = |one: &[Contact], other: &[Contact]| {
            let impulses = |c: &Contact, i: usize| {
                let p = &c.manifold.points[i];
                [p.normal_impulse, p.tangent_impulse, p.max_normal_impulse].map(f32::to_bits)
            };
            (0..one.len())
                .flat_map(|k| (0..2).flat_map(move |i| (0..3).map(move |j| (k, i, j))))
                .find(|&(k, i, j)| impulses(&one[k], i)[j] != impulses(&other[k], i)[j])
        };
        let check = |a: &ContactTally, b: &ContactTally, width: &str| {
            assert_eq!(
                (
                    a.contacts,
                    a.points,
                    a.max_penetration.to_bits(),
                    a.all_finite
                ),
                (
                    b.contacts,
                    b.points,
                    b.max_penetration.to_bits(),
                    b.all_finite
                ),
                "{width} lanes: tally"
            );
        };
        // The lanes are prepared from the contacts, as the soft step's prepare does: the
        // batch store writes them with the checks the prepare kept, the lane store reads
        // and checks them again.
        let lane = |k: usize| ContactLane {
            contact: &contacts[k],
            contact_index: k as u32,
            index_a: list[k].index_a as u32,
            index_b: list[k].index_b as u32,
            arms: list[k].points.map(|p| (p.r_a, p.r_b)),
            ctx: &ctx,
        };
        // A refresh of the stored lanes (their manifolds unchanged) gives the lanes a
        // prepare from the stored contacts gives: warm starts held where the store held
        // them, as stored otherwise.
        fn refresh_all<W: Wide>(
            (batches, extras): (&mut [ContactBatch<W>], &mut [BatchExtra<W>]),
            contacts: &[Contact],
            bodies: &[SolverBody],
            finish: FinishLanes<W>,
        ) -> usize {
            let mut refreshed = 0;
            for (batch, extra) in batches.iter_mut().zip(extras) {
                let mut marks = RefreshMarks::NONE;
                for l in 0..W::LANES {
                    let k = extra.contacts.as_ref()[l];
                    if k != u32::MAX {
                        let check = ManifoldCheck::of(&contacts[k as usize].manifold);
                        assert!(batch.refresh_lane(extra, l, (check, true), bodies, &mut marks));
                        refreshed += 1;
                    }
                }
                finish(batch, extra, bodies, Some(&marks));
            }
            refreshed
        }
        // Every field the prepare writes, of each used lane; and each batch's flag.
        fn lane_bits<W: Wide>(
            batches: &[ContactBatch<W>],
            extras: &[BatchExtra<W>],
        ) -> Vec<(Vec<u32>, bool)> {
            let words = |b: &ContactBatch<W>, x: &BatchExtra<W>, l: usize| {
                let mut v = vec![x.manifold_state.as_ref()[l]];
                for (k, p) in b.points.iter().enumerate() {
                    v.extend(
                        [
                            p.adjusted_separation,
                            p.normal_mass,
                            p.tangent_mass,
                            p.normal_impulse,
                            p.tangent_impulse,
                            p.max_normal_impulse,
                            x.relative_velocity[k],
                            x.separations[k],
                        ]
                        .map(|w| lanes(&w)[l].to_bits()),
                    );
                }
                v
            };
            batches
                .iter()
                .zip(extras)
                .map(|(b, x)| {
                    let used = (0..W::LANES).filter(|&l| x.contacts.as_ref()[l] != u32::MAX);
                    (
                        used.flat_map(|l| words(b, x, l)).collect(),
                        x.any_restitution,
                    )
                })
                .collect()
        }
        let mut wide = WideContacts {
            force_four_lanes: true,
            ..WideContacts::default()
        };
        wide.build(&pairs, &start, lane, |_| {}, &Threads::default());
        assert!(wide.overflow.is_empty() && wide.batches4.len() > 40);
        assert_eq!(kept_checks(&wide.extras4, &contacts), contacts.len());
        poke(&mut wide.batches4, &mut || value(&mut rng));
        let (mut one, mut other) = (contacts.clone(), contacts.clone());
        let batches = (
            &wide.batches4[..],
            &wide.extras4[..],
            store_batch4 as StoreBatch<F32x4>,
        );
        let tally = store_impulses((&[], &[]), batches, &mut one, &Threads::default());
        let lanes4 = (&wide.batches4[..], &wide.extras4[..]);
        check(&tally, &by_lane(lanes4, &mut other), "four");
        assert_eq!(first_difference(&one, &other), None, "four lanes: impulses");
        assert!(
            !tally.all_finite && tally.contacts > 100,
            "the cases were met"
        );
        let finish4: FinishLanes<F32x4> = finish_lanes4;
        let lanes4 = (&mut wide.batches4[..], &mut wide.extras4[..]);
        let refreshed = refresh_all(lanes4, &one, &start, finish4);
        assert_eq!(refreshed, contacts.len());
        let mut fresh = WideContacts {
            force_four_lanes: true,
            ..WideContacts::default()
        };
        let from_stored = |k: usize| ContactLane {
            contact: &one[k],
            ..lane(k)
        };
        fresh.build(&pairs, &start, from_stored, |_| {}, &Threads::default());
        let (got, want) = (
            lane_bits(&wide.batches4, &wide.extras4),
            lane_bits(&fresh.batches4, &fresh.extras4),
        );
        let first = (0..got.len()).find(|&b| got[b] != want[b]);
        assert_eq!(first, None, "four lanes: refreshed against prepared");
        // The AVX2 and AVX-512F widths, each when the CPU has it.
        macro_rules! wide_case {
            ($available:expr, $batches:ident, $extras:ident, $module:ident, $word:ty, $name:literal) => {
                #[cfg(target_arch = "x86_64")]
                if $available {
                    let new_wide = || WideContacts {
                        force_eight_lanes: <$word>::LANES == 8,
                        ..WideContacts::default()
                    };
                    let mut wide = new_wide();
                    wide.build(&pairs, &start, lane, |_| {}, &Threads::default());
                    assert!(wide.overflow.is_empty() && wide.$batches.len() * <$word>::LANES > 160);
                    assert_eq!(kept_checks(&wide.$extras, &contacts), contacts.len());
                    poke(&mut wide.$batches, &mut || value(&mut rng));
                    let (mut one, mut other) = (contacts.clone(), contacts.clone());
                    let store = $module::store_batch as StoreBatch<$word>;
                    let batches = (&wide.$batches[..], &wide.$extras[..], store);
                    let tally = store_impulses((&[], &[]), batches, &mut one, &Threads::default());
                    let lanes = (&wide.$batches[..], &wide.$extras[..]);
                    check(&tally, &by_lane(lanes, &mut other), $name);
                    assert_eq!(
                        first_difference(&one, &other),
                        None,
                        "{} lanes: impulses",
                        $name
                    );
                    let finish: FinishLanes<$word> = $module::finish_lanes;
                    let lanes = (&mut wide.$batches[..], &mut wide.$extras[..]);
                    let refreshed = refresh_all(lanes, &one, &start, finish);
                    assert_eq!(refreshed, contacts.len());
                    let mut fresh = new_wide();
                    let from_stored = |k: usize| ContactLane {
                        contact: &one[k],
                        ..lane(k)
                    };
                    fresh.build(&pairs, &start, from_stored, |_| {}, &Threads::default());
                    let (got, want) = (
                        lane_bits(&wide.$batches, &wide.$extras),
                        lane_bits(&fresh.$batches, &fresh.$extras),
                    );
                    let first = (0..got.len()).find(|&b| got[b] != want[b]);
                    assert_eq!(first, None, "{} lanes: refreshed against prepared", $name);
                }
            };
        }
        wide_case!(avx2_available(), batches8, extras8, avx2, F32x8, "eight");
        wide_case!(
            avx512_available(),
            batches16,
            extras16,
            avx512,
            F32x16,
            "sixteen"
        );
    }

    /// A build at another width frees the batches of the last: a world whose width changes
    /// holds the room of one width, not two.
    #[test]
    fn a_change_of_width_frees_the_other_batches() {
        let ctx = soft_context();
        let (start, list) = problem(3, &ctx);
        let pairs: Vec<(u32, u32)> = list
            .iter()
            .map(|c| (c.index_a as u32, c.index_b as u32))
            .collect();
        let mut wide = WideContacts::default();
        let capacities = |w: &WideContacts| {
            #[cfg(target_arch = "x86_64")]
            let wide = [
                w.batches8.capacity() + w.extras8.capacity(),
                w.batches16.capacity() + w.extras16.capacity(),
            ];
            #[cfg(not(target_arch = "x86_64"))]
            let wide = [0, 0];
            [
                w.batches4.capacity() + w.extras4.capacity(),
                wide[0],
                wide[1],
            ]
        };
        for (four, eight) in [(true, false), (false, true), (false, false), (true, false)] {
            wide.force_four_lanes = four;
            wide.force_eight_lanes = eight;
            wide.build(&pairs, &start, |k| list[k], |_| {}, &Threads::default());
            let held = capacities(&wide);
            assert_eq!(
                held.iter().filter(|&&c| c > 0).count(),
                1,
                "four {four}, eight {eight}: capacities {held:?}"
            );
        }
    }

    /// One kernel: the one-lane, four-lane, (with AVX2) eight-lane and (with AVX-512F)
    /// sixteen-lane paths give bitwise the same bodies and accumulated impulses on random constraints (warm start, solve, relax,
    /// restitution with bouncy and inelastic constraints sharing batches): lanes never
    /// interact, constraints of one colour share no moving body, and a lane's restitution
    /// does not depend on its neighbours.
    #[test]
    fn one_four_eight_and_sixteen_lane_contacts_agree_bitwise() {
        let ctx = soft_context();
        let (mut batched, mut moved) = (0, 0);
        for seed in 1..=24u32 {
            let (start, list) = problem(seed, &ctx);
            let one = run_wide(&list, &start, &ctx, 1);
            assert_eq!(one.1.len(), 2 * list.len());
            for lanes in [4, 8, 16] {
                let other = run_wide(&list, &start, &ctx, lanes);
                assert_eq!(
                    bits(&one.0),
                    bits(&other.0),
                    "seed {seed}: bodies, one vs {lanes} lanes"
                );
                assert_eq!(
                    one.1, other.1,
                    "seed {seed}: impulses, one vs {lanes} lanes"
                );
            }
            moved += one.0.iter().zip(&start).filter(|(a, b)| a.v != b.v).count();
            let mut wide = WideContacts::default();
            let pairs: Vec<(u32, u32)> = list
                .iter()
                .map(|c| (c.index_a as u32, c.index_b as u32))
                .collect();
            wide.build(&pairs, &start, |k| list[k], |_| {}, &Threads::default());
            batched += list.len() - wide.overflow_count();
        }
        assert!(batched > 500, "only {batched} constraints in batches");
        assert!(moved > 500, "only {moved} bodies moved");
    }

    /// The scalar kernel of `contact.rs` (soft mode, accumulated impulses) derives the same
    /// constraint independently: it groups a few sums differently (the separation from
    /// `adjusted_separation`, the relative velocity), so it agrees with the one kernel within
    /// 1e-6 of the largest speed.
    #[test]
    fn scalar_kernel_agrees_with_the_lane_kernel() {
        let ctx = soft_context();
        for seed in 1..=20u32 {
            let (start, list) = problem(seed, &ctx);
            let scalar = run_scalar(&list, &start, &ctx);
            let one = run_wide(&list, &start, &ctx, 1).0;
            // Relative to the problem's speeds: a body in dozens of constraints carries the
            // rounding of each, so a small velocity may differ by more than 1e-6 of itself.
            let scale = start
                .iter()
                .chain(&scalar)
                .map(|b| b.v.x.abs().max(b.v.y.abs()).max(b.w.abs()))
                .fold(0.0f32, f32::max);
            for (k, (s, f)) in scalar.iter().zip(&one).enumerate() {
                for (x, y) in [(s.v.x, f.v.x), (s.v.y, f.v.y), (s.w, f.w)] {
                    assert!(
                        (x - y).abs() <= 1e-6 * scale,
                        "seed {seed}, body {k}: scalar {x} vs one lane {y} (scale {scale})"
                    );
                }
            }
        }
    }
}
