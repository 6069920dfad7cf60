"""``mtrun SUITE --dry-run``: how many calls and characters a run would send, before any is sent.

Source sentences are counted exactly (and, when the system can be set up here, checked against the
persistent prediction cache). Follow-ups depend on the system's answers about the sources, so they
are bounded from above: each transformation's most follow-ups per source, as long as its source.
"""
from __future__ import annotations

from itertools import islice
from typing import Any

from runner.suite import Suite, follow_up_cap

def dry_run(suite: Suite, *, use_cache: bool = True) -> tuple[str, dict[str, Any]]:
    from runner.engine import Engine

    cfg = suite.config
    engine = Engine(suite, suite.report_dir())
    corpus = engine.corpus()
    limit = cfg["limits"]["max_sources"]
    task = suite.task
    texts: list[str] = []
    keys: list[str] = []  # what identifies each source's input in the prediction cache
    for source in islice(iter(corpus), limit):
        texts.append(source.text)
        keys.append(task.input_key(task.sut_input(source)))
    batch = int(cfg["sut"].get("batch_size", 32))
    unique = list(dict.fromkeys(keys))
    length = dict(zip(keys, (len(t) for t in texts)))

    from runner.building import build_sut, open_cache
    from runner.errors import MtrunError

    to_send, cache_note = unique, "prediction cache not in use"
    try:
        sut = build_sut(suite)
        store = open_cache(cfg, sut, enabled=use_cache)
        if store is not None:
            hit = store.get_many(sut.raw_fingerprint(), unique)
            to_send = [t for t in unique if t not in hit]
            cache_note = f"prediction cache: {store.path}"
            store.close()
    except MtrunError as exc:
        cache_note = f"prediction cache not consulted: {exc}"
    src_calls = -(-len(to_send) // batch)
    src_chars = sum(length[k] for k in to_send)

    per_source = 0
    parts = []
    transformations = task.registries()["transformations"]
    for t in cfg["transformations"]:
        # most follow-ups one source gives (registered with the transformation), else the limit
        most = transformations.get(t["type"]).extra.get("max_per_source")
        cap = follow_up_cap(cfg, t.get("name", t["type"]))
        bound = min(most(t), cap) if most else cap
        per_source += bound
        parts.append(f"{t.get('name', t['type'])} ≤{bound}")
    fu_texts = per_source * len(texts)
    fu_chars = per_source * sum(len(t) + 1 for t in texts)  # "+1": e.g. "." → "?" keeps length
    fu_calls = -(-fu_texts // batch)
    plan = {"sources": len(texts), "unique_sources": len(unique), "cached_sources": len(unique) - len(to_send),
            "source_calls": src_calls, "source_characters": src_chars,
            "follow_ups_max": fu_texts, "follow_up_calls_max": fu_calls,
            "follow_up_characters_max": fu_chars,
            "calls_max": src_calls + fu_calls, "characters_max": src_chars + fu_chars}
    lines = [
        f"dry run of {suite.name}: {cfg['sut']['type']} system, {batch} text(s) per call; "
        "nothing was sent",
        f"  sources:    {len(texts)} sentence(s) ({len(unique)} distinct), "
        f"{plan['cached_sources']} already cached → {len(to_send)} to send in {src_calls} call(s), "
        f"{src_chars:,} characters",
        f"  follow-ups: at most {fu_texts} ({', '.join(parts)} per source) → at most "
        f"{fu_calls} call(s), about {fu_chars:,} characters",
        f"  total:      at most {plan['calls_max']} call(s) and {plan['characters_max']:,} "
        "characters (follow-ups already cached are not sent)",
        f"  {cache_note}",
    ]
    if cfg.get("attacks"):
        # The entities attacked are known only from the system's answers: a bound per entity.
        bounds = [f"{a['type']} ≤{a['max_candidates']}" if a["type"] == "entity" else
                  f"{a['type']} ≤{1 + a['max_candidates']} per context word"
                  for a in cfg["attacks"]]
        lines.insert(-2, f"  attacks:    not in the total; texts per attacked entity: "
                         f"{', '.join(bounds)}")
        plan["attack_bounds"] = bounds
    return "\n".join(lines), plan
