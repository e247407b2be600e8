//! TGS-Sticky: sub-steps with Baumgarte push-out and position-level (sticky) friction.
//!
//! - **Idea**: collide once, then `substeps` sub-steps of `h = dt / substeps`, each one
//!   rigid pass with current anchors and position integration; no warm starting (impulses
//!   start at zero every step). Friction is a position constraint: the two anchors of a
//!   point stick together for the step and their tangential drift is pulled back, bounded by
//!   `friction` times the manifold's mean normal impulse. After the sub-steps,
//!   `relax_iterations` passes without bias.
//! - **Position handling**: Baumgarte per sub-step: `STICKY_BAUMGARTE` (0.8) of the current
//!   overlap per sub-step, at most `contact_push_max_velocity`; the relax passes remove
//!   that velocity. Joints are on the soft path (Solver2D's sticky solver has no joints):
//!   soft rows in the sub-steps, rigid in the relax passes.
//! - **Known failure**: without warm starting one pass per sub-step leaves tall stacks
//!   soft and sinking; the Baumgarte push-out adds energy. Here the anchors stick for one
//!   step and are taken afresh the next (Solver2D keeps them in the manifold across steps),
//!   so slow creep on a slope is not undone across steps.
//! - **Reference**: Catto, "Solver2D" (2024): `solve_tgs_sticky.c`; Andrews et al.,
//!   "Temporal Gauss-Seidel".

use super::contact_kernels::{AnchoredBias, Friction};
use super::step::{StepSolver, StepWorld};
use super::StepContext;
use crate::physics::world::StepStats;

/// The TGS-Sticky step of `dt` seconds in `substeps` sub-steps, after one collide:
/// 1. `build_solver_bodies`;
/// 2. `prepare`, once for the step (impulses from zero: this solver never warm starts);
/// 3. per sub-step: `integrate_velocities`, `iterate_anchored` (Baumgarte, sticky
///    friction), `integrate_positions`;
/// 4. `iterate_anchored` without bias, `relax_iterations` times;
/// 5. `restitution`;
/// 6. `store_impulses`, `store_joint_state`;
/// 7. `finalize_bodies`.
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
        solver.iterate_anchored(world, &ctx, AnchoredBias::Baumgarte, Friction::Sticky);
        solver.integrate_positions(h);
    }
    for _ in 0..world.settings.relax_iterations {
        solver.iterate_anchored(world, &ctx, AnchoredBias::Relax, Friction::Sticky);
    }
    solver.restitution(&ctx);
    solver.store_impulses(world);
    solver.store_joint_state(world);
    solver.finalize_bodies(world);
    solver.stop_clock(clock, stats);
}
