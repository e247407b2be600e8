//! Contact constraints: non-penetration along the normal, Coulomb friction along the
//! tangent, restitution.
//!
//! For a contact point p with arms `r_a = p - c_a`, `r_b = p - c_b` and normal n (A to B):
//!
//! ```text
//! C     = separation (>= 0 wanted)
//! Cdot  = vn = n . (v_b + w_b x r_b - v_a - w_a x r_a)
//! J     = [-n, -(r_a x n), n, (r_b x n)]
//! K     = m_a + m_b + i_a (r_a x n)^2 + i_b (r_b x n)^2      (normal_mass = 1 / K)
//! ```
//! The tangent is `t = n x 1 = (n.y, -n.x)` with the same form of K.
//!
//! Sign convention for the velocity target: every impulse is
//! `lambda = -mass * (Cdot + bias)`, so `bias < 0` pushes the bodies apart and `bias > 0`
//! lets them approach:
//! - speculative point (separation s > 0): `bias = s / h`: the gap may close in one step, no
//!   more (this is what stops fast bodies tunnelling);
//! - classic, penetrating: `bias = (bias_factor / h) * min(0, s + slop)` (Baumgarte);
//! - soft step, penetrating: `bias = max(mass_scale * bias_rate * s, -max_push)` with the
//!   soft mass and impulse scales of `Softness`
//!   (`lambda = -mass * (mass_scale * Cdot + bias) - impulse_scale * accumulated`).
//!
//! Block solver (seed 004; Box2D v2): the two normal constraints of a manifold are solved
//! together as the mixed LCP `vn = K x + b, x >= 0, vn >= 0, x_i vn_i = 0` by total
//! enumeration of the four cases, with the accumulated-impulse substitution `x = a + d`.
//!
//! Restitution (Box2D v3): after the iterations, a point that approached faster than the
//! threshold and carried load is given `vn = -e * vn_before`.

use super::contact_simd::{prefetch_whole, ContactLane, LaneKey, WideContacts};
use super::step::solver_index_of;
use super::{Softness, SolverBody, StepContext};
use crate::physics::body::Body;
use crate::physics::contact::{Contact, ContactUpdate, RecycledChecks, NOT_TOUCHING};
use crate::physics::growth::resize_total;
use crate::physics::handle::Arena;
use crate::physics::inspect::GraphColor;
use crate::physics::math::{cross, cross_sv, Vec2};
use crate::physics::quarantine::ContactTally;
use crate::physics::settings::SolverKind;
use crate::physics::threads::{DisjointMut, Padded, Threads};
use std::sync::atomic::{AtomicBool, Ordering};

/// Largest condition number the 2x2 block accepts before it falls back to one point at a
/// time (Box2D v2's `k_maxConditionNumber`).
const MAX_CONDITION_NUMBER: f32 = 1000.0;

/// The contact family behind one interface: every stage of the step calls it once.
///
/// The soft step with accumulated impulses goes through one kernel generic over the lane
/// count (`WideContacts`, `contact_simd.rs`): the coloured constraints four or eight at a
/// time, what the colouring cannot place (the overflow) one at a time, first. Every
/// constraint of the classic solver, or of the soft step without accumulation, goes through
/// the scalar kernels of this file (block solver, Baumgarte, clamped increments).
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactSolver {
    /// The scalar constraints (classic solver and the other families' kernels in
    /// `contact_kernels.rs`, soft step without accumulation).
    pub(super) scalar: Vec<ContactConstraint>,
    /// The soft step's constraints: coloured SIMD batches and the one-lane overflow.
    pub(crate) wide: WideContacts,
    /// This step's constraints are coloured into `wide`.
    use_wide: bool,
    /// Indices of the contacts with constraints, and their solver body pairs (colouring).
    /// Rewritten in place by each gather (`gather_active`), which tells whether they came
    /// out as the gather before left them.
    active: Vec<u32>,
    active_pairs: Vec<(u32, u32)>,
    /// Scratch of `gather_active`: each part's constraints.
    gathered: Vec<Padded<Gathered>>,
    /// What the last `store_impulses` held (soft step): the quarantine's contact pass for
    /// the `active` contacts, done while they were in cache. Taken by the quarantine.
    tally: Option<ContactTally>,
}

/// Touching contacts per thread below which `ContactSolver::gather_active` stays on one
/// thread.
const MIN_GATHERED_PER_THREAD: usize = 2048;

/// One part's share of `ContactSolver::gather_active`.
#[derive(Clone, Debug, Default)]
struct Gathered {
    active: Vec<u32>,
    pairs: Vec<(u32, u32)>,
}

/// What a gather found as the one before left it (`ContactSolver::gather_active`).
struct Unchanged {
    /// The same contacts, in the same order.
    contacts: bool,
    /// The same solver body pairs, in the same order.
    pairs: bool,
}

/// `ContactSolver::gather_active` on one thread: the lists overwritten from the front,
/// each entry compared with the one it replaces.
struct InPlace<'a> {
    active: &'a mut Vec<u32>,
    pairs: &'a mut Vec<(u32, u32)>,
    /// Entries written so far, and in the lists before.
    len: usize,
    old_len: usize,
    changed_contacts: bool,
    changed_pairs: bool,
}

impl<'a> InPlace<'a> {
    fn new(active: &'a mut Vec<u32>, pairs: &'a mut Vec<(u32, u32)>) -> InPlace<'a> {
        let old_len = active.len();
        InPlace {
            active,
            pairs,
            len: 0,
            old_len,
            changed_contacts: false,
            changed_pairs: false,
        }
    }

    #[inline]
    fn put(&mut self, contact: u32, pair: (u32, u32)) {
        match (self.active.get_mut(self.len), self.pairs.get_mut(self.len)) {
            (Some(a), Some(p)) => {
                self.changed_contacts |= *a != contact;
                self.changed_pairs |= *p != pair;
                *a = contact;
                *p = pair;
            }
            _ => {
                self.active.push(contact);
                self.pairs.push(pair);
            }
        }
        self.len += 1;
    }

    fn finish(self) -> Unchanged {
        let same_len = self.len == self.old_len;
        self.active.truncate(self.len);
        self.pairs.truncate(self.len);
        Unchanged {
            contacts: same_len && !self.changed_contacts,
            pairs: same_len && !self.changed_pairs,
        }
    }
}

impl ContactSolver {
    /// Prepare: one constraint per touching contact with an awake body.
    pub(crate) fn prepare(
        &mut self,
        (contacts, touching): (&[Contact], Option<&[ContactUpdate]>),
        (recycled, generation): (RecycledChecks, u64),
        bodies: &Arena<Body>,
        (solver_bodies, solver_index): (&[SolverBody], &[u32]),
        ctx: &StepContext,
        threads: &Threads,
    ) {
        self.tally = None;
        self.use_wide =
            ctx.settings.solver == SolverKind::SoftStep && ctx.settings.accumulate_impulses;
        if self.use_wide {
            self.prepare_wide(
                (contacts, touching),
                (recycled, generation),
                bodies,
                (solver_bodies, solver_index),
                ctx,
                threads,
            );
        } else {
            // The lanes no longer hold what the contacts hold.
            self.wide.forget_lanes();
            self.prepare_scalar(contacts, bodies, (solver_bodies, solver_index), ctx);
        }
    }

    /// Colour the contacts and prepare them into SIMD batches and the one-lane overflow.
    fn prepare_wide(
        &mut self,
        (contacts, touching): (&[Contact], Option<&[ContactUpdate]>),
        (recycled, generation): (RecycledChecks, u64),
        bodies: &Arena<Body>,
        (solver_bodies, solver_index): (&[SolverBody], &[u32]),
        ctx: &StepContext,
        threads: &Threads,
    ) {
        self.scalar.clear();
        let same = self.gather_active((contacts, touching), solver_index, threads);
        let (active, active_pairs) = (&self.active, &self.active_pairs);
        // The lanes may be refreshed (`WideContacts::build_lanes`) when the narrow phase's
        // list is in step and the same contacts, by the same indices, have constraints as
        // in the step before; what else must hold is the build's to check.
        let lanes = touching
            .filter(|_| same.contacts)
            .map(|_| (LaneKey::new(generation, ctx), recycled));
        // A contact and its solver bodies, read when its lane is written (in colour order);
        // the arms come from the manifold cache (the bodies are read only for a manifold
        // without one).
        let prepare = |k: usize| {
            let ci = active[k] as usize;
            let (index_a, index_b) = active_pairs[k];
            let c = &contacts[ci];
            let mut arms = [(Vec2::ZERO, Vec2::ZERO); 2];
            for (p, arm) in arms.iter_mut().enumerate().take(c.manifold.count) {
                *arm = c.anchors_with(p, || {
                    let center = |h: crate::physics::BodyHandle| bodies.at(h.index()).center;
                    (center(c.body_a), center(c.body_b))
                });
            }
            ContactLane {
                contact: c,
                contact_index: ci as u32,
                index_a,
                index_b,
                arms,
                ctx,
            }
        };
        // The contact and both solver bodies of constraint `k`, asked for before `prepare(k)`.
        // Each exactly: the contact's first two lines (`Contact`'s layout: the manifold,
        // which ends in the second, beside the coefficients and the cache's anchors) and
        // each body's one or two.
        let prefetch = |k: usize| {
            let (a, b) = active_pairs[k];
            prefetch_whole(&contacts[active[k] as usize].manifold);
            prefetch_whole(&solver_bodies[a as usize]);
            prefetch_whole(&solver_bodies[b as usize]);
        };
        self.wide.build_lanes(
            (active_pairs, Some(same.pairs)),
            solver_bodies,
            (prepare, prefetch),
            lanes,
            threads,
        );
    }

    /// The touching contacts with an awake body (from the compact solver index map: an
    /// awake body has its solver index, any other 0), in contact order, into `active`, and
    /// their solver body pairs into `active_pairs`: from the narrow phase's compact list of
    /// touching contacts when it is in step (`touching`), else from the contacts. The lists
    /// are overwritten in place, compared as they are written: whether they came out as
    /// the last gather left them is returned. A large list is read across the threads,
    /// each part of it into a list of its own, which the same parts then copy into place.
    fn gather_active(
        &mut self,
        (contacts, touching): (&[Contact], Option<&[ContactUpdate]>),
        solver_index: &[u32],
        threads: &Threads,
    ) -> Unchanged {
        let pair_of = |[slot_a, slot_b]: [u32; 2]| {
            let pair = (solver_index[slot_a as usize], solver_index[slot_b as usize]);
            (pair != (0, 0)).then_some(pair)
        };
        let worth_it = touching.is_some_and(|t| {
            t.len() >= MIN_GATHERED_PER_THREAD * threads.count() && threads.count() > 1
        });
        let Some(touching) = touching.filter(|_| worth_it) else {
            // On one thread: straight into place.
            let mut into = InPlace::new(&mut self.active, &mut self.active_pairs);
            match touching {
                Some(touching) => {
                    for (ci, u) in touching.iter().enumerate() {
                        if u.slots != NOT_TOUCHING {
                            if let Some(pair) = pair_of(u.slots) {
                                into.put(ci as u32, pair);
                            }
                        }
                    }
                }
                None => {
                    for (ci, c) in contacts.iter().enumerate() {
                        if c.manifold.count > 0 {
                            let slots = [c.body_a.index() as u32, c.body_b.index() as u32];
                            if let Some(pair) = pair_of(slots) {
                                into.put(ci as u32, pair);
                            }
                        }
                    }
                }
            }
            return into.finish();
        };
        let mut gathered = std::mem::take(&mut self.gathered);
        let parts = threads.runs_into(touching.len(), true, &mut gathered, |run, into| {
            into.active.clear();
            into.pairs.clear();
            for ci in run {
                let slots = touching[ci].slots;
                if slots != NOT_TOUCHING {
                    if let Some(pair) = pair_of(slots) {
                        into.active.push(ci as u32);
                        into.pairs.push(pair);
                    }
                }
            }
        });
        // Each part's place in the lists; then each part copied in, by the same parts.
        let mut starts = Vec::with_capacity(parts + 1);
        starts.push(0);
        for part in &gathered[..parts] {
            starts.push(starts[starts.len() - 1] + part.active.len());
        }
        let total = starts[parts];
        let same_len = total == self.active.len();
        resize_total(&mut self.active, total, 0);
        resize_total(&mut self.active_pairs, total, (0, 0));
        let (active, pairs) = (
            DisjointMut::new(&mut self.active),
            DisjointMut::new(&mut self.active_pairs),
        );
        let changed_contacts = AtomicBool::new(!same_len);
        let changed_pairs = AtomicBool::new(!same_len);
        threads.split_fine(true, |k, _| {
            let part = &gathered[k];
            let range = starts[k]..starts[k + 1];
            // SAFETY: the parts' ranges are disjoint, and each is copied by one part.
            let (active, pairs) = unsafe { (active.slice(range.clone()), pairs.slice(range)) };
            if same_len {
                if *active != part.active[..] {
                    changed_contacts.store(true, Ordering::Relaxed);
                }
                if *pairs != part.pairs[..] {
                    changed_pairs.store(true, Ordering::Relaxed);
                }
            }
            active.copy_from_slice(&part.active);
            pairs.copy_from_slice(&part.pairs);
        });
        self.gathered = gathered;
        Unchanged {
            contacts: !changed_contacts.into_inner(),
            pairs: !changed_pairs.into_inner(),
        }
    }

    /// One scalar constraint per touching contact, in contact order.
    fn prepare_scalar(
        &mut self,
        contacts: &[Contact],
        bodies: &Arena<Body>,
        (solver_bodies, solver_index): (&[SolverBody], &[u32]),
        ctx: &StepContext,
    ) {
        self.scalar.clear();
        for (ci, c) in contacts.iter().enumerate() {
            if c.manifold.count == 0 {
                continue;
            }
            let body_a = bodies.at(c.body_a.index());
            let body_b = bodies.at(c.body_b.index());
            if !body_a.awake && !body_b.awake {
                continue;
            }
            let index_a = solver_index_of(solver_index, body_a, c.body_a.index());
            let index_b = solver_index_of(solver_index, body_b, c.body_b.index());
            let (sa, sb) = (solver_bodies[index_a], solver_bodies[index_b]);
            let velocities = (sa.v, sa.w, sb.v, sb.w);
            self.scalar.push(ContactConstraint::prepare(
                c, ci, body_a, body_b, index_a, index_b, velocities, ctx,
            ));
        }
    }

    /// Warm start: apply last step's impulses (only while impulses are accumulated).
    pub(crate) fn warm_start(
        &self,
        bodies: &mut [SolverBody],
        ctx: &StepContext,
        threads: &Threads,
    ) {
        if !(ctx.warm_starting() && ctx.settings.accumulate_impulses) {
            return;
        }
        if self.use_wide {
            self.wide.warm_start(bodies, threads);
        } else {
            warm_start_contacts(&self.scalar, bodies);
        }
    }

    /// One iteration over every constraint, with the velocity target of `mode`.
    pub(crate) fn solve(
        &mut self,
        bodies: &mut [SolverBody],
        ctx: &StepContext,
        mode: BiasMode,
        threads: &Threads,
    ) {
        if self.use_wide {
            self.wide
                .solve(bodies, ctx, mode == BiasMode::Soft, threads);
        } else {
            solve_contacts(&mut self.scalar, bodies, ctx, mode);
        }
    }

    /// Restitution, after the last iteration.
    pub(crate) fn restitution(
        &mut self,
        bodies: &mut [SolverBody],
        ctx: &StepContext,
        threads: &Threads,
    ) {
        if self.use_wide {
            self.wide.apply_restitution(bodies, ctx, threads);
        } else {
            apply_restitution(&mut self.scalar, bodies, ctx);
        }
    }

    /// The graph colour of each of `count` contacts (the world's contact order) in the last
    /// prepare: `None` when this step did not colour (every contact solved in order).
    pub(crate) fn graph_colors(&self, count: usize) -> Vec<Option<GraphColor>> {
        let mut out = vec![None; count];
        if !self.use_wide {
            return out;
        }
        let graph = self.wide.graph();
        let lists = graph
            .colors
            .iter()
            .enumerate()
            .map(|(c, list)| (GraphColor::Color(c as u8), list))
            .chain(std::iter::once((GraphColor::Overflow, &graph.overflow)));
        for (color, list) in lists {
            for &k in list {
                let contact = self.active.get(k as usize).map(|&ci| ci as usize);
                if let Some(slot) = contact.and_then(|ci| out.get_mut(ci)) {
                    *slot = Some(color);
                }
            }
        }
        out
    }

    /// Accumulated impulses back to the contacts for the next warm start. `moved`: the
    /// manifolds' points and separations were moved since the prepare (a halted step).
    pub(crate) fn store_impulses(
        &mut self,
        contacts: &mut [Contact],
        threads: &Threads,
        moved: bool,
    ) {
        if self.use_wide {
            self.tally = Some(self.wide.store_impulses(contacts, threads, moved));
        } else {
            store_impulses(&self.scalar, contacts);
        }
    }

    /// The tally of the last `store_impulses` that held its contacts, once.
    pub(crate) fn take_tally(&mut self) -> Option<ContactTally> {
        self.tally.take()
    }

    /// The contacts (indices, ascending) the last prepare made constraints for: the ones
    /// `store_impulses` writes.
    pub(crate) fn stored_contacts(&self) -> &[u32] {
        &self.active
    }
}

/// One point of a contact constraint.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContactConstraintPoint {
    /// Arms from the centres of mass to the contact point, fixed for the step.
    pub r_a: Vec2,
    pub r_b: Vec2,
    /// Separation at prepare time, metres. With the bodies' displacements `dp` and rotations
    /// `dq` since then, the current separation is
    /// `separation + n . ((dp_b + dq_b r_b - r_b) - (dp_a + dq_a r_a - r_a))`.
    pub separation: f32,
    pub normal_mass: f32,
    pub tangent_mass: f32,
    /// Classic velocity target (see the module docs).
    pub bias: f32,
    pub normal_impulse: f32,
    pub tangent_impulse: f32,
    pub max_normal_impulse: f32,
    /// Normal velocity before the iterations, for restitution.
    pub relative_velocity: f32,
    /// Last normal increment (friction bound when impulses are not accumulated).
    pub last_normal_increment: f32,
}

/// The constraint of one manifold, laid out for the solver.
#[derive(Clone, Copy, Debug)]
pub struct ContactConstraint {
    pub index_a: usize,
    pub index_b: usize,
    /// Index of the contact in the world's contact array (to store impulses back).
    pub contact: usize,
    pub normal: Vec2,
    pub friction: f32,
    pub restitution: f32,
    pub softness: Softness,
    pub points: [ContactConstraintPoint; 2],
    pub count: usize,
    /// 2x2 normal K (k11, k12, k22) and its inverse, for the block solver.
    pub k: [f32; 3],
    pub normal_mass_block: [f32; 3],
    /// True when the block solver may be used for this manifold.
    pub use_block: bool,
}

impl ContactConstraint {
    /// Build the constraint of `contact` between bodies A and B (solver indices given).
    /// `v_a`..`w_b` are the bodies' current velocities (for restitution).
    #[allow(clippy::too_many_arguments)]
    pub fn prepare(
        contact: &Contact,
        contact_index: usize,
        body_a: &Body,
        body_b: &Body,
        index_a: usize,
        index_b: usize,
        velocities: (Vec2, f32, Vec2, f32),
        ctx: &StepContext,
    ) -> ContactConstraint {
        let m_a = if index_a == 0 { 0.0 } else { body_a.inv_mass };
        let i_a = if index_a == 0 {
            0.0
        } else {
            body_a.inv_inertia
        };
        let m_b = if index_b == 0 { 0.0 } else { body_b.inv_mass };
        let i_b = if index_b == 0 {
            0.0
        } else {
            body_b.inv_inertia
        };
        let anchors = |k| contact.anchors(k, body_a.center, body_b.center);
        Self::prepare_with(
            contact,
            contact_index,
            (index_a, index_b),
            [m_a, i_a, m_b, i_b],
            anchors,
            velocities,
            ctx,
        )
    }

    /// `prepare` from the bodies' solver indices, inverse masses and inertias
    /// `[m_a, i_a, m_b, i_b]` (zero for index 0) and the arms of point `k`, `anchors(k)`.
    /// The soft step's lanes (`ContactBatch::set_lane_inputs`, then `finish_lanes`) compute
    /// the same floats in the same order, without this scalar constraint.
    fn prepare_with(
        contact: &Contact,
        contact_index: usize,
        (index_a, index_b): (usize, usize),
        [m_a, i_a, m_b, i_b]: [f32; 4],
        anchors: impl Fn(usize) -> (Vec2, Vec2),
        velocities: (Vec2, f32, Vec2, f32),
        ctx: &StepContext,
    ) -> ContactConstraint {
        let (v_a, w_a, v_b, w_b) = velocities;
        let manifold = &contact.manifold;
        let normal = manifold.normal;
        let tangent = Vec2::new(normal.y, -normal.x);
        let baumgarte = ctx.baumgarte();
        let slop = ctx.settings.allowed_penetration;
        // Warm starting reuses accumulated impulses; with increments clamped one at a time
        // there is no meaningful accumulated impulse to reuse (Box2D-Lite warm starts only
        // when it accumulates). Regression: applying the sum of clamped increments fed back
        // a growing impulse every step and blew stacks apart at 400 m/s.
        let warm = ctx.warm_starting() && ctx.settings.accumulate_impulses;
        let softness = if index_a == 0 || index_b == 0 {
            ctx.static_softness
        } else {
            ctx.contact_softness
        };

        let mut points = [ContactConstraintPoint::default(); 2];
        for (k, (cp, mp)) in points.iter_mut().zip(manifold.points()).enumerate() {
            let (r_a, r_b) = anchors(k);
            let rn_a = cross(r_a, normal);
            let rn_b = cross(r_b, normal);
            let k_normal = m_a + m_b + i_a * rn_a * rn_a + i_b * rn_b * rn_b;
            let rt_a = cross(r_a, tangent);
            let rt_b = cross(r_b, tangent);
            let k_tangent = m_a + m_b + i_a * rt_a * rt_a + i_b * rt_b * rt_b;
            let s = mp.separation;
            let bias = if s > 0.0 {
                s * ctx.inv_dt
            } else {
                baumgarte * (s + slop).min(0.0)
            };
            let dv = v_b + cross_sv(w_b, r_b) - v_a - cross_sv(w_a, r_a);
            *cp = ContactConstraintPoint {
                r_a,
                r_b,
                separation: s,
                normal_mass: if k_normal > 0.0 { 1.0 / k_normal } else { 0.0 },
                tangent_mass: if k_tangent > 0.0 {
                    1.0 / k_tangent
                } else {
                    0.0
                },
                bias,
                normal_impulse: if warm { mp.normal_impulse } else { 0.0 },
                tangent_impulse: if warm { mp.tangent_impulse } else { 0.0 },
                max_normal_impulse: 0.0,
                relative_velocity: normal.dot(dv),
                last_normal_increment: 0.0,
            };
        }

        // Block solver set-up: K = [k11 k12; k12 k22], accepted when well conditioned.
        let mut k = [0.0; 3];
        let mut normal_mass_block = [0.0; 3];
        let mut use_block = false;
        // Only the classic solver and PGS-NGS-Block read it (the others solve points one at
        // a time).
        if manifold.count == 2
            && ctx.settings.block_solver
            && ctx.settings.accumulate_impulses
            && matches!(
                ctx.settings.solver,
                SolverKind::Classic | SolverKind::PgsNgsBlock
            )
        {
            let (p1, p2) = (&points[0], &points[1]);
            let rn1_a = cross(p1.r_a, normal);
            let rn1_b = cross(p1.r_b, normal);
            let rn2_a = cross(p2.r_a, normal);
            let rn2_b = cross(p2.r_b, normal);
            let k11 = m_a + m_b + i_a * rn1_a * rn1_a + i_b * rn1_b * rn1_b;
            let k22 = m_a + m_b + i_a * rn2_a * rn2_a + i_b * rn2_b * rn2_b;
            let k12 = m_a + m_b + i_a * rn1_a * rn2_a + i_b * rn1_b * rn2_b;
            let det = k11 * k22 - k12 * k12;
            if k11 * k11 < MAX_CONDITION_NUMBER * det && det > 0.0 {
                let inv_det = 1.0 / det;
                k = [k11, k12, k22];
                normal_mass_block = [k22 * inv_det, -k12 * inv_det, k11 * inv_det];
                use_block = true;
            }
        }

        ContactConstraint {
            index_a,
            index_b,
            contact: contact_index,
            normal,
            friction: contact.friction,
            restitution: contact.restitution,
            softness,
            points,
            count: manifold.count,
            k,
            normal_mass_block,
            use_block,
        }
    }
}

/// Read the two solver bodies of a constraint.
#[inline]
pub(super) fn load(bodies: &[SolverBody], a: usize, b: usize) -> (SolverBody, SolverBody) {
    (bodies[a], bodies[b])
}

/// Write back velocities (index 0, the shared static body, is never written).
#[inline]
pub(super) fn store(
    bodies: &mut [SolverBody],
    a: usize,
    b: usize,
    body_a: &SolverBody,
    body_b: &SolverBody,
) {
    if a != 0 {
        bodies[a].v = body_a.v;
        bodies[a].w = body_a.w;
    }
    if b != 0 {
        bodies[b].v = body_b.v;
        bodies[b].w = body_b.w;
    }
}

/// Apply an impulse `p` at arms `r_a`, `r_b` (negative on A, positive on B).
#[inline]
pub(super) fn apply(
    body_a: &mut SolverBody,
    body_b: &mut SolverBody,
    r_a: Vec2,
    r_b: Vec2,
    p: Vec2,
) {
    body_a.v -= body_a.inv_mass * p;
    body_a.w -= body_a.inv_inertia * cross(r_a, p);
    body_b.v += body_b.inv_mass * p;
    body_b.w += body_b.inv_inertia * cross(r_b, p);
}

#[inline]
pub(super) fn relative_velocity(
    body_a: &SolverBody,
    body_b: &SolverBody,
    r_a: Vec2,
    r_b: Vec2,
) -> Vec2 {
    body_b.v + cross_sv(body_b.w, r_b) - body_a.v - cross_sv(body_a.w, r_a)
}

/// Apply last step's impulses (already zeroed in prepare when warm starting is off).
pub fn warm_start_contacts(constraints: &[ContactConstraint], bodies: &mut [SolverBody]) {
    for c in constraints {
        warm_start_contact(c, bodies);
    }
}

/// Warm start one constraint.
pub fn warm_start_contact(c: &ContactConstraint, bodies: &mut [SolverBody]) {
    let (mut body_a, mut body_b) = load(bodies, c.index_a, c.index_b);
    let tangent = Vec2::new(c.normal.y, -c.normal.x);
    for cp in &c.points[..c.count] {
        let p = cp.normal_impulse * c.normal + cp.tangent_impulse * tangent;
        apply(&mut body_a, &mut body_b, cp.r_a, cp.r_b, p);
    }
    store(bodies, c.index_a, c.index_b, &body_a, &body_b);
}

/// How the iterations compute their velocity target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BiasMode {
    /// Classic: the bias computed in prepare (speculative + Baumgarte).
    Classic,
    /// Soft step, solve pass: separation from the current displacement, soft push-out.
    Soft,
    /// Soft step, relax pass: speculative only, rigid, no push-out.
    Relax,
    /// The NGS families' velocity pass: rigid, the speculative target of prepare's
    /// separation only (overlap is left to the position pass).
    Speculative,
}

/// One iteration over every contact constraint.
pub fn solve_contacts(
    constraints: &mut [ContactConstraint],
    bodies: &mut [SolverBody],
    ctx: &StepContext,
    mode: BiasMode,
) {
    for c in constraints.iter_mut() {
        solve_contact(c, bodies, ctx, mode);
    }
}

/// One iteration of one contact constraint.
pub fn solve_contact(
    c: &mut ContactConstraint,
    bodies: &mut [SolverBody],
    ctx: &StepContext,
    mode: BiasMode,
) {
    let (mut body_a, mut body_b) = load(bodies, c.index_a, c.index_b);
    solve_contact_pair(c, &mut body_a, &mut body_b, ctx, mode);
    store(bodies, c.index_a, c.index_b, &body_a, &body_b);
}

/// One iteration of one contact constraint on copies of its two bodies (the Jacobi solver
/// gives it the velocities of the iteration's start).
pub fn solve_contact_pair(
    c: &mut ContactConstraint,
    pair_a: &mut SolverBody,
    pair_b: &mut SolverBody,
    ctx: &StepContext,
    mode: BiasMode,
) {
    let accumulate = ctx.settings.accumulate_impulses;
    let max_push = ctx.settings.contact_push_max_velocity;
    {
        let (mut body_a, mut body_b) = (*pair_a, *pair_b);
        let normal = c.normal;
        let tangent = Vec2::new(normal.y, -normal.x);
        let count = c.count;

        // 1. Velocity targets for this iteration (and the soft scales).
        let mut bias = [0.0f32; 2];
        let mut mass_scale = [1.0f32; 2];
        let mut impulse_scale = [0.0f32; 2];
        for i in 0..count {
            let cp = &c.points[i];
            bias[i] = match mode {
                BiasMode::Classic => cp.bias,
                BiasMode::Speculative if cp.separation > 0.0 => cp.separation * ctx.inv_dt,
                BiasMode::Speculative => 0.0,
                BiasMode::Soft | BiasMode::Relax => {
                    let d = (body_b.dp - body_a.dp) + (body_b.dq.rotate(cp.r_b) - cp.r_b)
                        - (body_a.dq.rotate(cp.r_a) - cp.r_a);
                    let s = normal.dot(d) + cp.separation;
                    if s > 0.0 {
                        s * ctx.inv_dt
                    } else if mode == BiasMode::Soft {
                        // Box2D v3's `contactSpeed`: the cap applies after the mass scale.
                        mass_scale[i] = c.softness.mass_scale;
                        impulse_scale[i] = c.softness.impulse_scale;
                        (c.softness.mass_scale * c.softness.bias_rate * s).max(-max_push)
                    } else {
                        0.0
                    }
                }
            };
        }

        // 2. Friction first: non-penetration matters more, so it has the last word.
        for cp in &mut c.points[..count] {
            let dv = relative_velocity(&body_a, &body_b, cp.r_a, cp.r_b);
            let vt = dv.dot(tangent);
            let mut lambda = -cp.tangent_mass * vt;
            if accumulate {
                let max_friction = c.friction * cp.normal_impulse;
                let new_impulse = (cp.tangent_impulse + lambda).clamp(-max_friction, max_friction);
                lambda = new_impulse - cp.tangent_impulse;
                cp.tangent_impulse = new_impulse;
            } else {
                let max_friction = c.friction * cp.last_normal_increment;
                lambda = lambda.clamp(-max_friction, max_friction);
                cp.tangent_impulse += lambda;
            }
            apply(&mut body_a, &mut body_b, cp.r_a, cp.r_b, lambda * tangent);
        }

        // 3. Normal: the 2x2 block when it applies, else one point at a time.
        if c.use_block && matches!(mode, BiasMode::Classic | BiasMode::Speculative) {
            solve_block(c, &mut body_a, &mut body_b, bias);
        } else {
            for i in 0..count {
                let cp = &mut c.points[i];
                let dv = relative_velocity(&body_a, &body_b, cp.r_a, cp.r_b);
                let vn = dv.dot(normal);
                let mut lambda = -cp.normal_mass * (mass_scale[i] * vn + bias[i])
                    - impulse_scale[i] * cp.normal_impulse;
                if accumulate {
                    let new_impulse = (cp.normal_impulse + lambda).max(0.0);
                    lambda = new_impulse - cp.normal_impulse;
                    cp.normal_impulse = new_impulse;
                } else {
                    lambda = lambda.max(0.0);
                    cp.normal_impulse += lambda;
                }
                cp.last_normal_increment = lambda;
                cp.max_normal_impulse = cp.max_normal_impulse.max(lambda);
                apply(&mut body_a, &mut body_b, cp.r_a, cp.r_b, lambda * normal);
            }
        }
        *pair_a = body_a;
        *pair_b = body_b;
    }
}

/// The 2x2 mixed LCP of a two-point manifold (seed 004), by total enumeration.
///
/// ```text
/// vn = K x + b',  b' = vn_now - K a + bias     (a: accumulated impulses, x: new ones)
/// case 1: both active:   x = -K^-1 b'                     accept if x >= 0
/// case 2: only 1 active: x1 = -b'1 / k11, x2 = 0, vn2 = k12 x1 + b'2   accept if x1 >= 0, vn2 >= 0
/// case 3: only 2 active: x2 = -b'2 / k22, x1 = 0, vn1 = k12 x2 + b'1   accept if x2 >= 0, vn1 >= 0
/// case 4: none active:   x = 0, vn = b'                    accept if vn >= 0
/// ```
/// If no case holds (round-off), the impulses are left as they were.
fn solve_block(
    c: &mut ContactConstraint,
    body_a: &mut SolverBody,
    body_b: &mut SolverBody,
    bias: [f32; 2],
) {
    let normal = c.normal;
    let [k11, k12, k22] = c.k;
    let [m11, m12, m22] = c.normal_mass_block;
    let (p1, p2) = (c.points[0], c.points[1]);
    let a = Vec2::new(p1.normal_impulse, p2.normal_impulse);
    let dv1 = relative_velocity(body_a, body_b, p1.r_a, p1.r_b);
    let dv2 = relative_velocity(body_a, body_b, p2.r_a, p2.r_b);
    let vn = Vec2::new(dv1.dot(normal), dv2.dot(normal));
    let ka = Vec2::new(k11 * a.x + k12 * a.y, k12 * a.x + k22 * a.y);
    let b = vn + Vec2::new(bias[0], bias[1]) - ka;

    let x = {
        let x1 = -(m11 * b.x + m12 * b.y);
        let x2 = -(m12 * b.x + m22 * b.y);
        if x1 >= 0.0 && x2 >= 0.0 {
            Some(Vec2::new(x1, x2))
        } else {
            let x1 = -p1.normal_mass * b.x;
            let vn2 = k12 * x1 + b.y;
            if x1 >= 0.0 && vn2 >= 0.0 {
                Some(Vec2::new(x1, 0.0))
            } else {
                let x2 = -p2.normal_mass * b.y;
                let vn1 = k12 * x2 + b.x;
                if x2 >= 0.0 && vn1 >= 0.0 {
                    Some(Vec2::new(0.0, x2))
                } else if b.x >= 0.0 && b.y >= 0.0 {
                    Some(Vec2::ZERO)
                } else {
                    None
                }
            }
        }
    };
    if let Some(x) = x {
        let d = x - a;
        apply(body_a, body_b, p1.r_a, p1.r_b, d.x * normal);
        apply(body_a, body_b, p2.r_a, p2.r_b, d.y * normal);
        c.points[0].normal_impulse = x.x;
        c.points[1].normal_impulse = x.y;
        c.points[0].last_normal_increment = d.x;
        c.points[1].last_normal_increment = d.y;
        c.points[0].max_normal_impulse = c.points[0].max_normal_impulse.max(x.x);
        c.points[1].max_normal_impulse = c.points[1].max_normal_impulse.max(x.y);
    }
}

/// Restitution pass: points that approached faster than the threshold and carried load
/// leave at `e` times their approach speed.
pub fn apply_restitution(
    constraints: &mut [ContactConstraint],
    bodies: &mut [SolverBody],
    ctx: &StepContext,
) {
    for c in constraints.iter_mut() {
        restitution_contact(c, bodies, ctx);
    }
}

/// Restitution of one constraint.
pub fn restitution_contact(
    c: &mut ContactConstraint,
    bodies: &mut [SolverBody],
    ctx: &StepContext,
) {
    let threshold = ctx.settings.restitution_threshold;
    if c.restitution != 0.0 {
        let (mut body_a, mut body_b) = load(bodies, c.index_a, c.index_b);
        let normal = c.normal;
        for cp in &mut c.points[..c.count] {
            if cp.relative_velocity > -threshold || cp.max_normal_impulse == 0.0 {
                continue;
            }
            let vn = relative_velocity(&body_a, &body_b, cp.r_a, cp.r_b).dot(normal);
            let lambda = -cp.normal_mass * (vn + c.restitution * cp.relative_velocity);
            let new_impulse = (cp.normal_impulse + lambda).max(0.0);
            let lambda = new_impulse - cp.normal_impulse;
            cp.normal_impulse = new_impulse;
            cp.max_normal_impulse = cp.max_normal_impulse.max(lambda);
            apply(&mut body_a, &mut body_b, cp.r_a, cp.r_b, lambda * normal);
        }
        store(bodies, c.index_a, c.index_b, &body_a, &body_b);
    }
}

/// Copy the accumulated impulses back to the contacts for next step's warm start.
pub fn store_impulses(constraints: &[ContactConstraint], contacts: &mut [Contact]) {
    for c in constraints {
        let manifold = &mut contacts[c.contact].manifold;
        for (mp, cp) in manifold.points_mut().iter_mut().zip(&c.points[..c.count]) {
            mp.normal_impulse = cp.normal_impulse;
            mp.tangent_impulse = cp.tangent_impulse;
            mp.max_normal_impulse = cp.max_normal_impulse;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-point constraint between `body_a` and `body_b` with the given arms, normal,
    /// accumulated impulses `a` and velocity targets `bias`. K is built here from its
    /// definition, `K = J M^-1 J^T` with rows `J_i = [-n, -(r_a,i x n), n, r_b,i x n]`,
    /// independently of `prepare`.
    fn block_constraint(
        body_a: &SolverBody,
        body_b: &SolverBody,
        arms: [(Vec2, Vec2); 2],
        normal: Vec2,
        a: [f32; 2],
        bias: [f32; 2],
    ) -> ContactConstraint {
        let row = |(r_a, r_b): (Vec2, Vec2)| (cross(r_a, normal), cross(r_b, normal));
        let (rn1_a, rn1_b) = row(arms[0]);
        let (rn2_a, rn2_b) = row(arms[1]);
        let linear = body_a.inv_mass + body_b.inv_mass;
        let k11 = linear + body_a.inv_inertia * rn1_a * rn1_a + body_b.inv_inertia * rn1_b * rn1_b;
        let k22 = linear + body_a.inv_inertia * rn2_a * rn2_a + body_b.inv_inertia * rn2_b * rn2_b;
        let k12 = linear + body_a.inv_inertia * rn1_a * rn2_a + body_b.inv_inertia * rn1_b * rn2_b;
        let det = k11 * k22 - k12 * k12;
        assert!(det > 0.0);
        let mut points = [ContactConstraintPoint::default(); 2];
        for (i, cp) in points.iter_mut().enumerate() {
            cp.r_a = arms[i].0;
            cp.r_b = arms[i].1;
            cp.normal_mass = 1.0 / [k11, k22][i];
            cp.bias = bias[i];
            cp.normal_impulse = a[i];
        }
        ContactConstraint {
            index_a: 1,
            index_b: 2,
            contact: 0,
            normal,
            friction: 0.0,
            restitution: 0.0,
            softness: Softness::RIGID,
            points,
            count: 2,
            k: [k11, k12, k22],
            normal_mass_block: [k22 / det, -k12 / det, k11 / det],
            use_block: true,
        }
    }

    /// The same 2x2 LCP solved the slow way: point after point, clamping the accumulated
    /// impulse, until nothing changes.
    fn converged_point_iteration(
        c: &mut ContactConstraint,
        body_a: &mut SolverBody,
        body_b: &mut SolverBody,
    ) {
        for _ in 0..5000 {
            for cp in &mut c.points {
                let vn = relative_velocity(body_a, body_b, cp.r_a, cp.r_b).dot(c.normal);
                let new_impulse = (cp.normal_impulse - cp.normal_mass * (vn + cp.bias)).max(0.0);
                let lambda = new_impulse - cp.normal_impulse;
                cp.normal_impulse = new_impulse;
                apply(body_a, body_b, cp.r_a, cp.r_b, lambda * c.normal);
            }
        }
    }

    /// Regression guard for the block solver's algebra (seed 004): one block solve must land
    /// on the solution of the manifold's mixed LCP, the point that point-by-point iteration
    /// converges to, with the accumulated impulses, Baumgarte and speculative targets and
    /// all four cases. (The base-40 pyramid bounces longer with the block solver than
    /// without: that is what the exact 2x2 solution does there, see `block_solver` in
    /// `settings.rs`, and this test is what rules out a wrong solution.)
    #[test]
    fn block_solve_lands_on_the_converged_two_point_solution() {
        let unit_box = |v: Vec2, w: f32| SolverBody {
            v,
            w,
            inv_mass: 1.0,
            inv_inertia: 6.0, // 1 m box of 1 kg: I = m (w^2 + h^2) / 12 = 1/6
            ..SolverBody::STATIC
        };
        let up = Vec2::new(0.0, 1.0);
        let v = Vec2::new;
        // Pyramid support: points under the upper box's corner and centre (k12 > 0).
        let pyramid = [(v(0.0, 0.5), v(-0.5, -0.5)), (v(0.5, 0.5), v(0.0, -0.5))];
        // Aligned stack: points under both corners (k12 < 0).
        let stack = [(v(-0.5, 0.5), v(-0.5, -0.5)), (v(0.5, 0.5), v(0.5, -0.5))];
        // Body A at rest (or rising), body B coming down (or up), turning at w_b.
        type Case = (
            [(Vec2, Vec2); 2],
            Vec2,
            Vec2,
            f32,
            [f32; 2],
            [f32; 2],
            &'static str,
        );
        #[rustfmt::skip]
        let cases: [Case; 8] = [
            // arms   v_a          v_b           w_b   accumulated   bias            case
            (pyramid, v(0.0, 0.0), v(0.0, -0.4), 0.0,  [0.0, 0.0],   [0.0, 0.0],     "both"),
            (pyramid, v(0.0, 0.0), v(0.0, -0.4), 0.3,  [0.05, 0.02], [-0.06, 0.0],   "both"),
            (stack,   v(0.0, 0.1), v(0.0, -0.3), 0.0,  [0.1, 0.1],   [-0.06, -0.06], "both"),
            (stack,   v(0.0, 0.0), v(0.0, -0.1), 2.0,  [0.0, 0.0],   [0.0, 0.0],     "first"),
            (stack,   v(0.0, 0.0), v(0.0, -0.1), -2.0, [0.02, 0.0],  [0.0, 0.0],     "second"),
            // Warm-started impulses too large: all of them are taken back.
            (pyramid, v(0.0, 0.0), v(0.0, 2.0),  0.0,  [0.1, 0.3],   [0.0, 0.0],     "none"),
            // Second point speculative: its 2 cm gap may close at 1.2 m/s this step...
            (stack,   v(0.0, 0.0), v(0.0, -0.3), 0.0,  [0.0, 0.0],   [-0.03, 1.2],   "first"),
            // ... at 0.6 m/s, the first point's push tips the box onto the second.
            (stack,   v(0.0, 0.0), v(0.0, -0.5), 0.0,  [0.0, 0.0],   [-0.03, 0.6],   "both"),
        ];
        for (k, &(arms, v_a, v_b, w_b, a, bias, expected)) in cases.iter().enumerate() {
            let (mut block_a, mut block_b) = (unit_box(v_a, 0.0), unit_box(v_b, w_b));
            let mut c = block_constraint(&block_a, &block_b, arms, up, a, bias);
            let mut slow = c;
            let (mut slow_a, mut slow_b) = (block_a, block_b);
            solve_block(&mut c, &mut block_a, &mut block_b, bias);
            converged_point_iteration(&mut slow, &mut slow_a, &mut slow_b);

            let x = [c.points[0].normal_impulse, c.points[1].normal_impulse];
            let case = match (x[0] > 0.0, x[1] > 0.0) {
                (true, true) => "both",
                (true, false) => "first",
                (false, true) => "second",
                (false, false) => "none",
            };
            assert_eq!(case, expected, "case {k}: impulses {x:?}");
            for i in 0..2 {
                let want = slow.points[i].normal_impulse;
                assert!(
                    (x[i] - want).abs() < 1e-5,
                    "case {k}, point {i}: block {} vs converged {want}",
                    x[i]
                );
                // Complementarity: vn + bias >= 0, and = 0 where the impulse is positive.
                let cp = &c.points[i];
                let vn = relative_velocity(&block_a, &block_b, cp.r_a, cp.r_b).dot(up);
                assert!(vn + bias[i] > -1e-5, "case {k}, point {i}: vn {vn}");
                if x[i] > 0.0 {
                    assert!((vn + bias[i]).abs() < 1e-5, "case {k}, point {i}: vn {vn}");
                }
            }
            assert!((block_b.v - slow_b.v).length() < 1e-5 && (block_b.w - slow_b.w).abs() < 1e-4);
        }
    }

    /// `gather_active` gives the same lists at 1, 2 and 3 threads, read from the narrow
    /// phase's list (in place on one thread, through the parts' lists on more), as a plain
    /// filter of it would, and says the
    /// lists are unchanged exactly when they are (the same list again; one entry's pair
    /// changed; one contact more or fewer).
    #[test]
    fn gathers_agree_across_threads_and_tell_what_changed() {
        use crate::physics::solver::test_rng::Rng;
        let mut rng = Rng(5);
        // 20,000 contacts between 3,000 body slots; a slot's solver index is 0 when its
        // body is asleep or static.
        let solver_index: Vec<u32> = (0..3000)
            .map(|i| if rng.below(4) == 0 { 0 } else { i + 1 })
            .collect();
        let mut touching: Vec<ContactUpdate> = (0..20_000)
            .map(|_| {
                let mut u = ContactUpdate::default();
                u.slots = if rng.below(3) == 0 {
                    NOT_TOUCHING
                } else {
                    [rng.below(3000) as u32, rng.below(3000) as u32]
                };
                u
            })
            .collect();
        let expected = |touching: &[ContactUpdate]| {
            let mut active = Vec::new();
            let mut pairs = Vec::new();
            for (ci, u) in touching.iter().enumerate() {
                if u.slots == NOT_TOUCHING {
                    continue;
                }
                let pair = (
                    solver_index[u.slots[0] as usize],
                    solver_index[u.slots[1] as usize],
                );
                if pair != (0, 0) {
                    active.push(ci as u32);
                    pairs.push(pair);
                }
            }
            (active, pairs)
        };
        // The third list changes one pair's body, the fourth drops the last touching
        // contact, the fifth brings it back.
        let mut lists = vec![touching.clone(), touching.clone()];
        let k = touching
            .iter()
            .position(|u| u.slots != NOT_TOUCHING && solver_index[u.slots[0] as usize] != 0)
            .unwrap();
        touching[k].slots[1] = (touching[k].slots[1] + 1) % 3000;
        while solver_index[touching[k].slots[1] as usize] == 0 {
            touching[k].slots[1] = (touching[k].slots[1] + 1) % 3000;
        }
        lists.push(touching.clone());
        let last = touching
            .iter()
            .rposition(|u| u.slots != NOT_TOUCHING)
            .unwrap();
        let dropped = std::mem::replace(&mut touching[last].slots, NOT_TOUCHING);
        lists.push(touching.clone());
        touching[last].slots = dropped;
        lists.push(touching.clone());
        let unchanged = [
            None,
            Some((true, true)),
            Some((true, false)),
            Some((false, false)),
        ];
        for count in [1, 2, 3] {
            let threads = Threads::new(count).unwrap();
            let mut solver = ContactSolver::default();
            for (call, list) in lists.iter().enumerate() {
                let same = solver.gather_active((&[], Some(list)), &solver_index, &threads);
                let (active, pairs) = expected(list);
                assert_eq!(solver.active, active, "{count} threads, call {call}");
                assert_eq!(solver.active_pairs, pairs, "{count} threads, call {call}");
                let told = (same.contacts, same.pairs);
                match unchanged.get(call).copied().flatten() {
                    Some(want) => assert_eq!(told, want, "{count} threads, call {call}"),
                    // The first call (nothing before it) and the list grown back.
                    None => assert_eq!(told, (false, false), "{count} threads, call {call}"),
                }
            }
        }
    }
}
