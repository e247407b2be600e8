//! Broad phase: which shapes might touch, found with two dynamic AABB trees.
//!
//! Static proxies and moving proxies live in separate trees (as in Box2D v3), so pairs of
//! static proxies are never even looked at. Moving proxies are stored with a fat box, the
//! tight box grown by a margin (the caller's, by default [`AABB_MARGIN`]), so a body that
//! moves a little stays inside its fat box and costs nothing; only when the tight box leaves
//! the fat box does the proxy get a new box and go in the *move buffer*. The step gives a
//! moving proxy its new box in place ([`BroadPhase::enlarge_proxy`], Box2D v3's scheme) and
//! the moving tree rebuilds what grew once per update; other changes re-insert the proxy.
//!
//! [`BroadPhase::update_pairs`] then pairs the buffered moving proxies with the moving tree
//! in one traversal of the tree against itself, queries each buffered proxy's box against
//! the other tree, and reports every new fat-box overlap, once, sorted. New: a proxy only
//! enlarged in place remembers its box from before, and a pair whose old boxes overlapped
//! was reported then. A created, re-inserted or touched proxy reports all its overlaps.
//! Pairs that already exist are the caller's business: the world keeps its set of contacts
//! and drops a pair when its fat boxes stop overlapping.
//!
//! Duplicate rule, when both proxies of a pair are in the move buffer: a moving and a static
//! proxy report from the moving one (two moving proxies meet once in the traversal).
//!
//! A moving proxy has a second box, its *reach*, by which it is paired with static proxies
//! (the stored box pairs it with moving ones). The step sweeps the reach along the motion,
//! so that a fast shape meets a wall a step early, and leaves the stored box unswept, so
//! that shapes falling together do not pair (Box2D v3 sweeps fast bodies against static
//! shapes only too, in its continuous pass). By default the reach is the stored box.

use super::dynamic_tree::{DynamicTree, ProxyFilter};
use crate::physics::math::{Aabb, Vec2};
use crate::physics::settings::AABB_MARGIN;
use crate::physics::threads::{DisjointMut, Padded, Threads};

/// Proxies given new boxes by the step, each with its stored box and its reach
/// (`BroadPhase::mark_proxies_reaching_split`).
pub(crate) type MovedProxies = Vec<(ProxyId, Aabb, Aabb)>;

/// Which tree a proxy lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProxyKind {
    /// Never moves on its own (ground, walls). Stored with its tight box; never paired with
    /// another static proxy.
    Static = 0,
    /// Dynamic or kinematic. Stored with a fat box (tight box + `AABB_MARGIN`).
    Moving = 1,
}

impl ProxyKind {
    #[inline]
    fn index(self) -> usize {
        self as usize
    }
}

/// A broad-phase proxy: the tree id and the kind packed into one `u32` (`id << 1 | kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProxyId(u32);

impl ProxyId {
    #[inline]
    fn new(kind: ProxyKind, tree_id: u32) -> ProxyId {
        debug_assert!(tree_id < (1 << 31), "proxy id overflow");
        ProxyId(tree_id << 1 | kind as u32)
    }

    /// Which tree the proxy lives in.
    #[inline]
    pub fn kind(self) -> ProxyKind {
        if self.0 & 1 == 0 {
            ProxyKind::Static
        } else {
            ProxyKind::Moving
        }
    }

    /// The proxy's id inside its tree.
    #[inline]
    pub fn tree_id(self) -> u32 {
        self.0 >> 1
    }

    /// The packed value, e.g. to store in a shape.
    #[inline]
    pub fn to_bits(self) -> u32 {
        self.0
    }

    /// Inverse of [`ProxyId::to_bits`].
    #[inline]
    pub fn from_bits(bits: u32) -> ProxyId {
        ProxyId(bits)
    }
}

/// Two dynamic trees and the move buffer. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct BroadPhase {
    /// Indexed by `ProxyKind::index()`.
    trees: [DynamicTree; 2],
    /// Proxies created, re-inserted or touched since the last `update_pairs`. May hold
    /// stale entries (destroyed proxies, duplicates after id reuse); `update_pairs` sorts,
    /// dedups and drops those whose `moved` flag is clear.
    move_buffer: Vec<ProxyId>,
    /// Per tree, per tree id: is the proxy in the move buffer? Grown on demand.
    moved: [Vec<bool>; 2],
    /// What the last `update_pairs` did (statistics).
    last_update: UpdateCounts,
    /// Scratch for `update_pairs`: tree ids of the buffered moving proxies.
    moved_ids: Vec<u32>,
    /// Per tree, per tree id: the stored box as the last `update_pairs` left it, or
    /// `NEVER` once the proxy was created, re-inserted or touched since. While a proxy
    /// is only enlarged in place it keeps its old box here, so that a pair whose old boxes
    /// overlapped, and so was reported before, is not reported again: most overlaps a
    /// moved proxy finds are such pairs, and the caller's filter need not see them.
    previous: [Vec<Aabb>; 2],
    /// Scratch for `update_pairs`: what each thread's part of the pair walk found.
    found: Vec<Padded<Found>>,
    /// Per moving tree id: the box it is paired with static proxies by (`NEVER` for a
    /// free id).
    reach: Vec<Aabb>,
    /// Per moving tree id: the reach as the last `update_pairs` left it, as `previous`.
    previous_reach: Vec<Aabb>,
}

/// What one part of `update_pairs`'s walk found: the new pairs, and the overlaps counted.
#[derive(Clone, Debug, Default)]
struct Found {
    pairs: Vec<(u32, u32)>,
    overlaps: usize,
    known: usize,
}

impl Found {
    fn clear(&mut self) {
        self.pairs.clear();
        self.overlaps = 0;
        self.known = 0;
    }
}

/// A box that overlaps nothing, itself included.
const NEVER: Aabb = Aabb {
    min: Vec2::splat(f32::INFINITY),
    max: Vec2::splat(f32::NEG_INFINITY),
};

/// Work done by one [`BroadPhase::update_pairs`]: proxies queried and overlaps found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateCounts {
    /// Buffered proxies whose boxes were queried.
    pub queried: usize,
    /// Overlaps the queries found, before the caller's filter (each pair once).
    pub overlaps: usize,
    /// Of those, the pairs whose boxes already overlapped before the moves (not reported).
    pub known: usize,
}

impl BroadPhase {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a proxy for the tight box `aabb`, with the default margin `AABB_MARGIN`. See
    /// [`BroadPhase::create_proxy_with_margin`].
    pub fn create_proxy(&mut self, aabb: Aabb, kind: ProxyKind, user_data: u32) -> ProxyId {
        self.create_proxy_with_margin(aabb, kind, AABB_MARGIN, user_data)
    }

    /// Add a proxy for the tight box `aabb`. Moving proxies are stored fattened by `margin`,
    /// static ones as they are. The proxy is put in the move buffer.
    pub fn create_proxy_with_margin(
        &mut self,
        aabb: Aabb,
        kind: ProxyKind,
        margin: f32,
        user_data: u32,
    ) -> ProxyId {
        self.create_proxy_filtered(aabb, kind, margin, ProxyFilter::ALL, user_data)
    }

    /// [`BroadPhase::create_proxy_with_margin`] for a proxy whose pairs `filter` limits:
    /// two moving proxies whose filters refuse each other are never reported (the tree
    /// skips whole subtrees of such proxies). Pairs with a static proxy are not filtered.
    pub fn create_proxy_filtered(
        &mut self,
        aabb: Aabb,
        kind: ProxyKind,
        margin: f32,
        filter: ProxyFilter,
        user_data: u32,
    ) -> ProxyId {
        let stored = match kind {
            ProxyKind::Static => aabb,
            ProxyKind::Moving => aabb.extended(margin),
        };
        let tree_id = self.trees[kind.index()].create_proxy_filtered(stored, user_data, filter);
        let proxy = ProxyId::new(kind, tree_id);
        let moved = &mut self.moved[kind.index()];
        if moved.len() <= tree_id as usize {
            moved.resize(tree_id as usize + 1, false);
            self.previous[kind.index()].resize(tree_id as usize + 1, NEVER);
            if kind == ProxyKind::Moving {
                self.reach.resize(tree_id as usize + 1, NEVER);
                self.previous_reach.resize(tree_id as usize + 1, NEVER);
            }
        }
        if kind == ProxyKind::Moving {
            self.reach[tree_id as usize] = stored;
        }
        // A fresh id is never flagged: destroy clears the flag.
        self.buffer_move(proxy, true);
        proxy
    }

    /// Remove a proxy. Any pending move of it is forgotten.
    pub fn destroy_proxy(&mut self, proxy: ProxyId) {
        let (k, id) = (proxy.kind().index(), proxy.tree_id());
        // The move buffer entry, if any, goes stale and is dropped by `update_pairs`.
        self.moved[k][id as usize] = false;
        if proxy.kind() == ProxyKind::Moving {
            self.reach[id as usize] = NEVER;
        }
        self.trees[k].destroy_proxy(id);
    }

    /// [`BroadPhase::move_proxy_with_margin`] with the default margin `AABB_MARGIN`.
    pub fn move_proxy(&mut self, proxy: ProxyId, aabb: Aabb) -> bool {
        self.move_proxy_with_margin(proxy, aabb, AABB_MARGIN)
    }

    /// Report the new tight box of a proxy. If it has left the stored (fat) box the proxy is
    /// re-inserted with the tight box grown by `margin` and buffered, and this returns true.
    /// A static proxy is re-inserted whenever its box changes at all.
    pub fn move_proxy_with_margin(&mut self, proxy: ProxyId, aabb: Aabb, margin: f32) -> bool {
        let fat = self.fat_aabb(proxy);
        let stored = match proxy.kind() {
            ProxyKind::Static if fat == aabb => return false,
            ProxyKind::Static => aabb,
            ProxyKind::Moving if fat.contains(&aabb) => return false,
            ProxyKind::Moving => aabb.extended(margin),
        };
        self.reinsert_proxy(proxy, stored);
        true
    }

    /// Replace a proxy's stored box with exactly `stored` (the caller has fattened it) and
    /// buffer it; a moving proxy's reach becomes `stored` too.
    pub fn reinsert_proxy(&mut self, proxy: ProxyId, stored: Aabb) {
        self.reinsert_proxy_reaching(proxy, stored, stored);
    }

    /// [`BroadPhase::reinsert_proxy`] with the reach `reach` for a moving proxy (ignored for
    /// a static one). How a saved world is restored bit for bit (scene export).
    pub fn reinsert_proxy_reaching(&mut self, proxy: ProxyId, stored: Aabb, reach: Aabb) {
        self.trees[proxy.kind().index()].move_proxy(proxy.tree_id(), stored);
        if proxy.kind() == ProxyKind::Moving {
            self.reach[proxy.tree_id() as usize] = reach;
        }
        self.buffer_move(proxy, true);
    }

    /// Give a moving proxy the new stored box `stored` in place (see
    /// [`DynamicTree::enlarge_proxy`]) and buffer it. The moving tree rebuilds what grew at
    /// the next `update_pairs`, before its queries. The step moves proxies this way: when
    /// hundreds move at once (a tumbling pile) one partial rebuild costs far less than as
    /// many removals and insertions. A static proxy is re-inserted instead.
    pub fn enlarge_proxy(&mut self, proxy: ProxyId, stored: Aabb) {
        self.enlarge_proxy_reaching(proxy, stored, stored);
    }

    /// [`BroadPhase::enlarge_proxy`] with the reach `reach` for a moving proxy (ignored for
    /// a static one). The tree is left alone when only the reach changed.
    pub fn enlarge_proxy_reaching(&mut self, proxy: ProxyId, stored: Aabb, reach: Aabb) {
        self.give_box(proxy, (stored, reach), DynamicTree::enlarge_proxy);
    }

    /// [`BroadPhase::enlarge_proxy_reaching`] as the step does it: the moving tree's boxes
    /// above the proxy are left for the next update's rebuild to compute
    /// (`DynamicTree::mark_proxies_with`), and nothing may query the tree until that
    /// update. One proxy on one thread (the tests' reference for
    /// `mark_proxies_reaching_split`).
    #[cfg(test)]
    pub(crate) fn mark_proxy_reaching(&mut self, proxy: ProxyId, stored: Aabb, reach: Aabb) {
        self.give_box(proxy, (stored, reach), DynamicTree::mark_proxy);
    }

    /// [`BroadPhase::mark_proxy_reaching`] for every proxy in `lists` (each a list of
    /// `(proxy, stored box, reach)`; no proxy twice in them): the moving proxies' leaves,
    /// the flags above them and their reaches written across `threads` (`split_fine`, as
    /// `worth_it` makes it, each part its share of the lists), the rest (static proxies
    /// re-inserted, the move buffer) then in order on this thread. The same tree, reaches
    /// and buffer as marking one proxy at a time; on the joint grid, 7,000 moved proxies a
    /// step, that one-thread pass was 0.2 ms.
    pub(crate) fn mark_proxies_reaching_split(
        &mut self,
        lists: &[Padded<MovedProxies>],
        worth_it: bool,
        threads: &Threads,
    ) {
        let [_, moving_tree] = &mut self.trees;
        let reach = DisjointMut::new(&mut self.reach);
        moving_tree.mark_proxies_with(|marks| {
            threads.split_fine(worth_it, |part, parts| {
                for list in lists.iter().skip(part).step_by(parts) {
                    for &(proxy, stored, proxy_reach) in list.iter() {
                        if proxy.kind() == ProxyKind::Moving {
                            let id = proxy.tree_id();
                            // SAFETY: no proxy is in two lists or twice in one, and each
                            // list is this part's alone: the leaf and the reach are too.
                            unsafe {
                                marks.mark(id, stored);
                                *reach.get(id as usize) = proxy_reach;
                            }
                        }
                    }
                }
            });
        });
        for &(proxy, stored, _) in lists.iter().flat_map(|list| list.iter()) {
            match proxy.kind() {
                ProxyKind::Static => self.reinsert_proxy(proxy, stored),
                ProxyKind::Moving => self.buffer_move(proxy, false),
            }
        }
    }

    /// A static proxy re-inserted with `stored`; a moving one given `stored` in the tree by
    /// `set` (unless it has it), its reach, and buffered.
    fn give_box(
        &mut self,
        proxy: ProxyId,
        (stored, reach): (Aabb, Aabb),
        set: fn(&mut DynamicTree, u32, Aabb),
    ) {
        match proxy.kind() {
            ProxyKind::Static => self.reinsert_proxy(proxy, stored),
            ProxyKind::Moving => {
                let (tree, id) = (&mut self.trees[ProxyKind::Moving.index()], proxy.tree_id());
                if tree.fat_aabb(id) != stored {
                    set(tree, id, stored);
                }
                self.reach[id as usize] = reach;
                self.buffer_move(proxy, false);
            }
        }
    }

    /// Put a proxy in the move buffer without moving it, so the next `update_pairs` reports
    /// all its overlaps (e.g. after waking or a filter change).
    pub fn touch_proxy(&mut self, proxy: ProxyId) {
        self.buffer_move(proxy, true);
    }

    /// The stored box: fat for moving proxies, tight for static ones.
    pub fn fat_aabb(&self, proxy: ProxyId) -> Aabb {
        self.trees[proxy.kind().index()].fat_aabb(proxy.tree_id())
    }

    /// The box a proxy is paired with static proxies by: a moving proxy's reach, a static
    /// proxy's stored box.
    pub fn reach_aabb(&self, proxy: ProxyId) -> Aabb {
        match proxy.kind() {
            ProxyKind::Static => self.fat_aabb(proxy),
            ProxyKind::Moving => self.reach[proxy.tree_id() as usize],
        }
    }

    /// The user data given at creation.
    pub fn user_data(&self, proxy: ProxyId) -> u32 {
        self.trees[proxy.kind().index()].user_data(proxy.tree_id())
    }

    /// Do two proxies' boxes overlap: the stored boxes of two moving proxies, the reaches
    /// (`reach_aabb`) when one is static?
    pub fn test_overlap(&self, a: ProxyId, b: ProxyId) -> bool {
        if a.kind() == ProxyKind::Moving && b.kind() == ProxyKind::Moving {
            self.fat_aabb(a).overlaps(&self.fat_aabb(b))
        } else {
            self.reach_aabb(a).overlaps(&self.reach_aabb(b))
        }
    }

    /// Fill `pairs` (cleared first) with every fat-box overlap that involves at least one
    /// buffered proxy and is new (see the module documentation: not both boxes unchanged
    /// since the last update but for in-place growth that kept them overlapping), as
    /// `(user_data_a, user_data_b)` with `user_data_a < user_data_b`, each pair once,
    /// sorted; then empty the move buffer. Static-static pairs are never reported. Allocates
    /// nothing once `pairs` and the move buffer have grown to size.
    pub fn update_pairs(&mut self, pairs: &mut Vec<(u32, u32)>) {
        self.update_pairs_filtered(pairs, |_, _| true);
    }

    /// [`BroadPhase::update_pairs`] reporting only the pairs for which `keep(user_data_a,
    /// user_data_b)` (called with `user_data_a < user_data_b`, once per overlap, before
    /// sorting) returns true: e.g. drop the pairs the caller already has, so that only new
    /// ones are sorted. The output is the sorted `update_pairs` output without the dropped
    /// pairs.
    pub fn update_pairs_filtered(
        &mut self,
        pairs: &mut Vec<(u32, u32)>,
        keep: impl Fn(u32, u32) -> bool + Sync,
    ) {
        self.update_pairs_split(pairs, &Threads::default(), keep);
    }

    /// `update_pairs_filtered`, the moving tree's rebuild and pair walk split across
    /// `threads` (`DynamicTree::rebuild_split`, `DynamicTree::overlapping_pairs_split`): the
    /// same tree, sorted pairs and counts for any thread count.
    pub(crate) fn update_pairs_split(
        &mut self,
        pairs: &mut Vec<(u32, u32)>,
        threads: &Threads,
        keep: impl Fn(u32, u32) -> bool + Sync,
    ) {
        pairs.clear();

        // 1. Canonical move buffer: sorted, no duplicates, no destroyed proxies.
        self.move_buffer.sort_unstable();
        self.move_buffer.dedup();
        let moved = &self.moved;
        self.move_buffer
            .retain(|p| moved[p.kind().index()][p.tree_id() as usize]);

        // 2. Rebuild what `enlarge_proxy` grew and `mark_proxy_reaching` flagged; pair the
        //    buffered moving proxies with the moving tree in one traversal, then query each
        //    buffered proxy's box against the other tree. A pair whose boxes overlapped
        //    before this round's moves too (`previous`) was reported then: it is counted
        //    but not reported again.
        self.trees[ProxyKind::Moving.index()].rebuild_split(threads);
        // A proxy whose stored box is as the last update left it (only its reach changed)
        // finds no new pair with a moving proxy; one whose reach is finds none with a
        // static proxy.
        let [_, moving_tree] = &self.trees;
        let previous_moving = &self.previous[ProxyKind::Moving.index()];
        self.moved_ids.clear();
        self.moved_ids.extend(
            self.move_buffer
                .iter()
                .filter(|p| p.kind() == ProxyKind::Moving)
                .map(|p| p.tree_id())
                .filter(|&id| previous_moving[id as usize] != moving_tree.fat_aabb(id)),
        );
        // How far any moving proxy's reach extends past its stored box: a buffered static
        // proxy's query of the moving tree is grown by it (looked up only when needed).
        let excess = if self
            .move_buffer
            .iter()
            .any(|p| p.kind() == ProxyKind::Static)
        {
            self.reach_excess()
        } else {
            0.0
        };
        let [static_tree, moving_tree] = &mut self.trees;
        let [previous_static, previous_moving] = &self.previous;
        let (reach, previous_reach) = (&self.reach, &self.previous_reach);
        let report =
            |found: &mut Found, previous_a: &Aabb, user_a: u32, previous_b: &Aabb, user_b: u32| {
                found.overlaps += 1;
                if previous_a.overlaps(previous_b) {
                    found.known += 1;
                    return;
                }
                let (a, b) = ordered(user_a, user_b);
                if keep(a, b) {
                    found.pairs.push((a, b));
                }
            };
        for found in &mut self.found {
            found.clear();
        }
        moving_tree.overlapping_pairs_split(
            &self.moved_ids,
            threads,
            &mut self.found,
            |leaf_a, user_a, leaf_b, user_b, found: &mut Padded<Found>| {
                report(
                    found,
                    &previous_moving[leaf_a as usize],
                    user_a,
                    &previous_moving[leaf_b as usize],
                    user_b,
                )
            },
        );
        let [_, moved_moving] = &self.moved;
        let found = &mut self.found[0];
        for &proxy in &self.move_buffer {
            let id = proxy.tree_id();
            match proxy.kind() {
                ProxyKind::Moving => {
                    let previous = &previous_reach[id as usize];
                    if *previous == reach[id as usize] {
                        continue;
                    }
                    let user = moving_tree.user_data(id);
                    static_tree.query(reach[id as usize], |other, other_user| {
                        report(
                            found,
                            previous,
                            user,
                            &previous_static[other as usize],
                            other_user,
                        );
                        true
                    });
                }
                ProxyKind::Static => {
                    let aabb = static_tree.fat_aabb(id);
                    let user = static_tree.user_data(id);
                    let previous = &previous_static[id as usize];
                    moving_tree.query(aabb.extended(excess), |other, other_user| {
                        // A buffered moving proxy whose reach changed reports this pair
                        // itself.
                        let other = other as usize;
                        let reports = moved_moving[other] && previous_reach[other] != reach[other];
                        if !reports && reach[other].overlaps(&aabb) {
                            report(found, previous, user, &previous_reach[other], other_user);
                        }
                        true
                    });
                }
            }
        }
        let (mut overlaps, mut known) = (0, 0);
        for found in &self.found {
            overlaps += found.overlaps;
            known += found.known;
            pairs.extend_from_slice(&found.pairs);
        }

        // 3. Deterministic output; reset the buffer, remembering the boxes as they are now.
        self.last_update = UpdateCounts {
            queried: self.move_buffer.len(),
            overlaps,
            known,
        };
        pairs.sort_unstable();
        for &proxy in &self.move_buffer {
            let (k, id) = (proxy.kind().index(), proxy.tree_id() as usize);
            self.moved[k][id] = false;
            self.previous[k][id] = self.trees[k].fat_aabb(id as u32);
            if proxy.kind() == ProxyKind::Moving {
                self.previous_reach[id] = self.reach[id];
            }
        }
        self.move_buffer.clear();
    }

    /// The farthest any live moving proxy's reach extends past its stored box, on any side
    /// (0 when every reach lies inside its box).
    fn reach_excess(&self) -> f32 {
        let tree = &self.trees[ProxyKind::Moving.index()];
        let mut excess = 0.0f32;
        for (id, reach) in self.reach.iter().enumerate() {
            if reach.min.x == f32::INFINITY {
                continue;
            }
            let fat = tree.fat_aabb(id as u32);
            let out = (reach.max - fat.max).max(fat.min - reach.min);
            excess = excess.max(out.x).max(out.y);
        }
        excess
    }

    /// The moving proxies' reaches by tree id (`reach_aabb`).
    pub(crate) fn reaches(&self) -> &[Aabb] {
        &self.reach
    }

    /// Call `callback(user_data)` for every proxy (both trees) whose stored box overlaps
    /// `aabb`, until it returns false.
    pub fn query(&self, aabb: Aabb, mut callback: impl FnMut(u32) -> bool) {
        let mut go_on = true;
        for tree in &self.trees {
            tree.query(aabb, |_, user| {
                go_on = callback(user);
                go_on
            });
            if !go_on {
                return;
            }
        }
    }

    /// Ray cast against both trees, with the contract of [`DynamicTree::ray_cast`]: the
    /// callback gets `(proxy, user_data, max_fraction)` and returns 0 to stop, a negative
    /// value to ignore the proxy, or a positive fraction to clip the ray. The clipped
    /// fraction carries over from the static tree to the moving tree.
    pub fn ray_cast(
        &self,
        origin: Vec2,
        translation: Vec2,
        max_fraction: f32,
        mut callback: impl FnMut(ProxyId, u32, f32) -> f32,
    ) {
        let mut max_fraction = max_fraction;
        let mut stopped = false;
        for (k, kind) in [ProxyKind::Static, ProxyKind::Moving]
            .into_iter()
            .enumerate()
        {
            self.trees[k].ray_cast(origin, translation, max_fraction, |id, user, fraction| {
                let value = callback(ProxyId::new(kind, id), user, fraction);
                if value == 0.0 {
                    stopped = true;
                } else if value > 0.0 && value < max_fraction {
                    max_fraction = value;
                }
                value
            });
            if stopped {
                return;
            }
        }
    }

    /// What the last `update_pairs` did.
    pub fn last_update(&self) -> UpdateCounts {
        self.last_update
    }

    /// Live proxies in both trees.
    pub fn proxy_count(&self) -> usize {
        self.trees[0].proxy_count() + self.trees[1].proxy_count()
    }

    /// The tree holding proxies of `kind` (debug drawing, statistics).
    pub fn tree(&self, kind: ProxyKind) -> &DynamicTree {
        &self.trees[kind.index()]
    }

    /// Validate both trees (panics on a broken invariant; for tests and debugging).
    pub fn validate(&self) {
        self.trees[0].validate();
        self.trees[1].validate();
    }

    /// Put a proxy in the move buffer. `forget` (created, re-inserted, touched): report
    /// all its overlaps, known or not.
    fn buffer_move(&mut self, proxy: ProxyId, forget: bool) {
        let (k, id) = (proxy.kind().index(), proxy.tree_id() as usize);
        if forget {
            self.previous[k][id] = NEVER;
            if proxy.kind() == ProxyKind::Moving {
                self.previous_reach[id] = NEVER;
            }
        }
        let flag = &mut self.moved[k][id];
        if !*flag {
            *flag = true;
            self.move_buffer.push(proxy);
        }
    }
}

#[inline]
fn ordered(a: u32, b: u32) -> (u32, u32) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::collision::dynamic_tree::tests::{segment_entry, Rng};
    use std::collections::BTreeSet;
    use std::time::Instant;

    /// Every pair of live proxies whose stored boxes overlap, static-static excluded.
    /// Two moving proxies whose filters refuse each other are not a pair either.
    fn brute_force(bp: &BroadPhase, proxies: &[Option<ProxyId>]) -> BTreeSet<(u32, u32)> {
        let mut pairs = BTreeSet::new();
        for (i, a) in proxies.iter().enumerate() {
            let Some(a) = *a else { continue };
            for (j, b) in proxies.iter().enumerate().skip(i + 1) {
                let Some(b) = *b else { continue };
                let both_static = a.kind() == ProxyKind::Static && b.kind() == ProxyKind::Static;
                let both_moving = a.kind() == ProxyKind::Moving && b.kind() == ProxyKind::Moving;
                let refused = both_moving && !test_filter(i).may_pair(test_filter(j));
                if !both_static && !refused && bp.test_overlap(a, b) {
                    pairs.insert((i as u32, j as u32));
                }
            }
        }
        pairs
    }

    /// The filter the random worlds give proxy `i`: mostly pairing with everything; some in
    /// category 2 refusing each other (as the joint grid's circles); some pairing with 1
    /// only.
    fn test_filter(i: usize) -> ProxyFilter {
        match i % 5 {
            0 | 1 => ProxyFilter::ALL,
            2 | 3 => ProxyFilter {
                category: 2,
                mask: !2,
            },
            _ => ProxyFilter {
                category: 4,
                mask: 1,
            },
        }
    }

    fn assert_sorted_unique(pairs: &[(u32, u32)]) {
        for p in pairs {
            assert!(p.0 < p.1, "pair {p:?} not ordered");
        }
        for w in pairs.windows(2) {
            assert!(w[0] < w[1], "pairs not sorted or duplicated: {:?}", w);
        }
    }

    fn shifted(aabb: Aabb, d: Vec2) -> Aabb {
        Aabb::new(aabb.min + d, aabb.max + d)
    }

    /// `count` random boxes in a `world`-sized square, three in ten static: the broad
    /// phase, the tight boxes and the proxies.
    fn random_world(
        rng: &mut Rng,
        count: usize,
        world: f32,
    ) -> (BroadPhase, Vec<Aabb>, Vec<Option<ProxyId>>) {
        let mut bp = BroadPhase::new();
        let mut tight: Vec<Aabb> = Vec::new();
        let mut proxies: Vec<Option<ProxyId>> = Vec::new();
        for i in 0..count {
            let aabb = rng.random_box(world, 1.2);
            let kind = if rng.unit() < 0.3 {
                ProxyKind::Static
            } else {
                ProxyKind::Moving
            };
            tight.push(aabb);
            proxies.push(Some(bp.create_proxy_filtered(
                aabb,
                kind,
                AABB_MARGIN,
                test_filter(i),
                i as u32,
            )));
        }
        (bp, tight, proxies)
    }

    #[test]
    fn update_pairs_matches_brute_force_in_random_worlds() {
        for (seed, count, world) in [
            (1u32, 1_000usize, 60.0f32),
            (2, 3_000, 100.0),
            (3, 2_000, 40.0),
        ] {
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9) | 1);
            let (mut bp, mut tight, mut proxies) = random_world(&mut rng, count, world);
            assert_eq!(bp.proxy_count(), count);

            let mut pairs = Vec::new();
            bp.update_pairs(&mut pairs);
            assert_sorted_unique(&pairs);
            let mut existing: BTreeSet<(u32, u32)> = pairs.iter().copied().collect();
            let expected = brute_force(&bp, &proxies);
            assert!(
                expected.len() > count / 2,
                "too few overlaps to test anything"
            );
            assert_eq!(existing, expected, "seed {seed}: pairs after creation");

            for round in 0..8 {
                let mut buffered: BTreeSet<u32> = BTreeSet::new();
                let (mut reinserted, mut stayed) = (0, 0);
                for i in 0..count {
                    let Some(proxy) = proxies[i] else { continue };
                    let r = rng.unit();
                    if r < 0.25 {
                        // A move: mostly small (inside the margin), sometimes a jump.
                        if proxy.kind() == ProxyKind::Static && rng.unit() > 0.05 {
                            continue;
                        }
                        let scale = if rng.unit() < 0.7 { 0.05 } else { 3.0 };
                        let d = Vec2::new(rng.range(-scale, scale), rng.range(-scale, scale));
                        tight[i] = shifted(tight[i], d);
                        // Moving proxies move both ways: re-inserted, or enlarged in place
                        // (what the step does) and rebuilt by `update_pairs`, then often
                        // with a reach swept along a random motion, sometimes the reach
                        // alone, sometimes the stored box alone.
                        let moved = if proxy.kind() == ProxyKind::Moving && rng.unit() < 0.5 {
                            let outside = !bp.fat_aabb(proxy).contains(&tight[i]);
                            let sweep = rng.unit() < 0.6;
                            if outside || sweep {
                                let fat = if outside {
                                    tight[i].extended(AABB_MARGIN)
                                } else {
                                    bp.fat_aabb(proxy)
                                };
                                let reach = if sweep {
                                    let d = Vec2::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
                                    fat.union(&shifted(fat, d))
                                } else if rng.unit() < 0.5 {
                                    bp.reach_aabb(proxy)
                                } else {
                                    fat
                                };
                                // The step's way (boxes above left to the rebuild), or
                                // the public one.
                                if rng.unit() < 0.5 {
                                    bp.mark_proxy_reaching(proxy, fat, reach);
                                } else {
                                    bp.enlarge_proxy_reaching(proxy, fat, reach);
                                }
                                assert_eq!(bp.reach_aabb(proxy), reach);
                            }
                            outside || sweep
                        } else {
                            bp.move_proxy(proxy, tight[i])
                        };
                        if moved {
                            reinserted += 1;
                            buffered.insert(i as u32);
                        } else {
                            stayed += 1;
                        }
                        assert!(bp.fat_aabb(proxy).contains(&tight[i]));
                    } else if r < 0.27 {
                        bp.touch_proxy(proxy);
                        buffered.insert(i as u32);
                    } else if r < 0.285 {
                        // Destroy (maybe after a buffered move), sometimes re-create at once
                        // so the id is reused while a stale buffer entry exists.
                        bp.destroy_proxy(proxy);
                        proxies[i] = None;
                        buffered.remove(&(i as u32));
                        existing.retain(|&(a, b)| a != i as u32 && b != i as u32);
                        if rng.unit() < 0.6 {
                            tight[i] = rng.random_box(world, 1.2);
                            let p = bp.create_proxy_filtered(
                                tight[i],
                                proxy.kind(),
                                AABB_MARGIN,
                                test_filter(i),
                                i as u32,
                            );
                            proxies[i] = Some(p);
                            buffered.insert(i as u32);
                        }
                    }
                }
                assert!(
                    reinserted > 0 && stayed > 0,
                    "round {round} moved nothing useful"
                );

                // The rebuild and pair walk split across threads find the same pairs and
                // counts, and leave the same tree.
                let mut split = [2, 3, 4].map(|count| (bp.clone(), Threads::new(count).unwrap()));
                bp.update_pairs(&mut pairs);
                assert_sorted_unique(&pairs);
                for (bp_split, threads) in &mut split {
                    let mut pairs_split = Vec::new();
                    bp_split.update_pairs_split(&mut pairs_split, threads, |_, _| true);
                    assert_eq!(pairs_split, pairs, "seed {seed}, round {round}, split");
                    assert_eq!(bp_split.last_update(), bp.last_update());
                    let nodes = |bp: &BroadPhase| bp.tree(ProxyKind::Moving).structure();
                    assert!(nodes(bp_split) == nodes(&bp), "seed {seed}, round {round}");
                }
                for &(a, b) in &pairs {
                    assert!(
                        buffered.contains(&a) || buffered.contains(&b),
                        "reported {a}-{b} though neither moved"
                    );
                    let (pa, pb) = (proxies[a as usize].unwrap(), proxies[b as usize].unwrap());
                    assert!(bp.test_overlap(pa, pb));
                    assert!(pa.kind() == ProxyKind::Moving || pb.kind() == ProxyKind::Moving);
                }
                // What the world does: add new pairs, drop those whose fat boxes separated.
                existing.extend(pairs.iter().copied());
                existing.retain(|&(a, b)| {
                    bp.test_overlap(proxies[a as usize].unwrap(), proxies[b as usize].unwrap())
                });
                assert_eq!(
                    existing,
                    brute_force(&bp, &proxies),
                    "seed {seed}, round {round}"
                );
                bp.validate();
                for kind in [ProxyKind::Static, ProxyKind::Moving] {
                    let tree = bp.tree(kind);
                    let n = tree.proxy_count().max(2) as f32;
                    assert!(tree.height() as f32 <= 2.5 * n.log2());
                }
            }
        }
    }

    #[test]
    fn buffered_pairs_are_reported_once() {
        let unit = |x: f32, y: f32| Aabb::around(Vec2::new(x, y), Vec2::splat(0.5));
        let mut bp = BroadPhase::new();
        let ground = bp.create_proxy(
            Aabb::new(Vec2::new(-10.0, -1.0), Vec2::new(10.0, 0.0)),
            ProxyKind::Static,
            0,
        );
        let wall = bp.create_proxy(unit(-9.5, 0.5), ProxyKind::Static, 1);
        let a = bp.create_proxy(unit(0.0, 0.5), ProxyKind::Moving, 2);
        let b = bp.create_proxy(unit(0.9, 0.5), ProxyKind::Moving, 3);
        let mut pairs = Vec::new();
        bp.update_pairs(&mut pairs);
        // ground-wall is static-static: never reported.
        assert_eq!(pairs, vec![(0, 2), (0, 3), (2, 3)]);
        bp.update_pairs(&mut pairs);
        assert!(pairs.is_empty(), "nothing moved");

        // Everything buffered at once: still each pair once.
        for p in [ground, wall, a, b] {
            bp.touch_proxy(p);
            bp.touch_proxy(p);
        }
        bp.update_pairs(&mut pairs);
        assert_eq!(pairs, vec![(0, 2), (0, 3), (2, 3)]);

        // Small move stays in the fat box: no re-insert, nothing reported.
        assert!(!bp.move_proxy(a, unit(0.05, 0.55)));
        bp.update_pairs(&mut pairs);
        assert!(pairs.is_empty());

        // A destroyed proxy's pending move is forgotten.
        assert!(bp.move_proxy(b, unit(3.0, 0.5)));
        bp.destroy_proxy(b);
        bp.update_pairs(&mut pairs);
        assert!(pairs.is_empty());
        assert_eq!(bp.proxy_count(), 3);

        // The static wall moves onto `a`.
        assert!(bp.move_proxy(wall, unit(0.5, 1.5)));
        assert_eq!(bp.fat_aabb(wall), unit(0.5, 1.5));
        bp.update_pairs(&mut pairs);
        assert_eq!(pairs, vec![(1, 2)]);
        bp.validate();
    }

    #[test]
    fn query_and_ray_cast_cover_both_trees() {
        let unit = |x: f32| Aabb::around(Vec2::new(x, 0.0), Vec2::splat(0.5));
        let mut bp = BroadPhase::new();
        bp.create_proxy(unit(2.0), ProxyKind::Static, 10);
        bp.create_proxy(unit(5.0), ProxyKind::Moving, 20);
        bp.create_proxy(
            Aabb::around(Vec2::new(5.0, 5.0), Vec2::ONE),
            ProxyKind::Moving,
            30,
        );

        let mut found = Vec::new();
        bp.query(Aabb::new(Vec2::new(0.0, -1.0), Vec2::new(10.0, 1.0)), |u| {
            found.push(u);
            true
        });
        found.sort_unstable();
        assert_eq!(found, vec![10, 20]);
        let mut calls = 0;
        bp.query(Aabb::new(Vec2::splat(-100.0), Vec2::splat(100.0)), |_| {
            calls += 1;
            false
        });
        assert_eq!(calls, 1, "false stops both trees");

        // Ray along +x from the origin: 10 m long, so fractions are tenths of metres.
        let (origin, translation) = (Vec2::ZERO, Vec2::new(10.0, 0.0));
        let mut seen = Vec::new();
        let mut closest = (1.0f32, u32::MAX);
        bp.ray_cast(origin, translation, 1.0, |proxy, user, max| {
            seen.push((user, max));
            let t = segment_entry(&bp.fat_aabb(proxy), origin, translation, max);
            match t {
                Some(t) => {
                    if t < closest.0 {
                        closest = (t, user);
                    }
                    t
                }
                None => -1.0,
            }
        });
        // The static box (entry at x = 1.5) clips the ray before the moving tree is
        // searched, so the moving box (fat entry at x = 4.4) is never offered.
        assert_eq!(closest.1, 10);
        assert!((closest.0 - 0.15).abs() < 1e-6);
        assert_eq!(seen, vec![(10, 1.0)]);

        // Ignoring the static hit lets the moving one through, with the fraction unclipped.
        let mut hits = Vec::new();
        bp.ray_cast(origin, translation, 1.0, |proxy, user, max| {
            if user == 10 {
                return -1.0;
            }
            hits.push((user, max));
            segment_entry(&bp.fat_aabb(proxy), origin, translation, max).unwrap_or(-1.0)
        });
        assert_eq!(hits, vec![(20, 1.0)]);

        // Zero stops: the moving tree is not searched.
        let mut calls = 0;
        bp.ray_cast(origin, translation, 1.0, |_, _, _| {
            calls += 1;
            0.0
        });
        assert_eq!(calls, 1);
    }

    /// Pairs in an R x C grid of touching unit boxes: each fat box overlaps its 8 neighbours.
    fn grid_pairs(rows: usize, cols: usize) -> usize {
        rows * (cols - 1) + (rows - 1) * cols + 2 * (rows - 1) * (cols - 1)
    }

    #[test]
    fn large_scenes_pair_counts_and_timing() {
        // The counts below follow from this margin.
        const MARGIN: f32 = 0.1;
        let unit = |x: f32, y: f32| Aabb::around(Vec2::new(x, y), Vec2::splat(0.5));
        let ground = |bp: &mut BroadPhase, width: f32| {
            let g = Aabb::new(Vec2::new(-width, -1.0), Vec2::new(width, 0.0));
            bp.create_proxy(g, ProxyKind::Static, u32::MAX)
        };
        let mut pairs = Vec::new();

        // Pyramid of 5,050 boxes (100 rows), each resting on two below, on static ground.
        let mut bp = BroadPhase::new();
        ground(&mut bp, 100.0);
        let mut boxes = Vec::new();
        for row in 0..100 {
            for i in 0..(100 - row) {
                let x = i as f32 + 0.5 * row as f32;
                let aabb = unit(x, 0.5 + row as f32);
                boxes.push((
                    bp.create_proxy_with_margin(
                        aabb,
                        ProxyKind::Moving,
                        MARGIN,
                        boxes.len() as u32,
                    ),
                    aabb,
                ));
            }
        }
        let start = Instant::now();
        bp.update_pairs(&mut pairs);
        let pyramid_time = start.elapsed();
        // In-row neighbours 4,950; each box above row 0 on two below 9,900; ground 100.
        assert_eq!(pairs.len(), 4_950 + 9_900 + 100);

        // Grid of 20,000 boxes (100 rows x 200 columns) on static ground.
        let (rows, cols) = (100, 200);
        let mut bp = BroadPhase::new();
        ground(&mut bp, 300.0);
        let mut boxes = Vec::new();
        let start = Instant::now();
        for r in 0..rows {
            for c in 0..cols {
                let aabb = unit(c as f32, 0.5 + r as f32);
                boxes.push((
                    bp.create_proxy_with_margin(
                        aabb,
                        ProxyKind::Moving,
                        MARGIN,
                        boxes.len() as u32,
                    ),
                    aabb,
                ));
            }
        }
        let create_time = start.elapsed();
        let start = Instant::now();
        bp.update_pairs(&mut pairs);
        let first_time = start.elapsed();
        assert_eq!(pairs.len(), grid_pairs(rows, cols) + cols);

        // Settling: every box sinks 1.5 cm a step, so all leave their fat box (0.1 m margin)
        // at steps 7, 14, 21 and 28, re-centred each time.
        let steps = 30;
        let mut reinserted = 0;
        let mut pair_total = 0;
        let start = Instant::now();
        for _ in 0..steps {
            for (proxy, aabb) in boxes.iter_mut() {
                *aabb = shifted(*aabb, Vec2::new(0.0, -0.015));
                reinserted += usize::from(bp.move_proxy_with_margin(*proxy, *aabb, MARGIN));
            }
            bp.update_pairs(&mut pairs);
            pair_total += pairs.len();
        }
        let step_time = start.elapsed() / steps;
        assert_eq!(reinserted, 4 * boxes.len());
        assert_eq!(pair_total, 4 * pairs_after_full_move(rows, cols));

        // One step where everything re-inserts, timed apart from the moves.
        for (proxy, aabb) in boxes.iter_mut() {
            *aabb = shifted(*aabb, Vec2::new(0.0, -0.2));
            assert!(bp.move_proxy_with_margin(*proxy, *aabb, MARGIN));
        }
        let start = Instant::now();
        bp.update_pairs(&mut pairs);
        let full_time = start.elapsed();
        assert_eq!(pairs.len(), pairs_after_full_move(rows, cols));
        bp.validate();

        println!(
            "broad phase: pyramid 5,050 update_pairs {:.2} ms; grid 20,000 create {:.2} ms, \
             first update_pairs {:.2} ms, settling step (move + update) {:.2} ms, \
             update_pairs with all 20,000 moved {:.2} ms; moving tree height {}",
            pyramid_time.as_secs_f64() * 1e3,
            create_time.as_secs_f64() * 1e3,
            first_time.as_secs_f64() * 1e3,
            step_time.as_secs_f64() * 1e3,
            full_time.as_secs_f64() * 1e3,
            bp.tree(ProxyKind::Moving).height(),
        );
    }

    /// When every box of the grid has moved, every overlap is reported again: all grid
    /// pairs, plus the bottom row against the ground.
    fn pairs_after_full_move(rows: usize, cols: usize) -> usize {
        grid_pairs(rows, cols) + cols
    }
}
