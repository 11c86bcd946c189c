//! Named groups of variables flattened to and from vectors.
//!
//! A struct such as `struct X<T> { q: T, v: T, r: [T; 3] }` names the entries of a
//! model's state: with `T = SX` its symbols, with `T = f64` bounds, guesses and values,
//! with `T = Vec<f64>` trajectories. [`Vars`] is its layout: the number of entries, their
//! names in flattening order, and the conversions. `#[derive(Vars)]` (crate `fesd-dsl`,
//! re-exported as `fesd::dsl::Vars`) writes it for such structs; fields are the
//! struct's type parameter (one entry), arrays of it (one entry each) or other `Vars`
//! structs of it (their entries, names prefixed with the field's).
//!
//! ```
//! use fesd_vars::{LenError, Vars};
//!
//! // What `#[derive(Vars)]` writes for `struct Point<T> { x: T, y: T }`.
//! #[derive(Debug, PartialEq)]
//! struct Point<T> { x: T, y: T }
//! impl<T> Vars<T> for Point<T> {
//!     type Rebind<U> = Point<U>;
//!     const LEN: usize = 2;
//!     fn names() -> Vec<String> { vec!["x".into(), "y".into()] }
//!     fn flatten_into(&self, out: &mut Vec<T>) where T: Clone { out.extend([self.x.clone(), self.y.clone()]); }
//!     fn take(values: &mut dyn Iterator<Item = T>) -> Option<Self> { Some(Point { x: values.next()?, y: values.next()? }) }
//!     fn map<U>(self, f: &mut dyn FnMut(T) -> U) -> Point<U> { Point { x: f(self.x), y: f(self.y) } }
//! }
//! let p = Point { x: 1.0, y: 2.0 };
//! assert_eq!(p.flatten(), vec![1.0, 2.0]);
//! assert_eq!(Point::unflatten(&[3.0, 4.0]), Ok(Point { x: 3.0, y: 4.0 }));
//! assert_eq!(Point::<f64>::unflatten(&[3.0]), Err(LenError { expected: 2, got: 1 }));
//! ```

/// A slice of the wrong length for a [`Vars`] group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LenError {
    /// Entries the group has ([`Vars::LEN`]).
    pub expected: usize,
    /// Entries given.
    pub got: usize,
}

impl std::fmt::Display for LenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} values given, the group has {}", self.got, self.expected)
    }
}

impl std::error::Error for LenError {}

/// A group of named entries of type `T`, flattened in declaration order.
pub trait Vars<T>: Sized {
    /// The same group with entries of type `U`.
    type Rebind<U>: Vars<U>;
    /// Number of entries.
    const LEN: usize;
    /// The entries' names in flattening order (`q`, `r[1]`, `inner.a`).
    fn names() -> Vec<String>;
    /// Appends the entries to `out` in flattening order.
    fn flatten_into(&self, out: &mut Vec<T>)
    where
        T: Clone;
    /// The group from the next [`Vars::LEN`] values of `values` (`None` if they run out).
    fn take(values: &mut dyn Iterator<Item = T>) -> Option<Self>;
    /// The group with `f` applied to every entry, in flattening order.
    fn map<U>(self, f: &mut dyn FnMut(T) -> U) -> Self::Rebind<U>;

    /// The entries in flattening order.
    fn flatten(&self) -> Vec<T>
    where
        T: Clone,
    {
        let mut out = Vec::with_capacity(Self::LEN);
        self.flatten_into(&mut out);
        out
    }

    /// The group from exactly [`Vars::LEN`] values; any other length is an error.
    fn unflatten(values: &[T]) -> Result<Self, LenError>
    where
        T: Clone,
    {
        let wrong = LenError { expected: Self::LEN, got: values.len() };
        if values.len() != Self::LEN {
            return Err(wrong);
        }
        Self::take(&mut values.iter().cloned()).ok_or(wrong)
    }
}

/// N groups, entries `[0].inner…` (an array of the entry type itself is a field the
/// derive lays out directly).
impl<T, G: Vars<T>, const N: usize> Vars<T> for [G; N] {
    type Rebind<U> = [G::Rebind<U>; N];
    const LEN: usize = N * G::LEN;

    fn names() -> Vec<String> {
        (0..N).flat_map(|i| G::names().into_iter().map(move |inner: String| field_name(&format!("[{i}]"), &inner))).collect()
    }

    fn flatten_into(&self, out: &mut Vec<T>)
    where
        T: Clone,
    {
        self.iter().for_each(|g| g.flatten_into(out));
    }

    fn take(values: &mut dyn Iterator<Item = T>) -> Option<Self> {
        let groups: Option<Vec<G>> = (0..N).map(|_| G::take(values)).collect();
        groups?.try_into().ok()
    }

    fn map<U>(self, f: &mut dyn FnMut(T) -> U) -> Self::Rebind<U> {
        <[G; N]>::map(self, |g| Vars::map(g, f))
    }
}

/// The name of entry `inner` of field `field`: `field`, `field[1]`, `field.inner`.
pub fn field_name(field: &str, inner: &str) -> String {
    match inner.chars().next() {
        None => field.to_string(),
        Some('[') => format!("{field}{inner}"),
        Some(_) => format!("{field}.{inner}"),
    }
}

/// The group of no entries: the controls or parameters of a model that has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Empty<T>(std::marker::PhantomData<T>);

impl<T> Default for Empty<T> {
    fn default() -> Self {
        Empty(std::marker::PhantomData)
    }
}

impl<T> Vars<T> for Empty<T> {
    type Rebind<U> = Empty<U>;
    const LEN: usize = 0;

    fn names() -> Vec<String> {
        Vec::new()
    }

    fn flatten_into(&self, _out: &mut Vec<T>)
    where
        T: Clone,
    {
    }

    fn take(_values: &mut dyn Iterator<Item = T>) -> Option<Self> {
        Some(Empty(std::marker::PhantomData))
    }

    fn map<U>(self, _f: &mut dyn FnMut(T) -> U) -> Empty<U> {
        Empty(std::marker::PhantomData)
    }
}

/// A group of trajectories (`X<Vec<f64>>`) from rows of values, one row per time point
/// as simulation and OCP results hold them (`r.x[k][i]`): entry `i`'s trajectory is
/// column `i`.
pub trait FromColumns: Vars<Vec<f64>> {
    /// Every row must have [`Vars::LEN`] values; the first row that does not is the
    /// error.
    fn from_columns(rows: &[Vec<f64>]) -> Result<Self, LenError> {
        if let Some(bad) = rows.iter().find(|r| r.len() != Self::LEN) {
            return Err(LenError { expected: Self::LEN, got: bad.len() });
        }
        let columns: Vec<Vec<f64>> = (0..Self::LEN).map(|i| rows.iter().map(|r| r[i]).collect()).collect();
        Self::unflatten(&columns)
    }
}

impl<V: Vars<Vec<f64>>> FromColumns for V {}
