"""Azure AI Language named-entity recognition over REST (``:analyze-text``, kind EntityRecognition).

At most 5 documents per request and 5,120 characters per document (the service answers 400
beyond): batches are cut to 5 and a longer text is marked ``error`` without being sent. Offsets
are asked for as ``UnicodeCodePoint`` (= Python string offsets); ``Utf16CodeUnit`` answers are
converted. The key is read from an environment variable, sent only in the request header, and
never appears in messages, results, logs or the cache (the fingerprint holds no secret).
"""
from __future__ import annotations

from typing import Any, Sequence
from urllib.parse import urlsplit

from runner.tasks.ner.sut.base import NERSystem, RawSpan
from runner.sut.remote import (RetryPolicy, SUTCallError, count_unaligned, post_json, realign,
                               require_env, utf16_to_codepoint)

MAX_DOCUMENTS = 5
MAX_CHARACTERS = 5120


class AzureNER(NERSystem):
    name = "azure"
    remote = True

    def __init__(self, *, endpoint_env: str = "AZURE_LANGUAGE_ENDPOINT",
                 key_env: str = "AZURE_LANGUAGE_KEY", api_version: str = "2023-04-01",
                 model_version: str = "latest", language: str = "en",
                 string_index_type: str = "UnicodeCodePoint", concurrency: int = 4,
                 retry: dict[str, Any] | None = None, batch_size: int = MAX_DOCUMENTS,
                 **kwargs: Any) -> None:
        super().__init__(batch_size=min(batch_size, MAX_DOCUMENTS), **kwargs)
        env = require_env({"endpoint": endpoint_env, "key": key_env}, "the azure system under test")
        self.endpoint = env["endpoint"].rstrip("/")
        parts = urlsplit(self.endpoint)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            from runner.errors import ModelNotAvailable
            raise ModelNotAvailable(f"{endpoint_env} must be an http(s) URL such as "
                                    "https://NAME.cognitiveservices.azure.com")
        self._key = env["key"]
        self.api_version = api_version
        self.model_version = model_version
        self.language = language
        self.string_index_type = string_index_type
        self.concurrency = concurrency
        self.policy = RetryPolicy.from_params(retry or {})

    def describe(self) -> dict[str, Any]:
        parts = urlsplit(self.endpoint)
        return {"backend": "azure-ai-language", "endpoint": f"{parts.scheme}://{parts.netloc}",
                "api_version": self.api_version, "model": self.model_version,
                "language": self.language, "string_index_type": self.string_index_type}

    def _predict_raw(self, texts: Sequence[str]) -> list[Any]:
        out: list[Any] = [None] * len(texts)
        documents = []
        for i, text in enumerate(texts):
            if len(text) > MAX_CHARACTERS:
                out[i] = SUTCallError(f"azure: the text has {len(text)} characters; the service "
                                      f"takes at most {MAX_CHARACTERS} per document")
            else:
                documents.append({"id": str(i), "language": self.language, "text": text})
        if not documents:
            return out
        body = {"kind": "EntityRecognition",
                "parameters": {"modelVersion": self.model_version,
                               "stringIndexType": self.string_index_type},
                "analysisInput": {"documents": documents}}
        url = f"{self.endpoint}/language/:analyze-text?api-version={self.api_version}"
        answer = post_json(url, body, {"Ocp-Apim-Subscription-Key": self._key}, self.policy,
                           f"azure ({len(documents)} document(s))", secrets=(self._key,))
        results = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(results, dict):
            raise SUTCallError("azure: the answer has no 'results' object")
        for doc in results.get("documents", []):
            i = int(doc["id"])
            out[i] = self._spans(texts[i], doc.get("entities", []))
        for err in results.get("errors", []):
            i = int(err["id"])
            e = err.get("error", {})
            inner = e.get("innererror") or {}
            detail = inner.get("message") or e.get("message", "")
            out[i] = SUTCallError(f"azure: document error {inner.get('code') or e.get('code', '')}:"
                                  f" {detail}".rstrip(": "))
        for d in documents:
            if out[int(d["id"])] is None:
                out[int(d["id"])] = SUTCallError("azure: the answer left this document out")
        return out

    def _spans(self, text: str, entities: list[dict[str, Any]]) -> list[RawSpan]:
        spans = []
        for e in entities:
            start, length = int(e["offset"]), int(e["length"])
            end = start + length
            if self.string_index_type == "Utf16CodeUnit":
                start, end = utf16_to_codepoint(text, start), utf16_to_codepoint(text, end)
            where = realign(text, start, end, e.get("text"))
            if where is None or where[0] >= where[1]:
                count_unaligned(self)  # its text is nowhere in the sentence
                continue
            spans.append((where[0], where[1], str(e["category"]), e.get("confidenceScore")))
        return spans
