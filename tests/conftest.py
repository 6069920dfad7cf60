import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

# test helpers (synthetic results, the DevTools client) import as plain modules
sys.path.insert(0, str(Path(__file__).resolve().parent))

# The ONNX Runtime copies the tests make (of tiny models in temporary folders, and of the
# embedded ones) go to a folder of this session, not to the user's cache.
if not os.environ.get("MTRUN_ONNX_CACHE"):
    _ONNX = tempfile.mkdtemp(prefix="mtrun-test-onnx-")
    os.environ["MTRUN_ONNX_CACHE"] = _ONNX
    atexit.register(shutil.rmtree, _ONNX, True)


import pytest  # noqa: E402


# Tiny random BERTs saved with save_pretrained (tests/tiny_models.py), one per test module.
@pytest.fixture(scope="module")
def mlm_dir(tmp_path_factory):
    from tests import tiny_models

    return tiny_models.save_bert_mlm(tmp_path_factory.mktemp("mlm"))


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory):
    from tests import tiny_models

    return tiny_models.save_bert_encoder(tmp_path_factory.mktemp("enc"))
