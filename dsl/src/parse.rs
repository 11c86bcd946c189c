//! The grammar of `pss_model!` and `cls_model!`: a header, then sections introduced by
//! a keyword. Parsing only reads; the checks of names and sizes are in `check`.

use proc_macro2::{Span, TokenStream as Tokens};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{braced, bracketed, parenthesized, Attribute, Expr, Ident, LitInt, Token, Type, Visibility};

/// Which macro is parsing: the two share the header, declarations and OCP sections.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flavor {
    /// `pss_model!`
    Pss,
    /// `cls_model!`
    Cls,
}

/// A whole model definition.
pub struct Model {
    pub attrs: Vec<Attribute>,
    pub krate: syn::Path,
    pub vis: Visibility,
    pub name: Ident,
    pub args: Vec<(Ident, Type)>,
    pub consts: Vec<(Ident, Expr)>,
    /// `states` (PSS) or `q` (rigid bodies).
    pub states: Vec<Decl>,
    /// `v` (rigid bodies only).
    pub velocities: Vec<Decl>,
    pub controls: Vec<Decl>,
    pub params: Vec<Decl>,
    pub drift: Option<Dynamics>,
    pub subsystems: Vec<SubsystemDef>,
    pub mass: Option<(Vec<Vec<Expr>>, Span)>,
    pub forces: Option<(Vec<Expr>, Span)>,
    pub contacts: Vec<ContactDef>,
    pub ocps: Vec<OcpDef>,
    /// Keyword spans of sections given once at most, for "given twice" errors.
    pub seen: Vec<(String, Span)>,
}

/// `name[: size] [in lo..=hi] [= default] [free in lo..=hi]`.
pub struct Decl {
    pub name: Ident,
    pub size: Option<(usize, Span)>,
    pub bounds: Option<(Expr, Expr)>,
    pub default: Option<Expr>,
    pub free: Option<(Expr, Expr, Span)>,
}

impl Decl {
    /// Entries the name stands for.
    pub fn len(&self) -> usize {
        self.size.map_or(1, |s| s.0)
    }
}

/// One Filippov system: switching functions, regions and their dynamics.
pub struct SubsystemDef {
    pub name: Option<Ident>,
    pub span: Span,
    pub switching: Vec<(Ident, Expr)>,
    pub regions: Vec<RegionDef>,
    pub indicators: Option<(Vec<Expr>, Span)>,
}

/// `name: condition => dynamics`.
pub struct RegionDef {
    pub name: Ident,
    pub condition: Condition,
    pub dynamics: Dynamics,
}

/// Where a region is.
pub enum Condition {
    /// `[+, 0, -]`: one sign per switching function.
    Signs(Vec<(i8, Span)>, Span),
    /// `c1 > 0 && !(c2 > 0) || c3 < 0`.
    Set(Box<Expr>),
}

/// A vector field: one entry per declared state, in order, or per state by name.
pub enum Dynamics {
    /// `[e1, e2, …]`.
    List(Vec<Expr>, Span),
    /// `{ der(q) = e1; der(v) = e2 }`.
    PerState(Vec<(Ident, Expr)>, Span),
}

/// A contact of a rigid-body model.
pub struct ContactDef {
    pub name: Ident,
    pub gap: Option<Expr>,
    pub restitution: Option<Expr>,
    pub friction: Option<Friction>,
    pub normal: Option<(Vec<Expr>, Span)>,
}

/// `friction mu along [t]` or `along [t1], [t2]`: the coefficient and the tangents.
pub type Friction = (Expr, Vec<(Vec<Expr>, Span)>);

/// `ocp name { item, … }`.
pub struct OcpDef {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub items: Vec<OcpItem>,
}

/// A relation `e == b`, `e <= b`, `e >= b` or `e in lo..=hi`; `b` numeric.
pub struct Relation {
    pub expr: Expr,
    pub lower: Option<Expr>,
    pub upper: Option<Expr>,
    pub span: Span,
}

/// One item of an OCP section (a parse tree of a few items: sizes do not matter).
#[allow(clippy::large_enum_variant)]
pub enum OcpItem {
    Intervals(Expr),
    Elements(Expr),
    HorizonFixed(Expr),
    HorizonFree {
        lower: Expr,
        upper: Expr,
        guess: Expr,
    },
    /// `x0 [..]` (list) or `x0 expr`, `free` when the initial state is a decision variable.
    InitialState {
        key: Ident,
        values: Values,
        free: bool,
    },
    MinimizeTime,
    Lagrange(Expr),
    Mayer(Expr),
    TimeCost(Expr),
    Terminal(Vec<Relation>),
    SoftTerminal {
        l1: bool,
        weight: Expr,
        relations: Vec<Relation>,
    },
    Path {
        element_ends: bool,
        relations: Vec<Relation>,
    },
    Tracking {
        outputs: Vec<Expr>,
        weight: Expr,
        reference: Expr,
    },
    ParamValues(Vec<(Ident, Expr)>),
    ElementsPerInterval(Expr),
    Option {
        path: Tokens,
        value: Expr,
    },
}

/// Numbers given as a literal list (checked for length) or as one Rust expression.
pub enum Values {
    List(Vec<Expr>, Span),
    Expr(Box<Expr>),
}

/// The section keywords of each flavor.
fn keywords(flavor: Flavor) -> &'static [&'static str] {
    match flavor {
        Flavor::Pss => &["const", "states", "controls", "params", "drift", "switching", "regions", "indicators", "subsystem", "ocp"],
        Flavor::Cls => &["const", "q", "v", "controls", "params", "mass", "forces", "contacts", "ocp"],
    }
}

/// Parses a model of `flavor`.
pub fn parse_model(input: ParseStream, flavor: Flavor) -> syn::Result<Model> {
    let mut attrs = input.call(Attribute::parse_outer)?;
    let mut krate: syn::Path = syn::parse_quote!(::fesd);
    let mut kept = Vec::new();
    for attr in attrs.drain(..) {
        if attr.path().is_ident("fesd") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("crate") {
                    krate = meta.value()?.parse()?;
                    Ok(())
                } else {
                    Err(meta.error("unknown fesd attribute; expected `crate = path`"))
                }
            })?;
        } else {
            kept.push(attr);
        }
    }
    let vis: Visibility = input.parse()?;
    let name: Ident = input.parse()?;
    let mut args = Vec::new();
    if input.peek(syn::token::Paren) {
        let content;
        parenthesized!(content in input);
        args = comma_list(&content, |p| {
            let ident: Ident = p.parse()?;
            p.parse::<Token![:]>().map_err(|e| syn::Error::new(e.span(), "expected `name: Type`"))?;
            Ok((ident, p.parse::<Type>()?))
        })?;
    }
    let body;
    braced!(body in input);
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the model's body"));
    }
    let mut m = Model {
        attrs: kept,
        krate,
        vis,
        name,
        args,
        consts: vec![],
        states: vec![],
        velocities: vec![],
        controls: vec![],
        params: vec![],
        drift: None,
        subsystems: vec![],
        mass: None,
        forces: None,
        contacts: vec![],
        ocps: vec![],
        seen: vec![],
    };
    let mut top = SubsystemDef { name: None, span: m.name.span(), switching: vec![], regions: vec![], indicators: None };
    while !body.is_empty() {
        let attrs = body.call(Attribute::parse_outer)?;
        if body.peek(Token![const]) {
            let kw: Token![const] = body.parse()?;
            let name: Ident = body.parse().map_err(|e| syn::Error::new(e.span(), "expected `const NAME = value;`"))?;
            body.parse::<Token![=]>()?;
            let value: Expr = body.parse()?;
            if !body.is_empty() {
                body.parse::<Token![;]>()?;
            }
            let _ = kw;
            m.consts.push((name, value));
            continue;
        }
        let kw: Ident = body.call(syn::ext::IdentExt::parse_any).map_err(|e| syn::Error::new(e.span(), expected_section(flavor)))?;
        let k = kw.to_string();
        if !keywords(flavor).contains(&k.as_str()) {
            return Err(syn::Error::new(kw.span(), format!("unknown section `{k}`; {}", expected_section(flavor))));
        }
        if !matches!(k.as_str(), "const" | "subsystem" | "ocp") {
            if let Some((_, first)) = m.seen.iter().find(|(s, _)| *s == k) {
                let mut e = syn::Error::new(kw.span(), format!("section `{k}` given twice"));
                e.combine(syn::Error::new(*first, "first given here"));
                return Err(e);
            }
            m.seen.push((k.clone(), kw.span()));
        }
        match k.as_str() {
            "states" | "q" => m.states = parse_decls(&body, false)?,
            "v" => m.velocities = parse_decls(&body, false)?,
            "controls" => m.controls = parse_decls(&body, false)?,
            "params" => m.params = parse_decls(&body, true)?,
            "drift" => m.drift = Some(parse_dynamics(&body)?),
            "switching" => top.switching = parse_switching(&body)?,
            "regions" => {
                top.span = kw.span();
                top.regions = parse_regions(&body)?;
            }
            "indicators" => top.indicators = Some(parse_list(&body)?),
            "subsystem" => m.subsystems.push(parse_subsystem(&body, kw.span())?),
            "mass" => {
                let content;
                let b = bracketed!(content in body);
                let rows = Punctuated::<ListOf, Token![,]>::parse_terminated(&content)?;
                m.mass = Some((rows.into_iter().map(|r| r.0).collect(), b.span.join()));
            }
            "forces" => m.forces = Some(parse_list(&body)?),
            "contacts" => m.contacts = parse_contacts(&body)?,
            "ocp" => m.ocps.push(parse_ocp(&body, attrs)?),
            _ => unreachable_pattern(kw.span())?,
        }
    }
    if !top.switching.is_empty() || !top.regions.is_empty() || top.indicators.is_some() {
        m.subsystems.insert(0, top);
    }
    Ok(m)
}

/// A branch the grammar rules out, as an error rather than a panic.
fn unreachable_pattern<T>(span: Span) -> syn::Result<T> {
    Err(syn::Error::new(span, "internal error of the model macro: unexpected syntax tree"))
}

fn expected_section(flavor: Flavor) -> String {
    format!("expected one of the sections {}", keywords(flavor).iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", "))
}

/// `[e1, e2, …]`.
struct ListOf(Vec<Expr>);

impl Parse for ListOf {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        Ok(ListOf(parse_list(input)?.0))
    }
}

/// `[e1, e2, …]` with the brackets' span.
pub fn parse_list(input: ParseStream) -> syn::Result<(Vec<Expr>, Span)> {
    if !input.peek(syn::token::Bracket) {
        return Err(input.error("expected a list `[e1, e2, …]`"));
    }
    let content;
    let b = bracketed!(content in input);
    let list = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
    Ok((list.into_iter().collect(), b.span.join()))
}

/// `lo..=hi` split into its ends.
fn split_range(e: Expr) -> syn::Result<(Expr, Expr)> {
    match e {
        Expr::Range(syn::ExprRange { start: Some(lo), end: Some(hi), limits: syn::RangeLimits::Closed(_), .. }) => Ok((*lo, *hi)),
        other => Err(syn::Error::new(other.span(), "expected bounds `lower..=upper`")),
    }
}

fn parse_decls(input: ParseStream, params: bool) -> syn::Result<Vec<Decl>> {
    let content;
    braced!(content in input);
    comma_list(&content, |p| parse_decl(p, params))
}

fn parse_decl(input: ParseStream, params: bool) -> syn::Result<Decl> {
    let name: Ident =
        input.parse().map_err(|e| syn::Error::new(e.span(), "expected a name, `q`, `q: 3`, `q in -1.0..=1.0` or `q = 0.5`"))?;
    let mut d = Decl { name, size: None, bounds: None, default: None, free: None };
    if input.peek(Token![:]) {
        input.parse::<Token![:]>()?;
        let n: LitInt = input.parse().map_err(|e| syn::Error::new(e.span(), "expected the number of entries, an integer literal"))?;
        let value: usize = n.base10_parse()?;
        if value == 0 {
            return Err(syn::Error::new(n.span(), "a name needs at least one entry"));
        }
        d.size = Some((value, n.span()));
    }
    if input.peek(Token![in]) {
        input.parse::<Token![in]>()?;
        match input.parse::<Expr>()? {
            Expr::Assign(a) => {
                d.bounds = Some(split_range(*a.left)?);
                d.default = Some(*a.right);
            }
            e => d.bounds = Some(split_range(e)?),
        }
    }
    if d.default.is_none() && input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        d.default = Some(input.parse()?);
    }
    if input.peek(Ident) && input.fork().parse::<Ident>()? == "free" {
        let kw: Ident = input.parse()?;
        if !params {
            return Err(syn::Error::new(kw.span(), "only a param can be `free` (a decision variable of an OCP)"));
        }
        input.parse::<Token![in]>()?;
        let (lo, hi) = split_range(input.parse()?)?;
        d.free = Some((lo, hi, kw.span()));
    }
    Ok(d)
}

fn parse_switching(input: ParseStream) -> syn::Result<Vec<(Ident, Expr)>> {
    let content;
    braced!(content in input);
    comma_list(&content, |p| {
        let name: Ident = p.parse()?;
        p.parse::<Token![=]>().map_err(|e| syn::Error::new(e.span(), "expected `name = expression`"))?;
        Ok((name, p.parse()?))
    })
}

fn parse_regions(input: ParseStream) -> syn::Result<Vec<RegionDef>> {
    let content;
    braced!(content in input);
    comma_list(&content, |p| {
        let name: Ident = p.parse()?;
        p.parse::<Token![:]>().map_err(|e| syn::Error::new(e.span(), "expected `name: condition => dynamics`"))?;
        let condition = if p.peek(syn::token::Bracket) {
            let signs;
            let b = bracketed!(signs in p);
            let mut row = Vec::new();
            while !signs.is_empty() {
                if signs.peek(Token![+]) {
                    row.push((1, signs.parse::<Token![+]>()?.span));
                } else if signs.peek(Token![-]) {
                    row.push((-1, signs.parse::<Token![-]>()?.span));
                } else {
                    let l: LitInt = signs.parse().map_err(|e| syn::Error::new(e.span(), "a sign row holds `+`, `-` or `0`"))?;
                    if l.base10_digits() != "0" {
                        return Err(syn::Error::new(l.span(), "a sign row holds `+`, `-` or `0`"));
                    }
                    row.push((0, l.span()));
                }
                if !signs.is_empty() {
                    signs.parse::<Token![,]>()?;
                }
            }
            Condition::Signs(row, b.span.join())
        } else {
            Condition::Set(Box::new(p.parse()?))
        };
        p.parse::<Token![=>]>()?;
        Ok(RegionDef { name, condition, dynamics: parse_dynamics(p)? })
    })
}

/// `[..]` or `{ der(q) = e; … }`.
pub fn parse_dynamics(input: ParseStream) -> syn::Result<Dynamics> {
    if input.peek(syn::token::Bracket) {
        let (list, span) = parse_list(input)?;
        return Ok(Dynamics::List(list, span));
    }
    if !input.peek(syn::token::Brace) {
        return Err(input.error("expected dynamics `[e1, e2, …]` (one per state) or `{ der(q) = e1; der(v) = e2 }`"));
    }
    let content;
    let b = braced!(content in input);
    let mut entries = Vec::new();
    while !content.is_empty() {
        let der: Ident = content.parse()?;
        if der != "der" {
            return Err(syn::Error::new(der.span(), "expected `der(state) = expression`"));
        }
        let inner;
        parenthesized!(inner in content);
        let state: Ident = inner.parse()?;
        content.parse::<Token![=]>()?;
        entries.push((state, content.parse()?));
        if content.peek(Token![;]) {
            content.parse::<Token![;]>()?;
        } else if content.peek(Token![,]) {
            content.parse::<Token![,]>()?;
        }
    }
    Ok(Dynamics::PerState(entries, b.span.join()))
}

fn parse_subsystem(input: ParseStream, span: Span) -> syn::Result<SubsystemDef> {
    let name: Ident = input.parse()?;
    let content;
    braced!(content in input);
    let mut s = SubsystemDef { name: Some(name), span, switching: vec![], regions: vec![], indicators: None };
    while !content.is_empty() {
        let kw: Ident = content.parse()?;
        match kw.to_string().as_str() {
            "switching" => s.switching = parse_switching(&content)?,
            "regions" => s.regions = parse_regions(&content)?,
            "indicators" => s.indicators = Some(parse_list(&content)?),
            other => {
                return Err(syn::Error::new(
                    kw.span(),
                    format!("unknown part `{other}` of a subsystem; expected `switching`, `regions` or `indicators`"),
                ))
            }
        }
    }
    Ok(s)
}

fn parse_contacts(input: ParseStream) -> syn::Result<Vec<ContactDef>> {
    let content;
    braced!(content in input);
    let mut contacts: Vec<ContactDef> = Vec::new();
    while !content.is_empty() {
        let name: Ident = content.parse()?;
        content
            .parse::<Token![:]>()
            .map_err(|e| syn::Error::new(e.span(), "expected `name: gap …, restitution …, friction … along […]`"))?;
        let mut c = ContactDef { name, gap: None, restitution: None, friction: None, normal: None };
        loop {
            let kw: Ident = content.parse()?;
            match kw.to_string().as_str() {
                "gap" => c.gap = Some(content.parse()?),
                "restitution" => c.restitution = Some(content.parse()?),
                "normal" => c.normal = Some(parse_list(&content)?),
                "friction" => {
                    let mu: Expr = content.parse()?;
                    let along: Ident = content.parse()?;
                    if along != "along" {
                        return Err(syn::Error::new(along.span(), "expected `friction mu along [t]` or `along [t1], [t2]`"));
                    }
                    let mut tangents = vec![parse_list(&content)?];
                    if content.peek(Token![,]) && content.peek2(syn::token::Bracket) {
                        content.parse::<Token![,]>()?;
                        tangents.push(parse_list(&content)?);
                    }
                    c.friction = Some((mu, tangents));
                }
                other => {
                    return Err(syn::Error::new(
                        kw.span(),
                        format!("unknown contact property `{other}`; expected `gap`, `restitution`, `friction` or `normal`"),
                    ))
                }
            }
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
            if content.is_empty() || (content.peek(Ident) && content.peek2(Token![:])) {
                break;
            }
        }
        contacts.push(c);
    }
    Ok(contacts)
}

fn parse_relations(input: ParseStream) -> syn::Result<(Vec<Relation>, Span)> {
    let content;
    let b = braced!(content in input);
    Ok((comma_list(&content, parse_relation)?, b.span.join()))
}

fn parse_relation(input: ParseStream) -> syn::Result<Relation> {
    let e: Expr = input.parse()?;
    let span = e.span();
    if input.peek(Token![in]) {
        input.parse::<Token![in]>()?;
        let (lo, hi) = split_range(input.parse()?)?;
        return Ok(Relation { expr: e, lower: Some(lo), upper: Some(hi), span });
    }
    match e {
        Expr::Binary(b) => {
            let (expr, rhs) = (*b.left, *b.right);
            match b.op {
                syn::BinOp::Eq(_) => Ok(Relation { expr, lower: Some(rhs.clone()), upper: Some(rhs), span }),
                syn::BinOp::Le(_) => Ok(Relation { expr, lower: None, upper: Some(rhs), span }),
                syn::BinOp::Ge(_) => Ok(Relation { expr, lower: Some(rhs), upper: None, span }),
                _ => Err(syn::Error::new(span, "expected a relation `e == b`, `e <= b`, `e >= b` or `e in lo..=hi`")),
            }
        }
        _ => Err(syn::Error::new(span, "expected a relation `e == b`, `e <= b`, `e >= b` or `e in lo..=hi`")),
    }
}

const OCP_ITEMS: &str = "`intervals`, `elements`, `horizon`, `x0` (`q0`, `v0`), `minimize T`, `lagrange`, `mayer`, `time_cost`, \
`terminal`, `soft_terminal`, `path`, `tracking`, `p`, `n_fe_per_interval` or `options.<field> = value`";

fn parse_ocp(input: ParseStream, attrs: Vec<Attribute>) -> syn::Result<OcpDef> {
    let name: Ident = input.parse()?;
    let content;
    braced!(content in input);
    Ok(OcpDef { attrs, name, items: comma_list(&content, parse_ocp_item)? })
}

fn parse_values(input: ParseStream) -> syn::Result<Values> {
    if input.peek(syn::token::Bracket) {
        let (l, s) = parse_list(input)?;
        Ok(Values::List(l, s))
    } else {
        Ok(Values::Expr(Box::new(input.parse()?)))
    }
}

fn parse_ocp_item(input: ParseStream) -> syn::Result<OcpItem> {
    let kw: Ident =
        input.call(syn::ext::IdentExt::parse_any).map_err(|e| syn::Error::new(e.span(), format!("expected an OCP item: {OCP_ITEMS}")))?;
    let item = match kw.to_string().as_str() {
        "intervals" => OcpItem::Intervals(input.parse()?),
        "elements" => OcpItem::Elements(input.parse()?),
        "n_fe_per_interval" => OcpItem::ElementsPerInterval(input.parse()?),
        "horizon" => {
            if input.peek(Ident) && input.peek2(syn::token::Paren) && input.fork().parse::<Ident>()? == "free" {
                input.parse::<Ident>()?;
                let inner;
                parenthesized!(inner in input);
                let (lower, upper) = split_range(inner.parse()?)?;
                inner.parse::<Token![,]>()?;
                let g: Ident = inner.parse()?;
                if g != "guess" {
                    return Err(syn::Error::new(g.span(), "expected `free(lo..=hi, guess T0)`"));
                }
                OcpItem::HorizonFree { lower, upper, guess: inner.parse()? }
            } else {
                OcpItem::HorizonFixed(input.parse()?)
            }
        }
        "x0" | "q0" | "v0" => {
            let free = input.peek(Ident) && input.fork().parse::<Ident>()? == "free";
            if free {
                input.parse::<Ident>()?;
            }
            OcpItem::InitialState { key: kw.clone(), values: parse_values(input)?, free }
        }
        "minimize" => {
            let t: Ident = input.parse()?;
            if t != "T" {
                return Err(syn::Error::new(t.span(), "`minimize T` is time-optimal control; other costs are `lagrange e` and `mayer e`"));
            }
            OcpItem::MinimizeTime
        }
        "lagrange" => OcpItem::Lagrange(input.parse()?),
        "mayer" => OcpItem::Mayer(input.parse()?),
        "time_cost" => OcpItem::TimeCost(input.parse()?),
        "terminal" => OcpItem::Terminal(parse_relations(input)?.0),
        "soft_terminal" => {
            let kind: Ident = input.parse()?;
            let l1 = match kind.to_string().as_str() {
                "l1" => true,
                "l2" => false,
                _ => return Err(syn::Error::new(kind.span(), "expected `soft_terminal l1(weight) { … }` or `l2(weight)`")),
            };
            let inner;
            parenthesized!(inner in input);
            let weight: Expr = inner.parse()?;
            OcpItem::SoftTerminal { l1, weight, relations: parse_relations(input)?.0 }
        }
        "path" => {
            let mut element_ends = false;
            if input.peek(Ident) {
                let at: Ident = input.parse()?;
                match at.to_string().as_str() {
                    "stages" => {}
                    "element_ends" => element_ends = true,
                    _ => return Err(syn::Error::new(at.span(), "expected `path { … }`, `path stages { … }` or `path element_ends { … }`")),
                }
            }
            OcpItem::Path { element_ends, relations: parse_relations(input)?.0 }
        }
        "tracking" => {
            let inner;
            braced!(inner in input);
            let (mut outputs, mut weight, mut reference) = (None, None, None);
            while !inner.is_empty() {
                let k: Ident = inner.parse()?;
                match k.to_string().as_str() {
                    "outputs" => outputs = Some(parse_list(&inner)?.0),
                    "weight" => weight = Some(inner.parse()?),
                    "reference" => reference = Some(inner.parse()?),
                    _ => return Err(syn::Error::new(k.span(), "expected `outputs [..]`, `weight w` or `reference r`")),
                }
                if !inner.is_empty() {
                    inner.parse::<Token![,]>()?;
                }
            }
            match (outputs, weight, reference) {
                (Some(outputs), Some(weight), Some(reference)) => OcpItem::Tracking { outputs, weight, reference },
                _ => return Err(syn::Error::new(kw.span(), "tracking needs `outputs [..]`, `weight w` and `reference r`")),
            }
        }
        "p" => {
            let inner;
            braced!(inner in input);
            OcpItem::ParamValues(comma_list(&inner, |p| {
                let n: Ident = p.parse()?;
                p.parse::<Token![=]>()?;
                Ok((n, p.parse()?))
            })?)
        }
        "options" => {
            let mut path = Tokens::new();
            while input.peek(Token![.]) {
                let dot: Token![.] = input.parse()?;
                let field: Ident = input.call(syn::ext::IdentExt::parse_any)?;
                path.extend(quote::quote!(#dot #field));
            }
            if path.is_empty() {
                return Err(syn::Error::new(kw.span(), "expected `options.<field> = value`, e.g. `options.fesd.n_s = 3`"));
            }
            input.parse::<Token![=]>()?;
            OcpItem::Option { path, value: input.parse()? }
        }
        other => return Err(syn::Error::new(kw.span(), format!("unknown OCP item `{other}`; expected {OCP_ITEMS}"))),
    };
    Ok(item)
}

/// `item, item, …` with an optional trailing comma, each item read by `f`.
pub fn comma_list<T>(input: ParseStream, mut f: impl FnMut(ParseStream) -> syn::Result<T>) -> syn::Result<Vec<T>> {
    let mut out = Vec::new();
    while !input.is_empty() {
        out.push(f(input)?);
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok(out)
}
