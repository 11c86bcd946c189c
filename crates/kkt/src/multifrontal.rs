//! A multifrontal LDLᵀ with threshold pivoting and delayed pivots.
//!
//! The elimination order's supernodes (chains of columns with nested patterns) are the
//! fronts. Each front is a dense symmetric matrix: the supernode's columns, the columns
//! its children could not eliminate (delayed), and the rows below them. Its fully summed
//! columns are eliminated with 1×1 pivots where |a_cc| ≥ u · max|column| and 2×2 pivots
//! (Bunch–Kaufman blocks, accepted by the same growth bound on their inverse) otherwise;
//! what passes neither test is delayed to the parent front, where more of the matrix is
//! summed. At a root nothing can be delayed: the best pivot is taken, and a matrix whose
//! best remaining pivot is zero (at or below a tolerance) is singular. The inertia is
//! counted from the 1×1 and 2×2 blocks of D.

use crate::KktError;

/// Analysis of an elimination order (supernodes, their row patterns) and the last
/// numeric factor.
pub(crate) struct Multifrontal {
    /// Position → original row.
    pub(crate) order: Vec<usize>,
    /// Lower triangle of the permuted matrix by columns (rows ≥ column): where each
    /// column's entries start, and the index of each entry's value in the original pattern.
    a_ptr: Vec<usize>,
    a_src: Vec<usize>,
    /// The position of each entry's row and of each column in its supernode's front, counted
    /// past the columns delayed into it (which come first): its columns, then its rows.
    a_loc: Vec<usize>,
    col_loc: Vec<usize>,
    /// The values in `a_src`'s order (gathered once per factorization).
    a_val: Vec<f64>,
    /// Supernode → its columns (none for one merged into its parent).
    sn_cols: Vec<Vec<usize>>,
    /// Supernode → rows below its columns, ascending.
    sn_rows: Vec<Vec<usize>>,
    /// Supernode → its children.
    sn_children: Vec<Vec<usize>>,
    /// Supernode → parent (`usize::MAX` at roots).
    sn_parent: Vec<usize>,
    fronts: Vec<Front>,
    local: Vec<usize>,
    /// Row scales of the front being factored.
    scale: Vec<f64>,
    /// A child's rows as the front's local indices.
    child_local: Vec<usize>,
    /// Delayed columns in the last factorization.
    pub(crate) delayed: usize,
}

/// One factored front: its indices (pivots first, in pivot order, then the delayed
/// columns, then the rows below), the number of pivots and of delayed columns, the
/// factored dense front (f × f, column-major: its first `pivots` columns are L's, its
/// trailing block the contribution block its parent assembles; kept in place, not
/// copied), D's diagonal and the off-diagonal of each 2×2 block at the block's first
/// pivot.
#[derive(Default)]
struct Front {
    idx: Vec<usize>,
    pivots: usize,
    delayed: usize,
    dense: Vec<f64>,
    d: Vec<f64>,
    off: Vec<f64>,
}

impl Multifrontal {
    /// Analyses `order` (position → row) for the lower-triangle pattern.
    pub(crate) fn new(order: Vec<usize>, col_ptr: &[usize], row_idx: &[usize]) -> Self {
        let n = order.len();
        let mut inverse = vec![0; n];
        for (k, &i) in order.iter().enumerate() {
            inverse[i] = k;
        }
        // Permuted lower triangle by columns, and by rows (for the elimination tree).
        let mut count = vec![0usize; n + 1];
        for j in 0..n {
            for &i in &row_idx[col_ptr[j]..col_ptr[j + 1]] {
                count[inverse[i].min(inverse[j]) + 1] += 1;
            }
        }
        for k in 0..n {
            count[k + 1] += count[k];
        }
        let a_ptr = count.clone();
        let (mut a_row, mut a_src) = (vec![0; row_idx.len()], vec![0; row_idx.len()]);
        let mut by_row: Vec<Vec<usize>> = vec![Vec::new(); n];
        for j in 0..n {
            for p in col_ptr[j]..col_ptr[j + 1] {
                let (a, b) = (inverse[row_idx[p]], inverse[j]);
                let (lo, hi) = (a.min(b), a.max(b));
                let slot = &mut count[lo];
                (a_row[*slot], a_src[*slot]) = (hi, p);
                *slot += 1;
                if hi != lo {
                    by_row[hi].push(lo);
                }
            }
        }
        // Elimination tree (Liu, with path compression).
        let (mut parent, mut ancestor) = (vec![usize::MAX; n], vec![usize::MAX; n]);
        for (k, row) in by_row.iter().enumerate() {
            for &j in row {
                let mut i = j;
                while ancestor[i] != usize::MAX && ancestor[i] != k {
                    let next = ancestor[i];
                    ancestor[i] = k;
                    i = next;
                }
                if ancestor[i] == usize::MAX {
                    ancestor[i] = k;
                    parent[i] = k;
                }
            }
        }
        // Row pattern of each column of L below the diagonal: A's column ∪ children's.
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for j in 0..n {
            if parent[j] != usize::MAX {
                children[parent[j]].push(j);
            }
        }
        let mut pattern: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut mark = vec![usize::MAX; n];
        for j in 0..n {
            let mut rows = Vec::new();
            mark[j] = j;
            for &i in &a_row[a_ptr[j]..a_ptr[j + 1]] {
                if mark[i] != j {
                    mark[i] = j;
                    rows.push(i);
                }
            }
            for &c in &children[j] {
                for &i in &pattern[c] {
                    if mark[i] != j {
                        mark[i] = j;
                        rows.push(i);
                    }
                }
            }
            rows.sort_unstable();
            pattern[j] = rows;
        }
        // Fundamental supernodes: j + 1 continues j's when it is j's parent, j is its only
        // child and the patterns nest.
        let mut sn_start = vec![0];
        for j in 1..n {
            let continues = parent[j - 1] == j && children[j].len() == 1 && pattern[j - 1].len() == pattern[j].len() + 1;
            if !continues {
                sn_start.push(j);
            }
        }
        let ns = sn_start.len();
        sn_start.push(n);
        let mut sn_of = vec![0; n];
        for s in 0..ns {
            sn_of[sn_start[s]..sn_start[s + 1]].fill(s);
        }
        let mut sn_cols: Vec<Vec<usize>> = (0..ns).map(|s| (sn_start[s]..sn_start[s + 1]).collect()).collect();
        let sn_rows: Vec<Vec<usize>> = (0..ns).map(|s| pattern[sn_start[s + 1] - 1].clone()).collect();
        let sn_parent: Vec<usize> =
            (0..ns).map(|s| parent[sn_start[s + 1] - 1]).map(|p| if p == usize::MAX { p } else { sn_of[p] }).collect();
        // Relaxed amalgamation: a small supernode merges into its parent when the zeros
        // this adds to its columns are few (always when both are tiny); children before
        // parents, so a supernode has absorbed its own children when it is considered.
        let mut sn_children: Vec<Vec<usize>> = vec![Vec::new(); ns];
        let mut own_rows: Vec<usize> = (0..ns).map(|s| sn_rows[s].len()).collect();
        for c in 0..ns {
            let p = sn_parent[c];
            if p == usize::MAX {
                continue;
            }
            let (nc, np) = (sn_cols[c].len(), sn_cols[p].len());
            let merged = nc + np;
            // c's columns gain p's columns and rows in place of their own rows.
            let zeros = nc * (np + sn_rows[p].len()).saturating_sub(own_rows[c]);
            let entries = merged * (merged + 1) / 2 + merged * sn_rows[p].len();
            // Thresholds measured on captured KKT matrices (docs/evidence/kkt.md).
            let merge = merged <= 2 || (merged <= 8 && 2 * zeros <= entries) || (merged <= 16 && 10 * zeros <= entries);
            if merge {
                let cols = std::mem::take(&mut sn_cols[c]);
                sn_cols[p].extend(cols);
                let grandchildren = std::mem::take(&mut sn_children[c]);
                sn_children[p].extend(grandchildren);
                own_rows[p] = own_rows[p].max(own_rows[c]);
            } else {
                sn_children[p].push(c);
            }
        }
        let sn_parent: Vec<usize> = {
            let mut up = vec![usize::MAX; ns];
            for (p, kids) in sn_children.iter().enumerate() {
                for &c in kids {
                    up[c] = p;
                }
            }
            up
        };
        let (mut a_loc, mut col_loc, mut position) = (vec![0; a_row.len()], vec![0; n], vec![usize::MAX; n]);
        for (cols, rows) in sn_cols.iter().zip(&sn_rows).filter(|(cols, _)| !cols.is_empty()) {
            for (t, &i) in cols.iter().chain(rows).enumerate() {
                position[i] = t;
            }
            for &j in cols {
                col_loc[j] = position[j];
                for p in a_ptr[j]..a_ptr[j + 1] {
                    a_loc[p] = position[a_row[p]];
                }
            }
        }
        Multifrontal {
            order,
            a_ptr,
            a_src,
            a_loc,
            col_loc,
            a_val: Vec::new(),
            sn_cols,
            sn_rows,
            sn_children,
            sn_parent,
            fronts: (0..ns).map(|_| Front::default()).collect(),
            local: vec![usize::MAX; n],
            scale: Vec::new(),
            child_local: Vec::new(),
            delayed: 0,
        }
    }

    /// Nonzeros of the last factor's L (diagonal included).
    pub(crate) fn factor_nonzeros(&self) -> usize {
        self.fronts.iter().map(|f| f.pivots * f.idx.len() - f.pivots * f.pivots.saturating_sub(1) / 2).sum()
    }

    /// Factors `values` (in the original pattern's order) with pivot threshold `u`;
    /// `row_max` is the largest |A_ij| of each original row, the scale of a zero pivot
    /// (`tolerance` times it); gives up past `max_delayed` delayed pivots. Returns the
    /// number of negative eigenvalues.
    pub(crate) fn factor(
        &mut self,
        values: &[f64],
        row_max: &[f64],
        u: f64,
        tolerance: f64,
        max_delayed: usize,
    ) -> Result<usize, KktError> {
        let ns = self.fronts.len();
        self.delayed = 0;
        let mut negative = 0;
        let mut a_val = std::mem::take(&mut self.a_val);
        a_val.clear();
        a_val.extend(self.a_src.iter().map(|&p| values[p]));
        for s in 0..ns {
            if self.sn_cols[s].is_empty() {
                continue;
            }
            let mut idx = std::mem::take(&mut self.fronts[s].idx);
            idx.clear();
            for &c in &self.sn_children[s] {
                let child = &self.fronts[c];
                idx.extend_from_slice(&child.idx[child.pivots..child.pivots + child.delayed]);
            }
            // Columns delayed into this front come first, shifting the static positions.
            let shift = idx.len();
            idx.extend_from_slice(&self.sn_cols[s]);
            let fully_summed = idx.len();
            idx.extend_from_slice(&self.sn_rows[s]);
            let f = idx.len();
            for (t, &i) in idx.iter().enumerate() {
                self.local[i] = t;
            }
            // This front's own storage from the last factorization (its size rarely changes).
            let mut front = std::mem::take(&mut self.fronts[s].dense);
            // Only the lower triangle is ever read: the rest may keep old values.
            front.resize(f * f, 0.0);
            for c in 0..f {
                front[c * f + c..(c + 1) * f].fill(0.0);
            }
            for &j in &self.sn_cols[s] {
                let lj = shift + self.col_loc[j];
                let range = self.a_ptr[j]..self.a_ptr[j + 1];
                for (&li, &v) in self.a_loc[range.clone()].iter().zip(&a_val[range]) {
                    let li = shift + li;
                    front[li.max(lj) + li.min(lj) * f] += v;
                }
            }
            for &c in &self.sn_children[s] {
                let child = &self.fronts[c];
                let local = &mut self.child_local;
                local.clear();
                local.extend(child.idx[child.pivots..].iter().map(|&i| self.local[i]));
                // The child's contribution block (its trailing block, stride fc) by its
                // lower triangle (a ≥ b).
                let (fc, p) = (child.idx.len(), child.pivots);
                for (b, &lb) in local.iter().enumerate() {
                    let column = &child.dense[(p + b) * fc + p..(p + b + 1) * fc];
                    for (&la, &v) in local[b..].iter().zip(&column[b..]) {
                        front[la.max(lb) + la.min(lb) * f] += v;
                    }
                }
            }
            for &i in &idx {
                self.local[i] = usize::MAX;
            }
            let root = self.sn_parent[s] == usize::MAX;
            let mut scale = std::mem::take(&mut self.scale);
            scale.clear();
            scale.extend(idx.iter().map(|&i| row_max[self.order[i]]));
            let how = Pivoting { f, fully_summed, u, tolerance, root };
            let (mut d, mut off) = (std::mem::take(&mut self.fronts[s].d), std::mem::take(&mut self.fronts[s].off));
            let work = FrontWork { front: &mut front, idx: &mut idx, scale: &mut scale, d: &mut d, off: &mut off };
            let done = eliminate(work, how);
            self.scale = scale;
            let done = done?;
            self.delayed += fully_summed - done.pivots;
            if self.delayed > max_delayed {
                (self.fronts[s].dense, self.fronts[s].idx) = (front, idx);
                return Err(KktError::TooManyDelays { delayed: self.delayed, limit: max_delayed });
            }
            negative += done.negative;
            let delayed = fully_summed - done.pivots;
            let fr = &mut self.fronts[s];
            (fr.dense, fr.idx, fr.pivots, fr.delayed, fr.d, fr.off) = (front, idx, done.pivots, delayed, d, off);
        }
        self.a_val = a_val;
        Ok(negative)
    }

    /// x ← A⁻¹ x in the permuted order; `y` is scratch space.
    pub(crate) fn solve_permuted(&self, x: &mut [f64], y: &mut Vec<f64>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has AVX2 and FMA (checked just above).
            return unsafe { solve_avx2(&self.fronts, x, y) };
        }
        solve_body(&self.fronts, x, y)
    }
}

/// [`solve_body`] compiled for AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn solve_avx2(fronts: &[Front], x: &mut [f64], y: &mut Vec<f64>) {
    solve_body(fronts, x, y)
}

/// Forward substitution with L and D, then backward with Lᵀ, front by front: each
/// front's entries gathered into one dense vector, worked on, scattered back.
#[inline(always)]
fn solve_body(fronts: &[Front], x: &mut [f64], y: &mut Vec<f64>) {
    for fr in fronts.iter().filter(|fr| fr.pivots > 0) {
        let f = fr.idx.len();
        y.clear();
        y.extend(fr.idx.iter().map(|&i| x[i]));
        let mut j = 0;
        while j < fr.pivots {
            let size = if fr.off[j] != 0.0 { 2 } else { 1 };
            for c in j..j + size {
                let yc = y[c];
                if yc != 0.0 {
                    axpy(-yc, &fr.dense[c * f + j + size..(c + 1) * f], &mut y[j + size..]);
                }
            }
            if size == 2 {
                let (a, b, d) = (fr.d[j], fr.off[j], fr.d[j + 1]);
                let det = a * d - b * b;
                let (p, q) = (y[j], y[j + 1]);
                (y[j], y[j + 1]) = ((d * p - b * q) / det, (a * q - b * p) / det);
            } else {
                y[j] /= fr.d[j];
            }
            j += size;
        }
        for (&i, &v) in fr.idx.iter().zip(y.iter()) {
            x[i] = v;
        }
    }
    for fr in fronts.iter().rev().filter(|fr| fr.pivots > 0) {
        let f = fr.idx.len();
        y.clear();
        y.extend(fr.idx.iter().map(|&i| x[i]));
        let mut j = fr.pivots;
        while j > 0 {
            let size = if j >= 2 && fr.off[j - 2] != 0.0 { 2 } else { 1 };
            j -= size;
            for c in j..j + size {
                y[c] -= dot(&y[j + size..], &fr.dense[c * f + j + size..(c + 1) * f]);
            }
        }
        for (&i, &v) in fr.idx[..fr.pivots].iter().zip(y.iter()) {
            x[i] = v;
        }
    }
}

/// y ← y + a x (over the shorter of the two).
#[inline(always)]
fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// Σ x_i y_i, summed in order (over the shorter of the two).
#[inline(always)]
fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

struct Eliminated {
    pivots: usize,
    negative: usize,
}

/// How one front is eliminated: its order `f`, its fully summed columns (the first
/// `fully_summed`), the pivot threshold u, the zero-pivot tolerance (relative to each
/// row's scale) and whether it is a root (nothing can be delayed).
#[derive(Clone, Copy)]
struct Pivoting {
    f: usize,
    fully_summed: usize,
    u: f64,
    tolerance: f64,
    root: bool,
}

/// Partial LDLᵀ of a dense symmetric front (f × f, column-major, its lower triangle) over
/// its fully summed columns with threshold pivoting; pivots are moved to the front's
/// start (`idx` and `scale` permuted alike). L overwrites the pivots' columns below the
/// diagonal; the trailing block becomes the contribution block. D's diagonal goes to
/// `d`, each 2×2 block's off-diagonal entry to `off` at the block's first pivot (0
/// elsewhere), one entry per pivot.
fn eliminate(w: FrontWork, how: Pivoting) -> Result<Eliminated, KktError> {
    for v in [&mut *w.d, &mut *w.off] {
        v.clear();
        v.resize(how.fully_summed, 0.0);
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has AVX2 and FMA (checked just above).
        return unsafe { eliminate_avx2(w, how) };
    }
    eliminate_body(w, how)
}

/// What one front's elimination works on: the front, its indices and row scales, and
/// D's diagonal and 2×2 off-diagonal entries (see [`eliminate`]).
struct FrontWork<'a> {
    front: &'a mut [f64],
    idx: &'a mut [usize],
    scale: &'a mut [f64],
    d: &'a mut Vec<f64>,
    off: &'a mut Vec<f64>,
}

/// [`eliminate_body`] compiled for AVX2 and FMA (the rank-one updates vectorize 4 wide).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn eliminate_avx2(w: FrontWork, how: Pivoting) -> Result<Eliminated, KktError> {
    eliminate_body(w, how)
}

#[inline(always)]
fn eliminate_body(w: FrontWork, how: Pivoting) -> Result<Eliminated, KktError> {
    let FrontWork { front, idx, scale, d, off } = w;
    let Pivoting { f, fully_summed, u, tolerance, root } = how;
    let mut negative = 0;
    let mut j = 0;
    // Entry (i, c) of the symmetric front, stored by its lower triangle.
    let at = |front: &[f64], i: usize, c: usize| if i >= c { front[i + c * f] } else { front[c + i * f] };
    while j < fully_summed {
        let mut choice = None;
        let mut best: Option<(f64, usize, Option<usize>)> = None;
        // 1×1 pivots first (a zero diagonal costs nothing to pass over), then 2×2.
        for c in j..fully_summed {
            let a = at(front, c, c);
            let zero = tolerance * scale[c].max(f64::MIN_POSITIVE);
            if a.abs() > zero {
                let mut gamma = largest_abs(&front[c * f + c + 1..(c + 1) * f]);
                for i in j..c {
                    gamma = gamma.max(front[c + i * f].abs());
                }
                if a.abs() >= u * gamma {
                    choice = Some((c, None));
                    break;
                }
                if best.is_none_or(|(m, _, _)| a.abs() > m) {
                    best = Some((a.abs(), c, None));
                }
            }
        }
        for c in (j..fully_summed).take_while(|_| choice.is_none()) {
            let a = at(front, c, c);
            // The 2×2 partner: the fully summed row with the largest entry in column c.
            let (mut r, mut b_abs) = (usize::MAX, 0.0_f64);
            for i in j..fully_summed {
                let v = at(front, i, c).abs();
                if i != c && v > b_abs {
                    (r, b_abs) = (i, v);
                }
            }
            if r == usize::MAX {
                continue;
            }
            let (b, dd) = (at(front, r, c), at(front, r, r));
            let det = a * dd - b * b;
            if !(det.is_finite() && det.abs() > tolerance * scale[c].max(f64::MIN_POSITIVE) * scale[r].max(f64::MIN_POSITIVE)) {
                continue;
            }
            let (mut gc, mut gr) = (0.0_f64, 0.0_f64);
            for i in j..f {
                if i != c && i != r {
                    let (vc, vr) = (at(front, i, c).abs(), at(front, i, r).abs());
                    if vc > gc {
                        gc = vc;
                    }
                    if vr > gr {
                        gr = vr;
                    }
                }
            }
            let bound = det.abs() / u;
            if dd.abs() * gc + b.abs() * gr <= bound && b.abs() * gc + a.abs() * gr <= bound {
                choice = Some((c, Some(r)));
                break;
            }
            let size = det.abs().sqrt();
            if best.is_none_or(|(m, _, _)| size > m) {
                best = Some((size, c, Some(r)));
            }
        }
        let (c, r) = match (choice, root, best) {
            (Some(ch), _, _) => ch,
            (None, true, Some((_, c, r))) => (c, r),
            (None, true, None) => {
                return Err(KktError::Singular { index: idx[j], value: at(front, j, j) });
            }
            (None, false, _) => break,
        };
        swap(front, idx, scale, f, j, c);
        match r {
            None => {
                let p = front[j + j * f];
                let (done, rest) = front.split_at_mut((j + 1) * f);
                let l = &mut done[j * f..];
                for v in &mut l[j + 1..f] {
                    *v /= p;
                }
                // Two columns at a time where both are updated (each entry gets the
                // same operation as one column at a time; l is read once for both).
                let mut col = j + 1;
                while col < f {
                    let w = l[col] * p;
                    let next = if col + 1 < f { l[col + 1] * p } else { 0.0 };
                    let base = (col - j - 1) * f;
                    if w != 0.0 && next != 0.0 {
                        let (t0, t1) = rest[base..base + 2 * f].split_at_mut(f);
                        t0[col] -= l[col] * w;
                        for ((a, b), &li) in t0[col + 1..].iter_mut().zip(&mut t1[col + 1..]).zip(&l[col + 1..f]) {
                            *a -= li * w;
                            *b -= li * next;
                        }
                        col += 2;
                        continue;
                    }
                    if w != 0.0 {
                        let target = &mut rest[base..base + f];
                        for i in col..f {
                            target[i] -= l[i] * w;
                        }
                    }
                    col += 1;
                }
                d[j] = p;
                negative += usize::from(p < 0.0);
                j += 1;
            }
            Some(r) => {
                let r = if r == j { c } else { r };
                swap(front, idx, scale, f, j + 1, r);
                let (a, b, dd) = (front[j + j * f], front[j + 1 + j * f], front[j + 1 + (j + 1) * f]);
                let det = a * dd - b * b;
                let (done, rest) = front.split_at_mut((j + 2) * f);
                let (c0, c1) = done[j * f..].split_at_mut(f);
                for i in j + 2..f {
                    let (x, y) = (c0[i], c1[i]);
                    c0[i] = (dd * x - b * y) / det;
                    c1[i] = (a * y - b * x) / det;
                }
                for col in j + 2..f {
                    // The unnormalized entries (x, y) of row col: D times its multipliers.
                    let (l0, l1) = (c0[col], c1[col]);
                    let (xc, yc) = (a * l0 + b * l1, b * l0 + dd * l1);
                    if xc != 0.0 || yc != 0.0 {
                        let target = &mut rest[(col - j - 2) * f..(col - j - 1) * f];
                        for i in col..f {
                            target[i] -= c0[i] * xc + c1[i] * yc;
                        }
                    }
                }
                c0[j + 1] = 0.0;
                (d[j], d[j + 1], off[j]) = (a, dd, b);
                negative += if det < 0.0 { 1 } else { 2 * usize::from(a < 0.0) };
                j += 2;
            }
        }
    }
    d.truncate(j);
    off.truncate(j);
    Ok(Eliminated { pivots: j, negative })
}

/// The largest |v| (0 for none).
fn largest_abs(v: &[f64]) -> f64 {
    let mut m = 0.0_f64;
    for x in v {
        let a = x.abs();
        if a > m {
            m = a;
        }
    }
    m
}

/// Swaps local indices p and q of a front stored by its lower triangle (rows and
/// columns, L's columns before them included) and of its index list.
fn swap(front: &mut [f64], idx: &mut [usize], scale: &mut [f64], f: usize, p: usize, q: usize) {
    if p == q {
        return;
    }
    let (p, q) = (p.min(q), p.max(q));
    front.swap(p + p * f, q + q * f);
    for i in 0..p {
        front.swap(p + i * f, q + i * f);
    }
    for i in p + 1..q {
        front.swap(i + p * f, q + i * f);
    }
    for i in q + 1..f {
        front.swap(i + p * f, i + q * f);
    }
    idx.swap(p, q);
    scale.swap(p, q);
}
