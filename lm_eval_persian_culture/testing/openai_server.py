"""A scriptable OpenAI-compatible HTTP server (stdlib only) for tests and benchmarks.

Lets the judge, and lm-eval's own API models, be exercised over real HTTP with the real
``openai`` client: scripted answers, injected latency, and injected faults for the first k matching
attempts (``fail_next``) or, seeded, for a share of all attempts (``fault_rate``). Fault kinds
(``FAULT_KINDS``): an HTTP error status (429 with ``Retry-After``, ``429-bare`` without it, 5xx, ...),
``hang`` (no answer past the client timeout), ``drop`` (connection closed unanswered), ``malformed``
(HTTP 200 whose JSON body is cut off), ``html`` (HTTP 200, an HTML page, as a misconfigured proxy
sends), ``empty_choices`` (a completion with ``choices: []``), ``empty_content`` (a choice whose
content is empty) and ``nonverdict`` (a well-formed answer that is no verdict: ``nonverdict_text``).

    with FakeOpenAIServer(answer=lambda prompt, body: "Yes", latency_s=0.01) as server:
        server.fail_next(1, kind="429", match="scenario 7")
        client = openai.OpenAI(base_url=server.base_url, api_key="EMPTY")

    # 20% of attempts fail, the kind drawn among all of them; the same for a given seed whatever
    # the order requests arrive in (drawn from the seed, the prompt and its attempt number)
    FakeOpenAIServer(answer=..., fault_rate=0.2, fault_kinds=FAULT_KINDS, seed=7)

``kill()`` stops it as a killed process stops: the port refuses connections and open ones are reset.

``slots=1`` imitates a small local server (llama.cpp's default ``--parallel 1``): one request is
answered at a time, taking ``latency_s`` each, and the others wait in a queue; a request whose
client hangs up (a client timeout) while it waits or is being answered is dropped, as llama.cpp and
vLLM cancel it, unless ``finish_abandoned=True`` (a server that does the work anyway).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import select
import socket
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

AnswerFn = Callable[[str, dict], str]


def _always_yes(prompt: str, body: dict) -> str:
    return "Yes"


def _words(text: str) -> int:
    return len(text.split())


def _text(content: Any) -> str:
    """Message content as text; the list-of-parts form keeps only its text parts."""
    if isinstance(content, list):
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


# Faults that are not an HTTP error status; "429-bare" is a 429 sent without Retry-After.
_BODY_FAULTS = ("malformed", "html", "empty_choices", "empty_content", "nonverdict")
_SPECIAL_FAULTS = ("hang", "drop", "429-bare", *_BODY_FAULTS)

FAULT_KINDS = ("429", "429-bare", "500", "503", "hang", "drop", "malformed", "empty_choices", "nonverdict")
"""Every kind a judge must ride out, as the reliability tests mix them (``html`` and
``empty_content`` exist too)."""


def _check_kind(kind: str | int) -> str:
    kind = str(kind)
    if kind not in _SPECIAL_FAULTS and not (kind.isdigit() and 400 <= int(kind) <= 599):
        raise ValueError(
            f"unknown fault kind {kind!r}: use an HTTP error status or one of {', '.join(_SPECIAL_FAULTS)}"
        )
    return kind


@dataclass
class _Fault:
    kind: str  # an HTTP status ("429", "500", ...) or one of _SPECIAL_FAULTS
    remaining: int
    match: str | None
    retry_after: float | None
    hang_s: float


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512  # the default backlog of 5 drops SYNs under a burst of concurrent clients
    fake: FakeOpenAIServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up mid-request (timeouts, injected drops) is expected here.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
    disable_nagle_algorithm = True  # else headers and body, written apart, wait ~40 ms on delayed ACKs
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests and benchmarks fire thousands of requests."""

    def setup(self) -> None:
        super().setup()
        with self.server.fake._lock:
            self.server.fake._connections.add(self.connection)

    def finish(self) -> None:
        with self.server.fake._lock:
            self.server.fake._connections.discard(self.connection)
        super().finish()

    def _send_json(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def do_GET(self) -> None:
        fake = self.server.fake
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/models"):
            fake._count("model_list_requests")
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in fake.models]
            self._send_json(200, {"object": "list", "data": data})
        elif path.endswith("/health"):
            self._send_json(200, {"status": "ok"})
        else:
            self._send_json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if len(raw) < length:
            # The client went away before its body was sent (killed mid-request): nothing was
            # asked, so nothing is recorded, as a real server never sees such a request.
            self.close_connection = True
            return
        path = self.path.split("?")[0].rstrip("/")
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send_json(400, {"error": {"message": "invalid JSON body", "type": "invalid_request_error"}})
            return
        if path.endswith("/chat/completions"):
            user = [_text(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user"]
            prompts = [user[-1] if user else ""]
            prompt_words = sum(_words(_text(m.get("content"))) for m in body.get("messages", []))
        elif path.endswith("/completions"):
            prompt = body.get("prompt", "")
            prompts = [str(p) for p in prompt] if isinstance(prompt, list) else [str(prompt)]
            prompt_words = sum(_words(p) for p in prompts)
        else:
            self._send_json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
            return

        fault = fake._record(body, self.headers.get("Authorization"), prompts)
        if fault is not None and fault.kind not in _BODY_FAULTS:
            self._inject(fault)
            return
        if fake.slots is not None:
            if not self._serve_in_slot(fake):
                return
        elif fake.latency_s > 0:
            with fake._lock:
                fake._in_flight += 1
                fake.max_in_flight = max(fake.max_in_flight, fake._in_flight)
            fake._closing.wait(fake.latency_s)
            with fake._lock:
                fake._in_flight -= 1
        if fault is not None and fault.kind in ("malformed", "html"):
            self._send_garbage(fault.kind)
            return
        try:
            if fault is not None and fault.kind in ("nonverdict", "empty_content"):
                answers = [fake.nonverdict_text if fault.kind == "nonverdict" else "" for _ in prompts]
            else:
                answers = [fake.answer(p, body) for p in prompts]
        except Exception as err:  # a broken answer script should surface in the test, not hang it
            self._send_json(500, {"error": {"message": f"answer function failed: {err!r}", "type": "server_error"}})
            return

        completion_words = sum(_words(a) for a in answers)
        if path.endswith("/chat/completions"):
            obj = "chat.completion"
            choices = [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": answers[0]},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ]
        else:
            obj = "text_completion"
            choices = [
                {"index": i, "text": a, "finish_reason": "stop", "logprobs": None} for i, a in enumerate(answers)
            ]
        if fault is not None and fault.kind == "empty_choices":
            choices = []
        self._send_json(
            200,
            {
                "id": f"fake-{uuid.uuid4().hex[:12]}",
                "object": obj,
                "created": int(time.time()),
                "model": fake.reported_model or body.get("model") or fake.models[0],
                "choices": choices,
                "usage": {
                    "prompt_tokens": prompt_words,
                    "completion_tokens": completion_words,
                    "total_tokens": prompt_words + completion_words,
                },
            },
        )

    def _client_gone(self) -> bool:
        """True when the client has closed the connection (a timeout on its side)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def _serve_in_slot(self, fake: FakeOpenAIServer) -> bool:
        """Queue for one of the server's slots, then spend latency_s in it; False if the client left."""
        with fake._lock:
            fake._queued += 1
            fake.max_queued = max(fake.max_queued, fake._queued)
        try:
            while not fake._slot_sem.acquire(timeout=0.01):
                if fake._closing.is_set() or (not fake.finish_abandoned and self._client_gone()):
                    fake._count("abandoned")
                    return False
        finally:
            with fake._lock:
                fake._queued -= 1
        try:
            deadline = time.monotonic() + fake.latency_s
            while (left := deadline - time.monotonic()) > 0:
                if fake._closing.wait(min(left, 0.01)):
                    return False
                if not fake.finish_abandoned and self._client_gone():
                    fake._count("abandoned")
                    return False
            if self._client_gone():
                fake._count("abandoned")  # the work was done, but nobody was there to read it
                return False
            fake._count("served")
            return True
        finally:
            fake._slot_sem.release()

    def _send_garbage(self, kind: str) -> None:
        """HTTP 200 with a body that is no completion: JSON cut off mid-way, or a proxy's HTML page."""
        if kind == "malformed":
            data, content_type = (
                b'{"id": "fake-cut", "object": "chat.completion", "choices": [{"index": 0, "mess',
                "application/json",
            )
        else:
            data, content_type = b"<html><body><h1>Welcome to nginx!</h1></body></html>", "text/html"
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _inject(self, fault: _Fault) -> None:
        if fault.kind == "drop":
            self._drop()
        elif fault.kind == "hang":
            self.server.fake._closing.wait(fault.hang_s)
            self._drop()
        else:
            status = int(fault.kind.removesuffix("-bare"))
            bare = fault.retry_after is None or fault.kind.endswith("-bare")
            headers = {} if bare else {"Retry-After": f"{fault.retry_after:g}"}
            error = {"message": f"injected HTTP {status}", "type": "fake_fault", "code": str(status)}
            self._send_json(status, {"error": error}, headers)


class FakeOpenAIServer:
    """OpenAI-compatible server on 127.0.0.1 (ephemeral port by default), started on construction."""

    def __init__(
        self,
        answer: AnswerFn | None = None,
        latency_s: float = 0.0,
        models: Sequence[str] = ("fake-judge",),
        host: str = "127.0.0.1",
        port: int = 0,
        slots: int | None = None,
        finish_abandoned: bool = False,
        reported_model: str | None = None,
        fault_rate: float = 0.0,
        fault_kinds: Sequence[str] = FAULT_KINDS,
        seed: int = 0,
        retry_after: float = 0.0,
        hang_s: float = 30.0,
        nonverdict_text: str = "I am not sure.",
    ) -> None:
        """``slots``: how many requests are answered at once (None: all of them, each after latency_s).
        ``reported_model``: the model name put in replies (default: the one requested), as OpenAI
        answers ``gpt-4`` with ``gpt-4-0613``.

        ``fault_rate``: the share of attempts that fail, each with a kind drawn from ``fault_kinds``;
        the draw depends only on ``seed``, the prompt and how many attempts that prompt had before,
        so a run is reproducible whatever order concurrent requests arrive in. ``retry_after`` and
        ``hang_s`` apply to those faults as in ``fail_next``; ``nonverdict_text`` is the answer the
        ``nonverdict`` fault gives. Counts per kind: ``fault_counts``."""
        if not 0.0 <= fault_rate <= 1.0:
            raise ValueError(f"fault_rate must be within [0, 1], got {fault_rate}")
        self.fault_kinds = tuple(_check_kind(kind) for kind in fault_kinds)
        if fault_rate and not self.fault_kinds:
            raise ValueError("fault_rate needs at least one fault kind")
        self.fault_rate = fault_rate
        self.seed = seed
        self.random_retry_after = retry_after
        self.random_hang_s = hang_s
        self.nonverdict_text = nonverdict_text
        self.fault_counts: Counter[str] = Counter()  # faults injected, per kind (both modes)
        self.prompt_attempts: Counter[str] = Counter()  # attempts per prompt (faulted ones included)
        self.reported_model = reported_model
        self.answer: AnswerFn = answer or _always_yes
        self.latency_s = latency_s
        self.slots = slots
        self.finish_abandoned = finish_abandoned
        self._slot_sem = threading.Semaphore(slots or 1)
        self._queued = 0
        self.max_queued = 0  # most requests that ever waited for a slot at once
        self._in_flight = 0
        self.max_in_flight = 0  # most requests inside their latency at once (without slots)
        self.model_list_requests = 0  # GET /models (the pre-flight's probe)
        self.served = 0  # slot mode: answers sent
        self.abandoned = 0  # slot mode: requests whose client hung up before the answer
        self.models = list(models)
        self.requests: list[dict] = []  # every POSTed body, faulted attempts included
        self.auth_headers: list[str | None] = []
        self._prompts: list[list[str]] = []
        self._faults: list[_Fault] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._connections: set[socket.socket] = set()  # open client connections (kill resets them)
        self._httpd = _Server((host, port), _Handler)
        self._httpd.fake = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    def _count(self, what: str) -> None:
        with self._lock:
            setattr(self, what, getattr(self, what) + 1)

    def requests_matching(self, substring: str) -> int:
        """How many attempts (faulted ones included) carried a prompt containing ``substring``."""
        with self._lock:
            return sum(any(substring in p for p in prompts) for prompts in self._prompts)

    def fail_next(
        self,
        n: int,
        kind: str | int = "429",
        match: str | None = None,
        retry_after: float | None = 0.0,
        hang_s: float = 30.0,
    ) -> None:
        """Make the next ``n`` attempts whose prompt contains ``match`` (any, if None) fail.

        kind: an HTTP status ("429", "500", "503", ...; sent with ``Retry-After: retry_after`` unless
        it is None; "429-bare" never has it), "hang" (no answer for ``hang_s`` seconds, then the socket
        is closed), "drop" (socket closed without any response), or a bad HTTP 200: "malformed",
        "html", "empty_choices", "empty_content", "nonverdict" (see the module docstring).
        """
        kind = _check_kind(kind)
        with self._lock:
            self._faults.append(_Fault(kind, n, match, retry_after, hang_s))

    def _record(self, body: dict, auth: str | None, prompts: list[str]) -> _Fault | None:
        """Log the attempt and pick its fault (a scripted one first, else the seeded draw), atomically."""
        with self._lock:
            self.requests.append(body)
            self.auth_headers.append(auth)
            self._prompts.append(prompts)
            key = "\x00".join(prompts)
            attempt = self.prompt_attempts[key]
            self.prompt_attempts[key] += 1
            for fault in self._faults:
                if fault.remaining > 0 and (fault.match is None or any(fault.match in p for p in prompts)):
                    fault.remaining -= 1
                    self.fault_counts[fault.kind] += 1
                    return fault
            if self.fault_rate:
                digest = hashlib.sha256(f"{self.seed}\x00{attempt}\x00{key}".encode()).digest()
                draw = random.Random(digest)
                if draw.random() < self.fault_rate:
                    kind = draw.choice(self.fault_kinds)
                    self.fault_counts[kind] += 1
                    return _Fault(kind, 0, None, self.random_retry_after, self.random_hang_s)
        return None

    def prompts_sent_with(self, auth: str) -> Counter[str]:
        """Attempts per prompt among those that carried the Authorization header ``auth``."""
        with self._lock:
            return Counter("\x00".join(p) for p, a in zip(self._prompts, self.auth_headers) if a == auth)

    def attempts_for(self, prompt: str) -> int:
        """How many attempts carried exactly this prompt (chat: the last user message)."""
        with self._lock:
            return self.prompt_attempts[prompt]

    def close(self) -> None:
        self._closing.set()  # wakes handlers sleeping in latency or hang faults
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def kill(self) -> None:
        """Stop as a killed server process does: new connections are refused and the open ones
        (a client's keep-alive pool) are reset, whatever they were doing."""
        self.close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self) -> FakeOpenAIServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def main(argv: Sequence[str] | None = None) -> None:
    """Serve until Ctrl-C, answering every prompt with a fixed text (for manual lm-eval runs)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--answer", default="Yes", help="text returned for every prompt")
    parser.add_argument("--slots", type=int, default=None, help="answer this many requests at a time (queue the rest)")
    args = parser.parse_args(argv)
    server = FakeOpenAIServer(
        answer=lambda prompt, body: args.answer, latency_s=args.latency, port=args.port, slots=args.slots
    )
    print(f"serving on {server.base_url}", flush=True)
    try:
        server._thread.join()
    except KeyboardInterrupt:
        server.close()


if __name__ == "__main__":
    main()
