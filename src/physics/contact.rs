//! Contact pairs kept across steps.
//!
//! A contact exists while the broad-phase (fat) boxes of two shapes overlap. Each step the
//! narrow phase gives a fresh manifold; its points are matched to the previous step's points
//! by feature id and inherit their accumulated normal and tangent impulses, which is what
//! warm starting reuses.
//!
//! Material mixing (Box2D's rules): friction `sqrt(f_a * f_b)`, restitution
//! `max(e_a, e_b)`.

use super::collision::Manifold;
use super::{BodyHandle, ShapeHandle};

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
    /// same feature id.
    pub(crate) fn update_manifold(&mut self, mut fresh: Manifold) {
        for point in fresh.points_mut() {
            point.normal_impulse = 0.0;
            point.tangent_impulse = 0.0;
            point.persisted = false;
            if let Some(old) = self.manifold.points().iter().find(|o| o.id == point.id) {
                point.normal_impulse = old.normal_impulse;
                point.tangent_impulse = old.tangent_impulse;
                point.persisted = true;
            }
        }
        self.manifold = fresh;
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
