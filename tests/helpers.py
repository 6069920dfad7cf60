"""Small pieces several test modules share (imported as a plain module: conftest.py puts tests/ on
the path): Ray imported or the module skipped, chromium found or the test skipped, and the
capitalised-word tagger of the scripted NER systems the tests write out."""
from __future__ import annotations

import os

import pytest

from cdp import find_chromium


def import_ray_or_skip():
    """Ray, imported; where it is missing the calling module is skipped, except in CI, which
    installs the ray extra: there a missing Ray is a failure (the ImportError)."""
    __tracebackhide__ = True  # pytest reports the skip or error at the calling module's line
    try:
        import ray
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("Ray is not installed (pip install -e \".[ray]\")", allow_module_level=True)
    return ray


def chromium_or_skip() -> str:
    """The path of a headless-capable chromium; where there is none the test is skipped, except
    in CI (CI=true), where a missing browser is a failure."""
    __tracebackhide__ = True  # pytest reports the failure at the calling fixture's line
    path = find_chromium()
    if path is None:
        message = "chromium is not installed (Debian: apt-get install -y chromium)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


# Source of `tag_capitalised(text)`, for the scripted systems the tests write as a file: each
# capitalised word (a trailing full stop cut off) is a PER span. Put it in a template with a
# `{tagger}` field (str.format leaves the braces of a substituted value alone).
CAPITALISED_TAGGER = '''
def tag_capitalised(text):
    spans, pos = [], 0
    for word in text.split(" "):
        w = word.strip(".")
        if w[:1].isupper():
            spans.append({"start": pos, "end": pos + len(w), "label": "PER"})
        pos += len(word) + 1
    return spans
'''


def ruler_pipeline(folder, patterns) -> str:
    """A spaCy pipeline whose entity recogniser is a fixed list of (text, label), saved as a
    folder (a stand-in referee for the repair tests)."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler", name="ner").add_patterns(
        [{"label": label, "pattern": text} for text, label in patterns])
    nlp.to_disk(folder)
    return str(folder)
