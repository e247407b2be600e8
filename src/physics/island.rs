//! Islands, sleep and waking.
//!
//! A body is awake or belongs to a sleeping island. The awake bodies are kept as a sorted
//! list of slot indices (the solver's body order); each sleeping island keeps the slots of
//! its bodies, so that touching one body wakes them all at once.
//!
//! At the end of each step `update_sleep` links the awake non-static bodies that touch or
//! are joined (union-find over touching contacts and joints) and puts to sleep every island
//! whose bodies all stayed still for `time_to_sleep` seconds.

use std::collections::HashMap;

use super::body::{Body, BodyKind};
use super::contact::Contact;
use super::handle::Arena;
use super::joint::Joint;
use super::math::Vec2;
use super::settings::SolverSettings;
use super::BodyHandle;

/// Which bodies are awake and which sleep together.
#[derive(Clone, Debug, Default)]
pub(crate) struct Islands {
    /// Slot indices of awake, non-static bodies, ascending.
    pub(crate) awake: Vec<usize>,
    /// Sleeping islands by id: the slot indices of their bodies.
    pub(crate) sleeping: HashMap<u32, Vec<usize>>,
    pub(crate) next_island: u32,
    // Scratch of `update_sleep` (no allocation once warmed up).
    parent: Vec<u32>,
    min_sleep: Vec<f32>,
}

impl Islands {
    /// Add a slot to the awake list (kept sorted; no duplicates).
    pub(crate) fn insert_awake(&mut self, index: usize) {
        if let Err(pos) = self.awake.binary_search(&index) {
            self.awake.insert(pos, index);
        }
    }

    /// Wake a body and every body of its sleeping island.
    pub(crate) fn wake_body(&mut self, bodies: &mut Arena<Body>, handle: BodyHandle) {
        let Some(b) = bodies.get_mut(handle) else {
            return;
        };
        b.sleep_time = 0.0;
        if b.awake || b.kind == BodyKind::Static {
            return;
        }
        let island = b.island;
        match self.sleeping.remove(&island) {
            Some(members) => self.wake_members(bodies, &members),
            None => self.wake_members(bodies, &[handle.index()]),
        }
    }

    fn wake_members(&mut self, bodies: &mut Arena<Body>, members: &[usize]) {
        let mut added = false;
        for &i in members {
            let b = bodies.at_mut(i);
            if !b.awake {
                b.awake = true;
                b.sleep_time = 0.0;
                b.island = u32::MAX;
                self.awake.push(i);
                added = true;
            }
        }
        if added {
            self.awake.sort_unstable();
            self.awake.dedup();
        }
    }

    /// Wake every sleeping island and reset every sleep timer.
    pub(crate) fn wake_all(&mut self, bodies: &mut Arena<Body>) {
        let islands: Vec<Vec<usize>> = self.sleeping.drain().map(|(_, v)| v).collect();
        for members in islands {
            self.wake_members(bodies, &members);
        }
        for (_, b) in bodies.iter_mut() {
            b.sleep_time = 0.0;
        }
    }

    /// Put one awake body to sleep now, alone in a new island.
    pub(crate) fn sleep_body(&mut self, bodies: &mut Arena<Body>, index: usize) {
        let b = bodies.at_mut(index);
        if b.awake {
            b.awake = false;
            b.sleep_time = 0.0;
            b.linear_velocity = Vec2::ZERO;
            b.angular_velocity = 0.0;
            let id = self.next_island;
            self.next_island = self.next_island.wrapping_add(1);
            b.island = id;
            self.sleeping.insert(id, vec![index]);
            self.awake.retain(|&i| i != index);
        }
    }

    /// Forget a destroyed body's slot.
    pub(crate) fn remove(&mut self, index: usize) {
        self.awake.retain(|&i| i != index);
    }

    /// Exact restore: move a non-static body from wherever it was (awake, or the sleeping
    /// island `was_island` when `was_awake` is false) to the saved sleep state.
    pub(crate) fn restore(
        &mut self,
        bodies: &mut Arena<Body>,
        index: usize,
        was_awake: bool,
        awake: bool,
        island: Option<u32>,
    ) {
        // Leave whatever sleeping island the body was in, then join the saved one.
        if !was_awake {
            let island = bodies.at(index).island;
            if let Some(members) = self.sleeping.get_mut(&island) {
                members.retain(|&i| i != index);
                if members.is_empty() {
                    self.sleeping.remove(&island);
                }
            }
        }
        let b = bodies.at_mut(index);
        if awake {
            b.awake = true;
            b.island = u32::MAX;
            self.insert_awake(index);
        } else {
            let id = island.unwrap_or(self.next_island);
            b.awake = false;
            b.island = id;
            self.awake.retain(|&i| i != index);
            self.sleeping.entry(id).or_default().push(index);
            self.next_island = self.next_island.max(id.wrapping_add(1));
        }
    }

    /// Islands of still bodies fall asleep together (union-find over touching contacts and
    /// joints between awake non-static bodies).
    ///
    /// `solver_index`: the step's solver index of each body slot (0 when not awake), as
    /// the step's solver bodies were built.
    pub(crate) fn update_sleep(
        &mut self,
        bodies: &mut Arena<Body>,
        (contacts, joints): (&[Contact], &Arena<Joint>),
        solver_index: &[u32],
        settings: &SolverSettings,
        dt: f32,
    ) {
        if !settings.sleep {
            return;
        }
        self.update_sleep_timers(bodies, settings, dt);
        self.link_islands(bodies, contacts, joints, solver_index);
        let n = self.awake.len();
        self.min_sleep.clear();
        self.min_sleep.resize(n, f32::MAX);
        for k in 0..n {
            let root = find(&mut self.parent, k as u32) as usize;
            let t = bodies.at(self.awake[k]).sleep_time;
            self.min_sleep[root] = self.min_sleep[root].min(t);
        }
        let time_to_sleep = settings.time_to_sleep;
        let mut island_of_root: HashMap<u32, u32> = HashMap::new();
        let mut asleep_any = false;
        for k in 0..n {
            let root = find(&mut self.parent, k as u32);
            if self.min_sleep[root as usize] < time_to_sleep {
                continue;
            }
            let id = *island_of_root.entry(root).or_insert_with(|| {
                let id = self.next_island;
                self.next_island = self.next_island.wrapping_add(1);
                id
            });
            let index = self.awake[k];
            let b = bodies.at_mut(index);
            b.awake = false;
            b.island = id;
            b.linear_velocity = Vec2::ZERO;
            b.angular_velocity = 0.0;
            self.sleeping.entry(id).or_default().push(index);
            asleep_any = true;
        }
        if asleep_any {
            self.awake.retain(|&i| bodies.at(i).awake);
        }
    }

    /// Count the seconds each awake body has been still.
    fn update_sleep_timers(&self, bodies: &mut Arena<Body>, settings: &SolverSettings, dt: f32) {
        let lin_tol2 = settings.linear_sleep_tolerance * settings.linear_sleep_tolerance;
        let ang_tol = settings.angular_sleep_tolerance;
        for &i in &self.awake {
            let b = bodies.at_mut(i);
            if !b.enable_sleep
                || b.linear_velocity.length_squared() > lin_tol2
                || b.angular_velocity.abs() > ang_tol
            {
                b.sleep_time = 0.0;
            } else {
                b.sleep_time += dt;
            }
        }
    }

    /// Union-find over local indices (the solver index - 1, from `solver_index`: the
    /// step's solver index of each body slot, 0 when not awake): touching contacts between
    /// two dynamic bodies and joints between two non-static bodies link them. A moving
    /// kinematic body keeps what it touches awake.
    fn link_islands(
        &mut self,
        bodies: &mut Arena<Body>,
        contacts: &[Contact],
        joints: &Arena<Joint>,
        solver_index: &[u32],
    ) {
        let local = |h: BodyHandle| solver_index[h.index()] as usize - 1;
        let n = self.awake.len();
        self.parent.clear();
        self.parent.extend(0..n as u32);
        for c in contacts {
            if c.manifold.count == 0 {
                continue;
            }
            let body_a = bodies.at(c.body_a.index());
            let body_b = bodies.at(c.body_b.index());
            if !(body_a.awake && body_b.awake) {
                continue;
            }
            match (body_a.kind, body_b.kind) {
                (BodyKind::Dynamic, BodyKind::Dynamic) => {
                    link(&mut self.parent, local(c.body_a), local(c.body_b))
                }
                (BodyKind::Kinematic, BodyKind::Dynamic) if body_a.sleep_time == 0.0 => {
                    bodies.at_mut(c.body_b.index()).sleep_time = 0.0
                }
                (BodyKind::Dynamic, BodyKind::Kinematic) if body_b.sleep_time == 0.0 => {
                    bodies.at_mut(c.body_a.index()).sleep_time = 0.0
                }
                _ => {}
            }
        }
        for (_, j) in joints.iter() {
            if !j.is_enabled() {
                continue;
            }
            let body_a = bodies.at(j.body_a.index());
            let body_b = bodies.at(j.body_b.index());
            if body_a.awake
                && body_b.awake
                && body_a.kind != BodyKind::Static
                && body_b.kind != BodyKind::Static
            {
                link(&mut self.parent, local(j.body_a), local(j.body_b));
            }
        }
    }
}

/// The root of `x`, halving the path on the way.
fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let up = parent[parent[x as usize] as usize];
        parent[x as usize] = up;
        x = up;
    }
    x
}

/// Join the sets of `a` and `b`; the smaller root becomes the root.
fn link(parent: &mut [u32], a: usize, b: usize) {
    let ra = find(parent, a as u32);
    let rb = find(parent, b as u32);
    if ra != rb {
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        parent[hi as usize] = lo;
    }
}
