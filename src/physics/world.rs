//! The world: owns bodies, shapes, joints and contacts; creates and destroys them; steps
//! them.
//!
//! Its parts live next door: the contact set and narrow phase in `contact.rs`, islands and
//! sleep in `island.rs`, the solver's stages and scratch in `solver/step.rs` with one driver
//! per solver (`solver/classic.rs`, `solver/soft_step.rs`), the state hash and exact restore
//! in `snapshot.rs`, queries in `query.rs`, debug draw in `debug_draw.rs`.

use std::time::Instant;

use super::body::{Body, BodyDef, BodyKind};
use super::collision::broad_phase::{BroadPhase, ProxyId, ProxyKind};
use super::collision::dynamic_tree::ProxyFilter;
use super::contact::{move_proxies, Contact, ContactSet};
use super::error::{check_finite, check_finite_vec, PhysicsError, PhysicsResult};
use super::handle::Arena;
use super::island::Islands;
use super::joint::{Joint, JointDef, JointEvent};
use super::limits;
use super::math::{Aabb, Vec2};
use super::settings::{SolverKind, SolverSettings};
use super::shape::{Shape, ShapeDef};
use super::solver::contact_sticky::StickyAnchors;
use super::solver::step::{HaltPoint, StepProgress, StepSolver, StepWorld};
use super::solver::{
    classic, jacobi, pgs_ngs, pgs_ngs_block, pgs_soft, soft_step, tgs_ngs, tgs_soft, tgs_sticky,
    xpbd,
};
use super::threads::{Threads, MIN_ARENA_BODIES_PER_THREAD};
use super::{BodyHandle, JointHandle, ShapeHandle};

/// Drawing one shape's geometry moved to `debug_draw`; kept here for its callers.
pub use super::debug_draw::draw_geometry;

/// Counts and timings of the last step. Times in milliseconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepStats {
    pub bodies: usize,
    pub awake_bodies: usize,
    /// Shape pairs whose fat boxes overlap.
    pub pairs: usize,
    /// Pairs with at least one manifold point (touching or speculative).
    pub contacts: usize,
    /// Shapes whose broad-phase boxes were re-inserted or touched, and so queried.
    pub proxies_moved: usize,
    /// Box overlaps those queries found, known pairs included (each pair once).
    pub overlaps_found: usize,
    /// Pairs created.
    pub pairs_created: usize,
    /// Manifolds reused without running the narrow-phase kernel (soft step).
    pub manifolds_reused: usize,
    pub manifold_points: usize,
    pub joints: usize,
    pub broad_phase_ms: f32,
    pub narrow_phase_ms: f32,
    pub solve_ms: f32,
    pub integrate_ms: f32,
    pub total_ms: f32,
    /// The solver's stages (the soft step's; zero for the other drivers), ms: parts of
    /// `solve_ms` and `integrate_ms`, for finding a gap with a peer by stage.
    pub solver_stages: SolverStageTimes,
    /// After the solver: quarantine, joint breaking, sleep, forces cleared, ms.
    pub finish_ms: f32,
    /// Threads the step ran on: `World::thread_count`, or 1 for a step that ran on the
    /// calling thread alone because one thread was the faster lately (`threads.rs`).
    pub threads_used: usize,
    /// Deepest overlap among manifold points, metres (0 when none overlap).
    pub max_penetration: f32,
    /// Sum of the bodies' kinetic energies, J.
    pub kinetic_energy: f32,
    /// Bodies whose state went non-finite (or left the saved range) during the step: the
    /// quarantine froze them (kinematic, at rest, at their pose before the step). See
    /// `physics/quarantine.rs`.
    pub quarantined_bodies: Vec<BodyHandle>,
    /// Joints left with an impulse that was not finite: their impulses were reset.
    pub quarantined_joints: Vec<JointHandle>,
    /// Contacts left with a number that was not finite: their manifolds were emptied.
    pub quarantined_contacts: usize,
}

/// The soft step's stages, ms per step, each summed over the sub-steps (`soft_step.rs`
/// names them; Box2D v3's `b2Profile` has the same cut).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolverStageTimes {
    /// Solver bodies built, contacts coloured and prepared, joints prepared.
    pub prepare: f32,
    pub integrate_velocities: f32,
    pub warm_start: f32,
    /// The solve passes (soft bias).
    pub solve: f32,
    pub integrate_positions: f32,
    /// The relax passes (no bias).
    pub relax: f32,
    pub restitution: f32,
    /// Impulses and joint state stored for the next warm start.
    pub store: f32,
    /// Velocities and motion written back to the bodies.
    pub finalize: f32,
}

impl StepStats {
    /// How many bodies, joints and contacts the quarantine caught during the step.
    pub fn quarantined(&self) -> usize {
        self.quarantined_bodies.len() + self.quarantined_joints.len() + self.quarantined_contacts
    }
}

/// Everything simulated. See the crate docs for units. Cloning a world gives an independent
/// copy that steps bitwise identically (rewind and side-by-side comparison rely on it).
#[derive(Clone)]
pub struct World {
    pub(super) settings: SolverSettings,
    pub(super) bodies: Arena<Body>,
    pub(super) shapes: Arena<Shape>,
    pub(super) joints: Arena<Joint>,
    /// Shape pairs whose fat boxes overlap, in solver order.
    pub(super) contacts: ContactSet,
    pub(super) broad_phase: BroadPhase,
    /// Awake bodies and sleeping islands.
    pub(super) islands: Islands,
    /// The solver's scratch buffers, reused every step.
    pub(super) solver: StepSolver,
    pub(super) stats: StepStats,
    /// Joints broken by the last step (`joint/breaking.rs`).
    pub(super) joint_events: Vec<JointEvent>,
    /// The quarantine counted the touching contacts for this step's stats.
    pub(super) contact_stats_done: bool,
    pub(super) step_count: u64,
    pub(super) time: f64,
}

impl Default for World {
    fn default() -> Self {
        Self::new(SolverSettings::default())
    }
}

pub(super) fn no_body() -> PhysicsError {
    PhysicsError::new("body", "no such body (destroyed, or from another world)")
}

impl World {
    pub fn new(settings: SolverSettings) -> World {
        World {
            settings,
            bodies: Arena::new(),
            shapes: Arena::new(),
            joints: Arena::new(),
            contacts: ContactSet::default(),
            broad_phase: BroadPhase::new(),
            islands: Islands::default(),
            solver: StepSolver::default(),
            stats: StepStats::default(),
            joint_events: Vec::new(),
            contact_stats_done: false,
            step_count: 0,
            time: 0.0,
        }
    }

    // ----------------------------------------------------------------------------------
    // Settings and read access.

    pub fn settings(&self) -> &SolverSettings {
        &self.settings
    }

    /// Replace the solver settings; they apply from the next step. Invalid settings are
    /// refused and the old ones kept. A change wakes every body.
    pub fn set_settings(&mut self, settings: SolverSettings) -> PhysicsResult<()> {
        settings.validate()?;
        if settings != self.settings {
            self.settings = settings;
            self.islands.wake_all(&mut self.bodies);
        }
        Ok(())
    }

    /// Threads the steps may use (1: the serial path; always 1 without the `parallel`
    /// feature). A step may still run on one of them (`StepStats::threads_used`).
    pub fn thread_count(&self) -> usize {
        self.solver.threads.team_size()
    }

    /// Step with `count` threads from the next step on: the broad and narrow phases, the
    /// passes over the bodies, the colour-by-colour solve and the one-by-one joints are split
    /// across them (`threads.rs`). The results are identical for any count (and to a build
    /// without the `parallel` feature, where the count is accepted and the step stays
    /// serial). Refused outside `1..=64`, naming the field `threads`.
    pub fn set_thread_count(&mut self, count: usize) -> PhysicsResult<()> {
        if count != self.solver.threads.requested() {
            self.solver.threads = Threads::new(count)?;
        }
        Ok(())
    }

    pub fn body(&self, handle: BodyHandle) -> Option<&Body> {
        self.bodies.get(handle)
    }

    pub fn shape(&self, handle: ShapeHandle) -> Option<&Shape> {
        self.shapes.get(handle)
    }

    pub fn joint(&self, handle: JointHandle) -> Option<&Joint> {
        self.joints.get(handle)
    }

    /// Mutable access to a joint (motor speeds, limits, targets). Wakes its bodies.
    pub fn joint_mut(&mut self, handle: JointHandle) -> Option<&mut Joint> {
        let (a, b) = {
            let j = self.joints.get(handle)?;
            (j.body_a, j.body_b)
        };
        self.wake_body(a);
        self.wake_body(b);
        self.joints.get_mut(handle)
    }

    pub fn bodies(&self) -> impl Iterator<Item = (BodyHandle, &Body)> {
        self.bodies.iter()
    }

    pub fn shapes(&self) -> impl Iterator<Item = (ShapeHandle, &Shape)> {
        self.shapes.iter()
    }

    pub fn joints(&self) -> impl Iterator<Item = (JointHandle, &Joint)> {
        self.joints.iter()
    }

    /// Every shape pair whose fat boxes overlap, in solver order.
    pub fn contacts(&self) -> impl Iterator<Item = &Contact> + Clone + '_ {
        self.contacts.live()
    }

    /// The contacts as `contacts` gives them, each with its TGS-Sticky friction anchors
    /// (none but under that solver).
    pub fn contacts_with_sticky_anchors(
        &self,
    ) -> impl Iterator<Item = (&Contact, &StickyAnchors)> + Clone + '_ {
        self.contacts.live_with_sticky()
    }

    /// How many shape pairs have overlapping fat boxes (`contacts().count()`).
    pub fn contact_count(&self) -> usize {
        self.contacts.live_count()
    }

    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// The first body with this name.
    pub fn body_by_name(&self, name: &str) -> Option<BodyHandle> {
        self.bodies
            .iter()
            .find(|(_, b)| b.name.as_deref() == Some(name))
            .map(|(h, _)| h)
    }

    /// The first joint with this name.
    pub fn joint_by_name(&self, name: &str) -> Option<JointHandle> {
        self.joints
            .iter()
            .find(|(_, j)| j.name.as_deref() == Some(name))
            .map(|(h, _)| h)
    }

    pub fn stats(&self) -> &StepStats {
        &self.stats
    }

    /// Record the residual of every solver iteration from the next step on (for the
    /// testbed's convergence plot).
    pub fn set_record_residuals(&mut self, on: bool) {
        self.solver.record_residuals = on;
        if !on {
            self.solver.residuals.clear();
        }
    }

    /// The residual of each iteration of the last step, in order (classic: `iterations`
    /// per sub-step; soft step: a solve and a relax per sub-step): the momentum the iteration
    /// still changed, `sum(m |dv| + I |dw|)` over the bodies, N s. It falls towards zero as the
    /// iterations converge. Empty unless recording is on.
    pub fn iteration_residuals(&self) -> &[f32] {
        &self.solver.residuals
    }

    /// Steps taken since the world was made.
    pub fn step_count(&self) -> u64 {
        self.step_count
    }

    /// Simulated seconds since the world was made.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Sum of kinetic energies, J.
    pub fn kinetic_energy(&self) -> f32 {
        self.bodies.iter().map(|(_, b)| b.kinetic_energy()).sum()
    }

    /// Bounding box of every shape (None for an empty world).
    pub fn bounds(&self) -> Option<Aabb> {
        self.shapes
            .iter()
            .map(|(_, s)| {
                let body = self.bodies.get(s.body).expect("shape's body");
                s.geometry.aabb(&body.transform())
            })
            .reduce(|a, b| a.union(&b))
    }

    // ----------------------------------------------------------------------------------
    // Creating and destroying.

    pub fn create_body(&mut self, def: &BodyDef) -> PhysicsResult<BodyHandle> {
        def.validate()?;
        let handle = self.bodies.insert(Body::from_def(def));
        if self.bodies.get(handle).expect("just made").awake {
            self.islands.insert_awake(handle.index());
        }
        Ok(handle)
    }

    /// Add a shape to a body; the body's mass is recomputed (from all its shapes: adding
    /// many shapes to one body one at a time costs the square of their count; use
    /// [`World::create_shapes`]).
    pub fn create_shape(&mut self, body: BodyHandle, def: &ShapeDef) -> PhysicsResult<ShapeHandle> {
        def.validate()?;
        let first = self.bodies.get(body).ok_or_else(no_body)?.shapes.len();
        let handle = self.insert_shape(body, def);
        self.update_mass_after(body, first);
        self.wake_body(body);
        Ok(handle)
    }

    /// Add several shapes to a body at once, in order: the same world, bit for bit, as
    /// `create_shape` for each in turn (velocities included), but the body's mass is
    /// recomputed once, so the cost grows linearly with the number of shapes. Nothing is
    /// added when a definition is refused: the error comes with its index in `defs`.
    pub fn create_shapes(
        &mut self,
        body: BodyHandle,
        defs: &[ShapeDef],
    ) -> Result<Vec<ShapeHandle>, (usize, PhysicsError)> {
        for (k, def) in defs.iter().enumerate() {
            def.validate().map_err(|e| (k, e))?;
        }
        let first = self
            .bodies
            .get(body)
            .ok_or_else(|| (0, no_body()))?
            .shapes
            .len();
        let handles: Vec<ShapeHandle> = defs.iter().map(|d| self.insert_shape(body, d)).collect();
        if !handles.is_empty() {
            self.update_mass_after(body, first);
            self.wake_body(body);
        }
        Ok(handles)
    }

    /// Make a validated shape on an existing body, with its broad-phase proxy, and list it
    /// on the body. The body's mass is left to the caller.
    fn insert_shape(&mut self, body: BodyHandle, def: &ShapeDef) -> ShapeHandle {
        let b = self.bodies.get(body).expect("checked by the caller");
        let aabb = def.geometry.aabb(&b.transform());
        let kind = if b.kind == BodyKind::Static {
            ProxyKind::Static
        } else {
            ProxyKind::Moving
        };
        let handle = self.shapes.insert_with(|handle| Shape {
            body,
            geometry: def.geometry,
            density: def.density,
            friction: def.friction,
            restitution: def.restitution,
            filter: def.filter,
            aabb,
            fat_aabb: aabb,
            margin: def.geometry.fat_margin(),
            proxy: ProxyId::from_bits(0),
            handle,
        });
        let shape = self.shapes.get_mut(handle).expect("just made");
        // A positive group may override the bits: such a shape pairs with everything here
        // and `Filter::should_collide` decides.
        let filter = if def.filter.group_index > 0 {
            ProxyFilter::ALL
        } else {
            ProxyFilter {
                category: def.filter.category_bits,
                mask: def.filter.mask_bits,
            }
        };
        shape.proxy = self.broad_phase.create_proxy_filtered(
            aabb,
            kind,
            shape.margin,
            filter,
            handle.index() as u32,
        );
        shape.fat_aabb = self.broad_phase.fat_aabb(shape.proxy);
        self.bodies
            .get_mut(body)
            .expect("checked")
            .shapes
            .push(handle);
        handle
    }

    /// Remove a shape and its contacts; the body's mass is recomputed.
    pub fn destroy_shape(&mut self, shape: ShapeHandle) -> PhysicsResult<()> {
        let s = self
            .shapes
            .remove(shape)
            .ok_or_else(|| PhysicsError::new("shape", "no such shape"))?;
        self.broad_phase.destroy_proxy(s.proxy);
        self.contacts
            .remove_where(s.body.index(), |c| c.shape_a == shape || c.shape_b == shape);
        if let Some(b) = self.bodies.get_mut(s.body) {
            b.shapes.retain(|&h| h != shape);
        }
        self.update_mass(s.body);
        self.wake_body(s.body);
        Ok(())
    }

    /// Remove a body with its shapes, joints and contacts. Bodies it touched wake up.
    pub fn destroy_body(&mut self, body: BodyHandle) -> PhysicsResult<()> {
        let b = self.bodies.get(body).ok_or_else(no_body)?;
        let joints = b.joints.clone();
        let shapes = b.shapes.clone();
        for j in joints {
            self.destroy_joint(j)?;
        }
        // One pass over the contacts: the body's go, and the bodies they touched wake.
        let mut touched: Vec<BodyHandle> = Vec::new();
        self.contacts.remove_where(body.index(), |c| {
            let other = if c.body_a == body {
                c.body_b
            } else if c.body_b == body {
                c.body_a
            } else {
                return false;
            };
            touched.push(other);
            true
        });
        for other in touched {
            self.wake_body(other);
        }
        self.wake_body(body);
        for s in shapes {
            if let Some(shape) = self.shapes.remove(s) {
                self.broad_phase.destroy_proxy(shape.proxy);
            }
        }
        self.islands.remove(body.index());
        self.bodies.remove(body);
        Ok(())
    }

    /// Join two bodies. Contacts between them go away unless `collide_connected`. Anchors
    /// farther than [`super::limits::MAX_JOINT_ARM`] from the body they are on are refused.
    pub fn create_joint(&mut self, def: &JointDef) -> PhysicsResult<JointHandle> {
        self.make_joint(def, true)
    }

    /// A joint of an export: its bodies may have moved apart since it was made (a
    /// prismatic joint's slide), so its world anchors are not checked against their origins;
    /// the exact local anchors come back from the state section, which the loader checks.
    pub(crate) fn create_joint_to_restore(&mut self, def: &JointDef) -> PhysicsResult<JointHandle> {
        self.make_joint(def, false)
    }

    fn make_joint(&mut self, def: &JointDef, check_arms: bool) -> PhysicsResult<JointHandle> {
        if def.body_a == def.body_b {
            return Err(PhysicsError::new(
                "body_b",
                "a joint must join two different bodies",
            ));
        }
        let body_a = self
            .bodies
            .get(def.body_a)
            .ok_or_else(|| PhysicsError::new("body_a", "no such body"))?;
        let body_b = self
            .bodies
            .get(def.body_b)
            .ok_or_else(|| PhysicsError::new("body_b", "no such body"))?;
        if check_arms {
            super::joint::check_arms(def, body_a, body_b)?;
        }
        let joint = Joint::new(def, body_a, body_b)?;
        let handle = self.joints.insert(joint);
        self.bodies
            .get_mut(def.body_a)
            .expect("checked")
            .joints
            .push(handle);
        self.bodies
            .get_mut(def.body_b)
            .expect("checked")
            .joints
            .push(handle);
        // A joint made disabled (a broken one of an export) lets its bodies collide.
        if !def.collide_connected && def.enabled {
            let (a, b) = (def.body_a, def.body_b);
            self.contacts.remove_where(a.index(), |c| {
                (c.body_a == a && c.body_b == b) || (c.body_a == b && c.body_b == a)
            });
        }
        self.wake_body(def.body_a);
        self.wake_body(def.body_b);
        Ok(handle)
    }

    pub fn destroy_joint(&mut self, joint: JointHandle) -> PhysicsResult<()> {
        let j = self
            .joints
            .remove(joint)
            .ok_or_else(|| PhysicsError::new("joint", "no such joint"))?;
        for body in [j.body_a, j.body_b] {
            if let Some(b) = self.bodies.get_mut(body) {
                b.joints.retain(|&h| h != joint);
            }
            self.wake_body(body);
        }
        // Shapes of the two bodies may collide again: let the broad phase report them.
        if !j.collide_connected && j.is_enabled() {
            for body in [j.body_a, j.body_b] {
                self.touch_body_proxies(body);
            }
        }
        Ok(())
    }

    pub(super) fn touch_body_proxies(&mut self, body: BodyHandle) {
        if let Some(b) = self.bodies.get(body) {
            for &s in &b.shapes {
                if let Some(shape) = self.shapes.get(s) {
                    self.broad_phase.touch_proxy(shape.proxy);
                }
            }
        }
    }

    /// Mass, centre of mass and inertia from the shapes. A dynamic body with no mass gets
    /// 1 kg and no rotational inertia (Box2D's rule), so it still falls.
    fn update_mass(&mut self, handle: BodyHandle) {
        let last = self.bodies.get(handle).map_or(0, |b| b.shapes.len());
        self.update_mass_after(handle, last.saturating_sub(1));
    }

    /// `update_mass` after the shapes from index `first` on were added one at a time: the
    /// centre of mass moves once per added shape (prefix sums, exactly as the recomputes of
    /// single additions would sum them) and a dynamic body's velocity follows each move, so
    /// the result is the same, bit for bit, as one `update_mass` per shape; the inertia and
    /// the extent, which depend only on the final centre, are computed once. Linear in the
    /// body's shape count.
    fn update_mass_after(&mut self, handle: BodyHandle, first: usize) {
        let Some(b) = self.bodies.get(handle) else {
            return;
        };
        let mut parts = Vec::with_capacity(b.shapes.len());
        for &s in &b.shapes {
            let shape = self.shapes.get(s).expect("body's shape");
            parts.push((shape.geometry.mass_data(shape.density), shape.geometry));
        }
        let b = self.bodies.get_mut(handle).expect("checked");
        let dynamic = b.kind == BodyKind::Dynamic;
        // The centre of mass after each addition from `first` on (once, with no shapes).
        let first = first.min(parts.len().saturating_sub(1));
        let mut mass = 0.0;
        let mut weighted = Vec2::ZERO;
        let mut moved = false;
        let mut move_center = |b: &mut Body, mass: f32, weighted: Vec2| {
            let old_center = b.center;
            b.local_center = if mass > 0.0 {
                weighted / mass
            } else {
                Vec2::ZERO
            };
            b.center = b.origin + b.q.rotate(b.local_center);
            moved |= b.center != old_center;
            if dynamic {
                // Keep the velocity of the material points: v_new = v + w x (c_new - c_old).
                let shift = b.center - old_center;
                b.linear_velocity += super::math::cross_sv(b.angular_velocity, shift);
            }
        };
        if parts.is_empty() {
            move_center(b, mass, weighted);
        }
        for (k, (md, _)) in parts.iter().enumerate() {
            mass += md.mass;
            weighted += md.mass * md.center;
            if k >= first {
                move_center(b, mass, weighted);
            }
        }
        let local_center = b.local_center;
        let mut inertia = 0.0;
        let mut extent: f32 = 0.0;
        for (md, geometry) in &parts {
            inertia +=
                md.rotational_inertia + md.mass * (md.center - local_center).length_squared();
            extent = extent.max(geometry.extent_from(local_center));
        }
        b.extent = extent;
        if moved {
            // Recycled manifolds keep their points relative to the centres of mass.
            for c in self.contacts.live_mut() {
                if c.body_a == handle || c.body_b == handle {
                    c.cache.valid = false;
                }
            }
        }
        let b = self.bodies.get_mut(handle).expect("checked");
        if !dynamic {
            b.mass = 0.0;
            b.inv_mass = 0.0;
            b.inertia = 0.0;
            b.inv_inertia = 0.0;
            return;
        }
        if mass > 0.0 {
            b.mass = mass;
            b.inv_mass = 1.0 / mass;
        } else {
            b.mass = 1.0;
            b.inv_mass = 1.0;
        }
        if inertia > 0.0 && !b.fixed_rotation {
            b.inertia = inertia;
            b.inv_inertia = 1.0 / inertia;
        } else {
            b.inertia = 0.0;
            b.inv_inertia = 0.0;
        }
    }

    // ----------------------------------------------------------------------------------
    // Changing bodies. Every change wakes the body.

    pub(super) fn body_mut(&mut self, handle: BodyHandle) -> PhysicsResult<&mut Body> {
        self.bodies.get_mut(handle).ok_or_else(no_body)
    }

    /// Teleport a body's origin. Its contacts are refreshed on the next step.
    pub fn set_transform(
        &mut self,
        handle: BodyHandle,
        position: Vec2,
        angle: f32,
    ) -> PhysicsResult<()> {
        check_finite_vec("position", position)?;
        check_finite("angle", angle)?;
        let b = self.body_mut(handle)?;
        b.angle = angle;
        b.q = super::math::Rot::from_angle(angle);
        b.origin = position;
        b.center = position + b.q.rotate(b.local_center);
        let kind = b.kind;
        let shapes = b.shapes.clone();
        let xf = b.transform();
        for s in shapes {
            let shape = self.shapes.get_mut(s).expect("body's shape");
            shape.aabb = shape.geometry.aabb(&xf);
            let (proxy, aabb) = (shape.proxy, shape.aabb);
            if !self
                .broad_phase
                .move_proxy_with_margin(proxy, aabb, shape.margin)
            {
                self.broad_phase.touch_proxy(proxy);
            }
            shape.fat_aabb = self.broad_phase.fat_aabb(proxy);
        }
        if kind != BodyKind::Static {
            self.wake_body(handle);
        }
        Ok(())
    }

    pub fn set_linear_velocity(&mut self, handle: BodyHandle, v: Vec2) -> PhysicsResult<()> {
        check_finite_vec("linear_velocity", v)?;
        let b = self.body_mut(handle)?;
        if b.kind == BodyKind::Static {
            return Ok(());
        }
        b.linear_velocity = v;
        self.wake_body(handle);
        Ok(())
    }

    pub fn set_angular_velocity(&mut self, handle: BodyHandle, w: f32) -> PhysicsResult<()> {
        check_finite("angular_velocity", w)?;
        let b = self.body_mut(handle)?;
        if b.kind == BodyKind::Static || b.fixed_rotation {
            return Ok(());
        }
        b.angular_velocity = w;
        self.wake_body(handle);
        Ok(())
    }

    /// Add a force (N) at a world point for the next step. The step's sum of forces (and
    /// of their torques) is held inside the force (torque) range, ±1e12.
    pub fn apply_force(
        &mut self,
        handle: BodyHandle,
        force: Vec2,
        point: Vec2,
    ) -> PhysicsResult<()> {
        check_finite_vec("force", force)?;
        check_finite_vec("point", point)?;
        let b = self.body_mut(handle)?;
        if b.kind != BodyKind::Dynamic {
            return Ok(());
        }
        // The sums stay in the force and torque ranges: a million calls in range summed past
        // them (a no-op for sums inside, which are unchanged).
        b.force = (b.force + force).clamp(
            Vec2::splat(limits::FORCE.min),
            Vec2::splat(limits::FORCE.max),
        );
        b.torque = (b.torque + super::math::cross(point - b.center, force))
            .clamp(limits::TORQUE.min, limits::TORQUE.max);
        self.wake_body(handle);
        Ok(())
    }

    /// Add a torque (N m) for the next step. The step's sum is held inside ±1e12 N m.
    pub fn apply_torque(&mut self, handle: BodyHandle, torque: f32) -> PhysicsResult<()> {
        check_finite("torque", torque)?;
        let b = self.body_mut(handle)?;
        if b.kind != BodyKind::Dynamic {
            return Ok(());
        }
        b.torque = (b.torque + torque).clamp(limits::TORQUE.min, limits::TORQUE.max);
        self.wake_body(handle);
        Ok(())
    }

    /// Apply an impulse (N s) at a world point now.
    pub fn apply_linear_impulse(
        &mut self,
        handle: BodyHandle,
        impulse: Vec2,
        point: Vec2,
    ) -> PhysicsResult<()> {
        check_finite_vec("impulse", impulse)?;
        check_finite_vec("point", point)?;
        let b = self.body_mut(handle)?;
        if b.kind != BodyKind::Dynamic {
            return Ok(());
        }
        b.linear_velocity += b.inv_mass * impulse;
        b.angular_velocity += b.inv_inertia * super::math::cross(point - b.center, impulse);
        self.wake_body(handle);
        Ok(())
    }

    /// Wake a body (and its sleeping island) or put its island to sleep now.
    pub fn set_awake(&mut self, handle: BodyHandle, awake: bool) -> PhysicsResult<()> {
        self.bodies.get(handle).ok_or_else(no_body)?;
        if awake {
            self.wake_body(handle);
        } else {
            self.islands.sleep_body(&mut self.bodies, handle.index());
        }
        Ok(())
    }

    // ----------------------------------------------------------------------------------
    // Sleep bookkeeping.

    /// Wake a body and every body of its sleeping island.
    pub(crate) fn wake_body(&mut self, handle: BodyHandle) {
        self.islands.wake_body(&mut self.bodies, handle);
    }

    // ----------------------------------------------------------------------------------
    // The step.

    /// Advance the world by `dt` seconds. Non-positive or non-finite `dt` does nothing.
    ///
    /// The pipeline, each item a stage function, in the order they run:
    /// 1. `collide`: move broad-phase proxies, create contacts for new pairs, run the narrow
    ///    phase (or recycle a manifold), match points by feature id, drop pairs whose boxes
    ///    parted, wake what a contact touches;
    /// 2. the solver's driver (`solver/classic.rs`, `solver/soft_step.rs`), over the stages
    ///    of `solver/step.rs`:
    ///    1. `build_solver_bodies`;
    ///    2. `integrate_velocities`: gravity, forces, damping (soft step: per sub-step);
    ///    3. `prepare`: contact and joint constraints (masses, arms, bias);
    ///    4. `warm_start`: apply last step's impulses;
    ///    5. `iterate`: classic, `iterations` passes of joints then contacts; soft step,
    ///       one solve pass per sub-step;
    ///    6. `integrate_positions`;
    ///    7. classic: `correct_joint_positions`, the joints' position pass; soft step:
    ///       `iterate` again without position bias (relax), then the next sub-step;
    ///    8. `restitution`;
    ///    9. `store_impulses` for the next warm start;
    ///    10. `store_joint_state`;
    ///    11. `finalize_bodies`: velocities and motion back to the bodies;
    /// 3. `quarantine` (`quarantine.rs`), after whichever driver ran: speeds held to the
    ///    caps, impulses to the saved range, and a body whose state is not finite frozen
    ///    and reported in the stats;
    /// 4. `break_joints`: joints loaded past their thresholds break (`joint/breaking.rs`),
    ///    recorded in `joint_events`;
    /// 5. `update_sleep`: islands that stayed still fall asleep;
    /// 6. `clear_forces`.
    ///
    /// Classic: `substeps` full steps of `dt / substeps` (collide and driver each). Soft
    /// step: one collide, then one driver call that runs the sub-steps. The other solvers
    /// follow one of the two patterns (Jacobi and the PGS family: classic's; the TGS
    /// family and XPBD: the soft step's), each with its own driver file under `solver/`.
    /// `step_until` runs the same pipeline with a halt point armed (the stages stop there).
    pub fn step(&mut self, dt: f32) {
        if !(dt > 0.0 && dt.is_finite()) {
            return;
        }
        let start = Instant::now();
        self.stats = StepStats::default();
        self.solver.threads.begin_step();
        self.stats.threads_used = self.solver.threads.count();
        self.solver.residuals.clear();
        self.joint_events.clear();
        self.solver.begin_step();
        let substeps = self.settings.substeps.max(1);
        match self.settings.solver {
            kind @ (SolverKind::Classic
            | SolverKind::Jacobi
            | SolverKind::PgsNgs
            | SolverKind::PgsNgsBlock
            | SolverKind::PgsSoft) => {
                let h = dt / substeps as f32;
                for k in 0..substeps {
                    self.collide(h);
                    let (solver, mut world, stats) = self.solver_parts();
                    let driver = match kind {
                        SolverKind::Classic => classic::step,
                        SolverKind::Jacobi => jacobi::step,
                        SolverKind::PgsNgs => pgs_ngs::step,
                        SolverKind::PgsNgsBlock => pgs_ngs_block::step,
                        _ => pgs_soft::step,
                    };
                    driver(solver, &mut world, h, stats);
                    if self.solver.halted() {
                        break;
                    }
                    if k + 1 < substeps {
                        // Before the next collide (the last runs after the match).
                        self.quarantine();
                    }
                }
            }
            kind @ (SolverKind::SoftStep
            | SolverKind::TgsSticky
            | SolverKind::TgsSoft
            | SolverKind::TgsNgs
            | SolverKind::Xpbd) => {
                self.collide(dt);
                let (solver, mut world, stats) = self.solver_parts();
                let driver = match kind {
                    SolverKind::SoftStep => soft_step::step,
                    SolverKind::TgsSticky => tgs_sticky::step,
                    SolverKind::TgsSoft => tgs_soft::step,
                    SolverKind::TgsNgs => tgs_ngs::step,
                    _ => xpbd::step,
                };
                driver(solver, &mut world, dt, substeps, stats);
            }
        }
        if self.solver.halted() {
            // Stopped inside the step (`step_until`): the state shown mid-step; no
            // quarantine, no breaking, no sleep, the forces and the clock stay.
            self.contact_stats_done = false;
            self.finish_stats(start);
            return;
        }
        let finish = Instant::now();
        self.quarantine();
        let spans = self.settings.solver.impulse_spans(substeps);
        self.break_joints(spans as f32 / dt);
        self.islands.update_sleep(
            &mut self.bodies,
            (&self.contacts.contacts, &self.joints),
            &self.solver.solver_index_by_slot,
            &self.settings,
            dt,
        );
        self.clear_forces();
        self.step_count += 1;
        self.time += dt as f64;
        self.stats.finish_ms = finish.elapsed().as_secs_f32() * 1000.0;
        self.solver.threads.end_step(start.elapsed().as_secs_f32());
        self.finish_stats(start);
    }

    /// Run one step of `dt` seconds like `step`, but stop inside it at `point` (a solver
    /// iteration or the start of a sub-step): the bodies then hold the velocities and
    /// positions the solver had reached there, the contacts their accumulated impulses and
    /// their points moved with the bodies. Returns where it stopped (`halted` false: the
    /// point lies past the step's end and the step ran whole, exactly as `step`).
    ///
    /// A halted world is a view: the step counter, time, sleep and the applied forces are
    /// left as they were before the step. Re-run from a copy of the state before the step
    /// to look at another point; every point of a step is deterministic.
    pub fn step_until(&mut self, dt: f32, point: HaltPoint) -> StepProgress {
        self.solver.halt.point = Some(point);
        self.solver.begin_step();
        self.step(dt);
        self.solver.halt.point = None;
        self.solver.halt.progress
    }

    /// How far the last step went (`StepProgress`): its sub-steps and solver iterations.
    pub fn step_progress(&self) -> StepProgress {
        self.solver.halt.progress
    }

    /// Record, from the next step on, how much each solver iteration changes each contact
    /// point's and joint's accumulated impulse (`inspect.rs`; for the testbed's colouring).
    pub fn set_track_impulse_changes(&mut self, on: bool) {
        self.solver.track_impulses = on;
        if !on {
            self.solver.contact_impulse_change.clear();
            self.solver.joint_impulse_change.clear();
        }
    }

    /// The solver, what of the world its stages touch, and the stats it adds its times to.
    fn solver_parts(&mut self) -> (&mut StepSolver, StepWorld<'_>, &mut StepStats) {
        let contacts_generation = self.contacts.generation();
        let ((contacts, sticky), touching, recycled) = self.contacts.for_solver();
        let world = StepWorld {
            settings: &self.settings,
            bodies: &mut self.bodies,
            joints: &mut self.joints,
            contacts,
            sticky,
            touching,
            recycled,
            contacts_generation,
            awake: &self.islands.awake,
        };
        (&mut self.solver, world, &mut self.stats)
    }

    /// Stage 1: broad phase, new contacts, narrow phase, persistence.
    fn collide(&mut self, h: f32) {
        if self.solver.halted() {
            return;
        }
        let t0 = Instant::now();
        // The soft step predicts the boxes of the bodies touching nothing only, and pairs
        // moving shapes by unswept boxes; the other solvers predict and sweep every box
        // (their results are the solver matrix's baselines).
        let soft = self.settings.solver == SolverKind::SoftStep;
        let touching: &[bool] = if soft {
            self.contacts
                .touching_bodies(self.bodies.capacity(), &self.solver.threads)
        } else {
            &[]
        };
        move_proxies(
            &self.bodies,
            &mut self.shapes,
            &mut self.broad_phase,
            &self.islands.awake,
            touching,
            soft,
            h,
            &self.solver.threads,
        );
        self.contacts.add_new_pairs(
            &mut self.broad_phase,
            &self.shapes,
            &self.bodies,
            &self.joints,
            &mut self.stats,
            &self.solver.threads,
        );
        let t1 = Instant::now();
        let reaches = self.broad_phase.reaches();
        let checks = self.solver.contacts.wide.refreshes_next();
        let to_wake = self.contacts.update_manifolds(
            &self.bodies,
            (&self.shapes, reaches),
            (&self.settings, checks),
            h,
            &mut self.stats,
            &self.solver.threads,
        );
        for body in to_wake {
            self.wake_body(body);
        }
        let t2 = Instant::now();
        self.stats.broad_phase_ms += (t1 - t0).as_secs_f32() * 1000.0;
        self.stats.narrow_phase_ms += (t2 - t1).as_secs_f32() * 1000.0;
    }

    /// Stage 5: forces and torques last for one step.
    /// Across the threads (runs of the awake list).
    fn clear_forces(&mut self) {
        let awake = &self.islands.awake;
        let arena = self.bodies.shared();
        let threads = &self.solver.threads;
        let worth_it = awake.len() >= MIN_ARENA_BODIES_PER_THREAD * threads.count();
        threads.ranges(awake.len(), worth_it, |run| {
            for &i in &awake[run] {
                // SAFETY: awake slots are distinct and each is in one run.
                let b = unsafe { arena.at_mut(i) };
                b.force = Vec2::ZERO;
                b.torque = 0.0;
            }
        });
    }

    fn finish_stats(&mut self, start: Instant) {
        let mut stats = std::mem::take(&mut self.stats);
        stats.bodies = self.bodies.len();
        stats.awake_bodies = self.islands.awake.len();
        stats.joints = self.joints.len();
        stats.pairs = self.contacts.live_count();
        if !std::mem::take(&mut self.contact_stats_done) {
            // Halted inside the step: the end-of-step quarantine did not count them (one
            // between classic sub-steps may have: start again).
            stats.contacts = 0;
            stats.manifold_points = 0;
            let mut max_penetration: f32 = 0.0;
            for c in self.contacts.live() {
                if c.manifold.count > 0 {
                    stats.contacts += 1;
                    stats.manifold_points += c.manifold.count;
                    for p in c.manifold.points() {
                        max_penetration = max_penetration.max(-p.separation);
                    }
                }
            }
            stats.max_penetration = max_penetration;
        }
        stats.kinetic_energy = self
            .islands
            .awake
            .iter()
            .map(|&i| self.bodies.at(i).kinetic_energy())
            .sum();
        stats.total_ms = start.elapsed().as_secs_f32() * 1000.0;
        self.stats = stats;
    }
}
