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

#[cfg(test)]
mod tests {
    //! The parser and checks never panic: truncated models (delimiters closed again)
    //! and random token soup give a model or a spanned error.

    use super::{model, Flavor};
    use proptest::prelude::*;

    const PSS: &str = "/// doc\n pub Car(n: usize, w: f64) { const K = 2.0 * w; states { q, v in -1.0..=1.0 = 0.5, r: 2 } \
        controls { u in -5.0..=5.0 } params { k = 1.0 free in 0.0..=2.0 } drift [0.0, 0.0, r] \
        switching { c = v - K, d = q } regions { a: c > 0 && !(d > 0 || d < 0) => [v, u, r], b: [-, +] => { der(q) = v; der(v) = u * k; der(r) = r }, e: c < 0 && d < 0 => [v, u, r] } \
        subsystem s { switching { g = q } regions { up: [+] => [v, u, r], down: [-] => [v, 0.0, r] } indicators [q, -q] } \
        ocp go { intervals n, elements 2, horizon free(1.0..=3.0, guess 2.0), x0 free [0.0, 0.0, 0.0, 0.0], minimize T, lagrange u * u, mayer q * q, \
        terminal { q == 1.0, v in -1.0..=1.0, r == [0.0, 1.0] }, soft_terminal l1(10.0) { v >= 0.0 }, path element_ends { q + v <= 3.0 }, \
        tracking { outputs [q], weight vec![1.0], reference vec![vec![0.0]; n] }, p { k = 1.5 }, n_fe_per_interval vec![2; n], options.fesd.n_s = 3 } }";
    const CLS: &str = "Block(mu: f64) { q { x, y in 0.0..=2.0 } v { vx, vy } controls { u } params { m = 1.0 } \
        mass [[m, 0.0], [0.0, m]] forces [u, -9.81 * m] contacts { floor: gap y, restitution 0.5, friction mu along [1.0, 0.0], wall: gap x, normal [1.0, 0.0] } \
        ocp push { intervals 5, horizon 1.0, q0 [0.0, 0.5], v0 [0.0, 0.0], lagrange u * u, terminal { x == 1.0 } } }";
    const WORDS: &[&str] = &[
        "states",
        "controls",
        "params",
        "switching",
        "regions",
        "ocp",
        "q",
        "v",
        "c",
        "u",
        "der",
        "free",
        "in",
        "=",
        "==",
        "=>",
        ":",
        ",",
        ";",
        "..=",
        "+",
        "-",
        "*",
        "/",
        "!",
        "&&",
        "||",
        ">",
        "<",
        "0",
        "1.0",
        "-2",
        "[",
        "]",
        "{",
        "}",
        "(",
        ")",
        "mass",
        "forces",
        "contacts",
        "gap",
        "restitution",
        "friction",
        "along",
        "normal",
        "intervals",
        "horizon",
        "x0",
        "terminal",
        "path",
        "options",
        ".",
        "const",
        "pub",
        "T",
    ];

    /// `text` cut after `cut` characters with its open delimiters closed again.
    fn truncated(text: &str, cut: usize) -> String {
        let mut out: String = text.chars().take(cut).collect();
        let mut open = Vec::new();
        for ch in out.chars() {
            match ch {
                '(' => open.push(')'),
                '[' => open.push(']'),
                '{' => open.push('}'),
                ')' | ']' | '}' => {
                    open.pop();
                }
                _ => {}
            }
        }
        out.extend(open.into_iter().rev());
        out
    }

    fn run(text: &str) {
        if let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() {
            let _ = model(tokens.clone(), Flavor::Pss);
            let _ = model(tokens, Flavor::Cls);
        }
    }

    #[test]
    fn the_full_grammar_expands() {
        for (text, flavor) in [(PSS, Flavor::Pss), (CLS, Flavor::Cls)] {
            let out = model(text.parse().unwrap(), flavor).to_string();
            assert!(!out.contains("compile_error"), "{out}");
        }
    }

    proptest! {
        #[test]
        fn truncated_models_never_panic(cut in 0usize..1200, cls in any::<bool>()) {
            run(&truncated(if cls { CLS } else { PSS }, cut));
        }

        #[test]
        fn random_tokens_never_panic(words in prop::collection::vec(0..WORDS.len(), 0..80)) {
            let text: Vec<&str> = words.into_iter().map(|i| WORDS[i]).collect();
            run(&format!("M {{ {} }}", text.join(" ")));
            run(&text.join(" "));
        }
    }
}
