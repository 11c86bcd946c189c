//! Sets the rpath of this crate's tests to the CasADi SDK.

fn main() {
    match casadi_sdk::Sdk::locate() {
        Ok(sdk) => sdk.emit_rpath(),
        Err(e) => panic!("{e}"),
    }
}
