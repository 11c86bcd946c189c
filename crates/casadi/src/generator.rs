//! CasADi's C code generator.

use crate::error::{Error, Result};
use crate::ffi::bridge as ffi;
use crate::function::Function;
use cxx::UniquePtr;
use std::path::{Path, PathBuf};

/// Options of [`CodeGenerator`]; the C types are pinned explicitly so generated code
/// and the code that calls it agree on the ABI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodegenOptions {
    /// Also write a header `<name>.h` declaring every function (default `true`).
    pub with_header: bool,
    /// Comment every operation in the generated code (CasADi's `verbose`, default
    /// `true`). The comments spell out index lists in full, so for problems assembled
    /// from mapped kernels they grow with the problem while the code does not.
    pub comments: bool,
    /// The C type of reals (default `"double"`).
    pub casadi_real: String,
    /// The C type of integers (default `"long long int"`, i.e. `i64`).
    pub casadi_int: String,
    /// Prefix of CasADi's internal helper symbols (default empty: CasADi's own).
    pub prefix: String,
}

impl Default for CodegenOptions {
    fn default() -> Self {
        CodegenOptions {
            with_header: true,
            comments: true,
            casadi_real: "double".into(),
            casadi_int: "long long int".into(),
            prefix: String::new(),
        }
    }
}

/// Collects functions and writes them as one C source file.
pub struct CodeGenerator {
    inner: UniquePtr<ffi::CodeGenerator>,
    name: String,
}

impl Drop for CodeGenerator {
    fn drop(&mut self) {
        let _g = crate::lock::guard();
        drop(std::mem::replace(&mut self.inner, UniquePtr::null()));
    }
}

impl CodeGenerator {
    /// A generator for the file `<name>.c` (and `<name>.h`).
    pub fn new(name: &str, opts: &CodegenOptions) -> Result<CodeGenerator> {
        let _g = crate::lock::guard();
        let inner = ffi::cg_new(name, opts.with_header, opts.comments, &opts.casadi_real, &opts.casadi_int, &opts.prefix)?;
        Ok(CodeGenerator { inner, name: name.to_string() })
    }

    /// Adds a function (and, if `with_jac_sparsity`, its Jacobian sparsity query).
    pub fn add(&mut self, f: &Function, with_jac_sparsity: bool) -> Result<()> {
        let _g = crate::lock::guard();
        Ok(ffi::cg_add(self.inner.pin_mut(), &f.inner, with_jac_sparsity)?)
    }

    /// The C source as a string.
    pub fn dump(&mut self) -> Result<String> {
        let _g = crate::lock::guard();
        Ok(ffi::cg_dump(self.inner.pin_mut())?)
    }

    /// Writes `<dir>/<name>.c` (and the header) and returns the source path.
    pub fn generate(&mut self, dir: &Path) -> Result<PathBuf> {
        let _g = crate::lock::guard();
        let mut prefix = dir.to_str().ok_or_else(|| Error::InvalidArgument("non-UTF-8 path".into()))?.to_string();
        if !prefix.ends_with('/') {
            prefix.push('/');
        }
        let file = ffi::cg_generate(self.inner.pin_mut(), &prefix)?;
        Ok(PathBuf::from(file))
    }

    /// The file stem of the generated source.
    pub fn name(&self) -> &str {
        &self.name
    }
}
