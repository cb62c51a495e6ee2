"""All probes of a probing task trained together: one X, one matrix product per step for every head.

Issue 17 §2: probing fits 46 features x 4 regularisation strengths = 184 small L2 logistic
regressions on the same embeddings. Fitted one by one (scikit-learn's lbfgs), every iteration is a
matrix-vector-like product that reads the whole float64 X for 5 output columns, so the loop is bound
by memory bandwidth. Here every feature is a *head* of one batched model and a step for all heads is
two float32 matrix products ``X @ V`` (n x d x 5H) and ``X^T G`` at full BLAS speed.

The objective of each head is exactly the documented probe (``probing`` module docstring) and
scikit-learn's ``LogisticRegression(C=1/(lambda n_train))`` objective:

    mean over the head's training rows of the multinomial log-loss
    + lambda/2 * ||W||^2      (W in standardised-feature space; intercepts unpenalised)

with the standardisation of each head fitted on its own training rows. Two-class heads use the binary
logistic parametrisation scikit-learn uses for two classes (class 0's logit fixed at 0, one weight
vector), which is *not* the same objective as a two-class softmax with both rows penalised.

How one X serves heads with different training rows and scalers: with X~ = X - mean(X) (the global
mean; a shift only moves the unpenalised intercepts), head h's logits are
``X~ (W_h / sigma_h)^T + b_h - W_h ((mu_h - m) / sigma_h)``, so the per-head scaler folds into the
weights and rows outside the head's training split get zero weight in the loss.

Solver: L-BFGS run per head (own history of 10 pairs, own Armijo backtracking, own convergence
test), vectorised over heads; a head that meets scikit-learn's stopping rule (max |gradient| <= tol
on the mean-loss objective, tol 1e-4) leaves the batch, so later steps multiply fewer columns. The
strongly convex objective (lambda > 0) guarantees s^T y > 0, so Armijo backtracking alone keeps the
updates well defined. Variables are preconditioned by the global covariance of the standardised
embeddings (W = U P, P = (C + delta I)^(-1/2)): an exact change of variables (same objective and
optimum) that makes anisotropic embeddings, whose few dominant directions slow plain L-BFGS down a
lot, as easy as isotropic ones. Sparse X (TF-IDF) stays sparse: the centring becomes a rank-one
correction of both products, and the preconditioner (a d x d matrix) is skipped. Strengths run from strongest to weakest, each warm-started from
the previous solution.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["fit_heads", "head_objective"]

HISTORY = 10
#: memory for the L-BFGS pairs of all heads (s and y, float64)
HISTORY_BYTES = 256 * 2**20
ARMIJO = 1e-4
MAX_BACKTRACK = 30


class _Heads:
    """Data shared by all heads: centred float32 X, per-head loss weights, one-hot labels, scalers."""

    def __init__(self, x: np.ndarray, labels: Sequence[np.ndarray], trains: Sequence[np.ndarray]):
        self.sparse = sp.issparse(x)
        if not self.sparse:
            x = np.asarray(x)
        self.n, self.d = x.shape
        self.H = len(labels)
        self.K = max(2, max(int(np.max(y)) + 1 for y in labels))
        K, H, n, d = self.K, self.H, self.n, self.d
        m = np.asarray(x.mean(axis=0), dtype=np.float64).reshape(-1)
        self.mean = m.astype(np.float32)
        self.weight = np.zeros((n, H), dtype=np.float32)  # 1 / n_train on the head's training rows
        self.labels = np.zeros((n, H), dtype=np.int64)
        self.valid = np.zeros((H, K), dtype=bool)  # classes present (others: logit -inf)
        self.free = np.zeros((H, K), dtype=bool)  # classes with parameters (binary: class 1 only)
        means = np.zeros((H, n))
        for h, (y, tr) in enumerate(zip(labels, trains)):
            k = int(np.max(y)) + 1
            self.weight[tr, h] = 1.0 / len(tr)
            means[h, tr] = 1.0 / len(tr)
            self.labels[:, h] = y
            self.valid[h, :k] = True
            self.free[h, :k] = True
            if k == 2:
                self.free[h, 0] = False
        if self.sparse:
            # sparse X stays sparse and uncentred: the centring is a rank-one correction in logits()
            # and gradient(); no d x d covariance (TF-IDF vocabularies are large), so no preconditioner
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
            # the d x d preconditioner pays off only while it is cheaper than the n x d products it
            # speeds up: with more dimensions than texts (4,096-d models on small sets) it would
            # dominate the solve, so plain L-BFGS (the same objective) is used there
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

    def logits(self, W: np.ndarray, b: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """(n, h, K) logits of the selected heads; absent classes -inf, binary class 0 fixed at 0."""
        h = len(heads)
        V = (W * self.inv_sd[heads, None, :]).reshape(h * self.K, self.d).T.astype(np.float32)
        const = b - np.einsum("hkd,hd->hk", W, self.shift[heads])
        XV = self.x @ V
        if self.sparse:
            XV -= self.mean @ V
        Z = np.asarray(XV).reshape(self.n, h, self.K)
        const = np.where(self.valid[heads], const, -np.inf)  # absent classes: probability 0
        Z += const.astype(np.float32)
        return Z

    def loss_and_probs(self, Z: np.ndarray, W: np.ndarray, heads: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
        zmax = Z.max(axis=2, keepdims=True)
        true = np.take_along_axis(Z, self.labels[:, heads, None], axis=2)[..., 0]
        E = np.subtract(Z, zmax, out=Z)  # Z is not needed after this: reuse its memory
        np.exp(E, out=E)
        s = E.sum(axis=2, keepdims=True)
        lse = np.log(s[..., 0]) + zmax[..., 0]
        w = self.weight[:, heads]
        loss = np.einsum("nh,nh->h", w.astype(np.float64), (lse - true).astype(np.float64))
        loss += 0.5 * lam * np.einsum("hkd,hkd->h", W, W)
        E /= s
        return loss, E

    def gradient(self, probs: np.ndarray, W: np.ndarray, heads: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
        h = len(heads)
        G = probs  # p - onehot(y), weighted by 1 / n_train on training rows (in place: probs is ours)
        np.put_along_axis(G, self.labels[:, heads, None], np.take_along_axis(G, self.labels[:, heads, None], axis=2) - 1.0, axis=2)
        G *= self.weight[:, heads, None]
        gb = G.sum(axis=0, dtype=np.float64)
        Gm = G.reshape(self.n, h * self.K)
        XG = np.asarray(self.x.T @ Gm, dtype=np.float64)
        if self.sparse:
            XG -= np.outer(self.mean, gb.reshape(-1))
        gV = XG.T.reshape(h, self.K, self.d)
        gW = gV * self.inv_sd[heads, None, :] - self.shift[heads, None, :] * gb[:, :, None] + lam * W
        free = self.free[heads]
        return gW * free[:, :, None], gb * free

    def preconditioner(self, lam: float) -> tuple[np.ndarray, np.ndarray] | None:
        """P = (C + delta I)^(-1/2) and its inverse, delta = 4 lambda (softmax curvature <= 1/4); None: identity."""
        if self.cov_values is None:
            return None
        values = self.cov_values + 4.0 * lam + 1e-12
        Q = self.cov_vectors
        return (Q / np.sqrt(values)) @ Q.T, (Q * np.sqrt(values)) @ Q.T


def head_objective(x: np.ndarray, labels: np.ndarray, train: np.ndarray, W: np.ndarray, b: np.ndarray, lam: float) -> float:
    """The documented probe objective of one head at (W, b) (W: classes x d in standardised space).

    For tests: evaluates scikit-learn's solution and ours on the same function.
    """
    heads = _Heads(x, [labels], [train])
    K = heads.K
    Wf = np.zeros((1, K, heads.d))
    bf = np.zeros((1, K))
    if W.shape[0] == 1 and K == 2:  # scikit-learn's binary parametrisation: class 1's row
        Wf[0, 1], bf[0, 1] = W[0], b[0]
    else:  # a batched head's rows beyond its classes are zero padding
        Wf[0], bf[0] = W[:K], b[:K]
    idx = np.arange(1)
    loss, _ = heads.loss_and_probs(heads.logits(Wf, bf, idx), Wf, idx, lam)
    return float(loss[0])


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


def _solve(heads: _Heads, lam: float, W: np.ndarray, b: np.ndarray, max_iter: int, tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Minimise every head's objective at strength ``lam`` from (W, b); returns W, b, iterations per head."""
    H, K, d = heads.H, heads.K, heads.d
    pre = heads.preconditioner(lam)
    P, P_inv = pre if pre is not None else (None, None)
    def mul(a: np.ndarray, m: np.ndarray | None) -> np.ndarray:  # (h, K, d) @ (d, d) as one matrix product
        return a if m is None else (a.reshape(-1, d) @ m).reshape(a.shape)

    # variables theta = [U | b] with W = U P
    theta = np.concatenate([mul(W, P_inv), b[:, :, None]], axis=2).reshape(H, -1)
    p = theta.shape[1]

    def evaluate(th: np.ndarray, idx: np.ndarray):
        t = th.reshape(len(idx), K, d + 1)
        Wx, bx = mul(t[:, :, :d], P), t[:, :, d]
        Z = heads.logits(Wx, bx, idx)
        loss, probs = heads.loss_and_probs(Z, Wx, idx, lam)
        gW, gb = heads.gradient(probs, Wx, idx, lam)
        g = np.concatenate([mul(gW, P), gb[:, :, None]], axis=2).reshape(len(idx), p)
        gmax = np.maximum(np.abs(gW).max(axis=(1, 2)), np.abs(gb).max(axis=1))  # scikit-learn's test, in W
        return loss, g, gmax

    iterations = np.zeros(H, dtype=np.int64)
    active = np.arange(H)
    f, g, gmax = evaluate(theta, active)
    history = int(np.clip(HISTORY_BYTES // (16 * H * p), 3, HISTORY))  # wide sparse inputs keep fewer pairs
    S = np.zeros((H, history, p))
    Yh = np.zeros((H, history, p))
    rho = np.zeros((H, history))
    gamma = np.zeros(H)
    has_pair = np.zeros(H, dtype=bool)
    newest = history - 1
    # state arrays are indexed by position in `active`
    for _ in range(max_iter):
        keep = gmax > tol
        if not keep.any():
            break
        if not keep.all():
            active, f, g, gmax = active[keep], f[keep], g[keep], gmax[keep]
            S, Yh, rho, gamma, has_pair = S[keep], Yh[keep], rho[keep], gamma[keep], has_pair[keep]
        iterations[active] += 1
        gnorm = np.sqrt(np.einsum("hp,hp->h", g, g))
        scale = np.where(has_pair, gamma, 1.0 / np.maximum(gnorm, 1e-300))  # first step: unit length
        direction = _two_loop(g, S, Yh, rho, newest, scale)
        slope = np.einsum("hp,hp->h", g, direction)
        bad = slope >= 0  # not a descent direction (numerical): restart that head from steepest descent
        if bad.any():
            direction[bad] = -g[bad] / np.maximum(gnorm[bad], 1e-300)[:, None]
            slope[bad] = np.einsum("hp,hp->h", g[bad], direction[bad])
            S[bad], Yh[bad], rho[bad], has_pair[bad] = 0.0, 0.0, 0.0, False
        step = np.ones(len(active))
        x0 = theta[active]
        new_f, new_g, new_gmax = f.copy(), g.copy(), gmax.copy()
        todo = np.arange(len(active))
        for _ in range(MAX_BACKTRACK):
            trial = x0[todo] + step[todo, None] * direction[todo]
            ft, gt, gm = evaluate(trial, active[todo])
            ok = ft <= f[todo] + ARMIJO * step[todo] * slope[todo]
            done = todo[ok]
            theta[active[done]] = trial[ok]
            new_f[done], new_g[done], new_gmax[done] = ft[ok], gt[ok], gm[ok]
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
        newest = (newest + 1) % history
        S[:, newest] = np.where(upd[:, None], s_new, 0.0)
        Yh[:, newest] = np.where(upd[:, None], y_new, 0.0)
        rho[:, newest] = np.where(upd, 1.0 / np.where(upd, sy, 1.0), 0.0)
        gamma = np.where(upd, sy / np.where(upd, yy, 1.0), gamma)
        has_pair |= upd
        if len(todo):  # no decrease even at a tiny step: converged to rounding precision
            new_gmax[todo] = 0.0
        f, g, gmax = new_f, new_g, new_gmax
    t = theta.reshape(H, K, d + 1)
    return mul(t[:, :, :d], P), t[:, :, d].copy(), iterations


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

    Returns ``{lambda: {"pred": (n, H) predicted class of every row, "W": (H, K, d), "b": (H, K),
    "iterations": (H,)}}``; predictions cover all rows so validation and test accuracies are read off.
    """
    heads = _Heads(x, labels, trains)
    W = np.zeros((heads.H, heads.K, heads.d))
    b = np.zeros((heads.H, heads.K))
    out: dict[float, dict[str, np.ndarray]] = {}
    for lam in sorted(strengths, reverse=True):
        W, b, its = _solve(heads, float(lam), W, b, max_iter, tol)
        Z = heads.logits(W, b, np.arange(heads.H))
        out[lam] = {"pred": Z.argmax(axis=2), "W": W.copy(), "b": b.copy(), "iterations": its}
    return out
