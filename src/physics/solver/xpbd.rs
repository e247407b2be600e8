//! XPBD: extended position-based dynamics.
//!
//! - **Idea**: collide once, then `substeps` sub-steps of `h = dt / substeps`: velocities
//!   from gravity and forces, positions predicted (`x += h v`), position constraints
//!   projected once, velocities derived from the motion (`v = (x - x_start) / h`), then a
//!   velocity pass for what positions cannot express (dynamic friction, no bounce from the
//!   push-out). No warm starting and no accumulated impulses across sub-steps.
//! - **Position handling**: contacts are projected at position level with compliance
//!   `xpbd_compliance` (a quarter of it against a body that does not move) and static
//!   friction that undoes the anchors' tangential drift while `|lambda_t| <= mu lambda_n`.
//!   Joints: their velocity rows (motors, limits, springs) run once rigid without bias before
//!   the prediction, and their position error is projected by the classic NGS joint
//!   position pass on the predicted positions (position level, zero compliance); the motion
//!   it makes becomes velocity like the contacts'.
//! - **Known failure**: one projection per sub-step is a single Gauss-Seidel pass: stiff
//!   heavy-on-light systems and tall stacks stay soft unless sub-steps are many, and rigid
//!   (zero-compliance) push-out turns overlap into velocity (Solver2D needed a compliance
//!   to calm it). A joint's reaction force counts only the impulse of its velocity rows
//!   (summed over the step, `SolverKind::impulse_spans`): a steady load reads right, but an
//!   impact the position projection absorbs is not seen, so breakable joints hold blows
//!   that break them under the other solvers (`tests/breaking.rs` pins it).
//! - **Reference**: Macklin et al., "Small Steps in Physics Simulation" (2019); Mueller et
//!   al., "Detailed Rigid Body Simulation with Extended Position Based Dynamics" (2020);
//!   Solver2D's `solve_xpbd.c`.

use super::step::{StepSolver, StepWorld};
use super::StepContext;
use crate::physics::world::StepStats;

/// The XPBD step of `dt` seconds in `substeps` sub-steps, after one collide:
/// 1. `build_solver_bodies`;
/// 2. `prepare`, once for the step (impulses from zero: this solver never warm starts);
/// 3. per sub-step: `integrate_velocities`, `iterate_joint_velocities`,
///    `predict_positions`, `correct_joint_positions`, `project_contacts`,
///    `velocities_from_positions`, `solve_contact_velocities`;
/// 4. `restitution`;
/// 5. `store_impulses`, `store_joint_state`;
/// 6. `finalize_bodies`.
pub(crate) fn step(
    solver: &mut StepSolver,
    world: &mut StepWorld,
    dt: f32,
    substeps: u32,
    stats: &mut StepStats,
) {
    let clock = solver.start_clock();
    let h = dt / substeps as f32;
    let ctx = StepContext::for_family(h, world.settings);
    solver.build_solver_bodies(world);
    solver.prepare(world, &ctx);
    for _ in 0..substeps {
        solver.integrate_velocities(world, h);
        solver.iterate_joint_velocities(world, &ctx);
        solver.predict_positions(h);
        solver.correct_joint_positions(world, &ctx);
        solver.project_contacts(&ctx);
        solver.velocities_from_positions(h);
        solver.solve_contact_velocities(world, &ctx);
    }
    solver.restitution(&ctx);
    solver.store_impulses(world);
    solver.store_joint_state(world);
    solver.finalize_bodies(world);
    solver.stop_clock(clock, stats);
}
