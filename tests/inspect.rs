//! Looking inside a step (issue 13): `World::step_until` stops at a solver iteration or a
//! sub-step and reports where; the state there is deterministic, a point past the step's
//! end is the plain step bit for bit, and the inspection reports (errors, impulse changes,
//! graph colours, islands) describe what the solver left.

mod common;

use common::*;
use impulse::physics::joint::RevoluteJointDef;
use impulse::physics::*;

/// A pyramid of `base` rows on the ground and a five-link chain hanging from a fixed body,
/// sleep off, under `solver` with `substeps`.
fn scene(solver: SolverKind, substeps: u32, base: usize) -> World {
    let mut world = World::new(SolverSettings {
        solver,
        substeps,
        sleep: false,
        ..SolverSettings::default()
    });
    ground(&mut world, 0.6);
    pyramid(&mut world, base);
    let anchor = world
        .create_body(&BodyDef::fixed(Vec2::new(8.0, 8.0)))
        .unwrap();
    let mut prev = anchor;
    for i in 0..5 {
        let p = Vec2::new(8.5 + i as f32, 8.0);
        let link = dynamic_box(&mut world, p, Vec2::new(0.5, 0.1), 1.0, 0.6);
        let def = RevoluteJointDef {
            anchor: Vec2::new(p.x - 0.5, 8.0),
            ..RevoluteJointDef::default()
        };
        world.create_joint(&JointDef::new(prev, link, def)).unwrap();
        prev = link;
    }
    world
}

fn settle(world: &mut World, steps: usize) {
    for _ in 0..steps {
        world.step(DT);
    }
}

/// Iterations a plain step runs, as `step_progress` reports them.
fn iterations_of_a_step(world: &World) -> u32 {
    let mut probe = world.clone();
    probe.step(DT);
    let p = probe.step_progress();
    assert!(!p.halted);
    p.iteration
}

#[test]
fn the_halt_point_counts_classic_sub_steps_and_iterations() {
    let mut world = scene(SolverKind::Classic, 2, 4);
    settle(&mut world, 30);
    let iterations = world.settings().iterations;
    let plain = {
        let mut w = world.clone();
        w.step(DT);
        w.step_progress()
    };
    // Classic: `substeps` full steps, `iterations` passes each.
    assert_eq!(
        plain,
        StepProgress {
            halted: false,
            substep: 2,
            iteration: 2 * iterations,
            substep_iteration: iterations,
        }
    );
    let mut w = world.clone();
    let p = w.step_until(DT, HaltPoint::Iteration(iterations + 3));
    assert_eq!(
        p,
        StepProgress {
            halted: true,
            substep: 2,
            iteration: iterations + 3,
            substep_iteration: 3,
        }
    );
    assert_eq!(
        w.step_count(),
        world.step_count(),
        "a halted step is a view"
    );
    let mut w = world.clone();
    let p = w.step_until(DT, HaltPoint::Substep(2));
    assert_eq!((p.halted, p.substep, p.iteration), (true, 2, iterations));
    assert_eq!(p.substep_iteration, 0);
}

/// Regression: the quarantine between classic sub-steps counts the touching contacts for
/// the stats; a step halted in the second sub-step counted them again on top.
#[test]
fn a_step_halted_in_a_later_classic_sub_step_counts_each_contact_once() {
    let mut world = scene(SolverKind::Classic, 2, 4);
    settle(&mut world, 30);
    let iterations = world.settings().iterations;
    let mut w = world.clone();
    let p = w.step_until(DT, HaltPoint::Iteration(iterations + 3));
    assert!(p.halted && p.substep == 2);
    let touching: Vec<_> = w.contacts().filter(|c| c.is_touching()).collect();
    let points: usize = touching.iter().map(|c| c.manifold().points().len()).sum();
    let stats = w.stats();
    // A 4-row pyramid on the ground: 10 boxes, at least 13 touching pairs.
    assert!(touching.len() >= 13, "{} touching", touching.len());
    assert_eq!(stats.contacts, touching.len());
    assert_eq!(stats.manifold_points, points);
}

#[test]
fn the_halt_point_counts_soft_step_sub_steps_and_iterations() {
    let mut world = scene(SolverKind::SoftStep, 4, 4);
    settle(&mut world, 30);
    // Soft step: one solve and one relax pass per sub-step.
    assert_eq!(iterations_of_a_step(&world), 8);
    let mut w = world.clone();
    let p = w.step_until(DT, HaltPoint::Substep(3));
    assert_eq!(
        p,
        StepProgress {
            halted: true,
            substep: 3,
            iteration: 4,
            substep_iteration: 0,
        }
    );
    let mut w = world.clone();
    let p = w.step_until(DT, HaltPoint::Iteration(5));
    assert_eq!(
        p,
        StepProgress {
            halted: true,
            substep: 3,
            iteration: 5,
            substep_iteration: 1,
        }
    );
}

/// Halting at every point of a step and then finishing it (a point past the end) is the
/// plain step bit for bit, step after step; each halted view is deterministic and records
/// as many residuals as iterations ran.
#[test]
fn every_halt_point_then_finishing_is_the_plain_step() {
    for (solver, substeps) in [
        (SolverKind::Classic, 1),
        (SolverKind::Classic, 2),
        (SolverKind::SoftStep, 4),
    ] {
        let mut plain = scene(solver, substeps, 5);
        let mut inspected = plain.clone();
        inspected.set_record_residuals(true);
        for step in 0..40 {
            let total = iterations_of_a_step(&inspected);
            if step % 10 == 3 {
                for k in 0..=total {
                    let mut a = inspected.clone();
                    let mut b = inspected.clone();
                    let pa = a.step_until(DT, HaltPoint::Iteration(k));
                    let pb = b.step_until(DT, HaltPoint::Iteration(k));
                    assert!(pa.halted && pa.iteration == k, "{solver:?} {k}: {pa:?}");
                    assert_eq!(pa, pb);
                    assert_eq!(
                        a.state_hash(),
                        b.state_hash(),
                        "{solver:?}: point {k} repeats"
                    );
                    assert_eq!(a.iteration_residuals().len(), k as usize);
                }
            }
            let p = inspected.step_until(DT, HaltPoint::Iteration(total + 1));
            assert!(!p.halted && p.iteration == total);
            plain.step(DT);
            assert_eq!(
                inspected.state_hash(),
                plain.state_hash(),
                "{solver:?} x{substeps}: step {step}"
            );
            assert_eq!(inspected.step_count(), plain.step_count());
        }
        // Past the last sub-step too.
        let p = inspected.step_until(DT, HaltPoint::Substep(substeps + 1));
        plain.step(DT);
        assert!(!p.halted);
        assert_eq!(inspected.state_hash(), plain.state_hash());
    }
}

/// The soft step after its last relax pass has done all it does to the state (no
/// restitution here, sleep off): the halted view there is the finished step. Classic after
/// its last iteration has the finished step's velocities (its positions move afterwards).
#[test]
fn the_last_iteration_is_the_finished_step() {
    let mut soft = scene(SolverKind::SoftStep, 4, 5);
    settle(&mut soft, 20);
    let mut halted = soft.clone();
    let p = halted.step_until(DT, HaltPoint::Iteration(8));
    assert!(p.halted);
    soft.step(DT);
    assert_eq!(halted.state_hash(), soft.state_hash());

    let mut classic = scene(SolverKind::Classic, 1, 5);
    settle(&mut classic, 20);
    let mut halted = classic.clone();
    let n = classic.settings().iterations;
    halted.step_until(DT, HaltPoint::Iteration(n));
    let before = classic.clone();
    classic.step(DT);
    let mut moved = 0;
    for ((_, h), ((_, c), (_, b))) in halted.bodies().zip(classic.bodies().zip(before.bodies())) {
        assert_eq!(h.linear_velocity(), c.linear_velocity());
        assert_eq!(h.angular_velocity(), c.angular_velocity());
        assert_eq!(
            h.position(),
            b.position(),
            "positions integrate after the iterations"
        );
        moved += (c.position() != b.position()) as usize;
    }
    assert!(moved > 5);
}

/// A box falling fast onto the ground, soft step: the halted views after each sub-step show
/// the contact closing by about `v h` per sub-step (the points follow the bodies' motion).
#[test]
fn halted_contact_points_follow_the_sub_steps() {
    let mut world = World::new(SolverSettings {
        solver: SolverKind::SoftStep,
        substeps: 4,
        sleep: false,
        ..SolverSettings::default()
    });
    ground(&mut world, 0.6);
    let b = dynamic_box(&mut world, Vec2::new(0.0, 0.56), Vec2::splat(0.5), 1.0, 0.6);
    world.set_linear_velocity(b, Vec2::new(0.0, -3.0)).unwrap();
    let separation = |w: &World| {
        let r = w.contact_point_reports();
        assert!(!r.is_empty());
        r.iter().map(|p| p.separation).fold(f32::MAX, f32::min)
    };
    let mut first = world.clone();
    first.step_until(DT, HaltPoint::Substep(1));
    let s0 = separation(&first);
    assert!((s0 - 0.06).abs() < 1e-4, "speculative contact at {s0}");
    let mut second = world.clone();
    second.step_until(DT, HaltPoint::Substep(2));
    let s1 = separation(&second);
    // 3 m/s (plus a little gravity) over h = 1/240 s: about 12.6 mm closer.
    let closed = s0 - s1;
    assert!(
        (closed - 0.0126).abs() < 0.002,
        "closed {closed} m in one sub-step"
    );
}

#[test]
fn tracking_impulse_changes_changes_nothing_and_shows_convergence() {
    for (solver, substeps) in [(SolverKind::Classic, 1), (SolverKind::SoftStep, 8)] {
        let mut plain = scene(solver, substeps, 6);
        plain
            .set_settings(SolverSettings {
                warm_starting: false,
                iterations: 30,
                ..*plain.settings()
            })
            .unwrap();
        let mut tracked = plain.clone();
        tracked.set_track_impulse_changes(true);
        for _ in 0..30 {
            plain.step(DT);
            tracked.step(DT);
        }
        assert_eq!(plain.state_hash(), tracked.state_hash(), "{solver:?}");
        let change = |w: &World| -> f32 {
            w.contact_point_reports()
                .iter()
                .map(|p| p.impulse_change.unwrap())
                .sum()
        };
        assert!(plain.contact_point_reports()[0].impulse_change.is_none());
        let mut first = tracked.clone();
        first.step_until(DT, HaltPoint::Iteration(1));
        let mut late = tracked.clone();
        let n = iterations_of_a_step(&tracked);
        late.step_until(DT, HaltPoint::Iteration(n));
        let (c1, cn) = (change(&first), change(&late));
        // Cold started, the first pass carries the stack's weight; by the last of 30 the
        // passes only refine it.
        assert!(
            c1 > 5.0 * cn && c1 > 1.0,
            "{solver:?}: first {c1} N s, late {cn} N s"
        );
        let joints = first.joint_reports();
        assert_eq!(joints.len(), 5);
        assert!(joints.iter().all(|j| j.impulse_change.unwrap() >= 0.0));
    }
}

#[test]
fn reports_give_errors_colours_and_islands() {
    let mut soft = scene(SolverKind::SoftStep, 4, 6);
    settle(&mut soft, 5);
    let points = soft.contact_point_reports();
    let slop = soft.settings().allowed_penetration;
    assert!(points.len() > 20);
    for p in &points {
        assert_eq!(p.error, (-p.separation - slop).max(0.0));
        assert!(p.color.is_some(), "the soft step colours its contacts");
    }
    assert!(points.iter().any(|p| p.warm_started));
    assert!(
        points
            .iter()
            .filter_map(|p| match p.color {
                Some(GraphColor::Color(c)) => Some(c),
                _ => None,
            })
            .max()
            .unwrap()
            >= 2,
        "a pyramid needs several colours"
    );
    settle(&mut soft, 60);
    assert!(soft.contact_point_reports().iter().any(|p| p.recycled));
    let joints = soft.joint_reports();
    assert!(joints.iter().all(|j| j.color.is_some()));
    // The chain's gap is small but the joints report it (metres).
    assert!(joints.iter().all(|j| j.error >= 0.0 && j.error < 0.05));

    let mut classic = scene(SolverKind::Classic, 1, 6);
    settle(&mut classic, 5);
    assert!(classic
        .contact_point_reports()
        .iter()
        .all(|p| p.color.is_none() && !p.recycled));
    // Two islands: the pyramid and the chain (the fixed anchor links nothing).
    let islands = classic.body_islands();
    let mut ids: Vec<u32> = islands.iter().map(|i| i.island).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 2, "{islands:?}");
    assert!(islands.iter().all(|i| i.awake));
}

#[test]
fn halting_an_empty_world_or_one_without_contacts_is_harmless() {
    let mut empty = World::default();
    let p = empty.step_until(DT, HaltPoint::Iteration(3));
    assert!(p.halted && p.iteration == 3);
    assert!(empty.contact_point_reports().is_empty());
    assert!(empty.joint_reports().is_empty());
    assert!(empty.body_islands().is_empty());
    let mut alone = World::new(awake_settings());
    let b = dynamic_box(&mut alone, Vec2::new(0.0, 5.0), Vec2::splat(0.5), 1.0, 0.6);
    alone.set_track_impulse_changes(true);
    let p = alone.step_until(DT, HaltPoint::Substep(7));
    assert!(!p.halted);
    let v = alone.body(b).unwrap().linear_velocity().y;
    let g = alone.settings().gravity.y;
    assert!((v - g * DT).abs() < 1e-4, "fell at {v}");
    assert!(alone.contact_point_reports().is_empty());
    assert!(!alone.step_until(f32::NAN, HaltPoint::Iteration(0)).halted);
}
