//! Scene file to `World`. Checks everything first and reports every problem of the file;
//! builds only a file with none, so a bad file never half-loads.

use std::collections::HashMap;

use glam::Vec2;

use super::error::{SceneError, SceneErrors};
use super::format::{
    BodyFile, BodyKindFile, Generator, GeometryFile, JointKindFile, JointStateFile, SceneFile,
    SettingsFile, ShapeFile, VerdictFile, WorldStateFile,
};
use super::generators::{self, GeneratedJoint};
use super::Scene;
use crate::physics::collision::{FeatureId, Manifold, ManifoldPoint};
use crate::physics::contact::ManifoldCache;
use crate::physics::joint::check_threshold;
use crate::physics::joint::JointDefKind;
use crate::physics::limits;
use crate::physics::math::{Aabb, Rot, Transform};
use crate::physics::shape::{convex_hull, MAX_POLYGON_VERTICES};
use crate::physics::solver::contact_sticky::StickyAnchors;
use crate::physics::{
    BodyDef, BodyHandle, BodyKind, BodyState, Capsule, Circle, Geometry, JointHandle, JointState,
    Polygon, Segment, ShapeDef, ShapeHandle, SolverSettings, World,
};

/// Collects semantic errors of one file.
struct Report<'a> {
    file: &'a str,
    errors: Vec<SceneError>,
}

impl Report<'_> {
    fn push(&mut self, what: impl Into<String>, message: impl Into<String>) {
        self.errors.push(SceneError::Semantic {
            file: self.file.to_string(),
            what: what.into(),
            message: message.into(),
        });
    }
}

/// `body "name"` or `body #index` (0-based creation index).
pub(crate) fn body_label(index: usize, body: &BodyFile) -> String {
    match &body.name {
        Some(name) => format!("body \"{name}\""),
        None => format!("body #{index}"),
    }
}

/// `"#3"`: a body by creation index (how export names unnamed bodies).
fn creation_index(name: &str) -> Option<usize> {
    let digits = name.strip_prefix('#')?;
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn joint_label(index: usize, name: &Option<String>) -> String {
    match name {
        Some(name) => format!("joint \"{name}\""),
        None => format!("joint #{index}"),
    }
}

// ------------------------------------------------------------------------------------------
// Checks. Each returns messages "field: what is wrong, what would be valid".

/// " must be between .. and .. (why), got v" when `v` is outside the documented range of
/// `field` (`physics::limits`).
fn out_of_range(field: &str, v: f32) -> Option<String> {
    let range = limits::file_range_of(field)?;
    (!range.contains(v)).then(|| {
        format!(
            "{field} must be {}, got {}",
            range.describe(),
            limits::number(v)
        )
    })
}

fn finite(errors: &mut Vec<String>, field: &str, v: f32) {
    if !v.is_finite() {
        errors.push(format!("{field} must be a finite number, got {v}"));
    } else if let Some(m) = out_of_range(field, v) {
        errors.push(m);
    }
}

fn finite_vec(errors: &mut Vec<String>, field: &str, v: Vec2) {
    if !v.is_finite() {
        errors.push(format!("{field} must be finite, got ({}, {})", v.x, v.y));
    } else if let Some(range) = limits::file_range_of(field) {
        if !(range.contains(v.x) && range.contains(v.y)) {
            errors.push(format!(
                "{field}: each component must be {}, got ({}, {})",
                range.describe(),
                limits::number(v.x),
                limits::number(v.y)
            ));
        }
    }
}

fn positive(errors: &mut Vec<String>, field: &str, v: f32, unit: &str) {
    if !(v.is_finite() && v > 0.0) {
        errors.push(format!(
            "{field} must be a finite number above zero ({unit}), got {v}"
        ));
    } else if let Some(m) = out_of_range(field, v) {
        errors.push(m);
    }
}

fn non_negative(errors: &mut Vec<String>, field: &str, v: f32) {
    if !(v.is_finite() && v >= 0.0) {
        errors.push(format!("{field} must be zero or more, got {v}"));
    } else if let Some(m) = out_of_range(field, v) {
        errors.push(m);
    }
}

/// Zero, or a density in the documented range.
fn density(errors: &mut Vec<String>, field: &str, v: f32, dynamic: bool) {
    if dynamic {
        positive(errors, field, v, "kg/m^2 on a dynamic body");
    } else {
        non_negative(errors, field, v);
    }
    if v.is_finite() && v > 0.0 && v < limits::MIN_DENSITY {
        errors.push(format!(
            "{field} must be 0 (no mass) or at least {} kg/m^2 (the smallest body's \
             inertia must have a finite inverse), got {}",
            limits::number(limits::MIN_DENSITY),
            limits::number(v)
        ));
    }
}

/// A polygon from file vertices: refuses too many or too few points, non-finite points,
/// degenerate and non-convex outlines (never convexifies silently). Counter-clockwise input
/// keeps its order (and so its feature ids); other orders are replaced by the hull.
pub(crate) fn polygon_from_vertices(vertices: &[Vec2]) -> Result<Polygon, String> {
    let n = vertices.len();
    if n > MAX_POLYGON_VERTICES {
        return Err(format!(
            "too many vertices: {n} given, a polygon has at most {MAX_POLYGON_VERTICES} \
             (split the outline into several convex shapes on one body)"
        ));
    }
    if n < 3 {
        return Err(format!("a polygon needs at least 3 vertices, {n} given"));
    }
    if let Some((i, v)) = vertices.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(format!("vertex {i} must be finite, got ({}, {})", v.x, v.y));
    }
    let range = limits::COORDINATE;
    if let Some((i, v)) = vertices
        .iter()
        .enumerate()
        .find(|(_, v)| !(range.contains(v.x) && range.contains(v.y)))
    {
        return Err(format!(
            "vertex {i}: each component must be {}, got ({}, {})",
            range.describe(),
            limits::number(v.x),
            limits::number(v.y)
        ));
    }
    let hull = convex_hull(vertices);
    if hull.len() < 3 {
        return Err(
            "degenerate polygon: the vertices are collinear or coincide, so it has no area"
                .to_string(),
        );
    }
    if hull.len() < n {
        return Err(format!(
            "not convex: the convex hull of the {n} vertices has only {} (a vertex is inside \
             the outline, repeats, or lies on an edge); give the corners of a convex polygon, \
             or split it into several convex shapes",
            hull.len()
        ));
    }
    // Keep the given order when it is the hull's, starting anywhere.
    let start = vertices.iter().position(|&v| v == hull[0]);
    let same_cycle = start.is_some_and(|k| (0..n).all(|i| vertices[(k + i) % n] == hull[i]));
    if same_cycle {
        Ok(Polygon::from_hull(vertices, 0.0))
    } else {
        Ok(Polygon::from_hull(&hull, 0.0))
    }
}

/// Every problem of a shape. `dynamic`: on a dynamic body (density must be above zero).
pub(crate) fn check_shape(shape: &ShapeFile, dynamic: bool, label: &str) -> Vec<String> {
    let mut e = Vec::new();
    match &shape.shape {
        GeometryFile::Box {
            half_width,
            half_height,
            center,
            angle,
        } => {
            positive(&mut e, "Box.half_width", *half_width, "metres");
            positive(&mut e, "Box.half_height", *half_height, "metres");
            finite_vec(&mut e, "Box.center", *center);
            finite(&mut e, "Box.angle", *angle);
            // What the core adds (the sides' ratio, corners that make a polygon), when the
            // numbers themselves are fine.
            if e.is_empty() {
                if let Err(m) = make_geometry(&shape.shape) {
                    e.push(m.replacen("box", "Box", 1));
                }
            }
        }
        GeometryFile::Polygon {
            vertices,
            centroid,
            radius,
        } => {
            if let Err(m) = polygon_from_vertices(vertices) {
                e.push(format!("Polygon.vertices: {m}"));
            }
            if let Some(c) = centroid {
                finite_vec(&mut e, "Polygon.centroid", *c);
            }
            non_negative(&mut e, "Polygon.radius", *radius);
        }
        GeometryFile::Circle { radius, center } => {
            positive(&mut e, "Circle.radius", *radius, "metres");
            finite_vec(&mut e, "Circle.center", *center);
        }
        GeometryFile::Capsule {
            center_a,
            center_b,
            radius,
        } => {
            positive(&mut e, "Capsule.radius", *radius, "metres");
            finite_vec(&mut e, "Capsule.center_a", *center_a);
            finite_vec(&mut e, "Capsule.center_b", *center_b);
            if center_a.is_finite() && center_b.is_finite() && make_geometry(&shape.shape).is_err()
            {
                e.push(
                    "Capsule: center_a and center_b coincide; give centres at least 0.005 m \
                     apart, or use a Circle"
                        .to_string(),
                );
            }
        }
        GeometryFile::Segment { point_a, point_b } => {
            finite_vec(&mut e, "Segment.point_a", *point_a);
            finite_vec(&mut e, "Segment.point_b", *point_b);
            if point_a.is_finite() && point_b.is_finite() && make_geometry(&shape.shape).is_err() {
                e.push(
                    "Segment: point_a and point_b coincide; give points at least 0.005 m apart"
                        .to_string(),
                );
            }
        }
    }
    density(&mut e, "density", shape.density, dynamic);
    if e.is_empty() {
        if let Some(m) = make_geometry(&shape.shape)
            .ok()
            .and_then(|g| crate::physics::shape::check_reach(&g).err())
        {
            e.push(m.message);
        }
    }
    non_negative(&mut e, "friction", shape.friction);
    non_negative(&mut e, "restitution", shape.restitution);
    e.into_iter().map(|m| format!("{label}: {m}")).collect()
}

/// The core geometry of a checked shape.
pub(crate) fn make_geometry(shape: &GeometryFile) -> Result<Geometry, String> {
    let err = |e: crate::physics::PhysicsError| e.to_string();
    Ok(match shape {
        GeometryFile::Box {
            half_width,
            half_height,
            center,
            angle,
        } => Geometry::Polygon(
            Polygon::new_offset_box(*half_width, *half_height, *center, *angle).map_err(err)?,
        ),
        GeometryFile::Polygon {
            vertices,
            centroid,
            radius,
        } => {
            let mut p = polygon_from_vertices(vertices)?;
            if let Some(c) = centroid {
                p.centroid = *c;
            }
            p.radius = *radius;
            Geometry::Polygon(p)
        }
        GeometryFile::Circle { radius, center } => {
            Geometry::Circle(Circle::new(*center, *radius).map_err(err)?)
        }
        GeometryFile::Capsule {
            center_a,
            center_b,
            radius,
        } => Geometry::Capsule(Capsule::new(*center_a, *center_b, *radius).map_err(err)?),
        GeometryFile::Segment { point_a, point_b } => {
            Geometry::Segment(Segment::new(*point_a, *point_b).map_err(err)?)
        }
    })
}

/// Every problem of a body (its shapes included), and whether it has mass.
///
/// `exported`: the file carries a `state` section, so it is (or claims to be) the export of
/// a world. A world built through the API may hold a dynamic body with no mass (the core
/// gives it 1 kg, Box2D's rule) or a shape of zero density on a dynamic body, and its export
/// must load again; hand-written scenes are told that such a body has no mass, which is
/// almost always a mistake.
fn check_body(body: &BodyFile, exported: bool) -> Vec<String> {
    let mut e = Vec::new();
    if exported {
        // What the engine itself reached (see `limits::SAVED_STATE`).
        let r = &limits::SAVED_STATE;
        state_vec(&mut e, "position", body.position, r);
        state_number(&mut e, "angle", body.angle, r);
        state_vec(&mut e, "linear_velocity", body.linear_velocity, r);
        state_number(&mut e, "angular_velocity", body.angular_velocity, r);
    } else {
        finite_vec(&mut e, "position", body.position);
        finite(&mut e, "angle", body.angle);
        finite_vec(&mut e, "linear_velocity", body.linear_velocity);
        finite(&mut e, "angular_velocity", body.angular_velocity);
    }
    non_negative(&mut e, "linear_damping", body.linear_damping);
    non_negative(&mut e, "angular_damping", body.angular_damping);
    finite(&mut e, "gravity_scale", body.gravity_scale);
    let dynamic = body.kind == BodyKindFile::Dynamic;
    if body.shapes.len() > limits::MAX_SHAPES_PER_BODY {
        // Refused before the shapes are looked at: stepping such a body costs its shapes.
        e.push(format!(
            "{} shapes; a body has at most {} (split it into several bodies joined by weld \
             joints)",
            body.shapes.len(),
            limits::MAX_SHAPES_PER_BODY
        ));
        return e;
    }
    for (i, shape) in body.shapes.iter().enumerate() {
        e.extend(check_shape(
            shape,
            dynamic && !exported,
            &format!("shape {i}"),
        ));
    }
    if dynamic && !exported {
        let has_mass = body
            .shapes
            .iter()
            .any(|s| s.density > 0.0 && !matches!(s.shape, GeometryFile::Segment { .. }));
        if !has_mass {
            e.push(if body.shapes.is_empty() {
                "a dynamic body needs mass: it has no shapes; add a shape with density above \
                 zero, or make it Static or Kinematic"
                    .to_string()
            } else {
                "a dynamic body needs mass: none of its shapes has area and density above \
                 zero (segments have no area); add one, or make it Static or Kinematic"
                    .to_string()
            });
        }
    }
    e
}

/// Every problem of the settings: the core's check, repeated with each bad field put back to
/// its default so that all of them are reported.
fn check_settings(settings: &SettingsFile) -> Vec<String> {
    let mut errors = Vec::new();
    let mut s = *settings;
    let defaults = SettingsFile::default();
    for _ in 0..SettingsFile::KEYS.len() {
        match SolverSettings::from(&s).validate() {
            Ok(()) => break,
            Err(e) => {
                errors.push(format!("{}: {}", e.field, e.message));
                if !s.copy_field(&defaults, e.field) {
                    break;
                }
            }
        }
    }
    errors
}

/// The core definition of a joint kind, or every problem of its options as
/// `field: message`: the core's own check, repeated with each bad field put back to its
/// default so that all of them are reported.
pub(crate) fn core_joint_kind(kind: &JointKindFile) -> Result<JointDefKind, Vec<String>> {
    let mut errors = Vec::new();
    let mut reported: Vec<&'static str> = Vec::new();
    let mut file = kind.clone();
    loop {
        match file.to_core().validate() {
            Ok(()) => break,
            Err(e) => {
                // A field that is still wrong at its default (`lower_angle` 0 above a
                // negative `upper_angle`) was reported already.
                if reported.contains(&e.field) {
                    break;
                }
                errors.push(format!("{}: {}", e.field, e.message));
                reported.push(e.field);
                if !file.reset_field(e.field) {
                    break;
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(kind.to_core())
    } else {
        Err(errors)
    }
}

// ------------------------------------------------------------------------------------------
// Build.

/// A joint to create, with both bodies resolved to creation indices.
struct PlannedJoint {
    body_a: usize,
    body_b: usize,
    collide_connected: bool,
    /// Thresholds, `on_break` and `enabled` (generated joints: the defaults).
    breaking: (Option<f32>, Option<f32>, crate::physics::OnBreak, bool),
    name: Option<String>,
    kind: JointDefKind,
}

/// Check `scene` and, when it has no problem, build its world. `file` names the file in
/// messages.
pub fn build(scene: &SceneFile, file: &str) -> Result<Scene, SceneErrors> {
    let mut report = Report {
        file,
        errors: Vec::new(),
    };

    // 1. Settings.
    for m in check_settings(&scene.settings) {
        report.push("settings", m);
    }
    let mut camera = Vec::new();
    finite_vec(&mut camera, "center", scene.camera.center);
    positive(&mut camera, "height", scene.camera.height, "metres");
    for m in camera {
        report.push("camera", m);
    }

    // 2. Names.
    let exported = scene.state.is_some();
    let mut names: HashMap<String, usize> = HashMap::new();
    for (i, body) in scene.bodies.iter().enumerate() {
        let Some(name) = &body.name else { continue };
        if name.is_empty() {
            report.push(
                format!("body #{i}"),
                "name must not be empty; leave `name` out for an unnamed body",
            );
        } else if let Some(&first) = names.get(name) {
            // The API lets two bodies share a name; their export names them in joints by
            // creation index, so it loads. A hand-written file is told.
            if exported {
                continue;
            }
            report.push(
                format!("body \"{name}\" #{i}"),
                format!(
                    "duplicate name: bodies #{first} and #{i} are both called \"{name}\"; \
                     body names must be unique"
                ),
            );
        } else {
            names.insert(name.clone(), i);
        }
    }

    // 3. Bodies. A name given twice is told apart by the index.
    let label = |i: usize, body: &BodyFile| match &body.name {
        Some(name) if names.get(name) != Some(&i) && !name.is_empty() => {
            format!("body \"{name}\" #{i}")
        }
        _ => body_label(i, body),
    };
    for (i, body) in scene.bodies.iter().enumerate() {
        for m in check_body(body, exported) {
            report.push(label(i, body), m);
        }
    }

    // 4. Generators. What the scene will build is counted first, and a scene past the
    // documented totals is refused before anything is made (a few generators of 200,000
    // bodies each used to abort on a failed allocation).
    let mut bodies: Vec<BodyFile> = scene.bodies.clone();
    let mut generated_joints: Vec<(usize, GeneratedJoint)> = Vec::new();
    let mut total_bodies = scene.bodies.len() as u64;
    let mut total_shapes: u64 = scene.bodies.iter().map(|b| b.shapes.len() as u64).sum();
    let mut total_joints = scene.joints.len() as u64;
    for (what, total, max) in [
        ("bodies", total_bodies, limits::MAX_BODIES),
        ("shapes", total_shapes, limits::MAX_SHAPES),
        ("joints", total_joints, limits::MAX_JOINTS),
    ] {
        if total > max {
            report.push(
                "scene",
                format!("the file lists {total} {what}; a scene makes at most {max} {what}"),
            );
        }
    }
    for (g, generator) in scene.generators.iter().enumerate() {
        let what = format!("generator #{g} ({})", generator.name());
        let made = generators::body_count(generator);
        let joined = generators::joint_count(generator);
        total_bodies = total_bodies.saturating_add(made);
        total_shapes = total_shapes.saturating_add(made);
        total_joints = total_joints.saturating_add(joined);
        let over: Vec<String> = [
            ("bodies", made, total_bodies, limits::MAX_BODIES),
            ("shapes", made, total_shapes, limits::MAX_SHAPES),
            ("joints", joined, total_joints, limits::MAX_JOINTS),
        ]
        .iter()
        .filter(|(_, _, total, max)| total > max)
        .map(|(kind, own, total, max)| {
            format!(
                "makes {own} {kind}, which brings the scene to {total}; a scene makes at \
                 most {max} {kind}, generators included"
            )
        })
        .collect();
        if !over.is_empty() {
            for m in over {
                report.push(what.clone(), m);
            }
            // Past a total nothing more is generated (the totals only grow).
            break;
        }
        let problems = generators::check(generator, &names);
        if problems.is_empty() {
            let first = bodies.len();
            let out = generators::generate(generator, first, &names);
            // Generated bodies are checked like the file's (a stack climbing past the
            // coordinate range); the first problem names the generator.
            if let Some((k, m)) = out
                .bodies
                .iter()
                .enumerate()
                .find_map(|(k, b)| check_body(b, false).into_iter().next().map(|m| (k, m)))
            {
                report.push(what.clone(), format!("body #{}: {m}", first + k));
            }
            bodies.extend(out.bodies);
            generated_joints.extend(out.joints.into_iter().map(|j| (g, j)));
        } else {
            for m in problems {
                report.push(what.clone(), m);
            }
        }
    }

    // 5. Joints of the file.
    let mut planned: Vec<PlannedJoint> = Vec::new();
    // The kind of every joint in creation order, for the saved state's check.
    let mut joint_kinds: Vec<&'static str> = Vec::new();
    for (i, joint) in scene.joints.iter().enumerate() {
        let what = joint_label(i, &joint.name);
        let body_count = bodies.len();
        let mut resolve = |field: &str, name: &str| match names
            .get(name)
            .copied()
            .or_else(|| creation_index(name).filter(|&i| i < body_count))
        {
            Some(index) => Some(index),
            None => {
                let known = if name.starts_with('#') {
                    format!(
                        "by creation index the file has bodies #0 to #{}",
                        body_count.saturating_sub(1)
                    )
                } else {
                    generators::known_names(&names)
                };
                report.push(
                    what.clone(),
                    format!("{field} \"{name}\" does not exist; {known}"),
                );
                None
            }
        };
        let a = resolve("body_a", &joint.body_a);
        let b = resolve("body_b", &joint.body_b);
        if let (Some(a), Some(b), false) = (a, b, exported) {
            for m in long_arms(&joint.kind, bodies[a].position, bodies[b].position) {
                report.push(what.clone(), m);
            }
        }
        if joint.body_a == joint.body_b {
            report.push(
                what.clone(),
                format!(
                    "body_a and body_b are both \"{}\": a joint joins two different bodies",
                    joint.body_a
                ),
            );
        } else if a.is_some() && a == b {
            report.push(
                what.clone(),
                format!(
                    "body_a \"{}\" and body_b \"{}\" are the same body: a joint joins two \
                     different bodies",
                    joint.body_a, joint.body_b
                ),
            );
        }
        for (field, value) in [
            ("break_force", joint.break_force),
            ("break_torque", joint.break_torque),
        ] {
            if let Some(Err(e)) = value.map(|v| check_threshold(field, v)) {
                report.push(what.clone(), e.to_string());
            }
        }
        let kind = if exported {
            in_coordinate_range(&joint.kind)
        } else {
            joint.kind.clone()
        };
        match core_joint_kind(&kind) {
            Ok(kind) => {
                if let (Some(body_a), Some(body_b)) = (a, b) {
                    planned.push(PlannedJoint {
                        body_a,
                        body_b,
                        collide_connected: joint.collide_connected,
                        breaking: (
                            joint.break_force,
                            joint.break_torque,
                            joint.on_break.into(),
                            joint.enabled,
                        ),
                        name: joint.name.clone(),
                        kind,
                    });
                }
            }
            Err(problems) => {
                for m in problems {
                    report.push(what.clone(), m);
                }
            }
        }
        joint_kinds.push(joint.kind.name());
    }
    let mut reported_generator = None;
    for (g, joint) in &generated_joints {
        let arms = long_arms(
            &joint.kind,
            bodies[joint.body_a].position,
            bodies[joint.body_b].position,
        );
        if let Some(m) = arms.into_iter().next() {
            if reported_generator != Some(*g) {
                reported_generator = Some(*g);
                let what = format!("generator #{g} ({})", scene.generators[*g].name());
                report.push(what, format!("joint: {m}"));
            }
            continue;
        }
        match core_joint_kind(&joint.kind) {
            Ok(kind) => planned.push(PlannedJoint {
                body_a: joint.body_a,
                body_b: joint.body_b,
                collide_connected: false,
                breaking: (None, None, crate::physics::OnBreak::Disable, true),
                name: None,
                kind,
            }),
            Err(problems) => {
                if reported_generator != Some(*g) {
                    reported_generator = Some(*g);
                    let what = format!("generator #{g} ({})", scene.generators[*g].name());
                    for m in problems {
                        report.push(what.clone(), format!("joint: {m}"));
                    }
                }
            }
        }
        joint_kinds.push(joint.kind.name());
    }

    // 6. The saved state, if any.
    if let Some(state) = &scene.state {
        check_state(state, &bodies, &joint_kinds, &mut report);
    }
    if let Some(verdict) = &scene.verdict {
        for m in check_verdict(verdict, scene) {
            report.push("verdict", m);
        }
    }

    if !report.errors.is_empty() {
        return Err(SceneErrors(report.errors));
    }

    // 7. Create. Everything was checked; a refusal from the core here is a loader bug, still
    // reported rather than panicking.
    let mut world = World::new(SolverSettings::from(&scene.settings));
    let mut handles: Vec<BodyHandle> = Vec::with_capacity(bodies.len());
    let mut shape_handles: Vec<Vec<ShapeHandle>> = Vec::with_capacity(bodies.len());
    for (i, body) in bodies.iter().enumerate() {
        let what = body_label(i, body);
        let def = BodyDef {
            kind: BodyKind::from(body.kind),
            // An export's body may have drifted past the coordinate range (the step does not
            // stop it); it is created inside and put back exactly by the state's restore.
            position: if exported {
                body.position.clamp(
                    Vec2::splat(limits::COORDINATE.min),
                    Vec2::splat(limits::COORDINATE.max),
                )
            } else {
                body.position
            },
            angle: body.angle,
            linear_velocity: body.linear_velocity,
            angular_velocity: body.angular_velocity,
            linear_damping: body.linear_damping,
            angular_damping: body.angular_damping,
            gravity_scale: body.gravity_scale,
            fixed_rotation: body.fixed_rotation,
            enable_sleep: body.enable_sleep,
            awake: body.awake,
            name: body.name.clone(),
        };
        let handle = match world.create_body(&def) {
            Ok(h) => h,
            Err(e) => {
                report.push(what, e.to_string());
                return Err(SceneErrors(report.errors));
            }
        };
        // All of a body's shapes at once: its mass is computed once (linear in the shape
        // count; one at a time it was the square).
        let mut defs = Vec::with_capacity(body.shapes.len());
        for (k, shape) in body.shapes.iter().enumerate() {
            match make_geometry(&shape.shape) {
                Ok(geometry) => defs.push(ShapeDef {
                    geometry,
                    density: shape.density,
                    friction: shape.friction,
                    restitution: shape.restitution,
                    filter: shape.filter.into(),
                }),
                Err(m) => {
                    report.push(what.clone(), format!("shape {k}: {m}"));
                    return Err(SceneErrors(report.errors));
                }
            }
        }
        let shapes = match world.create_shapes(handle, &defs) {
            Ok(shapes) => shapes,
            Err((k, e)) => {
                report.push(what.clone(), format!("shape {k}: {e}"));
                return Err(SceneErrors(report.errors));
            }
        };
        // Adding shapes wakes a body: put it to sleep after them.
        if !body.awake && body.kind != BodyKindFile::Static {
            let _ = world.set_awake(handle, false);
        }
        handles.push(handle);
        shape_handles.push(shapes);
    }
    let mut joint_handles: Vec<JointHandle> = Vec::with_capacity(planned.len());
    for (i, joint) in planned.into_iter().enumerate() {
        let def = crate::physics::JointDef {
            body_a: handles[joint.body_a],
            body_b: handles[joint.body_b],
            collide_connected: joint.collide_connected,
            name: joint.name.clone(),
            break_force: joint.breaking.0,
            break_torque: joint.breaking.1,
            on_break: joint.breaking.2,
            enabled: joint.breaking.3,
            kind: joint.kind,
        };
        let made = if exported {
            world.create_joint_to_restore(&def)
        } else {
            world.create_joint(&def)
        };
        match made {
            Ok(h) => joint_handles.push(h),
            Err(e) => {
                report.push(joint_label(i, &joint.name), e.to_string());
                return Err(SceneErrors(report.errors));
            }
        }
    }
    // 8. Bodies piled onto each other make a contact per overlapping pair: 20,000 scattered
    // circles in a few square metres made hundreds of millions and exhausted the memory (the
    // fuzzer's process was killed at 23 GB). Count the overlapping pairs of the new world,
    // stopping at the limit, and refuse a scene past it.
    if !exported {
        let mut pairs: u64 = 0;
        for (_, shape) in world.shapes() {
            // Each pair is seen from both sides, and each shape sees its own body.
            pairs += world.query_aabb(shape.aabb()).len().saturating_sub(1) as u64;
            if pairs / 2 > limits::MAX_OVERLAPPING_PAIRS {
                report.push(
                    "scene",
                    format!(
                        "its bodies overlap in more than {} pairs of shapes when it starts (a \
                         generator's bodies on top of each other?); space them out: each \
                         overlapping pair becomes a contact",
                        limits::MAX_OVERLAPPING_PAIRS
                    ),
                );
                return Err(SceneErrors(report.errors));
            }
        }
    }
    if let Some(state) = &scene.state {
        let handles = RestoreHandles {
            bodies: &handles,
            shapes: &shape_handles,
            joints: &joint_handles,
        };
        if let Err(m) = restore_state(&mut world, state, &handles) {
            report.push("state", m);
            return Err(SceneErrors(report.errors));
        }
    }
    Ok(Scene {
        name: scene.name.clone(),
        category: scene.category.clone(),
        description: scene.description.clone(),
        camera: scene.camera,
        world,
    })
}

fn check_state(
    state: &WorldStateFile,
    bodies: &[BodyFile],
    joint_kinds: &[&'static str],
    report: &mut Report,
) {
    if !state.joints.is_empty() {
        if state.joints.len() != joint_kinds.len() {
            report.push(
                "state",
                format!(
                    "joints: {} entries for {} joints; give one per joint, in creation order",
                    state.joints.len(),
                    joint_kinds.len()
                ),
            );
        } else {
            for (i, (s, kind)) in state.joints.iter().zip(joint_kinds).enumerate() {
                if s.name() != *kind {
                    report.push(
                        format!("state joint #{i}"),
                        format!("a {} state for a {kind} joint", s.name()),
                    );
                }
            }
        }
    }
    if state.bodies.len() != bodies.len() {
        report.push(
            "state",
            format!(
                "bodies: {} entries for {} bodies; give one per body, in creation order",
                state.bodies.len(),
                bodies.len()
            ),
        );
        return;
    }
    if !(state.time.is_finite() && state.time >= 0.0) {
        report.push(
            "state",
            format!("time must be zero or more, got {}", state.time),
        );
    }
    for (i, (s, body)) in state.bodies.iter().zip(bodies).enumerate() {
        let what = format!("state of {}", body_label(i, body));
        let mut e = Vec::new();
        // What the engine itself reached (see `limits::SAVED_STATE`).
        let r = &limits::SAVED_STATE;
        state_vec(&mut e, "center", s.center, r);
        state_number(&mut e, "angle", s.angle, r);
        state_vec(&mut e, "linear_velocity", s.linear_velocity, r);
        state_number(&mut e, "angular_velocity", s.angular_velocity, r);
        non_negative(&mut e, "sleep_time", s.sleep_time);
        if s.proxy_boxes.len() != body.shapes.len() {
            e.push(format!(
                "proxy_boxes: {} boxes for {} shapes; give one per shape",
                s.proxy_boxes.len(),
                body.shapes.len()
            ));
        }
        if !s.reach_boxes.is_empty() && s.reach_boxes.len() != body.shapes.len() {
            e.push(format!(
                "reach_boxes: {} boxes for {} shapes; give one per shape, or none",
                s.reach_boxes.len(),
                body.shapes.len()
            ));
        }
        for (name, boxes) in [
            ("proxy_boxes", &s.proxy_boxes),
            ("reach_boxes", &s.reach_boxes),
        ] {
            for (k, &(min, max)) in boxes.iter().enumerate() {
                let field = format!("{name}[{k}]");
                let before = e.len();
                state_vec(&mut e, &field, min, r);
                state_vec(&mut e, &field, max, r);
                if e.len() == before && !(min.x <= max.x && min.y <= max.y) {
                    e.push(format!("{field}: min must be below max"));
                }
            }
        }
        for m in e {
            report.push(what.clone(), m);
        }
    }
    let shape_exists = |(b, s): (u32, u32)| {
        bodies
            .get(b as usize)
            .is_some_and(|body| (s as usize) < body.shapes.len())
    };
    for (i, c) in state.contacts.iter().enumerate() {
        let what = format!("state contact #{i}");
        for (field, id) in [("shape_a", c.shape_a), ("shape_b", c.shape_b)] {
            if !shape_exists(id) {
                report.push(
                    what.clone(),
                    format!(
                        "{field} ({}, {}) names no shape: it is (body index, shape index)",
                        id.0, id.1
                    ),
                );
            }
        }
        if c.shape_a.0 == c.shape_b.0 {
            report.push(what.clone(), "shape_a and shape_b are on the same body");
        }
        if c.points.len() > 2 {
            report.push(
                what.clone(),
                format!("{} points, a manifold has at most 2", c.points.len()),
            );
        }
        // As strict as the rest of the file: finite and in range, impulses of the right
        // sign (a slightly negative normal impulse made the friction bound `-f p .. f p`
        // empty and panicked the classic solver), unit normals and rotations.
        let mut e = Vec::new();
        let touching = !c.points.is_empty();
        unit_or_zero(&mut e, "normal", c.normal, touching);
        for (k, p) in c.points.iter().enumerate() {
            let field = |name: &str| format!("points[{k}].{name}");
            feature(&mut e, &field("id"), p.id);
            state_vec(&mut e, &field("point"), p.point, &limits::SAVED_STATE);
            state_number(
                &mut e,
                &field("separation"),
                p.separation,
                &limits::SAVED_STATE,
            );
            for (name, v) in [
                ("normal_impulse", p.normal_impulse),
                ("max_normal_impulse", p.max_normal_impulse),
            ] {
                state_number(
                    &mut e,
                    &field(name),
                    v,
                    &limits::Range {
                        min: 0.0,
                        ..limits::ACCUMULATED_IMPULSE
                    },
                );
            }
            state_number(
                &mut e,
                &field("tangent_impulse"),
                p.tangent_impulse,
                &limits::ACCUMULATED_IMPULSE,
            );
        }
        if let Some(k) = &c.cache {
            let rot = |e: &mut Vec<String>, field: &str, (cos, sin): (f32, f32)| {
                unit_or_zero(e, field, Vec2::new(cos, sin), true)
            };
            rot(&mut e, "cache.rotation_a", k.rotation_a);
            rot(&mut e, "cache.rotation_b", k.rotation_b);
            rot(&mut e, "cache.relative rotation", k.relative.1);
            state_vec(
                &mut e,
                "cache.relative position",
                k.relative.0,
                &limits::SAVED_STATE,
            );
            for j in 0..2 {
                state_vec(
                    &mut e,
                    "cache.anchor_a",
                    k.anchor_a[j],
                    &limits::SAVED_STATE,
                );
                state_vec(
                    &mut e,
                    "cache.anchor_b",
                    k.anchor_b[j],
                    &limits::SAVED_STATE,
                );
                state_number(
                    &mut e,
                    "cache.base_separation",
                    k.base_separation[j],
                    &limits::SAVED_STATE,
                );
            }
        }
        if let Some(s) = &c.sticky {
            let n = s.ids.len();
            if n > 2 || s.anchor_a.len() != n || s.anchor_b.len() != n {
                e.push(format!(
                    "sticky: {n} ids, {} anchor_a and {} anchor_b; give one of each per \
                     anchored point, at most 2",
                    s.anchor_a.len(),
                    s.anchor_b.len()
                ));
            }
            for (k, &id) in s.ids.iter().enumerate() {
                feature(&mut e, &format!("sticky.ids[{k}]"), id);
            }
            unit_or_zero(&mut e, "sticky.normal_a", s.normal_a, true);
            unit_or_zero(&mut e, "sticky.normal_b", s.normal_b, true);
            for (name, anchors) in [
                ("sticky.anchor_a", &s.anchor_a),
                ("sticky.anchor_b", &s.anchor_b),
            ] {
                for &v in anchors {
                    state_vec(&mut e, name, v, &limits::SAVED_STATE);
                }
            }
        }
        for m in e {
            report.push(what.clone(), m);
        }
    }
    for (i, joint) in state.joints.iter().enumerate() {
        let mut e = Vec::new();
        for (field, v) in joint.numbers() {
            let range = match field {
                // Limit impulses push one way only.
                "lower_impulse" | "upper_impulse" => limits::Range {
                    min: 0.0,
                    ..limits::ACCUMULATED_IMPULSE
                },
                f if f.ends_with("impulse") => limits::ACCUMULATED_IMPULSE,
                // Local anchors, rope lengths and offsets: lengths between two points of the
                // world, as the definitions' (a 1e7 m rope loaded here but its export did
                // not).
                // A local anchor is an arm: within `MAX_JOINT_ARM` of the body's origin
                // (1.1e6 m here made NaN in the solver). The arm of an export may be a little
                // longer than a file's (a body of a torn joint moved): twice the limit.
                "local_anchor_a" | "local_anchor_b" => limits::Range {
                    min: -2.0 * limits::MAX_JOINT_ARM,
                    max: 2.0 * limits::MAX_JOINT_ARM,
                    ..limits::LENGTH
                },
                // Rope lengths are not negative (a saved -0.001 loaded, and its export did
                // not: the definition's length is zero or more).
                "length" | "length_a" | "length_b" | "constant" => limits::Range {
                    min: 0.0,
                    ..limits::LENGTH
                },
                "linear_offset" => limits::LENGTH,
                // Reference angles and angular offsets: differences of body angles.
                _ => limits::SAVED_STATE,
            };
            state_number(&mut e, field, v, &range);
        }
        if let JointStateFile::Prismatic { local_axis_a, .. }
        | JointStateFile::Wheel { local_axis_a, .. } = joint
        {
            unit_or_zero(&mut e, "local_axis_a", *local_axis_a, true);
        }
        // One message per field is enough (a vector gives two numbers).
        e.dedup();
        for m in e {
            report.push(format!("state joint #{i}"), m);
        }
    }
}

/// A number of the saved state: finite and in `range`.
fn state_number(errors: &mut Vec<String>, field: &str, v: f32, range: &limits::Range) {
    if !v.is_finite() {
        errors.push(format!("{field} must be a finite number, got {v}"));
    } else if !range.contains(v) {
        errors.push(format!(
            "{field} must be {}, got {}",
            range.describe(),
            limits::number(v)
        ));
    }
}

fn state_vec(errors: &mut Vec<String>, field: &str, v: Vec2, range: &limits::Range) {
    let before = errors.len();
    state_number(errors, field, v.x, range);
    if errors.len() == before {
        state_number(errors, field, v.y, range);
    }
}

/// A feature id as the file gives it (a `u32`) that fits a `FeatureId` (sixteen bits: eight
/// a feature, what the narrow phase makes).
fn restored_id(id: u32) -> Result<FeatureId, String> {
    FeatureId::try_from(id).map_err(|_| {
        format!(
            "feature id {id} is past {}, the largest there is",
            FeatureId::MAX
        )
    })
}

/// `restored_id`'s check, as an error of `field`.
fn feature(errors: &mut Vec<String>, field: &str, id: u32) {
    if let Err(e) = restored_id(id) {
        errors.push(format!("{field}: {e}"));
    }
}

/// A unit vector (to 1e-2: the narrow phase's own normals were seen 0.17% long), or zero
/// when `required` is false.
fn unit_or_zero(errors: &mut Vec<String>, field: &str, v: Vec2, required: bool) {
    if !v.is_finite() {
        errors.push(format!("{field} must be finite, got ({}, {})", v.x, v.y));
        return;
    }
    let unit = (v.length() - 1.0).abs() <= 1e-2;
    if !(unit || (!required && v == Vec2::ZERO)) {
        errors.push(format!(
            "{field} must be a unit vector{}, got ({}, {}) of length {}",
            if required { "" } else { " (or zero)" },
            v.x,
            v.y,
            v.length()
        ));
    }
}

/// "anchor is 2000 m from body_a; ..." for each anchor of a joint farther than
/// `limits::MAX_JOINT_ARM` from the origin of the body it is on (`a`, `b`: the bodies'
/// positions). Non-finite anchors are left to the definition's own check.
fn long_arms(kind: &JointKindFile, a: Vec2, b: Vec2) -> Vec<String> {
    let mut arms: Vec<(&str, Vec2, &str, Vec2)> = Vec::new();
    match kind {
        JointKindFile::Revolute(j) => {
            arms.push(("anchor", j.anchor, "body_a", a));
            arms.push(("anchor", j.anchor, "body_b", b));
        }
        JointKindFile::Prismatic(j) => {
            arms.push(("anchor", j.anchor, "body_a", a));
            arms.push(("anchor", j.anchor, "body_b", b));
        }
        JointKindFile::Wheel(j) => {
            arms.push(("anchor", j.anchor, "body_a", a));
            arms.push(("anchor", j.anchor, "body_b", b));
        }
        JointKindFile::Weld(j) => {
            arms.push(("anchor", j.anchor, "body_a", a));
            arms.push(("anchor", j.anchor, "body_b", b));
        }
        JointKindFile::Friction(j) => {
            arms.push(("anchor", j.anchor, "body_a", a));
            arms.push(("anchor", j.anchor, "body_b", b));
        }
        JointKindFile::Pulley(j) => {
            arms.push(("anchor_a", j.anchor_a, "body_a", a));
            arms.push(("anchor_b", j.anchor_b, "body_b", b));
        }
        JointKindFile::Distance(j) => {
            arms.push(("anchor_a", j.anchor_a, "body_a", a));
            arms.push(("anchor_b", j.anchor_b, "body_b", b));
        }
        JointKindFile::Mouse(j) => arms.push(("target", j.target, "body_b", b)),
        JointKindFile::Angle(_) | JointKindFile::Motor(_) => {}
    }
    let mut out: Vec<String> = Vec::new();
    for (field, point, body, origin) in arms {
        let d = point.distance(origin);
        if d.is_finite() && d > limits::MAX_JOINT_ARM {
            let m = format!(
                "{field} is {} m from {body}'s origin; a joint's anchors lie within {} m of \
                 the bodies they join (longer arms make the solver's effective masses \
                 overflow: NaN at 100 m)",
                limits::number(d),
                limits::number(limits::MAX_JOINT_ARM)
            );
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    out
}

/// A joint of an export with the world points and angles that follow its bodies (anchors,
/// offsets) brought inside the file ranges: bodies that drifted or spun past them are
/// created inside them, and the joint's exact local frames and offsets come back from the
/// state section.
fn in_coordinate_range(kind: &JointKindFile) -> JointKindFile {
    let c = |v: Vec2| {
        if v.is_finite() {
            v.clamp(
                Vec2::splat(limits::COORDINATE.min),
                Vec2::splat(limits::COORDINATE.max),
            )
        } else {
            v
        }
    };
    // Offsets follow the bodies' angles, which the engine lets grow past the file range.
    let angle = |a: f32| {
        if a.is_finite() {
            a.clamp(limits::ANGLE.min, limits::ANGLE.max)
        } else {
            a
        }
    };
    let mut k = kind.clone();
    match &mut k {
        JointKindFile::Revolute(j) => j.anchor = c(j.anchor),
        JointKindFile::Prismatic(j) => j.anchor = c(j.anchor),
        JointKindFile::Wheel(j) => j.anchor = c(j.anchor),
        JointKindFile::Weld(j) => j.anchor = c(j.anchor),
        JointKindFile::Angle(j) => j.offset = j.offset.map(angle),
        JointKindFile::Mouse(_) => {}
        JointKindFile::Pulley(j) => {
            j.anchor_a = c(j.anchor_a);
            j.anchor_b = c(j.anchor_b);
        }
        JointKindFile::Distance(j) => {
            j.anchor_a = c(j.anchor_a);
            j.anchor_b = c(j.anchor_b);
        }
        JointKindFile::Motor(j) => {
            j.linear_offset = j.linear_offset.map(c);
            j.angular_offset = j.angular_offset.map(angle);
        }
        JointKindFile::Friction(j) => j.anchor = c(j.anchor),
    }
    k
}

/// The handles of everything the file made, in creation order.
struct RestoreHandles<'a> {
    bodies: &'a [BodyHandle],
    shapes: &'a [Vec<ShapeHandle>],
    joints: &'a [JointHandle],
}

fn restore_state(
    world: &mut World,
    state: &WorldStateFile,
    handles: &RestoreHandles,
) -> Result<(), String> {
    let (bodies, shapes) = (handles.bodies, handles.shapes);
    for (i, s) in state.bodies.iter().enumerate() {
        let body_state = BodyState {
            center: s.center,
            angle: s.angle,
            linear_velocity: s.linear_velocity,
            angular_velocity: s.angular_velocity,
            awake: s.awake,
            sleep_time: s.sleep_time,
            island: s.island,
        };
        world
            .restore_body_state(bodies[i], &body_state)
            .map_err(|e| format!("body #{i}: {e}"))?;
        for (k, &(min, max)) in s.proxy_boxes.iter().enumerate() {
            let (reach_min, reach_max) = s.reach_boxes.get(k).copied().unwrap_or((min, max));
            let reach = Aabb {
                min: reach_min,
                max: reach_max,
            };
            world
                .restore_shape_proxy_box(shapes[i][k], Aabb { min, max }, reach)
                .map_err(|e| format!("body #{i} shape {k}: {e}"))?;
        }
    }
    for (i, c) in state.contacts.iter().enumerate() {
        let mut manifold = Manifold {
            normal: c.normal,
            ..Manifold::EMPTY
        };
        for (k, p) in c.points.iter().enumerate() {
            manifold.points[k] = ManifoldPoint {
                point: p.point,
                separation: p.separation,
                id: restored_id(p.id).map_err(|e| format!("contact #{i}: {e}"))?,
                normal_impulse: p.normal_impulse,
                tangent_impulse: p.tangent_impulse,
                max_normal_impulse: p.max_normal_impulse,
                persisted: p.persisted,
            };
        }
        manifold.count = c.points.len();
        let shape_a = shapes[c.shape_a.0 as usize][c.shape_a.1 as usize];
        let shape_b = shapes[c.shape_b.0 as usize][c.shape_b.1 as usize];
        let cache = c.cache.map_or(ManifoldCache::default(), |k| ManifoldCache {
            valid: true,
            rotation_a: Rot {
                c: k.rotation_a.0,
                s: k.rotation_a.1,
            },
            rotation_b: Rot {
                c: k.rotation_b.0,
                s: k.rotation_b.1,
            },
            relative: Transform {
                p: k.relative.0,
                q: Rot {
                    c: k.relative.1 .0,
                    s: k.relative.1 .1,
                },
            },
            anchor_a: k.anchor_a,
            anchor_b: k.anchor_b,
            base_separation: k.base_separation,
        });
        let mut sticky = StickyAnchors::default();
        if let Some(s) = &c.sticky {
            sticky = StickyAnchors {
                persisted: true,
                count: s
                    .ids
                    .len()
                    .min(s.anchor_a.len())
                    .min(s.anchor_b.len())
                    .min(2),
                normal_a: s.normal_a,
                normal_b: s.normal_b,
                ..StickyAnchors::default()
            };
            for k in 0..sticky.count {
                sticky.ids[k] = restored_id(s.ids[k]).map_err(|e| format!("contact #{i}: {e}"))?;
                sticky.anchor_a[k] = s.anchor_a[k];
                sticky.anchor_b[k] = s.anchor_b[k];
            }
        }
        world
            .restore_contact(shape_a, shape_b, manifold, cache, sticky)
            .map_err(|e| format!("contact #{i}: {e}"))?;
    }
    for (i, s) in state.joints.iter().enumerate() {
        world
            .restore_joint_state(handles.joints[i], &JointState::from(s))
            .map_err(|e| format!("joint #{i}: {e}"))?;
    }
    world.finish_restore();
    world.restore_clock(state.step_count, state.time);
    Ok(())
}

// ------------------------------------------------------------------------------------------
// Verdict.

/// The documented range whose upper end bounds a verdict criterion number: speeds are
/// speeds, `max_light_turn` an angle, the rest lengths.
fn criterion_range(field: &str) -> &'static limits::Range {
    match field {
        "rest_speed" | "max_speed" => &limits::SPEED,
        "max_light_turn" => &limits::ANGLE,
        _ => &limits::LENGTH,
    }
}

/// Every problem of a scene's `verdict`, as `field: message`.
fn check_verdict(verdict: &VerdictFile, scene: &SceneFile) -> Vec<String> {
    let mut errors = Vec::new();
    if verdict.label.trim().is_empty() {
        errors.push("label: must not be empty (the row label of the verdict table)".to_owned());
    }
    for (field, value) in verdict.criterion.numbers() {
        // Above zero and at most the largest number of its kind a scene can hold.
        let range = criterion_range(field);
        if !(value.is_finite() && value > 0.0 && value <= range.max) {
            errors.push(format!(
                "criterion.{field}: must be above 0 and at most {} {} ({}: {}), got {}",
                limits::number(range.max),
                range.unit,
                range.name,
                range.why,
                limits::number(value)
            ));
        }
    }
    if !(1..=64).contains(&verdict.soft_substeps) {
        errors.push(format!(
            "soft_substeps: must be 1 to 64, got {}",
            verdict.soft_substeps
        ));
    }
    if let Some(base) = verdict.pyramid_base {
        if base == 0 {
            errors.push("pyramid_base: must be at least 1 box".to_owned());
        }
        if !scene
            .generators
            .iter()
            .any(|g| matches!(g, Generator::Pyramid(_)))
        {
            errors.push(
                "pyramid_base: the scene has no Pyramid generator to resize; leave it out"
                    .to_owned(),
            );
        }
    }
    errors
}
