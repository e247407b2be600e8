//! Stand-in until the narrow-phase branch lands.
use crate::physics::math::{Transform, Vec2};
use crate::physics::shape::Geometry;

pub struct RayCastOutput {
    pub fraction: f32,
    pub point: Vec2,
    pub normal: Vec2,
}

pub fn ray_cast(
    _g: &Geometry,
    _xf: &Transform,
    _origin: Vec2,
    _translation: Vec2,
) -> Option<RayCastOutput> {
    None
}

pub fn test_point(g: &Geometry, xf: &Transform, point: Vec2) -> bool {
    g.aabb(xf).contains_point(point)
}
