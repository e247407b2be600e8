//! Circles against everything: circle, capsule, segment, polygon. Always one point.
//!
//! Sign convention: normal from A to B; `separation = distance - radius_a - radius_b`
//! (negative: overlap); the point is midway between the two surfaces along the normal.

use super::manifold::{feature_id, FeatureId, Manifold};
use crate::physics::math::{cross_sv, Transform, Vec2};
use crate::physics::shape::{Capsule, Circle, Polygon, Segment};

/// Build the one-point manifold for closest core points `c_a` (on A's core) and `c_b` (on
/// B's core) with unit `normal` from A to B and core distance `distance`.
///
/// Surfaces: `c_a + r_a n` and `c_b - r_b n`; the contact point is their midpoint.
#[inline]
fn make_point_manifold(
    c_a: Vec2,
    radius_a: f32,
    c_b: Vec2,
    radius_b: f32,
    normal: Vec2,
    distance: f32,
    id: FeatureId,
) -> Manifold {
    let mut manifold = Manifold::EMPTY;
    manifold.normal = normal;
    let point = 0.5 * ((c_a + radius_a * normal) + (c_b - radius_b * normal));
    manifold.push(point, distance - radius_a - radius_b, id);
    manifold
}

/// Circle A vs circle B. Coincident centres give the normal +y (any fixed direction works;
/// a fixed one keeps the answer deterministic).
pub fn collide_circles(
    circle_a: &Circle,
    xf_a: &Transform,
    circle_b: &Circle,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    let c_a = xf_a.apply(circle_a.center);
    let c_b = xf_b.apply(circle_b.center);
    let radius = circle_a.radius + circle_b.radius;
    let max_distance = radius + speculative_distance;
    let distance_squared = c_a.distance_squared(c_b);
    if distance_squared > max_distance * max_distance {
        return Manifold::EMPTY;
    }
    let distance = distance_squared.sqrt();
    let normal = if distance > f32::EPSILON {
        (c_b - c_a) / distance
    } else {
        Vec2::Y
    };
    make_point_manifold(
        c_a,
        circle_a.radius,
        c_b,
        circle_b.radius,
        normal,
        distance,
        0,
    )
}

/// Capsule A vs circle B.
pub fn collide_capsule_circle(
    capsule_a: &Capsule,
    xf_a: &Transform,
    circle_b: &Circle,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    collide_rounded_segment_circle(
        capsule_a.center_a,
        capsule_a.center_b,
        capsule_a.radius,
        xf_a,
        circle_b,
        xf_b,
        speculative_distance,
    )
}

/// Segment A vs circle B.
pub fn collide_segment_circle(
    segment_a: &Segment,
    xf_a: &Transform,
    circle_b: &Circle,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    collide_rounded_segment_circle(
        segment_a.point_a,
        segment_a.point_b,
        0.0,
        xf_a,
        circle_b,
        xf_b,
        speculative_distance,
    )
}

/// Segment `p`-`q` rounded by `radius_a` (A) vs circle B, in A's frame.
///
/// Closest core point `c_a = p + f (q - p)` with `f = clamp((c - p).e / e.e, 0, 1)`,
/// `e = q - p`. When the centre lies on the core, the normal is the core's left normal
/// (`e` turned counter-clockwise). Feature id: the end (0 or 1) or the side (2) of A.
fn collide_rounded_segment_circle(
    p: Vec2,
    q: Vec2,
    radius_a: f32,
    xf_a: &Transform,
    circle_b: &Circle,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    let c = xf_a.inv_apply(xf_b.apply(circle_b.center));
    let e = q - p;
    let ee = e.dot(e);
    let f = if ee > 0.0 {
        ((c - p).dot(e) / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let c_a = p + f * e;
    let radius = radius_a + circle_b.radius;
    let max_distance = radius + speculative_distance;
    let distance_squared = c_a.distance_squared(c);
    if distance_squared > max_distance * max_distance {
        return Manifold::EMPTY;
    }
    let distance = distance_squared.sqrt();
    let normal = if distance > f32::EPSILON {
        (c - c_a) / distance
    } else {
        cross_sv(1.0, e).normalize_or(Vec2::Y)
    };
    let feature = if f == 0.0 {
        0
    } else if f == 1.0 {
        1
    } else {
        2
    };
    let mut manifold = make_point_manifold(
        c_a,
        radius_a,
        c,
        circle_b.radius,
        normal,
        distance,
        feature_id(feature, 0),
    );
    to_world(&mut manifold, xf_a);
    manifold
}

/// Polygon A (possibly rounded) vs circle B, in A's frame.
///
/// Outline:
/// 1. The face of greatest separation `s_i = n_i . (c - v_i)` for the centre `c`; early out
///    when `s > r_a + r_b + speculative`. A centre inside gives `s <= 0` and the face of
///    least penetration, which is the normal for deep overlap.
/// 2. Voronoi regions of that face's ends: `u1 = (c - v1) . (v2 - v1) < 0` puts the centre
///    beyond `v1`, `u2 = (c - v2) . (v1 - v2) < 0` beyond `v2`; then the normal joins the
///    vertex to the centre. Otherwise it is the face normal.
pub fn collide_polygon_circle(
    polygon_a: &Polygon,
    xf_a: &Transform,
    circle_b: &Circle,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    let c = xf_a.inv_apply(xf_b.apply(circle_b.center));
    let radius_a = polygon_a.radius;
    let radius_b = circle_b.radius;
    let radius = radius_a + radius_b;

    // 1. Face of greatest separation.
    let mut face = 0;
    let mut separation = f32::MIN;
    for i in 0..polygon_a.count {
        let s = polygon_a.normals[i].dot(c - polygon_a.vertices[i]);
        if s > separation {
            separation = s;
            face = i;
        }
    }
    if separation > radius + speculative_distance {
        return Manifold::EMPTY;
    }

    // 2. Vertex or face region.
    let next = if face + 1 < polygon_a.count {
        face + 1
    } else {
        0
    };
    let v1 = polygon_a.vertices[face];
    let v2 = polygon_a.vertices[next];
    let face_normal = polygon_a.normals[face];
    let u1 = (c - v1).dot(v2 - v1);
    let u2 = (c - v2).dot(v1 - v2);
    let vertex = if separation > 0.0 && u1 < 0.0 {
        Some((v1, face))
    } else if separation > 0.0 && u2 < 0.0 {
        Some((v2, next))
    } else {
        None
    };

    let mut manifold = match vertex {
        Some((v, index)) => {
            let distance_squared = c.distance_squared(v);
            let max_distance = radius + speculative_distance;
            if distance_squared > max_distance * max_distance {
                return Manifold::EMPTY;
            }
            let distance = distance_squared.sqrt();
            // distance >= separation > 0, so the division is safe.
            let normal = ((c - v) / distance).normalize_or(face_normal);
            make_point_manifold(
                v,
                radius_a,
                c,
                radius_b,
                normal,
                distance,
                feature_id(index, 0),
            )
        }
        None => {
            // Face: the centre's projection on the face is `c - s n`.
            make_point_manifold(
                c - separation * face_normal,
                radius_a,
                c,
                radius_b,
                face_normal,
                separation,
                feature_id(face, 0),
            )
        }
    };
    to_world(&mut manifold, xf_a);
    manifold
}

/// Move a manifold from A's frame to world.
#[inline]
pub(crate) fn to_world(manifold: &mut Manifold, xf_a: &Transform) {
    manifold.normal = xf_a.q.rotate(manifold.normal);
    for mp in manifold.points_mut() {
        mp.point = xf_a.apply(mp.point);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::collision::collide;
    use crate::physics::shape::Geometry;

    fn close(a: Vec2, b: Vec2, tol: f32) -> bool {
        (a - b).length() < tol
    }

    fn circle(x: f32, y: f32, r: f32) -> Geometry {
        Geometry::Circle(Circle::new(Vec2::new(x, y), r).unwrap())
    }

    fn check(m: &Manifold, normal: Vec2, point: Vec2, separation: f32) {
        assert_eq!(m.count, 1, "{m:?}");
        assert!(close(m.normal, normal, 1e-5), "{m:?}");
        assert!(close(m.points[0].point, point, 1e-5), "{m:?}");
        assert!((m.points[0].separation - separation).abs() < 1e-5, "{m:?}");
    }

    #[test]
    fn circle_vs_circle() {
        let a = circle(0.0, 0.0, 1.0);
        let b = circle(0.0, 0.0, 0.5);
        let xf_b = Transform::new(Vec2::new(3.0, 4.0), 1.0);
        // Centres 5 apart: gap 3.5, no contact.
        assert_eq!(collide(&a, &Transform::IDENTITY, &b, &xf_b, 0.1).count, 0);
        let xf_b = Transform::new(Vec2::new(0.6, 0.8), 1.0);
        let m = collide(&a, &Transform::IDENTITY, &b, &xf_b, 0.1);
        // Distance 1, overlap 0.5; surfaces at 1.0 and 0.5 along (0.6, 0.8).
        let n = Vec2::new(0.6, 0.8);
        check(&m, n, 0.75 * n, -0.5);
        let s = collide(&b, &xf_b, &a, &Transform::IDENTITY, 0.1);
        check(&s, -n, 0.75 * n, -0.5);
        // Coincident centres: fixed normal, no NaN.
        let m = collide(&a, &Transform::IDENTITY, &b, &Transform::IDENTITY, 0.1);
        check(&m, Vec2::Y, Vec2::new(0.0, 0.25), -1.5);
    }

    #[test]
    fn circle_vs_polygon_face_vertex_deep() {
        let poly = Geometry::Polygon(Polygon::new_box(1.0, 0.5).unwrap());
        let xf_p = Transform::new(Vec2::new(2.0, 1.0), 0.0);
        // Above the top face, overlapping 0.1.
        let c = circle(2.3, 1.0 + 0.5 + 0.2, 0.3);
        let m = collide(&c, &Transform::IDENTITY, &poly, &xf_p, 0.0);
        check(&m, -Vec2::Y, Vec2::new(2.3, 1.45), -0.1);
        let m = collide(&poly, &xf_p, &c, &Transform::IDENTITY, 0.0);
        check(&m, Vec2::Y, Vec2::new(2.3, 1.45), -0.1);

        // Off the corner (3, 1.5) along (3, 4) / 5 at distance 0.5: gap 0.2.
        let d = Vec2::new(0.6, 0.8);
        let centre = Vec2::new(3.0, 1.5) + 0.5 * d;
        let c = circle(centre.x, centre.y, 0.3);
        let m = collide(&poly, &xf_p, &c, &Transform::IDENTITY, 0.25);
        check(&m, d, Vec2::new(3.0, 1.5) + 0.1 * d, 0.2);
        assert_eq!(
            collide(&poly, &xf_p, &c, &Transform::IDENTITY, 0.15).count,
            0
        );

        // Deep: centre inside, nearest the right face (x = 3) at 0.1.
        let c = circle(2.9, 1.1, 0.3);
        let m = collide(&poly, &xf_p, &c, &Transform::IDENTITY, 0.0);
        // Surfaces: polygon at x = 3, circle at 2.9 - 0.3 = 2.6.
        check(&m, Vec2::X, Vec2::new(2.8, 1.1), -0.4);

        // Centre exactly at the box centre: a face normal, finite.
        let c = circle(0.0, 0.0, 0.3);
        let m = collide(&poly, &xf_p, &c, &xf_p, 0.0);
        assert_eq!(m.count, 1);
        assert!(m.normal.is_finite() && (m.normal.length() - 1.0).abs() < 1e-6);
        assert!((m.points[0].separation + 0.8).abs() < 1e-5, "{m:?}");
    }

    #[test]
    fn circle_vs_rotated_polygon() {
        let poly = Geometry::Polygon(Polygon::new_box(1.0, 1.0).unwrap());
        let xf_p = Transform::new(Vec2::new(-1.0, 2.0), 0.5);
        let face_n = xf_p.q.rotate(Vec2::X);
        let centre = xf_p.apply(Vec2::new(1.0, 0.3)) + 0.25 * face_n;
        let c = Geometry::Circle(Circle::new(centre, 0.5).unwrap());
        let m = collide(&poly, &xf_p, &c, &Transform::IDENTITY, 0.0);
        let on_face = xf_p.apply(Vec2::new(1.0, 0.3));
        check(&m, face_n, on_face - 0.125 * face_n, -0.25);
    }

    #[test]
    fn circle_vs_capsule_and_segment() {
        let cap = Geometry::Capsule(
            Capsule::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.2).unwrap(),
        );
        // Above the side.
        let c = circle(0.5, 0.6, 0.3);
        let m = collide(&cap, &Transform::IDENTITY, &c, &Transform::IDENTITY, 0.2);
        check(&m, Vec2::Y, Vec2::new(0.5, 0.25), 0.1);
        assert_eq!(
            collide(&cap, &Transform::IDENTITY, &c, &Transform::IDENTITY, 0.05).count,
            0
        );
        // Beyond the end, along x.
        let c = circle(1.4, 0.0, 0.3);
        let m = collide(&c, &Transform::IDENTITY, &cap, &Transform::IDENTITY, 0.0);
        check(&m, -Vec2::X, Vec2::new(1.15, 0.0), -0.1);
        // Centre on the core: left normal of the axis, finite.
        let c = circle(0.25, 0.0, 0.3);
        let m = collide(&cap, &Transform::IDENTITY, &c, &Transform::IDENTITY, 0.0);
        check(&m, Vec2::Y, Vec2::new(0.25, -0.05), -0.5);

        let seg =
            Geometry::Segment(Segment::new(Vec2::new(-2.0, 0.0), Vec2::new(2.0, 0.0)).unwrap());
        let xf_s = Transform::new(Vec2::new(0.0, 1.0), 0.0);
        let c = circle(0.7, 0.75, 0.3);
        let m = collide(&seg, &xf_s, &c, &Transform::IDENTITY, 0.0);
        // Surfaces at y = 1 (segment) and 1.05 (circle top).
        check(&m, -Vec2::Y, Vec2::new(0.7, 1.025), -0.05);
        let m = collide(&c, &Transform::IDENTITY, &seg, &xf_s, 0.0);
        check(&m, Vec2::Y, Vec2::new(0.7, 1.025), -0.05);
    }

    #[test]
    fn speculative_circles() {
        let a = circle(0.0, 0.0, 0.5);
        let xf_b = Transform::new(Vec2::new(1.05, 0.0), 0.0);
        let m = collide(&a, &Transform::IDENTITY, &a, &xf_b, 0.1);
        check(&m, Vec2::X, Vec2::new(0.525, 0.0), 0.05);
        assert_eq!(collide(&a, &Transform::IDENTITY, &a, &xf_b, 0.01).count, 0);
    }
}
