//! The contact set: contact pairs kept across steps, the narrow phase that updates them,
//! and their manifold recycling.
//!
//! A contact exists while the broad-phase (fat) boxes of two shapes overlap. Each step the
//! narrow phase gives a fresh manifold; its points are matched to the previous step's points
//! by feature id and inherit their accumulated normal and tangent impulses, which is what
//! warm starting reuses.
//!
//! Material mixing (Box2D's rules): friction `sqrt(f_a * f_b)`, restitution
//! `max(e_a, e_b)`.

use super::body::{Body, BodyKind};
use super::collision::broad_phase::{BroadPhase, MovedProxies, ProxyKind};
use super::collision::{self, Manifold, ManifoldPoint};
use super::growth::{reserve_total, resize_total};
use super::handle::Arena;
use super::joint::Joint;
use super::limits;
use super::math::{Aabb, Rot, Transform, Vec2};
use super::quarantine::{not_finite, ManifoldCheck};
use super::settings::{SolverKind, SolverSettings};
use super::settings::{
    CONTACT_RECYCLE_COS_ANGLE, CONTACT_RECYCLE_DISTANCE, FAT_BOX_PREDICTION_STEPS,
    MAX_SPECULATIVE_DISTANCE, SPECULATIVE_DISTANCE,
};
use super::shape::Shape;
use super::solver::contact_sticky::{StickyAnchors, StickyStore};
use super::threads::{DisjointMut, Padded, Threads};
use super::world::StepStats;
use super::{BodyHandle, ShapeHandle};
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) use super::pair_set::PairSet;

/// Key of an unordered shape pair: the smaller slot index in the high half.
#[inline]
pub(crate) fn pair_key(shape_index_a: usize, shape_index_b: usize) -> u64 {
    let (lo, hi) = if shape_index_a < shape_index_b {
        (shape_index_a, shape_index_b)
    } else {
        (shape_index_b, shape_index_a)
    };
    ((lo as u64) << 32) | hi as u64
}

/// Friction of a pair of materials.
#[inline]
pub fn mix_friction(friction_a: f32, friction_b: f32) -> f32 {
    (friction_a * friction_b).sqrt()
}

/// Restitution of a pair of materials.
#[inline]
pub fn mix_restitution(restitution_a: f32, restitution_b: f32) -> f32 {
    restitution_a.max(restitution_b)
}

/// What the narrow phase saw when it last computed a contact's manifold, so that a later
/// step in which the two bodies hardly moved relative to each other can reuse the manifold
/// instead of recomputing it (Box2D v3's contact recycling; see
/// `ContactSet::update_manifolds`). Only the soft step recycles, and only manifolds with
/// points. In this order (`repr(C)`): the flag and the anchors, which the solver's
/// prepare reads, first (`Contact`'s layout).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct ManifoldCache {
    /// False until the kernel fills it, and whenever the manifold has no point.
    pub valid: bool,
    /// Per point: the point relative to A's and to B's centre of mass then (world axes).
    pub anchor_a: [Vec2; 2],
    pub anchor_b: [Vec2; 2],
    /// Per point: the separation then.
    pub base_separation: [f32; 2],
    /// The bodies' rotations then: the manifold's normal is in world space, so it is reused
    /// only while neither body has turned much.
    pub rotation_a: Rot,
    pub rotation_b: Rot,
    /// B's origin frame in A's then (`xf_a^-1 * xf_b`).
    pub relative: Transform,
}

/// A pair of shapes whose fat boxes overlap, and its manifold from the last step.
///
/// Three cache lines exactly, in this order (`repr(C)`, 64-byte aligned; checked below):
/// the manifold's points and normal (the line the solver's store writes: the impulses);
/// the point count, friction, restitution and the cache's flag and anchors (with the first
/// line, all the soft step's prepare reads); the rest of the cache, the flags, the bodies
/// and shapes (the narrow phase's). At 216 bytes, unaligned, a contact spanned four or five
/// lines and the store wrote two of them. The pair key is the shapes' (`key`); TGS-Sticky's
/// anchors live beside the contacts (`ContactSet::sticky`).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Contact {
    pub(crate) manifold: Manifold,
    pub(crate) friction: f32,
    pub(crate) restitution: f32,
    pub(crate) cache: ManifoldCache,
    /// The last collide reused the manifold instead of running the kernel (soft step).
    pub(crate) recycled: bool,
    /// The pair was removed (`is_dead`).
    pub(crate) dead: bool,
    pub(crate) body_a: BodyHandle,
    pub(crate) body_b: BodyHandle,
    pub(crate) shape_a: ShapeHandle,
    pub(crate) shape_b: ShapeHandle,
}

const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<Contact>() == 192);
    // The store's line: both points' impulses and the normal.
    assert!(size_of::<[ManifoldPoint; 2]>() + size_of::<Vec2>() == 64);
    assert!(offset_of!(Contact, manifold) == 0);
    assert!(offset_of!(Manifold, normal) == 56);
    // The prepare's second line: the count, coefficients, cache flag and anchors.
    assert!(offset_of!(Contact, cache) + offset_of!(ManifoldCache, anchor_b) + 16 <= 128);
};

impl Contact {
    pub fn shape_a(&self) -> ShapeHandle {
        self.shape_a
    }
    pub fn shape_b(&self) -> ShapeHandle {
        self.shape_b
    }
    pub fn body_a(&self) -> BodyHandle {
        self.body_a
    }
    pub fn body_b(&self) -> BodyHandle {
        self.body_b
    }
    pub fn manifold(&self) -> &Manifold {
        &self.manifold
    }
    pub fn friction(&self) -> f32 {
        self.friction
    }
    pub fn restitution(&self) -> f32 {
        self.restitution
    }
    /// True when the manifold has points (touching or within the speculative distance).
    pub fn is_touching(&self) -> bool {
        self.manifold.count > 0
    }
    /// True when the last collide reused this manifold instead of running the narrow-phase
    /// kernel (soft step's recycling).
    pub fn recycled(&self) -> bool {
        self.recycled
    }
    /// What recycling the manifold relies on (exported for an exact restore).
    pub fn cache(&self) -> &ManifoldCache {
        &self.cache
    }

    /// Remember the poses the manifold (just computed by the kernel) was computed at, with
    /// the centres of mass `center_a`, `center_b` and origin frames `xf_a`, `xf_b`.
    pub(crate) fn cache_manifold(
        &mut self,
        center_a: Vec2,
        center_b: Vec2,
        xf_a: &Transform,
        xf_b: &Transform,
    ) {
        let m = &self.manifold;
        let c = &mut self.cache;
        c.valid = m.count > 0;
        if !c.valid {
            return;
        }
        c.rotation_a = xf_a.q;
        c.rotation_b = xf_b.q;
        c.relative = xf_a.inv_mul(xf_b);
        for (k, p) in m.points().iter().enumerate() {
            c.anchor_a[k] = p.point - center_a;
            c.anchor_b[k] = p.point - center_b;
            c.base_separation[k] = p.separation;
        }
    }

    /// Reuse the manifold if the bodies moved little relative to each other since it was
    /// computed: B's frame in A's within `CONTACT_RECYCLE_DISTANCE` (the farthest any point
    /// can have moved, bounded by the translation plus `extent` times the turn), and neither
    /// body turned by more than the angle whose cosine is `CONTACT_RECYCLE_COS_ANGLE` (the
    /// normal is in world space).
    /// Then each point keeps its anchors on the two bodies and its separation changes by
    /// how far those anchors moved apart along the normal, as within a soft step's
    /// sub-steps. Returns `ManifoldCheck::of` the recycled manifold (made from the numbers
    /// as they are computed), or `None` (and changes nothing) when the kernel must run.
    #[inline(always)]
    pub(crate) fn recycle(
        &mut self,
        center_a: Vec2,
        center_b: Vec2,
        xf_a: &Transform,
        xf_b: &Transform,
        extent: f32,
    ) -> Option<ManifoldCheck> {
        let c = &self.cache;
        if !c.valid || self.manifold.count == 0 {
            return None;
        }
        let dq_a = xf_a.q.mul(Rot {
            c: c.rotation_a.c,
            s: -c.rotation_a.s,
        });
        let dq_b = xf_b.q.mul(Rot {
            c: c.rotation_b.c,
            s: -c.rotation_b.s,
        });
        if dq_a.c.min(dq_b.c) <= CONTACT_RECYCLE_COS_ANGLE {
            return None;
        }
        let relative = xf_a.inv_mul(xf_b);
        let turn = c.relative.q.inv_mul(relative.q);
        if relative.p.distance(c.relative.p) + extent * turn.s.abs() >= CONTACT_RECYCLE_DISTANCE {
            return None;
        }
        let normal = self.manifold.normal;
        let dc = center_b - center_a;
        let count = self.manifold.count;
        let mut bad = not_finite(normal.x) | not_finite(normal.y);
        let mut separations = [0.0; 2];
        for (k, s) in separations.iter_mut().enumerate().take(count) {
            let r_a = dq_a.rotate(c.anchor_a[k]);
            let r_b = dq_b.rotate(c.anchor_b[k]);
            let p = &mut self.manifold.points[k];
            p.separation = c.base_separation[k] + normal.dot(dc + r_b - r_a);
            // Drawn midway between where the anchors are now; the solver keeps the anchors
            // themselves (`anchors`).
            p.point = 0.5 * ((center_a + r_a) + (center_b + r_b));
            p.persisted = true;
            bad |= not_finite(p.point.x) | not_finite(p.point.y) | not_finite(p.separation);
            *s = p.separation;
        }
        Some(ManifoldCheck {
            count,
            finite: !bad,
            separations,
        })
    }

    /// Arms of point `k` from the two centres of mass (world axes), for the solver.
    ///
    /// A manifold the soft step computed or reused (the cache is valid) keeps the anchors
    /// its points had when the kernel found them, fixed on each body for as long as the
    /// manifold is reused (Box2D v3's contact recycling keeps its anchors as well). Only
    /// the separation follows the motion (`recycle`). This is what holds a tall stack up:
    /// anchors taken afresh from the current corners every step move the support points
    /// with each small tilt, a rocking mode that grows by about 2x per second in a
    /// 20-box stack at 30 Hz contacts (Box2D v3 with recycling turned off falls the same
    /// way). Otherwise (classic solver) the arms are the point's offsets from the
    /// current centres.
    #[inline]
    pub(crate) fn anchors(&self, k: usize, center_a: Vec2, center_b: Vec2) -> (Vec2, Vec2) {
        self.anchors_with(k, || (center_a, center_b))
    }

    /// `anchors`, asking for the centres of mass only when the cache cannot answer.
    #[inline]
    pub(crate) fn anchors_with(
        &self,
        k: usize,
        centers: impl FnOnce() -> (Vec2, Vec2),
    ) -> (Vec2, Vec2) {
        if self.cache.valid {
            (self.cache.anchor_a[k], self.cache.anchor_b[k])
        } else {
            let (center_a, center_b) = centers();
            let point = self.manifold.points[k].point;
            (point - center_a, point - center_b)
        }
    }

    /// Dead: the pair was removed; it waits in the array for `ContactSet::compact`.
    pub(crate) fn is_dead(&self) -> bool {
        self.dead
    }

    /// The pair's key in `ContactSet::pair_keys`.
    pub(crate) fn key(&self) -> u64 {
        pair_key(self.shape_a.index(), self.shape_b.index())
    }

    /// Mark dead: no points (so no reader takes it for touching) and a zero normal (so the
    /// quarantine never takes it for a non-finite one), no cache. Only those fields are
    /// written: on a scene where thousands of pairs part each step, the rest of the
    /// contact is not worth a store before the compaction drops it.
    fn kill(&mut self) {
        self.dead = true;
        self.manifold.count = 0;
        self.manifold.normal = Vec2::ZERO;
        self.cache.valid = false;
        self.recycled = false;
    }

    /// Replace the manifold with a fresh one, carrying impulses over from points with the
    /// same feature id. Both slots are handled by value and the manifold is written once
    /// (a loop over `points_mut()` kept the fresh manifold in memory and read it back
    /// straight after the narrow phase wrote it).
    pub(crate) fn update_manifold(&mut self, fresh: Manifold) {
        let old = &self.manifold;
        let carry = |mut point: ManifoldPoint, used: bool| {
            if used {
                point.normal_impulse = 0.0;
                point.tangent_impulse = 0.0;
                point.persisted = false;
                if let Some(o) = old.points().iter().find(|o| o.id == point.id) {
                    point.normal_impulse = o.normal_impulse;
                    point.tangent_impulse = o.tangent_impulse;
                    point.persisted = true;
                }
            }
            point
        };
        let points = [
            carry(fresh.points[0], fresh.count > 0),
            carry(fresh.points[1], fresh.count > 1),
        ];
        self.manifold = Manifold { points, ..fresh };
    }
}

/// The contact set: one `Contact` per shape pair whose fat boxes overlap, kept across
/// steps in creation order (the solver order), with the set of their pair keys.
///
/// A pair whose fat boxes part is not taken out of `contacts` at once: it is marked dead
/// (`Contact::is_dead`: its flag set, no manifold points, its pair key gone from
/// `pair_keys`) and stays in place until dead contacts make up `1 / COMPACT_EVERY` of the
/// array (`1 / COMPACT_WHEN_FULL` when the new contacts would not fit the array's capacity
/// beside them), when one pass (`compact`) drops them all. Removing them every step moved
/// the whole array behind the first removal, every step (the contacts are 192 bytes);
/// so did compacting at an eighth dead on a scene where a sixth of the pairs part every
/// step (the spinner: 1.2 ms a step of its 21, against 0.3 at a half). The capacity rule
/// keeps the waiting dead from growing the array: it grows only while they are under an
/// eighth of it, as it did when an eighth was the only rule.
/// The live contacts keep their order either way, so the solver sees the same contacts
/// in the same order; every reader of `contacts` skips the dead ones (`live`).
#[derive(Clone, Default)]
pub(crate) struct ContactSet {
    pub(crate) contacts: Vec<Contact>,
    /// How many of `contacts` are dead.
    dead: usize,
    pub(crate) pair_keys: PairSet,
    /// Scratch: the pairs the broad phase reported this step.
    pub(crate) new_pairs: Vec<(u32, u32)>,
    /// What the last narrow phase did to each contact (`Outcome` bits), and the body slots
    /// of the contacts it left touching: in step with `contacts` from `update_manifolds`
    /// until the contacts next change (`with_touching_slots`).
    outcomes: Vec<ContactUpdate>,
    /// How many contacts the last narrow phase left touching, when it removed none and left
    /// no normal that is not finite (else `None`): read with `outcomes` (`clean_touching`).
    clean_touching: Option<usize>,
    /// The body slots of each contact (`DEAD_SLOTS` for a dead one), always in step with
    /// `contacts`: removing a body's contacts scans these 8 bytes a contact, not the
    /// 192-byte contacts.
    body_slots: Vec<[u32; 2]>,
    /// TGS-Sticky's anchors of each contact (empty until a contact has some), in step with
    /// `contacts` as `body_slots` is.
    pub(crate) sticky: StickyStore,
    /// Scratch of `update_manifolds`: the keys of the pairs that parted this step.
    parted: Vec<u64>,
    /// Scratch of `update_manifolds`: what each chunk of the narrow phase gathered.
    narrow_sums: Vec<Padded<NarrowSums>>,
    /// Scratch of `touching_bodies`: per body slot, whether a contact of the body has
    /// manifold points.
    touching: Vec<bool>,
    /// Per contact, the check of its manifold when the last narrow phase that made checks
    /// recycled it (`RecycledCheck`), and how many narrow phases ran (their numbers).
    recycled_checks: Vec<RecycledCheck>,
    narrow_phases: u32,
    /// Bumped whenever contacts are dropped from the array or put into it other than by
    /// the broad phase (a contact's index then no longer names the contact it named): the
    /// solver refreshes a lane from the step before only while this is unchanged.
    generation: u64,
}

/// How many keys ahead the loops over many pair keys (`update_manifolds`' removals,
/// `add_new_pairs`' insertions) ask for a key's slot in `pair_keys`.
const KEYS_AHEAD: usize = 8;

/// Narrow phase outcomes per thread below which `ContactSet::touching_bodies` stays on one
/// thread.
const MIN_MARKED_PER_THREAD: usize = 4096;

/// Awake bodies per thread below which `move_proxies` stays on one thread. Lower than
/// `threads::MIN_ARENA_BODIES_PER_THREAD`: a body's boxes (its shapes moved, their boxes
/// taken and tested against the fat ones) cost about 100 ns; 256 bodies, some 25 µs.
const MIN_MOVED_BODIES_PER_THREAD: usize = 256;

/// `ContactSet::body_slots` of a dead contact.
const DEAD_SLOTS: [u32; 2] = [u32::MAX; 2];

/// What the narrow phase did to one contact, and its bodies' slots when it is touching.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ContactUpdate {
    /// `Outcome` bits.
    flags: u8,
    /// The body slots `[a, b]` of a touching contact (manifold points after the update),
    /// `NOT_TOUCHING` otherwise.
    pub(crate) slots: [u32; 2],
}

/// What a run of the narrow phase's outcomes adds up to (`ContactSet::update_manifolds`).
#[derive(Clone, Debug, Default)]
struct NarrowSums {
    /// Contacts left touching.
    touching: usize,
    /// Manifolds recycled.
    reused: usize,
    any_removed: bool,
    any_nonfinite: bool,
    /// The sleeping bodies the run's new touching contacts wake, in contact order.
    to_wake: Vec<BodyHandle>,
}

impl NarrowSums {
    /// Add contact `c`'s outcome.
    #[inline]
    fn add(&mut self, outcome: &ContactUpdate, c: &Contact) {
        self.touching += usize::from(outcome.slots != NOT_TOUCHING);
        self.any_nonfinite |= outcome.nonfinite();
        let flags = outcome.flags;
        self.any_removed |= flags & Outcome::REMOVED != 0;
        self.reused += usize::from(flags & Outcome::REUSED != 0);
        if flags & Outcome::WAKE_A != 0 {
            self.to_wake.push(c.body_a);
        }
        if flags & Outcome::WAKE_B != 0 {
            self.to_wake.push(c.body_b);
        }
    }
}

/// `ManifoldCheck::of` a manifold the narrow phase recycled, made while it was in cache
/// (`ContactSet::update_manifolds` with `checks`), so that the solver can refresh the
/// contact's lane without reading the contact. Valid for the narrow phase whose number it
/// holds (`RecycledChecks`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RecycledCheck {
    /// The narrow phase that made it (`ContactSet::narrow_phases`).
    phase: u32,
    count: u8,
    finite: bool,
    separations: [f32; 2],
}

/// The checks of the last narrow phase's recycled manifolds, by contact index.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RecycledChecks<'a> {
    checks: &'a [RecycledCheck],
    phase: u32,
}

impl RecycledChecks<'_> {
    /// The check of contact `i` if the last narrow phase recycled its manifold and made it.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> Option<ManifoldCheck> {
        let c = self.checks.get(i)?;
        (c.phase == self.phase).then_some(ManifoldCheck {
            count: c.count as usize,
            finite: c.finite,
            separations: c.separations,
        })
    }

    /// Contact `i`'s slot, whatever narrow phase wrote it (its address, for a prefetch).
    #[inline(always)]
    pub(crate) fn slot(&self, i: usize) -> Option<&RecycledCheck> {
        self.checks.get(i)
    }
}

/// `ContactUpdate::slots` of a contact without manifold points.
pub(crate) const NOT_TOUCHING: [u32; 2] = [u32::MAX; 2];

/// Dead contacts are dropped once they are this fraction (1 / `COMPACT_EVERY`) of the array,
/// or this one (1 / `COMPACT_WHEN_FULL`) when the new contacts would not fit beside them.
const COMPACT_EVERY: usize = 2;
const COMPACT_WHEN_FULL: usize = 8;

impl ContactUpdate {
    fn new(mut flags: u8, c: &Contact) -> ContactUpdate {
        let slots = if c.manifold.count > 0 {
            [c.body_a.index() as u32, c.body_b.index() as u32]
        } else {
            if !c.manifold.normal.is_finite() {
                flags |= Outcome::NONFINITE;
            }
            NOT_TOUCHING
        };
        ContactUpdate { flags, slots }
    }

    /// No manifold points and a normal that is not finite.
    pub(crate) fn nonfinite(&self) -> bool {
        self.flags & Outcome::NONFINITE != 0
    }
}

impl ContactSet {
    /// The live contacts, in order.
    pub(crate) fn live(&self) -> impl Iterator<Item = &Contact> + Clone + '_ {
        self.contacts.iter().filter(|c| !c.is_dead())
    }

    /// The live contacts, in order, each with its TGS-Sticky anchors.
    pub(crate) fn live_with_sticky(
        &self,
    ) -> impl Iterator<Item = (&Contact, &StickyAnchors)> + Clone + '_ {
        let live = self
            .contacts
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_dead());
        live.map(|(i, c)| (c, self.sticky.get(i)))
    }

    /// The live contacts, in order.
    pub(crate) fn live_mut(&mut self) -> impl Iterator<Item = &mut Contact> + '_ {
        self.contacts.iter_mut().filter(|c| !c.is_dead())
    }

    /// How many contacts are live.
    pub(crate) fn live_count(&self) -> usize {
        self.contacts.len() - self.dead
    }

    /// `generation`: changes whenever a contact index may name another contact.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// Drop the dead contacts (and their outcomes, when in step), keeping the order.
    fn compact(&mut self) {
        if self.dead == 0 {
            return;
        }
        self.generation = self.generation.wrapping_add(1);
        // One pass: `retain` visits the contacts once each, in order, and the outcomes
        // (when in step) are moved down beside them.
        let outcomes = &mut self.outcomes;
        let fresh = outcomes.len() == self.contacts.len();
        let contacts = &self.contacts;
        self.sticky.retain(|i| !contacts[i].is_dead());
        let (mut read, mut write) = (0, 0);
        self.contacts.retain(|c| {
            let keep = !c.is_dead();
            if fresh {
                if keep {
                    outcomes[write] = outcomes[read];
                    write += 1;
                }
                read += 1;
            }
            keep
        });
        if fresh {
            outcomes.truncate(write);
        } else {
            outcomes.clear();
        }
        self.body_slots.retain(|&slots| slots != DEAD_SLOTS);
        self.dead = 0;
    }

    /// The contacts, and per contact the body slots of the touching ones (`NOT_TOUCHING`
    /// for the others) as the last `update_manifolds` left them: `None` when the contacts
    /// were added or removed since (the solver then reads the contacts).
    pub(crate) fn with_touching_slots(&mut self) -> (&mut [Contact], Option<&[ContactUpdate]>) {
        let ((contacts, _), touching, _) = self.for_solver();
        (contacts, touching)
    }

    /// `with_touching_slots`, and the checks the last narrow phase made of the manifolds
    /// it recycled (none when it was not asked to: `update_manifolds`' `checks`).
    pub(crate) fn for_solver(
        &mut self,
    ) -> (
        (&mut [Contact], &mut StickyStore),
        Option<&[ContactUpdate]>,
        RecycledChecks<'_>,
    ) {
        let fresh = self.outcomes.len() == self.contacts.len();
        let checks = RecycledChecks {
            checks: &self.recycled_checks,
            phase: self.narrow_phases,
        };
        (
            (&mut self.contacts, &mut self.sticky),
            fresh.then_some(&self.outcomes[..]),
            checks,
        )
    }

    /// Add a restored contact (`World::restore_contact`) with its TGS-Sticky anchors.
    pub(crate) fn push_restored(&mut self, contact: Contact, sticky: Option<Box<StickyAnchors>>) {
        self.outcomes.clear();
        self.generation = self.generation.wrapping_add(1);
        self.pair_keys.insert(contact.key());
        self.sticky.push(self.contacts.len(), sticky);
        self.body_slots
            .push([contact.body_a.index() as u32, contact.body_b.index() as u32]);
        self.contacts.push(contact);
    }
}

/// Whether the shapes of a new broad-phase pair may collide: on two bodies, one of them
/// dynamic, their filters and geometries allowing it, and no enabled joint between the
/// bodies that keeps them from colliding. The cheap shape tests first.
fn may_collide(
    shapes: &Arena<Shape>,
    bodies: &Arena<Body>,
    joints: &Arena<Joint>,
    shape_index_a: usize,
    shape_index_b: usize,
) -> bool {
    let shape_a = shapes.at(shape_index_a);
    let shape_b = shapes.at(shape_index_b);
    if shape_a.body == shape_b.body
        || !shape_a.filter.should_collide(&shape_b.filter)
        || !collision::can_collide(&shape_a.geometry, &shape_b.geometry)
    {
        return false;
    }
    let body_a = bodies.at(shape_a.body.index());
    let body_b = bodies.at(shape_b.body.index());
    if body_a.kind != BodyKind::Dynamic && body_b.kind != BodyKind::Dynamic {
        return false;
    }
    // Joined bodies do not collide unless a joint says so.
    !body_a.joints.iter().any(|&j| {
        let joint = joints.get(j).expect("body's joint");
        let other = if joint.body_a == shape_a.body {
            joint.body_b
        } else {
            joint.body_a
        };
        other == shape_b.body && !joint.collide_connected && joint.is_enabled()
    })
}

/// The bits of what the narrow phase did to one contact.
struct Outcome;

impl Outcome {
    /// The fat boxes parted: the pair goes.
    const REMOVED: u8 = 1;
    /// The manifold was recycled.
    const REUSED: u8 = 2;
    /// Touching: body A (asleep, not static) must wake.
    const WAKE_A: u8 = 4;
    /// As `WAKE_A` for body B.
    const WAKE_B: u8 = 8;
    /// No manifold points, and a normal that is not finite (for the quarantine).
    const NONFINITE: u8 = 16;
}

/// Move the broad-phase proxies of awake bodies. A shape's reach (`BroadPhase::
/// reach_aabb`, what it pairs with static shapes by) is its tight box swept by one step of
/// motion, so that the pair with a wall exists before a fast shape meets it; for a body
/// touching nothing (`touching`, per body slot: `ContactSet::touching_bodies`; a slot past
/// its end touches nothing) it also covers its next steps. With `split` (the soft step) a
/// shape's fat box, what it pairs with moving shapes by, is its tight box alone, grown by
/// the margin: bodies falling together do not pair (Box2D v3 sweeps against static shapes
/// only too); without it the fat box is the reach (the other solvers: their results are
/// the solver matrix's baselines). The boxes are computed across `threads` (runs of the
/// awake list; a shape belongs to one body), and the tree takes the boxes that moved by
/// the same parts (`BroadPhase::mark_proxies_reaching_split`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn move_proxies(
    bodies: &Arena<Body>,
    shapes: &mut Arena<Shape>,
    broad_phase: &mut BroadPhase,
    awake: &[usize],
    touching: &[bool],
    split: bool,
    h: f32,
    threads: &Threads,
) {
    let worth_it = awake.len() >= MIN_MOVED_BODIES_PER_THREAD * threads.count();
    let mut moved: Vec<Padded<MovedProxies>> = Vec::new();
    let shared = shapes.shared();
    let reaches = broad_phase.reaches();
    let parts = threads.runs_into(awake.len(), worth_it, &mut moved, |run, moved| {
        for &i in &awake[run] {
            let b = bodies.at(i);
            // A body touching another (its motion about to change) is swept, not
            // predicted (`FAT_BOX_PREDICTION_STEPS`).
            let predict = !touching.get(i).copied().unwrap_or(false);
            // SAFETY: each shape belongs to one body, and each body is in one run.
            let shape_at = |s| unsafe { shared.at_mut(s) };
            move_body_boxes(b, shape_at, reaches, (h, predict, split), moved);
        }
    });
    broad_phase.mark_proxies_reaching_split(&moved[..parts], worth_it, threads);
}

/// One body's shapes: the tight box of this step; for a swept box that left its reach, a
/// new reach: the box swept by one step of motion, and with `predict` covering the box
/// `FAT_BOX_PREDICTION_STEPS` ahead, grown by the margin. With `split`, for a box that left
/// its fat box, a new fat box: the box grown by the margin; without, the fat box is the
/// reach. A shape with a new box has its proxy pushed to `moved`, with its stored box
/// and reach (the current reaches are `reaches`, the broad phase's), so that the tree's
/// serial pass need not read the shapes again.
fn move_body_boxes<'a>(
    b: &Body,
    shape_at: impl Fn(usize) -> &'a mut Shape,
    reaches: &[Aabb],
    (h, predict, split): (f32, bool, bool),
    moved: &mut MovedProxies,
) {
    let xf = b.transform();
    let sweep = b.linear_velocity * h;
    let mut ahead = None;
    for &s in &b.shapes {
        let shape = shape_at(s.index());
        let aabb = shape.geometry.aabb(&xf);
        shape.aabb = aabb;
        let swept = Aabb::new(
            aabb.min.min(aabb.min + sweep),
            aabb.max.max(aabb.max + sweep),
        )
        .extended(SPECULATIVE_DISTANCE);
        let mut reach = match shape.proxy.kind() {
            ProxyKind::Moving => reaches[shape.proxy.tree_id() as usize],
            ProxyKind::Static => shape.fat_aabb,
        };
        // Without `split`, a fat box apart from its reach (the soft step's, just switched
        // from) is renewed too.
        let reach_left = !reach.contains(&swept) || (!split && shape.fat_aabb != reach);
        let near = aabb.extended(SPECULATIVE_DISTANCE);
        let fat_left = split && !shape.fat_aabb.contains(&near);
        if reach_left {
            // In flight, make room for a few more steps of the same motion, turning
            // included (a long wall on a turning body leaves its box by its ends), so that
            // a steadily moving shape gets a new reach once every few steps.
            reach = swept;
            if predict {
                let xf_ahead =
                    *ahead.get_or_insert_with(|| b.transform_after(FAT_BOX_PREDICTION_STEPS * h));
                let predicted = shape.geometry.aabb(&xf_ahead);
                reach = reach.union(&predicted.extended(SPECULATIVE_DISTANCE));
            }
            reach = in_saved_range(reach.extended(shape.margin));
            if !split {
                shape.fat_aabb = reach;
            }
        }
        if fat_left {
            shape.fat_aabb = in_saved_range(near.extended(shape.margin));
        }
        if reach_left || fat_left {
            moved.push((shape.proxy, shape.fat_aabb, reach));
        }
    }
}

/// A fat box held inside the saved-state range (±1e18 m) that an export's proxy boxes are
/// loaded in: a speed pumped past the cap after the solve swept boxes out to 1e21 m and the
/// export no longer loaded. Shapes lie inside that range, so the box still holds its shape;
/// boxes inside it (every ordinary one) and non-finite numbers are unchanged.
fn in_saved_range(fat: Aabb) -> Aabb {
    let max = limits::SAVED_STATE.max;
    let bound = |v: f32| {
        if v > max {
            max
        } else if v < -max {
            -max
        } else {
            v
        }
    };
    let clamp = |p: Vec2| Vec2::new(bound(p.x), bound(p.y));
    Aabb::new(clamp(fat.min), clamp(fat.max))
}

/// Farthest the two surfaces can close in one step, plus the base speculative distance,
/// capped. Any point of A moves relative to any point of B at most
/// |v_b - v_a| + |w_a| extent_a + |w_b| extent_b (soft step, `relative_closing`: the shared
/// part of the motion, e.g. a pile falling together, closes nothing, and fewer idle
/// speculative points are kept). The classic solver keeps the wider |v_a| + |v_b| margin:
/// without sub-steps its hard-scene verdicts (high mass ratio 3 without the block solver)
/// lean on the extra speculative points.
fn speculative_distance(
    body_a: &Body,
    body_b: &Body,
    relative_closing: bool,
    h: f32,
    gravity_drop: f32,
) -> f32 {
    let linear = if relative_closing {
        (body_b.linear_velocity - body_a.linear_velocity).length()
    } else {
        body_a.linear_velocity.length() + body_b.linear_velocity.length()
    };
    let closing = (linear
        + body_a.angular_velocity.abs() * body_a.extent
        + body_b.angular_velocity.abs() * body_b.extent)
        * h
        + gravity_drop;
    (SPECULATIVE_DISTANCE + closing).min(MAX_SPECULATIVE_DISTANCE)
}

impl ContactSet {
    /// Per body slot (`slot_count` of them), whether a contact of the body has manifold
    /// points: from the narrow phase's compact list while it is in step with the contacts
    /// (`outcomes`; read across `threads`), else from the manifolds, which it agrees with
    /// (whatever zeroes a manifold after the narrow phase drops the list: `forget_outcomes`).
    pub(crate) fn touching_bodies(&mut self, slot_count: usize, threads: &Threads) -> &[bool] {
        let touching = &mut self.touching;
        touching.clear();
        touching.resize(slot_count, false);
        if self.outcomes.len() == self.contacts.len() {
            let outcomes = &self.outcomes;
            // SAFETY: `AtomicBool` has the size, alignment and bit validity of `bool`, and
            // the slice is only used through the atomics until the marking is done.
            let marks =
                unsafe { &*(touching.as_mut_slice() as *mut [bool] as *const [AtomicBool]) };
            // Several threads may mark one body: the marks are atomic (plain stores on
            // x86), and each only ever sets its flag.
            let worth_it = outcomes.len() >= MIN_MARKED_PER_THREAD * threads.count();
            threads.ranges(outcomes.len(), worth_it, |run| {
                for u in &outcomes[run] {
                    if u.slots != NOT_TOUCHING {
                        for slot in u.slots {
                            marks[slot as usize].store(true, Ordering::Relaxed);
                        }
                    }
                }
            });
        } else {
            for (c, &[a, b]) in self.contacts.iter().zip(&self.body_slots) {
                if c.manifold.count > 0 {
                    touching[a as usize] = true;
                    touching[b as usize] = true;
                }
            }
        }
        &self.touching
    }

    /// How many contacts the narrow phase's list holds touching, when the list is in step
    /// with the contacts, the narrow phase removed none and every contact it left without
    /// points has a finite normal: then the list names those contacts and no other needs
    /// the quarantine's look (`World::quarantine`).
    pub(crate) fn clean_touching(&self) -> Option<usize> {
        self.clean_touching
            .filter(|_| self.outcomes.len() == self.contacts.len())
    }

    /// Drop the narrow phase's list of touching contacts (a manifold was changed since).
    pub(crate) fn forget_outcomes(&mut self) {
        self.outcomes.clear();
    }

    /// Remove the live contacts of the body in slot `body` that `pred` picks, with their
    /// pair keys: they are marked dead in place and dropped with the others at the next
    /// compaction. Only the compact `body_slots` are scanned (destroying a body of a large
    /// world read, then moved, the whole contact array, once per body).
    pub(crate) fn remove_where(&mut self, body: usize, mut pred: impl FnMut(&Contact) -> bool) {
        self.outcomes.clear();
        self.generation = self.generation.wrapping_add(1);
        let body = body as u32;
        for (slots, c) in self.body_slots.iter_mut().zip(&mut self.contacts) {
            if (slots[0] == body || slots[1] == body) && pred(c) {
                self.pair_keys.remove(&c.key());
                c.kill();
                *slots = DEAD_SLOTS;
                self.dead += 1;
            }
        }
        if self.dead * COMPACT_EVERY > self.contacts.len() {
            self.compact();
        }
    }

    /// Collect the broad phase's new overlaps and make a contact for each pair that may
    /// collide.
    pub(crate) fn add_new_pairs(
        &mut self,
        broad_phase: &mut BroadPhase,
        shapes: &Arena<Shape>,
        bodies: &Arena<Body>,
        joints: &Arena<Joint>,
        stats: &mut StepStats,
        threads: &Threads,
    ) {
        // Most reported overlaps are pairs that already have a contact (a re-inserted box
        // finds all its old neighbours again): drop those before the sort.
        let keys = &self.pair_keys;
        broad_phase.update_pairs_split(&mut self.new_pairs, threads, |a, b| {
            !keys.contains(&pair_key(a as usize, b as usize))
        });
        // Room for the new contacts without growing the array: drop the dead first when
        // they are an eighth of it (the old rule's fraction, so no more often than it did).
        let full = self.contacts.len() + self.new_pairs.len() > self.contacts.capacity();
        if full && self.dead * COMPACT_WHEN_FULL > self.contacts.len() {
            self.compact();
        }
        let before = self.contacts.len();
        // The pairs that may collide, then room for all of them at once, then their
        // contacts. A step that pairs a whole scene (many pyramids' first: 58,000 contacts)
        // grew the arrays an eighth at a time, some eighty moves of them, and rehashed the
        // key set a dozen times: 53 ms of its 73.
        let mut pairs = std::mem::take(&mut self.new_pairs);
        pairs.retain(|&(a, b)| may_collide(shapes, bodies, joints, a as usize, b as usize));
        let total = self.contacts.len() + pairs.len();
        reserve_total(&mut self.contacts, total);
        reserve_total(&mut self.body_slots, total);
        self.pair_keys.reserve(pairs.len());
        for (k, &(a, b)) in pairs.iter().enumerate() {
            if let Some(&(a, b)) = pairs.get(k + KEYS_AHEAD) {
                self.pair_keys.prefetch(pair_key(a as usize, b as usize));
            }
            self.add_contact(shapes, a as usize, b as usize);
        }
        self.new_pairs = pairs;
        let counts = broad_phase.last_update();
        stats.proxies_moved += counts.queried;
        stats.overlaps_found += counts.overlaps;
        stats.pairs_created += self.contacts.len() - before;
    }

    /// The contact of a new broad-phase pair that may collide (`may_collide`), unless the
    /// pair has one. The arrays have room for it (`add_new_pairs`).
    fn add_contact(&mut self, shapes: &Arena<Shape>, shape_index_a: usize, shape_index_b: usize) {
        if !self
            .pair_keys
            .insert(pair_key(shape_index_a, shape_index_b))
        {
            return;
        }
        // The shape with the smaller slot index is A (deterministic).
        let shape_a = shapes.at(shape_index_a);
        let shape_b = shapes.at(shape_index_b);
        self.body_slots
            .push([shape_a.body.index() as u32, shape_b.body.index() as u32]);
        self.sticky.push(self.contacts.len(), None);
        self.contacts.push(Contact {
            shape_a: shape_a.handle,
            shape_b: shape_b.handle,
            body_a: shape_a.body,
            body_b: shape_b.body,
            manifold: Manifold::EMPTY,
            friction: mix_friction(shape_a.friction, shape_b.friction),
            restitution: mix_restitution(shape_a.restitution, shape_b.restitution),
            cache: ManifoldCache::default(),
            recycled: false,
            dead: false,
        });
    }

    /// The narrow phase for contacts with an awake body: recycle or recompute each
    /// manifold, drop the pairs whose fat boxes parted. Returns the sleeping bodies a
    /// touching contact must wake.
    ///
    /// Each contact is updated from the bodies and shapes alone (across `threads`); what it
    /// reports (`Outcome`) is summed by each chunk of contacts and the chunks' sums joined
    /// in contact order (`Threads::map_mut_fold`), so the result is the same for any thread
    /// count.
    pub(crate) fn update_manifolds(
        &mut self,
        bodies: &Arena<Body>,
        (shapes, reaches): (&Arena<Shape>, &[Aabb]),
        (settings, checks): (&SolverSettings, bool),
        h: f32,
        stats: &mut StepStats,
        threads: &Threads,
    ) -> Vec<BodyHandle> {
        let gravity_drop = settings.gravity.length() * h * h;
        let relative_closing = settings.solver == SolverKind::SoftStep;
        // Manifold recycling: the soft step only (the classic solver recomputes every
        // manifold every step, as Box2D-Lite).
        let recycle = relative_closing;
        // A recycled manifold's check goes to `recycled_check`.
        let narrow = |c: &mut Contact, recycled_check: &mut Option<ManifoldCheck>| -> u8 {
            if c.is_dead() {
                return 0;
            }
            let body_a = bodies.at(c.body_a.index());
            let body_b = bodies.at(c.body_b.index());
            if !body_a.awake && !body_b.awake {
                return 0;
            }
            let shape_a = shapes.at(c.shape_a.index());
            let shape_b = shapes.at(c.shape_b.index());
            // The broad phase's test (`BroadPhase::test_overlap`; a static body's shapes have
            // static proxies): with a static shape, its box against the moving one's reach.
            let parted = if body_a.kind == BodyKind::Static || body_b.kind == BodyKind::Static {
                let reach = |s: &Shape| match s.proxy.kind() {
                    ProxyKind::Static => s.fat_aabb,
                    ProxyKind::Moving => reaches[s.proxy.tree_id() as usize],
                };
                !reach(shape_a).overlaps(&reach(shape_b))
            } else {
                !shape_a.fat_aabb.overlaps(&shape_b.fat_aabb)
            };
            if parted {
                c.kill();
                return Outcome::REMOVED;
            }
            let speculative =
                speculative_distance(body_a, body_b, relative_closing, h, gravity_drop);
            // The tight boxes (this step's, radii included) apart by more than the
            // speculative distance along x or y: the shapes are at least that far apart,
            // so no point is kept; skip the kernel (fat boxes overlap long before this).
            let gap =
                (shape_a.aabb.min - shape_b.aabb.max).max(shape_b.aabb.min - shape_a.aabb.max);
            if gap.x > speculative || gap.y > speculative {
                // Most far pairs were already empty: leave them untouched.
                if c.manifold.count > 0 {
                    c.update_manifold(Manifold::EMPTY);
                    c.cache.valid = false;
                }
                return 0;
            }
            let mut outcome = 0;
            let (xf_a, xf_b) = (body_a.transform(), body_b.transform());
            // Soft step: reuse the manifold while the pair has hardly moved relative to
            // itself (a resting stack: most of a pyramid's contacts, every step).
            let recycled = if recycle {
                c.recycle(
                    body_a.center,
                    body_b.center,
                    &xf_a,
                    &xf_b,
                    body_a.motion_extent().max(body_b.motion_extent()),
                )
            } else {
                None
            };
            c.recycled = recycled.is_some();
            if let Some(check) = recycled {
                outcome |= Outcome::REUSED;
                *recycled_check = Some(check);
            } else {
                let manifold = collision::collide(
                    &shape_a.geometry,
                    &xf_a,
                    &shape_b.geometry,
                    &xf_b,
                    speculative,
                );
                c.update_manifold(manifold);
                if recycle {
                    c.cache_manifold(body_a.center, body_b.center, &xf_a, &xf_b);
                } else {
                    // Stale once the classic solver has changed the manifold.
                    c.cache.valid = false;
                }
            }
            if c.manifold.count > 0 {
                if !body_a.awake && body_a.kind != BodyKind::Static {
                    outcome |= Outcome::WAKE_A;
                }
                if !body_b.awake && body_b.kind != BodyKind::Static {
                    outcome |= Outcome::WAKE_B;
                }
            }
            outcome
        };
        // With `checks`, each recycled manifold's check goes to the contact's slot of
        // `recycled_checks`, stamped with this narrow phase's number (older stamps are
        // stale).
        self.narrow_phases = self.narrow_phases.wrapping_add(1);
        let phase = self.narrow_phases;
        if checks && self.recycled_checks.len() < self.contacts.len() {
            resize_total(
                &mut self.recycled_checks,
                self.contacts.len(),
                RecycledCheck::default(),
            );
        }
        let recycled_checks = DisjointMut::new(&mut self.recycled_checks);
        let update = |index: usize, c: &mut Contact| {
            let mut recycled_check = None;
            let flags = narrow(c, &mut recycled_check);
            if let Some(check) = recycled_check.filter(|_| checks) {
                // SAFETY: every contact is updated once, so each slot is written by one
                // thread (the slots cover the contacts: resized above).
                let slot = unsafe { recycled_checks.get(index) };
                *slot = RecycledCheck {
                    phase,
                    count: check.count as u8,
                    finite: check.finite,
                    separations: check.separations,
                };
            }
            ContactUpdate::new(flags, c)
        };
        let sum = |sums: &mut NarrowSums, contacts: &[Contact], outcomes: &[ContactUpdate]| {
            for (c, outcome) in contacts.iter().zip(outcomes) {
                sums.add(outcome, c);
            }
        };
        // Every outcome is written below: the last step's are left to be overwritten, not
        // cleared first (on many pyramids a serial pass over 700 kB).
        resize_total(
            &mut self.outcomes,
            self.contacts.len(),
            ContactUpdate::default(),
        );
        // What the outcomes add up to is gathered by each chunk, a block at a time right
        // after it is mapped, then joined in contact order (a serial pass over the outcomes
        // was 0.08 ms of many pyramids' two-thread step).
        let mut sums = std::mem::take(&mut self.narrow_sums);
        let (contacts, outcomes) = (&mut self.contacts, &mut self.outcomes);
        let chunks = threads.map_mut_fold(contacts, outcomes, &mut sums, update, sum);
        let mut to_wake: Vec<BodyHandle> = Vec::new();
        let (mut any_removed, mut any_nonfinite) = (false, false);
        let (mut touching, mut reused) = (0, 0);
        for part in &sums[..chunks] {
            touching += part.touching;
            reused += part.reused;
            any_removed |= part.any_removed;
            any_nonfinite |= part.any_nonfinite;
            to_wake.extend_from_slice(&part.to_wake);
        }
        self.narrow_sums = sums;
        self.clean_touching = (!any_removed && !any_nonfinite).then_some(touching);
        if any_removed {
            // The parted pairs' keys first, then out of the set a few keys behind their
            // prefetch: each removal is a miss into a table larger than the caches.
            let mut parted = std::mem::take(&mut self.parted);
            parted.clear();
            let removed = self.contacts.iter().zip(&self.outcomes);
            for ((c, outcome), slots) in removed.zip(&mut self.body_slots) {
                if outcome.flags & Outcome::REMOVED != 0 {
                    parted.push(pair_key(c.shape_a.index(), c.shape_b.index()));
                    *slots = DEAD_SLOTS;
                    self.dead += 1;
                }
            }
            for (k, key) in parted.iter().enumerate() {
                if let Some(&ahead) = parted.get(k + KEYS_AHEAD) {
                    self.pair_keys.prefetch(ahead);
                }
                self.pair_keys.remove(key);
            }
            self.parted = parted;
            if self.dead * COMPACT_EVERY > self.contacts.len() {
                self.compact();
            }
        }
        stats.manifolds_reused += reused;
        to_wake
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::math::Vec2;

    #[test]
    fn pair_key_is_symmetric() {
        assert_eq!(pair_key(3, 9), pair_key(9, 3));
        assert_ne!(pair_key(3, 9), pair_key(3, 8));
    }

    #[test]
    fn matching_by_feature_id_keeps_impulses() {
        let mut old = Manifold::EMPTY;
        old.push(Vec2::ZERO, -0.01, 7);
        old.push(Vec2::X, -0.01, 9);
        old.points[0].normal_impulse = 2.0;
        old.points[1].tangent_impulse = -1.0;
        let mut contact = Contact {
            shape_a: ShapeHandle::new(0, 0),
            shape_b: ShapeHandle::new(1, 0),
            body_a: BodyHandle::new(0, 0),
            body_b: BodyHandle::new(1, 0),
            manifold: old,
            friction: 0.6,
            restitution: 0.0,
            cache: ManifoldCache::default(),
            recycled: false,
            dead: false,
        };
        let mut fresh = Manifold::EMPTY;
        fresh.push(Vec2::X, -0.02, 9);
        fresh.push(Vec2::Y, -0.02, 4);
        contact.update_manifold(fresh);
        let p = contact.manifold.points();
        assert_eq!((p[0].tangent_impulse, p[0].persisted), (-1.0, true));
        assert_eq!((p[1].normal_impulse, p[1].persisted), (0.0, false));
        assert!((mix_friction(0.4, 0.9) - 0.6).abs() < 1e-6);
        assert_eq!(mix_restitution(0.2, 0.5), 0.5);
    }

    /// A box resting on the ground: the cached manifold follows small motions exactly along
    /// the normal and is refused after large ones or a turn of the world frame.
    #[test]
    fn recycled_manifold_tracks_small_motion_and_refuses_large() {
        use crate::physics::collision::collide;
        use crate::physics::shape::{Geometry, Polygon};
        let ground = Geometry::Polygon(Polygon::new_box(5.0, 0.5).unwrap());
        let block = Geometry::Polygon(Polygon::new_box(0.5, 0.5).unwrap());
        let xf_a = Transform {
            p: Vec2::new(0.0, -0.5),
            q: Rot::IDENTITY,
        };
        let at = |x: f32, y: f32, angle: f32| Transform {
            p: Vec2::new(x, y),
            q: Rot::from_angle(angle),
        };
        let mut contact = Contact {
            shape_a: ShapeHandle::new(0, 0),
            shape_b: ShapeHandle::new(1, 0),
            body_a: BodyHandle::new(0, 0),
            body_b: BodyHandle::new(1, 0),
            manifold: Manifold::EMPTY,
            friction: 0.6,
            restitution: 0.0,
            cache: ManifoldCache::default(),
            recycled: false,
            dead: false,
        };
        let xf_b = at(0.0, 0.49, 0.0);
        contact.update_manifold(collide(&ground, &xf_a, &block, &xf_b, 0.02));
        assert_eq!(contact.manifold.count, 2);
        contact.cache_manifold(xf_a.p, xf_b.p, &xf_a, &xf_b);
        assert!(contact.cache.valid);

        // 1 cm up and 1 cm sideways: reused, each separation 1 cm larger (the normal is +y).
        let moved = at(0.01, 0.50, 0.0);
        let separations = |c: &Contact| -> Vec<f32> {
            c.manifold.points().iter().map(|p| p.separation).collect()
        };
        let before = separations(&contact);
        assert!(contact
            .recycle(xf_a.p, moved.p, &xf_a, &moved, 0.71)
            .is_some());
        for (p, s0) in contact.manifold.points().iter().zip(before) {
            assert!(
                (p.separation - (s0 + 0.01)).abs() < 1e-6,
                "{} vs {}",
                p.separation,
                s0
            );
            assert!(p.persisted);
        }
        // The kernel agrees with the recycled separations.
        let fresh = collide(&ground, &xf_a, &block, &moved, 0.02);
        for (p, f) in contact.manifold.points().iter().zip(fresh.points()) {
            assert!((p.separation - f.separation).abs() < 1e-5);
        }

        // A tilt of 0.02 rad moves the corners by 0.71 * 0.02 = 1.4 cm: still reused, and the
        // corners' separations differ by the tilt.
        let tilted = at(0.0, 0.49, 0.02);
        let check = contact.recycle(xf_a.p, tilted.p, &xf_a, &tilted, 0.71);
        let s = separations(&contact);
        assert!((s[0] - s[1]).abs() > 0.015, "tilt not seen: {s:?}");
        // The check made while recycling is the store's check of the manifold as it is now
        // (the solver refreshes a lane from it), finite or not (compared bit for bit).
        let bits = |c: ManifoldCheck| (c.count, c.finite, c.separations.map(f32::to_bits));
        let same = |check: Option<ManifoldCheck>, c: &Contact| {
            check.map(bits) == Some(bits(ManifoldCheck::of(&c.manifold)))
        };
        assert!(same(check, &contact));
        assert!(check.unwrap().finite);
        for bad in [f32::NAN, f32::INFINITY] {
            let mut poisoned = contact.clone();
            let centre = Vec2::new(bad, 0.49);
            let check = poisoned.recycle(xf_a.p, centre, &xf_a, &tilted, 0.71);
            assert!(same(check, &poisoned));
            assert!(!check.unwrap().finite, "{bad}");
        }

        // Moved 6 cm (more than the 5 cm recycle distance), or turned 0.1 rad (7 cm at the
        // corners): the kernel must run, and the manifold is left as it was.
        let kept = contact.manifold;
        assert!(contact
            .recycle(
                xf_a.p,
                at(0.0, 0.55, 0.0).p,
                &xf_a,
                &at(0.0, 0.55, 0.0),
                0.71
            )
            .is_none());
        assert!(contact
            .recycle(xf_a.p, xf_b.p, &xf_a, &at(0.0, 0.49, 0.1), 0.71)
            .is_none());
        assert_eq!(contact.manifold, kept);

        // Both bodies turned together by 15 degrees: the relative pose is unchanged but the
        // world normal is stale.
        let turn = Rot::from_angle(15f32.to_radians());
        let xf_a2 = Transform { p: xf_a.p, q: turn };
        let xf_b2 = xf_a2.mul(&xf_a.inv_mul(&xf_b));
        assert!(contact
            .recycle(xf_a2.p, xf_b2.p, &xf_a2, &xf_b2, 0.71)
            .is_none());

        // An empty manifold is never recycled.
        contact.update_manifold(Manifold::EMPTY);
        contact.cache_manifold(xf_a.p, xf_b.p, &xf_a, &xf_b);
        assert!(!contact.cache.valid);
        assert!(contact
            .recycle(xf_a.p, xf_b.p, &xf_a, &xf_b, 0.71)
            .is_none());
    }

    /// Parted pairs, and the contacts of destroyed bodies and shapes and of newly joined
    /// bodies, wait dead in the array and are dropped in batches; a world whose dead
    /// contacts are dropped every step (as before) steps bit for bit the same, reports the
    /// same contacts in the same order, and no reader sees a dead one.
    #[test]
    fn dead_contacts_wait_in_place_without_changing_anything() {
        use crate::physics::body::BodyDef;
        use crate::physics::settings::{SolverKind, SolverSettings};
        use crate::physics::shape::{Geometry, Polygon, ShapeDef};
        use crate::physics::world::World;
        let mut a = World::new(SolverSettings {
            solver: SolverKind::SoftStep,
            sleep: false,
            ..SolverSettings::default()
        });
        let ground = a
            .create_body(&BodyDef::fixed(Vec2::new(0.0, -1.0)))
            .unwrap();
        let slab = Geometry::Polygon(Polygon::new_box(30.0, 1.0).unwrap());
        a.create_shape(ground, &ShapeDef::new(slab)).unwrap();
        let cube = Geometry::Polygon(Polygon::new_box(0.5, 0.5).unwrap());
        // A resting pyramid (most of the contacts) ...
        let mut pyramid = Vec::new();
        for row in 0..12 {
            for k in 0..12 - row {
                let x = (k as f32 - (11 - row) as f32 * 0.5) * 1.05;
                let body = a
                    .create_body(&BodyDef::dynamic(Vec2::new(x, 0.5 + row as f32)))
                    .unwrap();
                a.create_shape(body, &ShapeDef::new(cube)).unwrap();
                pyramid.push(body);
            }
        }
        // ... and four rows of boxes high above, flying apart: their pairs part a few a
        // step, more of them at last than the pyramid's (so the array is half dead once).
        for row in 0..4 {
            for k in 0..40 {
                let v = Vec2::new((k as f32 - 19.5) * 0.4, (row as f32 - 1.5) * 0.4);
                let at = Vec2::new(k as f32 * 1.01 - 20.0, 30.0 + row as f32 * 1.01);
                let body = a
                    .create_body(&BodyDef::dynamic(at).linear_velocity(v))
                    .unwrap();
                a.create_shape(body, &ShapeDef::new(cube)).unwrap();
            }
        }
        let mut b = a.clone();
        // Every contact's body slots beside it, and none left on a destroyed body.
        let check = |w: &World| {
            let set = &w.contacts;
            assert_eq!(set.body_slots.len(), set.contacts.len());
            for (c, &slots) in set.contacts.iter().zip(&set.body_slots) {
                let expected = if c.is_dead() {
                    DEAD_SLOTS
                } else {
                    assert!(w.body(c.body_a).is_some() && w.body(c.body_b).is_some());
                    assert!(w.shape(c.shape_a).is_some() && w.shape(c.shape_b).is_some());
                    [c.body_a.index() as u32, c.body_b.index() as u32]
                };
                assert_eq!(slots, expected);
            }
        };
        // Edits between steps, the same in both worlds: every 20 steps a pyramid body is
        // destroyed, the shape of another is replaced (its contacts go, its slot may be
        // reused), and two touching neighbours are welded (their contact goes).
        let edit = |w: &mut World, round: usize| {
            // The first pyramid body from the `k`-th on that still exists.
            let at = |w: &World, k: usize| {
                (k..k + pyramid.len())
                    .map(|k| pyramid[k % pyramid.len()])
                    .find(|&h| w.body(h).is_some())
                    .unwrap()
            };
            let before = w.contact_count();
            w.destroy_body(at(w, 7 * round + 3)).unwrap();
            let body = at(w, 7 * round + 40);
            let shape = w.body(body).unwrap().shapes()[0];
            w.destroy_shape(shape).unwrap();
            w.create_shape(body, &ShapeDef::new(cube)).unwrap();
            let left = at(w, 5 * round + 60);
            let right = at(w, pyramid.iter().position(|&h| h == left).unwrap() + 1);
            let anchor = w.body(left).unwrap().position();
            let weld = crate::physics::joint::WeldJointDef {
                anchor,
                ..Default::default()
            };
            w.create_joint(&crate::physics::joint::JointDef::new(left, right, weld))
                .unwrap();
            assert!(w.contact_count() < before, "round {round}: no contact went");
        };
        let (mut most_dead, mut compactions) = (0, 0);
        for step in 0..240 {
            if step % 20 == 10 {
                edit(&mut a, step / 20);
                edit(&mut b, step / 20);
                b.contacts.compact();
                check(&a);
            }
            let dead_before = a.contacts.dead;
            a.step(1.0 / 60.0);
            b.step(1.0 / 60.0);
            // Reports before the compaction: it moves contacts under the solver's colours.
            let b_reports = b.contact_point_reports();
            b.contacts.compact();
            assert_eq!(b.contacts.dead, 0);
            let dead = a.contacts.dead;
            most_dead = most_dead.max(dead);
            if dead < dead_before {
                compactions += 1;
            }
            assert!(
                dead * COMPACT_EVERY <= a.contacts.contacts.len(),
                "step {step}"
            );
            assert_eq!(a.state_hash(), b.state_hash(), "step {step}");
            assert_eq!(a.contact_count(), b.contacts.contacts.len(), "step {step}");
            assert_eq!(a.contacts().count(), a.contact_count(), "step {step}");
            assert_eq!(a.stats().pairs, a.contact_count(), "step {step}");
            assert!(a.contacts().all(|c| !c.is_dead()));
            let keys = |w: &World| w.contacts().map(|c| c.key()).collect::<Vec<_>>();
            assert_eq!(keys(&a), keys(&b), "step {step}");
            assert_eq!(a.contact_point_reports(), b_reports, "step {step}");
            check(&a);
        }
        assert!(most_dead >= 5, "at most {most_dead} dead contacts at once");
        assert!(compactions >= 1, "never compacted");
    }

    /// A body touching nothing (here flying) gets a broad-phase reach covering
    /// `FAT_BOX_PREDICTION_STEPS` of its motion ahead, so at a steady speed its reach moves
    /// every other step; a body touching another (here sliding on the ground) gets one
    /// step of sweep: its reach moves every step and reaches no further ahead than that.
    /// The fat boxes of both are not swept: they move every step (the speed is above the
    /// margin a step) and reach the margin ahead.
    #[test]
    fn only_bodies_touching_nothing_get_predicted_boxes() {
        use crate::physics::body::BodyDef;
        use crate::physics::settings::{SolverKind, SolverSettings};
        use crate::physics::shape::{Geometry, Polygon, ShapeDef};
        use crate::physics::world::World;
        let (dt, v) = (1.0 / 60.0, 10.0);
        let mut w = World::new(SolverSettings {
            solver: SolverKind::SoftStep,
            sleep: false,
            gravity: Vec2::ZERO,
            ..SolverSettings::default()
        });
        let ground = w
            .create_body(&BodyDef::fixed(Vec2::new(0.0, -0.5)))
            .unwrap();
        let slab = Geometry::Polygon(Polygon::new_box(200.0, 0.5).unwrap());
        w.create_shape(ground, &ShapeDef::new(slab).friction(0.0))
            .unwrap();
        let cube = Geometry::Polygon(Polygon::new_box(0.5, 0.5).unwrap());
        let mut bodies = Vec::new();
        let mut shapes = Vec::new();
        for y in [0.5, 10.0] {
            let def = BodyDef::dynamic(Vec2::new(0.0, y)).linear_velocity(Vec2::new(v, 0.0));
            let body = w.create_body(&def).unwrap();
            shapes.push(w.create_shape(body, &ShapeDef::new(cube)).unwrap());
            bodies.push(body);
        }
        let touching = |w: &World, body: BodyHandle| {
            w.contacts
                .live()
                .any(|c| c.manifold.count > 0 && (c.body_a == body || c.body_b == body))
        };
        // The first step makes the slider's contact with the ground (after moving the
        // boxes): it touches from the second step on.
        w.step(dt);
        let reach_of = |w: &World, k: usize| {
            let proxy = w.shape(shapes[k]).unwrap().proxy;
            w.broad_phase.reach_aabb(proxy)
        };
        let mut last = [0, 1].map(|k| reach_of(&w, k));
        let (mut moves, mut reach) = ([0; 2], [0.0f32; 2]);
        let mut fat_ahead = [0.0f32; 2];
        for _ in 0..30 {
            w.step(dt);
            assert!(touching(&w, bodies[0]) && !touching(&w, bodies[1]));
            for k in 0..2 {
                let s = w.shape(shapes[k]).unwrap();
                let r = reach_of(&w, k);
                if r != last[k] {
                    moves[k] += 1;
                    reach[k] = reach[k].max(r.max.x - s.aabb.max.x);
                }
                last[k] = r;
                fat_ahead[k] = fat_ahead[k].max(s.fat_aabb.max.x - s.aabb.max.x);
            }
        }
        let margin = w.shape(shapes[0]).unwrap().margin;
        let ahead = |steps: f32| steps * v * dt + SPECULATIVE_DISTANCE + margin;
        for (k, fat) in fat_ahead.into_iter().enumerate() {
            assert!(
                (fat - ahead(0.0)).abs() < 1e-3,
                "body {k}'s fat box {fat} ahead"
            );
        }
        assert!(
            moves[0] >= 29,
            "the slider's box moved on {} of 30 steps",
            moves[0]
        );
        assert!(
            (reach[0] - ahead(1.0)).abs() < 1e-3,
            "slider's box {} ahead",
            reach[0]
        );
        assert!(
            (13..=17).contains(&moves[1]),
            "the flyer's box moved {} times",
            moves[1]
        );
        let predicted = ahead(FAT_BOX_PREDICTION_STEPS);
        assert!(
            (reach[1] - predicted).abs() < 1e-3,
            "flyer's box {} ahead",
            reach[1]
        );
        // The touching bodies from the narrow phase's list and from the manifolds agree:
        // the ground and the slider.
        let slots = w.bodies.capacity();
        assert_eq!(w.contacts.outcomes.len(), w.contacts.contacts.len());
        let one = Threads::default();
        let from_list = w.contacts.touching_bodies(slots, &one).to_vec();
        let two = Threads::new(2).unwrap();
        assert_eq!(from_list, w.contacts.touching_bodies(slots, &two));
        w.contacts.forget_outcomes();
        assert_eq!(from_list, w.contacts.touching_bodies(slots, &one));
        let marked: Vec<usize> = (0..slots).filter(|&i| from_list[i]).collect();
        assert_eq!(marked, vec![ground.index(), bodies[0].index()]);
    }
}
