"""The documentation cannot drift: the README is short and starts with the four tasks, its example
output is what the default suite prints, the docs site's generated pages and blocks of figures are
up to date, no page quotes a figure outside them, and the site builds with `mkdocs build
--strict`."""
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _bench(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_is_short_and_names_the_four_tasks_first():
    lines = README.splitlines()
    assert len(lines) <= 250
    first = "\n".join(lines[:40]).lower()
    for task in ("named-entity recognition", "relation extraction", "coreference",
                 "adversarial attacks"):
        assert task in first, task


def test_the_docs_pages_show_the_readme_commands():
    page = (ROOT / "docs" / "pages" / "getting-started.md").read_text(encoding="utf-8")
    for name in ("main-command", "test-command"):
        ours = re.search(rf"<!-- {name} -->\n(.*?)<!-- /{name} -->", README, re.S).group(1)
        theirs = re.search(rf"<!-- readme: {name} -->\n(.*?)<!-- /readme: {name} -->", page,
                           re.S).group(1)
        assert theirs == ours, f"docs/pages/getting-started.md's {name} differs from README.md's"


def test_the_suite_reference_pages_are_written_from_the_registrations():
    from runner.reference import REFERENCE_DIR, pages

    for name, text in pages().items():
        path = REFERENCE_DIR / name
        assert path.exists() and path.read_text(encoding="utf-8") == text, \
            f"{path} is out of date: run python -m runner.reference --write"


def test_every_block_of_figures_is_what_its_script_writes():
    figures = _bench("docs_figures")
    assert figures.stale() == [], "run python bench/docs_figures.py --write"


def test_no_page_quotes_a_figure_outside_a_generated_block():
    figures = _bench("docs_figures")
    assert figures.allowed_problems() == []
    stray = [s for page in figures.scanned_pages() for s in figures.stray(page)]
    assert stray == [], ("figures no script writes (put them in a block of "
                         "bench/docs_figures.py, or remove them):\n" + "\n".join(stray))


def test_every_measurement_says_how_it_was_made():
    for path in sorted((ROOT / "bench" / "results").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        for key in ("command", "date", "machine", "commit"):
            assert record.get(key), f"{path.name} has no {key}"
        assert record["command"].startswith("python bench/"), path.name
        assert f"--save bench/results/{path.name}" in record["command"], \
            f"{path.name} was not written by the command it names"


def test_the_figure_scan_finds_figures():
    figures = _bench("docs_figures")
    for text in ("12.3 %", "took 19.0–22.0 s wall", "895 follow-ups", "4 of 4", "30/36",
                 "peak 0.74 GB", "1,417 follow-ups", "on 30 news sentences"):
        assert figures.FIGURE.search(text), text
    for text in ("Python ≥ 3.11", "exit 4", "WordNet 3.0", "TIN §4.4", "`seed: 13`",
                 "Sun et al. 2023", "max_follow_ups (M = 20)", "`batch_size` (64)"):
        assert not figures.FIGURE.search(text), text


def test_every_link_between_readme_and_docs_resolves():
    for target in re.findall(r"\]\((docs/[^)#]+)", README):
        assert (ROOT / target).exists(), target


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    mkdocs = shutil.which("mkdocs") or str(Path(sys.executable).parent / "mkdocs")
    if not Path(mkdocs).exists():
        pytest.skip("mkdocs is not installed (the docs extra)")
    proc = subprocess.run([mkdocs, "build", "--strict", "-f", str(ROOT / "docs" / "mkdocs.yml"),
                           "-d", str(tmp_path / "site")], capture_output=True, text=True,
                          timeout=300, env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.slow
def test_the_readme_tour_is_what_the_default_suite_prints(tmp_path):
    block = re.search(r"```console\n\$ mtrun suites/ner_spacy.yaml\n(.*?)```", README, re.S).group(1)
    proc = subprocess.run([sys.executable, "-m", "runner", str(ROOT / "suites" / "ner_spacy.yaml"),
                           "-o", str(tmp_path / "run"), "--no-cache"],
                          capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    printed = proc.stdout.split("\nwrote ")[0].rstrip("\n") + "\n"
    assert _same_but_for_a_few(printed, block), \
        "the README's tour output is stale: paste what the suite prints\n" + printed


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w)")   # a number, not a digit of a name (MR1)


def _same_but_for_a_few(printed: str, block: str) -> bool:
    """The same words and layout, and each number within a few of the README's: the LM judges
    follow-ups in bfloat16 on a CPU, whose arithmetic differs between kinds of CPU (an Intel
    Xeon's and an AMD EPYC's kernels round differently), so a follow-up whose score lies at a
    threshold may be kept on one and dropped on the other, and a violation or two, and the
    repairs that come of them, with it."""
    if _NUMBER.sub("#", printed).split() != _NUMBER.sub("#", block).split():
        return False
    pairs = zip(map(float, _NUMBER.findall(printed)), map(float, _NUMBER.findall(block)))
    return all(abs(a - b) <= max(5.0, 0.1 * max(a, b)) for a, b in pairs)


def test_the_tour_check_tells_a_changed_layout_or_count():
    block = "token_mlm  MR1  64  177  2  1.2%\nrepair: 11 sentence(s) repaired\n"
    assert _same_but_for_a_few("token_mlm  MR1  64  179  1  0.6%\nrepair: 7 sentence(s) repaired\n",
                               block)
    assert not _same_but_for_a_few("token_mlm  MR1  64  240  2  1.2%\nrepair: 11 sentence(s) "
                                   "repaired\n", block)                  # a count far off
    assert not _same_but_for_a_few("token_mlm  MR2  64  177  2  1.2%\nrepair: 11 sentence(s) "
                                   "repaired\n", block)                  # another relation


def test_a_kept_set_keeps_the_date_and_commit_of_the_run_that_measured_it():
    article = _bench("repair_article")
    first = {"sets": [{"run_suite": "a"}, {"run_suite": "b"}], "date": "d1", "commit": "c1",
             "machine": {}}
    second = {"sets": [{"run_suite": "a"}, {"run_suite": "b"}, {"run_suite": "k"}],
              "date": "d2", "commit": "c2", "machine": {},
              "kept": article.kept_groups(first, {"a", "b"})}
    assert second["kept"] == [{"sets": ["a", "b"], "date": "d1", "commit": "c1", "machine": {}}]
    # k measured by the second run; b measured again now: a keeps d1, k keeps d2
    assert article.kept_groups(second, {"a", "k"}) == [
        {"sets": ["a"], "date": "d1", "commit": "c1", "machine": {}},
        {"sets": ["k"], "date": "d2", "commit": "c2", "machine": {}}]
    old = {**second, "kept": second["kept"][0]}          # one dict, as older records hold it
    assert article.kept_groups(old, {"a", "b", "k"})[0]["sets"] == ["a", "b"]
