//! Declarations of Ipopt 3.14's C interface (`coin-or/IpStdCInterface.h`), with
//! `ipindex = int` and `ipnumber = double` as configured in the SDK's `IpoptConfig.h`.
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

extern "C" {
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
    pub fn FreeIpoptProblem(p: IpoptProblem);
    pub fn AddIpoptStrOption(p: IpoptProblem, keyword: *mut c_char, val: *mut c_char) -> bool;
    pub fn AddIpoptNumOption(p: IpoptProblem, keyword: *mut c_char, val: ipnumber) -> bool;
    pub fn AddIpoptIntOption(p: IpoptProblem, keyword: *mut c_char, val: ipindex) -> bool;
    pub fn SetIntermediateCallback(p: IpoptProblem, cb: Intermediate_CB) -> bool;
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
