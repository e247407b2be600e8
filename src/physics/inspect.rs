//! Looking inside the solver: read-only reports of what the last step (or the point a
//! `World::step_until` stopped at) left in each contact point, joint and body, for the
//! testbed's error colouring and structure drawing. The core reports values; the app picks
//! the colours.
//!
//! - `contact_point_reports`: each manifold point's separation and error (penetration
//!   beyond the slop), the impulse change of the last iteration, its feature id, whether
//!   it was warm-started and whether its manifold was recycled, its graph colour.
//! - `joint_reports`: each joint's anchors, position gap and angular error, impulse change
//!   and graph colour.
//! - `body_islands`: which island each non-static body belongs to, awake or asleep.

use super::body::BodyKind;
use super::collision::manifold::FeatureId;
use super::math::Vec2;
use super::world::World;
use super::{BodyHandle, JointHandle};

/// Where a constraint went in the soft step's graph colouring (`solver/graph.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphColor {
    /// Solved in SIMD batches with the other constraints of this colour.
    Color(u8),
    /// Fits no colour (or is not batched): solved one at a time before the colours.
    Overflow,
}

/// One contact point as the last step (or halt point) left it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPointReport {
    /// Index of the contact in `World::contacts`.
    pub contact: usize,
    /// Index of the point in its manifold (0 or 1).
    pub index: usize,
    pub point: Vec2,
    /// Manifold normal, from A to B.
    pub normal: Vec2,
    /// Signed distance, metres (negative: overlap).
    pub separation: f32,
    /// Penetration beyond the slop (`allowed_penetration`), metres; 0 within it or apart.
    pub error: f32,
    /// `|Δ(normal, tangent) impulse|` of the last solver iteration, N s; `None` unless
    /// `World::set_track_impulse_changes` was on for the step.
    pub impulse_change: Option<f32>,
    pub id: FeatureId,
    /// The point matched one of the previous step by feature id and its impulses were
    /// applied first (warm starting on, impulses accumulated).
    pub warm_started: bool,
    /// The manifold was reused without running the narrow phase (soft step).
    pub recycled: bool,
    /// `None` when the step did not colour the constraints (classic).
    pub color: Option<GraphColor>,
}

/// One joint as the last step (or halt point) left it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointReport {
    pub joint: JointHandle,
    /// World anchors on A and on B.
    pub anchor_a: Vec2,
    pub anchor_b: Vec2,
    /// Position gap: the joint's linear error, metres.
    pub error: f32,
    /// Angular error, radians (0 for joints without one).
    pub angular_error: f32,
    /// `|Δ linear impulse| + |Δ angular impulse|` of the last solver iteration (N s; the
    /// angular part in N m s, counted per metre); `None` unless impulse changes are tracked.
    pub impulse_change: Option<f32>,
    pub color: Option<GraphColor>,
}

/// The island of a non-static body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyIsland {
    pub body: BodyHandle,
    /// Asleep: the sleeping island's id. Awake: the smallest slot index among the bodies
    /// the island links (touching contacts between dynamic bodies, joints), so every body
    /// of one island reports the same number.
    pub island: u32,
    pub awake: bool,
}

impl World {
    /// Every manifold point of every contact, in contact order.
    pub fn contact_point_reports(&self) -> Vec<ContactPointReport> {
        let contacts = &self.contacts.contacts;
        let colors = self.solver.contacts.graph_colors(contacts.len());
        let changes = &self.solver.contact_impulse_change;
        let tracked = self.solver.track_impulses && changes.len() == contacts.len();
        let slop = self.settings.allowed_penetration;
        let warm = self.settings.warm_starting && self.settings.accumulate_impulses;
        let mut out = Vec::new();
        // `ci` indexes the whole array (dead contacts included), `live` counts as
        // `World::contacts` does.
        let live_indices = contacts.iter().enumerate().filter(|(_, c)| !c.is_dead());
        for (live, (ci, c)) in live_indices.enumerate() {
            for (k, p) in c.manifold.points().iter().enumerate() {
                out.push(ContactPointReport {
                    contact: live,
                    index: k,
                    point: p.point,
                    normal: c.manifold.normal,
                    separation: p.separation,
                    error: (-p.separation - slop).max(0.0),
                    impulse_change: tracked.then(|| changes[ci][k]),
                    id: p.id,
                    warm_started: warm && p.persisted,
                    recycled: c.recycled,
                    color: colors[ci],
                });
            }
        }
        out
    }

    /// Every joint, in slot order.
    pub fn joint_reports(&self) -> Vec<JointReport> {
        let slots = self.joints.capacity();
        let colors = self.solver.joints.graph_colors(slots);
        let changes = &self.solver.joint_impulse_change;
        let tracked = self.solver.track_impulses && changes.len() == slots;
        self.joints
            .iter()
            .map(|(handle, j)| {
                let body_a = self.bodies.at(j.body_a.index());
                let body_b = self.bodies.at(j.body_b.index());
                let slot = handle.index();
                JointReport {
                    joint: handle,
                    anchor_a: j.anchor_a(body_a),
                    anchor_b: j.anchor_b(body_b),
                    error: j.linear_error(body_a, body_b),
                    angular_error: j.angular_error(body_a, body_b),
                    impulse_change: tracked.then(|| changes[slot]),
                    color: colors[slot],
                }
            })
            .collect()
    }

    /// The island of every non-static body, in slot order. Awake islands are found afresh
    /// (union-find over touching contacts between two awake dynamic bodies and joints
    /// between two awake non-static bodies, as the sleep pass links them).
    pub fn body_islands(&self) -> Vec<BodyIsland> {
        let capacity = self.bodies.capacity();
        let mut parent: Vec<usize> = (0..capacity).collect();
        fn find(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        let mut link = |a: usize, b: usize| {
            let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        };
        let awake = |h: BodyHandle| {
            let b = self.bodies.at(h.index());
            b.awake && b.kind != BodyKind::Static
        };
        for c in self.contacts.live() {
            let dynamic = |h: BodyHandle| self.bodies.at(h.index()).kind == BodyKind::Dynamic;
            if c.manifold.count > 0
                && awake(c.body_a)
                && awake(c.body_b)
                && dynamic(c.body_a)
                && dynamic(c.body_b)
            {
                link(c.body_a.index(), c.body_b.index());
            }
        }
        for (_, j) in self.joints.iter() {
            if awake(j.body_a) && awake(j.body_b) {
                link(j.body_a.index(), j.body_b.index());
            }
        }
        self.bodies
            .iter()
            .filter(|(_, b)| b.kind != BodyKind::Static)
            .map(|(h, b)| BodyIsland {
                body: h,
                island: if b.awake {
                    find(&mut parent, h.index()) as u32
                } else {
                    b.island
                },
                awake: b.awake,
            })
            .collect()
    }
}
