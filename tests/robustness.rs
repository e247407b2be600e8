//! Regression tests for what issue 15 and the fuzzing harness (`tests/fuzz.rs`) found: one
//! test per failure class, named after what broke, with why in a comment.

use std::time::{Duration, Instant};

use impulse::physics::collision::dynamic_tree::DynamicTree;
use impulse::physics::joint::{DistanceJointDef, PrismaticJointDef, RevoluteJointDef};
use impulse::physics::limits;
use impulse::physics::*;
use impulse::scene::export::{export_world, SceneMeta};
use impulse::scene::format::JointStateFile;
use impulse::scene::{self, SceneErrors};

fn load(text: &str) -> Result<scene::Scene, SceneErrors> {
    scene::load_str(text, "test.ron")
}

/// The errors of a scene that must be refused, one per line.
fn refused(text: &str) -> String {
    match load(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

fn meta() -> SceneMeta {
    SceneMeta {
        name: "t".into(),
        category: "T".into(),
        ..SceneMeta::default()
    }
}

fn export_loads(world: &World) -> scene::Scene {
    let text = export_world(world, &meta()).expect("export");
    load(&text).unwrap_or_else(|e| panic!("the export does not load: {e}\n{text}"))
}

/// A world with a fixed body at the origin and a dynamic 0.5 m ball at `(x, 0)`.
fn fixed_and_ball(x: f32) -> (World, BodyHandle, BodyHandle) {
    let mut world = World::new(SolverSettings::default());
    let a = world.create_body(&BodyDef::fixed(Vec2::ZERO)).unwrap();
    let b = world
        .create_body(&BodyDef::dynamic(Vec2::new(x, 0.0)))
        .unwrap();
    world
        .create_shape(
            b,
            &ShapeDef::new(Geometry::Circle(Circle::new(Vec2::ZERO, 0.5).unwrap())),
        )
        .unwrap();
    (world, a, b)
}

fn one_body(body: &str) -> String {
    format!("Scene(bodies: [{body}])")
}

/// Coordinates near 1e38 were accepted by `check` and panicked the dynamic tree
/// (`dynamic_tree.rs:685`, a null node index: every surface-area cost overflowed to
/// infinity, so no sibling was ever chosen). Now such coordinates are refused at input, with
/// the field, the value and the range, and the tree survives such boxes anyway.
#[test]
fn coordinates_near_f32_max_are_refused_and_do_not_panic_the_tree() {
    let errors = refused(&one_body(
        "(position: (1e38, 0.0), shapes: [(shape: Circle(radius: 0.5))])",
    ));
    assert!(errors.contains("position"), "{errors}");
    assert!(errors.contains("between -1e6 and 1e6 m"), "{errors}");
    assert!(errors.contains("1e38"), "{errors}");

    let mut tree = DynamicTree::new();
    let boxes = [
        Aabb::new(Vec2::new(-1.0, -1.0), Vec2::new(1.0, 1.0)),
        Aabb::new(Vec2::new(1e38, 1e38), Vec2::new(3e38, 3e38)),
        Aabb::new(Vec2::new(-3e38, -3e38), Vec2::new(-1e38, 3e38)),
        Aabb::new(Vec2::splat(f32::NEG_INFINITY), Vec2::splat(f32::INFINITY)),
        Aabb::new(Vec2::new(2.0, 2.0), Vec2::new(3.0, 3.0)),
        Aabb::new(Vec2::splat(-f32::MAX), Vec2::splat(f32::MAX)),
        Aabb::new(Vec2::new(5.0, 5.0), Vec2::new(6.0, 6.0)),
    ];
    for (i, b) in boxes.iter().enumerate() {
        tree.create_proxy(*b, i as u32);
    }
    tree.validate();
    assert_eq!(tree.proxy_count(), boxes.len());
}

/// Restitution of a few hundred was accepted and pumped velocities until the broad-phase
/// boxes were infinite (then the tree panicked). Restitution is 0 to 1.
#[test]
fn restitution_above_one_is_refused() {
    let errors = refused(&one_body(
        "(shapes: [(shape: Circle(radius: 0.5), restitution: 500.0)])",
    ));
    assert!(
        errors.contains("restitution must be between 0 and 1"),
        "{errors}"
    );
    let def =
        ShapeDef::new(Geometry::Circle(Circle::new(Vec2::ZERO, 0.5).unwrap())).restitution(1.5);
    assert_eq!(def.validate().unwrap_err().field, "restitution");
}

/// Friction 1e20 made `sqrt(f_a f_b)` infinite and `inf * 0` NaN in the classic solver's
/// friction clamp (a panic: `clamp` with min > max). Friction is 0 to 100.
#[test]
fn friction_1e20_is_refused() {
    let errors = refused(&one_body(
        "(shapes: [(shape: Circle(radius: 0.5), friction: 1e20)])",
    ));
    assert!(
        errors.contains("friction must be between 0 and 100"),
        "{errors}"
    );
}

/// A world mid-motion with contacts, exported.
fn export_with_contacts() -> String {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenes/box2d_lite/pyramid_stacking.ron"),
    )
    .expect("library scene");
    let mut s = load(&text).expect("library scene loads");
    for _ in 0..30 {
        s.world.step(s.world.settings().dt());
    }
    assert!(s.world.contact_count() > 0);
    export_world(&s.world, &meta()).expect("export")
}

/// A `state` section with a slightly negative `normal_impulse` was accepted and panicked
/// the classic solver's friction clamp. The state section is checked as strictly as the
/// rest: impulse signs, unit normals, finite and in-range numbers.
#[test]
fn negative_normal_impulse_in_the_state_is_refused() {
    let text = export_with_contacts();
    assert!(load(&text).is_ok());
    let at = text.find("normal_impulse: ").expect("a contact point") + "normal_impulse: ".len();
    let end = at + text[at..].find(',').expect("a number");
    let bad = format!("{}-0.000001{}", &text[..at], &text[end..]);
    let errors = refused(&bad);
    assert!(
        errors.contains("normal_impulse must be between 0 and"),
        "{errors}"
    );

    // A normal that is not a unit vector.
    let at = text.find("normal: (").expect("a contact") + "normal: (".len();
    let end = at + text[at..].find(')').expect("a vector");
    let bad = format!("{}0.5, 0.5{}", &text[..at], &text[end..]);
    let errors = refused(&bad);
    assert!(errors.contains("normal must be a unit vector"), "{errors}");
}

/// A hand-built `Polygon` with `count` 9 panicked `Geometry::aabb` (a slice past the eight
/// vertices). Reading it never panics; the world refuses it.
#[test]
fn polygon_with_count_nine_does_not_panic() {
    let mut p = Polygon::new_box(0.5, 0.5).unwrap();
    p.count = 9;
    let g = Geometry::Polygon(p);
    let _ = g.aabb(&Transform::IDENTITY);
    let _ = g.mass_data(1.0);
    p.count = 0;
    let _ = Geometry::Polygon(p).aabb(&Transform::IDENTITY);
    let _ = Geometry::Polygon(p).mass_data(1.0);
    let mut world = World::new(SolverSettings::default());
    let b = world.create_body(&BodyDef::dynamic(Vec2::ZERO)).unwrap();
    p.count = 9;
    let err = world
        .create_shape(b, &ShapeDef::new(Geometry::Polygon(p)))
        .unwrap_err();
    assert_eq!(err.field, "polygon.vertices");
}

/// A 4 KB file of 100 generators aborted `check` with a failed 480 MB allocation: the
/// 200,000-body limit applied per generator. The scene's totals are counted first and the
/// generator that passes one is named, before anything is built.
#[test]
fn hundred_generators_are_refused_naming_the_generator() {
    let generators = vec!["Pyramid(base: 600, half_size: 0.5)"; 100].join(", ");
    let text = format!("Scene(generators: [{generators}])");
    let start = Instant::now();
    let errors = refused(&text);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert!(errors.contains("generator #1 (Pyramid)"), "{errors}");
    assert!(errors.contains("at most 200000 bodies"), "{errors}");
}

/// Numbers the engine cannot hold: each ended in NaN, frozen bodies or overflow. Each is now
/// refused with an error naming the field, the value and the documented range.
#[test]
fn extreme_numbers_are_refused_naming_field_value_and_range() {
    let cases: &[(&str, &str)] = &[
        // Density 1e38: the mass overflowed and the position became NaN.
        (
            "(shapes: [(shape: Circle(radius: 0.5), density: 1e38)])",
            "density must be between 0 and 1e5 kg/m^2",
        ),
        // A pendulum bob at 1e37 m/s kept a NaN joint impulse for ever.
        (
            "(linear_velocity: (1e37, 0.0), shapes: [(shape: Circle(radius: 0.5))])",
            "linear_velocity: each component must be between -1e4 and 1e4 m/s",
        ),
        // 1e-9 m circles: inertia underflowed.
        (
            "(shapes: [(shape: Circle(radius: 1e-9))])",
            "Circle.radius must be between 0.005 and 1000 m",
        ),
        (
            "(shapes: [(shape: Box(half_width: 0.0025, half_height: 0.5))])",
            "Box.half_width must be between 0.005 and 1000 m",
        ),
        (
            "(angle: 1e30, shapes: [(shape: Circle(radius: 0.5))])",
            "angle must be between -1e7 and 1e7 rad",
        ),
        (
            "(shapes: [(shape: Circle(radius: 0.5), density: 1e-9)])",
            "density must be 0 (no mass) or at least 0.001 kg/m^2",
        ),
    ];
    for (body, expected) in cases {
        let errors = refused(&one_body(body));
        assert!(errors.contains(expected), "{body}: {errors}");
    }
    let settings: &[(&str, &str)] = &[
        // step_hz 1e-38 and 1: NaN and frozen bodies.
        ("step_hz: 1e-38", "step_hz: must be between 10 and 1e4 Hz"),
        ("step_hz: 1.0", "step_hz: must be between 10 and 1e4 Hz"),
        // Gravity 1e6: NaN.
        (
            "gravity: (0.0, -1e6)",
            "gravity: each component must be between -1000 and 1000 m/s^2",
        ),
        (
            "contact_hertz: 1e30",
            "contact_hertz: must be between 0 and 1e4 Hz",
        ),
    ];
    for (setting, expected) in settings {
        let errors = refused(&format!("Scene(settings: ({setting}))"));
        assert!(errors.contains(expected), "{setting}: {errors}");
    }
    // Spring hertz 1e30: omega^2 overflowed.
    let errors = refused(
        "Scene(bodies: [(name: \"a\", kind: Static), (name: \"b\", shapes: [(shape: Circle(radius: 0.5))])],
               joints: [(body_a: \"a\", body_b: \"b\", kind: Distance(enable_spring: true, hertz: 1e30))])",
    );
    assert!(
        errors.contains("hertz: must be between 0 and 1e4 Hz"),
        "{errors}"
    );
    // The same ranges hold in the core, for API users.
    assert!(SolverSettings {
        step_hz: 1.0,
        ..SolverSettings::default()
    }
    .validate()
    .is_err());
    let d = DistanceJointDef {
        enable_spring: true,
        hertz: 1e30,
        ..DistanceJointDef::default()
    };
    assert_eq!(d.validate().unwrap_err().field, "hertz");
    let err = BodyDef::dynamic(Vec2::new(0.0, 2e6))
        .validate()
        .unwrap_err();
    assert_eq!(err.field, "position");
    assert!(err.message.contains("got (0, 2e6)"), "{}", err.message);
}

/// A soft-step weld 1 km long and a 1e30 Hz spring gave NaN; a prismatic axis of (1e30, 1)
/// normalised to (0, 0) and its export did not load. Axes are ranged before normalising.
#[test]
fn huge_axis_is_refused() {
    let def = PrismaticJointDef {
        axis: Vec2::new(1e30, 1.0),
        ..PrismaticJointDef::default()
    };
    assert_eq!(def.validate().unwrap_err().field, "axis");
}

/// `check` time grew with the square of the shapes on one body (30,000 shapes: 15 s): adding
/// a shape recomputed the body's mass from all its shapes. Loading adds them at once now
/// (linear; see `shapes_added_at_once_give_the_world_of_shapes_added_one_at_a_time`), and a
/// body holds at most `MAX_SHAPES_PER_BODY` (16,384) shapes, refused before any is built;
/// the limit itself loads.
#[test]
fn thirty_thousand_shapes_on_one_body_are_refused_quickly() {
    let shapes = |n: usize| {
        (0..n)
            .map(|i| {
                format!(
                    "(shape: Circle(radius: 0.1, center: ({}, {})))",
                    (i % 200) as f32 * 0.3,
                    (i / 200) as f32 * 0.3
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let start = Instant::now();
    let errors = refused(&one_body(&format!("(shapes: [{}])", shapes(30_000))));
    assert!(
        errors.contains("30000 shapes; a body has at most 16384"),
        "{errors}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    let start = Instant::now();
    let text = one_body(&format!(
        "(shapes: [{}])",
        shapes(limits::MAX_SHAPES_PER_BODY)
    ));
    load(&text).expect("the limit loads");
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}

/// A `Box` at the smallest accepted half size (then 0.0025) or with an aspect ratio above
/// 1e6 was exported as a polygon the loader refused. The smallest box, the thinnest, and
/// a small box far from the origin all export to something that loads; a box whose corners
/// would not make a polygon is refused at input.
#[test]
fn smallest_and_thinnest_boxes_export_and_load() {
    for (hw, hh, center, angle) in [
        (limits::MIN_SIZE, limits::MIN_SIZE, Vec2::ZERO, 0.0),
        (
            limits::MIN_SIZE,
            limits::MIN_SIZE,
            Vec2::new(0.3, -0.2),
            0.7,
        ),
        (50.0, 50.0 / limits::MAX_ASPECT_RATIO, Vec2::ZERO, 0.3),
        (
            limits::MIN_SIZE * limits::MAX_ASPECT_RATIO,
            limits::MIN_SIZE,
            Vec2::ZERO,
            1.1,
        ),
    ] {
        let text = one_body(&format!(
            "(kind: Static, position: (100.0, 7.0), shapes: [(shape: Box(half_width: {hw}, \
             half_height: {hh}, center: ({}, {}), angle: {angle}))])",
            center.x, center.y
        ));
        let s = load(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        export_loads(&s.world);
    }
    let errors = refused(&one_body(
        "(shapes: [(shape: Box(half_width: 500.0, half_height: 0.005))])",
    ));
    assert!(
        errors.contains("ratio must be at most 1e4") && errors.contains("got 1e5"),
        "{errors}"
    );
    // Far from the origin a tiny box's corners coincide in f32: refused, not exported broken.
    let r = Polygon::new_offset_box(0.005, 0.005, Vec2::new(9e5, 0.0), 0.0);
    assert!(r.is_err());
}

/// Parser messages gave parser advice ("try the raw identifier `r#0.5`", recursion-limit
/// hints) or internal type names (`ShapeFile`). They speak the file's words now.
#[test]
fn parser_messages_use_the_file_words() {
    let deep = format!("Scene(bodies: {}{})", "[".repeat(300), "]".repeat(300));
    for text in [
        "Scene(bodies: [(0.5: 1.0)])",
        "Scene(bodies: [(shapes: [shape(density: 1.0)])])",
        "Scene(bodies: [body(position: (0.0, 0.0))])",
        deep.as_str(),
    ] {
        let errors = refused(text);
        for word in ["r#", "recursion", "ShapeFile", "BodyFile", "ron::"] {
            assert!(!errors.contains(word), "{text}: {errors}");
        }
    }
}

/// The API allows a dynamic body without shapes (1 kg, Box2D's rule), a zero-density shape
/// on a dynamic body and two bodies with one name; their exports were refused by the loader.
/// What the engine accepts it writes and reads back.
#[test]
fn worlds_built_through_the_api_export_and_load() {
    let mut world = World::new(SolverSettings::default());
    let a = world
        .create_body(&BodyDef::dynamic(Vec2::ZERO).name("twin"))
        .unwrap();
    let b = world
        .create_body(&BodyDef::dynamic(Vec2::new(2.0, 0.0)).name("twin"))
        .unwrap();
    world
        .create_shape(
            b,
            &ShapeDef::new(Geometry::Circle(Circle::new(Vec2::ZERO, 0.5).unwrap())).density(0.0),
        )
        .unwrap();
    world
        .create_joint(&JointDef::new(
            a,
            b,
            RevoluteJointDef::new(Vec2::new(1.0, 0.0)),
        ))
        .unwrap();
    for _ in 0..10 {
        world.step(1.0 / 60.0);
    }
    let loaded = export_loads(&world);
    assert_eq!(loaded.world.state_hash(), world.state_hash());
    // A hand-written file is still told.
    let errors = refused(&one_body("(name: \"empty\")"));
    assert!(errors.contains("a dynamic body needs mass"), "{errors}");
}

/// The fuzzer's NaN: a distance joint with its limit on and no maximum (`f32::MAX` in the
/// core) overflowed the limit's bias to infinity. The unbounded maximum is the longest
/// length in range now, and the state stays finite.
#[test]
fn distance_limit_without_maximum_stays_finite() {
    let (mut world, a, b) = fixed_and_ball(3.0);
    let def = DistanceJointDef {
        anchor_a: Vec2::ZERO,
        anchor_b: Vec2::new(3.0, 0.0),
        enable_limit: true,
        min_length: 0.001,
        ..DistanceJointDef::default()
    };
    world.create_joint(&JointDef::new(a, b, def)).unwrap();
    for _ in 0..120 {
        world.step(1.0 / 60.0);
    }
    let p = world.body(b).unwrap().position();
    assert!(p.is_finite(), "{p:?}");
    // It swings as a rod of length 3 about the origin.
    assert!((p.length() - 3.0).abs() < 0.05, "{p:?}");
}

/// The long fuzz run was killed by the kernel at 23 GB: a generator scattered thousands of
/// bodies on top of each other, and every overlapping pair became a contact (the square of
/// the count). A scene that starts with more than `MAX_OVERLAPPING_PAIRS` overlapping pairs is
/// refused, quickly and in little memory.
#[test]
fn bodies_piled_on_each_other_are_refused_before_their_contacts_exhaust_memory() {
    let text = "Scene(generators: [Scatter(count: 20000, seed: 3, min: (-1.0, -1.0), \
                max: (1.0, 1.0), shape: (shape: Circle(radius: 0.5)))])";
    let start = Instant::now();
    let errors = refused(text);
    assert!(
        errors.contains("overlap in more than 250000 pairs"),
        "{errors}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    // The same count spread out loads.
    let text = "Scene(generators: [Scatter(count: 20000, seed: 3, min: (-500.0, -500.0), \
                max: (500.0, 500.0), shape: (shape: Circle(radius: 0.5)))])";
    load(text).expect("spread out, it loads");
}

/// The long fuzz run's NaN: a dynamic body with a circle of radius 9.5e5 m centred 1e5 m from
/// its origin, on a prismatic joint: contact and joint arms of 1e5 m and more overflow the
/// solver. Every point of a shape lies within `MAX_ARM` of its body's origin.
#[test]
fn shapes_reaching_far_from_their_body_are_refused() {
    let def = ShapeDef::new(Geometry::Circle(
        Circle::new(Vec2::new(-0.15, 1e5), 500.0).unwrap(),
    ));
    let err = def.validate().unwrap_err();
    assert!(err.message.contains("reaches"), "{err}");
    let errors = refused(&one_body(
        "(shapes: [(shape: Circle(radius: 0.5, center: (0.0, 2000.0)))])",
    ));
    assert!(errors.contains("within 1000 m"), "{errors}");
    let errors = refused(&one_body("(shapes: [(shape: Circle(radius: 9.5e5))])"));
    assert!(
        errors.contains("Circle.radius must be between 0.005 and 1000 m"),
        "{errors}"
    );
}

/// The long fuzz runs' NaN: joints whose anchors lie far from their bodies (a weld anchored
/// 500 m away in the welded-cantilever scene, a revolute chain link moved 1e6 m away) made
/// the solver's effective masses overflow. A joint's anchors lie within `MAX_JOINT_ARM` of
/// the bodies it joins.
#[test]
fn joint_anchors_far_from_their_bodies_are_refused() {
    let errors = refused(
        "Scene(bodies: [(name: \"a\", shapes: [(shape: Box(half_width: 0.5, half_height: 0.1))]),
                        (name: \"b\", position: (1.0, 0.0), shapes: [(shape: Box(half_width: 0.5, half_height: 0.1))])],
               joints: [(body_a: \"a\", body_b: \"b\", kind: Weld(anchor: (500.0, 6.0)))])",
    );
    assert!(errors.contains("anchor is 500"), "{errors}");
    assert!(errors.contains("within 50 m"), "{errors}");
    assert_eq!(limits::MAX_JOINT_ARM, 50.0);
}

/// Speeds above ~1.8e19 m/s overflowed `v . v` to infinity in `integrate_positions`, so the
/// cap's scale `MAX_TRANSLATION_SPEED / inf` was 0 and the body stopped dead instead of
/// moving at the 400 m/s cap. The cap is computed without overflow and keeps the direction.
#[test]
fn speeds_above_1e19_are_capped_not_zeroed() {
    let mut world = World::new(SolverSettings {
        gravity: Vec2::ZERO,
        ..SolverSettings::default()
    });
    let b = world.create_body(&BodyDef::dynamic(Vec2::ZERO)).unwrap();
    // The lightest body in range: a 5 mm circle of density 1e-3, so that impulses in range
    // reach 1e20 m/s (setters refuse speeds past 1e18).
    world
        .create_shape(
            b,
            &ShapeDef::new(Geometry::Circle(
                Circle::new(Vec2::ZERO, limits::MIN_SIZE).unwrap(),
            ))
            .density(limits::MIN_DENSITY),
        )
        .unwrap();
    let dir = Vec2::new(0.6, -0.8);
    while world.body(b).unwrap().linear_velocity().length() < 1e20 {
        world
            .apply_linear_impulse(b, 1e10 * dir, Vec2::ZERO)
            .unwrap();
    }
    world.step(1.0 / 60.0);
    let v = world.body(b).unwrap().linear_velocity();
    let cap = settings::MAX_TRANSLATION_SPEED;
    assert!((v.length() - cap).abs() <= 1e-3 * cap, "{v:?}");
    assert!((v / v.length() - dir).length() <= 1e-3, "{v:?}");
}

/// `World::create_joint` took anchors at any distance from the bodies (only the scene loader
/// checked them), so a joint made through the API could carry arms that overflow the solver
/// and an export that did not load. The core refuses anchors past `MAX_JOINT_ARM`, naming
/// the field, the distance and the limit, and does not panic.
#[test]
fn api_joint_anchors_far_from_their_bodies_are_refused() {
    let (mut world, a, b) = fixed_and_ball(1.0);
    let far = JointDef::new(a, b, RevoluteJointDef::new(Vec2::new(0.0, 60.0)));
    let err = world.create_joint(&far).unwrap_err();
    assert_eq!(err.field, "anchor", "{err}");
    assert!(err.message.contains("from body_a's origin"), "{err}");
    assert!(err.message.contains("within 50 m"), "{err}");
    assert_eq!(world.joint_count(), 0);
    let near = JointDef::new(a, b, RevoluteJointDef::new(Vec2::new(0.0, 40.0)));
    world.create_joint(&near).expect("40 m is within the limit");
    for _ in 0..10 {
        world.step(1.0 / 60.0);
    }
    assert!(world.body(b).unwrap().position().is_finite());
    export_loads(&world);
}

/// `World::apply_force` and `apply_torque` summed without bound across calls: each call is in
/// the ±1e12 range, but a million of them summed past it. The sums are held in the range, so
/// a million pushes of 1e12 N move a body as one does, and the state stays finite.
#[test]
fn forces_applied_a_million_times_stay_in_the_force_range() {
    let world_with = |calls: usize| {
        let mut world = World::new(SolverSettings {
            gravity: Vec2::ZERO,
            ..SolverSettings::default()
        });
        let b = world.create_body(&BodyDef::dynamic(Vec2::ZERO)).unwrap();
        // 100 m x 100 m at 1e5 kg/m^2: 1e9 kg, so that 1e12 N for one step stays under the
        // speed cap and the two worlds can be compared.
        world
            .create_shape(
                b,
                &ShapeDef::new(Geometry::Polygon(Polygon::new_box(50.0, 50.0).unwrap()))
                    .density(limits::DENSITY.max),
            )
            .unwrap();
        for _ in 0..calls {
            world
                .apply_force(b, Vec2::new(limits::FORCE.max, 0.0), Vec2::new(0.0, 1.0))
                .unwrap();
            world.apply_torque(b, limits::TORQUE.max).unwrap();
        }
        world.step(1.0 / 60.0);
        let body = world.body(b).unwrap();
        (
            body.linear_velocity(),
            body.angular_velocity(),
            body.position(),
        )
    };
    let (v, w, p) = world_with(1_000_000);
    assert!(
        v.is_finite() && w.is_finite() && p.is_finite(),
        "{v:?} {w} {p:?}"
    );
    assert_eq!((v, w, p), world_with(1));
    // 1e12 N on 1e9 kg for 1/60 s: 16.7 m/s.
    assert!((v.x - 1e3 / 60.0).abs() < 0.01, "{v:?}");
}

/// A light 1 cm box resting on the ground, exported with a contact's saved normal impulse
/// set to the top of the range (1e30 N s, accepted): warm starting it at the box's corner
/// turns the box at an infinite rate, and the contact solve makes its velocity NaN.
fn export_that_goes_non_finite() -> String {
    let mut world = World::new(SolverSettings::default());
    let ground = world.create_body(&BodyDef::fixed(Vec2::ZERO)).unwrap();
    let slab = Geometry::Polygon(Polygon::new_box(2.0, 0.5).unwrap());
    world.create_shape(ground, &ShapeDef::new(slab)).unwrap();
    let ball = world
        .create_body(&BodyDef::dynamic(Vec2::new(0.0, 0.505)).name("speck"))
        .unwrap();
    let speck = Geometry::Polygon(Polygon::new_box(limits::MIN_SIZE, limits::MIN_SIZE).unwrap());
    world
        .create_shape(
            ball,
            &ShapeDef {
                density: limits::MIN_DENSITY,
                ..ShapeDef::new(speck)
            },
        )
        .unwrap();
    for _ in 0..3 {
        world.step(1.0 / 60.0);
    }
    let text = export_world(&world, &meta()).expect("export");
    let at = text.find("normal_impulse: ").expect("a contact point") + "normal_impulse: ".len();
    let end = at + text[at..].find(',').expect("a number");
    format!("{}1e30{}", &text[..at], &text[end..])
}

/// A body whose state went non-finite in the step had its velocity silently zeroed (it
/// hung in mid-air, and a NaN joint impulse was warm-started forever). Now the step's
/// quarantine reports it (the stats name it) and freezes it at its pose before the step;
/// nothing non-finite stays in the world, and its export loads.
#[test]
fn non_finite_state_is_quarantined_and_reported_not_hidden() {
    let text = export_that_goes_non_finite();
    if let Ok(path) = std::env::var("IMPULSE_WRITE_QUARANTINE_SCENE") {
        std::fs::write(path, &text).unwrap();
    }
    let mut scene = load(&text).expect("in range: accepted");
    let speck = scene.world.body_by_name("speck").unwrap();
    let before = scene.world.body(speck).unwrap().center();
    scene.world.step(1.0 / 60.0);
    let stats = scene.world.stats().clone();
    assert!(stats.quarantined_bodies.contains(&speck), "{stats:?}");
    let b = scene.world.body(speck).unwrap();
    assert_eq!(b.kind(), BodyKind::Kinematic);
    assert_eq!(b.linear_velocity(), Vec2::ZERO);
    assert_eq!(b.center(), before);
    for _ in 0..10 {
        scene.world.step(1.0 / 60.0);
        assert_eq!(scene.world.stats().quarantined(), 0);
    }
    export_loads(&scene.world);
}

/// A dynamic body, moving and turning, with varied shapes at varied offsets (one of zero
/// density): the defs `World::create_shapes` and `create_shape` are given.
fn lump_shapes() -> Vec<ShapeDef> {
    let mut defs = Vec::new();
    for k in 0..24 {
        let at = Vec2::new((k % 5) as f32 * 0.7 - 1.3, (k / 5) as f32 * 0.45 - 0.9);
        let geometry = match k % 3 {
            0 => Geometry::Circle(Circle::new(at, 0.1 + 0.02 * k as f32).unwrap()),
            1 => Geometry::Polygon(Polygon::new_offset_box(0.2, 0.1, at, 0.1 * k as f32).unwrap()),
            _ => Geometry::Capsule(Capsule::new(at, at + Vec2::new(0.3, 0.1), 0.05).unwrap()),
        };
        let density = if k == 7 {
            0.0
        } else {
            0.5 + 0.25 * (k % 4) as f32
        };
        defs.push(ShapeDef::new(geometry).density(density));
    }
    defs
}

fn lump_world() -> (World, BodyHandle) {
    let mut world = World::new(SolverSettings::default());
    let ground = world
        .create_body(&BodyDef::fixed(Vec2::new(0.0, -3.0)))
        .unwrap();
    let slab = Geometry::Polygon(Polygon::new_box(20.0, 0.5).unwrap());
    world.create_shape(ground, &ShapeDef::new(slab)).unwrap();
    let lump = world
        .create_body(
            &BodyDef::dynamic(Vec2::new(0.5, 1.0))
                .angle(0.4)
                .linear_velocity(Vec2::new(1.0, 0.5))
                .angular_velocity(3.0),
        )
        .unwrap();
    (world, lump)
}

/// `check` time grew with the square of the shapes on one body (30,000 shapes: 15 s): each
/// added shape recomputed the body's mass from all of them. `World::create_shapes` (which
/// the scene loader uses) computes it once, in time linear in the shapes, and gives the same
/// world bit for bit as one `create_shape` at a time: mass, inertia, centre and the velocity
/// that follows each move of the centre, then every step after.
#[test]
fn shapes_added_at_once_give_the_world_of_shapes_added_one_at_a_time() {
    let defs = lump_shapes();
    let (mut one_by_one, a) = lump_world();
    for d in &defs {
        one_by_one.create_shape(a, d).unwrap();
    }
    let (mut at_once, b) = lump_world();
    // Some shapes first, the rest at once: the centre moves from where it was.
    for d in &defs[..3] {
        at_once.create_shape(b, d).unwrap();
    }
    assert_eq!(at_once.create_shapes(b, &defs[3..]).unwrap().len(), 21);
    let bits = |w: &World, h: BodyHandle| {
        let body = w.body(h).unwrap();
        [
            body.mass(),
            body.inertia(),
            body.local_center().x,
            body.local_center().y,
            body.center().x,
            body.center().y,
            body.linear_velocity().x,
            body.linear_velocity().y,
        ]
        .map(f32::to_bits)
    };
    assert_eq!(bits(&one_by_one, a), bits(&at_once, b));
    let mass: f32 = defs
        .iter()
        .map(|d| d.geometry.mass_data(d.density).mass)
        .sum();
    assert!((one_by_one.body(a).unwrap().mass() - mass).abs() < 1e-4 * mass);
    assert_eq!(one_by_one.state_hash(), at_once.state_hash());
    for _ in 0..60 {
        one_by_one.step(1.0 / 60.0);
        at_once.step(1.0 / 60.0);
    }
    assert_eq!(one_by_one.state_hash(), at_once.state_hash());

    // A refused definition: nothing is added, and its index is given.
    let (mut world, body) = lump_world();
    let mut bad = lump_shapes();
    bad[5].density = -1.0;
    let (index, _) = world.create_shapes(body, &bad).unwrap_err();
    assert_eq!(index, 5);
    assert!(world.body(body).unwrap().shapes().is_empty());
}

// ------------------------------------------------------------------------------------------
// One test named after each remaining failure class of issue 15 (the combined
// `extreme_numbers_are_refused_naming_field_value_and_range` checks the messages; these
// check that the engine, given the largest accepted value instead, stays finite).

/// Steps `world` and checks every body and joint number stays finite and the export loads.
fn steps_finite(world: &mut World, steps: usize) {
    for k in 0..steps {
        world.step(world.settings().dt());
        for (h, b) in world.bodies() {
            let s = BodyState::of(b);
            assert!(
                s.center.is_finite()
                    && s.angle.is_finite()
                    && s.linear_velocity.is_finite()
                    && s.angular_velocity.is_finite(),
                "step {k}: body {h:?} {s:?}"
            );
        }
        for (h, j) in world.joints() {
            let state = JointStateFile::from(&j.state());
            assert!(
                state.numbers().iter().all(|(_, x)| x.is_finite()),
                "step {k}: joint {h:?} {:?}",
                j.state()
            );
        }
    }
    export_loads(world);
}

/// Density 1e38 overflowed the mass and gave a NaN position. It is refused; the largest
/// density on the largest shape keeps the mass, the fall and the export finite.
#[test]
fn density_1e38_is_refused_and_the_densest_largest_body_stays_finite() {
    let errors = refused(&one_body(
        "(shapes: [(shape: Circle(radius: 0.5), density: 1e38)])",
    ));
    assert!(errors.contains("got 1e38"), "{errors}");
    let (mut world, _, ball) = fixed_and_ball(3.0);
    let big = Geometry::Circle(Circle::new(Vec2::ZERO, limits::SIZE.max).unwrap());
    world
        .create_shape(ball, &ShapeDef::new(big).density(limits::DENSITY.max))
        .unwrap();
    assert!(world.body(ball).unwrap().mass().is_finite());
    steps_finite(&mut world, 30);
}

/// A pendulum bob given 1e37 m/s kept a NaN joint impulse for ever (warm-started every
/// step) while its velocity was silently zeroed, so it hung in mid-air. A file's speed is
/// ranged (1e4 m/s); the core takes up to 1e18 m/s (an export's range): at that speed the
/// bob is capped to 400 m/s, its joint impulse stays finite, and it swings on.
#[test]
fn pendulum_bob_at_1e37_m_s_keeps_no_nan_joint_impulse() {
    let errors = refused(&one_body(
        "(linear_velocity: (1e37, 0.0), shapes: [(shape: Circle(radius: 0.5))])",
    ));
    assert!(errors.contains("got (1e37, 0)"), "{errors}");
    let (mut world, pivot, bob) = fixed_and_ball(2.0);
    world
        .create_joint(&JointDef::new(
            pivot,
            bob,
            RevoluteJointDef {
                anchor: Vec2::ZERO,
                ..RevoluteJointDef::default()
            },
        ))
        .unwrap();
    world
        .set_linear_velocity(bob, Vec2::new(0.0, limits::SAVED_STATE.max))
        .unwrap();
    steps_finite(&mut world, 60);
    let b = world.body(bob).unwrap();
    assert!(
        (b.center().length() - 2.0).abs() < 0.1,
        "still on its 2 m rod: {:?}",
        b.center()
    );
    assert!(b.linear_velocity().length() > 1.0, "it swings, not hangs");
}

/// A soft weld spanning about 1 km under the soft step gave NaN. A joint's anchors lie
/// within `MAX_JOINT_ARM` (50 m) of its bodies: the weld is refused, naming the joint.
#[test]
fn soft_weld_spanning_a_kilometre_is_refused() {
    let errors = refused(
        "Scene(settings: (solver: SoftStep),
               bodies: [(name: \"a\", kind: Static),
                        (name: \"b\", position: (1000.0, 0.0), shapes: [(shape: Circle(radius: 0.5))])],
               joints: [(name: \"span\", body_a: \"a\", body_b: \"b\", kind: Weld(anchor: (500.0, 0.0)))])",
    );
    assert!(
        errors.contains("span") && errors.contains("50 m"),
        "{errors}"
    );
}

/// A distance spring of 1e30 Hz gave NaN (`omega^2` overflowed). Refused; the stiffest
/// accepted spring (1e4 Hz) stays finite under both solvers.
#[test]
fn spring_hertz_1e30_is_refused_and_the_stiffest_spring_stays_finite() {
    for solver in [SolverKind::Classic, SolverKind::SoftStep] {
        let (mut world, a, b) = fixed_and_ball(2.0);
        world
            .set_settings(SolverSettings {
                solver,
                ..*world.settings()
            })
            .unwrap();
        world
            .create_joint(&JointDef::new(
                a,
                b,
                DistanceJointDef {
                    enable_spring: true,
                    hertz: limits::HERTZ.max,
                    ..DistanceJointDef::new(Vec2::ZERO, Vec2::new(2.0, 0.0))
                },
            ))
            .unwrap();
        steps_finite(&mut world, 60);
    }
}

/// A pile of 1e-9 m circles gave NaN (their inertias underflowed). The radius is refused;
/// a pile of the smallest accepted circles (5 mm, lightest density) stays finite.
#[test]
fn pile_of_1e_9_m_circles_is_refused_and_the_smallest_circles_stay_finite() {
    let errors = refused(&one_body("(shapes: [(shape: Circle(radius: 1e-9))])"));
    assert!(errors.contains("got 1e-9"), "{errors}");
    let mut world = World::new(SolverSettings::default());
    let ground = world.create_body(&BodyDef::fixed(Vec2::ZERO)).unwrap();
    let slab = Geometry::Polygon(Polygon::new_box(1.0, 0.1).unwrap());
    world.create_shape(ground, &ShapeDef::new(slab)).unwrap();
    for k in 0..200 {
        let p = Vec2::new(
            (k % 20) as f32 * 0.011 - 0.1,
            0.12 + (k / 20) as f32 * 0.011,
        );
        let b = world.create_body(&BodyDef::dynamic(p)).unwrap();
        let speck = Geometry::Circle(Circle::new(Vec2::ZERO, limits::MIN_SIZE).unwrap());
        world
            .create_shape(b, &ShapeDef::new(speck).density(limits::MIN_DENSITY))
            .unwrap();
    }
    steps_finite(&mut world, 60);
}

/// `step_hz` 1e-38 and 1 ended in NaN and frozen bodies. Both are refused (10 to 1e4 Hz);
/// the slowest accepted rate steps a falling box finitely.
#[test]
fn step_hz_1e_38_and_1_are_refused_and_the_slowest_rate_stays_finite() {
    for hz in ["1e-38", "1.0"] {
        let errors = refused(&format!("Scene(settings: (step_hz: {hz}))"));
        assert!(
            errors.contains("step_hz: must be between 10 and 1e4 Hz"),
            "{errors}"
        );
    }
    let (mut world, _, _) = fixed_and_ball(3.0);
    world
        .set_settings(SolverSettings {
            step_hz: limits::STEP_HZ.min,
            ..*world.settings()
        })
        .unwrap();
    steps_finite(&mut world, 60);
}

/// Gravity 1e6 ended in NaN. Refused (±1e3 m/s² per component); the strongest accepted
/// gravity drops a ball onto a floor and it stays finite.
#[test]
fn gravity_1e6_is_refused_and_the_strongest_gravity_stays_finite() {
    let errors = refused("Scene(settings: (gravity: (0.0, -1e6)))");
    assert!(errors.contains("got (0, -1e6)"), "{errors}");
    let mut world = World::new(SolverSettings {
        gravity: Vec2::new(0.0, limits::GRAVITY.min),
        ..SolverSettings::default()
    });
    let ground = world.create_body(&BodyDef::fixed(Vec2::ZERO)).unwrap();
    let slab = Geometry::Polygon(Polygon::new_box(5.0, 0.5).unwrap());
    world.create_shape(ground, &ShapeDef::new(slab)).unwrap();
    let b = world
        .create_body(&BodyDef::dynamic(Vec2::new(0.0, 3.0)))
        .unwrap();
    let disc = Geometry::Circle(Circle::new(Vec2::ZERO, 0.5).unwrap());
    world.create_shape(b, &ShapeDef::new(disc)).unwrap();
    steps_finite(&mut world, 120);
    assert!(world.body(b).unwrap().center().y > 0.5, "held by the floor");
}
