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

    // A fingerprint of the harness's sources, so that the parent can refuse a stale child
    // binary (the AVX2 build in its own target dir) whose scenes or port differ from its own.
    let src = format!("{}/src", env!("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed={src}");
    let mut files: Vec<_> = std::fs::read_dir(&src)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    // FNV-1a, 64 bit, over the file names and contents.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for path in files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let bytes = std::fs::read(&path).unwrap_or_default();
        for b in name.unwrap_or_default().bytes().chain(bytes) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rustc-env=BENCH_SOURCE_HASH={hash:016x}");

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
