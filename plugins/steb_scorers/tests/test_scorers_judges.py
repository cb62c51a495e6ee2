"""LLM judges against a stub OpenAI-compatible server on 127.0.0.1 and a tiny local model."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

from steb_scorers.judges import (
    PairwiseStyleJudge,
    StyleDetectionJudge,
    agreement_with_humans,
    load_prompts,
    randolph_kappa,
)
from steb_scorers.judges.prompts import PARSERS


def detection_reply(prompt: str, k: int) -> str:
    text = re.search(r"Text: (.*)\n", prompt).group(1)
    if "you are" in text:
        return "Yes, it does."
    if "mixed" in text:
        return ["yes", "no", "no"][k % 3]
    return "no" if k % 2 == 0 else "I cannot tell"  # every second sample fails to parse


def pairwise_reply(prompt: str, k: int) -> str:
    a = re.search(r"(?:Text|Response) A: (.*)\n", prompt).group(1)
    b = re.search(r"(?:Text|Response) B: (.*)\n", prompt).group(1)
    if "biased" in a + b:
        return "A"  # position bias: always the first text
    return "A" if "you are" in a else "B" if "you are" in b else "neither"


class StubServer:
    """Answers at most ``max_requests`` chat-completion requests, at most 2 choices each, then stops."""

    def __init__(self, reply, max_requests: int = 200) -> None:
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # http.server API
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, **body})
                prompt = body["messages"][-1]["content"]  # the user turn (a system turn may come first)
                n = min(int(body.get("n", 1)), 2)
                start = sum(len(r.get("_served", [])) for r in outer.requests[:-1] if r["messages"] == body["messages"])
                choices = [
                    {"index": i, "message": {"role": "assistant", "content": reply(prompt, start + i)}}
                    for i in range(n)
                ]
                outer.requests[-1]["_served"] = choices
                data = json.dumps({"choices": choices}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.server.timeout = 10  # handle_request gives up after 10 s idle: the thread always ends
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self._serve, args=(max_requests,), daemon=True)
        self.thread.start()

    def _serve(self, max_requests: int) -> None:
        for _ in range(max_requests):
            self.server.handle_request()
            if getattr(self, "stopping", False):
                break
        self.server.server_close()

    def stop(self) -> None:
        self.stopping = True


@pytest.fixture
def detection_server():
    server = StubServer(detection_reply)
    yield server
    server.stop()


@pytest.fixture
def pairwise_server():
    server = StubServer(pairwise_reply)
    yield server
    server.stop()


def test_parsers_and_failures():
    assert PARSERS["binary"]("Yes.") == 1 and PARSERS["binary"]("no way") == 0 and PARSERS["binary"]("maybe") is None
    assert PARSERS["probability"]("0.7") == 0.7 and PARSERS["probability"]("about 30%") == pytest.approx(0.3)
    assert PARSERS["probability"]("7") is None
    assert PARSERS["likert3"]("Somewhat present") == 1 and PARSERS["likert3"]("it is not present") == 0
    assert PARSERS["likert10"]("I'd say 10") == 10 and PARSERS["likert10"]("0") is None
    assert PARSERS["ab"]("B") == "b" and PARSERS["ab"]("Text A is better") == "a" and PARSERS["ab"]("A or B") is None


def test_prompts_are_versioned_templates():
    prompts = load_prompts()
    assert {"detect-binary", "detect-probability", "detect-likert3", "detect-likert10", "pairwise-ab"} <= set(prompts)
    assert prompts["detect-binary"].fields == {"style", "text"} and prompts["pairwise-ab"].fields == {"style", "a", "b"}
    with pytest.raises(ValueError, match="needs field"):
        prompts["pairwise-ab"].render(style="formal", a="x")
    assert "_about" not in prompts  # the packaged file's metadata (which study, whose wording) is not a prompt
    msg = prompts["pairwise-ab-style"].message(task="t", style="formal", a="x", b="y")
    assert (
        msg.system
        and msg.system.startswith("You are an impartial expert judge of writing style")
        and "Response A: x" in msg.user
    )


def test_detection_over_http_majority_failures_and_consistency(detection_server):
    judge = StyleDetectionJudge(url=detection_server.url, model="stub", n_samples=3, temperature=0.7, seed=1)
    res = judge.score(["s"] * 3, ["you are ready", "u r ready", "mixed bag"], target_style="formal")
    # item 1: yes x3; item 2: no, fail, no; item 3: yes, no, no
    np.testing.assert_allclose(res.scores, [1.0, 0.0, 1 / 3])
    np.testing.assert_array_equal(res.components["majority"], [1.0, 0.0, 0.0])
    assert res.details["parse_failures"] == 1 and res.details["n_queries"] == 9
    assert res.details["prompt"]["name"] == "detect-binary" and res.details["prompt"]["version"] == "1"
    # kappa over the two items whose 3 samples all parsed: counts [0,3] and [2,1]
    table = np.array([[0, 3], [2, 1]])
    p_agree = np.mean([(r * (r - 1)).sum() / (3 * 2) for r in table])
    assert res.details["self_consistency"]["randolph_kappa"] == pytest.approx((p_agree - 0.5) / 0.5)
    assert res.details["self_consistency"]["items_excluded_for_parse_failures"] == 1
    # n=3 with at most 2 choices per answer: two requests per prompt, all on the chat-completions path
    assert len(detection_server.requests) == 6
    assert all(r["path"] == "/v1/chat/completions" and r["model"] == "stub" for r in detection_server.requests)
    assert detection_server.requests[0]["temperature"] == 0.7


def test_pairwise_both_orders_and_position_bias_gives_tie(pairwise_server):
    judge = PairwiseStyleJudge(url=pairwise_server.url, n_samples=2)
    out = judge.compare(
        ["you are ready", "u r ready", "biased one"], ["u r ready", "you are ready", "biased two"], ["formal"] * 3
    )
    assert out.labels == ["a", "b", "tie"]
    assert out.order_disagreements == 2 and out.parse_failures == 0
    assert out.label_frequencies == {"a": 1, "b": 1, "tie": 1}
    res = judge.score(["u r ready"], ["you are ready"], target_style="formal")
    assert res.scores[0] == 1.0 and res.details["against"] == "source"


def test_unparseable_pairwise_is_undecided_not_a_label(pairwise_server):
    out = PairwiseStyleJudge(url=pairwise_server.url, n_samples=1).compare(["x"], ["y"], ["formal"])
    assert out.labels == [None] and out.parse_failures == 2


def test_agreement_with_humans_against_sklearn():
    from sklearn.metrics import cohen_kappa_score, f1_score

    pred, gold = [1, 0, 1, None, 1, 0], [1, 0, 0, 1, 1, 1]
    got = agreement_with_humans(pred, gold)
    keep = [0, 1, 2, 4, 5]
    assert got["undecided"] == 1 and got["accuracy"] == pytest.approx(3 / 5)
    assert got["cohen_kappa"] == pytest.approx(cohen_kappa_score([gold[i] for i in keep], [pred[i] for i in keep]))
    assert got["f1"] == pytest.approx(f1_score([gold[i] for i in keep], [pred[i] for i in keep]))


def test_randolph_kappa_hand_checked():
    # perfect agreement -> 1; uniform split over 2 categories with 2 raters -> P_o = 0 -> kappa = -1
    assert randolph_kappa(np.array([[3, 0], [0, 3]])) == pytest.approx(1.0)
    assert randolph_kappa(np.array([[1, 1], [1, 1]])) == pytest.approx(-1.0)


def test_unreachable_endpoint_is_a_clear_error():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    judge = StyleDetectionJudge(url=f"http://127.0.0.1:{port}", n_samples=1, backend_options={"timeout": 2})
    with pytest.raises(RuntimeError, match="unreachable"):
        judge.score(["s"], ["t"], target_style="formal")


def test_local_backend_with_tiny_model(tiny_lm):
    judge = StyleDetectionJudge(model=str(tiny_lm), n_samples=3, max_tokens=4, seed=0)
    res = judge.score(["s", "t"], ["you are ready", "u r ready"], target_style="formal")
    again = StyleDetectionJudge(model=str(tiny_lm), n_samples=3, max_tokens=4, seed=0).judge(
        ["you are ready", "u r ready"], ["formal"] * 2
    )
    assert len(again["answers"]) == 2 and all(len(a) == 3 for a in again["answers"])
    first = judge.judge(["you are ready", "u r ready"], ["formal"] * 2)
    assert first["answers"] == again["answers"]  # seeded sampling is reproducible
    # a random model answers noise: every answer is either parsed or counted as a failure
    parsed = sum(v is not None for row in first["raw_labels"] for v in row)
    assert parsed + first["parse_failures"] == 6
    assert res.details["backend"] == "local" and res.details["n_queries"] == 6
