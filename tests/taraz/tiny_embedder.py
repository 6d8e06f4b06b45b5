"""A tiny random BERT saved as a transformers dir, which sentence-transformers wraps (mean pooling).

Stands in for xmanii/maux-gte-persian-v3, whose weights cannot be downloaded here: it exercises
the real loading, batching and cosine path, not the paper model's similarities.
"""

from __future__ import annotations

from pathlib import Path

ALPHABET = "آابپتثجچحخدذرزژسشصضطظعغفقکگلمنوهیءئ۰۱۲۳۴۵۶۷۸۹0123456789abcdefghijklmnopqrstuvwxyz"


def build_tiny_embedder(out: Path, seed: int = 0) -> Path:
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    out.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *ALPHABET, *(f"##{c}" for c in ALPHABET)]
    wordpiece = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
    wordpiece.normalizer = normalizers.Lowercase()
    wordpiece.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wordpiece.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tok = PreTrainedTokenizerFast(
        tokenizer_object=wordpiece, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
        sep_token="[SEP]", mask_token="[MASK]",
    )  # fmt: skip
    tok.save_pretrained(out)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=128,
    )  # fmt: skip
    BertModel(config).save_pretrained(out)
    return out
