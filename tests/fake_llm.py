"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for fault tests at the network edge.

``FakeLLM(respond)`` serves ``POST /v1/chat/completions``; ``respond`` maps each ``Request`` to a ``Reply``
(a valid completion, an HTTP error, a malformed body, a slow answer). ``FakeLLM.play`` scripts the replies in
arrival order; ``PerPrompt`` gives each distinct prompt its own script of replies, so a test can make chosen
nodes fail for good and others recover after a retry.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Request:
    """One request the server received.

    Attributes:
        path: the URL path.
        headers: the HTTP headers (lower-case names).
        body: the parsed JSON body.
        at: ``time.monotonic()`` on arrival.
    """

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float

    @property
    def prompt(self) -> str:
        """The last user message."""
        users = [m.get("content", "") for m in self.body.get("messages", []) if m.get("role") == "user"]
        return str(users[-1]) if users else ""

    @property
    def schema(self) -> dict[str, Any]:
        """The JSON schema asked for in ``response_format`` (empty when none)."""
        response_format = self.body.get("response_format") or {}
        return response_format.get("json_schema", {}).get("schema", {})


@dataclass(frozen=True)
class Reply:
    """What the server answers.

    Attributes:
        status: HTTP status.
        content: the assistant message content of a 200 completion (None: use ``body``).
        body: a raw response body, sent as is (for errors and malformed replies).
        delay_s: seconds to wait before answering (longer than the client timeout = a timeout).
        content_type: the response's content type.
        headers: more response headers (e.g. ``Retry-After``).
    """

    status: int = 200
    content: str | None = None
    body: bytes = b""
    delay_s: float = 0.0
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


def completion(content: str | dict[str, Any] | None, **kwargs: Any) -> Reply:
    """A 200 chat completion whose message is ``content`` (a dict is sent as JSON; None as a null message)."""
    if content is None:
        return Reply(body=_completion_body("fake", None), **kwargs)
    return Reply(content=json.dumps(content) if isinstance(content, dict) else content, **kwargs)


def error(status: int, message: str = "boom", **kwargs: Any) -> Reply:
    """An OpenAI-style JSON error with HTTP ``status``."""
    body = json.dumps({"error": {"message": message, "type": "fake"}}).encode()
    return Reply(status=status, body=body, **kwargs)


def valid_reply(request: Request) -> Reply:
    """A reply that fits the requested schema: a summary (and keywords when asked) built from the prompt."""
    words = request.prompt.split()
    data: dict[str, Any] = {"summary": "Fake LLM summary: " + " ".join(words[1:25])}
    if "keywords" in request.schema.get("properties", {}):
        data["keywords"] = list(dict.fromkeys(w.strip(".,:;()").lower() for w in words[1:40]))[:6] or ["page"]
    return completion(json.dumps(data))


Respond = Callable[[Request], Reply]
Step = Reply | Respond


def _reply(step: Step, request: Request) -> Reply:
    return step(request) if callable(step) else step


class Script:
    """Replies in arrival order, one step per request; the last step repeats."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = list(steps)
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        with self._lock:
            step = self.steps.pop(0) if len(self.steps) > 1 else self.steps[0]
        return _reply(step, request)


class PerPrompt:
    """Each distinct prompt, in order of first arrival, takes the next script; a script lists the replies to
    its attempts (its last reply repeats); prompts beyond the scripts get ``valid_reply``.

    Attributes:
        fates: prompt → index of its script (None: no script, answered validly).
        attempts: prompt → number of requests seen.
    """

    def __init__(self, scripts: Sequence[Sequence[Step]]) -> None:
        self.scripts = [list(s) for s in scripts]
        self.fates: dict[str, int | None] = {}
        self.attempts: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        prompt = request.prompt
        with self._lock:
            if prompt not in self.fates:
                used = sum(1 for fate in self.fates.values() if fate is not None)
                self.fates[prompt] = used if used < len(self.scripts) else None
            attempt = self.attempts.get(prompt, 0)
            self.attempts[prompt] = attempt + 1
            fate = self.fates[prompt]
        if fate is None:
            return valid_reply(request)
        script = self.scripts[fate]
        return _reply(script[min(attempt, len(script) - 1)], request)


class FakeLLM:
    """The server; use it as a context manager. ``url`` is the OpenAI base URL (``http://127.0.0.1:PORT/v1``).

    Attributes:
        respond: how requests are answered (``valid_reply`` by default).
        requests: every request received, in arrival order.
    """

    def __init__(self, respond: Respond = valid_reply) -> None:
        self.respond = respond
        self.requests: list[Request] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def attempts(self) -> int:
        """Requests received so far."""
        return len(self.requests)

    def play(self, *steps: Step) -> None:
        """Answer the next requests with ``steps`` in order; the last one repeats."""
        self.respond = Script(steps)

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop answering: the port refuses connections from now on."""
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server API)
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                request = Request(
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=json.loads(raw or b"{}"),
                    at=time.monotonic(),
                )
                fake.requests.append(request)
                reply = fake.respond(request)
                time.sleep(reply.delay_s)
                model = request.body.get("model", "fake")
                body = reply.body if reply.content is None else _completion_body(model, reply.content)
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", reply.content_type)
                    self.send_header("content-length", str(len(body)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                    pass

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the http.server API)
                """Silent: the test reads ``requests`` instead."""

        return Handler


def _completion_body(model: str, content: str | None) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    ).encode()


def closed_port() -> int:
    """A port of 127.0.0.1 where nothing listens (taken from the OS, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
