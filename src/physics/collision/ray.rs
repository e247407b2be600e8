//! Ray casts and point tests against single shapes.
//!
//! A ray is `origin + t * translation`, `t` in [0, 1] (world frame). The first hit gives its
//! `fraction` t, the world `point` and the outward surface `normal` there.
//!
//! A ray that starts inside a solid shape (circle, capsule, polygon) returns `None`: it sees
//! no surface to enter. Segments are hit from either side; the normal faces the ray.

use crate::physics::math::{cross, cross_sv, Transform, Vec2};
use crate::physics::shape::{Capsule, Circle, Geometry, Polygon, Segment};

/// The first hit of a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayCastOutput {
    /// Fraction of the translation travelled, in [0, 1].
    pub fraction: f32,
    /// Hit point, world frame.
    pub point: Vec2,
    /// Outward unit surface normal at the hit, world frame.
    pub normal: Vec2,
}

/// First hit of `origin + t * translation`, `t` in [0, 1], on a shape with body transform
/// `xf`. None on a miss, a zero translation, or an origin inside a solid shape.
pub fn ray_cast(
    geometry: &Geometry,
    xf: &Transform,
    origin: Vec2,
    translation: Vec2,
) -> Option<RayCastOutput> {
    // Cast in the shape's frame, then carry the hit back.
    let local_origin = xf.inv_apply(origin);
    let local_translation = xf.q.inv_rotate(translation);
    if local_translation.length_squared() == 0.0 {
        return None;
    }
    let hit = match geometry {
        Geometry::Circle(c) => ray_cast_circle(c, local_origin, local_translation),
        Geometry::Capsule(c) => ray_cast_capsule(c, local_origin, local_translation),
        Geometry::Polygon(p) => ray_cast_polygon(p, local_origin, local_translation),
        Geometry::Segment(s) => ray_cast_segment(s, local_origin, local_translation),
    }?;
    Some(RayCastOutput {
        fraction: hit.fraction,
        point: xf.apply(hit.point),
        normal: xf.q.rotate(hit.normal),
    })
}

/// True when `point` (world) is inside or on the shape. Segments have no inside: false.
pub fn test_point(geometry: &Geometry, xf: &Transform, point: Vec2) -> bool {
    let p = xf.inv_apply(point);
    match geometry {
        Geometry::Circle(c) => p.distance_squared(c.center) <= c.radius * c.radius,
        Geometry::Capsule(c) => {
            distance_squared_to_segment(p, c.center_a, c.center_b) <= c.radius * c.radius
        }
        Geometry::Polygon(poly) => test_point_polygon(poly, p),
        Geometry::Segment(_) => false,
    }
}

/// Squared distance from `p` to the segment `a`-`b`.
#[inline]
fn distance_squared_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let e = b - a;
    let ee = e.dot(e);
    let f = if ee > 0.0 {
        ((p - a).dot(e) / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance_squared(a + f * e)
}

/// Inside a convex polygon: behind every edge, `n_i . (p - v_i) <= 0`. A rounded polygon
/// adds the points within `radius` of its core boundary.
fn test_point_polygon(polygon: &Polygon, p: Vec2) -> bool {
    let mut max_separation = f32::MIN;
    for i in 0..polygon.count {
        max_separation = max_separation.max(polygon.normals[i].dot(p - polygon.vertices[i]));
    }
    if max_separation <= 0.0 {
        return true;
    }
    if polygon.radius <= 0.0 {
        return false;
    }
    let r2 = polygon.radius * polygon.radius;
    (0..polygon.count).any(|i| {
        let j = if i + 1 < polygon.count { i + 1 } else { 0 };
        distance_squared_to_segment(p, polygon.vertices[i], polygon.vertices[j]) <= r2
    })
}

/// Ray `o + t d` vs the circle `|x - c| = r`.
///
/// With `s = o - c`: `|d|^2 t^2 + 2 (s.d) t + |s|^2 - r^2 = 0`. For precision, work along the
/// unit ray `u = d / |d|`: the centre's closest approach is at `t_c = -s.u` metres, at squared
/// distance `h^2 = |s + t_c u|^2`; the ray enters at `t_c - sqrt(r^2 - h^2)` metres.
fn ray_cast_circle(circle: &Circle, origin: Vec2, translation: Vec2) -> Option<RayCastOutput> {
    let s = origin - circle.center;
    let r2 = circle.radius * circle.radius;
    if s.length_squared() < r2 {
        // Starts inside.
        return None;
    }
    let length = translation.length();
    let u = translation / length;
    let t_c = -s.dot(u);
    let closest = s + t_c * u;
    let h2 = closest.length_squared();
    if h2 > r2 {
        return None;
    }
    let t = t_c - (r2 - h2).sqrt();
    if t < 0.0 || t > length {
        return None;
    }
    let hit_offset = s + t * u;
    Some(RayCastOutput {
        fraction: t / length,
        point: circle.center + hit_offset,
        normal: hit_offset.normalize_or(-u),
    })
}

/// Ray `o + t d` vs segment `a + s e`, `s` in [0, 1], from either side.
///
/// `o + t d = a + s e`; crossing with `d` and with `e` (2D cross `x`):
/// `t = ((a - o) x e) / (d x e)`, `s = ((a - o) x d) / (d x e)`. Parallel rays (`d x e = 0`)
/// miss. The normal is `e` turned clockwise, flipped to face the ray.
fn ray_cast_segment(segment: &Segment, origin: Vec2, translation: Vec2) -> Option<RayCastOutput> {
    ray_cast_edge(segment.point_a, segment.point_b, origin, translation, false)
}

/// The edge `a`-`b` as a segment. `one_sided`: only hits from the side of its clockwise
/// normal (the outside of a counter-clockwise polygon) count.
fn ray_cast_edge(
    a: Vec2,
    b: Vec2,
    origin: Vec2,
    translation: Vec2,
    one_sided: bool,
) -> Option<RayCastOutput> {
    let e = b - a;
    let denominator = cross(translation, e);
    if denominator == 0.0 {
        return None;
    }
    let ao = a - origin;
    let t = cross(ao, e) / denominator;
    let s = cross(ao, translation) / denominator;
    if !(0.0..=1.0).contains(&t) || !(0.0..=1.0).contains(&s) {
        return None;
    }
    let mut normal = Vec2::new(e.y, -e.x).normalize_or_zero();
    if normal.dot(translation) > 0.0 {
        if one_sided {
            return None;
        }
        normal = -normal;
    }
    Some(RayCastOutput {
        fraction: t,
        point: origin + t * translation,
        normal,
    })
}

/// Ray vs capsule: the first of the hits on its two sides (the core offset by `radius`
/// along each side normal) and its two end circles. Starts inside: None.
fn ray_cast_capsule(capsule: &Capsule, origin: Vec2, translation: Vec2) -> Option<RayCastOutput> {
    let a = capsule.center_a;
    let b = capsule.center_b;
    let r = capsule.radius;
    if distance_squared_to_segment(origin, a, b) < r * r {
        return None;
    }
    let side = cross_sv(1.0, (b - a).normalize_or(Vec2::X)) * r;
    let candidates = [
        // Left side runs b -> a so that its clockwise normal points left (outward).
        ray_cast_edge(b + side, a + side, origin, translation, true),
        ray_cast_edge(a - side, b - side, origin, translation, true),
        ray_cast_circle(
            &Circle {
                center: a,
                radius: r,
            },
            origin,
            translation,
        ),
        ray_cast_circle(
            &Circle {
                center: b,
                radius: r,
            },
            origin,
            translation,
        ),
    ];
    first_hit(candidates)
}

/// The hit of least fraction.
fn first_hit<const N: usize>(candidates: [Option<RayCastOutput>; N]) -> Option<RayCastOutput> {
    candidates
        .into_iter()
        .flatten()
        .min_by(|x, y| x.fraction.total_cmp(&y.fraction))
}

/// Ray vs convex polygon by clipping the ray against each edge's half plane
/// (Cyrus-Beck). Half plane `i`: `n_i . (x - v_i) <= 0`. Along the ray,
/// `n_i . (o + t d - v_i) <= 0` reads `t * den <= num` with `num = n_i . (v_i - o)`,
/// `den = n_i . d`. Entering planes (`den < 0`) raise the lower bound `t >= num / den`,
/// leaving planes (`den > 0`) lower the upper bound; `den = 0` with `num < 0` is a parallel
/// miss. The hit is the lower bound and its plane's normal, if some plane raised it (else
/// the origin was inside).
///
/// A rounded polygon (internal use) is cast as its offset edges and its corner circles.
fn ray_cast_polygon(polygon: &Polygon, origin: Vec2, translation: Vec2) -> Option<RayCastOutput> {
    if polygon.radius > 0.0 {
        return ray_cast_rounded_polygon(polygon, origin, translation);
    }
    let mut lower = 0.0_f32;
    let mut upper = 1.0_f32;
    let mut index = None;
    for i in 0..polygon.count {
        let n = polygon.normals[i];
        let numerator = n.dot(polygon.vertices[i] - origin);
        let denominator = n.dot(translation);
        if denominator == 0.0 {
            if numerator < 0.0 {
                return None;
            }
        } else if denominator < 0.0 {
            // Entering: t >= numerator / denominator.
            if numerator < lower * denominator {
                lower = numerator / denominator;
                index = Some(i);
            }
        } else if numerator < upper * denominator {
            // Leaving: t <= numerator / denominator.
            upper = numerator / denominator;
        }
        if upper < lower {
            return None;
        }
    }
    let i = index?;
    Some(RayCastOutput {
        fraction: lower,
        point: origin + lower * translation,
        normal: polygon.normals[i],
    })
}

/// Rounded polygon: the surface is the edges pushed out by `radius` plus arcs around the
/// corners; the first hit on those pieces is the hit on the shape.
fn ray_cast_rounded_polygon(
    polygon: &Polygon,
    origin: Vec2,
    translation: Vec2,
) -> Option<RayCastOutput> {
    if test_point_polygon(polygon, origin) {
        return None;
    }
    let r = polygon.radius;
    let mut best: Option<RayCastOutput> = None;
    for i in 0..polygon.count {
        let j = if i + 1 < polygon.count { i + 1 } else { 0 };
        let offset = r * polygon.normals[i];
        let a = polygon.vertices[i] + offset;
        let b = polygon.vertices[j] + offset;
        let corner = Circle {
            center: polygon.vertices[i],
            radius: r,
        };
        let hit = first_hit([
            ray_cast_edge(a, b, origin, translation, true),
            ray_cast_circle(&corner, origin, translation),
        ]);
        best = first_hit([best, hit]);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec2, b: Vec2, tol: f32) -> bool {
        (a - b).length() < tol
    }

    fn check(hit: Option<RayCastOutput>, fraction: f32, point: Vec2, normal: Vec2) {
        let hit = hit.expect("expected a hit");
        assert!((hit.fraction - fraction).abs() < 1e-5, "{hit:?}");
        assert!(close(hit.point, point, 1e-5), "{hit:?}");
        assert!(close(hit.normal, normal, 1e-5), "{hit:?}");
    }

    #[test]
    fn ray_vs_box() {
        let g = Geometry::Polygon(Polygon::new_box(1.0, 0.5).unwrap());
        let xf = Transform::new(Vec2::new(3.0, 1.0), 0.0);
        // From the left along +x: enters the face x = 2 at t = 2 / 8.
        let hit = ray_cast(&g, &xf, Vec2::new(0.0, 1.2), Vec2::new(8.0, 0.0));
        check(hit, 0.25, Vec2::new(2.0, 1.2), -Vec2::X);
        // Too short.
        assert!(ray_cast(&g, &xf, Vec2::new(0.0, 1.2), Vec2::new(1.9, 0.0)).is_none());
        // Passing above.
        assert!(ray_cast(&g, &xf, Vec2::new(0.0, 1.6), Vec2::new(8.0, 0.0)).is_none());
        // Parallel to a face, outside.
        assert!(ray_cast(&g, &xf, Vec2::new(2.5, 2.0), Vec2::new(1.0, 0.0)).is_none());
        // From inside: None.
        assert!(ray_cast(&g, &xf, Vec2::new(3.0, 1.0), Vec2::new(5.0, 0.0)).is_none());
        // Rotated box, diagonal ray from below onto the bottom face.
        let xf = Transform::new(Vec2::new(0.0, 0.0), std::f32::consts::FRAC_PI_2);
        // Turned a quarter: the box is 1 wide, 2 tall; bottom face y = -1.
        let hit = ray_cast(&g, &xf, Vec2::new(0.2, -3.0), Vec2::new(0.0, 4.0));
        check(hit, 0.5, Vec2::new(0.2, -1.0), -Vec2::Y);
    }

    #[test]
    fn ray_vs_polygon() {
        let tri = Geometry::Polygon(
            Polygon::new(&[
                Vec2::new(0.0, 0.0),
                Vec2::new(2.0, 0.0),
                Vec2::new(0.0, 2.0),
            ])
            .unwrap(),
        );
        // Down the diagonal from (2, 2): hits the hypotenuse x + y = 2 at (1, 1).
        let hit = ray_cast(
            &tri,
            &Transform::IDENTITY,
            Vec2::new(2.0, 2.0),
            Vec2::new(-2.0, -2.0),
        );
        check(hit, 0.5, Vec2::new(1.0, 1.0), Vec2::ONE.normalize());
        assert!(ray_cast(
            &tri,
            &Transform::IDENTITY,
            Vec2::new(2.0, 2.0),
            Vec2::new(2.0, 2.0)
        )
        .is_none());
    }

    #[test]
    fn ray_vs_circle() {
        let g = Geometry::Circle(Circle::new(Vec2::new(1.0, 0.0), 0.5).unwrap());
        let xf = Transform::new(Vec2::new(1.0, 2.0), 0.0);
        // Centre at (2, 2). Ray along +x at y = 2.3: enters at x = 2 - 0.4.
        let hit = ray_cast(&g, &xf, Vec2::new(0.0, 2.3), Vec2::new(4.0, 0.0));
        check(hit, 0.4, Vec2::new(1.6, 2.3), Vec2::new(-0.8, 0.6));
        assert!(ray_cast(&g, &xf, Vec2::new(0.0, 2.6), Vec2::new(4.0, 0.0)).is_none());
        assert!(ray_cast(&g, &xf, Vec2::new(0.0, 2.3), Vec2::new(1.0, 0.0)).is_none());
        // Pointing away.
        assert!(ray_cast(&g, &xf, Vec2::new(0.0, 2.0), Vec2::new(-4.0, 0.0)).is_none());
        // Inside.
        assert!(ray_cast(&g, &xf, Vec2::new(2.1, 2.0), Vec2::new(4.0, 0.0)).is_none());
    }

    #[test]
    fn ray_vs_capsule() {
        let g = Geometry::Capsule(
            Capsule::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5).unwrap(),
        );
        // Down onto the flat side.
        let hit = ray_cast(
            &g,
            &Transform::IDENTITY,
            Vec2::new(0.3, 2.0),
            Vec2::new(0.0, -3.0),
        );
        check(hit, 0.5, Vec2::new(0.3, 0.5), Vec2::Y);
        // Up onto the bottom side.
        let hit = ray_cast(
            &g,
            &Transform::IDENTITY,
            Vec2::new(-0.3, -1.5),
            Vec2::new(0.0, 2.0),
        );
        check(hit, 0.5, Vec2::new(-0.3, -0.5), -Vec2::Y);
        // Along the axis into the rounded end (1.5, 0).
        let hit = ray_cast(
            &g,
            &Transform::IDENTITY,
            Vec2::new(3.5, 0.0),
            Vec2::new(-4.0, 0.0),
        );
        check(hit, 0.5, Vec2::new(1.5, 0.0), Vec2::X);
        // Onto the end cap off axis: circle (1, 0) r 0.5 at y = 0.3 -> x = 1.4.
        let hit = ray_cast(
            &g,
            &Transform::IDENTITY,
            Vec2::new(3.4, 0.3),
            Vec2::new(-4.0, 0.0),
        );
        check(hit, 0.5, Vec2::new(1.4, 0.3), Vec2::new(0.8, 0.6));
        // Rotated capsule.
        let xf = Transform::new(Vec2::new(5.0, 5.0), std::f32::consts::FRAC_PI_2);
        let hit = ray_cast(&g, &xf, Vec2::new(3.0, 5.2), Vec2::new(2.0, 0.0));
        check(hit, 0.75, Vec2::new(4.5, 5.2), -Vec2::X);
        // Misses and inside.
        assert!(ray_cast(
            &g,
            &Transform::IDENTITY,
            Vec2::new(-3.0, 0.6),
            Vec2::new(6.0, 0.0)
        )
        .is_none());
        assert!(ray_cast(
            &g,
            &Transform::IDENTITY,
            Vec2::new(0.0, 0.1),
            Vec2::new(6.0, 0.0)
        )
        .is_none());
    }

    #[test]
    fn ray_vs_segment() {
        let g = Geometry::Segment(Segment::new(Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0)).unwrap());
        let xf = Transform::new(Vec2::new(2.0, 0.0), 0.0);
        // From either side, the normal faces the ray.
        let hit = ray_cast(&g, &xf, Vec2::new(0.0, 0.5), Vec2::new(4.0, 0.0));
        check(hit, 0.5, Vec2::new(2.0, 0.5), -Vec2::X);
        let hit = ray_cast(&g, &xf, Vec2::new(4.0, 0.5), Vec2::new(-4.0, 0.0));
        check(hit, 0.5, Vec2::new(2.0, 0.5), Vec2::X);
        // Diagonal.
        let hit = ray_cast(&g, &xf, Vec2::new(1.0, 0.0), Vec2::new(2.0, 2.0));
        check(hit, 0.5, Vec2::new(2.0, 1.0), -Vec2::X);
        // Past the end, parallel, short.
        assert!(ray_cast(&g, &xf, Vec2::new(0.0, 1.5), Vec2::new(4.0, 0.0)).is_none());
        assert!(ray_cast(&g, &xf, Vec2::new(2.0, -3.0), Vec2::new(0.0, 6.0)).is_none());
        assert!(ray_cast(&g, &xf, Vec2::new(0.0, 0.0), Vec2::new(1.0, 0.0)).is_none());
    }

    #[test]
    fn ray_vs_rounded_polygon() {
        let core = Polygon::new_box(1.0, 1.0).unwrap();
        let mut rounded = core;
        rounded.radius = 0.5;
        let g = Geometry::Polygon(rounded);
        let hit = ray_cast(
            &g,
            &Transform::IDENTITY,
            Vec2::new(-3.0, 0.2),
            Vec2::new(3.0, 0.0),
        );
        check(hit, 0.5, Vec2::new(-1.5, 0.2), -Vec2::X);
        // Corner arc around (1, 1), along the diagonal.
        let d = Vec2::ONE.normalize();
        let hit = ray_cast(&g, &Transform::IDENTITY, Vec2::ONE + 2.5 * d, -4.0 * d);
        check(hit, 0.5, Vec2::ONE + 0.5 * d, d);
        assert!(test_point(&g, &Transform::IDENTITY, Vec2::ONE + 0.49 * d));
        assert!(!test_point(&g, &Transform::IDENTITY, Vec2::ONE + 0.51 * d));
    }

    #[test]
    fn point_tests() {
        let xf = Transform::new(Vec2::new(1.0, 1.0), std::f32::consts::FRAC_PI_4);
        let b = Geometry::Polygon(Polygon::new_box(1.0, 0.2).unwrap());
        // Along the rotated long axis.
        assert!(test_point(&b, &xf, xf.apply(Vec2::new(0.95, 0.0))));
        assert!(!test_point(&b, &xf, xf.apply(Vec2::new(0.0, 0.25))));
        assert!(!test_point(&b, &xf, Vec2::new(1.9, 1.0)));
        let c = Geometry::Circle(Circle::new(Vec2::new(0.5, 0.0), 0.5).unwrap());
        assert!(test_point(&c, &xf, xf.apply(Vec2::new(0.9, 0.0))));
        assert!(!test_point(&c, &xf, xf.apply(Vec2::new(1.1, 0.0))));
        let cap = Geometry::Capsule(
            Capsule::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.3).unwrap(),
        );
        assert!(test_point(&cap, &xf, xf.apply(Vec2::new(1.25, 0.0))));
        assert!(test_point(&cap, &xf, xf.apply(Vec2::new(0.0, -0.29))));
        assert!(!test_point(&cap, &xf, xf.apply(Vec2::new(1.25, 0.2))));
        let s = Geometry::Segment(Segment::new(Vec2::ZERO, Vec2::X).unwrap());
        assert!(!test_point(&s, &Transform::IDENTITY, Vec2::new(0.5, 0.0)));
    }
}
