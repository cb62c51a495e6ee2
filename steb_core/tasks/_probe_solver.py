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
two-class softmax with both rows penalised; a k-class head has k weight vectors, as scikit-learn's
softmax. Each head multiplies only its own columns (1 or k), never padding to the widest head.

How one X serves heads with different training rows and scalers: with X~ = X - mean(X) (the global
mean; a shift only moves the unpenalised intercepts), head h's logits are
``X~ (W_h / sigma_h)^T + b_h - W_h ((mu_h - m) / sigma_h)``, so the per-head scaler folds into the
weights and rows outside the head's training split get zero weight in the loss.

Solver: L-BFGS run per head (own history of pairs, own Armijo backtracking, own convergence test),
vectorised over heads; a head that meets the stopping rule leaves the batch, so later steps multiply
fewer columns. The strongly convex objective (lambda > 0) guarantees s^T y > 0, so Armijo
backtracking alone keeps the updates well defined. One iteration costs one forward product (of the
search direction: the logits are linear in W, so every backtracking trial moves along it without a
new product) and one backward product.

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
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["fit_heads", "head_objective"]

#: L-BFGS pairs per head; more than scipy's default 10 because every iteration costs two n x d
#: products while a pair costs two dot products (10k x 46 x 768: 76 -> 55 forward products)
HISTORY = 20
#: memory for the L-BFGS pairs of all heads (s and y, float64)
HISTORY_BYTES = 256 * 2**20
ARMIJO = 1e-4
MAX_BACKTRACK = 30


class _Heads:
    """Data shared by all heads: centred float32 X, loss weights, labels, scalers, column layout.

    Parameters are (H, K, d) arrays with row ``c`` the weight vector of class ``c``; ``column`` marks
    the rows that are free (k-class heads: 0..k-1; binary heads: class 1 only, class 0's logit is 0).
    Arrays over texts are laid out (n, K, h): class-major with the heads contiguous, so reductions
    over classes are elementwise operations between (n, h) slabs.
    """

    def __init__(self, x: np.ndarray, labels: Sequence[np.ndarray], trains: Sequence[np.ndarray]):
        self.sparse = sp.issparse(x)
        if not self.sparse:
            x = np.asarray(x)
        self.n, self.d = x.shape
        self.H = len(labels)
        self.k = np.array([max(2, int(np.max(y)) + 1) for y in labels])
        self.K = int(self.k.max())
        H, n, d = self.H, self.n, self.d
        self.column = np.arange(self.K)[None, :] < self.k[:, None]  # (H, K) free rows
        self.column[self.k == 2, 0] = False  # binary: class 0's logit is fixed at 0
        m = np.asarray(x.mean(axis=0), dtype=np.float64).reshape(-1)
        self.mean = m.astype(np.float32)
        self.weight = np.zeros((n, H), dtype=np.float32)  # 1 / n_train on the head's training rows
        self.labels = np.zeros((n, H), dtype=np.int64)
        # logit offsets: 0 for the head's classes, -inf for classes it does not have
        self.absent = np.where(np.arange(self.K)[None, :] < self.k[:, None], 0.0, -np.inf).astype(np.float32)
        means = np.zeros((H, n))
        for h, (y, tr) in enumerate(zip(labels, trains)):
            self.weight[tr, h] = 1.0 / len(tr)
            means[h, tr] = 1.0 / len(tr)
            self.labels[:, h] = y
        self.weight64 = self.weight.astype(np.float64)
        if self.sparse:
            # sparse X stays sparse and uncentred: the centring is a rank-one correction in the
            # products; no d x d covariance (TF-IDF vocabularies are large), so no preconditioner
            self.x = sp.csr_matrix(x, dtype=np.float32)
            raw_mu = np.asarray((self.x.T @ means.T).T, dtype=np.float64)
            raw_sq = np.asarray((self.x.multiply(self.x).T @ means.T).T, dtype=np.float64)
            mu = raw_mu - m
            var = raw_sq - raw_mu * raw_mu
            gram = None
        else:
            # per-head training means and variances (as StandardScaler, ddof 0) and the global
            # covariance, accumulated in float64 over row chunks so no second n x d float64 array is held
            self.x = np.empty((n, d), dtype=np.float32)  # centred X, the only n x d array kept
            mu = np.zeros((H, d))
            sq = np.zeros((H, d))
            # the preconditioner pays off only while it is cheaper than the n x d products it speeds
            # up: with more dimensions than texts (4,096-d models on small sets) it would dominate the
            # solve, so plain L-BFGS (the same objective) is used there
            gram = np.zeros((d, d)) if d <= n else None
            for r0 in range(0, n, 4096):
                chunk = np.asarray(x[r0 : r0 + 4096], dtype=np.float64) - m
                self.x[r0 : r0 + 4096] = chunk
                mu += means[:, r0 : r0 + 4096] @ chunk
                sq += means[:, r0 : r0 + 4096] @ (chunk * chunk)
                if gram is not None:
                    gram += chunk.T @ chunk
            var = sq - mu * mu
        sd = np.sqrt(np.maximum(var, 0.0))
        sd[sd == 0] = 1.0  # constant columns: StandardScaler leaves them unscaled
        self.inv_sd = 1.0 / sd  # (H, d)
        self.shift = mu / sd  # (H, d): (mu_h - m) / sigma_h
        self.cov_values = self.cov_vectors = None
        if gram is not None:
            # covariance of the globally standardised embeddings, for the preconditioner only
            gsd = np.sqrt(np.maximum(np.diag(gram) / n, 0.0))
            gsd[gsd == 0] = 1.0
            values, self.cov_vectors = np.linalg.eigh(gram / n / np.outer(gsd, gsd))
            self.cov_values = np.maximum(values, 0.0)

    def linear(self, W: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """(n, K, h) float32 ``X~ (W / sigma)^T`` of the selected heads' free rows (fixed rows 0).

        Linear in W, so the line search moves along ``linear(direction)`` without new products.
        """
        h, K, n = len(heads), self.K, self.n
        mask = self.column[heads].T  # (K, h)
        V = (W * self.inv_sd[heads, None, :]).transpose(1, 0, 2)[mask].T.astype(np.float32)  # (d, free rows)
        XV = self.x @ V
        if self.sparse:
            XV -= self.mean @ V
        XV = np.asarray(XV, dtype=np.float32)
        if mask.all():
            return XV.reshape(n, K, h)
        Z = np.zeros((n, K, h), dtype=np.float32)
        Z[:, mask] = XV
        return Z

    def offsets(self, W: np.ndarray, b: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """(K, h) float32 per-class constants: ``b_k - w_k . (mu_h - m) / sigma_h``, -inf for absent classes."""
        const = b - np.einsum("hkd,hd->hk", W, self.shift[heads])
        return (const + self.absent[heads]).T.astype(np.float32)

    def logits(self, W: np.ndarray, b: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """(n, K, h) float32 logits of the selected heads (W: (h, K, d), b: (h, K))."""
        return self.linear(W, heads) + self.offsets(W, b, heads)

    def loss(self, Z: np.ndarray, W: np.ndarray, heads: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
        """Objective per head from logits Z (n, K, h), and G = (softmax - onehot) * weight (Z's memory)."""
        h, n, K = len(heads), self.n, self.K
        # the flat views below must alias Z (arrays built from fancy-indexed slices can be laid out otherwise)
        Z = np.ascontiguousarray(Z)
        zmax = Z.max(axis=1, keepdims=True)
        np.subtract(Z, zmax, out=Z)
        flat = (np.arange(n)[:, None] * K + self.labels[:, heads]) * h + np.arange(h)[None, :]
        true = Z.reshape(-1)[flat]  # (n, h): shifted logit of the true class
        np.exp(Z, out=Z)
        s = Z.sum(axis=1)
        w = self.weight[:, heads]
        loss = np.einsum("nh,nh->h", self.weight64[:, heads], (np.log(s) - true).astype(np.float64))
        loss += 0.5 * lam * np.einsum("hkd,hkd->h", W, W)
        Z *= (w / s)[:, None, :]
        Z.reshape(-1)[flat] -= w
        return loss, Z

    def gradient(self, G: np.ndarray, W: np.ndarray, heads: np.ndarray, lam: float):
        """Gradient (h, K, d) and (h, K) on the free rows from :meth:`loss`'s G, and max |gradient| per head
        (scikit-learn's stopping test)."""
        h, n, K = len(heads), self.n, self.K
        mask = self.column[heads]
        maskT = mask.T
        Gp = G.reshape(n, -1) if mask.all() else G[:, maskT]
        XG = np.asarray(self.x.T @ Gp, dtype=np.float64)  # (d, free rows), class-major
        gb = G.sum(axis=0, dtype=np.float64).T * mask  # (h, K) intercept gradients
        if self.sparse:
            XG -= np.outer(self.mean, gb.T[maskT])
        gWT = np.zeros((K, h, self.d))
        gWT[maskT] = XG.T
        gW = gWT.transpose(1, 0, 2) * self.inv_sd[heads, None, :]
        gW -= self.shift[heads, None, :] * gb[:, :, None]
        gW += lam * W
        gW *= mask[:, :, None]
        gmax = np.maximum(np.abs(gW).max(axis=(1, 2)), np.abs(gb).max(axis=1))
        return gW, gb, gmax

    def scaling(self, lam: float) -> np.ndarray | None:
        """Per-eigendirection scale of the preconditioner ``(C + 4 lambda I)^(-1/2)``: ``v^(-1/2)`` with
        v = covariance eigenvalues + 4 lambda (softmax curvature <= 1/4); None: no preconditioner."""
        if self.cov_values is None:
            return None
        return 1.0 / np.sqrt(self.cov_values + 4.0 * lam + 1e-12)


def head_objective(x: np.ndarray, labels: np.ndarray, train: np.ndarray, W: np.ndarray, b: np.ndarray, lam: float) -> float:
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


def _two_loop(g: np.ndarray, S: np.ndarray, Y: np.ndarray, rho: np.ndarray, newest: int, gamma: np.ndarray) -> np.ndarray:
    """L-BFGS direction -H g for every head. Pairs sit in a ring (slot ``newest`` is the latest);
    slots a head did not fill have rho = 0 and drop out; ``gamma`` is each head's initial scaling."""
    m = S.shape[1]
    order = [(newest - i) % m for i in range(m)]  # newest first
    q = g.copy()
    alpha = np.zeros(rho.shape)
    for i in order:
        alpha[:, i] = rho[:, i] * np.einsum("hp,hp->h", S[:, i], q)
        q -= alpha[:, i, None] * Y[:, i]
    r = gamma[:, None] * q
    for i in reversed(order):
        beta = rho[:, i] * np.einsum("hp,hp->h", Y[:, i], r)
        r += S[:, i] * (alpha[:, i] - beta)[:, None]
    return -r


class _Memory:
    """Every head's L-BFGS pairs (a ring of ``size`` slots) and initial scaling, kept across strengths."""

    def __init__(self, heads: _Heads, size: int):
        H, p = heads.H, heads.K * (heads.d + 1)
        self.S = np.zeros((H, size, p))
        self.Y = np.zeros((H, size, p))
        self.rho = np.zeros((H, size))
        self.gamma = np.zeros(H)
        self.has_pair = np.zeros(H, dtype=bool)
        self.newest = size - 1

    def move(self, heads: _Heads, old: float, new: float) -> None:
        """Re-express the pairs at strength ``new``.

        Variables live in the covariance's eigenbasis, ``W = (U q) Q^T`` with ``q = v^(-1/2)``, so
        moving is diagonal: s_U' = s_U q / q', y_U' = y_U q' / q + (new - old) s_U q q' (the loss part of
        y does not depend on lambda; the penalty adds ``(new - old) s_W`` in W).
        """
        H, m = self.S.shape[:2]
        K, d = heads.K, heads.d
        S = self.S.reshape(H, m, K, d + 1)[..., :d]
        Y = self.Y.reshape(H, m, K, d + 1)[..., :d]
        q_old, q_new = heads.scaling(old), heads.scaling(new)
        if q_old is None:
            Y += (new - old) * S
        else:
            Y *= q_new / q_old
            Y += (new - old) * (q_old * q_new) * S
            S *= q_old / q_new
        sy = np.einsum("hmp,hmp->hm", self.S, self.Y)
        yy = np.einsum("hmp,hmp->hm", self.Y, self.Y)
        ok = (sy > 1e-12 * np.maximum(yy, 1e-300)) & (self.rho > 0)
        self.rho = np.where(ok, 1.0 / np.where(ok, sy, 1.0), 0.0)
        self.S[~ok] = 0.0
        self.Y[~ok] = 0.0
        latest = self.newest
        fresh = ok[:, latest]
        self.gamma = np.where(fresh, sy[:, latest] / np.where(fresh, yy[:, latest], 1.0), self.gamma)
        self.has_pair = ok.any(axis=1)


def _solve(heads: _Heads, lam: float, W: np.ndarray, b: np.ndarray, memory: _Memory, max_iter: int, tol: float):
    """Minimise every head's objective at strength ``lam`` from (W, b); returns W, b, iterations per head.

    One iteration costs one forward product (the direction's ``linear``; backtracking trials move
    along it, as do W and b) and one backward product per group of heads accepted together.
    """
    H, K, d = heads.H, heads.K, heads.d
    q = heads.scaling(lam)
    Q = heads.cov_vectors

    # the basis changes run in float32 (half the time of float64; they only rotate directions and
    # gradients, whose float32 rounding is far below the stopping tolerance); W and b stay float64
    Q32 = None if Q is None else Q.astype(np.float32)

    def to_w(U: np.ndarray) -> np.ndarray:  # variables (h, K, d) -> weights W = (U q) Q^T
        if q is None:
            return U
        return ((U * q).reshape(-1, d).astype(np.float32) @ Q32.T).astype(np.float64).reshape(U.shape)

    def to_u(gW: np.ndarray) -> np.ndarray:  # gradient in W -> gradient in the variables, (gW Q) q
        if q is None:
            return gW
        return (gW.reshape(-1, d).astype(np.float32) @ Q32).astype(np.float64).reshape(gW.shape) * q

    def pack(gW: np.ndarray, gb: np.ndarray) -> np.ndarray:
        return np.concatenate([to_u(gW), gb[:, :, None]], axis=2).reshape(len(gW), -1)

    # variables theta = [U | b]
    U0 = W if q is None else (W.reshape(-1, d) @ Q).reshape(W.shape) / q
    theta = np.concatenate([U0, b[:, :, None]], axis=2).reshape(H, -1)
    W, b = W.copy(), b.copy()  # kept equal to the variables' (W, b) by the same linear updates
    # at W = 0 the softmax curvature is 1/k (binary: 1/4) in whitened coordinates: a first step of
    # -k g (-4 g) is about a Newton step
    first_scale = np.where(heads.k == 2, 4.0, heads.k.astype(np.float64))

    iterations = np.zeros(H, dtype=np.int64)
    active = np.arange(H)
    lin = heads.linear(W, active)  # (n, K, h) linear part of the logits at the current points
    f, G = heads.loss(lin + heads.offsets(W, b, active), W, active, lam)
    gW, gb, gmax = heads.gradient(G, W, active, lam)
    g = pack(gW, gb)
    del G
    S, Yh, rho, gamma, has_pair = memory.S, memory.Y, memory.rho, memory.gamma, memory.has_pair
    newest = memory.newest
    size = S.shape[1]
    # state arrays are indexed by position in `active`; once heads leave they are copies, written back
    for _ in range(max_iter):
        keep = gmax > tol
        if not keep.any():
            break
        if not keep.all():
            active, f, g, gmax, lin = active[keep], f[keep], g[keep], gmax[keep], lin[:, :, keep]
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
        dir3 = direction.reshape(len(active), K, d + 1)
        dW, db = to_w(dir3[:, :, :d]), dir3[:, :, d]
        d_lin = heads.linear(dW, active)
        x0, W0, b0 = theta[active], W[active], b[active]
        step = np.ones(len(active))
        new_f, new_g, new_gmax = f.copy(), g.copy(), gmax.copy()
        todo = np.arange(len(active))
        for _ in range(MAX_BACKTRACK):
            everyone = len(todo) == len(active)
            sel = slice(None) if everyone else todo
            st = step[sel]
            Wt = W0[sel] + st[:, None, None] * dW[sel]
            bt = b0[sel] + st[:, None] * db[sel]
            z_lin = lin[:, :, sel] + d_lin[:, :, sel] * st.astype(np.float32)
            ft, Gt = heads.loss(z_lin + heads.offsets(Wt, bt, active[todo]), Wt, active[todo], lam)
            ok = ft <= f[todo] + ARMIJO * st * slope[todo]
            if ok.any():
                done = todo[ok]
                gWt, gbt, gmt = heads.gradient(Gt if ok.all() else Gt[:, :, ok], Wt[ok], active[done], lam)
                theta[active[done]] = x0[done] + step[done, None] * direction[done]
                W[active[done]], b[active[done]] = Wt[ok], bt[ok]
                if everyone and ok.all():
                    lin = z_lin  # the common case: every head takes the full step, no copy
                else:
                    lin[:, :, done] = z_lin[:, :, ok]
                new_f[done], new_g[done], new_gmax[done] = ft[ok], pack(gWt, gbt), gmt
            todo = todo[~ok]
            if len(todo) == 0:
                break
            step[todo] *= 0.5
        # heads whose line search failed keep their point (s = 0: no pair stored)
        s_new = theta[active] - x0
        y_new = new_g - g
        sy = np.einsum("hp,hp->h", s_new, y_new)
        yy = np.einsum("hp,hp->h", y_new, y_new)
        upd = sy > 1e-12 * np.maximum(yy, 1e-300)
        newest = (newest + 1) % size
        S[:, newest] = np.where(upd[:, None], s_new, 0.0)
        Yh[:, newest] = np.where(upd[:, None], y_new, 0.0)
        rho[:, newest] = np.where(upd, 1.0 / np.where(upd, sy, 1.0), 0.0)
        gamma = np.where(upd, sy / np.where(upd, yy, 1.0), gamma)
        has_pair = has_pair | upd
        if len(todo):  # no decrease even at a tiny step: converged to rounding precision
            new_gmax[todo] = 0.0
        f, g, gmax = new_f, new_g, new_gmax
        if S is not memory.S:
            # keep the full-size memory current for the heads still running (their ring positions agree);
            # heads that left earlier missed this slot: clear it for them so their ring stays consistent
            memory.S[active], memory.Y[active], memory.rho[active] = S, Yh, rho
            left = np.setdiff1d(np.arange(H), active, assume_unique=True)
            memory.S[left, newest] = 0.0
            memory.Y[left, newest] = 0.0
            memory.rho[left, newest] = 0.0
        memory.gamma[active], memory.has_pair[active] = gamma, has_pair
    memory.newest = newest
    return W, b, iterations


def fit_heads(
    x: np.ndarray,
    labels: Sequence[np.ndarray],
    trains: Sequence[np.ndarray],
    strengths: Sequence[float],
    *,
    max_iter: int = 300,
    tol: float = 1e-4,
) -> dict[float, dict[str, np.ndarray]]:
    """Fit every head at every strength (strongest first, warm-started); per strength: predictions and solution.

    Returns ``{lambda: {"pred": (n, H) predicted class of every row, "W": (H, K, d) every class's
    weights (binary heads: row 0 is 0, row 1 scikit-learn's vector), "b": (H, K), "iterations": (H,)}}``;
    predictions cover all rows so validation and test accuracies are read off.
    """
    heads = _Heads(x, labels, trains)
    W = np.zeros((heads.H, heads.K, heads.d))
    b = np.zeros((heads.H, heads.K))
    size = int(np.clip(HISTORY_BYTES // (16 * heads.H * heads.K * (heads.d + 1)), 3, HISTORY))  # wide sparse inputs keep fewer pairs
    memory = _Memory(heads, size)
    out: dict[float, dict[str, np.ndarray]] = {}
    previous: float | None = None
    everyone = np.arange(heads.H)
    for lam in sorted((float(s) for s in strengths), reverse=True):
        if previous is not None:
            memory.move(heads, previous, lam)
        W, b, its = _solve(heads, lam, W, b, memory, max_iter, tol)
        previous = lam
        Z = heads.logits(W, b, everyone)
        out[lam] = {"pred": Z.argmax(axis=1), "W": W.copy(), "b": b.copy(), "iterations": its}
    return out
