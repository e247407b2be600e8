//! The scene library and the loader: every catalog scene loads and steps, the catalog lists
//! every file, the Box2D-Lite demos keep their original numbers, exports continue bit for
//! bit, and every bad file of `tests/bad_scenes/` gives its own message.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use impulse::physics::{BodyKind, JointKind, Vec2, World};
use impulse::scene::catalog::{self, CATALOG};
use impulse::scene::export::{self, SceneMeta};
use impulse::scene::format::{
    BodyFile, BodyKindFile, GeometryFile, JointKindFile, RevoluteFile, SceneFile,
};
use impulse::scene::generators;
use impulse::scene::{self as scene, SceneError};

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn assert_finite(world: &World, file: &str) {
    for (_, b) in world.bodies() {
        let p = b.position();
        let v = b.linear_velocity();
        assert!(
            p.is_finite()
                && b.angle().is_finite()
                && v.is_finite()
                && b.angular_velocity().is_finite(),
            "{file}: body {:?} has a non-finite state",
            b.name()
        );
    }
}

#[test]
fn every_catalog_scene_loads_and_steps_with_finite_state() {
    let dir = scenes_dir();
    for entry in CATALOG {
        let path = entry.path_in(&dir);
        let text = read(&path);
        let file = scene::parse(&text, entry.file).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            file.category, entry.category,
            "{}: the file's category differs from the catalog's",
            entry.file
        );
        assert!(
            !file.name.is_empty() && !file.description.is_empty(),
            "{}",
            entry.file
        );
        let mut loaded = scene::build::build(&file, entry.file).unwrap_or_else(|e| panic!("{e}"));
        // The 5,000+ body benchmarks (the 10,000-circle joint grid with its 19,800 joints)
        // step 30 times here instead of 120: enough to show they load and step, at a test
        // build's speed.
        let steps = if loaded.world.body_count() > 5000 {
            30
        } else {
            120
        };
        let dt = loaded.world.settings().dt();
        for _ in 0..steps {
            loaded.world.step(dt);
        }
        assert_finite(&loaded.world, entry.file);
    }
}

#[test]
fn catalog_lists_every_scene_file_and_every_entry_exists() {
    let dir = scenes_dir();
    let unlisted = catalog::unlisted_files(&dir).unwrap();
    assert!(
        unlisted.is_empty(),
        "scene files missing from src/scene/catalog.rs: {unlisted:?}"
    );
    for entry in CATALOG {
        assert!(
            entry.path_in(&dir).is_file(),
            "{} does not exist",
            entry.file
        );
    }
    let mut seen = std::collections::HashSet::new();
    for entry in CATALOG {
        assert!(seen.insert(entry.file), "{} is listed twice", entry.file);
    }
    assert_eq!(
        catalog::categories(),
        vec![
            "Box2D-Lite",
            "Shapes",
            "Stacking and robustness",
            "Joints",
            "Benchmark"
        ]
    );
}

// ------------------------------------------------------------------------------------------
// Box2D-Lite's demos, transcribed from its samples/main.cpp.

/// A Box2D-Lite body: full width and height, mass (None: static, FLT_MAX), friction,
/// position, rotation.
#[derive(Debug)]
struct LiteBody {
    size: (f32, f32),
    mass: Option<f32>,
    friction: f32,
    position: (f32, f32),
    rotation: f32,
}

fn lite(w: f32, h: f32, mass: Option<f32>, x: f32, y: f32) -> LiteBody {
    LiteBody {
        size: (w, h),
        mass,
        friction: 0.2,
        position: (x, y),
        rotation: 0.0,
    }
}

fn lite_ground() -> LiteBody {
    lite(100.0, 20.0, None, 0.0, -10.0)
}

/// A Box2D-Lite joint: the two body indices, anchor, softness and bias factor.
#[derive(Debug)]
struct LiteJoint {
    a: usize,
    b: usize,
    anchor: (f32, f32),
    softness: f32,
    bias_factor: f32,
}

fn pin(a: usize, b: usize, x: f32, y: f32) -> LiteJoint {
    LiteJoint {
        a,
        b,
        anchor: (x, y),
        softness: 0.0,
        bias_factor: 0.2,
    }
}

/// Box2D-Lite's soft joint tuning for a mass at a frequency and damping ratio, at 60 Hz.
fn lite_softness(mass: f32, hertz: f32, damping_ratio: f32) -> (f32, f32) {
    let time_step = 1.0f32 / 60.0;
    let omega = 2.0 * std::f32::consts::PI * hertz;
    let d = 2.0 * mass * damping_ratio * omega;
    let k = mass * omega * omega;
    (
        1.0 / (d + time_step * k),
        time_step * k / (d + time_step * k),
    )
}

fn lite_demos() -> Vec<(&'static str, Vec<LiteBody>, Vec<LiteJoint>)> {
    let mut demos = Vec::new();
    // Demo 1.
    demos.push((
        "box2d_lite/single_box.ron",
        vec![lite_ground(), lite(1.0, 1.0, Some(200.0), 0.0, 4.0)],
        vec![],
    ));
    // Demo 2.
    demos.push((
        "box2d_lite/simple_pendulum.ron",
        vec![lite_ground(), lite(1.0, 1.0, Some(100.0), 9.0, 11.0)],
        vec![pin(0, 1, 0.0, 11.0)],
    ));
    // Demo 3.
    let mut b = vec![lite_ground()];
    for (w, h, x, y, r) in [
        (13.0, 0.25, -2.0, 11.0, -0.25),
        (0.25, 1.0, 5.25, 9.5, 0.0),
        (13.0, 0.25, 2.0, 7.0, 0.25),
        (0.25, 1.0, -5.25, 5.5, 0.0),
        (13.0, 0.25, -2.0, 3.0, -0.25),
    ] {
        let mut body = lite(w, h, None, x, y);
        body.rotation = r;
        b.push(body);
    }
    for (i, f) in [0.75, 0.5, 0.35, 0.1, 0.0].into_iter().enumerate() {
        let mut body = lite(0.5, 0.5, Some(25.0), -7.5 + 2.0 * i as f32, 14.0);
        body.friction = f;
        b.push(body);
    }
    demos.push(("box2d_lite/varying_friction.ron", b, vec![]));
    // Demo 4: x is random in -0.1..0.1 (checked separately).
    let mut b = vec![lite_ground()];
    for i in 0..10 {
        b.push(lite(1.0, 1.0, Some(1.0), 0.0, 0.51 + 1.05 * i as f32));
    }
    demos.push(("box2d_lite/randomized_stacking.ron", b, vec![]));
    // Demo 5.
    let mut b = vec![lite_ground()];
    let mut x = (-6.0f32, 0.75f32);
    for i in 0..12 {
        let mut y = x;
        for _ in i..12 {
            b.push(lite(1.0, 1.0, Some(10.0), y.0, y.1));
            y.0 += 1.125;
        }
        x = (x.0 + 0.5625, x.1 + 2.0);
    }
    demos.push(("box2d_lite/pyramid_stacking.ron", b, vec![]));
    // Demo 6.
    demos.push((
        "box2d_lite/teeter.ron",
        vec![
            lite_ground(),
            lite(12.0, 0.25, Some(100.0), 0.0, 1.0),
            lite(0.5, 0.5, Some(25.0), -5.0, 2.0),
            lite(0.5, 0.5, Some(25.0), -5.5, 2.0),
            lite(1.0, 1.0, Some(100.0), 5.5, 15.0),
        ],
        vec![pin(0, 1, 0.0, 1.0)],
    ));
    // Demo 7.
    let (softness, bias_factor) = lite_softness(50.0, 2.0, 0.7);
    let mut b = vec![lite_ground()];
    let mut j = Vec::new();
    for i in 0..15 {
        b.push(lite(1.0, 0.25, Some(50.0), -8.5 + 1.25 * i as f32, 5.0));
    }
    for i in 0..15 {
        j.push(LiteJoint {
            softness,
            bias_factor,
            ..pin(i, i + 1, -9.125 + 1.25 * i as f32, 5.0)
        });
    }
    j.push(LiteJoint {
        softness,
        bias_factor,
        ..pin(15, 0, -9.125 + 1.25 * 15.0, 5.0)
    });
    demos.push(("box2d_lite/suspension_bridge.ron", b, j));
    // Demo 8.
    let mut b = vec![lite_ground(), lite(12.0, 0.5, None, -1.5, 10.0)];
    for i in 0..10 {
        let mut d = lite(0.2, 2.0, Some(10.0), -6.0 + i as f32, 11.125);
        d.friction = 0.1;
        b.push(d);
    }
    let mut ramp = lite(14.0, 0.5, None, 1.0, 6.0);
    ramp.rotation = 0.3;
    b.push(ramp);
    b.push(lite(0.5, 3.0, None, -7.0, 4.0)); // 13: b2
    b.push(lite(12.0, 0.25, Some(20.0), -0.9, 1.0)); // 14: b3
    b.push(lite(0.5, 0.5, Some(10.0), -10.0, 15.0)); // 15: b4
    let mut b5 = lite(2.0, 2.0, Some(20.0), 6.0, 2.5);
    b5.friction = 0.1;
    b.push(b5); // 16: b5
    b.push(lite(2.0, 0.2, Some(10.0), 6.0, 3.6)); // 17: b6
    let j = vec![
        pin(0, 14, -2.0, 1.0),
        pin(13, 15, -7.0, 15.0),
        pin(0, 16, 6.0, 2.6),
        pin(16, 17, 7.0, 3.5),
    ];
    demos.push(("box2d_lite/dominos.ron", b, j));
    // Demo 9.
    let (softness, bias_factor) = lite_softness(10.0, 4.0, 0.7);
    let mut b = vec![lite_ground()];
    let mut j = Vec::new();
    for i in 0..15 {
        b.push(lite(0.75, 0.25, Some(10.0), 0.5 + i as f32, 12.0));
        j.push(LiteJoint {
            softness,
            bias_factor,
            ..pin(i, i + 1, i as f32, 12.0)
        });
    }
    demos.push(("box2d_lite/multi_pendulum.ron", b, j));
    demos
}

/// The file's bodies and joints with generators expanded: (bodies, joints as (a, b, kind)).
fn expand(file: &SceneFile) -> (Vec<BodyFile>, Vec<(usize, usize, JointKindFile)>) {
    let mut names = HashMap::new();
    for (i, b) in file.bodies.iter().enumerate() {
        if let Some(n) = &b.name {
            names.insert(n.clone(), i);
        }
    }
    let mut bodies = file.bodies.clone();
    let mut joints: Vec<(usize, usize, JointKindFile)> = file
        .joints
        .iter()
        .map(|j| (names[&j.body_a], names[&j.body_b], j.kind.clone()))
        .collect();
    for g in &file.generators {
        assert!(generators::check(g, &names).is_empty());
        let out = generators::generate(g, bodies.len(), &names);
        bodies.extend(out.bodies);
        joints.extend(out.joints.into_iter().map(|j| (j.body_a, j.body_b, j.kind)));
    }
    (bodies, joints)
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn box2d_lite_demos_keep_their_original_parameters() {
    let dir = scenes_dir();
    for (path, lite_bodies, lite_joints) in lite_demos() {
        let file = scene::parse(&read(&dir.join(path)), path).unwrap();
        let (bodies, joints) = expand(&file);
        assert_eq!(bodies.len(), lite_bodies.len(), "{path}: body count");
        for (i, (body, want)) in bodies.iter().zip(&lite_bodies).enumerate() {
            let at = format!("{path}: body #{i}");
            assert_eq!(body.shapes.len(), 1, "{at}");
            let shape = &body.shapes[0];
            let GeometryFile::Box {
                half_width,
                half_height,
                center,
                angle,
            } = shape.shape
            else {
                panic!("{at}: not a box")
            };
            assert_eq!((center, angle), (Vec2::ZERO, 0.0), "{at}");
            assert_eq!(
                (2.0 * half_width, 2.0 * half_height),
                want.size,
                "{at}: size"
            );
            match want.mass {
                None => assert_eq!(body.kind, BodyKindFile::Static, "{at}: static"),
                Some(mass) => {
                    assert_eq!(body.kind, BodyKindFile::Dynamic, "{at}");
                    let m = shape.density * want.size.0 * want.size.1;
                    assert!(close(m, mass), "{at}: mass {m}, Box2D-Lite has {mass}");
                }
            }
            assert_eq!(shape.friction, want.friction, "{at}: friction");
            assert_eq!(body.angle, want.rotation, "{at}: rotation");
            let p = body.position;
            if path.ends_with("randomized_stacking.ron") && i > 0 {
                assert!(p.x.abs() <= 0.1, "{at}: jitter");
                assert_eq!(p.y, want.position.1, "{at}: y");
            } else {
                assert_eq!((p.x, p.y), want.position, "{at}: position");
            }
        }
        assert_eq!(joints.len(), lite_joints.len(), "{path}: joint count");
        for (k, ((a, b, kind), want)) in joints.iter().zip(&lite_joints).enumerate() {
            let at = format!("{path}: joint #{k}");
            assert_eq!((*a, *b), (want.a, want.b), "{at}: bodies");
            let JointKindFile::Revolute(RevoluteFile {
                anchor,
                softness,
                bias_factor,
                enable_limit: false,
                enable_motor: false,
                ..
            }) = kind
            else {
                panic!("{at}: Box2D-Lite's joint is a plain revolute")
            };
            assert_eq!((anchor.x, anchor.y), want.anchor, "{at}: anchor");
            assert!(close(*softness, want.softness), "{at}: softness {softness}");
            // Left out, a joint takes the world's bias factor (Box2D-Lite's 0.2 here).
            let bias_factor = bias_factor.unwrap_or(file.settings.bias_factor);
            assert!(
                close(bias_factor, want.bias_factor),
                "{at}: bias_factor {bias_factor}"
            );
        }
        // The same numbers reach the core's joints.
        let world = scene::build::build(&file, path).unwrap().world;
        assert_eq!(world.joint_count(), lite_joints.len(), "{path}");
        for (k, ((_, joint), want)) in world.joints().zip(&lite_joints).enumerate() {
            let at = format!("{path}: core joint #{k}");
            assert_eq!(
                (joint.body_a().index(), joint.body_b().index()),
                (want.a, want.b),
                "{at}: bodies"
            );
            let JointKind::Revolute(r) = joint.kind() else {
                panic!("{at}: not a revolute joint")
            };
            let body_a = world.body(joint.body_a()).unwrap();
            let anchor = r.anchor_a(body_a);
            assert!(
                close(anchor.x, want.anchor.0) && close(anchor.y, want.anchor.1),
                "{at}: anchor {anchor}"
            );
            assert!(close(r.softness(), want.softness), "{at}: softness");
            let beta = r.bias_factor().unwrap_or(world.settings().bias_factor);
            assert!(close(beta, want.bias_factor), "{at}: bias_factor {beta}");
            assert!(!r.is_limit_enabled() && !r.is_motor_enabled(), "{at}");
        }
    }
}

// ------------------------------------------------------------------------------------------
// Export.

/// Bodies of every shape kind, several shapes on one body, off-origin centres of mass, a
/// kinematic body, a sleeping body, and every available joint kind.
const MIXED: &str = r#"
Scene(
    name: "Mixed", category: "Test", description: "Every shape kind in motion.",
    settings: (iterations: 8, sleep: true),
    bodies: [
        (name: "ground", kind: Static, position: (0.0, 0.0), shapes: [
            (shape: Segment(point_a: (-20.0, 0.0), point_b: (20.0, 0.5))),
            (shape: Box(half_width: 1.0, half_height: 0.5, center: (3.0, 1.0), angle: 0.3)),
        ]),
        (name: "box", position: (0.3, 3.0), angle: 0.2, linear_velocity: (1.0, 0.5), angular_velocity: 1.3,
         shapes: [(shape: Box(half_width: 0.5, half_height: 0.25))]),
        (name: "offset", position: (-2.0, 4.0), angle: 0.7, angular_velocity: -2.1,
         shapes: [(shape: Box(half_width: 0.3, half_height: 0.6, center: (0.7, -0.2), angle: 0.4), density: 3.0)]),
        (name: "wedge", position: (2.0, 5.0), angular_velocity: 0.9,
         shapes: [(shape: Polygon(vertices: [(0.1, 0.1), (1.3, 0.2), (0.6, 1.1)]))]),
        (name: "ball", position: (-1.0, 6.0), linear_velocity: (-0.3, 0.0),
         shapes: [(shape: Circle(radius: 0.4, center: (0.13, 0.07)), restitution: 0.3)]),
        (name: "pill", position: (1.0, 7.0), angle: -0.4, angular_velocity: 3.0, linear_damping: 0.1, angular_damping: 0.2,
         shapes: [(shape: Capsule(center_a: (-0.5, 0.1), center_b: (0.6, 0.0), radius: 0.2))]),
        (name: "compound", position: (0.0, 9.0), angle: 0.1, angular_velocity: 0.77, gravity_scale: 0.5, shapes: [
            (shape: Box(half_width: 0.8, half_height: 0.1, center: (0.3, 0.0))),
            (shape: Circle(radius: 0.25, center: (-0.7, 0.2)), density: 2.0),
            (shape: Capsule(center_a: (0.2, -0.5), center_b: (0.9, -0.4), radius: 0.1)),
            (shape: Polygon(vertices: [(0.0, 0.3), (0.4, 0.4), (0.3, 0.8), (-0.1, 0.7), (-0.2, 0.5)]), density: 0.5),
        ]),
        (name: "mover", kind: Kinematic, position: (5.0, 2.0), linear_velocity: (-0.5, 0.1), angular_velocity: 0.4,
         shapes: [(shape: Box(half_width: 0.5, half_height: 0.5))]),
        (name: "sleeper", position: (-6.0, 1.0), awake: false,
         shapes: [(shape: Box(half_width: 0.5, half_height: 0.5))]),
        (name: "fixed_turn", position: (6.0, 6.0), fixed_rotation: true, linear_velocity: (0.0, 2.0),
         shapes: [(shape: Box(half_width: 0.5, half_height: 0.5))]),
    ],
    generators: [ Scatter(count: 12, seed: 5, min: (-4.0, 10.0), max: (4.0, 14.0), max_angle: 3.0,
                          shape: (shape: Box(half_width: 0.3, half_height: 0.2, center: (0.1, 0.05)))) ],
)
"#;

/// One joint of every kind, most with their options on (limits, motors, springs, ratios),
/// between bodies of MIXED that move and collide.
const MIXED_JOINTS: &[&str] = &[
    r#"(name: "pin", body_a: "ground", body_b: "box", kind: Revolute(anchor: (0.3, 3.5), softness: 0.0001, bias_factor: 0.3,
        enable_limit: true, lower_angle: -0.5, upper_angle: 0.5, enable_motor: true, motor_speed: 1.0, max_motor_torque: 20.0,
        reference_angle: 0.2, enable_spring: true, spring_hertz: 4.0, spring_damping_ratio: 0.3))"#,
    r#"(body_a: "box", body_b: "offset", kind: Prismatic(anchor: (-1.0, 3.5), axis: (1.0, 0.2), enable_limit: true,
        lower_translation: -1.0, upper_translation: 0.5, enable_motor: true, motor_speed: -0.5, max_motor_force: 30.0))"#,
    r#"(body_a: "ground", body_b: "wedge", kind: Wheel(anchor: (2.5, 5.3), axis: (0.0, 1.0), hertz: 3.0, damping_ratio: 0.4,
        enable_motor: true, motor_speed: 2.0, max_motor_torque: 5.0, enable_limit: true, lower_translation: -0.5, upper_translation: 0.5))"#,
    r#"(body_a: "wedge", body_b: "ball", collide_connected: true, kind: Weld(anchor: (0.0, 5.5), linear_hertz: 4.0, angular_hertz: 2.0,
        linear_damping_ratio: 0.5, angular_damping_ratio: 0.3))"#,
    r#"(body_a: "ball", body_b: "pill", kind: Angle(ratio: -2.0, enable_limit: true, lower_angle: 0.02, upper_angle: 0.05))"#,
    r#"(body_a: "pill", body_b: "compound", kind: Pulley(ground_anchor_a: (-3.0, 12.0), ground_anchor_b: (3.0, 12.0),
        anchor_a: (1.0, 7.0), anchor_b: (0.0, 9.0), ratio: 2.0))"#,
    r#"(body_a: "ground", body_b: "pill", kind: Distance(anchor_a: (1.0, 9.0), anchor_b: (1.0, 7.0), enable_spring: true,
        hertz: 2.0, damping_ratio: 0.1, enable_limit: true, min_length: 1.0, max_length: 2.5))"#,
    r##"(body_a: "box", body_b: "#15", kind: Distance(anchor_a: (0.3, 3.0), anchor_b: (0.0, 12.0), length: 8.0))"##,
    r#"(body_a: "ground", body_b: "compound", kind: Motor(linear_offset: (0.5, 8.0), angular_offset: 0.3, max_force: 50.0,
        max_torque: 10.0, correction_factor: 0.2))"#,
    r#"(body_a: "ground", body_b: "fixed_turn", kind: Friction(anchor: (6.0, 6.0), max_force: 1.0, max_torque: 0.5))"#,
    r#"(name: "hand", body_a: "ground", body_b: "ball", kind: Mouse(target: (-1.0, 6.0), hertz: 3.0, damping_ratio: 0.5, max_force: 40.0))"#,
    r##"(body_a: "#7", body_b: "#12", kind: Revolute(anchor: (5.0, 2.5)))"##,
];

/// MIXED plus every joint of `MIXED_JOINTS`.
fn mixed_with_joints() -> String {
    MIXED.replacen(
        "generators:",
        &format!("joints: [{}],\n    generators:", MIXED_JOINTS.join(",\n")),
        1,
    )
}

fn meta() -> SceneMeta {
    SceneMeta {
        name: "Mixed".into(),
        category: "Test".into(),
        description: "Every shape kind in motion.".into(),
        ..Default::default()
    }
}

fn step_n(world: &mut World, n: usize) {
    let dt = world.settings().dt();
    for _ in 0..n {
        world.step(dt);
    }
}

/// Step both worlds `n` times, one step at a time, asserting equal state hashes after each
/// step and `also(original, restored)` after each.
fn assert_steps_in_lockstep(
    original: &mut World,
    restored: &mut World,
    n: usize,
    also: impl Fn(&World, &World),
) {
    for k in 0..n {
        step_n(original, 1);
        step_n(restored, 1);
        assert_eq!(
            restored.state_hash(),
            original.state_hash(),
            "diverged {k} steps after the export"
        );
        also(original, restored);
    }
}

#[test]
fn export_then_load_is_bitwise_equal_mid_motion_and_continues_identically() {
    let classic = mixed_with_joints();
    let soft = classic.replacen(
        "settings: (iterations: 8,",
        "settings: (solver: SoftStep, substeps: 2, iterations: 4,",
        1,
    );
    assert_ne!(soft, classic);
    for text in [classic, soft] {
        export_continues_bit_for_bit(&text);
    }
}

/// N steps, export, load, M steps equals N + M steps, state hash compared after every step.
fn export_continues_bit_for_bit(text: &str) {
    let n = 37;
    let m = 45;
    let mut original = scene::load_str(text, "mixed.ron").unwrap().world;
    assert_eq!(original.joint_count(), MIXED_JOINTS.len());
    let mut kinds: Vec<&str> = original
        .joints()
        .map(|(_, j)| j.kind().type_name())
        .collect();
    kinds.sort();
    kinds.dedup();
    assert_eq!(kinds.len(), 10, "every joint type: {kinds:?}");
    step_n(&mut original, n);
    assert!(original.body_by_name("sleeper").is_some());
    assert!(original.contact_count() > 0, "contacts too");
    // Mid-motion: joints carry impulses.
    for (_, j) in original.joints() {
        let load = j.reaction_force(60.0).length() + j.reaction_torque(60.0).abs();
        assert!(
            load > 0.0,
            "{} joint carries no impulse: {:?}",
            j.kind().type_name(),
            j.state()
        );
    }
    let exported = export::export_world(&original, &meta()).unwrap();
    let mut restored = scene::load_str(&exported, "export.ron")
        .unwrap_or_else(|e| panic!("{e}\n{exported}"))
        .world;
    assert_eq!(
        restored.state_hash(),
        original.state_hash(),
        "right after loading"
    );
    assert_eq!(restored.step_count(), original.step_count());
    assert_eq!(restored.time().to_bits(), original.time().to_bits());
    // The state section is what makes it exact: without it the centres of mass of the
    // offset shapes lose bits and the test above would fail.
    let mut plain = export::scene_file(&original, &meta());
    plain.state = None;
    let plain = scene::build::build(&plain, "plain.ron").unwrap().world;
    assert_ne!(
        plain.state_hash(),
        original.state_hash(),
        "the test has teeth"
    );
    // Re-exporting the restored world gives the same text.
    assert_eq!(export::export_world(&restored, &meta()).unwrap(), exported);
    assert_steps_in_lockstep(&mut original, &mut restored, m, |_, _| {});
}

/// A soft-step world exported while balls fly at a wall: their reaches (boxes swept along
/// the motion, what they pair with static shapes by) are not their proxy boxes, travel in
/// `reach_boxes`, and the loaded world continues bit for bit as the balls reach the wall.
#[test]
fn export_keeps_the_reach_of_fast_shapes() {
    use impulse::physics::{
        BodyDef, Circle, Geometry, Polygon, ShapeDef, SolverKind, SolverSettings,
    };
    let mut original = World::new(SolverSettings {
        solver: SolverKind::SoftStep,
        gravity: Vec2::ZERO,
        sleep: false,
        ..SolverSettings::default()
    });
    let wall = original
        .create_body(&BodyDef::fixed(Vec2::new(10.0, 0.0)))
        .unwrap();
    let slab = Geometry::Polygon(Polygon::new_box(0.1, 5.0).unwrap());
    original.create_shape(wall, &ShapeDef::new(slab)).unwrap();
    for k in 0..4 {
        let def = BodyDef::dynamic(Vec2::new(0.3 * k as f32, 1.2 * k as f32 - 2.0))
            .linear_velocity(Vec2::new(20.0 + 3.0 * k as f32, 0.0));
        let ball = original.create_body(&def).unwrap();
        let disc = Geometry::Circle(Circle::new(Vec2::ZERO, 0.25).unwrap());
        original.create_shape(ball, &ShapeDef::new(disc)).unwrap();
    }
    step_n(&mut original, 15);
    let exported = export::export_world(&original, &meta()).unwrap();
    assert!(exported.contains("reach_boxes"), "no reach written");
    let mut restored = scene::load_str(&exported, "export.ron").unwrap().world;
    assert_eq!(restored.state_hash(), original.state_hash());
    assert_eq!(export::export_world(&restored, &meta()).unwrap(), exported);
    // Without the reaches, the loaded world is not the one exported.
    let mut file = export::scene_file(&original, &meta());
    for body in &mut file.state.as_mut().unwrap().bodies {
        body.reach_boxes.clear();
    }
    let lost = scene::build::build(&file, "lost.ron").unwrap().world;
    assert_ne!(export::export_world(&lost, &meta()).unwrap(), exported);
    // A wrong count or an inverted box is refused, and says where.
    fn ball_state(file: &mut SceneFile) -> &mut impulse::scene::format::BodyStateFile {
        &mut file.state.as_mut().unwrap().bodies[1]
    }
    let mut file = export::scene_file(&original, &meta());
    let extra = ball_state(&mut file).reach_boxes[0];
    ball_state(&mut file).reach_boxes.push(extra);
    let refused = |file: &SceneFile, name: &str| match scene::build::build(file, name) {
        Ok(_) => panic!("{name} loaded"),
        Err(e) => e.to_string(),
    };
    let err = refused(&file, "extra.ron");
    assert!(err.contains("reach_boxes: 2 boxes for 1 shapes"), "{err}");
    let mut file = export::scene_file(&original, &meta());
    let (min, max) = ball_state(&mut file).reach_boxes[0];
    ball_state(&mut file).reach_boxes[0] = (max, min);
    let err = refused(&file, "inverted.ron");
    assert!(
        err.contains("reach_boxes[0]: min must be below max"),
        "{err}"
    );
    let wall_pairs = |w: &World| w.contacts().count();
    assert_steps_in_lockstep(&mut original, &mut restored, 40, |original, restored| {
        assert_eq!(wall_pairs(restored), wall_pairs(original));
    });
    let balls = original
        .bodies()
        .filter(|(_, b)| b.kind() == BodyKind::Dynamic);
    for (_, ball) in balls {
        // The wall's face is at x = 9.9.
        let x = ball.position().x;
        assert!(
            x < 9.9 - 0.25 + 0.01,
            "a ball passed the wall's face: x = {x}"
        );
    }
}

#[test]
fn n_plus_m_steps_equal_n_steps_exported_then_m_steps_for_library_scenes() {
    let dir = scenes_dir();
    for file in [
        "shapes/compound_bodies.ron",
        "shapes/polygons.ron",
        "stacking/card_house.ron",
        "box2d_lite/pyramid_stacking.ron",
        // Joints: their local frames, references and impulses travel in the state section.
        "box2d_lite/suspension_bridge.ron",
        "box2d_lite/dominos.ron",
        "stacking/ball_and_chain.ron",
        "joints/revolute.ron",
        "joints/prismatic.ron",
        "joints/wheel_car.ron",
        "joints/weld_cantilever.ron",
        "joints/angle.ron",
        "joints/pulley.ron",
        "joints/distance.ron",
        "joints/motor_joint.ron",
        "joints/friction.ron",
    ] {
        let text = read(&dir.join(file));
        let mut straight = scene::load_str(&text, file).unwrap().world;
        step_n(&mut straight, 50);
        let mut first = scene::load_str(&text, file).unwrap().world;
        step_n(&mut first, 20);
        let exported = export::export_world(&first, &meta()).unwrap();
        let mut second = scene::load_str(&exported, file).unwrap().world;
        step_n(&mut second, 30);
        assert_eq!(second.state_hash(), straight.state_hash(), "{file}");
    }
}

/// Load a library scene and step it `seconds`.
fn run_scene(file: &str, seconds: f32) -> World {
    let text = read(&scenes_dir().join(file));
    let mut world = scene::load_str(&text, file)
        .unwrap_or_else(|e| panic!("{e}"))
        .world;
    let dt = world.settings().dt();
    step_n(&mut world, (seconds / dt).round() as usize);
    world
}

fn body<'a>(world: &'a World, name: &str) -> &'a impulse::physics::Body {
    world.body(world.body_by_name(name).unwrap()).unwrap()
}

fn joint<'a>(world: &'a World, name: &str) -> &'a impulse::physics::Joint {
    world.joint(world.joint_by_name(name).unwrap()).unwrap()
}

#[test]
fn joint_scenes_do_what_their_descriptions_say() {
    use std::f32::consts::{FRAC_PI_4, FRAC_PI_6};
    // Revolute: the motor turns the paddle at 1 rad/s; the arm rests at its lower limit.
    let w = run_scene("joints/revolute.ron", 10.0);
    let paddle = body(&w, "paddle").angle();
    assert!(
        (paddle - 10.0).abs() < 0.05,
        "paddle turned {paddle} rad in 10 s"
    );
    let arm = body(&w, "arm").angle();
    assert!((arm + FRAC_PI_4).abs() < 0.02, "arm at {arm}, limit -pi/4");
    // Prismatic: the elevator stops at its upper limit, 5 m up; the block at -2 m.
    let w = run_scene("joints/prismatic.ron", 10.0);
    let y = body(&w, "platform").position().y;
    assert!((y - 6.0).abs() < 0.02, "platform at {y}");
    let JointKind::Prismatic(p) = joint(&w, "slider").kind() else {
        panic!()
    };
    let t = p.translation(body(&w, "ground"), body(&w, "block"));
    assert!((t + 2.0).abs() < 0.02, "slider at {t}");
    // Wheel: the motor drives the car over the bumps.
    let w = run_scene("joints/wheel_car.ron", 5.0);
    let x = body(&w, "chassis").position().x;
    assert!(x > 10.0, "the car got only to x = {x}");
    // Weld: both beams stand out from the wall.
    let w = run_scene("joints/weld_cantilever.ron", 5.0);
    let (rigid, soft) = (body(&w, "r7").position().y, body(&w, "s7").position().y);
    assert!(rigid > 4.5, "rigid tip at {rigid} (from 6)");
    assert!(soft > 1.0, "soft tip at {soft} (from 3)");
    // Angle: the gear keeps angle_small = -2 angle_big; the slack limit holds 30 degrees.
    let w = run_scene("joints/angle.ron", 5.0);
    let (big, small) = (body(&w, "big").angle(), body(&w, "small").angle());
    assert!((small + 2.0 * big).abs() < 0.01, "{small} vs -2 x {big}");
    let lag = body(&w, "spinner").angle() - body(&w, "follower").angle();
    assert!(lag.abs() < FRAC_PI_6 + 0.02, "follower lags {lag} rad");
    // Pulley: both keep length_a + ratio length_b.
    let w = run_scene("joints/pulley.ron", 2.0);
    for (name, a, b) in [
        ("ratio_1", "heavy", "light"),
        ("block_and_tackle", "load_a", "load_b"),
    ] {
        let JointKind::Pulley(p) = joint(&w, name).kind() else {
            panic!()
        };
        let (la, lb) = p.current_lengths(body(&w, a), body(&w, b));
        let total = la + p.ratio() * lb;
        assert!(
            (total - p.constant()).abs() < 0.02,
            "{name}: {total} vs {}",
            p.constant()
        );
    }
    assert!(body(&w, "heavy").position().y < 4.0 && body(&w, "light").position().y > 6.0);
    // Distance: rod at 3 m, rope at most 3 m, spring within 1.5..4 m.
    let w = run_scene("joints/distance.ron", 3.0);
    let ground = body(&w, "ground");
    let length = |j: &str, b: &str| {
        let JointKind::Distance(d) = joint(&w, j).kind() else {
            panic!()
        };
        d.current_length(ground, body(&w, b))
    };
    let rod = length("rod", "rod_bob");
    assert!((rod - 3.0).abs() < 0.02, "rod {rod}");
    assert!(length("rope", "rope_bob") < 3.02);
    let spring = length("spring", "spring_bob");
    assert!((1.48..4.02).contains(&spring), "spring {spring}");
    // Motor joint: the pusher follows the point 4 m along the turning arm.
    let w = run_scene("joints/motor_joint.ron", 5.0);
    let target = body(&w, "arm").world_point(Vec2::new(4.0, 0.0));
    let off = (body(&w, "pusher").position() - target).length();
    assert!(off < 1.0, "the pusher is {off} m from its target");
    // Friction: the free box slides on, the others stop, the stronger the sooner.
    let w = run_scene("joints/friction.ron", 2.8);
    assert!(body(&w, "free").linear_velocity().length() > 1.0);
    let mut travelled = Vec::new();
    for name in ["light", "medium", "heavy"] {
        let b = body(&w, name);
        assert!(b.linear_velocity().length() < 0.01, "{name} still slides");
        travelled.push(b.position().x + 7.0);
    }
    assert!(
        travelled[0] > travelled[1] && travelled[1] > travelled[2],
        "{travelled:?}"
    );
}

#[test]
fn saved_contacts_round_trip_with_ids_and_impulses() {
    // The narrow phase may give no points on some builds: put impulses on the saved contacts
    // by hand and check loading keeps them, in order.
    let text = MIXED;
    let mut world = scene::load_str(text, "mixed.ron").unwrap().world;
    step_n(&mut world, 3);
    let mut file = export::scene_file(&world, &meta());
    let state = file.state.as_mut().unwrap();
    assert!(
        !state.contacts.is_empty(),
        "the mixed scene has overlapping boxes"
    );
    for (i, c) in state.contacts.iter_mut().enumerate() {
        c.normal = Vec2::new(0.6, 0.8);
        c.points = vec![impulse::scene::format::ManifoldPointFile {
            point: Vec2::new(i as f32, 0.5),
            separation: -0.01,
            id: 0x0102 + i as u32,
            normal_impulse: 1.5 + i as f32,
            tangent_impulse: -0.25,
            max_normal_impulse: 2.0,
            persisted: true,
        }];
    }
    let text = export::to_text(&file).unwrap();
    let restored = scene::load_str(&text, "contacts.ron").unwrap().world;
    assert_eq!(restored.contact_count(), world.contact_count());
    for (i, (c, before)) in restored.contacts().zip(world.contacts()).enumerate() {
        let p = c.manifold().points();
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].id, p[0].normal_impulse),
            (0x0102 + i as u16, 1.5 + i as f32)
        );
        assert_eq!(c.shape_a(), before.shape_a());
        assert_eq!(c.shape_b(), before.shape_b());
    }
    assert_eq!(export::scene_file(&restored, &meta()), file);
    // A feature id past sixteen bits (none the narrow phase makes) is refused by name.
    let state = file.state.as_mut().unwrap();
    state.contacts[0].points[0].id = 0x1_0000;
    let text = export::to_text(&file).unwrap();
    match scene::load_str(&text, "contacts.ron") {
        Ok(_) => panic!("a feature id of 65536 loaded"),
        Err(e) => {
            let e = e.to_string();
            assert!(e.contains("points[0].id") && e.contains("65536"), "{e}");
        }
    }
}

/// `files::write_atomic` is the testbed's (its temporary files come from `tempfile`).
#[cfg(feature = "testbed")]
#[test]
fn export_writes_through_a_temporary_file() {
    let dir = std::env::temp_dir().join(format!("impulse_export_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("out.ron");
    let world = scene::load_str(MIXED, "mixed.ron").unwrap().world;
    let text = export::export_world(&world, &meta()).unwrap();
    export::write_atomic(&path, &text).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

// ------------------------------------------------------------------------------------------
// Loading details.

#[test]
fn defaults_and_optional_fields_read_naturally() {
    let s = scene::load_str(
        r#"Scene(bodies: [(name: "a", shapes: [(shape: Circle(radius: 1))])])"#,
        "tiny.ron",
    )
    .unwrap();
    let a = s.world.body(s.world.body_by_name("a").unwrap()).unwrap();
    assert_eq!(a.kind(), BodyKind::Dynamic);
    assert!((a.mass() - std::f32::consts::PI).abs() < 1e-5);
    assert_eq!(
        s.world.settings(),
        &impulse::physics::SolverSettings::default()
    );
    // Counter-clockwise polygons keep their vertex order; clockwise ones are reordered.
    let s = scene::load_str(
        r#"Scene(bodies: [
            (name: "ccw", shapes: [(shape: Polygon(vertices: [(1, 0), (1, 1), (0, 1), (0, 0)]))]),
            (name: "cw", shapes: [(shape: Polygon(vertices: [(0, 0), (0, 1), (1, 1), (1, 0)]))]),
        ])"#,
        "order.ron",
    )
    .unwrap();
    let first = |name: &str| {
        let b = s.world.body(s.world.body_by_name(name).unwrap()).unwrap();
        match s.world.shape(b.shapes()[0]).unwrap().geometry() {
            impulse::physics::Geometry::Polygon(p) => p.vertices()[0],
            _ => unreachable!(),
        }
    };
    assert_eq!(first("ccw"), Vec2::new(1.0, 0.0));
    assert_eq!(first("cw"), Vec2::new(0.0, 0.0));
}

#[test]
fn every_setting_can_be_written_and_overridden_by_key() {
    use impulse::scene::SettingsFile;
    let file = scene::parse(
        r#"Scene(settings: (solver: SoftStep, iterations: 4, substeps: 4, accumulate_impulses: false,
            warm_starting: false, position_correction: false, bias_factor: 0.1, allowed_penetration: 0.02,
            block_solver: false, restitution_threshold: 2.0, gravity: (0, -9.8), step_hz: 120, sleep: false,
            time_to_sleep: 1.0, linear_sleep_tolerance: 0.1, angular_sleep_tolerance: 0.1, contact_hertz: 20,
            contact_damping_ratio: 5, contact_push_max_velocity: 2, joint_hertz: 30, joint_damping_ratio: 1,
            relax_iterations: 7, position_iterations: 5, jacobi_relaxation: 0.8, xpbd_compliance: 0.001))"#,
        "settings.ron",
    )
    .unwrap();
    let defaults = SettingsFile::default();
    for key in SettingsFile::KEYS {
        let mut s = defaults;
        assert!(s.copy_field(&file.settings, key), "{key}");
        assert_ne!(s, defaults, "{key} was not read from the file");
    }
    assert_eq!(SettingsFile::KEYS.len(), 25);
}

// ------------------------------------------------------------------------------------------
// The bad-scene corpus: each file, the errors it must give (every one, in order), as
// (location, words of the message).

fn bad_scene_expectations() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    vec![
        ("malformed.ron", vec![("malformed.ron:6:", "")]),
        (
            "unknown_field.ron",
            vec![("unknown_field.ron:5:", "unknown field `positon`")],
        ),
        (
            "unknown_shape.ron",
            vec![("unknown_shape.ron:4:", "unknown shape `Triangle`")],
        ),
        (
            "unknown_joint_kind.ron",
            vec![("unknown_joint_kind.ron:8:", "unknown joint kind `Hinge`")],
        ),
        (
            "missing_body.ron",
            vec![(r#"joint "pin""#, r#"body_b "bobb" does not exist"#)],
        ),
        (
            "duplicate_name.ron",
            vec![(r#"body "box" #1"#, "duplicate name")],
        ),
        (
            "self_joint.ron",
            vec![(r#"joint "loop""#, "a joint joins two different bodies")],
        ),
        (
            "nan_and_inf.ron",
            vec![
                (r#"body "a""#, "position must be finite"),
                (r#"body "b""#, "angular_velocity must be a finite number"),
            ],
        ),
        (
            "bad_sizes.ron",
            vec![
                (
                    r#"body "flat""#,
                    "shape 0: Box.half_height must be a finite number above zero",
                ),
                (
                    r#"body "ghost""#,
                    "shape 0: Circle.radius must be a finite number above zero",
                ),
                (
                    r#"body "light""#,
                    "shape 0: density must be a finite number above zero",
                ),
                (r#"body "neg""#, "shape 0: density must be zero or more"),
            ],
        ),
        (
            "self_joint_by_index.ron",
            vec![
                (
                    r#"joint "loop""#,
                    r##"body_a "#1" and body_b "wheel" are the same body"##,
                ),
                (
                    r#"joint "far""#,
                    r##"body_b "#7" does not exist; by creation index the file has bodies #0 to #1"##,
                ),
            ],
        ),
        (
            "bad_joint_options.ron",
            vec![
                (
                    r#"joint "elbow""#,
                    "bias_factor: must be between 0 and 1, got 1.5",
                ),
                (
                    r#"joint "elbow""#,
                    "lower_angle: must not exceed upper_angle (0.5), got 1",
                ),
                (
                    r#"joint "glue""#,
                    "linear_hertz: must be zero or more, got -2",
                ),
                (
                    r#"joint "slide""#,
                    "axis: must be a direction (non-zero length), got (0, 0)",
                ),
                (
                    r#"joint "rope""#,
                    "min_length: must not exceed max_length (1), got 3",
                ),
                (r#"joint "lift""#, "ratio: must be greater than zero, got 0"),
                (r#"joint "drag""#, "hertz: must be greater than zero, got 0"),
            ],
        ),
        (
            "bad_chain_joint.ron",
            vec![
                (
                    "generator #0 (Chain)",
                    "joint.softness: must be zero or more, got -0.1",
                ),
                (
                    "generator #0 (Chain)",
                    "joint.max_motor_torque: must be zero or more, got -5",
                ),
            ],
        ),
        (
            "bad_revolute_spring.ron",
            vec![
                (
                    r#"joint "shoulder""#,
                    "reference_angle: must be between -1e7 and 1e7 rad",
                ),
                (
                    r#"joint "shoulder""#,
                    "spring_hertz: must be zero or more, got -5",
                ),
                (
                    r#"joint "shoulder""#,
                    "spring_damping_ratio: must be zero or more, got -0.5",
                ),
            ],
        ),
        ("non_convex.ron", vec![(r#"body "star""#, "not convex")]),
        (
            "degenerate_polygon.ron",
            vec![(r#"body "line""#, "degenerate polygon")],
        ),
        (
            "too_many_vertices.ron",
            vec![(r#"body "round""#, "too many vertices: 9 given")],
        ),
        (
            "no_mass.ron",
            vec![(r#"body "empty""#, "a dynamic body needs mass")],
        ),
        (
            "many_errors.ron",
            vec![
                ("settings", "iterations"),
                ("settings", "bias_factor"),
                (r#"body "a" #2"#, "duplicate name"),
                (r#"body "a": shape 0"#, "Box.half_width"),
                (r#"body "a": shape 0"#, "friction must be zero or more"),
                (r#"body "a" #2"#, "a dynamic body needs mass"),
                ("generator #0 (Pyramid)", "half_size"),
            ],
        ),
    ]
}

fn bad_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_scenes")
}

#[test]
fn every_bad_scene_gives_its_specific_errors() {
    let expectations = bad_scene_expectations();
    let mut files: Vec<String> = std::fs::read_dir(bad_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ron"))
        .collect();
    files.sort();
    let mut listed: Vec<String> = expectations.iter().map(|(f, _)| f.to_string()).collect();
    listed.sort();
    assert_eq!(
        files, listed,
        "tests/bad_scenes and the expectations differ"
    );
    for (file, expected) in expectations {
        let text = read(&bad_dir().join(file));
        let errors = match scene::load_str(&text, file) {
            Ok(_) => panic!("{file} loaded"),
            Err(e) => e,
        };
        let lines: Vec<String> = errors.iter().map(SceneError::to_string).collect();
        assert_eq!(
            lines.len(),
            expected.len(),
            "{file}: expected {} errors, got:\n{}",
            expected.len(),
            lines.join("\n")
        );
        for (line, (place, words)) in lines.iter().zip(&expected) {
            assert!(
                line.starts_with(file) && line.contains(place) && line.contains(words),
                "{file}: expected `{place}` and `{words}` in\n{line}"
            );
        }
        // Syntax errors carry a line and a column.
        if let SceneError::Syntax { line, col, .. } = &errors.0[0] {
            assert!(*line > 0 && *col > 0);
        }
    }
}
