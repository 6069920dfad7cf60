"""CUDA graphs of a causal LM's forward pass: on a GPU a small model's pass is mostly Python
launching its layers' small kernels one by one (SmolLM2: 30 layers, some 400 kernels, for a few
milliseconds of arithmetic). A graph captured once per padded shape replays them all in one launch.

A batch is padded to a shape bucket — rows to the next power of two, tokens to the next multiple
of 32 — and its attention mask passed as the 4-D causal-and-padding mask the model builds itself
(so nothing in the pass reads a value back to the CPU, which capture forbids). Right padding does
not change a real position's states (causal attention; padded rows and keys are masked). Every
graph shares one memory pool, and each replay's states are copied out under a lock before the
next replay, so a graph's output is never read after another has run. At most ``max_graphs``
shapes are captured; a batch of another shape, or any pass after a capture failed, runs as before.
``MTRUN_CUDA_GRAPHS=0`` turns them off.
"""
from __future__ import annotations

import os
import threading
from typing import Any


def wanted(device: Any) -> bool:
    return str(device).startswith("cuda") and os.environ.get("MTRUN_CUDA_GRAPHS", "1") != "0"


class GraphedForward:
    """``forward(ids, att)`` → the base model's last hidden states ``[b, l, d]`` (a copy)."""

    def __init__(self, base: Any, pad_id: int, *, max_graphs: int = 64, step: int = 32) -> None:
        self.base = base
        self.pad_id = pad_id
        self.max_graphs = max_graphs
        self.step = step
        self.graphs: dict[tuple[int, int], tuple[Any, Any, Any, Any]] = {}
        self.pool: Any = None
        self.failed: str | None = None
        self.replays = 0
        self._lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        return {"cuda_graphs": (f"off ({self.failed})" if self.failed else
                                f"{len(self.graphs)} shape(s) captured, {self.replays} replays")}

    def shape(self, b: int, length: int) -> tuple[int, int]:
        return 1 << max(0, (b - 1).bit_length()), -(-length // self.step) * self.step

    def __call__(self, ids: Any, att: Any) -> Any | None:
        """The states, or None where this batch runs without a graph (the caller's eager pass)."""
        if self.failed:
            return None
        b, length = ids.shape
        key = self.shape(b, length)
        with self._lock:
            g = self.graphs.get(key)
            if g is None:
                if len(self.graphs) >= self.max_graphs:
                    return None
                try:
                    g = self.graphs[key] = self._capture(*key, ids.device)
                except Exception as exc:   # noqa: BLE001 (any capture failure: eager from now on)
                    self.failed = f"{type(exc).__name__}: {str(exc)[:160]}"
                    self.graphs.clear()
                    return None
            s_ids, s_mask, out, graph = g
            s_ids.fill_(self.pad_id)
            s_ids[:b, :length] = ids
            keys = s_ids.new_zeros(key, dtype=bool)
            keys[:, 0] = True                     # a padded row attends to one key (no NaN)
            keys[:b, :length] = att.bool()
            s_mask.copy_(self._causal(key[1], ids.device)[None, None] & keys[:, None, None, :])
            graph.replay()
            self.replays += 1
            return out[:b, :length].clone()

    def _causal(self, length: int, device: Any) -> Any:
        import torch

        return torch.ones(length, length, dtype=torch.bool, device=device).tril()

    def _capture(self, rows: int, length: int, device: Any) -> tuple[Any, Any, Any, Any]:
        import torch

        s_ids = torch.full((rows, length), self.pad_id, dtype=torch.long, device=device)
        s_mask = self._causal(length, device)[None, None].expand(rows, 1, length, length).clone()
        side = torch.cuda.Stream(device=device)
        side.wait_stream(torch.cuda.current_stream(device))
        with torch.cuda.stream(side), torch.inference_mode():
            for _ in range(2):    # warm-up off the capture (cuBLAS handles, workspaces)
                self.base(input_ids=s_ids, attention_mask=s_mask, use_cache=False)
        torch.cuda.current_stream(device).wait_stream(side)
        if self.pool is None:
            self.pool = torch.cuda.graph_pool_handle()
        graph = torch.cuda.CUDAGraph()
        with torch.inference_mode(), torch.cuda.graph(graph, pool=self.pool):
            out = self.base(input_ids=s_ids, attention_mask=s_mask, use_cache=False)[0]
        return s_ids, s_mask, out, graph
