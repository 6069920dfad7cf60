"""Thresholds per check and the bias gap: the rate of one transformation over all its relations,
and the largest difference between comparable bias checks."""
from runner.report.thresholds import bias_sets, evaluate_thresholds, per_transformation_rates


def _row(t, rel, fail, passed, group="robustness", type_="typos"):
    judged = fail + passed
    return {"transformation": t, "relation": rel, "type": type_, "group": group, "fail": fail,
            "pass": passed, "violation_rate": fail / judged if judged else None}


SUMMARY = [_row("typos_keyboard", "MR2", 3, 17), _row("typos_keyboard", "MR1", 1, 19),
           _row("punctuation_strip", "MR2", 0, 10),
           _row("names_anglo", "MR2", 1, 19, "bias", "entity_swap"),
           _row("names_nigerian", "MR2", 6, 14, "bias", "entity_swap"),
           _row("countries_low", "MR2", 2, 18, "bias", "entity_swap")]
TRANSFORMATIONS = [{"name": "typos_keyboard", "type": "typos"},
                   {"name": "punctuation_strip", "type": "punctuation"},
                   {"name": "names_anglo", "type": "entity_swap", "pool": "first_names"},
                   {"name": "names_nigerian", "type": "entity_swap", "pool": "first_names"},
                   {"name": "countries_low", "type": "entity_swap", "pool": "countries"}]


def test_a_check_rate_is_over_all_its_relations():
    rates = per_transformation_rates(SUMMARY)
    assert rates["typos_keyboard"]["rate"] == 4 / 40
    assert rates["punctuation_strip"]["rate"] == 0


def test_a_check_above_its_limit_fails_the_run():
    th = evaluate_thresholds({"transformations": {"typos_keyboard": 0.08,
                                                  "punctuation_strip": 0.05}},
                             {}, {}, summary=SUMMARY, transformations=TRANSFORMATIONS)
    assert th["status"] == "fail"
    assert [c["scope"] for c in th["checks"] if not c["passed"]] == ["check typos_keyboard"]
    assert th["reasons"] == ["check typos_keyboard violation rate 10.0% exceeds the threshold 8.0%"]


def test_the_bias_gap_compares_swaps_of_one_pool_only():
    sets = bias_sets({"max_gap": 0.05}, per_transformation_rates(SUMMARY), TRANSFORMATIONS)
    assert sets == [("entity_swap first_names", ["names_anglo", "names_nigerian"])]
    th = evaluate_thresholds({"bias": {"max_gap": 0.05}}, {}, {}, summary=SUMMARY,
                             transformations=TRANSFORMATIONS)
    (gap,) = th["checks"]
    assert gap["rate"] == 0.3 - 0.05 and not gap["passed"]
    assert "between names_anglo (5.0%) and names_nigerian (30.0%)" in th["reasons"][0]
    assert evaluate_thresholds({"bias": {"max_gap": 0.3}}, {}, {}, summary=SUMMARY,
                               transformations=TRANSFORMATIONS)["status"] == "pass"


def test_the_suite_may_name_what_is_compared():
    th = evaluate_thresholds({"bias": {"max_gap": 0.01, "compare": {
        "origin": ["names_anglo", "countries_low"]}}}, {}, {}, summary=SUMMARY)
    (gap,) = th["checks"]
    assert gap["scope"] == "bias gap origin" and round(gap["rate"], 6) == 0.05


def test_a_gap_with_fewer_than_two_judged_checks_cannot_fail():
    th = evaluate_thresholds({"bias": {"max_gap": 0.0, "compare": {"x": ["names_anglo", "gone"]}}},
                             {}, {}, summary=SUMMARY)
    assert th["checks"][0]["rate"] is None and th["status"] == "pass"
