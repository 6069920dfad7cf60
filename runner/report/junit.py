"""JUnit XML for CI servers: ``testsuites/testsuite/testcase/failure``.

One ``testcase`` per transformation × relation (classname = the transformation, name = the
relation). A test case fails when its violation rate exceeds the limit that applies to it: the
relation's threshold in ``report.fail_on.relations``, else ``report.fail_on.max_violation_rate``,
else 0 (any violation fails it). The failure carries the first violations as examples. A row with
no judged case is ``skipped``; cases the system could not answer are counted in ``system-out``.
"""
from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from runner.report.display import visible_text
from runner.report.triage import is_false_alarm
from runner.report.writers import CaseSource, cases_of

EXAMPLES_PER_CASE = 5
# Characters XML 1.0 cannot carry at all (escaping does not help): replaced by U+FFFD.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(value: Any) -> str:
    return _NOT_XML.sub("\ufffd", str(value))


def row_limit(results: dict[str, Any], relation: str,
              group: str | None = None) -> tuple[float, str]:
    """The limit a transformation × relation row is held to: its relation's threshold, else its
    group's (robustness, bias...), else the overall one, else 0."""
    fail_on = results["suite"]["filled"]["report"].get("fail_on", {}) or {}
    per_rel = fail_on.get("relations") or {}
    per_group = fail_on.get("groups") or {}
    if per_rel.get(relation) is not None:
        return float(per_rel[relation]), f"report.fail_on.relations.{relation}"
    if group is not None and per_group.get(group) is not None:
        return float(per_group[group]), f"report.fail_on.groups.{group}"
    if fail_on.get("max_violation_rate") is not None:
        return float(fail_on["max_violation_rate"]), "report.fail_on.max_violation_rate"
    return 0.0, "no threshold: any violation fails"


def describe_example(case: dict[str, Any], task: Any = None) -> str:
    """One violation as plain text; untrusted text with hidden characters shown as markers."""
    if task is None:
        from runner.tasks import DEFAULT_TASK, get_task

        task = get_task(DEFAULT_TASK)
    v = visible_text
    lines = [v(case["id"]), f"  source:    {v(case['source']['text'])}",
             f"  follow-up: {v(case['follow_up']['text'])}"]
    difference = task.difference_text(case)
    if difference:
        lines.append(f"  {v(difference)}")
    return "\n".join(lines)


def build_junit(results: dict[str, Any], cases: CaseSource) -> ET.Element:
    from runner.tasks import task_of_results

    task = task_of_results(results)
    examples: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for case in cases_of(cases):
        if case["verdict"]["outcome"] == "fail" and not is_false_alarm(case):
            bucket = examples.setdefault((case["transformation"], case["relation"]), [])
            if len(bucket) < EXAMPLES_PER_CASE:
                bucket.append(case)
    suite_name = results["suite"]["name"]
    duration = float(results["run"].get("duration_s") or 0.0)
    rows = results.get("summary", [])
    root = ET.Element("testsuites", name=xml_text(f"mtrun {suite_name}"))
    suite = ET.SubElement(root, "testsuite", name=xml_text(suite_name),
                          timestamp=str(results["run"].get("started", "")).replace("+00:00", ""),
                          hostname="localhost")
    props = ET.SubElement(suite, "properties")
    sut = results.get("components", {}).get("sut", {})
    for name, value in (("mtrun.version", results.get("versions", {}).get("mtrun", "")),
                        ("sut", f"{sut.get('type', '')} {sut.get('model', '')}".strip()),
                        ("seed", results["run"].get("seed")),
                        ("run.status", results["run"].get("status")),
                        ("overall.violation_rate", results["overall"].get("violation_rate")),
                        ("thresholds.status", results["thresholds"].get("status"))):
        ET.SubElement(props, "property", name=name, value=xml_text("" if value is None else value))
    n_fail = n_skip = 0
    for row in rows:
        t, rel = row["transformation"], row["relation"]
        judged = row["pass"] + row["fail"]
        tc = ET.SubElement(suite, "testcase", classname=xml_text(f"{suite_name}.{t}"),
                           name=xml_text(rel),
                           time=f"{duration * row['cases'] / max(results['overall']['cases'], 1):.3f}")
        rate = row["violation_rate"]
        limit, why = row_limit(results, rel, row.get("group"))
        if rate is None:
            n_skip += 1
            ET.SubElement(tc, "skipped", message=f"no judged case ({row['skip']} skipped, "
                                                 f"{row['error']} errors)")
        elif rate > limit:
            n_fail += 1
            message = (f"{t} × {rel}: violation rate {rate:.1%} ({row['fail']} of {judged}) exceeds "
                       f"{limit:.1%} ({why})")
            failure = ET.SubElement(tc, "failure", message=xml_text(message),
                                    type="MetamorphicRelationViolation")
            shown = examples.get((t, rel), [])
            failure.text = xml_text(
                message + f"\n\nFirst {len(shown)} of {row['fail']} violations:\n\n"
                + "\n\n".join(describe_example(c, task) for c in shown) + "\n")
        out = ET.SubElement(tc, "system-out")
        out.text = xml_text(f"sources {row['sources']}, applicable {row['applicable_sources']}, "
                            f"follow-ups {row['follow_ups']}, pass {row['pass']}, "
                            f"violations {row['fail']}, skip {row['skip']}, error {row['error']}, "
                            f"rate {'–' if rate is None else f'{rate:.1%}'}, limit {limit:.1%} ({why})")
    # One test case per group of transformations that has a threshold (report.fail_on.groups).
    n_groups = 0
    fail_on_groups = (results["suite"]["filled"]["report"].get("fail_on") or {}).get("groups") or {}
    for group, counts in sorted((results.get("groups") or {}).items()):
        ET.SubElement(props, "property", name=f"group.{group}.violation_rate",
                      value=xml_text("" if counts.get("violation_rate") is None
                                     else counts["violation_rate"]))
        if fail_on_groups.get(group) is None:
            continue
        n_groups += 1
        limit, rate = float(fail_on_groups[group]), counts.get("violation_rate")
        tc = ET.SubElement(suite, "testcase", classname=xml_text(f"{suite_name}.groups"),
                           name=xml_text(group), time="0.000")
        judged = counts["pass"] + counts["fail"]
        summary = (f"group {group} ({', '.join(counts['transformations'])}): violation rate "
                   f"{'–' if rate is None else f'{rate:.1%}'} ({counts['fail']} of {judged}), "
                   f"limit {limit:.1%} (report.fail_on.groups.{group})")
        if rate is None:
            n_skip += 1
            ET.SubElement(tc, "skipped", message=xml_text(summary))
        elif rate > limit:
            n_fail += 1
            ET.SubElement(tc, "failure", message=xml_text(summary),
                          type="MetamorphicRelationViolation").text = xml_text(summary)
        ET.SubElement(tc, "system-out").text = xml_text(summary)
    n_tests = len(rows) + n_groups
    added = task.junit_cases(results, suite, suite_name)
    n_tests, n_fail, n_skip = n_tests + added[0], n_fail + added[1], n_skip + added[2]
    for el in (root, suite):
        el.set("tests", str(n_tests))
        el.set("failures", str(n_fail))
        el.set("errors", "0")
        el.set("time", f"{duration:.3f}")
    suite.set("skipped", str(n_skip))  # testsuites has no such attribute in the Jenkins schema
    return root


def write_junit(results: dict[str, Any], cases: CaseSource, out_path: Path) -> Path:
    root = build_junit(results, cases)
    ET.indent(root)
    tmp = out_path.with_name(out_path.name + ".tmp")
    ET.ElementTree(root).write(tmp, encoding="utf-8", xml_declaration=True)
    os.replace(tmp, out_path)
    return out_path
