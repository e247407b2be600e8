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
}
