//! Breakable joints in the window: the log of recent joint events (which world broke which
//! joint, at which step, by which load), the flash drawn on a joint that just broke, and the
//! picked joint's thresholds, load and enable button.
//!
//! Events come from `World::joint_events` after every step of every compared world, so in
//! compare mode the list says which solver broke which joint first.

use std::collections::VecDeque;

use egui_macroquad::egui::{self, RichText};

use super::compare::legend_color;
use super::draw::{MacroquadDraw, BROKEN_JOINT_COLOR};
use super::probe::{color32, Pick};
use super::report::JointEventReport;
use super::testbed::Testbed;
use crate::files::escape;
use crate::lab::{Comparison, Input};
use crate::physics::{BreakCause, Color, DebugDraw, DrawKind, JointEvent, JointHandle, World};

/// Joint events kept (and listed), newest last.
pub const EVENTS_KEPT: usize = 50;
/// Steps a broken joint flashes for.
pub const FLASH_STEPS: u64 = 45;

/// The recent joint events of every world: (world index, world label, event).
#[derive(Clone, Debug, Default)]
pub struct JointLog {
    events: VecDeque<(usize, String, JointEvent)>,
}

impl JointLog {
    /// Record the events of the step every world just took.
    pub fn record(&mut self, live: &Comparison) {
        for (i, s) in live.sessions.iter().enumerate() {
            for e in s.world.joint_events() {
                if self.events.len() == EVENTS_KEPT {
                    self.events.pop_front();
                }
                self.events
                    .push_back((i, format!("{} {}", i + 1, s.label), e.clone()));
            }
        }
    }

    pub fn clear(&mut self) {
        self.events.clear();
    }

    /// Forget the events after `step` (the run resumed from it).
    pub fn truncate_after(&mut self, step: u64) {
        self.events.retain(|(_, _, e)| e.step <= step);
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The events as the JSON model has them (the world's label when comparing).
    pub fn reports(&self, comparing: bool) -> Vec<JointEventReport> {
        self.events
            .iter()
            .map(|(_, label, e)| JointEventReport::new(e, comparing.then(|| label.clone())))
            .collect()
    }
}

/// "weld6 broke: torque 1612 N m > 1000 N m (disabled)".
pub fn describe(e: &JointEvent) -> String {
    let name = e
        .name
        .as_deref()
        .map_or_else(|| format!("joint #{}", e.joint.index()), escape);
    let (what, unit) = match e.cause {
        BreakCause::Force => ("force", "N"),
        BreakCause::Torque => ("torque", "N m"),
    };
    let fate = if e.destroyed { "destroyed" } else { "disabled" };
    format!(
        "{name} broke: {what} {:.0} {unit} > {:.0} {unit} ({fate})",
        e.load, e.threshold
    )
}

impl Testbed {
    /// The recorded joint events, for the state dump.
    pub fn joint_log(&self) -> &JointLog {
        &self.lab.joint_log
    }

    /// The Joint events section: the recent events, newest first, in their world's colour.
    pub(super) fn joint_events_ui(&mut self, ui: &mut egui::Ui) {
        let log = &self.lab.joint_log;
        if log.is_empty() {
            ui.label("No joint has broken. Joints break above their break_force (N) or break_torque (N m).");
            return;
        }
        let comparing = self.comparing();
        egui::ScrollArea::vertical()
            .max_height(160.0)
            .id_salt("joint_events")
            .show(ui, |ui| {
                for (i, label, e) in log.events.iter().rev() {
                    let mut text = format!("step {}: {}", e.step, describe(e));
                    if comparing {
                        text = format!("{label} · {text}");
                    }
                    let mut rich = RichText::new(text).monospace();
                    if comparing {
                        rich = rich.color(color32(legend_color(*i)));
                    }
                    ui.label(rich);
                }
            });
        if ui.button("Clear").clicked() {
            self.lab.joint_log.clear();
        }
    }

    /// The picked joint: thresholds, what breaking does, load now, and enable or disable.
    pub(super) fn picked_joint_ui(&mut self, ui: &mut egui::Ui, handle: JointHandle) {
        let world = self.world();
        let Some(j) = world.joint(handle) else {
            return;
        };
        let inv_dt = world.joint_inv_dt();
        let threshold =
            |t: Option<f32>, unit: &str| t.map_or("none".to_owned(), |t| format!("{t} {unit}"));
        let force = j.reaction_force(inv_dt).length();
        let torque = j.reaction_torque(inv_dt).abs();
        let enabled = j.is_enabled();
        ui.label(format!(
            "break_force: {}   break_torque: {}   on_break: {:?}",
            threshold(j.break_force(), "N"),
            threshold(j.break_torque(), "N m"),
            j.on_break()
        ));
        ui.label(format!("load: {force:.1} N, {torque:.1} N m"));
        ui.horizontal(|ui| {
            if enabled {
                ui.label("enabled");
            } else {
                ui.label(RichText::new("broken (disabled)").color(color32(BROKEN_JOINT_COLOR)));
            }
            let text = if enabled { "Disable" } else { "Enable" };
            let r = ui.button(text);
            self.track(ui, "joint_enable", &r);
            if r.clicked() {
                self.input(Input::EnableJoint {
                    joint: handle,
                    enabled: !enabled,
                });
            }
        });
    }

    /// A ring flashing around each joint broken in the last `FLASH_STEPS` steps of the
    /// world shown, fading out.
    pub(super) fn draw_joint_flashes(&self, d: &mut MacroquadDraw) {
        for (i, session) in self.shown().sessions.iter().enumerate() {
            let world = &session.world;
            let now = world.step_count();
            for (w, _, e) in &self.lab.joint_log.events {
                if *w != i || e.step > now || now - e.step >= FLASH_STEPS {
                    continue;
                }
                let age = (now - e.step) as f32 / FLASH_STEPS as f32;
                let Some(p) = flash_point(world, e) else {
                    continue;
                };
                let c = Color {
                    a: 1.0 - age,
                    ..Color::rgb(1.0, 0.9, 0.3)
                };
                d.draw_circle(p, 0.15 + 0.6 * age, DrawKind::Color(c));
                d.draw_circle(p, 0.1 + 0.3 * age, DrawKind::Color(c));
            }
        }
    }
}

/// Where a broken joint is: its anchor on B, or (destroyed) between its bodies.
fn flash_point(world: &World, e: &JointEvent) -> Option<crate::physics::Vec2> {
    if let Some(j) = world.joint(e.joint) {
        return Some(j.anchor_b(world.body(j.body_b())?));
    }
    let (a, b) = (world.body(e.body_a)?, world.body(e.body_b)?);
    Some(0.5 * (a.center() + b.center()))
}

/// True when `pick` is a joint.
pub fn picked_joint(pick: Option<Pick>) -> Option<JointHandle> {
    match pick {
        Some(Pick::Joint(h)) => Some(h),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::Session;
    use crate::physics::joint::WeldJointDef;
    use crate::physics::{BodyDef, Geometry, JointDef, Polygon, ShapeDef, SolverSettings, Vec2};

    /// A 1 kg box hanging from a weld that breaks above 5 N (its weight is 10 N).
    fn hook() -> World {
        let mut world = World::new(SolverSettings::default());
        let top = world.create_body(&BodyDef::fixed(Vec2::ZERO)).unwrap();
        let b = world
            .create_body(&BodyDef::dynamic(Vec2::new(0.0, -1.0)))
            .unwrap();
        let square = Geometry::Polygon(Polygon::new_box(0.5, 0.5).unwrap());
        world.create_shape(b, &ShapeDef::new(square)).unwrap();
        let def = JointDef::new(top, b, WeldJointDef::new(Vec2::new(0.0, -1.0)))
            .break_force(5.0)
            .name("hook");
        world.create_joint(&def).unwrap();
        world
    }

    #[test]
    fn the_log_keeps_each_worlds_breaks_and_forgets_a_rewound_future() {
        let mut live = Comparison {
            sessions: vec![Session::new("a", hook()), Session::new("b", hook())],
        };
        let mut log = JointLog::default();
        for _ in 0..3 {
            live.step();
            log.record(&live);
        }
        assert_eq!(log.len(), 2, "one break per world, recorded once");
        let reports = log.reports(true);
        assert_eq!(reports[0].world.as_deref(), Some("1 a"));
        assert_eq!(reports[1].world.as_deref(), Some("2 b"));
        assert_eq!((reports[0].step, reports[0].cause), (1, "force"));
        assert!((reports[0].load - 10.0).abs() < 0.2, "{}", reports[0].load);
        let world = &live.sessions[0].world;
        let (joint, j) = world.joints().next().unwrap();
        let event = JointEvent {
            joint,
            body_a: j.body_a(),
            body_b: j.body_b(),
            name: Some("hook".into()),
            cause: BreakCause::Force,
            load: 10.0,
            threshold: 5.0,
            step: 1,
            destroyed: false,
        };
        assert_eq!(describe(&event), "hook broke: force 10 N > 5 N (disabled)");
        log.truncate_after(0);
        assert!(log.is_empty());
    }
}
