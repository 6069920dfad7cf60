"""What remote systems under test share: credentials from the environment, retries with exponential
backoff and jitter (honouring Retry-After), timeouts, and JSON over HTTP with the standard library.

A call that still fails after its retries raises :class:`SUTCallError`; the system under test turns
it into an ``error`` outcome for the affected test cases and the run goes on. A refused credential
raises :class:`SUTAuthError` (exit 4): every later call would fail the same way.
"""
from __future__ import annotations

import email.utils
import json
import os
import random
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence
from urllib.parse import urlsplit

from runner.errors import ModelNotAvailable, MtrunError

_COUNT_LOCK = threading.Lock()
RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


class SUTCallError(Exception):
    """A call (or one document of it) failed for good; ``str()`` is the reason, never a secret.
    ``splittable``: asking again with fewer texts may help (not so when the service throttles)."""

    def __init__(self, reason: str, *, splittable: bool = True) -> None:
        super().__init__(reason)
        self.splittable = splittable



class SUTAuthError(MtrunError):
    """The service refused the credentials (401/403)."""


def require_env(names: Mapping[str, str], what: str) -> dict[str, str]:
    """Read the environment variables ``{role: VAR_NAME}``; one error names every missing one."""
    missing = [var for var in names.values() if not os.environ.get(var)]
    if missing:
        raise ModelNotAvailable(
            f"{what} needs the environment variable(s) {', '.join(missing)} "
            f"(set {' and '.join(missing)}, or name other variables in the suite's sut section)")
    return {role: os.environ[var] for role, var in names.items()}


@dataclass
class RetryPolicy:
    """Exponential backoff with full jitter: attempt n waits uniform(0, min(max, base·2ⁿ)),
    or the server's Retry-After when it gives one (capped at ``max_retry_after``)."""

    max_retries: int = 6
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    max_retry_after: float = 120.0
    timeout: float = 30.0
    retries: int = 0   # retries made so far (for the report)
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    rng: random.Random = field(default_factory=random.Random, repr=False)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> "RetryPolicy":
        return cls(max_retries=int(params.get("max_retries", 6)),
                   backoff_base=float(params.get("backoff_base", 0.5)),
                   backoff_max=float(params.get("backoff_max", 30.0)),
                   timeout=float(params.get("timeout", 30.0)))

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        return self.rng.uniform(0, min(self.backoff_max, self.backoff_base * (2 ** attempt)))

    def call(self, attempt_once: Callable[[], Any], describe: str) -> Any:
        """Run ``attempt_once`` until it succeeds; it raises :class:`Retry` for a retryable failure
        and anything else for a final one. Counts retries in ``self.retries``."""
        last = Retry("")
        retries = self.max_retries
        for attempt in range(retries + 1):
            try:
                return attempt_once()
            except Retry as r:
                last = r
                if attempt == retries:
                    break
                with _COUNT_LOCK:
                    self.retries += 1
                self.sleep(self.delay(attempt, r.retry_after))
        raise SUTCallError(f"{describe}: still failing after {retries + 1} attempts "
                           f"({last.reason})", splittable=not last.throttled)


class Retry(Exception):
    def __init__(self, reason: str, retry_after: float | None = None, *,
                 throttled: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.throttled = throttled


_HEADER_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def resolve_headers(templates: Mapping[str, str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """Request headers with every ``${VAR}`` replaced by the environment variable VAR, and the
    values substituted (secrets: kept out of every message). A variable that is not set is an
    exit-4 error naming it, before any request is sent."""
    names = [v for h in templates.values() for v in _HEADER_VAR.findall(h)]
    missing = sorted({v for v in names if not os.environ.get(v)})
    if missing:
        raise ModelNotAvailable(f"the http system under test needs the environment "
                                f"variable(s) {', '.join(missing)} (named in sut.headers)")
    headers = {k: _HEADER_VAR.sub(lambda m: os.environ[m.group(1)], v)
               for k, v in templates.items()}
    return headers, tuple(os.environ[v] for v in names)


def public_url(url: str) -> str:
    """The URL as reports show it: no query string or user info (they may hold a token)."""
    parts = urlsplit(url)
    return (f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")
            + parts.path)


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (an integer or fraction) or as an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def post_json(url: str, body: Any, headers: Mapping[str, str], policy: RetryPolicy,
              describe: str, secrets: tuple[str, ...] = ()) -> Any:
    """POST ``body`` as JSON and return the decoded JSON answer, retrying 408/425/429/5xx, timeouts
    and dropped connections. 401/403 raise :class:`SUTAuthError`; other 4xx raise
    :class:`SUTCallError` with the service's message (any secret removed from it)."""
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    all_headers = {"Content-Type": "application/json; charset=utf-8", "Accept": "application/json",
                   **headers}

    def once() -> Any:
        request = urllib.request.Request(url, data=data, headers=all_headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=policy.timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as exc:
            text = _scrub(exc.read().decode("utf-8", "replace"), secrets)
            message = _service_message(text)
            if exc.code in RETRYABLE_STATUS:
                raise Retry(f"HTTP {exc.code} {message}".strip(),
                            parse_retry_after(exc.headers.get("Retry-After")),
                            throttled=exc.code == 429) from None
            if exc.code in (401, 403):
                raise SUTAuthError(f"{describe}: the service refused the credentials (HTTP "
                                   f"{exc.code}: {message}); check the key and endpoint "
                                   "variables") from None
            raise SUTCallError(f"{describe}: HTTP {exc.code}: {message}") from None
        except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise Retry(f"{type(exc).__name__}: {_scrub(str(reason), secrets)}") from None
        try:
            return json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SUTCallError(f"{describe}: the answer is not JSON ({exc})") from None

    return policy.call(once, describe)


def _service_message(text: str) -> str:
    try:
        err = json.loads(text)
    except json.JSONDecodeError:
        return text[:300]
    if isinstance(err, dict):
        inner = err.get("error", err)
        if isinstance(inner, dict):
            code = inner.get("code", "")
            msg = inner.get("message", "")
            inner2 = inner.get("innererror") or inner.get("innerError")
            if isinstance(inner2, dict) and inner2.get("message"):
                msg = f"{msg} ({inner2.get('code', '')}: {inner2['message']})"
            return f"{code}: {msg}".strip(": ")[:300]
    return text[:300]


def _scrub(text: str, secrets: tuple[str, ...]) -> str:
    for s in secrets:
        if s:
            text = text.replace(s, "***")
    return text


def utf16_to_codepoint(text: str, offset: int) -> int:
    """A UTF-16 code-unit offset as a Python (code point) offset."""
    units = 0
    for i, ch in enumerate(text):
        if units >= offset:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(text)


def utf8_to_codepoint(text: str, offset: int) -> int:
    """A UTF-8 byte offset as a Python (code point) offset."""
    return len(text.encode("utf-8")[:offset].decode("utf-8", "ignore"))


def count_unaligned(sut: Any) -> None:
    """One more entity whose text is nowhere in the sentence (dropped, counted for the report)."""
    with _COUNT_LOCK:
        sut.unaligned_spans += 1


def realign(text: str, start: int, end: int, surface: str | None) -> tuple[int, int] | None:
    """Offsets as the service gave them → Python offsets whose slice reads ``surface``. Tried in
    order: code points as given, UTF-16 code units, UTF-8 bytes, then the nearest occurrence of
    ``surface``. None when the surface is nowhere in the text."""
    if surface is None:
        return (start, end) if 0 <= start < end <= len(text) else None
    if text[start:end] == surface:
        return start, end
    for conv in (utf16_to_codepoint, utf8_to_codepoint):
        s, e = conv(text, start), conv(text, end)
        if text[s:e] == surface:
            return s, e
    hits = []
    pos = text.find(surface)
    while pos != -1:
        hits.append(pos)
        pos = text.find(surface, pos + 1)
    if not hits:
        return None
    best = min(hits, key=lambda p: abs(p - start))
    return best, best + len(surface)


# -- JSON request templates and answer paths (the http systems of every task) -----------------
def endpoint_url(url: str | None, url_env: str | None) -> str:
    """The endpoint of an http system: ``url``, or the environment variable ``url_env`` names;
    an http:// or https:// URL, else a clear error."""
    if url_env:
        if not os.environ.get(url_env):
            raise ModelNotAvailable(f"the http system under test needs the environment "
                                    f"variable {url_env} (the endpoint URL)")
        url = os.environ[url_env]
    if not url:
        raise ModelNotAvailable("the http system under test needs `url` or `url_env`")
    if urlsplit(url).scheme not in ("http", "https"):
        raise ModelNotAvailable("http: the URL must start with http:// or https://")
    return url


def request_template(request: Any, batch: str, one: Sequence[str], item: str) -> tuple[Any, bool]:
    """(the request template, whether it asks about one item per request). ``request`` None is
    ``{name: batch}`` (``"$texts"`` → ``{"texts": "$texts"}``); a template must hold the batch
    marker or one of the single-item markers ``one``."""
    if request is None:
        request = {batch.lstrip("$"): batch}
    per_item = any(template_contains(request, m) for m in one)
    if not per_item and not template_contains(request, batch):
        markers = "/".join(f'"{m}"' for m in one)
        raise ModelNotAvailable(f'http: the request template must hold the string "{batch}" '
                                f"(the batch) or {markers} (one {item} per request)")
    return request, per_item


def template_contains(template: Any, marker: str) -> bool:
    """Whether ``marker`` (e.g. ``"$text"``) is a value somewhere in a JSON request template."""
    if isinstance(template, str):
        return template == marker
    if isinstance(template, dict):
        return any(template_contains(v, marker) for v in template.values())
    if isinstance(template, list):
        return any(template_contains(v, marker) for v in template)
    return False


def fill_template(template: Any, markers: Mapping[str, Callable[[], Any]]) -> Any:
    """The request: ``template`` with every value that is one of ``markers`` replaced by what
    that marker's function returns."""
    if isinstance(template, str) and template in markers:
        return markers[template]()
    if isinstance(template, dict):
        return {k: fill_template(v, markers) for k, v in template.items()}
    if isinstance(template, list):
        return [fill_template(v, markers) for v in template]
    return template


def json_path(value: Any, path: str | None) -> Any:
    """``value`` at a dotted path (``documents.0.entities``); no path: ``value`` itself."""
    if not path:
        return value
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def fill_texts(template: Any, texts: list[str]) -> Any:
    """The request of a system asked about texts: ``$texts`` is the list, ``$text`` the one text
    (a system asked one text at a time)."""
    return fill_template(template, {"$texts": lambda: texts, "$text": lambda: texts[0]})


class HttpEndpoint:
    """What the http systems of every task share: the endpoint, the headers (``${VAR}`` values
    from the environment, kept out of every output), the retry policy, how many requests run at
    once, the one way they post, and how they are described. A system calls :meth:`_connect` in
    its ``__init__`` and sets ``request`` and ``response`` (and ``offsets`` where it reads
    character offsets)."""

    request: Any
    response: dict[str, Any]

    def _connect(self, url: str | None, url_env: str | None, headers: Mapping[str, str] | None,
                 retry: dict[str, Any] | None, concurrency: int) -> None:
        self.url = endpoint_url(url, url_env)
        self.concurrency = concurrency
        self.policy = RetryPolicy.from_params(retry or {})
        self._header_templates = dict(headers or {})
        self._headers, self._secrets = resolve_headers(self._header_templates)

    def _post(self, body: Any, what: str) -> Any:
        """The endpoint's JSON answer to ``body`` (``what`` names the request in errors)."""
        return post_json(self.url, body, self._headers, self.policy, what, secrets=self._secrets)

    def describe(self) -> dict[str, Any]:
        offsets = getattr(self, "offsets", None)
        return {"backend": "http", "url": public_url(self.url),
                "request": self.request, "response": self.response,
                **({"offsets": offsets} if offsets is not None else {}),
                "header_names": sorted(self._header_templates)}
