//! The model's names: what each is, duplicates, and which may appear where; the
//! rewriting of symbolic expressions into checked operations.

use crate::parse::{Flavor, Model};
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident};

/// What a name of the model is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A state (`states`), or a position of a rigid-body model (`q`).
    State,
    /// A velocity of a rigid-body model (`v`).
    Velocity,
    Control,
    Param,
    /// A switching function of the subsystem with this index.
    Switching(usize),
    Region,
    Const,
    Arg,
}

impl Kind {
    pub fn label(self, flavor: Flavor) -> &'static str {
        match self {
            Kind::State if flavor == Flavor::Cls => "position",
            Kind::State => "state",
            Kind::Velocity => "velocity",
            Kind::Control => "control",
            Kind::Param => "param",
            Kind::Switching(_) => "switching function",
            Kind::Region => "region",
            Kind::Const => "const",
            Kind::Arg => "model argument",
        }
    }

    /// A symbol of the model (as opposed to a number).
    fn is_symbol(self) -> bool {
        matches!(self, Kind::State | Kind::Velocity | Kind::Control | Kind::Param | Kind::Switching(_))
    }
}

/// Every name of a model with its kind; no name twice.
pub struct Scope {
    pub flavor: Flavor,
    names: Vec<(String, Kind)>,
}

impl Scope {
    /// The names of `m`; a name declared twice is an error at its second place.
    pub fn new(m: &Model, flavor: Flavor) -> syn::Result<Scope> {
        let mut list: Vec<(&Ident, Kind)> = Vec::new();
        list.extend(m.args.iter().map(|(n, _)| (n, Kind::Arg)));
        list.extend(m.consts.iter().map(|(n, _)| (n, Kind::Const)));
        list.extend(m.states.iter().map(|d| (&d.name, Kind::State)));
        list.extend(m.velocities.iter().map(|d| (&d.name, Kind::Velocity)));
        list.extend(m.controls.iter().map(|d| (&d.name, Kind::Control)));
        list.extend(m.params.iter().map(|d| (&d.name, Kind::Param)));
        for (k, s) in m.subsystems.iter().enumerate() {
            list.extend(s.switching.iter().map(|(n, _)| (n, Kind::Switching(k))));
            list.extend(s.regions.iter().map(|r| (&r.name, Kind::Region)));
        }
        let mut scope = Scope { flavor, names: Vec::new() };
        let mut errors: Option<syn::Error> = None;
        for (i, (name, kind)) in list.iter().enumerate() {
            let s = name.to_string();
            let reserved = ["model", "x", "u", "p", "q", "v", "self", "T"];
            if let Some((first, fk)) = list[..i].iter().find(|(n, _)| **n == **name) {
                let mut e = syn::Error::new(name.span(), format!("`{s}` is declared twice: here as a {}", kind.label(flavor)));
                e.combine(syn::Error::new(first.span(), format!("and here as a {}", fk.label(flavor))));
                push(&mut errors, e);
            } else if *kind == Kind::Arg && reserved.contains(&s.as_str()) {
                push(
                    &mut errors,
                    syn::Error::new(
                        name.span(),
                        format!("`{s}` is a field or keyword of the generated model; name the argument otherwise"),
                    ),
                );
            } else if s.starts_with("__fesd") {
                push(&mut errors, syn::Error::new(name.span(), "names starting with `__fesd` are the macro's own"));
            }
            scope.names.push((s, *kind));
        }
        match errors {
            Some(e) => Err(e),
            None => Ok(scope),
        }
    }

    /// The kind of `name`, if the model declares it.
    pub fn kind(&self, name: &str) -> Option<Kind> {
        self.names.iter().find(|(n, _)| n == name).map(|(_, k)| *k)
    }

    /// Names of this kind, in declaration order.
    pub fn of(&self, pred: impl Fn(Kind) -> bool) -> Vec<&str> {
        self.names.iter().filter(|(_, k)| pred(*k)).map(|(n, _)| n.as_str()).collect()
    }
}

/// Appends `e` to the errors so far.
pub fn push(errors: &mut Option<syn::Error>, e: syn::Error) {
    match errors {
        Some(all) => all.combine(e),
        None => *errors = Some(e),
    }
}

/// Where an expression stands, which decides the names it may use.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rule {
    /// A model expression (switching functions, dynamics, mass, forces, gaps): every
    /// symbol, const and argument.
    Model,
    /// An OCP expression over x, u and p (Lagrange term, path constraints, tracking).
    Ocp,
    /// An OCP expression at x(T) (Mayer term, terminal constraints): no controls.
    Terminal,
    /// A number (bounds, defaults, x0, horizon, options): consts and arguments only.
    Number(&'static str),
}

impl Rule {
    fn allows(self, k: Kind) -> bool {
        match self {
            Rule::Model => k != Kind::Region,
            Rule::Ocp => !matches!(k, Kind::Region | Kind::Switching(_)),
            Rule::Terminal => !matches!(k, Kind::Region | Kind::Switching(_) | Kind::Control),
            Rule::Number(_) => matches!(k, Kind::Const | Kind::Arg),
        }
    }
}

/// The names `rule` rejects in `e`, each a spanned error with the nearest allowed name.
pub fn check(e: &Expr, scope: &Scope, rule: Rule) -> syn::Result<()> {
    let mut v = NameCheck { scope, rule, locals: Vec::new(), errors: None };
    v.visit_expr(e);
    match v.errors {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

struct NameCheck<'a> {
    scope: &'a Scope,
    rule: Rule,
    locals: Vec<String>,
    errors: Option<syn::Error>,
}

impl NameCheck<'_> {
    fn name(&mut self, ident: &Ident) {
        let s = ident.to_string();
        if self.locals.contains(&s) {
            return;
        }
        let flavor = self.scope.flavor;
        let message = match self.scope.kind(&s) {
            Some(k) if self.rule.allows(k) => return,
            Some(Kind::Control) if self.rule == Rule::Terminal => {
                format!("`{s}` is a control; a Mayer or terminal term depends on x(T) and the params only")
            }
            Some(Kind::Region) => format!("`{s}` is a region, not a value"),
            Some(Kind::Switching(_)) => {
                format!("`{s}` is a switching function, known in the model's expressions only; write its expression here")
            }
            Some(k) => match self.rule {
                Rule::Number(what) if k.is_symbol() => format!(
                    "`{s}` is a {}, a symbol of the model, but {what} must be a number; use a model argument or a `const`",
                    k.label(flavor)
                ),
                _ => format!("`{s}` is a {} and cannot be used here", k.label(flavor)),
            },
            None => {
                // Rust's own items (consts such as `PI`, functions) pass; a lower-case
                // name that is no local can only be a misspelt model name.
                if !s.starts_with(|c: char| c.is_lowercase() || c == '_') {
                    return;
                }
                let allowed = self.scope.of(|k| self.rule.allows(k));
                unknown(&s, &allowed, "name")
            }
        };
        push(&mut self.errors, syn::Error::new(ident.span(), message));
    }
}

/// "unknown name `s`; did you mean `t`?" with the allowed names.
pub fn unknown(s: &str, allowed: &[&str], what: &str) -> String {
    let mut m = format!("unknown {what} `{s}`");
    if let Some(best) = nearest(s, allowed) {
        m += &format!("; did you mean `{best}`?");
    }
    if allowed.is_empty() {
        m += " (none is declared)";
    } else {
        m += &format!(" (known here: {})", allowed.join(", "));
    }
    m
}

/// The allowed name closest to `s` in edit distance, if close enough to be a typo.
fn nearest<'a>(s: &str, allowed: &[&'a str]) -> Option<&'a str> {
    allowed
        .iter()
        .map(|a| (edit_distance(s, a), *a))
        .filter(|(d, a)| *d <= 1.max(a.chars().count().max(s.chars().count()) / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

impl<'ast> Visit<'ast> for NameCheck<'_> {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let (None, Some(ident)) = (&p.qself, p.path.get_ident()) {
            self.name(ident);
        }
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        // The callee is a function, not a model name.
        if !matches!(&*c.func, Expr::Path(_)) {
            self.visit_expr(&c.func);
        }
        c.args.iter().for_each(|a| self.visit_expr(a));
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        let n = self.locals.len();
        for p in &c.inputs {
            collect_pat(p, &mut self.locals);
        }
        self.visit_expr(&c.body);
        self.locals.truncate(n);
    }

    fn visit_macro(&mut self, _: &'ast syn::Macro) {}
}

fn collect_pat(p: &syn::Pat, out: &mut Vec<String>) {
    match p {
        syn::Pat::Ident(i) => out.push(i.ident.to_string()),
        syn::Pat::Type(t) => collect_pat(&t.pat, out),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| collect_pat(p, out)),
        _ => {}
    }
}

/// `concat!(file!(), ":", line!())` at `span`: the source place of a run-time error.
pub fn location(span: Span) -> Tokens {
    quote_spanned!(span=> ::core::concat!(::core::file!(), ":", ::core::line!()))
}

/// `e` with `+ - * /` as checked operations (`rt::Arith`) and the fallible math helpers
/// (`dot`, `mtimes`, `atan2`) located, each carrying its source line; an expression in
/// a function returning `Result`.
pub fn symbolic(e: &Expr, rt: &syn::Path) -> Tokens {
    let mut e = e.clone();
    Rewrite { rt }.visit_expr_mut(&mut e);
    quote!(#e)
}

struct Rewrite<'a> {
    rt: &'a syn::Path,
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        let rt = self.rt;
        match e {
            Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::Add(_) => quote!(Add),
                    syn::BinOp::Sub(_) => quote!(Sub),
                    syn::BinOp::Mul(_) => quote!(Mul),
                    syn::BinOp::Div(_) => quote!(Div),
                    _ => return,
                };
                let span = b.op.span();
                let (l, r, at) = (&b.left, &b.right, location(span));
                *e = syn::parse_quote_spanned!(span=> #rt::Arith::arith(#l, #rt::Op::#op, #r, #at)?);
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return };
                let Some(f) = p.path.get_ident() else { return };
                if !matches!(f.to_string().as_str(), "dot" | "mtimes" | "atan2") {
                    return;
                }
                let span = c.span();
                let at = location(span);
                *e = syn::parse_quote_spanned!(span=> #rt::located(#c, #at)?);
            }
            // Parentheses around what became a call (or never needed them) would make
            // rustc's `unused_parens` lint fire on the user's code.
            Expr::Paren(p) if matches!(&*p.expr, Expr::Try(_) | Expr::Call(_) | Expr::MethodCall(_) | Expr::Path(_) | Expr::Lit(_)) => {
                *e = (*p.expr).clone();
            }
            _ => {}
        }
    }

    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
}

/// The value of a literal number (possibly negated or in parentheses).
pub fn literal(e: &Expr) -> Option<f64> {
    match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Float(f) => f.base10_parse().ok(),
            syn::Lit::Int(i) => i.base10_parse::<i64>().ok().map(|v| v as f64),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => literal(&u.expr).map(|v| -v),
        Expr::Paren(p) => literal(&p.expr),
        _ => None,
    }
}
