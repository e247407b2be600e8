//! How the core describes itself to a renderer. The core never draws: `World::debug_draw`
//! calls these methods in world coordinates (metres, y up) and the app implements them.
//!
//! The core picks no colours: each piece comes with its `DrawKind` (a body's kind and
//! sleep, a joint, a contact point, ...) and the app's palette colours it.

use super::body::BodyKind;
use super::math::{Transform, Vec2};
use super::shape::{Geometry, MAX_POLYGON_VERTICES};
use super::world::World;

/// An sRGB colour with alpha, components 0..1: the renderer's colour value. The core itself
/// never picks one (see `DrawKind`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Color {
    pub r: f32,
    pub g: f32,
    pub b: f32,
    pub a: f32,
}

impl Color {
    pub const fn rgb(r: f32, g: f32, b: f32) -> Color {
        Color { r, g, b, a: 1.0 }
    }

    pub const fn with_alpha(self, a: f32) -> Color {
        Color { a, ..self }
    }

    /// Scale the brightness (for fills drawn darker than outlines).
    pub fn scaled(self, k: f32) -> Color {
        Color {
            r: (self.r * k).min(1.0),
            g: (self.g * k).min(1.0),
            b: (self.b * k).min(1.0),
            a: self.a,
        }
    }
}

/// What a drawn piece is. The renderer's palette turns it into a colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DrawKind {
    /// A shape of a body of this kind, awake or asleep.
    Body {
        kind: BodyKind,
        awake: bool,
    },
    /// A joint's lines.
    Joint,
    /// A joint's anchor dots.
    JointAnchor,
    /// A joint's limits, and the target of a mouse joint or a pulley's ground anchors.
    JointLimit,
    /// A disabled (broken) joint: a dot at each of its two anchors.
    BrokenJoint,
    /// A joint's reaction force arrow on B (`DrawFlags::joint_forces`).
    JointForce,
    /// A contact point that persisted from the last step.
    ContactPoint,
    /// A contact point new this step.
    ContactNew,
    ContactNormal,
    NormalImpulse,
    FrictionImpulse,
    /// A shape's broad-phase (fat) box.
    Aabb,
    /// A body's name.
    Name,
    /// A colour the caller chose (the app drawing its own overlays through this trait; the
    /// core never sends one).
    Color(Color),
}

impl From<Color> for DrawKind {
    fn from(color: Color) -> DrawKind {
        DrawKind::Color(color)
    }
}

/// What `World::debug_draw` draws. Every field is a toggle in the testbed's Draw panel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawFlags {
    pub shapes: bool,
    pub joints: bool,
    pub joint_anchors: bool,
    pub contact_points: bool,
    pub contact_normals: bool,
    pub normal_impulses: bool,
    pub friction_impulses: bool,
    pub aabbs: bool,
    pub centers_of_mass: bool,
    pub body_names: bool,
    /// Each enabled joint's reaction force on B as an arrow from B's anchor: 1 m at its
    /// `break_force` when it has one (the arrow reaching 1 m means breaking), otherwise
    /// 0.01 m per N up to 3 m; a reaction torque as a circle around the anchor, of radius
    /// 0.5 m at `break_torque` (otherwise 0.01 m per N m, up to 1.5 m).
    pub joint_forces: bool,
}

impl Default for DrawFlags {
    fn default() -> Self {
        DrawFlags {
            shapes: true,
            joints: true,
            joint_anchors: true,
            contact_points: false,
            contact_normals: false,
            normal_impulses: false,
            friction_impulses: false,
            aabbs: false,
            centers_of_mass: false,
            body_names: false,
            joint_forces: false,
        }
    }
}

/// A renderer of the core's debug geometry. All positions in world metres, y up.
pub trait DebugDraw {
    /// A closed polygon outline.
    fn draw_polygon(&mut self, vertices: &[Vec2], kind: DrawKind);
    /// A filled polygon with outline; `radius` rounds it (0 for plain polygons).
    fn draw_solid_polygon(&mut self, vertices: &[Vec2], radius: f32, kind: DrawKind);
    /// A circle outline.
    fn draw_circle(&mut self, center: Vec2, radius: f32, kind: DrawKind);
    /// A filled circle with outline and a radius line along `axis` showing its angle.
    fn draw_solid_circle(&mut self, center: Vec2, radius: f32, axis: Vec2, kind: DrawKind);
    /// A filled capsule with outline.
    fn draw_solid_capsule(&mut self, center_a: Vec2, center_b: Vec2, radius: f32, kind: DrawKind);
    /// A line segment.
    fn draw_segment(&mut self, point_a: Vec2, point_b: Vec2, kind: DrawKind);
    /// A frame: red x axis, green y axis, `scale` metres long.
    fn draw_transform(&mut self, xf: Transform, scale: f32);
    /// A dot `size` pixels across (screen size, not world size).
    fn draw_point(&mut self, point: Vec2, size: f32, kind: DrawKind);
    /// Text anchored at a world point.
    fn draw_string(&mut self, point: Vec2, text: &str, kind: DrawKind);
}

impl World {
    /// Describe the world to `draw`: shapes, joints, contacts, boxes, centres, names.
    pub fn debug_draw(&self, draw: &mut dyn DebugDraw, flags: &DrawFlags) {
        if flags.shapes {
            for (_, shape) in self.shapes.iter() {
                let body = self.bodies.at(shape.body.index());
                let kind = DrawKind::Body {
                    kind: body.kind,
                    awake: body.awake,
                };
                draw_geometry(draw, &shape.geometry, &body.transform(), kind);
            }
        }
        if flags.joints || flags.joint_anchors {
            for (_, joint) in self.joints.iter() {
                let body_a = self.bodies.at(joint.body_a.index());
                let body_b = self.bodies.at(joint.body_b.index());
                if joint.is_enabled() {
                    joint.draw(body_a, body_b, draw, flags);
                } else {
                    // The two halves of the break: a red dot on each body (a line between
                    // them would cross the scene once the bodies part).
                    let (p_a, p_b) = (joint.anchor_a(body_a), joint.anchor_b(body_b));
                    draw.draw_point(p_a, 5.0, DrawKind::BrokenJoint);
                    draw.draw_point(p_b, 5.0, DrawKind::BrokenJoint);
                }
            }
        }
        if flags.joint_forces {
            self.draw_joint_forces(draw);
        }
        if flags.aabbs {
            for (_, shape) in self.shapes.iter() {
                let bb = self.broad_phase.fat_aabb(shape.proxy);
                let corners = [
                    bb.min,
                    Vec2::new(bb.max.x, bb.min.y),
                    bb.max,
                    Vec2::new(bb.min.x, bb.max.y),
                ];
                draw.draw_polygon(&corners, DrawKind::Aabb);
            }
        }
        if flags.centers_of_mass {
            for (_, body) in self.bodies.iter() {
                if body.kind != BodyKind::Static {
                    draw.draw_transform(
                        Transform {
                            p: body.center,
                            q: body.q,
                        },
                        0.3,
                    );
                }
            }
        }
        if flags.body_names {
            for (_, body) in self.bodies.iter() {
                if let Some(name) = &body.name {
                    draw.draw_string(body.origin, name, DrawKind::Name);
                }
            }
        }
        let any_contact = flags.contact_points
            || flags.contact_normals
            || flags.normal_impulses
            || flags.friction_impulses;
        if any_contact {
            // Impulses are drawn 0.1 m per N s, normals 0.3 m long (Box2D's testbed scales).
            const IMPULSE_SCALE: f32 = 0.1;
            const NORMAL_LENGTH: f32 = 0.3;
            for c in self.contacts.live() {
                let n = c.manifold.normal;
                let t = Vec2::new(n.y, -n.x);
                for p in c.manifold.points() {
                    if flags.contact_points {
                        let kind = if p.persisted {
                            DrawKind::ContactPoint
                        } else {
                            DrawKind::ContactNew
                        };
                        draw.draw_point(p.point, 5.0, kind);
                    }
                    if flags.contact_normals {
                        draw.draw_segment(
                            p.point,
                            p.point + NORMAL_LENGTH * n,
                            DrawKind::ContactNormal,
                        );
                    }
                    if flags.normal_impulses {
                        draw.draw_segment(
                            p.point,
                            p.point + IMPULSE_SCALE * p.normal_impulse * n,
                            DrawKind::NormalImpulse,
                        );
                    }
                    if flags.friction_impulses {
                        draw.draw_segment(
                            p.point,
                            p.point + IMPULSE_SCALE * p.tangent_impulse * t,
                            DrawKind::FrictionImpulse,
                        );
                    }
                }
            }
        }
    }
}

/// Draw one shape's geometry at a body transform (`kind`: a `DrawKind`, or a `Color` the
/// caller chose).
pub fn draw_geometry(
    draw: &mut dyn DebugDraw,
    geometry: &Geometry,
    xf: &Transform,
    kind: impl Into<DrawKind>,
) {
    let kind = kind.into();
    match geometry {
        Geometry::Circle(c) => {
            draw.draw_solid_circle(xf.apply(c.center), c.radius, xf.q.x_axis(), kind);
        }
        Geometry::Capsule(c) => {
            draw.draw_solid_capsule(xf.apply(c.center_a), xf.apply(c.center_b), c.radius, kind);
        }
        Geometry::Polygon(p) => {
            let mut vertices = [Vec2::ZERO; MAX_POLYGON_VERTICES];
            for (out, &v) in vertices.iter_mut().zip(p.vertices()) {
                *out = xf.apply(v);
            }
            draw.draw_solid_polygon(&vertices[..p.count], p.radius, kind);
        }
        Geometry::Segment(s) => {
            draw.draw_segment(xf.apply(s.point_a), xf.apply(s.point_b), kind);
        }
    }
}

impl World {
    /// Each enabled joint's reaction force (arrow) and torque (circle) on B, scaled as
    /// `DrawFlags::joint_forces` says; `substeps / dt` of the last step's settings is taken
    /// as the step's `inv_dt` at 60 Hz when no step was taken.
    fn draw_joint_forces(&self, draw: &mut dyn DebugDraw) {
        let inv_dt = self.joint_inv_dt();
        for (_, joint) in self.joints.iter() {
            if !joint.is_enabled() {
                continue;
            }
            let body_b = self.bodies.at(joint.body_b.index());
            let p = joint.anchor_b(body_b);
            let force = joint.reaction_force(inv_dt);
            let length = match joint.break_force() {
                Some(t) if t > 0.0 => force.length() / t,
                _ => (0.01 * force.length()).min(3.0),
            };
            if length > 1e-3 {
                let dir = force.normalize_or_zero();
                let tip = p + length * dir;
                draw.draw_segment(p, tip, DrawKind::JointForce);
                let side = Vec2::new(-dir.y, dir.x);
                let head = 0.15 * length.min(1.0);
                draw.draw_segment(
                    tip,
                    tip - head * dir + 0.5 * head * side,
                    DrawKind::JointForce,
                );
                draw.draw_segment(
                    tip,
                    tip - head * dir - 0.5 * head * side,
                    DrawKind::JointForce,
                );
            }
            let torque = joint.reaction_torque(inv_dt).abs();
            let radius = match joint.break_torque() {
                Some(t) if t > 0.0 => 0.5 * torque / t,
                _ => (0.01 * torque).min(1.5),
            };
            if radius > 1e-3 {
                draw.draw_circle(p, radius, DrawKind::JointForce);
            }
        }
    }

    /// The inverse of the (sub-)step the solver used, for `Joint::reaction_force`:
    /// `SolverKind::impulse_spans / dt`, with the step's `dt` from the settings' step rate.
    pub fn joint_inv_dt(&self) -> f32 {
        let spans = self.settings.solver.impulse_spans(self.settings.substeps);
        spans as f32 * self.settings.step_hz
    }
}
