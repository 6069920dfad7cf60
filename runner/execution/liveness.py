"""How the Ray engine tells a slow cluster from a lost one, so that a run never waits in silence.

Ray reports a worker that dies (its process killed, its node lost) as an error on its pending
calls, and the engine starts a replacement. What Ray does not report is a replacement that cannot
be placed: when the node that would hold it is gone (on a one-machine cluster, the machine's
raylet exits when its ``ray::DashboardAgent`` is killed), the new actor waits for resources for
ever. Every wait of the engine is therefore a poll of :data:`POLL_S` seconds, and between polls
the engine asks the cluster's control store (GCS) which nodes are alive:

- no live node can hold a worker for :data:`NO_NODE_GRACE_S` seconds: the run ends with
  :class:`ClusterLost` (the results decided so far are written; ``--resume`` continues);
- a worker (a replacement included) that is not built after :func:`start_timeout` seconds
  (``MTRUN_RAY_WORKER_START_S``, default 600: its models load in that time): the same.

So a lost node ends in a finished run (its batches run again elsewhere) or in that error, within
``NO_NODE_GRACE_S + POLL_S`` seconds of Ray marking the node dead (Ray's own health check takes
up to about 30 s more when a node vanishes without a word).
"""
from __future__ import annotations

import math
import os
from typing import Any

from runner.errors import ExitCode, MtrunError

POLL_S = 2.0
NO_NODE_GRACE_S = 10.0
DEFAULT_START_S = 600.0


class ClusterLost(MtrunError):
    """The cluster cannot go on with the run (its nodes lost, a worker that never starts). Not a
    usage error and not a bug in mtrun: exit 3, with the reason and no traceback."""

    exit_code = ExitCode.INTERNAL_ERROR


def start_timeout() -> float:
    try:
        return max(float(os.environ.get("MTRUN_RAY_WORKER_START_S", DEFAULT_START_S)), 1.0)
    except ValueError:
        return DEFAULT_START_S


def capacity(ray: Any, cpus: float, gpus: float) -> int:
    """How many workers of ``cpus`` CPUs and ``gpus`` GPUs the cluster's live nodes can hold
    (their total resources; what other work holds is not subtracted). Unknown (the control store
    did not answer): assumed enough, the start timeout still bounds the wait."""
    try:
        nodes = ray.nodes()
    except Exception:  # noqa: BLE001 — a control store that does not answer is no evidence
        return 1
    total = 0
    for node in nodes:
        if not node.get("Alive"):
            continue
        res = node.get("Resources") or {}
        fits = [res.get(name, 0.0) / need for name, need in (("CPU", cpus), ("GPU", gpus)) if need]
        total += 1 if not fits else int(math.floor(min(fits) + 1e-9))
    return total


class Watch:
    """The evidence gathered over one wait: when the cluster was last seen able to hold a worker."""

    def __init__(self, ray: Any, cpus: float, gpus: float, clock: Any) -> None:
        self.ray, self.cpus, self.gpus, self.clock = ray, cpus, gpus, clock
        self.no_node_since: float | None = None

    def check(self, what: str) -> None:
        """Raise :class:`ClusterLost` when no live node has been able to hold a worker for
        :data:`NO_NODE_GRACE_S` seconds."""
        now = self.clock()
        if capacity(self.ray, self.cpus, self.gpus) > 0:
            self.no_node_since = None
            return
        if self.no_node_since is None:
            self.no_node_since = now
        if now - self.no_node_since >= NO_NODE_GRACE_S:
            raise ClusterLost(
                f"execution: the Ray cluster has no live node that can hold a worker "
                f"({self.cpus:g} CPU, {self.gpus:g} GPU) while {what}: a node was lost (its "
                "raylet exited). The results decided so far are written; `--resume` continues "
                "the run on a working cluster (see the Ray logs, /tmp/ray/session_latest/logs)")
