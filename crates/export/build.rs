//! Lets this crate's tests (which link CasADi) find the SDK's libraries.

fn main() {
    match casadi_sdk::Sdk::locate() {
        Ok(sdk) => println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{}", sdk.lib_dir.display()),
        Err(e) => panic!("{e}"),
    }
    casadi_sdk::emit_rerun_directives();
}
