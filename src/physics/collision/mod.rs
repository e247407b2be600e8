//! Collision: pure functions from (shape A, transform A, shape B, transform B) to a
//! manifold, distance queries, ray casts, and the broad phase.
//!
//! - `manifold`: Manifold, ManifoldPoint, feature ids.
//! - `polygon`: polygon vs polygon (SAT + reference/incident clipping, seed 003); capsules and
//!   segments against polygons go through it as two-vertex (rounded) polygons.
//! - `circle`: circles against everything (one point).
//! - `capsule`: capsule vs capsule and capsule vs segment (two points when side by side).
//! - `gjk`: closest points and distance between any two convex shapes.
//! - `ray`: ray casts and point tests against single shapes.
//! - `broad_phase`: the dynamic AABB tree and pair finding.
//!
//! Sign convention everywhere: the manifold normal is a world unit vector from A to B; a
//! point's separation is the signed gap between the surfaces along it (negative: overlap);
//! the point lies midway between the two surfaces.

pub mod broad_phase;
pub mod capsule;
pub mod circle;
pub mod dynamic_tree;
pub mod gjk;
pub mod manifold;
pub mod polygon;
pub mod ray;

pub use gjk::{distance, DistanceOutput};
pub use manifold::{feature_id, FeatureId, Manifold, ManifoldPoint};
pub use ray::{ray_cast, test_point, RayCastOutput};

use crate::physics::math::Transform;
use crate::physics::shape::Geometry;

/// True when the narrow phase handles this pair (segment vs segment does not collide).
pub fn can_collide(a: &Geometry, b: &Geometry) -> bool {
    !matches!((a, b), (Geometry::Segment(_), Geometry::Segment(_)))
}

/// The contact manifold of two shapes, normal from A to B. Points whose separation exceeds
/// `speculative_distance` are left out; the manifold is empty (count 0) when no point is
/// within it, and for segment vs segment.
///
/// Each kernel is written for one order; the other order swaps the arguments and flips the
/// result (normal negated, feature ids swapped, points kept).
pub fn collide(
    geometry_a: &Geometry,
    xf_a: &Transform,
    geometry_b: &Geometry,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    use Geometry::{Capsule, Circle, Polygon, Segment};
    let s = speculative_distance;
    match (geometry_a, geometry_b) {
        (Circle(a), Circle(b)) => circle::collide_circles(a, xf_a, b, xf_b, s),
        (Capsule(a), Circle(b)) => circle::collide_capsule_circle(a, xf_a, b, xf_b, s),
        (Polygon(a), Circle(b)) => circle::collide_polygon_circle(a, xf_a, b, xf_b, s),
        (Segment(a), Circle(b)) => circle::collide_segment_circle(a, xf_a, b, xf_b, s),
        (Circle(_), _) => collide(geometry_b, xf_b, geometry_a, xf_a, s).flipped(),

        (Capsule(a), Capsule(b)) => capsule::collide_capsules(a, xf_a, b, xf_b, s),
        (Capsule(a), Segment(b)) => capsule::collide_capsule_segment(a, xf_a, b, xf_b, s),
        (Segment(a), Capsule(b)) => capsule::collide_segment_capsule(a, xf_a, b, xf_b, s),
        (Capsule(_), Polygon(_)) => collide(geometry_b, xf_b, geometry_a, xf_a, s).flipped(),

        (Polygon(a), Polygon(b)) => polygon::collide_polygons(a, xf_a, b, xf_b, s),
        (Polygon(a), Capsule(b)) => polygon::collide_polygon_capsule(a, xf_a, b, xf_b, s),
        (Polygon(a), Segment(b)) => polygon::collide_polygon_segment(a, xf_a, b, xf_b, s),
        (Segment(_), Polygon(_)) => collide(geometry_b, xf_b, geometry_a, xf_a, s).flipped(),

        (Segment(_), Segment(_)) => Manifold::EMPTY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::math::Vec2;
    use crate::physics::settings::LINEAR_SLOP;
    use crate::physics::shape::{Capsule, Circle, Polygon, Segment};

    /// A small deterministic generator (64-bit LCG), so failures reproduce.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 40) as f32) / (1u64 << 24) as f32
        }

        fn range(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * self.next()
        }

        fn vec(&mut self, h: f32) -> Vec2 {
            Vec2::new(self.range(-h, h), self.range(-h, h))
        }
    }

    fn random_geometry(rng: &mut Lcg, kind: usize) -> Geometry {
        match kind {
            0 => Geometry::Circle(Circle::new(rng.vec(0.3), rng.range(0.1, 1.0)).unwrap()),
            1 => {
                let a = rng.vec(1.0);
                let b = a + Vec2::new(rng.range(0.2, 1.5), 0.0)
                    .rotate(Vec2::from_angle(rng.range(0.0, 6.3)));
                Geometry::Capsule(Capsule::new(a, b, rng.range(0.05, 0.5)).unwrap())
            }
            2 => {
                let n = 3 + (rng.next() * 6.0) as usize;
                let points: Vec<Vec2> = (0..n).map(|_| rng.vec(1.0)).collect();
                match Polygon::new(&points) {
                    Ok(p) => Geometry::Polygon(p),
                    Err(_) => Geometry::Polygon(Polygon::new_box(0.5, 0.3).unwrap()),
                }
            }
            _ => {
                let a = rng.vec(1.0);
                let b = a + Vec2::new(rng.range(0.5, 3.0), 0.0)
                    .rotate(Vec2::from_angle(rng.range(0.0, 6.3)));
                Geometry::Segment(Segment::new(a, b).unwrap())
            }
        }
    }

    /// Every pair in both orders over many random poses: finite results, unit normals, at
    /// most two points with distinct ids, separations within the speculative distance, the
    /// swapped order flipping the normal, and for pairs apart the deepest point agreeing
    /// with the GJK distance.
    #[test]
    fn random_pairs_are_consistent() {
        let mut rng = Lcg(0x5eed);
        let speculative = 0.2;
        let mut checked_distance = 0;
        for _ in 0..30000 {
            let kind_a = (rng.next() * 4.0) as usize;
            let kind_b = (rng.next() * 4.0) as usize;
            let a = random_geometry(&mut rng, kind_a);
            let b = random_geometry(&mut rng, kind_b);
            let xf_a = Transform::new(rng.vec(1.0), rng.range(-3.2, 3.2));
            let xf_b = Transform::new(rng.vec(2.5), rng.range(-3.2, 3.2));
            let m = collide(&a, &xf_a, &b, &xf_b, speculative);
            let s = collide(&b, &xf_b, &a, &xf_a, speculative);
            if !can_collide(&a, &b) {
                assert_eq!(m.count, 0);
                continue;
            }
            for (m, label) in [(&m, "a-b"), (&s, "b-a")] {
                assert!(m.count <= 2);
                if m.count == 0 {
                    continue;
                }
                assert!(
                    (m.normal.length() - 1.0).abs() < 1e-4,
                    "{label} {a:?} {b:?} {m:?}"
                );
                for mp in m.points() {
                    assert!(mp.point.is_finite() && mp.separation.is_finite());
                    assert!(mp.separation <= speculative + 1e-6);
                }
                if m.count == 2 {
                    assert_ne!(m.points[0].id, m.points[1].id, "{label} {m:?}");
                }
            }
            let deepest = |m: &Manifold| {
                m.points()
                    .iter()
                    .map(|mp| mp.separation)
                    .fold(f32::MAX, f32::min)
            };
            assert_eq!(m.count == 0, s.count == 0, "{a:?} {b:?}\n{m:?}\n{s:?}");
            let d = distance(&a, &xf_a, &b, &xf_b);
            if m.count > 0 {
                // Both orders measure the same depth. The normals may differ when two
                // reference faces tie within the tolerance (each order prefers its own A),
                // a little when apart, freely when the shapes overlap (crossing cores can be
                // pushed apart either way).
                // (Within LINEAR_SLOP for capsules, see below.)
                assert!(
                    (deepest(&m) - deepest(&s)).abs() < LINEAR_SLOP + 1e-4,
                    "{a:?} {xf_a:?} {b:?} {xf_b:?}\n{m:?}\n{s:?}"
                );
                if d.distance > 0.0 {
                    assert!(
                        m.normal.dot(s.normal) < -0.9,
                        "{a:?} {xf_a:?} {b:?} {xf_b:?}\n{m:?}\n{s:?}"
                    );
                }
            }

            assert!(d.distance.is_finite() && d.distance >= 0.0);
            let d_swapped = distance(&b, &xf_b, &a, &xf_a);
            assert!((d.distance - d_swapped.distance).abs() < 1e-4);
            if d.distance > 0.01 && d.distance < speculative - 0.01 {
                // Apart and within reach: a contact must exist and its deepest point must sit
                // at the true distance.
                assert!(m.count > 0, "{a:?} {xf_a:?} {b:?} {xf_b:?} {d:?}");
                // Side-by-side capsules keep the reference side's normal while it is within
                // LINEAR_SLOP of the closest-point normal (two points beat an exact one), so
                // the depth may be off by up to the slop, never more.
                assert!(
                    deepest(&m) >= d.distance - 1e-4
                        && deepest(&m) <= d.distance + LINEAR_SLOP + 1e-4,
                    "{a:?} {xf_a:?} {b:?} {xf_b:?}\n{d:?}\n{m:?}"
                );
                checked_distance += 1;
            }
            if d.distance > speculative + 0.01 {
                assert_eq!(m.count, 0, "{a:?} {b:?} {d:?} {m:?}");
            }
        }
        assert!(checked_distance > 50, "{checked_distance}");
    }

    /// Random rays against random solid shapes: just before a hit the ray is outside, just
    /// after it inside, the normal faces the ray, and a ray from inside reports nothing.
    #[test]
    fn random_rays_agree_with_point_tests() {
        let mut rng = Lcg(0xa11ce);
        let mut hits = 0;
        for _ in 0..20000 {
            let kind = (rng.next() * 3.0) as usize;
            let g = random_geometry(&mut rng, kind);
            let xf = Transform::new(rng.vec(1.0), rng.range(-3.2, 3.2));
            let origin = rng.vec(4.0);
            let translation = rng.vec(6.0);
            let Some(hit) = ray_cast(&g, &xf, origin, translation) else {
                continue;
            };
            hits += 1;
            assert!((0.0..=1.0).contains(&hit.fraction));
            assert!((hit.normal.length() - 1.0).abs() < 1e-4);
            assert!(hit.normal.dot(translation) <= 0.0);
            let step = 1e-3 / translation.length();
            assert!(!test_point(
                &g,
                &xf,
                origin + (hit.fraction - step) * translation
            ));
            assert!(
                test_point(&g, &xf, origin + (hit.fraction + step) * translation)
                    || hit.normal.dot(translation).abs() < 1e-2 * translation.length(),
                "{g:?} {xf:?} {origin} {translation} {hit:?}"
            );
            let inside = origin + (hit.fraction + step) * translation;
            if test_point(&g, &xf, inside) {
                assert!(ray_cast(&g, &xf, inside, translation).is_none());
            }
        }
        assert!(hits > 1000, "{hits}");
    }
}
