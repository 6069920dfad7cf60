"""The report's compiled templates are kept in the user cache folder: the page is the same
whether the templates were compiled now or read back, and a cache folder that cannot be written
costs only the compilation."""
import os
import stat

import pytest

from runner.report.writers import write_html
from synthetic import HOSTILE, synthetic_run


def _render(tmp_path, name):
    results, cases = synthetic_run(12, 5, description=HOSTILE)
    return write_html(results, cases, tmp_path / name).read_bytes()


def test_the_page_is_the_same_compiled_or_read_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path / "cache"))
    cold = _render(tmp_path, "cold.html")
    compiled = list((tmp_path / "cache" / "templates").rglob("*.cache"))
    assert compiled  # written on the first render
    warm = _render(tmp_path, "warm.html")
    assert warm == cold
    # a damaged cache file (cut short) is compiled again, not an error
    for path in compiled:
        path.write_bytes(path.read_bytes()[:40])
    assert _render(tmp_path, "again.html") == cold


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_cache_folder_still_gives_the_page(tmp_path, monkeypatch):
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path / "cache"))
    expected = _render(tmp_path, "first.html")
    for folder in (tmp_path / "cache" / "templates").rglob("*"):
        if folder.is_dir():
            for f in folder.iterdir():
                f.unlink()
            folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        assert _render(tmp_path, "second.html") == expected
    finally:
        for folder in (tmp_path / "cache" / "templates").rglob("*"):
            if folder.is_dir():
                folder.chmod(stat.S_IRWXU)


def test_a_cache_folder_that_cannot_be_made_still_gives_the_page(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("MTRUN_CACHE", str(blocker))  # mkdir under a file fails
    page = _render(tmp_path, "page.html")
    monkeypatch.setenv("MTRUN_CACHE", str(tmp_path / "ok"))
    assert _render(tmp_path, "page2.html") == page
