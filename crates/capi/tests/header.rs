//! `include/fesd.h` is what cbindgen generates from the ABI (set `FESD_BLESS=1` to
//! rewrite it), and it compiles as strict C99 and as C++11.

use std::path::PathBuf;
use std::process::Command;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_committed_header_is_current_and_compiles_strictly() {
    let dir = crate_dir();
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).unwrap();
    let mut generated = Vec::new();
    cbindgen::Builder::new().with_crate(&dir).with_config(config).generate().unwrap().write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    let header = dir.join("include/fesd.h");
    if std::env::var_os("FESD_BLESS").is_some() {
        std::fs::write(&header, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&header).unwrap_or_default();
    assert!(committed == generated, "include/fesd.h is stale: rerun this test with FESD_BLESS=1 and commit it");

    let tmp = tempfile::tempdir().unwrap();
    let c = tmp.path().join("use.c");
    std::fs::write(&c, "#include \"fesd.h\"\nint main(void) { fesd_solve_info info; (void)info; return FESD_OK; }\n").unwrap();
    for (compiler, flags) in [
        ("cc", &["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"][..]),
        ("c++", &["-x", "c++", "-std=c++11", "-Wall", "-Werror"][..]),
    ] {
        let out = Command::new(compiler).args(flags).arg("-I").arg(dir.join("include")).arg("-fsyntax-only").arg(&c).output().unwrap();
        assert!(out.status.success(), "{compiler}: {}", String::from_utf8_lossy(&out.stderr));
    }
}
