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

from runner.sut.remote import (HttpEndpoint, SUTCallError, fill_template, json_path,
                               request_template)
from runner.tasks.re.sut.base import RESystem
from runner.tasks.re.types import REInput

_PER_INPUT = ("$text", "$head", "$tail")


class HttpRE(HttpEndpoint, RESystem):
    name = "http"
    remote = True

    def __init__(self, *, url: str | None = None, url_env: str | None = None,
                 headers: Mapping[str, str] | None = None, request: Any = None,
                 response: Mapping[str, Any] | None = None, concurrency: int = 1,
                 retry: dict[str, Any] | None = None, batch_size: int = 16, **kw: Any) -> None:
        request, self.per_input = request_template(request, "$inputs", _PER_INPUT, "input")
        super().__init__(batch_size=1 if self.per_input else batch_size, **kw)
        self._connect(url, url_env, headers, retry, concurrency)
        self.request = request
        self.response = {"predictions": "predictions", "label": "label", "score": None,
                         **dict(response or {})}

    def _answer(self, inputs: Sequence[REInput]) -> list[Any]:
        body = _fill(self.request, [i.to_json() for i in inputs])
        answer = self._post(body, f"http ({len(inputs)} input(s))")
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
