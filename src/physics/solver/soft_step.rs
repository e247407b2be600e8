//! The soft step: Box2D v3's solver.
//!
//! - **Idea**: collide once per step, then `substeps` sub-steps of `h = dt / substeps`, each
//!   a warm start, one solve pass with soft constraints (a spring-damper of `contact_hertz`
//!   or `joint_hertz` and a damping ratio: implicit, so stable at any stiffness), position
//!   integration, and one relax pass without bias that removes the velocity the soft push-out
//!   added. Contact and joint batches of one colour share no moving body and are solved four
//!   or eight at a time.
//! - **Position handling**: no separate pass: the solve pass's soft bias pushes overlap out
//!   (at most `contact_push_max_velocity`), from the separation updated by the sub-steps'
//!   displacements; the relax pass keeps only speculative targets.
//! - **Known failure**: softness is a compliance: very high mass ratios (a heavy body on a
//!   light one, a long chain holding a heavy weight) sag and stretch; fewer sub-steps than
//!   the stiffness needs make joints springy.
//! - **Reference**: Catto, "Solver2D" (2024 blog post and repository: the soft step
//!   solver) and Box2D v3's `solver.c`.

use std::time::Instant;

use super::contact::BiasMode;
use super::step::{StepSolver, StepWorld};
use super::StepContext;
use crate::physics::world::{SolverStageTimes, StepStats};

/// Times consecutive stages: `add` puts the time since the last lap into a stage.
struct Lap(Instant);

impl Lap {
    fn start() -> Lap {
        Lap(Instant::now())
    }

    fn add(&mut self, stage: &mut f32) {
        let now = Instant::now();
        *stage += (now - self.0).as_secs_f32() * 1000.0;
        self.0 = now;
    }
}

/// The soft step of `dt` seconds in `substeps` sub-steps, after one collide:
/// 1. `build_solver_bodies`;
/// 2. `prepare`: contact constraints and joints, once for the step;
/// 3. per sub-step: `integrate_velocities`, `warm_start`, `iterate` (soft bias),
///    `integrate_positions`, `iterate` again without bias (relax);
/// 4. `restitution`;
/// 5. `store_impulses` for the next warm start;
/// 6. `store_joint_state`;
/// 7. `finalize_bodies`: velocities and motion back to the bodies.
pub(crate) fn step(
    solver: &mut StepSolver,
    world: &mut StepWorld,
    dt: f32,
    substeps: u32,
    stats: &mut StepStats,
) {
    let clock = solver.start_clock();
    let h = dt / substeps as f32;
    let ctx = StepContext::new(h, world.settings);
    let mut stages = SolverStageTimes::default();
    let mut lap = Lap::start();
    solver.build_solver_bodies(world);
    solver.prepare(world, &ctx);
    lap.add(&mut stages.prepare);
    for _ in 0..substeps {
        solver.integrate_velocities(world, h);
        lap.add(&mut stages.integrate_velocities);
        solver.warm_start(world, &ctx);
        lap.add(&mut stages.warm_start);
        solver.iterate(world, &ctx, BiasMode::Soft);
        lap.add(&mut stages.solve);
        solver.integrate_positions(h);
        lap.add(&mut stages.integrate_positions);
        solver.iterate(world, &ctx, BiasMode::Relax);
        lap.add(&mut stages.relax);
    }
    solver.restitution(&ctx);
    lap.add(&mut stages.restitution);
    solver.store_impulses(world);
    solver.store_joint_state(world);
    lap.add(&mut stages.store);
    solver.finalize_bodies(world);
    lap.add(&mut stages.finalize);
    stats.solver_stages = stages;
    solver.stop_clock(clock, stats);
}
