//! Constraint graph colouring (Box2D v3's `constraint_graph.c`), rebuilt every step the
//! constraints' body pairs change (`ConstraintGraph::color_pairs` keeps it while they do
//! not: a pile at rest, a grid of joints).
//!
//! Bodies are vertices, constraints are edges. A colour is a set of constraints no two of
//! which share a moving body, so the constraints of one colour can be solved in any order,
//! or four at a time in SIMD lanes (`contact_simd.rs`), with the same result as one after
//! the other: no lane reads a velocity another lane writes.
//!
//! Layout:
//! - `COLOR_COUNT` colours; each body keeps the set of colours its constraints took, as the
//!   bits of one word (Box2D keeps a bitset over bodies per colour; one word per body finds
//!   the free colour of a pair with one OR and one bit scan instead of a test per colour).
//! - A constraint goes to the first colour neither of its bodies has taken (greedy
//!   first fit, in constraint order, so the colouring is deterministic). Bodies that cannot
//!   move (`fixed`: index 0, the shared static body, and kinematic bodies, whose inverse
//!   masses are zero) take no bit: a constraint never changes their velocity, so any number
//!   of lanes may read them, and writing back the unchanged velocity is harmless.
//! - A constraint that fits no colour (a body touching very many others) goes to the
//!   overflow list, solved one at a time by the scalar solver before the colours.
//!
//! Solving colour 0, then 1, ... is still Gauss-Seidel, only in a different order than the
//! constraint array's: every constraint sees the impulses of all constraints solved before
//! it.

/// Colours before overflow (Box2D v3 uses 24). A pyramid needs about 6.
pub const COLOR_COUNT: usize = 24;

/// Colours open to constraints between two moving bodies; the last four are kept for
/// constraints against fixed bodies (Box2D v3's `B2_DYNAMIC_COLOR_COUNT`).
pub const DYNAMIC_COLOR_COUNT: usize = COLOR_COUNT - 4;

// The colours of a body fit one `u32`.
const _: () = assert!(COLOR_COUNT <= u32::BITS as usize);

/// Colours 1 to `COLOR_COUNT - 1`, as bits: where a constraint against a fixed body may go.
const FIXED_COLORS: u32 = ((1 << COLOR_COUNT) - 1) & !1;

/// Colours 0 to `DYNAMIC_COLOR_COUNT - 1`, as bits: where a constraint between two moving
/// bodies may go.
const DYNAMIC_COLORS: u32 = (1 << DYNAMIC_COLOR_COUNT) - 1;

/// The colouring of one step. Buffers are reused from step to step.
#[derive(Clone, Debug, Default)]
pub struct ConstraintGraph {
    /// Per solver body, the colours its constraints took so far, as bits (bit `c`: colour
    /// `c`); fixed bodies keep 0.
    body_colors: Vec<u32>,
    /// Per colour: constraint indices, ascending.
    pub colors: Vec<Vec<u32>>,
    /// Constraints that fit no colour, ascending.
    pub overflow: Vec<u32>,
    /// What the colours above were computed from, when `color_pairs` computed them.
    last: Option<ColoredFrom>,
    /// Scratch of `color_pairs`: this call's fixed bodies.
    fixed_now: Vec<bool>,
}

impl ConstraintGraph {
    /// Colour the constraints given as `(index_a, index_b)` solver body pairs, in order.
    /// `fixed(i)` says whether body `i` can never move (takes no colour bit).
    pub fn color(
        &mut self,
        body_count: usize,
        pairs: impl Iterator<Item = (usize, usize)>,
        fixed: impl Fn(usize) -> bool,
    ) {
        self.last = None;
        self.body_colors.clear();
        self.body_colors.resize(body_count, 0);
        self.colors.resize_with(COLOR_COUNT, Vec::new);
        for list in &mut self.colors {
            list.clear();
        }
        self.overflow.clear();

        for (k, (a, b)) in pairs.enumerate() {
            let fixed_a = fixed(a);
            let fixed_b = fixed(b);
            // The colours taken by the moving bodies of the pair.
            let taken_by = |i: usize, is_fixed: bool| {
                if is_fixed {
                    0
                } else {
                    self.body_colors[i]
                }
            };
            let taken = taken_by(a, fixed_a) | taken_by(b, fixed_b);
            // Box2D v3's priority: constraints between two moving bodies take the first free
            // colour among the first `DYNAMIC_COLOR_COUNT`; a constraint against a fixed body
            // takes the last free colour, searching down to colour 1. So the supports are
            // solved after the loads they carry in every Gauss-Seidel pass and have the last
            // word: a light body under a heavy one is not pushed through its support.
            let color = if fixed_a || fixed_b {
                let free = FIXED_COLORS & !taken;
                (free != 0).then(|| (u32::BITS - 1 - free.leading_zeros()) as usize)
            } else {
                let free = DYNAMIC_COLORS & !taken;
                (free != 0).then(|| free.trailing_zeros() as usize)
            };
            match color {
                Some(c) => {
                    if !fixed_a {
                        self.body_colors[a] |= 1 << c;
                    }
                    if !fixed_b {
                        self.body_colors[b] |= 1 << c;
                    }
                    self.colors[c].push(k as u32);
                }
                None => self.overflow.push(k as u32),
            }
        }
    }
}

/// The input of a colouring (`ConstraintGraph::color_pairs`).
#[derive(Clone, Debug, Default)]
struct ColoredFrom {
    /// A copy of the pairs, when the caller does not keep them (`same_pairs` = `None`).
    pairs: Option<Vec<(u32, u32)>>,
    /// Per solver body, whether it was fixed.
    fixed: Vec<bool>,
}

impl ConstraintGraph {
    /// As `color`, for `body_count` solver bodies and the pairs as a slice; when the pairs
    /// and the fixed bodies are those the last call coloured, the colours are kept: the
    /// rule would give them again (a pile at rest keeps its touching contacts, in the same
    /// order, from step to step, and its colouring was a tenth of its prepare). Returns
    /// whether they were kept.
    ///
    /// `same_pairs`: whether `pairs` are the last call's, when the caller knows (it wrote
    /// them over the last call's and compared as it wrote: `ContactSolver::gather_active`);
    /// `None` compares them here, with a copy of the pairs kept for the next call.
    pub fn color_pairs(
        &mut self,
        body_count: usize,
        (pairs, same_pairs): (&[(u32, u32)], Option<bool>),
        fixed: impl Fn(usize) -> bool,
    ) -> bool {
        let mut fixed_now = std::mem::take(&mut self.fixed_now);
        fixed_now.clear();
        fixed_now.extend((0..body_count).map(fixed));
        if let Some(last) = &self.last {
            let same = match same_pairs {
                Some(same) => same,
                None => last.pairs.as_deref() == Some(pairs),
            };
            if same && last.fixed == fixed_now {
                self.fixed_now = fixed_now;
                return true;
            }
        }
        let mut last = self.last.take().unwrap_or_default();
        self.color(
            body_count,
            pairs.iter().map(|&(a, b)| (a as usize, b as usize)),
            |i| fixed_now[i],
        );
        match same_pairs {
            None => {
                let copy = last.pairs.get_or_insert_with(Vec::new);
                copy.clear();
                copy.extend_from_slice(pairs);
            }
            // The caller keeps the pairs (no copy of a large list each time it changes).
            Some(_) => last.pairs = None,
        }
        self.fixed_now = std::mem::replace(&mut last.fixed, fixed_now);
        self.last = Some(last);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_colour_shares_a_moving_body_and_fixed_bodies_are_shared() {
        // A chain 1-2-3-4 and everything touching the static body 0.
        let pairs = [(1, 2), (2, 3), (3, 4), (0, 1), (0, 2), (0, 3), (0, 4)];
        let mut graph = ConstraintGraph::default();
        graph.color(5, pairs.iter().copied(), |i| i == 0);
        assert!(graph.overflow.is_empty());
        for list in &graph.colors {
            let mut seen = Vec::new();
            for &k in list {
                let (a, b) = pairs[k as usize];
                for body in [a, b] {
                    if body != 0 {
                        assert!(!seen.contains(&body), "body {body} twice in a colour");
                        seen.push(body);
                    }
                }
            }
        }
        assert_eq!(graph.colors[0], vec![0, 2]);
        assert_eq!(graph.colors[1], vec![1]);
        assert_eq!(graph.colors[COLOR_COUNT - 1], vec![3, 4, 5, 6]);
    }

    /// Regression (high mass ratio 3): a light triangle under a 400 kg box was pushed
    /// through the ground and knocked over because its ground contact took colour 0 and was
    /// solved before the box-triangle contact in every pass. Box2D v3 colours constraints
    /// against fixed bodies from the last colour down, so the support has the last word.
    #[test]
    fn constraints_on_fixed_bodies_are_solved_after_the_loads_they_carry() {
        // Body 1 carries body 2 and stands on the static body 0; listed support first.
        let pairs = [(0, 1), (1, 2)];
        let mut graph = ConstraintGraph::default();
        graph.color(3, pairs.iter().copied(), |i| i == 0);
        let colour_of = |k: u32| graph.colors.iter().position(|c| c.contains(&k)).unwrap();
        assert_eq!(colour_of(1), 0, "the load in the first colour");
        assert_eq!(
            colour_of(0),
            COLOR_COUNT - 1,
            "the support in the last colour"
        );
    }

    #[test]
    fn a_body_touching_too_many_overflows() {
        let pairs: Vec<(usize, usize)> = (0..COLOR_COUNT + 3).map(|k| (1, k + 2)).collect();
        let mut graph = ConstraintGraph::default();
        graph.color(COLOR_COUNT + 5, pairs.iter().copied(), |i| i == 0);
        // Moving pairs use the first DYNAMIC_COLOR_COUNT colours only.
        let expected: Vec<u32> = (DYNAMIC_COLOR_COUNT as u32..COLOR_COUNT as u32 + 3).collect();
        assert_eq!(graph.overflow, expected);
    }

    /// The colouring as the rule states it, one colour tested at a time: moving pairs take
    /// the first free colour below `DYNAMIC_COLOR_COUNT`, pairs with a fixed body the last
    /// free one above 0.
    fn reference(pairs: &[(usize, usize)], fixed: impl Fn(usize) -> bool) -> Vec<Option<usize>> {
        let mut used: Vec<Vec<usize>> = vec![Vec::new(); COLOR_COUNT];
        pairs
            .iter()
            .map(|&(a, b)| {
                let free = |c: usize| {
                    (fixed(a) || !used[c].contains(&a)) && (fixed(b) || !used[c].contains(&b))
                };
                let color = if fixed(a) || fixed(b) {
                    (1..COLOR_COUNT).rev().find(|&c| free(c))
                } else {
                    (0..DYNAMIC_COLOR_COUNT).find(|&c| free(c))
                };
                if let Some(c) = color {
                    used[c].extend([a, b].into_iter().filter(|&i| !fixed(i)));
                }
                color
            })
            .collect()
    }

    /// Random graphs, dense enough to overflow: every constraint gets the colour of the
    /// rule above (or the overflow), in the same order.
    #[test]
    fn colours_follow_the_first_fit_rule() {
        let mut rng = crate::physics::solver::test_rng::Rng(7);
        for trial in 0..50 {
            let bodies = 3 + trial % 40;
            let fixed = |i: usize| i == 0 || i % 11 == 5;
            let pairs: Vec<(usize, usize)> = (0..(bodies * 6))
                .map(|_| {
                    let a = rng.below(bodies);
                    let b = rng.below(bodies);
                    (a, b)
                })
                .filter(|&(a, b)| a != b)
                .collect();
            let mut graph = ConstraintGraph::default();
            graph.color(bodies, pairs.iter().copied(), fixed);
            let mut got = vec![None; pairs.len()];
            for (c, list) in graph.colors.iter().enumerate() {
                for &k in list {
                    got[k as usize] = Some(c);
                }
            }
            assert_eq!(got, reference(&pairs, fixed), "trial {trial}");
            let overflow: Vec<u32> = (0..pairs.len() as u32)
                .filter(|&k| got[k as usize].is_none())
                .collect();
            assert_eq!(graph.overflow, overflow, "trial {trial}");
        }
    }

    /// `color_pairs` keeps the last colours only for the same pairs and fixed bodies: a
    /// sequence of calls (repeats, one pair moved to other bodies, the same pairs with a
    /// body fixed, fewer pairs) gives, at every call, the colours `color` gives from
    /// scratch.
    #[test]
    fn kept_colours_are_those_a_fresh_colouring_gives() {
        let mut rng = crate::physics::solver::test_rng::Rng(11);
        let bodies = 30;
        let base: Vec<(u32, u32)> = (0..120)
            .map(|_| (rng.below(bodies) as u32, rng.below(bodies) as u32))
            .filter(|&(a, b)| a != b)
            .collect();
        let mut changed = base.clone();
        changed[5] = (changed[5].0 % 28 + 1, changed[5].0 % 28 + 2);
        assert_ne!(changed, base);
        let fixed0: fn(usize) -> bool = |i| i == 0;
        let fixed7: fn(usize) -> bool = |i| i == 0 || i == 7;
        let calls = [
            (&base[..], fixed0),
            (&base, fixed0),
            (&changed, fixed0),
            (&base, fixed0),
            (&base, fixed7),
            (&base, fixed0),
            (&base[..40], fixed0),
        ];
        // `kept` compares the pairs itself; `told` is told whether they are the last
        // call's, as the contact solver's gather tells it.
        let (mut kept, mut told) = (ConstraintGraph::default(), ConstraintGraph::default());
        let mut last: Option<&[(u32, u32)]> = None;
        for (call, &(pairs, fixed)) in calls.iter().enumerate() {
            let was_kept = kept.color_pairs(bodies, (pairs, None), fixed);
            let same = last == Some(pairs);
            let was_told = told.color_pairs(bodies, (pairs, Some(same)), fixed);
            last = Some(pairs);
            let mut fresh = ConstraintGraph::default();
            let usize_pairs = pairs.iter().map(|&(a, b)| (a as usize, b as usize));
            fresh.color(bodies, usize_pairs, fixed);
            for graph in [&kept, &told] {
                assert_eq!(graph.colors, fresh.colors, "call {call}");
                assert_eq!(graph.overflow, fresh.overflow, "call {call}");
            }
            // Kept exactly when the pairs and the fixed bodies are the last call's.
            let fixed_set = |f: fn(usize) -> bool| (0..bodies).map(f).collect::<Vec<_>>();
            let expected = call > 0 && same && fixed_set(fixed) == fixed_set(calls[call - 1].1);
            assert_eq!((was_kept, was_told), (expected, expected), "call {call}");
        }
        // The moved pair and the fixed body change the colours (so the check above can
        // tell colours kept by mistake).
        let colours = |pairs: &[(u32, u32)], fixed: fn(usize) -> bool| {
            let mut graph = ConstraintGraph::default();
            graph.color_pairs(bodies, (pairs, None), fixed);
            graph.colors
        };
        assert_ne!(colours(&base, fixed0), colours(&changed, fixed0));
        assert_ne!(colours(&base, fixed0), colours(&base, fixed7));
    }
}
