"""The vector tasks' heavy kernels in torch, for a device chosen by :mod:`._device` (issue 28 §3).

Each kernel follows the arithmetic of its numpy counterpart, so the numbers are the same rules
computed elsewhere; what may differ is only what a different summation order changes:

- :func:`dense_ranks_torch` (retrieval): keys of float64 cosines on the 2**-20 grid; a float32
  product screens every pair against each query's best-key cell widened by the rigorous bound
  ``screen_margin(d)`` (valid for any summation order, so for a GPU's split-K kernels too, as long
  as the product is real float32: TF32 is switched off, :func:`._device.torch_precision`); pairs in
  the band are recomputed in float64 as ``_rank_count`` does (dot of the upcast rows times the
  float64 inverse norms). Counts equal the numpy path's unless a float64 cosine lies within a few
  ulps of a cell edge (the caveat between any two CPUs, ``_ties``).
- :func:`all_pair_counts_torch` (all-to-all): float64 unit rows, float64 block products, the same
  keys and per-key counts (:class:`._ties.RankCounts`); same caveat.
- :func:`row_cosines_torch` (order alignment and aligned pairs): float64 cosines, equal to numpy's
  within a few ulps.
- :class:`DeviceRows` (probing): the solver's float32 ``X V`` and ``X^T G`` products on the device.

Memory on the device: the inputs (float32), their float64 inverse norms, and one block of scores
(``block_cells``, 2**24 by default: 64 MiB of float32 scores, 128 MiB of float64 ones).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._device import torch_precision
from ._rank_count import screen_margin
from ._ties import N_KEYS, TIE_BITS, RankCounts

__all__ = ["dense_ranks_torch", "all_pair_counts_torch", "row_cosines_torch", "DeviceRows", "BLOCK_CELLS"]

#: scores per block on the device
BLOCK_CELLS = 2**24
#: targets per column block (a query block is then BLOCK_CELLS // this many rows or more)
_MAX_COLS = 65_536
#: rows upcast to float64 at a time (norms, gathered pairs)
_CHUNK_ROWS = 8192


def _torch() -> Any:
    import torch

    return torch


def _inverse_norms(x: Any) -> Any:
    """float64 1 / ||row|| of a device matrix (0 for zero rows), a chunk of rows upcast at a time."""
    torch = _torch()
    out = torch.empty(x.shape[0], dtype=torch.float64, device=x.device)
    for a in range(0, x.shape[0], _CHUNK_ROWS):
        chunk = x[a : a + _CHUNK_ROWS].to(torch.float64)
        out[a : a + _CHUNK_ROWS] = (chunk * chunk).sum(dim=1)
    norms = out.sqrt()
    return torch.where(norms > 0, 1.0 / torch.where(norms > 0, norms, torch.ones_like(norms)), torch.zeros_like(norms))


def _unit32(x: Any, inv: Any) -> Any:
    """Unit rows rounded to float32 (scaled in float64 first, as ``_rank_count.unit_rows_into``)."""
    torch = _torch()
    out = torch.empty(x.shape, dtype=torch.float32, device=x.device)
    for a in range(0, x.shape[0], _CHUNK_ROWS):
        out[a : a + _CHUNK_ROWS] = (x[a : a + _CHUNK_ROWS].to(torch.float64) * inv[a : a + _CHUNK_ROWS, None]).to(
            torch.float32
        )
    return out


def _pair_cosines(x: Any, inv_x: Any, rows: Any, y: Any, inv_y: Any, cols: Any) -> Any:
    """float64 cosines of (x[rows], y[cols]): dot of the upcast rows times the two inverse norms."""
    torch = _torch()
    out = torch.empty(len(rows), dtype=torch.float64, device=x.device)
    for a in range(0, len(rows), _CHUNK_ROWS):
        r, c = rows[a : a + _CHUNK_ROWS], cols[a : a + _CHUNK_ROWS]
        out[a : a + _CHUNK_ROWS] = (x[r].to(torch.float64) * y[c].to(torch.float64)).sum(dim=1) * inv_x[r] * inv_y[c]
    return out


def _keys(scores: Any) -> Any:
    """Grid keys of float64 scores: round half to even, as ``np.rint`` (``_ties.tie_keys``)."""
    torch = _torch()
    return torch.round(scores * float(2**TIE_BITS)).to(torch.int64)


def _f32_up(x: np.ndarray) -> np.ndarray:
    """Smallest float32 >= x, elementwise."""
    f = x.astype(np.float32)
    return np.where(f.astype(np.float64) >= x, f, np.nextafter(f, np.float32(np.inf)))


def _f32_down(x: np.ndarray) -> np.ndarray:
    """Largest float32 <= x, elementwise."""
    f = x.astype(np.float32)
    return np.where(f.astype(np.float64) <= x, f, np.nextafter(f, np.float32(-np.inf)))


def _to_device(matrix: np.ndarray, device: Any) -> Any:
    torch = _torch()
    return torch.as_tensor(np.ascontiguousarray(matrix, dtype=np.float32)).to(device)


def dense_ranks_torch(
    queries: np.ndarray,
    targets: np.ndarray,
    rel_q: np.ndarray,
    rel_t: np.ndarray,
    starts: np.ndarray,
    device: Any,
    *,
    block_cells: int = BLOCK_CELLS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_rank_count.dense_ranks`` on a torch device: per query, irrelevant targets above its best
    relevant key, relevant and irrelevant targets tied with it (module docstring)."""
    torch = _torch()
    nq, d = queries.shape
    nt = targets.shape[0]
    with torch_precision(), torch.inference_mode():
        q, t = _to_device(queries, device), _to_device(targets, device)
        inv_q, inv_t = _inverse_norms(q), _inverse_norms(t)
        q32, t32 = _unit32(q, inv_q), _unit32(t, inv_t)
        rq, rt = torch.as_tensor(rel_q, device=device), torch.as_tensor(rel_t, device=device)
        rel_keys = _keys(_pair_cosines(q, inv_q, rq, t, inv_t, rt))
        best = torch.full((nq,), torch.iinfo(torch.int64).min, dtype=torch.int64, device=device)
        best.scatter_reduce_(0, rq, rel_keys, reduce="amax")
        tied_rel = torch.zeros(nq, dtype=torch.int64, device=device)
        tied_rel.index_add_(0, rq, (rel_keys == best[rq]).to(torch.int64))
        best_np = best.cpu().numpy()
        # the screen's thresholds per query (float32, rounded outwards): s >= hi means key > best,
        # s < lo means key < best, anything between is recomputed in float64
        margin = screen_margin(d, 0.0)
        step = 2.0**-TIE_BITS
        hi_np = _f32_up((best_np + 0.5) * step + margin)
        hi_np = np.nextafter(hi_np, np.float32(np.inf))  # strictly above the cell's upper edge
        lo_np = _f32_down((best_np - 0.5) * step - margin)
        tau_hi, tau_lo = torch.as_tensor(hi_np, device=device), torch.as_tensor(lo_np, device=device)
        above = torch.zeros(nq, dtype=torch.int64, device=device)
        tied_irr = torch.zeros(nq, dtype=torch.int64, device=device)
        cols = max(1, min(nt, _MAX_COLS))
        rows = max(1, min(nq, block_cells // cols))
        for r0 in range(0, nq, rows):
            r1 = min(nq, r0 + rows)
            p0, p1 = int(starts[r0]), int(starts[r1]) if r1 < nq else len(rel_q)
            block_rq, block_rt = rq[p0:p1] - r0, rt[p0:p1]
            for c0 in range(0, nt, cols):
                c1 = min(nt, c0 + cols)
                s = q32[r0:r1] @ t32[c0:c1].T
                inside = (block_rt >= c0) & (block_rt < c1)
                s[block_rq[inside], block_rt[inside] - c0] = float("-inf")  # relevant targets are not counted
                hi = s >= tau_hi[r0:r1, None]
                above[r0:r1] += hi.sum(dim=1)
                band = (s >= tau_lo[r0:r1, None]) & ~hi
                br, bc = band.nonzero(as_tuple=True)
                if len(br) == 0:
                    continue
                keys = _keys(_pair_cosines(q, inv_q, br + r0, t, inv_t, bc + c0))
                b = best[br + r0]
                above.index_add_(0, br[keys > b] + r0, torch.ones_like(br[keys > b]))
                tied_irr.index_add_(0, br[keys == b] + r0, torch.ones_like(br[keys == b]))
        return above.cpu().numpy(), tied_rel.cpu().numpy(), tied_irr.cpu().numpy()


def all_pair_counts_torch(
    vectors: np.ndarray, codes: np.ndarray, device: Any, *, block_cells: int = BLOCK_CELLS
) -> RankCounts:
    """``pair_all.all_pair_counts`` on a torch device: per tie key, same- and different-label pairs i < j."""
    torch = _torch()
    n = vectors.shape[0]
    counts = RankCounts(1.0)
    with torch.inference_mode():
        x = _to_device(vectors, device)
        norms = torch.empty(n, dtype=torch.float64, device=device)
        for a in range(0, n, _CHUNK_ROWS):
            chunk = x[a : a + _CHUNK_ROWS].to(torch.float64)
            norms[a : a + _CHUNK_ROWS] = (chunk * chunk).sum(dim=1).sqrt()
        norms[norms == 0] = 1.0
        unit = x.to(torch.float64) / norms[:, None]  # as _common.unit_rows: zero rows stay zero
        del x
        labels = torch.as_tensor(np.asarray(codes, dtype=np.int64), device=device)
        pos = torch.zeros(N_KEYS, dtype=torch.int64, device=device)
        neg = torch.zeros(N_KEYS, dtype=torch.int64, device=device)
        r0 = 0
        while r0 < n - 1:
            rows = max(1, min(n - r0, block_cells // max(1, n - r0)))
            r1 = r0 + rows
            block = unit[r0:r1] @ unit[r0 + 1 :].T  # row i (global r0 + i) against columns r0 + 1 .. n - 1
            if not bool(torch.isfinite(block).all()):
                raise ValueError("similarity scores contain NaN or infinite values")
            keys = (_keys(block) + 2**TIE_BITS).clamp_(0, N_KEYS - 1)
            same = labels[r0:r1, None] == labels[None, r0 + 1 :]
            keep = torch.arange(n - r0 - 1, device=device)[None, :] >= torch.arange(rows, device=device)[:, None]
            pos += torch.bincount(keys[keep & same], minlength=N_KEYS)
            neg += torch.bincount(keys[keep & ~same], minlength=N_KEYS)
            r0 = r1
        counts.pos += pos.cpu().numpy()
        counts.neg += neg.cpu().numpy()
    return counts


def row_cosines_torch(vectors: np.ndarray, ia: np.ndarray, ib: np.ndarray, device: Any) -> np.ndarray:
    """Cosine of ``vectors[ia[k]]`` and ``vectors[ib[k]]`` in float64 (``_common.row_cosines``)."""
    torch = _torch()
    with torch.inference_mode():
        x = _to_device(vectors, device)
        inv = _inverse_norms(x)
        a = torch.as_tensor(np.asarray(ia, dtype=np.int64), device=device)
        b = torch.as_tensor(np.asarray(ib, dtype=np.int64), device=device)
        return np.asarray(_pair_cosines(x, inv, a, x, inv, b).cpu().numpy())


class DeviceRows:
    """A float32 row matrix held on a torch device, for the probing solver's two products.

    ``x @ V`` (rows x columns) and ``x^T G`` (d x columns) run on the device in float32; the small
    factor goes there and the result comes back as numpy, so the solver's other steps stay as they are.
    """

    def __init__(self, rows: np.ndarray, device: Any):
        self.device = device
        self.shape = rows.shape
        self.tensor = _to_device(rows, device)

    def matmul(self, V: np.ndarray) -> np.ndarray:
        torch = _torch()
        with torch_precision(), torch.inference_mode():
            V_t = torch.as_tensor(np.ascontiguousarray(V, dtype=np.float32)).to(self.device)
            return np.asarray((self.tensor @ V_t).cpu().numpy())

    def t_matmul(self, G: np.ndarray) -> np.ndarray:
        torch = _torch()
        with torch_precision(), torch.inference_mode():
            G_t = torch.as_tensor(np.ascontiguousarray(G, dtype=np.float32)).to(self.device)
            return np.asarray((self.tensor.T @ G_t).cpu().numpy())

    def gram(self) -> np.ndarray:
        """``x^T x`` in float32 (the preconditioner's covariance)."""
        torch = _torch()
        with torch_precision(), torch.inference_mode():
            return np.asarray((self.tensor.T @ self.tensor).cpu().numpy())
