#!/usr/bin/env python3
"""Torch-free BERT (sentence-transformers) -> GGUF converter.

Mirrors BertModel in llama.cpp's convert_hf_to_gguf.py (the copy vendored in llama-cpp-python 0.3.16)
using only the `gguf` package + numpy: no torch, no transformers. Usage:
  bert_to_gguf.py MODEL_DIR OUT.gguf [f32|f16|q8_0] [GGUF_PY_DIR]
Needs gguf==0.19.0 from PyPI (byte-identical output to the vendored gguf-py; gguf 0.17.1 from PyPI
silently drops the special-token ids) or GGUF_PY_DIR = <llama.cpp>/gguf-py. general.name is taken
from MODEL_DIR's basename (after the last "__"), so keep the directory name to reproduce the sha256.
Output is identical with numpy 1.26.4 and 2.4.6.
"""
import json, struct, sys
from pathlib import Path
import numpy as np

model_dir = Path(sys.argv[1]); out = Path(sys.argv[2])
outtype = sys.argv[3] if len(sys.argv) > 3 else "f16"
if len(sys.argv) > 4:
    sys.path.insert(0, sys.argv[4])
import gguf  # noqa: E402

hp = json.loads((model_dir / "config.json").read_text())
assert hp.get("model_type") == "bert", hp.get("model_type")
n_layer = hp["num_hidden_layers"]
ftype = {"f32": gguf.LlamaFileType.ALL_F32, "f16": gguf.LlamaFileType.MOSTLY_F16,
         "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0}[outtype]

# ---- safetensors (no torch): 8-byte LE header length, JSON header, raw data
def read_safetensors(p: Path):
    raw = p.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    hdr = json.loads(raw[8:8 + n]); base = 8 + n
    dt = {"F32": np.float32, "F16": np.float16}
    for name, info in hdr.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        if info["dtype"] == "BF16":
            u = np.frombuffer(raw[base + a:base + b], dtype=np.uint16).astype(np.uint32) << 16
            arr = u.view(np.float32)
        elif info["dtype"] in dt:
            arr = np.frombuffer(raw[base + a:base + b], dtype=dt[info["dtype"]])
        else:  # int tensors (position_ids) are dropped below anyway
            arr = None
        yield name, (arr.reshape(info["shape"]) if arr is not None else None)

# ---- vocab (WordPiece) like get_vocab_base + BertModel.set_vocab
tj = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
vocab = tj["model"]["vocab"]
added = {t["content"]: t for t in tj.get("added_tokens", [])}
for t in added.values():
    vocab.setdefault(t["content"], t["id"])
vocab_size = hp.get("vocab_size", len(vocab))
rev = {i: t for t, i in vocab.items()}
tokens, toktypes = [], []
for i in range(vocab_size):
    if i not in rev:
        tokens.append(f"[PAD{i}]"); toktypes.append(gguf.TokenType.UNUSED); continue
    t = rev[i]
    if t in added:
        toktypes.append(gguf.TokenType.CONTROL if added[t]["special"] else gguf.TokenType.USER_DEFINED)
    else:
        toktypes.append(gguf.TokenType.NORMAL)
    tokens.append(t)

def phantom(tok):
    if tok.startswith("[") and tok.endswith("]"):
        return tok
    if tok.startswith("##"):
        return tok[2:]
    return "\u2581" + tok

# tokenizer.ggml.pre: convert_hf_to_gguf hashes the token ids of a fixed test string; for the
# bert-base-uncased WordPiece vocab (all-MiniLM-L6-v2, bge-small-en-v1.5) that hash is "bert-bge".
tokpre = "bert-bge"

w = gguf.GGUFWriter(out, "bert")
w.add_type(gguf.GGUFType.MODEL)
name = model_dir.name.split("__")[-1]
w.add_name(name)
w.add_block_count(n_layer)
w.add_context_length(hp["max_position_embeddings"])
w.add_embedding_length(hp["hidden_size"])
w.add_feed_forward_length(hp["intermediate_size"])
w.add_head_count(hp["num_attention_heads"])
w.add_layer_norm_eps(hp["layer_norm_eps"])
w.add_file_type(ftype)
w.add_causal_attention(False)
# pooling from sentence-transformers modules.json
mods = json.loads((model_dir / "modules.json").read_text())
for m in mods:
    if m["type"] == "sentence_transformers.models.Pooling":
        pc = json.loads((model_dir / m["path"] / "config.json").read_text())
        if pc.get("pooling_mode_mean_tokens"):
            w.add_pooling_type(gguf.PoolingType.MEAN)
        elif pc.get("pooling_mode_cls_token"):
            w.add_pooling_type(gguf.PoolingType.CLS)
        elif pc.get("pooling_mode_lasttoken"):
            w.add_pooling_type(gguf.PoolingType.LAST)
        break
w.add_quantization_version(gguf.GGML_QUANT_VERSION)
w.add_token_type_count(hp.get("type_vocab_size", 1))
w.add_tokenizer_model("bert")
w.add_tokenizer_pre(tokpre)
w.add_token_list([phantom(t) for t in tokens])
w.add_token_types(toktypes)
gguf.SpecialVocab(model_dir, n_vocab=len(tokens)).add_to_gguf(w)

tmap = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, n_layer)
keep_f32 = (gguf.MODEL_TENSOR.POS_EMBD, gguf.MODEL_TENSOR.TOKEN_TYPES)
for hf_name, arr in read_safetensors(model_dir / "model.safetensors"):
    n = hf_name[5:] if hf_name.startswith("bert.") else hf_name
    if n.endswith(".gamma"): n = n[:-6] + ".weight"
    if n.endswith(".beta"): n = n[:-5] + ".bias"
    if n in ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias") or n.startswith("cls."):
        continue
    new = tmap.get_name(n, try_suffixes=(".weight", ".bias"))
    assert new is not None, f"cannot map {hf_name}"
    data = arr.astype(np.float32) if arr.dtype not in (np.float16, np.float32) else arr
    if data.ndim <= 1 or new.endswith("_norm.weight"):
        qt = gguf.GGMLQuantizationType.F32
    elif any(new == gguf.TENSOR_NAMES[k] + ".weight" for k in keep_f32):
        qt = gguf.GGMLQuantizationType.F32
    else:
        qt = {gguf.LlamaFileType.ALL_F32: gguf.GGMLQuantizationType.F32,
              gguf.LlamaFileType.MOSTLY_F16: gguf.GGMLQuantizationType.F16,
              gguf.LlamaFileType.MOSTLY_Q8_0: gguf.GGMLQuantizationType.Q8_0}[ftype]
    try:
        q = gguf.quants.quantize(data, qt)
    except gguf.QuantError:
        qt = gguf.GGMLQuantizationType.F16
        q = gguf.quants.quantize(data, qt)
    w.add_tensor(new, q, raw_dtype=qt)
    print(f"{new:32s} {str(arr.dtype):8s} -> {qt.name:5s} {list(reversed(arr.shape))}", file=sys.stderr)

w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
print(out)
