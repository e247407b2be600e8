//! A world plus what the user does to it. Every change arrives as an [`Input`], so a run is
//! the initial world plus a list of inputs, which is what makes rewind exact.

use crate::physics::joint::{JointDef, JointKind, MouseJointDef};
use crate::physics::limits;
use crate::physics::{
    BodyDef, BodyHandle, BodyKind, Geometry, JointHandle, Polygon, ShapeDef, SolverSettings, Vec2,
    World,
};

/// Something the user does to a world. Applied between steps.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// Left button down at a world point: grab the dynamic body there, if any.
    Grab(Vec2),
    /// The grab target moves to a world point.
    Drag(Vec2),
    /// Let go.
    Release,
    /// Fire the bomb box (Box2D-Lite's "launch bomb"): a square of `half_size` m, placed and
    /// thrown as given.
    Bomb {
        position: Vec2,
        angle: f32,
        velocity: Vec2,
        angular_velocity: f32,
        half_size: f32,
    },
    /// New solver settings (invalid ones are refused and change nothing).
    Settings(SolverSettings),
    /// New solver settings for one world of a [`Comparison`](super::Comparison) (index into
    /// its sessions); a lone session takes them as `Settings`.
    WorldSettings {
        world: usize,
        settings: SolverSettings,
    },
    /// Enable or disable a joint (`World::set_joint_enabled`): re-enable a broken one.
    EnableJoint { joint: JointHandle, enabled: bool },
}

/// The grab of a body by the mouse joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grab {
    pub joint: JointHandle,
    pub body: BodyHandle,
}

/// Stiffness of the mouse joint, Hz (Box2D's testbed).
pub const MOUSE_HERTZ: f32 = 5.0;
/// Damping ratio of the mouse joint.
pub const MOUSE_DAMPING_RATIO: f32 = 0.7;
/// The mouse joint's force cap as a multiple of the grabbed body's weight.
pub const MOUSE_FORCE_PER_WEIGHT: f32 = 1000.0;
/// Half size of the bomb box, metres, and its density and friction (a 1 m box of 50 kg,
/// Box2D-Lite's).
pub const BOMB_HALF_SIZE: f32 = 0.5;
pub const BOMB_DENSITY: f32 = 50.0;
pub const BOMB_FRICTION: f32 = 0.2;
/// Gravity assumed for the mouse joint's force cap when the world has none, m/s^2.
pub const MOUSE_STAND_IN_GRAVITY: f32 = 10.0;

/// A world and its interaction state.
#[derive(Clone)]
pub struct Session {
    /// What this world is called in the legend ("classic", "soft step", ...).
    pub label: String,
    pub world: World,
    /// Static body (no shapes) that mouse joints pull from; made on the first grab.
    anchor: Option<BodyHandle>,
    grab: Option<Grab>,
    /// The bomb body and its half size.
    bomb: Option<(BodyHandle, f32)>,
}

impl Session {
    pub fn new(label: impl Into<String>, world: World) -> Session {
        Session {
            label: label.into(),
            world,
            anchor: None,
            grab: None,
            bomb: None,
        }
    }

    /// The current grab, if a body is held.
    pub fn grab(&self) -> Option<Grab> {
        self.grab
    }

    /// The held point on the body and the target it is pulled to, world metres (for the
    /// line that shows the pull).
    pub fn grab_line(&self) -> Option<(Vec2, Vec2)> {
        let grab = self.grab?;
        let joint = self.world.joint(grab.joint)?;
        let body = self.world.body(grab.body)?;
        let anchor = self.world.body(joint.body_a())?;
        Some((joint.anchor_b(body), joint.anchor_a(anchor)))
    }

    /// Advance one step of the world's own step rate.
    pub fn step(&mut self) {
        let dt = self.world.settings().dt();
        self.world.step(dt);
    }

    /// Apply an input. Returns true when the world changed.
    pub fn apply(&mut self, input: &Input) -> bool {
        match *input {
            Input::Grab(point) => self.start_grab(point),
            Input::Drag(point) => {
                let Some(grab) = self.grab else {
                    return false;
                };
                match self.world.joint_mut(grab.joint).map(|j| j.kind_mut()) {
                    Some(JointKind::Mouse(mouse)) => {
                        mouse.set_target(point);
                        true
                    }
                    _ => false,
                }
            }
            Input::Release => match self.grab.take() {
                Some(grab) => self.world.destroy_joint(grab.joint).is_ok(),
                None => false,
            },
            Input::Bomb {
                position,
                angle,
                velocity,
                angular_velocity,
                half_size,
            } => self.launch_bomb(position, angle, velocity, angular_velocity, half_size),
            Input::Settings(settings) | Input::WorldSettings { settings, .. } => {
                self.world.set_settings(settings).is_ok()
            }
            Input::EnableJoint { joint, enabled } => {
                self.world.set_joint_enabled(joint, enabled).is_ok()
            }
        }
    }

    fn start_grab(&mut self, point: Vec2) -> bool {
        if self.grab.is_some() {
            self.apply(&Input::Release);
        }
        let Some(body) = self.world.body_at_point(point) else {
            return false;
        };
        let Some(b) = self.world.body(body) else {
            return false;
        };
        if b.kind() != BodyKind::Dynamic {
            return false;
        }
        let gravity = self.world.settings().gravity.length();
        let gravity = if gravity > 1e-3 {
            gravity
        } else {
            MOUSE_STAND_IN_GRAVITY
        };
        let weight = b.mass() * gravity;
        let anchor = match self.anchor {
            Some(a) if self.world.body(a).is_some() => a,
            _ => match self.world.create_body(&BodyDef::fixed(Vec2::ZERO)) {
                Ok(a) => {
                    self.anchor = Some(a);
                    a
                }
                Err(_) => return false,
            },
        };
        let def = MouseJointDef {
            target: point,
            hertz: MOUSE_HERTZ,
            damping_ratio: MOUSE_DAMPING_RATIO,
            // Past about 1e8 kg, 1000 weights exceed the force range and the joint was
            // refused: the strongest pull in range instead.
            max_force: (MOUSE_FORCE_PER_WEIGHT * weight).min(limits::FORCE.max),
        };
        match self.world.create_joint(&JointDef::new(anchor, body, def)) {
            Ok(joint) => {
                self.grab = Some(Grab { joint, body });
                true
            }
            Err(_) => false,
        }
    }

    /// Throw the bomb: the same body each time (made on the first throw, and again when the
    /// size changes or it was destroyed).
    fn launch_bomb(
        &mut self,
        position: Vec2,
        angle: f32,
        velocity: Vec2,
        angular: f32,
        half_size: f32,
    ) -> bool {
        let half_size = if half_size.is_finite() && half_size > 0.0 {
            half_size
        } else {
            BOMB_HALF_SIZE
        };
        let bomb = match self.bomb {
            Some((b, size)) if size == half_size && self.world.body(b).is_some() => b,
            old => {
                if let Some((b, _)) = old {
                    if self.grab.is_some_and(|g| g.body == b) {
                        self.apply(&Input::Release);
                    }
                    let _ = self.world.destroy_body(b);
                    self.bomb = None;
                }
                let Ok(b) = self
                    .world
                    .create_body(&BodyDef::dynamic(position).name("bomb"))
                else {
                    return false;
                };
                let Ok(square) = Polygon::new_box(half_size, half_size) else {
                    let _ = self.world.destroy_body(b);
                    return false;
                };
                let shape = ShapeDef::new(Geometry::Polygon(square))
                    .density(BOMB_DENSITY)
                    .friction(BOMB_FRICTION);
                if self.world.create_shape(b, &shape).is_err() {
                    let _ = self.world.destroy_body(b);
                    return false;
                }
                self.bomb = Some((b, half_size));
                b
            }
        };
        self.world.set_transform(bomb, position, angle).is_ok()
            && self.world.set_linear_velocity(bomb, velocity).is_ok()
            && self.world.set_angular_velocity(bomb, angular).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::fixtures;

    fn box_on_ground() -> (World, BodyHandle) {
        let mut world = fixtures::ground();
        let b = fixtures::add_box(&mut world, Vec2::new(0.0, 0.5), 0.0, 0.5);
        (world, b)
    }

    #[test]
    fn a_grabbed_box_follows_the_mouse_and_is_let_go() {
        let (world, b) = box_on_ground();
        let mut session = Session::new("test", world);
        assert!(
            !session.apply(&Input::Grab(Vec2::new(5.0, 5.0))),
            "nothing there"
        );
        assert!(session.apply(&Input::Grab(Vec2::new(0.2, 0.7))));
        assert_eq!(session.grab().unwrap().body, b);
        session.apply(&Input::Drag(Vec2::new(3.0, 2.7)));
        for _ in 0..120 {
            session.step();
        }
        // The held point is pulled to (3, 2.7) within 2 s; the box hangs from it, its weight
        // stretching the 5 Hz spring by g / (2 pi 5)^2 = 1 cm.
        let (held, target) = session.grab_line().unwrap();
        assert!((target - Vec2::new(3.0, 2.7)).length() < 1e-5);
        assert!(
            (held - target).length() < 0.03,
            "held point {held}, target {target}"
        );
        let p = session.world.body(b).unwrap().position();
        assert!(p.x > 2.0, "the box came along: {p}");
        assert!(session.apply(&Input::Release));
        assert!(session.grab().is_none());
        for _ in 0..120 {
            session.step();
        }
        let y = session.world.body(b).unwrap().position().y;
        assert!(
            (y - 0.5).abs() < 0.02,
            "released box falls back to the ground: {y}"
        );
    }

    /// The mouse joint's `max_force` of 1000 weights exceeded the 1e12 N force range for
    /// bodies over about 1e8 kg, so grabbing them failed. It is capped at the range's maximum.
    #[test]
    fn grabbing_a_body_of_1e9_kg_succeeds() {
        let mut world = fixtures::ground();
        let b = world
            .create_body(&BodyDef::dynamic(Vec2::new(0.0, 60.0)))
            .unwrap();
        // 100 m x 100 m at the largest density, 1e5 kg/m^2: 1e9 kg.
        let square = Geometry::Polygon(Polygon::new_box(50.0, 50.0).unwrap());
        world
            .create_shape(b, &ShapeDef::new(square).density(limits::DENSITY.max))
            .unwrap();
        assert!((world.body(b).unwrap().mass() - 1e9).abs() < 1e3);
        let mut session = Session::new("test", world);
        assert!(session.apply(&Input::Grab(Vec2::new(1.0, 61.0))));
        assert_eq!(session.grab().unwrap().body, b);
        session.apply(&Input::Drag(Vec2::new(1.0, 70.0)));
        for _ in 0..10 {
            session.step();
        }
        assert!(session.world.body(b).unwrap().position().is_finite());
    }

    #[test]
    fn the_bomb_is_one_body_thrown_again_each_time() {
        let (world, _) = box_on_ground();
        let bodies = world.body_count();
        let mut session = Session::new("test", world);
        let bomb = Input::Bomb {
            position: Vec2::new(-10.0, 15.0),
            angle: 0.3,
            velocity: Vec2::new(15.0, -22.5),
            angular_velocity: 4.0,
            half_size: BOMB_HALF_SIZE,
        };
        assert!(session.apply(&bomb));
        assert!(session.apply(&bomb));
        assert_eq!(session.world.body_count(), bodies + 1);
        let h = session.world.body_by_name("bomb").unwrap();
        let body = session.world.body(h).unwrap();
        assert!((body.mass() - 50.0).abs() < 1e-3);
        assert_eq!(body.linear_velocity(), Vec2::new(15.0, -22.5));
    }

    #[test]
    fn bad_settings_change_nothing() {
        let (world, _) = box_on_ground();
        let mut session = Session::new("test", world);
        let bad = SolverSettings {
            iterations: 0,
            ..SolverSettings::default()
        };
        assert!(!session.apply(&Input::Settings(bad)));
        assert_eq!(session.world.settings().iterations, 10);
    }
}
