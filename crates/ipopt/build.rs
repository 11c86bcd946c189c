//! Compiles the C++ application shim against the SDK's Ipopt headers, links
//! `libipopt.so.3` from the CasADi SDK and sets the rpath of this crate's tests.

fn main() {
    let sdk = match casadi_sdk::Sdk::locate() {
        Ok(sdk) => sdk,
        Err(e) => panic!("{e}"),
    };
    cc::Build::new()
        .cpp(true)
        .file("cpp/app.cc")
        // -isystem: Ipopt's headers are not ours to warn about.
        .flag("-isystem")
        .flag(sdk.include_dir.join("coin-or").to_str().expect("UTF-8 SDK path"))
        .std("c++17")
        .warnings(true)
        .compile("fesd_ipopt_app");
    // MUMPS on its own, the reference of the KKT benchmark.
    cc::Build::new()
        .file("cpp/mumps.c")
        .flag("-isystem")
        .flag(sdk.include_dir.join("coin-or").join("mumps").to_str().expect("UTF-8 SDK path"))
        .compile("fesd_mumps_ref");
    sdk.emit_cargo_link(&["ipopt", "coinmumps"]);
    println!("cargo:rerun-if-changed=cpp/app.cc");
    println!("cargo:rerun-if-changed=cpp/mumps.c");
}
