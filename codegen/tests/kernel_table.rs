//! Every module's kernel table: kernels bound from `<module>_kernel_table()` (as a
//! program that links the module statically binds them) evaluate exactly as the same
//! kernels looked up by name in the shared object, and as CasADi.

use casadi::{Function, SX};
use fesd_codegen::{BindTablesFn, CodegenContext, CompileOptions, KernelLibrary, KernelTable};

/// r(x) = (x_{i+1} sin x_i − x_i²)_i over 40 inputs with its Jacobian, and a weighted
/// sum: large enough that its sparsity patterns move out of the C at threshold 16.
fn context() -> (CodegenContext, Function, Function) {
    let n = 40;
    let x = SX::sym("x", n);
    let parts: Vec<SX> = (0..n - 1).map(|i| x.at(i + 1).unwrap() * x.at(i).unwrap().sin() - x.at(i).unwrap().powf(2.0)).collect();
    let r = SX::vertcat(&parts.iter().collect::<Vec<_>>()).unwrap();
    let jac = SX::jacobian(&r, &x).unwrap();
    let res = Function::new("table_res", &[("x", &x)], &[("r", &r), ("J", &jac)]).unwrap();
    let weights: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 / 7.0).collect();
    let sum = SX::dot(&SX::from_slice(&weights), &x).unwrap();
    let dot = Function::new("table_dot", &[("x", &x)], &[("s", &sum)]).unwrap();
    let mut ctx = CodegenContext::new("table_mod").unwrap();
    ctx.add(&res).unwrap();
    ctx.add(&dot).unwrap();
    (ctx, res, dot)
}

#[test]
fn kernels_bound_from_the_table_match_the_shared_object_and_casadi() {
    let cache = tempfile::tempdir().unwrap();
    let opts = CompileOptions { cache_dir: Some(cache.path().to_path_buf()), tables_out_of_line: Some(16), ..Default::default() };
    let (ctx, res, dot) = context();
    let shared = ctx.compile(&opts).unwrap();
    let src = ctx.render().unwrap();
    assert!(src.header.contains("const fesd_kernel_table* table_mod_kernel_table(void);"));
    let x: Vec<f64> = (0..40).map(|i| (i as f64 * 0.37).cos()).collect();
    let mut by_name = shared.kernel("table_res").unwrap();
    let want = by_name.call(&[&x]).unwrap();

    // A separate copy of the object stands for a module linked into the program: its
    // table pointer and binding function, the constant tables as bytes.
    let copy = cache.path().join("copy").join("libtable_mod.so");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(shared.path(), &copy).unwrap();
    let bytes = std::fs::read(shared.path().with_extension("tables")).unwrap();
    // SAFETY: a module this crate generated; its initializers are CasADi's (none).
    let raw: &'static libloading::Library = Box::leak(Box::new(unsafe { libloading::Library::new(&copy) }.unwrap()));
    // SAFETY: both symbols have these signatures in the generated C; the object stays
    // loaded (leaked) for the test's life.
    let (table, bind) = unsafe {
        let table_fn = *raw.get::<unsafe extern "C" fn() -> *const KernelTable>(b"table_mod_kernel_table").unwrap();
        (&*table_fn(), *raw.get::<BindTablesFn>(b"table_mod_bind_tables").unwrap())
    };
    // SAFETY: the table and binding function of the module generated above.
    let linked = unsafe { KernelLibrary::from_table(table, Some((bind, &bytes))) }.unwrap();
    assert_eq!(linked.kernel_names(), ["table_res", "table_dot"]);
    assert_eq!(linked.path().to_str(), Some("<linked table_mod>"));
    let mut from_table = linked.kernel("table_res").unwrap();
    assert_eq!(from_table.sparsity_out(1), by_name.sparsity_out(1));
    let got = from_table.call(&[&x]).unwrap();
    assert_eq!(got, want, "bitwise the same as the kernel looked up by name");
    let casadi = res.eval_nonzeros(&[&x]).unwrap();
    for (a, b) in got.iter().flatten().zip(casadi.iter().flatten()) {
        assert!((a - b).abs() <= 1e-14 * (1.0 + b.abs()), "{a} vs {b}");
    }
    let s = linked.kernel("table_dot").unwrap().call(&[&x]).unwrap();
    assert!((s[0][0] - dot.eval_nonzeros(&[&x]).unwrap()[0][0]).abs() < 1e-12);

    // A second handle on the same linked module shares the bound tables.
    // SAFETY: as above.
    let again = unsafe { KernelLibrary::from_table(table, Some((bind, &bytes))) }.unwrap();
    drop(linked);
    assert_eq!(again.kernel("table_res").unwrap().call(&[&x]).unwrap(), want);
    assert!(matches!(again.kernel("table_missing"), Err(fesd_codegen::CodegenError::InvalidName { .. })));
    // Tables of the wrong size are refused by the module's binding function.
    drop((from_table, again));
    let short = fesd_codegen::ConstantTables { ints: vec![1, 2, 3], reals: vec![] }.to_bytes();
    // SAFETY: as above (the binding function refuses the wrong sizes).
    let refused = unsafe { KernelLibrary::from_table(table, Some((bind, &short))) };
    assert!(matches!(refused, Err(fesd_codegen::CodegenError::CorruptCache { .. })), "{:?}", refused.err());
}
