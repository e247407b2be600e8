//! PGS-NGS-Block: Box2D v2.4's solver with its block solver.
//!
//! - **Idea**: PGS-NGS (`pgs_ngs.rs`) with the two normal constraints of a two-point
//!   manifold solved together as one 2x2 mixed LCP by total enumeration (`contact.rs`'s
//!   `solve_block`, the classic solver's block), falling back to one point at a time when
//!   the 2x2 system is ill-conditioned.
//! - **Position handling**: as PGS-NGS: `position_iterations` NGS passes over the contacts,
//!   then the classic NGS joint position pass (rigid joint path).
//! - **Known failure**: the block gives the exact two-point answer, which is not the one
//!   that spreads load fastest through a pyramid (see `block_solver` in `settings.rs`); it
//!   still has no momentum from position correction, and like every rigid NGS solver it
//!   struggles with large mass ratios (Solver2D's heavy-on-light scenes).
//! - **Reference**: Catto, Box2D v2.4 `b2ContactSolver::SolveVelocityConstraints` (block
//!   solver) and `SolvePositionConstraints`; Solver2D's `solve_pgs_ngs_block.c`.

use super::contact::BiasMode;
use super::step::{StepSolver, StepWorld};
use super::StepContext;
use crate::physics::world::StepStats;

/// One PGS-NGS-Block (sub-)step of `h` seconds, after collide (PGS-NGS's list; this
/// solver's context turns `block_solver` on, so `prepare` sets up the 2x2 blocks):
/// 1. `build_solver_bodies`;
/// 2. `integrate_velocities`;
/// 3. `prepare`: contacts (with their 2x2 blocks) and joints;
/// 4. `warm_start`;
/// 5. `iterate`, `iterations` times, speculative targets only, two-point manifolds as one
///    block;
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
