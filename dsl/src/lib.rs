//! fesd's model definitions by macro. The macros only parse, check and expand; the
//! expanded code calls fesd's builder API, so a macro model costs nothing at run time.
//! This crate depends on no CasADi and no fesd crate; the facade `fesd::dsl` re-exports
//! the macros with their documentation and runnable examples.
//!
//! - `pss_model!`: a piecewise smooth system by name (states, controls, params,
//!   switching functions, regions as sign rows or set expressions, dynamics as a list
//!   or per state), with `ocp` sections; expands to `PssModel`/`Subsystem` and `Ocp`.
//! - `cls_model!`: rigid bodies with contacts (gap, restitution, friction) and `ocp`
//!   sections; expands to `ClsModel`/`Contact` and `Ocp<ClsModel>`.
//! - `#[derive(Vars)]`: the layout of a named group of variables (`fesd::dsl::Vars`).
//!
//! Expanded code refers to `::fesd`; `#[fesd(crate = path)]` names another path.
//! Every rejected input is a `compile_error!` on the offending tokens, whose message
//! names the alternatives.

use proc_macro::TokenStream;
use syn::parse_macro_input;

mod expand;
mod names;
mod parse;
mod vars;

use parse::Flavor;

/// Implements `Vars<T>` for a struct with named fields and one type parameter `T`;
/// see `fesd::dsl`.
#[proc_macro_derive(Vars, attributes(fesd))]
pub fn derive_vars(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    vars::derive(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// A piecewise smooth system by name, with optional `ocp` sections; see `fesd::dsl`.
#[proc_macro]
pub fn pss_model(input: TokenStream) -> TokenStream {
    model(input.into(), Flavor::Pss).into()
}

/// Rigid bodies with impacts and friction by name, with optional `ocp` sections; see
/// `fesd::dsl`.
#[proc_macro]
pub fn cls_model(input: TokenStream) -> TokenStream {
    model(input.into(), Flavor::Cls).into()
}

/// Parses, checks and expands a model; any error becomes `compile_error!` alone.
fn model(input: proc_macro2::TokenStream, flavor: Flavor) -> proc_macro2::TokenStream {
    let parsed = syn::parse::Parser::parse2(|s: syn::parse::ParseStream| parse::parse_model(s, flavor), input);
    parsed.and_then(|m| expand::expand(&m, flavor)).unwrap_or_else(syn::Error::into_compile_error)
}
