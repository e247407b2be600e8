//! The scene library: one table of every scene file under `scenes/`. The testbed menu, the
//! `list` and `bench` commands and the tests that load every scene all read this table, and a
//! test fails when a `.ron` file under `scenes/` is missing from it.

use std::path::{Path, PathBuf};

/// A scene of the library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Menu category; the file's `category` field must say the same.
    pub category: &'static str,
    /// Path under `scenes/`.
    pub file: &'static str,
}

const fn entry(category: &'static str, file: &'static str) -> Entry {
    Entry { category, file }
}

pub const BOX2D_LITE: &str = "Box2D-Lite";
pub const SHAPES: &str = "Shapes";
pub const STACKING: &str = "Stacking and robustness";
pub const JOINTS: &str = "Joints";
pub const BENCHMARK: &str = "Benchmark";

/// Every scene, in menu order.
pub const CATALOG: &[Entry] = &[
    entry(BOX2D_LITE, "box2d_lite/single_box.ron"),
    entry(BOX2D_LITE, "box2d_lite/simple_pendulum.ron"),
    entry(BOX2D_LITE, "box2d_lite/varying_friction.ron"),
    entry(BOX2D_LITE, "box2d_lite/randomized_stacking.ron"),
    entry(BOX2D_LITE, "box2d_lite/pyramid_stacking.ron"),
    entry(BOX2D_LITE, "box2d_lite/teeter.ron"),
    entry(BOX2D_LITE, "box2d_lite/suspension_bridge.ron"),
    entry(BOX2D_LITE, "box2d_lite/dominos.ron"),
    entry(BOX2D_LITE, "box2d_lite/multi_pendulum.ron"),
    entry(SHAPES, "shapes/polygons.ron"),
    entry(SHAPES, "shapes/circles.ron"),
    entry(SHAPES, "shapes/capsules.ron"),
    entry(SHAPES, "shapes/segment_terrain.ron"),
    entry(SHAPES, "shapes/compound_bodies.ron"),
    entry(SHAPES, "shapes/clipping_examples.ron"),
    entry(STACKING, "stacking/vertical_stack.ron"),
    entry(STACKING, "stacking/vertical_stack_20.ron"),
    entry(STACKING, "stacking/vertical_stack_80.ron"),
    entry(STACKING, "stacking/vertical_stack_10x5.ron"),
    entry(STACKING, "stacking/tilted_stack.ron"),
    entry(STACKING, "stacking/circle_stack.ron"),
    entry(STACKING, "stacking/capsule_stack.ron"),
    entry(STACKING, "stacking/tiny_pyramid.ron"),
    entry(STACKING, "stacking/cart.ron"),
    entry(STACKING, "stacking/multiple_prismatic.ron"),
    entry(STACKING, "stacking/cliff.ron"),
    entry(STACKING, "stacking/arch.ron"),
    entry(STACKING, "stacking/card_house.ron"),
    entry(STACKING, "stacking/confined_circles.ron"),
    entry(STACKING, "stacking/high_mass_ratio_1.ron"),
    entry(STACKING, "stacking/high_mass_ratio_2.ron"),
    entry(STACKING, "stacking/high_mass_ratio_3.ron"),
    entry(STACKING, "stacking/stretched_chain.ron"),
    entry(STACKING, "stacking/overlap_recovery.ron"),
    entry(STACKING, "stacking/double_domino.ron"),
    entry(STACKING, "stacking/ball_and_chain.ron"),
    entry(STACKING, "stacking/long_bridge.ron"),
    entry(JOINTS, "joints/revolute.ron"),
    entry(JOINTS, "joints/prismatic.ron"),
    entry(JOINTS, "joints/wheel_car.ron"),
    entry(JOINTS, "joints/weld_cantilever.ron"),
    entry(JOINTS, "joints/angle.ron"),
    entry(JOINTS, "joints/pulley.ron"),
    entry(JOINTS, "joints/distance.ron"),
    entry(JOINTS, "joints/motor_joint.ron"),
    entry(JOINTS, "joints/friction.ron"),
    entry(JOINTS, "joints/breakable_bridge.ron"),
    entry(JOINTS, "joints/breakable_wall.ron"),
    entry(JOINTS, "joints/breakable_rope.ron"),
    entry(BENCHMARK, "benchmark/large_pyramid.ron"),
    entry(BENCHMARK, "benchmark/many_pyramids.ron"),
    entry(BENCHMARK, "benchmark/joint_grid.ron"),
    entry(BENCHMARK, "benchmark/tumbler.ron"),
    entry(BENCHMARK, "benchmark/compounds.ron"),
    entry(BENCHMARK, "benchmark/junkyard.ron"),
    entry(BENCHMARK, "benchmark/smash.ron"),
    entry(BENCHMARK, "benchmark/spinner.ron"),
    entry(BENCHMARK, "benchmark/washer.ron"),
    entry(BENCHMARK, "benchmark/rain.ron"),
];

/// The `scenes/` folder: `$IMPULSE_SCENES` when set, else `scenes/` in the working
/// directory when it exists, else the one in the source tree this was built from.
pub fn scenes_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("IMPULSE_SCENES") {
        return PathBuf::from(dir);
    }
    let local = PathBuf::from("scenes");
    if local.join("README.md").is_file() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")
}

impl Entry {
    /// The file's path under `dir`.
    pub fn path_in(&self, dir: &Path) -> PathBuf {
        dir.join(self.file)
    }

    /// The file's path in `scenes_dir()`.
    pub fn path(&self) -> PathBuf {
        self.path_in(&scenes_dir())
    }
}

/// Entries of one category, in menu order.
pub fn in_category(category: &str) -> impl Iterator<Item = &'static Entry> + '_ {
    CATALOG.iter().filter(move |e| e.category == category)
}

/// The categories, in menu order, each once.
pub fn categories() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for e in CATALOG {
        if !out.contains(&e.category) {
            out.push(e.category);
        }
    }
    out
}

/// `.ron` files anywhere under `dir` that the catalog does not list, as paths relative to
/// `dir` with `/` separators.
pub fn unlisted_files(dir: &Path) -> std::io::Result<Vec<String>> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            if entry.file_type()?.is_dir() {
                walk(&entry.path(), &format!("{rel}/"), out)?;
            } else if rel.ends_with(".ron") && !CATALOG.iter().any(|e| e.file == rel) {
                out.push(rel);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, "", &mut out)?;
    out.sort();
    Ok(out)
}
