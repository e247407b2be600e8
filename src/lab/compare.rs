//! Compare: one scene in several worlds at once, each with its own solver settings,
//! stepping together. Inputs (grabs, drags, bombs) act on every world alike; settings go to
//! one world at a time.

use super::history::Replay;
use super::session::{Input, Session};
use crate::physics::{SolverSettings, World};

/// Most worlds compared at once.
pub const MAX_WORLDS: usize = 4;

/// Several sessions of one scene.
#[derive(Clone)]
pub struct Comparison {
    pub sessions: Vec<Session>,
}

impl Comparison {
    /// Copies of `world`, one per `(label, settings)` (at most `MAX_WORLDS`; invalid
    /// settings keep the world's own).
    pub fn new(world: &World, configs: &[(String, SolverSettings)]) -> Comparison {
        let sessions = configs
            .iter()
            .take(MAX_WORLDS)
            .map(|(label, settings)| {
                let mut copy = world.clone();
                let _ = copy.set_settings(*settings);
                Session::new(label.clone(), copy)
            })
            .collect();
        Comparison { sessions }
    }

    /// Apply an input to every world (settings to all of them too), except
    /// `Input::WorldSettings`, which goes to its one world.
    pub fn apply(&mut self, input: &Input) {
        if let Input::WorldSettings { world, .. } = *input {
            if let Some(s) = self.sessions.get_mut(world) {
                s.apply(input);
            }
            return;
        }
        for s in &mut self.sessions {
            s.apply(input);
        }
    }

    /// Step every world once.
    pub fn step(&mut self) {
        for s in &mut self.sessions {
            s.step();
        }
    }
}

impl Replay for Comparison {
    fn apply(&mut self, input: &Input) {
        Comparison::apply(self, input);
    }
    fn step(&mut self) {
        Comparison::step(self);
    }
    fn step_count(&self) -> u64 {
        self.sessions.first().map_or(0, |s| s.world.step_count())
    }
    fn approx_bytes(&self) -> usize {
        self.sessions.iter().map(Replay::approx_bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::fixtures;
    use crate::physics::{SolverKind, Vec2};

    fn stack() -> World {
        let mut world = fixtures::ground();
        for i in 0..8 {
            let p = Vec2::new(0.05 * i as f32, 0.5 + i as f32);
            fixtures::add_box(&mut world, p, 0.0, 0.5);
        }
        world
    }

    #[test]
    fn each_compared_world_gets_what_it_gets_alone() {
        let base = stack();
        let classic = SolverSettings {
            sleep: false,
            ..SolverSettings::default()
        };
        let configs = vec![
            ("classic".to_owned(), classic),
            (
                "no warm starting".to_owned(),
                SolverSettings {
                    warm_starting: false,
                    ..classic
                },
            ),
            (
                "soft step".to_owned(),
                SolverSettings {
                    solver: SolverKind::SoftStep,
                    substeps: 4,
                    ..classic
                },
            ),
        ];
        let mut comparison = Comparison::new(&base, &configs);
        let drag = [
            Input::Grab(Vec2::new(0.35, 7.5)),
            Input::Drag(Vec2::new(3.0, 9.0)),
        ];
        let mut alone: Vec<Session> = configs
            .iter()
            .map(|(label, s)| {
                let mut w = base.clone();
                w.set_settings(*s).unwrap();
                Session::new(label.clone(), w)
            })
            .collect();
        for step in 0..240 {
            if step == 30 {
                for input in &drag {
                    comparison.apply(input);
                    alone.iter_mut().for_each(|s| {
                        s.apply(input);
                    });
                }
            }
            comparison.step();
            alone.iter_mut().for_each(Session::step);
        }
        let hashes: Vec<u64> = comparison
            .sessions
            .iter()
            .map(|s| s.world.state_hash())
            .collect();
        for (s, a) in comparison.sessions.iter().zip(&alone) {
            assert_eq!(s.world.state_hash(), a.world.state_hash(), "{}", s.label);
        }
        assert!(
            hashes[0] != hashes[1] && hashes[0] != hashes[2],
            "the settings matter"
        );
        assert_eq!(comparison.step_count(), 240);
    }

    #[test]
    fn world_settings_reach_one_world() {
        let base = stack();
        let s = *base.settings();
        let mut comparison = Comparison::new(&base, &[("a".into(), s), ("b".into(), s)]);
        let off = SolverSettings {
            warm_starting: false,
            ..s
        };
        comparison.apply(&Input::WorldSettings {
            world: 1,
            settings: off,
        });
        comparison.apply(&Input::WorldSettings {
            world: 7,
            settings: off,
        });
        assert!(comparison.sessions[0].world.settings().warm_starting);
        assert!(!comparison.sessions[1].world.settings().warm_starting);
    }
}
