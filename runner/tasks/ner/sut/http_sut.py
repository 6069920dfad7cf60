"""Any JSON endpoint as the system under test (in-house models): a request template and a mapping
from the answer to character spans.

The body is the suite's ``request`` template with the string ``"$texts"`` replaced by the list of
texts (one call per batch), or ``"$text"`` by one text (one call per text). The answer is read with
dotted paths: ``response.documents`` leads to the list with one item per text (in order),
``response.entities`` to each item's entity list, and ``start``/``end`` (or ``length``), ``label``,
``text``, ``score`` inside each entity. Header values may name environment variables as ``${VAR}``
(tokens): they are substituted when sent and never written anywhere.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from runner.tasks.ner.sut.base import NERSystem
from runner.sut.remote import (HttpEndpoint, SUTCallError, count_unaligned, fill_texts, json_path,
                               realign, request_template, utf16_to_codepoint, utf8_to_codepoint)


class HttpNER(HttpEndpoint, NERSystem):
    name = "http"
    remote = True

    def __init__(self, *, response: Mapping[str, Any], url: str | None = None,
                 url_env: str | None = None, headers: Mapping[str, str] | None = None,
                 request: Any = None, offsets: str = "code_point", concurrency: int = 4,
                 retry: dict[str, Any] | None = None, **kwargs: Any) -> None:
        request, self.per_text = request_template(request, "$texts", ["$text"], "text")
        if self.per_text:
            kwargs["batch_size"] = 1
        super().__init__(**kwargs)
        self._connect(url, url_env, headers, retry, concurrency)
        self.request = request
        self.response = {"documents": "", "entities": "entities", "start": "start", "end": "end",
                         "length": None, "label": "label", "text": None, "score": None,
                         **dict(response)}
        # An entity score in the answer: attacks rank words by it (importance span_scores).
        self.gives_span_scores = bool(self.response.get("score"))
        self.offsets = offsets

    def _predict_raw(self, texts: Sequence[str]) -> list[Any]:
        body = fill_texts(self.request, list(texts))
        answer = self._post(body, f"http ({len(texts)} text(s))")
        docs = json_path(answer, self.response["documents"])
        if self.per_text:
            docs = [docs]
        if not isinstance(docs, list) or len(docs) != len(texts):
            raise SUTCallError(f"http: expected a list of {len(texts)} item(s) at "
                               f"{self.response['documents'] or 'the top'} of the answer")
        return [self._spans(text, doc) for text, doc in zip(texts, docs)]

    def _spans(self, text: str, doc: Any) -> Any:
        r = self.response
        try:
            entities = json_path(doc, r["entities"])
            spans = []
            for e in entities:
                start = int(json_path(e, r["start"]))
                end = start + int(json_path(e, r["length"])) if r["length"] else int(json_path(e, r["end"]))
                if self.offsets == "utf16":
                    start, end = utf16_to_codepoint(text, start), utf16_to_codepoint(text, end)
                elif self.offsets == "utf8":
                    start, end = utf8_to_codepoint(text, start), utf8_to_codepoint(text, end)
                surface = json_path(e, r["text"]) if r["text"] else None
                where = realign(text, start, end, surface)
                if where is None or where[0] >= where[1]:
                    count_unaligned(self)  # its text is nowhere in the sentence
                    continue
                score = json_path(e, r["score"]) if r["score"] else None
                spans.append((where[0], where[1], str(json_path(e, r["label"])),
                              None if score is None else float(score)))
            return spans
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            return SUTCallError(f"http: the answer does not match sut.response "
                                f"({type(exc).__name__}: {exc})")
