//! Broad phase stand-in: brute force with the same API as the dynamic tree that replaces
//! it. O(n^2): only for bringing the world up.

use crate::physics::math::{Aabb, Vec2};
use crate::physics::settings::AABB_MARGIN;

/// Which tree a proxy lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProxyKind {
    Static,
    Moving,
}

/// A broad-phase proxy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProxyId(u32);

#[derive(Default)]
pub struct BroadPhase {
    proxies: Vec<Option<(Aabb, ProxyKind, u32)>>,
    moved: Vec<u32>,
    free: Vec<u32>,
}

impl BroadPhase {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn create_proxy(&mut self, aabb: Aabb, kind: ProxyKind, user_data: u32) -> ProxyId {
        let fat = if kind == ProxyKind::Moving {
            aabb.extended(AABB_MARGIN)
        } else {
            aabb
        };
        let id = match self.free.pop() {
            Some(i) => {
                self.proxies[i as usize] = Some((fat, kind, user_data));
                i
            }
            None => {
                self.proxies.push(Some((fat, kind, user_data)));
                (self.proxies.len() - 1) as u32
            }
        };
        self.moved.push(id);
        ProxyId(id)
    }

    pub fn destroy_proxy(&mut self, proxy: ProxyId) {
        self.proxies[proxy.0 as usize] = None;
        self.free.push(proxy.0);
        self.moved.retain(|&m| m != proxy.0);
    }

    pub fn move_proxy(&mut self, proxy: ProxyId, aabb: Aabb) -> bool {
        let entry = self.proxies[proxy.0 as usize].as_mut().expect("live proxy");
        if entry.0.contains(&aabb) {
            return false;
        }
        entry.0 = aabb.extended(AABB_MARGIN);
        self.moved.push(proxy.0);
        true
    }

    /// Replace a proxy's stored (fat) box with exactly `fat` and buffer it. For restoring a
    /// saved world bit for bit (scene export); the step never calls it.
    pub fn restore_fat_aabb(&mut self, proxy: ProxyId, fat: Aabb) {
        let entry = self.proxies[proxy.0 as usize].as_mut().expect("live proxy");
        entry.0 = fat;
        self.moved.push(proxy.0);
    }

    pub fn touch_proxy(&mut self, proxy: ProxyId) {
        self.moved.push(proxy.0);
    }

    pub fn fat_aabb(&self, proxy: ProxyId) -> Aabb {
        self.proxies[proxy.0 as usize].expect("live proxy").0
    }

    pub fn test_overlap(&self, a: ProxyId, b: ProxyId) -> bool {
        self.fat_aabb(a).overlaps(&self.fat_aabb(b))
    }

    pub fn update_pairs(&mut self, pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        let moved = std::mem::take(&mut self.moved);
        for &m in &moved {
            let Some((box_m, kind_m, user_m)) = self.proxies[m as usize] else {
                continue;
            };
            for (other, entry) in self.proxies.iter().enumerate() {
                let Some((box_o, kind_o, user_o)) = *entry else {
                    continue;
                };
                if other as u32 == m || (kind_m == ProxyKind::Static && kind_o == ProxyKind::Static)
                {
                    continue;
                }
                if box_m.overlaps(&box_o) {
                    pairs.push((user_m.min(user_o), user_m.max(user_o)));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
    }

    pub fn query(&self, aabb: Aabb, mut callback: impl FnMut(u32) -> bool) {
        for (fat, _, user) in self.proxies.iter().flatten() {
            if fat.overlaps(&aabb) && !callback(*user) {
                return;
            }
        }
    }

    pub fn ray_cast(
        &self,
        origin: Vec2,
        translation: Vec2,
        max_fraction: f32,
        mut callback: impl FnMut(u32, u32, f32) -> f32,
    ) {
        let mut max_fraction = max_fraction;
        for (id, entry) in self.proxies.iter().enumerate() {
            let Some((fat, _, user)) = entry else {
                continue;
            };
            let end = origin + max_fraction * translation;
            let seg = Aabb::new(origin.min(end), origin.max(end));
            if fat.overlaps(&seg) {
                let f = callback(id as u32, *user, max_fraction);
                if f == 0.0 {
                    return;
                }
                if f > 0.0 {
                    max_fraction = f;
                }
            }
        }
    }

    pub fn proxy_count(&self) -> usize {
        self.proxies.iter().flatten().count()
    }
}
