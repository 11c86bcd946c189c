//! Links `libhighs.so` from the CasADi SDK and sets the rpath of this crate's tests.

fn main() {
    match casadi_sdk::Sdk::locate() {
        Ok(sdk) => sdk.emit_cargo_link(&["highs"]),
        Err(e) => panic!("{e}"),
    }
}
