"""All probes of a probing task trained together: one X, one matrix product per step for every head.

Issue 17 §2: probing fits 46 features x 4 regularisation strengths = 184 small L2 logistic
regressions on the same embeddings. Fitted one by one (scikit-learn's lbfgs), every iteration is a
matrix-vector-like product that reads the whole float64 X for 5 output columns, so the loop is bound
by memory bandwidth. Here every feature is a *head* of one batched model and a step for all heads is
two float32 matrix products ``X @ V`` and ``X^T G`` at full BLAS speed.

The objective of each head is exactly the documented probe (``probing`` module docstring) and
scikit-learn's ``LogisticRegression(C=1/(lambda n_train))`` objective:

    mean over the head's training rows of the multinomial log-loss
    + lambda/2 * ||W||^2      (W in standardised-feature space; intercepts unpenalised)

with the standardisation of each head fitted on its own training rows, and the same stopping rule
(max |gradient| <= tol on this mean-loss objective, tol 1e-4, at most 300 iterations).

Parametrisation: a two-class head is scikit-learn's binary logistic regression (class 0's logit
fixed at 0, one weight vector for class 1, penalty ``||w||^2``), which is *not* the same objective as a
two-class softmax with both rows penalised. A k-class head's k weight vectors are ``W = M theta`` with M
the k x (k-1) Helmert contrasts (orthonormal columns orthogonal to the all-ones vector): the penalised
softmax optimum has class weights summing to zero (adding a common vector to every class changes no
probability but raises the penalty), so restricting W to that span changes neither the objective nor
the optimum, ``||W|| = ||theta||``, and the products need k-1 columns per head instead of k. The
gradient in W is ``M g_theta`` exactly, which is what the stopping test reads (scikit-learn's).
Binary heads use column 0 with scale -1/2 (logits -w.x/2, w.x/2: the same probabilities as 0, w.x),
so theta is scikit-learn's w. Heads are ordered by class count, most first, so the heads using a
column are a prefix of any set of heads; products pad the few unused columns with zeros.

How one X serves heads with different training rows and scalers: with X~ = X - mean(X) (the global
mean; a shift only moves the unpenalised intercepts), head h's logits are
``X~ (W_h / sigma_h)^T + b_h - W_h ((mu_h - m) / sigma_h)``, so the per-head scaler folds into the
weights and rows outside the head's training split get zero weight in the loss. Rows that are in no
head's training split are left out of the solve altogether (``probing`` draws every feature's split
from keys shared by all features, so with 46 features about 62 % of the rows train some head, not
~100 %) and are read once per strength for predictions.

Solver: L-BFGS run per head (own history of pairs, own Armijo backtracking, own convergence test),
vectorised over heads; a head that meets the stopping rule leaves the batch, so later steps multiply
fewer columns. The strongly convex objective (lambda > 0) guarantees s^T y > 0, so Armijo
backtracking alone keeps the updates well defined. One iteration costs one forward product (of the
search direction: the logits are linear in W, so every backtracking trial moves along it without a
new product) and one backward product for every head that moved. The logits, log-loss and its
gradient at a solution do not depend on lambda, so the next strength starts from them without a
product. Curvature pairs are stored in float32 (they only shape the search direction).

Preconditioning: variables are expressed in the eigenbasis of the global covariance C of the
standardised embeddings and scaled by ``(C + 4 lambda I)^(-1/2)`` (W = (U q) Q^T): an exact change of
variables (same objective and optimum) that makes anisotropic embeddings, whose few dominant
directions slow plain L-BFGS down a lot, as easy as isotropic ones. Strengths run from strongest to
weakest, each warm-started from the previous solution *and* from the previous strength's curvature
pairs: the loss part of a pair does not depend on lambda, so each stored ``y`` gets the exact change of
the penalty's gradient, ``(lambda' - lambda) s`` on the weights, and both vectors are rescaled to the new
strength's coordinates (diagonal in the eigenbasis). Sparse X (TF-IDF) stays sparse: the centring
becomes a rank-one correction of both products, and the preconditioner (a d x d eigendecomposition) is
skipped, as it is when there are more dimensions than texts (it would cost more than it saves).

On a torch device (issue 28 §3: the encoder's GPU, or option ``tasks.device``) the centred X is held
there and the two products of every step (``X V``, ``X^T G``) and the preconditioner's ``X^T X`` run
there in float32 (:class:`._torch_kernels.DeviceRows`); the loss, the L-BFGS algebra and the
predictions' argmax stay as above. Other summation orders change the iterates in the last float32
bits, so a device's solution agrees with the CPU's within the stopping tolerance, not bitwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["fit_heads", "head_objective"]

#: L-BFGS pairs per head; more than scipy's default 10 because every iteration costs two n x d
#: products while a pair costs two dot products (10k x 46 x 768: 76 -> 55 forward products)
HISTORY = 20
#: memory for the L-BFGS pairs of all heads (s and y, float32)
HISTORY_BYTES = 256 * 2**20
ARMIJO = 1e-4
#: products include unused (zero) columns while they are at most this share of all columns
PAD_WASTE = 0.2
#: pairs with s.y below this are dropped: their float32 products would underflow
TINY_PAIR = 1e-30
MAX_BACKTRACK = 30


def _pattern(K: int) -> np.ndarray:
    """(K, K-1) Helmert contrasts up to their column scales: column c is 1 on classes 0..c, -(c+1) on class
    c+1 and 0 after it (small integers: exact in float32). Scaled by ``1/sqrt((c+1)(c+2))`` the columns are orthonormal
    and orthogonal to the
    all-ones vector; column c only touches classes 0..c+1, so a k-class head uses the first k-1 columns."""
    P = np.zeros((K, K - 1))
    for c in range(K - 1):
        P[: c + 1, c] = 1.0
        P[c + 1, c] = -(c + 1.0)
    return P


class _Heads:
    """Data shared by all heads: centred float32 X, loss weights, labels, scalers, the class contrasts.

    Parameters are (H, C, d) arrays ``theta`` with C = K - 1 columns per head (see the module docstring):
    the class weights are ``W_h = M_h theta_h`` with M_h = ``pattern * scale[h]``. Arrays over texts are
    laid out (n, K, h) (logits, softmax) or (n, C, h) (product columns): class-major with the heads
    contiguous, so operations across classes are elementwise operations between (n, h) slabs.

    Rows are reordered so that the rows in some head's training split come first (``order``); only those
    ``n`` rows enter the solve, the others are read once per strength for predictions (``predict``).
    """

    def __init__(self, x: np.ndarray, labels: Sequence[np.ndarray], trains: Sequence[np.ndarray], device: Any = None):
        self._head_sets: dict[bytes, _HeadSet] = {}
        self.sparse = sp.issparse(x)
        if not self.sparse:
            x = np.asarray(x)
        n_all, d = x.shape
        self.d = d
        self.H = H = len(labels)
        self.k = np.array([max(2, int(np.max(y)) + 1) for y in labels])
        if np.any(np.diff(self.k) > 0):
            raise ValueError("heads must come in non-increasing order of their class counts (fit_heads sorts them)")
        self.K = K = int(self.k.max())
        self.C = C = K - 1
        # column c of a head is used when c < k - 1 (binary heads: column 0 only)
        self.cmask = np.arange(C)[None, :] < np.maximum(self.k - 1, 1)[:, None]  # (H, C)
        a = 1.0 / np.sqrt(np.arange(1, C + 1) * np.arange(2, C + 2))  # Helmert column norms
        # binary heads: scikit-learn's one vector w with logits (0, w.x); as (-w.x/2, w.x/2) through
        # column 0, whose pattern is (1, -1): scale -1/2, so theta is w itself and ||theta|| = ||w||
        self.scale = np.where(self.k[:, None] == 2, np.where(np.arange(C) == 0, -0.5, 0.0), a[None, :]) * self.cmask
        self.pattern = _pattern(K)
        self.pattern32 = self.pattern.astype(np.float32)
        self.M = self.pattern[None, :, :] * self.scale[:, None, :]  # (H, K, C)
        # what scikit-learn's gradient and coefficients are in: the K class rows (binary: class 1's row)
        self.report = self.M.copy()
        self.report[self.k == 2] = 0.0
        self.report[self.k == 2, 1, 0] = 1.0
        used = np.zeros(n_all, dtype=bool)
        for tr in trains:
            used[tr] = True
        self.order = np.concatenate([np.flatnonzero(used), np.flatnonzero(~used)])
        self.n = n = int(used.sum())
        self.n_all = n_all
        position = np.empty(n_all, dtype=np.int64)
        position[self.order] = np.arange(n_all)
        m = np.asarray(x.mean(axis=0), dtype=np.float64).reshape(-1)
        self.mean = m.astype(np.float32)
        self.weight = np.zeros((n, H), dtype=np.float32)  # 1 / n_train on the head's training rows
        self.labels = np.zeros((n, H), dtype=np.int64)
        # logit offsets: 0 for the head's classes, -inf for classes it does not have
        self.absent = np.where(np.arange(K)[None, :] < self.k[:, None], 0.0, -np.inf).astype(np.float32)
        for h, (y, tr) in enumerate(zip(labels, trains)):
            self.weight[position[tr], h] = 1.0 / len(tr)
            self.labels[:, h] = np.asarray(y)[self.order[:n]]
        self.weight64 = self.weight.astype(np.float64)
        means = self.weight64.T  # (H, n): each head's training mean is means[h] @ rows
        if self.sparse:
            # sparse X stays sparse and uncentred: the centring is a rank-one correction in the
            # products; no d x d covariance (TF-IDF vocabularies are large), so no preconditioner
            xs = sp.csr_matrix(x, dtype=np.float32)[self.order]
            self.x, self.rest = xs[:n], xs[n:]
            del xs
            raw_mu = np.asarray((self.x.T @ means.T).T, dtype=np.float64)
            raw_sq = np.asarray((self.x.multiply(self.x).T @ means.T).T, dtype=np.float64)
            mu = raw_mu - m
            var = raw_sq - raw_mu * raw_mu
            gram = None
        else:
            # per-head training means and variances (as StandardScaler, ddof 0: float64 from the input
            # values) and the covariance of the solve's rows, over row chunks so no second n x d float64
            # array is held
            full = np.empty((n_all, d), dtype=np.float32)  # centred, reordered X: the only n x d array kept
            mu, sq = np.zeros((H, d)), np.zeros((H, d))
            # the preconditioner pays off only while it is cheaper than the n x d products it speeds
            # up: with more dimensions than texts (4,096-d models on small sets) it would dominate the
            # solve, so plain L-BFGS (the same objective) is used there
            # (chunks of 1,024 rows: the float64 temporaries stay small, several times faster than 4,096)
            for r0 in range(0, n_all, 1024):
                r1 = min(r0 + 1024, n_all)
                chunk = np.asarray(x[self.order[r0:r1]], dtype=np.float64) - m
                full[r0:r1] = chunk
                if r0 < n:  # rows no head trains on only need their centred copy
                    rows = slice(r0, min(r1, n))
                    chunk = chunk[: rows.stop - r0]
                    mu += means[:, rows] @ chunk
                    sq += means[:, rows] @ (chunk * chunk)
            self.x, self.rest = full[:n], full[n:]
            if device is not None:  # the two products of every step run on the device (DeviceRows)
                from ._torch_kernels import DeviceRows  # torch only when asked for

                self.x, self.rest = DeviceRows(full[:n], device), DeviceRows(full[n:], device)
                del full
            # float32: it only shapes the preconditioner
            if d > n:
                gram = None
            elif device is not None:
                gram = self.x.gram()
            else:
                gram = full[:n].T @ full[:n]
            var = sq - mu * mu
        sd = np.sqrt(np.maximum(var, 0.0))
        sd[sd == 0] = 1.0  # constant columns: StandardScaler leaves them unscaled
        self.inv_sd = 1.0 / sd  # (H, d)
        self.shift = mu / sd  # (H, d): (mu_h - m) / sigma_h
        self.cov_values = self.cov_vectors = None
        if gram is not None:
            # covariance of the globally standardised embeddings, for the preconditioner only
            gram = gram.astype(np.float64)
            gsd = np.sqrt(np.maximum(np.diag(gram) / n, 0.0))
            gsd[gsd == 0] = 1.0
            values, self.cov_vectors = np.linalg.eigh(gram / n / np.outer(gsd, gsd))
            self.cov_values = np.maximum(values, 0.0)

    def head_set(self, heads: np.ndarray) -> _HeadSet:
        """What the loss and the products need for a set of heads (the last few sets are cached: a
        line search alternates between all heads and those still backtracking)."""
        key = heads.tobytes()
        cache = self._head_sets
        if key in cache:
            cache[key] = cache.pop(key)  # most recently used last
        else:
            cache[key] = _HeadSet(self, heads)
            while len(cache) > 4:
                cache.pop(next(iter(cache)))
        return cache[key]

    def product_matrix(self, theta: np.ndarray, heads: np.ndarray) -> tuple[np.ndarray, _HeadSet]:
        """(d, used columns) float32 ``(scale theta / sigma)^T``, column c's heads side by side, and the head set."""
        hs = self.head_set(heads)
        scaled = theta * (self.inv_sd[heads, None, :] * self.scale[heads, :, None])  # unused columns are 0
        if hs.padded:
            V = scaled.transpose(1, 0, 2).reshape(-1, self.d)
        else:
            V = np.concatenate([scaled[:count, c] for c, count in enumerate(hs.counts)], axis=0)
        return np.ascontiguousarray(V.T, dtype=np.float32), hs

    def columns(self, x: Any, V: np.ndarray, hs: _HeadSet) -> np.ndarray:
        """(rows, C, h) float32 product columns ``X~ V`` of rows ``x`` (unused columns 0)."""
        P = x.matmul(V) if hasattr(x, "matmul") else x @ V
        if self.sparse:
            P -= self.mean @ V
        P = np.asarray(P, dtype=np.float32)
        rows, h = P.shape[0], len(hs.heads)
        if hs.padded:
            return P.reshape(rows, self.C, h)
        out = np.zeros((rows, self.C, h), dtype=np.float32)
        for c, (count, start) in enumerate(zip(hs.counts, hs.starts)):
            out[:, c, :count] = P[:, start : start + count]
        return out

    def expand(self, P: np.ndarray) -> np.ndarray:
        """(rows, K, h) logits ``pattern P`` from (rows, C, h) product columns (a tiny matrix per row)."""
        return np.asarray(np.matmul(self.pattern32, P))

    def contract(self, G: np.ndarray) -> np.ndarray:
        """(rows, C, h) ``pattern^T G`` from (rows, K, h): the transpose of :meth:`expand`."""
        return np.asarray(np.matmul(self.pattern32.T, G))

    def linear(self, theta: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """(n, K, h) float32 ``X~ (W / sigma)^T`` of the selected heads on the solve's rows.

        Linear in theta, so the line search moves along ``linear(direction)`` without new products.
        """
        return self.expand(self.columns(self.x, *self.product_matrix(theta, heads)))

    def offsets(self, theta: np.ndarray, beta: np.ndarray, heads: np.ndarray, *, absent: bool = True) -> np.ndarray:
        """(K, h) float32 per-class constants ``M (beta - theta . (mu_h - m) / sigma_h)``; with ``absent``
        -inf for classes a head does not have (without it, the part that is linear in theta and beta)."""
        const = beta - np.einsum("hcd,hd->hc", theta, self.shift[heads])
        out = np.einsum("hkc,hc->hk", self.M[heads], const)
        if absent:
            out = out + self.absent[heads]
        return np.asarray(out.T, dtype=np.float32)

    def predict(self, point: _Point) -> np.ndarray:
        """(n_all, H) predicted class of every text, in the caller's row order: from the solve's logits on
        its rows, and one product for the rows no head trains on."""
        pred = np.empty((self.n_all, self.H), dtype=np.int64)
        pred[self.order[: self.n]] = point.z.argmax(axis=1)
        if self.rest.shape[0]:
            heads = np.arange(self.H)
            Z = self.expand(self.columns(self.rest, *self.product_matrix(point.theta, heads)))
            Z += self.offsets(point.theta, point.beta, heads)
            pred[self.order[self.n :]] = Z.argmax(axis=1)
        return pred

    def loss(self, Z: np.ndarray, heads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean log-loss per head from logits Z (n, K, h), and G = (softmax - onehot) * weight (Z's memory).

        Reductions over the K classes are written as elementwise operations between (n, h) slabs
        (several times faster than numpy's strided reductions over the middle axis).
        """
        K = self.K
        flat, w, w64, onehot_w = self.head_set(heads).loss_arrays()
        zmax = np.maximum(Z[:, 0], Z[:, 1])
        for k in range(2, K):
            np.maximum(zmax, Z[:, k], out=zmax)
        np.subtract(Z, zmax[:, None, :], out=Z)
        true = np.ascontiguousarray(Z).reshape(-1)[flat]  # (n, h): shifted logit of the true class
        np.exp(Z, out=Z)
        s = Z[:, 0] + Z[:, 1]
        for k in range(2, K):
            s += Z[:, k]
        # float64 sum over rows: near the optimum the line search compares losses that differ by ~1e-9
        loss = np.einsum("nh,nh->h", w64, (np.log(s) - true).astype(np.float64))
        np.divide(w, s, out=s)
        Z *= s[:, None, :]
        Z -= onehot_w
        return loss, Z

    def gradient(self, G: np.ndarray, heads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Gradients (h, C, d) and (h, C) of the mean log-loss (no penalty) from :meth:`loss`'s G."""
        h, C = len(heads), self.C
        hs = self.head_set(heads)
        Gq = self.contract(G)  # (n, C, h)
        if hs.padded:
            Gp = Gq.reshape(self.n, -1)
        else:
            Gp = np.concatenate([Gq[:, c, :count] for c, count in enumerate(hs.counts)], axis=1)
        XG = np.asarray(
            self.x.t_matmul(Gp) if hasattr(self.x, "t_matmul") else self.x.T @ Gp, dtype=np.float64
        )  # (d, used columns), column c's heads side by side
        gq = Gq.sum(axis=0, dtype=np.float64).T  # (h, C)
        if self.sparse:
            XG -= np.outer(self.mean, Gp.sum(axis=0, dtype=np.float64))
        scale = self.scale[heads]
        g_beta = gq * scale
        if hs.padded:
            gT = XG.T.reshape(C, h, self.d)
        else:
            gT = np.zeros((C, h, self.d))
            for c, (count, start) in enumerate(zip(hs.counts, hs.starts)):
                gT[c, :count] = XG[:, start : start + count].T
        g_theta = gT.transpose(1, 0, 2) * (self.inv_sd[heads, None, :] * scale[:, :, None])
        g_theta -= self.shift[heads, None, :] * g_beta[:, :, None]
        g_theta *= self.cmask[heads][:, :, None]
        return g_theta, g_beta

    def largest_gradient(self, g_theta: np.ndarray, g_beta: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """Max |gradient| per head in scikit-learn's parameters (the class rows; binary heads: the one
        vector): its stopping test. The objective's gradient lies in the contrasts' span, so it is
        ``M g`` exactly."""
        R = self.report[heads]
        return np.asarray(
            np.maximum(np.abs(R @ g_theta).max(axis=(1, 2)), np.abs(np.einsum("hkc,hc->hk", R, g_beta)).max(axis=1))
        )

    def scaling(self, lam: float) -> np.ndarray | None:
        """Per-eigendirection scale of the preconditioner ``(C + 4 lambda I)^(-1/2)``: ``v^(-1/2)`` with
        v = covariance eigenvalues + 4 lambda (softmax curvature <= 1/4); None: no preconditioner."""
        if self.cov_values is None:
            return None
        return np.asarray(1.0 / np.sqrt(self.cov_values + 4.0 * lam + 1e-12))


class _HeadSet:
    """A set of heads (ascending positions, so their class counts do not increase: column c is used by a
    prefix of them) and its per-set arrays: column layout, and for the loss (built on first use) the
    true-class positions and loss weights."""

    def __init__(self, owner: _Heads, heads: np.ndarray):
        self.owner, self.heads = owner, heads.copy()
        h = len(heads)
        self.counts = owner.cmask[heads].sum(axis=0)  # heads using column c (a prefix of them)
        self.starts = np.concatenate([[0], np.cumsum(self.counts)[:-1]])
        # products over every (column, head), zeros included, when few are unused: cheaper than
        # gathering the used columns before each product and scattering them after it
        self.padded = bool(self.counts.sum() >= (1.0 - PAD_WASTE) * owner.C * h)
        self._loss_arrays: tuple[np.ndarray, ...] | None = None

    def loss_arrays(self) -> tuple[np.ndarray, ...]:
        """(flat positions of the true class in an (n, K, h) array, weights, float64 weights, onehot * weights)."""
        if self._loss_arrays is None:
            owner, heads = self.owner, self.heads
            h, n, K = len(heads), owner.n, owner.K
            flat = (np.arange(n)[:, None] * K + owner.labels[:, heads]) * h + np.arange(h)[None, :]
            w = owner.weight[:, heads]
            onehot_w = np.zeros((n, K, h), dtype=np.float32)
            onehot_w.reshape(-1)[flat] = w
            self._loss_arrays = (flat, w, owner.weight64[:, heads], onehot_w)
        return self._loss_arrays


def head_objective(
    x: np.ndarray, labels: np.ndarray, train: np.ndarray, W: np.ndarray, b: np.ndarray, lam: float
) -> float:
    """The documented probe objective of one head at (W, b) (W: classes x d in standardised space).

    Written out directly (float64, scikit-learn's StandardScaler on the training rows) so tests can
    evaluate scikit-learn's solution and ours on a function independent of the solver.
    """
    xt = np.asarray(x[train], dtype=np.float64)
    y = np.asarray(labels)[train]
    sd = xt.std(axis=0)
    sd[sd == 0] = 1.0
    xs = (xt - xt.mean(axis=0)) / sd
    W = np.asarray(W, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64).reshape(-1)
    k = int(np.max(labels)) + 1
    if k == 2 and W.shape[0] == 1:  # scikit-learn's binary parametrisation: class 1's row
        W, b = np.vstack([np.zeros_like(W), W]), np.concatenate([[0.0], b])
    W, b = W[:k], b[:k]  # a solver's rows beyond the head's classes are zero padding
    z = xs @ W.T + b
    zmax = z.max(axis=1, keepdims=True)
    lse = np.log(np.exp(z - zmax).sum(axis=1)) + zmax[:, 0]
    return float(np.mean(lse - z[np.arange(len(y)), y]) + 0.5 * lam * np.sum(W * W))


def _two_loop(
    g: np.ndarray, S: np.ndarray, Y: np.ndarray, rho: np.ndarray, newest: int, gamma: np.ndarray
) -> np.ndarray:
    """L-BFGS direction -H g for every head. Pairs sit in a ring (slot ``newest`` is the latest);
    slots a head did not fill have rho = 0 and drop out; ``gamma`` is each head's initial scaling.

    The pairs are stored in float32 (half the memory traffic of this loop, which reads them twice):
    the direction only has to be a good descent direction, and the line search checks it.
    """
    m = S.shape[1]
    order = [i for i in ((newest - j) % m for j in range(m)) if rho[:, i].any()]  # filled slots, newest first
    q = g.astype(np.float32)
    alpha = np.zeros(rho.shape)  # scalars in float64: rho = 1 / s.y can exceed float32's range
    for i in order:
        alpha[:, i] = rho[:, i] * np.einsum("hp,hp->h", S[:, i], q)
        q -= alpha[:, i, None].astype(np.float32) * Y[:, i]
    r = gamma.astype(np.float32)[:, None] * q
    for i in reversed(order):
        beta = rho[:, i] * np.einsum("hp,hp->h", Y[:, i], r)
        r += S[:, i] * (alpha[:, i] - beta).astype(np.float32)[:, None]
    return -r.astype(np.float64)


class _Memory:
    """Every head's L-BFGS pairs (a ring of ``size`` slots) and initial scaling, kept across strengths."""

    def __init__(self, heads: _Heads, size: int):
        H, p = heads.H, heads.C * (heads.d + 1)
        self.S = np.zeros((H, size, p), dtype=np.float32)  # float32: see _two_loop
        self.Y = np.zeros((H, size, p), dtype=np.float32)
        self.rho = np.zeros((H, size))
        self.gamma = np.zeros(H)
        self.has_pair = np.zeros(H, dtype=bool)
        self.newest = size - 1

    def move(self, heads: _Heads, old: float, new: float) -> None:
        """Re-express the pairs at strength ``new``.

        Variables live in the covariance's eigenbasis, ``theta = (U q) Q^T`` with ``q = v^(-1/2)``, so
        moving is diagonal: s_U' = s_U q / q', y_U' = y_U q' / q + (new - old) s_U q q' (the loss part of
        y does not depend on lambda; the penalty adds ``(new - old) s`` in theta).
        """
        H, m = self.S.shape[:2]
        C, d = heads.C, heads.d
        S = self.S.reshape(H, m, C, d + 1)[..., :d]
        Y = self.Y.reshape(H, m, C, d + 1)[..., :d]
        q_old, q_new = heads.scaling(old), heads.scaling(new)
        if q_old is None:
            Y += (new - old) * S
        else:
            Y *= q_new / q_old
            Y += (new - old) * (q_old * q_new) * S
            S *= q_old / q_new
        sy = np.einsum("hmp,hmp->hm", self.S, self.Y).astype(np.float64)
        yy = np.einsum("hmp,hmp->hm", self.Y, self.Y).astype(np.float64)
        ok = (sy > 1e-12 * np.maximum(yy, 1e-300)) & (sy > TINY_PAIR) & (self.rho > 0)
        self.rho = np.where(ok, 1.0 / np.where(ok, sy, 1.0), 0.0)
        self.S[~ok] = 0.0
        self.Y[~ok] = 0.0
        latest = self.newest
        fresh = ok[:, latest]
        self.gamma = np.where(fresh, sy[:, latest] / np.where(fresh, yy[:, latest], 1.0), self.gamma)
        self.has_pair = ok.any(axis=1)


class _Point:
    """Every head's current solution and what the solve knows about it: logits on the solve's rows and
    the log-loss part of the objective and its gradient. None of these depends on lambda, so one
    strength's solution is the next strength's start without a product (its penalty is added)."""

    def __init__(self, heads: _Heads):
        H, C, d = heads.H, heads.C, heads.d
        self.theta = np.zeros((H, C, d))
        self.beta = np.zeros((H, C))
        everyone = np.arange(H)
        # at theta = 0 the logits are the offsets: no product
        self.z = np.zeros((heads.n, heads.K, H), dtype=np.float32) + heads.offsets(self.theta, self.beta, everyone)
        self.loss, G = heads.loss(self.z.copy(), everyone)
        self.g_theta, self.g_beta = heads.gradient(G, everyone)


def _solve(heads: _Heads, lam: float, point: _Point, memory: _Memory, max_iter: int, tol: float) -> np.ndarray:
    """Minimise every head's objective at strength ``lam`` from ``point`` (updated in place); returns
    the iterations per head.

    One iteration costs one forward product (the direction's ``linear``; backtracking trials move
    along it, as do theta and beta) and one backward product (the gradients of every head that moved).
    """
    H, C, d = heads.H, heads.C, heads.d
    q = heads.scaling(lam)
    Q = heads.cov_vectors

    # the basis changes run in float32 (half the time of float64; they only rotate directions and
    # gradients, whose float32 rounding is far below the stopping tolerance); theta and beta stay float64
    Q32 = None if Q is None else Q.astype(np.float32)

    def to_theta(U: np.ndarray) -> np.ndarray:  # variables (h, C, d) -> weights theta = (U q) Q^T
        if q is None or Q32 is None:  # (both or neither: no preconditioner without the eigenvectors)
            return U
        return np.asarray((U * q).reshape(-1, d).astype(np.float32) @ Q32.T, dtype=np.float64).reshape(U.shape)

    def to_u(g: np.ndarray) -> np.ndarray:  # gradient in theta -> gradient in the variables, (g Q) q
        if q is None or Q32 is None:
            return g
        return np.asarray(np.asarray(g.reshape(-1, d).astype(np.float32) @ Q32, dtype=np.float64).reshape(g.shape) * q)

    def pack(g_theta: np.ndarray, g_beta: np.ndarray) -> np.ndarray:
        out = np.empty((len(g_theta), C, d + 1))
        out[:, :, :d] = to_u(g_theta)
        out[:, :, d] = g_beta
        return out.reshape(len(g_theta), -1)

    def penalty(theta: np.ndarray) -> np.ndarray:
        return np.asarray(0.5 * lam * np.einsum("hcd,hcd->h", theta, theta))

    theta, beta = point.theta, point.beta  # updated in place, as are the logits and the loss parts
    # variables x = [U | beta]
    U0 = theta if q is None or Q is None else (theta.reshape(-1, d) @ Q).reshape(theta.shape) / q
    xvar = np.concatenate([U0, beta[:, :, None]], axis=2).reshape(H, -1)
    # at theta = 0 the softmax curvature is 1/k (binary: 1/4) in whitened coordinates: a first step of
    # -k g (-4 g) is about a Newton step
    first_scale = np.where(heads.k == 2, 4.0, heads.k.astype(np.float64))

    iterations = np.zeros(H, dtype=np.int64)
    active = np.arange(H)
    # (n, K, h) logits at the current points; linear in (theta, beta), so moved along each direction's
    # logits dz without new products
    z0 = point.z
    loss, g_theta, g_beta = point.loss.copy(), point.g_theta.copy(), point.g_beta.copy()  # log-loss parts
    f = loss + penalty(theta)
    g_theta += lam * theta
    gmax = heads.largest_gradient(g_theta, g_beta, active)
    g = pack(g_theta, g_beta)

    def retire(heads_out: np.ndarray, rows: np.ndarray | slice) -> None:
        """Write the leaving heads' logits and log-loss parts back to ``point``."""
        if z0 is not point.z:
            point.z[:, :, heads_out] = z0[:, :, rows]
        point.loss[heads_out] = loss[rows]
        point.g_theta[heads_out] = g_theta[rows] - lam * theta[heads_out]
        point.g_beta[heads_out] = g_beta[rows]

    # working copies of the active heads' pairs; written back to ``memory`` as heads leave and at the end
    S, Yh, rho, gamma, has_pair = memory.S, memory.Y, memory.rho, memory.gamma.copy(), memory.has_pair.copy()
    newest = memory.newest
    size = S.shape[1]
    for _ in range(max_iter):
        keep = gmax > tol
        if not keep.any():
            break
        if not keep.all():
            gone = ~keep
            retire(active[gone], gone)
            if S is not memory.S:
                memory.S[active[gone]], memory.Y[active[gone]], memory.rho[active[gone]] = S[gone], Yh[gone], rho[gone]
            memory.gamma[active[gone]], memory.has_pair[active[gone]] = gamma[gone], has_pair[gone]
            active, f, g, gmax, z0 = active[keep], f[keep], g[keep], gmax[keep], z0[:, :, keep]
            loss, g_theta, g_beta = loss[keep], g_theta[keep], g_beta[keep]
            S, Yh, rho, gamma, has_pair = S[keep], Yh[keep], rho[keep], gamma[keep], has_pair[keep]
        iterations[active] += 1
        scale = np.where(has_pair, gamma, first_scale[active])
        direction = _two_loop(g, S, Yh, rho, newest, scale)
        slope = np.einsum("hp,hp->h", g, direction)
        bad = slope >= 0  # not a descent direction (numerical): restart that head from steepest descent
        if bad.any():
            gnorm = np.sqrt(np.einsum("hp,hp->h", g[bad], g[bad]))
            direction[bad] = -g[bad] / np.maximum(gnorm, 1e-300)[:, None]
            slope[bad] = np.einsum("hp,hp->h", g[bad], direction[bad])
            S[bad], Yh[bad], rho[bad], has_pair[bad] = 0.0, 0.0, 0.0, False
        dir3 = direction.reshape(len(active), C, d + 1)
        d_theta, d_beta = to_theta(dir3[:, :, :d]), dir3[:, :, d]
        dz = heads.linear(d_theta, active)
        dz += heads.offsets(d_theta, d_beta, active, absent=False)
        x0, theta0, beta0 = xvar[active], theta[active], beta[active]
        step = np.ones(len(active))
        new_f = f.copy()
        moved = np.zeros(len(active), dtype=bool)
        G_moved = None  # G of every head at its accepted point, for one backward product after the search
        todo = np.arange(len(active))
        for _ in range(MAX_BACKTRACK):
            everyone = len(todo) == len(active)
            sel = slice(None) if everyone else todo
            st = step[sel]
            theta_t = theta0[sel] + st[:, None, None] * d_theta[sel]
            beta_t = beta0[sel] + st[:, None] * d_beta[sel]
            full = everyone and bool(np.all(st == 1.0))
            Zt = np.add(z0, dz) if full else z0[:, :, sel] + dz[:, :, sel] * st.astype(np.float32)
            lt, Gt = heads.loss(Zt, active[todo])
            ft = lt + penalty(theta_t)
            ok = ft <= f[todo] + ARMIJO * st * slope[todo]
            if ok.any():
                done = todo[ok]
                xvar[active[done]] = x0[done] + step[done, None] * direction[done]
                theta[active[done]], beta[active[done]] = theta_t[ok], beta_t[ok]
                new_f[done], loss[done] = ft[ok], lt[ok]
                moved[done] = True
                if full and ok.all():
                    z0 += dz  # the common case: every head takes the full step, no copies
                    G_moved = Gt
                else:
                    z0[:, :, done] += dz[:, :, done] * step[done].astype(np.float32)
                    if G_moved is None:
                        G_moved = np.empty(z0.shape, dtype=np.float32)
                    G_moved[:, :, done] = Gt[:, :, ok]
            todo = todo[~ok]
            if len(todo) == 0:
                break
            step[todo] *= 0.5
        new_g, new_gmax = g.copy(), gmax.copy()
        if moved.any():
            assert G_moved is not None  # set by every accepted step above
            if not moved.all():
                G_moved = G_moved[:, :, moved]
            at = active[moved]
            gt, gb = heads.gradient(G_moved, at)
            gt += lam * theta[at]
            g_theta[moved], g_beta[moved] = gt, gb
            new_g[moved], new_gmax[moved] = pack(gt, gb), heads.largest_gradient(gt, gb, at)
        del G_moved
        # heads whose line search failed keep their point (s = 0: no pair stored)
        s_new = xvar[active] - x0
        y_new = new_g - g
        sy = np.einsum("hp,hp->h", s_new, y_new)
        yy = np.einsum("hp,hp->h", y_new, y_new)
        upd = (sy > 1e-12 * np.maximum(yy, 1e-300)) & (sy > TINY_PAIR)
        newest = (newest + 1) % size
        if S is not memory.S:
            # heads that left earlier miss this slot: clear it for them so their ring stays consistent
            left = np.setdiff1d(np.arange(H), active, assume_unique=True)
            memory.S[left, newest] = 0.0
            memory.Y[left, newest] = 0.0
            memory.rho[left, newest] = 0.0
        S[:, newest] = np.where(upd[:, None], s_new, 0.0)
        Yh[:, newest] = np.where(upd[:, None], y_new, 0.0)
        rho[:, newest] = np.where(upd, 1.0 / np.where(upd, sy, 1.0), 0.0)
        gamma = np.where(upd, sy / np.where(upd, yy, 1.0), gamma)
        has_pair = has_pair | upd
        if len(todo):  # no decrease even at a tiny step: converged to rounding precision
            new_gmax[todo] = 0.0
        f, g, gmax = new_f, new_g, new_gmax
    retire(active, slice(None))
    if S is not memory.S:
        memory.S[active], memory.Y[active], memory.rho[active] = S, Yh, rho
    memory.gamma[active], memory.has_pair[active] = gamma, has_pair
    memory.newest = newest
    return iterations


def fit_heads(
    x: np.ndarray,
    labels: Sequence[np.ndarray],
    trains: Sequence[np.ndarray],
    strengths: Sequence[float],
    *,
    max_iter: int = 300,
    tol: float = 1e-4,
    device: Any = None,
) -> dict[float, dict[str, np.ndarray]]:
    """Fit every head at every strength (strongest first, warm-started); per strength: predictions and solution.

    Returns ``{lambda: {"pred": (n, H) predicted class of every row, "W": (H, K, d) every class's
    weights (binary heads: row 0 is 0, row 1 scikit-learn's vector), "b": (H, K), "iterations": (H,)}}``;
    predictions cover all rows so validation and test accuracies are read off. ``device`` (a torch
    device, dense x only) runs the two products of every step there (module docstring).
    """
    # heads ordered by their number of classes, most first, so the heads using a product column are
    # a prefix of any set of them (_HeadSet); results are returned in the caller's order
    k = np.array([int(np.max(y)) for y in labels])
    order = np.argsort(-k, kind="stable")
    back = np.argsort(order)
    heads = _Heads(x, [labels[i] for i in order], [trains[i] for i in order], None if sp.issparse(x) else device)
    point = _Point(heads)
    size = int(
        np.clip(HISTORY_BYTES // (8 * heads.H * heads.C * (heads.d + 1)), 3, HISTORY)
    )  # wide sparse inputs keep fewer pairs
    memory = _Memory(heads, size)
    out: dict[float, dict[str, np.ndarray]] = {}
    previous: float | None = None
    for lam in sorted((float(s) for s in strengths), reverse=True):
        if previous is not None:
            memory.move(heads, previous, lam)
        its = _solve(heads, lam, point, memory, max_iter, tol)
        previous = lam
        out[lam] = {
            "pred": heads.predict(point)[:, back],
            "W": (heads.report @ point.theta)[back],
            "b": np.einsum("hkc,hc->hk", heads.report, point.beta)[back],
            "iterations": its[back],
        }
    return out
