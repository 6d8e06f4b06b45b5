"""The paper's embedding architecture (gte-multilingual "NewModel", maux-gte-persian-v3) loaded through
transformers' native GteModel by tasks/taraz/gte_native.py: a tiny checkpoint written in new-impl's layout
(config and weight names), random weights, is encoded by sentence-transformers and compared with a
forward pass written here from new-impl's modeling.py (Alibaba-NLP/new-impl: embeddings + LayerNorm,
NTK rope, packed qkv, post-LayerNorm layers, gated MLP with up first, CLS pooling, normalised)."""

from __future__ import annotations

import json
import math
import shutil

import pytest

torch = pytest.importorskip("torch")

from lm_eval_persian_culture.tasks.taraz import gte_native  # noqa: E402

pytestmark = pytest.mark.skipif(not gte_native.native_available(), reason="transformers has no GteModel")

HIDDEN, HEADS, LAYERS, INTER, MAX_POS = 32, 2, 2, 48, 64


def new_impl_checkpoint(folder, tokenizer_dir, rope_scaling):
    """A NewModel checkpoint as sentence-transformers saves maux-gte-persian-v3 (random weights)."""
    folder.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        if (tokenizer_dir / name).exists():
            shutil.copy(tokenizer_dir / name, folder / name)
    vocab = len(json.loads((tokenizer_dir / "tokenizer.json").read_text())["model"]["vocab"])
    config = {
        "model_type": "new", "architectures": ["NewModel"],
        "auto_map": {"AutoConfig": "Alibaba-NLP/new-impl--configuration.NewConfig",
                     "AutoModel": "Alibaba-NLP/new-impl--modeling.NewModel"},
        "vocab_size": vocab, "hidden_size": HIDDEN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
        "intermediate_size": INTER, "hidden_act": "gelu", "hidden_dropout_prob": 0.0,
        "attention_probs_dropout_prob": 0.0, "max_position_embeddings": MAX_POS, "type_vocab_size": 1,
        "initializer_range": 0.02, "layer_norm_type": "layer_norm", "layer_norm_eps": 1e-12,
        "position_embedding_type": "rope", "rope_theta": 160000.0, "rope_scaling": rope_scaling,
        "pack_qkv": True, "unpad_inputs": False, "use_memory_efficient_attention": False,
        "logn_attention_scale": False, "logn_attention_clip1": False, "pad_token_id": 0,
    }  # fmt: skip
    (folder / "config.json").write_text(json.dumps(config))
    gen = torch.Generator().manual_seed(0)

    def rnd(*shape, scale=0.3):
        return torch.randn(*shape, generator=gen) * scale

    w = {
        "embeddings.word_embeddings.weight": rnd(vocab, HIDDEN),
        "embeddings.token_type_embeddings.weight": rnd(1, HIDDEN),
        "embeddings.LayerNorm.weight": 1 + rnd(HIDDEN, scale=0.1),
        "embeddings.LayerNorm.bias": rnd(HIDDEN, scale=0.1),
    }
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        w |= {
            p + "attention.qkv_proj.weight": rnd(3 * HIDDEN, HIDDEN), p + "attention.qkv_proj.bias": rnd(3 * HIDDEN),
            p + "attention.o_proj.weight": rnd(HIDDEN, HIDDEN), p + "attention.o_proj.bias": rnd(HIDDEN),
            p + "mlp.up_gate_proj.weight": rnd(2 * INTER, HIDDEN),
            p + "mlp.down_proj.weight": rnd(HIDDEN, INTER), p + "mlp.down_proj.bias": rnd(HIDDEN),
            p + "attn_ln.weight": 1 + rnd(HIDDEN, scale=0.1), p + "attn_ln.bias": rnd(HIDDEN, scale=0.1),
            p + "mlp_ln.weight": 1 + rnd(HIDDEN, scale=0.1), p + "mlp_ln.bias": rnd(HIDDEN, scale=0.1),
        }  # fmt: skip
    from safetensors.torch import save_file

    save_file({k: v.contiguous() for k, v in w.items()}, str(folder / "model.safetensors"))
    (folder / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ]))  # fmt: skip
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": MAX_POS, "do_lower_case": False}))
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": HIDDEN, "pooling_mode_cls_token": True,
         "pooling_mode_mean_tokens": False}))  # fmt: skip
    (folder / "2_Normalize").mkdir()
    return w, config


def new_impl_forward(w, config, ids, mask):
    """new-impl's NewModel forward (padded path, eager attention), CLS-pooled and normalised."""
    ln = torch.nn.functional.layer_norm
    eps, d = config["layer_norm_eps"], HIDDEN // HEADS
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.token_type_embeddings.weight"][0]
    x = ln(x, (HIDDEN,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    base, scaling = config["rope_theta"], config["rope_scaling"]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2).float() / d))
    if scaling and scaling["factor"] > 1:  # NTKScalingRotaryEmbedding, cache built for MAX_POS * factor
        f = scaling["factor"]
        inv_freq = 1.0 / ((base * f) ** (torch.arange(0, d, 2).float() / d)) / f ** (2 / d)
    freqs = torch.outer(torch.arange(ids.shape[1]).float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[None, :, None, :], emb.sin()[None, :, None, :]

    def rotate_half(t):
        return torch.cat((-t[..., d // 2 :], t[..., : d // 2]), dim=-1)

    bias = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
    b, n = ids.shape
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        qkv = x @ w[p + "attention.qkv_proj.weight"].T + w[p + "attention.qkv_proj.bias"]
        q, k, v = (t.view(b, n, HEADS, d) for t in qkv.split(HIDDEN, dim=-1))
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        scores = q.transpose(1, 2) @ k.transpose(1, 2).transpose(-1, -2) / math.sqrt(d) + bias
        ctx = (scores.softmax(-1) @ v.transpose(1, 2)).transpose(1, 2).reshape(b, n, HIDDEN)
        x = ln(x + ctx @ w[p + "attention.o_proj.weight"].T + w[p + "attention.o_proj.bias"], (HIDDEN,),
               w[p + "attn_ln.weight"], w[p + "attn_ln.bias"], eps)  # fmt: skip
        up, gate = (x @ w[p + "mlp.up_gate_proj.weight"].T).split(INTER, dim=-1)
        h = (torch.nn.functional.gelu(gate) * up) @ w[p + "mlp.down_proj.weight"].T + w[p + "mlp.down_proj.bias"]
        x = ln(x + h, (HIDDEN,), w[p + "mlp_ln.weight"], w[p + "mlp_ln.bias"], eps)
    return torch.nn.functional.normalize(x[:, 0], dim=-1)


@pytest.mark.parametrize("rope_scaling", [{"type": "ntk", "factor": 8.0}, None])
def test_native_gte_equals_new_impl_forward(tmp_path, tiny_embedder, rope_scaling):
    from sentence_transformers import SentenceTransformer

    ckpt = tmp_path / "maux-like"
    weights, config = new_impl_checkpoint(ckpt, tiny_embedder, rope_scaling)
    native = gte_native.native_model_dir(ckpt)
    model = SentenceTransformer(str(native), device="cpu")
    shutil.rmtree(native)
    assert type(model[0].auto_model).__name__ == "GteModel"  # native class, no remote code
    texts = ["نان و پنیر", "۱۳:۰۰", "چلوکباب با دوغ و سبزی خوردن در رستوران", "tea"]
    got = torch.tensor(model.encode(texts, convert_to_numpy=True))
    features = model.tokenize(texts)
    expected = new_impl_forward(weights, config, features["input_ids"], features["attention_mask"])
    assert features["input_ids"].shape[1] > 8  # padded batch, positions beyond a few tokens
    assert torch.allclose(got, expected, atol=1e-5), (got - expected).abs().max()


def test_native_config_translates_ntk_rope():
    cfg = {"model_type": "new", "hidden_size": 768, "num_attention_heads": 12, "rope_theta": 160000.0,
           "rope_scaling": {"type": "ntk", "factor": 8.0}, "vocab_size": 250048}  # fmt: skip
    out = gte_native.native_config(cfg)
    assert out["model_type"] == "gte" and "auto_map" not in out
    assert out["rope_parameters"] == {"rope_type": "linear", "rope_theta": 1_280_000.0, "factor": 8.0 ** (2 / 64)}
    with pytest.raises(gte_native.UnsupportedCheckpoint, match="logn_attention_scale"):
        gte_native.native_config({**cfg, "logn_attention_scale": True})


def test_pack_loads_a_new_impl_checkpoint_without_remote_code(tmp_path, tiny_embedder):
    """embedding_model=<a maux-gte-persian-v3-style folder> under transformers 5: no refusal, no
    new-impl code needed next to the weights, transformers' GteModel does the work."""
    from lm_eval_persian_culture.tasks.taraz import embeddings

    ckpt = tmp_path / "maux-like"
    new_impl_checkpoint(ckpt, tiny_embedder, {"type": "ntk", "factor": 8.0})
    assert embeddings.needs_gte_remote_code(str(ckpt), json.loads((ckpt / "config.json").read_text()))
    embeddings.check_compatible(str(ckpt))  # no EmbeddingConfigError
    encoder = embeddings.load_encoder(str(ckpt))
    assert type(encoder[0].auto_model).__name__ == "GteModel"
    vectors = embeddings.embed(["نان", "پنیر"], model=str(ckpt))
    assert set(vectors) == {"نان", "پنیر"}
