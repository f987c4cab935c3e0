"""Record the local model's passage vectors for the bundled demo (tests/fixtures/demo-local-vectors.npz).

App tests on the local model replay them instead of embedding the demo again (tests/app_helpers.py);
tests/test_local_model.py fails when the recording no longer matches the demo or the model.
Run after changing the demo, the chunker or the model: python3 scripts/record_demo_vectors.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from openclaw_memtui.core.config import index_settings, validate
from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.textutil import sha256_hex
from openclaw_memtui.paths import demo_workspace

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "demo-local-vectors.npz"


def main() -> int:
    vectors: dict[str, np.ndarray] = {}
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "demo"
        shutil.copytree(demo_workspace(), ws)
        index = MemoryIndex(index_settings(validate({}), ws, Path(tmp) / "demo.sqlite"), provider_name="local")
        model = index.provider.embed_batch

        def recording(texts):
            out = model(texts)
            vectors.update(zip((sha256_hex(t) for t in texts), out, strict=True))
            return out

        index.provider.embed_batch = recording
        index.sync()
        index.close()
    hashes = sorted(vectors)
    np.savez_compressed(OUT, hashes=np.array(hashes), vectors=np.stack([vectors[h] for h in hashes]).astype(np.float32))
    print(f"wrote {len(hashes)} vectors to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
