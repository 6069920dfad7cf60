"""The house stays in order: runner's imports form no circle, and no module grows past 600 lines
(bench/structure.py draws the same graph for a person)."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _structure():
    spec = importlib.util.spec_from_file_location("structure", ROOT / "bench" / "structure.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_runner_has_no_import_circle():
    s = _structure().summary()
    assert s["circles"] == [], f"import circles: {s['circles']}"
    assert s["arrows_back_up"] == []


def test_no_module_of_runner_is_over_600_lines():
    assert _structure().summary()["files_over_600_lines"] == []


def test_the_drawing_finds_a_circle_and_a_lazy_import(tmp_path, monkeypatch):
    structure = _structure()
    pkg = tmp_path / "runner"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from runner.b import x\n")
    (pkg / "b.py").write_text("def f():\n    from runner import c\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from runner.a import y\n")
    monkeypatch.setattr(structure, "ROOT", tmp_path)
    s = structure.summary()
    assert s["circles"] == [["runner.a", "runner.b", "runner.c"]]
    assert len(s["arrows_back_up"]) == 3
