//! TGS-Soft: sub-steps with soft constraints and current anchors.
//!
//! - **Idea**: collide once, then `substeps` sub-steps of `h = dt / substeps`, each a warm
//!   start, one solve pass with soft constraints, position integration and one relax pass
//!   without bias. Unlike the soft step, contacts use their current anchors (the arms
//!   rotate with the bodies) in the Jacobian as well as in the separation, and are solved
//!   one by one (no SIMD batches, no manifold recycling).
//! - **Position handling**: the soft bias (`contact_hertz`, capped at a quarter of the
//!   sub-step rate, push-out at most `contact_push_max_velocity`) from the separation
//!   updated by the sub-steps' motion; relax passes keep speculative targets only. Joints
//!   are on the soft path (`joint_hertz`), rigid in the relax pass.
//! - **Known failure**: as the soft step: compliance sags under large mass ratios; rotating
//!   anchors make a fast-spinning body's contact points wander off the manifold within a
//!   step.
//! - **Reference**: Catto, "Solver2D" (2024): `solve_tgs_soft.c`; Andrews et al.,
//!   "Temporal Gauss-Seidel" (PhysX TGS); Rapier's TGS-soft.

use super::contact_kernels::AnchoredBias;
use super::step::{StepSolver, StepWorld};
use super::StepContext;
use crate::physics::world::StepStats;

/// The TGS-Soft step of `dt` seconds in `substeps` sub-steps, after one collide:
/// 1. `build_solver_bodies`;
/// 2. `prepare`, once for the step;
/// 3. per sub-step: `integrate_velocities`, `warm_start`, `iterate_anchored` (soft bias),
///    `integrate_positions`, `iterate_anchored` without bias (relax);
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
        solver.warm_start(world, &ctx);
        solver.iterate_anchored(world, &ctx, AnchoredBias::Soft);
        solver.integrate_positions(h);
        solver.iterate_anchored(world, &ctx, AnchoredBias::Relax);
    }
    solver.restitution(&ctx);
    solver.store_impulses(world);
    solver.store_joint_state(world);
    solver.finalize_bodies(world);
    solver.stop_clock(clock, stats);
}
