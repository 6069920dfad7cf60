"""The http system under test: a request template and a response mapping, against a local JSON
endpoint that counts in UTF-16 units, nests its answer, and fails now and then."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from remote_fixtures import SENTENCES, every_file_text, load_results, write_suite  # noqa: E402
from wire_servers import WireServer, recognise, utf16_len  # noqa: E402

from runner.cli import main  # noqa: E402
from runner.errors import ExitCode  # noqa: E402

TOKEN = "tok-http-SECRET-777"


class InHouseServer(WireServer):
    """POST {"inputs": [...], "options": {...}} → {"data": {"items": [{"ents": [...]}]}};
    offsets in UTF-16 code units, as a JavaScript service would count."""

    def handle(self, path, headers, raw, roll):
        if headers.get("Authorization") != f"Bearer {self.key}":
            return 401, {"Content-Type": "application/json"}, {"error": "unauthorized"}
        body = json.loads(raw)
        texts = body["inputs"]
        assert body["options"] == {"lang": "en"}
        bad = self.misbehave(roll, texts)
        if bad == "429":
            self.answered_429 += 1
            return 429, {"Retry-After": "0"}, {"error": "slow down"}
        if bad == "500":
            self.answered_500 += 1
            return 503, {}, {"error": "unavailable"}
        with self.lock:
            self.max_batch = max(self.max_batch, len(texts))
            self.texts_seen += texts
        items = [{"ents": [{"span": {"b": utf16_len(t[:s]), "n": utf16_len(t[s:e])},
                            "tag": {"person": "PER", "location": "LOC",
                                    "organization": "ORG"}[k], "p": 0.5, "surface": name}
                           for s, e, name, k in recognise(t)]} for t in texts]
        return 200, {"Content-Type": "application/json"}, {"data": {"items": items}}


SUT = """  type: http
  url_env: TEST_NER_URL
  headers: {Authorization: "Bearer ${TEST_NER_TOKEN}"}
  request: {inputs: $texts, options: {lang: en}}
  response: {documents: data.items, entities: ents, start: span.b, length: span.n, end: null,
             label: tag, text: surface, score: p}
  offsets: utf16
  batch_size: 7
  retry: {max_retries: 8, backoff_base: 0.001, backoff_max: 0.01}
"""


def test_http_endpoint_run(tmp_path, monkeypatch, capsys):
    with InHouseServer(key=TOKEN, p429=0.2, p500=0.1) as server:
        monkeypatch.setenv("TEST_NER_URL", server.url + "/ner?x=1")
        monkeypatch.setenv("TEST_NER_TOKEN", TOKEN)
        suite = write_suite(tmp_path, SUT, n_repeat=3, with_long=False,
                            extra=f"cache: {{path: {tmp_path / 'c.sqlite'}}}\n")
        code = main([str(suite), "-o", str(tmp_path / "out"), "-q"])
    assert code == ExitCode.SYSTEM_ERRORS  # the [[FAIL]] sentences are never answered
    assert 1 < server.max_batch <= 7 and server.answered_429 + server.answered_500 > 0
    r = load_results(tmp_path / "out")
    assert r["run"]["sources_done"] == len(SENTENCES) * 3
    cases = r["cases"]
    assert "fail" in {c["verdict"]["outcome"] for c in cases}
    errors = {c["source_id"] for c in cases if c["verdict"]["outcome"] == "error"}
    assert errors == {c["source_id"] for c in cases if "[[FAIL]]" in c["source"]["text"]}
    zoe = [c for c in cases if c["source"]["text"].startswith("🎉")]
    assert zoe and all(
        {c["source"]["text"][e["start"]:e["end"]] for e in c["source"]["entities"]}
        == {"Zoë Müller", "Angela Merkel", "New York"} for c in zoe)
    assert r["components"]["sut"]["url"].endswith("/ner")  # no query string kept
    printed = capsys.readouterr()
    assert TOKEN not in printed.out + printed.err + every_file_text(tmp_path)


def test_one_text_per_request(monkeypatch):
    from runner.tasks.ner.sut.http_sut import HttpNER

    class Single(WireServer):
        def handle(self, path, headers, raw, roll):
            text = json.loads(raw)["q"]
            return 200, {}, [{"s": s, "e": e, "t": k} for s, e, _, k in recognise(text)]

    with Single(key="") as server:
        sut = HttpNER(url=server.url, request={"q": "$text"},
                      response={"entities": "", "start": "s", "end": "e", "label": "t"},
                      label_map={"person": "PERSON"}, batch_size=16)
        preds = sut.predict(["Ann Smith met Bob Jones.", "Paris."])
    assert sut.batch_size == 1 and server.requests == 2
    assert [[s.label for s in p.spans] for p in preds] == [["PERSON", "PERSON"], []]


def test_template_without_texts_is_rejected_and_missing_variables_named(monkeypatch):
    from runner.errors import ModelNotAvailable
    from runner.tasks.ner.sut.http_sut import HttpNER

    with pytest.raises(ModelNotAvailable, match=r"\$texts"):
        HttpNER(url="http://127.0.0.1:9", request={"x": 1}, response={}, label_map={})
    monkeypatch.delenv("NOPE_TOKEN", raising=False)
    with pytest.raises(ModelNotAvailable, match="NOPE_TOKEN"):
        HttpNER(url="http://127.0.0.1:9", headers={"X-Key": "${NOPE_TOKEN}"}, response={},
                label_map={})


def test_an_entity_whose_text_is_not_in_the_sentence_is_dropped_and_counted():
    from runner.tasks.ner.sut.http_sut import HttpNER

    class Wrong(WireServer):
        def handle(self, path, headers, raw, roll):
            return 200, {}, {"docs": [[{"s": 0, "e": 3, "l": "PER", "w": "Ann"},
                                       {"s": 4, "e": 9, "l": "PER", "w": "Nobody"}]]}

    with Wrong(key="") as server:
        sut = HttpNER(url=server.url, response={"documents": "docs", "entities": "", "start": "s",
                                                "end": "e", "label": "l", "text": "w"},
                      label_map={"PER": "PERSON"})
        (pred,) = sut.predict(["Ann met Bob."])
    assert [(s.start, s.end) for s in pred.spans] == [(0, 3)]
    assert sut.stats()["unaligned_spans"] == 1
