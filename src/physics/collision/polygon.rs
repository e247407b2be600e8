//! Polygon vs polygon: the separating axis test picks a reference face, the incident edge of
//! the other polygon is clipped against it (seed 003, "contact points using clipping").
//!
//! Every polygon may be rounded by a `radius`, which turns a capsule into a two-vertex
//! rounded polygon and a segment into a two-vertex polygon: capsule vs polygon and segment vs
//! polygon reuse this kernel and get two points when lying flat.
//!
//! Sign convention: the manifold normal points from A to B; separation is the signed gap
//! between the (rounded) surfaces along it; each point lies midway between the surfaces.

use super::gjk::segment_distance;
use super::manifold::{feature_id, FeatureId, Manifold, ManifoldPoint};
use crate::physics::math::{cross_sv, Transform, Vec2};
use crate::physics::settings::LINEAR_SLOP;
use crate::physics::shape::{Capsule, Polygon, Segment, MAX_POLYGON_VERTICES};

/// B's face is taken as the reference only when its separation beats A's by more than this,
/// metres (0.1 * LINEAR_SLOP). Without the bias the reference face flips between A and B
/// from step to step on round-off when two faces are parallel (a box resting on a box), and
/// the feature ids with it, which breaks warm starting.
const REFERENCE_FACE_TOLERANCE: f32 = 0.1 * LINEAR_SLOP;

/// Polygons whose SAT separation exceeds this, metres (0.1 * LINEAR_SLOP), are treated as
/// apart: their closest features may be two vertices, and the contact normal then joins the
/// vertices instead of being a face normal. Below it the normal could not be formed safely.
const SEPARATED_TOLERANCE: f32 = 0.1 * LINEAR_SLOP;

/// A capsule as a two-vertex polygon rounded by its radius.
pub(crate) fn make_rounded_segment(point_a: Vec2, point_b: Vec2, radius: f32) -> Polygon {
    let mut vertices = [Vec2::ZERO; MAX_POLYGON_VERTICES];
    let mut normals = [Vec2::ZERO; MAX_POLYGON_VERTICES];
    let edge = point_b - point_a;
    // Outward normal of edge i is the edge turned clockwise (counter-clockwise winding).
    let normal = Vec2::new(edge.y, -edge.x).normalize_or(Vec2::Y);
    vertices[0] = point_a;
    vertices[1] = point_b;
    normals[0] = normal;
    normals[1] = -normal;
    Polygon {
        vertices,
        normals,
        count: 2,
        radius,
        centroid: 0.5 * (point_a + point_b),
    }
}

/// Polygon A vs capsule B (the capsule as a rounded two-vertex polygon).
pub fn collide_polygon_capsule(
    polygon_a: &Polygon,
    xf_a: &Transform,
    capsule_b: &Capsule,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    let polygon_b = make_rounded_segment(capsule_b.center_a, capsule_b.center_b, capsule_b.radius);
    collide_polygons(polygon_a, xf_a, &polygon_b, xf_b, speculative_distance)
}

/// Polygon A vs segment B (the segment as a two-vertex polygon).
pub fn collide_polygon_segment(
    polygon_a: &Polygon,
    xf_a: &Transform,
    segment_b: &Segment,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    let polygon_b = make_rounded_segment(segment_b.point_a, segment_b.point_b, 0.0);
    collide_polygons(polygon_a, xf_a, &polygon_b, xf_b, speculative_distance)
}

/// A polygon moved into the kernel's frame. Only the first `count` vertices and normals
/// are written (the rest stay zero): built field by field from the shape, never copied
/// whole. A whole-struct copy followed by a read of its `count` stalled on store forwarding
/// and was about half of this kernel's time.
struct LocalPolygon {
    vertices: [Vec2; MAX_POLYGON_VERTICES],
    normals: [Vec2; MAX_POLYGON_VERTICES],
    count: usize,
    radius: f32,
}

impl LocalPolygon {
    #[inline(always)]
    fn new(
        polygon: &Polygon,
        vertex: impl Fn(Vec2) -> Vec2,
        normal: impl Fn(Vec2) -> Vec2,
    ) -> LocalPolygon {
        let count = polygon.count.min(MAX_POLYGON_VERTICES);
        let mut local = LocalPolygon {
            vertices: [Vec2::ZERO; MAX_POLYGON_VERTICES],
            normals: [Vec2::ZERO; MAX_POLYGON_VERTICES],
            count,
            radius: polygon.radius,
        };
        for i in 0..count {
            local.vertices[i] = vertex(polygon.vertices[i]);
            local.normals[i] = normal(polygon.normals[i]);
        }
        local
    }
}

/// Contact manifold of two convex (possibly rounded) polygons.
///
/// Outline:
/// 1. Put both polygons in A's frame, origin at A's first vertex (small coordinates keep
///    precision for bodies far from the world origin).
/// 2. SAT: the face of A with the largest separation against B, and of B against A. Early out
///    when either exceeds the speculative distance plus the radii.
/// 3. Reference face: A's unless B's separates by more than `REFERENCE_FACE_TOLERANCE`.
///    Incident edge: the edge of the other polygon whose normal is most anti-parallel to the
///    reference normal.
/// 4. Apart and the closest features of the two edges are two vertices: one point, normal
///    along the vertices. Otherwise clip (seed 003) with a point for each clipped end.
pub fn collide_polygons(
    polygon_a: &Polygon,
    xf_a: &Transform,
    polygon_b: &Polygon,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    // 1. Local frame. Shifted A: world = q * (local - origin) + (p + q * origin).
    let origin = polygon_a.vertices[0];
    let sf_a = Transform {
        p: xf_a.apply(origin),
        q: xf_a.q,
    };
    let xf = sf_a.inv_mul(xf_b);
    let local_a = LocalPolygon::new(polygon_a, |v| v - origin, |n| n);
    let local_b = LocalPolygon::new(polygon_b, |v| xf.apply(v), |n| xf.q.rotate(n));

    // 2. Separating axes.
    let (edge_a, separation_a) = find_max_separation(&local_a, &local_b);
    let (edge_b, separation_b) = find_max_separation(&local_b, &local_a);
    let radius = local_a.radius + local_b.radius;
    if separation_a > speculative_distance + radius || separation_b > speculative_distance + radius
    {
        return Manifold::EMPTY;
    }

    // 3. Reference face and incident edge.
    let flip = separation_b > separation_a + REFERENCE_FACE_TOLERANCE;
    let (edge_a, edge_b) = if flip {
        (
            find_incident_edge(&local_a, local_b.normals[edge_b]),
            edge_b,
        )
    } else {
        (
            edge_a,
            find_incident_edge(&local_b, local_a.normals[edge_a]),
        )
    };

    // 4. Vertex-vertex when apart, else clip.
    let separated = separation_a.max(separation_b) > SEPARATED_TOLERANCE;
    let vertex_vertex = if separated {
        collide_closest_vertices(&local_a, edge_a, &local_b, edge_b, speculative_distance)
    } else {
        None
    };
    let local = vertex_vertex.unwrap_or_else(|| {
        clip_polygons(
            &local_a,
            &local_b,
            edge_a,
            edge_b,
            flip,
            speculative_distance,
        )
    });

    // 5. Back to world.
    local.to_world(xf_a, &sf_a)
}

/// A contact point in the kernel's frame.
#[derive(Clone, Copy)]
struct LocalPoint {
    point: Vec2,
    separation: f32,
    id: FeatureId,
}

impl LocalPoint {
    const NONE: LocalPoint = LocalPoint {
        point: Vec2::ZERO,
        separation: 0.0,
        id: 0,
    };
}

/// The kernel's result in its own frame: two candidate points, each used where `keep` says.
/// Never indexed by a run-time count, so it stays in registers: a `Manifold` filled point by
/// point (`push`) lived on the stack and was copied out right away, which stalled on store
/// forwarding (about a fifth of this kernel's time on a pyramid).
#[derive(Clone, Copy)]
struct LocalManifold {
    normal: Vec2,
    points: [LocalPoint; 2],
    keep: [bool; 2],
}

impl LocalManifold {
    /// No point (normal zero, as `Manifold::EMPTY`).
    const NONE: LocalManifold = LocalManifold {
        normal: Vec2::ZERO,
        points: [LocalPoint::NONE; 2],
        keep: [false; 2],
    };

    /// The world manifold: normal turned by A's rotation, kept points moved by the shifted
    /// frame `sf_a`, in order (a lone second point takes the first slot, as `push` did).
    #[inline(always)]
    fn to_world(self, xf_a: &Transform, sf_a: &Transform) -> Manifold {
        let world = |p: LocalPoint| ManifoldPoint {
            point: sf_a.apply(p.point),
            separation: p.separation,
            id: p.id,
            ..ManifoldPoint::default()
        };
        let none = ManifoldPoint::default();
        let (points, count) = match self.keep {
            [true, true] => ([world(self.points[0]), world(self.points[1])], 2),
            [true, false] => ([world(self.points[0]), none], 1),
            [false, true] => ([world(self.points[1]), none], 1),
            [false, false] => ([none, none], 0),
        };
        Manifold {
            normal: xf_a.q.rotate(self.normal),
            points,
            count,
        }
    }
}

/// The edge of `polygon_1` whose outward normal separates it most from `polygon_2`, and that
/// separation (negative: overlap along it). For edge `i` with normal `n_i` through `v_i`,
/// `s_i = min_j n_i . (w_j - v_i)` over the vertices `w_j` of `polygon_2`; the answer is
/// `max_i s_i`.
///
/// Two boxes (four vertices each, the common case) take a copy of the loop with constant
/// counts, fully unrolled; the operations and their order are the same, so is the result.
#[inline(always)]
fn find_max_separation(polygon_1: &LocalPolygon, polygon_2: &LocalPolygon) -> (usize, f32) {
    if polygon_1.count == 4 && polygon_2.count == 4 {
        max_separation_counts(polygon_1, polygon_2, 4, 4)
    } else {
        max_separation_counts(polygon_1, polygon_2, polygon_1.count, polygon_2.count)
    }
}

#[inline(always)]
fn max_separation_counts(
    polygon_1: &LocalPolygon,
    polygon_2: &LocalPolygon,
    count_1: usize,
    count_2: usize,
) -> (usize, f32) {
    let mut best_edge = 0;
    let mut max_separation = f32::MIN;
    for i in 0..count_1 {
        let n = polygon_1.normals[i];
        let v = polygon_1.vertices[i];
        let mut s = f32::MAX;
        for &w in &polygon_2.vertices[..count_2] {
            s = s.min(n.dot(w - v));
        }
        if s > max_separation {
            max_separation = s;
            best_edge = i;
        }
    }
    (best_edge, max_separation)
}

/// The edge of `polygon` whose normal is most anti-parallel to `reference_normal`.
fn find_incident_edge(polygon: &LocalPolygon, reference_normal: Vec2) -> usize {
    let mut best_edge = 0;
    let mut min_dot = f32::MAX;
    for (i, n) in polygon.normals[..polygon.count].iter().enumerate() {
        let dot = reference_normal.dot(*n);
        if dot < min_dot {
            min_dot = dot;
            best_edge = i;
        }
    }
    best_edge
}

#[inline]
fn next_index(i: usize, count: usize) -> usize {
    if i + 1 < count {
        i + 1
    } else {
        0
    }
}

/// When the closest points of edge `edge_a` of A and edge `edge_b` of B are two vertices,
/// the single vertex-vertex point (no point when it is beyond the speculative distance).
/// `None` when the closest features include an edge interior: the caller clips instead.
fn collide_closest_vertices(
    polygon_a: &LocalPolygon,
    edge_a: usize,
    polygon_b: &LocalPolygon,
    edge_b: usize,
    speculative_distance: f32,
) -> Option<LocalManifold> {
    let i11 = edge_a;
    let i12 = next_index(edge_a, polygon_a.count);
    let i21 = edge_b;
    let i22 = next_index(edge_b, polygon_b.count);
    let result = segment_distance(
        polygon_a.vertices[i11],
        polygon_a.vertices[i12],
        polygon_b.vertices[i21],
        polygon_b.vertices[i22],
    );
    let end_of = |fraction: f32, first: usize, second: usize| {
        if fraction == 0.0 {
            Some(first)
        } else if fraction == 1.0 {
            Some(second)
        } else {
            None
        }
    };
    let (Some(index_a), Some(index_b)) = (
        end_of(result.fraction_1, i11, i12),
        end_of(result.fraction_2, i21, i22),
    ) else {
        return None;
    };
    let distance = result.distance_squared.sqrt();
    if distance <= 0.0 {
        return None;
    }
    let radius_a = polygon_a.radius;
    let radius_b = polygon_b.radius;
    let separation = distance - radius_a - radius_b;
    if separation > speculative_distance {
        return Some(LocalManifold::NONE);
    }
    let v_a = polygon_a.vertices[index_a];
    let v_b = polygon_b.vertices[index_b];
    let normal = (v_b - v_a) / distance;
    // Surface points of A and B along the normal, and their midpoint.
    let c_a = v_a + radius_a * normal;
    let c_b = v_b - radius_b * normal;
    let point = LocalPoint {
        point: 0.5 * (c_a + c_b),
        separation,
        id: feature_id(index_a, index_b),
    };
    Some(LocalManifold {
        normal,
        points: [point, LocalPoint::NONE],
        keep: [true, false],
    })
}

/// Clip the segment `points` to the half plane `direction . p >= offset` (seed 003's
/// `clip`). Keeps the order of the two points: a point outside is replaced by the crossing
/// point `p0 + d0 / (d0 - d1) (p1 - p0)`, where `d = direction . p - offset`. Returns None when
/// both points are outside.
#[inline]
pub(crate) fn clip_segment_to_line(
    points: [Vec2; 2],
    direction: Vec2,
    offset: f32,
) -> Option<[Vec2; 2]> {
    let d0 = direction.dot(points[0]) - offset;
    let d1 = direction.dot(points[1]) - offset;
    if d0 >= 0.0 && d1 >= 0.0 {
        return Some(points);
    }
    if d0 < 0.0 && d1 < 0.0 {
        return None;
    }
    let crossing = points[0] + (d0 / (d0 - d1)) * (points[1] - points[0]);
    if d0 < 0.0 {
        Some([crossing, points[1]])
    } else {
        Some([points[0], crossing])
    }
}

/// Seed 003's three clips of the incident edge against the reference face.
///
/// Reference face `v11 -> v12` on polygon 1 with outward normal `n` and tangent
/// `t = (v12 - v11) / |v12 - v11|` (`n` turned counter-clockwise). The incident edge
/// `v21 -> v22` of polygon 2 runs against `t` (both polygons wind counter-clockwise), so
/// `v21` is the upper end (near `v12`) and `v22` the lower end (near `v11`).
///
/// 1. keep `t . p >= t . v11`   (side plane through v11)
/// 2. keep `-t . p >= -t . v12` (side plane through v12)
/// 3. each survivor's separation `s = n . (p - v11) - r1 - r2`; keep `s <= speculative`.
///
/// A surviving point `p` lies on polygon 2's core; polygon 2's surface is `p - r2 n`,
/// polygon 1's surface below it is `p - (n . (p - v11)) n + r1 n`, and the contact point is
/// their midpoint `p + 0.5 (r1 - r2 - n . (p - v11)) n`.
///
/// Ids pair the ends: upper point `(v12, v21)`, lower point `(v11, v22)`, whatever the
/// clipping did, so they stay the same while the same two edges touch.
fn clip_polygons(
    polygon_a: &LocalPolygon,
    polygon_b: &LocalPolygon,
    edge_a: usize,
    edge_b: usize,
    flip: bool,
    speculative_distance: f32,
) -> LocalManifold {
    // Reference polygon 1, incident polygon 2.
    let (polygon_1, polygon_2, i11, i21) = if flip {
        (polygon_b, polygon_a, edge_b, edge_a)
    } else {
        (polygon_a, polygon_b, edge_a, edge_b)
    };
    let i12 = next_index(i11, polygon_1.count);
    let i22 = next_index(i21, polygon_2.count);
    let v11 = polygon_1.vertices[i11];
    let v12 = polygon_1.vertices[i12];
    let v21 = polygon_2.vertices[i21];
    let v22 = polygon_2.vertices[i22];
    let normal = polygon_1.normals[i11];
    let tangent = cross_sv(1.0, normal);
    let r1 = polygon_1.radius;
    let r2 = polygon_2.radius;

    let mut manifold = LocalManifold::NONE;
    manifold.normal = if flip { -normal } else { normal };
    // Ids ordered (A feature, B feature).
    let make_id = |ref_vertex: usize, inc_vertex: usize| {
        if flip {
            feature_id(inc_vertex, ref_vertex)
        } else {
            feature_id(ref_vertex, inc_vertex)
        }
    };

    // Clips 1 and 2: the side planes of the reference face.
    let clipped = clip_segment_to_line([v21, v22], tangent, tangent.dot(v11))
        .and_then(|points| clip_segment_to_line(points, -tangent, -tangent.dot(v12)));
    let Some(clipped) = clipped else {
        // The incident edge lies wholly beside the reference face (only on round-off or
        // odd speculative configurations): keep its deepest end as a single point.
        let s21 = normal.dot(v21 - v11);
        let s22 = normal.dot(v22 - v11);
        let (p, s, id) = if s21 <= s22 {
            (v21, s21, make_id(i12, i21))
        } else {
            (v22, s22, make_id(i11, i22))
        };
        manifold.points[0] = LocalPoint {
            point: p + 0.5 * (r1 - r2 - s) * normal,
            separation: s - r1 - r2,
            id,
        };
        manifold.keep[0] = s - r1 - r2 <= speculative_distance;
        return manifold;
    };

    // Clip 3: below the reference face (plus radii and speculative distance).
    let ids = [make_id(i12, i21), make_id(i11, i22)];
    for k in 0..2 {
        let p = clipped[k];
        let s = normal.dot(p - v11);
        let separation = s - r1 - r2;
        manifold.points[k] = LocalPoint {
            point: p + 0.5 * (r1 - r2 - s) * normal,
            separation,
            id: ids[k],
        };
        manifold.keep[k] = separation <= speculative_distance;
    }
    manifold
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::collision::{collide, ManifoldPoint};
    use crate::physics::shape::Geometry;

    const SPEC: f32 = 0.0;

    fn polygon(points: &[Vec2]) -> Polygon {
        Polygon::from_hull(points, 0.0)
    }

    /// The point on B's surface: `point + 0.5 separation normal`. On A's: minus that.
    fn surface_b(m: &Manifold, mp: &ManifoldPoint) -> Vec2 {
        mp.point + 0.5 * mp.separation * m.normal
    }

    fn surface_a(m: &Manifold, mp: &ManifoldPoint) -> Vec2 {
        mp.point - 0.5 * mp.separation * m.normal
    }

    fn close(a: Vec2, b: Vec2, tol: f32) -> bool {
        (a - b).length() < tol
    }

    /// Find the point of `m` at `surface` point (as `pick` maps it), or panic.
    fn find_point(
        m: &Manifold,
        target: Vec2,
        pick: fn(&Manifold, &ManifoldPoint) -> Vec2,
        tol: f32,
    ) -> &ManifoldPoint {
        m.points()
            .iter()
            .find(|mp| close(pick(m, mp), target, tol))
            .unwrap_or_else(|| panic!("no point near {target} in {m:?}"))
    }

    // Seed 003, example 1: A = (8,4)-(14,9) above B = (4,2)-(12,5); normal (0,-1), depth 1;
    // contact points (12, 5) and (8, 5) on B's top face.
    fn seed_example_1() -> (Polygon, Polygon) {
        let a = polygon(&[
            Vec2::new(8.0, 4.0),
            Vec2::new(14.0, 4.0),
            Vec2::new(14.0, 9.0),
            Vec2::new(8.0, 9.0),
        ]);
        let b = polygon(&[
            Vec2::new(4.0, 2.0),
            Vec2::new(12.0, 2.0),
            Vec2::new(12.0, 5.0),
            Vec2::new(4.0, 5.0),
        ]);
        (a, b)
    }

    // Example 2: A is the tilted box (2,8), (6,4), (9,7), (5,11); its corner (6,4) sinks 1
    // into B's top face. One point, (6, 4), depth 1.
    fn seed_example_2() -> (Polygon, Polygon) {
        let a = polygon(&[
            Vec2::new(2.0, 8.0),
            Vec2::new(6.0, 4.0),
            Vec2::new(9.0, 7.0),
            Vec2::new(5.0, 11.0),
        ]);
        (a, seed_example_1().1)
    }

    // Example 3: A is the tilted box (9,4), (13,3), (14,7), (10,8). The seed's numbers are
    // rounded: normal (-0.19, -0.98) is (-1, -4) / sqrt 17; points (12, 5) depth 1.69 and
    // (9.28, 5) depth 1.04 are exactly (12, 5) depth 7 / sqrt 17 and (9.25, 5) depth
    // 4.25 / sqrt 17 (the clip at t = 11 / 32 of the incident edge).
    fn seed_example_3() -> (Polygon, Polygon) {
        let a = polygon(&[
            Vec2::new(9.0, 4.0),
            Vec2::new(13.0, 3.0),
            Vec2::new(14.0, 7.0),
            Vec2::new(10.0, 8.0),
        ]);
        (a, seed_example_1().1)
    }

    fn run(a: &Polygon, xf_a: &Transform, b: &Polygon, xf_b: &Transform) -> Manifold {
        collide_polygons(a, xf_a, b, xf_b, SPEC)
    }

    #[test]
    fn seed_003_example_1() {
        let (a, b) = seed_example_1();
        let m = run(&a, &Transform::IDENTITY, &b, &Transform::IDENTITY);
        assert_eq!(m.count, 2);
        assert!(close(m.normal, Vec2::new(0.0, -1.0), 1e-6));
        for target in [Vec2::new(12.0, 5.0), Vec2::new(8.0, 5.0)] {
            let mp = find_point(&m, target, surface_b, 1e-5);
            assert!((mp.separation + 1.0).abs() < 1e-5);
            // Midway: half a unit below B's face.
            assert!(close(mp.point, target - Vec2::new(0.0, 0.5), 1e-5));
        }
        assert_ne!(m.points[0].id, m.points[1].id);
    }

    #[test]
    fn seed_003_example_2() {
        let (a, b) = seed_example_2();
        let m = run(&a, &Transform::IDENTITY, &b, &Transform::IDENTITY);
        assert_eq!(m.count, 1, "{m:?}");
        assert!(close(m.normal, Vec2::new(0.0, -1.0), 1e-6));
        // B is the reference: the point (6, 4) is A's corner, on A's surface.
        let mp = &m.points[0];
        assert!(close(surface_a(&m, mp), Vec2::new(6.0, 4.0), 1e-5));
        assert!((mp.separation + 1.0).abs() < 1e-5);
    }

    #[test]
    fn seed_003_example_3() {
        let (a, b) = seed_example_3();
        let m = run(&a, &Transform::IDENTITY, &b, &Transform::IDENTITY);
        assert_eq!(m.count, 2);
        let sqrt17 = 17.0_f32.sqrt();
        assert!(close(m.normal, Vec2::new(-1.0, -4.0) / sqrt17, 1e-6));
        // The seed's rounded normal.
        assert!(close(m.normal, Vec2::new(-0.24, -0.97), 0.01));
        let p1 = find_point(&m, Vec2::new(12.0, 5.0), surface_b, 1e-4);
        assert!((p1.separation + 7.0 / sqrt17).abs() < 1e-5);
        assert!((p1.separation + 1.69).abs() < 0.01);
        let p2 = find_point(&m, Vec2::new(9.25, 5.0), surface_b, 1e-4);
        assert!((p2.separation + 4.25 / sqrt17).abs() < 1e-5);
        assert!((p2.separation + 1.04).abs() < 0.015);
        assert!(close(surface_b(&m, p2), Vec2::new(9.28, 5.0), 0.035));
    }

    fn assert_same_points(m1: &Manifold, m2: &Manifold, tol: f32) {
        assert_eq!(m1.count, m2.count, "{m1:?} vs {m2:?}");
        for mp in m1.points() {
            let other = m2
                .points()
                .iter()
                .find(|q| close(q.point, mp.point, tol))
                .unwrap_or_else(|| panic!("{mp:?} missing in {m2:?}"));
            assert!((other.separation - mp.separation).abs() < tol);
        }
    }

    #[test]
    fn seed_examples_swapped_flip_normal_keep_points() {
        for (a, b) in [seed_example_1(), seed_example_2(), seed_example_3()] {
            let m = run(&a, &Transform::IDENTITY, &b, &Transform::IDENTITY);
            let s = run(&b, &Transform::IDENTITY, &a, &Transform::IDENTITY);
            assert!(close(s.normal, -m.normal, 1e-6));
            assert_same_points(&m, &s, 1e-4);
        }
    }

    #[test]
    fn seed_examples_moved_rigidly_move_the_results() {
        let moves = [
            Transform::new(Vec2::new(-30.0, 12.0), 0.7),
            Transform::new(Vec2::new(1000.0, -250.0), -2.3),
            Transform::new(Vec2::new(0.5, 0.25), std::f32::consts::PI),
        ];
        for (a, b) in [seed_example_1(), seed_example_2(), seed_example_3()] {
            let m = run(&a, &Transform::IDENTITY, &b, &Transform::IDENTITY);
            for t in &moves {
                let moved = run(&a, t, &b, t);
                assert!(close(moved.normal, t.q.rotate(m.normal), 1e-5));
                let mut expected = m;
                for mp in expected.points_mut() {
                    mp.point = t.apply(mp.point);
                }
                // Far from the origin f32 keeps about 1e-4 m.
                let tol = if t.p.length() > 100.0 { 1e-3 } else { 1e-4 };
                assert_same_points(&expected, &moved, tol);
            }
        }
    }

    fn box_geometry(hx: f32, hy: f32) -> Geometry {
        Geometry::Polygon(Polygon::new_box(hx, hy).unwrap())
    }

    #[test]
    fn box_resting_on_box_two_points_stable_ids() {
        let ground = box_geometry(5.0, 0.5);
        let crate_ = box_geometry(0.5, 0.5);
        let xf_ground = Transform::new(Vec2::new(0.0, -0.5), 0.0);
        // Sunk 0.01 into the ground.
        let xf_box = Transform::new(Vec2::new(1.0, 0.49), 0.0);
        let m = collide(&ground, &xf_ground, &crate_, &xf_box, 0.02);
        assert_eq!(m.count, 2);
        assert!(close(m.normal, Vec2::Y, 1e-6));
        for x in [0.5, 1.5] {
            let mp = find_point(&m, Vec2::new(x, -0.005), |_, mp| mp.point, 1e-5);
            assert!((mp.separation + 0.01).abs() < 1e-5);
        }
        assert_ne!(m.points[0].id, m.points[1].id);

        // A tiny nudge and tilt keeps the same features.
        let nudged = Transform::new(Vec2::new(1.0003, 0.4902), 1e-4);
        let n = collide(&ground, &xf_ground, &crate_, &nudged, 0.02);
        assert_eq!(n.count, 2);
        let ids = |m: &Manifold| {
            let mut ids = [m.points[0].id, m.points[1].id];
            ids.sort();
            ids
        };
        assert_eq!(ids(&m), ids(&n));

        // Seen from the box: normal flipped, same points.
        let s = collide(&crate_, &xf_box, &ground, &xf_ground, 0.02);
        assert!(close(s.normal, -Vec2::Y, 1e-6));
        assert_same_points(&m, &s, 1e-5);
    }

    #[test]
    fn box_on_box_of_equal_size_prefers_a() {
        // Equal faces: both separations tie, A's face must be the reference on every call.
        let b = box_geometry(0.5, 0.5);
        let xf_a = Transform::IDENTITY;
        let xf_b = Transform::new(Vec2::new(0.0, 0.995), 0.0);
        let m = collide(&b, &xf_a, &b, &xf_b, 0.02);
        assert_eq!(m.count, 2);
        let ids = [m.points[0].id >> 8, m.points[1].id >> 8];
        // A's top face is edge 2 (vertices 2 and 3).
        assert!(ids.contains(&2) && ids.contains(&3), "{m:?}");
        for mp in m.points() {
            assert!((mp.separation + 0.005).abs() < 1e-5);
            assert!((mp.point.x.abs() - 0.5).abs() < 1e-5);
        }
    }

    #[test]
    fn box_resting_on_segment() {
        let ground =
            Geometry::Segment(Segment::new(Vec2::new(-10.0, 0.0), Vec2::new(10.0, 0.0)).unwrap());
        let crate_ = box_geometry(0.5, 0.25);
        let xf_box = Transform::new(Vec2::new(2.0, 0.24), 0.0);
        for (m, sign) in [
            (
                collide(&ground, &Transform::IDENTITY, &crate_, &xf_box, 0.02),
                1.0,
            ),
            (
                collide(&crate_, &xf_box, &ground, &Transform::IDENTITY, 0.02),
                -1.0,
            ),
        ] {
            assert_eq!(m.count, 2, "{m:?}");
            assert!(close(m.normal, sign * Vec2::Y, 1e-6));
            assert_ne!(m.points[0].id, m.points[1].id);
            for x in [1.5, 2.5] {
                let mp = find_point(&m, Vec2::new(x, -0.005), |_, mp| mp.point, 1e-5);
                assert!((mp.separation + 0.01).abs() < 1e-5);
            }
        }
        // Nudged: same ids.
        let m = collide(&ground, &Transform::IDENTITY, &crate_, &xf_box, 0.02);
        let n = collide(
            &ground,
            &Transform::IDENTITY,
            &crate_,
            &Transform::new(Vec2::new(2.0002, 0.2401), -1e-4),
            0.02,
        );
        assert_eq!(n.count, 2);
        let mut ids_m = [m.points[0].id, m.points[1].id];
        let mut ids_n = [n.points[0].id, n.points[1].id];
        ids_m.sort();
        ids_n.sort();
        assert_eq!(ids_m, ids_n);
    }

    #[test]
    fn capsule_flat_on_box() {
        let ground = box_geometry(5.0, 0.5);
        let xf_ground = Transform::new(Vec2::new(0.0, -0.5), 0.0);
        let capsule = Geometry::Capsule(
            Capsule::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.25).unwrap(),
        );
        let xf_capsule = Transform::new(Vec2::new(0.5, 0.24), 0.0);
        let m = collide(&ground, &xf_ground, &capsule, &xf_capsule, 0.02);
        assert_eq!(m.count, 2, "{m:?}");
        assert!(close(m.normal, Vec2::Y, 1e-6));
        assert_ne!(m.points[0].id, m.points[1].id);
        for x in [-0.5, 1.5] {
            let mp = find_point(&m, Vec2::new(x, -0.005), |_, mp| mp.point, 1e-5);
            assert!((mp.separation + 0.01).abs() < 1e-5);
        }
        let s = collide(&capsule, &xf_capsule, &ground, &xf_ground, 0.02);
        assert!(close(s.normal, -Vec2::Y, 1e-6));
        assert_same_points(&m, &s, 1e-5);

        let n = collide(
            &ground,
            &xf_ground,
            &capsule,
            &Transform::new(Vec2::new(0.5001, 0.2399), 2e-4),
            0.02,
        );
        let mut ids_m = [m.points[0].id, m.points[1].id];
        let mut ids_n = [n.points[0].id, n.points[1].id];
        ids_m.sort();
        ids_n.sort();
        assert_eq!(ids_m, ids_n);
    }

    #[test]
    fn capsule_corner_on_box_corner_uses_vertex_normal() {
        // Capsule end hovering diagonally off the box corner (1, 1): the rounded end's
        // closest point is along the diagonal.
        let b = box_geometry(1.0, 1.0);
        let capsule =
            Geometry::Capsule(Capsule::new(Vec2::new(0.0, 0.0), Vec2::new(1.0, 1.0), 0.1).unwrap());
        let d = Vec2::ONE.normalize();
        let gap = 0.03;
        let xf_c = Transform::new(Vec2::ONE + (0.1 + gap) * d, 0.0);
        let m = collide(&b, &Transform::IDENTITY, &capsule, &xf_c, 0.05);
        assert_eq!(m.count, 1, "{m:?}");
        assert!(close(m.normal, d, 1e-5));
        assert!((m.points[0].separation - gap).abs() < 1e-5);
        assert!(close(m.points[0].point, Vec2::ONE + 0.5 * gap * d, 1e-5));
    }

    #[test]
    fn speculative_boxes() {
        let b = box_geometry(0.5, 0.5);
        let xf_b = Transform::new(Vec2::new(0.2, 1.05), 0.0);
        let m = collide(&b, &Transform::IDENTITY, &b, &xf_b, 0.1);
        assert_eq!(m.count, 2, "{m:?}");
        for mp in m.points() {
            assert!((mp.separation - 0.05).abs() < 1e-5);
            assert!((mp.point.y - 0.525).abs() < 1e-5);
        }
        assert_eq!(collide(&b, &Transform::IDENTITY, &b, &xf_b, 0.01).count, 0);
        // Exactly aligned columns, apart: still a flat two-point contact.
        let xf_b = Transform::new(Vec2::new(0.0, 1.05), 0.0);
        let m = collide(&b, &Transform::IDENTITY, &b, &xf_b, 0.1);
        assert_eq!(m.count, 2, "{m:?}");
        assert!(close(m.normal, Vec2::Y, 1e-6));
    }

    #[test]
    fn deep_overlap_is_finite() {
        let b = box_geometry(0.5, 0.5);
        for xf_b in [
            Transform::IDENTITY,
            Transform::new(Vec2::new(0.1, 0.0), 0.3),
            Transform::new(Vec2::ZERO, std::f32::consts::FRAC_PI_4),
        ] {
            let m = collide(&b, &Transform::IDENTITY, &b, &xf_b, 0.02);
            assert!(m.count >= 1);
            assert!((m.normal.length() - 1.0).abs() < 1e-5);
            for mp in m.points() {
                assert!(mp.point.is_finite() && mp.separation.is_finite() && mp.separation < 0.0);
            }
        }
    }
}
