//! Lets this crate's tests (which link CasADi to build the problems they solve) find
//! the SDK's libraries; the libraries this crate builds get no rpath: where they run,
//! the program's own library path holds Ipopt and HiGHS.

fn main() {
    match casadi_sdk::Sdk::locate() {
        Ok(sdk) => println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{}", sdk.lib_dir.display()),
        Err(e) => panic!("{e}"),
    }
    casadi_sdk::emit_rerun_directives();
}
