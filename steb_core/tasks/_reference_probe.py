"""The STEB reference's probe, re-implemented in NumPy: a linear layer + sigmoid trained with Adam.

Why it exists: on released bins and splits, steb's own probe (standardised inputs, L2 logistic regression
solved to convergence, :mod:`.probing`) and the reference's probe give materially different accuracies
(``bench/probing_reference``: function words 0.32 vs 0.27 on the same splits), so the reference's figures
need the reference's probe. What it does, from github.com/rrivera1849/STEB ``steb/tasks/probing.py``
@acb3a009 ``run_logistic_regression`` (SentEval's recipe):

* model: ``Linear(d, k)`` on the raw vectors (no standardisation), then a sigmoid; the loss is the
  cross-entropy of the *sigmoid outputs* taken as logits (``cross_entropy(sigmoid(xW + b), y)``), k = the
  number of distinct training labels; prediction = argmax;
* initialisation as torch's ``nn.Linear``: weights and bias uniform in ``±1/sqrt(d)``;
* Adam (lr 0.01, betas 0.9/0.999, eps 1e-8) with ``weight_decay`` added to the gradient (torch's L2
  form), one model per decay in 1e-5, 1e-4, 1e-3, 1e-2; batches of 512 rows in data order (no shuffle);
* up to 200 epochs; after each, validation accuracy; the parameters are kept when it is strictly
  better than the best so far; a count of non-improving epochs (never reset) stops training when it
  exceeds 5; the decay with the best validation accuracy (the first on ties) is tested.

Not bit-identical to the reference: its initialisation comes from torch's global RNG, whose state
depends on everything the process ran before (so the reference itself cannot be rerun bit for bit),
and float32 sums are ordered differently. Here the initialisation is drawn from the run seed and the
feature name, so a steb result is reproducible; ``bench/probing_reference`` compares the two.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

__all__ = ["reference_probe", "train_probe", "DECAYS", "MAX_EPOCH", "TENACITY", "BATCH"]

DECAYS = (1e-5, 1e-4, 1e-3, 1e-2)
MAX_EPOCH = 200
TENACITY = 5
BATCH = 512
LR, BETA1, BETA2, EPS = 0.01, 0.9, 0.999, 1e-8


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float32)


def _accuracy(x: np.ndarray, y: np.ndarray, w: np.ndarray, b: np.ndarray) -> float:
    if len(y) == 0:
        return 0.0
    return float(np.mean(np.argmax(x @ w.T + b, axis=1) == y))


def _init(d: int, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """torch ``nn.Linear``'s initialisation: weights and bias uniform in ``±1/sqrt(d)``."""
    bound = 1.0 / math.sqrt(d)
    weights = rng.uniform(-bound, bound, size=(k, d)).astype(np.float32)
    return weights, rng.uniform(-bound, bound, size=k).astype(np.float32)


def train_probe(
    x: np.ndarray,
    y: np.ndarray,
    xv: np.ndarray,
    yv: np.ndarray,
    decay: float,
    w0: np.ndarray,
    b0: np.ndarray,
    max_epoch: int = MAX_EPOCH,
) -> tuple[float, np.ndarray, np.ndarray]:
    """One model of the reference's recipe from ``(w0, b0)``: (best validation accuracy, its weights, its bias)."""
    k = w0.shape[0]
    w, b = w0.astype(np.float32).copy(), b0.astype(np.float32).copy()
    mw, vw, mb, vb = np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)
    step = 0
    best, best_w, best_b, stale = -math.inf, w.copy(), b.copy(), 0
    onehot = np.eye(k, dtype=np.float32)
    for _ in range(max_epoch):
        for lo in range(0, len(y), BATCH):
            xb, yb = x[lo : lo + BATCH], y[lo : lo + BATCH]
            s = _sigmoid(xb @ w.T + b)  # (m, k): the "logits" of the cross-entropy
            e = np.exp(s - s.max(axis=1, keepdims=True))
            grad_s = (e / e.sum(axis=1, keepdims=True) - onehot[yb]) / len(yb)
            grad_z = grad_s * s * (1.0 - s)
            gw = grad_z.T @ xb + decay * w
            gb = grad_z.sum(axis=0) + decay * b
            step += 1
            for p, g, m, v in ((w, gw, mw, vw), (b, gb, mb, vb)):
                m *= BETA1
                m += (1 - BETA1) * g
                v *= BETA2
                v += (1 - BETA2) * g * g
                m_hat = m / (1 - BETA1**step)
                v_hat = v / (1 - BETA2**step)
                p -= (LR * m_hat / (np.sqrt(v_hat) + EPS)).astype(np.float32)
        acc = _accuracy(xv, yv, w, b)
        if acc > best:
            best, best_w, best_b = acc, w.copy(), b.copy()
        else:
            stale += 1
            if stale > TENACITY:
                break
    return best, best_w, best_b


def reference_probe(
    x: np.ndarray, y: np.ndarray, split: tuple[np.ndarray, np.ndarray, np.ndarray], *, seed: int, name: str
) -> dict[str, float]:
    """Test accuracy of the reference's probe (module docstring) on ``split`` = (train, val, test) row indices.

    ``y`` holds class codes 0..k-1 for the training rows (-1 = a class no training text has: never right).
    """
    train, val, test = split
    x = np.asarray(x, dtype=np.float32)
    k = int(y[train].max()) + 1
    digest = hashlib.sha256(f"steb-reference-probe|{seed}|{name}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    fits = [train_probe(x[train], y[train], x[val], y[val], decay, *_init(x.shape[1], k, rng)) for decay in DECAYS]
    chosen = int(np.argmax([f[0] for f in fits]))
    _, w, b = fits[chosen]
    return {
        "test_accuracy": _accuracy(x[test], y[test], w, b),
        "strength": DECAYS[chosen],
        "validation_accuracy": fits[chosen][0],
        "not_converged": 0,
    }
