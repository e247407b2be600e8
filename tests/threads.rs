//! The step's results do not depend on the thread count (`World::set_thread_count`, the
//! `parallel` feature): the broad and narrow phases, the passes over the bodies and the
//! colour-by-colour solve are split across threads without any order-dependent sum.
//!
//! One thread is the serial path: the same code the library runs without the `parallel`
//! feature (`cargo test --no-default-features --test threads` runs these tests on a serial
//! build, where every count steps serially).

mod common;

use common::*;
use impulse::physics::joint::{
    DistanceJointDef, PrismaticJointDef, RevoluteJointDef, WeldJointDef, WheelJointDef,
};
use impulse::physics::*;

/// A world of `solver` at 4 sub-steps, sleep off, on `threads` threads, with a static body
/// holding one box per `(centre, half extents)` of `walls`.
fn walled_world(solver: SolverKind, threads: usize, walls: &[(Vec2, Vec2)]) -> (World, BodyHandle) {
    let mut world = World::new(SolverSettings {
        solver,
        substeps: 4,
        ..awake_settings()
    });
    world.set_thread_count(threads).unwrap();
    let ground = world.create_body(&BodyDef::fixed(Vec2::ZERO)).unwrap();
    for &(centre, half) in walls {
        let wall = Polygon::new_offset_box(half.x, half.y, centre, 0.0).unwrap();
        world
            .create_shape(ground, &ShapeDef::new(Geometry::Polygon(wall)))
            .unwrap();
    }
    (world, ground)
}

/// A kinematic spinner stirring a tumbling heap of mixed shapes inside a closed box, with a
/// hanging grid of pinned balls (free revolute pins, batched) and a chain of distance and
/// weld joints: contacts, pins, scalar joints and kinematic bodies shared by many
/// constraints, chaotic enough that any difference in any impulse grows into the hash.
fn stirred_heap(solver: SolverKind, threads: usize) -> World {
    // A box 24 m wide and 30 m tall, open at no side.
    let walls = [
        (Vec2::new(0.0, -0.5), Vec2::new(12.5, 0.5)),
        (Vec2::new(0.0, 30.5), Vec2::new(12.5, 0.5)),
        (Vec2::new(-12.5, 15.0), Vec2::new(0.5, 15.5)),
        (Vec2::new(12.5, 15.0), Vec2::new(0.5, 15.5)),
    ];
    let (mut world, ground) = walled_world(solver, threads, &walls);
    let spinner = world
        .create_body(&BodyDef::new(BodyKind::Kinematic, Vec2::new(0.0, 6.0)).angular_velocity(-2.0))
        .unwrap();
    let blade = Polygon::new_box(9.0, 0.25).unwrap();
    world
        .create_shape(spinner, &ShapeDef::new(Geometry::Polygon(blade)))
        .unwrap();

    let mut seed = 0x2545_f491u32;
    let mut rand = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed % 10_000) as f32 / 10_000.0
    };
    for i in 0..700 {
        let p = Vec2::new(-10.0 + (i % 40) as f32 * 0.5, 12.0 + (i / 40) as f32 * 0.55);
        let body = world
            .create_body(&BodyDef::dynamic(p).angle(rand() * 3.0))
            .unwrap();
        let geometry = match i % 3 {
            0 => Geometry::Polygon(
                Polygon::new_box(0.1 + rand() * 0.12, 0.1 + rand() * 0.12).unwrap(),
            ),
            1 => Geometry::Circle(Circle::new(Vec2::ZERO, 0.1 + rand() * 0.12).unwrap()),
            _ => Geometry::Capsule(
                Capsule::new(Vec2::new(-0.12, 0.0), Vec2::new(0.12, 0.0), 0.1).unwrap(),
            ),
        };
        world
            .create_shape(body, &ShapeDef::new(geometry).friction(0.6))
            .unwrap();
    }

    // A 10 x 10 grid of balls hanging from the lid, each pinned to its neighbours above
    // and to the left.
    let n = 10;
    let mut grid = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let p = Vec2::new(-9.0 + j as f32 * 0.5, 29.0 - i as f32 * 0.5);
            let body = world.create_body(&BodyDef::dynamic(p)).unwrap();
            let ball = Geometry::Circle(Circle::new(Vec2::ZERO, 0.2).unwrap());
            world.create_shape(body, &ShapeDef::new(ball)).unwrap();
            let mut pin = |other: BodyHandle| {
                let def = RevoluteJointDef {
                    anchor: p,
                    ..RevoluteJointDef::default()
                };
                world
                    .create_joint(&JointDef::new(other, body, def))
                    .unwrap();
            };
            if i == 0 && j % 3 == 0 {
                pin(ground);
            }
            if i > 0 {
                pin(grid[(i - 1) * n + j]);
            }
            if j > 0 {
                pin(grid[i * n + j - 1]);
            }
            grid.push(body);
        }
    }
    // A chain of boxes: distance joints, every third link welded.
    let mut previous = ground;
    let mut anchor = Vec2::new(8.0, 29.5);
    for k in 0..12 {
        let p = anchor - Vec2::new(0.0, 0.6);
        let link = world.create_body(&BodyDef::dynamic(p)).unwrap();
        let shape = Geometry::Polygon(Polygon::new_box(0.15, 0.25).unwrap());
        world.create_shape(link, &ShapeDef::new(shape)).unwrap();
        let def = if k % 3 == 2 {
            JointDef::new(
                previous,
                link,
                WeldJointDef {
                    anchor,
                    ..WeldJointDef::default()
                },
            )
        } else {
            JointDef::new(
                previous,
                link,
                DistanceJointDef {
                    anchor_a: anchor,
                    anchor_b: p,
                    ..DistanceJointDef::default()
                },
            )
        };
        world.create_joint(&def).unwrap();
        previous = link;
        anchor = p;
    }
    world
}

fn hash_after(solver: SolverKind, threads: usize, steps: usize) -> (u64, World) {
    let mut world = stirred_heap(solver, threads);
    for _ in 0..steps {
        world.step(DT);
    }
    (world.state_hash(), world)
}

/// The soft step (contact batches, pin batches, colour by colour) at 1, 2 and 4 threads.
#[test]
fn soft_step_state_is_identical_at_one_two_and_four_threads() {
    let (one, world) = hash_after(SolverKind::SoftStep, 1, 240);
    // The scene did what it is for: a heap churning against the spinner, pins batched.
    let stats = world.stats();
    assert!(stats.contacts > 1000, "{} contacts", stats.contacts);
    assert!(stats.kinetic_energy > 50.0, "{} J", stats.kinetic_energy);
    for threads in [2, 4] {
        let (hash, world) = hash_after(SolverKind::SoftStep, threads, 240);
        let expected = if cfg!(feature = "parallel") {
            threads
        } else {
            1
        };
        assert_eq!(world.thread_count(), expected);
        assert_eq!(hash, one, "soft step, {threads} threads against 1");
    }
    // The hash sees a change: one more step differs.
    let mut world = stirred_heap(SolverKind::SoftStep, 2);
    for _ in 0..241 {
        world.step(DT);
    }
    assert_ne!(world.state_hash(), one, "the hash must see one more step");
}

/// The classic solver's narrow phase is split too (its solve stays serial).
#[test]
fn classic_state_is_identical_at_one_and_two_threads() {
    let (one, _) = hash_after(SolverKind::Classic, 1, 120);
    let (two, _) = hash_after(SolverKind::Classic, 2, 120);
    assert_eq!(one, two, "classic, 2 threads against 1");
}

/// 3,200 small bodies falling into a wide bin, pushed sideways by forces and torques every
/// step: enough awake bodies that the passes over the body arena (proxy boxes, solver
/// bodies, write-back, speed caps, cleared forces) split at 2 and 3 threads
/// (`MIN_ARENA_BODIES_PER_THREAD` = 1,024 per thread).
fn falling_field(threads: usize, steps: usize) -> World {
    let walls = [
        (Vec2::new(0.0, -0.5), Vec2::new(13.0, 0.5)),
        (Vec2::new(-12.5, 15.0), Vec2::new(0.5, 15.5)),
        (Vec2::new(12.5, 15.0), Vec2::new(0.5, 15.5)),
    ];
    let (mut world, _) = walled_world(SolverKind::Classic, threads, &walls);
    let mut bodies = Vec::new();
    for i in 0..3200 {
        let p = Vec2::new(-11.0 + (i % 64) as f32 * 0.35, 1.0 + (i / 64) as f32 * 0.35);
        let body = world
            .create_body(&BodyDef::dynamic(p).angle(i as f32 * 0.7))
            .unwrap();
        let geometry = if i % 2 == 0 {
            Geometry::Circle(Circle::new(Vec2::ZERO, 0.1 + (i % 5) as f32 * 0.01).unwrap())
        } else {
            Geometry::Polygon(Polygon::new_box(0.12, 0.08).unwrap())
        };
        world.create_shape(body, &ShapeDef::new(geometry)).unwrap();
        bodies.push(body);
    }
    for step in 0..steps {
        for (k, &body) in bodies.iter().enumerate().step_by(7) {
            let push = if (k + step) % 2 == 0 { 3.0 } else { -3.0 };
            world
                .apply_force(body, Vec2::new(push, 0.0), Vec2::new(0.0, 0.05))
                .unwrap();
            world.apply_torque(body, -0.01 * push).unwrap();
        }
        world.step(DT);
    }
    world
}

/// The passes over the body arena give the same state at 1, 2 and 3 threads.
#[test]
fn a_field_of_thousands_of_bodies_is_identical_at_one_two_and_three_threads() {
    let steps = 90;
    let world = falling_field(1, steps);
    let one = world.state_hash();
    // The field did what it is for: every body awake and moving, thousands touching.
    let stats = world.stats();
    assert_eq!(stats.awake_bodies, 3200);
    assert!(stats.contacts > 3000, "{} contacts", stats.contacts);
    assert!(stats.kinetic_energy > 1.0, "{} J", stats.kinetic_energy);
    for threads in [2, 3] {
        let hash = falling_field(threads, steps).state_hash();
        assert_eq!(hash, one, "{threads} threads against 1");
    }
    assert_ne!(falling_field(1, steps + 1).state_hash(), one);
}

/// 1,000 groups of two overlapping boxes, far apart, without gravity, of four kinds: two
/// bodies joined by a pin (collide_connected off), two bodies whose shapes share a negative
/// filter group, one body with both boxes, and two plain bodies. Only the plain pairs may
/// collide: the broad phase drops the others in its pair walk, split across the threads.
fn kept_apart(threads: usize) -> (World, Vec<(BodyHandle, BodyHandle)>) {
    let mut world = World::new(SolverSettings {
        gravity: Vec2::ZERO,
        ..awake_settings()
    });
    world.set_thread_count(threads).unwrap();
    let block = Geometry::Polygon(Polygon::new_box(0.25, 0.25).unwrap());
    let mut plain = Vec::new();
    for group in 0..1000 {
        let p = Vec2::new((group % 40) as f32 * 3.0, (group / 40) as f32 * 3.0);
        let q = p + Vec2::new(0.3, 0.1);
        let a = world.create_body(&BodyDef::dynamic(p)).unwrap();
        let mut def = ShapeDef::new(block);
        if group % 4 == 1 {
            def.filter.group_index = -1;
        }
        world.create_shape(a, &def).unwrap();
        if group % 4 == 2 {
            let offset = Polygon::new_offset_box(0.25, 0.25, q - p, 0.0).unwrap();
            world
                .create_shape(a, &ShapeDef::new(Geometry::Polygon(offset)))
                .unwrap();
            continue;
        }
        let b = world.create_body(&BodyDef::dynamic(q)).unwrap();
        world.create_shape(b, &def).unwrap();
        match group % 4 {
            0 => {
                let pin = RevoluteJointDef::new((p + q) * 0.5);
                world.create_joint(&JointDef::new(a, b, pin)).unwrap();
            }
            3 => plain.push((a, b)),
            _ => {}
        }
    }
    (world, plain)
}

/// The pairs that may not collide (joined, filtered out, one body's shapes) get no
/// contact, whatever the thread count; the plain pairs each get theirs, and the states
/// match step for step.
#[test]
fn pairs_that_may_not_collide_get_no_contact_at_one_two_and_three_threads() {
    let runs: Vec<_> = [1, 2, 3].into_iter().map(kept_apart).collect();
    let mut plain = runs[0].1.clone();
    plain.sort();
    let mut worlds: Vec<World> = runs.into_iter().map(|(world, _)| world).collect();
    for step in 0..30 {
        for world in &mut worlds {
            world.step(DT);
        }
        let hash = worlds[0].state_hash();
        for (k, world) in worlds.iter().enumerate() {
            assert_eq!(world.state_hash(), hash, "{} threads, step {step}", k + 1);
            let mut pairs: Vec<_> = world.contacts().map(|c| (c.body_a(), c.body_b())).collect();
            pairs.sort();
            if step == 0 {
                // All 250 plain pairs overlap at the start, and nothing else may touch.
                assert_eq!(pairs, plain, "{} threads", k + 1);
            } else {
                assert!(
                    pairs.iter().all(|p| plain.binary_search(p).is_ok()),
                    "{} threads, step {step}: a pair that may not collide has a contact",
                    k + 1
                );
            }
        }
    }
}

/// 64 chains of six boxes dropped on the ground, each linked by a limited spring
/// revolute, a weld, a spring distance joint, a limited prismatic and a wheel: 320 joints
/// solved one by one (none a free pin), which several threads solve level by level
/// (`JointSolver::schedule_levels`: five levels, one per link of the chains).
fn jointed_chains(solver: SolverKind, threads: usize, steps: usize) -> World {
    let slab = (Vec2::new(0.0, -0.5), Vec2::new(60.0, 0.5));
    let (mut world, _) = walled_world(solver, threads, &[slab]);
    let block = Geometry::Polygon(Polygon::new_box(0.3, 0.15).unwrap());
    for chain in 0..64 {
        let origin = Vec2::new(
            -50.0 + (chain % 16) as f32 * 6.5,
            2.0 + (chain / 16) as f32 * 1.5,
        );
        let mut previous: Option<BodyHandle> = None;
        for k in 0..6 {
            let p = origin + Vec2::new(k as f32 * 0.8, 0.1 * (k % 2) as f32);
            let body = world
                .create_body(&BodyDef::dynamic(p).angle(0.05 * chain as f32))
                .unwrap();
            world
                .create_shape(body, &ShapeDef::new(block).friction(0.6))
                .unwrap();
            if let Some(a) = previous {
                let anchor = p - Vec2::new(0.4, 0.0);
                let kind: JointDefKind = match k % 5 {
                    1 => RevoluteJointDef {
                        anchor,
                        enable_limit: true,
                        lower_angle: -0.4,
                        upper_angle: 0.6,
                        enable_spring: true,
                        spring_hertz: 3.0,
                        ..RevoluteJointDef::default()
                    }
                    .into(),
                    2 => WeldJointDef {
                        anchor,
                        ..WeldJointDef::default()
                    }
                    .into(),
                    3 => DistanceJointDef {
                        anchor_a: p - Vec2::new(0.8, 0.0),
                        anchor_b: p,
                        enable_spring: true,
                        hertz: 4.0,
                        damping_ratio: 0.3,
                        ..DistanceJointDef::default()
                    }
                    .into(),
                    4 => PrismaticJointDef {
                        anchor,
                        axis: Vec2::X,
                        enable_limit: true,
                        lower_translation: -0.1,
                        upper_translation: 0.2,
                        ..PrismaticJointDef::default()
                    }
                    .into(),
                    _ => WheelJointDef {
                        anchor,
                        axis: Vec2::Y,
                        enable_spring: true,
                        hertz: 5.0,
                        damping_ratio: 0.5,
                        ..WheelJointDef::default()
                    }
                    .into(),
                };
                world.create_joint(&JointDef::new(a, body, kind)).unwrap();
            }
            previous = Some(body);
        }
    }
    for _ in 0..steps {
        world.step(DT);
    }
    world
}

/// The joints solved one by one give the same state at 1, 2 and 3 threads (soft step),
/// and at 1 and 2 (classic, whose joints all go that way).
#[test]
fn jointed_chains_are_identical_at_one_two_and_three_threads() {
    let steps = 120;
    let world = jointed_chains(SolverKind::SoftStep, 1, steps);
    let one = world.state_hash();
    // The chains did what they are for: fell, landed and flex, every joint solved.
    let stats = world.stats();
    assert_eq!(stats.joints, 320);
    assert!(stats.contacts > 200, "{} contacts", stats.contacts);
    assert!(stats.kinetic_energy > 0.01, "{} J", stats.kinetic_energy);
    for threads in [2, 3] {
        let hash = jointed_chains(SolverKind::SoftStep, threads, steps).state_hash();
        assert_eq!(hash, one, "soft step, {threads} threads against 1");
    }
    assert_ne!(
        jointed_chains(SolverKind::SoftStep, 2, steps + 1).state_hash(),
        one
    );
    let classic = jointed_chains(SolverKind::Classic, 1, 60).state_hash();
    let classic_two = jointed_chains(SolverKind::Classic, 2, 60).state_hash();
    assert_eq!(classic_two, classic, "classic, 2 threads against 1");
}

/// A net of 30 x 30 balls hanging from the static body by its top left ball, each ball pinned
/// to its left and upper neighbours by revolute joints (every seventh with a limit and a
/// spring, so solved one by one; the others free pins, solved in batches): 1,741 joints,
/// enough that the joint prepare and the quarantine's joint pass split at 2 and 3 threads.
fn hanging_net(threads: usize, steps: usize) -> World {
    let (mut world, ground) = walled_world(SolverKind::SoftStep, threads, &[]);
    let ball = Geometry::Circle(Circle::new(Vec2::ZERO, 0.3).unwrap());
    let size = 30;
    let mut grid: Vec<BodyHandle> = Vec::new();
    let mut joints = 0;
    for row in 0..size {
        for column in 0..size {
            let p = Vec2::new(column as f32, 40.0 - row as f32);
            let body = world.create_body(&BodyDef::dynamic(p)).unwrap();
            world.create_shape(body, &ShapeDef::new(ball)).unwrap();
            let left = (column > 0).then(|| grid[grid.len() - 1]);
            let up = if row > 0 {
                Some(grid[grid.len() - size])
            } else {
                Some(ground).filter(|_| column == 0)
            };
            for other in [left, up].into_iter().flatten() {
                joints += 1;
                let limited = joints % 7 == 0;
                let pin = RevoluteJointDef {
                    anchor: p,
                    enable_limit: limited,
                    lower_angle: -0.3,
                    upper_angle: 0.3,
                    enable_spring: limited,
                    spring_hertz: 2.0,
                    ..RevoluteJointDef::default()
                };
                world
                    .create_joint(&JointDef::new(other, body, pin))
                    .unwrap();
            }
            grid.push(body);
        }
    }
    for _ in 0..steps {
        world.step(DT);
    }
    world
}

/// The hanging net (joints prepared and held across the team) gives the same state at 1, 2
/// and 3 threads.
#[test]
fn a_hanging_net_of_pins_is_identical_at_one_two_and_three_threads() {
    let steps = 40;
    let world = hanging_net(1, steps);
    let stats = world.stats();
    assert_eq!(stats.joints, 29 * 30 * 2 + 1);
    // It swung about its corner: the lowest ball (the bottom row starts at 11 m) fell more
    // than a metre, and not past what a swing from the corner reaches in 0.67 s.
    let lowest = world
        .bodies()
        .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
        .map(|(_, b)| b.position().y)
        .fold(f32::INFINITY, f32::min);
    assert!((5.0..10.0).contains(&lowest), "lowest ball at {lowest} m");
    for threads in [2, 3] {
        assert_eq!(
            hanging_net(threads, steps).state_hash(),
            world.state_hash(),
            "{threads} threads against 1"
        );
    }
}

/// A thread count can change between steps (the app's setting) without changing the run.
#[test]
fn changing_the_thread_count_mid_run_changes_nothing() {
    let (one, _) = hash_after(SolverKind::SoftStep, 1, 150);
    let mut world = stirred_heap(SolverKind::SoftStep, 1);
    for k in 0..150 {
        world.set_thread_count([1, 2, 3][k % 3]).unwrap();
        world.step(DT);
    }
    assert_eq!(world.state_hash(), one);
}

#[test]
fn thread_counts_outside_one_to_sixty_four_are_refused() {
    let mut world = World::default();
    for bad in [0, 65, usize::MAX] {
        let err = world.set_thread_count(bad).unwrap_err();
        assert_eq!(err.field, "threads");
    }
    assert_eq!(world.thread_count(), 1, "a refused count keeps the old one");
}
