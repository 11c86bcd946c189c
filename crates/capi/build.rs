//! Lets this crate's tests find the SDK's libraries (Ipopt, HiGHS); the libraries this
//! crate builds get no run path: where they run, the program's own holds them.

fn main() {
    match casadi_sdk::Sdk::locate() {
        Ok(sdk) => println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{}", sdk.lib_dir.display()),
        Err(e) => panic!("{e}"),
    }
    casadi_sdk::emit_rerun_directives();
}
