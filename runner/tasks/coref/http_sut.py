"""Any JSON endpoint as the coreference system under test (in-house models).

The body is the suite's ``request`` template with the string ``"$texts"`` replaced by the list of
texts (one call per batch) or ``"$text"`` by one text (one call per text). The answer is read with
dotted paths: ``response.documents`` leads to the list with one item per text (in order),
``response.clusters`` to each item's list of clusters; a mention is ``[start, end]`` or an
object read with ``response.start`` and ``response.end`` (or ``response.length``). Header values
may name environment variables as ``${VAR}`` (tokens): substituted when sent, never written
anywhere. Transport, retries and offsets conversion are the shared ones (:mod:`runner.sut.remote`).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from runner.sut.remote import (HttpEndpoint, SUTCallError, fill_texts, json_path, request_template,
                               utf16_to_codepoint, utf8_to_codepoint)
from runner.tasks.coref.systems import CorefSystem, _answer


class HttpCoref(HttpEndpoint, CorefSystem):
    name = "http"
    remote = True

    def __init__(self, *, url: str | None = None, url_env: str | None = None,
                 headers: Mapping[str, str] | None = None, request: Any = None,
                 response: Mapping[str, Any] | None = None, offsets: str = "code_point",
                 concurrency: int = 4, retry: dict[str, Any] | None = None,
                 **kwargs: Any) -> None:
        request, self.per_text = request_template(request, "$texts", ["$text"], "text")
        if self.per_text:
            kwargs["batch_size"] = 1
        super().__init__(**kwargs)
        self._connect(url, url_env, headers, retry, concurrency)
        self.request, self.offsets = request, offsets
        self.response = {"documents": "", "clusters": "clusters", "start": "start", "end": "end",
                         "length": None, **dict(response or {})}

    def _predict_raw(self, texts: Sequence[str]) -> list[Any]:
        answer = self._post(fill_texts(self.request, list(texts)),
                            f"http ({len(texts)} text(s))")
        try:
            docs = json_path(answer, self.response["documents"])
        except (KeyError, IndexError, TypeError, ValueError):
            docs = None
        if self.per_text:
            docs = [docs]
        if not isinstance(docs, list) or len(docs) != len(texts):
            raise SUTCallError(f"http: expected a list of {len(texts)} item(s) at "
                               f"{self.response['documents'] or 'the top'} of the answer")
        return [self._clusters(text, doc) for text, doc in zip(texts, docs)]

    def _clusters(self, text: str, doc: Any) -> Any:
        r = self.response
        try:
            clusters = []
            for cluster in json_path(doc, r["clusters"]):
                ms = []
                for m in cluster:
                    if isinstance(m, (list, tuple)):
                        start, end = int(m[0]), int(m[1])
                    else:
                        start = int(json_path(m, r["start"]))
                        end = start + int(json_path(m, r["length"])) if r["length"] \
                            else int(json_path(m, r["end"]))
                    if self.offsets == "utf16":
                        start, end = utf16_to_codepoint(text, start), utf16_to_codepoint(text, end)
                    elif self.offsets == "utf8":
                        start, end = utf8_to_codepoint(text, start), utf8_to_codepoint(text, end)
                    ms.append((start, end))
                clusters.append(ms)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            return SUTCallError(f"http: the answer does not match sut.response "
                                f"({type(exc).__name__}: {exc})")
        return _answer(clusters, text, self.name)
