"""Triage in a real browser (headless Debian chromium through the DevTools protocol): a reader
marks two violations of a run's report, exports the triage file, and the next run reads it — the
false alarm leaves the violation rate and the table for its own section, the confirmed one stays,
validity is shown.

CI (CI=true) must have chromium: there a missing browser is a failure, elsewhere a skip."""
import json

import pytest

from cdp import Browser
from helpers import chromium_or_skip
from runner.cli import main
from runner.errors import ExitCode

pytestmark = pytest.mark.slow

# The scripted system knows "Emmanuel Macron" only in second place: shuffling the two names of
# the first four sentences breaks it; the last two always pass.
CORPUS = ["Angela Merkel met Emmanuel Macron in Paris.",
          "Angela Merkel called Emmanuel Macron on Monday.",
          "Angela Merkel and Emmanuel Macron spoke in Berlin.",
          "Angela Merkel thanked Emmanuel Macron for the visit.",
          "Olaf Scholz met Rishi Sunak in London.",
          "Olaf Scholz called Rishi Sunak on Friday."]
NAMES = ("Angela Merkel", "Emmanuel Macron", "Olaf Scholz", "Rishi Sunak")


def scripted(self, texts):
    out = []
    for t in texts:
        found = sorted((t.index(n), t.index(n) + len(n), n) for n in NAMES if n in t)
        spans = [(a, b, "PERSON", None) for a, b, _ in found]
        if len(found) == 2 and found[0][2] == "Emmanuel Macron":
            spans[1] = (found[1][0], found[1][1], "ORG", None)
        out.append(spans)
    return out


@pytest.fixture()
def browser(tmp_path):
    b = Browser(chromium_or_skip(), tmp_path / "profile")
    yield b
    b.close()


def _open_and_mark(browser, case_id, mark):
    browser.eval(f"""new Promise(done => {{
        const row = document.getElementById({json.dumps(case_id)});
        row.querySelector('details').open = true;
        setTimeout(() => {{ row.querySelector('button[data-mark="{mark}"]').click(); done(); }}, 100);
    }})""")


def test_marks_exported_from_the_report_change_the_next_run(browser, tmp_path, monkeypatch):
    from runner.tasks.ner.sut.spacy_sut import SpacyNER

    monkeypatch.setattr(SpacyNER, "_predict_raw", scripted)
    (tmp_path / "corpus.txt").write_text("\n".join(CORPUS) + "\n", encoding="utf-8")
    suite = tmp_path / "s.yaml"
    suite.write_text("name: triage\ntask: ner\nsut: {type: spacy}\ncorpus: {path: corpus.txt}\n"
                     "transformations:\n  - type: entity_shuffle\n", encoding="utf-8")
    assert main([str(suite), "-o", str(tmp_path / "first"), "-q"]) == ExitCode.OK
    first = json.loads((tmp_path / "first" / "results.json").read_text(encoding="utf-8"))
    assert (first["overall"]["fail"], first["overall"]["pass"]) == (4, 2)
    fails = [c for c in first["cases"] if c["verdict"]["outcome"] == "fail"]

    browser.open(tmp_path / "first" / "report.html")
    assert browser.eval("document.getElementById('tcontrols').hidden") is False
    _open_and_mark(browser, fails[0]["id"], "false_alarm")
    _open_and_mark(browser, fails[1]["id"], "confirmed")
    assert browser.eval("document.getElementById('tcount').textContent") == \
        "1 confirmed, 1 false alarm(s) marked"
    browser.eval("document.getElementById('texport').click()")
    exported = browser.eval("document.getElementById('tjson').value")
    assert browser.errors == []
    browser.screenshot(tmp_path / "triage-marked.png")
    data = json.loads(exported)
    assert [(m["id"], m["mark"]) for m in data["marks"]] == [
        (fails[0]["id"], "false_alarm"), (fails[1]["id"], "confirmed")]
    assert data["marks"][0]["follow_up"] == fails[0]["follow_up"]["text"]
    (tmp_path / "triage.json").write_text(exported, encoding="utf-8")

    assert main([str(suite), "-o", str(tmp_path / "second"), "-q",
                 "--triage", str(tmp_path / "triage.json")]) == ExitCode.OK
    second = json.loads((tmp_path / "second" / "results.json").read_text(encoding="utf-8"))
    # the false alarm is out of the rate: 3 of 5 judged instead of 4 of 6
    assert first["overall"]["violation_rate"] == pytest.approx(4 / 6)
    assert (second["overall"]["fail"], second["overall"]["false_alarms"]) == (3, 1)
    assert second["overall"]["violation_rate"] == pytest.approx(3 / 5)
    assert second["triage"]["validity"] == pytest.approx(0.5)
    assert second["triage"]["per_transformation"]["entity_shuffle"]["unmarked"] == 2

    browser.open(tmp_path / "second" / "report.html")
    assert browser.errors == []
    assert browser.eval("document.querySelectorAll('#vbody > tr').length") == 3
    assert browser.eval(f"!!document.querySelector('#vbody').querySelector("
                        f"'[id={json.dumps(fails[0]['id'])}]')") is False
    assert browser.eval("document.querySelectorAll('#fabody .case').length") == 1
    assert browser.eval(f"document.getElementById({json.dumps(fails[1]['id'])})"
                        ".querySelector('.tmark').textContent") == "confirmed"
    assert browser.eval("document.getElementById('validity-card').textContent").count("50.0%") == 1
    assert "entity_shuffle" in browser.eval("document.getElementById('validity').textContent")
    # the marks made before come back into the page: exporting again keeps them
    browser.eval("document.getElementById('texport').click()")
    again = json.loads(browser.eval("document.getElementById('tjson').value"))
    assert sorted(m["mark"] for m in again["marks"]) == ["confirmed", "false_alarm"]
    browser.screenshot(tmp_path / "triage-second-run.png", full_page=True)
