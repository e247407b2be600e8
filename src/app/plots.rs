//! Live plots of the last seconds: step time, kinetic energy and maximum penetration of every
//! world (one line each, in its legend colour when comparing), sampled at most `SAMPLE_HZ`
//! times per wall-clock second and drawn with egui_plot.

use std::collections::VecDeque;

use egui_macroquad::egui;
use egui_plot::{Line, Plot, PlotPoints};

use super::compare::legend_color;
use super::probe::color32;

/// Seconds of history kept and shown.
pub const WINDOW_SECONDS: f64 = 10.0;
/// Samples per second at most (a fast frame loop does not flood the plots).
pub const SAMPLE_HZ: f64 = 30.0;

/// One sample: wall-clock seconds since the history started, and the values of each world:
/// step time (ms), kinetic energy (J), maximum penetration (m).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub t: f64,
    pub worlds: Vec<[f32; 3]>,
}

/// What a plot shows of a world's sample.
pub const STEP_MS: usize = 0;
pub const KINETIC_ENERGY: usize = 1;
pub const MAX_PENETRATION: usize = 2;

/// The last `WINDOW_SECONDS` of samples.
#[derive(Clone, Debug, Default)]
pub struct History {
    samples: VecDeque<Sample>,
    /// Wall-clock seconds since the history started.
    now: f64,
}

impl History {
    /// Advance the clock by `dt` wall-clock seconds and record each world's values (step ms,
    /// kinetic energy, max penetration) when the last sample is at least `1 / SAMPLE_HZ`
    /// old. Samples older than the window are dropped.
    pub fn record(&mut self, dt: f64, worlds: &[[f32; 3]]) {
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
                worlds: worlds.to_vec(),
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

    /// (seconds before now, value) points of value `k` of world `world`.
    pub fn points(&self, world: usize, k: usize) -> Vec<[f64; 2]> {
        self.samples
            .iter()
            .filter_map(|s| Some([s.t - self.now, s.worlds.get(world)?[k] as f64]))
            .collect()
    }

    /// The three plots, one under the other, one line per world (`labels`).
    pub fn ui(&self, ui: &mut egui::Ui, labels: &[String]) {
        self.plot(ui, "step_time_plot", "step time (ms)", STEP_MS, 1.0, labels);
        self.plot(
            ui,
            "kinetic_energy_plot",
            "kinetic energy (J)",
            KINETIC_ENERGY,
            1.0,
            labels,
        );
        self.plot(
            ui,
            "penetration_plot",
            "max penetration (mm)",
            MAX_PENETRATION,
            1000.0,
            labels,
        );
    }

    fn plot(
        &self,
        ui: &mut egui::Ui,
        id: &str,
        label: &str,
        k: usize,
        scale: f64,
        labels: &[String],
    ) {
        let n = labels.len().max(1);
        let lines: Vec<Vec<[f64; 2]>> = (0..n)
            .map(|w| {
                self.points(w, k)
                    .into_iter()
                    .map(|[t, v]| [t, scale * v])
                    .collect()
            })
            .collect();
        ui.horizontal_wrapped(|ui| {
            ui.spacing_mut().item_spacing.x = 6.0;
            ui.label(format!("{label}:"));
            for (w, p) in lines.iter().enumerate() {
                // `+ 0.0` prints -0 as 0.
                let text =
                    egui::RichText::new(format!("{:.3}", p.last().map_or(0.0, |p| p[1]) + 0.0));
                ui.label(if n > 1 {
                    text.color(color32(legend_color(w)))
                } else {
                    text
                });
            }
        });
        let mut plot = Plot::new(id)
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
            .include_y(0.0);
        if n > 1 {
            plot = plot.height(80.0);
        }
        plot.show(ui, |plot| {
            for (w, points) in lines.into_iter().enumerate() {
                let name = if n > 1 {
                    labels[w].clone()
                } else {
                    label.to_owned()
                };
                let mut line = Line::new(name, PlotPoints::from(points));
                if n > 1 {
                    line = line.color(color32(legend_color(w)));
                }
                plot.line(line);
            }
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
            h.record(0.001, &[[i as f32, 1.0, 0.0], [0.0, 2.0, 0.0]]);
        }
        let n = h.len() as f64;
        let expected = WINDOW_SECONDS * SAMPLE_HZ;
        assert!(n > 0.9 * expected && n < 1.1 * expected + 2.0, "{n}");
        let points = h.points(0, STEP_MS);
        assert_eq!(h.points(1, KINETIC_ENERGY).last().unwrap()[1], 2.0);
        assert!(h.points(2, STEP_MS).is_empty(), "no third world");
        assert!(points.first().unwrap()[0] >= -WINDOW_SECONDS);
        assert!(points.last().unwrap()[0].abs() < 1.0 / SAMPLE_HZ);
        assert!(points.windows(2).all(|w| w[0][0] < w[1][0]));
        h.clear();
        assert!(h.is_empty());
        h.record(f64::NAN, &[[1.0, 1.0, 1.0]]);
        assert_eq!(h.len(), 1);
    }
}
