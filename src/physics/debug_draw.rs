//! How the core describes itself to a renderer. The core never draws: `World::debug_draw`
//! calls these methods in world coordinates (metres, y up) and the app implements them.

use super::math::{Transform, Vec2};

/// An sRGB colour with alpha, components 0..1.
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

    pub const STATIC: Color = Color::rgb(0.5, 0.9, 0.5);
    pub const KINEMATIC: Color = Color::rgb(0.5, 0.5, 0.9);
    pub const DYNAMIC: Color = Color::rgb(0.9, 0.7, 0.7);
    pub const SLEEPING: Color = Color::rgb(0.6, 0.6, 0.6);
    pub const JOINT: Color = Color::rgb(0.5, 0.8, 0.8);
    pub const JOINT_ANCHOR: Color = Color::rgb(0.0, 1.0, 0.0);
    pub const JOINT_LIMIT: Color = Color::rgb(1.0, 0.5, 0.0);
    pub const CONTACT_POINT: Color = Color::rgb(1.0, 0.3, 0.3);
    pub const CONTACT_NEW: Color = Color::rgb(1.0, 1.0, 0.3);
    pub const CONTACT_NORMAL: Color = Color::rgb(0.9, 0.9, 0.9);
    pub const NORMAL_IMPULSE: Color = Color::rgb(0.9, 0.9, 0.3);
    pub const FRICTION_IMPULSE: Color = Color::rgb(0.3, 0.9, 0.3);
    pub const AABB: Color = Color::rgb(0.9, 0.3, 0.9);
    pub const CENTER_OF_MASS: Color = Color::rgb(0.9, 0.9, 0.9);
    pub const TEXT: Color = Color::rgb(0.9, 0.9, 0.9);
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
        }
    }
}

/// A renderer of the core's debug geometry. All positions in world metres, y up.
pub trait DebugDraw {
    /// A closed polygon outline.
    fn draw_polygon(&mut self, vertices: &[Vec2], color: Color);
    /// A filled polygon with outline; `radius` rounds it (0 for plain polygons).
    fn draw_solid_polygon(&mut self, vertices: &[Vec2], radius: f32, color: Color);
    /// A circle outline.
    fn draw_circle(&mut self, center: Vec2, radius: f32, color: Color);
    /// A filled circle with outline and a radius line along `axis` showing its angle.
    fn draw_solid_circle(&mut self, center: Vec2, radius: f32, axis: Vec2, color: Color);
    /// A filled capsule with outline.
    fn draw_solid_capsule(&mut self, center_a: Vec2, center_b: Vec2, radius: f32, color: Color);
    /// A line segment.
    fn draw_segment(&mut self, point_a: Vec2, point_b: Vec2, color: Color);
    /// A frame: red x axis, green y axis, `scale` metres long.
    fn draw_transform(&mut self, xf: Transform, scale: f32);
    /// A dot `size` pixels across (screen size, not world size).
    fn draw_point(&mut self, point: Vec2, size: f32, color: Color);
    /// Text anchored at a world point.
    fn draw_string(&mut self, point: Vec2, text: &str, color: Color);
}
