//! Capsule vs capsule and capsule vs segment: two rounded segments (a segment is a capsule
//! of radius 0). Two points when the segments lie side by side, else one.
//!
//! Sign convention: normal from A to B; separation is the gap between the rounded surfaces;
//! points lie midway between the surfaces. Capsule vs polygon lives in `polygon.rs` (a capsule
//! is a rounded two-vertex polygon there).

use super::circle::to_world;
use super::gjk::segment_distance;
use super::manifold::{feature_id, Manifold};
use super::polygon::clip_segment_to_line;
use crate::physics::math::{cross_sv, Transform, Vec2};
use crate::physics::settings::LINEAR_SLOP;
use crate::physics::shape::{Capsule, Segment};

/// B's side is the reference only when it separates more than A's by this, metres
/// (0.1 * LINEAR_SLOP), so parallel capsules keep the same reference (and ids) every step.
const REFERENCE_SIDE_TOLERANCE: f32 = 0.1 * LINEAR_SLOP;

/// Cores farther apart than this, metres (0.1 * LINEAR_SLOP), have a well defined direction
/// between their closest points.
const SEPARATED_TOLERANCE: f32 = 0.1 * LINEAR_SLOP;

/// Feature numbers of a rounded segment in feature ids: its two ends and its side.
const END_A: usize = 0;
const END_B: usize = 1;
const SIDE: usize = 2;

/// Capsule A vs capsule B.
pub fn collide_capsules(
    capsule_a: &Capsule,
    xf_a: &Transform,
    capsule_b: &Capsule,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    collide_rounded_segments(
        [capsule_a.center_a, capsule_a.center_b],
        capsule_a.radius,
        xf_a,
        [capsule_b.center_a, capsule_b.center_b],
        capsule_b.radius,
        xf_b,
        speculative_distance,
    )
}

/// Segment A vs capsule B.
pub fn collide_segment_capsule(
    segment_a: &Segment,
    xf_a: &Transform,
    capsule_b: &Capsule,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    collide_rounded_segments(
        [segment_a.point_a, segment_a.point_b],
        0.0,
        xf_a,
        [capsule_b.center_a, capsule_b.center_b],
        capsule_b.radius,
        xf_b,
        speculative_distance,
    )
}

/// Capsule A vs segment B.
pub fn collide_capsule_segment(
    capsule_a: &Capsule,
    xf_a: &Transform,
    segment_b: &Segment,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    collide_rounded_segments(
        [capsule_a.center_a, capsule_a.center_b],
        capsule_a.radius,
        xf_a,
        [segment_b.point_a, segment_b.point_b],
        0.0,
        xf_b,
        speculative_distance,
    )
}

/// Which side of the core `u` (unit direction through `p`) the segment `w0`-`w1` lies on,
/// and how far: the outward side normal `n` (left normal of `u` or its negation) with the
/// larger `min(n . (w0 - p), n . (w1 - p))`, and that value.
#[inline]
fn side_separation(p: Vec2, u: Vec2, w0: Vec2, w1: Vec2) -> (Vec2, f32) {
    let n = cross_sv(1.0, u);
    let s0 = n.dot(w0 - p);
    let s1 = n.dot(w1 - p);
    let positive = s0.min(s1);
    let negative = (-s0).min(-s1);
    if positive >= negative {
        (n, positive)
    } else {
        (-n, negative)
    }
}

/// Two rounded segments, core `p1`-`q1` with radius `r_a` on A and `p2`-`q2` with `r_b` on B.
///
/// Outline (in A's frame, origin at `p1`):
/// 1. Closest points of the cores; early out beyond `r_a + r_b + speculative`.
/// 2. When neither core projects wholly outside the other's extent, try two points: the side
///    normal of A and of B that separates more (SAT on the two side axes, A preferred) is
///    the reference; the other core is clipped to the reference core's extent (the side
///    planes through its ends, as in seed 003) and each end gets its own separation
///    `s = n . (c - p_ref) - r_a - r_b`. The pair is kept when one clipped end is as close
///    as the closest points (within LINEAR_SLOP): the side normal is then the true contact
///    normal. Ends beyond the speculative distance are dropped.
/// 3. Otherwise (or when only one end survived and the cores are apart) one point along the
///    closest points (left normal of A when they coincide).
fn collide_rounded_segments(
    core_a: [Vec2; 2],
    radius_a: f32,
    xf_a: &Transform,
    core_b: [Vec2; 2],
    radius_b: f32,
    xf_b: &Transform,
    speculative_distance: f32,
) -> Manifold {
    // A's frame shifted to p1 for precision.
    let origin = core_a[0];
    let sf_a = Transform {
        p: xf_a.apply(origin),
        q: xf_a.q,
    };
    let xf = sf_a.inv_mul(xf_b);
    let p1 = Vec2::ZERO;
    let q1 = core_a[1] - origin;
    let p2 = xf.apply(core_b[0]);
    let q2 = xf.apply(core_b[1]);

    // 1. Closest points.
    let closest = segment_distance(p1, q1, p2, q2);
    let radius = radius_a + radius_b;
    let max_distance = radius + speculative_distance;
    if closest.distance_squared > max_distance * max_distance {
        return Manifold::EMPTY;
    }
    let distance = closest.distance_squared.sqrt();

    let length_1 = q1.length();
    let length_2 = (q2 - p2).length();
    let u1 = q1 / length_1;
    let u2 = (q2 - p2) / length_2;

    // 2. Side by side?
    // B's ends along A's axis, A's ends along B's axis.
    let fp2 = (p2 - p1).dot(u1);
    let fq2 = (q2 - p1).dot(u1);
    let outside_a = (fp2 <= 0.0 && fq2 <= 0.0) || (fp2 >= length_1 && fq2 >= length_1);
    let fp1 = (p1 - p2).dot(u2);
    let fq1 = (q1 - p2).dot(u2);
    let outside_b = (fp1 <= 0.0 && fq1 <= 0.0) || (fp1 >= length_2 && fq1 >= length_2);

    let mut manifold = Manifold::EMPTY;
    if !outside_a && !outside_b {
        let (normal_a, separation_a) = side_separation(p1, u1, p2, q2);
        let (normal_b, separation_b) = side_separation(p2, u2, p1, q1);
        if separation_b > separation_a + REFERENCE_SIDE_TOLERANCE {
            // B's side is the reference; A's core is clipped. Normal from A to B is -n_b.
            if let Some([c_p, c_q]) = clip_to_extent([p1, q1], p2, q2, u2) {
                let s_p = normal_b.dot(c_p - p2);
                let s_q = normal_b.dot(c_q - p2);
                if s_p.min(s_q) <= distance + LINEAR_SLOP {
                    manifold.normal = -normal_b;
                    for (c, s, end) in [(c_p, s_p, END_A), (c_q, s_q, END_B)] {
                        if s - radius <= speculative_distance {
                            // A's surface c - r_a n_b, B's surface c - (s - r_b) n_b.
                            let point = c + 0.5 * (radius_b - radius_a - s) * normal_b;
                            manifold.push(point, s - radius, feature_id(end, SIDE));
                        }
                    }
                }
            }
        } else if let Some([c_p, c_q]) = clip_to_extent([p2, q2], p1, q1, u1) {
            let s_p = normal_a.dot(c_p - p1);
            let s_q = normal_a.dot(c_q - p1);
            if s_p.min(s_q) <= distance + LINEAR_SLOP {
                manifold.normal = normal_a;
                for (c, s, end) in [(c_p, s_p, END_A), (c_q, s_q, END_B)] {
                    if s - radius <= speculative_distance {
                        // A's surface c - (s - r_a) n_a, B's surface c - r_b n_a.
                        let point = c + 0.5 * (radius_a - radius_b - s) * normal_a;
                        manifold.push(point, s - radius, feature_id(SIDE, end));
                    }
                }
            }
        }
    }

    // 3. One point, also when clipping kept a single end of cores apart: the closest points
    // then give the exact normal and separation, where the reference side's normal is only
    // within LINEAR_SLOP of it. Crossing cores keep the clipped point: the side of least
    // penetration is a better normal than any the (coincident) closest points could give.
    let cores_apart = distance > SEPARATED_TOLERANCE;
    if manifold.count == 0 || (manifold.count == 1 && cores_apart) {
        manifold = Manifold::EMPTY;
        let c1 = closest.closest_1;
        let c2 = closest.closest_2;
        let normal = if distance > f32::EPSILON {
            (c2 - c1) / distance
        } else {
            cross_sv(1.0, u1)
        };
        let feature = |fraction: f32| {
            if fraction == 0.0 {
                END_A
            } else if fraction == 1.0 {
                END_B
            } else {
                SIDE
            }
        };
        manifold.normal = normal;
        let point = 0.5 * ((c1 + radius_a * normal) + (c2 - radius_b * normal));
        manifold.push(
            point,
            distance - radius,
            feature_id(feature(closest.fraction_1), feature(closest.fraction_2)),
        );
    }

    to_world(&mut manifold, &sf_a);
    manifold
}

/// Clip the segment `points` to the slab between the planes through `p` and `q` normal to
/// the unit direction `u` (`u` points from `p` to `q`).
#[inline]
fn clip_to_extent(points: [Vec2; 2], p: Vec2, q: Vec2, u: Vec2) -> Option<[Vec2; 2]> {
    clip_segment_to_line(points, u, u.dot(p))
        .and_then(|clipped| clip_segment_to_line(clipped, -u, -u.dot(q)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::collision::collide;
    use crate::physics::shape::Geometry;

    fn close(a: Vec2, b: Vec2, tol: f32) -> bool {
        (a - b).length() < tol
    }

    fn capsule(ax: f32, ay: f32, bx: f32, by: f32, r: f32) -> Geometry {
        Geometry::Capsule(Capsule::new(Vec2::new(ax, ay), Vec2::new(bx, by), r).unwrap())
    }

    fn point_at(m: &Manifold, x: f32) -> &crate::physics::collision::ManifoldPoint {
        m.points()
            .iter()
            .find(|mp| (mp.point.x - x).abs() < 1e-5)
            .unwrap_or_else(|| panic!("no point at x = {x} in {m:?}"))
    }

    #[test]
    fn parallel_capsules_two_points() {
        let a = capsule(-1.0, 0.0, 1.0, 0.0, 0.25);
        let b = capsule(-1.0, 0.0, 1.0, 0.0, 0.25);
        // B above A, shifted right by 1, overlapping 0.02.
        let xf_b = Transform::new(Vec2::new(1.0, 0.48), 0.0);
        let m = collide(&a, &Transform::IDENTITY, &b, &xf_b, 0.0);
        assert_eq!(m.count, 2, "{m:?}");
        assert!(close(m.normal, Vec2::Y, 1e-6));
        for x in [0.0, 1.0] {
            let mp = point_at(&m, x);
            assert!((mp.separation + 0.02).abs() < 1e-5);
            assert!((mp.point.y - 0.24).abs() < 1e-5);
        }
        assert_ne!(m.points[0].id, m.points[1].id);

        let s = collide(&b, &xf_b, &a, &Transform::IDENTITY, 0.0);
        assert_eq!(s.count, 2);
        assert!(close(s.normal, -Vec2::Y, 1e-6));
        for x in [0.0, 1.0] {
            assert!((point_at(&s, x).separation + 0.02).abs() < 1e-5);
        }
    }

    #[test]
    fn crossed_capsules_one_point() {
        let a = capsule(-1.0, 0.0, 1.0, 0.0, 0.1);
        let b = capsule(0.0, -1.0, 0.0, 1.0, 0.1);
        // B perpendicular, its lower end 0.15 above A's axis: overlap 0.05.
        let xf_b = Transform::new(Vec2::new(0.3, 1.15), 0.0);
        let m = collide(&a, &Transform::IDENTITY, &b, &xf_b, 0.0);
        assert_eq!(m.count, 1, "{m:?}");
        assert!(close(m.normal, Vec2::Y, 1e-6));
        assert!((m.points[0].separation + 0.05).abs() < 1e-5);
        assert!(close(m.points[0].point, Vec2::new(0.3, 0.075), 1e-5));
    }

    #[test]
    fn capsule_end_to_end() {
        let a = capsule(-1.0, 0.0, 1.0, 0.0, 0.2);
        let xf_b = Transform::new(Vec2::new(2.0 + 0.3, 0.1), 0.0);
        let m = collide(&a, &Transform::IDENTITY, &a, &xf_b, 0.0);
        // Ends (1, 0) and (1.3, 0.1): distance sqrt(0.1) less 0.4.
        let d = Vec2::new(0.3, 0.1);
        let n = d.normalize();
        assert_eq!(m.count, 1);
        assert!(close(m.normal, n, 1e-5));
        assert!((m.points[0].separation - (d.length() - 0.4)).abs() < 1e-5);
        assert_eq!(m.points[0].id, feature_id(END_B, END_A));
    }

    #[test]
    fn capsule_flat_on_segment() {
        let ground =
            Geometry::Segment(Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap());
        let c = capsule(-0.5, 0.0, 0.5, 0.0, 0.2);
        let xf_c = Transform::new(Vec2::new(1.0, 0.19), 0.0);
        let m = collide(&ground, &Transform::IDENTITY, &c, &xf_c, 0.02);
        assert_eq!(m.count, 2, "{m:?}");
        assert!(close(m.normal, Vec2::Y, 1e-6));
        for x in [0.5, 1.5] {
            let mp = point_at(&m, x);
            assert!((mp.separation + 0.01).abs() < 1e-5);
            assert!((mp.point.y + 0.005).abs() < 1e-5);
        }
        let ids = |m: &Manifold| {
            let mut ids = [m.points[0].id, m.points[1].id];
            ids.sort();
            ids
        };
        assert_ne!(m.points[0].id, m.points[1].id);
        let n = collide(
            &ground,
            &Transform::IDENTITY,
            &c,
            &Transform::new(Vec2::new(1.0002, 0.1901), 1e-4),
            0.02,
        );
        assert_eq!(ids(&m), ids(&n));

        let s = collide(&c, &xf_c, &ground, &Transform::IDENTITY, 0.02);
        assert_eq!(s.count, 2);
        assert!(close(s.normal, -Vec2::Y, 1e-6));
        for x in [0.5, 1.5] {
            assert!((point_at(&s, x).separation + 0.01).abs() < 1e-5);
        }
    }

    #[test]
    fn tilted_capsule_on_segment_keeps_near_end_only() {
        let ground =
            Geometry::Segment(Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap());
        let c = capsule(-0.5, 0.0, 0.5, 0.0, 0.2);
        // Tilted 0.2 rad: the ends sit at heights 0.19 -/+ 0.5 sin 0.2.
        let angle = 0.2_f32;
        let xf_c = Transform::new(Vec2::new(0.0, 0.19 + 0.5 * angle.sin()), angle);
        let m = collide(&ground, &Transform::IDENTITY, &c, &xf_c, 0.02);
        assert_eq!(m.count, 1, "{m:?}");
        assert!((m.points[0].separation + 0.01).abs() < 1e-5);
        assert!(close(m.normal, Vec2::Y, 1e-5));
    }

    #[test]
    fn speculative_capsules() {
        let a = capsule(-1.0, 0.0, 1.0, 0.0, 0.25);
        let xf_b = Transform::new(Vec2::new(0.5, 0.55), 0.0);
        let m = collide(&a, &Transform::IDENTITY, &a, &xf_b, 0.1);
        assert_eq!(m.count, 2);
        for mp in m.points() {
            assert!((mp.separation - 0.05).abs() < 1e-5);
        }
        assert_eq!(collide(&a, &Transform::IDENTITY, &a, &xf_b, 0.01).count, 0);
    }

    #[test]
    fn coincident_capsules_are_finite() {
        let a = capsule(-1.0, 0.0, 1.0, 0.0, 0.25);
        let m = collide(&a, &Transform::IDENTITY, &a, &Transform::IDENTITY, 0.0);
        assert!(m.count >= 1);
        assert!((m.normal.length() - 1.0).abs() < 1e-6);
        for mp in m.points() {
            assert!(
                mp.point.is_finite() && (mp.separation + 0.5).abs() < 1e-5,
                "{m:?}"
            );
        }
    }
}
