"""A whole run with token_mlm, phrase_np and both filters on tiny models built here: funnel counts
add up, filters run before the system is queried, every case says where its follow-up came from,
the same suite and seed give the same follow-ups."""
import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from runner import models  # noqa: E402
from runner.cli import main  # noqa: E402
from runner.errors import ExitCode  # noqa: E402
from runner.suite import load_suite  # noqa: E402
from runner.errors import SuiteError  # noqa: E402
from tests import tiny_models  # noqa: E402
from tests.runs import stop_after_first_batch_then_resume  # noqa: E402

CORPUS = """John walked to the big house near the river in London.
The old teacher said the red car was good.
Mary saw a small dog and a happy cat in Paris.
She ran to the new city with the quick man.
"""


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return {"mlm": tiny_models.save_bert_mlm(root / "mlm"),
            "enc": tiny_models.save_bert_encoder(root / "enc"),
            "gpt2": tiny_models.save_gpt2(root / "gpt2")}


def _suite(tmp_path, folders, name="sim", extra=""):
    (tmp_path / "news.txt").write_text(CORPUS, encoding="utf-8")
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"""name: {name}
task: ner
seed: 7
device: cpu
sut: {{type: spacy}}
corpus: {{path: news.txt}}
transformations:
  - type: token_mlm
    masked_lm: {folders['mlm']}
    top_k: 40
  - type: phrase_np
    source: masked_lm
    masked_lm: {folders['mlm']}
    top_k: 20
relations:
  - type: MR1
filters:
  - type: semantic
    encoder: {folders['enc']}
    SThreshold: 0.5
  - type: syntactic
    scorer: causal_lm
    model: {folders['gpt2']}
    SynThreshold: {{default: 0.05, phrase_np: 0.1}}
limits: {{max_follow_ups_per_source: 5}}
{extra}""", encoding="utf-8")
    return path


def _run(path, out):
    models.clear()
    code = main([str(path), "-o", str(out), "-q"])
    assert code in (ExitCode.OK, ExitCode.VIOLATIONS)
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def test_run_with_filters(tmp_path, folders, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    r = _run(_suite(tmp_path, folders), tmp_path / "out")
    funnel = r["funnel"]
    assert set(funnel) == {"token_mlm", "phrase_np"}
    generated = tested = 0
    for t, f in funnel.items():
        assert set(f["dropped_by"]) == {"semantic", "syntactic"}
        assert f["generated"] == sum(f["dropped_by"].values()) + f["over_limit"] + f["tested"]
        assert f["tested"] == r["stats"]["per_transformation"][t]["follow_ups"]
        assert f["violations"] == sum(row["violations"] for row in r["summary"]
                                      if row["transformation"] == t)
        generated += f["generated"]
        tested += f["tested"]
    assert generated > tested > 0
    assert sum(f["dropped_by"]["semantic"] for f in funnel.values()) > 0
    # Only sources and kept follow-ups reach the system under test.
    cases = r["cases"]
    sent = r["stats"]["sut"]["texts_sent"]
    assert sent <= 4 + len({c["follow_up"]["text"] for c in cases})
    for c in cases:
        meta = c["follow_up"]["meta"]
        assert meta["source"] == f"masked_lm:{folders['mlm']}"
        assert meta["filters"]["semantic"] >= 0.5
        limit = 0.1 if c["transformation"] == "phrase_np" else 0.05
        assert meta["filters"]["syntactic"] <= limit + 1e-4
    roles = {m["role"] for m in r["components"]["models"]}
    assert roles == {"masked_lm", "encoder", "scorer"}
    assert {f["type"] for f in r["components"]["filters"]} == {"semantic", "syntactic"}

    again = _run(_suite(tmp_path, folders), tmp_path / "out2")
    assert [(c["id"], c["follow_up"]["text"]) for c in again["cases"]] == \
        [(c["id"], c["follow_up"]["text"]) for c in cases]


def test_filter_typos_are_located(tmp_path, folders):
    path = _suite(tmp_path, folders, "bad", "")
    text = path.read_text().replace("SynThreshold: {default: 0.05, phrase_np: 0.1}",
                                    "SynThreshold: {default: 0.05, phrase_mp: 0.1}")
    path.write_text(text)
    with pytest.raises(SuiteError) as e:
        load_suite(path)
    assert "phrase_mp" in str(e.value) and "phrase_np" in str(e.value) and ":" in str(e.value)
    text = text.replace("phrase_mp: 0.1}", "phrase_np: 0.1}\n    applies_to: [token_mlmm]")
    path.write_text(text)
    with pytest.raises(SuiteError, match="token_mlmm"):
        load_suite(path)


def test_missing_model_exits_4(tmp_path, folders, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = _suite(tmp_path, folders, "miss")
    path.write_text(path.read_text().replace(f"encoder: {folders['enc']}",
                                             "encoder: bert-base-cased"))
    models.clear()
    assert main([str(path), "-o", str(tmp_path / "o"), "-q"]) == ExitCode.USAGE_ERROR
    err = capsys.readouterr().err
    assert "bert-base-cased" in err and "save_pretrained" in err and "Traceback" not in err


def test_report_shows_the_funnel_and_models(tmp_path, folders, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    r = _run(_suite(tmp_path, folders, "rep"), tmp_path / "o")
    html = (tmp_path / "o" / "report.html").read_text(encoding="utf-8")
    assert "Follow-up funnel" in html and "Dropped by semantic" in html
    row = f"<td>token_mlm</td><td class=\"mono\">masked_lm:{folders['mlm']}</td>" \
          f"<td class=\"num\">{r['funnel']['token_mlm']['generated']}</td>"
    assert row in html
    assert "causal_lm:GPT2LMHeadModel" in html


def test_models_command_lists_what_a_suite_loads(tmp_path, folders, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = _suite(tmp_path, folders, "inv")
    assert main(["models", str(path)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert out.count("ok ") >= 5 and "MISSING" not in out
    assert f"folder: {folders['gpt2']}" in out and "masked_lm" in out and "encoder" in out
    path.write_text(path.read_text().replace(f"encoder: {folders['enc']}",
                                             "encoder: bert-base-cased"))
    assert main(["models", str(path)]) == ExitCode.USAGE_ERROR
    out = capsys.readouterr().out
    assert "MISSING encoder    bert-base-cased" in out and "save_pretrained" in out


def test_funnel_survives_resume(tmp_path, folders, monkeypatch):
    """A run stopped after its first batch and resumed counts the funnel as an uninterrupted
    run does (the counts of the batches done before the stop come back from the progress file)."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = _suite(tmp_path, folders, "res", "")
    path.write_text(path.read_text().replace("limits: {max_follow_ups_per_source: 5}",
                                             "limits: {max_follow_ups_per_source: 5, "
                                             "batch_size: 2}"))
    suite = load_suite(path)
    models.clear()
    whole, first, resumed = stop_after_first_batch_then_resume(suite, tmp_path)
    assert first.sources_done == 2
    assert resumed["funnel"] == whole["funnel"]
    assert sum(f["generated"] for f in whole["funnel"].values()) > 0
