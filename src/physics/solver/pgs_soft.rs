//! PGS-Soft: soft constraints without sub-stepping.
//!
//! - **Idea**: one step of `dt` (or `substeps` full steps, collide included): warm start,
//!   `iterations` Gauss-Seidel passes with soft constraints (a spring-damper of
//!   `contact_hertz` / `joint_hertz`, implicit, so stable at any stiffness), position
//!   integration, then `relax_iterations` passes without bias that remove the velocity the
//!   soft push-out added.
//! - **Position handling**: the soft bias in the velocity passes pushes overlap out (at most
//!   `contact_push_max_velocity`); the relax passes keep only speculative targets. Joints are
//!   on the soft path: soft rows in the biased passes, rigid in the relax passes.
//! - **Known failure**: a whole step per solve makes the springs coarse: heavy bodies on
//!   light ones and long chains with weights stretch and sag far more than with sub-steps
//!   (Solver2D: PGS_Soft loses the large pyramid and the heavy-on-light stacks).
//! - **Reference**: Catto, "Solver2D" (2024): `solve_pgs_soft.c`; Box2D v3's soft contacts.

use super::contact::BiasMode;
use super::step::{StepSolver, StepWorld};
use super::StepContext;
use crate::physics::world::StepStats;

/// One PGS-Soft (sub-)step of `h` seconds, after collide:
/// 1. `build_solver_bodies`;
/// 2. `integrate_velocities`;
/// 3. `prepare`;
/// 4. `warm_start`;
/// 5. `iterate`, `iterations` times, soft bias;
/// 6. `integrate_positions`;
/// 7. `iterate`, `relax_iterations` times, without bias (relax);
/// 8. `restitution`;
/// 9. `store_impulses`, `store_joint_state`;
/// 10. `finalize_bodies`.
pub(crate) fn step(solver: &mut StepSolver, world: &mut StepWorld, h: f32, stats: &mut StepStats) {
    let clock = solver.start_clock();
    let ctx = StepContext::for_family(h, world.settings);
    solver.build_solver_bodies(world);
    solver.integrate_velocities(world, h);
    solver.prepare(world, &ctx);
    solver.warm_start(world, &ctx);
    for _ in 0..world.settings.iterations {
        solver.iterate(world, &ctx, BiasMode::Soft);
    }
    solver.integrate_positions(h);
    for _ in 0..world.settings.relax_iterations {
        solver.iterate(world, &ctx, BiasMode::Relax);
    }
    solver.restitution(&ctx);
    solver.store_impulses(world);
    solver.store_joint_state(world);
    solver.finalize_bodies(world);
    solver.stop_clock(clock, stats);
}
