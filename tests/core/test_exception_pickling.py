"""Every exception class of steb (core and installed plugins) survives pickling, message and attributes.

Why: errors travel from worker processes (Ray jobs of ``steb run-many``, multiprocessing) to the
process that reports them. Plain pickling rebuilds an exception as ``cls(*args)``; a class whose
``__init__`` takes other arguments than its formatted message fails to unpickle, and Ray then shows
``UnserializableException: Failed to deserialize exception`` instead of the user's error.

The classes are discovered, not listed: the sources of ``steb_core`` and of every distribution that
registers a ``steb`` entry point are parsed, and every class whose bases lead (within those sources)
to a built-in exception is imported and tested, so a new exception class is covered without editing
this file. Instances are built from the ``__init__`` signature with placeholder values.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import inspect
import pickle
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from steb_core import EncodingError, StebError, UnknownComponentError, retry_may_help
from steb_core._errors import DataValidationError, DuplicateComponentError

_BUILTIN_EXCEPTIONS = {
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
}


def _packages() -> list[str]:
    tops = {"steb_core"}
    for ep in entry_points(group="steb"):
        tops.add(ep.value.split(":")[0].split(".")[0])
    return sorted(tops)


def _source_files(top: str) -> list[tuple[str, Path]]:
    """(module name, file) for every module of a top-level package or module, without importing it."""
    spec = importlib.util.find_spec(top)
    assert spec is not None, top
    if spec.submodule_search_locations:
        out = []
        for root in spec.submodule_search_locations:
            for path in Path(root).rglob("*.py"):
                rel = path.relative_to(root).with_suffix("")
                parts = [p for p in rel.parts if p != "__init__"]
                out.append((".".join([top, *parts]), path))
        return out
    return [(top, Path(spec.origin))] if spec.origin else []


def _base_names(node: ast.ClassDef) -> list[str]:
    names = []
    for base in node.bases:
        if isinstance(base, ast.Name):
            names.append(base.id)
        elif isinstance(base, ast.Attribute):
            names.append(base.attr)
    return names


def discover_exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined at module level in steb's sources, by qualified name."""
    classes: dict[str, tuple[str, list[str]]] = {}  # qualified name -> (module, base names)
    for top in _packages():
        for module, path in _source_files(top):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    classes[f"{module}.{node.name}"] = (module, _base_names(node))
    exception_names = set(_BUILTIN_EXCEPTIONS)
    changed = True
    while changed:  # a class is an exception when a base is one (by simple name, to a fixed point)
        changed = False
        for qualified, (_, bases) in classes.items():
            simple = qualified.rsplit(".", 1)[1]
            if simple not in exception_names and any(b in exception_names for b in bases):
                exception_names.add(simple)
                changed = True
    out: dict[str, type[BaseException]] = {}
    for qualified, (module, _) in classes.items():
        simple = qualified.rsplit(".", 1)[1]
        if simple in exception_names and simple not in _BUILTIN_EXCEPTIONS:
            cls = getattr(importlib.import_module(module), simple)
            if isinstance(cls, type) and issubclass(cls, BaseException):
                out[qualified] = cls
    return out


CLASSES = discover_exception_classes()


def _placeholder(param: inspect.Parameter, i: int) -> Any:
    text = str(param.annotation)
    if any(word in text for word in ("list", "Sequence", "Iterable", "tuple")):
        return [f"item{i}a", f"item{i}b"]
    if "int" in text and "str" not in text:
        return i + 3
    return f"value{i}"


def make_instance(cls: type[BaseException]) -> BaseException:
    """An instance built from the signature: placeholders for required parameters, a message otherwise."""
    try:
        signature = inspect.signature(cls.__init__)
    except (TypeError, ValueError):
        return cls("a message")
    params = [p for name, p in signature.parameters.items() if name != "self"]
    if all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return cls("a message")
    args, kwargs = [], {}
    for i, p in enumerate(params):
        if p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.kind is p.KEYWORD_ONLY:
            kwargs[p.name] = _placeholder(p, i)
        else:
            args.append(_placeholder(p, i))
    if not args and not kwargs:
        args = ["a message"]
    return cls(*args, **kwargs)


def _same(a: BaseException, b: BaseException) -> None:
    assert type(b) is type(a)
    assert str(b) == str(a)
    assert b.args == a.args
    assert vars(b) == vars(a)


def test_discovery_finds_the_known_classes():
    """The discovery is what makes the round trip cover new classes: it must see classes across packages
    and through indirect bases (UnknownComponentError <- StebError <- Exception)."""
    names = {q.rsplit(".", 1)[1] for q in CLASSES}
    assert {
        "StebError",
        "UnknownComponentError",
        "DuplicateComponentError",
        "DataValidationError",
        "EncodingError",
        "EncoderOutputError",
        "ShardError",
    } <= names
    assert all(issubclass(c, BaseException) for c in CLASSES.values())


@pytest.mark.parametrize("qualified", sorted(CLASSES))
def test_exception_survives_pickling(qualified):
    exc = make_instance(CLASSES[qualified])
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        _same(exc, pickle.loads(pickle.dumps(exc, protocol=protocol)))  # noqa: S301 - round-trip of our own object
    cloudpickle = pytest.importorskip("cloudpickle")  # what Ray serialises exceptions with
    _same(exc, cloudpickle.loads(cloudpickle.dumps(exc)))


def test_rich_errors_keep_message_and_fields_through_pickling():
    """The two classes behind the run-many report: their message (with "did you mean") and fields arrive intact."""
    unknown = UnknownComponentError("encoder", "lftk", ["lftk-features", "function-words"], ["plugin x failed"])
    back = pickle.loads(pickle.dumps(unknown))  # noqa: S301 - round-trips of our own objects, here and below
    assert str(back) == str(unknown) and "did you mean 'lftk-features'" in str(back) and "plugin x failed" in str(back)
    assert (back.kind, back.name) == ("encoder", "lftk") and isinstance(back, KeyError)
    dup = pickle.loads(pickle.dumps(DuplicateComponentError("dataset", "d", "plug-a", "plug-b")))  # noqa: S301
    assert (dup.first, dup.second) == ("plug-a", "plug-b") and "'plug-a' and 'plug-b'" in str(dup)
    data = DataValidationError("not a number", path="x.jsonl", record=7, field="label", expected="an int")
    back = pickle.loads(pickle.dumps(data))  # noqa: S301
    assert str(back) == "file x.jsonl, record 7, field 'label': not a number (expected an int)"
    assert back.located(path="other").path == "x.jsonl"  # methods still work on the rebuilt object
    enc = pickle.loads(pickle.dumps(EncodingError("batch 1 failed", ["t1", "t2"])))  # noqa: S301
    assert enc.texts == ["t1", "t2"]


def _raised_from(error: BaseException, cause: BaseException) -> BaseException:
    try:
        raise error from cause
    except BaseException as exc:  # noqa: BLE001 - the point is to keep the chain
        return exc


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (UnknownComponentError("encoder", "lftk", ["function-words"]), False),
        (DataValidationError("bad", field="x"), False),
        (StebError("bad option"), False),
        (ValueError("bad value"), False),
        (KeyError("k"), False),
        (TypeError("t"), False),
        (FileNotFoundError("f"), False),
        (RuntimeError("CUDA out of memory"), True),
        (ConnectionError("lost"), True),
        (TimeoutError(), True),
        (MemoryError(), True),
        (OSError("disk"), True),
        (_raised_from(EncodingError("m"), RuntimeError("oom")), True),
        (_raised_from(EncodingError("m"), ValueError("NaN in output")), False),
        (EncodingError("no cause"), True),
        (_raised_from(StebError("m"), RuntimeError("x")), False),  # a deliberate error is final whatever its cause
    ],
)
def test_retry_may_help(error, expected):
    assert retry_may_help(error) is expected
