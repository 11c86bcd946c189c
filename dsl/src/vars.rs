//! `#[derive(Vars)]`: the layout of a named group of variables.

use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::{spanned::Spanned, Data, DeriveInput, Fields, GenericParam};

/// The path of the trait's crate: `::fesd::dsl` unless `#[fesd(crate = path)]`.
fn crate_path(input: &DeriveInput) -> syn::Result<syn::Path> {
    let mut path: syn::Path = syn::parse_quote!(::fesd::dsl);
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("fesd")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                path = meta.value()?.parse()?;
                Ok(())
            } else {
                Err(meta.error("unknown fesd attribute; expected `crate = path`"))
            }
        })?;
    }
    Ok(path)
}

pub(crate) fn derive(input: &DeriveInput) -> syn::Result<Tokens> {
    let krate = crate_path(input)?;
    let name = &input.ident;
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(name.span(), "Vars: expected a struct with named fields (not an enum or a union)"));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new(data.fields.span(), "Vars: expected named fields, `struct X<T> { q: T, v: T }`"));
    };
    let types: Vec<_> = input.generics.params.iter().collect();
    let t = match types.as_slice() {
        [GenericParam::Type(t)] => &t.ident,
        _ => {
            return Err(syn::Error::new(
                input.generics.span(),
                "Vars: expected exactly one type parameter, the entry type: `struct X<T> { .. }`",
            ))
        }
    };
    let mut parts = Parts::default();
    for f in &fields.named {
        let (ident, ty) = (f.ident.clone().ok_or_else(|| syn::Error::new(f.span(), "Vars: a field without a name"))?, &f.ty);
        let label = ident.to_string();
        let field = match classify(ty, t) {
            Kind::Entry => Field {
                len: quote!(1),
                names: quote!(out.push(::std::string::String::from(#label));),
                flatten: quote!(out.push(::std::clone::Clone::clone(&self.#ident));),
                take: quote!(values.next()?),
                map: quote!(f(self.#ident)),
            },
            Kind::Entries(n) => Field {
                len: quote!(#n),
                names: quote!(out.extend((0..#n).map(|i| ::std::format!("{}[{}]", #label, i)));),
                flatten: quote!(out.extend(self.#ident.iter().cloned());),
                take: quote!({
                    let taken: ::std::vec::Vec<#t> = (0..#n).map(|_| values.next()).collect::<::std::option::Option<_>>()?;
                    taken.try_into().ok()?
                }),
                map: quote!(self.#ident.map(|x| f(x))),
            },
            Kind::Group => Field {
                len: quote!(<#ty as #krate::Vars<#t>>::LEN),
                names: quote!(out.extend(<#ty as #krate::Vars<#t>>::names().iter().map(|inner| #krate::field_name(#label, inner)));),
                flatten: quote!(#krate::Vars::<#t>::flatten_into(&self.#ident, out);),
                take: quote!(<#ty as #krate::Vars<#t>>::take(values)?),
                map: quote!(#krate::Vars::<#t>::map(self.#ident, f)),
            },
        };
        parts.push(ident, field);
    }
    let Parts { idents, len, names, flatten, take, map } = parts;
    Ok(quote! {
        impl<#t> #krate::Vars<#t> for #name<#t> {
            type Rebind<__U> = #name<__U>;
            const LEN: usize = 0 #(+ #len)*;

            fn names() -> ::std::vec::Vec<::std::string::String> {
                let mut out = ::std::vec::Vec::new();
                #(#names)*
                out
            }

            fn flatten_into(&self, out: &mut ::std::vec::Vec<#t>)
            where
                #t: ::std::clone::Clone,
            {
                #(#flatten)*
            }

            fn take(values: &mut dyn ::std::iter::Iterator<Item = #t>) -> ::std::option::Option<Self> {
                ::std::option::Option::Some(#name { #(#idents: #take,)* })
            }

            fn map<__U>(self, f: &mut dyn ::std::ops::FnMut(#t) -> __U) -> #name<__U> {
                #name { #(#idents: #map,)* }
            }
        }
    })
}

/// What a field of the group is.
enum Kind {
    /// The entry type itself: one entry.
    Entry,
    /// An array of the entry type: this many entries.
    Entries(Box<syn::Expr>),
    /// Another group (or an array of groups): its entries.
    Group,
}

/// `ty` against the entry type `t`.
fn classify(ty: &syn::Type, t: &syn::Ident) -> Kind {
    let is_entry = |ty: &syn::Type| matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident(t));
    match ty {
        ty if is_entry(ty) => Kind::Entry,
        syn::Type::Array(a) if is_entry(&a.elem) => Kind::Entries(Box::new(a.len.clone())),
        _ => Kind::Group,
    }
}

/// The code of one field in each generated item.
struct Field {
    len: Tokens,
    names: Tokens,
    flatten: Tokens,
    take: Tokens,
    map: Tokens,
}

/// Every field's code, item by item.
#[derive(Default)]
struct Parts {
    idents: Vec<syn::Ident>,
    len: Vec<Tokens>,
    names: Vec<Tokens>,
    flatten: Vec<Tokens>,
    take: Vec<Tokens>,
    map: Vec<Tokens>,
}

impl Parts {
    fn push(&mut self, ident: syn::Ident, f: Field) {
        self.idents.push(ident);
        self.len.push(f.len);
        self.names.push(f.names);
        self.flatten.push(f.flatten);
        self.take.push(f.take);
        self.map.push(f.map);
    }
}
