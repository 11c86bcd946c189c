//! Collecting functions and rendering them as one C translation unit.

use crate::compile::CompileOptions;
use crate::error::{io_err, CodegenError, Result};
use crate::library::KernelLibrary;
use crate::source::GeneratedSource;
use casadi::{CodeGenerator, CodegenOptions, Function};
use std::collections::BTreeSet;

/// Collects the kernels of one model before any code is emitted.
pub struct CodegenContext {
    module: String,
    functions: Vec<Function>,
    names: BTreeSet<String>,
}

pub(crate) fn check_identifier(name: &str) -> Result<()> {
    let bad = |reason: &str| Err(CodegenError::InvalidName { name: name.to_string(), reason: reason.to_string() });
    let mut chars = name.chars();
    match chars.next() {
        None => return bad("empty"),
        Some(c) if !(c.is_ascii_alphabetic() || c == '_') => return bad("must start with a letter or '_'"),
        _ => {}
    }
    if !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return bad("only ASCII letters, digits and '_' are allowed");
    }
    if name.starts_with("casadi_") {
        return bad("the prefix 'casadi_' is reserved for CasADi's helpers");
    }
    Ok(())
}

impl CodegenContext {
    /// A context for the module `module` (a C identifier).
    pub fn new(module: &str) -> Result<CodegenContext> {
        check_identifier(module)?;
        Ok(CodegenContext { module: module.to_string(), functions: Vec::new(), names: BTreeSet::new() })
    }

    /// The module name.
    pub fn module(&self) -> &str {
        &self.module
    }

    /// Adds a function; its name becomes the C symbol and must be unique in the module.
    pub fn add(&mut self, f: &Function) -> Result<()> {
        let name = f.name();
        check_identifier(&name)?;
        if !self.names.insert(name.clone()) {
            return Err(CodegenError::InvalidName { name, reason: "added twice to the module".into() });
        }
        self.functions.push(f.clone());
        Ok(())
    }

    /// Names of the collected functions.
    pub fn kernel_names(&self) -> Vec<String> {
        self.functions.iter().map(|f| f.name()).collect()
    }

    /// Emits the C source and header of all collected functions (without CasADi's
    /// per-operation comments: they spell out index lists whose length grows with an
    /// assembled problem), with the module's kernel table
    /// (`<module>_kernel_table()`, see [`KernelLibrary::from_table`]).
    pub fn render(&self) -> Result<GeneratedSource> {
        let mut gen = CodeGenerator::new(&self.module, &CodegenOptions { comments: false, ..Default::default() })?;
        for f in &self.functions {
            gen.add(f, false)?;
        }
        let dir = tempdir_for(&self.module)?;
        let c_path = gen.generate(&dir)?;
        let h_path = c_path.with_extension("h");
        let mut c_source = std::fs::read_to_string(&c_path).map_err(io_err("reading", &c_path))?;
        let mut header = std::fs::read_to_string(&h_path).map_err(io_err("reading", &h_path))?;
        let _ = std::fs::remove_dir_all(&dir);
        let kernels = self.kernel_names();
        crate::entries::add_kernel_table(&self.module, &kernels, &mut c_source, &mut header);
        Ok(GeneratedSource { module: self.module.clone(), c_source, header, kernels })
    }

    /// Renders, compiles (or reuses the cached object) and loads the module.
    pub fn compile(&self, opts: &CompileOptions) -> Result<KernelLibrary> {
        self.render()?.compile(opts)
    }
}

fn tempdir_for(module: &str) -> Result<std::path::PathBuf> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("fesd-gen-{module}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(io_err("creating", &dir))?;
    Ok(dir)
}
