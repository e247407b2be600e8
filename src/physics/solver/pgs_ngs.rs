//! PGS-NGS: Box2D v2.4's solver.
//!
//! - **Idea**: one step of `dt` (or `substeps` full steps, collide included): warm start,
//!   then `iterations` Gauss-Seidel passes over joints and contacts on velocities with no
//!   position bias at all (speculative targets only), so the velocity solution carries no
//!   push-out energy; positions are integrated and then corrected directly.
//! - **Position handling**: non-linear Gauss-Seidel: `position_iterations` passes over the
//!   contacts, each recomputing every point's separation from the bodies' current motion and
//!   moving the bodies by `bias_factor` of the overlap beyond `allowed_penetration`
//!   (clamped to `MAX_LINEAR_CORRECTION`); joints are on the rigid path: the classic NGS
//!   joint position pass (`JOINT_POSITION_ITERATIONS`) after the contacts'.
//! - **Known failure**: position corrections are not fed back into velocities, so a body
//!   pushed out of overlap keeps no momentum from it (good) but contacts solved one point
//!   at a time leave large pyramids sagging and jittering (Solver2D: "PGS_NGS" needs the
//!   block solver for stacks); the position pass converges slowly on long chains.
//! - **Reference**: Catto, Box2D v2.4 `b2ContactSolver::SolvePositionConstraints` and
//!   `b2Island::Solve`; Solver2D's `solve_pgs_ngs.c`.

use super::contact::BiasMode;
use super::step::{StepSolver, StepWorld};
use super::StepContext;
use crate::physics::world::StepStats;

/// One PGS-NGS (sub-)step of `h` seconds, after collide:
/// 1. `build_solver_bodies`;
/// 2. `integrate_velocities`;
/// 3. `prepare`: contacts and joints;
/// 4. `warm_start`;
/// 5. `iterate`, `iterations` times, speculative targets only (with the 2x2 block solver
///    when `block` is set: PGS-NGS-Block);
/// 6. `integrate_positions`;
/// 7. `correct_contact_positions`, `position_iterations` times;
/// 8. `correct_joint_positions`;
/// 9. `restitution`;
/// 10. `store_impulses`, `store_joint_state`;
/// 11. `finalize_bodies`.
pub(crate) fn step(solver: &mut StepSolver, world: &mut StepWorld, h: f32, stats: &mut StepStats) {
    let clock = solver.start_clock();
    let ctx = StepContext::for_family(h, world.settings);
    solver.build_solver_bodies(world);
    solver.integrate_velocities(world, h);
    solver.prepare(world, &ctx);
    solver.warm_start(world, &ctx);
    for _ in 0..world.settings.iterations {
        solver.iterate(world, &ctx, BiasMode::Speculative);
    }
    solver.integrate_positions(h);
    for _ in 0..world.settings.position_iterations {
        solver.correct_contact_positions(&ctx);
    }
    solver.correct_joint_positions(world, &ctx);
    solver.restitution(&ctx);
    solver.store_impulses(world);
    solver.store_joint_state(world);
    solver.finalize_bodies(world);
    solver.stop_clock(clock, stats);
}
