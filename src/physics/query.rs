//! Queries: what is at a point, in a box, along a ray; the distance between two shapes.
//! Read-only; each goes through the broad phase's tree.

use super::body::BodyKind;
use super::collision::{self, ray};
use super::error::{PhysicsError, PhysicsResult};
use super::math::{is_finite_vec, Aabb, Vec2};
use super::world::World;
use super::{BodyHandle, ShapeHandle};

/// The closest hit of a ray cast.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    pub shape: ShapeHandle,
    pub body: BodyHandle,
    pub point: Vec2,
    pub normal: Vec2,
    /// Fraction of the translation at the hit, 0..1.
    pub fraction: f32,
}

impl World {
    /// The body with a shape containing `point`; dynamic bodies are preferred over others.
    pub fn body_at_point(&self, point: Vec2) -> Option<BodyHandle> {
        if !is_finite_vec(point) {
            return None;
        }
        let mut best: Option<(BodyHandle, BodyKind)> = None;
        let probe = Aabb::around(point, Vec2::splat(0.001));
        self.broad_phase.query(probe, |user| {
            let shape = self.shapes.at(user as usize);
            let body = self.bodies.at(shape.body.index());
            if ray::test_point(&shape.geometry, &body.transform(), point) {
                let better = match best {
                    None => true,
                    Some((_, kind)) => kind != BodyKind::Dynamic && body.kind == BodyKind::Dynamic,
                };
                if better {
                    best = Some((shape.body, body.kind));
                }
            }
            true
        });
        best.map(|(h, _)| h)
    }

    /// Bodies with a shape whose bounding box overlaps `aabb`, each once, in slot order.
    pub fn query_aabb(&self, aabb: Aabb) -> Vec<BodyHandle> {
        let mut out = Vec::new();
        if !aabb.is_valid() {
            return out;
        }
        self.broad_phase.query(aabb, |user| {
            let shape = self.shapes.at(user as usize);
            if shape.aabb.overlaps(&aabb) {
                out.push(shape.body);
            }
            true
        });
        out.sort();
        out.dedup();
        out
    }

    /// The closest shape hit by the segment `origin` to `origin + translation`.
    pub fn ray_cast(&self, origin: Vec2, translation: Vec2) -> Option<RayHit> {
        if !is_finite_vec(origin) || !is_finite_vec(translation) {
            return None;
        }
        let mut best: Option<RayHit> = None;
        self.broad_phase
            .ray_cast(origin, translation, 1.0, |_, user, max_fraction| {
                let shape = self.shapes.at(user as usize);
                let body = self.bodies.at(shape.body.index());
                match ray::ray_cast(&shape.geometry, &body.transform(), origin, translation) {
                    Some(out) if out.fraction <= max_fraction => {
                        best = Some(RayHit {
                            shape: shape.handle,
                            body: shape.body,
                            point: out.point,
                            normal: out.normal,
                            fraction: out.fraction,
                        });
                        out.fraction
                    }
                    _ => -1.0,
                }
            });
        best
    }

    /// Closest points between two shapes (GJK).
    pub fn shape_distance(
        &self,
        a: ShapeHandle,
        b: ShapeHandle,
    ) -> PhysicsResult<collision::gjk::DistanceOutput> {
        let sa = self
            .shapes
            .get(a)
            .ok_or_else(|| PhysicsError::new("shape_a", "no such shape"))?;
        let sb = self
            .shapes
            .get(b)
            .ok_or_else(|| PhysicsError::new("shape_b", "no such shape"))?;
        let xa = self.bodies.at(sa.body.index()).transform();
        let xb = self.bodies.at(sb.body.index()).transform();
        Ok(collision::gjk::distance(
            &sa.geometry,
            &xa,
            &sb.geometry,
            &xb,
        ))
    }
}
