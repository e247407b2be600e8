//! The quarantine: after the solver's driver, no number the step carries over is left
//! non-finite or outside the range an export is loaded in.
//!
//! `World::step` calls [`World::quarantine`] after the driver (classic: after each of its
//! sub-steps too, before the next collide), whatever the solver, so every driver is covered.
//! It:
//! 1. holds every awake body's speeds to the caps ([`cap_speeds`]): the relax and
//!    restitution passes run after `integrate_positions` and may push a body past them;
//! 2. finds every awake body whose pose or velocity is not finite, or whose position or
//!    angle left the saved-state range (±1e18, [`limits::SAVED_STATE`]), and **freezes**
//!    it: its pose goes back to where it was at the start of the step, its velocities to
//!    zero, and it becomes kinematic at rest (infinite mass, no gravity). Its joints'
//!    impulses are reset; its contacts lose their impulses, and those with a body that is not
//!    dynamic are dropped (two bodies of infinite mass have no contact);
//! 3. holds every joint's accumulated impulses inside the saved range (±1e30 N s,
//!    [`limits::ACCUMULATED_IMPULSE`]), resetting a joint whose impulse is not finite;
//! 4. holds every contact impulse in that range, and empties a manifold holding a number
//!    that is not finite (the next collide computes it afresh).
//!
//! Step 4 for the soft step's contacts is done by its impulse store, for each contact it
//! writes, while the contact is in cache ([`hold_contact`], counted in a [`ContactTally`]);
//! the quarantine then visits only the contacts the solver did not write: the touching
//! contacts of sleeping bodies and the manifolds without points whose normal the narrow
//! phase found not finite (a manifold without points is its normal: the narrow phase checks
//! every one it leaves). It falls back to the pass over every contact when a body was frozen
//! (its contacts changed) or the store met a number that is not finite. Either way every
//! contact ends the same, and the stats count the same.
//!
//! Everything it does is reported in [`StepStats`] (`quarantined_bodies`,
//! `quarantined_joints`, `quarantined_contacts`); the testbed shows an error line naming the
//! bodies and the command line's `run` exits with status 3.
//!
//! **Frozen, not reset.** A body goes non-finite because of what it is given (a spring of
//! 1e30 Hz, a huge impulse, a density at the edge of the range): reset to its last pose
//! and left dynamic, it would blow up again on the next step and its NaN would reach its
//! neighbours through the warm-started impulses. Frozen, it is reported once, its
//! neighbours see an immovable body at a finite pose, and its export loads and continues
//! bit for bit (it is saved as the kinematic body it now is). The user sees which body it
//! was and can change it; zeroing its velocity and letting it hang in the air, as the step
//! once did, hid all of that.
//!
//! Bodies that went non-finite in the same step are all frozen: Gauss-Seidel passes an
//! impulse to both bodies of a constraint at once, so a constraint that produces NaN
//! reaches both (and, within that step, the island) before any check could run. From the
//! next step on nothing spreads.
//!
//! Inside the ranges every number is left bit for bit as the driver wrote it.

use std::sync::atomic::{AtomicBool, Ordering};

use super::body::{Body, BodyKind};
use super::collision::Manifold;
use super::contact::{Contact, NOT_TOUCHING};
use super::limits;
use super::math::Vec2;
use super::solver::step::cap_speeds;
use super::threads::{Padded, MIN_ARENA_BODIES_PER_THREAD};
use super::world::World;
use super::BodyHandle;

/// Joint slots per thread below which the quarantine holds the joints on one thread (a
/// joint costs a few nanoseconds, waking the team about a microsecond).
const MIN_HELD_JOINTS_PER_THREAD: usize = 1024;

/// True when `x` is finite and inside the saved-state range.
fn in_saved_range(x: f32) -> bool {
    x.abs() <= limits::SAVED_STATE.max
}

/// `v` held inside the saved impulse range (±[`limits::ACCUMULATED_IMPULSE`]).
fn held(v: f32) -> f32 {
    let max = limits::ACCUMULATED_IMPULSE.max;
    if v > max {
        max
    } else if v < -max {
        -max
    } else {
        v
    }
}

/// The touching-contact counts of the stats, gathered by the contact pass (`World::
/// quarantine`, or the soft step's store for the contacts it wrote).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactTally {
    pub contacts: usize,
    pub points: usize,
    pub max_penetration: f32,
    /// Every contact held was finite (`hold_contact` returned true).
    pub all_finite: bool,
}

impl Default for ContactTally {
    fn default() -> ContactTally {
        ContactTally {
            contacts: 0,
            points: 0,
            max_penetration: 0.0,
            all_finite: true,
        }
    }
}

impl ContactTally {
    /// Both tallies together (sums, the larger penetration): the same whatever the order.
    pub(crate) fn merge(&mut self, other: &ContactTally) {
        self.contacts += other.contacts;
        self.points += other.points;
        self.max_penetration = self.max_penetration.max(other.max_penetration);
        self.all_finite &= other.all_finite;
    }
}

/// Step 4 for one contact: when every number of its manifold is finite, hold its impulses
/// to the saved range, count it in `tally` and return true; otherwise leave it as it is,
/// mark `tally` and return false (the caller empties it).
pub(crate) fn hold_contact(c: &mut Contact, tally: &mut ContactTally) -> bool {
    let p = &c.manifold.points;
    let impulses = [0, 1].map(|k| {
        [
            p[k].normal_impulse,
            p[k].tangent_impulse,
            p[k].max_normal_impulse,
        ]
    });
    store_and_hold(c, impulses, tally)
}

/// `hold_contact` for a contact given new impulses (per point: normal, tangent, largest
/// normal; the points past the manifold's count ignored): the soft step's store, which
/// writes each contact once instead of writing the solver's impulses, then reading and
/// writing them again held.
#[inline(always)]
pub(crate) fn store_and_hold(
    c: &mut Contact,
    impulses: [[f32; 3]; 2],
    tally: &mut ContactTally,
) -> bool {
    let finite = impulses.map(|i| i.iter().all(|x| x.is_finite()));
    store_checked(c, impulses, impulses.map(|i| i.map(held)), finite, tally)
}

/// Infinite or NaN (every exponent bit set), without a branch: `ManifoldCheck`'s test.
#[inline(always)]
pub(crate) fn not_finite(x: f32) -> bool {
    const EXPONENT: u32 = 0x7f80_0000;
    x.to_bits() & EXPONENT == EXPONENT
}

/// What the store needs of a contact's manifold: its live point count, whether its normal
/// and its live points' positions and separations are all finite, and those separations
/// (the tally's deepest penetration). The soft step's prepare reads the manifold anyway
/// and keeps this in the constraint's lane, so that its store only writes the contact
/// (reading it first stalled the store on every contact's lines).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ManifoldCheck {
    pub count: usize,
    pub finite: bool,
    /// Per live point (zeros past `count`).
    pub separations: [f32; 2],
}

impl ManifoldCheck {
    /// The check of `m` as it is now (without branches: the prepare makes it for every
    /// constraint).
    #[inline(always)]
    pub(crate) fn of(m: &Manifold) -> ManifoldCheck {
        let count = m.count;
        let mut bad = not_finite(m.normal.x) | not_finite(m.normal.y);
        let mut separations = [0.0; 2];
        for (k, (p, s)) in m.points.iter().zip(&mut separations).enumerate() {
            let live = k < count;
            bad |=
                live & (not_finite(p.point.x) | not_finite(p.point.y) | not_finite(p.separation));
            *s = if live { p.separation } else { 0.0 };
        }
        ManifoldCheck {
            count,
            finite: !bad,
            separations,
        }
    }
}

/// `store_and_hold` with the impulses' checks made beforehand (the soft step's store makes
/// them for a batch of constraints at once): per point, the impulses as given (`raw`),
/// the same held to the saved range (what `held` gives) and whether all three are finite.
#[inline(always)]
pub(crate) fn store_checked(
    c: &mut Contact,
    raw: [[f32; 3]; 2],
    held_impulses: [[f32; 3]; 2],
    impulses_finite: [bool; 2],
    tally: &mut ContactTally,
) -> bool {
    let check = ManifoldCheck::of(&c.manifold);
    store_with(c, check, raw, held_impulses, impulses_finite, tally)
}

/// `store_checked` with the manifold's own checks made beforehand too (`check`, of the
/// manifold as it still is): writes the contact's impulses without reading it. The
/// manifold is whole when it and the impulses of its live points are finite: then the
/// held impulses are written and the contact counted; otherwise the impulses as given,
/// and `tally` marked.
#[inline(always)]
pub(crate) fn store_with(
    c: &mut Contact,
    check: ManifoldCheck,
    raw: [[f32; 3]; 2],
    held_impulses: [[f32; 3]; 2],
    impulses_finite: [bool; 2],
    tally: &mut ContactTally,
) -> bool {
    let count = check.count;
    let finite = check.finite && impulses_finite.iter().take(count).all(|&f| f);
    let points = c.manifold.points.iter_mut().take(count);
    if !finite {
        for (p, &[normal, tangent, max_normal]) in points.zip(&raw) {
            p.normal_impulse = normal;
            p.tangent_impulse = tangent;
            p.max_normal_impulse = max_normal;
        }
        tally.all_finite = false;
        return false;
    }
    if count > 0 {
        tally.contacts += 1;
        tally.points += count;
    }
    for ((p, &[normal, tangent, max_normal]), &separation) in
        points.zip(&held_impulses).zip(&check.separations)
    {
        p.normal_impulse = normal;
        p.tangent_impulse = tangent;
        p.max_normal_impulse = max_normal;
        tally.max_penetration = tally.max_penetration.max(-separation);
    }
    true
}

/// A body's pose in the saved-state range and its speeds finite (else it is frozen).
fn body_in_range(b: &Body) -> bool {
    let pose_ok =
        in_saved_range(b.center.x) && in_saved_range(b.center.y) && in_saved_range(b.angle);
    pose_ok && b.linear_velocity.is_finite() && b.angular_velocity.is_finite()
}

impl World {
    /// Stage 3, after the driver: hold speeds to the caps and impulses to the saved range,
    /// and freeze what is not finite (see the module docs).
    pub(super) fn quarantine(&mut self) {
        // 1-2. Bodies: speeds capped across the threads (runs of the awake list); a body
        // out of range is left as it is, and when there is one, a serial pass lists them
        // in awake order (a capped body passes the test again unchanged).
        let awake = &self.islands.awake;
        let arena = self.bodies.shared();
        let any_out = AtomicBool::new(false);
        let threads = &self.solver.threads;
        let worth_it = awake.len() >= MIN_ARENA_BODIES_PER_THREAD * threads.count();
        threads.ranges(awake.len(), worth_it, |run| {
            for &i in &awake[run] {
                // SAFETY: awake slots are distinct and each is in one run.
                let b = unsafe { arena.at_mut(i) };
                if body_in_range(b) {
                    (b.linear_velocity, b.angular_velocity) =
                        cap_speeds(b.linear_velocity, b.angular_velocity);
                } else {
                    any_out.store(true, Ordering::Relaxed);
                }
            }
        });
        let mut frozen: Vec<(usize, usize)> = Vec::new();
        if any_out.into_inner() {
            for (k, &i) in self.islands.awake.iter().enumerate() {
                if !body_in_range(self.bodies.at(i)) {
                    frozen.push((i, k));
                }
            }
        }
        let frozen_none = frozen.is_empty();
        for (i, k) in frozen {
            self.freeze_body(i, k);
        }

        // 3. Joints: held across the threads (equal runs of slots: each joint is held
        // alone), the ones not finite listed by run and taken in slot order.
        let threads = &self.solver.threads;
        let capacity = self.joints.capacity();
        let worth_it = capacity >= MIN_HELD_JOINTS_PER_THREAD * threads.count();
        let mut lists: Vec<Padded<Vec<usize>>> = Vec::new();
        let joints = self.joints.shared();
        let parts = threads.runs_into(capacity, worth_it, &mut lists, |run, list| {
            for i in run {
                // SAFETY: the parts' runs of slots are disjoint.
                if let Some(j) = unsafe { joints.get_mut(i) } {
                    if !j.hold_impulses() {
                        list.push(i);
                    }
                }
            }
        });
        for &i in lists[..parts].iter().flat_map(|list| list.iter()) {
            if let Some(handle) = self.joints.handle_at(i) {
                self.stats.quarantined_joints.push(handle);
            }
        }

        // 4. Contacts. The soft step's store already held the contacts it wrote
        // (`ContactTally`): then only the others are visited, unless a body was frozen
        // (its contacts changed) or the store met a number that is not finite.
        let stored = self.solver.contacts.take_tally();
        let clean_touching = self.contacts.clean_touching();
        let mut tally = ContactTally::default();
        let (contacts, touching) = self.contacts.with_touching_slots();
        let mut quarantined = 0;
        let mut hold = |c: &mut Contact, tally: &mut ContactTally| {
            if !hold_contact(c, tally) {
                let m = &mut c.manifold;
                m.count = 0;
                m.normal = Vec2::ZERO;
                c.cache.valid = false;
                quarantined += 1;
            }
        };
        match (stored, touching) {
            (Some(stored), Some(touching)) if frozen_none && stored.all_finite => {
                tally = stored;
                let written = self.solver.contacts.stored_contacts();
                // The stored contacts are touching and distinct: when they are as many as
                // the touching ones and no normal is out of range, no other needs holding.
                if clean_touching != Some(written.len()) {
                    // The stored contacts, ascending.
                    let mut written = written.iter().peekable();
                    for (ci, (c, update)) in contacts.iter_mut().zip(touching).enumerate() {
                        if written.next_if_eq(&&(ci as u32)).is_some() {
                            continue;
                        }
                        // Without points, a manifold is its normal, which the narrow phase
                        // checked for every contact it left (`NONFINITE`).
                        if update.slots == NOT_TOUCHING && !update.nonfinite() {
                            continue;
                        }
                        hold(c, &mut tally);
                    }
                }
            }
            _ => {
                for c in contacts.iter_mut() {
                    hold(c, &mut tally);
                }
            }
        }
        if quarantined > 0 {
            // The zeroed manifolds no longer match the narrow phase's touching list.
            self.contacts.forget_outcomes();
        }
        self.stats.quarantined_contacts += quarantined;
        let ContactTally {
            contacts,
            points,
            max_penetration,
            ..
        } = tally;
        self.stats.contacts = contacts;
        self.stats.manifold_points = points;
        self.stats.max_penetration = max_penetration;
        self.contact_stats_done = true;
    }

    /// Freeze the awake body in slot `slot` (`k`-th awake body): back to its pose at the
    /// start of the step, at rest, kinematic; its joints and contacts lose their impulses.
    fn freeze_body(&mut self, slot: usize, k: usize) {
        let Some(handle) = self.bodies.handle_at(slot) else {
            return;
        };
        let start = self.solver.start_pose(k);
        let b = self.bodies.at_mut(slot);
        if let Some((center, angle)) = start {
            b.center = center;
            b.angle = angle;
        }
        if !(in_saved_range(b.center.x) && in_saved_range(b.center.y) && in_saved_range(b.angle)) {
            // No finite pose to go back to (cannot happen: the step starts in range).
            b.center = Vec2::ZERO;
            b.angle = 0.0;
        }
        b.linear_velocity = Vec2::ZERO;
        b.angular_velocity = 0.0;
        b.force = Vec2::ZERO;
        b.torque = 0.0;
        b.kind = BodyKind::Kinematic;
        b.mass = 0.0;
        b.inv_mass = 0.0;
        b.inertia = 0.0;
        b.inv_inertia = 0.0;
        b.sync_transform();
        let joints = b.joints.clone();
        for j in joints {
            if let Some(joint) = self.joints.get_mut(j) {
                joint.zero_impulses();
            }
        }
        let bodies = &self.bodies;
        let other_moves = |other: BodyHandle| {
            bodies
                .get(other)
                .is_some_and(|o| o.kind == BodyKind::Dynamic)
        };
        self.contacts.remove_where(handle.index(), |c| {
            (c.body_a == handle && !other_moves(c.body_b))
                || (c.body_b == handle && !other_moves(c.body_a))
        });
        for c in self.contacts.live_mut() {
            if c.body_a == handle || c.body_b == handle {
                for p in c.manifold.points_mut() {
                    p.normal_impulse = 0.0;
                    p.tangent_impulse = 0.0;
                    p.max_normal_impulse = 0.0;
                }
                c.cache.valid = false;
            }
        }
        self.stats.quarantined_bodies.push(handle);
    }
}

/// What the last step's quarantine caught, as one line naming the bodies (by name when they
/// have one, else by handle) and the joints; `None` when it caught nothing. Names are given
/// as they are: escape them before printing.
pub fn describe_quarantine(world: &World) -> Option<String> {
    let stats = world.stats();
    if stats.quarantined() == 0 {
        return None;
    }
    let name = |h: BodyHandle| match world.body(h).and_then(|b| b.name()) {
        Some(n) => format!("body \"{n}\" ({h:?})"),
        None => format!("body {h:?}"),
    };
    let mut parts = Vec::new();
    if !stats.quarantined_bodies.is_empty() {
        let bodies: Vec<String> = stats.quarantined_bodies.iter().map(|&h| name(h)).collect();
        parts.push(format!(
            "{} went non-finite and {} frozen (kinematic, at rest, where {} at the start of \
             the step)",
            bodies.join(", "),
            if bodies.len() == 1 { "was" } else { "were" },
            if bodies.len() == 1 {
                "it was"
            } else {
                "they were"
            },
        ));
    }
    if !stats.quarantined_joints.is_empty() {
        let joints: Vec<String> = stats
            .quarantined_joints
            .iter()
            .map(|&h| match world.joint(h).and_then(|j| j.name()) {
                Some(n) => format!("joint \"{n}\" ({h:?})"),
                None => format!("joint {h:?}"),
            })
            .collect();
        parts.push(format!(
            "{} had an impulse that was not finite (reset)",
            joints.join(", ")
        ));
    }
    if stats.quarantined_contacts > 0 {
        parts.push(format!(
            "{} contact(s) held a number that was not finite (emptied)",
            stats.quarantined_contacts
        ));
    }
    Some(format!("step {}: {}", world.step_count(), parts.join("; ")))
}

#[cfg(test)]
mod tests {
    use crate::physics::body::{BodyDef, BodyKind};
    use crate::physics::joint::*;
    use crate::physics::limits::ACCUMULATED_IMPULSE;
    use crate::physics::math::Vec2;
    use crate::physics::settings::{SolverKind, SolverSettings};
    use crate::physics::shape::{Circle, Geometry, ShapeDef};
    use crate::physics::world::{StepStats, World};

    /// A fixed body and, for each of the ten joint kinds, a ball joined to it.
    fn every_joint_kind(solver: SolverKind) -> World {
        let mut world = World::new(SolverSettings {
            solver,
            ..SolverSettings::default()
        });
        let ground = world.create_body(&BodyDef::fixed(Vec2::ZERO)).unwrap();
        let kinds: [JointDefKind; 10] = [
            RevoluteJointDef::default().into(),
            PrismaticJointDef::new(Vec2::ZERO, Vec2::new(1.0, 0.0)).into(),
            WheelJointDef::new(Vec2::ZERO, Vec2::new(0.0, 1.0)).into(),
            WeldJointDef::new(Vec2::ZERO).into(),
            AngleJointDef::default().into(),
            PulleyJointDef {
                ground_anchor_a: Vec2::new(0.0, 3.0),
                ground_anchor_b: Vec2::new(1.0, 3.0),
                anchor_a: Vec2::ZERO,
                anchor_b: Vec2::new(1.0, 0.0),
                ratio: 1.0,
            }
            .into(),
            DistanceJointDef::new(Vec2::ZERO, Vec2::new(0.0, -1.0)).into(),
            MotorJointDef::default().into(),
            FrictionJointDef::default().into(),
            MouseJointDef::default().into(),
        ];
        for (i, kind) in kinds.into_iter().enumerate() {
            let y = -(i as f32) * 0.1;
            let ball = world
                .create_body(&BodyDef::dynamic(Vec2::new(0.0, y)))
                .unwrap();
            let disc = Geometry::Circle(Circle::new(Vec2::ZERO, 0.1).unwrap());
            world.create_shape(ball, &ShapeDef::new(disc)).unwrap();
            world
                .create_joint(&JointDef::new(ground, ball, kind))
                .unwrap();
        }
        world
    }

    /// A prismatic joint's saved `impulse` grew to 1.57e30, past the range the loader takes
    /// (fuzz seed 0x382f73e44ed86981), and its export did not load. Every joint kind, with
    /// every accumulated impulse set past the range, is held inside it after the step's
    /// quarantine, under both solvers; an impulse that is not finite resets the joint and is
    /// reported.
    #[test]
    fn every_joint_kind_holds_its_impulses_inside_the_saved_range() {
        for solver in [SolverKind::Classic, SolverKind::SoftStep] {
            let mut world = every_joint_kind(solver);
            world.step(1.0 / 60.0);
            let mut fields = 0;
            for (_, j) in world.joints.iter_mut() {
                for (k, x) in j.impulses_mut().into_iter().enumerate() {
                    *x = if k % 2 == 0 { 3e30 } else { -3e30 };
                    fields += 1;
                }
            }
            assert!(fields >= 30, "{fields} impulse numbers");
            // What the step runs after the driver (the growth itself takes a diverging
            // system: a step from here would also freeze the bodies and reset the joints).
            world.quarantine();
            assert_eq!(world.stats().quarantined(), 0);
            for (h, j) in world.joints.iter_mut() {
                let name = j.kind().type_name();
                for x in j.impulses_mut() {
                    assert!(
                        ACCUMULATED_IMPULSE.contains(*x),
                        "{solver:?} {name} joint {h:?}: {x}"
                    );
                }
            }
            // A NaN impulse: the joint is reset and reported, nothing else is touched.
            let (nan_joint, j) = world.joints.iter_mut().next().unwrap();
            *j.impulses_mut()[0] = f32::NAN;
            assert!(!world.joints.get_mut(nan_joint).unwrap().hold_impulses());
            let j = world.joints.get_mut(nan_joint).unwrap();
            assert!(j.impulses_mut().into_iter().all(|x| *x == 0.0));
        }
    }

    /// A ball whose velocity is made NaN behind the API's back (as a solver bug would) is
    /// frozen where it was and reported once; a ball falling onto it later lands on it and
    /// stays finite (the NaN does not spread).
    #[test]
    fn non_finite_body_is_frozen_and_reported() {
        let mut world = World::new(SolverSettings::default());
        let ball = |world: &mut World, y: f32| {
            let b = world
                .create_body(&BodyDef::dynamic(Vec2::new(0.0, y)))
                .unwrap();
            let disc = Geometry::Circle(Circle::new(Vec2::ZERO, 0.5).unwrap());
            world.create_shape(b, &ShapeDef::new(disc)).unwrap();
            b
        };
        let low = ball(&mut world, 0.0);
        let high = ball(&mut world, 1.5);
        for _ in 0..5 {
            world.step(1.0 / 60.0);
        }
        let before = world.body(low).unwrap().center();
        world.body_mut(low).unwrap().linear_velocity = Vec2::new(f32::NAN, 0.0);
        world.step(1.0 / 60.0);
        assert_eq!(world.stats().quarantined_bodies, vec![low]);
        let line = super::describe_quarantine(&world).unwrap();
        assert!(line.contains("#0v0") && line.contains("frozen"), "{line}");
        let b = world.body(low).unwrap();
        assert_eq!(b.kind(), BodyKind::Kinematic);
        assert_eq!(b.linear_velocity(), Vec2::ZERO);
        assert!((b.center() - before).length() < 1e-6, "{:?}", b.center());
        for _ in 0..90 {
            world.step(1.0 / 60.0);
            assert_eq!(world.stats().quarantined(), 0);
        }
        // The frozen ball holds the other up: it rests on top, 1 m above, at rest.
        let h = world.body(high).unwrap();
        assert!(h.center().is_finite() && h.linear_velocity().is_finite());
        assert!(
            (h.center().y - before.y - 1.0).abs() < 0.02,
            "{:?}",
            h.center()
        );
    }

    /// `ManifoldCheck::of` (bit tests, no branches) is the plain definition: the normal and
    /// the live points' positions and separations finite, whatever a dead point holds.
    #[test]
    fn the_manifold_check_is_every_live_number_finite() {
        use super::ManifoldCheck;
        use crate::physics::collision::Manifold;
        let specials = [
            0.25,
            -3.0,
            f32::NAN,
            f32::INFINITY,
            -f32::INFINITY,
            f32::MAX,
        ];
        let mut cases = 0;
        for count in 0..=2 {
            // One special value at a time in each of the 8 places, the rest ordinary.
            for place in 0..8 {
                for &x in &specials {
                    let mut values = [0.5f32; 8];
                    values[place] = x;
                    let mut m = Manifold::EMPTY;
                    m.normal = Vec2::new(values[0], values[1]);
                    for (k, p) in m.points.iter_mut().enumerate() {
                        p.point = Vec2::new(values[2 + 3 * k], values[3 + 3 * k]);
                        p.separation = values[4 + 3 * k];
                    }
                    m.count = count;
                    let plain = m.normal.is_finite()
                        && m.points()
                            .iter()
                            .all(|p| p.point.is_finite() && p.separation.is_finite());
                    let check = ManifoldCheck::of(&m);
                    assert_eq!(check.finite, plain, "count {count}, place {place}, {x}");
                    assert_eq!(check.count, count);
                    for k in 0..2 {
                        let expected = if k < count {
                            m.points[k].separation
                        } else {
                            0.0
                        };
                        assert_eq!(check.separations[k].to_bits(), expected.to_bits());
                    }
                    cases += usize::from(!plain);
                }
            }
        }
        assert!(cases > 30, "{cases} non-finite cases");
    }

    /// The store's tally (`fused`, the stats of a quarantine that took it) is the full
    /// contact pass's (`full`): the counts, and the deepest penetration bit for bit.
    fn assert_same_tally(fused: &StepStats, full: &StepStats, step: usize) {
        assert_eq!(
            (fused.contacts, fused.manifold_points),
            (full.contacts, full.manifold_points),
            "step {step}"
        );
        assert_eq!(
            fused.max_penetration.to_bits(),
            full.max_penetration.to_bits(),
            "step {step}"
        );
    }

    /// A step halted at a sub-step moves the contact points and separations with the
    /// bodies after the prepare (`StepSolver::stop`): its store checks the manifolds as
    /// they are then, not as the prepare saw them, so its tally is still the full pass's.
    #[test]
    fn a_halted_step_tallies_the_moved_contacts() {
        use crate::physics::shape::Polygon;
        use crate::physics::HaltPoint;
        let settings = SolverSettings {
            solver: SolverKind::SoftStep,
            substeps: 4,
            ..SolverSettings::default()
        };
        let mut world = World::new(settings);
        let ground = world.create_body(&BodyDef::fixed(Vec2::ZERO)).unwrap();
        let wide = Geometry::Polygon(Polygon::new_box(20.0, 0.5).unwrap());
        world.create_shape(ground, &ShapeDef::new(wide)).unwrap();
        // A column of boxes started 3 cm into each other: pushed apart over many steps.
        for k in 0..6 {
            let y = 0.97 + 0.97 * k as f32;
            let b = world
                .create_body(&BodyDef::dynamic(Vec2::new(0.0, y)))
                .unwrap();
            let square = Geometry::Polygon(Polygon::new_box(0.5, 0.5).unwrap());
            world.create_shape(b, &ShapeDef::new(square)).unwrap();
        }
        let (mut moved, mut halts) = (0, 0);
        for step in 0..60 {
            let mut halted = world.clone();
            halts += usize::from(halted.step_until(1.0 / 60.0, HaltPoint::Substep(3)).halted);
            // A halted step runs no quarantine: the first takes the store's tally, the
            // second (the tally taken) makes the full pass.
            halted.quarantine();
            let fused = halted.stats().clone();
            halted.quarantine();
            let full = halted.stats();
            assert_same_tally(&fused, full, step);
            world.step(1.0 / 60.0);
            // The whole step's tally is of the separations as the prepare saw them.
            if world.stats().max_penetration != full.max_penetration {
                moved += 1;
            }
        }
        assert!(halts == 60 && moved > 5, "{halts} halted, {moved} moved");
    }

    /// A ground, a box resting on it that may sleep, and two that may not: one resting,
    /// one falling from `drop` m; soft step.
    fn sleeping_and_awake_boxes(drop: f32) -> (World, crate::physics::BodyHandle) {
        use crate::physics::shape::Polygon;
        // The soft step: its store holds and tallies the contacts it writes.
        let mut world = World::new(SolverSettings {
            solver: SolverKind::SoftStep,
            substeps: 4,
            ..SolverSettings::default()
        });
        let ground = world.create_body(&BodyDef::fixed(Vec2::ZERO)).unwrap();
        let wide = Geometry::Polygon(Polygon::new_box(20.0, 0.5).unwrap());
        world.create_shape(ground, &ShapeDef::new(wide)).unwrap();
        let mut boxes = Vec::new();
        for (x, y, may_sleep) in [(-5.0, 1.0, true), (0.0, 1.0, false), (5.0, drop, false)] {
            let def = BodyDef {
                enable_sleep: may_sleep,
                ..BodyDef::dynamic(Vec2::new(x, y))
            };
            let b = world.create_body(&def).unwrap();
            let square = Geometry::Polygon(Polygon::new_box(0.5, 0.5).unwrap());
            world.create_shape(b, &ShapeDef::new(square)).unwrap();
            boxes.push(b);
        }
        (world, boxes[0])
    }

    /// The soft step's store holds the contacts it wrote and counts them for the stats
    /// (`ContactTally`), and the quarantine visits only the others: the counts, the deepest
    /// penetration and the held impulses are those of the full pass over every contact,
    /// asleep contacts included.
    #[test]
    fn the_store_tally_counts_what_the_full_contact_pass_counts() {
        let (mut world, sleeper) = sleeping_and_awake_boxes(3.0);
        let mut checked = 0;
        for step in 0..240 {
            world.step(1.0 / 60.0);
            let fused = world.stats().clone();
            // The tally is taken: this quarantine runs the full pass over every contact.
            world.quarantine();
            let full = world.stats();
            assert_same_tally(&fused, full, step);
            if fused.contacts > 0 {
                checked += 1;
            }
        }
        assert!(checked > 200, "{checked} steps with contacts");
        // The sleeper fell asleep while the others kept stepping: its contact was counted
        // by the quarantine's own pass, not by the store.
        assert!(!world.body(sleeper).unwrap().is_awake());
        assert_eq!(world.stats().contacts, 3);
    }

    /// A NaN in the contact of a sleeping body (which the store does not write) is still
    /// caught: the manifold is emptied and reported, and the awake contacts are untouched.
    #[test]
    fn a_non_finite_sleeping_contact_is_still_quarantined() {
        let (mut world, sleeper) = sleeping_and_awake_boxes(1.0);
        for _ in 0..240 {
            world.step(1.0 / 60.0);
        }
        assert!(!world.body(sleeper).unwrap().is_awake());
        let asleep = world
            .contacts
            .contacts
            .iter_mut()
            .find(|c| c.body_b == sleeper || c.body_a == sleeper)
            .unwrap();
        assert!(asleep.manifold.count > 0);
        asleep.manifold.points[0].tangent_impulse = f32::NAN;
        world.step(1.0 / 60.0);
        assert_eq!(world.stats().quarantined_contacts, 1);
        assert_eq!(world.stats().contacts, 2);
        let all_finite = world.contacts.contacts.iter().all(|c| {
            c.manifold.normal.is_finite()
                && c.manifold
                    .points()
                    .iter()
                    .all(|p| p.tangent_impulse.is_finite())
        });
        assert!(all_finite);
    }
}
