//! The C source of a module as data: what code generation renders and the compiler,
//! the cache and an export read.

use crate::compile::{cached_shared, compile_shared, CacheOutcome, CompileOptions};
use crate::error::{io_err, Result};
use crate::library::KernelLibrary;

/// The C source of a module: the `.c` file, its header and the module name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedSource {
    /// Module name: file stem, library name and prefix of module-level symbols.
    pub module: String,
    /// Contents of `<module>.c`.
    pub c_source: String,
    /// Contents of `<module>.h`.
    pub header: String,
    /// Names of the generated functions, in the order they were added.
    pub kernels: Vec<String>,
}

impl GeneratedSource {
    /// Writes `<dir>/<module>.c` and `<dir>/<module>.h`; returns the `.c` path.
    pub fn write_to(&self, dir: &std::path::Path) -> Result<std::path::PathBuf> {
        std::fs::create_dir_all(dir).map_err(io_err("creating", dir))?;
        let c = dir.join(format!("{}.c", self.module));
        let h = dir.join(format!("{}.h", self.module));
        std::fs::write(&c, &self.c_source).map_err(io_err("writing", &c))?;
        std::fs::write(&h, &self.header).map_err(io_err("writing", &h))?;
        Ok(c)
    }
}

impl GeneratedSource {
    /// Compiles into a shared object (or reuses a cached one) and loads it.
    pub fn compile(&self, opts: &CompileOptions) -> Result<KernelLibrary> {
        let (path, outcome) = compile_shared(self, opts)?;
        KernelLibrary::open(&path, self, outcome)
    }

    /// The cached object of this source, loaded, if the cache has it (or an earlier
    /// process's compiler finished it); never runs a compiler.
    pub fn cached(&self, opts: &CompileOptions) -> Result<Option<KernelLibrary>> {
        match cached_shared(self, opts)? {
            Some(path) => KernelLibrary::open(&path, self, CacheOutcome::Hit).map(Some),
            None => Ok(None),
        }
    }
}
