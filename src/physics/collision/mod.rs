//! Collision: pure functions from (shape A, transform A, shape B, transform B) to a
//! manifold, distance queries, ray casts, and the broad phase.
//!
//! - `manifold`: Manifold, ManifoldPoint, feature ids.
//! - `polygon`: polygon vs polygon (SAT + reference/incident clipping, seed 003).
//! - `circle`, `capsule`: the curved shapes against everything.
//! - `gjk`: closest points and distance between any two convex shapes.
//! - `ray`: ray casts and point tests against single shapes.
//! - `broad_phase`: the dynamic AABB tree and pair finding.

pub mod broad_phase;
pub mod dynamic_tree;
pub mod gjk;
pub mod manifold;
pub mod ray;

pub use manifold::{feature_id, FeatureId, Manifold, ManifoldPoint};

use crate::physics::math::Transform;
use crate::physics::shape::Geometry;

/// True when the narrow phase handles this pair (segment vs segment does not collide).
pub fn can_collide(a: &Geometry, b: &Geometry) -> bool {
    !matches!((a, b), (Geometry::Segment(_), Geometry::Segment(_)))
}

/// The contact manifold of two shapes, normal from A to B. Points whose separation exceeds
/// `speculative_distance` are left out.
pub fn collide(
    _geometry_a: &Geometry,
    _xf_a: &Transform,
    _geometry_b: &Geometry,
    _xf_b: &Transform,
    _speculative_distance: f32,
) -> Manifold {
    Manifold::EMPTY
}
