//! Breakable joints (issue 16): thresholds checked at the end of each step, under every
//! solver; events; broken bodies moving freely; broken state kept by determinism and
//! exact export. Every load is compared with the statics it must equal (m g, m g L).

mod common;

use common::*;
use impulse::physics::joint::*;
use impulse::physics::*;
use impulse::scene::export::{export_world, SceneMeta};
use impulse::scene::{self, CameraFile};

const G: f32 = 10.0;

fn settings(solver: SolverKind) -> SolverSettings {
    let mut s = awake_settings();
    s.gravity = Vec2::new(0.0, -G);
    s.solver = solver;
    if solver.sub_steps() {
        s.substeps = 4;
    }
    s
}

/// Thresholds work the same under every solver: every test runs under all ten.
const SOLVERS: [SolverKind; 10] = SolverKind::ALL;

/// A box of `mass` kg (1 x 1 m) hanging from a static anchor by a weld at its centre: the
/// weld carries `mass g` and no torque.
fn hanging_weld(
    solver: SolverKind,
    mass: f32,
    def: impl Fn(JointDef) -> JointDef,
) -> (World, BodyHandle, JointHandle) {
    let mut world = World::new(settings(solver));
    let top = world
        .create_body(&BodyDef::fixed(Vec2::new(0.0, 5.0)))
        .unwrap();
    let b = dynamic_box(
        &mut world,
        Vec2::new(0.0, 4.0),
        Vec2::new(0.5, 0.5),
        mass,
        0.5,
    );
    let j = world
        .create_joint(&def(JointDef::new(
            top,
            b,
            WeldJointDef::new(Vec2::new(0.0, 4.0)),
        )))
        .unwrap();
    (world, b, j)
}

/// A 2 x 0.2 m beam of `mass` kg welded at its left end to a static wall: the weld carries
/// `mass g` and the torque `mass g L` with L = 1 m.
fn cantilever(
    solver: SolverKind,
    mass: f32,
    def: impl Fn(JointDef) -> JointDef,
) -> (World, BodyHandle, JointHandle) {
    let mut world = World::new(settings(solver));
    let wall = world
        .create_body(&BodyDef::fixed(Vec2::new(0.0, 5.0)))
        .unwrap();
    let density = mass / (2.0 * 0.2);
    let b = dynamic_box(
        &mut world,
        Vec2::new(1.0, 5.0),
        Vec2::new(1.0, 0.1),
        density,
        0.5,
    );
    let j = world
        .create_joint(&def(JointDef::new(
            wall,
            b,
            WeldJointDef::new(Vec2::new(0.0, 5.0)),
        )))
        .unwrap();
    (world, b, j)
}

fn steps(world: &mut World, n: usize) -> Vec<JointEvent> {
    let mut events = Vec::new();
    for _ in 0..n {
        world.step(DT);
        events.extend(world.joint_events().iter().cloned());
    }
    events
}

#[test]
fn a_weld_breaks_exactly_when_the_hanging_weight_exceeds_break_force() {
    let mass = 3.0;
    let weight = mass * G;
    for solver in SOLVERS {
        // 2 % above the weight: holds for two seconds.
        let (mut world, b, j) = hanging_weld(solver, mass, |d| d.break_force(1.02 * weight));
        let events = steps(&mut world, 120);
        assert!(
            events.is_empty(),
            "{solver:?}: broke under its threshold: {events:?}"
        );
        assert!(world.joint(j).unwrap().is_enabled());
        let load = world.joint(j).unwrap().reaction_force(world.joint_inv_dt());
        assert!(
            (load.length() - weight).abs() < 0.01 * weight && load.y > 0.0,
            "{solver:?}: the weld carries {load} instead of m g = {weight} N"
        );
        assert!((pos(&world, b).y - 4.0).abs() < 0.01);

        // 2 % below: breaks in the first step, by force, and the event says so.
        let (mut world, _, j) = hanging_weld(solver, mass, |d| d.break_force(0.98 * weight));
        world.step(DT);
        let events = world.joint_events().to_vec();
        assert_eq!(events.len(), 1, "{solver:?}: {events:?}");
        let e = &events[0];
        assert_eq!(e.joint, j);
        assert_eq!(e.cause, BreakCause::Force);
        assert_eq!(e.step, 1);
        assert!(!e.destroyed);
        assert_eq!(e.threshold, 0.98 * weight);
        assert!(
            (e.load - weight).abs() < 0.02 * weight,
            "{solver:?}: broke at {} N, the weight is {weight} N",
            e.load
        );
        assert!(!world.joint(j).unwrap().is_enabled());
        // The next step records nothing: events last one step, a broken joint breaks once.
        world.step(DT);
        assert!(world.joint_events().is_empty());
    }
}

/// A downward pull growing 5 N per second on the hanging box: the weld breaks at the step
/// where `m g + pull` first exceeds `break_force`, within 2 %.
#[test]
fn a_weld_breaks_when_a_growing_load_reaches_break_force() {
    let mass = 2.0;
    let threshold = 30.0; // m g = 20 N: the pull must reach 10 N, at t = 2 s.
    for solver in SOLVERS {
        let (mut world, b, j) = hanging_weld(solver, mass, |d| d.break_force(threshold));
        let mut broke = None;
        for k in 1..=400 {
            let pull = 5.0 * k as f32 * DT;
            let p = pos(&world, b);
            world.apply_force(b, Vec2::new(0.0, -pull), p).unwrap();
            world.step(DT);
            if let Some(e) = world.joint_events().first() {
                broke = Some((k, e.clone(), mass * G + pull));
                break;
            }
        }
        let (k, e, expected) = broke.expect("the weld broke");
        assert_eq!(e.joint, j);
        assert_eq!(e.step, k as u64);
        assert!(e.load > threshold);
        assert!(
            (e.load - threshold).abs() < 0.02 * threshold
                && (expected - threshold).abs() < 0.02 * threshold,
            "{solver:?}: broke at step {k} with {} N (m g + pull = {expected} N), threshold \
             {threshold} N",
            e.load
        );
    }
}

#[test]
fn a_cantilever_weld_breaks_when_its_torque_exceeds_break_torque() {
    let mass = 4.0;
    let torque = mass * G * 1.0;
    for solver in SOLVERS {
        let (mut world, _, j) = cantilever(solver, mass, |d| d.break_torque(1.02 * torque));
        let events = steps(&mut world, 120);
        assert!(
            events.is_empty(),
            "{solver:?}: broke under its threshold: {events:?}"
        );
        let t = world
            .joint(j)
            .unwrap()
            .reaction_torque(world.joint_inv_dt());
        assert!(
            (t.abs() - torque).abs() < 0.01 * torque,
            "{solver:?}: the weld carries {t} N m instead of m g L = {torque}"
        );

        let (mut world, _, j) = cantilever(solver, mass, |d| d.break_torque(0.98 * torque));
        let events = steps(&mut world, 5);
        assert_eq!(events.len(), 1, "{solver:?}: {events:?}");
        let e = &events[0];
        assert_eq!((e.joint, e.cause, e.step), (j, BreakCause::Torque, 1));
        assert!(
            (e.load - torque).abs() < 0.02 * torque,
            "{solver:?}: broke at {} N m, m g L is {torque}",
            e.load
        );
    }
}

/// After breaking, the box falls freely: after N (sub-)steps of h, the semi-implicit Euler
/// fall `g h² N (N + 1) / 2` (½ g t² plus the integrator's half step), within 1 %.
#[test]
fn a_broken_joints_bodies_move_apart_freely() {
    for solver in SOLVERS {
        let (mut world, b, j) = hanging_weld(solver, 1.0, |d| d.break_force(5.0));
        world.step(DT);
        assert!(!world.joint(j).unwrap().is_enabled());
        let (y0, v0) = (pos(&world, b).y, world.body(b).unwrap().linear_velocity().y);
        let n = 30;
        steps(&mut world, n);
        let t = n as f32 * DT;
        let fallen = y0 - pos(&world, b).y;
        let k = world.settings().substeps.max(1) as usize * n;
        let h = t / k as f32;
        let expected = -v0 * t + 0.5 * G * h * h * (k * (k + 1)) as f32;
        assert!(
            (fallen - expected).abs() < 0.01 * expected,
            "{solver:?}: fell {fallen} m in {t} s, free fall gives {expected} m"
        );
        // Re-enabled where it hangs still (a fresh world, disabled by hand), it holds again.
        let (mut world, b, j) = hanging_weld(solver, 1.0, |d| d);
        world.set_joint_enabled(j, false).unwrap();
        world.step(DT);
        assert!(world.body(b).unwrap().linear_velocity().y < -0.1);
        world.set_joint_enabled(j, true).unwrap();
        steps(&mut world, 60);
        assert!(world.body(b).unwrap().linear_velocity().length() < 0.05);
        assert!((pos(&world, b).y - 4.0).abs() < 0.01);
    }
}

#[test]
fn on_break_destroy_removes_the_joint_and_says_so() {
    let (mut world, _, j) = hanging_weld(SolverKind::SoftStep, 1.0, |d| {
        d.break_force(5.0).on_break(OnBreak::Destroy).name("hook")
    });
    world.step(DT);
    let e = world.joint_events()[0].clone();
    assert!(e.destroyed);
    assert_eq!(e.name.as_deref(), Some("hook"));
    assert!(world.joint(j).is_none());
    assert_eq!(world.joint_count(), 0);
}

#[test]
fn thresholds_out_of_range_are_refused_naming_the_field() {
    let mut world = World::new(settings(SolverKind::Classic));
    let a = world.create_body(&BodyDef::fixed(Vec2::ZERO)).unwrap();
    let b = dynamic_box(&mut world, Vec2::new(0.0, -1.0), Vec2::splat(0.5), 1.0, 0.5);
    let weld = || JointDef::new(a, b, WeldJointDef::new(Vec2::ZERO));
    for (def, field) in [
        (weld().break_force(-1.0), "break_force"),
        (weld().break_force(f32::NAN), "break_force"),
        (weld().break_torque(2e12), "break_torque"),
    ] {
        let e = world.create_joint(&def).unwrap_err().to_string();
        assert!(e.contains(field), "{e}");
    }
    assert_eq!(world.joint_count(), 0);
}

/// A chain of welded boxes, some welds breakable, hit by a falling box: two runs agree bit
/// for bit, the export of the broken world loads with the same hash, and both continue
/// identically.
#[test]
fn broken_state_survives_determinism_and_exact_export() {
    let make = || {
        let mut world = World::new(settings(SolverKind::SoftStep));
        ground(&mut world, 0.6);
        let post = world
            .create_body(&BodyDef::fixed(Vec2::new(-0.5, 3.0)))
            .unwrap();
        let mut prev = post;
        for i in 0..6 {
            let b = dynamic_box(
                &mut world,
                Vec2::new(0.5 + i as f32, 3.0),
                Vec2::new(0.5, 0.1),
                2.0,
                0.5,
            );
            let def = JointDef::new(prev, b, WeldJointDef::new(Vec2::new(i as f32, 3.0)))
                .break_torque(60.0)
                .break_force(400.0);
            world.create_joint(&def).unwrap();
            prev = b;
        }
        dynamic_box(&mut world, Vec2::new(4.0, 6.0), Vec2::splat(0.5), 20.0, 0.5);
        world
    };
    let (mut one, mut two) = (make(), make());
    let mut broken = 0;
    for _ in 0..120 {
        one.step(DT);
        two.step(DT);
        broken += one.joint_events().len();
        assert_eq!(one.joint_events(), two.joint_events());
    }
    assert!(broken > 0, "the falling box broke no weld");
    assert_eq!(one.state_hash(), two.state_hash());
    let disabled = one.joints().filter(|(_, j)| !j.is_enabled()).count();
    assert_eq!(disabled, broken);

    let meta = SceneMeta {
        name: "broken".into(),
        category: "Test".into(),
        description: String::new(),
        camera: CameraFile::default(),
    };
    // Broken neighbours touch again: contacts between bodies of a disabled weld, which the
    // export must keep (a joint made disabled does not drop its bodies' contacts).
    let parted: Vec<(BodyHandle, BodyHandle)> = one
        .joints()
        .filter(|(_, j)| !j.is_enabled())
        .map(|(_, j)| (j.body_a(), j.body_b()))
        .collect();
    let touching = one
        .contacts()
        .filter(|c| c.manifold().count > 0)
        .filter(|c| {
            parted.contains(&(c.body_a(), c.body_b())) || parted.contains(&(c.body_b(), c.body_a()))
        })
        .count();
    assert!(touching > 0, "no broken neighbours touch");
    let text = export_world(&one, &meta).unwrap();
    let mut loaded = scene::load_str(&text, "export.ron").unwrap().world;
    assert_eq!(loaded.state_hash(), one.state_hash());
    let still_broken = loaded.joints().filter(|(_, j)| !j.is_enabled()).count();
    assert_eq!(still_broken, disabled);
    for _ in 0..60 {
        one.step(DT);
        loaded.step(DT);
    }
    assert_eq!(loaded.state_hash(), one.state_hash());

    // The broken mark is in the hash: re-enabling a joint changes it.
    let (h, _) = one.joints().find(|(_, j)| !j.is_enabled()).unwrap();
    let before = one.state_hash();
    one.set_joint_enabled(h, true).unwrap();
    assert_ne!(one.state_hash(), before);
}

fn scene_world(file: &str, solver: SolverKind) -> World {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(file);
    let mut world = scene::load_file(&path).unwrap().world;
    let settings = SolverSettings {
        solver,
        ..*world.settings()
    };
    world.set_settings(settings).unwrap();
    world
}

/// The three breakable scenes do what their descriptions say, under every solver: each
/// holds its own weight (no event before the dropped load arrives; the wall, never hit,
/// none at all in 5 s), and breaks when the load lands: the bridge at its middle weld (under
/// the box), the rope at the impact.
#[test]
fn breakable_scenes_hold_their_own_weight_and_break_under_the_load() {
    for solver in SOLVERS {
        // The descriptions' numbers (break steps, the middle weld first) are the classic
        // solver's and the soft step's. Under the other families the scenes must still
        // hold their own weight and break only once the load has landed: where and how
        // soon is the solver's (TGS-Sticky, whose anchors slip, lets the bridge's ends
        // take the impact first and the rope stretch until step 57), which compare mode
        // shows.
        let described = matches!(solver, SolverKind::Classic | SolverKind::SoftStep);
        let window = |lo: u64, hi: u64| if described { lo..=hi } else { lo..=149 };
        let mut wall = scene_world("joints/breakable_wall.ron", solver);
        assert!(
            steps(&mut wall, 300).is_empty(),
            "{solver:?}: the wall broke alone"
        );

        // The box falls 3.3 m: it lands after sqrt(2 x 3.3 / 10) = 0.81 s, step 49.
        let mut bridge = scene_world("joints/breakable_bridge.ron", solver);
        let events = steps(&mut bridge, 150);
        if solver == SolverKind::Xpbd {
            // XPBD's known limit (solver/xpbd.rs): its joints are projected at position
            // level and only their velocity rows store an impulse, so the impact the
            // projection absorbs is not seen as load and the bridge holds. Pinned, so that
            // counting the projection's impulse shows here.
            assert!(events.is_empty(), "XPBD now breaks the bridge: {events:?}");
            continue;
        }
        let first = events
            .first()
            .unwrap_or_else(|| panic!("{solver:?}: the bridge did not break"))
            .step;
        assert!(
            window(45, 60).contains(&first),
            "{solver:?}: first break at step {first}"
        );
        let names: Vec<_> = events
            .iter()
            .filter(|e| e.step == first)
            .filter_map(|e| e.name.clone())
            .collect();
        if described {
            assert!(names.iter().any(|n| n == "weld6"), "{solver:?}: {names:?}");
        }
        assert!(events
            .iter()
            .all(|e| e.load > 1000.0 && e.cause == BreakCause::Torque));

        // The box falls 3 m onto the platform: 0.77 s, step 47.
        let mut rope = scene_world("joints/breakable_rope.ron", solver);
        let events = steps(&mut rope, 150);
        let first = events
            .first()
            .unwrap_or_else(|| panic!("{solver:?}: the rope did not snap"))
            .step;
        assert!(
            window(44, 55).contains(&first),
            "{solver:?}: first break at step {first}"
        );
        assert!(events
            .iter()
            .all(|e| e.load > 300.0 && e.cause == BreakCause::Force));
    }
}

/// A scene file's threshold out of range is refused naming the joint, the field, the value
/// and the range.
#[test]
fn scene_thresholds_out_of_range_name_field_value_and_range() {
    let text = |field: &str, value: &str| {
        format!(
            "Scene(name: \"t\", bodies: [(name: \"a\", kind: Static), (name: \"b\", position: \
             (0.0, -1.0), shapes: [(shape: Box(half_width: 0.5, half_height: 0.5))])], joints: \
             [(name: \"hook\", body_a: \"a\", body_b: \"b\", {field}: {value}, kind: \
             Weld(anchor: (0.0, 0.0)))])"
        )
    };
    for (field, value, shown) in [
        ("break_force", "-5.0", "-5"),
        ("break_torque", "2e12", "2e12"),
    ] {
        let errors = match scene::load_str(&text(field, value), "t.ron") {
            Ok(_) => panic!("{field}: {value} was accepted"),
            Err(e) => e.to_string(),
        };
        for part in ["hook", field, shown, "1e12"] {
            assert!(errors.contains(part), "{part} not in: {errors}");
        }
    }
    let ok = scene::load_str(&text("on_break", "Destroy"), "t.ron").unwrap();
    let (_, j) = ok.world.joints().next().unwrap();
    assert_eq!(j.on_break(), OnBreak::Destroy);
    assert_eq!(j.break_force(), None);
}
