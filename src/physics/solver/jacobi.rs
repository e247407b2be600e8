//! Jacobi: every contact solved independently, the results summed.
//!
//! - **Idea**: PGS-Soft's step (`pgs_soft.rs`), but each contact iteration is a Jacobi
//!   sweep: every contact reads the velocities of the iteration's start, and the sum of
//!   their velocity changes is applied at the end scaled by `jacobi_relaxation` (the
//!   accumulated impulses move by the same fraction). Embarrassingly parallel, no ordering.
//! - **Position handling**: soft contacts (`contact_hertz`) push overlap out in the biased
//!   iterations, `relax_iterations` Jacobi passes without bias follow the position
//!   integration. Joints are solved Gauss-Seidel on the soft path before each contact sweep
//!   (as Solver2D does: only contacts are Jacobi).
//! - **Known failure**: information travels one contact per iteration and a body touched
//!   by n contacts gets n corrections at once: stacks sink and jitter unless the relaxation
//!   is small, and then they converge even slower (Solver2D: the worst of the ten on every
//!   stack).
//! - **Reference**: Solver2D's `solve_jacobi.c`; Tonge et al., "Mass Splitting for
//!   Jitter-Free Parallel Rigid Body Simulation" (2012) for the relaxation problem.

use super::contact::BiasMode;
use super::step::{StepSolver, StepWorld};
use super::StepContext;
use crate::physics::world::StepStats;

/// One Jacobi (sub-)step of `h` seconds, after collide:
/// 1. `build_solver_bodies`;
/// 2. `integrate_velocities`;
/// 3. `prepare`;
/// 4. `warm_start`;
/// 5. `iterate_jacobi`, `iterations` times, soft bias;
/// 6. `integrate_positions`;
/// 7. `iterate_jacobi`, `relax_iterations` times, without bias;
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
        solver.iterate_jacobi(world, &ctx, BiasMode::Soft);
    }
    solver.integrate_positions(h);
    for _ in 0..world.settings.relax_iterations {
        solver.iterate_jacobi(world, &ctx, BiasMode::Relax);
    }
    solver.restitution(&ctx);
    solver.store_impulses(world);
    solver.store_joint_state(world);
    solver.finalize_bodies(world);
    solver.stop_clock(clock, stats);
}
