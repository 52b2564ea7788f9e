"""torch.nn.functional: scaled_dot_product_attention and multi_head_attention_forward.

Torch: torch/nn/functional.py. `F.scaled_dot_product_attention` is the torch._C._nn binding
(refimpl/_C/_nn.py) over aten's scaled_dot_product_attention (refimpl/ops/nn_attention.py:
the CPU backend choice, the flash kernel, the math composition). multi_head_attention_forward
is written in Python in torch; this one makes the same torch calls in the same order, so a
TorchDispatchMode sees the same aten ops: the in-projection (one packed linear for
self-attention, a split one for encoder-decoder attention, three for separate weights),
the mask canonicalisation (boolean masks become additive float masks), bias_k/bias_v and
add_zero_attn columns, the key-padding mask merged into the attention mask, then either the
explicit path (baddbmm/bmm, softmax, dropout, bmm; the weights averaged over heads) when
the weights are asked for, or scaled_dot_product_attention when they are not.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from refimpl._base.dtypes import DType, bool_
from refimpl._C._nn import scaled_dot_product_attention
from refimpl.api.factories import zeros, zeros_like
from refimpl.api.joins import cat
from refimpl.api.products import baddbmm, bmm
from refimpl.nn.functional._activation import dropout, softmax
from refimpl.nn.functional._embedding import linear, pad

__all__: list[str] = ["multi_head_attention_forward", "scaled_dot_product_attention"]

Tensor = Any


def _is_batched(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    num_heads: int,
) -> bool:
    """Whether the inputs carry a batch dim (3-D query) or not (2-D), after torch's checks of
    the ranks of key, value and the masks. Torch: _mha_shape_check."""
    rank = query.dim()
    if rank not in (2, 3):
        raise AssertionError(
            "query should be unbatched 2D or batched 3D tensor but received "
            f"{rank}-D query tensor"
        )
    batched = bool(rank == 3)
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {rank}-D but found "
            f"{key.dim()}-D and {value.dim()}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or {rank - 1}-D but "
            f"found {key_padding_mask.dim()}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.dim()}-D tensor instead"
            )
        if not batched and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.shape != expected:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
                )
    return batched


def _canonical_mask(
    mask: Tensor | None,
    mask_name: str,
    other_type: DType | None,
    other_name: str,
    target_type: DType,
    check_other: bool = True,
) -> Tensor | None:
    """A boolean mask as an additive float mask of `target_type` (-inf where True); a float
    mask as it is. Torch: F._canonical_mask."""
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype is not bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type "
            "for both instead.",
            stacklevel=3,
        )
    if is_float:
        return mask
    return zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))


def _split_packed(projection: Tensor, parts: int, embed: int) -> Tensor:
    # (..., parts * E) -> (parts, ..., E), contiguous: torch's unflatten / unsqueeze /
    # transpose / squeeze / contiguous chain, which keeps chunk()'s order.
    return (
        projection.unflatten(-1, (parts, embed))
        .unsqueeze(0)
        .transpose(0, -2)
        .squeeze(-2)
        .contiguous()
    )


def _packed_projection(
    q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None
) -> tuple[Tensor, Tensor, Tensor]:
    """q, k, v through one (3E, E) weight: one linear for self-attention (q is k is v), a
    (E | 2E) split for encoder-decoder attention (k is v), three chunks otherwise.
    Torch: F._in_projection_packed."""
    embed = q.size(-1)
    if k is v and q is k:
        packed = _split_packed(linear(q, w, b), 3, embed)
        return packed[0], packed[1], packed[2]
    if k is v:
        w_q, w_kv = w.split([embed, embed * 2])
        b_q, b_kv = (None, None) if b is None else b.split([embed, embed * 2])
        q_projected = linear(q, w_q, b_q)
        kv = _split_packed(linear(k, w_kv, b_kv), 2, embed)
        return q_projected, kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _separate_projection(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    weights: tuple[Tensor, Tensor, Tensor],
    biases: tuple[Tensor | None, ...],
) -> tuple[Tensor, Tensor, Tensor]:
    """q, k, v through their own weights, after torch's shape assertions. Torch:
    F._in_projection."""
    e_q = q.size(-1)
    names = ("query", "key", "value")
    for name, x, w in zip(names, (q, k, v), weights, strict=True):
        expected = (e_q, x.size(-1))
        if w.shape != expected:
            raise AssertionError(
                f"expecting {name} weights shape of {expected}, but got {w.shape}"
            )
    for name, bias in zip(names, biases, strict=True):
        if bias is not None and bias.shape != (e_q,):
            raise AssertionError(f"expecting {name} bias shape of {(e_q,)}, but got {bias.shape}")
    return (
        linear(q, weights[0], biases[0]),
        linear(k, weights[1], biases[1]),
        linear(v, weights[2], biases[2]),
    )


def _three_dim_mask(attn_mask: Tensor, tgt_len: int, src_len: int, batch_heads: int) -> Tensor:
    # torch: a 2-D mask must be (L, S) and gains a leading dim; a 3-D one must be (N*H, L, S).
    if attn_mask.dim() == 2:
        expected: tuple[int, ...] = (tgt_len, src_len)
        if attn_mask.shape != expected:
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {expected}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        expected = (batch_heads, tgt_len, src_len)
        if attn_mask.shape != expected:
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {expected}."
            )
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _static(static: Tensor, name: str, batch_heads: int, head_dim: int) -> Tensor:
    if static.size(0) != batch_heads:
        raise AssertionError(
            f"expecting {name}.size(0) of {batch_heads}, but got {static.size(0)}"
        )
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


def _check_key_padding_mask(key_padding_mask: Tensor, src_len: int, bsz: int) -> None:
    for dim, expected in ((0, bsz), (1, src_len)):
        if key_padding_mask.shape[dim] != expected:
            raise AssertionError(
                f"Expected key_padded_mask.shape[{dim}] to be {expected}, but got "
                f"{key_padding_mask.shape[dim]}"
            )


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention over (L, N, E) query and (S, N, E) key/value (or unbatched
    (L, E), (S, E)). Torch: torch.nn.functional.multi_head_attention_forward."""
    batched = _is_batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask,
        "key_padding_mask",
        None if attn_mask is None else attn_mask.dtype,
        "attn_mask",
        query.dtype,
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        # torch: the is_causal hint then goes to SDPA in place of the mask.
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _packed_projection(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, weight in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if weight is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None"
                )
        biases = (None, None, None) if in_proj_bias is None else tuple(in_proj_bias.chunk(3))
        weights = (q_proj_weight, k_proj_weight, v_proj_weight)
        q, k, v = _separate_projection(query, key, value, weights, biases)

    batch_heads = bsz * num_heads
    if attn_mask is not None:
        attn_mask = _three_dim_mask(attn_mask, tgt_len, src_len, batch_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # The heads become batch entries: (L, N, E) -> (N*H, L, E/H).
    q = q.view(tgt_len, batch_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], batch_heads, head_dim).transpose(0, 1)
    else:
        k = _static(static_k, "static_k", batch_heads, head_dim)
    if static_v is None:
        v = v.view(v.shape[0], batch_heads, head_dim).transpose(0, 1)
    else:
        v = _static(static_v, "static_v", batch_heads, head_dim)
    if add_zero_attn:
        shape = (batch_heads, 1, head_dim)
        k = cat([k, zeros(shape, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(shape, dtype=v.dtype, device=v.device)], dim=1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.size(1)
    if key_padding_mask is not None:
        _check_key_padding_mask(key_padding_mask, src_len, bsz)
        key_padding_mask = (
            key_padding_mask.view(bsz, 1, 1, src_len)
            .expand(-1, num_heads, -1, -1)
            .reshape(batch_heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:
        scaled = q * math.sqrt(1.0 / float(q.shape[2]))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = baddbmm(attn_mask, scaled, k.transpose(-2, -1))
        else:
            weights = bmm(scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        output = bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        output = linear(output, out_proj_weight, out_proj_bias)
        output = output.view(tgt_len, bsz, output.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            output, weights = output.squeeze(1), weights.squeeze(0)
        return output, weights

    if attn_mask is not None:
        # torch: SDPA takes (N, H, L, S); a (1, L, S) mask broadcasts as (1, 1, L, S).
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    output = output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    output = linear(output, out_proj_weight, out_proj_bias)
    output = output.view(tgt_len, bsz, output.size(1))
    if not batched:
        output = output.squeeze(1)
    return output, None
