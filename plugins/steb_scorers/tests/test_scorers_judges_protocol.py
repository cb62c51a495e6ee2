"""The LLM-judge study's protocol (defaults, AB and rubric, both targets, human labels, caching) and the HTTP
client's safety."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

from steb_scorers.judges import (
    CachedBackend,
    JudgeEndpointError,
    JudgeEndpointTimeout,
    PairwiseStyleJudge,
    StyleDetectionJudge,
    agreement_with_humans,
    human_pairwise_label,
    human_pairwise_majority,
    load_prompts,
    prompts_about,
)
from steb_scorers.judges.backends import HTTPBackend

# -- stub servers on 127.0.0.1 ------------------------------------------------------------------------


class _Server:
    """A tiny HTTP server in a daemon thread; ``handle(handler, body)`` writes the answer."""

    def __init__(self, handle) -> None:
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                outer.requests.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "auth": self.headers.get("Authorization"),
                        "body": json.loads(body) if body else None,
                    }
                )
                handle(self, outer.requests[-1])

            do_POST = do_GET = _any  # http.server API

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _json(handler, payload, status=200):
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def _choices(texts):
    return {"choices": [{"index": i, "message": {"role": "assistant", "content": t}} for i, t in enumerate(texts)]}


@pytest.fixture
def servers():
    made = []

    def make(handle):
        made.append(_Server(handle))
        return made[-1]

    yield make
    for s in made:
        s.close()


# -- issue 20.2: redirects and the whole-request deadline -------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 303, 307])
def test_redirect_to_another_origin_is_refused_and_gets_no_key(servers, monkeypatch, status):
    monkeypatch.setenv("STEB_TEST_JUDGE_KEY", "sk-secret")
    evil = servers(lambda h, r: _json(h, _choices(["yes"] * (r["body"] or {}).get("n", 1))))

    def redirect(h, r):
        h.send_response(status)
        h.send_header("Location", f"{evil.url}/chat/completions")
        h.send_header("Content-Length", "0")
        h.end_headers()

    home = servers(redirect)
    backend = HTTPBackend(home.url, api_key_env="STEB_TEST_JUDGE_KEY", timeout=5)
    with pytest.raises(JudgeEndpointError, match=r"different origin.*refusing") as info:
        backend.complete(["hello"], 1, 0.7, 0, 4)
    assert home.url in str(info.value) and str(evil.port) in str(info.value)
    assert home.requests[0]["auth"] == "Bearer sk-secret"  # the configured endpoint does get the key
    assert evil.requests == []  # the other origin is never contacted, so never sees the key


def test_same_origin_redirect_is_followed_with_post_body(servers):
    def handle(h, r):
        if r["path"] == "/old/chat/completions":
            h.send_response(307)
            h.send_header("Location", "/v1/chat/completions")
            h.send_header("Content-Length", "0")
            h.end_headers()
        else:
            _json(h, _choices(["no"] * r["body"]["n"]))

    server = servers(handle)
    got = HTTPBackend(f"http://127.0.0.1:{server.port}/old", timeout=5).complete(["q"], 2, 0.7, 0, 4)
    assert got == [["no", "no"]]
    assert [r["path"] for r in server.requests] == ["/old/chat/completions", "/v1/chat/completions"]
    assert server.requests[1]["method"] == "POST" and server.requests[1]["body"]["messages"][-1]["content"] == "q"


@pytest.fixture
def drip_server():
    """Accepts connections and sends a valid answer one byte every 0.2 s (about 40 s in all)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    stop = threading.Event()
    body = json.dumps(_choices(["yes"])).encode()
    answer = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )

    def serve():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    conn.recv(65536)
                    for byte in answer:
                        if stop.is_set():
                            break
                        conn.sendall(bytes([byte]))
                        time.sleep(0.2)
                except OSError:
                    pass  # the client gave up: expected

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    listener.close()


def test_timeout_is_a_deadline_for_the_whole_request(drip_server):
    backend = HTTPBackend(drip_server, timeout=1.0)
    started = time.monotonic()
    with pytest.raises(JudgeEndpointTimeout, match="timed out") as info:
        backend.complete(["q"], 1, 0.7, 0, 4)
    elapsed = time.monotonic() - started
    assert elapsed < 4.0, f"a 1 s deadline held for {elapsed:.1f} s"
    assert backend.endpoint in str(info.value)


def test_non_http_url_is_rejected():
    with pytest.raises(ValueError, match="http"):
        HTTPBackend("file:///etc/passwd")


# -- the study's defaults and the two pairwise methods ----------------------------------------------


class ScriptedBackend:
    """Answers from a function of (user text, sample index); records every call."""

    def __init__(self, reply) -> None:
        self.reply, self.calls = reply, []

    def complete(self, prompts, n, temperature, seed, max_tokens):
        self.calls.append((len(prompts), n, seed))
        return [[self.reply(p, k) for k in range(n)] for p in prompts]

    def info(self):
        return {"backend": "scripted"}


def test_defaults_are_the_studys_sampling():
    judge = StyleDetectionJudge(backend=ScriptedBackend(lambda p, k: "yes"))
    assert judge.n_samples == 30 and judge.temperature == 0.7
    pair = PairwiseStyleJudge(backend=ScriptedBackend(lambda p, k: "A"))
    assert (
        pair.n_samples == 30
        and pair.temperature == 0.7
        and pair.method == "ab"
        and pair.prompt.name == "pairwise-ab-style"
    )


def test_four_detection_formats_binarised_and_voted():
    answers = {
        "detect-binary": ["yes", "no", "yes"],
        "detect-probability": ["0.5", "0.49", "0.9"],
        "detect-likert3": ["somewhat present", "not present", "very present"],
        "detect-likert10": ["5", "4", "10"],
    }
    for name, row in answers.items():
        judge = StyleDetectionJudge(prompt=name, n_samples=3, backend=ScriptedBackend(lambda p, k, row=row: row[k]))
        res = judge.score(["s"], ["t"], target_style="formal")
        assert res.scores[0] == pytest.approx(2 / 3), name  # present, absent, present under the notes' thresholds
        assert res.components["majority"][0] == 1.0


def _user(p):
    return p.user if hasattr(p, "user") else p


def test_rubric_mean_over_samples_higher_wins_equal_ties():
    # a scores [7, 9, x] (x unparseable) -> mean 8; b scores [8, 8, 8] -> mean 8: equal means -> tie
    # second pair: a [2, 3, 4] mean 3, b [1, 9, 1] mean 11/3 -> b wins although a wins two of three samples
    script = {"A1": ["7", "9", "none"], "B1": ["8", "8", "8"], "A2": ["2", "3", "4"], "B2": ["1", "9", "1"]}

    def reply(p, k):
        text = re.search(r"Response: (\w+)", _user(p)).group(1)
        return script[text][k]

    judge = PairwiseStyleJudge(method="rubric", n_samples=3, backend=ScriptedBackend(reply))
    assert judge.prompt.name == "rubric-style" and judge.prompt.system
    out = judge.compare(["A1", "A2"], ["B1", "B2"], ["formal"] * 2, ["write a note"] * 2)
    assert out.labels == ["tie", "b"] and out.parse_failures == 1
    assert out.mean_scores == [(8.0, 8.0), (3.0, pytest.approx(11 / 3))]
    assert out.samples == [["b", "a"], ["a", "b", "a"]]


def test_ab_orders_disagreement_is_tie_and_helpfulness_target_uses_its_prompt():
    def reply(p, k):
        user = _user(p)
        a = re.search(r"Response A: (.*)\n", user).group(1)
        if a.startswith("first"):
            return "A"  # position bias: always the first one shown
        return "A" if "good" in a else "B"

    judge = PairwiseStyleJudge(target="helpfulness", n_samples=3, backend=ScriptedBackend(reply))
    assert judge.prompt.name == "pairwise-ab-helpfulness" and judge.prompt.target == "helpfulness"
    assert "style" not in judge.prompt.fields
    out = judge.compare(["good one", "first x"], ["bad one", "first y"], ["formal"] * 2, ["answer the question"] * 2)
    assert out.labels == ["a", "tie"] and out.order_disagreements == 3
    assert out.self_consistency["randolph_kappa"] == pytest.approx(1.0)


def test_system_prompt_is_sent_as_system_turn(servers):
    server = servers(lambda h, r: _json(h, _choices(["A"] * r["body"]["n"])))
    judge = PairwiseStyleJudge(url=server.url, n_samples=1)
    judge.compare(["x"], ["y"], ["formal"], ["say hi"])
    roles = [m["role"] for m in server.requests[0]["body"]["messages"]]
    assert roles == ["system", "user"] and server.requests[0]["body"]["messages"][0]["content"] == judge.prompt.system


def test_human_five_classes_map_to_a_b_tie_and_f1_against_sklearn():
    from sklearn.metrics import f1_score

    assert [
        human_pairwise_label(x) for x in ("A better", "a slightly better", "Tie", "b_slightly_better", "B better")
    ] == ["a", "a", "tie", "b", "b"]
    assert [human_pairwise_label(x) for x in (1, 2, 3, 4, 5, "4")] == ["a", "a", "tie", "b", "b", "b"]
    with pytest.raises(ValueError, match="five classes"):
        human_pairwise_label("much better")
    assert human_pairwise_majority(["a better", "a slightly better", "b better"]) == "a"
    assert human_pairwise_majority(["a better", "b better"]) == "tie"
    gold = ["a", "b", "tie", "a", "b", "a"]
    pred = ["a", "b", "a", "a", "tie", "b"]
    got = agreement_with_humans(pred, gold, labels=["a", "b", "tie"])
    assert got["f1"] == pytest.approx(f1_score(gold, pred, labels=["a", "b", "tie"], average="macro"))
    # by hand: a P=2/3 R=2/3; b P=1/2 R=1/2; tie P=0 R=0 -> macro F1 = (2/3 + 1/2 + 0) / 3
    assert got["f1"] == pytest.approx((2 / 3 + 1 / 2) / 3)


def test_user_prompts_file_replaces_the_defaults(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(
        json.dumps(
            {"mine": {"version": "7", "response": "ab", "system": "Be strict.", "template": "{a} or {b} for {style}?"}}
        )
    )
    judge = PairwiseStyleJudge(
        prompt="mine", prompts_file=str(path), n_samples=1, backend=ScriptedBackend(lambda p, k: "A")
    )
    assert judge.prompt.record()["system"] == "Be strict." and judge.prompt.version == "7"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"x": {"version": "1", "response": "stars", "template": "t"}}))
    with pytest.raises(ValueError, match=r"bad\.json.*'x'.*response"):
        load_prompts(bad)


def test_packaged_prompts_name_the_study_and_say_the_wording_is_stebs(tmp_path):
    """The packaged file cites the study it follows and does not pass its own wording off as the paper's."""
    about = prompts_about()
    assert (
        about["study"]
        == "Evaluating the Evaluators: Investigating LLM Judges for Personalized Writing Style Assessment"
    )
    assert "openreview.net/forum?id=sx5GdUCpkj" in about["where"] and about["wording"].startswith("steb's own")
    prompts = load_prompts()
    assert "_about" not in prompts  # metadata, not a prompt
    expected = {
        "detect-binary": ("detection", None, {"style", "text"}),
        "detect-probability": ("detection", None, {"style", "text"}),
        "detect-likert3": ("detection", None, {"style", "text"}),
        "detect-likert10": ("detection", None, {"style", "text"}),
        "pairwise-ab": ("pairwise-ab", "style", {"style", "a", "b"}),
        "pairwise-ab-style": ("pairwise-ab", "style", {"task", "style", "a", "b"}),
        "pairwise-ab-helpfulness": ("pairwise-ab", "helpfulness", {"task", "a", "b"}),
        "rubric-style": ("rubric", "style", {"task", "style", "response"}),
        "rubric-helpfulness": ("rubric", "helpfulness", {"task", "response"}),
    }
    assert set(prompts) == set(expected)
    for name, (task, target, fields) in expected.items():
        p = prompts[name]
        assert (p.task, p.target, p.fields) == (task, target, fields), name
        assert p.source.startswith("steb's own wording") and "sx5GdUCpkj" in p.source
        assert (p.system is not None) == (task != "detection" and name != "pairwise-ab"), (
            name
        )  # the four pairwise/rubric prompts carry a system turn
    # a user file without metadata has none; one with "_about" keeps it out of the prompts
    path = tmp_path / "mine.json"
    path.write_text(
        json.dumps({"_about": {"study": "mine"}, "mine": {"version": "1", "response": "ab", "template": "{a} {b}"}})
    )
    assert set(load_prompts(path)) == {"mine"} and prompts_about(path) == {"study": "mine"}


# -- resumable judge runs -----------------------------------------------------------------------------


class Crashing(ScriptedBackend):
    def __init__(self, reply, crash_after: int | None) -> None:
        super().__init__(reply)
        self.crash_after = crash_after

    def complete(self, prompts, n, temperature, seed, max_tokens):
        if self.crash_after is not None and len(self.calls) >= self.crash_after:
            raise KeyboardInterrupt("simulated crash")
        return super().complete(prompts, n, temperature, seed, max_tokens)


def test_cache_resumes_after_a_crash_asking_only_for_missing_samples(tmp_path):
    cache = tmp_path / "judge.jsonl"
    reply = lambda p, k: "yes" if "ready" in _user(p) else "no"  # noqa: E731
    texts = [f"text {i} ready" if i % 2 else f"text {i}" for i in range(10)]
    first = Crashing(reply, crash_after=2)
    judge = StyleDetectionJudge(n_samples=4, backend=CachedBackend(first, cache, chunk=3))
    with pytest.raises(KeyboardInterrupt):
        judge.score(["s"] * 10, texts, target_style="formal")
    assert len(cache.read_text().splitlines()) == 2 * 3 * 4  # two chunks of 3 prompts x 4 samples survived
    second = Crashing(reply, crash_after=None)
    resumed = StyleDetectionJudge(n_samples=4, backend=CachedBackend(second, cache, chunk=3)).score(
        ["s"] * 10, texts, target_style="formal"
    )
    assert sum(c[0] for c in second.calls) == 4  # only the 4 prompts never answered
    np.testing.assert_array_equal(resumed.scores, [float(i % 2) for i in range(10)])
    # a third run answers from the cache alone; more samples later asks only for the new indices, with a new seed
    third = Crashing(reply, crash_after=None)
    StyleDetectionJudge(n_samples=4, backend=CachedBackend(third, cache)).score(
        ["s"] * 10, texts, target_style="formal"
    )
    assert third.calls == []
    fourth = Crashing(reply, crash_after=None)
    StyleDetectionJudge(n_samples=6, backend=CachedBackend(fourth, cache)).score(
        ["s"] * 10, texts, target_style="formal"
    )
    assert fourth.calls == [
        (8, 2, 4),
        (2, 2, 4),
    ]  # 10 prompts (chunks of 8) x indices 4, 5; seed 0 + first missing index


def test_cache_ignores_a_torn_last_line_but_rejects_a_corrupt_record(tmp_path):
    cache = tmp_path / "c.jsonl"
    backend = CachedBackend(ScriptedBackend(lambda p, k: "yes"), cache)
    backend.complete(["q"], 2, 0.7, 0, 4)
    with open(cache, "a") as fh:
        fh.write('{"key": "abc", "ind')  # interrupted write
    assert CachedBackend(ScriptedBackend(lambda p, k: "no"), cache).complete(["q"], 2, 0.7, 0, 4) == [["yes", "yes"]]
    cache.write_text('{"key": "abc"}\n')
    with pytest.raises(ValueError, match=r"c\.jsonl, line 1"):
        CachedBackend(ScriptedBackend(lambda p, k: "no"), cache)


def test_cache_over_http_makes_no_second_request(servers, tmp_path):
    server = servers(lambda h, r: _json(h, _choices(["yes"] * r["body"]["n"])))
    cache = str(tmp_path / "http.jsonl")
    for _ in range(2):
        res = StyleDetectionJudge(url=server.url, n_samples=3, cache=cache).score(["s"], ["t"], target_style="formal")
        assert res.scores[0] == 1.0 and res.details["cache"] == cache
    assert len(server.requests) == 1
