//! Expansion of a checked model into builder calls: the named groups, the model
//! struct and its constructor, bounds and defaults, one method per OCP section, and
//! typed results.

use crate::names::{check, literal, location, push, symbolic, unknown, Rule, Scope};
use crate::parse::{Condition, ContactDef, Decl, Dynamics, Flavor, Model, OcpDef, OcpItem, Relation, SubsystemDef, Values};
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident};

/// The expansion of `m`, or every error found in it.
pub fn expand(m: &Model, flavor: Flavor) -> syn::Result<Tokens> {
    let scope = Scope::new(m, flavor)?;
    let k = m.krate.clone();
    let rt: syn::Path = syn::parse_quote!(#k::dsl::__private);
    let mut g = Gen { m, flavor, scope, k, rt, errors: None, consts: None };
    let out = match flavor {
        Flavor::Pss => g.pss(),
        Flavor::Cls => g.cls(),
    };
    match g.errors {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

struct Gen<'a> {
    m: &'a Model,
    flavor: Flavor,
    scope: Scope,
    /// The facade's path (`::fesd`).
    k: syn::Path,
    /// The expansion's run-time helpers.
    rt: syn::Path,
    errors: Option<syn::Error>,
    /// The consts' `let`s, made (and checked) once.
    consts: Option<Tokens>,
}

/// A group of declarations laid out one after another.
struct Layout<'a> {
    decls: &'a [Decl],
    /// Offset of each declaration.
    offsets: Vec<usize>,
    len: usize,
}

impl<'a> Layout<'a> {
    fn new(decls: &'a [Decl]) -> Self {
        let mut offsets = Vec::new();
        let mut len = 0;
        for d in decls {
            offsets.push(len);
            len += d.len();
        }
        Layout { decls, offsets, len }
    }

    fn names(&self) -> String {
        self.decls.iter().map(|d| d.name.to_string()).collect::<Vec<_>>().join(", ")
    }
}

impl Gen<'_> {
    fn error(&mut self, span: Span, message: impl std::fmt::Display) {
        push(&mut self.errors, syn::Error::new(span, message.to_string()));
    }

    /// A symbolic expression under `rule`, rewritten into checked operations.
    fn sym(&mut self, e: &Expr, rule: Rule) -> Tokens {
        if let Err(err) = check(e, &self.scope, rule) {
            push(&mut self.errors, err);
        }
        symbolic(e, &self.rt)
    }

    /// A number: plain Rust over the consts and arguments.
    fn num(&mut self, e: &Expr, what: &'static str) -> Tokens {
        if let Err(err) = check(e, &self.scope, Rule::Number(what)) {
            push(&mut self.errors, err);
        }
        quote!((#e))
    }

    fn ty(&self, suffix: &str) -> Ident {
        format_ident!("{}{}", self.m.name, suffix)
    }

    /// The group struct `NameSuffix<T>` with one field per declaration and its `Vars`
    /// implementation; `Empty<T>` for no declarations.
    fn group(&self, suffix: &str, decls: &[Decl], what: &str) -> Tokens {
        let (k, vis, ty) = (&self.k, &self.m.vis, self.ty(suffix));
        let doc = format!("The {what} of [`{}`] by name, entries of type `T` (symbols, numbers or trajectories).", self.m.name);
        if decls.is_empty() {
            return quote!(#[doc = #doc] #vis type #ty<T> = #k::dsl::Empty<T>;);
        }
        let fields = decls.iter().map(|d| {
            let (name, fdoc) = (&d.name, format!("`{}`.", d.name));
            match d.size {
                None => quote!(#[doc = #fdoc] pub #name: T),
                Some((n, _)) => quote!(#[doc = #fdoc] pub #name: [T; #n]),
            }
        });
        let item: syn::DeriveInput = syn::parse_quote! {
            #[fesd(crate = #k::dsl)]
            #[doc = #doc]
            #[derive(Clone, Debug, PartialEq)]
            #vis struct #ty<T> { #(#fields,)* }
        };
        let imp = crate::vars::derive(&item).unwrap_or_else(syn::Error::into_compile_error);
        let mut item = item;
        item.attrs.retain(|a| !a.path().is_ident("fesd"));
        quote!(#item #imp)
    }

    /// `let name = &…;` for every declaration `used` admits, sliced from the symbol
    /// vector `sym` (a name for the whole vector is the vector itself); a scalar name
    /// is the field of `group` when the model's group of symbols exists already.
    fn bind(&self, decls: &[Decl], sym: &Tokens, group: Option<&Tokens>, used: impl Fn(&Ident) -> bool) -> Tokens {
        let l = Layout::new(decls);
        let lets = decls.iter().zip(&l.offsets).filter(|(d, _)| used(&d.name)).map(|(d, &o)| {
            let (name, hold) = (&d.name, format_ident!("__fesd_name_{}", d.name));
            let slice = match (d.size, group) {
                // One name for the whole vector (a 1-vector is its entry): the vector itself.
                _ if decls.len() == 1 => return quote!(let #name = &#sym;),
                (None, Some(g)) => return quote!(let #name = &#g.#name;),
                (None, None) => quote!(#sym.at(#o)?),
                (Some((n, _)), _) => {
                    let end = o + n;
                    quote!(#sym.slice(#o..#end)?)
                }
            };
            quote!(let #hold = #slice; let #name = &#hold;)
        });
        quote!(#(#lets)*)
    }

    /// The group of symbols from the bound names (`bind`), moved in at the end of `new`.
    fn symbols(&self, suffix: &str, decls: &[Decl], sym: Tokens) -> Tokens {
        let (k, rt, ty) = (&self.k, &self.rt, self.ty(suffix));
        if decls.is_empty() {
            return quote!(#k::dsl::Empty::default());
        }
        let fields = decls.iter().map(|d| {
            let (name, hold) = (&d.name, format_ident!("__fesd_name_{}", d.name));
            match d.size {
                None if decls.len() == 1 => quote!(#name: ::core::clone::Clone::clone(&#sym)),
                None => quote!(#name: #hold),
                Some(_) if decls.len() == 1 => quote!(#name: #rt::array(&#sym)?),
                Some(_) => quote!(#name: #rt::array(&#hold)?),
            }
        });
        quote!(#ty { #(#fields,)* })
    }

    /// The arguments (from `self`) and consts, as every method starts.
    fn preamble(&mut self, from_self: bool) -> Tokens {
        let k = self.k.clone();
        let args = self.m.args.iter().filter(|_| from_self).map(|(a, _)| quote!(let #a = ::core::clone::Clone::clone(&self.#a);));
        let args: Vec<_> = args.collect();
        if self.consts.is_none() {
            // Checked once: every method starts with the same consts.
            let consts: Vec<_> = self
                .m
                .consts
                .iter()
                .map(|(c, e)| {
                    let v = self.num(e, "a const");
                    quote!(let #c: f64 = #v;)
                })
                .collect();
            self.consts = Some(quote!(#(#consts)*));
        }
        let consts = &self.consts;
        quote! {
            #[allow(unused_imports)]
            use #k::dsl::prelude::*;
            #(#args)*
            #consts
        }
    }

    /// A group's value from one expression per declaration (`pick`), `fallback` where
    /// it gives none; sized declarations repeat the value.
    fn literal(
        &mut self,
        suffix: &str,
        decls: &[Decl],
        pick: impl Fn(&Decl) -> Option<&Expr>,
        fallback: Tokens,
        what: &'static str,
    ) -> Tokens {
        let (k, ty) = (self.k.clone(), self.ty(suffix));
        if decls.is_empty() {
            return quote!(#k::dsl::Empty::default());
        }
        let fields: Vec<_> = decls
            .iter()
            .map(|d| {
                let v = match pick(d) {
                    Some(e) => self.num(e, what),
                    None => fallback.clone(),
                };
                let name = &d.name;
                match d.size {
                    None => quote!(#name: #v),
                    Some((n, _)) => quote!(#name: [#v; #n]),
                }
            })
            .collect();
        quote!(#ty { #(#fields,)* })
    }

    /// `fn {name}_bounds(&self)` and `fn {name}_default(&self)` of a group.
    fn bounds_and_defaults(&mut self, prefix: &str, suffix: &str, decls: &[Decl], what: &str) -> Tokens {
        let ty = self.ty(suffix);
        let pre = self.preamble(true);
        let lo = self.literal(suffix, decls, |d| d.bounds.as_ref().map(|b| &b.0), quote!(f64::NEG_INFINITY), "a bound");
        let hi = self.literal(suffix, decls, |d| d.bounds.as_ref().map(|b| &b.1), quote!(f64::INFINITY), "a bound");
        let def = self.literal(suffix, decls, |d| d.default.as_ref(), quote!(0.0), "a default");
        let (bounds, default) = (format_ident!("{prefix}_bounds"), format_ident!("{prefix}_default"));
        let bdoc = format!("Lower and upper bounds of the {what} as declared (±∞ where none).");
        let ddoc = format!("The {what}' declared defaults (0 where none).");
        quote! {
            #[doc = #bdoc]
            #[allow(unused_variables, non_snake_case)]
            pub fn #bounds(&self) -> (#ty<f64>, #ty<f64>) {
                #pre
                (#lo, #hi)
            }
            #[doc = #ddoc]
            #[allow(unused_variables, non_snake_case)]
            pub fn #default(&self) -> #ty<f64> {
                #pre
                #def
            }
        }
    }

    /// `fn p_default(&self)`: the params' declared values.
    fn p_default(&mut self) -> Tokens {
        let (m, pt, pre) = (self.m, self.ty("P"), self.preamble(true));
        let value = self.literal("P", &m.params, |d| d.default.as_ref(), quote!(0.0), "a default");
        quote! {
            /// The params' declared values (0 where none).
            #[allow(unused_variables, non_snake_case)]
            pub fn p_default(&self) -> #pt<f64> {
                #pre
                #value
            }
        }
    }

    /// The model struct with its argument fields.
    fn model_struct(&self, model_ty: Tokens, groups: &[(&str, &str, &str)]) -> Tokens {
        let (m, k) = (self.m, &self.k);
        let (attrs, vis, name) = (&m.attrs, &m.vis, &m.name);
        let fields = groups.iter().map(|(field, suffix, what)| {
            let (f, ty, doc) = (format_ident!("{field}"), self.ty(suffix), format!("The {what} by name."));
            quote!(#[doc = #doc] pub #f: #ty<#k::casadi::SX>)
        });
        let args = m.args.iter().map(|(a, t)| {
            let doc = format!("Model argument `{a}`.");
            quote!(#[doc = #doc] pub #a: #t)
        });
        quote! {
            #(#attrs)*
            #[derive(Clone, Debug)]
            #vis struct #name {
                /// The model, as the builder makes it.
                pub model: #model_ty,
                #(#fields,)*
                #(#args,)*
            }
        }
    }

    /// Checks `entries` has one entry per declaration; `what` names the list.
    fn arity(&mut self, got: usize, want: usize, span: Span, what: &str, names: &str) {
        if got != want {
            self.error(span, format!("{what} has {got} entries, but {want} are declared ({names})"));
        }
    }

    /// The dynamics as one column: entries in state order, each checked for its size.
    fn dynamics(&mut self, d: &Dynamics, states: &[Decl], what: &str) -> Tokens {
        let rt = self.rt.clone();
        let l = Layout::new(states);
        let entries: Vec<(&Decl, &Expr)> = match d {
            Dynamics::List(list, span) => {
                self.arity(list.len(), states.len(), *span, &format!("the dynamics of {what}"), &format!("states {}", l.names()));
                states.iter().zip(list).collect()
            }
            Dynamics::PerState(list, span) => {
                let mut out = Vec::new();
                for (name, _) in list {
                    if !states.iter().any(|s| s.name == *name) {
                        let all: Vec<String> = states.iter().map(|s| s.name.to_string()).collect();
                        let all: Vec<&str> = all.iter().map(|s| s.as_str()).collect();
                        self.error(name.span(), unknown(&name.to_string(), &all, "state"));
                    }
                }
                for s in states {
                    let given: Vec<&(Ident, Expr)> = list.iter().filter(|(n, _)| *n == s.name).collect();
                    match given.as_slice() {
                        [] => self.error(*span, format!("the dynamics of {what} miss `der({}) = …`", s.name)),
                        [one] => out.push((s, &one.1)),
                        [_, again, ..] => self.error(again.0.span(), format!("`der({})` is given twice in the dynamics of {what}", s.name)),
                    }
                }
                out
            }
        };
        let items: Vec<_> = entries
            .into_iter()
            .map(|(d, e)| {
                let v = self.sym(e, Rule::Model);
                let (n, label, at) = (d.len(), format!("the dynamics of `{}` in {what}", d.name), location(e.span()));
                quote_spanned!(e.span()=> #rt::entry(#v, #n, #label, #at)?)
            })
            .collect();
        quote!(#rt::column(::std::vec![#(#items),*])?)
    }

    /// Entries of a list, each `rows × 1`, stacked.
    fn column(&mut self, list: &[Expr], rows: &[usize], what: &str) -> Tokens {
        let rt = self.rt.clone();
        let items: Vec<_> = list
            .iter()
            .zip(rows)
            .enumerate()
            .map(|(i, (e, n))| {
                let v = self.sym(e, Rule::Model);
                let (label, at) = (format!("entry {i} of {what}"), location(e.span()));
                quote_spanned!(e.span()=> #rt::entry(#v, #n, #label, #at)?)
            })
            .collect();
        quote!(#rt::column(::std::vec![#(#items),*])?)
    }

    // ---- switched systems ---------------------------------------------------------

    fn pss(&mut self) -> Tokens {
        let m = self.m;
        let (k, name) = (self.k.clone(), &m.name);
        if m.states.is_empty() {
            self.error(name.span(), "a model needs `states { … }`");
        }
        if m.subsystems.is_empty() {
            self.error(name.span(), "a model needs `switching { … }` and `regions { … }` (or `subsystem` blocks)");
        }
        let groups = [self.group("X", &m.states, "states"), self.group("U", &m.controls, "controls"), self.group("P", &m.params, "params")];
        let (x, u, p) = (Layout::new(&m.states), Layout::new(&m.controls), Layout::new(&m.params));
        let (nx, nu, np) = (x.len, u.len, p.len);
        let pre = self.preamble(false);
        let syms = symbol_vectors(&[("x", nx), ("u", nu), ("p", np)]);
        let binds = [
            self.bind(&m.states, &quote!(__fesd_x), None, |_| true),
            self.bind(&m.controls, &quote!(__fesd_u), None, |_| true),
            self.bind(&m.params, &quote!(__fesd_p), None, |_| true),
        ];
        let mut switching = Vec::new();
        let mut subsystems = Vec::new();
        for s in &m.subsystems {
            let (bind, sub) = self.subsystem(s);
            switching.push(bind);
            subsystems.push(sub);
        }
        let drift = m.drift.as_ref().map(|d| {
            let f0 = self.dynamics(d, &m.states, "the drift");
            quote!(__fesd_model = __fesd_model.with_drift(#f0);)
        });
        let controls = (nu > 0).then(|| quote!(__fesd_model = __fesd_model.with_controls(__fesd_u.clone());));
        let params = (np > 0).then(|| quote!(__fesd_model = __fesd_model.with_parameters(__fesd_p.clone());));
        let (gx, gu, gp) = (
            self.symbols("X", &m.states, quote!(__fesd_x)),
            self.symbols("U", &m.controls, quote!(__fesd_u)),
            self.symbols("P", &m.params, quote!(__fesd_p)),
        );
        let arg_params = m.args.iter().map(|(a, t)| quote!(#a: #t));
        let arg_names: Vec<_> = m.args.iter().map(|(a, _)| a).collect();
        let strukt = self.model_struct(quote!(#k::model::PssModel), &[("x", "X", "states"), ("u", "U", "controls"), ("p", "P", "params")]);
        let accessors =
            [self.bounds_and_defaults("x", "X", &m.states, "states"), self.bounds_and_defaults("u", "U", &m.controls, "controls")];
        let p_default = self.p_default();
        let ocps: Vec<_> = m.ocps.iter().map(|o| self.ocp(o)).collect();
        let results = self.results(&[("x", "X", "States")], quote!(#k::sim::SimulationResult));
        quote! {
            #(#groups)*
            #strukt

            impl #name {
                /// Builds and validates the model.
                #[allow(unused_variables, non_snake_case, clippy::all)]
                pub fn new(#(#arg_params),*) -> ::core::result::Result<Self, #k::model::ModelError> {
                    #pre
                    #syms
                    #(#binds)*
                    #(#switching)*
                    let mut __fesd_model = #k::model::PssModel::new(__fesd_x.clone());
                    #controls
                    #params
                    #drift
                    #(__fesd_model = __fesd_model.with_subsystem(#subsystems);)*
                    __fesd_model.validate()?;
                    ::core::result::Result::Ok(#name {
                        model: __fesd_model,
                        x: #gx,
                        u: #gu,
                        p: #gp,
                        #(#arg_names,)*
                    })
                }

                #(#accessors)*

                #p_default

                #(#ocps)*
            }

            #results
        }
    }

    /// Binds the subsystem's switching functions and builds it.
    fn subsystem(&mut self, s: &SubsystemDef) -> (Tokens, Tokens) {
        let (k, rt) = (self.k.clone(), self.rt.clone());
        let what = match &s.name {
            Some(n) => format!("subsystem `{n}`"),
            None => "the model".to_string(),
        };
        if s.switching.is_empty() {
            self.error(s.span, format!("{what} has regions but no `switching {{ … }}` functions"));
        }
        if s.regions.is_empty() {
            self.error(s.span, format!("{what} has switching functions but no `regions {{ … }}`"));
        }
        let mut binds = Vec::new();
        for (n, e) in &s.switching {
            let v = self.sym(e, Rule::Model);
            let (hold, label, at) = (format_ident!("__fesd_name_{}", n), format!("switching function `{n}`"), location(e.span()));
            binds.push(quote!(let #hold = #rt::entry(#v, 1, #label, #at)?.into_owned(); let #n = &#hold;));
        }
        let names: Vec<&Ident> = s.switching.iter().map(|(n, _)| n).collect();
        let n_c = names.len();
        let c_names = names.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ");
        // A conjunction of `c > 0` / `c < 0` is a sign row; sets only where one is not.
        let rows: Vec<Option<Vec<(i8, Span)>>> = s
            .regions
            .iter()
            .map(|r| match &r.condition {
                Condition::Signs(row, _) => Some(row.clone()),
                Condition::Set(e) => sign_row(e, &names).map(|v| v.into_iter().map(|x| (x, e.span())).collect()),
            })
            .collect();
        let sets = rows.iter().any(Option::is_none);
        let mut conditions = Vec::new();
        let mut fields = Vec::new();
        for (r, row) in s.regions.iter().zip(&rows) {
            let region = format!("region `{}`", r.name);
            let condition = match (&r.condition, row) {
                (Condition::Signs(_, span), Some(row)) => Some((row, *span)),
                (Condition::Set(_), Some(row)) if !sets => Some((row, r.name.span())),
                _ => None,
            };
            match (condition, &r.condition) {
                (Some((row, span)), _) => {
                    if row.len() != n_c {
                        self.error(
                            span,
                            format!("the sign row of {region} has {} entries, but needs one per switching function ({c_names})", row.len()),
                        );
                    } else if row.iter().all(|(v, _)| *v == 0) {
                        self.error(
                            span,
                            format!("the sign row of {region} is all zeros: it would be the whole space; give at least one `+` or `-`"),
                        );
                    }
                    let signs: Vec<i8> = row.iter().map(|(v, _)| *v).collect();
                    conditions.push(if sets {
                        let atoms = signs.iter().enumerate().filter(|(_, v)| **v != 0).map(|(j, v)| {
                            if *v > 0 {
                                quote!(#k::model::RegionSet::Positive(#j))
                            } else {
                                quote!(#k::model::RegionSet::negative(#j))
                            }
                        });
                        quote!(#k::model::RegionSet::Intersection(::std::vec![#(#atoms),*]))
                    } else {
                        quote!(::std::vec![#(#signs),*])
                    });
                }
                (None, Condition::Set(e)) => match self.region_set(e, &names) {
                    Ok(t) => conditions.push(t),
                    Err(err) => push(&mut self.errors, err),
                },
                (None, Condition::Signs(..)) => {}
            }
            let m = self.m;
            fields.push(self.dynamics(&r.dynamics, &m.states, &region));
        }
        let c = quote!(#rt::column(::std::vec![#(::std::borrow::Cow::Borrowed(#names)),*])?);
        let mut sub = if sets {
            quote!(#k::model::Subsystem::from_sets(#c, ::std::vec![#(#conditions),*], ::std::vec![#(#fields),*]))
        } else {
            quote!(#k::model::Subsystem::new(#c, ::std::vec![#(#conditions),*], ::std::vec![#(#fields),*]))
        };
        if let Some((list, span)) = &s.indicators {
            self.arity(list.len(), s.regions.len(), *span, "`indicators`", &format!("regions of {what}"));
            let g = self.column(list, &vec![1; list.len()], "the indicators");
            sub = quote!(#sub.with_indicators(#g));
        }
        (quote!(#(#binds)*), sub)
    }

    /// A region as a set expression over the basic sets `{c_j > 0}`.
    fn region_set(&self, e: &Expr, names: &[&Ident]) -> syn::Result<Tokens> {
        let k = &self.k;
        let form = "a region is `c > 0`, `c < 0`, `!(…)`, `… && …` or `… || …` over switching functions, or a sign row `[+, 0, -]`";
        match e {
            Expr::Paren(p) => self.region_set(&p.expr, names),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
                let inner = self.region_set(&u.expr, names)?;
                Ok(quote!(#k::model::RegionSet::Complement(::std::boxed::Box::new(#inner))))
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                let and = matches!(b.op, syn::BinOp::And(_));
                let mut parts = Vec::new();
                self.flatten_set(e, and, &mut parts);
                let items = parts.into_iter().map(|p| self.region_set(p, names)).collect::<syn::Result<Vec<_>>>()?;
                Ok(if and {
                    quote!(#k::model::RegionSet::Intersection(::std::vec![#(#items),*]))
                } else {
                    quote!(#k::model::RegionSet::Union(::std::vec![#(#items),*]))
                })
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Gt(_) | syn::BinOp::Lt(_) | syn::BinOp::Ge(_) | syn::BinOp::Le(_)) => {
                let Expr::Path(p) = &*b.left else { return Err(syn::Error::new(b.left.span(), form)) };
                let Some(c) = p.path.get_ident() else { return Err(syn::Error::new(b.left.span(), form)) };
                let Some(j) = names.iter().position(|n| *n == c) else {
                    let known: Vec<String> = names.iter().map(|n| n.to_string()).collect();
                    let known: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
                    let msg = match self.scope.kind(&c.to_string()) {
                        Some(kind) => format!(
                            "`{c}` is a {}, but a region is a set of this subsystem's switching functions ({})",
                            kind.label(self.flavor),
                            known.join(", ")
                        ),
                        None => unknown(&c.to_string(), &known, "switching function"),
                    };
                    return Err(syn::Error::new(c.span(), msg));
                };
                if literal(&b.right) != Some(0.0) {
                    return Err(syn::Error::new(b.right.span(), "a region compares a switching function with 0: `c > 0` or `c < 0`"));
                }
                match b.op {
                    syn::BinOp::Gt(_) => Ok(quote!(#k::model::RegionSet::Positive(#j))),
                    syn::BinOp::Lt(_) => Ok(quote!(#k::model::RegionSet::negative(#j))),
                    _ => Err(syn::Error::new(b.op.span(), "use `>` or `<`: a region is open, the boundary c = 0 belongs to the switch")),
                }
            }
            _ => Err(syn::Error::new(e.span(), form)),
        }
    }

    fn flatten_set<'e>(&self, e: &'e Expr, and: bool, out: &mut Vec<&'e Expr>) {
        match e {
            Expr::Binary(b) if (and && matches!(b.op, syn::BinOp::And(_))) || (!and && matches!(b.op, syn::BinOp::Or(_))) => {
                self.flatten_set(&b.left, and, out);
                self.flatten_set(&b.right, and, out);
            }
            _ => out.push(e),
        }
    }

    // ---- rigid bodies -------------------------------------------------------------

    fn cls(&mut self) -> Tokens {
        let m = self.m;
        let (k, rt, name) = (self.k.clone(), self.rt.clone(), &m.name);
        if m.states.is_empty() || m.velocities.is_empty() {
            self.error(name.span(), "a rigid-body model needs `q { … }` and `v { … }`");
        }
        let (q, v, u, p) = (Layout::new(&m.states), Layout::new(&m.velocities), Layout::new(&m.controls), Layout::new(&m.params));
        if q.len != v.len && !m.velocities.is_empty() {
            self.error(
                m.velocities[0].name.span(),
                format!("`v` has {} entries but `q` has {}: one velocity per coordinate", v.len, q.len),
            );
        }
        let (nq, nv, nu, np) = (q.len, v.len, u.len, p.len);
        let groups = [
            self.group("Q", &m.states, "positions"),
            self.group("V", &m.velocities, "velocities"),
            self.group("U", &m.controls, "controls"),
            self.group("P", &m.params, "params"),
        ];
        let pre = self.preamble(false);
        let syms = symbol_vectors(&[("q", nq), ("v", nv), ("u", nu), ("p", np)]);
        let binds = [
            self.bind(&m.states, &quote!(__fesd_q), None, |_| true),
            self.bind(&m.velocities, &quote!(__fesd_v), None, |_| true),
            self.bind(&m.controls, &quote!(__fesd_u), None, |_| true),
            self.bind(&m.params, &quote!(__fesd_p), None, |_| true),
        ];
        let mut parts = Vec::new();
        if nu > 0 {
            parts.push(quote!(__fesd_model = __fesd_model.with_controls(__fesd_u.clone());));
        }
        if np > 0 {
            parts.push(quote!(__fesd_model = __fesd_model.with_parameters(__fesd_p.clone());));
        }
        if let Some((rows, span)) = &m.mass {
            if rows.len() != nq || rows.iter().any(|r| r.len() != nq) {
                let shape: Vec<String> = rows.iter().map(|r| r.len().to_string()).collect();
                self.error(
                    *span,
                    format!("the mass matrix needs {nq} rows of {nq} entries (q has {nq}), got rows of [{}] entries", shape.join(", ")),
                );
            }
            let rows: Vec<_> = rows
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let items: Vec<_> = r
                        .iter()
                        .enumerate()
                        .map(|(j, e)| {
                            let v = self.sym(e, Rule::Model);
                            let (label, at) = (format!("mass entry ({i}, {j})"), location(e.span()));
                            quote!(#rt::entry(#v, 1, #label, #at)?)
                        })
                        .collect();
                    quote!(::std::vec![#(#items),*])
                })
                .collect();
            let at = location(*span);
            parts.push(quote!(__fesd_model = __fesd_model.with_mass(#rt::rows(&[#(#rows),*], #at)?);));
        }
        let sizes: Vec<usize> = m.states.iter().map(Decl::len).collect();
        if let Some((list, span)) = &m.forces {
            self.arity(list.len(), m.states.len(), *span, "`forces`", &format!("positions {}", q.names()));
            let f = self.column(list, &sizes, "the forces");
            parts.push(quote!(__fesd_model = __fesd_model.with_forces(#f);));
        }
        for c in &m.contacts {
            let contact = self.contact(c, &sizes, &q);
            parts.push(quote!(__fesd_model = __fesd_model.with_contact(#contact);));
        }
        let (gq, gv) = (self.symbols("Q", &m.states, quote!(__fesd_q)), self.symbols("V", &m.velocities, quote!(__fesd_v)));
        let (gu, gp) = (self.symbols("U", &m.controls, quote!(__fesd_u)), self.symbols("P", &m.params, quote!(__fesd_p)));
        let arg_params = m.args.iter().map(|(a, t)| quote!(#a: #t));
        let arg_names: Vec<_> = m.args.iter().map(|(a, _)| a).collect();
        let strukt = self.model_struct(
            quote!(#k::cls::ClsModel),
            &[("q", "Q", "positions"), ("v", "V", "velocities"), ("u", "U", "controls"), ("p", "P", "params")],
        );
        let accessors = [
            self.bounds_and_defaults("q", "Q", &m.states, "positions"),
            self.bounds_and_defaults("v", "V", &m.velocities, "velocities"),
            self.bounds_and_defaults("u", "U", &m.controls, "controls"),
        ];
        let p_default = self.p_default();
        let ocps: Vec<_> = m.ocps.iter().map(|o| self.ocp(o)).collect();
        let results = self.results(&[("q", "Q", "Positions"), ("v", "V", "Velocities")], quote!(#k::sim::ClsSimulation));
        quote! {
            #(#groups)*
            #strukt

            impl #name {
                /// Builds and validates the model.
                #[allow(unused_variables, non_snake_case, clippy::all)]
                pub fn new(#(#arg_params),*) -> ::core::result::Result<Self, #k::cls::ClsError> {
                    #pre
                    #syms
                    #(#binds)*
                    let mut __fesd_model = #k::cls::ClsModel::new(__fesd_q.clone(), __fesd_v.clone());
                    #(#parts)*
                    __fesd_model.validate()?;
                    ::core::result::Result::Ok(#name {
                        model: __fesd_model,
                        q: #gq,
                        v: #gv,
                        u: #gu,
                        p: #gp,
                        #(#arg_names,)*
                    })
                }

                #(#accessors)*

                #p_default

                #(#ocps)*
            }

            #results
        }
    }

    fn contact(&mut self, c: &ContactDef, sizes: &[usize], q: &Layout) -> Tokens {
        let k = self.k.clone();
        let Some(gap) = &c.gap else {
            self.error(c.name.span(), format!("contact `{}` needs `gap <expression>`", c.name));
            return quote!();
        };
        let what = format!("contact `{}`", c.name);
        let gap = self.column(std::slice::from_ref(gap), &[1], &format!("the gap of {what}"));
        let mut out = quote!(#k::cls::Contact::new(#gap));
        if let Some(e) = &c.restitution {
            if let Some(v) = literal(e).filter(|v| !(0.0..=1.0).contains(v)) {
                self.error(e.span(), format!("restitution {v} of {what} is outside [0, 1]"));
            }
            let v = self.num(e, "a restitution (an f64 of `Contact::restitution`)");
            out = quote!(#out.restitution(#v));
        }
        if let Some((mu, tangents)) = &c.friction {
            if let Some(v) = literal(mu).filter(|v| *v < 0.0) {
                self.error(mu.span(), format!("friction coefficient {v} of {what} is negative"));
            }
            let mu = self.num(mu, "a friction coefficient (an f64 of `Contact::friction`)");
            let mut cols = Vec::new();
            for (t, span) in tangents {
                self.arity(t.len(), sizes.len(), *span, &format!("the tangent of {what}"), &format!("positions {}", q.names()));
                cols.push(self.column(t, sizes, &format!("the tangent of {what}")));
            }
            out = match cols.as_slice() {
                [t] => quote!(#out.friction(#mu, #t)),
                [t1, t2] => quote!(#out.spatial_friction(#mu, #t1, #t2)),
                _ => out,
            };
        }
        if let Some((n, span)) = &c.normal {
            self.arity(n.len(), sizes.len(), *span, &format!("the normal of {what}"), &format!("positions {}", q.names()));
            let n = self.column(n, sizes, &format!("the normal of {what}"));
            out = quote!(#out.normal(#n));
        }
        out
    }

    /// The typed results: `NameSolution` from an `OcpResult` and `NameTrajectory` from a
    /// simulation (`sim`), the state split into `groups` (field, suffix, what) in order;
    /// a simulation holds each group under the same field name.
    fn results(&self, groups: &[(&str, &str, &str)], sim: Tokens) -> Tokens {
        let (k, rt, vis, name) = (&self.k, &self.rt, &self.m.vis, &self.m.name);
        let (ut, pt) = (self.ty("U"), self.ty("P"));
        let (sol, traj) = (self.ty("Solution"), self.ty("Trajectory"));
        let fields: Vec<Ident> = groups.iter().map(|(f, ..)| format_ident!("{f}")).collect();
        let types: Vec<Ident> = groups.iter().map(|(_, t, _)| self.ty(t)).collect();
        let docs: Vec<String> = groups.iter().map(|(.., what)| format!("{what} at the element boundaries (`t`).")).collect();
        let index: Vec<usize> = (0..groups.len()).collect();
        let first = &fields[0];
        let sdoc = format!("An OCP solution of [`{name}`] by name: `sol.{first}.<name>[k]` at the element boundaries.");
        let tdoc = format!("A simulation of [`{name}`] by name: `traj.{first}.<name>[k]` at the element boundaries.");
        quote! {
            #[doc = #sdoc]
            #[derive(Clone, Debug)]
            #vis struct #sol {
                #(#[doc = #docs] pub #fields: #types<::std::vec::Vec<f64>>,)*
                /// Controls of every interval (`t_controls`).
                pub u: #ut<::std::vec::Vec<f64>>,
                /// Params (free ones as optimized).
                pub p: #pt<f64>,
                /// Times of the element boundaries.
                pub t: ::std::vec::Vec<f64>,
                /// Start times of the control intervals.
                pub t_controls: ::std::vec::Vec<f64>,
                /// The horizon T.
                pub t_final: f64,
                /// The result as the solver returned it.
                pub raw: #k::ocp::OcpResult,
            }

            #[doc = #tdoc]
            #[derive(Clone, Debug)]
            #vis struct #traj {
                #(#[doc = #docs] pub #fields: #types<::std::vec::Vec<f64>>,)*
                /// Times of the element boundaries.
                pub t: ::std::vec::Vec<f64>,
                /// The result as the simulator returned it.
                pub raw: #sim,
            }

            impl #name {
                /// An OCP result read by name; an error if its sizes are not this model's.
                pub fn solution(r: &#k::ocp::OcpResult) -> ::core::result::Result<#sol, #k::dsl::LenError> {
                    use #k::dsl::{FromColumns, Vars};
                    let parts = #rt::split_rows(&r.x, &[#(<#types<f64> as Vars<f64>>::LEN),*])?;
                    ::core::result::Result::Ok(#sol {
                        #(#fields: #types::from_columns(&parts[#index])?,)*
                        u: #ut::from_columns(&r.u)?,
                        p: #pt::unflatten(&r.p)?,
                        t: r.t.clone(),
                        t_controls: r.t_controls.clone(),
                        t_final: r.t_final,
                        raw: r.clone(),
                    })
                }

                /// A simulation read by name; an error if its sizes are not this model's.
                pub fn trajectory(r: &#sim) -> ::core::result::Result<#traj, #k::dsl::LenError> {
                    use #k::dsl::FromColumns;
                    ::core::result::Result::Ok(#traj { #(#fields: #types::from_columns(&r.#fields)?,)* t: r.t.clone(), raw: r.clone() })
                }
            }
        }
    }

    // ---- optimal control ----------------------------------------------------------

    /// One OCP section as a method returning the builder's `Ocp`.
    fn ocp(&mut self, o: &OcpDef) -> Tokens {
        let m = self.m;
        let (k, rt) = (self.k.clone(), self.rt.clone());
        let cls = self.flavor == Flavor::Cls;
        let pre = self.preamble(true);
        let names = referenced(o);
        let used = |n: &Ident| names.contains(&n.to_string());
        let binds = if cls {
            [
                self.bind(&m.states, &quote!(self.model.q), Some(&quote!(self.q)), used),
                self.bind(&m.velocities, &quote!(self.model.v), Some(&quote!(self.v)), used),
                self.bind(&m.controls, &quote!(self.model.u), Some(&quote!(self.u)), used),
                self.bind(&m.params, &quote!(self.model.p), Some(&quote!(self.p)), used),
            ]
        } else {
            [
                self.bind(&m.states, &quote!(self.model.x), Some(&quote!(self.x)), used),
                self.bind(&m.controls, &quote!(self.model.u), Some(&quote!(self.u)), used),
                self.bind(&m.params, &quote!(self.model.p), Some(&quote!(self.p)), used),
                quote!(),
            ]
        };
        let mut n = None;
        let mut t = None;
        let mut body = Vec::new();
        let mut initial: Vec<(String, &Values, bool, Span)> = Vec::new();
        for item in &o.items {
            match item {
                OcpItem::Intervals(e) => n = Some(self.num(e, "the number of intervals")),
                OcpItem::Elements(e) => {
                    let v = self.num(e, "the number of finite elements");
                    body.push(quote!(__fesd_ocp.options.fesd.n_fe = #v;));
                }
                OcpItem::ElementsPerInterval(e) => {
                    let v = self.num(e, "the elements per interval");
                    body.push(quote!(__fesd_ocp.n_fe_per_interval = ::core::convert::Into::into(#v);));
                }
                OcpItem::HorizonFixed(e) => {
                    let v = self.num(e, "the horizon");
                    t = Some(v.clone());
                    body.push(quote!(__fesd_ocp.horizon = #k::ocp::Horizon::Fixed(#v);));
                }
                OcpItem::HorizonFree { lower, upper, guess } => {
                    let (lo, hi, g) = (self.num(lower, "a bound"), self.num(upper, "a bound"), self.num(guess, "a guess"));
                    t = Some(g.clone());
                    body.push(quote!(__fesd_ocp.horizon = #k::ocp::Horizon::Free { lower: #lo, upper: #hi, guess: #g };));
                }
                OcpItem::InitialState { key, values, free } => {
                    let allowed: &[&str] = if cls { &["q0", "v0"] } else { &["x0"] };
                    let s = key.to_string();
                    if !allowed.contains(&s.as_str()) {
                        self.error(key.span(), format!("`{s}`: this model's initial state is given by {}", allowed.join(" and ")));
                    } else if initial.iter().any(|(k, ..)| *k == s) {
                        self.error(key.span(), format!("`{s}` given twice"));
                    } else {
                        initial.push((s, values, *free, key.span()));
                    }
                }
                OcpItem::MinimizeTime => body.push(quote!(__fesd_ocp.time_cost = 1.0;)),
                OcpItem::TimeCost(e) => {
                    let v = self.num(e, "the time cost");
                    body.push(quote!(__fesd_ocp.time_cost = #v;));
                }
                OcpItem::Lagrange(e) => {
                    let v = self.sym(e, Rule::Ocp);
                    body.push(quote!(__fesd_ocp.lagrange = ::core::option::Option::Some(#rt::sx(#v));));
                }
                OcpItem::Mayer(e) => {
                    let v = self.sym(e, Rule::Terminal);
                    body.push(quote!(__fesd_ocp.mayer = ::core::option::Option::Some(#rt::sx(#v));));
                }
                OcpItem::Terminal(rels) => {
                    let c = self.relations(rels, Rule::Terminal);
                    body.push(quote!(__fesd_ocp.terminal = ::core::option::Option::Some(#c);));
                }
                OcpItem::SoftTerminal { l1, weight, relations } => {
                    let c = self.relations(relations, Rule::Terminal);
                    let w = self.num(weight, "a penalty weight");
                    let penalty = if *l1 { quote!(L1) } else { quote!(L2) };
                    body.push(quote!(__fesd_ocp.soft_terminal = ::core::option::Option::Some(#k::ocp::SoftTerminalConstraint {
                        constraint: #c,
                        penalty: #k::ocp::TerminalPenalty::#penalty { weight: #w },
                    });));
                }
                OcpItem::Path { element_ends, relations } => {
                    let c = self.relations(relations, Rule::Ocp);
                    let at = if *element_ends { quote!(ElementEnds) } else { quote!(Stages) };
                    body.push(quote!({
                        let __fesd_c = #c;
                        __fesd_ocp.path.push(#k::ocp::PathConstraint { expr: __fesd_c.expr, lower: __fesd_c.lower, upper: __fesd_c.upper, at: #k::ocp::PathPoints::#at });
                    }));
                }
                OcpItem::Tracking { outputs, weight, reference } => {
                    let items: Vec<_> = outputs.iter().map(|e| self.sym(e, Rule::Ocp)).collect();
                    let (w, r) = (self.num(weight, "the tracking weights"), self.num(reference, "the tracking reference"));
                    body.push(quote!(__fesd_ocp.tracking = ::core::option::Option::Some(#k::ocp::Tracking {
                        expr: #rt::column(::std::vec![#(#rt::Piece::piece(#items)),*])?,
                        weight: ::core::convert::Into::into(#w),
                        reference: ::core::convert::Into::into(#r),
                    });));
                }
                OcpItem::ParamValues(list) => {
                    let p = Layout::new(&m.params);
                    for (name, e) in list {
                        let Some(i) = m.params.iter().position(|d| d.name == *name) else {
                            let all: Vec<String> = m.params.iter().map(|d| d.name.to_string()).collect();
                            let all: Vec<&str> = all.iter().map(|s| s.as_str()).collect();
                            self.error(name.span(), unknown(&name.to_string(), &all, "param"));
                            continue;
                        };
                        let (o, len, v, at) = (p.offsets[i], m.params[i].len(), self.num(e, "a param value"), location(e.span()));
                        let end = o + len;
                        body.push(quote!(__fesd_ocp.p[#o..#end].copy_from_slice(&#rt::Bound::values(#v, #len, #at)?);));
                    }
                }
                OcpItem::Option { path, value } => {
                    let v = self.num(value, "an option");
                    body.push(quote!(__fesd_ocp.options #path = #v;));
                }
            }
        }
        let name = &o.name;
        let Some(n) = n else {
            self.error(name.span(), format!("OCP `{name}` needs `intervals N`"));
            return quote!();
        };
        let Some(t) = t else {
            self.error(name.span(), format!("OCP `{name}` needs `horizon T` or `horizon free(lo..=hi, guess T0)`"));
            return quote!();
        };
        let x0 = self.initial_state(o, &initial);
        let free: Vec<_> = {
            let p = Layout::new(&m.params);
            m.params
                .iter()
                .zip(&p.offsets)
                .filter_map(|(d, &o)| d.free.as_ref().map(|f| (d, o, f)))
                .map(|(d, o, (lo, hi, _))| {
                    let (lo, hi, len) = (self.num(lo, "a bound"), self.num(hi, "a bound"), d.len());
                    quote!(for __fesd_i in #o..#o + #len {
                        let __fesd_guess = __fesd_ocp.p[__fesd_i];
                        __fesd_ocp.free_parameters.push(#k::ocp::FreeParameter { index: __fesd_i, lower: #lo, upper: #hi, guess: __fesd_guess });
                    })
                })
                .collect()
        };
        let (model_ty, bounds) = if cls {
            (
                quote!(#k::cls::ClsModel),
                quote! {
                    let (__fesd_ql, __fesd_qu) = self.q_bounds();
                    let (__fesd_vl, __fesd_vu) = self.v_bounds();
                    let __fesd_xl: ::std::vec::Vec<f64> = __fesd_ql.flatten().into_iter().chain(__fesd_vl.flatten()).collect();
                    let __fesd_xu: ::std::vec::Vec<f64> = __fesd_qu.flatten().into_iter().chain(__fesd_vu.flatten()).collect();
                },
            )
        } else {
            (
                quote!(#k::model::PssModel),
                quote! {
                    let (__fesd_bl, __fesd_bu) = self.x_bounds();
                    let (__fesd_xl, __fesd_xu) = (__fesd_bl.flatten(), __fesd_bu.flatten());
                },
            )
        };
        let doc = format!("The OCP `{name}` on this model, as written in its `ocp` section.");
        let attrs = &o.attrs;
        quote! {
            #[doc = #doc]
            #(#attrs)*
            #[allow(unused_variables, non_snake_case, clippy::all)]
            pub fn #name(&self) -> ::core::result::Result<#k::ocp::Ocp<#model_ty>, #k::ocp::OcpError> {
                #pre
                #(#binds)*
                #bounds
                #x0
                let mut __fesd_ocp = #k::ocp::Ocp::<#model_ty>::new(::core::clone::Clone::clone(&self.model), #t, #n, &__fesd_x0);
                __fesd_ocp.x0 = __fesd_initial;
                __fesd_ocp.x_lower = __fesd_xl;
                __fesd_ocp.x_upper = __fesd_xu;
                let (__fesd_bl, __fesd_bu) = self.u_bounds();
                __fesd_ocp.u_lower = __fesd_bl.flatten();
                __fesd_ocp.u_upper = __fesd_bu.flatten();
                __fesd_ocp.u_guess = self.u_default().flatten();
                __fesd_ocp.p = self.p_default().flatten();
                #(#body)*
                #(#free)*
                ::core::result::Result::Ok(__fesd_ocp)
            }
        }
    }

    /// `__fesd_x0` (the initial state or its guess) and `__fesd_initial` (fixed or free).
    fn initial_state(&mut self, o: &OcpDef, given: &[(String, &Values, bool, Span)]) -> Tokens {
        let (k, rt) = (self.k.clone(), self.rt.clone());
        let m = self.m;
        let parts: Vec<(&str, &[Decl], &str)> = if self.flavor == Flavor::Cls {
            vec![("q0", &m.states, "positions"), ("v0", &m.velocities, "velocities")]
        } else {
            vec![("x0", &m.states, "states")]
        };
        let mut values = Vec::new();
        let mut lower = Vec::new();
        let mut upper = Vec::new();
        let mut offset = 0;
        for (key, decls, what) in parts {
            let l = Layout::new(decls);
            let (start, end) = (offset, offset + l.len);
            offset = end;
            let v = match given.iter().find(|(g, ..)| g == key) {
                Some((_, Values::List(list, span), ..)) => {
                    self.arity(list.len(), l.len, *span, &format!("`{key}`"), &format!("{what} {}", l.names()));
                    let items: Vec<_> = list.iter().map(|e| self.num(e, "an initial value")).collect();
                    quote!(::std::vec![#(#items),*])
                }
                Some((_, Values::Expr(e), _, span)) => {
                    let (v, len, at) = (self.num(e, "an initial value"), l.len, location(*span));
                    quote!(#rt::Bound::values(#v, #len, #at)?)
                }
                None => {
                    let missing: Vec<String> = decls.iter().filter(|d| d.default.is_none()).map(|d| d.name.to_string()).collect();
                    if !missing.is_empty() {
                        self.error(
                            o.name.span(),
                            format!("OCP `{}` needs `{key} [..]`: {} declare no default", o.name, missing.join(", ")),
                        );
                    }
                    let getter = format_ident!("{}_default", &key[..1]);
                    quote!(self.#getter().flatten())
                }
            };
            let free = given.iter().any(|(g, _, f, _)| g == key && *f);
            values.push(v);
            if free {
                lower.push(quote!(__fesd_xl[#start..#end].to_vec()));
                upper.push(quote!(__fesd_xu[#start..#end].to_vec()));
            } else {
                lower.push(quote!(__fesd_x0[#start..#end].to_vec()));
                upper.push(quote!(__fesd_x0[#start..#end].to_vec()));
            }
        }
        let any_free = given.iter().any(|(_, _, f, _)| *f);
        let initial = if any_free {
            quote!(#k::ocp::InitialState::Free {
                lower: [#(#lower),*].concat(),
                upper: [#(#upper),*].concat(),
                guess: __fesd_x0.clone(),
            })
        } else {
            quote!(#k::ocp::InitialState::Fixed(__fesd_x0.clone()))
        };
        quote! {
            let __fesd_x0: ::std::vec::Vec<f64> = [#(#values),*].concat();
            let __fesd_initial = #initial;
        }
    }

    /// Relations stacked into one `TerminalConstraint` (expressions, bounds).
    fn relations(&mut self, rels: &[Relation], rule: Rule) -> Tokens {
        let (k, rt) = (self.k.clone(), self.rt.clone());
        let items: Vec<_> = rels
            .iter()
            .map(|r| {
                let e = self.sym(&r.expr, rule);
                self.relation_arity(r);
                let at = location(r.span);
                let bound = |g: &mut Self, b: &Option<Expr>| match b {
                    Some(b) => {
                        let v = g.num(b, "a bound");
                        quote!(::core::option::Option::Some(#v))
                    }
                    None => quote!(::core::option::Option::None::<f64>),
                };
                let (lo, hi) = (bound(self, &r.lower), bound(self, &r.upper));
                quote!(#rt::relation(#e, #lo, #hi, #at)?)
            })
            .collect();
        quote!({
            let (expr, lower, upper) = #rt::stack(::std::vec![#(#items),*])?;
            #k::ocp::TerminalConstraint { expr, lower, upper }
        })
    }

    /// A bound list against a name's declared size.
    fn relation_arity(&mut self, r: &Relation) {
        let Expr::Path(p) = &r.expr else { return };
        let Some(ident) = p.path.get_ident() else { return };
        let m = self.m;
        let Some(d) = m.states.iter().chain(&m.velocities).chain(&m.controls).chain(&m.params).find(|d| d.name == *ident) else { return };
        for b in [&r.lower, &r.upper].into_iter().flatten() {
            if let Expr::Array(a) = b {
                if a.elems.len() != d.len() {
                    self.error(a.span(), format!("{} bounds for `{ident}`, which has {} entries", a.elems.len(), d.len()));
                }
            }
        }
    }
}

/// The sign row of a conjunction of `c > 0`, `c < 0` and `!(c > 0)` (each function once at most),
/// `None` for anything else.
fn sign_row(e: &Expr, names: &[&Ident]) -> Option<Vec<i8>> {
    fn walk(e: &Expr, names: &[&Ident], row: &mut [i8]) -> Option<()> {
        match e {
            Expr::Paren(p) => walk(&p.expr, names, row),
            Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
                walk(&b.left, names, row)?;
                walk(&b.right, names, row)
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => {
                // The complement of one basic set is the opposite sign.
                let mut inner = vec![0; row.len()];
                walk(&u.expr, names, &mut inner)?;
                let [j] = inner.iter().enumerate().filter(|(_, v)| **v != 0).map(|(j, _)| j).collect::<Vec<_>>()[..] else { return None };
                if row[j] != 0 {
                    return None;
                }
                row[j] = -inner[j];
                Some(())
            }
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Gt(_) | syn::BinOp::Lt(_)) && literal(&b.right) == Some(0.0) => {
                let Expr::Path(p) = &*b.left else { return None };
                let j = names.iter().position(|n| Some(*n) == p.path.get_ident())?;
                if row[j] != 0 {
                    return None;
                }
                row[j] = if matches!(b.op, syn::BinOp::Gt(_)) { 1 } else { -1 };
                Some(())
            }
            _ => None,
        }
    }
    let mut row = vec![0; names.len()];
    walk(e, names, &mut row)?;
    Some(row)
}

/// The names an OCP section's expressions mention (only these are bound in its method).
fn referenced(o: &OcpDef) -> std::collections::HashSet<String> {
    use syn::visit::Visit;
    struct Names(std::collections::HashSet<String>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_ident(&mut self, i: &'ast Ident) {
            self.0.insert(i.to_string());
        }
    }
    let mut v = Names(Default::default());
    for item in &o.items {
        match item {
            OcpItem::Lagrange(e) | OcpItem::Mayer(e) => v.visit_expr(e),
            OcpItem::Terminal(rels) | OcpItem::SoftTerminal { relations: rels, .. } | OcpItem::Path { relations: rels, .. } => {
                rels.iter().for_each(|r| v.visit_expr(&r.expr))
            }
            OcpItem::Tracking { outputs, .. } => outputs.iter().for_each(|e| v.visit_expr(e)),
            _ => {}
        }
    }
    v.0
}

/// `let __fesd_x = SX::sym("x", n);` for every non-empty symbol vector (the builder's
/// names, so the graphs match).
fn symbol_vectors(list: &[(&str, usize)]) -> Tokens {
    let lets = list.iter().filter(|(_, n)| *n > 0).map(|(name, n)| {
        let var = format_ident!("__fesd_{name}");
        quote!(let #var = SX::sym(#name, #n);)
    });
    quote!(#(#lets)*)
}
