//! TGS-Sticky: sub-steps with Baumgarte push-out and position-level (sticky) friction.
//!
//! - **Idea**: collide once, then `substeps` sub-steps of `h = dt / substeps`, each one
//!   rigid pass with current anchors and position integration; no warm starting (impulses
//!   start at zero every step). Friction is a position constraint on friction anchors, one
//!   on each body per manifold point, kept across steps (`StickyAnchors` on the contact,
//!   matched to the points by feature id like the warm-start impulses): their tangential
//!   drift, including what earlier steps left, is pulled back (`STICKY_FRICTION_FRACTION`
//!   of it per sub-step), bounded by `friction` times the manifold's mean normal impulse.
//!   The anchors are taken afresh when a point is new, the bodies turned relative to each
//!   other (normals apart by more than `STICKY_NORMAL_COS`), the anchors parted by more than
//!   `2 LINEAR_SLOP` along the normal, or friction reached its bound (the contact slipped).
//!   After the sub-steps, `relax_iterations` passes without bias. See `contact_sticky.rs`.
//! - **Position handling**: Baumgarte per sub-step: `STICKY_BAUMGARTE` (0.8) of the current
//!   overlap per sub-step, at most `contact_push_max_velocity`; the relax passes remove
//!   that velocity. Joints are on the soft path (Solver2D's sticky solver has no joints):
//!   soft rows in the sub-steps, rigid in the relax passes.
//! - **Known failure**: without warm starting one pass per sub-step leaves tall stacks
//!   soft and sinking (the 20- and 80-box stacks fall, the capsule and circle stacks blow
//!   up); the Baumgarte push-out adds energy (overlap recovery peaks at 5 m/s); a heavy box
//!   on light ones sinks through. The persistent anchors hold short stacks (the 10- and
//!   15-box stacks and the 10 x 5 wall stand; re-anchored every step they collapsed), but a
//!   contact whose friction reaches its bound drops them, so a box near its friction limit
//!   on a slope re-anchors step after step.
//! - **Reference**: Catto, "Solver2D" (2024): `solve_tgs_sticky.c`; Andrews et al.,
//!   "Temporal Gauss-Seidel".

use super::contact_kernels::AnchoredBias;
use super::step::{StepSolver, StepWorld};
use super::StepContext;
use crate::physics::world::StepStats;

/// The TGS-Sticky step of `dt` seconds in `substeps` sub-steps, after one collide:
/// 1. `build_solver_bodies`;
/// 2. `prepare`, once for the step (impulses from zero: this solver never warm starts),
///    then `prepare_sticky_anchors` (the friction anchors kept or taken afresh);
/// 3. per sub-step: `integrate_velocities`, `iterate_sticky` (Baumgarte, sticky
///    friction), `integrate_positions`;
/// 4. `iterate_sticky` without bias, `relax_iterations` times;
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
    solver.prepare_sticky_anchors(world);
    for _ in 0..substeps {
        solver.integrate_velocities(world, h);
        solver.iterate_sticky(world, &ctx, AnchoredBias::Baumgarte);
        solver.integrate_positions(h);
    }
    for _ in 0..world.settings.relax_iterations {
        solver.iterate_sticky(world, &ctx, AnchoredBias::Relax);
    }
    solver.restitution(&ctx);
    solver.store_impulses(world);
    solver.store_joint_state(world);
    solver.finalize_bodies(world);
    solver.stop_clock(clock, stats);
}
