//! Live plots of the last seconds: step time, kinetic energy and maximum penetration,
//! sampled at most `SAMPLE_HZ` times per wall-clock second and drawn with egui_plot.

use std::collections::VecDeque;

use egui_macroquad::egui;
use egui_plot::{Line, Plot, PlotPoints};

/// Seconds of history kept and shown.
pub const WINDOW_SECONDS: f64 = 10.0;
/// Samples per second at most (a fast frame loop does not flood the plots).
pub const SAMPLE_HZ: f64 = 30.0;

/// One sample: wall-clock seconds since the history started, and the values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub t: f64,
    pub step_ms: f32,
    pub kinetic_energy: f32,
    pub max_penetration: f32,
}

/// The last `WINDOW_SECONDS` of samples.
#[derive(Clone, Debug, Default)]
pub struct History {
    samples: VecDeque<Sample>,
    /// Wall-clock seconds since the history started.
    now: f64,
}

impl History {
    /// Advance the clock by `dt` wall-clock seconds and record `sample` values when the last
    /// sample is at least `1 / SAMPLE_HZ` old. Samples older than the window are dropped.
    pub fn record(&mut self, dt: f64, step_ms: f32, kinetic_energy: f32, max_penetration: f32) {
        if dt.is_finite() && dt > 0.0 {
            self.now += dt;
        }
        let due = self
            .samples
            .back()
            .is_none_or(|s| self.now - s.t >= 1.0 / SAMPLE_HZ);
        if due {
            self.samples.push_back(Sample {
                t: self.now,
                step_ms,
                kinetic_energy,
                max_penetration,
            });
        }
        while self
            .samples
            .front()
            .is_some_and(|s| self.now - s.t > WINDOW_SECONDS)
        {
            self.samples.pop_front();
        }
    }

    pub fn clear(&mut self) {
        self.samples.clear();
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// (seconds before now, value) points of one quantity.
    pub fn points(&self, value: impl Fn(&Sample) -> f32) -> Vec<[f64; 2]> {
        self.samples
            .iter()
            .map(|s| [s.t - self.now, value(s) as f64])
            .collect()
    }

    /// The three plots, one under the other.
    pub fn ui(&self, ui: &mut egui::Ui) {
        self.plot(ui, "step_time_plot", "step time (ms)", |s| s.step_ms);
        self.plot(ui, "kinetic_energy_plot", "kinetic energy (J)", |s| {
            s.kinetic_energy
        });
        self.plot(ui, "penetration_plot", "max penetration (mm)", |s| {
            1000.0 * s.max_penetration
        });
    }

    fn plot(&self, ui: &mut egui::Ui, id: &str, label: &str, value: impl Fn(&Sample) -> f32) {
        let points = self.points(value);
        let last = points.last().map_or(0.0, |p| p[1]);
        ui.label(format!("{label}: {last:.3}"));
        Plot::new(id)
            .height(64.0)
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .allow_double_click_reset(false)
            .show_x(false)
            .show_y(false)
            .include_x(-WINDOW_SECONDS)
            .include_x(0.0)
            .include_y(0.0)
            .show(ui, |plot| {
                plot.line(Line::new(label, PlotPoints::from(points)));
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_keeps_the_window_and_limits_the_rate() {
        let mut h = History::default();
        // 1000 frames per second for 20 s: about SAMPLE_HZ samples per second survive, and
        // only the last WINDOW_SECONDS.
        for i in 0..20_000 {
            h.record(0.001, i as f32, 1.0, 0.0);
        }
        let n = h.len() as f64;
        let expected = WINDOW_SECONDS * SAMPLE_HZ;
        assert!(n > 0.9 * expected && n < 1.1 * expected + 2.0, "{n}");
        let points = h.points(|s| s.step_ms);
        assert!(points.first().unwrap()[0] >= -WINDOW_SECONDS);
        assert!(points.last().unwrap()[0].abs() < 1.0 / SAMPLE_HZ);
        assert!(points.windows(2).all(|w| w[0][0] < w[1][0]));
        h.clear();
        assert!(h.is_empty());
        h.record(f64::NAN, 1.0, 1.0, 1.0);
        assert_eq!(h.len(), 1);
    }
}
