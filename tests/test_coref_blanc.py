"""BLANC against the worked examples of the reference coreference scorer's test suite
(conll/reference-coreference-scorers, test/TestCases.README and CorefMetricTestConfig.pm; the
metric of Recasens & Hovy 2011 as extended by Luo et al. 2014). Each letter is a mention; the
expected values are (recall, precision, F1) as published there."""
import pytest

from runner.tasks.coref.blanc import blanc


def clusters(spec: str) -> list[list[str]]:
    """'{a} {bc} {def}' → [['a'], ['b', 'c'], ['d', 'e', 'f']]; 'B' is a duplicate of 'b'."""
    return [[ch.lower() for ch in part.strip("{}")] for part in spec.split()]


KEY_A = "{a} {bc} {def}"
REFERENCE_CASES = [
    # id, key, response, (R, P, F)
    ("A-1", KEY_A, "{a} {bc} {def}", (1, 1, 1)),
    ("A-2", KEY_A, "{a} {de}", (0.21591, 1, 0.35385)),
    ("A-3", KEY_A, "{a} {bcx} {defy} {z}", (1, 0.42593, 0.59717)),
    ("A-4", KEY_A, "{a} {bcx} {dy} {z}", (0.35227, 0.27206, 0.30357)),
    ("A-7", KEY_A, "{a} {bcxB} {dy} {z}", (0.35227, 0.27206, 0.30357)),   # duplicate removed
    ("A-8", KEY_A, "{a} {bcx} {dy} {Bz}", (0.35227, 0.27206, 0.30357)),
    ("A-10", KEY_A, "{a} {b} {c} {d} {e} {f}", (0.5, 0.36667, 0.42308)),
    ("A-11", KEY_A, "{abcdef}", (0.5, 0.13333, 0.21053)),
    ("A-12", KEY_A, "{a} {x} {y} {c} {d} {e} {z}", (0.22727, 0.11905, 0.15625)),
    ("A-13", KEY_A, "{axycdez}", (0.125, 0.02381, 0.04)),
    ("B-1", "{ab} {cde}", "{bcx} {de}", (7 / 24, 7 / 24, 7 / 24)),
    ("C-1", "{ab} {cde} {fg}", "{bcx} {de} {fg}", (0.5125, 0.5125, 0.5125)),
    ("M-1", "{abcdef}", "{abcdef}", (1, 1, 1)),
    ("M-2", "{abcdef}", "{a} {b} {c} {d} {e} {f}", (0, 0, 0)),
    ("M-3", "{abcdef}", "{ab} {cde} {f}", (4 / 15, 1, 8 / 19)),
    ("M-4", "{abcdef}", "{abcxyz}", (3 / 15, 3 / 15, 3 / 15)),
    ("M-5", "{abcdef}", "{a} {b} {c} {x} {y} {z}", (0, 0, 0)),
    ("M-6", "{abcdef}", "{ab} {cxy} {z}", (1 / 15, 1 / 4, 2 / 19)),
    ("N-1", "{a} {b} {c} {d} {e} {f}", "{a} {b} {c} {d} {e} {f}", (1, 1, 1)),
    ("N-2", "{a} {b} {c} {d} {e} {f}", "{abcdef}", (0, 0, 0)),
    ("N-3", "{a} {b} {c} {d} {e} {f}", "{ab} {cde} {f}", (11 / 15, 1, 22 / 26)),
    ("N-4", "{a} {b} {c} {d} {e} {f}", "{a} {b} {c} {x} {y} {z}", (3 / 15, 3 / 15, 3 / 15)),
    ("N-5", "{a} {b} {c} {d} {e} {f}", "{abcxyz}", (0, 0, 0)),
    ("N-6", "{a} {b} {c} {d} {e} {f}", "{ab} {cxy} {z}", (2 / 15, 2 / 11, 4 / 26)),
]


@pytest.mark.parametrize("case,key,response,expected", REFERENCE_CASES,
                         ids=[c[0] for c in REFERENCE_CASES])
def test_blanc_matches_reference_scorer(case, key, response, expected):
    score = blanc(clusters(key), clusters(response), corner_cases="reference")
    assert (score.recall, score.precision, score.f1) == pytest.approx(expected, abs=5e-5)


def test_parts_of_a2_are_the_published_link_counts():
    score = blanc(clusters(KEY_A), clusters("{a} {de}"), corner_cases="reference")
    assert score.coref[:2] == pytest.approx((1 / 4, 1))            # recall_c, prec_c
    assert score.non_coref[:2] == pytest.approx((2 / 11, 2 / 2))    # recall_n, prec_n


def test_luo_corner_cases_average_in_the_part_only_the_response_has():
    # N-6 under Luo et al.: the key has no coreference link but the response does, so the
    # coreference part scores 0 and is averaged in (the reference scorer reports F_n alone).
    luo = blanc(clusters("{a} {b} {c} {d} {e} {f}"), clusters("{ab} {cxy} {z}"))
    assert luo.f1 == pytest.approx((0 + 4 / 26) / 2)
    # Where key and response have both kinds of link the two agree.
    assert blanc(clusters(KEY_A), clusters("{a} {de}")).f1 == pytest.approx(0.35385, abs=5e-5)


def test_luo_corner_cases_make_a_new_cluster_a_disagreement():
    # Source without clusters, follow-up with one: no part of the key has a link, yet the
    # response's coreference link must count against it.
    score = blanc([], [["a", "b"]])
    assert score.precision == 0.0 and score.recall == 0.0
    assert blanc([["a", "b"]], []).recall == 0.0
    assert blanc([], []).f1 == 1.0
    assert blanc([["a", "b"]], [["a", "b"]]).f1 == 1.0


def test_twinless_mentions_lower_precision_or_recall():
    extra = blanc([["a", "b"], ["c", "d"]], [["a", "b", "x"], ["c", "d"]])
    assert extra.recall == 1.0 and extra.precision < 1.0
    missing = blanc([["a", "b", "x"], ["c", "d"]], [["a", "b"], ["c", "d"]])
    assert missing.precision == 1.0 and missing.recall < 1.0
