//! Compare mode's rendering side: the presets a world can be added from, the legend colours,
//! `--compare` parsing, and [`Tint`], a `DebugDraw` that draws a compared world in its
//! legend colour (outlines only, so the worlds overlaid stay visible through each other).
//!
//! The worlds themselves are a `lab::Comparison` owned by the `Testbed`.

use super::draw::{palette, rounded_outline};
use crate::physics::{Color, DebugDraw, DrawKind, SolverSettings, Transform, Vec2};
use crate::verdicts;

/// Legend colours of the compared worlds, in order: far from each other in hue and apart
/// from the static green, and bright on the dark background.
pub const LEGEND: [Color; 4] = [
    Color::rgb(1.0, 0.62, 0.25),
    Color::rgb(0.35, 0.80, 1.0),
    Color::rgb(1.0, 0.40, 0.78),
    Color::rgb(0.95, 0.95, 0.45),
];

/// The legend colour of world `i`.
pub fn legend_color(i: usize) -> Color {
    LEGEND[i % LEGEND.len()]
}

/// Where a world's settings come from. Opening another scene derives every world's settings
/// from the new scene's own through its preset; a world the user edited keeps its edits
/// until then.
#[derive(Clone, Debug, PartialEq)]
pub enum Preset {
    /// The scene's own settings.
    Scene,
    /// A column of the verdicts table (`verdicts::configurations`): "soft step", "classic",
    /// "classic, no warm starting", ... applied to the scene's settings.
    Verdict(&'static str),
    /// A copy of another world's settings when it was added (the scene's on a new scene).
    Copy,
}

impl Preset {
    /// Every preset the Compare section offers, in menu order.
    pub fn menu() -> Vec<Preset> {
        let mut all = vec![Preset::Scene];
        all.extend(
            verdicts::configurations()
                .iter()
                .map(|c| Preset::Verdict(c.label)),
        );
        all
    }

    pub fn label(&self) -> &str {
        match self {
            Preset::Scene => "scene settings",
            Preset::Verdict(label) => label,
            Preset::Copy => "copy",
        }
    }

    /// The settings this preset gives on a scene whose own settings are `scene`.
    pub fn settings(&self, scene: &SolverSettings) -> SolverSettings {
        let mut s = *scene;
        if let Preset::Verdict(label) = self {
            if let Some(c) = verdicts::configurations()
                .iter()
                .find(|c| c.label == *label)
            {
                c.apply(&mut s);
            }
        }
        s
    }

    /// The preset called `name`, forgiving about case, commas, hyphens and underscores, and
    /// about "classic" left off a classic variant ("no warm starting").
    pub fn parse(name: &str) -> Option<Preset> {
        let key = |s: &str| {
            s.to_lowercase()
                .replace([',', '-', '_'], " ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        let wanted = key(name);
        if wanted.is_empty() {
            return None;
        }
        if wanted == "scene" || wanted == "scene settings" {
            return Some(Preset::Scene);
        }
        Preset::menu().into_iter().find(|p| {
            let k = key(p.label());
            k == wanted || k.strip_prefix("classic ") == Some(wanted.as_str())
        })
    }
}

/// `--compare "classic,classic no warm starting,soft step"`: the presets named, 2 to 4 of
/// them, or what is wrong. Commas separate the worlds, so the names are the presets' labels
/// without their commas.
pub fn parse_compare(list: &str) -> Result<Vec<Preset>, String> {
    let names: Vec<&str> = list
        .split([',', ';'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if names.len() < 2 || names.len() > crate::lab::compare::MAX_WORLDS {
        return Err(format!(
            "--compare needs 2 to {} worlds, got {}",
            crate::lab::compare::MAX_WORLDS,
            names.len()
        ));
    }
    let known: Vec<String> = Preset::menu()
        .iter()
        .map(|p| p.label().replace(',', ""))
        .collect();
    names
        .iter()
        .map(|n| {
            Preset::parse(n).ok_or_else(|| {
                format!(
                    "--compare: unknown world \"{n}\"; known: {}",
                    known.join(", ")
                )
            })
        })
        .collect()
}

/// A `DebugDraw` that draws everything in one colour (a compared world's legend colour,
/// dimmed for sleeping bodies by the caller), solids as outlines.
pub struct Tint<'a> {
    pub inner: &'a mut dyn DebugDraw,
    pub color: Color,
    /// Pieces of a full circle when tessellating rounded outlines.
    pub pieces: usize,
}

impl Tint<'_> {
    /// The tint, keeping the brightness difference of the original (asleep is darker) and
    /// its transparency.
    fn remap(&self, original: Color) -> Color {
        let brightness = original.r.max(original.g).max(original.b);
        let scale = if brightness < 0.85 { 0.65 } else { 1.0 };
        self.color.scaled(scale).with_alpha(original.a)
    }
}

impl DebugDraw for Tint<'_> {
    fn draw_polygon(&mut self, vertices: &[Vec2], kind: DrawKind) {
        let c = self.remap(palette(kind));
        self.inner.draw_polygon(vertices, c.into());
    }

    fn draw_solid_polygon(&mut self, vertices: &[Vec2], radius: f32, kind: DrawKind) {
        let c = self.remap(palette(kind));
        let outline = rounded_outline(vertices, radius, self.pieces);
        self.inner.draw_polygon(&outline, c.into());
    }

    fn draw_circle(&mut self, center: Vec2, radius: f32, kind: DrawKind) {
        let c = self.remap(palette(kind));
        self.inner.draw_circle(center, radius, c.into());
    }

    fn draw_solid_circle(&mut self, center: Vec2, radius: f32, axis: Vec2, kind: DrawKind) {
        let c = self.remap(palette(kind));
        self.inner.draw_circle(center, radius, c.into());
        self.inner
            .draw_segment(center, center + radius * axis.normalize_or_zero(), c.into());
    }

    fn draw_solid_capsule(&mut self, center_a: Vec2, center_b: Vec2, radius: f32, kind: DrawKind) {
        let c = self.remap(palette(kind));
        let outline = rounded_outline(&[center_a, center_b], radius, self.pieces);
        self.inner.draw_polygon(&outline, c.into());
    }

    fn draw_segment(&mut self, point_a: Vec2, point_b: Vec2, kind: DrawKind) {
        let c = self.remap(palette(kind));
        self.inner.draw_segment(point_a, point_b, c.into());
    }

    fn draw_transform(&mut self, xf: Transform, scale: f32) {
        self.inner.draw_transform(xf, scale);
    }

    fn draw_point(&mut self, point: Vec2, size: f32, kind: DrawKind) {
        let c = self.remap(palette(kind));
        self.inner.draw_point(point, size, c.into());
    }

    fn draw_string(&mut self, point: Vec2, text: &str, kind: DrawKind) {
        let c = self.remap(palette(kind));
        self.inner.draw_string(point, text, c.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::SolverKind;

    #[test]
    fn presets_parse_by_their_labels_without_commas() {
        let p = parse_compare("classic, classic no warm starting ,soft step").unwrap();
        assert_eq!(
            p,
            vec![
                Preset::Verdict("classic"),
                Preset::Verdict("classic, no warm starting"),
                Preset::Verdict("soft step"),
            ]
        );
        assert_eq!(
            Preset::parse("No-Position-Correction"),
            Some(Preset::Verdict("classic, no position correction"))
        );
        assert_eq!(Preset::parse("scene"), Some(Preset::Scene));
        assert!(
            parse_compare("classic").is_err(),
            "one world is no comparison"
        );
        assert!(parse_compare("a,b,c,d,e").is_err());
        let err = parse_compare("classic,warp drive").unwrap_err();
        assert!(
            err.contains("warp drive") && err.contains("soft step"),
            "{err}"
        );
    }

    #[test]
    fn presets_change_the_scene_settings() {
        let scene = SolverSettings {
            iterations: 7,
            ..SolverSettings::default()
        };
        let soft = Preset::Verdict("soft step").settings(&scene);
        assert_eq!(soft.solver, SolverKind::SoftStep);
        assert_eq!(soft.iterations, 7);
        let cold = Preset::parse("no warm starting").unwrap().settings(&scene);
        assert!(!cold.warm_starting && cold.solver == SolverKind::Classic);
        assert_eq!(Preset::Scene.settings(&scene), scene);
    }

    #[test]
    fn legend_colours_are_distinct() {
        for (i, a) in LEGEND.iter().enumerate() {
            for b in &LEGEND[i + 1..] {
                let d = (a.r - b.r).abs() + (a.g - b.g).abs() + (a.b - b.b).abs();
                assert!(d > 0.5, "{a:?} vs {b:?}");
            }
        }
    }
}
