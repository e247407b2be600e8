//! The hard scenes (every catalog scene with a `verdict`): the soft step must pass every one
//! of them (issue 6). The classic solver's verdicts are recorded by `testbed verdicts`, not
//! asserted here.

use impulse::verdicts::{configurations, hard_scenes, judge, scenes_dir};

#[test]
fn soft_step_passes_every_hard_scene() {
    let soft = configurations()
        .into_iter()
        .find(|c| c.label == "soft step")
        .expect("soft step column");
    let dir = scenes_dir();
    let mut failures = Vec::new();
    let scenes = hard_scenes().expect("the scene library loads");
    // The library's 22 hard scenes (issue 11): a verdict dropped from a file is caught here.
    assert!(scenes.len() >= 22, "only {} hard scenes", scenes.len());
    for scene in scenes {
        match judge(&scene, &soft, &dir) {
            Ok(v) => {
                println!("{:<40} {}", scene.label, v.cell());
                if !v.pass {
                    failures.push(format!("{}: {}", scene.label, v.cell()));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", scene.label)),
        }
    }
    assert!(
        failures.is_empty(),
        "soft step fails:\n{}",
        failures.join("\n")
    );
}

/// The `verdict` field is checked like every other field: each bad value is reported with the
/// file and the field, and nothing loads.
#[test]
fn bad_verdict_fields_are_reported_with_their_place() {
    let text = r#"Scene(
        bodies: [(name: "box", position: (0, 1))],
        verdict: (label: "", criterion: JointGapThroughout(max_gap: -1.0), soft_substeps: 0,
                  pyramid_base: 40),
    )"#;
    let errors = impulse::scene::load_str(text, "bad.ron")
        .err()
        .expect("a bad verdict is refused")
        .to_string();
    for expected in [
        "bad.ron: verdict: label: must not be empty",
        "bad.ron: verdict: criterion.max_gap: must be above 0 and at most 4e6 m (a length",
        "bad.ron: verdict: soft_substeps: must be 1 to 64, got 0",
        "bad.ron: verdict: pyramid_base: the scene has no Pyramid generator",
    ] {
        assert!(
            errors.contains(expected),
            "missing {expected:?} in:\n{errors}"
        );
    }
}

/// Criterion numbers had a lower bound only: 1e38 m or an infinite-looking speed was taken.
/// Each has the upper end of its documented range (lengths, speeds, the angle), and the
/// error names the field, the value and the range.
#[test]
fn verdict_criterion_numbers_past_their_range_are_refused() {
    for (criterion, expected) in [
        (
            "Stands(max_move: 1e30)",
            "criterion.max_move: must be above 0 and at most 4e6 m (a length: the farthest two \
             coordinates can be apart), got 1e30",
        ),
        (
            "GentleRecovery(max_speed: 2e4, max_overlap: 0.1)",
            "criterion.max_speed: must be above 0 and at most 1e4 m/s (a speed",
        ),
        (
            "HeavyHeld(max_overlap: 0.3, max_light_turn: 3e7)",
            "criterion.max_light_turn: must be above 0 and at most 1e7 rad (an angle",
        ),
    ] {
        let text = format!(
            "Scene(bodies: [(name: \"box\", position: (0, 1))], \
             verdict: (label: \"x\", criterion: {criterion}))"
        );
        let errors = impulse::scene::load_str(&text, "far.ron")
            .err()
            .expect("refused")
            .to_string();
        assert!(
            errors.contains(expected),
            "missing {expected:?} in:\n{errors}"
        );
    }
    // The top of each range is taken.
    let text = "Scene(bodies: [(name: \"box\", kind: Static)], verdict: (label: \"x\", \
                criterion: GentleRecovery(max_speed: 1e4, max_overlap: 4e6)))";
    assert!(impulse::scene::load_str(text, "edge.ron").is_ok());
}

#[test]
fn unknown_verdict_criterion_field_is_a_located_syntax_error() {
    let text = "Scene(\n    verdict: (label: \"x\", criterion: Stands(max_mov: 0.1)),\n)";
    let error = impulse::scene::load_str(text, "typo.ron")
        .err()
        .expect("a typo is refused")
        .to_string();
    assert!(error.starts_with("typo.ron:2:"), "{error}");
    assert!(error.contains("max_mov"), "{error}");
}

#[test]
fn a_good_verdict_loads_with_its_defaults() {
    let text = r#"Scene(
        bodies: [(name: "box", position: (0, 1), shapes: [(shape: Box(half_width: 0.5, half_height: 0.5))])],
        verdict: (label: "one box", criterion: Stands(max_move: 0.1)),
    )"#;
    let scene = impulse::scene::parse(text, "good.ron").expect("parses");
    let verdict = scene.verdict.clone().expect("has a verdict");
    assert_eq!(verdict.soft_substeps, 4);
    assert_eq!(verdict.pyramid_base, None);
    if let Err(e) = impulse::scene::build::build(&scene, "good.ron") {
        panic!("a good verdict is refused: {e}");
    }
}

/// The columns come from `SolverKind::ALL`: the soft step, the classic solver and its four
/// toggles off in turn, then every other solver in `ALL`'s order, each exactly once, each
/// label distinct. Applied to a scene's settings, a column sets its solver, one full step
/// (full-step solvers) or at least 4 sub-steps (sub-steppers), and changes nothing else but
/// its toggle.
#[test]
fn columns_cover_every_solver_once() {
    use impulse::physics::{SolverKind, SolverSettings};
    use impulse::verdicts::{column_label, CLASSIC_TOGGLES};
    let columns = configurations();
    assert_eq!(columns.len(), SolverKind::ALL.len() + CLASSIC_TOGGLES.len());
    let plain: Vec<SolverKind> = columns
        .iter()
        .filter(|c| c.toggle.is_none())
        .map(|c| c.solver)
        .collect();
    let others: Vec<SolverKind> = SolverKind::ALL
        .into_iter()
        .filter(|&k| k != SolverKind::SoftStep && k != SolverKind::Classic)
        .collect();
    assert_eq!(
        plain,
        [vec![SolverKind::SoftStep, SolverKind::Classic], others].concat()
    );
    let labels: std::collections::HashSet<_> = columns.iter().map(|c| c.label).collect();
    assert_eq!(labels.len(), columns.len());
    assert_eq!(columns[0].label, "soft step");
    assert_eq!(columns[1].label, "classic");
    for (i, (label, _)) in CLASSIC_TOGGLES.iter().enumerate() {
        assert_eq!(columns[2 + i].label, *label);
        assert_eq!(columns[2 + i].solver, SolverKind::Classic);
    }

    let scene = SolverSettings {
        substeps: 2,
        iterations: 7,
        ..SolverSettings::default()
    };
    let mut classic = scene;
    columns[1].apply(&mut classic);
    for c in &columns {
        let mut s = scene;
        c.apply(&mut s);
        assert_eq!(s.solver, c.solver, "{}", c.label);
        assert_eq!(
            s.substeps,
            if c.solver.sub_steps() { 4 } else { 1 },
            "{}",
            c.label
        );
        assert_eq!(s.iterations, 7, "{}", c.label);
        if c.toggle.is_none() {
            assert_eq!(c.label, column_label(c.solver));
            assert_eq!(
                SolverSettings {
                    solver: scene.solver,
                    substeps: 2,
                    ..s
                },
                scene
            );
        } else {
            let changed = [
                s.warm_starting != classic.warm_starting,
                s.position_correction != classic.position_correction,
                s.block_solver != classic.block_solver,
                s.accumulate_impulses != classic.accumulate_impulses,
            ];
            assert_eq!(changed.iter().filter(|&&x| x).count(), 1, "{}", c.label);
            let back = SolverSettings {
                warm_starting: classic.warm_starting,
                position_correction: classic.position_correction,
                block_solver: classic.block_solver,
                accumulate_impulses: classic.accumulate_impulses,
                ..s
            };
            assert_eq!(back, classic, "{}", c.label);
        }
    }
    // A scene asking for more sub-steps keeps them under a sub-stepper.
    let mut s = SolverSettings {
        substeps: 6,
        ..scene
    };
    columns[0].apply(&mut s);
    assert_eq!(s.substeps, 6);
}
