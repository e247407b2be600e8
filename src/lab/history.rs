//! Rewind: the last seconds of a run, rebuilt exactly on demand.
//!
//! Storing every step of a 5,000-body scene for 20 s would take gigabytes, so the history
//! keeps a keyframe (a full copy) every `interval` steps and the inputs in between. The state
//! at any recorded step is the keyframe before it, with the inputs replayed and the steps
//! re-run: stepping is deterministic, so the rebuilt state is bitwise the one that was shown.
//! The interval grows with the size of the world so that the keyframes fit the memory
//! budget; small scenes keep a keyframe every step.

use std::collections::VecDeque;

use super::session::{Input, Session};

/// What the history can record: cloneable, steppable, and changed only through inputs.
pub trait Replay: Clone {
    fn apply(&mut self, input: &Input);
    fn step(&mut self);
    /// Steps taken so far (the clock the history is indexed by).
    fn step_count(&self) -> u64;
    /// Rough bytes of one copy, to size the keyframe interval.
    fn approx_bytes(&self) -> usize;
}

impl Replay for Session {
    fn apply(&mut self, input: &Input) {
        Session::apply(self, input);
    }
    fn step(&mut self) {
        Session::step(self);
    }
    fn step_count(&self) -> u64 {
        self.world.step_count()
    }
    fn approx_bytes(&self) -> usize {
        // Measured on the benchmark scenes: ~1 kB a body, ~400 B a contact pair, ~300 B a
        // joint, including the broad phase and solver scratch.
        1000 * self.world.body_count()
            + 400 * self.world.contact_count()
            + 300 * self.world.joint_count()
            + 4096
    }
}

/// Memory the keyframes may use, bytes.
pub const KEYFRAME_BUDGET: usize = 512 << 20;

/// Recorded keyframes and inputs of the last `span` steps.
pub struct History<S: Replay> {
    keyframes: VecDeque<S>,
    /// Inputs with the step count at which they were applied (before that step ran).
    inputs: VecDeque<(u64, Input)>,
    interval: u64,
    span: u64,
}

impl<S: Replay> History<S> {
    /// A history of `span` steps starting at `start` (kept as the first keyframe).
    pub fn new(start: &S, span: u64) -> History<S> {
        let span = span.max(1);
        let per_copy = start.approx_bytes().max(1) as u64;
        let copies = (KEYFRAME_BUDGET as u64 / per_copy).max(2);
        let interval = span.div_ceil(copies).max(1);
        History {
            keyframes: VecDeque::from([start.clone()]),
            inputs: VecDeque::new(),
            interval,
            span,
        }
    }

    /// Steps between keyframes.
    pub fn interval(&self) -> u64 {
        self.interval
    }

    /// The oldest step that can be rebuilt.
    pub fn oldest(&self) -> u64 {
        self.keyframes.front().map_or(0, |k| k.step_count())
    }

    /// Record an input about to be applied to `state` (before its next step).
    pub fn record_input(&mut self, state: &S, input: Input) {
        self.inputs.push_back((state.step_count(), input));
    }

    /// Record `state` after a step: a keyframe every `interval` steps, and everything
    /// older than the span forgotten.
    pub fn record_step(&mut self, state: &S) {
        let now = state.step_count();
        if now.is_multiple_of(self.interval) {
            self.keyframes.push_back(state.clone());
        }
        let horizon = now.saturating_sub(self.span);
        // Keep the newest keyframe at or before the horizon: it rebuilds the steps after it.
        while self.keyframes.len() > 1 && self.keyframes[1].step_count() <= horizon {
            self.keyframes.pop_front();
        }
        let oldest = self.oldest();
        while self.inputs.front().is_some_and(|&(s, _)| s < oldest) {
            self.inputs.pop_front();
        }
    }

    /// The state at `step` as it was before the inputs recorded at that step, or `None`
    /// when `step` is older than the history or newer than `newest`.
    pub fn rebuild(&self, step: u64, newest: u64) -> Option<S> {
        if step < self.oldest() || step > newest {
            return None;
        }
        let start = self
            .keyframes
            .iter()
            .rev()
            .find(|k| k.step_count() <= step)?;
        self.replay(start.clone(), step, newest)
    }

    /// Continue `state`, a state of this history's timeline (a keyframe, or what `rebuild`
    /// or `replay` returned) no older than `oldest()`, to `step`: the recorded inputs are
    /// applied and the steps re-run. `None` when `step` is before `state` or after `newest`.
    /// Scrubbing forward from the state shown costs only the steps in between.
    pub fn replay(&self, mut state: S, step: u64, newest: u64) -> Option<S> {
        let from = state.step_count();
        if from < self.oldest() || step < from || step > newest {
            return None;
        }
        let mut inputs = self
            .inputs
            .iter()
            .filter(|(s, _)| *s >= from && *s < step)
            .peekable();
        while state.step_count() < step {
            let now = state.step_count();
            while let Some((_, input)) = inputs.next_if(|(s, _)| *s == now) {
                state.apply(input);
            }
            state.step();
        }
        Some(state)
    }

    /// Resume from `step`: everything recorded after it is forgotten (the inputs at `step`
    /// too: the user acts anew from the frame shown).
    pub fn truncate_after(&mut self, step: u64) {
        while self.keyframes.len() > 1
            && self.keyframes.back().is_some_and(|k| k.step_count() > step)
        {
            self.keyframes.pop_back();
        }
        while self.inputs.back().is_some_and(|&(s, _)| s >= step) {
            self.inputs.pop_back();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::fixtures;
    use crate::physics::{BodyDef, Geometry, Polygon, ShapeDef, Vec2};

    fn pile() -> Session {
        Session::new("pile", fixtures::pile(20, 5))
    }

    /// Run 300 steps with a drag and a bomb, recording; return the hash after every step.
    fn record(session: &mut Session, history: &mut History<Session>) -> Vec<u64> {
        let mut hashes = vec![session.world.state_hash()];
        for step in 0..300u64 {
            let input = match step {
                40 => Some(Input::Grab(Vec2::new(-1.4, 1.0))),
                41..=90 => Some(Input::Drag(Vec2::new(
                    -1.4 + 0.05 * (step - 40) as f32,
                    3.0,
                ))),
                91 => Some(Input::Release),
                150 => Some(Input::Bomb {
                    position: Vec2::new(-8.0, 6.0),
                    angle: 0.2,
                    velocity: Vec2::new(12.0, -6.0),
                    angular_velocity: 3.0,
                    half_size: 0.5,
                }),
                _ => None,
            };
            if let Some(input) = input {
                history.record_input(session, input.clone());
                session.apply(&input);
            }
            session.step();
            history.record_step(session);
            hashes.push(session.world.state_hash());
        }
        hashes
    }

    #[test]
    fn every_recorded_step_rebuilds_bitwise() {
        let mut session = pile();
        let mut history = History::new(&session, 1200);
        let hashes = record(&mut session, &mut history);
        for step in [0u64, 1, 39, 40, 41, 90, 92, 150, 151, 299, 300] {
            let rebuilt = history.rebuild(step, 300).expect("recorded");
            assert_eq!(rebuilt.world.step_count(), step);
            assert_eq!(
                rebuilt.world.state_hash(),
                hashes[step as usize],
                "step {step}"
            );
        }
        assert!(history.rebuild(301, 300).is_none());
        // Scrubbing forward from a rebuilt state: the same states, through the inputs.
        let at_30 = history.rebuild(30, 300).unwrap();
        let at_160 = history.replay(at_30, 160, 300).unwrap();
        assert_eq!(at_160.world.state_hash(), hashes[160]);
        assert!(history.replay(at_160, 100, 300).is_none(), "not backwards");
    }

    #[test]
    fn resuming_from_a_rewound_frame_replays_what_happened() {
        let mut session = pile();
        let mut history = History::new(&session, 1200);
        let hashes = record(&mut session, &mut history);
        // Rewind to step 100 (after the drag, before the bomb) and resume without input
        // until the bomb's step: the same states as the first time.
        let mut resumed = history.rebuild(100, 300).unwrap();
        history.truncate_after(100);
        for step in 100..150u64 {
            resumed.step();
            history.record_step(&resumed);
            assert_eq!(
                resumed.world.state_hash(),
                hashes[step as usize + 1],
                "step {}",
                step + 1
            );
        }
    }

    #[test]
    fn big_worlds_get_sparse_keyframes_and_old_steps_are_forgotten() {
        let session = pile();
        let history = History::new(&session, 1200);
        assert_eq!(history.interval(), 1, "a small scene keeps every step");
        let mut big = pile();
        for i in 0..3000 {
            let b = big
                .world
                .create_body(&BodyDef::dynamic(Vec2::new(i as f32 * 2.0, 50.0)))
                .unwrap();
            let square = Geometry::Polygon(Polygon::new_box(0.3, 0.3).unwrap());
            big.world.create_shape(b, &ShapeDef::new(square)).unwrap();
        }
        let history = History::new(&big, 1200);
        assert!(
            history.interval() > 1 && history.interval() < 30,
            "{}",
            history.interval()
        );

        let mut session = pile();
        let mut history = History::new(&session, 60);
        for _ in 0..200 {
            session.step();
            history.record_step(&session);
        }
        assert!(
            history.oldest() <= 140 && history.oldest() >= 130,
            "{}",
            history.oldest()
        );
        assert!(history.rebuild(100, 200).is_none());
        assert!(history.rebuild(150, 200).is_some());
    }
}
