//! Records the target triple for runtime compilation and sets the rpath of tests.

fn main() {
    for var in ["TARGET", "HOST"] {
        let v = std::env::var(var).unwrap_or_default();
        println!("cargo:rustc-env=FESD_CODEGEN_{var}={v}");
    }
    match casadi_sdk::Sdk::locate() {
        Ok(sdk) => sdk.emit_rpath(),
        Err(e) => panic!("{e}"),
    }
}
