"""Every figure of the documentation, written from committed data.

A figure (a rate, a count of cases, a time, a size) appears in README.md or docs/pages/*.md only
inside a generated block:

    <!-- figures: NAME -->
    ... written by the function registered under NAME ...
    <!-- /figures: NAME -->

Each block is computed from files in the repository: the hand-read triage files
(``bench/validity_*.triage.json``), the corpora under ``suites/data/``, and the measurements that
``bench/speed.py --save`` (a suite run as a user runs it) and ``bench/candidates.py --save`` write
to ``bench/results/``, each with its command, the date, the machine and the commit; the block
names the command. A figure that needs
a long run is measured again with that command and the page rewritten, never edited by hand.

    python bench/docs_figures.py            # list the blocks, stale ones and stray figures
    python bench/docs_figures.py --write    # rewrite every block in the pages

``tests/test_docs.py`` checks that every block is what this script writes now and that no page
holds a figure outside a block (``stray``); the few numbers that are not measurements (versions,
exit codes, limits and defaults of the code, checked against it) are listed in ``ALLOWED``.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DATA = ROOT / "suites" / "data"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Pages whose figures are not in blocks yet; the scan leaves them out.
NOT_SCANNED: tuple[str, ...] = ()

BLOCKS: dict[str, Callable[[], str]] = {}


def figures(name: str):
    """Registers a block's writer under NAME."""
    def add(fn: Callable[[], str]) -> Callable[[], str]:
        BLOCKS[name] = fn
        return fn
    return add


def _wrap(text: str) -> str:
    """Prose paragraphs wrapped at 100 columns like the pages' own; tables and lists as written."""
    paragraphs = text.strip().split("\n\n")
    return "\n\n".join(p if p.startswith(("|", "- ", "<")) else
                       textwrap.fill(" ".join(p.split()), 100, break_long_words=False,
                                     break_on_hyphens=False) for p in paragraphs)


def render(name: str) -> str:
    return (f"<!-- figures: {name} -->\n<!-- written by python bench/docs_figures.py --write; "
            f"tests/test_docs.py checks it -->\n\n{_wrap(BLOCKS[name]())}\n\n"
            f"<!-- /figures: {name} -->")


BLOCK_RE = re.compile(r"<!-- figures: ([\w-]+) -->\n.*?<!-- /figures: \1 -->", re.S)


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs" / "pages").glob("*.md"))]


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def rewrite(text: str) -> str:
    def one(m: re.Match) -> str:
        if m.group(1) not in BLOCKS:
            raise KeyError(f"no writer for the figures block {m.group(1)!r}")
        return render(m.group(1))
    return BLOCK_RE.sub(one, text)


def stale() -> list[str]:
    """The blocks whose text is not what their writer gives now, and the writers no page uses."""
    out, used = [], set()
    for path in pages():
        text = path.read_text(encoding="utf-8")
        for m in BLOCK_RE.finditer(text):
            used.add(m.group(1))
            if m.group(1) not in BLOCKS:
                out.append(f"{_rel(path)}: unknown block {m.group(1)!r}")
            elif m.group(0) != render(m.group(1)):
                out.append(f"{_rel(path)}: block {m.group(1)!r} is stale")
    out += [f"block {name!r} is in no page" for name in sorted(set(BLOCKS) - used)]
    return out


def write() -> list[Path]:
    changed = []
    for path in pages():
        text = path.read_text(encoding="utf-8")
        new = rewrite(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


# ---------------------------------------------------------------------------------------------
# The scan for figures outside the blocks.

_UNIT = (r"(?:%|‰|ms|µs|s|min|minutes?|seconds?|hours?|h|[KMG]i?B|kB|bytes|×|x faster|times|"
         r"GFLOP/s)")
_NOUN = (r"(?:violations?|follow-ups?|sources?|sentences?|documents?|candidates?|cases?|pairs?|"
         r"words?|entit(?:y|ies)|labels?|strings?|passes|rounds?|mentions?|questions?|shuffles?|"
         r"errors?|occurrences?|names?|vectors?|slots?|layers?|nodes|levels|verbs|repairs?|"
         r"marks|relabels?|tokens?|texts?|calls?|batches|workers|threads)")
_NUM = r"(?<![\w.\-/])\d[\d,]*(?:\.\d+)?(?:[–-]\d[\d,]*(?:\.\d+)?)?"
FIGURE = re.compile(rf"{_NUM} ?(?:{_UNIT}(?!\w)|(?:[\w’'-]+ ){{0,2}}{_NOUN}\b)"
                    rf"|(?<![\w.])\d+ (?:of|in) \d[\d,]*\b|(?<![\w./])\d+/\d+(?![\w/])")


def _const(module: str, name: str):
    return getattr(importlib.import_module(module), name)


# (page, the exact text, why it is no measurement, a check that the code still says so or None).
# The scan blanks each of these before it looks for figures; a phrase no longer on its page
# fails the test too.
ALLOWED: list[tuple[str, str, str, Callable[[], bool] | None]] = [
    ("README.md", "flair 0.15", "a version", None),
    ("README.md", "· 3 internal error", "an exit code", None),
    ("docs/pages/cluster.md", "a Ray started for the run, 2 workers", "an example command", None),
    ("docs/pages/ner.md", "(512 tokens a window", "the hf system's default", None),
    ("docs/pages/robustness.md", "(0.1 per word", "the typos' default rate", None),
    ("docs/pages/suites.md", "0.25 lets workers", "an example setting", None),
    ("docs/pages/suites.md", "64 bytes per character", "the corpus reader's limit, in the code",
     None),
    ("docs/pages/suites.md", "nest at most 64 levels", "the code's limit on JSON nesting",
     lambda: _const("runner.tasks.jsonl", "MAX_JSON_DEPTH") == 64),
    ("docs/pages/getting-started.md", "flair 0.15", "a version", None),
    ("docs/pages/attacks.md", "50 random entities", "the paper's number of candidates, the entity "
     "attack's default max_candidates", None),
    ("docs/pages/commands.md", "default **5 %**", "the code's default of max_error_rate",
     lambda: _const("runner.report.verdict", "DEFAULT_MAX_ERROR_RATE") == 0.05),
    ("docs/pages/commands.md", "over 5 MB", "the code's limit on a suite file",
     lambda: _const("runner.yaml_reader", "DEFAULT_MAX_SUITE_BYTES") == 5_000_000),
    ("docs/pages/commands.md", "10,000 nodes", "the code's limit on an alias",
     lambda: _const("runner.yaml_reader", "MAX_ALIAS_NODES") == 10_000),
    ("docs/pages/commands.md", "100,000 nodes", "the code's limit on a document",
     lambda: _const("runner.yaml_reader", "MAX_DOCUMENT_NODES") == 100_000),
    ("docs/pages/commands.md", "100 levels", "the code's limit on nesting",
     lambda: _const("runner.yaml_reader", "MAX_DEPTH") == 100),
    ("docs/pages/commands.md", "400 bytes", "the size of an example input", None),
    ("docs/pages/cluster.md", "every 2 s", "the code's poll interval",
     lambda: _const("runner.execution.liveness", "POLL_S") == 2.0),
    ("docs/pages/cluster.md", "for 10 s", "the code's grace period",
     lambda: _const("runner.execution.liveness", "NO_NODE_GRACE_S") == 10.0),
    ("docs/pages/cluster.md", "(600 by default", "the code's default start timeout",
     lambda: _const("runner.execution.liveness", "DEFAULT_START_S") == 600.0),
    ("docs/pages/cluster.md", "within about 15 s", "the grace period plus a poll, as above",
     lambda: _const("runner.execution.liveness", "NO_NODE_GRACE_S")
     + _const("runner.execution.liveness", "POLL_S") <= 15),
    ("docs/pages/cluster.md", "up to ~30 s", "Ray's own health-check period", None),
    ("docs/pages/coref.md", "CoNLL-2011/2012", "the shared tasks' years", None),
    ("docs/pages/suites.md", "CoNLL-2011/2012", "the shared tasks' years", None),
    ("docs/pages/suites.md", "(sources processed together: 32, or 256",
     "the suite's default batch size", None),
    ("docs/pages/suites.md", "100 KB", "an example of a bad corpus", None),
    ("docs/pages/suites.md", "64 KiB", "the corpus reader's slack, in the code", None),
    ("docs/pages/suites.md", "1 GB", "an example of a bad corpus", None),
    ("docs/pages/suites.md", "385 KB", "what the reader's limit comes to by default", None),
    ("docs/pages/ner.md", "(401/403)", "HTTP status codes", None),
    ("docs/pages/outputs.md", "the first 5 violations", "the code's number of examples",
     lambda: _const("runner.report.junit", "EXAMPLES_PER_CASE") == 5
     and _const("runner.report.markdown", "EXAMPLES") == 5),
    ("docs/pages/models.md", "2 layers", "the embedded model's architecture", None),
    ("docs/pages/models.md", "30 layers", "the embedded model's architecture", None),
    ("docs/pages/models.md", "8 most recently used", "the code's cache size", None),
]


def _tour_span(text: str) -> tuple[int, int] | None:
    """The README's tour output, checked against a real run by
    tests/test_docs.py::test_the_readme_tour_is_what_the_default_suite_prints."""
    m = re.search(r"```console\n\$ mtrun suites/ner_spacy.yaml\n.*?```", text, re.S)
    return m.span() if m else None


def stray(path: Path) -> list[str]:
    """The figures of PATH outside the generated blocks and not in ALLOWED, as 'line: figure'."""
    rel = _rel(path)
    text = path.read_text(encoding="utf-8")

    def blank(t: str, a: int, b: int) -> str:
        return t[:a] + re.sub(r"[^\n]", " ", t[a:b]) + t[b:]

    for m in BLOCK_RE.finditer(text):
        text = blank(text, *m.span())
    if rel == "README.md" and _tour_span(text):
        text = blank(text, *_tour_span(text))
    for page, phrase, _why, _check in ALLOWED:
        if page == rel:
            while (i := text.find(phrase)) >= 0:
                text = blank(text, i, i + len(phrase))
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        out += [f"{rel}:{n}: {m.group(0)}" for m in FIGURE.finditer(line)]
    return out


def allowed_problems() -> list[str]:
    out = []
    for page, phrase, why, check in ALLOWED:
        if phrase not in (ROOT / page).read_text(encoding="utf-8"):
            out.append(f"{page}: allowed phrase {phrase!r} is no longer there")
        elif check is not None and not check():
            out.append(f"{page}: {phrase!r} ({why}) no longer matches the code")
    return out


def scanned_pages() -> list[Path]:
    return [p for p in pages() if _rel(p) not in NOT_SCANNED]


# ---------------------------------------------------------------------------------------------
# The blocks.

def _load(name: str) -> dict:
    return json.loads((RESULTS / name).read_text(encoding="utf-8"))


def _jsonl(name: str) -> list[dict]:
    with (DATA / name).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f} %"


def _measured(record: dict) -> str:
    m = record["machine"]
    load = ", ".join(f"{x:g}" for x in m["load_average_before"])
    busy = ("; other work was running, so its times vary from run to run"
            if m["load_average_before"][0] >= 1 else "")
    return (f"Measured with `{record['command']}` on {record['date']}, at commit "
            f"`{record['commit']}`, on {m['cores']} cores of an {m['cpu']} (load average before "
            f"the run {load}{busy}), Python {m['python']}.")


def _rows_table(summary: list[dict]) -> str:
    rows = ["| transformation | relation | follow-ups tested | pass | violations | skip/error "
            "| violation rate |", "|---|---|--:|--:|--:|--:|--:|"]
    for r in summary:
        rows.append(f"| `{r['transformation']}` | {r['relation']} | {r['follow_ups']:,} "
                    f"| {r['pass']:,} | {r['violations']:,} | {r['skip'] + r['error']:,} "
                    f"| {'–' if r['violation_rate'] is None else _pct(r['violation_rate'])} |")
    return "\n".join(rows)


def _bench_module(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@figures("validity-tables")
def _validity_tables() -> str:
    return _bench_module("validity_tables").tables()


def _re_block(name: str) -> Callable[[], str]:
    return lambda: _bench_module("re_mr_table").bodies()[name]


for _name in ("re-mr-table-readme", "re-mr-table", "re-classifier", "re-textacy-table"):
    BLOCKS[_name] = _re_block(_name)


def _reads_table(module: str, *args: str) -> Callable[[], str]:
    return lambda: _bench_module(module).table(*args)


# tables a bench script's table() writes (all but xrenner-mends of violations read twice):
# block name, bench script, its table's arguments
for _name, _module, *_args in (("re-r1-lm", "re_r1_lm"), ("re-named-again", "re_named_again"),
                               ("re-family-name", "re_r1_fits", "family"),
                               ("re-qualified-cities", "re_r1_fits", "cities"),
                               ("crf-referee-spans", "crf_referee_spans"),
                               ("coref-gum-b", "coref_gum_b_reads", "b"),
                               ("coref-gum-c", "coref_gum_b_reads", "c"),
                               ("coref-gum-d", "coref_gum_b_reads", "d"),
                               ("coref-gum-e", "coref_gum_b_reads", "e"),
                               ("coref-gap", "coref_gum_b_reads", "gap"),
                               ("coref-gap-b", "coref_gum_b_reads", "gap_b"),
                               ("coref-gap-c", "coref_gum_b_reads", "gap_c"),
                               ("coref-mended", "coref_mended_reads"),
                               ("coref-names", "coref_names_reads", "bc"),
                               ("coref-names-d", "coref_names_reads", "d"),
                               ("coref-names-e", "coref_names_reads", "e"),
                               ("coref-names-f", "coref_names_reads", "f"),
                               ("coref-names-h", "coref_names_reads", "h"),
                               ("coref-names-j", "coref_names_reads", "j"),
                               ("coref-names-k", "coref_names_reads", "k"),
                               ("coref-names-l", "coref_names_reads", "l"),
                               ("coref-names-m", "coref_names_reads", "m"),
                               ("coref-names-n", "coref_names_reads", "n"),
                               ("coref-names-o", "coref_names_reads", "o"),
                               ("coref-names-p", "coref_names_reads", "p"),
                               ("coref-names-q", "coref_names_reads", "q"),
                               ("coref-names-r", "coref_names_reads", "r"),
                               ("coref-names-s", "coref_names_reads", "s"),
                               ("xrenner-mends", "xrenner_mends"),
                               ("ner-shuffle-subtypes", "ner_shuffle_subtypes"),
                               ("ner-redocred", "ner_redocred_reads"),
                               ("ner-redocred-b", "ner_redocred_reads", "b"),
                               ("ner-redocred-c", "ner_redocred_reads", "c"),
                               ("ner-redocred-d", "ner_redocred_reads", "d")):
    BLOCKS[_name] = _reads_table(_module, *_args)


@figures("ner-validity-readme")
def _ner_validity_readme() -> str:
    return _bench_module("ner_redocred_reads").summary()


@figures("ner-lm-yield")
def _ner_lm_yield() -> str:
    module = _bench_module("ner_lm_yield")
    rec = json.loads(module.RECORD.read_text(encoding="utf-8"))
    sources = rec["runs"]["now"]["sources"]
    return (f"The default NER suite before and with SmolLM2 in the loop, on the same held-out gold "
            f"text (GUM part b, {sources} sources; `{rec['suites']['before']}` and "
            f"`{rec['suites']['now']}`), every violation read by two readers (the second blind; "
            f"`bench/reads/ner_gum_b.*`, `bench/reads/ner_gum_b_lm.*`):\n\n" + module.table()
            + f"\n\nWritten by `python bench/ner_lm_yield.py` from `bench/ner_gum_b_yield.json` "
            f"(`{rec['command']}`, {rec['date']}, commit `{rec['commit']}`) "
            f"and the readings.")


@figures("attack-word-figures")
def _attack_words() -> str:
    return _bench_module("attack_tables").word_figures()


@figures("attack-figures")
def _attack_runs() -> str:
    return _bench_module("attack_tables").run_table()


@figures("attack-reach")
def _attack_reach() -> str:
    return _bench_module("attack_reach").table()


@figures("speed-default")
def _speed_default() -> str:
    rec = _load("speed_ner_spacy.json")
    r = min(rec["rounds"], key=lambda x: x["wall"])
    stages = rec["stages"]
    top = sorted(((k, v) for k, v in stages.items() if k != "wall"), key=lambda kv: -kv[1])[:6]
    lines = "\n".join(f"| {k} | {v:.1f} |" for k, v in top)
    return (f"The default suite (`{rec['suite']}`, {rec['summary']['overall']['sources']:,} "
            f"sources): {r['wall']:.1f} s wall, {r['cpu']:.1f} s of CPU, peak memory "
            f"{r['rss_mb'] / 1024:.2f} GB, {r['start_up']:.1f} s from the start of the process "
            f"to the first batch; {r['generated']:,} candidates generated, {r['tested']:,} "
            f"follow-ups tested ({r['tested'] / r['wall']:.1f} a second of wall time), "
            f"{r['violations']:,} violations. Where the time went (stages may nest and overlap "
            f"on the two threads):\n\n| stage | seconds |\n|---|--:|\n{lines}\n\n"
            f"{_measured(rec)}")


@figures("gpu-lm")
def _gpu_lm() -> str:
    rec = _load("gpu_lm_h200.json")
    work, prec = rec["work"], rec["precision"]
    r = next(x for x in rec["rows"] if x.get("cuda_graphs", "off") != "off")
    off = next((x for x in rec["rows"] if x.get("cuda_graphs", "off") == "off"), None)
    lm_tested = work["tested"]["token_mlm"] + work["tested"]["phrase_np"]
    half, cpu = prec["this_device_bfloat16_vs_float32"], prec[
        "cpu_record_bfloat16_vs_this_device_float32"]
    return (f"The default suite's language-model work on {work['sources']} sources "
            f"({r['slots']:,} slots proposed for, {r['texts']:,} texts scored; the suite tested "
            f"{lm_tested:,} word and phrase replacements the LM proposed and judged, "
            f"{sum(work['tested'].values()):,} follow-ups in all) took {r['lm_seconds']:.2f} s on "
            f"an {rec['device']} (mean of {rec['command'].split('--repeat ')[1].split()[0]} "
            f"repetitions; bfloat16, `batch_size` {r['batch_size']}): "
            f"{r['texts_scored_per_s']:,.0f} texts scored a second, "
            f"{r['lm_tested_follow_ups_per_s']:,.0f} LM-judged follow-ups tested a second, "
            f"{r['all_tested_follow_ups_per_s']:,.0f} of all the tested follow-ups, the GPU busy "
            f"{r['gpu_busy_percent']:.0f} % of that time (`nvidia-smi`, {r['samples']} samples), "
            f"its passes replayed as CUDA graphs ({r['cuda_graphs']})."
            + (f" The same work with the passes launched layer by layer (`MTRUN_CUDA_GRAPHS=0`): "
               f"{off['lm_seconds']:.2f} s, {off['lm_tested_follow_ups_per_s']:,.0f} LM-judged "
               f"follow-ups tested a second, the GPU busy {off['gpu_busy_percent']:.0f} %; the "
               f"same proposals and filter decisions against the CPU's "
               f"({off['against_cpu']['proposals_identical']:,} and "
               f"{r['against_cpu']['proposals_identical']:,} slots' lists identical, "
               f"{off['against_cpu']['filter_decisions_differing']} and "
               f"{r['against_cpu']['filter_decisions_differing']} decisions differing)."
               if off else "")
            + " "
            f"Against float32 on the same GPU, bfloat16 scores differ by "
            f"{half['mean_abs']:.3f} nats a token on average and change {half['differing']} of "
            f"{half['filter_decisions']:,} decisions of the syntactic filter; the CPU's bfloat16 "
            f"(which the thresholds were chosen on) by {cpu['mean_abs']:.3f} and "
            f"{cpu['differing']}. Recorded with `{work['command']}` ({work['date']}, commit "
            f"`{work['commit']}`) and replayed with `{rec['command']}` ({rec['date']}, commit "
            f"`{rec['commit']}`, torch {rec['torch']}).")


@figures("robustness-rates")
def _robustness_rates() -> str:
    rec = _load("speed_ner_spacy_robustness.json")
    s = rec["summary"]
    rows = ["| check | group | follow-ups tested | pass rate |", "|---|---|--:|--:|"]
    for r in s["summary"]:
        judged = r["pass"] + r["violations"]
        rate = _pct(r["pass"] / judged, 0) if judged else "–"
        rows.append(f"| `{r['transformation']}` | {r['group']} | {r['follow_ups']:,} | {rate} |")
    return (f"On the sample corpus (`mtrun {rec['suite']}`, "
            f"{s['overall']['sources']:,} sentences), the share of judged follow-ups that pass "
            f"(pass / (pass + violations)):\n\n" + "\n".join(rows) + f"\n\n{_measured(rec)}")


@figures("coref-run")
def _coref_run() -> str:
    rec = _load("speed_coref_xrenner.json")
    s = rec["summary"]
    o = s["overall"]
    docs = _jsonl("coref_news.jsonl")
    gold = sum(1 for d in docs if d.get("clusters"))
    r = min(rec["rounds"], key=lambda x: x["wall"])
    per = o["follow_ups"] / o["sources"] if o["sources"] else 0
    cats = ", ".join(f"{k} {v}" for k, v in (s.get("categories") or {}).items())
    return (f"On the {len(docs):,} project-written news documents of "
            f"`suites/data/coref_news.jsonl` ({gold:,} with gold clusters), "
            f"`mtrun {rec['suite']}`:\n\n{_rows_table(s['summary'])}\n\n"
            f"{per:.1f} follow-ups tested per source"
            + (f"; issue types of the violations: {cats}" if cats else "")
            + (f"; against the gold clusters, {g['real_errors']:,} of the {g['violations_with_gold']:,} "
               f"violations with gold are real errors (the source's or the follow-up's "
               f"prediction differs from its gold)" if (g := s.get("gold")) else "")
            + f". The whole run took {r['wall']:.0f} s of wall time ({r['cpu']:.0f} s of CPU), "
            f"loading included. {_measured(rec)}")


@figures("gold-sets")
def _gold_sets() -> str:
    news = _jsonl("news_gold.jsonl")
    tune = _jsonl("pud_tune.jsonl")
    measure = _jsonl("pud_measure.jsonl")
    wiki = sum(1 for d in measure if d["id"].startswith("pud-w"))
    return (f"`suites/ner_spacy_gold.yaml` runs the default suite on the {len(news):,} "
            f"gold-labelled sentences of `suites/data/news_gold.jsonl`. A gold set large enough "
            f"to measure on comes from Universal NER's English PUD (CC BY-SA 3.0, "
            f"`suites/data/README.md`): `pud_tune.jsonl` ({len(tune):,} sentences, for tuning) "
            f"and `pud_measure.jsonl` ({len(measure) - wiki:,} news + {wiki:,} Wikipedia "
            f"sentences, never tuned on).")


@figures("candidate-sources")
def _candidate_sources() -> str:
    rec = _load("candidates.json")
    rows = ["| source | follow-ups | kept by the semantic filter | share kept | mean cosine |",
            "|---|--:|--:|--:|--:|"]
    for c in rec["sources"]:
        share = _pct(c["kept"] / c["follow_ups"], 0) if c["follow_ups"] else "–"
        rows.append(f"| `{c['source']}` | {c['follow_ups']:,} | {c['kept']:,} | {share} "
                    f"| {c['mean_cosine']:.3f} |")
    return (f"`token_mlm`'s offline sources on the first {rec['sentences']} sentences of "
            f"`suites/data/news.txt`: the follow-ups each makes (after the same-tag check) and "
            f"how many the semantic filter (the embedded MiniLM encoder, `SThreshold` 0.65) "
            f"keeps:\n\n" + "\n".join(rows) + f"\n\n{_measured(rec)}")


@figures("naturalness")
def _naturalness() -> str:
    rec = _load("naturalness.json")
    n = rec["pairs"]
    rows = ["| scorer | natural sentence scored higher | ties |", "|---|--:|--:|"]
    rows += [f"| `{c['scorer']}` | {c['right']}/{n} | {c['ties']} |" for c in rec["scorers"]]
    return (f"On the {n} grammar pairs of `bench/naturalness.py` (a news sentence and a broken "
            f"variant of it: words swapped, a wrong inflection, a word that does not fit):\n\n"
            + "\n".join(rows) + f"\n\n{_measured(rec)}")


# TIN's bar for a repair (Table 6): ErrorReduce at least this, Cor2Err at most this.
TIN_BAR = (0.20, 0.12)


@figures("repair-gold")
def _repair_gold() -> str:
    rows = ["| suite | violations | TT | TF | FT | FF | Err2Cor | Cor2Err | ErrorReduce "
            "| TIN's bar |", "|---|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    notes = []
    for name in ("speed_ner_spacy_tune.json", "speed_ner_spacy_heldout.json"):
        rec = _load(name)
        s = rec["summary"]
        g = s["repair"]["gold"]
        met = g["ErrorReduce"] >= TIN_BAR[0] and g["Cor2Err"] <= TIN_BAR[1]
        rows.append(f"| `{rec['suite']}` | {s['overall']['violations']:,} | {g['TT']} "
                    f"| {g['TF']} | {g['FT']} | {g['FF']} | {_pct(g['Err2Cor'])} "
                    f"| {_pct(g['Cor2Err'])} | {_pct(g['ErrorReduce'])} "
                    f"| {'met' if met else 'not met'} |")
        notes.append(f"- `{rec['suite']}`: {_measured(rec)}")
    return (f"The default suite's repair (the referee panel) on the PUD gold sets, counted per "
            f"suspicious entity occurrence; TIN's bar is ErrorReduce ≥ {_pct(TIN_BAR[0], 0)} with "
            f"Cor2Err ≤ {_pct(TIN_BAR[1], 0)}:\n\n" + "\n".join(rows) + "\n\n" + "\n".join(notes))


RUN_FOLDER = "each RUN is the folder of a run of the set's suite, `python -m runner SUITE -o RUN`"


@figures("ner-article-base-rate")
def _ner_article_base_rate() -> str:
    rec = _load("ner_article_base_rate.json")
    table = (m := _bench_module("ner_relation_article")).base_rate_table(rec)
    return (f"Per run of the default suite on a gold set ({RUN_FOLDER}; `chosen`: the set the "
            f"rule was read off), how often the system is wrong by the gold — its names and types "
            f"differ from the gold's, a leading \"the\" left out of both — on a source drawn at "
            f"random, on the source of a violation, on the source of a violation that is only "
            f"the article (those `article: ignore` removes), and, for as many sources drawn at "
            f"random from the same run, the share expected wrong:\n\n{table}"
            + f"\n\nWritten by `{rec['command']}` at commit `{rec['commit']}`. "
            f"The same removed violations read by two readers, the second blind (under the rule "
            f"above, a violation is real when the source is wrong on any name; "
            f"`bench/reads/ner_article_removed.*`, `python bench/ner_relation_article.py`): "
            f"{m.tally()}.")


def _repair_twice(name: str, intro: str, module: str = "") -> str:
    """A ``repair_NAME.json`` record of bench/repair_NAME.py (or ``module``): intro, table."""
    rec = _load(f"repair_{name}.json")
    return (f"{intro}, on the same violations of each run (TT / TF / FT / FF per suspicious "
            f"entity occurrence, as above; {RUN_FOLDER}):\n\n"
            + _bench_module("repair_article").table(
                rec, _bench_module(module or f"repair_{name}").HEADER)
            + f"\n\n{_measured(rec)}"
            + "".join(f" Kept as recorded on {k['date']} at commit `{k['commit']}` (`--keep`): "
                      f"{', '.join(f'`{Path(x).stem}`' for x in k['sets'])}."
                      for k in _kept(rec)))


def _kept(rec: dict) -> list[dict]:
    """The groups of sets a record kept from earlier runs (one dict in older records)."""
    k = rec.get("kept") or []
    return [k] if isinstance(k, dict) else k


_CHOSEN = "`chosen`: the rule was chosen on these repairs; `measured`: "
for _name, _module, _intro in (
        ("article", "", "The repair's rule on the article, with it (`add_with_article: false`, "
         "the default) and without it (`chosen`: the rule was read off these repairs; `measured`: "
         "a set built after it was frozen)"),
        ("crf", "", "The panel with the CRF referee (`crf_referee: stanford`) and without it (the "
         f"panel of the spaCy pipelines alone; {_CHOSEN}repaired with the rule only after it was "
         "frozen)"),
        ("crf_embedded", "repair_crf", "The panel with mtrun's own CRF referee (the default) and "
         f"without it ({_CHOSEN}repaired only after the rule and the referee were frozen)"),
        ("crf_splits", "", "The rule on the spaCy referees' splits (`crf_decides_splits: true`, "
         "the default) against the earlier rule (`false`), both with mtrun's own CRF referee "
         f"({_CHOSEN}repaired only after it was frozen)"),
        ("crf_retrained", "", "mtrun's own CRF referee retrained with CrossNER's Wikipedia "
         "sentences (the default) against the earlier model, both under the default rule "
         f"({_CHOSEN}repaired only after it was frozen)"),
        ("crf_beyond", "", "The rule beyond the disputed pair (`crf_beyond_pair: true`) against "
         "the default (`false`), both with the retrained CRF referee "
         f"({_CHOSEN}repaired only after it was frozen)")):
    BLOCKS[f"repair-{_name.replace('_', '-')}"] = (
        lambda n=_name, m=_module, i=_intro: _repair_twice(n, i, m))


def _crf_reads(prefix: str, what: str = "the CRF", part: str = "") -> str:
    flag = ("" if prefix == "repair_crf" else f"--referee {prefix.removeprefix('repair_crf_')} ") \
        + (f"--part {part} " if part else "")
    prefix += f"_{part}" if part else ""
    (m := _bench_module("repair_crf_reads")).PREFIX = prefix
    key = json.loads((ROOT / "bench" / "reads" / f"{prefix}.key.json").read_text())
    return (f"Read: {len(key['key'])} of the {key['pool']} entity occurrences of the measuring "
            f"sets whose repair {what} changed, drawn at random (`{key['command']}`, at commit "
            f"`{key['commit']}`), each shown with its sentence and the two labels in a random "
            f"order, neither whose label is whose nor the gold; a first reader, and a second "
            f"who read blind (`bench/reads/{prefix}.*`, `python bench/repair_crf_reads.py "
            f"{flag}tally`):\n\n" + "\n".join(f"- {line}" for line in m.tally().splitlines()))


BLOCKS["repair-crf-reads"] = lambda: _crf_reads("repair_crf")
BLOCKS["repair-crf-embedded-reads"] = lambda: _crf_reads("repair_crf_embedded")
BLOCKS["repair-crf-splits-reads"] = lambda: _crf_reads("repair_crf_splits", "the rule")
BLOCKS["repair-crf-retrained-reads"] = lambda: _crf_reads("repair_crf_retrained",
                                                          "the retrained CRF")
BLOCKS["repair-crf-beyond-reads"] = lambda: _crf_reads("repair_crf_beyond",
                                                       "the rule beyond the pair")
BLOCKS["repair-crf-retrained-k-reads"] = lambda: _crf_reads("repair_crf_retrained",
                                                            "the retrained CRF", "k")
BLOCKS["repair-crf-beyond-k-reads"] = lambda: _crf_reads("repair_crf_beyond",
                                                         "the rule beyond the pair", "k")


@figures("repair-relabels-l-reads")
def _relabels_l_reads() -> str:
    """The default repair's own relabels on Re-DocRED part l, read blind twice."""
    (m := _bench_module("repair_crf_reads")).PREFIX = "repair_crf_relabels_l"
    key = json.loads((ROOT / "bench" / "reads" / "repair_crf_relabels_l.key.json").read_text())
    return (f"Read: {len(key['key'])} of the {key['pool']} entity occurrences of part l whose "
            f"label the default repair changed, drawn at random (`{key['command']}`, at commit "
            f"`{key['commit']}`), each shown with its sentence and the two labels — the "
            f"system's and the repair's — in a random order, neither whose label is whose nor "
            f"the gold; a first reader, and a second who read blind "
            f"(`bench/reads/repair_crf_relabels_l.*`, `python bench/repair_crf_reads.py "
            f"--referee relabels --part l tally`):\n\n"
            + "\n".join(f"- {line}" for line in m.tally().splitlines()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="rewrite every block in the pages")
    args = ap.parse_args(argv)
    if args.write:
        for path in write():
            print(f"wrote {_rel(path)}")
    problems = stale() + allowed_problems() + [s for p in scanned_pages() for s in stray(p)]
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
