"""Tiny random transformer models saved with ``save_pretrained``, for tests that must not need
the network: a WordPiece vocabulary written by hand, a BertTokenizerFast built from it, and
BertForMaskedLM / BertModel / GPT2LMHeadModel from small configs."""
from __future__ import annotations

from pathlib import Path

WORDS = """the a an he she it they is was are were be has have had did do does
cat dog mat student teacher city house car book man woman
sat ran walked said cried faced ate saw
good bad big small old new nice happy red blue quick
on in at of to and with from
berlin paris london john mary
. , ? !""".split()
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PIECES = ["##s", "##ed", "##ing", "##er", "##ly"]


def write_vocab(folder: Path, *, cased: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    words = WORDS + ([w.capitalize() for w in WORDS if w.isalpha()] if cased else [])
    path = folder / "vocab.txt"
    path.write_text("\n".join(SPECIAL + words + PIECES) + "\n", encoding="utf-8")
    return path


def tokenizer(folder: Path, *, cased: bool = False):
    from transformers import BertTokenizerFast

    import inspect

    path = str(write_vocab(folder, cased=cased))
    # transformers 5 takes the vocabulary as `vocab`, 4.x as `vocab_file`.
    key = "vocab" if "vocab" in inspect.signature(BertTokenizerFast.__init__).parameters else "vocab_file"
    tok = BertTokenizerFast(**{key: path}, do_lower_case=not cased)
    assert len(tok) > len(SPECIAL) + len(WORDS) - 1, "vocabulary not read"
    return tok


def bert_config(vocab_size: int):
    from transformers import BertConfig

    return BertConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=2,
                      num_attention_heads=2, intermediate_size=64, max_position_embeddings=64)


def save_bert_mlm(folder: Path, *, cased: bool = False, seed: int = 0) -> Path:
    import torch
    from transformers import BertForMaskedLM

    tok = tokenizer(folder, cased=cased)
    torch.manual_seed(seed)
    BertForMaskedLM(bert_config(len(tok))).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def save_bert_encoder(folder: Path, *, seed: int = 0) -> Path:
    import torch
    from transformers import BertModel

    tok = tokenizer(folder)
    torch.manual_seed(seed)
    BertModel(bert_config(len(tok))).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def save_gpt2(folder: Path, *, seed: int = 0) -> Path:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    tok = tokenizer(folder)
    torch.manual_seed(seed)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(tok), n_positions=64, n_embd=32, n_layer=2,
                               n_head=2)).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder
