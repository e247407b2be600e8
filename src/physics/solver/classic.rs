//! The classic solver: Box2D-Lite's sequential impulses.
//!
//! - **Idea**: one step of `dt` (or each of `substeps` full steps, collide included): warm
//!   start with last step's impulses, then `iterations` Gauss-Seidel passes over joints and
//!   contacts on velocities, clamping accumulated impulses (or each increment, when
//!   `accumulate_impulses` is off); two-point manifolds may be solved as one 2x2 block.
//! - **Position handling**: contacts carry a Baumgarte bias (`bias_factor / h` times the
//!   penetration beyond the slop) in the velocity target; rigid joints are corrected after
//!   the velocity solve by non-linear Gauss-Seidel on pseudo-velocities (Box2D v2).
//! - **Known failure**: the Baumgarte bias adds energy: deep overlap is pushed out fast and
//!   tall stacks bounce; without warm starting, stacks need many more iterations to stand.
//! - **Reference**: Catto, "Iterative Dynamics with Temporal Coherence" (GDC 2005) and
//!   Box2D-Lite's `World::Step`; Box2D v2.4's `b2Island::Solve` for the joint position pass.

use super::contact::BiasMode;
use super::step::{StepSolver, StepWorld};
use super::StepContext;
use crate::physics::world::StepStats;

/// One classic (sub-)step of `h` seconds, after collide:
/// 1. `build_solver_bodies`;
/// 2. `integrate_velocities`: gravity, forces, damping;
/// 3. `prepare`: contact constraints and joints (masses, arms, bias);
/// 4. `warm_start`: apply last step's impulses;
/// 5. `iterate`, `iterations` times: joints, then contacts;
/// 6. `integrate_positions`;
/// 7. `correct_joint_positions`: the joints' position pass;
/// 8. `restitution`;
/// 9. `store_impulses` for the next warm start;
/// 10. `store_joint_state`;
/// 11. `finalize_bodies`: velocities and motion back to the bodies.
pub(crate) fn step(solver: &mut StepSolver, world: &mut StepWorld, h: f32, stats: &mut StepStats) {
    let clock = solver.start_clock();
    let ctx = StepContext::new(h, world.settings);
    solver.build_solver_bodies(world);
    solver.integrate_velocities(world, h);
    solver.prepare(world, &ctx);
    solver.warm_start(world, &ctx);
    for _ in 0..world.settings.iterations {
        solver.iterate(world, &ctx, BiasMode::Classic);
    }
    solver.integrate_positions(h);
    solver.correct_joint_positions(world, &ctx);
    solver.restitution(&ctx);
    solver.store_impulses(world);
    solver.store_joint_state(world);
    solver.finalize_bodies(world);
    solver.stop_clock(clock, stats);
}
