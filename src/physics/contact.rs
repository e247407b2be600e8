//! Contact pairs kept across steps.
//!
//! A contact exists while the broad-phase (fat) boxes of two shapes overlap. Each step the
//! narrow phase gives a fresh manifold; its points are matched to the previous step's points
//! by feature id and inherit their accumulated normal and tangent impulses, which is what
//! warm starting reuses.
//!
//! Material mixing (Box2D's rules): friction `sqrt(f_a * f_b)`, restitution
//! `max(e_a, e_b)`.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use super::collision::{Manifold, ManifoldPoint};
use super::math::{Rot, Transform, Vec2};
use super::settings::{CONTACT_RECYCLE_COS_ANGLE, CONTACT_RECYCLE_DISTANCE};
use super::{BodyHandle, ShapeHandle};

/// The set of live pair keys. Only ever asked `contains`, `insert` and `remove` (never
/// iterated), so its hasher may be anything that spreads the keys: a SplitMix64 finaliser,
/// a few cycles, instead of the standard SipHash (the broad phase reports every overlap of
/// each re-inserted box, and each is looked up here: thousands per step in a tumbling pile).
pub(crate) type PairSet = HashSet<u64, BuildHasherDefault<PairKeyHasher>>;

/// Hasher for `PairSet` keys (one `u64` each).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PairKeyHasher(u64);

impl Hasher for PairKeyHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Not used by `u64` keys; any fold keeps it correct.
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    #[inline]
    fn write_u64(&mut self, key: u64) {
        // SplitMix64's finaliser (Steele, Lea, Flood 2014): every input bit reaches the low
        // bits (bucket) and the high bits (control byte).
        let mut x = self.0 ^ key;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        self.0 = x ^ (x >> 31);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

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
/// instead of recomputing it (Box2D v3's contact recycling; see `World::collide`). Only the
/// soft step recycles, and only manifolds with points.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ManifoldCache {
    /// False until the kernel fills it, and whenever the manifold has no point.
    pub valid: bool,
    /// The bodies' rotations then: the manifold's normal is in world space, so it is reused
    /// only while neither body has turned much.
    pub rotation_a: Rot,
    pub rotation_b: Rot,
    /// B's origin frame in A's then (`xf_a^-1 * xf_b`).
    pub relative: Transform,
    /// Per point: the point relative to A's and to B's centre of mass then (world axes).
    pub anchor_a: [Vec2; 2],
    pub anchor_b: [Vec2; 2],
    /// Per point: the separation then.
    pub base_separation: [f32; 2],
}

/// A pair of shapes whose fat boxes overlap, and its manifold from the last step.
#[derive(Clone, Debug)]
pub struct Contact {
    pub(crate) shape_a: ShapeHandle,
    pub(crate) shape_b: ShapeHandle,
    pub(crate) body_a: BodyHandle,
    pub(crate) body_b: BodyHandle,
    pub(crate) manifold: Manifold,
    pub(crate) friction: f32,
    pub(crate) restitution: f32,
    pub(crate) key: u64,
    pub(crate) cache: ManifoldCache,
}

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
    /// sub-steps. Returns false (and changes nothing) when the kernel must run.
    pub(crate) fn recycle(
        &mut self,
        center_a: Vec2,
        center_b: Vec2,
        xf_a: &Transform,
        xf_b: &Transform,
        extent: f32,
    ) -> bool {
        let c = &self.cache;
        if !c.valid || self.manifold.count == 0 {
            return false;
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
            return false;
        }
        let relative = xf_a.inv_mul(xf_b);
        let turn = c.relative.q.inv_mul(relative.q);
        if relative.p.distance(c.relative.p) + extent * turn.s.abs() >= CONTACT_RECYCLE_DISTANCE {
            return false;
        }
        let normal = self.manifold.normal;
        let dc = center_b - center_a;
        for k in 0..self.manifold.count {
            let r_a = dq_a.rotate(c.anchor_a[k]);
            let r_b = dq_b.rotate(c.anchor_b[k]);
            let p = &mut self.manifold.points[k];
            p.separation = c.base_separation[k] + normal.dot(dc + r_b - r_a);
            // Drawn midway between where the anchors are now; the solver keeps the anchors
            // themselves (`anchors`).
            p.point = 0.5 * ((center_a + r_a) + (center_b + r_b));
            p.persisted = true;
        }
        true
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
        if self.cache.valid {
            (self.cache.anchor_a[k], self.cache.anchor_b[k])
        } else {
            let point = self.manifold.points[k].point;
            (point - center_a, point - center_b)
        }
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
            key: pair_key(0, 1),
            cache: ManifoldCache::default(),
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
            key: pair_key(0, 1),
            cache: ManifoldCache::default(),
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
        assert!(contact.recycle(xf_a.p, moved.p, &xf_a, &moved, 0.71));
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
        assert!(contact.recycle(xf_a.p, tilted.p, &xf_a, &tilted, 0.71));
        let s = separations(&contact);
        assert!((s[0] - s[1]).abs() > 0.015, "tilt not seen: {s:?}");

        // Moved 6 cm (more than the 5 cm recycle distance), or turned 0.1 rad (7 cm at the
        // corners): the kernel must run, and the manifold is left as it was.
        let kept = contact.manifold;
        assert!(!contact.recycle(
            xf_a.p,
            at(0.0, 0.55, 0.0).p,
            &xf_a,
            &at(0.0, 0.55, 0.0),
            0.71
        ));
        assert!(!contact.recycle(xf_a.p, xf_b.p, &xf_a, &at(0.0, 0.49, 0.1), 0.71));
        assert_eq!(contact.manifold, kept);

        // Both bodies turned together by 15 degrees: the relative pose is unchanged but the
        // world normal is stale.
        let turn = Rot::from_angle(15f32.to_radians());
        let xf_a2 = Transform { p: xf_a.p, q: turn };
        let xf_b2 = xf_a2.mul(&xf_a.inv_mul(&xf_b));
        assert!(!contact.recycle(xf_a2.p, xf_b2.p, &xf_a2, &xf_b2, 0.71));

        // An empty manifold is never recycled.
        contact.update_manifold(Manifold::EMPTY);
        contact.cache_manifold(xf_a.p, xf_b.p, &xf_a, &xf_b);
        assert!(!contact.cache.valid);
        assert!(!contact.recycle(xf_a.p, xf_b.p, &xf_a, &xf_b, 0.71));
    }
}
