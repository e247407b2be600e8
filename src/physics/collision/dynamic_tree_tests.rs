//! Tests of the dynamic AABB tree (`dynamic_tree.rs`): balance, exact queries against
//! brute force, id reuse, ray casts; and the test helpers other collision tests share.

use super::*;

/// xorshift32: reproducible randomness without the `rand` crate.
pub(crate) struct Rng(pub u32);

impl Rng {
    pub fn next_u32(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32
    }

    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u32() as usize) % n
    }

    /// A vector with both components in [-r, r).
    pub fn vec(&mut self, r: f32) -> Vec2 {
        Vec2::new(self.range(-r, r), self.range(-r, r))
    }

    /// A box with its centre in [0, world]^2 and half extents in [0.05, max_half].
    pub fn random_box(&mut self, world: f32, max_half: f32) -> Aabb {
        let c = Vec2::new(self.range(0.0, world), self.range(0.0, world));
        let h = Vec2::new(self.range(0.05, max_half), self.range(0.05, max_half));
        Aabb::around(c, h)
    }
}

/// A tree of `count` random boxes (`Rng::random_box(world, max_half)`), user data 0, 1, ...,
/// and the proxies with their boxes.
fn random_tree(
    rng: &mut Rng,
    count: u32,
    world: f32,
    max_half: f32,
) -> (DynamicTree, Vec<(u32, Aabb)>) {
    let mut tree = DynamicTree::new();
    let live = (0..count)
        .map(|i| {
            let aabb = rng.random_box(world, max_half);
            (tree.create_proxy(aabb, i), aabb)
        })
        .collect();
    (tree, live)
}

/// Entry fraction of the segment `p + t d`, t in [0, max], into `aabb` (slab test).
pub(crate) fn segment_entry(aabb: &Aabb, p: Vec2, d: Vec2, max: f32) -> Option<f32> {
    let (mut t_min, mut t_max) = (0.0f32, max);
    for axis in 0..2 {
        let (p, d, lo, hi) = (p[axis], d[axis], aabb.min[axis], aabb.max[axis]);
        if d.abs() < 1e-12 {
            if p < lo || p > hi {
                return None;
            }
        } else {
            let (t1, t2) = ((lo - p) / d, (hi - p) / d);
            t_min = t_min.max(t1.min(t2));
            t_max = t_max.min(t1.max(t2));
            if t_min > t_max {
                return None;
            }
        }
    }
    Some(t_min)
}

/// The AVL promise with the margin the brief asks for.
fn assert_balanced(tree: &DynamicTree) {
    let n = tree.proxy_count() as f32;
    let limit = 2.5 * n.log2();
    assert!(
        (tree.height() as f32) <= limit,
        "height {} for {} proxies exceeds 2.5 log2(n) = {limit}",
        tree.height(),
        n
    );
}

/// Insertion's promise: every node's children differ in height by at most one.
fn assert_avl(tree: &DynamicTree) {
    for node in tree.nodes.iter() {
        if node.height == FREE_HEIGHT || node.is_leaf() {
            continue;
        }
        let (a, b) = (node.child_a as usize, node.child_b_or_user as usize);
        let (ha, hb) = (tree.nodes[a].height, tree.nodes[b].height);
        assert!(
            ha.abs_diff(hb) <= 1,
            "unbalanced: children heights {ha}, {hb}"
        );
    }
}

/// Every proxy whose box overlaps `q`, by the tree and by brute force; each reported
/// with its own user data.
fn assert_query_exact(tree: &DynamicTree, live: &[(u32, Aabb)], q: Aabb) {
    let mut found = Vec::new();
    tree.query(q, |p, user| {
        assert_eq!(user, tree.user_data(p));
        found.push(p);
        true
    });
    found.sort_unstable();
    let mut expected: Vec<u32> = live
        .iter()
        .filter(|(_, b)| b.overlaps(&q))
        .map(|&(p, _)| p)
        .collect();
    expected.sort_unstable();
    assert_eq!(found, expected);
}

/// Shift about `share` of the proxies' boxes: mostly nearby, some far away (the new box
/// need not contain the old one); `moved(proxy, box)` for each. Returns how many moved.
fn shift_some(
    rng: &mut Rng,
    live: &mut [(u32, Aabb)],
    share: f32,
    mut moved: impl FnMut(u32, Aabb),
) -> usize {
    let mut count = 0;
    for entry in live.iter_mut() {
        if rng.unit() > share {
            continue;
        }
        let d = if rng.unit() < 0.9 {
            Vec2::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5))
        } else {
            Vec2::new(rng.range(-60.0, 60.0), rng.range(-60.0, 60.0))
        };
        entry.1 = Aabb::new(entry.1.min + d, entry.1.max + d);
        moved(entry.0, entry.1);
        count += 1;
    }
    count
}

#[test]
fn enlarge_then_rebuild_stays_exact() {
    let mut rng = Rng(0x51ed_270b);
    let (mut tree, mut live) = random_tree(&mut rng, 3_000, 100.0, 1.0);
    assert_eq!(tree.rebuild(), 0, "nothing enlarged yet");
    for round in 0..6 {
        // A quarter of the proxies get a new box.
        let moved = shift_some(&mut rng, &mut live, 0.25, |p, b| tree.enlarge_proxy(p, b));
        // Queries are exact before the rebuild (looser boxes, same answers).
        tree.validate();
        for _ in 0..50 {
            assert_query_exact(&tree, &live, rng.random_box(100.0, 6.0));
        }
        // Insertions and removals between enlarging and rebuilding keep the flags.
        if round % 2 == 1 {
            let (p, _) = live.swap_remove(rng.below(live.len()));
            tree.destroy_proxy(p);
            let aabb = rng.random_box(100.0, 1.0);
            live.push((tree.create_proxy(aabb, 9_000 + round), aabb));
            tree.validate();
        }
        let subtrees = tree.rebuild();
        assert!(
            subtrees >= moved && subtrees <= live.len(),
            "round {round}: {subtrees} subtrees for {moved} moved proxies"
        );
        tree.validate();
        assert!(
            tree.nodes.iter().all(|n| !n.enlarged),
            "a flag survived the rebuild"
        );
        assert_balanced(&tree);
        for _ in 0..50 {
            assert_query_exact(&tree, &live, rng.random_box(100.0, 6.0));
        }
        for &(p, aabb) in &live {
            assert_eq!(tree.fat_aabb(p), aabb);
        }
    }
    // A rebuild with nothing flagged is free; one enlarged proxy rebuilds only its
    // path's neighbourhood (its ancestors' other children), not the whole tree.
    assert_eq!(tree.rebuild(), 0);
    let (p, b) = live[17];
    tree.enlarge_proxy(p, Aabb::new(b.min - Vec2::ONE, b.max + Vec2::ONE));
    let subtrees = tree.rebuild();
    assert!(
        subtrees <= tree.height() as usize + 2,
        "{subtrees} subtrees for one moved proxy"
    );
    tree.validate();
}

/// The step's way of moving proxies: `mark_proxy` (no box grown) and a rebuild split
/// across threads give the tree, node for node, that `enlarge_proxy` and the one-thread
/// rebuild give, with insertions and removals in between; and it is exact afterwards.
#[test]
fn marked_proxies_rebuilt_across_threads_give_the_enlarged_tree() {
    let mut rng = Rng(0x2545_f491);
    let (mut enlarged, mut live) = random_tree(&mut rng, 4_000, 100.0, 1.0);
    let mut marked = enlarged.clone();
    let teams: Vec<Threads> = [1, 2, 3, 4].map(|n| Threads::new(n).unwrap()).into();
    for round in 0..8 {
        // From a few proxies to nearly all of them (a swinging grid moves most).
        let share = [0.02, 0.3, 0.9, 1.0][round % 4];
        let before_marks = marked.clone();
        let mut boxes = Vec::new();
        let moved = shift_some(&mut rng, &mut live, share, |p, b| {
            enlarged.enlarge_proxy(p, b);
            marked.mark_proxy(p, b);
            boxes.push((p, b));
        });
        // The same marks from several threads at once, shared ancestors and all: the same
        // leaves and flags (two proxies are given their boxes again: no change, no flag).
        for threads in &teams[1..] {
            let mut tree = before_marks.clone();
            tree.mark_proxies_with(|marks| {
                threads.split(true, |part, parts| {
                    for &(p, b) in boxes.iter().skip(part).step_by(parts) {
                        // SAFETY: each proxy is in one part, and live.
                        unsafe { marks.mark(p, b) };
                    }
                });
            });
            assert!(tree.structure() == marked.structure(), "round {round}");
        }
        let mut tree = marked.clone();
        tree.mark_proxies_with(|marks| {
            for &(p, _) in &live[..2] {
                // SAFETY: one thread, live proxies.
                unsafe { marks.mark(p, marked.fat_aabb(p)) };
            }
        });
        assert!(tree.structure() == marked.structure(), "round {round}");
        // An insertion and a removal before the rebuild (the step makes none there): the
        // marked tree's boxes are not grown, so the insertion may pick another place, but
        // the rebuilt tree is still whole and exact.
        let mut changed = marked.clone();
        let mut changed_live = live.clone();
        let (p, _) = changed_live.swap_remove(rng.below(live.len()));
        changed.destroy_proxy(p);
        let aabb = rng.random_box(100.0, 1.0);
        changed_live.push((changed.create_proxy(aabb, 9_000), aabb));
        changed.rebuild_split(&teams[1]);
        changed.validate();
        for _ in 0..20 {
            assert_query_exact(&changed, &changed_live, rng.random_box(100.0, 6.0));
        }
        let subtrees = enlarged.rebuild();
        assert!(subtrees >= moved, "round {round}: {subtrees} for {moved}");
        for threads in &teams {
            let mut tree = marked.clone();
            assert_eq!(tree.rebuild_split(threads), subtrees, "round {round}");
            assert!(
                tree.structure() == enlarged.structure(),
                "round {round}, {} threads: another tree",
                threads.count()
            );
        }
        marked.rebuild_split(&teams[1]);
        marked.validate();
        for _ in 0..50 {
            assert_query_exact(&marked, &live, rng.random_box(100.0, 6.0));
        }
        // Insertions and removals between rebuilds, on both trees alike.
        if round % 2 == 1 {
            let (p, _) = live.swap_remove(rng.below(live.len()));
            enlarged.destroy_proxy(p);
            marked.destroy_proxy(p);
            let aabb = rng.random_box(100.0, 1.0);
            let id = enlarged.create_proxy(aabb, 9_000 + round as u32);
            assert_eq!(marked.create_proxy(aabb, 9_000 + round as u32), id);
            live.push((id, aabb));
        }
    }
}

#[test]
fn sorted_insertion_stays_balanced() {
    // Boxes in a line, inserted left to right: a naive insert builds a list.
    let mut tree = DynamicTree::new();
    let n = 10_000;
    let mut proxies = Vec::new();
    for i in 0..n {
        let aabb = Aabb::around(Vec2::new(i as f32, 0.0), Vec2::splat(0.4));
        proxies.push(tree.create_proxy(aabb, i));
    }
    tree.validate();
    assert_avl(&tree);
    assert_eq!(tree.proxy_count(), n as usize);
    assert_balanced(&tree);
    // AVL: height <= 1.44 log2(n) + 2 (n = 10,000: about 21).
    assert!(tree.height() <= 22, "height {}", tree.height());

    // Along a diagonal, inserted from the far end.
    let mut diagonal = DynamicTree::new();
    for i in (0..n).rev() {
        let c = Vec2::splat(i as f32 * 0.3);
        diagonal.create_proxy(Aabb::around(c, Vec2::splat(0.2)), i);
    }
    diagonal.validate();
    assert_avl(&diagonal);
    assert_balanced(&diagonal);

    // Many moves: scatter every proxy, then walk each in small steps.
    let mut rng = Rng(0x9e37_79b9);
    for &p in &proxies {
        tree.move_proxy(p, rng.random_box(300.0, 1.0));
    }
    tree.validate();
    assert_balanced(&tree);
    for _ in 0..5 {
        for &p in &proxies {
            let b = tree.fat_aabb(p);
            let d = Vec2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
            tree.move_proxy(p, Aabb::new(b.min + d, b.max + d));
        }
    }
    tree.validate();
    assert_avl(&tree);
    assert_balanced(&tree);
    assert_eq!(tree.proxy_count(), n as usize);
    for (i, &p) in proxies.iter().enumerate() {
        assert_eq!(tree.user_data(p), i as u32);
    }
}

#[test]
fn destroy_and_recreate_reuse_ids() {
    let mut rng = Rng(7);
    let mut tree = DynamicTree::new();
    let proxies: Vec<u32> = (0..600)
        .map(|i| tree.create_proxy(rng.random_box(50.0, 1.0), i))
        .collect();
    let capacity = tree.nodes.len();

    // One destroy then one create hands back the same id (the free list is LIFO).
    tree.destroy_proxy(proxies[10]);
    let again = tree.create_proxy(rng.random_box(50.0, 1.0), 10);
    assert_eq!(again, proxies[10]);
    tree.validate();

    let destroyed: Vec<u32> = proxies.iter().copied().step_by(3).collect();
    for &p in &destroyed {
        tree.destroy_proxy(p);
    }
    tree.validate();
    assert_eq!(tree.proxy_count(), 400);

    let mut recreated: Vec<u32> = (0..200)
        .map(|i| tree.create_proxy(rng.random_box(50.0, 1.0), 10_000 + i))
        .collect();
    tree.validate();
    assert_eq!(tree.proxy_count(), 600);
    // Every node came from the free list: no growth, and the old leaf ids came back
    // (internal nodes freed by removals may serve as leaves too, so compare as sets of
    // all ids in use).
    assert_eq!(tree.nodes.len(), capacity);
    recreated.sort_unstable();
    recreated.dedup();
    assert_eq!(recreated.len(), 200, "an id was handed out twice");
    for (i, &p) in proxies.iter().enumerate() {
        if i % 3 != 0 {
            assert_eq!(tree.user_data(p), i as u32, "a surviving proxy changed");
            assert!(!recreated.contains(&p), "a live id was handed out again");
        }
    }

    // Empty the tree completely and refill it.
    let all: Vec<u32> = proxies
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 != 0)
        .map(|(_, &p)| p)
        .chain(recreated.iter().copied())
        .collect();
    for &p in &all {
        tree.destroy_proxy(p);
    }
    tree.validate();
    assert_eq!((tree.proxy_count(), tree.height()), (0, 0));
    let p = tree.create_proxy(Aabb::around(Vec2::ZERO, Vec2::ONE), 5);
    assert_eq!(tree.nodes.len(), capacity);
    assert_eq!(tree.user_data(p), 5);
    tree.validate();
}

#[test]
fn query_matches_brute_force() {
    let mut rng = Rng(12345);
    let (mut tree, mut live) = random_tree(&mut rng, 2_000, 100.0, 2.0);
    // Punch holes so the free list is in play.
    for _ in 0..300 {
        let (p, _) = live.swap_remove(rng.below(live.len()));
        tree.destroy_proxy(p);
    }
    tree.validate();

    for _ in 0..300 {
        assert_query_exact(&tree, &live, rng.random_box(100.0, 8.0));
    }

    // Returning false stops at the first hit.
    let everything = Aabb::new(Vec2::splat(-10.0), Vec2::splat(200.0));
    let mut calls = 0;
    tree.query(everything, |_, _| {
        calls += 1;
        false
    });
    assert_eq!(calls, 1);
}

#[test]
fn ray_cast_matches_brute_force() {
    let mut rng = Rng(0xdead_beef);
    let (tree, live) = random_tree(&mut rng, 1_500, 100.0, 1.5);

    for ray in 0..300 {
        let origin = Vec2::new(rng.range(-20.0, 120.0), rng.range(-20.0, 120.0));
        let mut translation = Vec2::new(rng.range(-80.0, 80.0), rng.range(-80.0, 80.0));
        if ray % 10 == 0 {
            translation.y = 0.0; // axis-aligned rays hit the degenerate slab branch
        }
        let max_fraction = if ray % 3 == 0 { 0.5 } else { 1.0 };

        // Closest hit: the callback clips to each exact hit.
        let mut best: Option<(f32, u32)> = None;
        tree.ray_cast(
            origin,
            translation,
            max_fraction,
            |p, _, max| match segment_entry(&tree.fat_aabb(p), origin, translation, max) {
                Some(t) => {
                    if best.is_none_or(|(bt, _)| t < bt) {
                        best = Some((t, p));
                    }
                    t
                }
                None => -1.0,
            },
        );
        let expected = live
            .iter()
            .filter_map(|&(p, b)| {
                segment_entry(&b, origin, translation, max_fraction).map(|t| (t, p))
            })
            .min_by(|x, y| x.0.total_cmp(&y.0));
        assert_eq!(
            best.map(|b| b.0),
            expected.map(|e| e.0),
            "ray {ray}: closest fraction"
        );

        // Ignoring every proxy: the callback sees every box the segment touches.
        let mut touched = Vec::new();
        tree.ray_cast(origin, translation, max_fraction, |p, _, max| {
            assert_eq!(max, max_fraction, "ignored proxies must not clip");
            if segment_entry(&tree.fat_aabb(p), origin, translation, max).is_some() {
                touched.push(p);
            }
            -1.0
        });
        touched.sort_unstable();
        let mut expected_touched: Vec<u32> = live
            .iter()
            .filter(|(_, b)| segment_entry(b, origin, translation, max_fraction).is_some())
            .map(|&(p, _)| p)
            .collect();
        expected_touched.sort_unstable();
        assert_eq!(touched, expected_touched, "ray {ray}: touched set");
    }

    // Returning 0 stops the cast.
    let mut calls = 0;
    tree.ray_cast(
        Vec2::new(-10.0, 50.0),
        Vec2::new(200.0, 0.0),
        1.0,
        |_, _, _| {
            calls += 1;
            0.0
        },
    );
    assert_eq!(calls, 1);
}

/// The pair walk against brute force, call after call: more calls than the walk's stamp
/// has values, so the flags earlier calls left (never cleared) and the stamp's wrap are in
/// play. The first 300 calls leave the tree alone: call 1 marks every proxy and the
/// others one, so calls 256 and after reuse call 1's stamp on a tree it left flagged all
/// over; the rest re-create a proxy between calls (the free list hands flagged nodes out
/// again) and mark up to 20 at random. Each pair once.
#[test]
fn overlapping_pairs_match_brute_force_call_after_call() {
    let mut rng = Rng(777);
    let (mut tree, mut live) = random_tree(&mut rng, 300, 40.0, 1.5);
    for call in 0..600 {
        let mut marked: Vec<u32> = if call == 1 {
            live.iter().map(|&(p, _)| p).collect()
        } else if call < 300 {
            vec![live[0].0]
        } else {
            let (p, _) = live.swap_remove(rng.below(live.len()));
            tree.destroy_proxy(p);
            let aabb = rng.random_box(40.0, 1.5);
            live.push((tree.create_proxy(aabb, call), aabb));
            (0..1 + rng.below(20))
                .map(|_| live[rng.below(live.len())].0)
                .collect()
        };
        marked.sort_unstable();
        marked.dedup();
        let mut got = Vec::new();
        tree.overlapping_pairs(&marked, |a, _, b, _| got.push((a.min(b), a.max(b))));
        got.sort_unstable();
        let mut expected = Vec::new();
        for &m in &marked {
            let boxed = live
                .iter()
                .find(|(p, _)| *p == m)
                .expect("marked is live")
                .1;
            for &(p, aabb) in &live {
                if p != m && aabb.overlaps(&boxed) {
                    expected.push((p.min(m), p.max(m)));
                }
            }
        }
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(got, expected, "call {call}");
    }
}
