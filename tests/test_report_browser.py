"""The HTML report in a real browser (headless Debian chromium through the DevTools protocol): no
console error, filters and search hide rows, sorting reorders them, hostile text stays text, the
page reads with JavaScript off, and a report of 10,000 violations stays under 20 MB (its first-paint
time is printed, not asserted). Screenshots are saved next to the report in the test's tmp folder.

CI (CI=true) must have chromium: there a missing browser is a failure, elsewhere a skip."""
import os

import pytest

from cdp import Browser, find_chromium, metrics_js
from runner.report.display import visible_text
from runner.report.outputs import write_outputs
from synthetic import HOSTILE, synthetic_run

pytestmark = pytest.mark.slow

N = 10_000


@pytest.fixture(scope="module")
def chromium():
    path = find_chromium()
    if path is None:
        message = ("chromium is not installed (Debian: apt-get install -y chromium); the README's "
                   "test command installs it")
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def big_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("big")
    results, cases = synthetic_run(N, 1500, description=HOSTILE)
    write_outputs(results, cases, out, ["html", "json"])
    return out / "report.html", results, cases


@pytest.fixture()
def browser(chromium, tmp_path):
    b = Browser(chromium, tmp_path / "profile")
    # a script the page must never run: any alert() is recorded instead of blocking
    b.send("Page.addScriptToEvaluateOnNewDocument",
           source="window.__alerts = []; window.alert = function (m) { window.__alerts.push(String(m)); };")
    yield b
    b.close()


VISIBLE = "Array.from(document.querySelectorAll('#vbody > tr')).filter(tr => !tr.hidden).length"


def _select(b, key, value):
    b.eval(f"""(() => {{ const s = document.querySelector('#vcontrols [data-f="{key}"]');
        s.value = {value!r}; s.dispatchEvent(new Event('change')); }})()""")


def test_ten_thousand_violations_in_the_browser(big_report, browser, tmp_path):
    html, results, cases = big_report
    size = html.stat().st_size
    print(f"\nreport.html with {N} violations: {size / 1e6:.1f} MB")
    assert size < 20_000_000
    browser.open(html)
    timing = browser.eval(metrics_js())
    print("first screen in chromium: first contentful paint "
          f"{timing['first_contentful_paint_ms']:.0f} ms, largest contentful paint "
          f"{timing['largest_contentful_paint_ms']:.0f} ms; whole page parsed (DOMContentLoaded) "
          f"{timing['dom_content_loaded_ms']:.0f} ms, load {timing['load_ms']:.0f} ms")
    shot = browser.screenshot(tmp_path / "report-first-screen.png")
    print(f"screenshot: {shot}")
    assert shot.stat().st_size > 10_000
    assert browser.errors == []
    assert browser.eval("window.__alerts") == []
    # the first screen: verdict badge, the thresholds table and the charts
    assert browser.eval("document.querySelector('header .badge').textContent") in ("PASS", "FAIL")
    assert browser.eval("document.querySelectorAll('#checks tbody tr').length") == 1 + len(results["relations"])
    assert browser.eval("document.querySelectorAll('svg.chart').length") >= 2
    assert browser.eval(VISIBLE) == N
    assert browser.eval("document.getElementById('vcontrols').hidden") is False

    # filter by relation: exactly that relation's violations stay visible
    rel_index = browser.eval("JSON.parse(document.getElementById('mtrun-index').textContent).relations.indexOf('MR1')")
    elapsed = browser.eval(f"""(() => {{ const t0 = performance.now();
        const s = document.querySelector('#vcontrols [data-f="r"]');
        s.value = '{rel_index}'; s.dispatchEvent(new Event('change'));
        document.body.offsetHeight; return performance.now() - t0; }})()""")
    print(f"filtering {N} rows by relation: {elapsed:.0f} ms")
    want = sum(1 for c in cases if c["verdict"]["outcome"] == "fail" and c["relation"] == "MR1")
    assert 0 < browser.eval(VISIBLE) == want < N
    assert f"{want} of {N} shown" == browser.eval("document.getElementById('vcount').textContent")
    # and by category on top
    _select(browser, "c", "omission")
    want2 = sum(1 for c in cases if c["verdict"]["outcome"] == "fail" and c["relation"] == "MR1"
                and "omission" in c["verdict"]["categories"])
    assert browser.eval(VISIBLE) == want2 < want
    _select(browser, "c", "")
    _select(browser, "r", "")
    assert browser.eval(VISIBLE) == N

    # search (debounced): the hostile sentences only
    browser.eval("(() => { const q = document.getElementById('vsearch'); q.value = '<script>alert';"
                 " q.dispatchEvent(new Event('input')); })()")
    browser.eval("new Promise(r => setTimeout(r, 400))")
    want3 = sum(1 for c in cases if c["verdict"]["outcome"] == "fail" and "<script>" in c["source"]["text"])
    assert 0 < browser.eval(VISIBLE) == want3 < N
    first_visible = browser.eval("Array.from(document.querySelectorAll('#vbody > tr')).find(tr => !tr.hidden).querySelector('.src').textContent")
    # shown as text, with its hidden characters as markers (runner/report/display.py)
    assert visible_text(HOSTILE) in first_visible
    browser.screenshot(tmp_path / "report-filtered.png")

    # sort by transformation, both ways, then back by #
    shown_in_order = ("Array.from(document.querySelectorAll('#vbody > tr'))"
                      ".sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)"
                      ".filter(tr => !tr.hidden).map(tr => tr.cells[1].textContent)")
    elapsed = browser.eval("(() => { const t0 = performance.now();"
                           " document.querySelector('#vtable th[data-sort=\"t\"]').click();"
                           " document.body.offsetHeight; return performance.now() - t0; })()")
    print(f"sorting {N} rows: {elapsed:.0f} ms")
    order = browser.eval(shown_in_order)
    assert len(order) == want3 and order == sorted(order)
    browser.eval("document.querySelector('#vtable th[data-sort=\"t\"]').click()")
    order = browser.eval(shown_in_order)
    assert order == sorted(order, reverse=True) and order[0] != order[-1]
    browser.eval("document.querySelector('#vtable th[data-sort=\"n\"]').click()")
    numbers = browser.eval(shown_in_order.replace("cells[1]", "cells[0]"))
    assert [int(x) for x in numbers] == sorted(int(x) for x in numbers)

    # opening a row shows the side-by-side view with entities and marked changes
    browser.eval("document.querySelector('#vbody > tr:not([hidden]) details').open = true")
    assert browser.eval("document.querySelector('#vbody details[open] .sbs .ent') !== null")
    assert browser.eval("document.querySelector('#vbody details[open] .sbs .chg') !== null")
    # only the report's own inline scripts: the hostile text never became an element
    # (the table's index and script, the triage rows and script)
    assert browser.eval("document.scripts.length") == 4
    assert browser.eval("Array.from(document.scripts).every(s => !s.src)")
    assert browser.eval("document.title").startswith("mtrun report")
    data = browser.eval("JSON.parse(document.getElementById('mtrun-index').textContent).thresholds")
    assert data == results["thresholds"]
    assert browser.errors == []
    assert browser.eval("window.__alerts") == []


def test_hostile_text_in_embedded_json_round_trips(browser, tmp_path):
    results, cases = synthetic_run(14, 3, description=HOSTILE)
    for c in cases:  # hostile ids too: they are in the embedded JSON
        c["id"] = HOSTILE + c["id"]
    write_outputs(results, cases, tmp_path, ["html"])
    browser.open(tmp_path / "report.html")
    assert browser.errors == []
    assert browser.eval("window.__alerts") == []
    ids = browser.eval("JSON.parse(document.getElementById('mtrun-index').textContent).rows.map(r => r[0])")
    assert ids == [c["id"] for c in cases if c["verdict"]["outcome"] == "fail"]
    assert browser.eval("document.querySelector('header div').textContent") == visible_text(HOSTILE)


def test_readable_with_javascript_off(chromium, tmp_path):
    results, cases = synthetic_run(30, 10)
    write_outputs(results, cases, tmp_path, ["html"])
    b = Browser(chromium, tmp_path / "profile")
    try:
        b.send("Emulation.setScriptExecutionDisabled", value=True)
        b.open(tmp_path / "report.html")
        b.send("Emulation.setScriptExecutionDisabled", value=False)  # to inspect the page
        # nothing the script would have done happened, and everything is there to read
        assert b.eval("document.getElementById('vcontrols').hidden") is True
        assert b.eval("getComputedStyle(document.getElementById('vcontrols')).display") == "none"
        # every violation's side-by-side view is there, behind a native <details>
        assert b.eval("document.querySelectorAll('#vbody details .sbs .ent').length") > 30
        assert b.eval("document.querySelectorAll('#vbody > tr').length") == 30
        assert b.eval("document.querySelectorAll('svg.chart').length") >= 2
        assert b.eval("document.getElementById('vcount').textContent") == "30 shown"
        b.screenshot(tmp_path / "report-no-js.png")
        # printed without JavaScript, the closed rows print their side-by-side view too
        assert b.eval("document.querySelector('#vbody .sbs').checkVisibility()") is False
        b.send("Emulation.setEmulatedMedia", media="print")
        assert b.eval("document.querySelector('#vbody .sbs').checkVisibility()") is True
        assert b.errors == []
    finally:
        b.close()


def test_printable_view_opens_the_shown_rows(browser, tmp_path):
    results, cases = synthetic_run(20, 0)
    write_outputs(results, cases, tmp_path, ["html"])
    browser.open(tmp_path / "report.html")
    _select(browser, "r", "0")
    shown = browser.eval(VISIBLE)
    browser.send("Emulation.setEmulatedMedia", media="print")
    browser.eval("window.dispatchEvent(new Event('beforeprint'))")
    assert browser.eval("document.querySelectorAll('#vbody details[open]').length") == shown
    assert browser.eval("getComputedStyle(document.getElementById('vcontrols')).display") == "none"
    pdf = browser.send("Page.printToPDF")["data"]
    assert len(pdf) > 1000
    browser.eval("window.dispatchEvent(new Event('afterprint'))")
    assert browser.eval("document.querySelectorAll('#vbody details[open]').length") == 0
    assert browser.errors == []


def test_hidden_characters_from_the_corpus_are_shown_as_markers(browser, tmp_path, monkeypatch):
    """A corpus sentence with a right-to-left override, a zero-width space and a NUL byte: the
    report shows each as a marked ⟨U+XXXX⟩ (never applies the override), entities after them are
    highlighted on the right characters, and results.json keeps the raw text."""
    import json

    from runner.cli import main
    from runner.errors import ExitCode
    from runner.tasks.ner.sut.spacy_sut import SpacyNER

    sentence = "Angela Merkel told \u202eX\u200b about Emmanuel Macron in Paris\x00 today."
    (tmp_path / "corpus.txt").write_text(sentence + "\n", encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "name: hidden\ntask: ner\nsut: {type: spacy}\ncorpus: {path: corpus.txt}\n"
        "transformations:\n  - type: entity_shuffle\n", encoding="utf-8")

    def scripted(self, texts):
        # knows "Emmanuel Macron" only in second place: shuffling the two names breaks it
        out = []
        for t in texts:
            spans = sorted((t.index(n), t.index(n) + len(n), n) for n in ("Angela Merkel", "Emmanuel Macron"))
            (a0, a1, _), (b0, b1, second) = spans
            out.append([(a0, a1, "PERSON", None),
                        (b0, b1, "PERSON" if second == "Emmanuel Macron" else "ORG", None)])
        return out

    monkeypatch.setattr(SpacyNER, "_predict_raw", scripted)
    out = tmp_path / "out"
    assert main([str(tmp_path / "s.yaml"), "-o", str(out), "-q"]) == ExitCode.OK
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["overall"]["fail"] == 1
    assert results["cases"][0]["source"]["text"] == sentence  # raw: override, ZWSP and NUL kept

    browser.open(out / "report.html")
    assert browser.errors == []
    browser.eval("document.querySelector('#vbody details').open = true")
    # the row shows the source once, then the change and the follow-up
    source = browser.eval("document.querySelector('#vbody .src').textContent")
    assert source == "Angela Merkel told ⟨U+202E⟩X⟨U+200B⟩ about Emmanuel Macron in Paris⟨U+0000⟩ today."
    summary = browser.eval("document.querySelector('#vbody summary').textContent")
    assert summary == ("moved 'Angela Merkel' ↔ 'Emmanuel Macron'Emmanuel Macron told ⟨U+202E⟩X⟨U+200B⟩ "
                       "about Angela Merkel in Paris⟨U+0000⟩ today.")
    # nothing hidden anywhere in the displayed page
    shown = browser.eval("document.body.innerText")
    for ch in ("\u202e", "\u200b", "\x00"):
        assert ch not in shown
    markers = browser.eval("""Array.from(document.querySelectorAll('#vbody .ctl')).map(e => [
        e.textContent, e.title, getComputedStyle(e).borderTopStyle, e.checkVisibility()])""")
    titles = {t for _, t, _, _ in markers}
    assert {"U+202E RIGHT-TO-LEFT OVERRIDE", "U+200B ZERO WIDTH SPACE", "U+0000 NULL"} <= titles
    assert all(style == "dashed" and visible for _, _, style, visible in markers)
    # the source side: both names highlighted on their own characters, after the override
    ents = browser.eval("""Array.from(document.querySelectorAll('#vbody .sbs > div:first-child .ent'))
        .map(e => e.firstChild.textContent + '|' + e.querySelector('.lab').textContent)""")
    assert ents == ["Angela Merkel|PERSON", "Emmanuel Macron|PERSON"]
    follow = browser.eval("document.querySelector('#vbody .sbs > div:last-child').textContent")
    assert "⟨U+202E⟩X⟨U+200B⟩" in follow and "Paris⟨U+0000⟩" in follow
    # the override did not reorder what follows it: the words read in order, line by line
    x = browser.eval("""(() => { const d = document.querySelector('#vbody .sbs > div:first-child');
        const r = document.createRange(), out = [];
        for (const word of ['told', 'X', 'about']) {
          const walker = document.createTreeWalker(d, NodeFilter.SHOW_TEXT);
          let n; while ((n = walker.nextNode())) { const i = n.textContent.indexOf(word);
            if (i >= 0) { r.setStart(n, i); r.setEnd(n, i + word.length);
              const b = r.getBoundingClientRect();
              out.push([Math.round(b.bottom), b.left]); break; } } }
        return out; })()""")
    assert x == sorted(x), x
    browser.eval("document.querySelector('#vbody details').scrollIntoView()")
    browser.screenshot(tmp_path / "report-hidden-characters.png")
    # the other outputs show the markers too
    md = (out / "summary.md").read_text(encoding="utf-8")
    assert "`⟨U+202E⟩`X`⟨U+200B⟩`" in md and "Paris`⟨U+0000⟩`" in md
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    assert "⟨U+202E⟩X⟨U+200B⟩ about Emmanuel Macron in Paris⟨U+0000⟩" in junit
    for text in (md, junit):
        assert "\u202e" not in text and "\u200b" not in text and "\x00" not in text
