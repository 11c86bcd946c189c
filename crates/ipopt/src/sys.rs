//! Declarations of the application shim (`cpp/app.cc`): Ipopt 3.14 driven through its
//! C++ application object behind functions with the signatures of its C interface
//! (`coin-or/IpStdCInterface.h`), `ipindex = int` and `ipnumber = double` as configured
//! in the SDK's `IpoptConfig.h`, plus a linear solver given as a table of functions.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_void};

pub type ipindex = c_int;
pub type ipnumber = f64;
pub type IpoptProblem = *mut c_void;
pub type UserDataPtr = *mut c_void;

pub type Eval_F_CB = extern "C" fn(ipindex, *mut ipnumber, bool, *mut ipnumber, UserDataPtr) -> bool;
pub type Eval_Grad_F_CB = extern "C" fn(ipindex, *mut ipnumber, bool, *mut ipnumber, UserDataPtr) -> bool;
pub type Eval_G_CB = extern "C" fn(ipindex, *mut ipnumber, bool, ipindex, *mut ipnumber, UserDataPtr) -> bool;
pub type Eval_Jac_G_CB =
    extern "C" fn(ipindex, *mut ipnumber, bool, ipindex, ipindex, *mut ipindex, *mut ipindex, *mut ipnumber, UserDataPtr) -> bool;
pub type Eval_H_CB = extern "C" fn(
    ipindex,
    *mut ipnumber,
    bool,
    ipnumber,
    ipindex,
    *mut ipnumber,
    bool,
    ipindex,
    *mut ipindex,
    *mut ipindex,
    *mut ipnumber,
    UserDataPtr,
) -> bool;
pub type Intermediate_CB = extern "C" fn(
    ipindex,
    ipindex,
    ipnumber,
    ipnumber,
    ipnumber,
    ipnumber,
    ipnumber,
    ipnumber,
    ipnumber,
    ipnumber,
    ipindex,
    UserDataPtr,
) -> bool;

/// A sparse symmetric indefinite solver as the shim calls it (`fesd_linear_solver` in
/// `cpp/app.cc`): the upper triangle in CSR with 0 offset; status codes are Ipopt's
/// `ESymSolverStatus`.
#[repr(C)]
pub struct LinearSolver {
    pub create: extern "C" fn() -> *mut c_void,
    pub configure: extern "C" fn(*mut c_void, f64, f64) -> c_int,
    pub destroy: extern "C" fn(*mut c_void),
    pub structure: extern "C" fn(*mut c_void, c_int, c_int, *const c_int, *const c_int) -> c_int,
    pub values: extern "C" fn(*mut c_void) -> *mut f64,
    pub solve: extern "C" fn(*mut c_void, c_int, c_int, *mut f64, c_int, c_int) -> c_int,
    pub negative_eigenvalues: extern "C" fn(*mut c_void) -> c_int,
    pub increase_quality: extern "C" fn(*mut c_void) -> c_int,
    pub hand_over: extern "C" fn(*mut c_void) -> c_int,
}

extern "C" {
    #[link_name = "fesd_ipopt_create"]
    pub fn CreateIpoptProblem(
        n: ipindex,
        x_L: *mut ipnumber,
        x_U: *mut ipnumber,
        m: ipindex,
        g_L: *mut ipnumber,
        g_U: *mut ipnumber,
        nele_jac: ipindex,
        nele_hess: ipindex,
        index_style: ipindex,
        eval_f: Eval_F_CB,
        eval_g: Eval_G_CB,
        eval_grad_f: Eval_Grad_F_CB,
        eval_jac_g: Eval_Jac_G_CB,
        eval_h: Eval_H_CB,
    ) -> IpoptProblem;
    #[link_name = "fesd_ipopt_free"]
    pub fn FreeIpoptProblem(p: IpoptProblem);
    #[link_name = "fesd_ipopt_add_str_option"]
    pub fn AddIpoptStrOption(p: IpoptProblem, keyword: *mut c_char, val: *mut c_char) -> bool;
    #[link_name = "fesd_ipopt_add_num_option"]
    pub fn AddIpoptNumOption(p: IpoptProblem, keyword: *mut c_char, val: ipnumber) -> bool;
    #[link_name = "fesd_ipopt_add_int_option"]
    pub fn AddIpoptIntOption(p: IpoptProblem, keyword: *mut c_char, val: ipindex) -> bool;
    #[link_name = "fesd_ipopt_set_intermediate_callback"]
    pub fn SetIntermediateCallback(p: IpoptProblem, cb: Intermediate_CB);
    /// The linear solver of this problem's solves (null: Ipopt's own, by `linear_solver`).
    pub fn fesd_ipopt_set_linear_solver(p: IpoptProblem, solver: *const LinearSolver);
    /// Matrices the foreign linear solver handed to Ipopt's own (or skipped) so far.
    pub fn fesd_ipopt_fallbacks() -> std::ffi::c_long;
    #[link_name = "fesd_ipopt_solve"]
    pub fn IpoptSolve(
        p: IpoptProblem,
        x: *mut ipnumber,
        g: *mut ipnumber,
        obj_val: *mut ipnumber,
        mult_g: *mut ipnumber,
        mult_x_L: *mut ipnumber,
        mult_x_U: *mut ipnumber,
        user_data: UserDataPtr,
    ) -> c_int;
}
