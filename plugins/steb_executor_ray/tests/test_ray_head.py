"""``steb run`` and ``steb run-many`` against a real ``ray start --head`` with token authentication.

Ray 2.59+ clusters started with ``ray start --head`` use token authentication when a token exists,
and a driver connecting to an explicit address sends one only with ``RAY_AUTH_MODE=token``. The
head here is a real one, as a user starts it: its own port on 127.0.0.1, its own temp folder and
token file (``RAY_AUTH_TOKEN_PATH``; nothing in ``~/.ray`` is read or written), ``--block`` so
that the one ``ray start`` process owns the cluster and stopping it by its PID stops every process
of the cluster (never ``ray stop``, which would stop every cluster of the machine). The drivers are
real ``steb`` processes with the environment a user would have.

Checked: without ``RAY_AUTH_MODE=token`` the CLI says in one line what to set (not Ray's bare
``ConnectionError``); with it ``steb run --executor ray`` and ``steb run-many`` work and give the
local executor's scores; afterwards no process of the cluster is left.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray")

from steb_core import evaluate, get_manager, reset_manager

ENCODER = "function-words"
DATASETS = ["demo_formality", "demo_style_features"]
START_SECONDS = 120
#: Ray's own knob for how long a driver keeps retrying the cluster (seconds; 20 by default): the
#: refused-token case then fails in seconds instead of 20 s, with the same error
RAY_CONNECT_BUDGET = {"RAY_gcs_server_port_wait_time_s": "3"}


def _ray_cli() -> str | None:
    beside = Path(sys.executable).with_name("ray")
    return str(beside) if beside.exists() else shutil.which("ray")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without any Ray address or authentication setting, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_AUTH", "RAY_ADDRESS"))}
    env.update(RAY_USAGE_STATS_ENABLED="0", STEB_PLUGINS="", **extra)
    return env


def _processes_mentioning(text: str) -> list[int]:
    """PIDs whose command line mentions ``text`` (the head's unique temp folder: only our cluster's)."""
    out = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text.encode() in cmdline.read_bytes():
                out.append(int(cmdline.parent.name))
        except OSError:
            continue
    return [pid for pid in out if pid != os.getpid()]


class Head:
    """A ``ray start --head --block`` process with token authentication, and how to reach it."""

    def __init__(self, ray: str, root: Path) -> None:
        self.root = root
        self.token = root / "token"
        self.token.write_text(secrets.token_hex(32))
        self.token.chmod(0o600)
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.log = root / "head.log"
        ports = {
            f"--{name}": str(_free_port())
            for name in (
                "dashboard-agent-listen-port",
                "dashboard-agent-grpc-port",
                "runtime-env-agent-port",
                "metrics-export-port",
                "node-manager-port",
                "object-manager-port",
            )
        }
        command = [
            ray,
            "start",
            "--head",
            "--block",
            "--port",
            str(self.port),
            "--node-ip-address",
            "127.0.0.1",
            "--num-cpus",
            "2",
            "--temp-dir",
            str(root / "ray"),
            "--include-dashboard",
            "false",
            "--disable-usage-stats",
            *[x for item in ports.items() for x in item],
        ]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=root,
                env=_clean_env(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(self.token)),
            )

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(
                    f"`ray start --head` exited with {self.process.returncode}:\n{self.log.read_text()[-3000:]}"
                )
            if "Ray runtime started" in self.log.read_text(errors="replace"):
                return
            time.sleep(0.5)
        pytest.fail(f"`ray start --head` not ready after {START_SECONDS} s:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> list[int]:
        """Stop the cluster through its ``ray start`` PID; return the PIDs still alive after 30 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        deadline = time.monotonic() + 30
        while (left := _processes_mentioning(str(self.root))) and time.monotonic() < deadline:
            time.sleep(0.5)
        return left


@pytest.fixture(scope="module")
def head() -> Iterator[Head]:
    ray = _ray_cli()
    if ray is None:
        pytest.skip("the `ray` command is not installed (pip install ray); this test starts a real `ray start --head`")
    root = Path(tempfile.mkdtemp(prefix="steb-rayhead-", dir="/tmp"))  # short: Ray's socket paths must fit 107 bytes
    cluster = Head(ray, root)
    try:
        cluster.wait_ready()
        yield cluster
    finally:
        left = cluster.stop()
        for pid in left:  # processes of *this* cluster only (their command line names its temp folder)
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(root, ignore_errors=True)
        assert not left, f"processes of the Ray head outlived `ray start` (killed now): {left}"


@pytest.fixture(scope="module")
def local_scores(tmp_path_factory) -> dict[tuple[str, str], float]:
    reset_manager()
    if ENCODER not in get_manager().encoders():
        pytest.skip(f"encoder '{ENCODER}' (steb-models-stylometry) is not installed")
    root = tmp_path_factory.mktemp("local")
    summary = evaluate(ENCODER, DATASETS, output=root / "results", cache_dir=root / "cache", progress=False)
    reset_manager()
    assert summary.results and not summary.failures
    return {(r.dataset, r.task): r.main_score for r in summary.all_results}


def _steb(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "steb_core.cli", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )


def _scores(results: Path) -> dict[tuple[str, str], float]:
    out = {}
    for path in results.rglob("*.json"):
        record = json.loads(path.read_text())
        if "main_score" in record:
            out[(record["dataset"], record["task"])] = record["main_score"]
    return out


def test_driver_without_token_is_told_what_to_set(head, tmp_path):
    started = time.monotonic()
    done = _steb(
        "run",
        "-e",
        ENCODER,
        "-d",
        DATASETS[0],
        "--executor",
        "ray",
        "--address",
        head.address,
        "-o",
        str(tmp_path / "results"),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--no-progress",
        env=_clean_env(**RAY_CONNECT_BUDGET),
        cwd=tmp_path,
    )
    assert done.returncode == 2, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    message = " ".join(done.stderr.split())
    assert f"the Ray cluster at {head.address} uses token authentication" in message, message[-2000:]
    assert "RAY_AUTH_MODE=token" in message and "RAY_AUTH_TOKEN_PATH" in message and "unexpected" not in message
    assert not (tmp_path / "results").exists() or not list((tmp_path / "results").rglob("*.json"))
    assert time.monotonic() - started < 120


def test_run_and_run_many_with_token(head, local_scores, tmp_path):
    env = _clean_env(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(head.token))
    args = ["-o", str(tmp_path / "run"), "--cache-dir", str(tmp_path / "cache-run")]
    done = _steb(
        "run",
        "-e",
        ENCODER,
        *[x for d in DATASETS for x in ("-d", d)],
        "--executor",
        "ray",
        "--address",
        head.address,
        "--no-progress",
        *args,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert _scores(tmp_path / "run") == local_scores
    # the cache the workers wrote (through the shared folder) is where the run read its vectors
    assert list((tmp_path / "cache-run").rglob("shard-*.npz"))

    many = ["-o", str(tmp_path / "many"), "--cache-dir", str(tmp_path / "cache-many")]
    done = _steb(
        "run-many",
        "-e",
        ENCODER,
        *[x for d in DATASETS for x in ("-d", d)],
        "--address",
        head.address,
        *many,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    assert _scores(tmp_path / "many") == local_scores
    assert "error" not in done.stdout
