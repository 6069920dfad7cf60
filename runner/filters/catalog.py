"""The filters every task may use, registered into a task's filter registry by its catalog."""
from __future__ import annotations

from runner.params import FP16 as _FP16
from runner.params import MODEL_BATCH as _MODEL_BATCH
from runner.registry import Registry, lazy


def add_filters(FILTERS: Registry) -> None:
    # Filters run on the follow-ups of each batch of sources before the system under test is
    # queried.
    FILTERS.add(
        "semantic", lazy("runner.filters.semantic:SemanticFilter"),
        description="Context-aware embedding cosine between original and replacement "
                    "≥ SThreshold (TIN eq. 1).",
        params={
            "SThreshold": {"type": "number", "minimum": -1, "maximum": 1, "default": 0.65},
            "encoder": {"type": "string", "minLength": 1, "default": "bert-base-cased",
                        "description": "Encoder (hub name or save_pretrained folder; "
                                       "sentence-transformers/all-MiniLM-L6-v2 is embedded)."},
            "applies_to": {"type": ["array", "null"], "items": {"type": "string"}, "default": None,
                           "description": "Transformations judged (null: token_mlm and "
                                          "phrase_np)."},
            "batch_size": _MODEL_BATCH, "fp16": _FP16,
        },
        models=True,
    )
    FILTERS.add(
        "syntactic", lazy("runner.filters.syntactic:SyntacticFilter"),
        description="Naturalness drop ε = score(s) − score(s′) must be ≤ SynThreshold "
                    "(TIN eq. 2); score = mean log-probability per token.",
        params={
            "SynThreshold": {
                "oneOf": [{"type": "number"},
                          {"type": "object", "additionalProperties": {"type": "number"}}],
                "default": 0,
                "description": "One number, or per transformation type (key 'default' for "
                               "the rest).",
            },
            "scorer": {"enum": ["causal_lm", "lm", "pll", "wordfreq"], "default": "causal_lm",
                       "description": "causal_lm: perplexity of a left-to-right LM; lm: the "
                                      "language-model layer (a causal LM's perplexity, a masked "
                                      "LM's pseudo-log-likelihood); pll: masked-LM "
                                      "pseudo-log-likelihood; wordfreq: unigram word frequencies."},
            "model": {"type": ["string", "null"], "default": None,
                      "description": "The scorer's model (null: gpt2, smollm2 — the embedded "
                                     "SmolLM2-135M —, bert-base-cased, en)."},
            "applies_to": {"type": ["array", "null"], "items": {"type": "string"}, "default": None,
                           "description": "Transformations judged (null: all)."},
            "batch_size": _MODEL_BATCH, "fp16": _FP16,
        },
        models=True,
    )
