"""Local wire-compatible stand-ins for Azure AI Language and AWS Comprehend on 127.0.0.1, for tests.

They speak the services' request and answer formats, enforce their limits (Azure: 5 documents and
5,120 characters per document; AWS: 25 texts, 5,000 UTF-8 bytes per text) with the services' error
answers, check the credential, and misbehave on purpose: a share of requests gets 429 (with
Retry-After) or 500, and texts holding ``[[FAIL]]`` always get 500 (a call that never succeeds).

Their recogniser is a small gazetteer with one deliberate bug: "Joe Biden" is a person only at the
start of a sentence and an organization elsewhere, so shuffling entities exposes violations.
"""
from __future__ import annotations

import json
import random
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PERSONS = ["Angela Merkel", "Emmanuel Macron", "Joe Biden", "Ann Smith", "Bob Jones", "Zoë Müller"]
LOCATIONS = ["Paris", "Berlin", "New York", "Tokyo"]
ORGS = ["Siemens", "Google", "United Nations"]


def recognise(text: str) -> list[tuple[int, int, str, str]]:
    """(start, end, text, kind) with Python offsets; kind in person/location/organization."""
    out = []
    for names, kind in ((PERSONS, "person"), (LOCATIONS, "location"), (ORGS, "organization")):
        for name in names:
            for m in re.finditer(re.escape(name), text):
                k = kind
                if name == "Joe Biden" and m.start() != 0:
                    k = "organization"  # the deliberate bug
                out.append((m.start(), m.end(), name, k))
    return sorted(out)


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class WireServer:
    """A threaded HTTP server; ``url`` once started. Counters are for the tests' checks."""

    def __init__(self, *, key: str, p429: float = 0.0, p500: float = 0.0, retry_after: str = "0",
                 delay: float = 0.0, seed: int = 7) -> None:
        self.key = key
        self.p429, self.p500, self.retry_after, self.delay = p429, p500, retry_after, delay
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.requests = 0
        self.answered_429 = 0
        self.answered_500 = 0
        self.answered_400 = 0
        self.texts_seen: list[str] = []
        self.max_batch = 0
        self.bodies: list[bytes] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                with server.lock:
                    server.requests += 1
                    server.bodies.append(raw)
                    roll = server.rng.random()
                if server.delay:
                    time.sleep(server.delay)
                status, headers, body = server.handle(self.path, dict(self.headers), raw, roll)
                payload = json.dumps(body).encode("utf-8")
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "WireServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def misbehave(self, roll: float, texts: list[str]) -> str | None:
        if any("[[FAIL]]" in t for t in texts):
            return "500"
        if roll < self.p429:
            return "429"
        if roll < self.p429 + self.p500:
            return "500"
        return None

    def handle(self, path: str, headers: dict, raw: bytes, roll: float) -> tuple[int, dict, Any]:
        raise NotImplementedError


class AzureLanguageServer(WireServer):
    MAX_DOCS = 5
    MAX_CHARS = 5120

    def handle(self, path: str, headers: dict, raw: bytes, roll: float) -> tuple[int, dict, Any]:
        def error(status: int, code: str, message: str, inner: str | None = None) -> tuple:
            err: dict[str, Any] = {"code": code, "message": message}
            if inner:
                err["innererror"] = {"code": inner, "message": message}
            return status, {"Content-Type": "application/json"}, {"error": err}

        if not path.startswith("/language/:analyze-text?api-version="):
            return error(404, "404", "Resource not found")
        if headers.get("Ocp-Apim-Subscription-Key") != self.key:
            return error(401, "401", "Access denied due to invalid subscription key or wrong API "
                                     "endpoint.")
        body = json.loads(raw.decode("utf-8"))
        if body.get("kind") != "EntityRecognition":
            return error(400, "InvalidRequest", "Invalid kind", "InvalidParameterValue")
        docs = body["analysisInput"]["documents"]
        index_type = body.get("parameters", {}).get("stringIndexType", "TextElement_v8")
        with self.lock:
            self.max_batch = max(self.max_batch, len(docs))
        if len(docs) > self.MAX_DOCS:
            with self.lock:
                self.answered_400 += 1
            return error(400, "InvalidArgument", f"Batch request contains too many records. Max "
                                                 f"{self.MAX_DOCS} records are permitted.",
                         "InvalidDocumentBatch")
        for d in docs:
            if len(d["text"]) > self.MAX_CHARS:
                with self.lock:
                    self.answered_400 += 1
                return error(400, "InvalidArgument", "A document within the request was too "
                                                     "large to be processed.", "InvalidDocument")
        bad = self.misbehave(roll, [d["text"] for d in docs])
        if bad == "429":
            with self.lock:
                self.answered_429 += 1
            return 429, {"Retry-After": self.retry_after, "Content-Type": "application/json"}, \
                {"error": {"code": "429", "message": "Rate limit is exceeded. Try again later."}}
        if bad == "500":
            with self.lock:
                self.answered_500 += 1
            return error(500, "InternalServerError", "Internal server error.")
        out_docs, errors = [], []
        for d in docs:
            text = d["text"]
            with self.lock:
                self.texts_seen.append(text)
            if "[[DOCERR]]" in text:
                errors.append({"id": d["id"], "error": {
                    "code": "InvalidArgument", "message": "Invalid document in request.",
                    "innererror": {"code": "InvalidDocument", "message": "Document text is "
                                                                         "empty."}}})
                continue
            ents = []
            for s, e, name, kind in recognise(text):
                off, ln = s, e - s
                if index_type == "Utf16CodeUnit":
                    off, ln = utf16_len(text[:s]), utf16_len(name)
                ents.append({"text": name, "category": kind.capitalize(),
                             **({"subcategory": "GPE"} if kind == "location" else {}),
                             "offset": off, "length": ln, "confidenceScore": 0.97})
            out_docs.append({"id": d["id"], "entities": ents, "warnings": []})
        return 200, {"Content-Type": "application/json"}, {
            "kind": "EntityRecognitionResults",
            "results": {"documents": out_docs, "errors": errors, "modelVersion": "2021-06-01"}}


class ComprehendServer(WireServer):
    """``key`` is the access key id expected in the SigV4 Authorization header."""

    MAX_DOCS = 25
    MAX_BYTES = 5000

    def handle(self, path: str, headers: dict, raw: bytes, roll: float) -> tuple[int, dict, Any]:
        ctype = {"Content-Type": "application/x-amz-json-1.1"}

        def error(status: int, kind: str, message: str, extra: dict | None = None) -> tuple:
            return status, {**ctype, **(extra or {})}, {"__type": kind, "Message": message}

        target = headers.get("X-Amz-Target", "")
        auth = headers.get("Authorization", "")
        if not auth.startswith(f"AWS4-HMAC-SHA256 Credential={self.key}/"):
            return error(400, "UnrecognizedClientException", "The security token included in "
                                                             "the request is invalid.")
        body = json.loads(raw.decode("utf-8"))
        if target == "Comprehend_20171127.DetectEntities":
            texts = [body["Text"]]
        elif target == "Comprehend_20171127.BatchDetectEntities":
            texts = body["TextList"]
        else:
            return error(400, "UnknownOperationException", target)
        with self.lock:
            self.max_batch = max(self.max_batch, len(texts))
        if len(texts) > self.MAX_DOCS:
            with self.lock:
                self.answered_400 += 1
            return error(400, "BatchSizeLimitExceededException", "The number of documents in the "
                                                                 "request exceeds the limit of 25.")
        for t in texts:
            if len(t.encode("utf-8")) > self.MAX_BYTES:
                with self.lock:
                    self.answered_400 += 1
                return error(400, "TextSizeLimitExceededException", "The size of the input text "
                                                                    "exceeds the limit.")
        bad = self.misbehave(roll, texts)
        if bad == "429":
            with self.lock:
                self.answered_429 += 1
            return error(429, "ThrottlingException", "Rate exceeded",
                         {"Retry-After": self.retry_after})
        if bad == "500":
            with self.lock:
                self.answered_500 += 1
            return error(500, "InternalServerException", "An internal server error occurred.")
        results, errors = [], []
        for i, text in enumerate(texts):
            with self.lock:
                self.texts_seen.append(text)
            if "[[DOCERR]]" in text:
                errors.append({"Index": i, "ErrorCode": "InternalServerException",
                               "ErrorMessage": "Unable to process the document"})
                continue
            results.append({"Index": i, "Entities": [
                {"Score": 0.99, "Type": kind.upper(), "Text": name, "BeginOffset": s,
                 "EndOffset": e} for s, e, name, kind in recognise(text)]})
        if target == "Comprehend_20171127.DetectEntities":
            return 200, ctype, {"Entities": results[0]["Entities"] if results else []}
        return 200, ctype, {"ResultList": results, "ErrorList": errors}
