"""TaskContext.embed_collections averages sparse rows (TF-IDF) exactly as it averages dense ones."""

import numpy as np
import scipy.sparse as sp

from steb_core.context import TaskContext


def test_collection_means_of_sparse_rows_equal_dense():
    x = np.random.default_rng(0).random((5, 4)).astype(np.float32)
    row = {f"t{i}": i for i in range(5)}
    dense = TaskContext(dataset=None, bundle=None, data=None, embed_fn=lambda b: x[[row[t] for t in b]])
    sparse = TaskContext(dataset=None, bundle=None, data=None, embed_fn=lambda b: sp.csr_matrix(x[[row[t] for t in b]]))
    collections = [["t0", "t1"], ["t2"], ["t3", "t4", "t0"]]
    expected = np.stack([x[[0, 1]].mean(0), x[2], x[[3, 4, 0]].mean(0)])
    got = sparse.embed_collections(collections)
    assert sp.issparse(got)
    np.testing.assert_allclose(got.toarray(), expected, rtol=1e-6)
    np.testing.assert_allclose(dense.embed_collections(collections), expected, rtol=1e-6)
