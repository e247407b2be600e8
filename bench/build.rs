//! Records the C flags of this build so the report can say how Box2D was compiled:
//! `boxdd-sys` builds Box2D with the `cc` crate at -O2 and without `NDEBUG` (Box2D's asserts
//! on) unless `CFLAGS` adds flags; the same cargo invocation hands the same `CFLAGS` to both.
fn main() {
    for var in ["CFLAGS", "CFLAGS_x86_64_unknown_linux_gnu", "TARGET_CFLAGS"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let target = std::env::var("TARGET").unwrap_or_default();
    let target_var = format!("CFLAGS_{}", target.replace('-', "_"));
    println!("cargo:rerun-if-env-changed={target_var}");
    let flags: Vec<String> = ["CFLAGS", "TARGET_CFLAGS", target_var.as_str()]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .filter(|s| !s.trim().is_empty())
        .collect();
    println!("cargo:rustc-env=BENCH_BOX2D_CFLAGS={}", flags.join(" "));

    // The peers' versions as the lock file resolved them, for the report header.
    let lock_path = format!("{}/../Cargo.lock", env!("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed={lock_path}");
    let lock = std::fs::read_to_string(&lock_path).unwrap_or_default();
    for (krate, var) in [
        ("boxdd", "BENCH_BOXDD_VERSION"),
        ("rapier2d", "BENCH_RAPIER_VERSION"),
    ] {
        let needle = format!("name = \"{krate}\"\nversion = \"");
        let version = lock
            .find(&needle)
            .and_then(|at| lock[at + needle.len()..].split('"').next())
            .unwrap_or("unknown");
        println!("cargo:rustc-env={var}={version}");
    }
}
