//! Bodies: static, kinematic and dynamic rigid bodies, their definitions and state.
//!
//! A body's primary state is its centre of mass `center` (world), its `angle`, and its
//! velocities. The origin transform is derived: `origin = center - rotate(angle, local_center)`.

use super::error::{check_finite, check_finite_vec, check_non_negative};
use super::error::{PhysicsError, PhysicsResult};
use super::math::{Rot, Transform, Vec2};
use super::{JointHandle, ShapeHandle};

/// How a body moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BodyKind {
    /// Never moves; infinite mass.
    Static,
    /// Moves at its set velocity; infinite mass; pushes dynamic bodies, ignores forces.
    Kinematic,
    /// Moves under forces and contacts; mass from its shapes.
    #[default]
    Dynamic,
}

/// Everything needed to create a body. Shapes are added after.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyDef {
    pub kind: BodyKind,
    /// World position of the body origin, metres.
    pub position: Vec2,
    /// Radians, counter-clockwise.
    pub angle: f32,
    /// Velocity of the centre of mass, m/s.
    pub linear_velocity: Vec2,
    /// rad/s.
    pub angular_velocity: f32,
    /// Per-second linear damping, 1/s (0: none). Default 0.
    pub linear_damping: f32,
    /// Per-second angular damping, 1/s. Default 0.
    pub angular_damping: f32,
    /// Multiplies world gravity for this body. Default 1.
    pub gravity_scale: f32,
    /// Never rotates (infinite inertia). Default off.
    pub fixed_rotation: bool,
    /// May fall asleep. Default on.
    pub enable_sleep: bool,
    /// Starts awake. Default on.
    pub awake: bool,
    /// An optional name to find the body by.
    pub name: Option<String>,
}

impl Default for BodyDef {
    fn default() -> Self {
        BodyDef {
            kind: BodyKind::Dynamic,
            position: Vec2::ZERO,
            angle: 0.0,
            linear_velocity: Vec2::ZERO,
            angular_velocity: 0.0,
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            fixed_rotation: false,
            enable_sleep: true,
            awake: true,
            name: None,
        }
    }
}

impl BodyDef {
    pub fn new(kind: BodyKind, position: Vec2) -> Self {
        BodyDef {
            kind,
            position,
            ..Default::default()
        }
    }

    pub fn dynamic(position: Vec2) -> Self {
        Self::new(BodyKind::Dynamic, position)
    }

    pub fn fixed(position: Vec2) -> Self {
        Self::new(BodyKind::Static, position)
    }

    pub fn angle(mut self, angle: f32) -> Self {
        self.angle = angle;
        self
    }

    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    pub fn linear_velocity(mut self, v: Vec2) -> Self {
        self.linear_velocity = v;
        self
    }

    pub fn angular_velocity(mut self, w: f32) -> Self {
        self.angular_velocity = w;
        self
    }

    pub fn validate(&self) -> PhysicsResult<()> {
        check_finite_vec("position", self.position)?;
        check_finite("angle", self.angle)?;
        check_finite_vec("linear_velocity", self.linear_velocity)?;
        check_finite("angular_velocity", self.angular_velocity)?;
        check_non_negative("linear_damping", self.linear_damping)?;
        check_non_negative("angular_damping", self.angular_damping)?;
        check_finite("gravity_scale", self.gravity_scale)?;
        if let Some(name) = &self.name {
            if name.is_empty() {
                return Err(PhysicsError::new("name", "a body name must not be empty"));
            }
        }
        Ok(())
    }
}

/// A rigid body as the world stores it. Read it through the accessors; change it through
/// `World` so that the world can keep its caches and sleep state right.
///
/// Laid out in declaration order (`repr(C)`): what the narrow phase reads of each of a
/// contact's two bodies (kind, awake, extent, centre, rotation, origin, velocities: 44
/// bytes) comes first, together. (The rest of the step's reads came out the same or
/// better in paired runs, except the joint grid's, a few per cent slower; the lists
/// first, with the arena's occupancy check beside the narrow phase's fields, was
/// slower.)
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Body {
    pub(crate) kind: BodyKind,
    // Sleep.
    pub(crate) awake: bool,
    // Options.
    pub(crate) fixed_rotation: bool,
    pub(crate) enable_sleep: bool,
    /// Largest distance from the centre of mass to any point of its shapes, metres.
    pub(crate) extent: f32,

    // State.
    pub(crate) center: Vec2,
    pub(crate) q: Rot,
    pub(crate) origin: Vec2,
    pub(crate) linear_velocity: Vec2,
    pub(crate) angular_velocity: f32,
    pub(crate) angle: f32,
    pub(crate) force: Vec2,
    pub(crate) torque: f32,

    // Mass.
    pub(crate) mass: f32,
    pub(crate) inv_mass: f32,
    pub(crate) inertia: f32,
    pub(crate) inv_inertia: f32,
    pub(crate) local_center: Vec2,

    pub(crate) linear_damping: f32,
    pub(crate) angular_damping: f32,
    pub(crate) gravity_scale: f32,

    pub(crate) sleep_time: f32,
    /// Id of the sleeping island this body belongs to (valid while asleep).
    pub(crate) island: u32,

    pub(crate) name: Option<String>,
    pub(crate) shapes: Vec<ShapeHandle>,
    pub(crate) joints: Vec<JointHandle>,
}

impl Body {
    pub(crate) fn from_def(def: &BodyDef) -> Body {
        let q = Rot::from_angle(def.angle);
        let is_static = def.kind == BodyKind::Static;
        Body {
            kind: def.kind,
            name: def.name.clone(),
            center: def.position,
            angle: def.angle,
            q,
            origin: def.position,
            linear_velocity: if is_static {
                Vec2::ZERO
            } else {
                def.linear_velocity
            },
            angular_velocity: if is_static { 0.0 } else { def.angular_velocity },
            force: Vec2::ZERO,
            torque: 0.0,
            mass: 0.0,
            inv_mass: 0.0,
            inertia: 0.0,
            inv_inertia: 0.0,
            local_center: Vec2::ZERO,
            linear_damping: def.linear_damping,
            angular_damping: def.angular_damping,
            gravity_scale: def.gravity_scale,
            fixed_rotation: def.fixed_rotation,
            enable_sleep: def.enable_sleep,
            awake: def.awake && !is_static,
            sleep_time: 0.0,
            island: u32::MAX,
            extent: 0.0,
            shapes: Vec::new(),
            joints: Vec::new(),
        }
    }

    /// Recompute `q` and `origin` from `center`, `angle` and `local_center`.
    #[inline]
    pub(crate) fn sync_transform(&mut self) {
        self.q = Rot::from_angle(self.angle);
        self.origin = self.center - self.q.rotate(self.local_center);
    }

    /// Where the origin frame would be after moving `t` seconds at the current linear and
    /// angular velocity (the centre of mass moves, the body turns about it): the guess the
    /// broad phase sizes boxes with.
    pub(crate) fn transform_after(&self, t: f32) -> Transform {
        let q = Rot::from_angle(self.angle + self.angular_velocity * t);
        let center = self.center + self.linear_velocity * t;
        Transform {
            p: center - q.rotate(self.local_center),
            q,
        }
    }

    /// How far a point of this body moves per radian it turns: its extent, 0 for a static
    /// body (which never turns).
    #[inline]
    pub(crate) fn motion_extent(&self) -> f32 {
        if self.kind == BodyKind::Static {
            0.0
        } else {
            self.extent
        }
    }

    pub fn kind(&self) -> BodyKind {
        self.kind
    }
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }
    /// World position of the body origin.
    pub fn position(&self) -> Vec2 {
        self.origin
    }
    /// World position of the centre of mass.
    pub fn center(&self) -> Vec2 {
        self.center
    }
    pub fn angle(&self) -> f32 {
        self.angle
    }
    pub fn rotation(&self) -> Rot {
        self.q
    }
    /// Origin transform (what shapes are relative to).
    pub fn transform(&self) -> Transform {
        Transform {
            p: self.origin,
            q: self.q,
        }
    }
    pub fn linear_velocity(&self) -> Vec2 {
        self.linear_velocity
    }
    pub fn angular_velocity(&self) -> f32 {
        self.angular_velocity
    }
    /// Velocity of the material point at world `point`.
    pub fn velocity_at(&self, point: Vec2) -> Vec2 {
        self.linear_velocity + super::math::cross_sv(self.angular_velocity, point - self.center)
    }
    pub fn mass(&self) -> f32 {
        self.mass
    }
    pub fn inv_mass(&self) -> f32 {
        self.inv_mass
    }
    /// Rotational inertia about the centre of mass, kg m^2.
    pub fn inertia(&self) -> f32 {
        self.inertia
    }
    pub fn inv_inertia(&self) -> f32 {
        self.inv_inertia
    }
    /// Centre of mass in the body frame.
    pub fn local_center(&self) -> Vec2 {
        self.local_center
    }
    pub fn linear_damping(&self) -> f32 {
        self.linear_damping
    }
    pub fn angular_damping(&self) -> f32 {
        self.angular_damping
    }
    pub fn gravity_scale(&self) -> f32 {
        self.gravity_scale
    }
    pub fn fixed_rotation(&self) -> bool {
        self.fixed_rotation
    }
    pub fn enable_sleep(&self) -> bool {
        self.enable_sleep
    }
    pub fn is_awake(&self) -> bool {
        self.awake
    }
    /// Seconds the body has been still (resets when it moves).
    pub fn sleep_time(&self) -> f32 {
        self.sleep_time
    }
    pub fn shapes(&self) -> &[ShapeHandle] {
        &self.shapes
    }
    pub fn joints(&self) -> &[JointHandle] {
        &self.joints
    }
    /// Body-frame point to world.
    pub fn world_point(&self, local: Vec2) -> Vec2 {
        self.transform().apply(local)
    }
    /// World point to body frame.
    pub fn local_point(&self, world: Vec2) -> Vec2 {
        self.transform().inv_apply(world)
    }
    /// Body-frame direction to world.
    pub fn world_vector(&self, local: Vec2) -> Vec2 {
        self.q.rotate(local)
    }
    /// Kinetic energy, J.
    pub fn kinetic_energy(&self) -> f32 {
        0.5 * self.mass * self.linear_velocity.length_squared()
            + 0.5 * self.inertia * self.angular_velocity * self.angular_velocity
    }
}
