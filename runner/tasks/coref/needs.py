"""What a coreference suite would load (``mtrun models``): the system and the transformations' models."""
from __future__ import annotations

from typing import Any

from runner.models.inventory import Need, stanza_needs, system_env_needs


def model_needs(cfg: dict[str, Any]) -> list[Need]:
    needs: list[Need] = []
    sut = cfg["sut"]
    if sut["type"] == "xrenner":
        needs.append(Need("sut", "sut", "package", "xrenner"))
        needs.append(Need("sut", "parser", "spacy", sut["parser"]))
    elif sut["type"] in ("fastcoref", "maverick"):
        needs.append(Need("sut", "sut", "package", sut["type"]))
        needs.append(Need("sut", "sut", "coref-model", sut["model"]))
    elif sut["type"] == "spacy_coref":
        needs.append(Need("sut", "sut", "spacy", sut["model"]))
    else:                                   # http, python: the environment
        needs += system_env_needs(sut)
    for i, t in enumerate(cfg["transformations"]):
        where = f"transformations[{i}] {t['type']}"
        if t["type"] == "crest":
            needs.append(Need(where, "parser", "spacy", t["parser"]))
            if t.get("wordnet"):
                needs.append(Need(where, "candidates", "wordnet", "WordNet 3.0"))
                if t.get("senses") == "context":
                    needs.append(Need(where, "sense encoder", "hf", t["sense_encoder"],
                                      runtime="encoder"))
            if t.get("context_similarity") is not None:
                needs.append(Need(where, "similarity encoder", "hf", t["similarity_encoder"],
                                  runtime="encoder"))
            if t.get("masked_lm"):
                needs.append(Need(where, "masked_lm", "hf", t["masked_lm"]))
            if t.get("lm"):
                needs.append(Need(where, "lm", "lm", t["lm"]))
            const = t.get("constituency") or {}
            if const.get("type") == "stanza":
                needs += stanza_needs(where, const.get("model_dir"), const.get("lang") or "en",
                                      ["tokenize", "pos", "constituency"])
        elif t["type"] == "name_swap":
            needs.append(Need(where, "person names", "spacy", t["ner"]))
            needs.append(Need(where, "not places", "wordnet", "WordNet 3.0"))
            if t.get("lm"):
                needs.append(Need(where, "lm", "lm", t["lm"]))
    return needs
