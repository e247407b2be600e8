//! Dynamic AABB tree: a bounding-volume hierarchy over boxes that come, go and move.
//!
//! Each leaf is one proxy: a (usually fattened) box and the caller's `user_data`. Each internal
//! node has exactly two children and the union of their boxes. Nodes live in one `Vec` with a
//! free list, so a proxy id is an index that stays valid until the proxy is destroyed and is
//! then reused.
//!
//! - **Insertion** walks down from the root choosing the sibling that costs least under the
//!   surface-area heuristic (in 2D, perimeter): the cost of a new leaf as the sibling of node
//!   `S` is the perimeter of the new parent plus how much every ancestor of `S` grows. The
//!   walk takes the child with the smaller lower bound and stops when neither child can beat
//!   the best found so far (Box2D v3's greedy branch and bound, `b2FindBestSibling`). Only
//!   nodes of height 0 or 1 may become the sibling, so the tree can stay strictly balanced.
//! - **Balance**: on the way back up (after an insert or a removal) each ancestor is rotated
//!   if one child is more than one level taller than the other (AVL, as in Box2D v2.4), so
//!   the height stays below about 1.44 log2(n) whatever the insertion order. Then, as in
//!   Box2D v3, a child may be swapped with a grandchild when that shrinks the perimeter of
//!   the node between them, but only if the swap keeps the AVL balance. On a 200 x 100 grid
//!   inserted row by row the area rotations cut the summed perimeter of the internal nodes
//!   by 30% and the nodes a query visits from 142 to 96.
//! - **Traversal** (query, ray cast, validate) uses an explicit stack, never recursion.
//!
//! References: Erin Catto, "Dynamic Bounding Volume Hierarchies", GDC 2019; Box2D
//! `dynamic_tree.c`; Bittner et al., "Fast insertion-based optimization of bounding volume
//! hierarchies", 2013.

use crate::physics::math::{Aabb, Vec2};
use crate::physics::threads::{DisjointMut, Threads};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Subtree pairs per thread that `DynamicTree::overlapping_pairs_split` hands out (enough
/// that a thread with a big one is caught up by the others).
const SPLIT_SEEDS: usize = 32;

/// The "no node" index.
const NULL: u32 = u32::MAX;

/// `aabb` made a valid finite box: infinite or NaN bounds become `±f32::MAX`, and a
/// reversed box its covering one. Inputs are range-checked long before they reach the tree,
/// but a world whose bodies blew up must still not panic it: an infinite box is stored as
/// the largest finite one, and surface-area costs that overflow are handled in
/// `find_best_sibling`.
fn finite_box(aabb: Aabb) -> Aabb {
    if aabb.is_valid() {
        return aabb;
    }
    let low = |v: f32| {
        if v.is_nan() {
            -f32::MAX
        } else {
            v.clamp(-f32::MAX, f32::MAX)
        }
    };
    let high = |v: f32| {
        if v.is_nan() {
            f32::MAX
        } else {
            v.clamp(-f32::MAX, f32::MAX)
        }
    };
    let (a, b) = (
        Vec2::new(low(aabb.min.x), low(aabb.min.y)),
        Vec2::new(high(aabb.max.x), high(aabb.max.y)),
    );
    Aabb {
        min: a.min(b),
        max: a.max(b),
    }
}

/// Height stored in free nodes, so a destroyed proxy id is recognisable in debug checks.
const FREE_HEIGHT: u16 = u16::MAX;

/// Which proxies a proxy may pair with: it pairs with `other` only if `self.category &
/// other.mask` and `other.category & self.mask` are both non-zero. An internal node holds the
/// union (bitwise or) of its leaves' bits, so two subtrees whose unions fail the test hold no
/// pair that passes it and the pair traversal skips them whole (Box2D keeps category bits in
/// its tree nodes for the same reason). The default pairs with everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProxyFilter {
    pub category: u32,
    pub mask: u32,
}

impl ProxyFilter {
    /// Pairs with everything.
    pub const ALL: ProxyFilter = ProxyFilter {
        category: u32::MAX,
        mask: u32::MAX,
    };

    #[inline]
    fn union(self, other: ProxyFilter) -> ProxyFilter {
        ProxyFilter {
            category: self.category | other.category,
            mask: self.mask | other.mask,
        }
    }

    /// May some proxy under `self` pair with some proxy under `other`?
    #[inline]
    pub fn may_pair(self, other: ProxyFilter) -> bool {
        self.category & other.mask != 0 && other.category & self.mask != 0
    }
}

/// A tree node, 40 bytes.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// Leaf: the proxy's fat box. Internal: the union of the children's boxes.
    aabb: Aabb,
    /// Parent index, `NULL` at the root. On the free list: the next free node.
    parent: u32,
    /// First child, `NULL` for a leaf.
    child_a: u32,
    /// Second child for an internal node; the caller's user data for a leaf.
    child_b_or_user: u32,
    /// 0 for a leaf, 1 + the taller child's height otherwise, `FREE_HEIGHT` when free.
    height: u16,
    /// Internal node whose box was grown in place by [`DynamicTree::enlarge_proxy`]: it
    /// may be looser than the union of its children until [`DynamicTree::rebuild`].
    /// Invariant: the parent of a flagged node is flagged, so the flagged nodes form a
    /// subtree at the root and `rebuild` finds them all from there. Insertion, removal and
    /// rotations keep it by flagging a node that adopts a flagged child.
    enlarged: bool,
    /// Scratch for [`DynamicTree::overlapping_pairs`]: equal to the tree's `walk_stamp`
    /// while a marked proxy of the current call lies below (or is) this node. Any other
    /// value means untouched, so nothing clears it after the call (0 on a new node).
    touched: u8,
    /// Leaf: the proxy's filter. Internal: the union of the children's.
    filter: ProxyFilter,
}

impl Node {
    const EMPTY: Node = Node {
        aabb: Aabb {
            min: Vec2::ZERO,
            max: Vec2::ZERO,
        },
        parent: NULL,
        child_a: NULL,
        child_b_or_user: NULL,
        height: FREE_HEIGHT,
        enlarged: false,
        touched: 0,
        filter: ProxyFilter::ALL,
    };

    #[inline]
    fn is_leaf(&self) -> bool {
        self.child_a == NULL
    }
}

/// A tree's nodes shared by the threads that mark its moved proxies
/// (`DynamicTree::mark_proxies_with`): each writes its own proxies' leaves, and the flags
/// of their ancestors, which several may share, are set through atomics.
pub(crate) struct Marks<'a> {
    nodes: *mut Node,
    len: usize,
    /// Some leaf was given a new box (the tree is stale until its rebuild).
    any: AtomicBool,
    _nodes: std::marker::PhantomData<&'a mut [Node]>,
}

// SAFETY: the users of `mark` promise that no proxy is marked by two threads at once;
// what two marks may share (ancestors' flags) is atomic, and what they read of the
// ancestors (the parent links) nothing writes.
unsafe impl Sync for Marks<'_> {}

impl Marks<'_> {
    /// Give `proxy` the box `aabb`, unless it has it, and flag its ancestors up to the
    /// first flagged one (`DynamicTree::mark_proxies_with`).
    ///
    /// # Safety
    /// `proxy` is a live proxy of the tree, which no other thread marks at the same time.
    pub(crate) unsafe fn mark(&self, proxy: u32, aabb: Aabb) {
        debug_assert!((proxy as usize) < self.len, "{proxy} is not a live proxy");
        // SAFETY: the leaf is in the array and this thread's alone (the caller); the
        // ancestors' parent links are only read, their flags only used atomically (and
        // `AtomicBool` has the layout of `bool`). No reference to a whole node is made.
        unsafe {
            let leaf = self.nodes.add(proxy as usize);
            debug_assert!((*leaf).height == 0 && (*leaf).child_a == NULL);
            if (*leaf).aabb == aabb {
                return;
            }
            (*leaf).aabb = finite_box(aabb);
            self.any.store(true, Ordering::Relaxed);
            let mut index = (*leaf).parent;
            while index != NULL {
                debug_assert!((index as usize) < self.len);
                let node = self.nodes.add(index as usize);
                let flag = &*(std::ptr::addr_of!((*node).enlarged) as *const AtomicBool);
                if flag.load(Ordering::Relaxed) {
                    break;
                }
                flag.store(true, Ordering::Relaxed);
                index = (*node).parent;
            }
        }
    }
}

/// A traversal stack that lives on the program stack for any balanced tree (depth 64 covers
/// far more proxies than memory holds) and spills into a `Vec` only if a caller's tree is
/// deeper than that.
struct NodeStack {
    inline: [u32; 64],
    len: usize,
    spill: Vec<u32>,
}

impl NodeStack {
    #[inline]
    fn new(first: u32) -> NodeStack {
        let mut inline = [NULL; 64];
        inline[0] = first;
        NodeStack {
            inline,
            len: 1,
            spill: Vec::new(),
        }
    }

    #[inline]
    fn push(&mut self, index: u32) {
        if self.len < self.inline.len() {
            self.inline[self.len] = index;
            self.len += 1;
        } else {
            self.spill.push(index);
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<u32> {
        if let Some(index) = self.spill.pop() {
            return Some(index);
        }
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.inline[self.len])
    }
}

/// A dynamic bounding-volume tree of boxes. See the module documentation.
#[derive(Clone, Debug)]
pub struct DynamicTree {
    nodes: Vec<Node>,
    root: u32,
    free_list: u32,
    proxy_count: usize,
    /// Scratch for `rebuild`: the subtrees to reassemble, with their box centres; the new
    /// internal nodes, in the order the build uses them; the pieces and joins of a
    /// rebuild split across threads.
    rebuild_items: Vec<(u32, Vec2)>,
    rebuild_ids: Vec<u32>,
    rebuild_plan: RebuildPlan,
    /// A leaf was given its box by `mark_proxy` since the last `rebuild`: the internal
    /// boxes above it may not cover it, so the tree must not be walked until rebuilt.
    stale: bool,
    /// Scratch for `overlapping_pairs`: node pairs still to visit.
    pair_stack: Vec<(u32, u32)>,
    /// The `touched` value of the current (or last) `overlapping_pairs` call: one more
    /// each call; when it wraps, every node's is set back to 0 and it starts again at 1.
    walk_stamp: u8,
}

impl Default for DynamicTree {
    fn default() -> Self {
        Self::new()
    }
}

impl DynamicTree {
    pub fn new() -> Self {
        DynamicTree {
            nodes: Vec::new(),
            root: NULL,
            free_list: NULL,
            proxy_count: 0,
            rebuild_items: Vec::new(),
            rebuild_ids: Vec::new(),
            rebuild_plan: RebuildPlan::default(),
            stale: false,
            pair_stack: Vec::new(),
            walk_stamp: 0,
        }
    }

    /// Add a leaf holding `aabb` (stored as given: fatten it first if you want a margin).
    /// Returns the proxy id, stable until `destroy_proxy`.
    pub fn create_proxy(&mut self, aabb: Aabb, user_data: u32) -> u32 {
        self.create_proxy_filtered(aabb, user_data, ProxyFilter::ALL)
    }

    /// [`DynamicTree::create_proxy`] for a proxy that pairs only as `filter` allows (in
    /// [`DynamicTree::overlapping_pairs`]; queries see every proxy).
    pub fn create_proxy_filtered(
        &mut self,
        aabb: Aabb,
        user_data: u32,
        filter: ProxyFilter,
    ) -> u32 {
        let aabb = finite_box(aabb);
        let leaf = self.allocate_node();
        let node = &mut self.nodes[leaf as usize];
        node.aabb = aabb;
        node.child_a = NULL;
        node.child_b_or_user = user_data;
        node.height = 0;
        node.filter = filter;
        self.insert_leaf(leaf);
        self.proxy_count += 1;
        leaf
    }

    /// Remove a proxy; its id may be handed out again by a later `create_proxy`.
    pub fn destroy_proxy(&mut self, proxy: u32) {
        self.check_proxy(proxy);
        self.remove_leaf(proxy);
        self.free_node(proxy);
        self.proxy_count -= 1;
    }

    /// Re-insert a proxy with a new (fat) box. The id and user data stay the same.
    pub fn move_proxy(&mut self, proxy: u32, aabb: Aabb) {
        self.check_proxy(proxy);
        let aabb = finite_box(aabb);
        self.remove_leaf(proxy);
        self.nodes[proxy as usize].aabb = aabb;
        self.insert_leaf(proxy);
    }

    /// Give a proxy a new box without re-inserting it (Box2D v3's `EnlargeProxy`): the leaf
    /// keeps its place and each ancestor's box grows to cover the new one, up to the first
    /// that already does. The grown ancestors, and those above them, are flagged so that
    /// [`DynamicTree::rebuild`] rebuilds that part of the tree. Queries stay exact in the
    /// meantime (every box still covers its descendants), only looser. Much cheaper than
    /// `move_proxy` when many proxies move in one step: the tree is rebuilt once, in
    /// O(k log k) for the k subtrees that changed, instead of k removals and insertions.
    pub fn enlarge_proxy(&mut self, proxy: u32, aabb: Aabb) {
        self.check_proxy(proxy);
        let aabb = finite_box(aabb);
        self.nodes[proxy as usize].aabb = aabb;
        let mut index = self.nodes[proxy as usize].parent;
        // Grow until an ancestor already covers the box: all above it do too.
        while index != NULL {
            let node = &mut self.nodes[index as usize];
            let grown = node.aabb.union(&aabb);
            let changed = grown != node.aabb;
            node.aabb = grown;
            node.enlarged = true;
            index = node.parent;
            if !changed {
                break;
            }
        }
        // Flag the rest of the way up, until a node flagged by an earlier call.
        self.flag_up_from(index);
    }

    /// Flag `index` and its ancestors as enlarged, up to the first already flagged (all
    /// above it are: the flags form a subtree at the root).
    fn flag_up_from(&mut self, mut index: u32) {
        while index != NULL {
            let node = &mut self.nodes[index as usize];
            if node.enlarged {
                break;
            }
            node.enlarged = true;
            index = node.parent;
        }
    }

    /// One proxy marked on one thread, as `Marks::mark` does it (the tests' reference).
    #[cfg(test)]
    pub(crate) fn mark_proxy(&mut self, proxy: u32, aabb: Aabb) {
        self.check_proxy(proxy);
        self.nodes[proxy as usize].aabb = finite_box(aabb);
        self.stale = true;
        self.flag_up_from(self.nodes[proxy as usize].parent);
    }

    /// Give proxies new boxes and flag their ancestors for the next
    /// [`DynamicTree::rebuild`], without growing the ancestors' boxes: what
    /// `enlarge_proxy` does up to the box unions, which the rebuild recomputes anyway (it
    /// rebuilds the flagged nodes from the subtrees below them), so the rebuilt tree is
    /// the same. Until that rebuild the boxes above a marked leaf may not cover it: nothing
    /// may query or walk the tree in between. When most proxies move (a swinging grid, a
    /// turning drum) every ancestor was grown up to the root, which cost more than the
    /// rebuild.
    ///
    /// `f` is given the tree's `Marks`, which several threads may use together, each for
    /// its own proxies (`Marks::mark`). The flags set are the same whoever sets them, so
    /// the tree the next rebuild makes is too.
    pub(crate) fn mark_proxies_with<R>(&mut self, f: impl FnOnce(&Marks) -> R) -> R {
        let marks = Marks {
            nodes: self.nodes.as_mut_ptr(),
            len: self.nodes.len(),
            any: AtomicBool::new(false),
            _nodes: std::marker::PhantomData,
        };
        let result = f(&marks);
        if marks.any.into_inner() {
            self.stale = true;
        }
        result
    }

    /// Rebuild the flagged part of the tree (Box2D v3's partial rebuild): every flagged
    /// internal node is freed; the subtrees hanging below them (leaves and unflagged
    /// internal nodes) are kept whole and reassembled top-down, each node splitting its
    /// subtrees in two along the longer axis of their centres' bounds (see
    /// `build_subtree`). The rebuilt part is tight, which the in-place growth was not.
    /// Proxy ids are unchanged. Returns the number of subtrees reassembled (0 when nothing
    /// was flagged).
    pub fn rebuild(&mut self) -> usize {
        self.rebuild_split(&Threads::default())
    }

    /// [`DynamicTree::rebuild`] across `threads`: the top levels are split on this thread,
    /// the subtrees below them built by the team, then joined here. The new internal
    /// nodes are taken from the pool before the build, in the order the one-thread build
    /// takes them, so the tree is the same for any thread count.
    pub(crate) fn rebuild_split(&mut self, threads: &Threads) -> usize {
        self.stale = false;
        if self.root == NULL || !self.nodes[self.root as usize].enlarged {
            return 0;
        }
        let mut items = std::mem::take(&mut self.rebuild_items);
        items.clear();
        let mut stack = NodeStack::new(self.root);
        while let Some(index) = stack.pop() {
            let node = self.nodes[index as usize];
            if node.is_leaf() || !node.enlarged {
                items.push((index, node.aabb.center()));
                continue;
            }
            stack.push(node.child_a);
            stack.push(node.child_b_or_user);
            self.free_node(index);
        }
        let count = items.len();
        // A tree of n subtrees has n - 1 internal nodes, used in post-order.
        let mut ids = std::mem::take(&mut self.rebuild_ids);
        ids.clear();
        for _ in 1..count {
            let id = self.allocate_node();
            ids.push(id);
        }
        let mut plan = std::mem::take(&mut self.rebuild_plan);
        let levels = if count >= MIN_SPLIT_REBUILD_ITEMS {
            split_levels(threads.count())
        } else {
            0
        };
        plan.clear();
        let root = plan.split(&mut items, &ids, (0, 0, 0), levels);
        let nodes = DisjointMut::new(&mut self.nodes);
        let (shared_items, next) = (DisjointMut::new(&mut items), AtomicUsize::new(0));
        threads.split(plan.pieces.len() > 1, |_, _| loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(piece) = plan.pieces.get(k) else {
                break;
            };
            // SAFETY: the pieces' item ranges are disjoint and each is claimed once; a
            // piece writes only the nodes of its own ids and of its items (the parents),
            // and reads only those.
            let items = unsafe { shared_items.slice(piece.items.clone()) };
            build_subtree(&nodes, items, &ids[piece.ids.clone()], piece.depth);
        });
        for &(parent, a, b) in &plan.joins {
            // SAFETY: the build is over; this thread alone uses the nodes.
            unsafe { join(&nodes, parent, a, b) };
        }
        self.nodes[root as usize].parent = NULL;
        self.root = root;
        self.rebuild_items = items;
        self.rebuild_ids = ids;
        self.rebuild_plan = plan;
        count
    }

    /// The tree itself, without the scratch buffers and the pair walk's flags (tests compare
    /// trees with it).
    #[cfg(test)]
    pub(crate) fn structure(&self) -> String {
        let nodes: Vec<Node> = self
            .nodes
            .iter()
            .map(|n| Node { touched: 0, ..*n })
            .collect();
        format!("{:?} {} {}", nodes, self.root, self.free_list)
    }

    /// The box stored for a proxy.
    #[inline]
    pub fn fat_aabb(&self, proxy: u32) -> Aabb {
        self.check_proxy(proxy);
        self.nodes[proxy as usize].aabb
    }

    /// The user data given when the proxy was created.
    #[inline]
    pub fn user_data(&self, proxy: u32) -> u32 {
        self.check_proxy(proxy);
        self.nodes[proxy as usize].child_b_or_user
    }

    /// Height of the root: 0 for an empty tree or a single leaf.
    pub fn height(&self) -> u32 {
        if self.root == NULL {
            0
        } else {
            u32::from(self.nodes[self.root as usize].height)
        }
    }

    /// Number of live proxies.
    pub fn proxy_count(&self) -> usize {
        self.proxy_count
    }

    /// Call `callback(proxy, user_data)` for every proxy whose box overlaps `aabb`, until it
    /// returns false.
    pub fn query(&self, aabb: Aabb, mut callback: impl FnMut(u32, u32) -> bool) {
        debug_assert!(!self.stale, "the tree is walked before its rebuild");
        if self.root == NULL {
            return;
        }
        let nodes = self.nodes.as_slice();
        if !nodes[self.root as usize].aabb.overlaps(&aabb) {
            return;
        }
        // Only nodes whose box overlaps `aabb` are pushed: children are tested before the
        // push, which halves the stack traffic compared with testing after the pop.
        let mut stack = NodeStack::new(self.root);
        while let Some(index) = stack.pop() {
            let node = &nodes[index as usize];
            if node.is_leaf() {
                if !callback(index, node.child_b_or_user) {
                    return;
                }
                continue;
            }
            for child in [node.child_a, node.child_b_or_user] {
                if nodes[child as usize].aabb.overlaps(&aabb) {
                    stack.push(child);
                }
            }
        }
    }

    /// Call `report(proxy_a, user_a, proxy_b, user_b)` once for every pair of proxies whose
    /// boxes overlap, whose filters allow the pair (see [`ProxyFilter`]), and of which at
    /// least one is in `marked` (proxy ids, no duplicates), in no particular order. The same pairs as querying each marked proxy's box and keeping each pair once,
    /// but in one traversal of the tree against itself: subtrees are paired from the root
    /// down while their boxes overlap, and a pair of subtrees without a marked proxy is
    /// skipped, so the upper levels are visited once for all marked proxies instead of
    /// once each. When hundreds of proxies move in a step that is several times fewer
    /// box tests.
    pub fn overlapping_pairs(
        &mut self,
        marked: &[u32],
        mut report: impl FnMut(u32, u32, u32, u32),
    ) {
        let mut found: Vec<Vec<[u32; 4]>> = Vec::new();
        self.overlapping_pairs_split(
            marked,
            &Threads::default(),
            &mut found,
            |a, user_a, b, user_b, out| out.push([a, user_a, b, user_b]),
        );
        for [a, user_a, b, user_b] in found.into_iter().flatten() {
            report(a, user_a, b, user_b);
        }
    }

    /// One step of the pair walk: the subtree pair `(x, y)` ((n, n): the pairs inside
    /// `n`) reports its leaf pair or pushes its child pairs.
    #[inline]
    fn visit(
        nodes: &[Node],
        stack: &mut Vec<(u32, u32)>,
        (x, y): (u32, u32),
        stamp: u8,
        report: &mut impl FnMut(u32, u32, u32, u32),
    ) {
        let nx = &nodes[x as usize];
        if x == y {
            // Inside an internal, touched subtree: inside each touched child, and
            // across the two children.
            let (a, b) = (nx.child_a, nx.child_b_or_user);
            let (na, nb) = (&nodes[a as usize], &nodes[b as usize]);
            if na.touched == stamp && !na.is_leaf() && na.filter.may_pair(na.filter) {
                stack.push((a, a));
            }
            if nb.touched == stamp && !nb.is_leaf() && nb.filter.may_pair(nb.filter) {
                stack.push((b, b));
            }
            if na.aabb.overlaps(&nb.aabb) && na.filter.may_pair(nb.filter) {
                stack.push((a, b));
            }
            return;
        }
        // Across two disjoint subtrees whose boxes overlap, one of them touched.
        let ny = &nodes[y as usize];
        match (nx.is_leaf(), ny.is_leaf()) {
            (true, true) => report(x, nx.child_b_or_user, y, ny.child_b_or_user),
            // Split the internal one, or the taller of two internal ones.
            (false, true) => Self::push_cross(nodes, stack, x, y, stamp),
            (true, false) => Self::push_cross(nodes, stack, y, x, stamp),
            (false, false) if nx.height >= ny.height => Self::push_cross(nodes, stack, x, y, stamp),
            (false, false) => Self::push_cross(nodes, stack, y, x, stamp),
        }
    }

    /// `overlapping_pairs` across `threads`: the walk's first levels run on the caller
    /// until there are `SPLIT_SEEDS` subtree pairs per thread, which the threads then
    /// claim one at a time and walk to the end, each reporting into its own output
    /// (`outputs[part]`; there are at least as many as threads, made with `Default`, and
    /// the caller empties them). The pairs found are the same for any thread count; which
    /// output holds a pair, and the order within one, are not (the caller sorts).
    pub(crate) fn overlapping_pairs_split<O: Send + Default>(
        &mut self,
        marked: &[u32],
        threads: &Threads,
        outputs: &mut Vec<O>,
        report: impl Fn(u32, u32, u32, u32, &mut O) + Sync,
    ) {
        debug_assert!(!self.stale, "the tree is walked before its rebuild");
        let parts = threads.count();
        if outputs.len() < parts {
            outputs.resize_with(parts, O::default);
        }
        if self.root == NULL || marked.is_empty() {
            return;
        }
        // 1. Flag every marked proxy and its ancestors with this call's stamp (the last
        //    call's flags need no clearing: they hold another stamp).
        self.walk_stamp = self.walk_stamp.wrapping_add(1);
        if self.walk_stamp == 0 {
            for node in &mut self.nodes {
                node.touched = 0;
            }
            self.walk_stamp = 1;
        }
        let stamp = self.walk_stamp;
        for &proxy in marked {
            self.check_proxy(proxy);
            let mut index = proxy;
            while index != NULL && self.nodes[index as usize].touched != stamp {
                self.nodes[index as usize].touched = stamp;
                index = self.nodes[index as usize].parent;
            }
        }
        // 2. Walk pairs of subtrees ((n, n): the pairs inside subtree n), first on the
        //    caller, then across the threads.
        let mut seeds = std::mem::take(&mut self.pair_stack);
        seeds.clear();
        let nodes = self.nodes.as_slice();
        let root = &nodes[self.root as usize];
        if !root.is_leaf() && root.filter.may_pair(root.filter) {
            seeds.push((self.root, self.root));
        }
        // Breadth first on the caller: pop from the front so the seeds stay big subtrees.
        let mut front = 0;
        let want = SPLIT_SEEDS * parts;
        {
            let out = &mut outputs[0];
            let mut emit = |a, ua, b, ub| report(a, ua, b, ub, out);
            while front < seeds.len() && seeds.len() - front < want {
                let (x, y) = seeds[front];
                front += 1;
                Self::visit(nodes, &mut seeds, (x, y), stamp, &mut emit);
            }
        }
        let seeds_left = &seeds[front..];
        let next = std::sync::atomic::AtomicUsize::new(0);
        let shared = DisjointMut::new(outputs.as_mut_slice());
        let worth_it = parts > 1 && seeds_left.len() >= parts;
        threads.split(worth_it, |part, _| {
            // SAFETY: part `part` alone uses output `part`.
            let out = unsafe { shared.get(part) };
            let mut emit = |a, ua, b, ub| report(a, ua, b, ub, out);
            let mut stack = Vec::new();
            loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(x, y)) = seeds_left.get(k) else {
                    break;
                };
                stack.push((x, y));
                while let Some((x, y)) = stack.pop() {
                    Self::visit(nodes, &mut stack, (x, y), stamp, &mut emit);
                }
            }
        });
        self.pair_stack = seeds;
    }

    /// Push (child, other) for each child of `split` whose box overlaps `other`'s, when one
    /// of the two is touched.
    #[inline]
    fn push_cross(nodes: &[Node], stack: &mut Vec<(u32, u32)>, split: u32, other: u32, stamp: u8) {
        let n = &nodes[split as usize];
        let o = &nodes[other as usize];
        for child in [n.child_a, n.child_b_or_user] {
            let c = &nodes[child as usize];
            if (c.touched == stamp || o.touched == stamp)
                && c.aabb.overlaps(&o.aabb)
                && c.filter.may_pair(o.filter)
            {
                stack.push((child, other));
            }
        }
    }

    /// Cast the segment `origin` to `origin + max_fraction * translation` against the
    /// proxies' boxes. For each proxy whose box the segment may touch, `callback(proxy,
    /// user_data, max_fraction)` is called with the current `max_fraction`; it returns the
    /// new one: 0 stops the cast, a negative value ignores this proxy, a positive value
    /// clips the segment to that fraction (typically the exact hit of the shape inside).
    ///
    /// Pruning uses the segment's box and a separating-axis test against the segment's
    /// normal, so the callback sees every proxy the clipped segment touches (and some near
    /// misses: it must do the exact test).
    pub fn ray_cast(
        &self,
        origin: Vec2,
        translation: Vec2,
        max_fraction: f32,
        mut callback: impl FnMut(u32, u32, f32) -> f32,
    ) {
        debug_assert!(!self.stale, "the tree is walked before its rebuild");
        // Written so that NaN fractions and lengths also return.
        if self.root == NULL || max_fraction.is_nan() || max_fraction <= 0.0 {
            return;
        }
        let length = translation.length();
        if !length.is_finite() || length <= 0.0 {
            return;
        }
        // Separating axis: the segment's normal n. A box with centre c and half extents h
        // cannot touch the segment when |n . (origin - c)| > |n|_abs . h.
        let direction = translation / length;
        let normal = Vec2::new(-direction.y, direction.x);
        let abs_normal = normal.abs();

        let mut max_fraction = max_fraction;
        let mut segment_box = segment_aabb(origin, translation, max_fraction);

        let nodes = self.nodes.as_slice();
        let mut stack = NodeStack::new(self.root);
        while let Some(index) = stack.pop() {
            let node = &nodes[index as usize];
            if !node.aabb.overlaps(&segment_box) {
                continue;
            }
            let center = node.aabb.center();
            let extents = node.aabb.extents();
            if normal.dot(origin - center).abs() - abs_normal.dot(extents) > 0.0 {
                continue;
            }
            if node.is_leaf() {
                let value = callback(index, node.child_b_or_user, max_fraction);
                if value == 0.0 {
                    return;
                }
                if value > 0.0 && value < max_fraction {
                    max_fraction = value;
                    segment_box = segment_aabb(origin, translation, max_fraction);
                }
            } else {
                stack.push(node.child_a);
                stack.push(node.child_b_or_user);
            }
        }
    }

    /// Check the whole structure and panic with a message on the first broken invariant:
    /// parent links, leaf and free counts, every internal box equal to the union of its
    /// children (containing it, for a node flagged as enlarged), the flags forming a subtree
    /// at the root, and stored heights. O(n); meant for tests and debugging. (Balance is not
    /// an invariant: insertion keeps the AVL rule, a rebuild balances by count.)
    pub fn validate(&self) {
        let mut reachable = 0usize;
        let mut leaves = 0usize;
        if self.root != NULL {
            assert_eq!(
                self.nodes[self.root as usize].parent, NULL,
                "root has a parent"
            );
            let mut stack = NodeStack::new(self.root);
            while let Some(index) = stack.pop() {
                reachable += 1;
                let node = &self.nodes[index as usize];
                assert_ne!(node.height, FREE_HEIGHT, "free node {index} in the tree");
                if node.is_leaf() {
                    leaves += 1;
                    assert_eq!(node.height, 0, "leaf {index} has height {}", node.height);
                    continue;
                }
                let (a, b) = (node.child_a, node.child_b_or_user);
                assert!(
                    (a as usize) < self.nodes.len() && (b as usize) < self.nodes.len(),
                    "node {index} has a child out of range"
                );
                let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
                assert_eq!(na.parent, index, "child {a} does not point back to {index}");
                assert_eq!(nb.parent, index, "child {b} does not point back to {index}");
                assert_eq!(
                    node.height,
                    1 + na.height.max(nb.height),
                    "node {index} stores a wrong height"
                );
                assert_eq!(
                    node.filter,
                    na.filter.union(nb.filter),
                    "node {index} filter is not the union of its children's"
                );
                let union = na.aabb.union(&nb.aabb);
                if node.enlarged {
                    assert!(
                        node.aabb.contains(&union),
                        "enlarged node {index} does not cover its children"
                    );
                } else {
                    assert_eq!(
                        node.aabb, union,
                        "node {index} box is not the union of its children"
                    );
                    assert!(
                        !na.enlarged && !nb.enlarged,
                        "node {index} is not flagged but has a flagged child"
                    );
                }
                stack.push(a);
                stack.push(b);
            }
        }
        assert_eq!(leaves, self.proxy_count, "leaf count != proxy count");

        let mut free = 0usize;
        let mut index = self.free_list;
        while index != NULL {
            assert!(free < self.nodes.len(), "free list has a cycle");
            assert_eq!(self.nodes[index as usize].height, FREE_HEIGHT);
            free += 1;
            index = self.nodes[index as usize].parent;
        }
        assert_eq!(
            reachable + free,
            self.nodes.len(),
            "nodes are neither in the tree nor free"
        );
    }

    // --- Node pool --------------------------------------------------------------------

    fn allocate_node(&mut self) -> u32 {
        if self.free_list == NULL {
            let index = u32::try_from(self.nodes.len()).expect("dynamic tree node count overflow");
            assert!(index != NULL, "dynamic tree node count overflow");
            self.nodes.push(Node::EMPTY);
            return index;
        }
        let index = self.free_list;
        let node = &mut self.nodes[index as usize];
        self.free_list = node.parent;
        *node = Node::EMPTY;
        index
    }

    fn free_node(&mut self, index: u32) {
        let node = &mut self.nodes[index as usize];
        *node = Node::EMPTY;
        node.parent = self.free_list;
        self.free_list = index;
    }

    #[inline]
    fn check_proxy(&self, proxy: u32) {
        debug_assert!(
            (proxy as usize) < self.nodes.len()
                && self.nodes[proxy as usize].height == 0
                && self.nodes[proxy as usize].is_leaf(),
            "{proxy} is not a live proxy"
        );
    }

    // --- Insertion and removal --------------------------------------------------------

    /// Link the (already filled) leaf into the tree.
    fn insert_leaf(&mut self, leaf: u32) {
        self.nodes[leaf as usize].parent = NULL;
        if self.root == NULL {
            self.root = leaf;
            return;
        }

        // 1. Choose the sibling with the least surface-area cost.
        let leaf_box = self.nodes[leaf as usize].aabb;
        let leaf_filter = self.nodes[leaf as usize].filter;
        let sibling = self.find_best_sibling(&leaf_box);

        // 2. A new parent takes the sibling's place and adopts sibling and leaf.
        let old_parent = self.nodes[sibling as usize].parent;
        let new_parent = self.allocate_node();
        {
            let sibling_node = self.nodes[sibling as usize];
            let parent = &mut self.nodes[new_parent as usize];
            parent.parent = old_parent;
            parent.child_a = sibling;
            parent.child_b_or_user = leaf;
            parent.aabb = sibling_node.aabb.union(&leaf_box);
            parent.height = sibling_node.height + 1;
            parent.filter = sibling_node.filter.union(leaf_filter);
            parent.enlarged = sibling_node.enlarged;
        }
        self.nodes[sibling as usize].parent = new_parent;
        self.nodes[leaf as usize].parent = new_parent;
        if old_parent == NULL {
            self.root = new_parent;
        } else {
            self.replace_child(old_parent, sibling, new_parent);
        }

        // 3. Refit and rebalance the ancestors.
        self.refit_upwards(old_parent);
    }

    /// Unlink a leaf; its parent node is freed and its sibling takes the parent's place.
    fn remove_leaf(&mut self, leaf: u32) {
        if leaf == self.root {
            self.root = NULL;
            return;
        }
        let parent = self.nodes[leaf as usize].parent;
        let grandparent = self.nodes[parent as usize].parent;
        let parent_node = self.nodes[parent as usize];
        let sibling = if parent_node.child_a == leaf {
            parent_node.child_b_or_user
        } else {
            parent_node.child_a
        };

        self.nodes[sibling as usize].parent = grandparent;
        if grandparent == NULL {
            self.root = sibling;
        } else {
            self.replace_child(grandparent, parent, sibling);
        }
        self.free_node(parent);
        self.nodes[leaf as usize].parent = NULL;
        self.refit_upwards(grandparent);
    }

    /// In `parent`, replace the child link `old` with `new`.
    #[inline]
    fn replace_child(&mut self, parent: u32, old: u32, new: u32) {
        let p = &mut self.nodes[parent as usize];
        if p.child_a == old {
            p.child_a = new;
        } else {
            debug_assert_eq!(p.child_b_or_user, old);
            p.child_b_or_user = new;
        }
    }

    /// From `index` towards the root: rebalance each node, then recompute its box and
    /// height. Stops at the first node whose box and height come out as they were stored:
    /// every ancestor was computed from those values, so the tree above is already exact and
    /// balanced (only its optional area rotations are skipped). A leaf moving inside a
    /// crowd usually stops the walk a few levels up instead of at the root.
    fn refit_upwards(&mut self, mut index: u32) {
        while index != NULL {
            let before = self.nodes[index as usize];
            index = self.balance(index);
            self.rotate_for_area(index);
            let node = self.nodes[index as usize];
            let a = &self.nodes[node.child_a as usize];
            let b = &self.nodes[node.child_b_or_user as usize];
            let aabb = a.aabb.union(&b.aabb);
            let height = 1 + a.height.max(b.height);
            let filter = a.filter.union(b.filter);
            let n = &mut self.nodes[index as usize];
            n.aabb = aabb;
            n.height = height;
            n.filter = filter;
            if aabb == before.aabb && height == before.height && filter == before.filter {
                return;
            }
            index = n.parent;
        }
    }

    /// The node to pair the new box with, by Box2D v3's greedy branch and bound, restricted
    /// to nodes of height 0 or 1 so that the AVL walk back up can always restore balance (a
    /// new parent over a taller sibling would be unbalanced beyond what one rotation fixes).
    ///
    /// Cost of making the new leaf `L` a sibling of node `S`:
    ///   `cost(S) = P(S u L) + sum over ancestors X of S of (P(X u L) - P(X))`
    /// where P is the perimeter; the sum is the `inherited` cost. Below a child `C` any
    /// choice costs at least `inherited + P(C u L) - P(C) + min(P(L), P(C))`: either `C`
    /// itself (`P(C u L)`), or a descendant, whose new parent is at least `P(L)` and whose
    /// ancestors include `C`, grown by `P(C u L) - P(C)`.
    fn find_best_sibling(&self, leaf_box: &Aabb) -> u32 {
        let nodes = self.nodes.as_slice();
        let mut index = self.root;
        let mut best = NULL;
        let mut best_cost = f32::INFINITY;
        let mut inherited = 0.0f32;

        loop {
            let node = &nodes[index as usize];
            let combined = node.aabb.union(leaf_box).perimeter();
            if node.height <= 1 {
                let cost = inherited + combined;
                if cost < best_cost {
                    best = index;
                    best_cost = cost;
                }
            }
            if node.is_leaf() {
                break;
            }
            // Going further down makes this node one more ancestor that grows.
            inherited += combined - node.aabb.perimeter();

            let (a, b) = (node.child_a, node.child_b_or_user);
            let (bound_a, exact_a) = Self::child_bound(&nodes[a as usize], leaf_box, inherited);
            let (bound_b, exact_b) = Self::child_bound(&nodes[b as usize], leaf_box, inherited);

            // A leaf child's bound is its exact cost: take it if it is the best so far.
            if exact_a && bound_a < best_cost {
                best = a;
                best_cost = bound_a;
            }
            if exact_b && bound_b < best_cost {
                best = b;
                best_cost = bound_b;
            }

            // Descend into the more promising internal child, if it can still win. Until
            // some candidate is found `best_cost` is infinite, so the walk reaches height 1.
            let (next, bound) = match (exact_a, exact_b) {
                (true, true) => break,
                (true, false) => (b, bound_b),
                (false, true) => (a, bound_a),
                (false, false) if bound_a <= bound_b => (a, bound_a),
                (false, false) => (b, bound_b),
            };
            if bound >= best_cost {
                break;
            }
            index = next;
        }
        if best == NULL {
            // Every cost overflowed to infinity or NaN (boxes near f32::MAX): no comparison
            // chose a node. Any node of height 0 or 1 is a valid sibling; take the first one
            // down the tree rather than indexing with NULL (a panic before).
            best = self.root;
            while nodes[best as usize].height > 1 {
                best = nodes[best as usize].child_a;
            }
        }
        best
    }

    /// For a child: (cost, true) when it is a leaf (its exact cost as a sibling), else
    /// (lower bound of any choice in its subtree, false).
    #[inline]
    fn child_bound(child: &Node, leaf_box: &Aabb, inherited: f32) -> (f32, bool) {
        let combined = child.aabb.union(leaf_box).perimeter();
        if child.is_leaf() {
            (inherited + combined, true)
        } else {
            let own = child.aabb.perimeter();
            let bound = inherited + combined - own + leaf_box.perimeter().min(own);
            (bound, false)
        }
    }

    /// If the children of `a` differ in height by more than one, rotate the taller child up
    /// into `a`'s place and return it; otherwise return `a`.
    ///
    /// With `t` the taller child of `a`, `s` the shorter, and `t`'s children `f` (taller)
    /// and `g` (shorter): `t` takes `a`'s place with children `a` and `f`, and `a` keeps `s`
    /// and takes `g`. Children are unordered, so keeping the taller grandchild high covers
    /// both AVL cases (single and double rotation) with this one move.
    fn balance(&mut self, a: u32) -> u32 {
        let node_a = self.nodes[a as usize];
        if node_a.is_leaf() {
            return a;
        }
        let (c1, c2) = (node_a.child_a, node_a.child_b_or_user);
        let (h1, h2) = (
            self.nodes[c1 as usize].height,
            self.nodes[c2 as usize].height,
        );
        let (t, s) = if h1 > h2 + 1 {
            (c1, c2)
        } else if h2 > h1 + 1 {
            (c2, c1)
        } else {
            return a;
        };

        let node_t = self.nodes[t as usize];
        debug_assert!(!node_t.is_leaf());
        let (g1, g2) = (node_t.child_a, node_t.child_b_or_user);
        let (f, g) = if self.nodes[g1 as usize].height >= self.nodes[g2 as usize].height {
            (g1, g2)
        } else {
            (g2, g1)
        };

        // `t` replaces `a` under `a`'s parent.
        let parent = node_a.parent;
        self.nodes[t as usize].parent = parent;
        if parent == NULL {
            self.root = t;
        } else {
            self.replace_child(parent, a, t);
        }

        // `a` keeps `s` and takes `g` in the slot `t` held.
        self.replace_child(a, t, g);
        self.nodes[g as usize].parent = a;
        self.nodes[a as usize].parent = t;
        let (box_s, h_s) = (self.nodes[s as usize].aabb, self.nodes[s as usize].height);
        let (box_g, h_g) = (self.nodes[g as usize].aabb, self.nodes[g as usize].height);
        let box_a = box_s.union(&box_g);
        let h_a = 1 + h_s.max(h_g);
        let filter_a = self.nodes[s as usize]
            .filter
            .union(self.nodes[g as usize].filter);
        self.nodes[a as usize].aabb = box_a;
        self.nodes[a as usize].height = h_a;
        self.nodes[a as usize].filter = filter_a;

        // `t` adopts `a` and `f`.
        let (box_f, h_f) = (self.nodes[f as usize].aabb, self.nodes[f as usize].height);
        let filter_f = self.nodes[f as usize].filter;
        let node = &mut self.nodes[t as usize];
        node.child_a = a;
        node.child_b_or_user = f;
        node.aabb = box_a.union(&box_f);
        node.height = 1 + h_a.max(h_f);
        node.filter = filter_a.union(filter_f);
        node.enlarged |= node_a.enlarged;
        t
    }
}

impl DynamicTree {
    /// Box2D v3's tree rotation (`b2RotateNodes`), limited to moves that keep the AVL
    /// balance: under node `a` with children `b` and `c`, swap one child with a grandchild
    /// on the other side if that shrinks the perimeter of the intermediate node. The set of
    /// leaves under `a` is unchanged, so `a`'s box is too; its height may drop by one.
    ///
    /// With `c` = {f, g}, swapping `b` and `f` makes `c` = {b, g}; the only box that changes
    /// is `c`'s, so the gain is `P(c) - P(b u g)`. Likewise on the other side.
    fn rotate_for_area(&mut self, a: u32) {
        let node_a = self.nodes[a as usize];
        if node_a.is_leaf() || node_a.height < 2 {
            return;
        }
        let (b, c) = (node_a.child_a, node_a.child_b_or_user);
        // Best (gain, child moving down, inner node receiving it, grandchild moving up).
        let mut best: Option<(f32, u32, u32, u32)> = None;
        for (down, inner) in [(b, c), (c, b)] {
            let node_inner = self.nodes[inner as usize];
            if node_inner.is_leaf() {
                continue;
            }
            let node_down = self.nodes[down as usize];
            let (g1, g2) = (node_inner.child_a, node_inner.child_b_or_user);
            for (up, stay) in [(g1, g2), (g2, g1)] {
                let (node_up, node_stay) = (self.nodes[up as usize], self.nodes[stay as usize]);
                // After the swap: inner = {down, stay}, a = {up, inner}. Both must stay AVL.
                if node_down.height.abs_diff(node_stay.height) > 1 {
                    continue;
                }
                let inner_height = 1 + node_down.height.max(node_stay.height);
                if node_up.height.abs_diff(inner_height) > 1 {
                    continue;
                }
                let gain =
                    node_inner.aabb.perimeter() - node_down.aabb.union(&node_stay.aabb).perimeter();
                if gain > 0.0 && best.is_none_or(|(g, ..)| gain > g) {
                    best = Some((gain, down, inner, up));
                }
            }
        }
        let Some((_, down, inner, up)) = best else {
            return;
        };

        // a: replace `down` by `up`.  inner: replace `up` by `down`.
        self.replace_child(a, down, up);
        self.nodes[up as usize].parent = a;
        self.replace_child(inner, up, down);
        self.nodes[down as usize].parent = inner;
        let node_inner = self.nodes[inner as usize];
        let (i1, i2) = (
            &self.nodes[node_inner.child_a as usize],
            &self.nodes[node_inner.child_b_or_user as usize],
        );
        let (aabb, height) = (i1.aabb.union(&i2.aabb), 1 + i1.height.max(i2.height));
        let filter = i1.filter.union(i2.filter);
        let down_enlarged = self.nodes[down as usize].enlarged;
        let n = &mut self.nodes[inner as usize];
        n.aabb = aabb;
        n.height = height;
        n.filter = filter;
        n.enlarged |= down_enlarged;
        // `a`'s box and height are recomputed by the caller.
    }
}

/// Reorder `items` so that those whose centre lies below `pivot` along `axis` come first
/// (Hoare's scheme); returns how many they are.
/// Rebuilds of fewer subtrees than this run on one thread (`rebuild_split`).
const MIN_SPLIT_REBUILD_ITEMS: usize = 1024;

/// Levels split on the calling thread before a rebuild is handed to `threads` threads: at
/// least two pieces per thread, so that uneven splits even out across the team.
fn split_levels(threads: usize) -> u32 {
    if threads <= 1 {
        0
    } else {
        (2 * threads).next_power_of_two().trailing_zeros()
    }
}

/// How a rebuild is cut up: the pieces built by the team (item range, range of the
/// internal-node ids it uses, depth of its root), and the nodes above them, each joining
/// two roots, children before parents.
#[derive(Clone, Debug, Default)]
struct RebuildPlan {
    pieces: Vec<RebuildPiece>,
    joins: Vec<(u32, u32, u32)>,
}

#[derive(Clone, Debug)]
struct RebuildPiece {
    items: Range<usize>,
    ids: Range<usize>,
    depth: u32,
}

impl RebuildPlan {
    fn clear(&mut self) {
        self.pieces.clear();
        self.joins.clear();
    }

    /// Split `items` (at `offset` of all the items, its ids at `id_offset` of all the ids,
    /// at depth `depth`) for `levels` levels as `build_subtree` does, recording the pieces
    /// below and the joins above; `ids` are the subtree's internal nodes in build order.
    /// Returns the subtree's root, known before it is built: its last id (or its item,
    /// alone).
    fn split(
        &mut self,
        items: &mut [(u32, Vec2)],
        ids: &[u32],
        (offset, id_offset, depth): (usize, usize, u32),
        levels: u32,
    ) -> u32 {
        let Some(&root) = ids.last() else {
            return items[0].0;
        };
        if levels == 0 {
            self.pieces.push(RebuildPiece {
                items: offset..offset + items.len(),
                ids: id_offset..id_offset + ids.len(),
                depth,
            });
            return root;
        }
        let split = split_items(items, depth);
        let (left, right) = items.split_at_mut(split);
        let (ids_a, ids_b) = ids[..ids.len() - 1].split_at(split - 1);
        let a = self.split(left, ids_a, (offset, id_offset, depth + 1), levels - 1);
        let at = (offset + split, id_offset + split - 1, depth + 1);
        let b = self.split(right, ids_b, at, levels - 1);
        self.joins.push((root, a, b));
        root
    }
}

/// Join `items` (at least one) under the internal nodes `ids` (`items.len() - 1` of them,
/// in post-order: the left subtree's, the right's, then the root, the last); returns the
/// subtree's root.
///
/// Each node splits its items at the middle of their centres' bounds along the longer
/// axis (one linear partition, Box2D v3's default). Where that leaves a side empty (every
/// centre on one point), or below `MIDPOINT_DEPTH` levels (a very uneven spread), it
/// splits at the median instead, so the recursion depth stays below `MIDPOINT_DEPTH +
/// log2(items.len())`.
fn build_subtree(
    nodes: &DisjointMut<Node>,
    items: &mut [(u32, Vec2)],
    ids: &[u32],
    depth: u32,
) -> u32 {
    if items.len() == 1 {
        return items[0].0;
    }
    let split = split_items(items, depth);
    let (left, right) = items.split_at_mut(split);
    let (ids_a, rest) = ids.split_at(split - 1);
    let (ids_b, parent) = rest.split_at(right.len() - 1);
    let a = build_subtree(nodes, left, ids_a, depth + 1);
    let b = build_subtree(nodes, right, ids_b, depth + 1);
    // SAFETY: the caller gives this call `ids` and the items' nodes alone.
    unsafe { join(nodes, parent[0], a, b) };
    parent[0]
}

/// Where a node of the rebuild splits `items` (at least two): they are partitioned in place
/// and the left side's length returned (see `build_subtree`).
fn split_items(items: &mut [(u32, Vec2)], depth: u32) -> usize {
    /// Levels of midpoint splits before median splits take over.
    const MIDPOINT_DEPTH: u32 = 24;
    let (mut lo, mut hi) = (items[0].1, items[0].1);
    for &(_, c) in items.iter() {
        lo = lo.min(c);
        hi = hi.max(c);
    }
    let axis = usize::from(hi.y - lo.y > hi.x - lo.x);
    let pivot = 0.5 * (lo[axis] + hi[axis]);
    let mut split = if depth < MIDPOINT_DEPTH {
        partition_below(items, axis, pivot)
    } else {
        0
    };
    if split == 0 || split == items.len() {
        split = items.len() / 2;
        // Ties broken by node index so that the split is a function of the input alone.
        items.select_nth_unstable_by(split, |a, b| {
            a.1[axis].total_cmp(&b.1[axis]).then(a.0.cmp(&b.0))
        });
    }
    split
}

/// Make `parent` the node above `a` and `b`.
///
/// # Safety
/// No other thread may use the three nodes meanwhile.
unsafe fn join(nodes: &DisjointMut<Node>, parent: u32, a: u32, b: u32) {
    let (na, nb) = (*nodes.get(a as usize), *nodes.get(b as usize));
    let node = nodes.get(parent as usize);
    node.child_a = a;
    node.child_b_or_user = b;
    node.aabb = na.aabb.union(&nb.aabb);
    node.height = 1 + na.height.max(nb.height);
    node.filter = na.filter.union(nb.filter);
    nodes.get(a as usize).parent = parent;
    nodes.get(b as usize).parent = parent;
}

fn partition_below(items: &mut [(u32, Vec2)], axis: usize, pivot: f32) -> usize {
    let (mut i, mut j) = (0, items.len());
    loop {
        while i < j && items[i].1[axis] < pivot {
            i += 1;
        }
        while i < j && items[j - 1].1[axis] >= pivot {
            j -= 1;
        }
        if i >= j {
            return i;
        }
        items.swap(i, j - 1);
        i += 1;
        j -= 1;
    }
}

/// The box around the segment `origin` to `origin + fraction * translation`.
#[inline]
fn segment_aabb(origin: Vec2, translation: Vec2, fraction: f32) -> Aabb {
    let end = origin + fraction * translation;
    Aabb::new(origin.min(end), origin.max(end))
}

#[cfg(test)]
#[path = "dynamic_tree_tests.rs"]
pub(crate) mod tests;
