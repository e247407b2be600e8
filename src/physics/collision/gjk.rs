//! Stand-in until the narrow-phase branch lands.
use crate::physics::math::{Transform, Vec2};
use crate::physics::shape::Geometry;

pub struct DistanceOutput {
    pub point_a: Vec2,
    pub point_b: Vec2,
    pub distance: f32,
    pub normal: Vec2,
    pub iterations: u32,
}

pub fn distance(_a: &Geometry, _xa: &Transform, _b: &Geometry, _xb: &Transform) -> DistanceOutput {
    DistanceOutput {
        point_a: Vec2::ZERO,
        point_b: Vec2::ZERO,
        distance: 0.0,
        normal: Vec2::X,
        iterations: 0,
    }
}
