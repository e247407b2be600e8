//! Shapes: the geometry a body is made of, in the body's local frame, with their mass
//! properties and bounding boxes.
//!
//! Geometry is in metres relative to the body origin. A box is a polygon. Segments are for
//! static ground and terrain: they have no area and so no mass, and segment-segment pairs do not
//! collide.

use super::error::{
    check_density, check_finite, check_finite_vec, check_non_negative, check_positive,
};
use super::error::{PhysicsError, PhysicsResult};
use super::limits::{number, MAX_ARM, MAX_ASPECT_RATIO};
use super::math::{cross, Aabb, Transform, Vec2};
use super::settings::{AABB_MARGIN, AABB_MARGIN_FRACTION, LINEAR_SLOP};
use super::{BodyHandle, ShapeHandle};

/// Most vertices a polygon may have.
pub const MAX_POLYGON_VERTICES: usize = 8;

/// A circle (disc) with a local centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circle {
    pub center: Vec2,
    pub radius: f32,
}

impl Circle {
    pub fn new(center: Vec2, radius: f32) -> PhysicsResult<Circle> {
        check_finite_vec("circle.center", center)?;
        check_positive("circle.radius", radius)?;
        Ok(Circle { center, radius })
    }
}

/// A capsule: the set of points within `radius` of the segment `center_a`-`center_b`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule {
    pub center_a: Vec2,
    pub center_b: Vec2,
    pub radius: f32,
}

impl Capsule {
    pub fn new(center_a: Vec2, center_b: Vec2, radius: f32) -> PhysicsResult<Capsule> {
        check_finite_vec("capsule.center_a", center_a)?;
        check_finite_vec("capsule.center_b", center_b)?;
        check_positive("capsule.radius", radius)?;
        if center_a.distance(center_b) <= LINEAR_SLOP {
            return Err(PhysicsError::new(
                "capsule",
                "the two centres coincide: use a circle, or give centres at least 0.005 m apart",
            ));
        }
        Ok(Capsule {
            center_a,
            center_b,
            radius,
        })
    }
}

/// A line segment with no thickness, for static ground and terrain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    pub point_a: Vec2,
    pub point_b: Vec2,
}

impl Segment {
    pub fn new(point_a: Vec2, point_b: Vec2) -> PhysicsResult<Segment> {
        check_finite_vec("segment.point_a", point_a)?;
        check_finite_vec("segment.point_b", point_b)?;
        if point_a.distance(point_b) <= LINEAR_SLOP {
            return Err(PhysicsError::new(
                "segment",
                "the two points coincide: give points at least 0.005 m apart",
            ));
        }
        Ok(Segment { point_a, point_b })
    }
}

/// A convex polygon of 3 to 8 vertices in counter-clockwise order, with outward unit edge
/// normals (`normals[i]` belongs to the edge from `vertices[i]` to `vertices[i + 1]`).
/// `radius` rounds the corners; user polygons have radius 0, collision code may use rounded
/// polygons internally (a capsule is a rounded two-vertex polygon).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Polygon {
    pub vertices: [Vec2; MAX_POLYGON_VERTICES],
    pub normals: [Vec2; MAX_POLYGON_VERTICES],
    pub count: usize,
    pub radius: f32,
    pub centroid: Vec2,
}

impl Polygon {
    /// The convex hull of `points`. Refuses more than 8 points, non-finite points, and points
    /// whose hull has no area (all coincident or collinear). Points closer than 0.5 *
    /// LINEAR_SLOP are welded.
    pub fn new(points: &[Vec2]) -> PhysicsResult<Polygon> {
        if points.len() > MAX_POLYGON_VERTICES {
            return Err(PhysicsError::new(
                "polygon.vertices",
                format!(
                    "{} points given, at most {MAX_POLYGON_VERTICES} are allowed",
                    points.len()
                ),
            ));
        }
        if points.len() < 3 {
            return Err(PhysicsError::new(
                "polygon.vertices",
                format!("{} points given, a polygon needs at least 3", points.len()),
            ));
        }
        for &p in points {
            check_finite_vec("polygon.vertices", p)?;
        }
        let hull = convex_hull(points);
        if hull.len() < 3 {
            return Err(PhysicsError::new(
                "polygon.vertices",
                "degenerate polygon: the points are collinear or coincide, so it has no area",
            ));
        }
        Ok(Self::from_hull(&hull, 0.0))
    }

    /// Build from vertices already convex and counter-clockwise (internal use).
    pub(crate) fn from_hull(hull: &[Vec2], radius: f32) -> Polygon {
        let count = hull.len();
        let mut vertices = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        let mut normals = [Vec2::ZERO; MAX_POLYGON_VERTICES];
        vertices[..count].copy_from_slice(hull);
        for i in 0..count {
            let edge = vertices[(i + 1) % count] - vertices[i];
            normals[i] = Vec2::new(edge.y, -edge.x).normalize_or_zero();
        }
        let mut polygon = Polygon {
            vertices,
            normals,
            count,
            radius,
            centroid: Vec2::ZERO,
        };
        polygon.centroid = polygon_centroid(polygon.vertices());
        polygon
    }

    /// An axis-aligned box centred on the origin.
    pub fn new_box(half_width: f32, half_height: f32) -> PhysicsResult<Polygon> {
        Self::new_offset_box(half_width, half_height, Vec2::ZERO, 0.0)
    }

    /// A box centred at `center`, rotated by `angle`, in the body frame.
    pub fn new_offset_box(
        half_width: f32,
        half_height: f32,
        center: Vec2,
        angle: f32,
    ) -> PhysicsResult<Polygon> {
        check_positive("box.half_width", half_width)?;
        check_positive("box.half_height", half_height)?;
        check_finite_vec("box.center", center)?;
        check_finite("box.angle", angle)?;
        let aspect = half_width.max(half_height) / half_width.min(half_height);
        if aspect > MAX_ASPECT_RATIO {
            return Err(PhysicsError::new(
                "box",
                format!(
                    "the sides' ratio must be at most {} (a thinner box is a segment or \
                     capsule), got {}",
                    number(MAX_ASPECT_RATIO),
                    number(aspect)
                ),
            ));
        }
        let xf = Transform::new(center, angle);
        let corners = [
            Vec2::new(-half_width, -half_height),
            Vec2::new(half_width, -half_height),
            Vec2::new(half_width, half_height),
            Vec2::new(-half_width, half_height),
        ]
        .map(|c| xf.apply(c));
        // A box is exported as its four corners: accept only a box whose corners the
        // polygon loader accepts too (their hull keeps all four), so every export loads.
        if convex_hull(&corners).len() != 4 {
            return Err(PhysicsError::new(
                "box",
                "too small or too thin for its position: its corners do not make a polygon \
                 of four corners in f32 (move it nearer the origin or make it larger)",
            ));
        }
        let mut polygon = Self::from_hull(&corners, 0.0);
        polygon.centroid = center;
        Ok(polygon)
    }

    /// The live vertices (at most `MAX_POLYGON_VERTICES`, even when a hand-built polygon's
    /// `count` says more: `validate_geometry` refuses such a polygon, nothing panics on it).
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices[..self.count.min(MAX_POLYGON_VERTICES)]
    }

    /// The live edge normals.
    pub fn normals(&self) -> &[Vec2] {
        &self.normals[..self.count.min(MAX_POLYGON_VERTICES)]
    }
}

/// Centroid of a convex polygon by triangle fan.
fn polygon_centroid(vertices: &[Vec2]) -> Vec2 {
    let Some(&origin) = vertices.first() else {
        return Vec2::ZERO;
    };
    let mut center = Vec2::ZERO;
    let mut area = 0.0;
    for i in 1..vertices.len().saturating_sub(1) {
        let e1 = vertices[i] - origin;
        let e2 = vertices[i + 1] - origin;
        let tri_area = 0.5 * cross(e1, e2);
        center += tri_area * (e1 + e2) / 3.0;
        area += tri_area;
    }
    if area > 0.0 {
        origin + center / area
    } else {
        origin
    }
}

/// Andrew's monotone chain, counter-clockwise, with near-duplicate points welded and
/// collinear points removed. Returns fewer than 3 points for degenerate input.
pub(crate) fn convex_hull(points: &[Vec2]) -> Vec<Vec2> {
    let weld = 0.5 * LINEAR_SLOP;
    let mut pts: Vec<Vec2> = Vec::with_capacity(points.len());
    for &p in points {
        if pts.iter().all(|q| q.distance_squared(p) > weld * weld) {
            pts.push(p);
        }
    }
    if pts.len() < 3 {
        return pts;
    }
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    // Keep only strict left turns; the tolerance scales with the edge lengths so that
    // nearly collinear points are dropped.
    let turn = |o: Vec2, a: Vec2, b: Vec2| {
        let c = cross(a - o, b - o);
        let scale = (a - o).length() * (b - o).length();
        c > 1e-6 * scale.max(1e-12) && c > 0.0
    };
    let mut hull: Vec<Vec2> = Vec::with_capacity(2 * pts.len());
    for &p in pts.iter() {
        while hull.len() >= 2 && !turn(hull[hull.len() - 2], hull[hull.len() - 1], p) {
            hull.pop();
        }
        hull.push(p);
    }
    let lower = hull.len() + 1;
    for &p in pts.iter().rev().skip(1) {
        while hull.len() >= lower && !turn(hull[hull.len() - 2], hull[hull.len() - 1], p) {
            hull.pop();
        }
        hull.push(p);
    }
    hull.pop();
    // Reject slivers: area must be meaningful relative to the slop.
    if hull.len() >= 3 {
        let area = 0.5
            * (0..hull.len())
                .map(|i| cross(hull[i], hull[(i + 1) % hull.len()]))
                .sum::<f32>();
        let perimeter: f32 = (0..hull.len())
            .map(|i| hull[i].distance(hull[(i + 1) % hull.len()]))
            .sum();
        if area <= 0.25 * LINEAR_SLOP * perimeter {
            return Vec::new();
        }
    }
    hull
}

/// The geometry of a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Geometry {
    Circle(Circle),
    Capsule(Capsule),
    Polygon(Polygon),
    Segment(Segment),
}

/// Mass, centre of mass (body frame) and rotational inertia about the centre of mass.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct MassData {
    pub mass: f32,
    pub center: Vec2,
    pub rotational_inertia: f32,
}

impl Geometry {
    /// A short name for messages: "circle", "capsule", "polygon", "segment".
    pub fn kind_name(&self) -> &'static str {
        match self {
            Geometry::Circle(_) => "circle",
            Geometry::Capsule(_) => "capsule",
            Geometry::Polygon(_) => "polygon",
            Geometry::Segment(_) => "segment",
        }
    }

    /// Mass properties for a uniform `density` in kg/m^2.
    pub fn mass_data(&self, density: f32) -> MassData {
        match self {
            Geometry::Circle(c) => {
                let mass = density * std::f32::consts::PI * c.radius * c.radius;
                MassData {
                    mass,
                    center: c.center,
                    rotational_inertia: 0.5 * mass * c.radius * c.radius,
                }
            }
            Geometry::Capsule(c) => {
                // A box of 2r x L plus two half discs at its ends. Each half disc's centroid
                // sits lc = 4r / (3 pi) beyond the end, so by the parallel axis theorem about the
                // capsule centre its inertia is m_half * (r^2 / 2 + h^2 + 2 h lc) (moved from the
                // half-disc centroid to the disc centre and then to the capsule centre).
                let r = c.radius;
                let length = c.center_a.distance(c.center_b);
                let circle_mass = density * std::f32::consts::PI * r * r;
                let box_mass = density * 2.0 * r * length;
                let lc = 4.0 * r / (3.0 * std::f32::consts::PI);
                let h = 0.5 * length;
                let circle_inertia = circle_mass * (0.5 * r * r + h * h + 2.0 * h * lc);
                let box_inertia = box_mass * (4.0 * r * r + length * length) / 12.0;
                MassData {
                    mass: circle_mass + box_mass,
                    center: 0.5 * (c.center_a + c.center_b),
                    rotational_inertia: circle_inertia + box_inertia,
                }
            }
            Geometry::Polygon(p) => polygon_mass(p, density),
            Geometry::Segment(s) => MassData {
                mass: 0.0,
                center: 0.5 * (s.point_a + s.point_b),
                rotational_inertia: 0.0,
            },
        }
    }

    /// Bounding box in world space for the body transform `xf`.
    pub fn aabb(&self, xf: &Transform) -> Aabb {
        match self {
            Geometry::Circle(c) => Aabb::around(xf.apply(c.center), Vec2::splat(c.radius)),
            Geometry::Capsule(c) => {
                let a = xf.apply(c.center_a);
                let b = xf.apply(c.center_b);
                Aabb::new(a.min(b), a.max(b)).extended(c.radius)
            }
            Geometry::Polygon(p) => {
                let first = xf.apply(p.vertices[0]);
                let (mut lo, mut hi) = (first, first);
                for &v in p.vertices().iter().skip(1) {
                    let w = xf.apply(v);
                    lo = lo.min(w);
                    hi = hi.max(w);
                }
                Aabb::new(lo, hi).extended(p.radius)
            }
            Geometry::Segment(s) => {
                let a = xf.apply(s.point_a);
                let b = xf.apply(s.point_b);
                Aabb::new(a.min(b), a.max(b))
            }
        }
    }

    /// The margin by which a moving shape's broad-phase box is grown: a fraction
    /// (`AABB_MARGIN_FRACTION`) of the shape's half-diagonal, at most `AABB_MARGIN`, as Box2D
    /// v3 sizes it. A small box gets a small margin, so a dense pile of small shapes does not
    /// pair every box with its neighbours' neighbours.
    pub fn fat_margin(&self) -> f32 {
        let half_diagonal = self.aabb(&Transform::IDENTITY).extents().length();
        (AABB_MARGIN_FRACTION * half_diagonal).min(AABB_MARGIN)
    }

    /// The distance from the centre of mass to the farthest point of the shape: bounds how
    /// far a point of the shape moves when the body turns.
    pub fn extent_from(&self, center: Vec2) -> f32 {
        match self {
            Geometry::Circle(c) => c.center.distance(center) + c.radius,
            Geometry::Capsule(c) => {
                c.center_a.distance(center).max(c.center_b.distance(center)) + c.radius
            }
            Geometry::Polygon(p) => {
                p.vertices()
                    .iter()
                    .map(|v| v.distance(center))
                    .fold(0.0, f32::max)
                    + p.radius
            }
            Geometry::Segment(s) => s.point_a.distance(center).max(s.point_b.distance(center)),
        }
    }

    /// This geometry moved by the local transform `xf` (used to put several shapes on a
    /// body at offsets).
    pub fn transformed(&self, xf: &Transform) -> Geometry {
        match *self {
            Geometry::Circle(c) => Geometry::Circle(Circle {
                center: xf.apply(c.center),
                radius: c.radius,
            }),
            Geometry::Capsule(c) => Geometry::Capsule(Capsule {
                center_a: xf.apply(c.center_a),
                center_b: xf.apply(c.center_b),
                radius: c.radius,
            }),
            Geometry::Polygon(p) => {
                let moved: Vec<Vec2> = p.vertices().iter().map(|&v| xf.apply(v)).collect();
                let mut out = Polygon::from_hull(&moved, p.radius);
                out.centroid = xf.apply(p.centroid);
                Geometry::Polygon(out)
            }
            Geometry::Segment(s) => Geometry::Segment(Segment {
                point_a: xf.apply(s.point_a),
                point_b: xf.apply(s.point_b),
            }),
        }
    }
}

/// Mass of a convex polygon by a fan of triangles from its first vertex.
///
/// For a triangle (0, e1, e2) the second moment about its corner is
/// `D / 12 * (e1.x^2 + e1.x e2.x + e2.x^2 + (same in y))` with `D = e1 x e2`; the sum is
/// moved to the centroid with the parallel axis theorem. Rounding (`radius`) is ignored: user
/// polygons have radius 0.
fn polygon_mass(p: &Polygon, density: f32) -> MassData {
    let origin = p.vertices[0];
    let mut area = 0.0;
    let mut center = Vec2::ZERO;
    let mut inertia = 0.0;
    for i in 1..p.vertices().len().saturating_sub(1) {
        let e1 = p.vertices[i] - origin;
        let e2 = p.vertices[i + 1] - origin;
        let d = cross(e1, e2);
        let tri_area = 0.5 * d;
        area += tri_area;
        center += tri_area * (e1 + e2) / 3.0;
        let int_x2 = e1.x * e1.x + e2.x * e1.x + e2.x * e2.x;
        let int_y2 = e1.y * e1.y + e2.y * e1.y + e2.y * e2.y;
        inertia += (0.25 / 3.0 * d) * (int_x2 + int_y2);
    }
    let mass = density * area;
    let center = if area > 0.0 {
        center / area
    } else {
        Vec2::ZERO
    };
    MassData {
        mass,
        center: origin + center,
        rotational_inertia: density * inertia - mass * center.dot(center),
    }
}

/// Which shapes may collide: two shapes collide when each one's category is in the other's
/// mask, unless they share a non-zero group (positive: always collide, negative: never).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filter {
    pub category_bits: u32,
    pub mask_bits: u32,
    pub group_index: i32,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            category_bits: 1,
            mask_bits: u32::MAX,
            group_index: 0,
        }
    }
}

impl Filter {
    pub fn should_collide(&self, other: &Filter) -> bool {
        if self.group_index == other.group_index && self.group_index != 0 {
            return self.group_index > 0;
        }
        (self.mask_bits & other.category_bits) != 0 && (self.category_bits & other.mask_bits) != 0
    }
}

/// Everything needed to create a shape on a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeDef {
    pub geometry: Geometry,
    /// kg/m^2. Default 1.
    pub density: f32,
    /// Coulomb friction coefficient; pairs mix as sqrt(f_a * f_b). Default 0.6.
    pub friction: f32,
    /// Bounciness 0..1; pairs mix as max(e_a, e_b). Default 0.
    pub restitution: f32,
    pub filter: Filter,
}

impl ShapeDef {
    pub fn new(geometry: Geometry) -> Self {
        ShapeDef {
            geometry,
            density: 1.0,
            friction: 0.6,
            restitution: 0.0,
            filter: Filter::default(),
        }
    }

    pub fn density(mut self, density: f32) -> Self {
        self.density = density;
        self
    }

    pub fn friction(mut self, friction: f32) -> Self {
        self.friction = friction;
        self
    }

    pub fn restitution(mut self, restitution: f32) -> Self {
        self.restitution = restitution;
        self
    }

    pub fn validate(&self) -> PhysicsResult<()> {
        check_density("density", self.density)?;
        check_non_negative("friction", self.friction)?;
        check_non_negative("restitution", self.restitution)?;
        validate_geometry(&self.geometry)?;
        check_reach(&self.geometry)
    }
}

/// `Ok` when every point of the geometry lies within `MAX_ARM` of the body origin (contact
/// arms stay short enough for the solver: a dynamic circle of 9.5e5 m made NaN).
pub fn check_reach(geometry: &Geometry) -> PhysicsResult<()> {
    let reach = geometry.extent_from(Vec2::ZERO);
    if reach > MAX_ARM {
        return Err(PhysicsError::new(
            "geometry",
            format!(
                "reaches {} m from the body's origin; a shape lies within {} m of it \
                 (longer arms overflow the solver); use several bodies",
                number(reach),
                number(MAX_ARM)
            ),
        ));
    }
    Ok(())
}

/// Check geometry built by hand (not through the constructors).
pub fn validate_geometry(geometry: &Geometry) -> PhysicsResult<()> {
    match *geometry {
        Geometry::Circle(c) => Circle::new(c.center, c.radius).map(|_| ()),
        Geometry::Capsule(c) => Capsule::new(c.center_a, c.center_b, c.radius).map(|_| ()),
        Geometry::Segment(s) => Segment::new(s.point_a, s.point_b).map(|_| ()),
        Geometry::Polygon(p) => {
            if p.count < 3 || p.count > MAX_POLYGON_VERTICES {
                return Err(PhysicsError::new(
                    "polygon.vertices",
                    format!("{} vertices, a polygon has 3 to 8", p.count),
                ));
            }
            for &v in p.vertices() {
                check_finite_vec("polygon.vertices", v)?;
            }
            check_finite_vec("polygon.centroid", p.centroid)?;
            check_non_negative("polygon.radius", p.radius)?;
            // The same outline test as `Polygon::new`: no sliver, no repeated corner.
            if convex_hull(p.vertices()).len() != p.count {
                return Err(PhysicsError::new(
                    "polygon.vertices",
                    "the polygon is degenerate (a sliver, or repeated or collinear corners)",
                ));
            }
            // Convex and counter-clockwise: every vertex is on the inner side of every edge.
            for i in 0..p.count {
                let a = p.vertices[i];
                let n = p.normals[i];
                if (n.length() - 1.0).abs() > 1e-3 {
                    return Err(PhysicsError::new(
                        "polygon.normals",
                        "edge normals must be unit length",
                    ));
                }
                for &v in p.vertices() {
                    if n.dot(v - a) > LINEAR_SLOP {
                        return Err(PhysicsError::new(
                            "polygon.vertices",
                            "the polygon is not convex and counter-clockwise",
                        ));
                    }
                }
            }
            Ok(())
        }
    }
}

/// A shape attached to a body, as the world stores it.
#[derive(Clone, Debug)]
pub struct Shape {
    pub(crate) body: BodyHandle,
    pub(crate) geometry: Geometry,
    pub(crate) density: f32,
    pub(crate) friction: f32,
    pub(crate) restitution: f32,
    pub(crate) filter: Filter,
    /// Tight world AABB from the last step.
    pub(crate) aabb: Aabb,
    /// The box stored in the broad phase (fat for moving shapes), kept here as well so
    /// that the narrow phase tests whether a pair's boxes still overlap without reading
    /// the tree.
    pub(crate) fat_aabb: Aabb,
    /// How much the broad-phase box of a moving shape is grown around its tight box:
    /// [`fat_margin`] of its geometry.
    pub(crate) margin: f32,
    /// Broad-phase proxy id.
    pub(crate) proxy: super::collision::broad_phase::ProxyId,
    pub(crate) handle: ShapeHandle,
}

impl Shape {
    pub fn body(&self) -> BodyHandle {
        self.body
    }
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }
    pub fn density(&self) -> f32 {
        self.density
    }
    pub fn friction(&self) -> f32 {
        self.friction
    }
    pub fn restitution(&self) -> f32 {
        self.restitution
    }
    pub fn filter(&self) -> Filter {
        self.filter
    }
    pub fn aabb(&self) -> Aabb {
        self.aabb
    }
    pub fn handle(&self) -> ShapeHandle {
        self.handle
    }
}

/// Rotation helper for tests and callers: a polygon's vertices in world space.
pub fn world_vertices(p: &Polygon, xf: &Transform) -> Vec<Vec2> {
    p.vertices().iter().map(|&v| xf.apply(v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_mass_matches_formula() {
        let g = Geometry::Polygon(Polygon::new_box(1.0, 0.5).unwrap());
        let md = g.mass_data(2.0);
        // 2 x 1 box, density 2: m = 4, I = m (w^2 + h^2) / 12 = 4 * 5 / 12.
        assert!((md.mass - 4.0).abs() < 1e-5);
        assert!(md.center.length() < 1e-6);
        assert!((md.rotational_inertia - 4.0 * 5.0 / 12.0).abs() < 1e-5);
    }

    #[test]
    fn offset_box_mass_is_about_its_centre() {
        let g = Geometry::Polygon(
            Polygon::new_offset_box(0.5, 0.5, Vec2::new(3.0, -1.0), 0.4).unwrap(),
        );
        let md = g.mass_data(1.0);
        assert!((md.mass - 1.0).abs() < 1e-5);
        assert!((md.center - Vec2::new(3.0, -1.0)).length() < 1e-5);
        assert!((md.rotational_inertia - 2.0 / 12.0).abs() < 1e-4);
    }

    #[test]
    fn circle_and_capsule_mass() {
        let c = Geometry::Circle(Circle::new(Vec2::ZERO, 0.5).unwrap()).mass_data(1.0);
        assert!((c.mass - std::f32::consts::PI * 0.25).abs() < 1e-5);
        assert!((c.rotational_inertia - 0.5 * c.mass * 0.25).abs() < 1e-6);
        // A capsule of length 0 limit equals a disc; a long thin one approaches a rod.
        let cap = Geometry::Capsule(
            Capsule::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.01).unwrap(),
        )
        .mass_data(1.0);
        let rod = cap.mass * 4.0 / 12.0;
        assert!((cap.rotational_inertia - rod).abs() / rod < 0.02);
    }

    #[test]
    fn hull_orders_and_drops_interior_points() {
        let pts = [
            Vec2::new(1.0, 1.0),
            Vec2::new(-1.0, -1.0),
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, -1.0),
            Vec2::new(-1.0, 1.0),
            Vec2::new(0.0, -1.0),
        ];
        let p = Polygon::new(&pts).unwrap();
        assert_eq!(p.count, 4);
        for i in 0..p.count {
            let e1 = p.vertices[(i + 1) % 4] - p.vertices[i];
            let e2 = p.vertices[(i + 2) % 4] - p.vertices[(i + 1) % 4];
            assert!(cross(e1, e2) > 0.0, "counter-clockwise");
        }
        assert!(p.centroid.length() < 1e-6);
    }

    #[test]
    fn degenerate_polygons_are_refused() {
        let line = [Vec2::ZERO, Vec2::new(1.0, 0.0), Vec2::new(2.0, 0.0)];
        assert!(Polygon::new(&line).is_err());
        let same = [Vec2::ZERO; 3];
        assert!(Polygon::new(&same).is_err());
        let nan = [Vec2::ZERO, Vec2::new(f32::NAN, 0.0), Vec2::Y];
        assert_eq!(Polygon::new(&nan).unwrap_err().field, "polygon.vertices");
        assert!(Polygon::new(&[Vec2::ZERO; 9]).is_err());
        assert!(Polygon::new_box(-1.0, 1.0).is_err());
        assert!(Circle::new(Vec2::ZERO, 0.0).is_err());
        assert!(
            ShapeDef::new(Geometry::Circle(Circle::new(Vec2::ZERO, 1.0).unwrap()))
                .density(-1.0)
                .validate()
                .is_err()
        );
    }

    #[test]
    fn aabb_of_rotated_box() {
        let g = Geometry::Polygon(Polygon::new_box(1.0, 1.0).unwrap());
        let bb = g.aabb(&Transform::new(
            Vec2::new(5.0, 0.0),
            std::f32::consts::FRAC_PI_4,
        ));
        let r = std::f32::consts::SQRT_2;
        assert!((bb.max.x - (5.0 + r)).abs() < 1e-5 && (bb.min.y + r).abs() < 1e-5);
    }
}
