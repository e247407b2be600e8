//! World to scene file text.
//!
//! The export is exact: every number is written in its shortest round-trip form, bodies and
//! shapes in slot order, and a `state` section carries what a definition cannot (centre of
//! mass, sleep timers and islands, broad-phase boxes, the contacts in solver order with their
//! feature ids and accumulated impulses, each joint's exact local frames, reference values and
//! accumulated impulses, the clock). Joints name unnamed bodies by creation index (`"#3"`). Loading the export and stepping it gives
//! the same `state_hash` as stepping the original, provided the world has no destroyed-body
//! holes and its shapes were created body by body (true of every world loaded from a file).

use std::collections::HashMap;

use super::format::{
    BodyFile, BodyStateFile, CameraFile, ContactFile, FilterFile, GeometryFile, JointFile,
    JointKindFile, JointStateFile, ManifoldCacheFile, ManifoldPointFile, SceneFile, SettingsFile,
    ShapeFile, StickyAnchorsFile, WorldStateFile,
};
use crate::physics::{BodyHandle, BodyState, Geometry, Joint, Polygon, World};

/// The words around a world: what the menu shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SceneMeta {
    pub name: String,
    pub category: String,
    pub description: String,
    pub camera: CameraFile,
}

fn geometry_file(geometry: &Geometry) -> GeometryFile {
    match geometry {
        Geometry::Circle(c) => GeometryFile::Circle {
            radius: c.radius,
            center: c.center,
        },
        Geometry::Capsule(c) => GeometryFile::Capsule {
            center_a: c.center_a,
            center_b: c.center_b,
            radius: c.radius,
        },
        Geometry::Segment(s) => GeometryFile::Segment {
            point_a: s.point_a,
            point_b: s.point_b,
        },
        Geometry::Polygon(p) => {
            // Boxes keep their exact centre as centroid; write it only when the loader would
            // compute different bits.
            let computed = Polygon::from_hull(p.vertices(), p.radius).centroid;
            let centroid = (computed.to_array().map(f32::to_bits)
                != p.centroid.to_array().map(f32::to_bits))
            .then_some(p.centroid);
            GeometryFile::Polygon {
                vertices: p.vertices().to_vec(),
                centroid,
                radius: p.radius,
            }
        }
    }
}

/// The joint as a file entry: its definition at the bodies' current poses (the exact local
/// frames and impulses go to the `state` section). `body_ref` names a body for the file.
fn joint_file(
    world: &World,
    joint: &Joint,
    body_ref: &dyn Fn(BodyHandle) -> String,
) -> Option<JointFile> {
    let def = joint.definition(world.body(joint.body_a())?, world.body(joint.body_b())?);
    Some(JointFile {
        name: def.name.clone(),
        body_a: body_ref(def.body_a),
        body_b: body_ref(def.body_b),
        collide_connected: def.collide_connected,
        break_force: def.break_force,
        break_torque: def.break_torque,
        on_break: def.on_break.into(),
        enabled: def.enabled,
        kind: JointKindFile::from(&def.kind),
    })
}

/// The scene file of a world: definitions plus the exact `state`.
pub fn scene_file(world: &World, meta: &SceneMeta) -> SceneFile {
    // Creation index of each body slot, and (body index, shape index) of each shape slot.
    let mut body_index: HashMap<usize, usize> = HashMap::new();
    let mut shape_id: HashMap<usize, (u32, u32)> = HashMap::new();
    let mut bodies = Vec::new();
    let mut states = Vec::new();
    for (i, (handle, body)) in world.bodies().enumerate() {
        body_index.insert(handle.index(), i);
        let mut shapes = Vec::new();
        let mut proxy_boxes = Vec::new();
        let mut reach_boxes = Vec::new();
        for (k, &s) in body.shapes().iter().enumerate() {
            shape_id.insert(s.index(), (i as u32, k as u32));
            let Some(shape) = world.shape(s) else {
                continue;
            };
            shapes.push(ShapeFile {
                shape: geometry_file(shape.geometry()),
                density: shape.density(),
                friction: shape.friction(),
                restitution: shape.restitution(),
                filter: FilterFile::from(shape.filter()),
            });
            let fat = world.shape_proxy_box(s).unwrap_or(shape.aabb());
            proxy_boxes.push((fat.min, fat.max));
            let reach = world.shape_reach_box(s).unwrap_or(fat);
            reach_boxes.push((reach.min, reach.max));
        }
        bodies.push(BodyFile {
            name: body.name().map(str::to_string),
            kind: body.kind().into(),
            position: body.position(),
            angle: body.angle(),
            linear_velocity: body.linear_velocity(),
            angular_velocity: body.angular_velocity(),
            linear_damping: body.linear_damping(),
            angular_damping: body.angular_damping(),
            gravity_scale: body.gravity_scale(),
            fixed_rotation: body.fixed_rotation(),
            enable_sleep: body.enable_sleep(),
            awake: body.is_awake() || body.kind() == crate::physics::BodyKind::Static,
            shapes,
        });
        let s = BodyState::of(body);
        states.push(BodyStateFile {
            center: s.center,
            angle: s.angle,
            linear_velocity: s.linear_velocity,
            angular_velocity: s.angular_velocity,
            awake: s.awake,
            sleep_time: s.sleep_time,
            island: s.island,
            // Written only when some shape's reach is not its proxy box.
            reach_boxes: if reach_boxes == proxy_boxes {
                Vec::new()
            } else {
                reach_boxes
            },
            proxy_boxes,
        });
    }
    // Joints name their bodies: by name when named and no other body has that name, else by
    // creation index (`"#3"`).
    let mut name_count: HashMap<&str, usize> = HashMap::new();
    for (_, b) in world.bodies() {
        if let Some(name) = b.name() {
            *name_count.entry(name).or_default() += 1;
        }
    }
    let body_ref = |handle: BodyHandle| -> String {
        let named = world
            .body(handle)
            .and_then(|b| b.name())
            .filter(|name| name_count.get(name) == Some(&1))
            .map(str::to_string);
        named.unwrap_or_else(|| {
            format!("#{}", body_index.get(&handle.index()).copied().unwrap_or(0))
        })
    };
    let mut joints = Vec::new();
    let mut joint_states = Vec::new();
    for (_, j) in world.joints() {
        if let Some(file) = joint_file(world, j, &body_ref) {
            joints.push(file);
            joint_states.push(JointStateFile::from(&j.state()));
        }
    }
    let contacts = world
        .contacts_with_sticky_anchors()
        .filter_map(|(c, sticky)| {
            let shape_a = *shape_id.get(&c.shape_a().index())?;
            let shape_b = *shape_id.get(&c.shape_b().index())?;
            let m = c.manifold();
            Some(ContactFile {
                shape_a,
                shape_b,
                normal: m.normal,
                points: m
                    .points()
                    .iter()
                    .map(|p| ManifoldPointFile {
                        point: p.point,
                        separation: p.separation,
                        id: p.id.into(),
                        normal_impulse: p.normal_impulse,
                        tangent_impulse: p.tangent_impulse,
                        max_normal_impulse: p.max_normal_impulse,
                        persisted: p.persisted,
                    })
                    .collect(),
                cache: c.cache().valid.then(|| {
                    let k = c.cache();
                    ManifoldCacheFile {
                        rotation_a: (k.rotation_a.c, k.rotation_a.s),
                        rotation_b: (k.rotation_b.c, k.rotation_b.s),
                        relative: (k.relative.p, (k.relative.q.c, k.relative.q.s)),
                        anchor_a: k.anchor_a,
                        anchor_b: k.anchor_b,
                        base_separation: k.base_separation,
                    }
                }),
                sticky: sticky.persisted.then(|| {
                    let (s, n) = (sticky, sticky.count);
                    StickyAnchorsFile {
                        ids: s.ids[..n].iter().map(|&id| id.into()).collect(),
                        anchor_a: s.anchor_a[..n].to_vec(),
                        anchor_b: s.anchor_b[..n].to_vec(),
                        normal_a: s.normal_a,
                        normal_b: s.normal_b,
                    }
                }),
            })
        })
        .collect();
    SceneFile {
        name: meta.name.clone(),
        category: meta.category.clone(),
        description: meta.description.clone(),
        camera: meta.camera,
        settings: SettingsFile::from(world.settings()),
        bodies,
        joints,
        generators: Vec::new(),
        state: Some(WorldStateFile {
            step_count: world.step_count(),
            time: world.time(),
            bodies: states,
            contacts,
            joints: joint_states,
        }),
        verdict: None,
    }
}

/// Scene file text (RON, `Scene(...)`), numbers in shortest round-trip form.
pub fn to_text(scene: &SceneFile) -> Result<String, String> {
    let pretty = ron::ser::PrettyConfig::new()
        .struct_names(false)
        .indentor("    ".to_string());
    let body = super::ron_options()
        .to_string_pretty(scene, pretty)
        .map_err(|e| format!("cannot write the scene: {e}"))?;
    Ok(format!(
        "// Exported by Impulse at step {}. `state` makes loading continue bit for bit.\nScene{body}\n",
        scene.state.as_ref().map_or(0, |s| s.step_count)
    ))
}

/// The exact scene text of a world.
pub fn export_world(world: &World, meta: &SceneMeta) -> Result<String, String> {
    to_text(&scene_file(world, meta))
}

/// Write an exported scene (or any text) to `path` atomically: moved to
/// [`crate::files::write_atomic`], the one helper for user files (refuses device nodes,
/// folders and symlinks); re-exported here under its old name.
#[cfg(feature = "testbed")]
pub use crate::files::write_atomic;
