"""The report's plain words: the one-line change of a follow-up (a table of cases), every
registered check with a title, one source's violations grouped, chart labels that wrap instead of
being cut, and results.json's per-transformation counts."""
from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from runner.report.charts import BAR_W, CHAR_W, MAX_LABEL_W, rate_chart
from runner.report.plain import change_line, group_sources


def _case(source: str, follow_up: str, edit: list[tuple[int, int, str]], **extra) -> dict:
    return {"source": {"text": source},
            "follow_up": {"text": follow_up, "edit": [{"start": a, "end": b, "new": n} for a, b, n in edit],
                          **extra}}


SRC = "Chancellor Olaf Brandt met President Élise Moreau in Berlin."
CHANGES = [
    # (follow-up, edit, expected line)
    ("Chancellor OLAF Brandt met President Élise Moreau in Berlin.", [(11, 15, "OLAF")], "Olaf → OLAF"),
    ("Chancellor Élise Moreau met President Olaf Brandt in Berlin.",
     [(11, 22, "Élise Moreau"), (37, 49, "Olaf Brandt")], "moved 'Olaf Brandt' ↔ 'Élise Moreau'"),
    ("Did Chancellor Olaf Brandt meet President Élise Moreau in Berlin?",
     [(0, 0, "Did "), (23, 26, "meet"), (59, 60, "?")], "question: Did Chancellor Olaf …?"),
    ("CHANCELLOR OLAF BRANDT MET PRESIDENT ÉLISE MOREAU IN BERLIN.", [(0, 60, SRC.upper())],
     "Chancellor → CHANCELLOR; Olaf → OLAF; Brandt → BRANDT (+6 more)"),
    ("Chancellor Olaf Brandt met President Élise Moreau in Berlin today.", [(59, 59, " today")],
     "Berlin → Berlin today"),
    ('Chancellor "Eric Stone" met President Élise Moreau in Berlin.',
     [(11, 22, '"Eric Stone"')], 'Olaf Brandt → "Eric Stone"'),
]


@pytest.mark.parametrize("follow_up, edit, want", CHANGES)
def test_change_line(follow_up, edit, want):
    assert change_line(_case(SRC, follow_up, edit)) == want


def test_change_line_of_a_relation_pair():
    case = _case(SRC, SRC, [], head={"text": "Olaf Brandt"}, tail={"text": "Berlin"},
                 meta={"expected_relation": "per:city_of_residence"})
    assert change_line(case) == "pair: Olaf Brandt → Berlin (expected per:city_of_residence)"


def test_every_registered_check_has_a_title_and_a_meaning():
    from runner.tasks import get_task

    for task in ("ner", "re", "coref"):
        regs = get_task(task).registries()
        for kind in ("transformations", "relations"):
            for e in regs[kind].entries():
                assert e.extra.get("title"), (task, kind, e.name)
                assert e.extra.get("violation"), (task, kind, e.name)


def test_violations_of_one_source_point_to_its_first_row():
    views = [{"source_text": t} for t in ("a", "a", "b", "a")]
    group_sources(views)
    assert [(v["row"], v["source_first"], v["source_count"]) for v in views] == [
        (1, 1, 3), (2, 1, 3), (3, 3, 1), (4, 1, 3)]


def test_chart_labels_wrap_and_values_fit():
    label = "A very long plain title of a check that would not fit in the label column\nits_name · MR2"
    svg = str(rate_chart([{"label": label, "rate": 0.451, "max": 0.3, "limit_name": "robustness max"}],
                         "t"))
    width = int(re.search(r'width="(\d+)"', svg).group(1))
    lines = re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg)
    assert " ".join(lines).replace("\n", " ") == label.replace("\n", " ")  # nothing cut
    assert len(lines) > 2 and all(len(x) * CHAR_W <= MAX_LABEL_W for x in lines)
    value = "45.1% (robustness max 30%)"
    x = float(re.search(r'<text x="([\d.]+)"[^>]*class="val">' + re.escape(value), svg).group(1))
    assert x + len(value) * CHAR_W <= width
    assert width >= BAR_W


def test_per_transformation_counts_sum_the_relations():
    from runner.results import per_transformation_stats
    from runner.tally import Counts

    def counts(p, f):
        c = Counts()
        c.outcomes["pass"], c.outcomes["fail"] = p, f
        return c

    engine = SimpleNamespace(
        sources_done=10,
        per_transformation={"case": Counts(sources=3, applicable=2, follow_ups=4)},
        counts={("case", "MR1"): counts(3, 1), ("case", "MR2"): counts(2, 2), ("other", "MR2"): counts(5, 0)})
    got = per_transformation_stats(engine)["case"]
    assert (got["sources"], got["follow_ups"], got["pass"], got["fail"], got["cases"]) == (3, 4, 5, 3, 8)
    assert got["violation_rate"] == 3 / 8
    assert got["violations_per_100_sources"] == 30.0  # of the 10 sources read, not its 3
