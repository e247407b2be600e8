//! The hard-scene verdicts with peers: every scene of Impulse's verdict table (the catalog's
//! scenes with a `verdict`) built in Impulse (soft step), Box2D v3 and Rapier with the same
//! settings, and judged by the same criterion code (`impulse::verdicts::judge_run`).
//!
//! How a scene reaches the peers: Impulse's scene loader builds the world exactly as
//! `testbed verdicts` does for its soft-step column (sleep off, at least the row's sub-steps);
//! [`scene_spec`] reads that world before its first step (bodies in creation order, every
//! shape with its material and filter, every joint's definition, the world's settings) into
//! the bench's [`SceneSpec`], which the Box2D and Rapier ports build as they build the
//! benchmark scenes. A scene that uses something the conversion or a peer lacks gets a cell
//! saying what, never a silent pass.

use std::fmt::Write as _;
use std::path::Path;

use impulse::physics::{BodyKind, Geometry, JointDefKind, Vec2, World};
use impulse::verdicts::{self, BodyReading, HardScene, ImpulseRun, Judged, Start, Verdict};

use crate::scenes::{
    BodySpec, FilterSpec, JointKindSpec, JointSpec, Probe, SceneSpec, ShapeDefSpec, ShapeSpec,
    WorldSpec, P2,
};
use crate::{box2d_port, rapier_port, BuildError};

/// A body's origin and angle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    pub position: P2,
    pub angle: f32,
}

impl Pose {
    fn point(&self, local: P2) -> P2 {
        let (s, c) = self.angle.sin_cos();
        [
            self.position[0] + c * local[0] - s * local[1],
            self.position[1] + s * local[0] + c * local[1],
        ]
    }

    fn vector(&self, local: P2) -> P2 {
        let (s, c) = self.angle.sin_cos();
        [c * local[0] - s * local[1], s * local[0] + c * local[1]]
    }

    fn local_point(&self, world: P2) -> P2 {
        let (s, c) = self.angle.sin_cos();
        let d = [world[0] - self.position[0], world[1] - self.position[1]];
        [c * d[0] + s * d[1], -s * d[0] + c * d[1]]
    }

    fn local_vector(&self, world: P2) -> P2 {
        let (s, c) = self.angle.sin_cos();
        [c * world[0] + s * world[1], -s * world[0] + c * world[1]]
    }
}

/// A body reading from plain numbers.
pub fn reading(position: P2, angle: f32, velocity: P2) -> BodyReading {
    BodyReading {
        position: Vec2::from_array(position),
        angle,
        linear_velocity: Vec2::from_array(velocity),
    }
}

/// What a peer reports for a body it does not have.
pub const NAN_READING: BodyReading = BodyReading {
    position: Vec2::NAN,
    angle: f32::NAN,
    linear_velocity: Vec2::NAN,
};

/// A joint's anchors (and a slide's axis) in its bodies' frames at creation: what the gap is
/// measured from, the same way for every engine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalJoint {
    pub anchor_a: P2,
    pub anchor_b: P2,
    /// The slide axis in A's frame and in B's (unit; unused by a revolute joint).
    pub axis_a: P2,
    pub axis_b: P2,
}

impl LocalJoint {
    pub fn new(joint: &JointSpec, bodies: &[BodySpec]) -> LocalJoint {
        let pose = |b: &BodySpec| Pose {
            position: b.position,
            angle: b.angle,
        };
        let (a, b) = (pose(&bodies[joint.body_a]), pose(&bodies[joint.body_b]));
        let axis = match joint.kind {
            JointKindSpec::Prismatic { axis, .. } => axis,
            JointKindSpec::Revolute { .. } => [1.0, 0.0],
        };
        LocalJoint {
            anchor_a: a.local_point(joint.anchor),
            anchor_b: b.local_point(joint.anchor),
            axis_a: a.local_vector(axis),
            axis_b: b.local_vector(axis),
        }
    }

    /// The joint's linear error with the bodies at `a` and `b`, m: Impulse's
    /// `Joint::linear_error` (revolute: the anchors' distance; prismatic: the off-axis drift
    /// plus the overrun of the translation limits).
    pub fn gap(&self, joint: &JointSpec, a: Pose, b: Pose) -> f32 {
        let pa = a.point(self.anchor_a);
        let pb = b.point(self.anchor_b);
        let d = [pb[0] - pa[0], pb[1] - pa[1]];
        match joint.kind {
            JointKindSpec::Revolute { .. } => (d[0] * d[0] + d[1] * d[1]).sqrt(),
            JointKindSpec::Prismatic { limit, .. } => {
                let axis = a.vector(self.axis_a);
                let along = axis[0] * d[0] + axis[1] * d[1];
                let across = (-axis[1] * d[0] + axis[0] * d[1]).abs();
                across
                    + limit.map_or(0.0, |(lower, upper)| {
                        (lower - along).max(along - upper).max(0.0)
                    })
            }
        }
    }
}

fn p2(v: Vec2) -> P2 {
    v.to_array()
}

/// `world`, before its first step, as the bench's scene description.
pub fn scene_spec(world: &World) -> Result<SceneSpec, BuildError> {
    let s = world.settings();
    let spec_world = WorldSpec {
        dt: s.dt(),
        substeps: s.substeps,
        gravity: p2(s.gravity),
        contact_hertz: s.contact_hertz,
        contact_damping_ratio: s.contact_damping_ratio,
        contact_push_max_velocity: s.contact_push_max_velocity,
        joint_hertz: s.joint_hertz,
        joint_damping_ratio: s.joint_damping_ratio,
        restitution_threshold: s.restitution_threshold,
        // The soft step has no slop (`allowed_penetration` is the classic solver's) and
        // Box2D's is its compile-time 0.005 m: Rapier gets the benchmark's 0.005 m too.
        linear_slop: crate::scenes::LINEAR_SLOP,
    };
    let mut index = std::collections::HashMap::new();
    let mut bodies = Vec::new();
    for (i, (handle, body)) in world.bodies().enumerate() {
        index.insert(handle, i);
        let dynamic = match body.kind() {
            BodyKind::Dynamic => true,
            BodyKind::Static => false,
            BodyKind::Kinematic => return Err(BuildError::Unsupported("kinematic body")),
        };
        if body.fixed_rotation() {
            return Err(BuildError::Unsupported("fixed-rotation body"));
        }
        let mut shapes = Vec::new();
        for &h in body.shapes() {
            let shape = world
                .shape(h)
                .ok_or_else(|| BuildError::Failed("a body lists a missing shape".into()))?;
            let geometry = match *shape.geometry() {
                Geometry::Circle(c) => ShapeSpec::Circle {
                    center: p2(c.center),
                    radius: c.radius,
                },
                Geometry::Capsule(c) => ShapeSpec::Capsule {
                    a: p2(c.center_a),
                    b: p2(c.center_b),
                    radius: c.radius,
                },
                Geometry::Polygon(p) => ShapeSpec::Polygon {
                    vertices: p.vertices().iter().map(|&v| p2(v)).collect(),
                    radius: p.radius,
                },
                Geometry::Segment(g) => ShapeSpec::Segment {
                    a: p2(g.point_a),
                    b: p2(g.point_b),
                },
            };
            let filter = shape.filter();
            if filter.group_index != 0 {
                return Err(BuildError::Unsupported("collision group"));
            }
            shapes.push(ShapeDefSpec {
                geometry,
                density: shape.density(),
                friction: shape.friction(),
                restitution: shape.restitution(),
                filter: FilterSpec {
                    category: filter.category_bits,
                    mask: filter.mask_bits,
                },
            });
        }
        bodies.push(BodySpec {
            dynamic,
            kinematic: false,
            position: p2(body.position()),
            angle: body.angle(),
            linear_velocity: p2(body.linear_velocity()),
            angular_velocity: body.angular_velocity(),
            linear_damping: body.linear_damping(),
            angular_damping: body.angular_damping(),
            gravity_scale: body.gravity_scale(),
            shapes,
        });
    }
    let mut joints = Vec::new();
    for (_, joint) in world.joints() {
        let (Some(a), Some(b)) = (world.body(joint.body_a()), world.body(joint.body_b())) else {
            return Err(BuildError::Failed("a joint names a missing body".into()));
        };
        let def = joint.definition(a, b);
        let (anchor, kind) = match def.kind {
            JointDefKind::Revolute(r) => (
                r.anchor,
                JointKindSpec::Revolute {
                    motor: r.enable_motor.then_some(crate::scenes::MotorSpec {
                        speed: r.motor_speed,
                        max_torque: r.max_motor_torque,
                    }),
                    limit: r.enable_limit.then_some((r.lower_angle, r.upper_angle)),
                    spring: (r.enable_spring && r.spring_hertz > 0.0).then_some(
                        crate::scenes::SpringSpec {
                            hertz: r.spring_hertz,
                            damping_ratio: r.spring_damping_ratio,
                        },
                    ),
                    // `definition` gives the joint's own reference angle.
                    reference_angle: r.reference_angle.unwrap_or(b.angle() - a.angle()),
                },
            ),
            JointDefKind::Prismatic(p) => {
                if p.enable_motor {
                    return Err(BuildError::Unsupported("prismatic motor (not converted)"));
                }
                (
                    p.anchor,
                    JointKindSpec::Prismatic {
                        axis: p2(p.axis.normalize()),
                        limit: p
                            .enable_limit
                            .then_some((p.lower_translation, p.upper_translation)),
                    },
                )
            }
            other => {
                return Err(BuildError::Unsupported(match other {
                    JointDefKind::Wheel(_) => "wheel joint (not converted)",
                    JointDefKind::Weld(_) => "weld joint (not converted)",
                    JointDefKind::Angle(_) => "angle joint",
                    JointDefKind::Pulley(_) => "pulley joint (not converted)",
                    JointDefKind::Distance(_) => "distance joint (not converted)",
                    JointDefKind::Motor(_) => "motor joint (not converted)",
                    JointDefKind::Friction(_) => "friction joint",
                    _ => "mouse joint",
                }))
            }
        };
        joints.push(JointSpec {
            body_a: index[&joint.body_a()],
            body_b: index[&joint.body_b()],
            anchor: p2(anchor),
            kind,
            collide_connected: def.collide_connected,
        });
    }
    Ok(SceneSpec {
        name: "verdict scene",
        world: spec_world,
        bodies,
        joints,
        steps: 0,
        expected_pairs: None,
        probe: Probe {
            top: 0,
            row: Vec::new(),
            box2d_reference: None,
            x_axis: false,
        },
        driver: None,
    })
}

/// One cell: the verdict, or why there is none.
enum Cell {
    Judged(Verdict),
    NotAvailable(String),
    Failed(String),
}

impl Cell {
    fn text(&self) -> String {
        match self {
            Cell::Judged(v) => v.short(),
            Cell::NotAvailable(why) => format!("n/a: {why}"),
            Cell::Failed(why) => format!("error: {}", why.lines().next().unwrap_or("")),
        }
    }

    fn from(result: Result<Result<Verdict, String>, BuildError>) -> Cell {
        match result {
            Ok(Ok(v)) => Cell::Judged(v),
            Ok(Err(e)) => Cell::Failed(e),
            Err(BuildError::Unsupported(why)) => Cell::NotAvailable(why.to_owned()),
            Err(BuildError::Failed(why)) => Cell::Failed(why),
        }
    }
}

/// The three cells of one hard scene.
fn judge_row(scene: &HardScene, dir: &Path) -> Result<[Cell; 3], String> {
    let soft = verdicts::configurations()
        .into_iter()
        .find(|c| c.label == "soft step")
        .ok_or("no soft step column")?;
    let world = verdicts::load(scene, &soft, dir)?;
    let start = Start::of(&world, scene.seconds);
    let spec = scene_spec(&world);
    let mut cells = Vec::new();
    let clock = std::time::Instant::now();
    let impulse = verdicts::judge_run(&scene.criterion, &start, &mut ImpulseRun::new(world));
    eprint!(" Impulse {:.1} s", clock.elapsed().as_secs_f32());
    cells.push(Cell::from(Ok(impulse)));
    type Builder = fn(&SceneSpec) -> Result<Box<dyn Judged>, BuildError>;
    let peers: [(&str, Builder); 2] = [
        ("Box2D", |s| Ok(Box::new(box2d_port::build(s)?))),
        ("Rapier", |s| Ok(Box::new(rapier_port::build(s)?))),
    ];
    for (name, build) in peers {
        let clock = std::time::Instant::now();
        let result = match &spec {
            Ok(spec) => build(spec)
                .map(|mut sim| verdicts::judge_run(&scene.criterion, &start, sim.as_mut())),
            Err(BuildError::Unsupported(why)) => Err(BuildError::Unsupported(why)),
            Err(BuildError::Failed(why)) => Err(BuildError::Failed(why.clone())),
        };
        eprint!(", {name} {:.1} s", clock.elapsed().as_secs_f32());
        cells.push(Cell::from(result));
    }
    eprintln!();
    let mut it = cells.into_iter();
    let mut next = || it.next().expect("three cells");
    Ok([next(), next(), next()])
}

/// The markdown table: every hard scene whose label contains one of `only` (all when empty),
/// judged in Impulse's soft step, Box2D v3 and Rapier.
pub fn table(dir: &Path, only: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| scene | criterion (number shown) | Impulse soft step | Box2D v3 | Rapier |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    let scenes = match verdicts::hard_scenes_in(dir) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(out, "| error | {} | | | |", e.lines().next().unwrap_or(""));
            return out;
        }
    };
    for scene in scenes
        .iter()
        .filter(|s| only.is_empty() || only.iter().any(|o| s.label.contains(o.as_str())))
    {
        eprint!("  {}:", scene.label);
        let cells = match judge_row(scene, dir) {
            Ok(cells) => cells.map(|c| c.text()),
            Err(e) => {
                eprintln!(" {e}");
                let cell = format!("error: {}", e.lines().next().unwrap_or(""));
                [cell.clone(), cell.clone(), cell]
            }
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            scene.label,
            verdicts::criterion_text(&scene.criterion),
            cells[0],
            cells[1],
            cells[2]
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gap the peers are judged on is Impulse's own `linear_error`, computed from poses:
    /// checked on Impulse's world for the revolute and prismatic scenes after some steps.
    #[test]
    fn pose_gap_matches_impulse_linear_error() {
        let dir = impulse::scene::catalog::scenes_dir();
        let soft = verdicts::configurations()
            .into_iter()
            .find(|c| c.label == "soft step")
            .expect("soft step");
        for scene in verdicts::hard_scenes_in(&dir).expect("library") {
            if !matches!(
                scene.file,
                "stacking/cart.ron" | "stacking/multiple_prismatic.ron"
            ) {
                continue;
            }
            let mut world = verdicts::load(&scene, &soft, &dir).expect("loads");
            let spec = scene_spec(&world).expect("converts");
            let handles: Vec<_> = world.bodies().map(|(h, _)| h).collect();
            for _ in 0..90 {
                world.step(world.settings().dt());
            }
            let pose = |i: usize| {
                let b = world.body(handles[i]).expect("body");
                Pose {
                    position: p2(b.position()),
                    angle: b.angle(),
                }
            };
            let mut ours: f32 = 0.0;
            for j in &spec.joints {
                let local = LocalJoint::new(j, &spec.bodies);
                ours = ours.max(local.gap(j, pose(j.body_a), pose(j.body_b)));
            }
            let theirs = verdicts::joint_gap(&world);
            assert!(theirs > 1e-5, "{}: no gap to compare", scene.label);
            assert!(
                (ours - theirs).abs() <= 1e-5 + 1e-3 * theirs,
                "{}: gap from poses {ours} against linear_error {theirs}",
                scene.label
            );
        }
    }
}
