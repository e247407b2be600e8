//! Contact manifolds: what the narrow phase returns for a pair of shapes.
//!
//! Sign convention: `normal` is a unit vector in world space pointing from shape A to shape
//! B. `separation` is negative when the shapes overlap and positive (up to the speculative
//! distance) when they are close but apart.

use crate::physics::math::Vec2;

/// Feature id of a contact point: which features (vertex, edge) of A and B made it. The same
/// pair of features in the next step gives the same id, so the solver can carry the point's
/// impulses over (warm starting). Ids of the points of one manifold differ. Sixteen bits,
/// eight a feature: two points and the normal fill one cache line (`Contact`'s layout).
pub type FeatureId = u16;

/// Make a feature id from the features of A and B (each below 256).
#[inline]
pub fn feature_id(feature_a: usize, feature_b: usize) -> FeatureId {
    ((feature_a as u16 & 0xff) << 8) | (feature_b as u16 & 0xff)
}

/// One contact point.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ManifoldPoint {
    /// World point midway between the two surfaces.
    pub point: Vec2,
    /// Signed distance between the surfaces along the normal, metres (negative: overlap).
    pub separation: f32,
    pub id: FeatureId,
    /// Accumulated normal impulse, N s (filled by the solver; 0 from the narrow phase).
    pub normal_impulse: f32,
    /// Accumulated friction impulse, N s (filled by the solver).
    pub tangent_impulse: f32,
    /// Largest normal impulse applied during the last step, N s (restitution uses it).
    pub max_normal_impulse: f32,
    /// True when the point matched a point of the previous step by feature id.
    pub persisted: bool,
}

/// Up to two contact points sharing one normal. In this order (`repr(C)`): the points and
/// the normal are the first 64 bytes (`Contact`'s layout).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Manifold {
    pub points: [ManifoldPoint; 2],
    pub normal: Vec2,
    pub count: usize,
}

impl Manifold {
    pub const EMPTY: Manifold = Manifold {
        normal: Vec2::ZERO,
        points: [ManifoldPoint {
            point: Vec2::ZERO,
            separation: 0.0,
            id: 0,
            normal_impulse: 0.0,
            tangent_impulse: 0.0,
            max_normal_impulse: 0.0,
            persisted: false,
        }; 2],
        count: 0,
    };

    /// The live points.
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.points[..self.count]
    }

    pub fn points_mut(&mut self) -> &mut [ManifoldPoint] {
        &mut self.points[..self.count]
    }

    /// Push a point (ignored past two).
    pub fn push(&mut self, point: Vec2, separation: f32, id: FeatureId) {
        if self.count < 2 {
            self.points[self.count] = ManifoldPoint {
                point,
                separation,
                id,
                ..Default::default()
            };
            self.count += 1;
        }
    }

    /// The same contact seen from B: normal flipped, points kept.
    pub fn flipped(mut self) -> Manifold {
        self.normal = -self.normal;
        for p in self.points_mut() {
            p.id = ((p.id & 0xff) << 8) | ((p.id >> 8) & 0xff);
        }
        self
    }
}
