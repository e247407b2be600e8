//! The revolute joint's angular spring and reference angle (Box2D v3's `enableSpring`,
//! `hertz`, `dampingRatio`, `referenceAngle`): a torsion oscillator keeps the set frequency
//! and decays by the set damping ratio, under the soft step and the classic solver; a limb
//! rests at its reference angle; limits are measured from the reference angle.

// Reference values and test inputs may use libm (`clippy.toml` keeps it out of the core).
#![allow(clippy::disallowed_methods)]

mod common;

use common::*;
use impulse::physics::joint::*;
use impulse::physics::*;
use std::f32::consts::PI;

/// A 1 x 0.2 m bar (2 x 0.4 m box, density 1) pinned at its centre to a static body, in
/// zero gravity, turned `angle0` from the reference (0), on a spring of `hertz` and
/// `zeta`. The pin passes through the centre of mass, so only the spring acts on the turn:
/// `I theta'' = -k theta - c theta'` with `k = I (2 pi hertz)^2`, `c = 2 zeta I 2 pi hertz`.
fn torsion_oscillator(
    solver: SolverKind,
    hertz: f32,
    zeta: f32,
    angle0: f32,
) -> (World, BodyHandle) {
    let settings = SolverSettings {
        solver,
        gravity: Vec2::ZERO,
        substeps: 4,
        ..awake_settings()
    };
    let mut world = World::new(settings);
    let pivot = Vec2::new(0.0, 5.0);
    let ground = world.create_body(&BodyDef::fixed(pivot)).unwrap();
    let bar = world
        .create_body(&BodyDef::dynamic(pivot).angle(angle0))
        .unwrap();
    world
        .create_shape(
            bar,
            &ShapeDef::new(Geometry::Polygon(Polygon::new_box(1.0, 0.2).unwrap())).density(1.0),
        )
        .unwrap();
    world
        .create_joint(&JointDef::new(
            ground,
            bar,
            RevoluteJointDef {
                anchor: pivot,
                reference_angle: Some(0.0),
                enable_spring: true,
                spring_hertz: hertz,
                spring_damping_ratio: zeta,
                ..Default::default()
            },
        ))
        .unwrap();
    (world, bar)
}

/// The bar's angle sampled every step for `seconds`: (time, angle).
fn swing(world: &mut World, bar: BodyHandle, seconds: f32) -> Vec<(f32, f32)> {
    let dt = world.settings().dt();
    let steps = (seconds / dt).round() as usize;
    (1..=steps)
        .map(|k| {
            world.step(dt);
            (k as f32 * dt, world.body(bar).unwrap().angle())
        })
        .collect()
}

/// Times of the downward crossings of zero (linear interpolation).
fn down_crossings(samples: &[(f32, f32)]) -> Vec<f32> {
    samples
        .windows(2)
        .filter(|w| w[0].1 > 0.0 && w[1].1 <= 0.0)
        .map(|w| {
            let ((t0, x0), (t1, x1)) = (w[0], w[1]);
            t0 + (t1 - t0) * x0 / (x0 - x1)
        })
        .collect()
}

/// The largest angle in each period after the first crossing (the peaks of the decay).
fn peaks(samples: &[(f32, f32)], crossings: &[f32]) -> Vec<f32> {
    crossings
        .windows(2)
        .map(|w| {
            samples
                .iter()
                .filter(|(t, _)| *t > w[0] && *t <= w[1])
                .map(|&(_, x)| x)
                .fold(f32::MIN, f32::max)
        })
        .collect()
}

const SOLVERS: [SolverKind; 2] = [SolverKind::SoftStep, SolverKind::Classic];

#[test]
fn revolute_spring_oscillates_at_its_frequency() {
    // 1 Hz, lightly damped: the damped period is 1 / (hertz sqrt(1 - zeta^2)).
    let (hertz, zeta): (f32, f32) = (1.0, 0.05);
    let expected = 1.0 / (hertz * (1.0 - zeta * zeta).sqrt());
    for solver in SOLVERS {
        let (mut world, bar) = torsion_oscillator(solver, hertz, zeta, 0.5);
        let samples = swing(&mut world, bar, 6.0);
        let crossings = down_crossings(&samples);
        assert!(crossings.len() >= 5, "{solver:?}: {crossings:?}");
        let n = crossings.len();
        let period = (crossings[n - 1] - crossings[0]) / (n - 1) as f32;
        let err = (period - expected).abs() / expected;
        assert!(
            err < 0.05,
            "{solver:?}: period {period:.4} s vs {expected:.4} s ({:.2}%)",
            100.0 * err
        );
    }
}

/// Mean log decrement of the peaks per period of a torsion oscillator.
fn log_decrement(solver: SolverKind, hertz: f32, zeta: f32) -> f32 {
    let (mut world, bar) = torsion_oscillator(solver, hertz, zeta, 0.5);
    let samples = swing(&mut world, bar, 5.0);
    let p = peaks(&samples, &down_crossings(&samples));
    assert!(p.len() >= 3, "{solver:?} zeta {zeta}: peaks {p:?}");
    (p[p.len() - 1] / p[0]).ln() / (p.len() - 1) as f32
}

#[test]
fn revolute_spring_decays_by_its_damping_ratio() {
    // The damping the ratio adds: the amplitude falls by exp(-2 pi zeta / sqrt(1 - zeta^2))
    // per damped period. The implicit (soft) spring also loses a little each (sub-)step,
    // about (h omega)^2 / 2 per application (twice per sub-step in the soft step, which
    // applies the spring in the relax pass too, as Box2D v3 does); that loss is measured on
    // the same oscillator with zeta = 0 and taken out.
    let hertz = 1.0;
    for zeta in [0.1f32, 0.3] {
        let expected = -2.0 * PI * zeta / (1.0 - zeta * zeta).sqrt();
        for solver in SOLVERS {
            let numerical = log_decrement(solver, hertz, 0.0);
            let damped = log_decrement(solver, hertz, zeta);
            let by_ratio = damped - numerical;
            let err = (by_ratio - expected).abs() / expected.abs();
            assert!(
                err < 0.05,
                "{solver:?} zeta {zeta}: log decrement from the ratio {by_ratio:.4} vs \
                 {expected:.4} ({:.1}%; numerical {numerical:.4})",
                100.0 * err
            );
            // The undamped spring keeps its swing: the numerical loss is small beside the
            // ratio's (1 Hz at 240 Hz sub-steps: 0.08 per application per period).
            assert!(
                numerical < 0.0 && numerical > -0.2,
                "{solver:?}: zeta 0 loses {numerical:.4} per period"
            );
        }
    }
}

/// A 1 m limb (0.5 kg) pinned at its end to a static shoulder, stiff spring, reference pi/4:
/// in zero gravity it turns from 0 to rest at pi/4; under gravity it sags below pi/4 until
/// `k (theta - pi/4) = m g (L/2) cos(theta)`. The spring's stiffness is Box2D v3's:
/// `k = (2 pi hertz)^2 / (i_a + i_b)`, the joint's axial mass (here the limb's central
/// inertia) times omega^2.
#[test]
fn reference_angle_is_where_a_sprung_limb_rests() {
    let reference = PI / 4.0;
    let (hertz, zeta) = (4.0, 1.0);
    for solver in SOLVERS {
        for g in [0.0, -10.0] {
            let settings = SolverSettings {
                solver,
                gravity: Vec2::new(0.0, g),
                ..awake_settings()
            };
            let mut world = World::new(settings);
            let shoulder = Vec2::new(0.0, 5.0);
            let torso = world.create_body(&BodyDef::fixed(shoulder)).unwrap();
            let limb = world
                .create_body(&BodyDef::dynamic(shoulder + Vec2::new(0.5, 0.0)))
                .unwrap();
            world
                .create_shape(
                    limb,
                    &ShapeDef::new(Geometry::Polygon(Polygon::new_box(0.5, 0.05).unwrap()))
                        .density(5.0),
                )
                .unwrap();
            let joint = world
                .create_joint(&JointDef::new(
                    torso,
                    limb,
                    RevoluteJointDef {
                        anchor: shoulder,
                        reference_angle: Some(reference),
                        enable_spring: true,
                        spring_hertz: hertz,
                        spring_damping_ratio: zeta,
                        ..Default::default()
                    },
                ))
                .unwrap();
            run(&mut world, 3.0);
            let body = world.body(limb).unwrap();
            let angle = body.angle();
            // Static deflection under gravity (about 0.07 rad), by fixed-point iteration.
            let mass = body.mass();
            let k = body.inertia() * (2.0 * PI * hertz).powi(2);
            let mut sag = 0.0f32;
            for _ in 0..50 {
                sag = mass * g * 0.5 * (reference + sag).cos() / k;
            }
            let expected = reference + sag;
            assert!(
                (angle - expected).abs() < 2e-3,
                "{solver:?} g {g}: rests at {angle:.4} rad, expected {expected:.4} (sag {sag:.4})"
            );
            assert!(body.angular_velocity().abs() < 1e-3);
            let j = world.joint(joint).unwrap();
            let JointKind::Revolute(r) = j.kind() else {
                panic!("revolute")
            };
            assert_eq!(r.reference_angle(), reference);
            // The joint angle is measured from the reference.
            assert!((r.joint_angle(world.body(torso).unwrap(), body) - sag).abs() < 2e-3);
        }
    }
}

/// Limits are measured from the reference angle: a limb starting at 0 with reference pi/4
/// and limits [-0.1, 0.1] (joint angle -pi/4, far below the lower limit) is pushed into
/// pi/4 +- 0.1 and kept there (no spring, zero gravity).
#[test]
fn limits_are_measured_from_the_reference_angle() {
    let reference = PI / 4.0;
    for solver in SOLVERS {
        let settings = SolverSettings {
            solver,
            gravity: Vec2::ZERO,
            ..awake_settings()
        };
        let mut world = World::new(settings);
        let shoulder = Vec2::new(0.0, 5.0);
        let torso = world.create_body(&BodyDef::fixed(shoulder)).unwrap();
        let limb = world
            .create_body(&BodyDef::dynamic(shoulder + Vec2::new(0.5, 0.0)))
            .unwrap();
        world
            .create_shape(
                limb,
                &ShapeDef::new(Geometry::Polygon(Polygon::new_box(0.5, 0.05).unwrap()))
                    .density(5.0),
            )
            .unwrap();
        world
            .create_joint(&JointDef::new(
                torso,
                limb,
                RevoluteJointDef {
                    anchor: shoulder,
                    reference_angle: Some(reference),
                    enable_limit: true,
                    lower_angle: -0.1,
                    upper_angle: 0.1,
                    ..Default::default()
                },
            ))
            .unwrap();
        let dt = world.settings().dt();
        for k in 0..120 {
            world.step(dt);
            let angle = world.body(limb).unwrap().angle();
            if k >= 30 {
                assert!(
                    (reference - 0.1 - 0.01..=reference + 0.1 + 0.01).contains(&angle),
                    "{solver:?} step {k}: at {angle:.4} rad, limits {:.4}..{:.4}",
                    reference - 0.1,
                    reference + 0.1
                );
            }
        }
    }
}

/// Without `reference_angle` the reference is the bodies' relative angle at creation (the
/// behaviour before the field existed), and the spring is off by default.
#[test]
fn default_reference_is_the_creation_angle_and_the_spring_is_off() {
    let def = RevoluteJointDef::default();
    assert_eq!(def.reference_angle, None);
    assert!(!def.enable_spring);
    let mut world = World::new(awake_settings());
    let a = world
        .create_body(&BodyDef::fixed(Vec2::ZERO).angle(0.3))
        .unwrap();
    let b = world
        .create_body(&BodyDef::dynamic(Vec2::new(1.0, 0.0)).angle(1.0))
        .unwrap();
    world
        .create_shape(
            b,
            &ShapeDef::new(Geometry::Polygon(Polygon::new_box(0.5, 0.5).unwrap())).density(1.0),
        )
        .unwrap();
    let j = world
        .create_joint(&JointDef::new(a, b, RevoluteJointDef::new(Vec2::ZERO)))
        .unwrap();
    let JointKind::Revolute(r) = world.joint(j).unwrap().kind() else {
        panic!("revolute")
    };
    assert!((r.reference_angle() - 0.7).abs() < 1e-6);
    assert_eq!(r.spring(), (false, 0.0, 0.0));
}

/// Bad spring values are refused with the field named; nothing is created.
#[test]
fn bad_spring_values_are_refused_by_field() {
    let mut world = World::new(awake_settings());
    let a = world.create_body(&BodyDef::fixed(Vec2::ZERO)).unwrap();
    let b = world.create_body(&BodyDef::dynamic(Vec2::X)).unwrap();
    for (def, field) in [
        (
            RevoluteJointDef {
                spring_hertz: -1.0,
                ..Default::default()
            },
            "spring_hertz",
        ),
        (
            RevoluteJointDef {
                spring_damping_ratio: f32::NAN,
                ..Default::default()
            },
            "spring_damping_ratio",
        ),
        (
            RevoluteJointDef {
                reference_angle: Some(f32::INFINITY),
                ..Default::default()
            },
            "reference_angle",
        ),
    ] {
        let err = world.create_joint(&JointDef::new(a, b, def)).unwrap_err();
        assert_eq!(err.field, field, "{err:?}");
    }
    assert_eq!(world.joint_count(), 0);
}

/// Every solver family runs the spring through the joint's own rows: the frequency holds in
/// eight of them. TGS-Sticky and XPBD never warm start and sum a joint's impulse over the
/// step's sub-steps (`SolverKind::impulse_spans`), so the soft spring's feedback term
/// (`impulse_scale` times the accumulated impulse) sees the sum of the earlier sub-steps:
/// the spring runs at 1 / substeps of its stiffness, sqrt(substeps) = 2 times the period at 4
/// sub-steps (the wheel and distance springs share the formula). Pinned here as a known
/// limitation of those two families, so that a fix shows up.
#[test]
fn revolute_spring_keeps_its_frequency_under_every_solver() {
    let (hertz, zeta): (f32, f32) = (1.0, 0.05);
    let expected = 1.0 / (hertz * (1.0 - zeta * zeta).sqrt());
    for solver in SolverKind::ALL {
        let (mut world, bar) = torsion_oscillator(solver, hertz, zeta, 0.5);
        let samples = swing(&mut world, bar, 6.0);
        let crossings = down_crossings(&samples);
        assert!(crossings.len() >= 3, "{solver:?}: {crossings:?}");
        let n = crossings.len();
        let period = (crossings[n - 1] - crossings[0]) / (n - 1) as f32;
        let summed = matches!(solver, SolverKind::TgsSticky | SolverKind::Xpbd);
        let want = if summed {
            expected * (world.settings().substeps as f32).sqrt()
        } else {
            expected
        };
        let err = (period - want).abs() / want;
        assert!(
            err < 0.05,
            "{solver:?}: period {period:.4} s vs {want:.4} s ({:.2}%)",
            100.0 * err
        );
    }
}
