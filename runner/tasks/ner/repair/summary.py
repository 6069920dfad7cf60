"""Console lines for error categories, repairs and gold metrics (below the summary table)."""
from __future__ import annotations

from typing import Any


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v:.1%}"


def console_lines(results: dict[str, Any]) -> list[str]:
    lines = []
    cats = results.get("categories")
    if cats and any(cats.values()):
        lines.append("error categories: " + ", ".join(f"{k} {n}" for k, n in cats.items()))
    rep = results.get("repair")
    if rep and rep.get("enabled"):
        lines.append(f"repair ({rep['backend']}): {rep['repairs']} sentence(s) repaired, "
                     f"{rep['entities_relabelled']} of {rep['suspicious_entities']} suspicious "
                     f"entity occurrences (in source and follow-up) changed type")
    g = (rep or {}).get("gold")
    if g:
        line = f"gold labels: precision of testing {_pct(g['precision'])} ({g['erroneous']}/{g['judged']})"
        if "ErrorReduce" in g:
            line += (f"; repair TT {g['TT']} TF {g['TF']} FT {g['FT']} FF {g['FF']}, Err2Cor "
                     f"{_pct(g['Err2Cor'])}, Cor2Err {_pct(g['Cor2Err'])}, ErrorReduce "
                     f"{_pct(g['ErrorReduce'])}")
        lines.append(line)
    return lines
