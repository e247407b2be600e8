//! `MacroquadDraw`: the core's `DebugDraw` drawn with macroquad, plus the background grid.
//!
//! Geometry is drawn in world coordinates (m, y up) under the `Camera2D` from
//! [`Camera::camera_2d`]; line widths and point sizes are given in screen pixels and turned
//! into metres through the camera, so they stay the same on screen at every zoom. Fills are
//! the outline colour, darker and half transparent (the Box2D testbed look), premixed over
//! the background so a solid shape is two opaque layers (outline colour, then the fill inset
//! by the line width): few triangles, which keeps 5,000 boxes quick even on a software
//! rasteriser. Text is queued
//! and drawn in screen space at the projected point by [`MacroquadDraw::finish`], so it stays
//! upright and crisp.
//!
//! [`draw_worlds`] draws the testbed's worlds with it: bodies in the app's colours, the core's
//! debug drawing, the mouse's pull, the pick; compared worlds as outlines in their legend
//! colours.
//!
//! The tessellation (`rounded_outline`, `circle_outline`, `grid_lines`) is pure and tested
//! without a window.

use std::f32::consts::TAU;

use macroquad::camera::{set_camera, set_default_camera};
use macroquad::color::Color as MqColor;
use macroquad::shapes::{draw_line, draw_triangle};
use macroquad::text::draw_text;

use super::camera::Camera;
use super::compare::{legend_color, Tint};
use super::probe::Pick;
use crate::lab::Comparison;
use crate::physics::math::cross;
use crate::physics::world::draw_geometry;
use crate::physics::{
    Body, BodyKind, Color, DebugDraw, DrawFlags, DrawKind, Geometry, GraphColor, Transform, Vec2,
    World,
};

/// Outline width (px).
pub const LINE_PIXELS: f32 = 1.5;
/// Grid line width (px).
pub const GRID_LINE_PIXELS: f32 = 1.0;
/// Grid lines closer than this on screen are not drawn (px).
pub const MIN_GRID_SPACING_PIXELS: f32 = 8.0;
/// Length of one straight piece of a tessellated arc on screen (px): smaller is rounder.
pub const ARC_PIECE_PIXELS: f32 = 4.0;
/// Font size of `draw_string` text (px).
pub const FONT_PIXELS: f32 = 16.0;
/// Fill = outline colour scaled by this, with `FILL_ALPHA` (Box2D testbed look).
pub const FILL_BRIGHTNESS: f32 = 0.5;
pub const FILL_ALPHA: f32 = 0.5;

/// Background behind the world view.
pub const BACKGROUND: Color = Color::rgb(0.11, 0.11, 0.13);
/// Grid colours, from faint to strong.
pub const GRID_MINOR: Color = Color {
    r: 1.0,
    g: 1.0,
    b: 1.0,
    a: 0.07,
};
pub const GRID_MAJOR: Color = Color {
    r: 1.0,
    g: 1.0,
    b: 1.0,
    a: 0.15,
};
pub const GRID_AXIS: Color = Color {
    r: 1.0,
    g: 1.0,
    b: 1.0,
    a: 0.3,
};

/// Body colours, by kind and sleep: distinct at a glance (hue and brightness both differ).
pub const STATIC_COLOR: Color = Color::rgb(0.45, 0.78, 0.42);
pub const KINEMATIC_COLOR: Color = Color::rgb(0.40, 0.62, 1.0);
pub const DYNAMIC_COLOR: Color = Color::rgb(1.0, 0.66, 0.32);
pub const SLEEPING_COLOR: Color = Color::rgb(0.62, 0.52, 0.80);
/// The mouse's pull line.
pub const PULL_COLOR: Color = Color::rgb(1.0, 1.0, 0.55);

/// The colour of a body of `kind`, awake or asleep.
pub fn body_color(kind: BodyKind, awake: bool) -> Color {
    match kind {
        BodyKind::Static => STATIC_COLOR,
        BodyKind::Kinematic => KINEMATIC_COLOR,
        BodyKind::Dynamic if awake => DYNAMIC_COLOR,
        BodyKind::Dynamic => SLEEPING_COLOR,
    }
}

/// Colours of what the core draws besides bodies.
pub const JOINT_COLOR: Color = Color::rgb(0.5, 0.8, 0.8);
pub const JOINT_ANCHOR_COLOR: Color = Color::rgb(0.0, 1.0, 0.0);
pub const JOINT_LIMIT_COLOR: Color = Color::rgb(1.0, 0.5, 0.0);
pub const CONTACT_POINT_COLOR: Color = Color::rgb(1.0, 0.3, 0.3);
pub const CONTACT_NEW_COLOR: Color = Color::rgb(1.0, 1.0, 0.3);
pub const CONTACT_NORMAL_COLOR: Color = Color::rgb(0.9, 0.9, 0.9);
pub const NORMAL_IMPULSE_COLOR: Color = Color::rgb(0.9, 0.9, 0.3);
pub const FRICTION_IMPULSE_COLOR: Color = Color::rgb(0.3, 0.9, 0.3);
pub const AABB_COLOR: Color = Color::rgb(0.9, 0.3, 0.9);
pub const NAME_COLOR: Color = Color::rgb(0.9, 0.9, 0.9);
pub const BROKEN_JOINT_COLOR: Color = Color::rgb(1.0, 0.2, 0.2);
pub const JOINT_FORCE_COLOR: Color = Color::rgb(1.0, 0.85, 0.2);

/// The one palette: the colour of each kind of piece the core draws.
pub fn palette(kind: DrawKind) -> Color {
    match kind {
        DrawKind::Body { kind, awake } => body_color(kind, awake),
        DrawKind::Joint => JOINT_COLOR,
        DrawKind::JointAnchor => JOINT_ANCHOR_COLOR,
        DrawKind::JointLimit => JOINT_LIMIT_COLOR,
        DrawKind::BrokenJoint => BROKEN_JOINT_COLOR,
        DrawKind::JointForce => JOINT_FORCE_COLOR,
        DrawKind::ContactPoint => CONTACT_POINT_COLOR,
        DrawKind::ContactNew => CONTACT_NEW_COLOR,
        DrawKind::ContactNormal => CONTACT_NORMAL_COLOR,
        DrawKind::NormalImpulse => NORMAL_IMPULSE_COLOR,
        DrawKind::FrictionImpulse => FRICTION_IMPULSE_COLOR,
        DrawKind::Aabb => AABB_COLOR,
        DrawKind::Name => NAME_COLOR,
        DrawKind::Color(color) => color,
    }
}

/// The solver view's colours (`solver_view.rs`): the error ramp from no error (green)
/// through yellow to the top of the legend's range (red).
pub fn error_ramp(t: f32) -> Color {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        1.0
    };
    if t < 0.5 {
        let k = 2.0 * t;
        Color::rgb(0.25 + 0.75 * k, 0.85 + 0.1 * k, 0.3 - 0.1 * k)
    } else {
        let k = 2.0 * t - 1.0;
        Color::rgb(1.0, 0.95 - 0.75 * k, 0.2)
    }
}

/// Graph colours: twelve hues apart, repeated past twelve; the overflow white.
pub fn graph_color(color: GraphColor) -> Color {
    const HUES: [Color; 12] = [
        Color::rgb(0.95, 0.35, 0.35),
        Color::rgb(0.35, 0.75, 1.0),
        Color::rgb(1.0, 0.8, 0.25),
        Color::rgb(0.55, 0.9, 0.4),
        Color::rgb(0.85, 0.45, 1.0),
        Color::rgb(1.0, 0.55, 0.15),
        Color::rgb(0.3, 0.95, 0.85),
        Color::rgb(1.0, 0.5, 0.75),
        Color::rgb(0.6, 0.6, 1.0),
        Color::rgb(0.8, 0.95, 0.3),
        Color::rgb(0.65, 0.4, 0.25),
        Color::rgb(0.5, 0.5, 0.5),
    ];
    match color {
        GraphColor::Color(c) => HUES[c as usize % HUES.len()],
        GraphColor::Overflow => OVERFLOW_COLOR,
    }
}

/// Constraints solved one at a time (graph overflow, or not batched).
pub const OVERFLOW_COLOR: Color = Color::rgb(1.0, 1.0, 1.0);
/// A contact point warm-started with last step's impulses (green); one starting cold (magenta).
pub const WARM_STARTED_COLOR: Color = Color::rgb(0.3, 0.9, 0.45);
pub const COLD_STARTED_COLOR: Color = Color::rgb(1.0, 0.25, 1.0);
/// The mark of a manifold reused without the narrow phase.
pub const RECYCLED_COLOR: Color = Color::rgb(0.35, 0.8, 1.0);
/// Feature id labels.
pub const FEATURE_ID_COLOR: Color = Color::rgb(0.95, 0.95, 0.75);

/// An island's colour: a hue from its id (golden-ratio steps, so neighbouring ids differ),
/// bright when awake, dark when asleep.
pub fn island_color(id: u32, awake: bool) -> Color {
    let hue = (id as f32 * 0.618_034).fract();
    let c = hue_color(hue);
    if awake {
        c
    } else {
        c.scaled(0.45)
    }
}

/// A saturated colour of hue `h` (0..1).
fn hue_color(h: f32) -> Color {
    let x = 6.0 * h;
    let f = |k: f32| (((x + k) % 6.0 - 3.0).abs() - 1.0).clamp(0.0, 1.0);
    Color::rgb(
        0.25 + 0.75 * f(0.0),
        0.25 + 0.75 * f(4.0),
        0.25 + 0.75 * f(2.0),
    )
}

/// The core's colour as macroquad's.
pub fn to_mq(color: Color) -> MqColor {
    MqColor::new(color.r, color.g, color.b, color.a)
}

/// The fill colour for an outline colour.
pub fn fill_color(color: Color) -> Color {
    color
        .scaled(FILL_BRIGHTNESS)
        .with_alpha(FILL_ALPHA * color.a)
}

/// `fill_color` blended over the background once, here: opaque, so a solid shape is drawn
/// as two filled layers (the outline colour, then the fill inset by the line width) rather
/// than a fill plus one quad per outline edge. Same look over the background, under half
/// the triangles (a software rasteriser pays per triangle).
pub fn opaque_fill_color(color: Color) -> Color {
    let f = fill_color(color);
    let mix = |bg: f32, c: f32| bg * (1.0 - f.a) + c * f.a;
    Color::rgb(
        mix(BACKGROUND.r, f.r),
        mix(BACKGROUND.g, f.g),
        mix(BACKGROUND.b, f.b),
    )
}

/// A convex counter-clockwise polygon moved inwards by `distance` (every edge parallel to
/// its original, `distance` inside). `None` when the polygon is too small for that (an
/// edge would turn over) or the input is degenerate.
pub fn inset_polygon(points: &[Vec2], distance: f32) -> Option<Vec<Vec2>> {
    let n = points.len();
    if n < 3 || distance.is_nan() || distance < 0.0 {
        return None;
    }
    let normal = |i: usize| {
        let e = points[(i + 1) % n] - points[i];
        Vec2::new(e.y, -e.x).normalize_or_zero()
    };
    let mut out = Vec::with_capacity(n);
    for (i, &p) in points.iter().enumerate() {
        let n_prev = normal((i + n - 1) % n);
        let n_next = normal(i);
        let denom = 1.0 + n_prev.dot(n_next);
        if denom < 1e-3 {
            return None;
        }
        out.push(p - distance * (n_prev + n_next) / denom);
    }
    for i in 0..n {
        let before = points[(i + 1) % n] - points[i];
        let after = out[(i + 1) % n] - out[i];
        if before.dot(after) <= 0.0 {
            return None;
        }
    }
    Some(out)
}

/// Number of straight pieces for a full circle of `radius_px` screen pixels.
pub fn circle_pieces(radius_px: f32) -> usize {
    let pieces = (TAU * radius_px.max(0.0) / ARC_PIECE_PIXELS).ceil();
    if pieces.is_finite() {
        (pieces as usize).clamp(12, 256)
    } else {
        12
    }
}

/// Points around a circle, counter-clockwise, starting on the +x axis.
pub fn circle_outline(center: Vec2, radius: f32, pieces: usize) -> Vec<Vec2> {
    let pieces = pieces.max(3);
    (0..pieces)
        .map(|i| {
            let angle = TAU * i as f32 / pieces as f32;
            center + radius * Vec2::new(angle.cos(), angle.sin())
        })
        .collect()
}

/// The outline of a convex polygon grown by `radius` (a rounded polygon): each corner becomes
/// an arc. Two vertices give a capsule, one a circle. Vertices may be in either winding; the
/// result is counter-clockwise. `pieces` is the number of straight pieces a full circle
/// would get. With `radius <= 0` the vertices are returned (counter-clockwise).
pub fn rounded_outline(vertices: &[Vec2], radius: f32, pieces: usize) -> Vec<Vec2> {
    let n = vertices.len();
    let mut vs: Vec<Vec2> = vertices.to_vec();
    if n >= 3 && signed_area(&vs) < 0.0 {
        vs.reverse();
    }
    if radius.is_nan() || radius <= 0.0 || n == 0 {
        return vs;
    }
    if n == 1 {
        return circle_outline(vs[0], radius, pieces);
    }
    let pieces = pieces.max(3) as f32;
    // Outward normal of the edge from vs[i] to vs[i + 1] (counter-clockwise winding).
    let normal = |i: usize| {
        let e = vs[(i + 1) % n] - vs[i];
        Vec2::new(e.y, -e.x).normalize_or_zero()
    };
    let mut out = Vec::with_capacity(n * 8);
    for (i, &v) in vs.iter().enumerate() {
        let n_prev = normal((i + n - 1) % n);
        let n_next = normal(i);
        let mut sweep = cross(n_prev, n_next).atan2(n_prev.dot(n_next));
        if sweep < 0.0 {
            sweep += TAU; // a capsule's cap is a half turn, which atan2 may call -pi
        }
        let steps = ((sweep / TAU * pieces).ceil() as usize).max(1);
        let start = n_prev.y.atan2(n_prev.x);
        for k in 0..=steps {
            let angle = start + sweep * k as f32 / steps as f32;
            out.push(v + radius * Vec2::new(angle.cos(), angle.sin()));
        }
    }
    out
}

/// Signed area of a closed polygon: positive when counter-clockwise.
fn signed_area(vs: &[Vec2]) -> f32 {
    let n = vs.len();
    (0..n).map(|i| cross(vs[i], vs[(i + 1) % n])).sum::<f32>() * 0.5
}

/// How strong a grid line is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridKind {
    /// Every metre, when metres are at least `MIN_GRID_SPACING_PIXELS` apart.
    Minor,
    /// Every 10 m, when that is at least `MIN_GRID_SPACING_PIXELS` on screen.
    Major,
    /// x = 0 and y = 0.
    Axis,
}

/// One grid line, in world coordinates, spanning the visible area.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridLine {
    pub a: Vec2,
    pub b: Vec2,
    pub kind: GridKind,
}

/// The grid lines visible through `camera`, faint first so stronger lines draw on top.
/// Lines of a spacing that would be denser than `MIN_GRID_SPACING_PIXELS` are left out, so
/// the count stays bounded by the viewport size at every zoom.
pub fn grid_lines(camera: &Camera) -> Vec<GridLine> {
    let view = camera.visible_aabb();
    let ppm = camera.pixels_per_metre();
    let mut lines = Vec::new();
    // Levels: (spacing in m, kind, skip indices that a stronger line covers).
    for (spacing, kind) in [(1.0_f32, GridKind::Minor), (10.0, GridKind::Major)] {
        if spacing * ppm < MIN_GRID_SPACING_PIXELS {
            continue;
        }
        for axis in 0..2 {
            // axis 0: vertical lines at x = k * spacing; axis 1: horizontal at y = k * spacing.
            let (lo, hi) = if axis == 0 {
                (view.min.x, view.max.x)
            } else {
                (view.min.y, view.max.y)
            };
            let first = (lo / spacing).ceil() as i64;
            let last = (hi / spacing).floor() as i64;
            for k in first..=last {
                let covered = k == 0 || (kind == GridKind::Minor && k % 10 == 0);
                if covered {
                    continue;
                }
                let c = k as f32 * spacing;
                lines.push(span(axis, c, &view, kind));
            }
        }
    }
    // Axes, when visible.
    if view.min.x <= 0.0 && 0.0 <= view.max.x {
        lines.push(span(0, 0.0, &view, GridKind::Axis));
    }
    if view.min.y <= 0.0 && 0.0 <= view.max.y {
        lines.push(span(1, 0.0, &view, GridKind::Axis));
    }
    lines
}

fn span(axis: usize, c: f32, view: &crate::physics::Aabb, kind: GridKind) -> GridLine {
    if axis == 0 {
        GridLine {
            a: Vec2::new(c, view.min.y),
            b: Vec2::new(c, view.max.y),
            kind,
        }
    } else {
        GridLine {
            a: Vec2::new(view.min.x, c),
            b: Vec2::new(view.max.x, c),
            kind,
        }
    }
}

/// Draw the background grid. Call with the world camera set (inside a `MacroquadDraw`
/// frame, or after `set_camera(&camera.camera_2d(..))`).
pub fn draw_grid(camera: &Camera) {
    let thickness = camera.pixels_to_metres(GRID_LINE_PIXELS);
    for line in grid_lines(camera) {
        let color = match line.kind {
            GridKind::Minor => GRID_MINOR,
            GridKind::Major => GRID_MAJOR,
            GridKind::Axis => GRID_AXIS,
        };
        draw_line(
            line.a.x,
            line.a.y,
            line.b.x,
            line.b.y,
            thickness,
            to_mq(color),
        );
    }
}

/// Draws the core's debug geometry with macroquad for one frame.
///
/// ```ignore
/// let mut d = MacroquadDraw::begin(&camera, screen_size); // sets the world camera
/// draw_grid(&camera);
/// world.debug_draw(&mut d, flags);
/// d.finish(); // text, then back to the screen camera for egui
/// ```
pub struct MacroquadDraw {
    camera: Camera,
    /// Outline width in metres for this frame's scale.
    line: f32,
    /// Text waiting for `finish`: screen position, text, colour.
    texts: Vec<(Vec2, String, Color)>,
}

impl MacroquadDraw {
    /// Start drawing the world through `camera` into a window `screen_size` pixels large.
    pub fn begin(camera: &Camera, screen_size: Vec2) -> MacroquadDraw {
        set_camera(&camera.camera_2d(screen_size));
        MacroquadDraw {
            camera: *camera,
            line: camera.pixels_to_metres(LINE_PIXELS),
            texts: Vec::new(),
        }
    }

    /// The camera this frame is drawn through.
    pub fn camera(&self) -> &Camera {
        &self.camera
    }

    /// Draw the queued text in screen space and restore the screen camera.
    pub fn finish(self) {
        set_default_camera();
        for (at, text, color) in &self.texts {
            draw_text(text, at.x, at.y, FONT_PIXELS, to_mq(*color));
        }
    }

    /// A line `pixels` wide on screen.
    pub fn line_px(&self, a: Vec2, b: Vec2, color: Color, pixels: f32) {
        let width = self.camera.pixels_to_metres(pixels);
        draw_line(a.x, a.y, b.x, b.y, width, to_mq(color));
    }

    /// A filled dot `pixels` across on screen.
    pub fn dot_px(&self, at: Vec2, pixels: f32, color: Color) {
        let radius = 0.5 * self.camera.pixels_to_metres(pixels.max(1.0));
        self.fill(&circle_outline(at, radius, 16), color);
    }

    /// Pieces for a full circle of `radius` metres at this frame's scale.
    fn pieces(&self, radius: f32) -> usize {
        circle_pieces(radius * self.camera.pixels_per_metre())
    }

    fn line(&self, a: Vec2, b: Vec2, color: Color) {
        draw_line(a.x, a.y, b.x, b.y, self.line, to_mq(color));
    }

    fn outline(&self, points: &[Vec2], color: Color) {
        let n = points.len();
        if n < 2 {
            return;
        }
        for i in 0..n {
            self.line(points[i], points[(i + 1) % n], color);
        }
    }

    /// A convex polygon filled as a fan from its first point.
    fn fill(&self, points: &[Vec2], color: Color) {
        let c = to_mq(color);
        for i in 1..points.len().saturating_sub(1) {
            draw_triangle(points[0], points[i], points[i + 1], c);
        }
    }

    /// A filled shape with its outline: `outer` is its boundary (convex, counter-clockwise),
    /// `inner` the boundary moved in by the line width (`None` when the shape is thinner
    /// than two lines: it is then all outline colour).
    fn solid(&self, outer: &[Vec2], inner: Option<Vec<Vec2>>, color: Color) {
        if color.a < 1.0 {
            // Translucent: the fill must not hide what is under it.
            self.fill(outer, fill_color(color));
            self.outline(outer, color);
            return;
        }
        self.fill(outer, color);
        if let Some(inner) = inner {
            self.fill(&inner, opaque_fill_color(color));
        }
    }

    /// The boundary of a polygon rounded by `radius`, and the same moved in by the line
    /// width.
    fn rounded_layers(&self, vertices: &[Vec2], radius: f32) -> (Vec<Vec2>, Option<Vec<Vec2>>) {
        let pieces = self.pieces(radius);
        let outer = rounded_outline(vertices, radius, pieces);
        let inner = if radius > self.line {
            let inner = rounded_outline(vertices, radius - self.line, pieces);
            (inner.len() >= 3).then_some(inner)
        } else {
            let core = rounded_outline(vertices, 0.0, pieces);
            inset_polygon(&core, self.line - radius.max(0.0))
        };
        (outer, inner)
    }
}

impl DebugDraw for MacroquadDraw {
    fn draw_polygon(&mut self, vertices: &[Vec2], kind: DrawKind) {
        let color = palette(kind);
        self.outline(vertices, color);
    }

    fn draw_solid_polygon(&mut self, vertices: &[Vec2], radius: f32, kind: DrawKind) {
        let color = palette(kind);
        let (outer, inner) = self.rounded_layers(vertices, radius);
        self.solid(&outer, inner, color);
    }

    fn draw_circle(&mut self, center: Vec2, radius: f32, kind: DrawKind) {
        let color = palette(kind);
        self.outline(&circle_outline(center, radius, self.pieces(radius)), color);
    }

    fn draw_solid_circle(&mut self, center: Vec2, radius: f32, axis: Vec2, kind: DrawKind) {
        let color = palette(kind);
        let pieces = self.pieces(radius);
        let inner =
            (radius > self.line).then(|| circle_outline(center, radius - self.line, pieces));
        self.solid(&circle_outline(center, radius, pieces), inner, color);
        self.line(center, center + radius * axis.normalize_or_zero(), color);
    }

    fn draw_solid_capsule(&mut self, center_a: Vec2, center_b: Vec2, radius: f32, kind: DrawKind) {
        let color = palette(kind);
        let (outer, inner) = self.rounded_layers(&[center_a, center_b], radius);
        self.solid(&outer, inner, color);
    }

    fn draw_segment(&mut self, point_a: Vec2, point_b: Vec2, kind: DrawKind) {
        let color = palette(kind);
        self.line(point_a, point_b, color);
    }

    fn draw_transform(&mut self, xf: Transform, scale: f32) {
        let p = xf.p;
        self.line(p, p + scale * xf.q.x_axis(), Color::rgb(1.0, 0.0, 0.0));
        let y_axis = xf.q.rotate(Vec2::Y);
        self.line(p, p + scale * y_axis, Color::rgb(0.0, 1.0, 0.0));
    }

    /// A square dot, as OpenGL points are: two triangles (a scene of 5,000 boxes has
    /// 10,000 contact points, and a software rasteriser pays for every triangle).
    fn draw_point(&mut self, point: Vec2, size: f32, kind: DrawKind) {
        let color = palette(kind);
        let h = 0.5 * self.camera.pixels_to_metres(size.max(1.0));
        let c = to_mq(color);
        let (a, b) = (point - Vec2::splat(h), point + Vec2::splat(h));
        draw_triangle(a, Vec2::new(b.x, a.y), b, c);
        draw_triangle(a, b, Vec2::new(a.x, b.y), c);
    }

    fn draw_string(&mut self, point: Vec2, text: &str, kind: DrawKind) {
        let color = palette(kind);
        let at = self.camera.world_to_screen(point);
        self.texts.push((at, text.to_owned(), color));
    }
}

// ------------------------------------------------------------------------------------------
// The worlds: bodies in the app's colours with angle lines, the core's debug drawing for the
// other flags, the mouse's pull and the pick; compared worlds as tinted outlines.

/// Bodies reaching less than this far (screen pixels) from their centre get no angle line.
const ANGLE_LINE_MIN_PIXELS: f32 = 5.0;

/// Pieces of a full circle for compared worlds' rounded outlines.
const TINT_CIRCLE_PIECES: usize = 32;

/// The picked body or joint is framed in this colour, this far out (screen pixels).
pub const PICK_COLOR: Color = Color::rgb(1.0, 1.0, 1.0);
const PICK_MARGIN_PIXELS: f32 = 6.0;

/// Draw the worlds `shown` through `d` (the world camera is already set). One world: bodies in
/// the app's colours by kind and sleep, each moving body with a line from its centre of
/// mass along its x axis (its angle), then what the core draws for the other flags
/// (joints, contacts, boxes, names), then the mouse's pull. Compared worlds: the static
/// bodies once, then each world's moving bodies and debug drawing as outlines in its
/// legend colour (the first world on top). Then the pick, highlighted.
pub fn draw_worlds(
    shown: &Comparison,
    draw_flags: &DrawFlags,
    pick: Option<Pick>,
    d: &mut MacroquadDraw,
) {
    if shown.sessions.len() == 1 {
        let world = &shown.sessions[0].world;
        if draw_flags.shapes {
            draw_bodies(world, d);
        }
        let flags = DrawFlags {
            shapes: false,
            ..*draw_flags
        };
        world.debug_draw(d, &flags);
        if let Some((anchor, target)) = shown.sessions[0].grab_line() {
            draw_pull(d, anchor, target, PULL_COLOR);
        }
    } else {
        let flags = DrawFlags {
            shapes: false,
            ..*draw_flags
        };
        if draw_flags.shapes {
            draw_statics(&shown.sessions[0].world, d);
        }
        for (i, session) in shown.sessions.iter().enumerate().rev() {
            let color = legend_color(i);
            let ppm = d.camera().pixels_per_metre();
            {
                let mut tint = Tint {
                    inner: &mut *d,
                    color,
                    pieces: TINT_CIRCLE_PIECES,
                };
                if draw_flags.shapes {
                    draw_moving_outlines(&session.world, &mut tint, ppm);
                }
                session.world.debug_draw(&mut tint, &flags);
            }
            if let Some((anchor, target)) = session.grab_line() {
                draw_pull(d, anchor, target, color);
            }
        }
    }
    draw_pick(shown, pick, d);
}

/// The pick, in every world shown: a white frame around a body (its colours stay
/// visible), white rings on a joint's anchors.
fn draw_pick(shown: &Comparison, pick: Option<Pick>, d: &mut MacroquadDraw) {
    let Some(pick) = pick else {
        return;
    };
    let margin = d.camera().pixels_to_metres(PICK_MARGIN_PIXELS);
    for session in &shown.sessions {
        let world = &session.world;
        match pick {
            Pick::Body(h) => {
                let Some(body) = world.body(h) else { continue };
                let xf = body.transform();
                let aabb = body
                    .shapes()
                    .iter()
                    .filter_map(|&s| world.shape(s))
                    .map(|s| s.geometry().aabb(&xf))
                    .reduce(|a, b| a.union(&b));
                let Some(aabb) = aabb else { continue };
                let (lo, hi) = (
                    aabb.min - Vec2::splat(margin),
                    aabb.max + Vec2::splat(margin),
                );
                let corners = [lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)];
                for k in 0..4 {
                    d.line_px(corners[k], corners[(k + 1) % 4], PICK_COLOR, 1.5);
                }
                d.dot_px(body.center(), 5.0, PICK_COLOR);
            }
            Pick::Joint(h) => {
                let Some(joint) = world.joint(h) else {
                    continue;
                };
                let (Some(a), Some(b)) = (world.body(joint.body_a()), world.body(joint.body_b()))
                else {
                    continue;
                };
                for p in [joint.anchor_a(a), joint.anchor_b(b)] {
                    d.draw_circle(p, margin, PICK_COLOR.into());
                }
            }
        }
    }
}

/// The mouse's pull: a line from the held point to the target.
fn draw_pull(d: &mut MacroquadDraw, anchor: Vec2, target: Vec2, color: Color) {
    d.line_px(anchor, target, color, 2.5);
    d.dot_px(anchor, 7.0, color);
    d.dot_px(target, 5.0, color);
}

/// Every body of `world` in the app's colours (solid), moving ones with angle lines.
fn draw_bodies(world: &World, d: &mut MacroquadDraw) {
    let ppm = d.camera().pixels_per_metre();
    for (_, body) in world.bodies() {
        let color = body_color(body.kind(), body.is_awake());
        let line = draw_body(world, body, d, color, ppm);
        if let Some((from, to)) = line.filter(|_| body.kind() != BodyKind::Static) {
            d.line_px(from, to, color, 1.5);
        }
    }
}

/// The static bodies of `world`, solid in their colour (compare mode draws them once).
fn draw_statics(world: &World, d: &mut MacroquadDraw) {
    for (_, body) in world.bodies() {
        if body.kind() == BodyKind::Static {
            draw_body(world, body, d, body_color(body.kind(), true), 0.0);
        }
    }
}

/// The moving bodies of `world` through a tint (outlines in the world's colour, darker
/// asleep), with angle lines.
fn draw_moving_outlines(world: &World, d: &mut dyn DebugDraw, pixels_per_metre: f32) {
    for (_, body) in world.bodies() {
        if body.kind() == BodyKind::Static {
            continue;
        }
        let color = body_color(body.kind(), body.is_awake());
        if let Some((from, to)) = draw_body(world, body, d, color, pixels_per_metre) {
            d.draw_segment(from, to, color.into());
        }
    }
}

/// Draw the shapes of `body` in `color`; return its angle line (from the centre of mass
/// along the body's x axis, as far as its shapes reach), unless that is shorter than
/// `ANGLE_LINE_MIN_PIXELS` at `pixels_per_metre`.
fn draw_body(
    world: &World,
    body: &Body,
    d: &mut dyn DebugDraw,
    color: Color,
    pixels_per_metre: f32,
) -> Option<(Vec2, Vec2)> {
    let xf = body.transform();
    let mut reach: f32 = 0.0;
    let center = body.center();
    let axis = xf.q.x_axis();
    for &shape in body.shapes() {
        let Some(shape) = world.shape(shape) else {
            continue;
        };
        draw_geometry(d, shape.geometry(), &xf, color);
        reach = reach.max(support(shape.geometry(), &xf, center, axis));
    }
    (reach * pixels_per_metre > ANGLE_LINE_MIN_PIXELS).then(|| (center, center + reach * axis))
}

/// How far `geometry` (at `xf`) reaches from `center` along `axis`.
fn support(geometry: &Geometry, xf: &Transform, center: Vec2, axis: Vec2) -> f32 {
    let along = |p: Vec2| (xf.apply(p) - center).dot(axis);
    match geometry {
        Geometry::Circle(c) => along(c.center) + c.radius,
        Geometry::Capsule(c) => along(c.center_a).max(along(c.center_b)) + c.radius,
        Geometry::Polygon(p) => {
            p.vertices()
                .iter()
                .map(|&v| along(v))
                .fold(f32::MIN, f32::max)
                + p.radius
        }
        Geometry::Segment(s) => along(s.point_a).max(along(s.point_b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use macroquad::math::Rect;

    fn square() -> Vec<Vec2> {
        vec![
            Vec2::new(-1.0, -1.0),
            Vec2::new(1.0, -1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(-1.0, 1.0),
        ]
    }

    #[test]
    fn rounded_square_keeps_its_radius_from_the_core() {
        let r = 0.25;
        for vertices in [square(), square().into_iter().rev().collect()] {
            let out = rounded_outline(&vertices, r, 64);
            assert!(out.len() > 4 * 4);
            assert!(signed_area(&out) > 0.0, "counter-clockwise");
            for p in &out {
                // Distance from a point outside the core square to the square is `r`.
                let d = (p.abs() - Vec2::ONE).max(Vec2::ZERO).length();
                assert!((d - r).abs() < 1e-4, "{p} at {d}");
            }
            // The rounded area: square + edge strips + one full circle.
            let area = 4.0 + 4.0 * 2.0 * r + std::f32::consts::PI * r * r;
            assert!((signed_area(&out) - area).abs() < 0.01 * area);
        }
    }

    #[test]
    fn capsule_outline_is_a_stadium() {
        let (a, b, r) = (Vec2::new(-1.0, 2.0), Vec2::new(1.0, 2.0), 0.5);
        let out = rounded_outline(&[a, b], r, 64);
        for p in &out {
            // Distance to the core segment is the radius.
            let t = ((*p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            let d = (*p - (a + t * (b - a))).length();
            assert!((d - r).abs() < 1e-4);
        }
        let area = 2.0 * 2.0 * r + std::f32::consts::PI * r * r;
        assert!((signed_area(&out) - area).abs() < 0.01 * area);
        // Caps reach beyond the ends.
        assert!(out.iter().any(|p| p.x > 1.49) && out.iter().any(|p| p.x < -1.49));
    }

    #[test]
    fn zero_radius_returns_the_polygon() {
        assert_eq!(rounded_outline(&square(), 0.0, 32), square());
        assert!(rounded_outline(&[], 1.0, 32).is_empty());
        assert_eq!(rounded_outline(&[Vec2::ZERO], 1.0, 16).len(), 16);
    }

    #[test]
    fn circle_pieces_follow_the_screen_size() {
        assert_eq!(circle_pieces(0.0), 12);
        assert_eq!(circle_pieces(f32::NAN), 12);
        assert!(circle_pieces(100.0) > circle_pieces(20.0));
        assert_eq!(circle_pieces(1e9), 256);
    }

    #[test]
    fn body_kinds_have_distinct_colours() {
        let colors = [
            body_color(BodyKind::Static, true),
            body_color(BodyKind::Kinematic, true),
            body_color(BodyKind::Dynamic, true),
            body_color(BodyKind::Dynamic, false),
        ];
        for (i, a) in colors.iter().enumerate() {
            for b in &colors[i + 1..] {
                let d = (a.r - b.r).abs() + (a.g - b.g).abs() + (a.b - b.b).abs();
                assert!(d > 0.3, "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn inset_moves_every_edge_in() {
        let inner = inset_polygon(&square(), 0.25).unwrap();
        for (p, q) in inner.iter().zip(square()) {
            assert!((*p - 0.75 * q).length() < 1e-5, "{p} {q}");
        }
        assert!(inset_polygon(&square(), 1.5).is_none(), "too thin");
        assert!(inset_polygon(&square()[..2], 0.1).is_none());
        assert!(inset_polygon(&square(), f32::NAN).is_none());
        let o = opaque_fill_color(Color::rgb(1.0, 0.6, 0.2));
        assert_eq!(o.a, 1.0);
        assert!(o.r > o.g && o.g > o.b && o.r < 0.5);
    }

    #[test]
    fn fills_are_darker_and_translucent() {
        let f = fill_color(DYNAMIC_COLOR);
        assert!(f.r < DYNAMIC_COLOR.r && f.a < 1.0);
    }

    fn camera(view_height: f32) -> Camera {
        Camera::new(
            Vec2::new(0.5, 0.5),
            view_height,
            Rect::new(0.0, 0.0, 960.0, 720.0),
        )
    }

    #[test]
    fn grid_shows_metres_only_when_they_are_far_enough_apart() {
        // 720 px for 20 m: 36 px per metre, minor and major lines.
        let lines = grid_lines(&camera(20.0));
        let count = |k| lines.iter().filter(|l| l.kind == k).count();
        assert!(count(GridKind::Minor) > 20);
        assert_eq!(count(GridKind::Axis), 2);
        // 720 px for 200 m: 3.6 px per metre, so no minor lines; 10 m lines stay.
        let lines = grid_lines(&camera(200.0));
        assert_eq!(
            lines.iter().filter(|l| l.kind == GridKind::Minor).count(),
            0
        );
        assert!(lines.iter().any(|l| l.kind == GridKind::Major));
        // Far out: only the axes.
        let lines = grid_lines(&camera(5000.0));
        assert!(lines.iter().all(|l| l.kind == GridKind::Axis));
    }

    #[test]
    fn grid_lines_are_never_denser_than_the_limit() {
        for view_height in [0.01, 0.5, 3.0, 20.0, 89.0, 90.0, 91.0, 900.0, 10_000.0] {
            let cam = camera(view_height);
            let lines = grid_lines(&cam);
            // Bounded by the viewport: at most one line per MIN_GRID_SPACING_PIXELS per level.
            let bound = 2.0 * (960.0 + 720.0) / MIN_GRID_SPACING_PIXELS + 4.0;
            assert!(
                (lines.len() as f32) <= bound,
                "{view_height}: {}",
                lines.len()
            );
            let mut xs: Vec<f32> = lines
                .iter()
                .filter(|l| l.a.x == l.b.x && l.kind != GridKind::Axis)
                .map(|l| cam.world_to_screen(l.a).x)
                .collect();
            xs.sort_by(f32::total_cmp);
            for pair in xs.windows(2) {
                assert!(pair[1] - pair[0] >= MIN_GRID_SPACING_PIXELS - 1e-3);
            }
        }
    }
}
