//! The hard-scene verdicts: the stacking and robustness scenes that separate a solver that
//! works from one that does not, each with a stated pass criterion, run under the soft step,
//! under the classic solver with and without each of its toggles, and under the eight other
//! solvers of the matrix (issue 13).
//!
//! `testbed verdicts` prints the table; `tests/verdicts.rs` requires the soft step to pass
//! every scene. No GUI: this module depends on the core and the scene loader only.

use std::path::Path;

use glam::Vec2;

use crate::physics::{Aabb, BodyHandle, BodyKind, SolverKind, SolverSettings, World};
use crate::scene::format::Generator;
use crate::scene::{self, catalog};

/// A solver configuration of the table: a change applied to the scene's own settings.
#[derive(Clone, Copy, Debug)]
pub struct Configuration {
    pub label: &'static str,
    /// The solver of the column.
    pub solver: SolverKind,
    /// A classic toggle turned off on top (`CLASSIC_TOGGLES`), or none.
    pub toggle: Option<Toggle>,
}

impl Configuration {
    /// Apply the column to a scene's settings: the solver, full steps at the scene's
    /// iterations (one step) or sub-steps (at least 4, or the scene's), and the toggle.
    pub fn apply(&self, s: &mut SolverSettings) {
        family(s, self.solver);
        if let Some(toggle) = self.toggle {
            toggle(s);
        }
    }
}

/// A change of one setting on top of a column's solver.
pub type Toggle = fn(&mut SolverSettings);

/// The classic solver's columns beyond its own: each toggle turned off in turn.
pub const CLASSIC_TOGGLES: [(&str, Toggle); 4] = [
    ("classic, no warm starting", |s| s.warm_starting = false),
    ("classic, no position correction", |s| {
        s.position_correction = false
    }),
    ("classic, no block solver", |s| s.block_solver = false),
    ("classic, increments clamped", |s| {
        s.accumulate_impulses = false
    }),
];

/// The column label of a solver as the scene sets it ("classic" for Box2D-Lite's PGS).
pub fn column_label(kind: SolverKind) -> &'static str {
    match kind {
        SolverKind::Classic => "classic",
        _ => kind.label(),
    }
}

/// The columns of the table: the soft step, then the classic solver as the scene sets it
/// and with each toggle turned off in turn, then every other solver of `SolverKind::ALL` in
/// its order (a new solver gets its column here).
pub fn configurations() -> Vec<Configuration> {
    const FIRST: [SolverKind; 2] = [SolverKind::SoftStep, SolverKind::Classic];
    let column = |solver| Configuration {
        label: column_label(solver),
        solver,
        toggle: None,
    };
    let mut columns: Vec<Configuration> = FIRST.into_iter().map(column).collect();
    columns.extend(CLASSIC_TOGGLES.map(|(label, toggle)| Configuration {
        label,
        solver: SolverKind::Classic,
        toggle: Some(toggle),
    }));
    columns.extend(
        SolverKind::ALL
            .into_iter()
            .filter(|k| !FIRST.contains(k))
            .map(column),
    );
    columns
}

/// One solver's column settings: the full-step ones as the classic column (one step, the
/// scene's iterations), the sub-stepping ones as the soft step's (at least 4 sub-steps, or
/// the scene's `soft_substeps`).
fn family(s: &mut SolverSettings, kind: SolverKind) {
    s.solver = kind;
    s.substeps = if kind.sub_steps() {
        s.substeps.max(4)
    } else {
        1
    };
}

pub use crate::scene::format::Criterion;

/// How long every hard scene is run, seconds: long enough for a slowly growing mode to
/// show (issue 11: a soft-step stack that looked fine at 10 s fell at 12 s).
pub const JUDGED_SECONDS: f32 = 60.0;

/// One row of the table: a catalog scene with a `verdict` (see `scenes/README.md`).
#[derive(Clone, Debug)]
pub struct HardScene {
    /// Row label.
    pub label: String,
    /// Scene file under `scenes/`.
    pub file: &'static str,
    /// Seconds simulated.
    pub seconds: f32,
    /// Pyramid base to use instead of the file's (the large pyramid is base 100 in the
    /// benchmark, 40 here).
    pub pyramid_base: Option<u32>,
    /// Sub-steps of the soft step for this scene, at least (the card house needs 8).
    pub soft_substeps: u32,
    pub criterion: Criterion,
}

/// The rows: every catalog scene whose file has a `verdict`, in catalog order, read from
/// `dir`. The first file that cannot be read or parsed is the error.
pub fn hard_scenes_in(dir: &Path) -> Result<Vec<HardScene>, String> {
    let mut rows = Vec::new();
    for entry in catalog::CATALOG {
        let path = entry.path_in(dir);
        let text = scene::read_file(&path).map_err(|e| e.to_string())?;
        let file = scene::parse(&text, &path.display().to_string()).map_err(|e| e.to_string())?;
        if let Some(v) = file.verdict {
            rows.push(HardScene {
                label: v.label,
                file: entry.file,
                seconds: JUDGED_SECONDS,
                pyramid_base: v.pyramid_base,
                soft_substeps: v.soft_substeps,
                criterion: v.criterion,
            });
        }
    }
    Ok(rows)
}

/// The rows of the library in `scenes_dir()`.
pub fn hard_scenes() -> Result<Vec<HardScene>, String> {
    hard_scenes_in(&scenes_dir())
}

/// The outcome of one scene under one configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub pass: bool,
    /// The measured number the criterion is about.
    pub value: f32,
    /// What `value` is, with its unit ("drop 0.03 m").
    pub what: String,
}

impl Verdict {
    /// A long form: "pass: top dropped 0.030 m, fastest body 0.000 m/s".
    pub fn cell(&self) -> String {
        format!("{}: {}", if self.pass { "pass" } else { "FAIL" }, self.what)
    }

    /// A table cell: "pass 0.030" (the number the criterion is about), or on failure
    /// "**FAIL** " and what failed ("top dropped 2.1 m, fastest body 0.6 m/s").
    pub fn short(&self) -> String {
        if self.pass {
            format!("pass {:.3}", self.value)
        } else {
            format!("**FAIL** {}", self.what)
        }
    }
}

/// Load a hard scene with a configuration applied.
pub fn load(scene: &HardScene, config: &Configuration, dir: &Path) -> Result<World, String> {
    let path = dir.join(scene.file);
    let text = scene::read_file(&path).map_err(|e| e.to_string())?;
    let file_name = path.display().to_string();
    let mut file = scene::parse(&text, &file_name).map_err(|e| e.to_string())?;
    if let Some(base) = scene.pyramid_base {
        for generator in &mut file.generators {
            if let Generator::Pyramid(pyramid) = generator {
                pyramid.base = base;
            }
        }
    }
    let loaded = scene::build::build(&file, &file_name).map_err(|e| e.to_string())?;
    let mut world = loaded.world;
    let mut settings = *world.settings();
    config.apply(&mut settings);
    // Judged awake: sleep would hide a slow instability by freezing it.
    settings.sleep = false;
    if settings.solver.sub_steps() {
        settings.substeps = settings.substeps.max(scene.soft_substeps);
    }
    world.set_settings(settings).map_err(|e| e.to_string())?;
    Ok(world)
}

/// One body as a judged engine reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyReading {
    /// World position of the body origin (what its shapes are relative to), m.
    pub position: Vec2,
    /// rad, counter-clockwise.
    pub angle: f32,
    /// Of the centre of mass, m/s.
    pub linear_velocity: Vec2,
}

/// An engine running a hard scene: Impulse's world, or a peer built from it (the benchmark
/// package's Box2D v3 and Rapier ports). Bodies are numbered in the creation order of the
/// scene's Impulse world.
pub trait Judged {
    /// Advance one step of the scene's `dt`.
    fn step(&mut self);
    /// Body `index` now.
    fn body(&mut self, index: usize) -> BodyReading;
    /// The largest linear joint error now, m (Impulse's `Joint::linear_error`: the anchors'
    /// distance, or the off-axis drift plus any limit overrun of a slide).
    fn joint_gap(&mut self) -> f32;
    /// The deepest overlap among the contact points now, m (0 when none overlap).
    fn max_overlap(&mut self) -> f32;
}

/// What the criteria know of the scene before the first step, read from the Impulse world.
#[derive(Clone, Debug)]
pub struct Start {
    /// Every body in creation order.
    pub bodies: Vec<BodyStart>,
    /// The shapes' bounding box at the start.
    pub bounds: Option<Aabb>,
    /// Steps to run.
    pub steps: usize,
}

/// One body before the first step.
#[derive(Clone, Copy, Debug)]
pub struct BodyStart {
    pub dynamic: bool,
    /// Named `heavy*` (the load of the high mass ratio scenes).
    pub heavy: bool,
    pub position: Vec2,
    pub angle: f32,
}

impl Start {
    /// Read `world` before its first step; the run lasts `seconds` at the world's `dt`.
    pub fn of(world: &World, seconds: f32) -> Start {
        let bodies = world
            .bodies()
            .map(|(_, b)| BodyStart {
                dynamic: b.kind() == BodyKind::Dynamic,
                heavy: b.name().is_some_and(|n| n.starts_with("heavy")),
                position: b.position(),
                angle: b.angle(),
            })
            .collect();
        Start {
            bodies,
            bounds: world.bounds(),
            steps: (seconds / world.settings().dt()).round() as usize,
        }
    }
}

/// Impulse's world as a judged engine.
pub struct ImpulseRun {
    pub world: World,
    handles: Vec<BodyHandle>,
    dt: f32,
}

impl ImpulseRun {
    pub fn new(world: World) -> ImpulseRun {
        let handles = world.bodies().map(|(h, _)| h).collect();
        let dt = world.settings().dt();
        ImpulseRun { world, handles, dt }
    }
}

impl Judged for ImpulseRun {
    fn step(&mut self) {
        self.world.step(self.dt);
    }

    fn body(&mut self, index: usize) -> BodyReading {
        self.world.body(self.handles[index]).map_or(
            BodyReading {
                position: Vec2::NAN,
                angle: f32::NAN,
                linear_velocity: Vec2::NAN,
            },
            |b| BodyReading {
                position: b.position(),
                angle: b.angle(),
                linear_velocity: b.linear_velocity(),
            },
        )
    }

    fn joint_gap(&mut self) -> f32 {
        joint_gap(&self.world)
    }

    fn max_overlap(&mut self) -> f32 {
        self.world.stats().max_penetration
    }
}

/// Run one scene under one configuration and judge it.
pub fn judge(scene: &HardScene, config: &Configuration, dir: &Path) -> Result<Verdict, String> {
    let world = load(scene, config, dir)?;
    let start = Start::of(&world, scene.seconds);
    judge_run(&scene.criterion, &start, &mut ImpulseRun::new(world))
}

/// Run `sim` for `start.steps` steps and judge it on `criterion`. The same code judges
/// Impulse and its peers.
pub fn judge_run(
    criterion: &Criterion,
    start: &Start,
    sim: &mut dyn Judged,
) -> Result<Verdict, String> {
    let dynamic: Vec<(usize, Vec2)> = start
        .bodies
        .iter()
        .enumerate()
        .filter(|(_, b)| b.dynamic)
        .map(|(i, b)| (i, b.position))
        .collect();
    let top = dynamic
        .iter()
        .max_by(|a, b| a.1.y.total_cmp(&b.1.y))
        .map(|&(i, p)| (i, p));
    let heavy: Vec<(usize, f32)> = start
        .bodies
        .iter()
        .enumerate()
        .filter(|(_, b)| b.heavy)
        .map(|(i, b)| (i, b.position.y))
        .collect();

    let mut peak_speed: f32 = 0.0;
    let mut worst_gap: f32 = 0.0;
    let mut escaped = false;
    for _ in 0..start.steps {
        sim.step();
        match *criterion {
            Criterion::GentleRecovery { .. } => {
                for &(i, _) in &dynamic {
                    let speed = sim.body(i).linear_velocity.length();
                    peak_speed = peak_speed.max(speed);
                }
            }
            Criterion::JointGapThroughout { .. } => {
                worst_gap = worst_gap.max(sim.joint_gap());
            }
            Criterion::Settles { margin, .. } => {
                if let Some(bb) = start.bounds {
                    let grown = bb.extended(margin);
                    escaped |= dynamic
                        .iter()
                        .any(|&(i, _)| !grown.contains_point(sim.body(i).position));
                }
            }
            _ => {}
        }
    }
    let end: Vec<BodyReading> = (0..start.bodies.len()).map(|i| sim.body(i)).collect();
    let non_finite = end.iter().any(|b| !b.position.is_finite());
    let max_speed = dynamic
        .iter()
        .map(|&(i, _)| end[i].linear_velocity.length())
        .fold(0.0, f32::max);
    let position = |i: usize| end[i].position;

    let verdict = match *criterion {
        Criterion::TopStays {
            max_drop,
            max_shift,
        } => {
            let (i, start) = top.ok_or("no dynamic body")?;
            let end = position(i);
            let drop = start.y - end.y;
            let shift = (end.x - start.x).abs();
            Verdict {
                pass: drop.abs() < max_drop && shift < max_shift,
                value: drop.abs().max(shift),
                what: format!("top moved {:.3} m down, {:.3} m sideways", drop, shift),
            }
        }
        Criterion::TopDropsAndRests {
            max_drop,
            rest_speed,
        } => {
            let (i, start) = top.ok_or("no dynamic body")?;
            let drop = start.y - position(i).y;
            Verdict {
                pass: drop < max_drop && max_speed < rest_speed,
                value: drop,
                what: format!("top dropped {drop:.3} m, fastest body {max_speed:.3} m/s"),
            }
        }
        Criterion::HeavyHeld {
            max_overlap,
            max_light_turn,
        } => {
            let overlap = sim.max_overlap();
            let is_heavy = |i: usize| heavy.iter().any(|&(k, _)| k == i);
            let passed_through = heavy.iter().any(|&(h, y0)| {
                let y = position(h).y;
                dynamic
                    .iter()
                    .filter(|&&(l, p0)| l != h && p0.y < y0 && !is_heavy(l))
                    .any(|&(l, _)| position(l).y >= y)
            });
            // The light bodies: dynamic, not heavy, starting below some heavy body.
            let turn = dynamic
                .iter()
                .filter(|&&(l, p0)| !is_heavy(l) && heavy.iter().any(|&(_, y0)| p0.y < y0))
                .map(|&(l, _)| (end[l].angle - start.bodies[l].angle).abs())
                .fold(0.0, f32::max);
            let turned = max_light_turn.is_some_and(|limit| turn.is_nan() || turn >= limit);
            Verdict {
                pass: !heavy.is_empty()
                    && !passed_through
                    && !turned
                    && overlap < max_overlap
                    && max_speed < 0.1,
                value: overlap,
                what: format!(
                    "overlap {overlap:.4} m, fastest body {max_speed:.3} m/s{}{}",
                    if passed_through {
                        ", a heavy box passed through"
                    } else {
                        ""
                    },
                    if turned {
                        format!(", a light body turned {turn:.3} rad")
                    } else {
                        String::new()
                    }
                ),
            }
        }
        Criterion::GentleRecovery {
            max_speed: limit,
            max_overlap,
        } => {
            let overlap = sim.max_overlap();
            Verdict {
                pass: peak_speed < limit && overlap < max_overlap,
                value: peak_speed,
                what: format!("peak speed {peak_speed:.2} m/s, overlap left {overlap:.4} m"),
            }
        }
        Criterion::Settles { rest_speed, .. } => Verdict {
            pass: !escaped && max_speed < rest_speed,
            value: max_speed,
            what: format!(
                "fastest body {max_speed:.3} m/s{}",
                if escaped { ", a body escaped" } else { "" }
            ),
        },
        Criterion::JointGapThroughout { max_gap } => Verdict {
            pass: worst_gap < max_gap,
            value: worst_gap,
            what: format!("largest gap {worst_gap:.4} m"),
        },
        Criterion::JointGapAtEnd { max_gap } => {
            let gap = sim.joint_gap();
            Verdict {
                pass: gap < max_gap,
                value: gap,
                what: format!("gap at the end {gap:.4} m"),
            }
        }
        Criterion::Stands { max_move } => {
            let moved = dynamic
                .iter()
                .map(|&(i, start)| (position(i) - start).length())
                .fold(0.0, f32::max);
            Verdict {
                pass: moved < max_move,
                value: moved,
                what: format!("largest move {moved:.3} m"),
            }
        }
    };
    Ok(if non_finite {
        Verdict {
            pass: false,
            value: f32::NAN,
            what: "blew up (non-finite state)".to_owned(),
        }
    } else {
        verdict
    })
}

/// The largest linear error of any joint, metres.
pub fn joint_gap(world: &World) -> f32 {
    world
        .joints()
        .filter_map(|(_, j)| {
            let a = world.body(j.body_a())?;
            let b = world.body(j.body_b())?;
            Some(j.linear_error(a, b))
        })
        .fold(0.0, f32::max)
}

/// The whole table as markdown, every scene under every configuration. Scenes that fail
/// to load get a row saying why.
pub fn table(dir: &Path, mut progress: impl FnMut(&str)) -> String {
    let configs = configurations();
    let mut out = String::from("| scene | criterion |");
    for c in &configs {
        out.push_str(&format!(" {} |", c.label));
    }
    out.push_str("\n|---|---|");
    for _ in &configs {
        out.push_str("---|");
    }
    out.push('\n');
    let scenes = match hard_scenes_in(dir) {
        Ok(scenes) => scenes,
        Err(e) => {
            out.push_str(&format!("| error | {} |\n", e.lines().next().unwrap_or("")));
            return out;
        }
    };
    for scene in scenes {
        out.push_str(&format!(
            "| {} | {} |",
            scene.label,
            criterion_text(&scene.criterion)
        ));
        for config in &configs {
            progress(&format!("{} / {}", scene.label, config.label));
            let cell = match judge(&scene, config, dir) {
                Ok(v) => v.short(),
                Err(e) => format!("error: {}", e.lines().next().unwrap_or("")),
            };
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
    }
    out
}

/// The criterion in words, for the table.
pub fn criterion_text(criterion: &Criterion) -> String {
    match *criterion {
        Criterion::TopStays {
            max_drop,
            max_shift,
        } => format!("top box within {max_drop} m of rest, < {max_shift} m sideways, at the end (larger of the two, m)"),
        Criterion::TopDropsAndRests {
            max_drop,
            rest_speed,
        } => format!("top drops < {max_drop} m, all < {rest_speed} m/s at the end (drop, m)"),
        Criterion::HeavyHeld {
            max_overlap,
            max_light_turn,
        } => match max_light_turn {
            None => format!(
                "heavy boxes at rest above the light ones, overlap < {max_overlap} m (overlap, m)"
            ),
            Some(turn) => format!(
                "heavy boxes at rest above the light ones, overlap < {max_overlap} m, light ones \
                 turned < {turn} rad (overlap, m)"
            ),
        },
        Criterion::GentleRecovery {
            max_speed,
            max_overlap,
        } => format!("peak speed < {max_speed} m/s, overlap < {max_overlap} m at the end (peak speed, m/s)"),
        Criterion::Settles { rest_speed, .. } => {
            format!("nothing escapes, all < {rest_speed} m/s at the end (fastest, m/s)")
        }
        Criterion::JointGapThroughout { max_gap } => format!("joint gaps < {max_gap} m throughout (largest gap, m)"),
        Criterion::JointGapAtEnd { max_gap } => format!("joint gap < {max_gap} m at the end (gap, m)"),
        Criterion::Stands { max_move } => format!("no body moves > {max_move} m (largest move, m)"),
    }
}

/// Where the scene library is (re-exported for the command).
pub fn scenes_dir() -> std::path::PathBuf {
    catalog::scenes_dir()
}
