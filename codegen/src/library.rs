//! Loaded kernel libraries and calls into generated functions.

use crate::compile::{tables_path, CacheOutcome, CompileOptions};
use crate::error::{CodegenError, Result};
use crate::source::GeneratedSource;
use crate::tables::{bind_symbol, ConstantTables};
use std::ffi::c_int;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `casadi_int` of the generated code (pinned to `long long int` by the options).
type CInt = i64;
type EvalFn = unsafe extern "C" fn(*mut *const f64, *mut *mut f64, *mut CInt, *mut f64, c_int) -> c_int;
type WorkFn = unsafe extern "C" fn(*mut CInt, *mut CInt, *mut CInt, *mut CInt) -> c_int;
type SparsityFn = unsafe extern "C" fn(CInt) -> *const CInt;
type CountFn = unsafe extern "C" fn() -> CInt;
type CheckoutFn = unsafe extern "C" fn() -> c_int;
type ReleaseFn = unsafe extern "C" fn(c_int);
type RefFn = unsafe extern "C" fn();
type SizeFn = unsafe extern "C" fn() -> c_int;
type BindFn = unsafe extern "C" fn(*const CInt, CInt, *const f64, CInt) -> c_int;

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

/// A loaded object and the constant tables its code points into. Both are released
/// together under the registry's lock ([`BOUND_TABLES`]), so that no other thread
/// reloads the object between its unloading and the tables' release and finds tables
/// that look bound to it.
struct Loaded {
    lib: Option<libloading::Library>,
    tables: Option<Arc<ConstantTables>>,
}

impl Loaded {
    fn lib(&self) -> &libloading::Library {
        self.lib.as_ref().expect("an object stays loaded until its handle is dropped")
    }
}

impl Drop for Loaded {
    fn drop(&mut self) {
        let _bound = BOUND_TABLES.lock().unwrap_or_else(|e| e.into_inner());
        drop(self.lib.take());
        drop(self.tables.take());
    }
}

/// The tables bound into each loaded object, by path. Opening the same object twice
/// gives the same handle and the same static pointers, so the second opener must use
/// (and keep alive) the tables the first one bound instead of binding its own, which
/// would dangle once either is dropped. An entry dies with its last user; the object
/// is unloaded then too, and its next load binds afresh.
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
        bound.retain(|(_, t)| t.strong_count() > 0);
        let tables = match bound.iter().find(|(p, _)| p == path).and_then(|(_, t)| t.upgrade()) {
            Some(t) => Some(t),
            None => {
                let t = Self::bind_tables(&lib, path, module)?.map(Arc::new);
                if let Some(t) = &t {
                    bound.push((path.to_path_buf(), Arc::downgrade(t)));
                }
                t
            }
        };
        drop(bound);
        let loaded = Loaded { lib: Some(lib), tables };
        let this = KernelLibrary { lib: Arc::new(loaded), path: path.to_path_buf(), outcome, kernels: kernels.to_vec() };
        let int_size: SizeFn = this.symbol(&format!("{module}_casadi_int_size"))?;
        let real_size: SizeFn = this.symbol(&format!("{module}_casadi_real_size"))?;
        // SAFETY: both are `int f(void)` in the generated code.
        let (i, r) = unsafe { (int_size(), real_size()) };
        if i as usize != size_of::<CInt>() || r as usize != size_of::<f64>() {
            return Err(CodegenError::Abi(format!("casadi_int has {i} bytes and casadi_real {r}; expected 8 and 8")));
        }
        Ok(this)
    }

    /// Reads the constant tables stored beside `path` and points the object's tables
    /// into them, if the object has any (modules compiled with every table inline, or
    /// before tables moved out, have no binding function).
    fn bind_tables(lib: &libloading::Library, path: &Path, module: &str) -> Result<Option<ConstantTables>> {
        // SAFETY: the binding function is generated by `split_tables` with this signature.
        let bind = match unsafe { lib.get::<BindFn>(bind_symbol(module).as_bytes()) } {
            Ok(f) => *f,
            Err(_) => return Ok(None),
        };
        let file = tables_path(path);
        let bytes =
            std::fs::read(&file).map_err(|e| CodegenError::CorruptCache { path: file.clone(), reason: format!("unreadable ({e})") })?;
        let tables = ConstantTables::from_bytes(&bytes, &file)?;
        // SAFETY: the pointers stay valid as long as `tables`, which the library's
        // handle keeps (and drops only after unloading the object).
        let code = unsafe { bind(tables.ints.as_ptr(), tables.ints.len() as CInt, tables.reals.as_ptr(), tables.reals.len() as CInt) };
        if code != 0 {
            return Err(CodegenError::CorruptCache { path: file, reason: "its table sizes do not match the object".into() });
        }
        Ok(Some(tables))
    }

    fn symbol<T: Copy>(&self, name: &str) -> Result<T> {
        // SAFETY: callers name symbols of the generated C API with their exact C signature.
        unsafe {
            self.lib
                .lib()
                .get::<T>(name.as_bytes())
                .map(|s| *s)
                .map_err(|e| CodegenError::Load { path: self.path.clone(), message: format!("symbol {name}: {e}") })
        }
    }

    /// Path of the shared object.
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
        let eval: EvalFn = self.symbol(name)?;
        let work: WorkFn = self.symbol(&format!("{name}_work"))?;
        let sp_in: SparsityFn = self.symbol(&format!("{name}_sparsity_in"))?;
        let sp_out: SparsityFn = self.symbol(&format!("{name}_sparsity_out"))?;
        let n_in: CountFn = self.symbol(&format!("{name}_n_in"))?;
        let n_out: CountFn = self.symbol(&format!("{name}_n_out"))?;
        let checkout: CheckoutFn = self.symbol(&format!("{name}_checkout"))?;
        let release: ReleaseFn = self.symbol(&format!("{name}_release"))?;
        let incref: RefFn = self.symbol(&format!("{name}_incref"))?;
        let decref: RefFn = self.symbol(&format!("{name}_decref"))?;
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
    eval: EvalFn,
    release: ReleaseFn,
    decref: RefFn,
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
