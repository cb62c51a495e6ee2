"""Cost model of a full STEB run, measured on synthetic data with STEB's exact sizes (issue 17 section 7).

Sub-commands (each appends one JSON line per measurement to ``WORK/measurements.jsonl`` and prints it):

``run``      one ``steb run --plugin bench/full_steb/synthetic_steb.py --suite synthetic-steb`` in a
             child process: wall time, the driver's peak RSS (``/usr/bin/time -v`` when present, else
             ``getrusage(RUSAGE_CHILDREN)``), the peak of the summed RSS of the whole process tree
             (sampled from /proc every 0.2 s: what matters with ``--executor ray``, whose workers are
             separate processes), CPU time and the load average before and after.
``tasks``    the same per task type (``--task``), against one shared warm cache by default, so each
             row is the task's own load + scoring cost (plus encoding when the cache is cold).
``pipeline`` the same ``steb run`` cold with ``--prefetch 0`` (sequential) and ``--prefetch N`` (default steb's own, 4),
             alternating, so both rows see the same load; and whether their results are equal (issue 28 §1).
``minilm``   all-MiniLM-L6-v2 throughput (texts/s, tokens/s) on synthetic texts of the benchmark's
             lengths, through steb's chunk-and-pool path; and the token count of a full STEB run.

Examples (the README's tables)::

    .venv/bin/python bench/full_steb/bench_full_steb.py run --scale 1 --encoder function-words --work /tmp/fs --label
    after
    .venv/bin/python bench/full_steb/bench_full_steb.py run --scale 1 --encoder function-words --max-memory 1T --work
    /tmp/fs --label before
    .venv/bin/python bench/full_steb/bench_full_steb.py tasks --scale 1 --encoder function-words --work /tmp/fs
    .venv/bin/python bench/full_steb/bench_full_steb.py run --scale 0.02 --encoder random-projection-4096 --executor ray
    --work /tmp/fs
    .venv/bin/python bench/full_steb/bench_full_steb.py minilm --n 300
    .venv/bin/python bench/full_steb/bench_full_steb.py pipeline --scale 1 --encoder function-words --work /tmp/fs
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLUGIN = HERE / "synthetic_steb.py"
STEB = str(Path(sys.executable).with_name("steb"))
TASKS = ("clustering", "pair_all", "pair_predefined", "order_alignment", "retrieval", "probing")
#: installed plugins a synthetic run does not use (they only cost start-up time)
UNUSED = "pan,parallel,neural,datasets_style,scorers,stel,example_datasets"
#: encoders of the neural plugin the bench runs (the plugin stays enabled for them)
NEURAL_ENCODERS = ("all-MiniLM-L6-v2",)


def _rss_tree_kib(root: int) -> int:
    """Summed VmRSS (KiB) of ``root`` and every descendant process, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/status") as handle:
                m = re.search(r"VmRSS:\s+(\d+)", handle.read())
        except (OSError, ValueError, IndexError):
            continue
        pid = int(entry)
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(m.group(1)) if m else 0
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total


def _pss_tree_kib(root: int) -> int:
    """Summed Pss (KiB) of ``root`` and its descendants: shared pages split between the processes that map
    them, so a forked prefetch child's copy-on-write pages are not counted twice (RSS counts them twice)."""
    total = 0
    for pid in _tree(root):
        try:
            with open(f"/proc/{pid}/smaps_rollup") as handle:
                m = re.search(r"^Pss:\s+(\d+)", handle.read(), re.M)
        except OSError:
            continue
        total += int(m.group(1)) if m else 0
    return total


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, stack = [], [root]
    while stack:
        pid = stack.pop()
        out.append(pid)
        stack.extend(children.get(pid, ()))
    return out


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def measure(cmd: list[str], env: dict[str, str], log: Path) -> dict:
    """Run ``cmd``; wall time, peak RSS of the driver and of the process tree, CPU time."""
    use_time = Path("/usr/bin/time").exists()
    full = (["/usr/bin/time", "-v"] if use_time else []) + cmd
    peak_tree = 0
    peak_pss = 0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load0 = _load()
    t0 = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(full, stdout=out, stderr=subprocess.STDOUT, env=env)
        stop = threading.Event()

        def sample() -> None:
            nonlocal peak_tree, peak_pss
            while not stop.is_set():
                peak_tree = max(peak_tree, _rss_tree_kib(proc.pid))
                peak_pss = max(peak_pss, _pss_tree_kib(proc.pid))
                stop.wait(0.2)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        code = proc.wait()
        stop.set()
        sampler.join()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    text = log.read_text(errors="replace")
    driver_kib = after.ru_maxrss
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    if m:
        driver_kib = int(m.group(1))
    summary = re.search(
        r"(\d+) new, (\d+) reused, (\d+) skipped, (\d+) failed; texts: (\d+) distinct, (\d+) encoded, (\d+) from "
        r"cache; ([\d.]+) s",
        text,
    )
    return {
        "exit": code,
        "wall_s": round(wall, 1),
        "peak_rss_driver_mib": round(driver_kib / 1024),
        "peak_rss_tree_mib": round(peak_tree / 1024),
        "peak_pss_tree_mib": round(peak_pss / 1024),
        "cpu_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 1),
        "load_before": load0,
        "load_after": _load(),
        **(
            {
                k: int(v)
                for k, v in zip(
                    ("new", "reused", "skipped", "failed", "distinct", "encoded", "cache_hits"), summary.groups()[:7]
                )
            }
            if summary
            else {"summary": "not found (see log)"}
        ),
    }


def steb_cmd(args: argparse.Namespace, out: Path, cache: Path, task: str | None = None) -> list[str]:
    selection = [x for d in args.dataset for x in ("--dataset", d)] if args.dataset else ["--suite", "synthetic-steb"]
    cmd = [
        STEB,
        "run",
        "--plugin",
        str(PLUGIN),
        *selection,
        "--encoder",
        args.encoder,
        "--dataset-option",
        f"scale={args.scale}",
        "--output",
        str(out),
        "--cache-dir",
        str(cache),
        "--no-progress",
    ]
    if task:
        cmd += ["--task", task]
    if args.max_memory:
        cmd += ["--max-memory", args.max_memory]
    if args.executor != "local":
        cmd += ["--executor", args.executor]
    for option in args.option or ():
        cmd += ["-O", option]
    for option in getattr(args, "executor_option", None) or ():
        cmd += ["-X", option]
    if getattr(args, "prefetch", None) is not None:
        cmd += ["--prefetch", str(args.prefetch)]
    if getattr(args, "prefetch_mode", None):
        cmd += ["--prefetch-mode", args.prefetch_mode]
    if getattr(args, "threads", None):
        cmd += ["--threads", str(args.threads)]
    return cmd


def env_for(args: argparse.Namespace) -> dict[str, str]:
    env = dict(os.environ)
    unused = [name for name in UNUSED.split(",") if not (name == "neural" and args.encoder in NEURAL_ENCODERS)]
    env["STEB_DISABLE_PLUGINS"] = ",".join(unused) + ("" if args.executor == "ray" else ",ray")
    return env


def record(work: Path, row: dict) -> None:
    row = {"utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "host_cpus": os.cpu_count(), **row}
    with open(work / "measurements.jsonl", "a") as handle:
        handle.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def cmd_run(args: argparse.Namespace) -> None:
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    label = args.label or f"{args.encoder}-{args.scale}-{args.executor}-{args.max_memory or 'default'}"
    out, cache = work / f"R-{label}", Path(args.cache) if args.cache else work / f"C-{label}"
    if not args.keep:
        shutil.rmtree(out, ignore_errors=True)
        if not args.cache:
            shutil.rmtree(cache, ignore_errors=True)
    cmd = steb_cmd(args, out, cache)
    row = measure(cmd, env_for(args), work / f"{label}.log")
    record(
        work,
        {
            "label": label,
            "encoder": args.encoder,
            "scale": args.scale,
            "executor": args.executor,
            "max_memory": args.max_memory,
            "cache": str(cache),
            "cmd": " ".join(cmd),
            **row,
        },
    )


def cmd_tasks(args: argparse.Namespace) -> None:
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    cache = Path(args.cache) if args.cache else work / f"C-tasks-{args.encoder}-{args.scale}"
    for task in args.task or TASKS:
        out = work / f"R-task-{task}-{args.encoder}-{args.scale}"
        shutil.rmtree(out, ignore_errors=True)
        cmd = steb_cmd(args, out, cache, task)
        row = measure(cmd, env_for(args), work / f"task-{task}.log")
        results = sorted(out.rglob("*.json"))
        timings = [json.loads(p.read_text())["timings"] for p in results]
        record(
            work,
            {
                "label": f"task:{task}",
                "encoder": args.encoder,
                "scale": args.scale,
                "executor": args.executor,
                "cache": str(cache),
                "load_s_sum": round(sum(t["load_s"] for t in timings), 1),
                "task_s_sum": round(sum(t["task_s"] for t in timings), 1),
                "cmd": " ".join(cmd),
                **row,
            },
        )


def cmd_pipeline(args: argparse.Namespace) -> None:
    """Sequential (``--prefetch 0``) against prefetched (``--prefetch N``) runs of the same command, cold
    (each run gets a fresh cache and output), alternating ``--repeat`` times, so both see the same load;
    then checks that the two runs' result files hold the same numbers (every field but timings)."""
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    depth = args.prefetch if args.prefetch is not None else 4  # steb run's default
    for rep in range(args.repeat):
        outs = {}
        pair = [("sequential", 0), (f"prefetch{depth}", depth)]
        if (rep + args.prefetched_first) % 2:  # alternate which goes first, so a load trend favours neither
            pair.reverse()
        for label, prefetch in pair:
            tag = f"pipe-{label}-{args.encoder}-{args.scale}-r{rep}"
            out, cache = work / f"R-{tag}", work / f"C-{tag}"
            shutil.rmtree(out, ignore_errors=True)
            shutil.rmtree(cache, ignore_errors=True)
            run_args = argparse.Namespace(**{**vars(args), "prefetch": prefetch})
            cmd = steb_cmd(run_args, out, cache)
            row = measure(cmd, env_for(args), work / f"{tag}.log")
            record(
                work,
                {
                    "label": tag,
                    "encoder": args.encoder,
                    "scale": args.scale,
                    "prefetch": prefetch,
                    "prefetch_mode": args.prefetch_mode or "auto",
                    "cmd": " ".join(cmd),
                    **row,
                },
            )
            outs[label] = out
            record(work, {"label": f"{tag}-phases", **_phases(out)})
            if not args.keep:
                shutil.rmtree(cache, ignore_errors=True)
        a, b = (_numbers(outs[label]) for label, _ in sorted(pair, key=lambda item: item[1]))
        same = a == b and bool(a)
        differ = sorted(
            f"{rel}: {', '.join(k for k in a[rel] if a[rel][k] != b.get(rel, {}).get(k))}"
            for rel in a
            if a[rel] != b.get(rel)
        )
        record(
            work, {"label": f"pipe-check-r{rep}", "results": len(a), "same_records_but_timings": same, "differ": differ}
        )
        if not args.keep:
            for out in outs.values():
                shutil.rmtree(out, ignore_errors=True)


def _phases(out: Path) -> dict[str, float]:
    """Where a run's time went, from its result files: loading (per dataset, in whichever process loaded
    it), encoding (the runner's cumulative ``encode_s`` at its last record) and scoring (per task)."""
    load: dict[str, float] = {}
    encode = task = 0.0
    for path in out.rglob("*.json"):
        if path.name.startswith("."):
            continue
        data = json.loads(path.read_text())
        timings = data.get("timings") or {}
        load[data.get("dataset", str(path.parent))] = float(timings.get("load_s", 0.0))
        encode = max(encode, float(timings.get("encode_s", 0.0)))
        task += float(timings.get("task_s", 0.0))
    return {"load_s": round(sum(load.values()), 1), "encode_s": round(encode, 1), "task_s": round(task, 1)}


def _numbers(out: Path) -> dict[str, dict]:
    """Every result file's fields but the timings, the write time and the hash covering them."""
    found = {}
    for path in sorted(out.rglob("*.json")):
        if not path.name.startswith("."):
            data = json.loads(path.read_text())
            found[str(path.relative_to(out))] = {
                k: v for k, v in data.items() if k not in ("timings", "created", "content_hash")
            }
    return found


def cmd_minilm(args: argparse.Namespace) -> None:
    import numpy as np

    sys.path.insert(0, str(HERE))
    import synthetic_steb as syn

    from steb_core._longtext import LongTextProtocol
    from steb_core._plugins import get_manager

    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    manager = get_manager()
    encoder = manager.encoders().get("all-MiniLM-L6-v2").factory(**({"device": args.device} if args.device else {}))
    rng = np.random.default_rng(0)
    writer = syn._Writer("minilm-bench", "style", 0)
    texts, parts = writer.texts(rng, args.n)  # 20-300 words, as the synthetic benchmark's texts
    words = int(sum(len(p) for p in parts))
    tokens = int(np.sum(encoder.count_tokens(texts)))
    english = [
        " ".join(np.asarray(syn.FUNCTION_WORDS)[rng.integers(0, len(syn.FUNCTION_WORDS), size=len(p))].tolist()) + "."
        for p in parts
    ]
    tokens_english_fw = int(np.sum(encoder.count_tokens(english)))
    proto = LongTextProtocol("chunk-and-pool", getattr(encoder, "max_length", None))
    encoder.encode_with_protocol(texts[:16], proto)  # warm-up
    t0, c0 = time.perf_counter(), time.process_time()
    vectors = encoder.encode_with_protocol(texts, proto)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    import torch

    record(
        Path(args.work),
        {
            "label": "minilm-throughput",
            "n_texts": len(texts),
            "words": words,
            "tokens": tokens,
            "tokens_per_word_synthetic": round(tokens / words, 3),
            "tokens_per_word_function_words_only": round(tokens_english_fw / words, 3),
            "seconds": round(seconds, 2),
            "cpu_seconds": round(cpu, 2),
            "texts_per_s": round(len(texts) / seconds, 1),
            "tokens_per_s": round(tokens / seconds),
            "tokens_per_cpu_s": round(tokens / cpu),
            "dim": int(vectors.shape[1]),
            "torch_threads": torch.get_num_threads(),
            "device": args.device or "default",
            "load": _load(),
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("run", "tasks", "pipeline"):
        p = sub.add_parser(name)
        p.add_argument("--scale", type=float, default=1.0, help="fraction of STEB's sizes (1 = Table 15)")
        p.add_argument("--encoder", default="function-words")
        p.add_argument("--executor", default="local")
        p.add_argument("--max-memory", default=None, help="e.g. 1T: one group holding every dataset (the old runner)")
        p.add_argument("--work", default="/tmp/steb-full-bench")
        p.add_argument("--label", default=None)
        p.add_argument("--keep", action="store_true", help="keep results/cache from an earlier run (resume)")
        p.add_argument("--dataset", action="append", help="only these synthetic datasets (default: the whole suite)")
        p.add_argument("-O", "--option", action="append", help="encoder option key=value (repeatable)")
        p.add_argument("-X", "--executor-option", action="append", help="executor option, e.g. num_workers=1")
        p.add_argument("--cache", default=None, help="cache folder to share (warm: no encoding); never deleted")
        p.add_argument("--prefetch", type=int, default=None, help="steb run --prefetch N (default: steb's own, 4)")
        p.add_argument("--prefetch-mode", default=None, help="steb run --prefetch-mode auto|process|thread")
        p.add_argument(
            "--threads",
            type=int,
            default=None,
            help="steb run --threads N (default: chosen per task; probing's numbers depend on it, see README §1b)",
        )
        if name == "tasks":
            p.add_argument("--task", action="append", help="only these task types (repeatable)")
        if name == "pipeline":
            p.add_argument("--repeat", type=int, default=1, help="sequential/prefetched pairs to run, alternating")
            p.add_argument(
                "--prefetched-first",
                type=int,
                choices=(0, 1),
                default=0,
                help="1: the first pair runs the prefetched run first (later pairs alternate)",
            )
    p = sub.add_parser("minilm")
    p.add_argument("--n", type=int, default=300)
    p.add_argument("--device", default=None)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--work", default="/tmp/steb-full-bench")
    args = parser.parse_args()
    Path(args.work).mkdir(parents=True, exist_ok=True)
    {"run": cmd_run, "tasks": cmd_tasks, "pipeline": cmd_pipeline, "minilm": cmd_minilm}[args.command](args)


if __name__ == "__main__":
    main()
