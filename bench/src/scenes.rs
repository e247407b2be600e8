//! The shared scene descriptions: plain data that every engine port turns into its own world.
//!
//! A scene is a list of bodies (each with its shapes) and joints, built once here and handed
//! to all three ports, so the three worlds are the same by construction: same body order, same
//! positions, same shapes, same material, same filters, same joints. The scenes are Box2D v3's
//! benchmark set (`shared/benchmarks.c` in `erincatto/box2d`): large pyramid, many pyramids,
//! joint grid, tumbler, compounds, junkyard, smash, spinner, washer and rain (ragdolls with
//! Box2D's joint springs and reference angles: see `ragdoll`). The verdict table (`--verdicts`, `verdict_port.rs`) builds its
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
    /// Moved by its velocity alone (infinite mass); only read when `dynamic` is false.
    pub kinematic: bool,
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
            kinematic: false,
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

/// A revolute spring towards the reference angle (Box2D v3's `enableSpring`, `hertz`,
/// `dampingRatio`): frequency, Hz, and damping ratio.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpringSpec {
    pub hertz: f32,
    pub damping_ratio: f32,
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
    /// A pin; `limit` is (lower, upper) joint angle, rad. The joint angle is
    /// `angle_b - angle_a - reference_angle` (Box2D v3's `referenceAngle`); `spring` pulls it
    /// to zero.
    Revolute {
        motor: Option<MotorSpec>,
        limit: Option<(f32, f32)>,
        spring: Option<SpringSpec>,
        /// rad.
        reference_angle: f32,
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
            kind: JointKindSpec::Revolute {
                motor,
                limit: None,
                spring: None,
                reference_angle: 0.0,
            },
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
    /// Read x instead of y (smash: the wall is blown along x in zero gravity).
    pub x_axis: bool,
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
    /// Moves a kinematic body each step (junkyard's pusher).
    pub driver: Option<Driver>,
}

/// A scene's per-step script, applied identically by every port before each step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Driver {
    /// The kinematic `body` (scene index) follows x = `amplitude` sin(`omega` t), y fixed: its
    /// velocity is set each step to reach that target at the end of the step.
    SinePusher {
        body: usize,
        /// m.
        amplitude: f32,
        /// rad/s.
        omega: f32,
    },
    /// Rain: groups of ragdolls created and destroyed on a schedule (`SceneSpec::spawns`).
    Rain,
}

/// A group of bodies to create mid-run (joint body indices are into `bodies`).
#[derive(Clone, Debug, PartialEq)]
pub struct Spawn {
    pub slot: usize,
    /// Destroy the group in `slot` first.
    pub replace: bool,
    pub bodies: Vec<BodySpec>,
    pub joints: Vec<JointSpec>,
}

impl SceneSpec {
    pub fn dynamic_body_count(&self) -> usize {
        self.bodies.iter().filter(|b| b.dynamic).count()
    }

    /// The velocity the scene's driver gives its kinematic body before step `step` (0-based),
    /// given the body's current x; `None` when the scene has no driver.
    pub fn driven_velocity(&self, step: usize, x: f32) -> Option<(usize, P2)> {
        match self.driver? {
            Driver::SinePusher {
                body,
                amplitude,
                omega,
            } => {
                // Box2D's `b2Body_SetTargetTransform(target, dt)`: the velocity that reaches
                // the target in one step, target x = amplitude sin(omega t), t = dt step.
                let t = self.world.dt * step as f32;
                let target = amplitude * (omega * t).sin();
                Some((body, [(target - x) / self.world.dt, 0.0]))
            }
            Driver::Rain => None,
        }
    }

    /// The body the driver moves, if it moves one.
    pub fn driven_body(&self) -> Option<usize> {
        match self.driver? {
            Driver::SinePusher { body, .. } => Some(body),
            Driver::Rain => None,
        }
    }

    /// The groups to (re)create before step `step` (0-based): rain's schedule. Every 8 steps
    /// one column of groups is created in each of the `RAIN_ROWS` rows, until all
    /// `RAIN_COLUMNS` columns exist; from then on the oldest column is destroyed and created
    /// again. A group's slot is `row * RAIN_COLUMNS + column`.
    pub fn spawns(&self, step: usize) -> Vec<Spawn> {
        if self.driver != Some(Driver::Rain) || !step.is_multiple_of(8) {
            return Vec::new();
        }
        let event = step / 8;
        let (column, replace) = if event < RAIN_COLUMNS {
            (event, false)
        } else {
            ((event - RAIN_COLUMNS) % RAIN_COLUMNS, true)
        };
        (0..RAIN_ROWS)
            .map(|row| {
                let (bodies, joints) = rain_group(row, column);
                Spawn {
                    slot: row * RAIN_COLUMNS + column,
                    replace,
                    bodies,
                    joints,
                }
            })
            .collect()
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
pub const SCENE_NAMES: [&str; 10] = [
    "large_pyramid",
    "many_pyramids",
    "joint_grid",
    "tumbler",
    "compounds",
    "junkyard",
    "smash",
    "spinner",
    "washer",
    "rain",
];

pub fn by_name(name: &str) -> Option<SceneSpec> {
    match name {
        "large_pyramid" => Some(large_pyramid()),
        "many_pyramids" => Some(many_pyramids(20, 20)),
        "joint_grid" => Some(joint_grid()),
        "tumbler" => Some(tumbler()),
        "compounds" => Some(compounds()),
        "junkyard" => Some(junkyard()),
        "smash" => Some(smash()),
        "spinner" => Some(spinner()),
        "washer" => Some(washer()),
        "rain" => Some(rain()),
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
            x_axis: false,
        },
        driver: None,
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
            x_axis: false,
        },
        driver: None,
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
            x_axis: false,
        },
        driver: None,
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
            x_axis: false,
        },
        driver: None,
    }
}

/// A static box of half size `half` at `center` in the ground body's frame, default material.
fn ground_box(half: P2, center: P2) -> ShapeDefSpec {
    box_shape(half, center)
}

/// A convex polygon shape (the ports take the hull of `vertices`), density 1, sharp corners.
fn polygon_shape(vertices: Vec<P2>) -> ShapeDefSpec {
    ShapeDefSpec::new(
        ShapeSpec::Polygon {
            vertices,
            radius: 0.0,
        },
        1.0,
        FilterSpec::DEFAULT,
    )
}

/// `v` turned by `angle` (negative angle: the inverse turn).
fn rotate(angle: f32, v: P2) -> P2 {
    let (s, c) = angle.sin_cos();
    [c * v[0] - s * v[1], s * v[0] + c * v[1]]
}

fn scale(k: f32, v: P2) -> P2 {
    [k * v[0], k * v[1]]
}

/// A probe over every dynamic body: `top` as given, the row all dynamic bodies.
fn all_dynamic_probe(bodies: &[BodySpec], top: usize, x_axis: bool) -> Probe {
    Probe {
        top,
        row: (0..bodies.len()).filter(|&i| bodies[i].dynamic).collect(),
        box2d_reference: None,
        x_axis,
    }
}

/// A U-shaped static ground of boxes: a floor of `floor` boxes half size (0.55, 0.5) on a 1 m
/// pitch from x = -`half_width`, and two walls of `wall` boxes half size (0.5, 0.55) at
/// x = -+`half_width` from y = 1 up (Box2D's compounds and junkyard grounds).
fn u_ground(half_width: f32, floor: usize, wall: usize) -> Vec<ShapeDefSpec> {
    let mut shapes = Vec::with_capacity(floor + 2 * wall);
    for i in 0..floor {
        shapes.push(ground_box([0.55, 0.5], [-half_width + i as f32, 0.0]));
    }
    for x in [-half_width, half_width] {
        for i in 0..wall {
            shapes.push(ground_box([0.5, 0.55], [x, 1.0 + i as f32]));
        }
    }
    shapes
}

/// Compounds: a U ground 80 m wide (81 floor boxes, walls of 100) with a segment far below;
/// 20 columns x 150 rows of bodies, each a compound of two triangles, (-1, 0) (0.5, 1) (0, 2)
/// and its mirror, density 1, friction 0.5. Column i at x = 2 i - 19, row j at
/// y = 2.25 j + 5.575, every other body shifted +-0.25 in x. 3,000 bodies, 6,000 shapes.
pub fn compounds() -> SceneSpec {
    const COLUMNS: usize = 20;
    const ROWS: usize = 150;
    let mut ground_shapes = u_ground(40.0, 81, 100);
    ground_shapes.push(ShapeDefSpec::new(
        ShapeSpec::Segment {
            a: [-800.0, -80.0],
            b: [800.0, -80.0],
        },
        1.0,
        FilterSpec::DEFAULT,
    ));
    let mut bodies = vec![BodySpec::new(false, [0.0, 0.0], ground_shapes)];
    let triangle = |mirror: f32| ShapeDefSpec {
        friction: 0.5,
        ..polygon_shape(vec![[-mirror, 0.0], [0.5 * mirror, 1.0], [0.0, 2.0]])
    };
    let (shift, extra_y, center_x, center_y, y_start) = (2.0, 0.25, 19.0, 0.575, 5.0);
    let mut side = 0.25;
    for i in 0..COLUMNS {
        let x = i as f32 * shift - center_x;
        for j in 0..ROWS {
            let y = j as f32 * (shift + extra_y) + center_y + y_start;
            bodies.push(BodySpec::new(
                true,
                [x + side, y],
                vec![triangle(1.0), triangle(-1.0)],
            ));
            side = -side;
        }
    }
    let top = bodies.len() - 1;
    let probe = all_dynamic_probe(&bodies, top, false);
    SceneSpec {
        world: WorldSpec::BENCHMARK,
        name: "compounds",
        bodies,
        joints: Vec::new(),
        steps: 500,
        expected_pairs: None,
        probe,
        driver: None,
    }
}

/// Junkyard: a U ground 160 m wide (161 floor boxes, walls of 50); 200 columns x 40 rows of
/// pentagons of circumradius 0.25 (vertices at angles k pi (sqrt 5 - 1), k = 0..5, the
/// "Fibonacci" spread), column i at x = 0.375 (2 i - 200), row j at y = j + 15, alternately
/// shifted -+0.1 in x; and a kinematic pusher (a box half size (2, 4) standing on y = 0)
/// driven along x = 60 sin(0.2 t). 8,000 pentagons.
pub fn junkyard() -> SceneSpec {
    const COLUMNS: usize = 200;
    const ROWS: usize = 40;
    let radius = 0.25;
    let mut bodies = vec![BodySpec::new(false, [0.0, 0.0], u_ground(80.0, 161, 50))];
    let phi = std::f32::consts::PI * (5.0_f32.sqrt() - 1.0);
    let pentagon: Vec<P2> = (0..5)
        .map(|k| rotate(phi * k as f32, [radius, 0.0]))
        .collect();
    let mut side = -0.1;
    for i in 0..COLUMNS {
        let x = 1.5 * (2.0 * i as f32 - COLUMNS as f32) * radius;
        for j in 0..ROWS {
            let y = 4.0 * j as f32 * radius + 15.0;
            bodies.push(BodySpec::new(
                true,
                [x + side, y],
                vec![polygon_shape(pentagon.clone())],
            ));
            side = -side;
        }
    }
    let top = bodies.len() - 1;
    let probe = all_dynamic_probe(&bodies, top, false);
    let pusher = bodies.len();
    bodies.push(BodySpec {
        kinematic: true,
        ..BodySpec::new(false, [0.0, 0.0], vec![box_shape([2.0, 4.0], [0.0, 4.0])])
    });
    SceneSpec {
        world: WorldSpec::BENCHMARK,
        name: "junkyard",
        bodies,
        joints: Vec::new(),
        steps: 500,
        expected_pairs: None,
        probe,
        driver: Some(Driver::SinePusher {
            body: pusher,
            amplitude: 60.0,
            omega: 0.2,
        }),
    }
}

/// Smash: zero gravity; a box of half size 4, density 8, at (-20, 0) moving at 40 m/s into a
/// wall of 120 x 80 boxes of half size 0.2 on a 0.4 m grid from (30, -16). Box2D starts the
/// wall asleep; with sleeping off here it starts awake (and at rest). Probe along x: the big
/// box and the mean x of every box.
pub fn smash() -> SceneSpec {
    const COLUMNS: usize = 120;
    const ROWS: usize = 80;
    let d = 0.4;
    let mut bodies = vec![BodySpec {
        linear_velocity: [40.0, 0.0],
        ..BodySpec::new(
            true,
            [-20.0, 0.0],
            vec![ShapeDefSpec {
                density: 8.0,
                ..box_shape([4.0, 4.0], [0.0, 0.0])
            }],
        )
    }];
    for i in 0..COLUMNS {
        for j in 0..ROWS {
            let position = [i as f32 * d + 30.0, (j as f32 - ROWS as f32 / 2.0) * d];
            bodies.push(dynamic_box(position, 0.5 * d));
        }
    }
    let probe = all_dynamic_probe(&bodies, 0, true);
    SceneSpec {
        world: WorldSpec {
            gravity: [0.0, 0.0],
            ..WorldSpec::BENCHMARK
        },
        name: "smash",
        bodies,
        joints: Vec::new(),
        steps: 300,
        expected_pairs: None,
        probe,
        driver: None,
    }
}

/// Spinner: a static loop of 360 segments on a circle of radius 40 centred at (0, 32),
/// friction 0.1 (Box2D builds it as one chain loop, one-sided; here every port gets the same
/// two-sided segments); a dynamic rounded box (half size (0.4, 20), radius 0.2, friction 0)
/// pinned at (0, 12) by a motor turning at 5 rad/s with unlimited torque; 6,076 bodies of
/// density 0.25, friction 0.1, restitution 0.1, cycling capsule (half length 0.25, radius
/// 0.25), circle (0.35) and square (half size 0.35), in rows of 92 on a 0.5 m grid from
/// (-23, 2).
pub fn spinner() -> SceneSpec {
    const POINTS: usize = 360;
    const BODIES: usize = 2 * 3038;
    let step = -2.0 * std::f32::consts::PI / POINTS as f32;
    let mut p = [40.0, 0.0];
    let mut points = Vec::with_capacity(POINTS);
    for _ in 0..POINTS {
        points.push([p[0], p[1] + 32.0]);
        p = rotate(step, p);
    }
    let ground_shapes = (0..POINTS)
        .map(|i| ShapeDefSpec {
            friction: 0.1,
            ..ShapeDefSpec::new(
                ShapeSpec::Segment {
                    a: points[i],
                    b: points[(i + 1) % POINTS],
                },
                1.0,
                FilterSpec::DEFAULT,
            )
        })
        .collect();
    let blade = ShapeDefSpec {
        friction: 0.0,
        ..ShapeDefSpec::new(
            ShapeSpec::Polygon {
                vertices: vec![[-0.4, -20.0], [0.4, -20.0], [0.4, 20.0], [-0.4, 20.0]],
                radius: 0.2,
            },
            1.0,
            FilterSpec::DEFAULT,
        )
    };
    let mut bodies = vec![
        BodySpec::new(false, [0.0, 0.0], ground_shapes),
        BodySpec::new(true, [0.0, 12.0], vec![blade]),
    ];
    let joints = vec![JointSpec::revolute(
        0,
        1,
        [0.0, 12.0],
        Some(MotorSpec {
            speed: 5.0,
            max_torque: f32::MAX,
        }),
    )];
    let material = |geometry| ShapeDefSpec {
        density: 0.25,
        friction: 0.1,
        restitution: 0.1,
        filter: FilterSpec::DEFAULT,
        geometry,
    };
    let (mut x, mut y) = (-23.0_f32, 2.0_f32);
    for i in 0..BODIES {
        let geometry = match i % 3 {
            0 => ShapeSpec::Capsule {
                a: [-0.25, 0.0],
                b: [0.25, 0.0],
                radius: 0.25,
            },
            1 => ShapeSpec::Circle {
                center: [0.0, 0.0],
                radius: 0.35,
            },
            _ => ShapeSpec::Box {
                half: [0.35, 0.35],
                center: [0.0, 0.0],
            },
        };
        bodies.push(BodySpec::new(true, [x, y], vec![material(geometry)]));
        x += 0.5;
        if x >= 23.0 {
            x = -23.0;
            y += 0.5;
        }
    }
    let mut probe = all_dynamic_probe(&bodies, 2, false);
    probe.row.retain(|&i| i != 1);
    SceneSpec {
        world: WorldSpec::BENCHMARK,
        name: "spinner",
        bodies,
        joints,
        steps: 1000,
        expected_pairs: None,
        probe,
        driver: None,
    }
}

/// Washer: a kinematic drum at (0, 10) turning at 25 deg/s (and drifting at (0.001, -0.002)
/// m/s, as in Box2D): a ring of 36 quads between radii 16 and 18, each spanning 10 deg less
/// a 1 deg gap, plus 4 paddles between radii 14 and 16 every 90 deg; inside, 90 x 90 boxes of
/// half size 0.1 on a 0.21 m grid from (-9.9, 0.1). 8,100 boxes.
pub fn washer() -> SceneSpec {
    const GRID: usize = 90;
    let (r0, r1, r2) = (14.0, 16.0, 18.0);
    let angle = std::f32::consts::PI / 18.0;
    let gap = 0.1 * angle;
    let mut shapes = Vec::new();
    let mut u1: P2 = [1.0, 0.0];
    for i in 0..36 {
        let u2 = if i == 35 {
            [1.0, 0.0]
        } else {
            rotate(angle, u1)
        };
        let a1 = rotate(-gap, u1);
        let a2 = rotate(gap, u2);
        shapes.push(polygon_shape(vec![
            scale(r1, a1),
            scale(r2, a1),
            scale(r1, a2),
            scale(r2, a2),
        ]));
        if i % 9 == 0 {
            shapes.push(polygon_shape(vec![
                scale(r0, u1),
                scale(r1, u1),
                scale(r0, u2),
                scale(r1, u2),
            ]));
        }
        u1 = u2;
    }
    let drum = BodySpec {
        kinematic: true,
        angular_velocity: 25.0_f32.to_radians(),
        linear_velocity: [0.001, -0.002],
        ..BodySpec::new(false, [0.0, 10.0], shapes)
    };
    let mut bodies = vec![BodySpec::new(false, [0.0, 0.0], Vec::new()), drum];
    let a = 0.1;
    let mut y = -1.1 * a * GRID as f32 + 10.0;
    for _ in 0..GRID {
        let mut x = -1.1 * a * GRID as f32;
        for _ in 0..GRID {
            bodies.push(dynamic_box([x, y], a));
            x += 2.1 * a;
        }
        y += 2.1 * a;
    }
    let probe = all_dynamic_probe(&bodies, 2, false);
    SceneSpec {
        world: WorldSpec::BENCHMARK,
        name: "washer",
        bodies,
        joints: Vec::new(),
        steps: 500,
        expected_pairs: None,
        probe,
        driver: None,
    }
}

/// Rain's rows of groups, columns of groups, and ragdolls per group.
pub const RAIN_ROWS: usize = 5;
pub const RAIN_COLUMNS: usize = 40;
pub const RAIN_GROUP_SIZE: usize = 5;
/// Rain's ground: 5 shelves of 501 boxes on a 0.5 m grid, 45 m apart.
const RAIN_GRID: f32 = 0.5;
const RAIN_GRID_COUNT: usize = 500;

/// Rain's ragdoll joint springs: Hz and damping ratio (Box2D's `jointHertz`, `jointDamping`).
pub const RAIN_JOINT_HERTZ: f32 = 5.0;
pub const RAIN_JOINT_DAMPING_RATIO: f32 = 0.5;

/// Rain: 5 static shelves, each a row of 501 boxes of half size 0.25 from x = -125, at y = 0,
/// 45, .. 180; ragdolls are created and destroyed by `SceneSpec::spawns` (before every 8th
/// step, one column of 5 ragdolls in each row, 40 columns, then the oldest column replaced):
/// up to 1,000 ragdolls, 11,000 bodies. Probe: the highest and the mean y of the live ragdoll
/// bodies.
pub fn rain() -> SceneSpec {
    let mut shapes = Vec::new();
    for row in 0..RAIN_ROWS {
        let y = 45.0 * row as f32;
        for j in 0..=RAIN_GRID_COUNT {
            let x = -0.5 * RAIN_GRID_COUNT as f32 * RAIN_GRID + j as f32 * RAIN_GRID;
            shapes.push(ground_box([0.5 * RAIN_GRID, 0.5 * RAIN_GRID], [x, y]));
        }
    }
    SceneSpec {
        world: WorldSpec::BENCHMARK,
        name: "rain",
        bodies: vec![BodySpec::new(false, [0.0, 0.0], shapes)],
        joints: Vec::new(),
        steps: 1000,
        expected_pairs: None,
        probe: Probe {
            top: 0,
            row: Vec::new(),
            box2d_reference: None,
            x_axis: false,
        },
        driver: Some(Driver::Rain),
    }
}

/// Rain's group in `row`, `column`: 5 ragdolls 0.5 m apart from x = -125 + 6.25 (column +
/// 0.5), feet at y = 40 + 45 row.
fn rain_group(row: usize, column: usize) -> (Vec<BodySpec>, Vec<JointSpec>) {
    let span = RAIN_GRID_COUNT as f32 * RAIN_GRID;
    let distance = span / RAIN_COLUMNS as f32;
    let mut position = [
        -0.5 * span + distance * (column as f32 + 0.5),
        40.0 + 45.0 * row as f32,
    ];
    let (mut bodies, mut joints) = (Vec::new(), Vec::new());
    for i in 0..RAIN_GROUP_SIZE {
        let (b, j) = ragdoll(position, i + 1);
        let offset = bodies.len();
        bodies.extend(b);
        joints.extend(j.into_iter().map(|mut j| {
            j.body_a += offset;
            j.body_b += offset;
            j
        }));
        position[0] += 0.5;
    }
    (bodies, joints)
}

/// Box2D's "human" ragdoll at scale 1 with its feet at `feet`: 11 capsule bones (hip, torso,
/// head, two legs of two bones with a rounded foot polygon on the shin, two arms of two
/// bones), friction 0.2 (feet 0.05), density 1; 10 revolute joints with Box2D's angle limits,
/// joint friction as a motor at speed 0 with at most 0.05 N m x the bone's friction scale, and
/// Box2D's joint springs (`RAIN_JOINT_HERTZ`, `RAIN_JOINT_DAMPING_RATIO`) towards each joint's
/// reference angle: 0, except the lower arms' pi/4 (the bodies are all created upright, so
/// the lower arms start pi/4 from their rest, outside their limits, and swing into them).
///
/// Collision filter: Box2D gives ragdoll `index` (1..=5 in a group) group index -`index`, so
/// same-index ragdolls never touch, and its feet touch only the ground. Here that is encoded
/// in category bits, the same in the three engines: ragdoll `index` is category 1 << `index`,
/// its mask the ground (1) and the other four ragdoll bits; the feet's mask the ground only.
fn ragdoll(feet: P2, index: usize) -> (Vec<BodySpec>, Vec<JointSpec>) {
    use std::f32::consts::PI;
    let own = 1u32 << index;
    let others = 0b11_1110 & !own;
    let body_filter = FilterSpec {
        category: own,
        mask: 1 | others,
    };
    let foot_filter = FilterSpec {
        category: own,
        mask: 1,
    };
    let capsule = |y0: f32, y1: f32, radius: f32| ShapeDefSpec {
        friction: 0.2,
        ..ShapeDefSpec::new(
            ShapeSpec::Capsule {
                a: [0.0, y0],
                b: [0.0, y1],
                radius,
            },
            1.0,
            body_filter,
        )
    };
    let foot = ShapeDefSpec {
        friction: 0.05,
        ..ShapeDefSpec::new(
            ShapeSpec::Polygon {
                vertices: vec![
                    [-0.03, -0.185],
                    [0.11, -0.185],
                    [0.11, -0.16],
                    [-0.03, -0.14],
                ],
                radius: 0.015,
            },
            1.0,
            foot_filter,
        )
    };
    let max_torque = 0.05;
    // (height of the body origin, shapes, linear damping, parent, pivot height, limit in
    // units of pi, friction scale, reference angle in units of pi)
    type Bone = (
        f32,
        Vec<ShapeDefSpec>,
        f32,
        usize,
        f32,
        (f32, f32),
        f32,
        f32,
    );
    let leg = |upper: usize| -> [Bone; 2] {
        [
            (
                0.775,
                vec![capsule(-0.125, 0.125, 0.06)],
                0.0,
                0,
                0.9,
                (-0.05, 0.4),
                1.0,
                0.0,
            ),
            (
                0.475,
                vec![capsule(-0.155, 0.125, 0.045), foot.clone()],
                0.0,
                upper,
                0.625,
                (-0.5, -0.02),
                0.5,
                0.0,
            ),
        ]
    };
    let arm = |upper: usize| -> [Bone; 2] {
        [
            (
                1.225,
                vec![capsule(-0.125, 0.125, 0.035)],
                0.0,
                1,
                1.35,
                (-0.1, 0.8),
                0.5,
                0.0,
            ),
            (
                0.975,
                vec![capsule(-0.125, 0.125, 0.03)],
                0.1,
                upper,
                1.1,
                (-0.2, 0.3),
                0.1,
                0.25,
            ),
        ]
    };
    let mut bones: Vec<Bone> = vec![
        (
            0.95,
            vec![capsule(-0.02, 0.02, 0.095)],
            0.0,
            usize::MAX,
            0.0,
            (0.0, 0.0),
            1.0,
            0.0,
        ),
        (
            1.2,
            vec![capsule(-0.135, 0.135, 0.09)],
            0.0,
            0,
            1.0,
            (-0.25, 0.0),
            0.5,
            0.0,
        ),
        (
            1.475,
            vec![capsule(-0.038, 0.039, 0.075)],
            0.1,
            1,
            1.4,
            (-0.3, 0.1),
            0.25,
            0.0,
        ),
    ];
    bones.extend(leg(3));
    bones.extend(leg(5));
    bones.extend(arm(7));
    bones.extend(arm(9));
    let mut bodies = Vec::with_capacity(bones.len());
    let mut joints = Vec::with_capacity(bones.len() - 1);
    for (k, (height, shapes, damping, parent, pivot, (lower, upper), scale, reference)) in
        bones.into_iter().enumerate()
    {
        bodies.push(BodySpec {
            linear_damping: damping,
            ..BodySpec::new(true, [feet[0], feet[1] + height], shapes)
        });
        if parent != usize::MAX {
            joints.push(JointSpec {
                body_a: parent,
                body_b: k,
                anchor: [feet[0], feet[1] + pivot],
                kind: JointKindSpec::Revolute {
                    motor: Some(MotorSpec {
                        speed: 0.0,
                        max_torque: scale * max_torque,
                    }),
                    limit: Some((lower * PI, upper * PI)),
                    spring: Some(SpringSpec {
                        hertz: RAIN_JOINT_HERTZ,
                        damping_ratio: RAIN_JOINT_DAMPING_RATIO,
                    }),
                    reference_angle: reference * PI,
                },
                collide_connected: false,
            });
        }
    }
    (bodies, joints)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (x, y, shape count) of every moving body, sorted.
    fn sorted(mut v: Vec<(f32, f32, usize)>) -> Vec<(f32, f32, usize)> {
        v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        v
    }

    fn spec_bodies(bodies: &[BodySpec]) -> Vec<(f32, f32, usize)> {
        bodies
            .iter()
            .filter(|b| b.dynamic)
            .map(|b| (b.position[0], b.position[1], b.shapes.len()))
            .collect()
    }

    /// The testbed's library scenes (`scenes/benchmark/*.ron`) build the bench's moving bodies:
    /// same positions (to float rounding: the files are made row by row, the bench column by
    /// column), same number of shapes each. Junkyard's file drives its pusher with a crank
    /// (two more moving bodies, named); rain's file holds every ragdoll group of the schedule
    /// at once.
    #[test]
    fn library_scenes_build_the_bench_bodies() {
        let dir = impulse::scene::catalog::scenes_dir();
        let rain_all: Vec<BodySpec> = (0..RAIN_COLUMNS)
            .flat_map(|c| rain().spawns(8 * c))
            .flat_map(|s| s.bodies)
            .collect();
        for (file, expected) in [
            ("compounds", spec_bodies(&compounds().bodies)),
            ("junkyard", spec_bodies(&junkyard().bodies)),
            ("smash", spec_bodies(&smash().bodies)),
            ("spinner", spec_bodies(&spinner().bodies)),
            ("washer", spec_bodies(&washer().bodies)),
            ("rain", spec_bodies(&rain_all)),
        ] {
            let path = dir.join(format!("benchmark/{file}.ron"));
            let scene = impulse::scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
            let got: Vec<(f32, f32, usize)> = scene
                .world
                .bodies()
                .filter(|(_, b)| b.kind() == impulse::physics::BodyKind::Dynamic)
                .filter(|(_, b)| !matches!(b.name(), Some("pusher" | "crank")))
                .map(|(_, b)| (b.position().x, b.position().y, b.shapes().len()))
                .collect();
            let (got, expected) = (sorted(got), sorted(expected));
            assert_eq!(got.len(), expected.len(), "{file}: moving bodies");
            for (g, e) in got.iter().zip(&expected) {
                assert!(
                    (g.0 - e.0).abs() < 1e-3 && (g.1 - e.1).abs() < 1e-3 && g.2 == e.2,
                    "{file}: body at {g:?}, the bench's at {e:?}"
                );
            }
        }
    }

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

        assert_eq!(compounds().dynamic_body_count(), 3000);
        assert_eq!(junkyard().dynamic_body_count(), 8000);
        assert_eq!(smash().dynamic_body_count(), 1 + 120 * 80);
        assert_eq!(spinner().dynamic_body_count(), 1 + 6076);
        assert_eq!(washer().dynamic_body_count(), 8100);
        let first = rain().spawns(0);
        assert_eq!(first.len(), RAIN_ROWS);
        assert_eq!(first[0].bodies.len(), 55);
        assert_eq!(first[0].joints.len(), 50);
        // Box2D's human: every joint sprung at 5 Hz, ratio 0.5; the two lower arms turned pi/4.
        let mut turned = 0;
        for j in &first[0].joints {
            let JointKindSpec::Revolute {
                spring,
                reference_angle,
                ..
            } = j.kind
            else {
                panic!("ragdoll joints are revolute")
            };
            assert_eq!(
                spring,
                Some(SpringSpec {
                    hertz: 5.0,
                    damping_ratio: 0.5
                })
            );
            if reference_angle != 0.0 {
                assert_eq!(reference_angle, 0.25 * std::f32::consts::PI);
                turned += 1;
            }
        }
        assert_eq!(turned, 2 * RAIN_GROUP_SIZE);
        assert!(rain().spawns(1).is_empty());
        assert!(rain().spawns(8 * RAIN_COLUMNS)[0].replace);
        for name in SCENE_NAMES {
            assert!(by_name(name).is_some(), "{name}");
        }
    }
}
