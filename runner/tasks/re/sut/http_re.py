"""Any JSON endpoint as the relation extractor under test.

The body is the suite's ``request`` template: ``"$inputs"`` is replaced by the batch (one call per
batch), each input ``{"text", "head": {"start", "end", "type", "text"}, "tail": {...}}``; or, one
call per input, ``"$text"``, ``"$head"`` and ``"$tail"`` by the text and the two arguments. The
answer is read with dotted paths: ``response.predictions`` leads to the list with one item per
input (in order; unused with one call per input), ``response.label`` and ``response.score`` inside
each. Transport (retries with backoff, ``Retry-After``, timeouts, secrets in ``${VAR}`` headers
never written anywhere) is the NER ``http`` system's.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from runner.sut.remote import (RetryPolicy, SUTCallError, endpoint_url, fill_template, json_path,
                               post_json, public_url, request_template, resolve_headers)
from runner.tasks.re.sut.base import RESystem
from runner.tasks.re.types import REInput

_PER_INPUT = ("$text", "$head", "$tail")


class HttpRE(RESystem):
    name = "http"
    remote = True

    def __init__(self, *, url: str | None = None, url_env: str | None = None,
                 headers: Mapping[str, str] | None = None, request: Any = None,
                 response: Mapping[str, Any] | None = None, concurrency: int = 1,
                 retry: dict[str, Any] | None = None, batch_size: int = 16, **kw: Any) -> None:
        request, self.per_input = request_template(request, "$inputs", _PER_INPUT, "input")
        super().__init__(batch_size=1 if self.per_input else batch_size, **kw)
        url = endpoint_url(url, url_env)
        self.url, self.request = url, request
        self.response = {"predictions": "predictions", "label": "label", "score": None,
                         **dict(response or {})}
        self.policy = RetryPolicy.from_params(retry or {})
        self.concurrency = concurrency
        self._header_templates = dict(headers or {})
        self._headers, self._secrets = resolve_headers(self._header_templates)

    def describe(self) -> dict[str, Any]:
        return {"backend": "http", "url": public_url(self.url),
                "request": self.request, "response": self.response,
                "header_names": sorted(self._header_templates)}

    def _answer(self, inputs: Sequence[REInput]) -> list[Any]:
        body = _fill(self.request, [i.to_json() for i in inputs])
        answer = post_json(self.url, body, self._headers, self.policy,
                           f"http ({len(inputs)} input(s))", secrets=self._secrets)
        items = [answer] if self.per_input else json_path(answer, self.response["predictions"])
        if not isinstance(items, list) or len(items) != len(inputs):
            raise SUTCallError(f"http: expected a list of {len(inputs)} item(s) at "
                               f"{self.response['predictions'] or 'the top'} of the answer")
        out = []
        for item in items:
            try:
                label = json_path(item, self.response["label"])
                score = json_path(item, self.response["score"]) if self.response["score"] else None
                if not isinstance(label, str) or not label:
                    raise ValueError(f"label {label!r} is not a string")
                out.append([label, None if score is None else float(score)])
            except (KeyError, IndexError, TypeError, ValueError) as exc:
                out.append(SUTCallError(f"http: the answer does not match sut.response "
                                        f"({type(exc).__name__}: {exc})"))
        return out


def _fill(template: Any, inputs: list[dict[str, Any]]) -> Any:
    """The request for ``inputs``: ``$inputs`` is the list; ``$text``, ``$head``, ``$tail`` the
    one input's fields."""
    return fill_template(template, {"$inputs": lambda: inputs,
                                    **{m: (lambda m=m: inputs[0][m[1:]]) for m in _PER_INPUT}})
