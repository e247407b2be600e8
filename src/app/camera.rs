//! The camera: the ONLY place that converts world metres (x right, y up) to screen pixels
//! (x right, y down) and back.
//!
//! Screen pixels here are macroquad's logical pixels (`screen_width()`, `mouse_position()`),
//! which are also egui points once `pixels_per_point` is set to the DPI scale.
//!
//! The camera shows the world inside a *viewport*: the window minus the egui side panel. The
//! view is described by its `center` (m) and the world `view_height` (m) that fills the
//! viewport's height, so the scale is `pixels_per_metre = viewport.h / view_height` and is the
//! same on both axes. Everything here is plain math so it is unit tested without a window.

use macroquad::camera::Camera2D;
use macroquad::math::Rect;

use crate::physics::{Aabb, Vec2};

/// Smallest and largest world height the view may show (m). Objects live between 0.1 and 10 m;
/// these bounds leave room to inspect a contact point or to see a 1 km scene, and keep the
/// scale finite.
pub const MIN_VIEW_HEIGHT: f32 = 0.01;
pub const MAX_VIEW_HEIGHT: f32 = 10_000.0;

/// Margin `frame` leaves around the framed box, as a fraction of its size on each side.
pub const FRAME_MARGIN: f32 = 0.1;

/// A 2D orthographic camera looking at the world through a screen viewport.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// World point at the centre of the viewport (m).
    center: Vec2,
    /// World height shown by the viewport (m).
    view_height: f32,
    /// Screen rectangle the world is drawn into (logical pixels, y down).
    viewport: Rect,
}

impl Default for Camera {
    /// 25 m of world height centred a little above the origin, in a 960x720 viewport.
    fn default() -> Self {
        Camera::new(
            Vec2::new(0.0, 10.0),
            25.0,
            Rect::new(0.0, 0.0, 960.0, 720.0),
        )
    }
}

impl Camera {
    /// A camera centred on `center` (m) showing `view_height` metres in `viewport` (px).
    pub fn new(center: Vec2, view_height: f32, viewport: Rect) -> Camera {
        let mut camera = Camera {
            center: Vec2::ZERO,
            view_height: 1.0,
            viewport: Rect::new(0.0, 0.0, 1.0, 1.0),
        };
        camera.set_viewport(viewport);
        camera.set_center(center);
        camera.set_view_height(view_height);
        camera
    }

    pub fn center(&self) -> Vec2 {
        self.center
    }

    /// World height shown by the viewport (m).
    pub fn view_height(&self) -> f32 {
        self.view_height
    }

    /// Screen rectangle the world is drawn into (px).
    pub fn viewport(&self) -> Rect {
        self.viewport
    }

    /// Move the view; non-finite input is ignored.
    pub fn set_center(&mut self, center: Vec2) {
        if center.is_finite() {
            self.center = center;
        }
    }

    /// Set the world height shown (m), clamped to `MIN_VIEW_HEIGHT..=MAX_VIEW_HEIGHT`;
    /// non-finite or non-positive input is ignored.
    pub fn set_view_height(&mut self, view_height: f32) {
        if view_height.is_finite() && view_height > 0.0 {
            self.view_height = view_height.clamp(MIN_VIEW_HEIGHT, MAX_VIEW_HEIGHT);
        }
    }

    /// Set the screen rectangle to draw into (px). Keeps the centre and the world height, so
    /// resizing the window rescales the view. Degenerate sizes are raised to one pixel.
    pub fn set_viewport(&mut self, viewport: Rect) {
        let finite = |v: f32| if v.is_finite() { v } else { 0.0 };
        self.viewport = Rect::new(
            finite(viewport.x),
            finite(viewport.y),
            finite(viewport.w).max(1.0),
            finite(viewport.h).max(1.0),
        );
    }

    /// Screen pixels per world metre (same on both axes).
    pub fn pixels_per_metre(&self) -> f32 {
        self.viewport.h / self.view_height
    }

    /// Screen point (px) at the centre of the viewport.
    fn viewport_center(&self) -> Vec2 {
        Vec2::new(
            self.viewport.x + 0.5 * self.viewport.w,
            self.viewport.y + 0.5 * self.viewport.h,
        )
    }

    /// World point (m, y up) to screen point (px, y down).
    pub fn world_to_screen(&self, p: Vec2) -> Vec2 {
        let s = self.pixels_per_metre();
        let d = p - self.center;
        self.viewport_center() + Vec2::new(d.x * s, -d.y * s)
    }

    /// Screen point (px, y down) to world point (m, y up).
    pub fn screen_to_world(&self, p: Vec2) -> Vec2 {
        let inv = 1.0 / self.pixels_per_metre();
        let d = p - self.viewport_center();
        self.center + Vec2::new(d.x * inv, -d.y * inv)
    }

    /// A length in screen pixels expressed in world metres (for pixel-thick lines).
    pub fn pixels_to_metres(&self, pixels: f32) -> f32 {
        pixels / self.pixels_per_metre()
    }

    /// True when the screen point lies inside the viewport.
    pub fn viewport_contains(&self, p: Vec2) -> bool {
        self.viewport.contains(p)
    }

    /// The world box visible in the viewport.
    pub fn visible_aabb(&self) -> Aabb {
        let h = 0.5 * Vec2::new(self.viewport.w, self.viewport.h) / self.pixels_per_metre();
        Aabb::around(self.center, h)
    }

    /// Zoom by `factor` (> 1 zooms in) keeping the world point under `screen_point` fixed on
    /// screen, as a mouse wheel should. At the zoom limits the view stops zooming but the
    /// point still stays put.
    pub fn zoom_at(&mut self, screen_point: Vec2, factor: f32) {
        if !(factor.is_finite() && factor > 0.0 && screen_point.is_finite()) {
            return;
        }
        let anchor = self.screen_to_world(screen_point);
        self.set_view_height(self.view_height / factor);
        // Choose the centre so that `anchor` projects back onto `screen_point`.
        let inv = 1.0 / self.pixels_per_metre();
        let d = screen_point - self.viewport_center();
        self.set_center(anchor - Vec2::new(d.x * inv, -d.y * inv));
    }

    /// Pan by a screen displacement (px): the world moves with the mouse when dragged.
    pub fn pan(&mut self, screen_delta: Vec2) {
        let inv = 1.0 / self.pixels_per_metre();
        self.set_center(self.center - Vec2::new(screen_delta.x * inv, -screen_delta.y * inv));
    }

    /// Fit the world box `aabb` in the viewport with `FRAME_MARGIN` around it. An empty or
    /// invalid box is ignored; a tiny one is shown at the smallest view height.
    pub fn frame(&mut self, aabb: Aabb) {
        if !aabb.is_valid() {
            return;
        }
        let size = (aabb.max - aabb.min) * (1.0 + 2.0 * FRAME_MARGIN);
        let aspect = self.viewport.w / self.viewport.h;
        let height = size.y.max(size.x / aspect).max(MIN_VIEW_HEIGHT);
        self.set_center(aabb.center());
        self.set_view_height(height);
    }

    /// The macroquad camera that draws world coordinates (m, y up) into this camera's
    /// viewport of a window `screen_size` pixels large.
    ///
    /// It covers the whole window (no GL viewport, which would need physical pixels on HiDPI),
    /// so world geometry may spill under the side panel; the opaque panel is drawn on top.
    /// Macroquad maps `ndc = offset + diag(zoom.x, -zoom.y) (p - target)` when drawing to
    /// the screen, and screen y grows downwards, so y up needs a negative `zoom.y`.
    pub fn camera_2d(&self, screen_size: Vec2) -> Camera2D {
        let screen = screen_size.max(Vec2::ONE);
        let s = self.pixels_per_metre();
        let c = self.viewport_center();
        Camera2D {
            target: self.center,
            zoom: Vec2::new(2.0 * s / screen.x, -2.0 * s / screen.y),
            offset: Vec2::new(2.0 * c.x / screen.x - 1.0, 1.0 - 2.0 * c.y / screen.y),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use macroquad::camera::Camera as _;

    fn close(a: Vec2, b: Vec2, tol: f32) -> bool {
        (a - b).length() <= tol
    }

    fn camera() -> Camera {
        Camera::new(
            Vec2::new(3.0, -2.0),
            20.0,
            Rect::new(0.0, 0.0, 960.0, 720.0),
        )
    }

    #[test]
    fn y_up_in_the_world_is_up_on_screen() {
        let cam = camera();
        let low = cam.world_to_screen(Vec2::new(0.0, 0.0));
        let high = cam.world_to_screen(Vec2::new(0.0, 1.0));
        assert!(high.y < low.y, "world y up must be screen y down");
        assert!((low.y - high.y - cam.pixels_per_metre()).abs() < 1e-3);
        assert!((cam.pixels_per_metre() - 36.0).abs() < 1e-4);
        // The centre of the view is the centre of the viewport.
        assert!(close(
            cam.world_to_screen(cam.center()),
            Vec2::new(480.0, 360.0),
            1e-4
        ));
    }

    #[test]
    fn conversions_round_trip() {
        let mut cam = camera();
        cam.set_viewport(Rect::new(17.0, 5.0, 803.0, 611.0));
        for &(x, y) in &[(0.0, 0.0), (3.0, -2.0), (-12.5, 40.25), (100.0, -0.001)] {
            let w = Vec2::new(x, y);
            assert!(close(cam.screen_to_world(cam.world_to_screen(w)), w, 1e-4));
            let s = Vec2::new(x * 7.0 + 400.0, y * 3.0 + 300.0);
            assert!(close(cam.world_to_screen(cam.screen_to_world(s)), s, 1e-3));
        }
    }

    #[test]
    fn zoom_keeps_the_point_under_the_cursor() {
        let mut cam = camera();
        let cursor = Vec2::new(123.0, 456.0);
        let before = cam.screen_to_world(cursor);
        for factor in [1.1, 1.1, 2.0, 0.5, 0.9, 1.0 / 1.1] {
            let ppm = cam.pixels_per_metre();
            cam.zoom_at(cursor, factor);
            assert!((cam.pixels_per_metre() / ppm - factor).abs() < 1e-4);
            assert!(close(cam.screen_to_world(cursor), before, 1e-4));
        }
        // At the limit the scale saturates and the anchor still holds.
        for _ in 0..400 {
            cam.zoom_at(cursor, 1.5);
        }
        assert_eq!(cam.view_height(), MIN_VIEW_HEIGHT);
        assert!(close(cam.screen_to_world(cursor), before, 1e-3));
        // Bad factors change nothing.
        let kept = cam;
        cam.zoom_at(cursor, f32::NAN);
        cam.zoom_at(cursor, 0.0);
        cam.zoom_at(cursor, -2.0);
        assert_eq!(cam, kept);
    }

    #[test]
    fn pan_moves_the_world_with_the_mouse() {
        let mut cam = camera();
        let grabbed = Vec2::new(1.0, 2.0);
        let at = cam.world_to_screen(grabbed);
        let delta = Vec2::new(30.0, -12.0);
        cam.pan(delta);
        assert!(close(cam.world_to_screen(grabbed), at + delta, 1e-3));
    }

    #[test]
    fn frame_fits_the_box() {
        let mut cam = camera();
        for aabb in [
            Aabb::new(Vec2::new(-20.0, 0.0), Vec2::new(20.0, 1.0)), // wide
            Aabb::new(Vec2::new(-1.0, -30.0), Vec2::new(1.0, 30.0)), // tall
        ] {
            cam.frame(aabb);
            let visible = cam.visible_aabb();
            assert!(visible.contains(&aabb), "{visible:?} must contain {aabb:?}");
            assert!(close(cam.center(), aabb.center(), 1e-4));
            // Tight on the limiting axis: the margin, not more.
            let ratio = ((visible.max - visible.min) / (aabb.max - aabb.min)).min_element();
            assert!((ratio - (1.0 + 2.0 * FRAME_MARGIN)).abs() < 1e-3, "{ratio}");
        }
        let kept = cam;
        cam.frame(Aabb::new(Vec2::ONE, Vec2::ZERO)); // inverted: ignored
        assert_eq!(cam, kept);
    }

    /// The macroquad camera must draw exactly where `world_to_screen` says, for a viewport
    /// that is only part of the window (the side panel takes the rest).
    #[test]
    fn camera_2d_matches_world_to_screen() {
        let screen = Vec2::new(1280.0, 720.0);
        let cam = Camera::new(
            Vec2::new(-4.0, 7.5),
            12.0,
            Rect::new(0.0, 0.0, screen.x - 320.0, screen.y),
        );
        let matrix = cam.camera_2d(screen).matrix();
        for &(x, y) in &[(0.0, 0.0), (-4.0, 7.5), (10.0, -3.0), (-30.0, 22.0)] {
            let w = Vec2::new(x, y);
            let ndc = matrix.transform_point3(macroquad::math::vec3(x, y, 0.0));
            // Macroquad's own ndc -> screen mapping (see `Camera2D::world_to_screen`).
            let s = Vec2::new(
                (ndc.x / 2.0 + 0.5) * screen.x,
                (0.5 - ndc.y / 2.0) * screen.y,
            );
            assert!(close(s, cam.world_to_screen(w), 1e-2), "{s} vs {w}");
        }
    }

    #[test]
    fn bad_input_is_ignored() {
        let mut cam = camera();
        let kept = cam;
        cam.set_center(Vec2::new(f32::NAN, 0.0));
        cam.set_view_height(-1.0);
        cam.set_view_height(f32::INFINITY);
        cam.pan(Vec2::new(f32::NAN, 1.0));
        assert_eq!(cam, kept);
        cam.set_viewport(Rect::new(0.0, 0.0, 0.0, f32::NAN));
        assert!(cam.pixels_per_metre().is_finite() && cam.pixels_per_metre() > 0.0);
    }
}
