"""The command line the blind-reading scripts share (bench/re_r1_lm.py, bench/re_named_again.py,
bench/coref_gum_b_reads.py): ``draw A B [--n N] [--seed S] [--part P]`` draws the violations of
two runs into the files to read; with no command, the table of the readers' marks."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable, Sequence


def main(doc: str, draw: Callable[..., None], table: Callable[..., str], *,
         runs: tuple[str, str], n: int | None = None, parts: Sequence[str] = (),
         argv: Sequence[str] | None = None) -> int:
    """``runs``: the two run folders' names (``draw``'s first two arguments); ``n``: the default
    of ``--n`` (None: no such option); ``parts``: the choices of ``--part`` (the first the
    default), passed to ``draw`` and ``table`` when given."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd")
    d = sub.add_parser("draw")
    for name in runs:
        d.add_argument(name, type=Path)
    if n is not None:
        d.add_argument("--n", type=int, default=n)
    d.add_argument("--seed", type=int, default=13)
    for a in ((ap, d) if parts else ()):
        a.add_argument("--part", choices=list(parts), default=parts[0])
    args = ap.parse_args(argv)
    part = {"part": args.part} if parts else {}
    if args.cmd == "draw":
        draw(*(getattr(args, name) for name in runs),
             **({"n": args.n} if n is not None else {}), seed=args.seed, **part)
    else:
        print(table(**part))
    return 0
