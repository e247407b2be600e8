//! The hard scenes: the soft step must pass every one of them (issue 6). The classic
//! solver's verdicts are recorded by `testbed verdicts`, not asserted here.

use impulse::verdicts::{configurations, hard_scenes, judge, scenes_dir};

#[test]
fn soft_step_passes_every_hard_scene() {
    let soft = configurations()
        .into_iter()
        .find(|c| c.label == "soft step")
        .expect("soft step column");
    let dir = scenes_dir();
    let mut failures = Vec::new();
    for scene in hard_scenes() {
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
