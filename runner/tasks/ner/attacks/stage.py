"""The attack stage: run per batch of sources, after the metamorphic cases, by the engine.

Each attacked entity gives one record, appended to ``attacks.jsonl`` with the batch's cases; the
byte length of the file is part of each batch's progress mark, so ``--resume`` cuts the records of
a batch cut short and runs that batch again: no entity is attacked twice and none is lost.
Randomness (the entity attack's sample of candidates) comes from a generator derived from the
seed, the source and the entity, so results do not depend on batch size or ``--max-sources``.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from runner.tasks.ner.types import Prediction, Sentence

ATTACKS_FILE = "attacks.jsonl"


class AttackStage:
    """Breaking BERT's attacks as a stage of the engine (:class:`runner.stages.BatchStage`)."""

    name = "attacks"
    records_file = ATTACKS_FILE

    def __init__(self, cfg: dict[str, Any], sut: Any, *,
                 log: Callable[[str], None] = lambda m: None) -> None:
        """Configured from the suite ``cfg`` (as filled); :meth:`build` loads the models."""
        self.cfg = cfg
        self.sut = sut
        self.seed = cfg["seed"]
        self.log = log
        self.attacks: list[Any] = []

    @property
    def needs_parse(self) -> bool:
        return any(a["type"] == "entity_context" for a in self.cfg["attacks"])

    def build(self) -> None:
        from runner.models import get_encoder
        from runner.tasks.ner.attacks.synonyms import Similarity, SynonymFinder
        from runner.tasks.ner.catalog import ATTACKS

        cfg, log = self.cfg, self.log
        for a in cfg["attacks"]:
            params = {k: v for k, v in a.items() if k != "type"}
            log(f"loading models for the {a['type']} attack")
            device, fp16, batch = cfg["device"], params.pop("fp16"), params.pop("batch_size")
            encoder = get_encoder(params.pop("encoder"), device=device, fp16=fp16,
                                  batch_size=batch)
            similarity = Similarity(encoder, params.pop("word_similarity", "context"))
            if a["type"] == "entity_context":
                from runner.nlp import load_spacy
                from runner.text.lm_candidates import make_source

                if (rise := params.pop("max_perplexity_rise")) is not None:
                    from runner.models import OFFLINE_LM, get_lm

                    judge = get_lm(params.get("lm") or OFFLINE_LM, device=device, fp16=fp16,
                                   batch_size=batch)
                    params["naturalness"] = (judge, rise)
                source = make_source(params.pop("candidates"), masked_lm=params.pop("masked_lm"),
                                     vectors=params.pop("vectors"), device=device, fp16=fp16,
                                     batch_size=batch, vectors_file=params.pop("vectors_file"),
                                     lm=params.pop("lm"), lm_wordnet=params.pop("lm_wordnet"),
                                     lm_rescore=params.pop("lm_rescore"))
                params["synonyms"] = SynonymFinder(
                    source, similarity, load_spacy(params.pop("tagger")),
                    max_candidates=params.pop("max_candidates"),
                    min_word_similarity=params.pop("min_word_similarity"))
            self.attacks.append(ATTACKS.get(a["type"]).factory(sut=self.sut,
                                                               similarity=similarity, **params))

    # -- the entity attack's pool ----------------------------------------------------------
    def prepare(self, sentences: Callable[[], Iterable[Sentence]], sut: Any,
                batch_size: int) -> None:
        """Collect the entity attack's pool of same-type entities: the corpus's gold entities
        when it has gold labels, else the system's predictions on the corpus (batched, through
        the prediction cache, so the run's own source predictions cost nothing more), or the
        gazetteer file the suite names."""
        for attack in self.attacks:
            if attack.name != "entity":
                continue
            if attack.pool_file:
                from runner.tasks.ner.attacks.subtypes import BUILTIN, Gazetteer, read_rows

                path = BUILTIN if attack.pool_file == "builtin" else Path(attack.pool_file)
                rows = read_rows(path)
                attack.set_pool(_by_label(rows), f"file:{path.name}", Gazetteer(rows))
                self.log(f"entity attack pool ({attack.pool_basis}): "
                         + ", ".join(f"{k} {n}" for k, n in attack.describe()["pool_sizes"]
                                     .items()))
                continue
            limit = attack.pool_sources
            gold: dict[str, list[str]] = {}
            predicted: dict[str, list[str]] = {}
            has_gold = False
            for batch in _chunks(_limit(sentences(), limit), batch_size):
                for s in batch:
                    if s.gold is not None:
                        has_gold = True
                        for g in s.gold:
                            gold.setdefault(g.label, []).append(g.text_in(s.text))
                if not has_gold:
                    for s, p in zip(batch, sut.predict_outcomes([s.text for s in batch])):
                        if isinstance(p, Prediction):
                            for sp in p.spans:
                                predicted.setdefault(sp.label, []).append(sp.text_in(s.text))
            if has_gold:
                attack.set_pool(gold, "corpus gold entities")
            else:
                attack.set_pool(predicted, "entities the system predicted in the corpus")
            sizes = ", ".join(f"{t} {len(v)}" for t, v in sorted(attack.pool.items()))
            self.log(f"entity attack pool ({attack.pool_basis}): {sizes or 'empty'}")

    # -- running ---------------------------------------------------------------------------
    def run_batch(self, batch: list[Sentence], predictions: list[Any],
                  docs: list[Any]) -> list[dict[str, Any]]:
        from runner.seeding import case_rng

        records = []
        for source, prediction, doc in zip(batch, predictions, docs):
            if not isinstance(prediction, Prediction):
                continue  # the source could not be predicted: its error case says so
            for attack in self.attacks:
                def rng_for(name: str, k: int, span: Any, _s: Sentence = source) -> Any:
                    return case_rng(self.seed, _s.id, _s.text, "attack:" + name,
                                    f"{span.start}:{span.end}:{span.label}")
                records += attack.run(source, prediction, doc, rng_for)
        return records

    def describe(self) -> list[dict[str, Any]]:
        return [a.describe() for a in self.attacks]

    def models(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for a in self.attacks:
            for d in a.models():
                if d not in out:
                    out.append(d)
        return out

    def threshold_inputs(self, results: dict[str, Any]) -> dict[str, Any]:
        return {"attacks": results["summary"]}

    def results(self, path: Path) -> dict[str, Any]:
        from runner.tasks.ner.attacks.metrics import summarise

        records = list(iter_records(path))
        return {"components": self.describe(), "summary": summarise(records),
                "calls": sum(a.oracle.calls for a in self.attacks), "records": records}


def iter_records(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def read_pool_file(path: Path) -> dict[str, list[str]]:
    """A gazetteer's drawn names by label: one ``TYPE<TAB>entity text`` per line (the suite's
    common types), or ``TYPE:subtype<TAB>entity text[<TAB>role]`` (see ``subtypes``)."""
    from runner.tasks.ner.attacks.subtypes import read_rows

    return _by_label(read_rows(path))


def _by_label(rows: list[tuple[str, str, str]]) -> dict[str, list[str]]:
    pool: dict[str, list[str]] = {}
    for key, name, role in rows:
        if role == "pool":
            pool.setdefault(key.partition(":")[0], []).append(name)
    return pool


def _limit(items: Iterable[Sentence], n: int | None) -> Iterator[Sentence]:
    for i, s in enumerate(items):
        if n is not None and i >= n:
            return
        yield s


def _chunks(items: Iterable[Sentence], n: int) -> Iterator[list[Sentence]]:
    batch: list[Sentence] = []
    for s in items:
        batch.append(s)
        if len(batch) == n:
            yield batch
            batch = []
    if batch:
        yield batch


def check_config(suite: Any) -> None:
    """The suite's `attacks:` as JSON Schema cannot check them: each listed once, its files
    found (made absolute), a threshold on their success only with attacks to judge."""
    from runner.suite import probe, usable_path

    cfg = suite.config
    names: set[str] = set()
    for i, a in enumerate(cfg.get("attacks") or []):
        if a["type"] in names:
            raise suite.error(f"attack {a['type']!r} is listed twice", ("attacks", i, "type"))
        names.add(a["type"])
        for key in ("vectors_file", "pool_file"):
            if a.get(key) and not (key == "pool_file" and a[key] == "builtin"):
                path = usable_path(suite, a[key], ("attacks", i, key))
                if not probe(suite, ("attacks", i, key), path.is_file):
                    raise suite.error(f"file not found: {path}", ("attacks", i, key),
                                      hint="paths are relative to the suite file's folder")
                a[key] = str(path)
        if a.get("candidates") == "vectors_file" and not a.get("vectors_file"):
            raise suite.error("candidates vectors_file needs `vectors_file:` (a word-vector text "
                              "file)", ("attacks", i, "candidates"))
    if cfg["report"]["fail_on"].get("max_attack_success_rate") is not None and not names:
        raise suite.error("a threshold on the attack success rate, but the suite has no "
                          "`attacks:`", ("report", "fail_on", "max_attack_success_rate"))
