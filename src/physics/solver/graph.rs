//! Constraint graph colouring (Box2D v3's `constraint_graph.c`, rebuilt every step).
//!
//! Bodies are vertices, constraints are edges. A colour is a set of constraints no two of
//! which share a moving body, so the constraints of one colour can be solved in any order,
//! or four at a time in SIMD lanes (`contact_simd.rs`), with the same result as one after
//! the other: no lane reads a velocity another lane writes.
//!
//! Layout:
//! - `COLOR_COUNT` colours, each with a bitset over solver body indices: bit `i` set when a
//!   constraint of that colour touches body `i`.
//! - A constraint goes to the first colour where neither of its bodies' bits is set (greedy
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

/// The colouring of one step. Buffers are reused from step to step.
#[derive(Clone, Debug, Default)]
pub struct ConstraintGraph {
    /// Per colour, a bitset over solver body indices, 64 bodies per word; interleaved:
    /// word `w` of colour `c` at `w * COLOR_COUNT + c`, so one body's colours share cache
    /// lines.
    body_sets: Vec<u64>,
    /// Per colour: constraint indices, ascending.
    pub colors: Vec<Vec<u32>>,
    /// Constraints that fit no colour, ascending.
    pub overflow: Vec<u32>,
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
        let words = body_count.div_ceil(64);
        self.body_sets.clear();
        self.body_sets.resize(words * COLOR_COUNT, 0);
        self.colors.resize_with(COLOR_COUNT, Vec::new);
        for list in &mut self.colors {
            list.clear();
        }
        self.overflow.clear();

        for (k, (a, b)) in pairs.enumerate() {
            let fixed_a = fixed(a);
            let fixed_b = fixed(b);
            let (word_a, bit_a) = (a / 64 * COLOR_COUNT, 1u64 << (a % 64));
            let (word_b, bit_b) = (b / 64 * COLOR_COUNT, 1u64 << (b % 64));
            // Box2D v3's priority: constraints between two moving bodies take the first free
            // colour among the first `DYNAMIC_COLOR_COUNT`; a constraint against a fixed body
            // takes the last free colour, searching down to colour 1. So the supports are
            // solved after the loads they carry in every Gauss-Seidel pass and have the last
            // word: a light body under a heavy one is not pushed through its support.
            let sets = &self.body_sets;
            let free = |c: usize| {
                (fixed_a || sets[word_a + c] & bit_a == 0)
                    && (fixed_b || sets[word_b + c] & bit_b == 0)
            };
            let color = if fixed_a || fixed_b {
                (1..COLOR_COUNT).rev().find(|&c| free(c))
            } else {
                (0..DYNAMIC_COLOR_COUNT).find(|&c| free(c))
            };
            let placed = color.is_some();
            if let Some(c) = color {
                if !fixed_a {
                    self.body_sets[word_a + c] |= bit_a;
                }
                if !fixed_b {
                    self.body_sets[word_b + c] |= bit_b;
                }
                self.colors[c].push(k as u32);
            }
            if !placed {
                self.overflow.push(k as u32);
            }
        }
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
}
