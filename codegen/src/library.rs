//! Loaded kernel libraries and calls into generated functions.

use crate::compile::{tables_path, CacheOutcome, CompileOptions};
use crate::entries::{BindTablesFn, CInt, KernelEntry, KernelTable, SizeFn, KERNEL_TABLE_ABI};
use crate::error::{CodegenError, Result};
use crate::source::GeneratedSource;
use crate::tables::{bind_symbol, ConstantTables};
use std::ffi::{c_int, CStr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A sparsity pattern in compressed column storage, as read from generated code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ccs {
    /// Number of rows.
    pub nrow: usize,
    /// Number of columns.
    pub ncol: usize,
    /// Column pointers (`ncol + 1`).
    pub colind: Vec<usize>,
    /// Row index of each nonzero.
    pub row: Vec<usize>,
}

impl Ccs {
    /// Number of structural nonzeros.
    pub fn nnz(&self) -> usize {
        self.row.len()
    }

    /// `(rows, cols)` of every nonzero in storage order.
    pub fn triplets(&self) -> (Vec<usize>, Vec<usize>) {
        let mut cols = Vec::with_capacity(self.nnz());
        for c in 0..self.ncol {
            cols.extend(std::iter::repeat_n(c, self.colind[c + 1] - self.colind[c]));
        }
        (self.row.clone(), cols)
    }

    /// Decodes CasADi's compressed pattern `[nrow, ncol, colind…, row…]`
    /// (or `[nrow, ncol, 1]` for a dense pattern).
    ///
    /// # Safety
    /// `p` must point to a pattern written by CasADi's code generator.
    unsafe fn from_compressed(p: *const CInt) -> Ccs {
        // SAFETY: the caller's contract above; every read stays within the pattern's
        // own length, given by its header.
        unsafe {
            let nrow = *p as usize;
            let ncol = *p.add(1) as usize;
            if ncol == 0 {
                // No columns: `[nrow, 0, colind_0]` with colind_0 either 0 or the dense flag 1.
                return Ccs { nrow, ncol, colind: vec![0], row: vec![] };
            }
            if *p.add(2) == 1 {
                // Dense shorthand.
                let colind = (0..=ncol).map(|c| c * nrow).collect();
                let row = (0..ncol).flat_map(|_| 0..nrow).collect();
                return Ccs { nrow, ncol, colind, row };
            }
            let colind: Vec<usize> = (0..=ncol).map(|c| *p.add(2 + c) as usize).collect();
            let nnz = colind[ncol];
            let row = (0..nnz).map(|k| *p.add(3 + ncol + k) as usize).collect();
            Ccs { nrow, ncol, colind, row }
        }
    }
}

/// Where a library's code lives: a loaded shared object, or a module linked into the
/// program, reached through its kernel table.
enum Code {
    Shared(libloading::Library),
    Linked(&'static KernelTable),
}

/// A library's code and the constant tables it points into. Both are released together
/// under the registry's lock ([`BOUND_TABLES`]), so that no other thread reloads the
/// object between its unloading and the tables' release and finds tables that look
/// bound to it.
struct Loaded {
    code: Option<Code>,
    tables: Option<Arc<ConstantTables>>,
}

impl Loaded {
    fn code(&self) -> &Code {
        self.code.as_ref().expect("an object stays loaded until its handle is dropped")
    }
}

impl Drop for Loaded {
    fn drop(&mut self) {
        let _bound = BOUND_TABLES.lock().unwrap_or_else(|e| e.into_inner());
        drop(self.code.take());
        drop(self.tables.take());
    }
}

/// The tables bound into each loaded object, by path (a linked module by
/// [`linked_path`]). Opening the same object twice gives the same handle and the same
/// static pointers, so the second opener must use (and keep alive) the tables the first
/// one bound instead of binding its own, which would dangle once either is dropped. An
/// entry dies with its last user; the object is unloaded then too, and its next load
/// binds afresh.
static BOUND_TABLES: std::sync::Mutex<Vec<(PathBuf, std::sync::Weak<ConstantTables>)>> = std::sync::Mutex::new(Vec::new());

/// A loaded shared object of generated kernels.
pub struct KernelLibrary {
    lib: Arc<Loaded>,
    path: PathBuf,
    outcome: CacheOutcome,
    kernels: Vec<String>,
}

impl KernelLibrary {
    pub(crate) fn open(path: &Path, src: &GeneratedSource, outcome: CacheOutcome) -> Result<KernelLibrary> {
        Self::open_module(path, &src.module, &src.kernels, outcome)
    }

    pub(crate) fn open_module(path: &Path, module: &str, kernels: &[String], outcome: CacheOutcome) -> Result<KernelLibrary> {
        // Loading and binding under one lock: another thread must not see the object
        // loaded with its tables not yet bound, or bind them a second time.
        let mut bound = BOUND_TABLES.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the library is code we generated; its initializers are CasADi's (none).
        let lib = unsafe { libloading::Library::new(path) }
            .map_err(|e| CodegenError::Load { path: path.to_path_buf(), message: e.to_string() })?;
        let tables = Self::bound_tables(&mut bound, path, || {
            // SAFETY: the binding function is generated by `split_tables` with this signature.
            let bind = unsafe { lib.get::<BindTablesFn>(bind_symbol(module).as_bytes()) }.ok().map(|f| *f);
            match bind {
                Some(bind) => {
                    let file = tables_path(path);
                    let bytes = std::fs::read(&file)
                        .map_err(|e| CodegenError::CorruptCache { path: file.clone(), reason: format!("unreadable ({e})") })?;
                    Self::bind_tables(bind, &bytes, &file).map(Some)
                }
                None => Ok(None),
            }
        })?;
        drop(bound);
        let loaded = Loaded { code: Some(Code::Shared(lib)), tables };
        let this = KernelLibrary { lib: Arc::new(loaded), path: path.to_path_buf(), outcome, kernels: kernels.to_vec() };
        let int_size: SizeFn = this.symbol(&format!("{module}_casadi_int_size"))?;
        let real_size: SizeFn = this.symbol(&format!("{module}_casadi_real_size"))?;
        this.check_sizes(int_size, real_size)?;
        Ok(this)
    }

    /// The kernels of a module linked into this program, from its kernel table (what the
    /// module's `<module>_kernel_table()` returns); `tables` are its binding function
    /// and constant tables (in [`ConstantTables::to_bytes`]'s form) if
    /// [`split_tables`](crate::split_tables) moved any out of its C. No dynamic loader
    /// and no file is involved; [`KernelLibrary::path`] is `<linked module>`.
    ///
    /// # Safety
    /// `table` must be what a module generated by this crate's
    /// [`CodegenContext::render`](crate::CodegenContext::render) returns, and `tables`'s
    /// function that module's `<module>_bind_tables`.
    pub unsafe fn from_table(table: &'static KernelTable, tables: Option<(BindTablesFn, &[u8])>) -> Result<KernelLibrary> {
        if table.abi_version != KERNEL_TABLE_ABI {
            return Err(CodegenError::Abi(format!(
                "the kernel table has version {}; this fesd reads version {KERNEL_TABLE_ABI}",
                table.abi_version
            )));
        }
        // SAFETY: the caller's contract: the generated table holds a module name and
        // `n_kernels` entries with C-string names, all static.
        let (module, entries) = unsafe {
            let module = CStr::from_ptr(table.module).to_string_lossy().into_owned();
            let entries = std::slice::from_raw_parts(table.kernels, table.n_kernels.max(0) as usize);
            (module, entries)
        };
        // SAFETY: as above.
        let kernels = entries.iter().map(|e| unsafe { CStr::from_ptr(e.name) }.to_string_lossy().into_owned()).collect();
        let path = linked_path(&module);
        let mut bound = BOUND_TABLES.lock().unwrap_or_else(|e| e.into_inner());
        let tables = Self::bound_tables(&mut bound, &path, || match tables {
            Some((bind, bytes)) => Self::bind_tables(bind, bytes, &path).map(Some),
            None => Ok(None),
        })?;
        drop(bound);
        let loaded = Loaded { code: Some(Code::Linked(table)), tables };
        let this = KernelLibrary { lib: Arc::new(loaded), path, outcome: CacheOutcome::Hit, kernels };
        this.check_sizes(table.casadi_int_size, table.casadi_real_size)?;
        Ok(this)
    }

    /// The tables already bound into the code at `path`, or those `bind` binds (kept in
    /// the registry `bound`, whose lock the caller holds).
    fn bound_tables(
        bound: &mut Vec<(PathBuf, std::sync::Weak<ConstantTables>)>,
        path: &Path,
        bind: impl FnOnce() -> Result<Option<ConstantTables>>,
    ) -> Result<Option<Arc<ConstantTables>>> {
        bound.retain(|(_, t)| t.strong_count() > 0);
        if let Some(t) = bound.iter().find(|(p, _)| p == path).and_then(|(_, t)| t.upgrade()) {
            return Ok(Some(t));
        }
        let t = bind()?.map(Arc::new);
        if let Some(t) = &t {
            bound.push((path.to_path_buf(), Arc::downgrade(t)));
        }
        Ok(t)
    }

    /// Checks that the generated code's `casadi_int` and `casadi_real` are 8 bytes wide.
    fn check_sizes(&self, int_size: SizeFn, real_size: SizeFn) -> Result<()> {
        // SAFETY: both are `int f(void)` in the generated code.
        let (i, r) = unsafe { (int_size(), real_size()) };
        if i as usize != size_of::<CInt>() || r as usize != size_of::<f64>() {
            return Err(CodegenError::Abi(format!("casadi_int has {i} bytes and casadi_real {r}; expected 8 and 8")));
        }
        Ok(())
    }

    /// Reads the constant tables `bytes` (from `file`) and points the object's tables
    /// into them with its binding function `bind`.
    fn bind_tables(bind: BindTablesFn, bytes: &[u8], file: &Path) -> Result<ConstantTables> {
        let tables = ConstantTables::from_bytes(bytes, file)?;
        // SAFETY: the pointers stay valid as long as `tables`, which the library's
        // handle keeps (and drops only after unloading the object).
        let code = unsafe { bind(tables.ints.as_ptr(), tables.ints.len() as CInt, tables.reals.as_ptr(), tables.reals.len() as CInt) };
        if code != 0 {
            return Err(CodegenError::CorruptCache { path: file.to_path_buf(), reason: "its table sizes do not match the object".into() });
        }
        Ok(tables)
    }

    /// The symbol `name` of a shared object.
    fn symbol<T: Copy>(&self, name: &str) -> Result<T> {
        let missing = |message: String| CodegenError::Load { path: self.path.clone(), message: format!("symbol {name}: {message}") };
        match self.lib.code() {
            // SAFETY: callers name symbols of the generated C API with their exact C signature.
            Code::Shared(lib) => unsafe { lib.get::<T>(name.as_bytes()).map(|s| *s).map_err(|e| missing(e.to_string())) },
            Code::Linked(_) => Err(missing("a linked module is read through its kernel table".into())),
        }
    }

    /// The entry points of the kernel `name`.
    fn entry(&self, name: &str) -> Result<KernelEntry> {
        match self.lib.code() {
            Code::Shared(_) => Ok(KernelEntry {
                name: std::ptr::null(),
                eval: self.symbol(name)?,
                work: self.symbol(&format!("{name}_work"))?,
                sparsity_in: self.symbol(&format!("{name}_sparsity_in"))?,
                sparsity_out: self.symbol(&format!("{name}_sparsity_out"))?,
                n_in: self.symbol(&format!("{name}_n_in"))?,
                n_out: self.symbol(&format!("{name}_n_out"))?,
                checkout: self.symbol(&format!("{name}_checkout"))?,
                release: self.symbol(&format!("{name}_release"))?,
                incref: self.symbol(&format!("{name}_incref"))?,
                decref: self.symbol(&format!("{name}_decref"))?,
            }),
            Code::Linked(table) => {
                // SAFETY: `from_table`'s contract: `n_kernels` static entries.
                let entries = unsafe { std::slice::from_raw_parts(table.kernels, table.n_kernels.max(0) as usize) };
                // SAFETY: every entry's name is a static C string.
                entries.iter().find(|e| unsafe { CStr::from_ptr(e.name) }.to_bytes() == name.as_bytes()).copied().ok_or_else(|| {
                    CodegenError::Load { path: self.path.clone(), message: format!("kernel {name} is not in the kernel table") }
                })
            }
        }
    }

    /// Path of the shared object (`<linked module>` for [`KernelLibrary::from_table`]).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// True if the object came from the on-disk cache (no compiler run).
    pub fn cache_hit(&self) -> bool {
        self.outcome == CacheOutcome::Hit
    }

    /// Remembers this library under `alias` (any text that determines the generated
    /// code, e.g. the serialized symbolic functions it came from), so that
    /// [`KernelLibrary::load_alias`] finds it without generating C again.
    pub fn record_alias(&self, alias: &str, opts: &CompileOptions) -> Result<()> {
        crate::compile::record_alias(alias, &self.path, opts)
    }

    /// The cached object at `path` (e.g. a [`KernelLibrary::path`] remembered in a
    /// note), verified against its recorded hash and loaded with its kernels `kernels`;
    /// `None` if it is gone or damaged.
    pub fn load_verified(path: &Path, module: &str, kernels: &[String]) -> Result<Option<KernelLibrary>> {
        match crate::compile::verified(path) {
            Some(path) => Ok(Some(Self::open_module(path, module, kernels, CacheOutcome::Hit)?)),
            None => Ok(None),
        }
    }

    /// The library recorded under `alias` (for these compile options), verified and
    /// loaded, with its kernels `kernels`; `None` if there is none (or it is damaged).
    pub fn load_alias(alias: &str, module: &str, kernels: &[String], opts: &CompileOptions) -> Result<Option<KernelLibrary>> {
        match crate::compile::find_alias(alias, opts) {
            Some(path) => Ok(Some(Self::open_module(&path, module, kernels, CacheOutcome::Hit)?)),
            None => Ok(None),
        }
    }

    /// Why a cached object was rebuilt (it failed verification), if it was.
    pub fn rebuilt_because(&self) -> Option<&str> {
        match &self.outcome {
            CacheOutcome::Rebuilt(reason) => Some(reason),
            _ => None,
        }
    }

    /// Names of the kernels in this library.
    pub fn kernel_names(&self) -> &[String] {
        &self.kernels
    }

    /// A callable handle to the kernel `name`, with its own work arrays.
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        if !self.kernels.iter().any(|k| k == name) {
            return Err(CodegenError::InvalidName {
                name: name.to_string(),
                reason: format!("no such kernel; the library has {:?}", self.kernels),
            });
        }
        let KernelEntry { eval, work, sparsity_in: sp_in, sparsity_out: sp_out, n_in, n_out, checkout, release, incref, decref, .. } =
            self.entry(name)?;
        // SAFETY: signatures follow CasADi's generated C API; the sparsity pointers are
        // static arrays inside the library, which `lib` keeps loaded.
        unsafe {
            incref();
            let (mut sz_arg, mut sz_res, mut sz_iw, mut sz_w) = (0, 0, 0, 0);
            if work(&mut sz_arg, &mut sz_res, &mut sz_iw, &mut sz_w) != 0 {
                decref();
                return Err(CodegenError::EvalFailed { kernel: name.to_string(), code: -1 });
            }
            let ni = n_in() as usize;
            let no = n_out() as usize;
            let sparsity_in = (0..ni).map(|i| Ccs::from_compressed(sp_in(i as CInt))).collect();
            let sparsity_out = (0..no).map(|i| Ccs::from_compressed(sp_out(i as CInt))).collect();
            let mem = checkout();
            Ok(Kernel {
                _lib: self.lib.clone(),
                name: name.to_string(),
                eval,
                release,
                decref,
                mem,
                sparsity_in,
                sparsity_out,
                arg: vec![std::ptr::null(); sz_arg.max(ni as CInt) as usize],
                res: vec![std::ptr::null_mut(); sz_res.max(no as CInt) as usize],
                iw: vec![0; sz_iw as usize],
                w: vec![0.0; sz_w as usize],
            })
        }
    }
}

/// One generated function, ready to evaluate on CCS nonzeros.
///
/// Holds its own work arrays (sized from the generated `_work` query), so evaluation
/// allocates nothing. Not `Send`: one handle per thread.
pub struct Kernel {
    _lib: Arc<Loaded>,
    name: String,
    eval: crate::entries::EvalFn,
    release: crate::entries::ReleaseFn,
    decref: crate::entries::RefFn,
    mem: c_int,
    sparsity_in: Vec<Ccs>,
    sparsity_out: Vec<Ccs>,
    arg: Vec<*const f64>,
    res: Vec<*mut f64>,
    iw: Vec<CInt>,
    w: Vec<f64>,
}

impl Kernel {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Number of inputs.
    pub fn n_in(&self) -> usize {
        self.sparsity_in.len()
    }

    /// Number of outputs.
    pub fn n_out(&self) -> usize {
        self.sparsity_out.len()
    }

    /// Sparsity of input `i` (panics if `i >= n_in()`).
    pub fn sparsity_in(&self, i: usize) -> &Ccs {
        &self.sparsity_in[i]
    }

    /// Sparsity of output `i` (panics if `i >= n_out()`).
    pub fn sparsity_out(&self, i: usize) -> &Ccs {
        &self.sparsity_out[i]
    }

    fn bad(&self, message: String) -> CodegenError {
        CodegenError::BadArguments { kernel: self.name.clone(), message }
    }

    /// Evaluates on input nonzeros, writing output nonzeros. `None` inputs count as
    /// zero; `None` outputs are not computed.
    pub fn eval_opt(&mut self, inputs: &[Option<&[f64]>], outputs: &mut [Option<&mut [f64]>]) -> Result<()> {
        if inputs.len() != self.n_in() || outputs.len() != self.n_out() {
            return Err(self.bad(format!(
                "takes {} inputs and {} outputs, got {} and {}",
                self.n_in(),
                self.n_out(),
                inputs.len(),
                outputs.len()
            )));
        }
        for (i, x) in inputs.iter().enumerate() {
            match x {
                Some(x) if x.len() != self.sparsity_in[i].nnz() => {
                    return Err(self.bad(format!("input {i}: {} values, {} nonzeros expected", x.len(), self.sparsity_in[i].nnz())))
                }
                Some(x) => self.arg[i] = x.as_ptr(),
                None => self.arg[i] = std::ptr::null(),
            }
        }
        for (i, y) in outputs.iter_mut().enumerate() {
            match y {
                Some(y) if y.len() != self.sparsity_out[i].nnz() => {
                    return Err(self.bad(format!("output {i}: {} slots, {} nonzeros expected", y.len(), self.sparsity_out[i].nnz())))
                }
                Some(y) => self.res[i] = y.as_mut_ptr(),
                None => self.res[i] = std::ptr::null_mut(),
            }
        }
        // SAFETY: pointers reference slices of the checked lengths that outlive the call;
        // work arrays have the sizes the generated code asked for.
        let code =
            unsafe { (self.eval)(self.arg.as_mut_ptr(), self.res.as_mut_ptr(), self.iw.as_mut_ptr(), self.w.as_mut_ptr(), self.mem) };
        if code != 0 {
            return Err(CodegenError::EvalFailed { kernel: self.name.clone(), code });
        }
        Ok(())
    }

    /// Evaluates on input nonzeros, writing every output's nonzeros.
    pub fn eval(&mut self, inputs: &[&[f64]], outputs: &mut [&mut [f64]]) -> Result<()> {
        let ins: Vec<Option<&[f64]>> = inputs.iter().map(|x| Some(*x)).collect();
        let mut outs: Vec<Option<&mut [f64]>> = outputs.iter_mut().map(|y| Some(&mut **y)).collect();
        self.eval_opt(&ins, &mut outs)
    }

    /// Evaluates and returns freshly allocated output nonzeros.
    pub fn call(&mut self, inputs: &[&[f64]]) -> Result<Vec<Vec<f64>>> {
        let mut outs: Vec<Vec<f64>> = self.sparsity_out.iter().map(|s| vec![0.0; s.nnz()]).collect();
        let mut refs: Vec<&mut [f64]> = outs.iter_mut().map(|v| v.as_mut_slice()).collect();
        self.eval(inputs, &mut refs)?;
        Ok(outs)
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        // SAFETY: `mem` came from this kernel's checkout; the library is still loaded.
        unsafe {
            (self.release)(self.mem);
            (self.decref)();
        }
    }
}

/// The registry key and [`KernelLibrary::path`] of the linked module `module`.
fn linked_path(module: &str) -> PathBuf {
    PathBuf::from(format!("<linked {module}>"))
}
