//! The solver matrix (issue 13): every solver on the three reference scenes of Solver2D's
//! comparison (a 10-box stack, a pendulum, a 15-link chain), each deterministic and each
//! exported and reloaded exactly. Where a family is known to fail, the test pins the
//! failure with its number instead of hiding it.

mod common;

use common::*;
use impulse::physics::joint::RevoluteJointDef;
use impulse::physics::*;
use impulse::scene::export::SceneMeta;
use impulse::scene::{self, export};
use std::f32::consts::PI;

/// The settings every solver is judged with: defaults with sleep off, and the sub-stepping
/// solvers at 4 sub-steps (the soft step's usual count) against 10 iterations for the
/// others.
fn settings(kind: SolverKind) -> SolverSettings {
    SolverSettings {
        solver: kind,
        substeps: if kind.sub_steps() {
            std::env::var("SUBSTEPS")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(4)
        } else {
            1
        },
        ..awake_settings()
    }
}

/// Box2D-Lite's vertical stack: ten 1 m boxes (density 1, friction 0.6) on the ground,
/// 10 s. Returns the top box's sideways drift and its drop, metres.
fn stack_of_ten(kind: SolverKind) -> (f32, f32) {
    let mut world = World::new(settings(kind));
    ground(&mut world, 0.6);
    let boxes = stack_of_ten_boxes(&mut world);
    run(&mut world, 10.0);
    let top = pos(&world, boxes[9]);
    (top.x.abs(), 9.5 - top.y)
}

fn joint_gap(world: &World, j: JointHandle) -> f32 {
    let joint = world.joint(j).unwrap();
    joint.linear_error(
        world.body(joint.body_a()).unwrap(),
        world.body(joint.body_b()).unwrap(),
    )
}

/// A 0.2 x 1.2 m rod (density 2) pinned 0.5 m above its centre, released horizontally, 10
/// s. Returns the worst pin gap, metres, and the rod's largest rise above the release
/// height (energy gained), metres.
fn pendulum(kind: SolverKind) -> (f32, f32) {
    let mut world = World::new(settings(kind));
    let pivot = Vec2::new(0.0, 10.0);
    let ground = world.create_body(&BodyDef::fixed(pivot)).unwrap();
    let center = pivot + Rot::from_angle(PI / 2.0).rotate(Vec2::new(0.0, -0.5));
    let rod = world
        .create_body(&BodyDef::dynamic(center).angle(PI / 2.0))
        .unwrap();
    world
        .create_shape(
            rod,
            &ShapeDef::new(Geometry::Polygon(Polygon::new_box(0.1, 0.6).unwrap())).density(2.0),
        )
        .unwrap();
    let j = world
        .create_joint(&JointDef::new(ground, rod, RevoluteJointDef::new(pivot)))
        .unwrap();
    let (mut worst, mut rise) = (0.0f32, 0.0f32);
    for _ in 0..600 {
        world.step(DT);
        worst = worst.max(joint_gap(&world, j));
        rise = rise.max(world.body(rod).unwrap().center().y - center.y);
    }
    (worst, rise)
}

/// Solver2D's chain: 15 links of 1 m (0.125 m thick boxes, density 20), pinned end to end
/// and to a static pivot, released horizontally, 10 s. Returns the worst gap of any pin,
/// metres, and the final distance from the pivot to the last link's free end over the
/// chain's length (1 when taut and unstretched).
fn chain_of_fifteen(kind: SolverKind) -> (f32, f32) {
    let mut world = World::new(settings(kind));
    let pivot = Vec2::new(0.0, 20.0);
    let mut prev = world.create_body(&BodyDef::fixed(pivot)).unwrap();
    let mut joints = Vec::new();
    let mut last = prev;
    for i in 0..15 {
        let link = world
            .create_body(&BodyDef::dynamic(pivot + Vec2::new(i as f32 + 0.5, 0.0)))
            .unwrap();
        world
            .create_shape(
                link,
                &ShapeDef::new(Geometry::Polygon(Polygon::new_box(0.5, 0.125).unwrap()))
                    .density(20.0),
            )
            .unwrap();
        let anchor = pivot + Vec2::new(i as f32, 0.0);
        joints.push(
            world
                .create_joint(&JointDef::new(prev, link, RevoluteJointDef::new(anchor)))
                .unwrap(),
        );
        prev = link;
        last = link;
    }
    let mut worst = 0.0f32;
    for _ in 0..600 {
        world.step(DT);
        for &j in &joints {
            worst = worst.max(joint_gap(&world, j));
        }
    }
    let b = world.body(last).unwrap();
    let end = b.transform().apply(Vec2::new(0.5, 0.0));
    (worst, (end - pivot).length() / 15.0)
}

/// What each solver is expected to do on a reference scene: hold within a bound, or fail
/// with a number inside a pinned range (so that a change of the failure shows too).
enum Expect {
    Holds(f32),
    Fails { low: f32, high: f32 },
}
use Expect::{Fails, Holds};

fn check(kind: SolverKind, what: &str, value: f32, expect: Expect) {
    match expect {
        Holds(bound) => assert!(
            value <= bound,
            "{}: {what} {value:.4}, expected at most {bound}",
            kind.label()
        ),
        Fails { low, high } => assert!(
            (low..=high).contains(&value),
            "{}: {what} {value:.4}, the known failure was pinned between {low} and {high}",
            kind.label()
        ),
    }
}

/// The 10-box stack after 10 s (sub-stepping solvers at 4 sub-steps, the others at 10
/// iterations): the top box's drop, metres. Known failures (Solver2D's comparison shows the
/// same families losing stacks): Jacobi (every box corrected by both its contacts at once)
/// sinks and topples; PGS-Soft (soft contacts over one whole step) leans; XPBD (one
/// projection per sub-step) collapses at 4 sub-steps. TGS-Sticky holds it since its friction
/// anchors persist across steps (`tests/tgs_families.rs`; re-anchored every step, the stack
/// collapsed: top 9.5 m sideways, 9.0 m down).
#[test]
fn every_solver_on_the_ten_box_stack() {
    for kind in SolverKind::ALL {
        let (shift, drop) = stack_of_ten(kind);
        println!(
            "{:>14}: stack of 10: top shifted {shift:.4} m, dropped {drop:.4} m",
            kind.label()
        );
        let (shift_expect, drop_expect) = match kind {
            SolverKind::Classic
            | SolverKind::PgsNgsBlock
            | SolverKind::SoftStep
            | SolverKind::TgsSoft => (Holds(0.02), Holds(0.05)),
            SolverKind::PgsNgs | SolverKind::TgsNgs => (Holds(0.1), Holds(0.05)),
            SolverKind::TgsSticky => (Holds(0.05), Holds(0.05)),
            SolverKind::Jacobi => (
                Fails {
                    low: 1.0,
                    high: 20.0,
                },
                Fails {
                    low: 0.3,
                    high: 9.5,
                },
            ),
            SolverKind::PgsSoft => (
                Fails {
                    low: 0.1,
                    high: 1.0,
                },
                Fails {
                    low: 0.06,
                    high: 0.3,
                },
            ),
            SolverKind::Xpbd => (
                Fails {
                    low: 1.0,
                    high: 30.0,
                },
                Fails {
                    low: 5.0,
                    high: 9.5,
                },
            ),
        };
        check(kind, "stack top shift (m)", shift, shift_expect);
        check(kind, "stack top drop (m)", drop, drop_expect);
    }
}

/// XPBD's failure above is one of sub-steps: at 20 sub-steps the same stack stands.
#[test]
fn xpbd_stack_stands_at_twenty_sub_steps() {
    let mut world = World::new(SolverSettings {
        substeps: 20,
        ..settings(SolverKind::Xpbd)
    });
    ground(&mut world, 0.6);
    let top = (0..10)
        .map(|i| {
            dynamic_box(
                &mut world,
                Vec2::new(0.0, 0.5 + i as f32),
                Vec2::splat(0.5),
                1.0,
                0.6,
            )
        })
        .last()
        .unwrap();
    run(&mut world, 10.0);
    let p = pos(&world, top);
    assert!(
        p.x.abs() < 0.1 && (p.y - 9.5).abs() < 0.05,
        "XPBD, 20 sub-steps: top box at {p:?}, expected (0, 9.5) within 0.1 m sideways, 0.05 m down"
    );
}

/// The rod pendulum released horizontally, 10 s: the pin's worst gap. Rigid joint path and
/// sub-stepped soft joints: under a millimetre; soft joints over one whole step (Jacobi,
/// PGS-Soft: `joint_hertz` capped at a quarter of 60 Hz) stretch up to 10 mm.
#[test]
fn every_solver_on_the_pendulum() {
    for kind in SolverKind::ALL {
        let (gap, rise) = pendulum(kind);
        println!(
            "{:>14}: pendulum: worst gap {:.3} mm, rise {:.4} m",
            kind.label(),
            gap * 1e3,
            rise
        );
        let bound = match kind {
            SolverKind::Jacobi | SolverKind::PgsSoft => 0.010,
            _ => 0.001,
        };
        check(kind, "pendulum worst gap (m)", gap, Holds(bound));
        // No energy from nowhere: the rod never climbs above its release height.
        check(kind, "pendulum rise (m)", rise, Holds(0.001));
    }
}

/// The 15-link chain released horizontally, 10 s: the worst pin gap during the whip and
/// the chain's length at the end. Every solver keeps it whole (end within 2% beyond its
/// length); the gaps differ by family: position passes (TGS-NGS, XPBD) best, one-step soft
/// joints (Jacobi, PGS-Soft) worst.
#[test]
fn every_solver_on_the_chain() {
    for kind in SolverKind::ALL {
        let (gap, stretch) = chain_of_fifteen(kind);
        println!(
            "{:>14}: chain: worst gap {:.3} mm, end at {stretch:.4} of the length",
            kind.label(),
            gap * 1e3
        );
        let bound = match kind {
            SolverKind::TgsNgs | SolverKind::Xpbd => 0.02,
            SolverKind::Jacobi | SolverKind::PgsSoft => 0.2,
            SolverKind::TgsSticky => 0.08,
            _ => 0.05,
        };
        check(kind, "chain worst gap (m)", gap, Holds(bound));
        check(kind, "chain end over its length", stretch, Holds(1.02));
        assert!(
            stretch > 0.85,
            "{}: chain end at {stretch} of its length",
            kind.label()
        );
    }
}

/// A library scene with joints and contacts under `kind`, loaded from `file`.
fn library_world(file: &str, kind: SolverKind) -> World {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let mut world = scene::load_file(&path).unwrap().world;
    let s = *world.settings();
    world
        .set_settings(SolverSettings {
            solver: kind,
            substeps: if kind.sub_steps() { 4 } else { s.substeps },
            ..s
        })
        .unwrap();
    world
}

const LIBRARY: [&str; 2] = [
    "scenes/box2d_lite/dominos.ron",
    "scenes/joints/wheel_car.ron",
];

#[test]
fn every_solver_is_deterministic() {
    for kind in SolverKind::ALL {
        for file in LIBRARY {
            let run = || {
                let mut world = library_world(file, kind);
                for _ in 0..120 {
                    world.step(DT);
                }
                world.state_hash()
            };
            assert_eq!(run(), run(), "{}: {file}", kind.label());
        }
    }
}

/// N steps, export, load, M steps equals N + M steps, hash compared after every step; the
/// export names the solver and loads back with it.
#[test]
fn every_solver_exports_and_reloads_exactly() {
    let meta = SceneMeta {
        name: "Solvers".into(),
        ..Default::default()
    };
    for kind in SolverKind::ALL {
        for file in LIBRARY {
            let mut original = library_world(file, kind);
            for _ in 0..40 {
                original.step(DT);
            }
            let exported = export::export_world(&original, &meta).unwrap();
            let name = format!(
                "solver: {:?}",
                impulse::scene::format::SolverFile::from(kind)
            );
            assert!(
                exported.contains(&name),
                "{}: no `{name}` in the export",
                kind.label()
            );
            let mut restored = scene::load_str(&exported, "export.ron").unwrap().world;
            assert_eq!(restored.settings(), original.settings(), "{}", kind.label());
            assert_eq!(
                restored.state_hash(),
                original.state_hash(),
                "{}: {file}",
                kind.label()
            );
            for k in 0..30 {
                original.step(DT);
                restored.step(DT);
                assert_eq!(
                    restored.state_hash(),
                    original.state_hash(),
                    "{}: {file}: diverged {k} steps after the export",
                    kind.label()
                );
            }
        }
    }
}

/// `solver:` names in a scene file, the old two included, and the new settings with their
/// ranges.
#[test]
fn scene_files_name_every_solver_and_refuse_bad_settings() {
    for kind in SolverKind::ALL {
        let name = format!("{:?}", impulse::scene::format::SolverFile::from(kind));
        let text = format!("Scene(settings: (solver: {name}, relax_iterations: 5, position_iterations: 2, jacobi_relaxation: 0.7, xpbd_compliance: 0.0001))");
        let world = scene::load_str(&text, "solver.ron").unwrap().world;
        let s = world.settings();
        assert_eq!(s.solver, kind);
        assert_eq!((s.relax_iterations, s.position_iterations), (5, 2));
        assert_eq!((s.jacobi_relaxation, s.xpbd_compliance), (0.7, 1e-4));
    }
    for (field, value) in [
        ("jacobi_relaxation", "0.0"),
        ("jacobi_relaxation", "1.5"),
        ("xpbd_compliance", "-1.0"),
        ("xpbd_compliance", "2.0"),
        ("relax_iterations", "5000"),
        ("position_iterations", "1001"),
    ] {
        let text = format!("Scene(settings: (solver: Xpbd, {field}: {value}))");
        let e = match scene::load_str(&text, "bad.ron") {
            Ok(_) => panic!("{field} = {value} was accepted"),
            Err(e) => e.to_string(),
        };
        assert!(
            e.contains(field) && e.contains("bad.ron"),
            "{field} = {value}: {e}"
        );
    }
}

/// Regression (found by `testbed verdicts`): Jacobi diverges on the tiny pyramid (base 30 of
/// 5 cm boxes) at one step of 10 iterations; the summed impulses reached infinity, `inf -
/// inf` gave a NaN friction bound and `clamp` panicked after about 40 s. The impulses are
/// now held inside the saved-impulse range: the run ends, and its export loads.
#[test]
fn jacobi_diverging_on_the_tiny_pyramid_neither_panics_nor_breaks_the_export() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/stacking/tiny_pyramid.ron");
    let mut world = scene::load_file(&path).unwrap().world;
    let s = *world.settings();
    world
        .set_settings(SolverSettings {
            solver: SolverKind::Jacobi,
            substeps: 1,
            sleep: false,
            ..s
        })
        .unwrap();
    for _ in 0..3600 {
        world.step(DT);
    }
    for c in world.contacts() {
        for p in c.manifold().points() {
            assert!(p.normal_impulse.abs() <= 1e30 && p.tangent_impulse.abs() <= 1e30);
        }
    }
    let meta = SceneMeta::default();
    let exported = export::export_world(&world, &meta).unwrap();
    let restored = scene::load_str(&exported, "export.ron").unwrap().world;
    assert_eq!(restored.state_hash(), world.state_hash());
}
