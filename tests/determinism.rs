//! Determinism across machines and SIMD widths (issue 15): the soft step gives bitwise the
//! same simulation whether its constraint batches are one, four (SSE2), eight (AVX2) or
//! sixteen (AVX-512F, contacts) lanes wide, and a chaotic scene's state hash is pinned to a constant, which no machine,
//! operating system or libm may change (the core computes its own sines and cosines,
//! `physics::trig`, and uses no fused multiply-add).

use std::path::Path;

use impulse::physics::joint::RevoluteJointDef;
use impulse::physics::*;
use impulse::scene::{self as scene, catalog::CATALOG};

const DT: f32 = 1.0 / 60.0;

/// A bin of mixed shapes at random angles, one in three bouncy, with a chain of eight
/// pinned capsules hanging into it, soft step, sleep off: any difference in one bit grows
/// into a different pile within a few dozen steps. Stepped `steps` times with the given
/// width; `nudge` moves one body's start (to show the hash sees a tiny change).
fn chaotic(lanes: Lanes, nudge: f32, steps: usize) -> World {
    let mut world = World::new(SolverSettings {
        solver: SolverKind::SoftStep,
        sleep: false,
        ..SolverSettings::default()
    });
    world.set_lanes(lanes);
    let bin = world
        .create_body(&BodyDef::fixed(Vec2::ZERO).name("bin"))
        .unwrap();
    for (half, center) in [
        (Vec2::new(6.0, 0.5), Vec2::new(0.0, -0.5)),
        (Vec2::new(0.5, 6.0), Vec2::new(-6.5, 5.0)),
        (Vec2::new(0.5, 6.0), Vec2::new(6.5, 5.0)),
    ] {
        let wall = Polygon::new_offset_box(half.x, half.y, center, 0.0).unwrap();
        world
            .create_shape(bin, &ShapeDef::new(Geometry::Polygon(wall)).friction(0.6))
            .unwrap();
    }
    let mut seed = 0x2545_f491u32;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed % 10_000) as f32 / 10_000.0
    };
    for i in 0..90 {
        let p = Vec2::new(
            rand() * 10.0 - 5.0 + if i == 0 { nudge } else { 0.0 },
            1.0 + i as f32 * 0.45,
        );
        let body = world
            .create_body(&BodyDef::dynamic(p).angle(rand() * 6.0 - 3.0))
            .unwrap();
        let size = 0.15 + rand() * 0.25;
        let geometry = match i % 4 {
            0 => Geometry::Polygon(Polygon::new_box(size, 0.1 + rand() * 0.3).unwrap()),
            1 => Geometry::Circle(Circle::new(Vec2::ZERO, size).unwrap()),
            2 => Geometry::Capsule(
                Capsule::new(Vec2::new(-size, 0.0), Vec2::new(size, 0.0), 0.12).unwrap(),
            ),
            _ => {
                let hexagon: Vec<Vec2> = (0..6)
                    .map(|k| {
                        Rot::from_angle(k as f32 * std::f32::consts::FRAC_PI_3).x_axis() * size
                    })
                    .collect();
                Geometry::Polygon(Polygon::new(&hexagon).unwrap())
            }
        };
        let restitution = if i % 3 == 0 { 0.6 } else { 0.0 };
        let shape = ShapeDef::new(geometry)
            .friction(0.2 + rand() * 0.6)
            .restitution(restitution);
        world.create_shape(body, &shape).unwrap();
    }
    // The chain: free revolute pins (no limit, motor or softness), solved in batches.
    let anchor = world
        .create_body(&BodyDef::fixed(Vec2::new(-2.0, 12.0)))
        .unwrap();
    let mut previous = anchor;
    for k in 0..8 {
        let link = world
            .create_body(&BodyDef::dynamic(Vec2::new(-1.6 + 0.8 * k as f32, 12.0)))
            .unwrap();
        let capsule = Capsule::new(Vec2::new(-0.4, 0.0), Vec2::new(0.4, 0.0), 0.1).unwrap();
        world
            .create_shape(link, &ShapeDef::new(Geometry::Capsule(capsule)))
            .unwrap();
        let pin = RevoluteJointDef {
            anchor: Vec2::new(-2.0 + 0.8 * k as f32, 12.0),
            ..RevoluteJointDef::default()
        };
        world
            .create_joint(&JointDef::new(previous, link, pin))
            .unwrap();
        previous = link;
    }
    for _ in 0..steps {
        world.step(DT);
    }
    world
}

/// The pinned hash of `chaotic(_, 0.0, 300)`.
///
/// It guards determinism across machines: it must never differ between computers,
/// operating systems, libm versions or SIMD widths. It changes legitimately only when the
/// simulation's arithmetic changes on purpose (the solver, collision, integration, the
/// trig functions, a setting's default) or `chaotic` itself changes. Then: check that
/// `chaotic_scene_is_the_same_in_every_lane_width` passes, run
/// `cargo test --test determinism pinned -- --nocapture`, and paste the hash it prints here,
/// saying in the commit why the simulation changed.
const CHAOTIC_HASH: u64 = 0x34bd_6b0b_eaaf_475e;

#[test]
fn chaotic_scene_is_the_same_in_every_lane_width() {
    let hashes = [Lanes::Auto, Lanes::Four, Lanes::One, Lanes::Eight].map(|lanes| {
        let world = chaotic(lanes, 0.0, 300);
        assert!(
            world.stats().contacts > 150,
            "{} contacts",
            world.stats().contacts
        );
        world.state_hash()
    });
    // Auto: sixteen lanes with AVX-512F, eight with AVX2, else four.
    assert_eq!(hashes[0], hashes[1], "widest vs four lanes");
    assert_eq!(hashes[0], hashes[2], "widest lanes vs one");
    assert_eq!(hashes[0], hashes[3], "widest vs eight (or four) lanes");
    // The scene is chaotic: a 0.1 mm nudge of one body changes the hash.
    assert_ne!(chaotic(Lanes::Auto, 1e-4, 300).state_hash(), hashes[0]);
}

#[test]
fn pinned_chaotic_state_hash() {
    let world = chaotic(Lanes::Auto, 0.0, 300);
    let hash = world.state_hash();
    println!("chaotic scene state hash: {hash:#018x}");
    // Still a pile in the bin, not an explosion: the hash pins a sane state.
    for (_, body) in world.bodies() {
        assert!(body.position().is_finite() && body.position().y > -1.0);
        assert!(body.linear_velocity().length() < 20.0);
    }
    assert_eq!(
        hash, CHAOTIC_HASH,
        "the chaotic scene's state hash changed: see CHAOTIC_HASH's docs"
    );
}

/// Every scene of the library under the soft step: the one-lane and the widest path give
/// the same state hash (sixty steps; ten for the 5,000+ body benchmarks).
#[test]
fn every_catalog_scene_is_the_same_in_one_and_all_lanes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    for entry in CATALOG {
        let path = entry.path_in(&dir);
        let text = std::fs::read_to_string(&path).unwrap();
        let file = scene::parse(&text, entry.file).unwrap_or_else(|e| panic!("{e}"));
        let run = |lanes: Lanes| {
            let mut world = scene::build::build(&file, entry.file)
                .unwrap_or_else(|e| panic!("{e}"))
                .world;
            let settings = SolverSettings {
                solver: SolverKind::SoftStep,
                ..*world.settings()
            };
            world.set_settings(settings).unwrap();
            world.set_lanes(lanes);
            let steps = if world.body_count() > 5000 { 10 } else { 60 };
            let dt = world.settings().dt();
            for _ in 0..steps {
                world.step(dt);
            }
            world.state_hash()
        };
        assert_eq!(run(Lanes::Auto), run(Lanes::One), "{}", entry.file);
    }
}
