"""The RE http system under test against a local JSON endpoint: the batch template, one input per
request, a token in a header that never reaches the results, failures as error answers."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from wire_servers import WireServer  # noqa: E402

from runner.errors import ModelNotAvailable  # noqa: E402
from runner.sut.base import SUTFailure  # noqa: E402
from runner.tasks.re.sut.http_re import HttpRE  # noqa: E402
from tests.re_fixtures import source  # noqa: E402

TOKEN = "tok-re-SECRET-42"


class RelationServer(WireServer):
    """POST {"batch": [{text, head, tail}]} → {"out": [{"rel": ..., "p": ...}]}; "A married B" is
    per:spouse, anything else no_relation; "[[FAIL]]" in a text → 503."""

    def handle(self, path, headers, raw, roll):
        if headers.get("Authorization") != f"Bearer {self.key}":
            return 401, {}, {"error": "unauthorized"}
        body = json.loads(raw)
        items = body["batch"] if "batch" in body else [body]
        bad = self.misbehave(roll, [i["text"] for i in items])
        if bad:
            return 503, {"Retry-After": "0"}, {"error": "unavailable"}
        with self.lock:
            self.max_batch = max(self.max_batch, len(items))
        out = []
        for i in items:
            h, t = i["head"], i["tail"]
            married = i["text"][min(h["end"], t["end"]):max(h["start"], t["start"])] == " married "
            assert i["text"][h["start"]:h["end"]] == h["text"]
            out.append({"rel": "per:spouse" if married else "no_relation", "p": 0.9})
        return 200, {"Content-Type": "application/json"}, ({"out": out} if "batch" in body
                                                           else out[0])


TEXT = "Anna Keller married Tom Brandt in 2009 and met Lena Park."


def test_batched_requests_and_labels(monkeypatch):
    monkeypatch.setenv("RE_TOKEN", TOKEN)
    a = source(TEXT, "Anna Keller", "PERSON", "Tom Brandt", "PERSON").input
    b = source(TEXT, "Anna Keller", "PERSON", "Lena Park", "PERSON").input
    with RelationServer(key=TOKEN) as srv:
        sut = HttpRE(url=srv.url + "/re", headers={"Authorization": "Bearer ${RE_TOKEN}"},
                     request={"batch": "$inputs"},
                     response={"predictions": "out", "label": "rel", "score": "p"},
                     label_map={"per:spouse": "per:spouse"}, batch_size=8)
        preds = sut.predict_outcomes([a, b, a.swapped(), a])
    assert [p.label for p in preds] == ["per:spouse", "no_relation", "per:spouse", "per:spouse"]
    assert preds[0].score == pytest.approx(0.9)
    assert srv.requests == 1 and srv.max_batch == 3          # the repeated input sent once
    assert TOKEN not in json.dumps(sut.describe())


def test_one_input_per_request_and_failures(monkeypatch):
    monkeypatch.setenv("RE_TOKEN", TOKEN)
    a = source(TEXT, "Anna Keller", "PERSON", "Tom Brandt", "PERSON").input
    bad = source("Anna Keller married [[FAIL]] Tom Brandt.", "Anna Keller", "PERSON",
                 "Tom Brandt", "PERSON").input
    with RelationServer(key=TOKEN) as srv:
        sut = HttpRE(url=srv.url, headers={"Authorization": "Bearer ${RE_TOKEN}"},
                     request={"text": "$text", "head": "$head", "tail": "$tail"},
                     response={"label": "rel"}, retry={"max_retries": 1, "backoff_base": 0})
        ok, failed = sut.predict_outcomes([a, bad])
    assert ok.label == "per:spouse"
    assert isinstance(failed, SUTFailure) and "503" in failed.reason


def test_template_and_variables_are_checked(monkeypatch):
    monkeypatch.delenv("RE_TOKEN", raising=False)
    with pytest.raises(ModelNotAvailable, match="must hold"):
        HttpRE(url="http://127.0.0.1:9", request={"x": 1})
    with pytest.raises(ModelNotAvailable, match="RE_TOKEN"):
        HttpRE(url="http://127.0.0.1:9", headers={"Authorization": "Bearer ${RE_TOKEN}"})
