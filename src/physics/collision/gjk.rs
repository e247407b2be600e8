//! Closest points between convex shapes: GJK on the Minkowski difference, plus the closest
//! points of two segments (used by the capsule and polygon kernels).
//!
//! Every shape is a convex *core* (a point, a segment or a polygon) grown by a radius: a
//! circle is a point plus radius, a capsule a segment plus radius. GJK works on the cores and
//! the radii are taken off at the end, so rounded shapes cost nothing extra.
//!
//! Reference: Gilbert, Johnson, Keerthi (1988); Erin Catto, "Computing distance using GJK"
//! (GDC 2010), the scheme Box2D's `b2ShapeDistance` uses: a simplex of at most three support
//! points of `B - A`, reduced each iteration to the sub-simplex closest to the origin.

use crate::physics::math::{cross, cross_sv, cross_vs, Transform, Vec2};
use crate::physics::shape::{Geometry, MAX_POLYGON_VERTICES};

/// Most iterations GJK runs. A polygon pair converges in a handful; the cap guards against
/// cycling on round-off.
const MAX_ITERATIONS: u32 = 20;

/// Result of [`distance`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceOutput {
    /// Closest point on A, world frame.
    pub point_a: Vec2,
    /// Closest point on B, world frame (equal to `point_a` when the shapes overlap).
    pub point_b: Vec2,
    /// Distance between the shapes, metres, 0 when they overlap.
    pub distance: f32,
    /// Unit vector from A to B along the closest points. Zero when the cores overlap (no
    /// direction is defined).
    pub normal: Vec2,
    /// GJK iterations used.
    pub iterations: u32,
}

/// The convex core of a shape (its vertices) and its radius.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DistanceProxy {
    pub points: [Vec2; MAX_POLYGON_VERTICES],
    pub count: usize,
    pub radius: f32,
}

impl DistanceProxy {
    /// The core and radius of a geometry, in its local frame.
    pub fn new(geometry: &Geometry) -> DistanceProxy {
        let mut points = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        let (count, radius) = match geometry {
            Geometry::Circle(c) => {
                points[0] = c.center;
                (1, c.radius)
            }
            Geometry::Capsule(c) => {
                points[0] = c.center_a;
                points[1] = c.center_b;
                (2, c.radius)
            }
            Geometry::Polygon(p) => {
                points[..p.count].copy_from_slice(p.vertices());
                (p.count, p.radius)
            }
            Geometry::Segment(s) => {
                points[0] = s.point_a;
                points[1] = s.point_b;
                (2, 0.0)
            }
        };
        DistanceProxy {
            points,
            count,
            radius,
        }
    }

    /// Index of the vertex farthest along `direction`.
    #[inline]
    fn support(&self, direction: Vec2) -> usize {
        let mut best = 0;
        let mut best_value = self.points[0].dot(direction);
        for i in 1..self.count {
            let value = self.points[i].dot(direction);
            if value > best_value {
                best = i;
                best_value = value;
            }
        }
        best
    }
}

/// One vertex of the simplex: a support point of A, one of B, and their difference.
#[derive(Clone, Copy, Debug, Default)]
struct SimplexVertex {
    /// Support point on A.
    w_a: Vec2,
    /// Support point on B.
    w_b: Vec2,
    /// `w_b - w_a`, a point of the Minkowski difference B - A.
    w: Vec2,
    /// Barycentric weight of this vertex in the closest point.
    a: f32,
    index_a: usize,
    index_b: usize,
}

impl SimplexVertex {
    fn new(
        proxy_a: &DistanceProxy,
        index_a: usize,
        proxy_b: &DistanceProxy,
        index_b: usize,
    ) -> Self {
        let w_a = proxy_a.points[index_a];
        let w_b = proxy_b.points[index_b];
        SimplexVertex {
            w_a,
            w_b,
            w: w_b - w_a,
            a: 1.0,
            index_a,
            index_b,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Simplex {
    v: [SimplexVertex; 3],
    count: usize,
}

impl Simplex {
    /// Reduce a segment simplex to the part closest to the origin.
    ///
    /// Closest point `p = a1 w1 + a2 w2`, `a1 + a2 = 1`. With `e12 = w2 - w1`, the origin
    /// projects onto the line at `t = -w1.e12 / |e12|^2`; in unnormalised barycentric form
    /// `a1 ~ w2.e12`, `a2 ~ -w1.e12`. A non-positive weight means the origin lies in the
    /// other vertex's region.
    fn solve2(&mut self) {
        let w1 = self.v[0].w;
        let w2 = self.v[1].w;
        let e12 = w2 - w1;
        let d12_2 = -w1.dot(e12);
        if d12_2 <= 0.0 {
            // Region of w1.
            self.v[0].a = 1.0;
            self.count = 1;
            return;
        }
        let d12_1 = w2.dot(e12);
        if d12_1 <= 0.0 {
            // Region of w2.
            self.v[0] = self.v[1];
            self.v[0].a = 1.0;
            self.count = 1;
            return;
        }
        let inv = 1.0 / (d12_1 + d12_2);
        self.v[0].a = d12_1 * inv;
        self.v[1].a = d12_2 * inv;
        self.count = 2;
    }

    /// Reduce a triangle simplex to the feature (vertex, edge or the whole triangle) whose
    /// Voronoi region holds the origin.
    ///
    /// Edge weights as in `solve2`; triangle weights are the signed areas of the sub-triangles
    /// facing each vertex, `cross(w2, w3)`, `cross(w3, w1)`, `cross(w1, w2)`, times the
    /// triangle's orientation `n123 = cross(e12, e13)` so their signs do not depend on the
    /// winding. A non-positive triangle weight puts the origin outside the opposite edge.
    fn solve3(&mut self) {
        let w1 = self.v[0].w;
        let w2 = self.v[1].w;
        let w3 = self.v[2].w;

        let e12 = w2 - w1;
        let d12_1 = w2.dot(e12);
        let d12_2 = -w1.dot(e12);

        let e13 = w3 - w1;
        let d13_1 = w3.dot(e13);
        let d13_2 = -w1.dot(e13);

        let e23 = w3 - w2;
        let d23_1 = w3.dot(e23);
        let d23_2 = -w2.dot(e23);

        let n123 = cross(e12, e13);
        let d123_1 = n123 * cross(w2, w3);
        let d123_2 = n123 * cross(w3, w1);
        let d123_3 = n123 * cross(w1, w2);

        // Vertex w1.
        if d12_2 <= 0.0 && d13_2 <= 0.0 {
            self.v[0].a = 1.0;
            self.count = 1;
            return;
        }
        // Edge w1-w2.
        if d12_1 > 0.0 && d12_2 > 0.0 && d123_3 <= 0.0 {
            let inv = 1.0 / (d12_1 + d12_2);
            self.v[0].a = d12_1 * inv;
            self.v[1].a = d12_2 * inv;
            self.count = 2;
            return;
        }
        // Edge w1-w3.
        if d13_1 > 0.0 && d13_2 > 0.0 && d123_2 <= 0.0 {
            let inv = 1.0 / (d13_1 + d13_2);
            self.v[0].a = d13_1 * inv;
            self.v[2].a = d13_2 * inv;
            self.v[1] = self.v[2];
            self.count = 2;
            return;
        }
        // Vertex w2.
        if d12_1 <= 0.0 && d23_2 <= 0.0 {
            self.v[0] = self.v[1];
            self.v[0].a = 1.0;
            self.count = 1;
            return;
        }
        // Vertex w3.
        if d13_1 <= 0.0 && d23_1 <= 0.0 {
            self.v[0] = self.v[2];
            self.v[0].a = 1.0;
            self.count = 1;
            return;
        }
        // Edge w2-w3.
        if d23_1 > 0.0 && d23_2 > 0.0 && d123_1 <= 0.0 {
            let inv = 1.0 / (d23_1 + d23_2);
            self.v[1].a = d23_1 * inv;
            self.v[2].a = d23_2 * inv;
            self.v[0] = self.v[2];
            self.count = 2;
            return;
        }
        // Inside the triangle: the origin is in B - A, the cores overlap.
        let inv = 1.0 / (d123_1 + d123_2 + d123_3);
        self.v[0].a = d123_1 * inv;
        self.v[1].a = d123_2 * inv;
        self.v[2].a = d123_3 * inv;
        self.count = 3;
    }

    /// The direction from the simplex toward the origin, along which the next support point
    /// is searched. For an edge the perpendicular on the origin's side is exact, unlike
    /// `-closest`, which loses precision when the origin is near the edge.
    fn search_direction(&self) -> Vec2 {
        match self.count {
            1 => -self.v[0].w,
            2 => {
                let e12 = self.v[1].w - self.v[0].w;
                if cross(e12, -self.v[0].w) > 0.0 {
                    // Origin left of e12.
                    cross_sv(1.0, e12)
                } else {
                    cross_vs(e12, 1.0)
                }
            }
            _ => Vec2::ZERO,
        }
    }

    /// Closest points on A and B from the barycentric weights.
    fn witness_points(&self) -> (Vec2, Vec2) {
        let mut point_a = Vec2::ZERO;
        let mut point_b = Vec2::ZERO;
        for vertex in &self.v[..self.count] {
            point_a += vertex.a * vertex.w_a;
            point_b += vertex.a * vertex.w_b;
        }
        if self.count == 3 {
            // Overlap: both weights give the same point up to round-off.
            point_b = point_a;
        }
        (point_a, point_b)
    }
}

/// Closest points and distance between two shapes, each in its body frame with its body
/// transform. Overlapping shapes give distance 0 with both points at the same place.
///
/// Outline: put B's core in A's frame; run GJK on the cores; take the radii off.
pub fn distance(
    geometry_a: &Geometry,
    xf_a: &Transform,
    geometry_b: &Geometry,
    xf_b: &Transform,
) -> DistanceOutput {
    let proxy_a = DistanceProxy::new(geometry_a);
    let mut proxy_b = DistanceProxy::new(geometry_b);
    // Work in A's frame: fewer transforms per support call, and better precision near A.
    let xf = xf_a.inv_mul(xf_b);
    for p in &mut proxy_b.points[..proxy_b.count] {
        *p = xf.apply(*p);
    }
    let core = distance_cores(&proxy_a, &proxy_b);

    let (mut point_a, mut point_b) = (core.point_a, core.point_b);
    let radius_a = proxy_a.radius;
    let radius_b = proxy_b.radius;
    let mut normal = core.normal;
    let mut gap = core.distance;
    if gap > radius_a + radius_b {
        // Apart: move each point out to its surface.
        gap -= radius_a + radius_b;
        point_a += radius_a * normal;
        point_b -= radius_b * normal;
    } else {
        // The rounded shapes overlap: report the midpoint once.
        let mid = 0.5 * (point_a + point_b);
        point_a = mid;
        point_b = mid;
        gap = 0.0;
        if core.distance == 0.0 {
            normal = Vec2::ZERO;
        }
    }
    DistanceOutput {
        point_a: xf_a.apply(point_a),
        point_b: xf_a.apply(point_b),
        distance: gap,
        normal: xf_a.q.rotate(normal),
        iterations: core.iterations,
    }
}

/// GJK on two cores given in the same frame. Radii are ignored.
pub(crate) fn distance_cores(proxy_a: &DistanceProxy, proxy_b: &DistanceProxy) -> DistanceOutput {
    let mut simplex = Simplex {
        v: [SimplexVertex::new(proxy_a, 0, proxy_b, 0); 3],
        count: 1,
    };

    let mut iterations = 0;
    while iterations < MAX_ITERATIONS {
        // Remember the vertices so a repeated support point ends the search.
        let saved_count = simplex.count;
        let mut saved = [(usize::MAX, usize::MAX); 3];
        for (s, vertex) in saved.iter_mut().zip(&simplex.v[..saved_count]) {
            *s = (vertex.index_a, vertex.index_b);
        }

        match simplex.count {
            2 => simplex.solve2(),
            3 => simplex.solve3(),
            _ => {}
        }
        if simplex.count == 3 {
            // The origin is inside: overlap.
            break;
        }

        let d = simplex.search_direction();
        if d.length_squared() < f32::EPSILON * f32::EPSILON {
            // The origin is on the simplex: touching or overlapping. Going on would need a
            // normalised direction we cannot form.
            break;
        }

        // New support point of B - A along d: farthest of B along d, of A along -d.
        let index_a = proxy_a.support(-d);
        let index_b = proxy_b.support(d);
        iterations += 1;

        let duplicate = saved[..saved_count]
            .iter()
            .any(|&(ia, ib)| ia == index_a && ib == index_b);
        if duplicate {
            // No progress: the current simplex holds the closest feature.
            break;
        }
        simplex.v[simplex.count] = SimplexVertex::new(proxy_a, index_a, proxy_b, index_b);
        simplex.count += 1;
    }

    let (point_a, point_b) = simplex.witness_points();
    let delta = point_b - point_a;
    let distance = delta.length();
    let normal = if distance > 0.0 {
        delta / distance
    } else {
        Vec2::ZERO
    };
    DistanceOutput {
        point_a,
        point_b,
        distance,
        normal,
        iterations,
    }
}

/// Closest points of two segments `p1 + s d1` and `p2 + t d2`, `s, t` in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentDistance {
    pub closest_1: Vec2,
    pub closest_2: Vec2,
    /// `s`, exactly 0 or 1 when the closest point is an end of segment 1.
    pub fraction_1: f32,
    /// `t`, exactly 0 or 1 when the closest point is an end of segment 2.
    pub fraction_2: f32,
    pub distance_squared: f32,
}

/// Closest points between segments `p1`-`q1` and `p2`-`q2` (both of non-zero length).
///
/// Minimise `f(s, t) = |r + s d1 - t d2|^2` with `r = p1 - p2`, `d1 = q1 - p1`,
/// `d2 = q2 - p2`. Setting both partial derivatives to zero:
///
/// ```text
///   r.d1 + s d1.d1 - t d1.d2 = 0
///   r.d2 + s d1.d2 - t d2.d2 = 0   =>  t = (r.d2 + s d1.d2) / d2.d2
///   s = (d1.d2 r.d2 - r.d1 d2.d2) / (d1.d1 d2.d2 - (d1.d2)^2)
/// ```
///
/// `s` is clamped to [0, 1], `t` follows from it; if `t` then leaves [0, 1] it is clamped
/// and `s` recomputed for that end (`s = (t d1.d2 - r.d1) / d1.d1`). Parallel segments
/// (the denominator vanishes) have a whole interval of closest points: take the middle of
/// the overlap of their projections, so that flat contacts are not mistaken for
/// vertex-vertex ones.
pub fn segment_distance(p1: Vec2, q1: Vec2, p2: Vec2, q2: Vec2) -> SegmentDistance {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let dd1 = d1.dot(d1);
    let dd2 = d2.dot(d2);
    let rd1 = r.dot(d1);
    let rd2 = r.dot(d2);
    let d12 = d1.dot(d2);
    let denominator = dd1 * dd2 - d12 * d12;

    let mut s;
    if denominator > 1.0e-6 * dd1 * dd2 {
        s = ((d12 * rd2 - rd1 * dd2) / denominator).clamp(0.0, 1.0);
    } else {
        // Parallel: fractions of segment 2's ends along segment 1.
        let s_p2 = -rd1 / dd1;
        let s_q2 = (d12 - rd1) / dd1;
        let lower = s_p2.min(s_q2).max(0.0);
        let upper = s_p2.max(s_q2).min(1.0);
        s = if lower <= upper {
            0.5 * (lower + upper)
        } else if s_p2.max(s_q2) < 0.0 {
            0.0
        } else {
            1.0
        };
    }
    let mut t = (rd2 + s * d12) / dd2;
    if t < 0.0 {
        t = 0.0;
        s = (-rd1 / dd1).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((d12 - rd1) / dd1).clamp(0.0, 1.0);
    }
    let closest_1 = p1 + s * d1;
    let closest_2 = p2 + t * d2;
    SegmentDistance {
        closest_1,
        closest_2,
        fraction_1: s,
        fraction_2: t,
        distance_squared: closest_1.distance_squared(closest_2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::shape::{Capsule, Circle, Polygon, Segment};

    fn boxed(hx: f32, hy: f32) -> Geometry {
        Geometry::Polygon(Polygon::new_box(hx, hy).unwrap())
    }

    #[test]
    fn two_boxes_apart() {
        let a = boxed(1.0, 1.0);
        let b = boxed(0.5, 0.5);
        let out = distance(
            &a,
            &Transform::IDENTITY,
            &b,
            &Transform::new(Vec2::new(4.0, 0.2), 0.0),
        );
        // Faces x = 1 and x = 3.5.
        assert!((out.distance - 2.5).abs() < 1e-5, "{out:?}");
        assert!((out.normal - Vec2::X).length() < 1e-5);
        assert!((out.point_a.x - 1.0).abs() < 1e-5 && (out.point_b.x - 3.5).abs() < 1e-5);
        assert!((out.point_a.y - out.point_b.y).abs() < 1e-5);
    }

    #[test]
    fn boxes_corner_to_corner() {
        let a = boxed(1.0, 1.0);
        let b = boxed(1.0, 1.0);
        let xf_b = Transform::new(Vec2::new(3.0, 3.0), 0.0);
        let out = distance(&a, &Transform::IDENTITY, &b, &xf_b);
        assert!((out.distance - 2.0_f32.sqrt()).abs() < 1e-5);
        assert!((out.point_a - Vec2::ONE).length() < 1e-5);
        assert!((out.point_b - Vec2::splat(2.0)).length() < 1e-5);
    }

    #[test]
    fn rotated_box_vertex_to_face() {
        // A diamond (box turned 45 degrees) whose corner points at a box face.
        let a = boxed(1.0, 1.0);
        let b = boxed(1.0, 1.0);
        let xf_a = Transform::new(Vec2::new(-2.0, 5.0), 0.3);
        let xf_b = Transform::new(
            xf_a.apply(Vec2::new(1.0 + 0.5 + 2.0_f32.sqrt(), 0.1)),
            0.3 + std::f32::consts::FRAC_PI_4,
        );
        let out = distance(&a, &xf_a, &b, &xf_b);
        assert!((out.distance - 0.5).abs() < 1e-4, "{out:?}");
        assert!((out.normal - xf_a.q.rotate(Vec2::X)).length() < 1e-4);
    }

    #[test]
    fn circle_vs_polygon() {
        let a = Geometry::Circle(Circle::new(Vec2::new(0.0, 0.0), 0.5).unwrap());
        let b = boxed(1.0, 1.0);
        let xf_b = Transform::new(Vec2::new(3.0, 3.0), 0.0);
        let out = distance(&a, &Transform::IDENTITY, &b, &xf_b);
        // Centre to corner (2, 2) is 2 sqrt 2, minus the radius.
        assert!((out.distance - (8.0_f32.sqrt() - 0.5)).abs() < 1e-5);
        let diag = Vec2::ONE.normalize();
        assert!((out.normal - diag).length() < 1e-5);
        assert!((out.point_a - 0.5 * diag).length() < 1e-5);
        assert!((out.point_b - Vec2::splat(2.0)).length() < 1e-5);
    }

    #[test]
    fn capsule_vs_segment() {
        let a = Geometry::Capsule(
            Capsule::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.25).unwrap(),
        );
        let b = Geometry::Segment(Segment::new(Vec2::new(2.0, -1.0), Vec2::new(2.0, 1.0)).unwrap());
        let out = distance(&a, &Transform::IDENTITY, &b, &Transform::IDENTITY);
        assert!((out.distance - 0.75).abs() < 1e-5);
        assert!((out.point_a - Vec2::new(1.25, 0.0)).length() < 1e-5);
        assert!((out.point_b - Vec2::new(2.0, 0.0)).length() < 1e-5);
        assert_eq!(out.normal, Vec2::X);

        // Crossing a tilted segment above the capsule's end.
        let c = Geometry::Segment(Segment::new(Vec2::new(-3.0, 2.0), Vec2::new(3.0, 1.0)).unwrap());
        let out = distance(&a, &Transform::IDENTITY, &c, &Transform::IDENTITY);
        // Core end (1, 0) to the line y = 1.5 - x / 6: distance (1.5 - 1/6) / sqrt(1 + 1/36).
        let expected = (1.5 - 1.0 / 6.0) / (1.0 + 1.0 / 36.0_f32).sqrt() - 0.25;
        assert!((out.distance - expected).abs() < 1e-5, "{out:?}");
    }

    #[test]
    fn overlapping_shapes_give_zero() {
        let a = boxed(1.0, 1.0);
        let b = boxed(1.0, 1.0);
        let out = distance(
            &a,
            &Transform::IDENTITY,
            &b,
            &Transform::new(Vec2::new(1.5, 0.5), 0.4),
        );
        assert_eq!(out.distance, 0.0);
        assert_eq!(out.point_a, out.point_b);

        // Rounded overlap: cores apart but circles overlap.
        let c = Geometry::Circle(Circle::new(Vec2::ZERO, 1.0).unwrap());
        let out = distance(
            &c,
            &Transform::IDENTITY,
            &c,
            &Transform::new(Vec2::new(1.5, 0.0), 0.0),
        );
        assert_eq!(out.distance, 0.0);
        assert!((out.point_a - Vec2::new(0.75, 0.0)).length() < 1e-6);
        assert_eq!(out.normal, Vec2::X);

        // Concentric circles: no direction, no NaN.
        let out = distance(&c, &Transform::IDENTITY, &c, &Transform::IDENTITY);
        assert_eq!(out.distance, 0.0);
        assert!(out.normal.is_finite() && out.point_a.is_finite());
    }

    #[test]
    fn segment_distance_cases() {
        // Crossing.
        let r = segment_distance(
            Vec2::new(-1.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, -1.0),
            Vec2::new(0.0, 1.0),
        );
        assert!(r.distance_squared < 1e-12);
        assert!((r.fraction_1 - 0.5).abs() < 1e-6 && (r.fraction_2 - 0.5).abs() < 1e-6);
        // Parallel, overlapping on [0, 1]: the middle of the overlap.
        let r = segment_distance(
            Vec2::new(-1.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(2.0, 0.5),
            Vec2::new(0.0, 0.5),
        );
        assert!((r.closest_1 - Vec2::new(0.5, 0.0)).length() < 1e-6);
        assert!((r.distance_squared - 0.25).abs() < 1e-6);
        // Parallel, disjoint: ends.
        let r = segment_distance(
            Vec2::new(-1.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(2.0, 1.0),
            Vec2::new(3.0, 1.0),
        );
        assert_eq!((r.fraction_1, r.fraction_2), (1.0, 0.0));
        assert!((r.distance_squared - 2.0).abs() < 1e-6);
    }
}
