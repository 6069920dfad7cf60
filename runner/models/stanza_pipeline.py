"""stanza pipelines from a local resources folder, never downloaded: the one place that finds the
folder, loads a pipeline and says what to do when it cannot (used by the stanza NER system under
test and coreference's stanza constituency parser)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from runner.errors import ModelNotAvailable


def load_stanza(*, lang: str, model_dir: str | None, processors: dict[str, str], what: str,
                setting: str, device: str = "cpu", **options: Any) -> tuple[Any, Path, str]:
    """``(pipeline, resources folder, stanza version)``. ``model_dir`` (else
    ``$STANZA_RESOURCES_DIR``, else ``~/stanza_resources``) must hold ``resources.json``;
    ``what`` names the pipeline in messages ("NER pipeline"), ``setting`` the suite key that
    points at the folder; ``options`` go to ``stanza.Pipeline``."""
    try:
        import stanza
    except ImportError:
        raise ModelNotAvailable(f"the stanza {what} needs stanza: "
                                "pip install -e \".[stanza]\"") from None
    folder = Path(model_dir or os.environ.get("STANZA_RESOURCES_DIR")
                  or Path.home() / "stanza_resources").expanduser()
    if not (folder / "resources.json").is_file():
        raise ModelNotAvailable(
            f"stanza: no models in {folder} (resources.json missing). Where there is network, "
            f"run `python -c \"import stanza; stanza.download('{lang}', model_dir='{folder}', "
            f"processors='{','.join(processors)}')\"`, copy the folder here and set {setting}")
    cuda = device.startswith("cuda")
    try:
        nlp = stanza.Pipeline(lang=lang, dir=str(folder), processors=processors,
                              download_method=None, use_gpu=cuda, device=device if cuda else None,
                              logging_level="WARN", **options)
    except Exception as exc:  # noqa: BLE001 — stanza raises many kinds for a missing model
        raise ModelNotAvailable(f"stanza cannot load the {lang} {what} from {folder}: "
                                f"{type(exc).__name__}: {exc}") from None
    return nlp, folder, stanza.__version__
