//! Rewind in the window: the last `REWIND_SECONDS` of the run recorded as a
//! `lab::History<Comparison>` (keyframes plus inputs), a timeline to scrub while paused, and
//! resuming from the frame shown.
//!
//! The live state (the newest step) stays with the `Testbed`; scrubbing builds the state
//! shown at an older step on demand and keeps it: scrubbing on forward steps on from it
//! (only the steps in between), scrubbing back rebuilds from the keyframe before. Resuming
//! (run, step, or any input while a past frame is shown) makes the shown state the live one
//! and forgets the recorded future.

use crate::lab::{Comparison, History, Input, Replay};

/// Seconds of the run kept for rewinding.
pub const REWIND_SECONDS: f32 = 20.0;

/// The recorded run and the state shown while scrubbing.
pub struct Rewind {
    history: History<Comparison>,
    /// Step count of the live state.
    newest: u64,
    /// The state shown when it is not the live one (an older step).
    view: Option<Comparison>,
}

impl Rewind {
    /// A recording starting at `state`, `REWIND_SECONDS` long at its step rate.
    pub fn new(state: &Comparison) -> Rewind {
        let hz = state
            .sessions
            .iter()
            .map(|s| s.world.settings().step_hz)
            .fold(1.0_f32, f32::max);
        let span = (REWIND_SECONDS * hz).ceil().max(1.0) as u64;
        Rewind {
            history: History::new(state, span),
            newest: state.step_count(),
            view: None,
        }
    }

    /// The oldest step that can be shown.
    pub fn oldest(&self) -> u64 {
        self.history.oldest()
    }

    /// The live step.
    pub fn newest(&self) -> u64 {
        self.newest
    }

    /// The step shown.
    pub fn shown_step(&self) -> u64 {
        self.view.as_ref().map_or(self.newest, Replay::step_count)
    }

    /// The state shown when it is an older step than the live one.
    pub fn view(&self) -> Option<&Comparison> {
        self.view.as_ref()
    }

    pub fn view_mut(&mut self) -> Option<&mut Comparison> {
        self.view.as_mut()
    }

    /// Steps between keyframes (what a scrub backwards may cost).
    pub fn interval(&self) -> u64 {
        self.history.interval()
    }

    /// Record an input about to be applied to the live `state`.
    pub fn record_input(&mut self, state: &Comparison, input: Input) {
        self.history.record_input(state, input);
    }

    /// Record the live `state` after a step.
    pub fn record_step(&mut self, state: &Comparison) {
        self.history.record_step(state);
        self.newest = state.step_count();
    }

    /// Show `step` (clamped to the recorded range): the live state for the newest step, else
    /// the state rebuilt exactly. With `residuals`, the shown worlds record their solver
    /// residuals, so the step shown has its convergence plot.
    pub fn scrub(&mut self, step: u64, residuals: bool) {
        let step = step.clamp(self.oldest(), self.newest);
        if step == self.newest {
            self.view = None;
            return;
        }
        if self.shown_step() == step && self.view.is_some() {
            return;
        }
        // Forward from the state shown when it is on the way; else from the keyframe before
        // the step before (so that the last step is re-run with residuals recorded).
        let start = match self.view.take() {
            Some(v) if v.step_count() <= step && v.step_count() >= self.oldest() => Some(v),
            _ => self
                .history
                .rebuild(step.saturating_sub(1).max(self.oldest()), self.newest),
        };
        let Some(mut start) = start else {
            return;
        };
        for s in &mut start.sessions {
            s.world.set_record_residuals(residuals);
        }
        self.view = self.history.replay(start, step, self.newest);
    }

    /// Leave the frame shown as the new present: returns its state (to become the live one)
    /// and forgets everything recorded after it. `None` when the live state is shown.
    pub fn resume(&mut self) -> Option<Comparison> {
        let state = self.view.take()?;
        let step = state.step_count();
        self.history.truncate_after(step);
        self.newest = step;
        Some(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::Session;
    use crate::physics::Vec2;

    fn pile() -> Comparison {
        Comparison {
            sessions: vec![Session::new("pile", crate::lab::fixtures::pile(12, 4))],
        }
    }

    #[test]
    fn scrubbing_back_and_forth_shows_the_recorded_steps_and_resume_branches() {
        let mut live = pile();
        let mut rewind = Rewind::new(&live);
        let mut hashes = vec![live.sessions[0].world.state_hash()];
        for step in 0..120u64 {
            if step == 10 {
                let bomb = Input::Bomb {
                    position: Vec2::new(-6.0, 5.0),
                    angle: 0.4,
                    velocity: Vec2::new(10.0, -3.0),
                    angular_velocity: 2.0,
                    half_size: 0.5,
                };
                rewind.record_input(&live, bomb.clone());
                live.apply(&bomb);
            }
            live.step();
            rewind.record_step(&live);
            hashes.push(live.sessions[0].world.state_hash());
        }
        assert_eq!(rewind.shown_step(), 120);
        for step in [50u64, 51, 80, 20, 5, 119, 0] {
            rewind.scrub(step, true);
            let shown = rewind.view().unwrap();
            assert_eq!(shown.step_count(), step);
            assert_eq!(
                shown.sessions[0].world.state_hash(),
                hashes[step as usize],
                "step {step}"
            );
            if step > 0 {
                assert!(!shown.sessions[0].world.iteration_residuals().is_empty());
            }
        }
        rewind.scrub(500, false);
        assert!(rewind.view().is_none(), "past the end shows the live state");
        assert!(rewind.resume().is_none());
        rewind.scrub(60, false);
        let mut resumed = rewind.resume().unwrap();
        assert_eq!(rewind.newest(), 60);
        for step in 60..100u64 {
            resumed.step();
            rewind.record_step(&resumed);
            assert_eq!(
                resumed.sessions[0].world.state_hash(),
                hashes[step as usize + 1]
            );
        }
    }
}
