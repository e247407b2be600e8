//! TGS-Sticky's contact kernel: the normal rows with current anchors (as the other TGS
//! families, `contact_kernels.rs`) and friction as a position constraint on friction anchors
//! that persist across steps.
//!
//! Each contact keeps its friction anchors in `StickyAnchors` (in `StickyStore`, beside the
//! contacts, as its warm-start impulses are on its manifold points): per point, an anchor
//! on A and one on B in the bodies' local frames, matched to the manifold's points by
//! feature id. At prepare (once per step) the stored anchors are confirmed when
//!
//! - the anchors were set by an earlier step and friction has not slipped since,
//! - every point of the manifold matched a point of the previous step (`persisted`) whose
//!   id has a stored anchor, and the point count is unchanged,
//! - the normal stored in both bodies' frames still agrees, `n_a . n_b >= STICKY_NORMAL_COS`
//!   (the bodies turned little relative to each other),
//! - each anchor pair lies within `2 LINEAR_SLOP` of each other along the normal.
//!
//! Then the step starts from the stored anchors, with their tangential offset
//! `s_t0 = t . ((c_b + q_b a_b) - (c_a + q_a a_a))`; otherwise the anchors are taken afresh at
//! the manifold points (`s_t0 = 0`) and stored. Within the step the tangential drift is
//! `s_t = s_t0 + t . d` with `d` the anchors' relative motion since prepare (the module docs
//! of `contact_kernels.rs`), and friction targets `STICKY_FRICTION_FRACTION s_t / h`, bounded
//! by `friction` times the manifold's mean normal impulse. When the bound is reached the
//! contact slips: its anchors are dropped and the next step takes them afresh.
//!
//! Solver2D (`solve_tgs_sticky.c`) adds the step-start offset to the full anchor separation
//! it measures during the step, so a persisted offset counts twice; here it counts once.

use super::contact::{apply, load, relative_velocity, store, ContactConstraint};
use super::contact_kernels::STICKY_FRICTION_FRACTION;
use super::contact_kernels::{held, moved, AnchoredBias, STICKY_BAUMGARTE};
use super::{SolverBody, StepContext};
use crate::physics::body::Body;
use crate::physics::collision::FeatureId;
use crate::physics::contact::Contact;
use crate::physics::handle::Arena;
use crate::physics::math::{cross, Vec2};
use crate::physics::settings::LINEAR_SLOP;

/// Cosine of the largest relative turn (about 11.5 degrees) of two bodies for which their
/// stored friction anchors are kept (Solver2D's 0.98).
pub const STICKY_NORMAL_COS: f32 = 0.98;

/// TGS-Sticky's friction anchors of one contact, kept across steps (see the module docs of
/// `contact_sticky.rs`). Exported with the contact for an exact restore.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StickyAnchors {
    /// The anchors hold: set by the sticky solver's prepare, cleared when friction slips.
    pub persisted: bool,
    /// Points anchored (0 to 2).
    pub count: usize,
    /// Feature id of each anchored point.
    pub ids: [FeatureId; 2],
    /// Per point: the friction anchor on A and on B, from the body's centre of mass, in the
    /// body's frame (unrotated).
    pub anchor_a: [Vec2; 2],
    pub anchor_b: [Vec2; 2],
    /// The manifold normal when anchored, in A's and in B's frame.
    pub normal_a: Vec2,
    pub normal_b: Vec2,
}

/// No anchors (what a contact without stored anchors reads).
const NONE: StickyAnchors = StickyAnchors {
    persisted: false,
    count: 0,
    ids: [0; 2],
    anchor_a: [Vec2::ZERO; 2],
    anchor_b: [Vec2::ZERO; 2],
    normal_a: Vec2::ZERO,
    normal_b: Vec2::ZERO,
};

/// TGS-Sticky's anchors of each contact, index for index with `ContactSet::contacts`
/// (kept out of the contact, which the other solvers stream through): empty until the
/// sticky solver or a restore gives a contact anchors, so the other solvers pay nothing;
/// from then on exactly as long as the contacts (`ContactSet` pushes and compacts both).
#[derive(Clone, Debug, Default)]
pub(crate) struct StickyStore {
    anchors: Vec<Option<Box<StickyAnchors>>>,
}

impl StickyStore {
    /// Contact `i`'s anchors (`NONE` when it has none).
    pub(crate) fn get(&self, i: usize) -> &StickyAnchors {
        self.anchors
            .get(i)
            .and_then(|s| s.as_deref())
            .unwrap_or(&NONE)
    }

    /// Contact `i`'s anchors to change, made (default) when it has none; `len`: how many
    /// contacts there are.
    pub(crate) fn get_or_insert(&mut self, i: usize, len: usize) -> &mut StickyAnchors {
        debug_assert!(self.anchors.is_empty() || self.anchors.len() == len);
        if self.anchors.is_empty() {
            self.anchors.resize_with(len, || None);
        }
        self.anchors[i].get_or_insert_with(Default::default)
    }

    /// Contact `i`'s anchors to change, when it has some.
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut StickyAnchors> {
        self.anchors.get_mut(i)?.as_deref_mut()
    }

    /// A contact was added after the `len` there were, with `anchors`.
    pub(crate) fn push(&mut self, len: usize, anchors: Option<Box<StickyAnchors>>) {
        debug_assert!(self.anchors.is_empty() || self.anchors.len() == len);
        if anchors.is_some() {
            self.anchors.resize_with(len, || None);
            self.anchors.push(anchors);
        } else if !self.anchors.is_empty() {
            self.anchors.push(None);
        }
    }

    /// Keep the anchors of the contacts `keep` says, in order (`ContactSet::compact`).
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let mut i = 0;
        self.anchors.retain(|_| {
            i += 1;
            keep(i - 1)
        });
    }
}

/// One point's friction row for the step: arms from the centres of mass to the friction
/// anchors at prepare (world axes), the tangential offset then and the tangent mass.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StickyPoint {
    r_a: Vec2,
    r_b: Vec2,
    tangent_separation: f32,
    tangent_mass: f32,
}

/// Generalized inverse mass of the pair along `dir` at arms `r_a`, `r_b`, inverted (0 when
/// neither body responds).
fn mass_along(a: &SolverBody, b: &SolverBody, r_a: Vec2, r_b: Vec2, dir: Vec2) -> f32 {
    let (ra, rb) = (cross(r_a, dir), cross(r_b, dir));
    let k = a.inv_mass + b.inv_mass + a.inv_inertia * ra * ra + b.inv_inertia * rb * rb;
    if k > 0.0 {
        1.0 / k
    } else {
        0.0
    }
}

/// The stored anchors of `contact` as this step's friction rows, in the manifold's point
/// order, and for each point its slot in the store, when they are confirmed (see the
/// module docs).
fn confirmed(
    (contact, s): (&Contact, &StickyAnchors),
    c: &ContactConstraint,
    body_a: &Body,
    body_b: &Body,
    a: &SolverBody,
    b: &SolverBody,
) -> Option<([StickyPoint; 2], [usize; 2])> {
    if !s.persisted || s.count != c.count {
        return None;
    }
    let (qa, qb) = (body_a.rotation(), body_b.rotation());
    let normal_a = qa.rotate(s.normal_a);
    let nn = normal_a.dot(qb.rotate(s.normal_b));
    if nn.is_nan() || nn < STICKY_NORMAL_COS {
        return None;
    }
    let t = Vec2::new(c.normal.y, -c.normal.x);
    let mut rows = [StickyPoint::default(); 2];
    let mut slots = [0, 1];
    for (k, row) in rows.iter_mut().enumerate().take(c.count) {
        let p = &contact.manifold.points[k];
        let j = (0..s.count).find(|&j| s.ids[j] == p.id)?;
        slots[k] = j;
        if !p.persisted {
            return None;
        }
        let r_a = qa.rotate(s.anchor_a[j]);
        let r_b = qb.rotate(s.anchor_b[j]);
        let offset = (body_b.center + r_b) - (body_a.center + r_a);
        let gap = offset.dot(normal_a).abs();
        if gap.is_nan() || gap > 2.0 * LINEAR_SLOP {
            return None;
        }
        *row = StickyPoint {
            r_a,
            r_b,
            tangent_separation: offset.dot(t),
            tangent_mass: mass_along(a, b, r_a, r_b, t),
        };
    }
    Some((rows, slots))
}

/// Prepare: one pair of friction rows per constraint (`rows[i]` for `constraints[i]`), from
/// the contacts' stored anchors when confirmed, else from the manifold points (then stored).
pub(crate) fn prepare(
    constraints: &[ContactConstraint],
    (contacts, sticky): (&[Contact], &mut StickyStore),
    bodies: &Arena<Body>,
    solver_bodies: &[SolverBody],
    rows: &mut Vec<[StickyPoint; 2]>,
) {
    rows.clear();
    for c in constraints {
        let contact = &contacts[c.contact];
        let body_a = bodies.at(contact.body_a.index());
        let body_b = bodies.at(contact.body_b.index());
        let (a, b) = (&solver_bodies[c.index_a], &solver_bodies[c.index_b]);
        let kept = confirmed((contact, sticky.get(c.contact)), c, body_a, body_b, a, b);
        let (qa, qb) = (body_a.rotation(), body_b.rotation());
        let s = sticky.get_or_insert(c.contact, contacts.len());
        let row = match kept {
            Some((row, slots)) => {
                // The same anchors, in this manifold's point order.
                let old = *s;
                for (k, &j) in slots.iter().enumerate().take(c.count) {
                    s.ids[k] = old.ids[j];
                    s.anchor_a[k] = old.anchor_a[j];
                    s.anchor_b[k] = old.anchor_b[j];
                }
                row
            }
            None => {
                let mut row = [StickyPoint::default(); 2];
                for (k, cp) in c.points[..c.count].iter().enumerate() {
                    row[k] = StickyPoint {
                        r_a: cp.r_a,
                        r_b: cp.r_b,
                        tangent_separation: 0.0,
                        tangent_mass: cp.tangent_mass,
                    };
                    s.ids[k] = contact.manifold.points[k].id;
                    s.anchor_a[k] = qa.inv_rotate(cp.r_a);
                    s.anchor_b[k] = qb.inv_rotate(cp.r_b);
                }
                s.count = c.count;
                s.normal_a = qa.inv_rotate(c.normal);
                s.normal_b = qb.inv_rotate(c.normal);
                row
            }
        };
        s.persisted = true;
        rows.push(row);
    }
}

/// One Gauss-Seidel pass: per constraint the normal rows with current anchors (Baumgarte
/// push-out of `STICKY_BAUMGARTE`, or none in the relax passes; speculative points target
/// `s / h`), then the sticky friction rows. A contact whose friction reached its bound
/// drops its anchors.
pub(crate) fn solve(
    constraints: &mut [ContactConstraint],
    rows: &[[StickyPoint; 2]],
    sticky: &mut StickyStore,
    bodies: &mut [SolverBody],
    ctx: &StepContext,
    bias: AnchoredBias,
) {
    let relax = bias == AnchoredBias::Relax;
    let max_push = ctx.settings.contact_push_max_velocity;
    for (c, row) in constraints.iter_mut().zip(rows) {
        let (mut a, mut b) = load(bodies, c.index_a, c.index_b);
        let n = c.normal;
        let t = Vec2::new(n.y, -n.x);
        let mut total_normal = 0.0;
        for cp in &mut c.points[..c.count] {
            let (ra, rb, d) = moved(&a, &b, cp.r_a, cp.r_b);
            let s = n.dot(d) + cp.separation;
            let target = if s > 0.0 {
                s * ctx.inv_dt
            } else if relax {
                0.0
            } else {
                (STICKY_BAUMGARTE * s * ctx.inv_dt).max(-max_push)
            };
            let vn = relative_velocity(&a, &b, ra, rb).dot(n);
            let lambda = -cp.normal_mass * (vn + target);
            let new_impulse = held((cp.normal_impulse + lambda).max(0.0));
            let lambda = new_impulse - cp.normal_impulse;
            cp.normal_impulse = new_impulse;
            cp.last_normal_increment = lambda;
            cp.max_normal_impulse = cp.max_normal_impulse.max(lambda);
            total_normal += new_impulse;
            apply(&mut a, &mut b, ra, rb, lambda * n);
        }
        let max_friction = held(c.friction * total_normal / c.count.max(1) as f32).abs();
        let mut slipped = false;
        for (cp, f) in c.points[..c.count].iter_mut().zip(row) {
            let (ra, rb, d) = moved(&a, &b, f.r_a, f.r_b);
            let target = if relax {
                0.0
            } else {
                STICKY_FRICTION_FRACTION * (f.tangent_separation + t.dot(d)) * ctx.inv_dt
            };
            let vt = relative_velocity(&a, &b, ra, rb).dot(t);
            let lambda = -f.tangent_mass * (vt + target);
            let mut new_impulse = held(cp.tangent_impulse + lambda);
            if new_impulse > max_friction {
                new_impulse = max_friction;
                slipped = true;
            } else if new_impulse < -max_friction {
                new_impulse = -max_friction;
                slipped = true;
            }
            let lambda = new_impulse - cp.tangent_impulse;
            cp.tangent_impulse = new_impulse;
            apply(&mut a, &mut b, ra, rb, lambda * t);
        }
        if slipped {
            if let Some(s) = sticky.get_mut(c.contact) {
                s.persisted = false;
            }
        }
        store(bodies, c.index_a, c.index_b, &a, &b);
    }
}
