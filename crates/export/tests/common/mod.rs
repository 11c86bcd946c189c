//! What the export tests share: linking a C program against exported directories.

use std::path::Path;
use std::process::Command;

/// Compiles `source` (strict C99, plus `extra` flags) into `exe`, linked against the
/// library `lib<name>.a` of every `(dir, name)` in `exports` and the runtime and shared
/// libraries of the first one's `lib/` (run path set to it).
pub fn link_c_program(source: &Path, exports: &[(&Path, &str)], exe: &Path, extra: &[&str]) {
    let (_, native_libs) = fesd_export::runtime().unwrap();
    let lib = exports[0].0.join("lib");
    let (link, _) = fesd_export::link_arguments(&native_libs, &lib);
    let mut cc = Command::new("cc");
    cc.args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-g"]).args(extra);
    for (dir, _) in exports {
        cc.arg("-I").arg(dir.join("include"));
    }
    cc.arg(source);
    for (dir, name) in exports {
        cc.arg(dir.join(format!("lib/lib{name}.a")));
    }
    let out = cc
        .arg(lib.join("libfesd_capi.a"))
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath-link,{}", lib.display()))
        .args(link)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-o")
        .arg(exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
