//! Compiles the C++ shim against the CasADi SDK and links `libcasadi`.

fn main() {
    let sdk = match casadi_sdk::Sdk::locate() {
        Ok(sdk) => sdk,
        Err(e) => {
            println!("cargo:warning={e}");
            panic!("{e}");
        }
    };
    let mut build = cxx_build::bridge("src/ffi.rs");
    // The same definitions as libcasadi itself (thread-safe symbolics change layouts).
    for (name, value) in sdk.compile_definitions() {
        build.define(&name, value.as_deref());
    }
    build
        .file("cpp/shim.cc")
        .include("include")
        // -isystem: CasADi's own headers are not ours to warn about.
        .flag("-isystem")
        .flag(sdk.include_dir.to_str().expect("UTF-8 SDK path"))
        .std("c++17")
        .flag("-pthread")
        .warnings(false)
        .compile("fesd_casadi_shim");
    sdk.emit_cargo_link(&["casadi"]);
    // Dependents' build scripts read these as DEP_CASADI_LIB_DIR / DEP_CASADI_INCLUDE_DIR.
    println!("cargo:lib_dir={}", sdk.lib_dir.display());
    println!("cargo:include_dir={}", sdk.include_dir.display());
    println!("cargo:rerun-if-changed=src/ffi.rs");
    println!("cargo:rerun-if-changed=cpp/shim.cc");
    println!("cargo:rerun-if-changed=include/shim.h");
}
