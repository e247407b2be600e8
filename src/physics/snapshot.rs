//! Snapshots: the state hash and the exact restore API used by scene export and rewind.
//!
//! The restore functions write raw state without the checks of physical consistency the
//! setters make and wake nothing: a loader rebuilds the bodies, shapes and joints in slot
//! order, then calls them to put back the state a definition cannot carry, so that the
//! restored world steps bit for bit like the saved one.

use super::body::{Body, BodyKind};
use super::collision;
use super::contact::{mix_friction, mix_restitution, pair_key, Contact, ManifoldCache};
use super::error::{check_finite, check_finite_vec, PhysicsError, PhysicsResult};
use super::joint::JointState;
use super::math::{Aabb, Vec2};
use super::settings::SolverSettings;
use super::solver::contact_sticky::StickyAnchors;
use super::world::World;
use super::{BodyHandle, JointHandle, ShapeHandle};

/// The motion and sleep state of a body beyond its definition: what an exact restore puts
/// back (see `World::restore_body_state`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// World centre of mass, metres.
    pub center: Vec2,
    pub angle: f32,
    pub linear_velocity: Vec2,
    pub angular_velocity: f32,
    pub awake: bool,
    /// Seconds the body has been still.
    pub sleep_time: f32,
    /// The sleeping island id (asleep bodies only).
    pub island: Option<u32>,
}

impl BodyState {
    /// The state of `body` as the world holds it.
    pub fn of(body: &Body) -> BodyState {
        BodyState {
            center: body.center,
            angle: body.angle,
            linear_velocity: body.linear_velocity,
            angular_velocity: body.angular_velocity,
            awake: body.awake,
            sleep_time: body.sleep_time,
            island: (!body.awake && body.kind != BodyKind::Static).then_some(body.island),
        }
    }
}

impl World {
    /// A 64-bit FNV-1a hash of the simulated state: every body's position, angle, velocities
    /// and sleep state, bit for bit, and every contact's impulses.
    pub fn state_hash(&self) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut eat = |x: u32| {
            for byte in x.to_le_bytes() {
                h ^= byte as u64;
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        for (handle, b) in self.bodies.iter() {
            eat(handle.index() as u32);
            for x in [
                b.center.x,
                b.center.y,
                b.angle,
                b.linear_velocity.x,
                b.linear_velocity.y,
                b.angular_velocity,
            ] {
                eat(x.to_bits());
            }
            eat(b.awake as u32);
        }
        for c in self.contacts.live() {
            for p in c.manifold.points() {
                eat(p.normal_impulse.to_bits());
                eat(p.tangent_impulse.to_bits());
            }
        }
        // Joints: their solver state (local frames, references, accumulated impulses).
        let mut bits = Vec::new();
        for (_, j) in self.joints.iter() {
            bits.clear();
            j.state().bits(&mut bits);
            for &x in &bits {
                eat(x);
            }
            // A disabled (broken) joint adds a mark; enabled joints add nothing, so the
            // hashes of worlds without broken joints are those of before breakable joints.
            if !j.is_enabled() {
                eat(0xb40c_e11d);
            }
        }
        h
    }

    /// The broad-phase (fat) box of a shape: the tight box grown by the margin when it was
    /// last re-inserted.
    #[doc(hidden)]
    pub fn shape_proxy_box(&self, shape: ShapeHandle) -> Option<Aabb> {
        Some(self.shapes.get(shape)?.fat_aabb)
    }

    /// The broad-phase reach of a shape (what it pairs with static shapes by): for a moving
    /// shape, its box swept by the motion when it was last renewed; else its fat box.
    #[doc(hidden)]
    pub fn shape_reach_box(&self, shape: ShapeHandle) -> Option<Aabb> {
        Some(self.broad_phase.reach_aabb(self.shapes.get(shape)?.proxy))
    }

    /// Put back a body's exact motion and sleep state: centre of mass, angle, velocities,
    /// awake flag, sleep timer and (asleep) island id. Shape boxes follow the new transform.
    #[doc(hidden)]
    pub fn restore_body_state(&mut self, body: BodyHandle, state: &BodyState) -> PhysicsResult<()> {
        check_finite_vec("center", state.center)?;
        check_finite("angle", state.angle)?;
        check_finite_vec("linear_velocity", state.linear_velocity)?;
        check_finite("angular_velocity", state.angular_velocity)?;
        check_finite("sleep_time", state.sleep_time)?;
        let index = body.index();
        let b = self.body_mut(body)?;
        b.center = state.center;
        b.angle = state.angle;
        b.sync_transform();
        b.sleep_time = state.sleep_time;
        let is_static = b.kind == BodyKind::Static;
        if !is_static {
            b.linear_velocity = state.linear_velocity;
            b.angular_velocity = state.angular_velocity;
        }
        let xf = b.transform();
        let was_awake = b.awake;
        let shapes = b.shapes.clone();
        for s in shapes {
            let shape = self.shapes.get_mut(s).expect("body's shape");
            shape.aabb = shape.geometry.aabb(&xf);
        }
        if is_static {
            return Ok(());
        }
        self.islands.restore(
            &mut self.bodies,
            index,
            was_awake,
            state.awake,
            state.island,
        );
        Ok(())
    }

    /// Append a contact between two shapes with a saved manifold (points, feature ids and
    /// accumulated impulses) and recycling cache, after the contacts already there. Refused when either shape is
    /// missing, both are on one body, or the pair already has a contact.
    #[doc(hidden)]
    pub fn restore_contact(
        &mut self,
        shape_a: ShapeHandle,
        shape_b: ShapeHandle,
        manifold: collision::Manifold,
        cache: ManifoldCache,
        sticky: StickyAnchors,
    ) -> PhysicsResult<()> {
        let sa = self
            .shapes
            .get(shape_a)
            .ok_or_else(|| PhysicsError::new("shape_a", "no such shape"))?;
        let sb = self
            .shapes
            .get(shape_b)
            .ok_or_else(|| PhysicsError::new("shape_b", "no such shape"))?;
        if sa.body == sb.body {
            return Err(PhysicsError::new(
                "shape_b",
                "a contact joins shapes of two different bodies",
            ));
        }
        if sticky.count > 2 {
            return Err(PhysicsError::new(
                "sticky",
                format!("{} anchored points, a manifold has 0 to 2", sticky.count),
            ));
        }
        if manifold.count > 2 {
            return Err(PhysicsError::new(
                "manifold",
                format!("{} points, a manifold has 0 to 2", manifold.count),
            ));
        }
        let key = pair_key(shape_a.index(), shape_b.index());
        if self.contacts.pair_keys.contains(&key) {
            return Err(PhysicsError::new(
                "shape_b",
                "this pair of shapes already has a contact",
            ));
        }
        let contact = Contact {
            shape_a,
            shape_b,
            body_a: sa.body,
            body_b: sb.body,
            manifold,
            friction: mix_friction(sa.friction, sb.friction),
            restitution: mix_restitution(sa.restitution, sb.restitution),
            cache,
            recycled: false,
            dead: false,
        };
        let sticky = (sticky != StickyAnchors::default()).then(|| Box::new(sticky));
        self.contacts.push_restored(contact, sticky);
        Ok(())
    }

    /// Set a shape's broad-phase (fat) box and reach exactly (a static shape's reach is its
    /// box: `reach` is ignored).
    #[doc(hidden)]
    pub fn restore_shape_proxy_box(
        &mut self,
        shape: ShapeHandle,
        fat: Aabb,
        reach: Aabb,
    ) -> PhysicsResult<()> {
        for (field, b) in [("proxy_box", fat), ("reach_box", reach)] {
            if !b.is_valid() {
                return Err(PhysicsError::new(field, "min must be finite and below max"));
            }
        }
        let s = self
            .shapes
            .get_mut(shape)
            .ok_or_else(|| PhysicsError::new("shape", "no such shape"))?;
        self.broad_phase
            .reinsert_proxy_reaching(s.proxy, fat, reach);
        s.fat_aabb = fat;
        Ok(())
    }

    /// Put back a joint's solver state (exact local anchors, reference values and accumulated
    /// impulses; see `JointState`). Does not wake its bodies. Refused when the joint is
    /// missing, the state is of another joint type, or a number is not finite.
    #[doc(hidden)]
    pub fn restore_joint_state(
        &mut self,
        joint: JointHandle,
        state: &JointState,
    ) -> PhysicsResult<()> {
        self.joints
            .get_mut(joint)
            .ok_or_else(|| PhysicsError::new("joint", "no such joint"))?
            .restore_state(state)
    }

    /// Put back the step counter and the simulated time.
    #[doc(hidden)]
    pub fn restore_clock(&mut self, step_count: u64, time: f64) {
        self.step_count = step_count;
        self.time = time;
    }

    /// End a restore: forget the broad-phase moves the rebuild made, as a step would have,
    /// so the next step finds only the pairs the saved world would have found. Every pair
    /// that should have a contact must have been restored before.
    #[doc(hidden)]
    pub fn finish_restore(&mut self) {
        self.broad_phase.update_pairs(&mut self.contacts.new_pairs);
        self.contacts.new_pairs.clear();
    }

    /// Replace the solver settings exactly, waking nothing (`set_settings` wakes every
    /// body): a copy of a world continues from the very same state under other settings
    /// (the testbed's fork into compare). Invalid settings are refused and the old kept.
    pub fn restore_settings(&mut self, settings: SolverSettings) -> PhysicsResult<()> {
        settings.validate()?;
        self.settings = settings;
        Ok(())
    }
}
