//! `impulse-bench`: Impulse against Box2D v3 and Rapier 2D on Box2D v3's benchmark scenes.
//!
//! ```text
//! cargo run --release -p impulse-bench -- [--scene NAME]... [--repeats R] [--steps-scale F]
//!                                         [--scaling] [--markdown OUT.md]
//! cargo run --release -p impulse-bench -- --verdicts [--verdict-scene LABEL]... [--markdown OUT.md]
//! cargo run --release -p impulse-bench -- --solvers [--steps N]   (every solver, large pyramid)
//! ```
//!
//! `--verdicts` prints the hard-scene verdict table with peers (`verdict_port.rs`): every
//! scene of `testbed verdicts` judged in Impulse's soft step, Box2D v3 and Rapier.
//!
//! Every scene is described once (`scenes.rs`) and built by each port (`impulse_port.rs`,
//! `box2d_port.rs`, `rapier_port.rs`). The engines run interleaved (Impulse, Impulse classic,
//! Box2D, Rapier, then again) `--repeats` times; each run builds a fresh world (not timed),
//! times all its steps with one clock, and reports milliseconds per step. The first table shows
//! the median over the repeats, the second the fastest repeat (Box2D's own benchmark program's
//! measure); a third gives the two-thread columns again split by how far apart the host had
//! placed the two cores around each repeat (`cores.rs`). See `BENCHMARKS.md` at the
//! repository root for the method.

// The benchmark builds every engine's scenes with libm's trigonometry; the core's
// `clippy.toml` refusal of it (see `physics::trig`) is for the step, not for these inputs.
#![allow(clippy::disallowed_methods)]

mod box2d_port;
mod cores;
mod impulse_port;
mod rapier_port;
mod scenes;
mod solvers;
mod verdict_port;

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use cores::Placement;
use scenes::SceneSpec;

// ---------------------------------------------------------------------------------------------
// Counting allocator: the live heap bytes of everything Rust allocates in this process
// (Impulse and Rapier; Box2D allocates through C's malloc and keeps its own counter).

struct CountingAllocator;

static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to `System` unchanged; the counter is only bookkeeping.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            LIVE_BYTES.fetch_add(new_size, Ordering::Relaxed);
            LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn live_bytes() -> usize {
    LIVE_BYTES.load(Ordering::Relaxed)
}

// ---------------------------------------------------------------------------------------------
// What every port provides.

/// A built world of one engine.
pub trait Sim {
    /// Advance one step of `scenes::DT` with the benchmark settings.
    fn step(&mut self);
    /// Final y of the scene's body `index` (the order of `SceneSpec::bodies`).
    fn body_y(&mut self, index: usize) -> f32;
    /// Final x of the scene's body `index`.
    fn body_x(&mut self, index: usize) -> f32;
    /// Set the linear velocity of body `index` (a kinematic body moved by the scene's driver).
    fn set_velocity(&mut self, index: usize, v: [f32; 2]);
    /// Create `bodies` (with `joints`, whose body indices are into `bodies`) as group `slot`.
    fn spawn(&mut self, slot: usize, bodies: &[scenes::BodySpec], joints: &[scenes::JointSpec]);
    /// Destroy group `slot`: its bodies with their shapes and joints.
    fn despawn(&mut self, slot: usize);
    /// y of every body created by `spawn` and still alive.
    fn spawned_y(&mut self) -> Vec<f32>;
    /// Contact pairs the engine reports (see each port for the exact definition).
    fn touching_pairs(&mut self) -> usize;
    /// Per-step averages of the engine's own work counters, for `--counts` (Impulse's
    /// `StepStats`; Box2D's contact records; Rapier: none).
    fn work_counts(&self) -> Option<String> {
        None
    }
    /// Per-stage milliseconds per step, averaged over the run, for `--profile` (Impulse's
    /// `StepStats`, Box2D's `b2World_GetProfile`; Rapier: none here).
    fn profile(&self) -> Option<StageTimes> {
        None
    }
    /// The share of the steps that ran on one thread of several (Impulse's
    /// `StepStats::threads_used`); `None` for a run on one thread and for the peers.
    fn share_alone(&self) -> Option<f64> {
        None
    }
}

/// (stage name, ms per step).
pub type StageTimes = Vec<(String, f64)>;

/// Set by `--profile`: collect each run's stage times.
static PROFILE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Set by `--counts`: print each Impulse and Box2D run's work counters to stderr.
static PRINT_COUNTS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Why a port did not build a scene.
#[derive(Debug)]
pub enum BuildError {
    /// The engine lacks a feature the scene needs (printed as "n/a").
    Unsupported(&'static str),
    /// A real failure (printed in full).
    Failed(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Impulse,
    /// The soft step on `IMPULSE_THREADS` threads (`World::set_thread_count`).
    ImpulseThreads,
    ImpulseClassic,
    /// Box2D v3 built with AVX2 (`avx2`) or SSE2, run with `workers` threads. The build this
    /// binary links runs in process; the other runs in the child binary (`child_run`).
    Box2d {
        avx2: bool,
        workers: usize,
    },
    Rapier,
}

const BOX2D_SSE2: Engine = Engine::Box2d {
    avx2: false,
    workers: 1,
};
const BOX2D_AVX2: Engine = Engine::Box2d {
    avx2: true,
    workers: 1,
};
const BOX2D_SSE2_2W: Engine = Engine::Box2d {
    avx2: false,
    workers: 2,
};
const BOX2D_AVX2_2W: Engine = Engine::Box2d {
    avx2: true,
    workers: 2,
};
/// Box2D's single-thread builds, and its 2-worker builds: the best of each is the reference.
const BOX2D_ONE: [Engine; 2] = [BOX2D_SSE2, BOX2D_AVX2];
const BOX2D_TWO: [Engine; 2] = [BOX2D_SSE2_2W, BOX2D_AVX2_2W];

/// Threads of the "Impulse 2t" column, beside Box2D's 2 workers.
const IMPULSE_THREADS: usize = 2;

const ENGINES: [Engine; 8] = [
    Engine::Impulse,
    Engine::ImpulseThreads,
    Engine::ImpulseClassic,
    BOX2D_SSE2,
    BOX2D_AVX2,
    BOX2D_SSE2_2W,
    BOX2D_AVX2_2W,
    Engine::Rapier,
];

/// Whether this binary's own Box2D is the AVX2 build.
const THIS_AVX2: bool = cfg!(feature = "box2d-avx2");
/// The Box2D build linked into this binary, 1 worker (the memory table's column).
const OWN_BOX2D: Engine = Engine::Box2d {
    avx2: THIS_AVX2,
    workers: 1,
};

impl Engine {
    fn from_name(name: &str) -> Option<Vec<Engine>> {
        Some(match name {
            "impulse" => vec![Engine::Impulse],
            "impulse-2t" => vec![Engine::ImpulseThreads],
            "classic" => vec![Engine::ImpulseClassic],
            "box2d" => [BOX2D_ONE, BOX2D_TWO].concat(),
            "box2d-sse2" => vec![BOX2D_SSE2],
            "box2d-avx2" => vec![BOX2D_AVX2],
            "box2d-sse2-2w" => vec![BOX2D_SSE2_2W],
            "box2d-avx2-2w" => vec![BOX2D_AVX2_2W],
            "rapier" => vec![Engine::Rapier],
            _ => return None,
        })
    }

    /// Threads the engine runs on.
    fn threads(self) -> usize {
        match self {
            Engine::ImpulseThreads => IMPULSE_THREADS,
            Engine::Box2d { workers, .. } => workers,
            _ => 1,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Engine::Impulse => "Impulse",
            Engine::ImpulseThreads => "Impulse 2t",
            Engine::ImpulseClassic => "Impulse classic",
            Engine::Box2d {
                avx2: false,
                workers: 1,
            } => "Box2D SSE2",
            Engine::Box2d {
                avx2: true,
                workers: 1,
            } => "Box2D AVX2",
            Engine::Box2d { avx2: false, .. } => "Box2D SSE2 2w",
            Engine::Box2d { avx2: true, .. } => "Box2D AVX2 2w",
            Engine::Rapier => "Rapier",
        }
    }

    fn build(self, spec: &SceneSpec) -> Result<Box<dyn Sim>, BuildError> {
        let profile = PROFILE.load(std::sync::atomic::Ordering::Relaxed);
        Ok(match self {
            Engine::Impulse => Box::new(impulse_port::build(spec, impulse_port::Solver::SoftStep)?),
            Engine::ImpulseThreads => Box::new(impulse_port::build_with_threads(
                spec,
                impulse_port::Solver::SoftStep,
                IMPULSE_THREADS,
            )?),
            Engine::ImpulseClassic => {
                Box::new(impulse_port::build(spec, impulse_port::Solver::Classic)?)
            }
            Engine::Box2d { avx2, workers } if avx2 == THIS_AVX2 => {
                Box::new(box2d_port::build_with_workers(spec, workers, profile)?)
            }
            Engine::Box2d { .. } => {
                return Err(BuildError::Failed(
                    "the other Box2D build runs in the child binary".into(),
                ))
            }
            Engine::Rapier => Box::new(rapier_port::build(spec)?),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Running.

#[derive(Clone, Copy, Debug)]
struct EndState {
    top_y: f32,
    row_mean_y: f32,
    pairs: usize,
}

impl EndState {
    fn text(&self) -> String {
        format!(
            "{:.2} / {:.3} / {}",
            self.top_y, self.row_mean_y, self.pairs
        )
    }
}

#[derive(Debug)]
enum Outcome {
    Ran {
        ms_per_step: Vec<f64>,
        /// Per repeat, for engines on two threads or more: the cores' round trip in ns, the
        /// larger of before and after the run (`cores::round_trip_ns`); `None` on one thread.
        trips: Vec<Option<f64>>,
        /// Per repeat, Impulse on more than one thread: the share of its steps that ran on
        /// one (the faster lately, `threads.rs`); `None` for the others.
        shares_alone: Vec<Option<f64>>,
        end: EndState,
        /// Stage times of the last run (`--profile`).
        profile: Option<StageTimes>,
    },
    NotAvailable(&'static str),
    Failed(String),
    /// Left out with `--engine`.
    Skipped,
}

/// One run: ms per step, the end state, the stage times (`--profile`), and for Impulse on
/// more than one thread the share of its steps that ran on one (`StepStats::threads_used`).
type RunResult = (f64, EndState, Option<StageTimes>, Option<f64>);

fn run_once(engine: Engine, spec: &SceneSpec, steps: usize) -> Result<RunResult, BuildError> {
    if let Engine::Box2d { avx2, workers } = engine {
        if avx2 != THIS_AVX2 {
            return child::run(spec.name, steps, workers);
        }
    }
    let mut sim = engine.build(spec)?;
    let start = Instant::now();
    for k in 0..steps {
        if let Some(body) = spec.driven_body() {
            let x = sim.body_x(body);
            if let Some((body, v)) = spec.driven_velocity(k, x) {
                sim.set_velocity(body, v);
            }
        }
        for spawn in spec.spawns(k) {
            if spawn.replace {
                sim.despawn(spawn.slot);
            }
            sim.spawn(spawn.slot, &spawn.bodies, &spawn.joints);
        }
        sim.step();
    }
    let ms = start.elapsed().as_secs_f64() * 1000.0 / steps as f64;
    if PRINT_COUNTS.load(std::sync::atomic::Ordering::Relaxed) {
        if let Some(counts) = sim.work_counts() {
            eprintln!("  {} {}: {counts}", spec.name, engine.label());
        }
    }
    let row = &spec.probe.row;
    let mut coordinate = |i: usize| {
        if spec.probe.x_axis {
            sim.body_x(i)
        } else {
            sim.body_y(i)
        }
    };
    let mut row_sum: f64 = row.iter().map(|&i| coordinate(i) as f64).sum();
    let mut row_len = row.len();
    let mut top_y = coordinate(spec.probe.top);
    if spec.driver == Some(scenes::Driver::Rain) {
        // Rain: the highest and the mean y of the live ragdoll bodies.
        let ys = sim.spawned_y();
        top_y = ys.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        row_sum = ys.iter().map(|&y| y as f64).sum();
        row_len = ys.len();
    }
    let end = EndState {
        top_y,
        row_mean_y: (row_sum / row_len.max(1) as f64) as f32,
        pairs: sim.touching_pairs(),
    };
    Ok((ms, end, sim.profile(), sim.share_alone()))
}

/// Which of a run's repeats a time table shows.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stat {
    /// The median repeat (the README's table).
    Median,
    /// The fastest repeat (Box2D's own benchmark program's measure).
    Fastest,
}

impl Stat {
    fn of(self, values: &[f64]) -> f64 {
        match self {
            Stat::Median => median(values),
            Stat::Fastest => values.iter().copied().fold(f64::INFINITY, f64::min),
        }
    }
}

/// The values of the repeats `placement` keeps (`values[i]` and `trips[i]` of repeat `i`).
fn placed<T: Copy>(
    values: &[T],
    trips: &[Option<f64>],
    placement: Placement,
    reference: f64,
) -> Vec<T> {
    values
        .iter()
        .zip(trips)
        .filter(|(_, &t)| placement.keeps(t, reference))
        .map(|(&v, _)| v)
        .collect()
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

fn scaled_steps(steps: usize, scale: f64) -> usize {
    ((steps as f64 * scale).round() as usize).max(1)
}

struct SceneResult {
    spec_name: &'static str,
    bodies: usize,
    joints: usize,
    steps: usize,
    reference: String,
    outcomes: Vec<(Engine, Outcome)>,
}

fn bench_scene(
    spec: &SceneSpec,
    engines: &[Engine],
    repeats: usize,
    steps_scale: f64,
) -> SceneResult {
    let steps = scaled_steps(spec.steps, steps_scale);
    let mut outcomes: Vec<(Engine, Outcome)> = ENGINES
        .iter()
        .map(|&e| {
            if !engines.contains(&e) {
                return (e, Outcome::Skipped);
            }
            (
                e,
                Outcome::Ran {
                    ms_per_step: Vec::new(),
                    trips: Vec::new(),
                    shares_alone: Vec::new(),
                    end: EndState {
                        top_y: f32::NAN,
                        row_mean_y: f32::NAN,
                        pairs: 0,
                    },
                    profile: None,
                },
            )
        })
        .collect();
    // Interleaved: A B C D, A B C D, ... so that drifts of the machine hit every engine alike.
    for r in 0..repeats {
        for (engine, outcome) in outcomes.iter_mut() {
            if !matches!(outcome, Outcome::Ran { .. }) {
                continue;
            }
            eprint!(
                "  {} {}/{}: {} ...",
                spec.name,
                r + 1,
                repeats,
                engine.label()
            );
            let before = (engine.threads() > 1).then(cores::round_trip_ns);
            match run_once(*engine, spec, steps) {
                Ok((ms, state, stages, share)) => {
                    let trip = before.map(|b| b.max(cores::round_trip_ns()));
                    let cores = match trip {
                        Some(t) if t.is_finite() => format!(", cores {t:.0} ns apart"),
                        Some(_) => ", cores not measured".to_string(),
                        None => String::new(),
                    };
                    let alone = share.map_or(String::new(), |a| {
                        format!(", {:.0}% of steps on one thread", 100.0 * a)
                    });
                    eprintln!(" {ms:.3} ms/step, end {}{cores}{alone}", state.text());
                    if let Outcome::Ran {
                        ms_per_step,
                        trips,
                        shares_alone,
                        end,
                        profile,
                    } = outcome
                    {
                        ms_per_step.push(ms);
                        trips.push(trip);
                        shares_alone.push(share);
                        *end = state;
                        *profile = stages;
                    }
                }
                Err(BuildError::Unsupported(why)) => {
                    eprintln!(" n/a ({why})");
                    *outcome = Outcome::NotAvailable(why);
                }
                Err(BuildError::Failed(why)) => {
                    eprintln!(" FAILED: {why}");
                    *outcome = Outcome::Failed(why);
                }
            }
        }
    }
    let mut reference = String::new();
    if let Some((top, row)) = spec.probe.box2d_reference {
        let _ = write!(reference, "{top:.2} / {row:.3}");
    }
    if let Some(p) = spec.expected_pairs {
        if !reference.is_empty() {
            reference.push_str(" / ");
        }
        let _ = write!(reference, "{p} pairs");
    }
    SceneResult {
        spec_name: spec.name,
        bodies: spec.bodies.len(),
        joints: spec.joints.len(),
        steps,
        reference,
        outcomes,
    }
}

impl SceneResult {
    fn outcome(&self, engine: Engine) -> &Outcome {
        &self
            .outcomes
            .iter()
            .find(|(e, _)| *e == engine)
            .expect("every engine has an outcome")
            .1
    }

    fn ms(&self, engine: Engine, stat: Stat) -> Option<f64> {
        self.ms_placed(engine, stat, Placement::Any, 0.0)
            .map(|(ms, _)| ms)
    }

    /// `engine`'s ms by `stat` over the repeats `placement` keeps (`reference`: the bench
    /// run's reference round trip), and how many repeats that was; `None` when none.
    fn ms_placed(
        &self,
        engine: Engine,
        stat: Stat,
        placement: Placement,
        reference: f64,
    ) -> Option<(f64, usize)> {
        match self.outcome(engine) {
            Outcome::Ran {
                ms_per_step, trips, ..
            } => {
                let kept = placed(ms_per_step, trips, placement, reference);
                (!kept.is_empty()).then(|| (stat.of(&kept), kept.len()))
            }
            _ => None,
        }
    }

    /// The median share of `engine`'s steps that ran on one thread, over the repeats
    /// `placement` keeps; `None` when none, or when the engine does not say.
    fn alone_placed(&self, engine: Engine, placement: Placement, reference: f64) -> Option<f64> {
        match self.outcome(engine) {
            Outcome::Ran {
                trips,
                shares_alone,
                ..
            } => {
                let kept: Vec<f64> = placed(shares_alone, trips, placement, reference)
                    .into_iter()
                    .flatten()
                    .collect();
                (!kept.is_empty()).then(|| median(&kept))
            }
            _ => None,
        }
    }

    /// The round trips of this scene's two-thread repeats (`cores.rs`).
    fn trips(&self) -> Vec<f64> {
        self.outcomes
            .iter()
            .flat_map(|(_, o)| match o {
                Outcome::Ran { trips, .. } => trips.iter().flatten().copied().collect(),
                _ => Vec::new(),
            })
            .filter(|t: &f64| t.is_finite())
            .collect()
    }

    /// The least and greatest round trip of this scene's two-thread repeats.
    fn trip_range(&self) -> Option<(f64, f64)> {
        self.trips().into_iter().fold(None, |range, t| match range {
            None => Some((t, t)),
            Some((lo, hi)) => Some((f64::min(lo, t), f64::max(hi, t))),
        })
    }

    fn ms_text(&self, engine: Engine, stat: Stat) -> String {
        match self.outcome(engine) {
            Outcome::Ran { .. } => self
                .ms(engine, stat)
                .map_or("-".into(), |m| format!("{m:.3}")),
            Outcome::NotAvailable(_) => "n/a".into(),
            Outcome::Failed(_) => "failed".into(),
            Outcome::Skipped => "skipped".into(),
        }
    }

    fn end_text(&self, engine: Engine) -> String {
        match self.outcome(engine) {
            Outcome::Ran { end, .. } => end.text(),
            Outcome::NotAvailable(why) => format!("n/a ({why})"),
            Outcome::Failed(why) => format!("failed: {why}"),
            Outcome::Skipped => "skipped".into(),
        }
    }

    /// The fastest of `engines` that ran: (its label, its ms by `stat`).
    fn fastest(&self, engines: &[Engine], stat: Stat) -> Option<(&'static str, f64)> {
        engines
            .iter()
            .filter_map(|&e| self.ms(e, stat).map(|m| (e.label(), m)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// `impulse`'s ms over the fastest of `engines` (both by `stat`), and which one that was.
    fn ratio_to_fastest(&self, impulse: Engine, engines: &[Engine], stat: Stat) -> String {
        match (self.ms(impulse, stat), self.fastest(engines, stat)) {
            (Some(x), Some((label, y))) if y > 0.0 => format!("{:.2} ({label})", x / y),
            _ => "n/a".into(),
        }
    }

    fn ratio_text(&self, a: Engine, b: Engine, stat: Stat) -> String {
        match (self.ms(a, stat), self.ms(b, stat)) {
            (Some(x), Some(y)) if y > 0.0 => format!("{:.2}", x / y),
            _ => "n/a".into(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Memory.

/// Heap bytes per body and per contact pair, measured as described in `BENCHMARKS.md`:
/// build the scene with every shape filtered out of collision and step `steps` times
/// (bodies, shapes, broad phase, solver scratch: no contact) -> `bytes_no_contacts`; build
/// the real scene and step as often -> `bytes_total`. Per body = `bytes_no_contacts /
/// bodies`; per contact = `(bytes_total - bytes_no_contacts) / pairs` where `pairs` is the
/// number of pair records the engine holds after the last step. After 1 step the pile is as
/// built; after `MEMORY_STEPS[1]` the scene has run a second (pairs made and parted, every
/// buffer grown to what the run asked of it, and kept).
struct Memory {
    bytes_no_contacts: i64,
    bytes_total: i64,
    bodies: usize,
    pairs: usize,
}

impl Memory {
    fn per_body(&self) -> f64 {
        self.bytes_no_contacts as f64 / self.bodies.max(1) as f64
    }

    fn per_pair(&self) -> Option<f64> {
        (self.pairs > 0)
            .then(|| (self.bytes_total - self.bytes_no_contacts) as f64 / self.pairs as f64)
    }
}

/// The step counts after which memory is measured (`measure_memory`).
const MEMORY_STEPS: [usize; 2] = [1, 60];

fn measure_memory(engine: Engine, spec: &SceneSpec, steps: usize) -> Result<Memory, BuildError> {
    let bodies = spec.bodies.len();
    let quiet = spec.without_collisions();
    match engine {
        Engine::Impulse | Engine::ImpulseThreads | Engine::ImpulseClassic => {
            let solver = if engine != Engine::ImpulseClassic {
                impulse_port::Solver::SoftStep
            } else {
                impulse_port::Solver::Classic
            };
            let measure = |s: &SceneSpec| -> Result<(i64, usize), BuildError> {
                let before = live_bytes();
                let mut sim = impulse_port::build(s, solver)?;
                for _ in 0..steps {
                    sim.step();
                }
                let bytes = live_bytes() as i64 - before as i64;
                Ok((bytes, sim.world.stats().pairs))
            };
            let (bytes_no_contacts, _) = measure(&quiet)?;
            let (bytes_total, pairs) = measure(spec)?;
            Ok(Memory {
                bytes_no_contacts,
                bytes_total,
                bodies,
                pairs,
            })
        }
        Engine::Rapier => {
            let measure = |s: &SceneSpec| -> Result<(i64, usize), BuildError> {
                let before = live_bytes();
                let mut sim = rapier_port::build(s)?;
                for _ in 0..steps {
                    sim.step();
                }
                let bytes = live_bytes() as i64 - before as i64;
                Ok((bytes, sim.pair_records()))
            };
            let (bytes_no_contacts, _) = measure(&quiet)?;
            let (bytes_total, pairs) = measure(spec)?;
            Ok(Memory {
                bytes_no_contacts,
                bytes_total,
                bodies,
                pairs,
            })
        }
        Engine::Box2d { .. } => {
            let measure = |s: &SceneSpec| -> Result<(i64, usize), BuildError> {
                boxdd::Foundation::initialize_default()
                    .map_err(|e| BuildError::Failed(format!("box2d: {e}")))?;
                let before = boxdd::allocated_byte_count()
                    .map_err(|e| BuildError::Failed(format!("box2d: {e}")))?;
                let mut sim = box2d_port::build(s)?;
                for _ in 0..steps {
                    sim.step();
                }
                let bytes = box2d_port::allocated_bytes(&sim) - before;
                Ok((bytes, sim.pair_records()))
            };
            let (bytes_no_contacts, _) = measure(&quiet)?;
            let (bytes_total, pairs) = measure(spec)?;
            Ok(Memory {
                bytes_no_contacts,
                bytes_total,
                bodies,
                pairs,
            })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Scaling: Impulse alone on grids of small pyramids.

const SCALING_GRIDS: [(usize, usize); 4] = [(3, 6), (7, 13), (14, 26), (27, 34)];
const SCALING_STEPS: usize = 120;

fn scaling_table(repeats: usize, steps_scale: f64) -> String {
    let steps = scaled_steps(SCALING_STEPS, steps_scale);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### Scaling: Impulse (soft step) on grids of 55-box pyramids, {steps} steps, median of {repeats}\n"
    );
    let _ = writeln!(
        out,
        "| pyramids | dynamic bodies | ms/step | ms per 1k bodies | touching pairs at end |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    for (rows, cols) in SCALING_GRIDS {
        let spec = scenes::many_pyramids(rows, cols);
        let n = spec.dynamic_body_count();
        let mut times = Vec::new();
        let mut pairs = 0;
        for r in 0..repeats {
            eprint!("  scaling {n} bodies {}/{repeats} ...", r + 1);
            match run_once(Engine::Impulse, &spec, steps) {
                Ok((ms, end, _, _)) => {
                    eprintln!(" {ms:.3} ms/step");
                    times.push(ms);
                    pairs = end.pairs;
                }
                Err(e) => {
                    eprintln!(" {e:?}");
                    break;
                }
            }
        }
        let ms = median(&times);
        let _ = writeln!(
            out,
            "| {} x {} | {} | {:.3} | {:.4} | {} |",
            rows,
            cols,
            n,
            ms,
            ms / (n as f64 / 1000.0),
            pairs
        );
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Command line and report.

struct Options {
    scenes: Vec<String>,
    engines: Vec<Engine>,
    repeats: usize,
    steps_scale: f64,
    scaling: bool,
    verdicts: bool,
    verdict_scenes: Vec<String>,
    markdown: Option<String>,
}

const USAGE: &str = "usage: impulse-bench [--scene NAME]... [--engine NAME]... [--repeats R] \
[--steps-scale F] [--scaling] [--counts] [--profile] [--other-box2d PATH] \
[--verdicts [--verdict-scene LABEL]...] [--markdown OUT.md]\n       impulse-bench --solvers [--steps N]\n  scenes: large_pyramid many_pyramids \
joint_grid tumbler compounds junkyard smash spinner washer rain (default: all; with --scaling alone, \
none)\n  engines: impulse impulse-2t (2 threads) classic box2d (= the four below) box2d-sse2 box2d-avx2 box2d-sse2-2w \
box2d-avx2-2w rapier (default: all; memory is measured for Impulse, this binary's Box2D and \
Rapier)\n  --profile: per-stage times of Impulse and Box2D\n  --other-box2d: the binary built with \
the other Box2D SIMD setting (default: target/bench-avx2/release/impulse-bench)\n  --verdicts: the hard-scene verdicts in \
Impulse (soft step), Box2D v3 and Rapier; --verdict-scene keeps the rows whose label contains LABEL";

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        scenes: Vec::new(),
        engines: Vec::new(),
        repeats: 3,
        steps_scale: 1.0,
        scaling: false,
        verdicts: false,
        verdict_scenes: Vec::new(),
        markdown: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--scene" => {
                let name = value("--scene")?;
                if scenes::by_name(&name).is_none() {
                    return Err(format!(
                        "unknown scene '{name}'; valid: {}",
                        scenes::SCENE_NAMES.join(", ")
                    ));
                }
                o.scenes.push(name);
            }
            "--engine" => {
                let name = value("--engine")?;
                let e = Engine::from_name(&name).ok_or_else(|| {
                    format!(
                        "unknown engine '{name}'; valid: impulse, impulse-2t, classic, box2d, box2d-sse2, \
                         box2d-avx2, box2d-sse2-2w, box2d-avx2-2w, rapier"
                    )
                })?;
                o.engines.extend(e);
            }
            "--repeats" => {
                let v = value("--repeats")?;
                o.repeats =
                    v.parse().ok().filter(|&r| r >= 1).ok_or_else(|| {
                        format!("--repeats must be a whole number >= 1, got '{v}'")
                    })?;
            }
            "--steps-scale" => {
                let v = value("--steps-scale")?;
                o.steps_scale = v
                    .parse()
                    .ok()
                    .filter(|&f: &f64| f.is_finite() && f > 0.0)
                    .ok_or_else(|| format!("--steps-scale must be a number > 0, got '{v}'"))?;
            }
            "--scaling" => o.scaling = true,
            "--verdicts" => o.verdicts = true,
            "--verdict-scene" => o.verdict_scenes.push(value("--verdict-scene")?),
            "--counts" => PRINT_COUNTS.store(true, std::sync::atomic::Ordering::Relaxed),
            "--profile" => PROFILE.store(true, std::sync::atomic::Ordering::Relaxed),
            "--other-box2d" => {
                let path = value("--other-box2d")?;
                let _ = child::PATH.set(path);
            }
            "--markdown" => o.markdown = Some(value("--markdown")?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    if o.engines.is_empty() {
        o.engines = ENGINES.to_vec();
    }
    o.engines.dedup();
    if o.scenes.is_empty() && !o.scaling && !o.verdicts {
        o.scenes = scenes::SCENE_NAMES.iter().map(|s| s.to_string()).collect();
    }
    Ok(o)
}

/// How Box2D's C was compiled (see `build.rs`): `boxdd-sys` uses -O2 and leaves `NDEBUG`
/// undefined, so Box2D's asserts stay on unless `CFLAGS` says otherwise.
fn box2d_build_note() -> String {
    let flags = env!("BENCH_BOX2D_CFLAGS");
    if flags.split_whitespace().any(|f| f == "-DNDEBUG") {
        format!("C built with -O2 + CFLAGS `{flags}` (asserts off).")
    } else {
        "**Box2D C built WITHOUT -DNDEBUG: its asserts are on and it runs slower than a release \
         build; rebuild with `CFLAGS=\"-O3 -DNDEBUG\"`.**"
            .to_string()
    }
}

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`), to say how busy the machine was.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// One row of the memory table: the scene and, per engine, (bytes per body, bytes per pair).
type MemoryRow = (String, Vec<(Engine, String, String)>);

/// The step time table of `results` by `stat`, with the ratios that count.
fn time_table(out: &mut String, results: &[SceneResult], stat: Stat) {
    let _ = writeln!(
        out,
        "| scene | bodies | joints | steps | Impulse | Impulse 2t | Box2D SSE2 | Box2D AVX2 | Box2D SSE2 2w | Box2D AVX2 2w | Rapier | Impulse / best Box2D | Impulse 2t / best Box2D 2w | Impulse / Rapier | Impulse classic |"
    );
    let _ = writeln!(
        out,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for r in results {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.spec_name,
            r.bodies,
            r.joints,
            r.steps,
            r.ms_text(Engine::Impulse, stat),
            r.ms_text(Engine::ImpulseThreads, stat),
            r.ms_text(BOX2D_SSE2, stat),
            r.ms_text(BOX2D_AVX2, stat),
            r.ms_text(BOX2D_SSE2_2W, stat),
            r.ms_text(BOX2D_AVX2_2W, stat),
            r.ms_text(Engine::Rapier, stat),
            r.ratio_to_fastest(Engine::Impulse, &BOX2D_ONE, stat),
            r.ratio_to_fastest(Engine::ImpulseThreads, &BOX2D_TWO, stat),
            r.ratio_text(Engine::Impulse, Engine::Rapier, stat),
            r.ms_text(Engine::ImpulseClassic, stat),
        );
    }
}

/// The two-thread columns again, split by how far apart the two cores were during each
/// repeat (`cores.rs`): the repeats run with the cores near each other, and those run with
/// them far apart, so that each engine is compared with its peers under the same placement.
fn placement_tables(out: &mut String, results: &[SceneResult]) {
    let mut trips: Vec<f64> = results.iter().flat_map(SceneResult::trips).collect();
    if trips.is_empty() {
        return;
    }
    trips.sort_by(f64::total_cmp);
    let (least, most) = (trips[0], trips[trips.len() - 1]);
    // The reference: the lower quartile of the run's trips (not the least, which one lucky
    // placement, two threads on the two halves of one core, can set far below the rest).
    let reference = trips[trips.len() / 4];
    let _ = writeln!(
        out,
        "\n### Two threads, by where the host placed the two cores\n\nBefore and after each \
         two-thread repeat the bench times a cache line's round trip between two threads \
         (`bench/src/cores.rs`); a repeat is \"near\" when the larger of the two was at most \
         {NEAR_FACTOR} x the lower quartile of the run's trips ({reference:.0} ns), else \"far\" \
         (the cores far apart, or one of them not running). This run: {least:.0} to {most:.0} \
         ns. Each cell: median ms per step / fastest (repeats kept; for Impulse 2t, the median \
         share of its steps that ran on one thread, the faster lately: \
         `src/physics/threads.rs`); ratios of Impulse 2t to the faster Box2D 2w build, \
         medians / fastest.\n",
        NEAR_FACTOR = cores::NEAR_FACTOR,
    );
    let engines = [Engine::ImpulseThreads, BOX2D_SSE2_2W, BOX2D_AVX2_2W];
    let _ = writeln!(
        out,
        "| scene | cores apart (ns) | near: Impulse 2t | Box2D SSE2 2w | Box2D AVX2 2w | Impulse 2t / best 2w | far: Impulse 2t | Box2D SSE2 2w | Box2D AVX2 2w | Impulse 2t / best 2w |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|");
    for r in results {
        let range = r
            .trip_range()
            .map_or("-".to_string(), |(lo, hi)| format!("{lo:.0}-{hi:.0}"));
        let mut cells = vec![r.spec_name.to_string(), range];
        for placement in [Placement::Near, Placement::Far] {
            let cell = |e: Engine| match (
                r.ms_placed(e, Stat::Median, placement, reference),
                r.ms_placed(e, Stat::Fastest, placement, reference),
            ) {
                (Some((median, n)), Some((fastest, _))) => {
                    match r.alone_placed(e, placement, reference) {
                        Some(a) => {
                            format!("{median:.3} / {fastest:.3} ({n}; {:.0}% alone)", 100.0 * a)
                        }
                        None => format!("{median:.3} / {fastest:.3} ({n})"),
                    }
                }
                _ => "-".to_string(),
            };
            for e in engines {
                cells.push(cell(e));
            }
            let ratio = |stat: Stat| {
                let ours = r.ms_placed(Engine::ImpulseThreads, stat, placement, reference)?;
                let best = BOX2D_TWO
                    .iter()
                    .filter_map(|&e| r.ms_placed(e, stat, placement, reference))
                    .map(|(ms, _)| ms)
                    .min_by(f64::total_cmp)?;
                Some(ours.0 / best)
            };
            cells.push(match (ratio(Stat::Median), ratio(Stat::Fastest)) {
                (Some(m), Some(f)) => format!("{m:.2} / {f:.2}"),
                _ => "-".to_string(),
            });
        }
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
}

fn report(results: &[SceneResult], memory: &[Vec<MemoryRow>]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### Step time, ms per step (median)\n\n\"Impulse\" runs on 1 thread, \"Impulse 2t\" on 2 \
         (`World::set_thread_count`). \"best Box2D\" is the faster of its SSE2 and AVX2 builds at \
         1 worker (the ratio that counts for Impulse), \"best Box2D 2w\" the faster at 2 workers \
         (the one for Impulse 2t).\n"
    );
    time_table(&mut out, results, Stat::Median);
    let _ = writeln!(
        out,
        "\n### Step time, ms per step (fastest repeat)\n\nThe same runs, each engine's fastest \
         repeat: Box2D's own benchmark program (`benchmark/main.c`) reports the minimum over its \
         runs, the measure least moved by other work on the machine, which only ever adds time.\n"
    );
    time_table(&mut out, results, Stat::Fastest);
    placement_tables(&mut out, results);
    let _ = writeln!(
        out,
        "\n### End state: top / row mean / touching pairs (smash: x; the others: y)\n"
    );
    let _ = writeln!(
        out,
        "| scene | Impulse | Impulse 2t | Box2D SSE2 | Box2D AVX2 | Box2D AVX2 2w | Rapier | Box2D reference |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for r in results {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.spec_name,
            r.end_text(Engine::Impulse),
            r.end_text(Engine::ImpulseThreads),
            r.end_text(BOX2D_SSE2),
            r.end_text(BOX2D_AVX2),
            r.end_text(BOX2D_AVX2_2W),
            r.end_text(Engine::Rapier),
            if r.reference.is_empty() {
                "-"
            } else {
                &r.reference
            },
        );
    }
    if results.iter().any(|r| {
        r.outcomes.iter().any(|(_, o)| {
            matches!(
                o,
                Outcome::Ran {
                    profile: Some(_),
                    ..
                }
            )
        })
    }) {
        out.push_str(&profile_report(results));
    }
    for (rows, steps) in memory.iter().zip(MEMORY_STEPS) {
        if rows.is_empty() {
            continue;
        }
        let when = if steps == 1 {
            "building and 1 step".to_string()
        } else {
            format!("{steps} steps")
        };
        let _ = writeln!(
            out,
            "\n### Memory after {when}: bytes per body / bytes per contact pair\n"
        );
        let _ = writeln!(
            out,
            "| scene | Impulse | {} (1 worker) | Rapier |",
            OWN_BOX2D.label()
        );
        let _ = writeln!(out, "|---|---|---|---|");
        for (name, cells) in rows {
            let cell = |e: Engine| {
                cells
                    .iter()
                    .find(|(x, _, _)| *x == e)
                    .map_or("-".to_string(), |(_, b, c)| format!("{b} / {c}"))
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                name,
                cell(Engine::Impulse),
                cell(OWN_BOX2D),
                cell(Engine::Rapier)
            );
        }
    }
    out
}

/// `--profile`: each engine's stage times of its last run, ms per step. Box2D's stages nest:
/// `step` = `pairs` (broad phase: new pairs) + `collide` (narrow phase) + `solve` (+ small
/// items); `solve` holds prepare .. store, transforms, refit and bullets. Impulse's `step` =
/// broad phase + narrow phase + solve + integrate.
fn profile_report(results: &[SceneResult]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n### Where the time goes: ms per step by stage (last repeat, `--profile`)\n"
    );
    for r in results {
        let _ = writeln!(out, "**{}**\n", r.spec_name);
        for (engine, outcome) in &r.outcomes {
            if let Outcome::Ran {
                profile: Some(stages),
                ..
            } = outcome
            {
                let cells: Vec<String> = stages
                    .iter()
                    .map(|(name, ms)| format!("{name} {ms:.3}"))
                    .collect();
                let _ = writeln!(out, "- {}: {}", engine.label(), cells.join(", "));
            }
        }
        out.push('\n');
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The other Box2D build, in a child process.

mod child {
    //! One crate cannot be linked twice with different features, so the Box2D build this binary
    //! does not link (AVX2 for the default build) runs in a second `impulse-bench` binary built
    //! with the other setting into its own target dir. The parent starts it once per run as
    //! `--child-run SCENE STEPS WORKERS [--profile]`; the child builds the world, times the
    //! steps itself (process start and world building are not timed) and prints one line per
    //! item, `key<TAB>value`, on stdout.

    use super::{scenes, BuildError, EndState, Engine, RunResult, StageTimes, THIS_AVX2};
    use std::sync::OnceLock;

    /// Set from `--other-box2d PATH` before any run.
    pub static PATH: OnceLock<String> = OnceLock::new();

    /// Where `cargo build --features box2d-avx2 --target-dir target/bench-avx2` puts the AVX2
    /// binary (or, for an AVX2 parent, where the default build puts the SSE2 one).
    pub fn default_path() -> String {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../target");
        if THIS_AVX2 {
            format!("{root}/release/impulse-bench")
        } else {
            format!("{root}/bench-avx2/release/impulse-bench")
        }
    }

    fn path() -> String {
        PATH.get().cloned().unwrap_or_else(default_path)
    }

    /// The child's own description: (SIMD, C flags), or why it cannot run (asked once).
    pub fn info() -> Result<(String, String), String> {
        static INFO: OnceLock<Result<(String, String), String>> = OnceLock::new();
        INFO.get_or_init(ask_info).clone()
    }

    fn ask_info() -> Result<(String, String), String> {
        let path = path();
        let out = std::process::Command::new(&path)
            .arg("--child-info")
            .output()
            .map_err(|e| format!("{path}: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix('\t').map(str::to_string))
        };
        match (field("simd"), field("cflags"), field("source")) {
            (Some(simd), Some(_), _) if simd == super::box2d_port::SIMD => Err(format!(
                "{path} is a {simd} build too; build the other with --features box2d-avx2"
            )),
            (Some(_), Some(_), source) if source.as_deref() != Some(env!("BENCH_SOURCE_HASH")) => {
                Err(format!(
                    "{path} was built from other bench sources; rebuild it (BENCHMARKS.md, \
                     Command)"
                ))
            }
            (Some(simd), Some(cflags), _) => Ok((simd, cflags)),
            _ => Err(format!("{path} answered no --child-info")),
        }
    }

    /// Print this binary's description (the child side of `info`).
    pub fn print_info() {
        println!("simd\t{}", super::box2d_port::SIMD);
        println!("cflags\t{}", env!("BENCH_BOX2D_CFLAGS"));
        println!("source\t{}", env!("BENCH_SOURCE_HASH"));
    }

    /// The parent side of one run.
    pub fn run(scene: &str, steps: usize, workers: usize) -> Result<RunResult, BuildError> {
        if info().is_err() {
            return Err(BuildError::Unsupported(
                "the other Box2D build is missing or stale: see the report header",
            ));
        }
        let path = path();
        let mut cmd = std::process::Command::new(&path);
        cmd.args([
            "--child-run",
            scene,
            &steps.to_string(),
            &workers.to_string(),
        ]);
        if super::PROFILE.load(std::sync::atomic::Ordering::Relaxed) {
            cmd.arg("--profile");
        }
        let out = cmd
            .output()
            .map_err(|_| BuildError::Unsupported("no second Box2D build: see BENCHMARKS.md"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(BuildError::Failed(format!(
                "child {path}: {} {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let mut ms = None;
        let mut end = EndState {
            top_y: f32::NAN,
            row_mean_y: f32::NAN,
            pairs: 0,
        };
        let mut profile: Option<StageTimes> = None;
        for line in text.lines() {
            let mut parts = line.split('\t');
            let (Some(key), Some(value)) = (parts.next(), parts.next()) else {
                continue;
            };
            match key {
                "ms" => ms = value.parse().ok(),
                "top" => end.top_y = value.parse().unwrap_or(f32::NAN),
                "row" => end.row_mean_y = value.parse().unwrap_or(f32::NAN),
                "pairs" => end.pairs = value.parse().unwrap_or(0),
                "stage" => {
                    if let (Some(name), Some(Ok(v))) = (Some(value), parts.next().map(str::parse)) {
                        profile
                            .get_or_insert_with(Vec::new)
                            .push((name.to_string(), v));
                    }
                }
                _ => {}
            }
        }
        let ms = ms.ok_or_else(|| BuildError::Failed(format!("child {path}: no timing")))?;
        Ok((ms, end, profile, None))
    }

    /// The child side: `--child-run SCENE STEPS WORKERS [--profile]`.
    pub fn serve(args: &[String]) -> Result<(), String> {
        let [scene, steps, workers, rest @ ..] = args else {
            return Err("--child-run SCENE STEPS WORKERS [--profile]".into());
        };
        if rest.iter().any(|a| a == "--profile") {
            super::PROFILE.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        let spec = scenes::by_name(scene).ok_or_else(|| format!("unknown scene {scene}"))?;
        let steps: usize = steps.parse().map_err(|_| format!("bad steps {steps}"))?;
        let workers: usize = workers
            .parse()
            .map_err(|_| format!("bad workers {workers}"))?;
        let engine = Engine::Box2d {
            avx2: THIS_AVX2,
            workers,
        };
        let (ms, end, profile, _) =
            super::run_once(engine, &spec, steps).map_err(|e| format!("{e:?}"))?;
        println!("ms\t{ms}");
        println!("top\t{}", end.top_y);
        println!("row\t{}", end.row_mean_y);
        println!("pairs\t{}", end.pairs);
        for (name, v) in profile.unwrap_or_default() {
            println!("stage\t{name}\t{v}");
        }
        Ok(())
    }
}

fn main() {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    if raw.first().map(String::as_str) == Some("--child-info") {
        child::print_info();
        return;
    }
    if raw.first().map(String::as_str) == Some("--child-run") {
        if let Err(e) = child::serve(&raw[1..]) {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
        return;
    }
    if raw.first().map(String::as_str) == Some("--solvers") {
        match solvers::run(&raw[1..]) {
            Ok(table) => print!("{table}"),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
        return;
    }
    let options = match parse_args() {
        Ok(o) => o,
        Err(msg) => {
            if !msg.is_empty() {
                eprintln!("error: {msg}");
            }
            eprintln!("{USAGE}");
            std::process::exit(if msg.is_empty() { 0 } else { 2 });
        }
    };

    let mut md = String::new();
    let timing = if options.scenes.is_empty() && !options.scaling {
        // `--verdicts` alone: each scene's own settings, one run, no timing.
        String::new()
    } else {
        format!(
            "Repeats: {}, steps scale: {}. dt 1/60, 4 sub-steps, sleeping off. ",
            options.repeats, options.steps_scale
        )
    };
    let _ = writeln!(
        md,
        "## impulse-bench\n\nCPU: {} ({} hardware threads available; every engine runs on 1 \
         thread except Impulse 2t and the Box2D 2w columns). Load average at start: {}. {timing}\n",
        cpu_model(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_average(),
    );
    let other = if options.scenes.is_empty() {
        Err("not needed".to_string())
    } else {
        child::info()
    };
    let _ = writeln!(md, "Peers:\n");
    let _ = writeln!(
        md,
        "- Box2D v3 (C, revision 56edae7 as vendored by boxdd-sys), through boxdd {}: {} \
         build in this process: {}",
        env!("BENCH_BOXDD_VERSION"),
        box2d_port::SIMD.to_uppercase(),
        box2d_build_note()
    );
    match &other {
        Ok((simd, cflags)) => {
            let _ = writeln!(
                md,
                "- Box2D v3 {} build in a child process (`{}`): C flags `{cflags}`{}",
                simd.to_uppercase(),
                child::default_path(),
                if cflags.split_whitespace().any(|f| f == "-DNDEBUG") {
                    ""
                } else {
                    " (**without -DNDEBUG: asserts on**)"
                }
            );
        }
        Err(why) => {
            let _ = writeln!(md, "- Box2D v3 other SIMD build: not available ({why})");
        }
    }
    let _ = writeln!(
        md,
        "- Box2D workers: 1, or 2 in the \"2w\" columns (Box2D's built-in scheduler, \
         `worker_count`)\n- Rapier {}: pure Rust, single thread (no `parallel` feature)\n",
        env!("BENCH_RAPIER_VERSION")
    );
    let mut results = Vec::new();
    let mut memory = MEMORY_STEPS.map(|_| Vec::new());
    for name in &options.scenes {
        let spec = scenes::by_name(name).expect("checked by the parser");
        eprintln!(
            "{}: {} bodies, {} joints",
            spec.name,
            spec.bodies.len(),
            spec.joints.len()
        );
        results.push(bench_scene(
            &spec,
            &options.engines,
            options.repeats,
            options.steps_scale,
        ));

        // Rain's bodies are all created mid-run: building it and stepping once measures only
        // its ground, so it has no memory row.
        if spec.driver == Some(scenes::Driver::Rain) {
            continue;
        }
        for (rows, steps) in memory.iter_mut().zip(MEMORY_STEPS) {
            let mut cells = Vec::new();
            for engine in [Engine::Impulse, OWN_BOX2D, Engine::Rapier] {
                match measure_memory(engine, &spec, steps) {
                    Ok(m) => cells.push((
                        engine,
                        format!("{:.0}", m.per_body()),
                        m.per_pair()
                            .map_or("-".into(), |p| format!("{p:.0} ({} pairs)", m.pairs)),
                    )),
                    Err(BuildError::Unsupported(_)) => {
                        cells.push((engine, "n/a".into(), "n/a".into()));
                    }
                    Err(BuildError::Failed(why)) => {
                        cells.push((engine, "failed".into(), why));
                    }
                }
            }
            rows.push((spec.name.to_string(), cells));
        }
    }
    if !results.is_empty() {
        md.push_str(&report(&results, &memory));
    }
    if options.scaling {
        md.push('\n');
        md.push_str(&scaling_table(options.repeats, options.steps_scale));
    }
    if options.verdicts {
        let _ = writeln!(
            md,
            "### Hard-scene verdicts: Impulse (soft step) and its peers, {} s each, sleep off\n",
            impulse::verdicts::JUDGED_SECONDS
        );
        let dir = impulse::scene::catalog::scenes_dir();
        md.push_str(&verdict_port::table(&dir, &options.verdict_scenes));
    }

    println!("{md}");
    if let Some(path) = &options.markdown {
        // Write beside the target and rename into place, so a failed write leaves no half file.
        let tmp = format!("{path}.tmp");
        let written = std::fs::write(&tmp, &md).and_then(|_| std::fs::rename(&tmp, path));
        match written {
            Ok(()) => eprintln!("wrote {path}"),
            Err(e) => {
                eprintln!("error: could not write {path}: {e}");
                std::process::exit(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_shows_the_median_or_the_fastest_repeat() {
        let repeats = [3.5, 1.25, 2.0, 9.0, 2.5];
        assert_eq!(Stat::Median.of(&repeats), 2.5);
        assert_eq!(Stat::Fastest.of(&repeats), 1.25);
        assert_eq!(Stat::Fastest.of(&[4.0]), 4.0);
    }
}
