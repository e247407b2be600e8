//! The stages the families added beside the classic solver and the soft step call (issue
//! 13), one method each, like the stages of `step.rs`: every iteration loop of a driver
//! calls one of these (or a stage of `step.rs`) once per iteration. Each pass over the
//! constraints runs inside `StepSolver::iteration` (counted for the halt point, its
//! residual and impulse changes recorded when asked), and every other stage returns at
//! once when the step is halted.

use super::contact::BiasMode;
use super::contact_kernels::AnchoredBias;
use super::contact_sticky;
use super::step::{StepSolver, StepWorld};
use super::StepContext;

impl StepSolver {
    /// Jacobi: one iteration: joints one after the other (Gauss-Seidel, soft), then every
    /// contact from the same velocities, the sum applied with `jacobi_relaxation`.
    pub(crate) fn iterate_jacobi(
        &mut self,
        world: &mut StepWorld,
        ctx: &StepContext,
        mode: BiasMode,
    ) {
        self.iteration(world, |s, world| {
            let use_bias = mode != BiasMode::Relax;
            s.joints
                .solve(world.joints, &mut s.bodies, ctx, use_bias, &s.threads);
            s.contacts
                .solve_jacobi(&mut s.bodies, ctx, mode, &mut s.jacobi_deltas);
        });
    }

    /// TGS-Soft and TGS-NGS: one pass over joints, then contacts with current anchors.
    pub(crate) fn iterate_anchored(
        &mut self,
        world: &mut StepWorld,
        ctx: &StepContext,
        bias: AnchoredBias,
    ) {
        self.iteration(world, |s, world| {
            let use_bias = bias != AnchoredBias::Relax;
            s.joints
                .solve(world.joints, &mut s.bodies, ctx, use_bias, &s.threads);
            s.contacts.solve_anchored(&mut s.bodies, ctx, bias);
        });
    }

    /// TGS-Sticky: each contact's friction rows for the step, from its anchors kept across
    /// steps when they still hold, else from its manifold points (see `contact_sticky`).
    /// After `prepare`.
    pub(crate) fn prepare_sticky_anchors(&mut self, world: &mut StepWorld) {
        if self.halted() {
            return;
        }
        contact_sticky::prepare(
            &self.contacts.scalar,
            (world.contacts, world.sticky),
            world.bodies,
            &self.bodies,
            &mut self.sticky_rows,
        );
    }

    /// TGS-Sticky: one pass over joints, then contacts with current anchors and sticky
    /// friction (`Baumgarte` push-out, or `Relax`).
    pub(crate) fn iterate_sticky(
        &mut self,
        world: &mut StepWorld,
        ctx: &StepContext,
        bias: AnchoredBias,
    ) {
        self.iteration(world, |s, world| {
            let use_bias = bias != AnchoredBias::Relax;
            s.joints
                .solve(world.joints, &mut s.bodies, ctx, use_bias, &s.threads);
            contact_sticky::solve(
                &mut s.contacts.scalar,
                &s.sticky_rows,
                world.sticky,
                &mut s.bodies,
                ctx,
                bias,
            );
        });
    }

    /// XPBD: one pass over the joints' velocity rows (motors, limits, springs), rigid and
    /// without bias, before the positions are predicted.
    pub(crate) fn iterate_joint_velocities(&mut self, world: &mut StepWorld, ctx: &StepContext) {
        self.iteration(world, |s, world| {
            s.joints
                .solve(world.joints, &mut s.bodies, ctx, false, &s.threads);
        });
    }

    /// The NGS families: one position iteration over the contacts (Box2D v2.4).
    pub(crate) fn correct_contact_positions(&mut self, ctx: &StepContext) {
        if self.halted() {
            return;
        }
        self.contacts.solve_positions_ngs(&mut self.bodies, ctx);
    }

    /// XPBD: remember where each body is, then move it by its velocity (the prediction).
    pub(crate) fn predict_positions(&mut self, h: f32) {
        if self.halted() {
            return;
        }
        self.substep_start.clear();
        self.substep_start
            .extend(self.bodies.iter().map(|b| (b.dp, b.d_angle)));
        self.integrate_positions(h);
    }

    /// XPBD: project the contacts' position constraints once.
    pub(crate) fn project_contacts(&mut self, ctx: &StepContext) {
        if self.halted() {
            return;
        }
        self.contacts.solve_positions_xpbd(&mut self.bodies, ctx);
    }

    /// XPBD: velocities from the sub-step's motion, `v = (x - x_start) / h`. Bodies that do
    /// not respond to impulses (kinematic) keep their velocity.
    pub(crate) fn velocities_from_positions(&mut self, h: f32) {
        if self.halted() {
            return;
        }
        let inv_h = 1.0 / h;
        for (b, &(dp, da)) in self.bodies.iter_mut().zip(&self.substep_start).skip(1) {
            if b.inv_mass == 0.0 && b.inv_inertia == 0.0 {
                continue;
            }
            if b.inv_mass > 0.0 {
                b.v = (b.dp - dp) * inv_h;
            }
            if b.inv_inertia > 0.0 {
                b.w = (b.d_angle - da) * inv_h;
            }
        }
    }

    /// XPBD: the contacts' velocity pass (normal velocity of pushed points removed, dynamic
    /// friction).
    pub(crate) fn solve_contact_velocities(&mut self, world: &mut StepWorld, ctx: &StepContext) {
        self.iteration(world, |s, _| {
            s.contacts.solve_velocities_xpbd(&mut s.bodies, ctx)
        });
    }
}
