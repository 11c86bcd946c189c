//! Model definitions by macro: `pss_model!`, `cls_model!` and `#[derive(Vars)]`.
//!
//! The macros (crate `fesd-dsl`) parse, check and expand a model written by name into
//! the builder calls one would write by hand (`PssModel::new(x).with_subsystem(..)`,
//! `ClsModel::new(q, v).with_contact(..)`, `Ocp::new(..)` and its fields), so a macro
//! model builds the same graph and hits the same kernel cache. What they add: names
//! instead of indices, errors at compile time on the offending token (an unknown name
//! with the nearest known one, a sign row or list of the wrong length, a region over an
//! undefined switching function, a control in a terminal term, …), and results read by
//! name (`sol.x.v[k]`).
//!
//! In symbolic expressions (switching functions, dynamics, costs, constraints) the
//! operators `+ - * /` become checked operations carrying their source line: a shape
//! mismatch is a [`ModelError::Casadi`](crate::model::ModelError::Casadi) naming
//! `file:line`, not a panic. Bounds, defaults, restitution and friction are plain Rust
//! `f64` expressions. The [`prelude`] is in scope inside the macros.
//!
//! # Grammar
//!
//! ```text
//! pss_model! {
//!     /// Docs, other attributes, and optionally #[fesd(crate = path)] (default ::fesd).
//!     [pub] Name[(arg: Type, …)] {                 // arguments: plain Rust values (f64, usize, …)
//!         const NAME = 2.0 * arg;                  // an f64, in scope below
//!         states    { q, r: 3, v in -20.0..=20.0 = 0.0 }   // name[: size] [in lo..=hi] [= default]
//!         controls  { u in -5.0..=5.0 = 1.0 }      // the default is the OCP's initial guess
//!         params    { k = 3.0 free in 1.0..=5.0 }  // the default is its value; `free`: an OCP unknown
//!         drift     [e_q, e_r, e_v]                // f_0, one entry per state (or per state, below)
//!         switching { c = v - 10.0, d = q }        // scalar switching functions c(x, u, p)
//!         regions   {                              // one Filippov system over c and d
//!             turbo:  [+, 0] => [v, …],            // a sign row, one sign per switching function
//!             brake:  c < 0 && !(d > 0) => …,      // or a set expression: `>`/`<` 0, `!`, `&&`, `||`
//!             cruise: c < 0 && d > 0 => { der(q) = v; der(r) = r; der(v) = u }, // per state
//!         }
//!         indicators [g1, g2, g3]                  // Stewart indicators (default −S c)
//!         subsystem name { switching { … } regions { … } indicators [ … ] }   // further systems
//!         ocp name { item, item, … }               // a method `name(&self) -> Result<Ocp, OcpError>`
//!     }
//! }
//!
//! cls_model! {
//!     [pub] Name[(arg: Type, …)] {
//!         const …;  controls { … }  params { … }   // as above
//!         q { x, y in 0.0..=2.0 }                  // positions
//!         v { vx, vy }                             // velocities, one per position
//!         mass   [[m, 0.0], [0.0, m]]              // M(q, p), default the identity
//!         forces [u, -9.81 * m]                    // one entry per position
//!         contacts {
//!             floor: gap y, restitution 0.5, friction 0.3 along [1.0, 0.0],
//!             wall:  gap x + 1.0, normal [1.0, 0.0], friction mu along [0.0, 1.0], [0.0, 0.0],
//!         }
//!         ocp name { item, … }                     // `q0 [..]`, `v0 [..]` for `x0`
//!     }
//! }
//! ```
//!
//! Conjunctions of `c > 0`, `c < 0`, `!(c > 0)` are sign rows (`Subsystem::new`, either
//! representation); a region that needs `||` or the complement of a compound set makes
//! the subsystem's regions `RegionSet`s (`Subsystem::from_sets`, the Step representation).
//! Derivatives are `der(q) = …`: Rust cannot tokenize `q' = …`.
//!
//! OCP items (each writes the field of [`Ocp`](crate::ocp::Ocp) of the same name):
//!
//! | item | meaning |
//! |---|---|
//! | `intervals N` | control intervals (required) |
//! | `horizon T` / `horizon free(lo..=hi, guess T0)` | fixed or free horizon (required) |
//! | `elements n` / `n_fe_per_interval vec![..]` | finite elements per interval |
//! | `x0 [..]` / `x0 expr` / `x0 free [guess..]` | initial state (free: within the states' bounds); default: the states' defaults |
//! | `minimize T` / `time_cost w` | weight of T in the cost |
//! | `lagrange e` / `mayer e` | stage cost L(x, u, p) / terminal cost M(x(T), p) |
//! | `terminal { q == 200.0, v in -1.0..=1.0, r == [0.0, 1.0], … }` | stacked into one `TerminalConstraint` |
//! | `soft_terminal l1(w) { … }` / `l2(w)` | the same relations as a penalty |
//! | `path { … }` / `path element_ends { … }` | path constraints at the stages or element ends |
//! | `tracking { outputs [..], weight w, reference r }` | least-squares tracking |
//! | `p { k = 2.0, … }` | parameter values (free params start here) |
//! | `options.<field>… = value` | any option, e.g. `options.fesd.n_s = 3` |
//!
//! State, control and param bounds come from the declarations; a Mayer or terminal term
//! that uses a control is a compile error. Typed results: `Name::solution(&OcpResult)`
//! and `Name::trajectory(&SimulationResult)` (`&ClsSimulation` for rigid bodies) give the
//! groups `NameX`/`NameU`/`NameP` (`NameQ`/`NameV`) of `Vec<f64>` trajectories.
//!
//! # A switched system and its optimal control problem
//!
//! ```no_run
//! use fesd::dsl::pss_model;
//! use fesd::ocp::OcpSolver;
//!
//! pss_model! {
//!     /// Time-optimal car with a turbo: u acts three times as strongly above v = 10.
//!     pub CarTurbo(n: usize, n_fe: usize) {
//!         states    { q, v in -20.0..=20.0 }
//!         controls  { u in -5.0..=5.0 }
//!         switching { c = v - 10.0 }
//!         regions   { turbo: c > 0 => [v, u * 3.0], normal: c < 0 => [v, u] }
//!         ocp time_optimal {
//!             intervals n, elements n_fe, horizon free(1.0..=30.0, guess 15.0),
//!             x0 [0.0, 0.0], minimize T, terminal { q == 200.0, v == 0.0 },
//!         }
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let car = CarTurbo::new(10, 3)?;
//! let r = OcpSolver::new(&car.time_optimal()?)?.solve()?;
//! let sol = CarTurbo::solution(&r)?;
//! assert!((sol.t_final - 40.0 / 3.0).abs() < 1e-6);
//! println!("top speed {}", sol.x.v.iter().fold(0.0_f64, |a, b| a.max(*b)));
//! # Ok(()) }
//! ```
//!
//! # A simulation, regions as sets, dynamics per state
//!
//! ```
//! use fesd::dsl::pss_model;
//! use fesd::model::Representation;
//! use fesd::sim::{Simulator, SimulatorOptions};
//!
//! pss_model! {
//!     /// A relay with drift: ẋ = drift − sign(x), sliding on x = 0 for |drift| < 1.
//!     Relay(drift: f64) {
//!         states    { x }
//!         switching { c = x }
//!         regions   {
//!             above: c > 0 => { der(x) = drift - 1.0 },
//!             below: !(c > 0) => { der(x) = drift + 1.0 },
//!         }
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let relay = Relay::new(0.5)?;
//! let mut opts: SimulatorOptions = SimulatorOptions { step: 0.1, n_steps: 10, ..Default::default() };
//! opts.fesd.representation = Representation::Step; // set regions have no Stewart indicators
//! let r = Simulator::new(&relay.model, opts)?.simulate(&[0.3], &[], &[])?;
//! let traj = Relay::trajectory(&r)?;
//! assert!((traj.x.x[0] - 0.3).abs() < 1e-12);
//! // x reaches 0 at t = 0.3 / 0.5 = 0.6 and slides on x = 0 afterwards.
//! assert!(traj.x.x.last().unwrap().abs() < 1e-6);
//! # Ok(()) }
//! ```
//!
//! # Rigid bodies
//!
//! ```
//! use fesd::dsl::cls_model;
//! use fesd::cls::ClsModel;
//! use fesd::sim::{Simulator, SimulatorOptions};
//!
//! cls_model! {
//!     /// A ball dropped on a table: gap y, Newton restitution `eps`.
//!     Ball(eps: f64) {
//!         const G = 9.81;
//!         q { y }
//!         v { vy }
//!         forces [-G]
//!         contacts { table: gap y, restitution eps }
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ball = Ball::new(1.0)?;
//! let opts = SimulatorOptions::<ClsModel> { step: 0.15, n_steps: 4, ..Default::default() };
//! let r = Simulator::<ClsModel>::new(&ball.model, opts)?.simulate_from(&[0.8], &[0.0], &[], &[])?;
//! let traj = Ball::trajectory(&r)?;
//! assert!((r.impacts[0].time - (2.0 * 0.8 / 9.81_f64).sqrt()).abs() < 1e-6);
//! assert!(traj.q.y.iter().all(|y| *y > -1e-9));
//! # Ok(()) }
//! ```
//!
//! # Named groups
//!
//! `#[derive(Vars)]` on a struct generic over its entry type lays out its fields as one
//! vector, in declaration order: the entry type itself is one entry, an array of it one
//! per element, another `Vars` struct (or an array of them) its own entries. The same
//! struct holds symbols ([`Symbols::symbols`]), numbers, and trajectories
//! ([`FromColumns::from_columns`]).
//!
//! ```
//! use fesd::dsl::{FromColumns, Symbols, Vars};
//!
//! #[derive(Vars, Debug, PartialEq)]
//! struct Joint<T> { angle: T, rate: T }
//!
//! #[derive(Vars, Debug, PartialEq)]
//! struct Arm<T> { base: [T; 2], joints: [Joint<T>; 2], tip: T }
//!
//! assert_eq!(Arm::<f64>::LEN, 7);
//! assert_eq!(Arm::<f64>::names()[..4], ["base[0]", "base[1]", "joints[0].angle", "joints[0].rate"]);
//! let x = Arm::unflatten(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]).unwrap();
//! assert_eq!(x.joints[1].rate, 6.0);
//! assert_eq!(x.flatten(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
//! assert!(Arm::<f64>::unflatten(&[1.0]).is_err());
//! let labels = x.map(&mut |v| format!("{v}"));
//! assert_eq!(labels.tip, "7");
//!
//! let sym = Arm::symbols("x").unwrap();
//! assert_eq!(sym.tip.to_string(), "x_6");
//! let rows = vec![vec![0.0; 7], vec![1.0; 7]];
//! assert_eq!(Arm::from_columns(&rows).unwrap().joints[0].rate, [0.0, 1.0]);
//! assert!(Arm::from_columns(&[vec![0.0; 6]]).is_err());
//! ```

pub use fesd_dsl::{cls_model, pss_model, Vars};
pub use fesd_vars::{field_name, Empty, FromColumns, LenError, Vars};

use casadi::SX;

/// Symbols for a group: one `SX::sym(name, LEN)` split into its entries (an entry of
/// an array field is one scalar symbol; `x_0, x_1, …` as the builder names them).
pub trait Symbols: Vars<SX> {
    /// The group's symbols, named `name_0 … name_{LEN−1}` in flattening order.
    fn symbols(name: &str) -> Result<Self, casadi::Error> {
        let entries = SX::sym(name, Self::LEN).entries()?;
        Self::unflatten(&entries).map_err(|e| casadi::Error::InvalidArgument(e.to_string()))
    }
}

impl<V: Vars<SX>> Symbols for V {}

/// What the model macros bring into scope: the group traits, `SX`, and math on
/// expressions and numbers (`sin(v)`, `dot(q, q)?`).
pub mod prelude {
    pub use super::{FromColumns, Symbols, Vars};
    pub use casadi::SX;

    /// A scalar or an expression, as the math helpers take it: `f64`, `i32`, `SX`, `&SX`.
    pub trait Operand: Sized {
        /// The value as an expression.
        fn into_sx(self) -> SX;
        /// `f` of the value as an expression, without a copy where it is one already.
        fn with_sx<T>(self, f: impl FnOnce(&SX) -> T) -> T {
            f(&self.into_sx())
        }
    }

    impl Operand for f64 {
        fn into_sx(self) -> SX {
            SX::scalar(self)
        }
    }

    impl Operand for i32 {
        fn into_sx(self) -> SX {
            SX::scalar(f64::from(self))
        }
    }

    impl Operand for SX {
        fn into_sx(self) -> SX {
            self
        }
    }

    impl Operand for &SX {
        fn into_sx(self) -> SX {
            self.clone()
        }
        fn with_sx<T>(self, f: impl FnOnce(&SX) -> T) -> T {
            f(self)
        }
    }

    /// Defines elementwise functions of one operand.
    macro_rules! unary {
        ($($name:ident: $doc:literal),* $(,)?) => {$(
            #[doc = $doc]
            pub fn $name(x: impl Operand) -> SX {
                x.with_sx(|x| x.$name())
            }
        )*};
    }

    unary! {
        sin: "Elementwise sine.",
        cos: "Elementwise cosine.",
        tan: "Elementwise tangent.",
        exp: "Elementwise exponential.",
        log: "Elementwise natural logarithm.",
        sqrt: "Elementwise square root.",
        abs: "Elementwise absolute value.",
        tanh: "Elementwise hyperbolic tangent.",
        sign: "Elementwise sign (−1, 0, 1).",
    }

    /// Elementwise power with a constant exponent.
    pub fn powf(x: impl Operand, exponent: f64) -> SX {
        x.with_sx(|x| x.powf(exponent))
    }

    /// Elementwise `atan2(y, x)`; an error if the shapes differ.
    pub fn atan2(y: impl Operand, x: impl Operand) -> Result<SX, casadi::Error> {
        y.with_sx(|y| x.with_sx(|x| y.atan2(x)))
    }

    /// Inner product `Σ a_ij b_ij`; an error if the shapes differ.
    pub fn dot(a: impl Operand, b: impl Operand) -> Result<SX, casadi::Error> {
        a.with_sx(|a| b.with_sx(|b| a.dot(b)))
    }

    /// Matrix product; an error if the inner dimensions differ.
    pub fn mtimes(a: impl Operand, b: impl Operand) -> Result<SX, casadi::Error> {
        a.with_sx(|a| b.with_sx(|b| a.mtimes(b)))
    }

    /// The matrix of these rows (each of the same length).
    pub fn matrix<const C: usize>(rows: &[[f64; C]]) -> Result<SX, casadi::Error> {
        let rows: Vec<&[f64]> = rows.iter().map(|r| r.as_slice()).collect();
        SX::from_rows(&rows)
    }
}

/// What expanded macro code calls; not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use super::prelude::Operand;
    use casadi::{Error, SX};
    use std::borrow::Cow;

    pub use crate::{casadi, cls, model, ocp, sim};

    /// An arithmetic operator.
    #[derive(Clone, Copy)]
    pub enum Op {
        /// `+`
        Add,
        /// `-`
        Sub,
        /// `*`
        Mul,
        /// `/`
        Div,
    }

    /// `self op rhs`: numbers stay numbers, anything with an expression is a checked
    /// expression whose error names `at`.
    pub trait Arith<R> {
        /// `f64` or `SX`.
        type Output;
        /// The operation.
        fn arith(self, op: Op, rhs: R, at: &'static str) -> Result<Self::Output, Error>;
    }

    fn numbers(a: f64, op: Op, b: f64) -> f64 {
        match op {
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Div => a / b,
        }
    }

    fn expressions(a: &SX, op: Op, b: &SX, at: &'static str) -> Result<SX, Error> {
        let r = match op {
            Op::Add => a.try_add(b),
            Op::Sub => a.try_sub(b),
            Op::Mul => a.try_mul(b),
            Op::Div => a.try_div(b),
        };
        located(r, at)
    }

    /// Implements `Arith` for a pair of number types.
    macro_rules! numbers {
        ($($a:ty, $b:ty);*) => {$(
            impl Arith<$b> for $a {
                type Output = f64;
                fn arith(self, op: Op, rhs: $b, _at: &'static str) -> Result<f64, Error> {
                    Ok(numbers(f64::from(self), op, f64::from(rhs)))
                }
            }
        )*};
    }
    numbers!(f64, f64; f64, i32; i32, f64; i32, i32);

    /// Implements `Arith` for a number on the left of an expression.
    macro_rules! number_left {
        ($($a:ty),*) => {$(
            impl Arith<SX> for $a {
                type Output = SX;
                fn arith(self, op: Op, rhs: SX, at: &'static str) -> Result<SX, Error> {
                    expressions(&self.into_sx(), op, &rhs, at)
                }
            }
            impl Arith<&SX> for $a {
                type Output = SX;
                fn arith(self, op: Op, rhs: &SX, at: &'static str) -> Result<SX, Error> {
                    expressions(&self.into_sx(), op, rhs, at)
                }
            }
        )*};
    }
    number_left!(f64, i32);

    impl<R: Operand> Arith<R> for SX {
        type Output = SX;
        fn arith(self, op: Op, rhs: R, at: &'static str) -> Result<SX, Error> {
            rhs.with_sx(|b| expressions(&self, op, b, at))
        }
    }

    impl<R: Operand> Arith<R> for &SX {
        type Output = SX;
        fn arith(self, op: Op, rhs: R, at: &'static str) -> Result<SX, Error> {
            rhs.with_sx(|b| expressions(self, op, b, at))
        }
    }

    /// `r` with `at` (`file:line`) added to its error.
    pub fn located<T>(r: Result<T, Error>, at: &'static str) -> Result<T, Error> {
        r.map_err(|e| match e {
            Error::Casadi(m) => Error::Casadi(format!("{m} (at {at})")),
            Error::InvalidArgument(m) => Error::InvalidArgument(format!("{m} (at {at})")),
            other => other,
        })
    }

    /// A scalar or expression as an expression.
    pub fn sx(v: impl Operand) -> SX {
        v.into_sx()
    }

    /// A scalar or expression as an entry of a column: borrowed where it is a name.
    pub trait Piece<'a> {
        /// The entry.
        fn piece(self) -> Cow<'a, SX>;
    }

    impl<'a> Piece<'a> for &'a SX {
        fn piece(self) -> Cow<'a, SX> {
            Cow::Borrowed(self)
        }
    }

    impl Piece<'_> for SX {
        fn piece(self) -> Cow<'static, SX> {
            Cow::Owned(self)
        }
    }

    impl Piece<'_> for f64 {
        fn piece(self) -> Cow<'static, SX> {
            Cow::Owned(SX::scalar(self))
        }
    }

    impl Piece<'_> for i32 {
        fn piece(self) -> Cow<'static, SX> {
            Cow::Owned(SX::scalar(f64::from(self)))
        }
    }

    /// `e` as the `rows × 1` entry named `what`; its shape is checked here, so an error
    /// names the entry and `at` instead of a whole stacked vector.
    pub fn entry<'a>(e: impl Piece<'a>, rows: usize, what: &str, at: &'static str) -> Result<Cow<'a, SX>, Error> {
        let e = e.piece();
        if e.shape() != (rows, 1) {
            return Err(Error::InvalidArgument(format!("{what} is {}x{}, expected {rows}x1 (at {at})", e.nrow(), e.ncol())));
        }
        Ok(e)
    }

    /// The entries stacked into one column (one entry is that entry itself).
    pub fn column(entries: Vec<Cow<'_, SX>>) -> Result<SX, Error> {
        match entries.len() {
            0 => Ok(SX::zeros(0, 1)),
            1 => Ok(entries.into_iter().next().map(Cow::into_owned).unwrap_or_else(|| SX::zeros(0, 1))),
            _ => SX::vertcat(&entries.iter().map(|e| e.as_ref()).collect::<Vec<_>>()),
        }
    }

    /// The `N` scalar entries of a sized name's symbols.
    pub fn array<const N: usize>(s: &SX) -> Result<[SX; N], Error> {
        let entries = s.entries()?;
        let got = entries.len();
        entries.try_into().map_err(|_| Error::InvalidArgument(format!("{got} entries, expected {N}")))
    }

    /// The matrix of these rows of scalar entries.
    pub fn rows(rows: &[Vec<Cow<'_, SX>>], at: &'static str) -> Result<SX, Error> {
        let rows: Vec<SX> =
            rows.iter().map(|r| SX::horzcat(&r.iter().map(|e| e.as_ref()).collect::<Vec<_>>())).collect::<Result<_, _>>()?;
        located(SX::vertcat(&rows.iter().collect::<Vec<_>>()), at)
    }

    /// Numbers a bound or value is given as: one number for every entry, or a list.
    pub trait Bound {
        /// `n` values; `at` names the source of a wrong length.
        fn values(self, n: usize, at: &'static str) -> Result<Vec<f64>, Error>;
    }

    impl Bound for f64 {
        fn values(self, n: usize, _at: &'static str) -> Result<Vec<f64>, Error> {
            Ok(vec![self; n])
        }
    }

    impl Bound for i32 {
        fn values(self, n: usize, _at: &'static str) -> Result<Vec<f64>, Error> {
            Ok(vec![f64::from(self); n])
        }
    }

    impl Bound for &[f64] {
        fn values(self, n: usize, at: &'static str) -> Result<Vec<f64>, Error> {
            if self.len() != n {
                return Err(Error::InvalidArgument(format!("{} values given for {n} entries (at {at})", self.len())));
            }
            Ok(self.to_vec())
        }
    }

    impl<const N: usize> Bound for [f64; N] {
        fn values(self, n: usize, at: &'static str) -> Result<Vec<f64>, Error> {
            self.as_slice().values(n, at)
        }
    }

    impl Bound for Vec<f64> {
        fn values(self, n: usize, at: &'static str) -> Result<Vec<f64>, Error> {
            self.as_slice().values(n, at)
        }
    }

    impl Bound for &Vec<f64> {
        fn values(self, n: usize, at: &'static str) -> Result<Vec<f64>, Error> {
            self.as_slice().values(n, at)
        }
    }

    /// `lower ≤ e ≤ upper` as the expression and one bound per row (±∞ where none).
    pub fn relation<'a>(
        e: impl Piece<'a>,
        lower: Option<impl Bound>,
        upper: Option<impl Bound>,
        at: &'static str,
    ) -> Result<Relation<'a>, Error> {
        let e = e.piece();
        if e.ncol() != 1 {
            return Err(Error::InvalidArgument(format!("a constraint must be a column vector, got {}x{} (at {at})", e.nrow(), e.ncol())));
        }
        let n = e.nrow();
        let lower = match lower {
            Some(b) => b.values(n, at)?,
            None => vec![f64::NEG_INFINITY; n],
        };
        let upper = match upper {
            Some(b) => b.values(n, at)?,
            None => vec![f64::INFINITY; n],
        };
        Ok(Relation { expr: e, lower, upper })
    }

    /// Relations stacked into one: expressions one above the other, bounds concatenated.
    pub fn stack(list: Vec<Relation<'_>>) -> Result<(SX, Vec<f64>, Vec<f64>), Error> {
        let mut exprs = Vec::with_capacity(list.len());
        let (mut lower, mut upper) = (Vec::new(), Vec::new());
        for r in list {
            exprs.push(r.expr);
            lower.extend(r.lower);
            upper.extend(r.upper);
        }
        Ok((column(exprs)?, lower, upper))
    }

    /// `lower ≤ expr ≤ upper`, one bound per row.
    pub struct Relation<'a> {
        /// The constrained expression (a column).
        pub expr: Cow<'a, SX>,
        /// Lower bounds.
        pub lower: Vec<f64>,
        /// Upper bounds.
        pub upper: Vec<f64>,
    }

    /// Trajectories as rows, one per time point.
    pub type Rows = Vec<Vec<f64>>;

    /// Rows split into consecutive blocks of these widths (`(q, v)` into q and v), each
    /// block a list of rows; a row of another total length is an error.
    pub fn split_rows(rows: &[Vec<f64>], widths: &[usize]) -> Result<Vec<Rows>, super::LenError> {
        let total = widths.iter().sum();
        let mut parts = vec![Vec::with_capacity(rows.len()); widths.len()];
        for r in rows {
            if r.len() != total {
                return Err(super::LenError { expected: total, got: r.len() });
            }
            let mut start = 0;
            for (part, w) in parts.iter_mut().zip(widths) {
                part.push(r[start..start + w].to_vec());
                start += w;
            }
        }
        Ok(parts)
    }
}
