//! Build-time path: compile generated kernels into a static library from a user's
//! `build.rs`, so the final binary embeds them and needs neither a C compiler nor
//! CasADi at run time.
//!
//! ```no_run
//! // build.rs of a crate that embeds kernels (with `fesd-codegen` and `casadi-rs`
//! // as build-dependencies):
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use casadi::{Function, SX};
//! let x = SX::sym("x", 2);
//! let f = Function::new("my_f", &[("x", &x)], &[("y", &x.sin())])?;
//! let mut ctx = fesd_codegen::CodegenContext::new("my_kernels")?;
//! ctx.add(&f)?;
//! fesd_codegen::build_support::compile_static(&ctx.render()?)?;
//! # Ok(()) }
//! ```
//! The binary then declares `extern "C" { fn my_f(…) -> i32; }` (or includes the
//! header from `$OUT_DIR/my_kernels.h` in C) and links `libmy_kernels.a`.

use crate::error::{CodegenError, Result};
use crate::source::GeneratedSource;
use std::path::PathBuf;

/// Writes the source into `$OUT_DIR` and compiles it into `lib<module>.a`, printing the
/// cargo directives that link it. Returns the directory holding the `.c` and `.h`.
pub fn compile_static(src: &GeneratedSource) -> Result<PathBuf> {
    let out_dir = std::env::var_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| CodegenError::NoCompiler("OUT_DIR is not set: call compile_static from a build script".into()))?;
    let c_file = src.write_to(&out_dir)?;
    cc::Build::new()
        .file(&c_file)
        .opt_level(2)
        .flag_if_supported("-Wno-int-conversion")
        .warnings(false)
        .try_compile(&src.module)
        .map_err(|e| CodegenError::CompileFailed { source_file: c_file.clone(), stderr: e.to_string() })?;
    Ok(out_dir)
}

/// Prints the rpath directive for the CasADi SDK, for binaries that also link CasADi
/// (e.g. through `fesd`) and should run without `LD_LIBRARY_PATH`.
pub fn emit_casadi_rpath() -> Result<()> {
    let sdk = casadi_sdk::Sdk::locate().map_err(|e| CodegenError::NoCompiler(e.to_string()))?;
    sdk.emit_rpath();
    Ok(())
}
