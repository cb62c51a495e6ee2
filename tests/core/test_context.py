"""TaskContext: collection means of sparse rows (TF-IDF) equal dense ones; a task's run options, flat or nested."""

import numpy as np
import scipy.sparse as sp

from steb_core._context import TaskContext


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


def test_task_options_flat_nested_and_default():
    """``<task>.<name>`` wins over ``{task: {name: ...}}``; the task helpers and the device choice read it one way."""
    from steb_core.tasks._common import option
    from steb_core.tasks._device import kernel_device

    options = {"retrieval.rule": "flat", "retrieval": {"rule": "nested", "k": 3}, "tasks": {"device": "numpy"}}
    ctx = TaskContext(dataset=None, bundle=None, data=None, options=options)
    assert ctx.option("retrieval", "rule") == "flat"
    assert ctx.option("retrieval", "k") == 3
    assert ctx.option("retrieval", "missing", "d") == "d"
    assert option(ctx, "retrieval", "k", None) == 3
    no_options = TaskContext(dataset=None, bundle=None, data=None, options=None)  # type: ignore[arg-type]
    assert no_options.option("x", "y", 1) == 1
    assert kernel_device(ctx) is None  # tasks.device=numpy, read through the same rule
