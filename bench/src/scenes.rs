//! The shared scene descriptions: plain data that every engine port turns into its own world.
//!
//! A scene is a list of bodies (each with its shapes) and joints, built once here and handed
//! to all three ports, so the three worlds are the same by construction: same body order, same
//! positions, same shapes, same material, same filters, same joints. The scenes are Box2D v3's
//! benchmark set (`shared/benchmarks.c` in `erincatto/box2d`): large pyramid, many pyramids,
//! joint grid and tumbler. The verdict table (`--verdicts`, `verdict_port.rs`) builds its
//! scenes from Impulse's scene files into the same description.

/// Fixed time step, seconds (60 Hz).
pub const DT: f32 = 1.0 / 60.0;
/// Sub-steps per step (Impulse soft step, Box2D v3; Rapier: solver iterations, see the port).
pub const SUBSTEPS: u32 = 4;
/// m/s^2.
pub const GRAVITY: [f32; 2] = [0.0, -10.0];
/// Coulomb friction of every shape (pairs mix to the same value in every engine).
pub const FRICTION: f32 = 0.6;
/// Restitution of every shape.
pub const RESTITUTION: f32 = 0.0;
/// Contact softness: stiffness, Hz, and damping ratio (Box2D v3 doubles the stiffness against
/// static bodies; Rapier's `static_contact_softness` is set to the same double).
pub const CONTACT_HERTZ: f32 = 30.0;
pub const CONTACT_DAMPING_RATIO: f32 = 10.0;
/// Fastest push-out of overlap, m/s.
pub const CONTACT_PUSH_MAX_VELOCITY: f32 = 3.0;
/// Linear slop, metres.
pub const LINEAR_SLOP: f32 = 0.005;
/// Joint softness: stiffness, Hz, and damping ratio.
pub const JOINT_HERTZ: f32 = 60.0;
pub const JOINT_DAMPING_RATIO: f32 = 2.0;

/// A point or vector, metres.
pub type P2 = [f32; 2];

/// One geometry, in the body frame.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeSpec {
    /// Axis-aligned box with half sizes `half`, centred at `center` (body frame).
    Box { half: P2, center: P2 },
    /// Circle at `center`.
    Circle { center: P2, radius: f32 },
    /// Convex polygon, counter-clockwise, 3 to 8 vertices, corners rounded by `radius`.
    Polygon { vertices: Vec<P2>, radius: f32 },
    /// The points within `radius` of the segment `a`-`b`.
    Capsule { a: P2, b: P2, radius: f32 },
    /// Two-sided line segment (body frame).
    Segment { a: P2, b: P2 },
}

/// A shape: its geometry and material.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeDefSpec {
    pub geometry: ShapeSpec,
    /// kg/m^2.
    pub density: f32,
    /// Coulomb coefficient; pairs mix as sqrt(a b) in every engine.
    pub friction: f32,
    /// Pairs take the larger.
    pub restitution: f32,
    pub filter: FilterSpec,
}

impl ShapeDefSpec {
    /// The benchmark's material: friction `FRICTION`, restitution `RESTITUTION`.
    pub fn new(geometry: ShapeSpec, density: f32, filter: FilterSpec) -> ShapeDefSpec {
        ShapeDefSpec {
            geometry,
            density,
            friction: FRICTION,
            restitution: RESTITUTION,
            filter,
        }
    }
}

/// The world's settings: the benchmark's constants above, or a verdict scene's own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldSpec {
    /// s.
    pub dt: f32,
    pub substeps: u32,
    /// m/s^2.
    pub gravity: P2,
    pub contact_hertz: f32,
    pub contact_damping_ratio: f32,
    /// m/s.
    pub contact_push_max_velocity: f32,
    pub joint_hertz: f32,
    pub joint_damping_ratio: f32,
    /// m/s, below which nothing bounces.
    pub restitution_threshold: f32,
    /// m, the overlap left alone (Box2D: its compile-time `B2_LINEAR_SLOP`, 0.005, always).
    pub linear_slop: f32,
}

impl WorldSpec {
    /// The benchmark's settings.
    pub const BENCHMARK: WorldSpec = WorldSpec {
        dt: DT,
        substeps: SUBSTEPS,
        gravity: GRAVITY,
        contact_hertz: CONTACT_HERTZ,
        contact_damping_ratio: CONTACT_DAMPING_RATIO,
        contact_push_max_velocity: CONTACT_PUSH_MAX_VELOCITY,
        joint_hertz: JOINT_HERTZ,
        joint_damping_ratio: JOINT_DAMPING_RATIO,
        restitution_threshold: 1.0,
        linear_slop: LINEAR_SLOP,
    };
}

/// Collision filter, Box2D's convention: two shapes collide when each one's category is in
/// the other's mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilterSpec {
    pub category: u32,
    pub mask: u32,
}

impl FilterSpec {
    /// Collides with everything (Box2D's default: category 1, mask all).
    pub const DEFAULT: FilterSpec = FilterSpec {
        category: 1,
        mask: u32::MAX,
    };
    /// Box2D's joint grid: category 2, mask everything but 2, so the circles never touch.
    pub const NOT_SELF_2: FilterSpec = FilterSpec {
        category: 2,
        mask: !2,
    };
    /// Collides with nothing (used by the memory measurement to remove contacts).
    pub const NONE: FilterSpec = FilterSpec {
        category: 1,
        mask: 0,
    };
}

/// One body with its shapes.
#[derive(Clone, Debug, PartialEq)]
pub struct BodySpec {
    pub dynamic: bool,
    /// World position of the body origin, m.
    pub position: P2,
    /// rad.
    pub angle: f32,
    /// m/s.
    pub linear_velocity: P2,
    /// rad/s.
    pub angular_velocity: f32,
    /// 1/s.
    pub linear_damping: f32,
    /// 1/s.
    pub angular_damping: f32,
    pub gravity_scale: f32,
    pub shapes: Vec<ShapeDefSpec>,
}

impl BodySpec {
    /// A body at rest at `position`, angle 0, no damping.
    pub fn new(dynamic: bool, position: P2, shapes: Vec<ShapeDefSpec>) -> BodySpec {
        BodySpec {
            dynamic,
            position,
            angle: 0.0,
            linear_velocity: [0.0, 0.0],
            angular_velocity: 0.0,
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            shapes,
        }
    }
}

/// A revolute motor: target speed, rad/s, and the largest torque it may apply, N m.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotorSpec {
    pub speed: f32,
    pub max_torque: f32,
}

/// A joint between two bodies of the scene (indices into `bodies`), created at a world
/// anchor with the bodies where `bodies` puts them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointSpec {
    pub body_a: usize,
    pub body_b: usize,
    /// World point, m.
    pub anchor: P2,
    pub kind: JointKindSpec,
    /// Let the two bodies collide with each other.
    pub collide_connected: bool,
}

/// The joint kinds the three ports build.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointKindSpec {
    /// A pin; `limit` is (lower, upper) relative angle, rad.
    Revolute {
        motor: Option<MotorSpec>,
        limit: Option<(f32, f32)>,
    },
    /// A slide along the world `axis` (unit) with no relative turn; `limit` is (lower,
    /// upper) translation, m.
    Prismatic { axis: P2, limit: Option<(f32, f32)> },
}

impl JointSpec {
    /// A revolute joint, optionally motorised, bodies not colliding.
    pub fn revolute(body_a: usize, body_b: usize, anchor: P2, motor: Option<MotorSpec>) -> Self {
        JointSpec {
            body_a,
            body_b,
            anchor,
            kind: JointKindSpec::Revolute { motor, limit: None },
            collide_connected: false,
        }
    }
}

/// What the end-state check reads after the last step.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// A single body whose final y is printed (the top box of a pyramid).
    pub top: usize,
    /// Bodies whose mean final y is printed (the bottom row).
    pub row: Vec<usize>,
    /// Box2D v3's figures for the check, where known: (top y, row mean y).
    pub box2d_reference: Option<(f32, f32)>,
}

/// A complete scene.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneSpec {
    pub name: &'static str,
    pub world: WorldSpec,
    pub bodies: Vec<BodySpec>,
    pub joints: Vec<JointSpec>,
    /// Steps of the full benchmark (before `--steps-scale`).
    pub steps: usize,
    /// Touching pairs Box2D v3 reports once the scene rests, where known.
    pub expected_pairs: Option<usize>,
    pub probe: Probe,
}

impl SceneSpec {
    pub fn dynamic_body_count(&self) -> usize {
        self.bodies.iter().filter(|b| b.dynamic).count()
    }

    /// The same scene with every shape filtered out of collision (no contact can form).
    pub fn without_collisions(&self) -> SceneSpec {
        let mut s = self.clone();
        for shape in s.bodies.iter_mut().flat_map(|b| b.shapes.iter_mut()) {
            shape.filter = FilterSpec::NONE;
        }
        s
    }
}

/// Names accepted by `--scene`, in the order the benchmark runs them.
pub const SCENE_NAMES: [&str; 4] = ["large_pyramid", "many_pyramids", "joint_grid", "tumbler"];

pub fn by_name(name: &str) -> Option<SceneSpec> {
    match name {
        "large_pyramid" => Some(large_pyramid()),
        "many_pyramids" => Some(many_pyramids(20, 20)),
        "joint_grid" => Some(joint_grid()),
        "tumbler" => Some(tumbler()),
        _ => None,
    }
}

fn dynamic_box(position: P2, half: f32) -> BodySpec {
    BodySpec::new(
        true,
        position,
        vec![ShapeDefSpec::new(
            ShapeSpec::Box {
                half: [half, half],
                center: [0.0, 0.0],
            },
            1.0,
            FilterSpec::DEFAULT,
        )],
    )
}

/// A box shape of density 1 colliding with everything.
fn box_shape(half: P2, center: P2) -> ShapeDefSpec {
    ShapeDefSpec::new(ShapeSpec::Box { half, center }, 1.0, FilterSpec::DEFAULT)
}

/// Large pyramid: a static ground box, half size (100, 1), at (0, -1) (top face at y = 0);
/// 100 rows of 1 m boxes, row i holding 100 - i boxes. Row 0 spans x = -49.5..49.5.
/// At rest: 99 * 3 * 50 + 100 = 14,950 touching pairs.
pub fn large_pyramid() -> SceneSpec {
    const BASE: usize = 100;
    let h = 0.5;
    let mut bodies = vec![BodySpec::new(
        false,
        [0.0, -1.0],
        vec![box_shape([100.0, 1.0], [0.0, 0.0])],
    )];
    let mut row = Vec::new();
    for i in 0..BASE {
        let y = (2.0 * i as f32 + 1.0) * h;
        for j in i..BASE {
            let x = (i as f32 + 1.0) * h + 2.0 * (j - i) as f32 * h - h * BASE as f32;
            if i == 0 {
                row.push(bodies.len());
            }
            bodies.push(dynamic_box([x, y], h));
        }
    }
    let top = bodies.len() - 1;
    SceneSpec {
        world: WorldSpec::BENCHMARK,
        name: "large_pyramid",
        bodies,
        joints: Vec::new(),
        steps: 500,
        expected_pairs: Some(14_950),
        probe: Probe {
            top,
            row,
            box2d_reference: Some((98.77, 0.494)),
        },
    }
}

/// Many pyramids: `rows` x `cols` pyramids of base 10 (55 boxes each) on `rows` static ground
/// segments 11 m apart, each 11 * `cols` m wide, all on one static body. Pyramid j of row r is
/// centred at x = -5.5 * cols + 11 j + 1 on segment r (Box2D's layout). 20 x 20: 22,000 boxes,
/// 58,000 touching pairs at rest. Also the body of the `--scaling` run.
pub fn many_pyramids(rows: usize, cols: usize) -> SceneSpec {
    const BASE: usize = 10;
    let extent = 0.5;
    let ground_dy = 2.0 * extent * (BASE as f32 + 1.0);
    let ground_width = 2.0 * extent * cols as f32 * (BASE as f32 + 1.0);
    let base_width = 2.0 * extent * BASE as f32;

    let ground = BodySpec::new(
        false,
        [0.0, 0.0],
        (0..rows)
            .map(|r| {
                ShapeDefSpec::new(
                    ShapeSpec::Segment {
                        a: [-0.5 * ground_width, r as f32 * ground_dy],
                        b: [0.5 * ground_width, r as f32 * ground_dy],
                    },
                    1.0,
                    FilterSpec::DEFAULT,
                )
            })
            .collect(),
    );
    let mut bodies = vec![ground];
    let mut row = Vec::new();
    let mut top = 0;
    for r in 0..rows {
        let base_y = r as f32 * ground_dy;
        for c in 0..cols {
            let center_x =
                -0.5 * ground_width + c as f32 * (base_width + 2.0 * extent) + 2.0 * extent;
            for i in 0..BASE {
                let y = (2.0 * i as f32 + 1.0) * extent + base_y;
                for j in i..BASE {
                    let x =
                        (i as f32 + 1.0) * extent + 2.0 * (j - i) as f32 * extent + center_x - 0.5;
                    if r == 0 && i == 0 {
                        row.push(bodies.len());
                    }
                    if r == 0 && c == 0 && i == BASE - 1 {
                        top = bodies.len();
                    }
                    bodies.push(dynamic_box([x, y], extent));
                }
            }
        }
    }
    let pairs_per_pyramid = 3 * (BASE * (BASE - 1) / 2) + BASE;
    SceneSpec {
        world: WorldSpec::BENCHMARK,
        name: "many_pyramids",
        bodies,
        joints: Vec::new(),
        steps: 200,
        expected_pairs: Some(rows * cols * pairs_per_pyramid),
        probe: Probe {
            top,
            row,
            box2d_reference: None,
        },
    }
}

/// Joint grid: 100 x 100 circles of radius 0.4 at (k, -i), each pinned by a revolute joint to
/// the body above (anchor half way, 0.5 below it) and to the body on its left (0.5 to its
/// right): 19,800 joints. The circles never collide (category 2, mask !2). The top-row bodies
/// with k in 47..=53 are static. Probe: the bottom-left corner and the bottom row.
pub fn joint_grid() -> SceneSpec {
    const N: usize = 100;
    let mut bodies = Vec::with_capacity(N * N);
    let mut joints = Vec::with_capacity(2 * N * (N - 1));
    let mut row = Vec::new();
    for k in 0..N {
        for i in 0..N {
            let fixed = (N / 2 - 3..=N / 2 + 3).contains(&k) && i == 0;
            let index = bodies.len();
            let position = [k as f32, -(i as f32)];
            bodies.push(BodySpec::new(
                !fixed,
                position,
                vec![ShapeDefSpec::new(
                    ShapeSpec::Circle {
                        center: [0.0, 0.0],
                        radius: 0.4,
                    },
                    1.0,
                    FilterSpec::NOT_SELF_2,
                )],
            ));
            if i > 0 {
                joints.push(JointSpec::revolute(
                    index - 1,
                    index,
                    [position[0], position[1] + 0.5],
                    None,
                ));
            }
            if k > 0 {
                joints.push(JointSpec::revolute(
                    index - N,
                    index,
                    [position[0] - 0.5, position[1]],
                    None,
                ));
            }
            if i == N - 1 {
                row.push(index);
            }
        }
    }
    SceneSpec {
        world: WorldSpec::BENCHMARK,
        name: "joint_grid",
        bodies,
        joints,
        steps: 500,
        expected_pairs: Some(0),
        probe: Probe {
            top: N - 1,
            row,
            box2d_reference: None,
        },
    }
}

/// Tumbler: a dynamic drum of four walls (half sizes (0.5, 10) at x = +-10 and (10, 0.5) at
/// y = +-10), density 50, pinned at (0, 10) to a static body by a revolute motor turning at
/// 25 deg/s with at most 1e8 N m; 45 x 45 boxes of half size 0.125 on a 0.4 m grid inside.
/// Probe: the first box and the mean height of all boxes.
pub fn tumbler() -> SceneSpec {
    const GRID: usize = 45;
    let ground = BodySpec::new(false, [0.0, 0.0], Vec::new());
    let wall = |half, center| ShapeDefSpec {
        density: 50.0,
        ..box_shape(half, center)
    };
    let drum = BodySpec::new(
        true,
        [0.0, 10.0],
        vec![
            wall([0.5, 10.0], [10.0, 0.0]),
            wall([0.5, 10.0], [-10.0, 0.0]),
            wall([10.0, 0.5], [0.0, 10.0]),
            wall([10.0, 0.5], [0.0, -10.0]),
        ],
    );
    let mut bodies = vec![ground, drum];
    let joints = vec![JointSpec::revolute(
        0,
        1,
        [0.0, 10.0],
        Some(MotorSpec {
            speed: 25.0_f32.to_radians(),
            max_torque: 1e8,
        }),
    )];
    let mut row = Vec::new();
    let mut y = -0.2 * GRID as f32 + 10.0;
    for _ in 0..GRID {
        let mut x = -0.2 * GRID as f32;
        for _ in 0..GRID {
            row.push(bodies.len());
            bodies.push(dynamic_box([x, y], 0.125));
            x += 0.4;
        }
        y += 0.4;
    }
    SceneSpec {
        world: WorldSpec::BENCHMARK,
        name: "tumbler",
        bodies,
        joints,
        steps: 750,
        expected_pairs: None,
        probe: Probe {
            top: 2,
            row,
            box2d_reference: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_box2d_benchmark() {
        let lp = large_pyramid();
        assert_eq!(lp.dynamic_body_count(), 5050);
        assert_eq!(lp.probe.row.len(), 100);
        let first = &lp.bodies[lp.probe.row[0]];
        let last = &lp.bodies[*lp.probe.row.last().unwrap()];
        assert_eq!(first.position, [-49.5, 0.5]);
        assert_eq!(last.position, [49.5, 0.5]);
        assert_eq!(lp.bodies[lp.probe.top].position, [0.0, 99.5]);

        let mp = many_pyramids(20, 20);
        assert_eq!(mp.dynamic_body_count(), 22_000);
        assert_eq!(mp.expected_pairs, Some(58_000));

        let jg = joint_grid();
        assert_eq!(jg.joints.len(), 19_800);
        assert_eq!(jg.bodies.iter().filter(|b| !b.dynamic).count(), 7);

        let t = tumbler();
        assert_eq!(t.dynamic_body_count(), 1 + 45 * 45);
    }
}
