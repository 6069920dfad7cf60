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


RE_MODEL = '''
def predict(batch):
    """(text, head, tail) → a relation: "married" between them is per:spouse; "BOOM" raises;
    "BAD" answers a number."""
    out = []
    for x in batch:
        if "BOOM" in x["text"]:
            raise RuntimeError("model exploded")
        if "BAD" in x["text"]:
            out.append(7)
            continue
        between = x["text"][x["head"]["end"]:x["tail"]["start"]]
        out.append({"label": "spouse", "score": 0.8} if between == " married " else "no_relation")
    return out
'''


def test_python_system_for_relation_extraction(tmp_path, monkeypatch):
    from runner.sut.python_sut import build_python_system
    from runner.tasks import get_task

    (tmp_path / "scripted_re.py").write_text(RE_MODEL, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        sut = build_python_system(task=get_task("re"), callable="scripted_re:predict",
                                  label_map={"spouse": "per:spouse"}, batch_size=4)
        a = source(TEXT, "Anna Keller", "PERSON", "Tom Brandt", "PERSON").input
        boom = source("BOOM Keller married Tom Brandt.", "Tom Brandt", "PERSON", "Keller",
                      "PERSON").input
        bad = source("BAD Keller married Tom Brandt.", "Keller", "PERSON", "Tom Brandt",
                     "PERSON").input
        p, q, r, s = sut.predict_outcomes([a, a.swapped(), boom, bad])
    finally:
        sys.modules.pop("scripted_re", None)
    assert (p.label, p.raw_label, p.score) == ("per:spouse", "spouse", 0.8)
    assert q.label == "no_relation"
    assert isinstance(r, SUTFailure) and "model exploded" in r.reason
    assert isinstance(s, SUTFailure) and "relation label" in s.reason
