//! Embeds the CasADi SDK's library directory as rpath of the facade's tests,
//! examples and benchmarks, so they run without `LD_LIBRARY_PATH`.

fn main() {
    match casadi_sdk::Sdk::locate() {
        Ok(sdk) => sdk.emit_rpath(),
        Err(e) => panic!("{e}"),
    }
    println!("cargo:rerun-if-changed=build.rs");
}
