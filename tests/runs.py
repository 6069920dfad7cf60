"""Running a suite in-process the way an interrupted run and its --resume do."""
from pathlib import Path

import pytest


def stop_after_first_batch_then_resume(suite, root: Path):
    """Run ``suite`` whole into ``root/whole``; run it into ``root/cut`` stopping after the first
    batch (as a signal does), then resume it there. Returns (whole results, the stopped engine,
    resumed results)."""
    from runner.engine import Engine

    whole = Engine(suite, root / "whole").run()
    first = Engine(suite, root / "cut")
    first.progress = lambda done, total: setattr(first, "stop_requested", True)
    with pytest.raises(KeyboardInterrupt):
        first.run()
    resumed = Engine(suite, root / "cut", resume=True).run()
    return whole, first, resumed
