"""Scaled dot-product attention: the aten ops F.scaled_dot_product_attention reaches on the CPU.

Torch: aten/src/ATen/native/transformers/attention.cpp (scaled_dot_product_attention, the
backend choice, _scaled_dot_product_attention_math, _safe_softmax, the boolean-mask
conversion), sdp_utils_cpp.cpp (which inputs the CPU flash kernel takes) and
native/cpu/FlashAttentionKernel.cpp (the flash kernel and its backward). What a
TorchDispatchMode sees, measured on torch 2.13:

- 4-D float inputs with dropout_p == 0, equal head sizes, a 2-D or 4-D mask and unit
  last-dim strides: `_scaled_dot_product_flash_attention_for_cpu`, whose backward is
  `_scaled_dot_product_flash_attention_for_cpu_backward`;
- anything else: the math composition (`_scaled_dot_product_attention_math`, itself a
  decomposition: mul, matmul, `_safe_softmax`, dropout);
- a boolean mask is first turned into an additive one (`where(mask, 0, -inf)`), and an empty
  query, key or value gives zeros without attention.

The flash kernel here computes in one block: scores, the row max, exp, the row sum, then the
unnormalised probabilities times V divided by the sum, as torch's does for sequences up to
its block size; for float16/bfloat16 it computes in float32 and rounds the probabilities to
the input dtype before they meet V, as torch's kernel does.
"""

from __future__ import annotations

import math
from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, bool_, float16, float32, float64
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, requires_grad, tensor_over
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._derivative import non_differentiable_outputs
from refimpl.ops._reduction import has_data, implements, input_array
from refimpl.ops._register import defop

aten: Final = namespace("aten")

_FLASH_DTYPES: Final = (float32, float64, bfloat16, float16)
_FLASH: Final = "scaled_dot_product_attention_flash_attention"


# --- _safe_softmax ---------------------------------------------------------------------------

_safe_softmax = defop("_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor")


@implements(_safe_softmax)
def _safe_softmax_kernel(self: TensorImpl, dim: int, dtype: DType | None = None) -> Any:
    """softmax, with 0 (not NaN) for the rows that are -inf throughout.

    Torch: _safe_softmax in attention.cpp: softmax, then where(all(self == -inf, dim,
    keepdim), 0, out).
    """
    out = aten.softmax.int(self, dim, dtype)
    masked_rows = aten.all.dim(aten.eq.Scalar(self, -math.inf), dim, True)
    zero = aten.scalar_tensor.default(0.0, dtype=out._dtype, device=out._storage.device)
    return aten.where.self(masked_rows, zero, out)


@_safe_softmax.derivative("self")
def _safe_softmax_backward(grad: Tensor, result: Tensor, dim: int, self_scalar_type: DType) -> Tensor:
    # torch: _softmax_backward_data(grad, result, dim, self.scalar_type())
    return aten._softmax_backward_data.default(grad, result, dim, self_scalar_type)


# --- the CPU flash kernel ----------------------------------------------------------------------

_flash = defop(
    "_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, "
    "float dropout_p=0., bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) "
    "-> (Tensor output, Tensor logsumexp)"
)
_flash_backward = defop(
    "_scaled_dot_product_flash_attention_for_cpu_backward(Tensor grad_out, Tensor query, "
    "Tensor key, Tensor value, Tensor out, Tensor logsumexp, float dropout_p, bool is_causal, "
    "*, Tensor? attn_mask=None, float? scale=None) "
    "-> (Tensor grad_query, Tensor grad_key, Tensor grad_value)"
)


def _check_flash(
    query: TensorImpl,
    key: TensorImpl,
    value: TensorImpl,
    dropout_p: float,
    attn_mask: TensorImpl | None,
) -> None:
    """Torch: the TORCH_CHECKs of flash_attention_kernel_impl (FlashAttentionKernel.cpp)."""
    dtype = query._dtype
    if dtype not in _FLASH_DTYPES:
        raise RuntimeError(
            f"{_FLASH}: Expected data type in FP32, FP64, BF16, FP16, but got "
            f"{dtype.scalar_name} instead."
        )
    if any(len(t._size) != 4 for t in (query, key, value)):
        raise RuntimeError(f"{_FLASH}: Accept only 4 dims inputs shape of {{B, H, T, K}}")
    if dropout_p != 0.0:
        raise RuntimeError(f"{_FLASH}: Currently do not support dropout > 0")
    if not query._size[3] == key._size[3] == value._size[3]:
        raise RuntimeError(f"{_FLASH}: Q/K/V should have the same head size")
    if attn_mask is not None:
        if attn_mask._dtype is not dtype and attn_mask._dtype is not float32:
            raise RuntimeError(f"{_FLASH}: Attention mask is the same data type as query")
        if len(attn_mask._size) not in (2, 4):
            raise RuntimeError(f"{_FLASH}: Attention mask dim in {{2, 4}}")
    for t in (key, value):
        if t._dtype is not dtype:
            # torch: the kernel reads key and value as query's scalar type (data_ptr<T>).
            raise RuntimeError(
                f"expected scalar type {dtype.scalar_name} but found {t._dtype.scalar_name}"
            )


def _accumulate(dtype: DType) -> DType:
    # torch: at::opmath_type: float16 and bfloat16 compute in float32.
    return float32 if dtype in (float16, bfloat16) else dtype


def _grouped(xp: Any, a: Array, heads: int) -> Array:
    """(B, H, L, E) viewed as (B, Hk, H / Hk, L, E) for `heads` = Hk key heads (grouped-query
    attention: query head h attends with key head h // (H / Hk))."""
    b, h, length, e = a.shape
    return xp.reshape(a, (b, heads, h // heads, length, e))


def _scores(
    xp: Any,
    q: Array,
    k: Array,
    mask: Array | None,
    is_causal: bool,
    scale: float,
) -> Array:
    """(B, Hk, G, L, S) scores: q k^T * scale + mask, -inf above the top-left diagonal when
    causal. Torch: the qk gemm then _scale_attn_mask_fusion_kernel."""
    scores = xp.matmul(q, xp.matrix_transpose(xp.expand_dims(k, axis=2))) * scale
    length, source = scores.shape[-2], scores.shape[-1]
    if mask is not None:
        heads = q.shape[1]
        if mask.ndim == 4:
            b, h = mask.shape[0], mask.shape[1]
            if h == 1:
                mask = xp.expand_dims(mask, axis=2)
            else:
                mask = xp.reshape(mask, (b, heads, h // heads, *mask.shape[2:]))
        scores = scores + mask
    if is_causal:
        rows = xp.reshape(xp.arange(length), (length, 1))
        cols = xp.reshape(xp.arange(source), (1, source))
        scores = xp.where(cols > rows, xp.asarray(-math.inf, dtype=scores.dtype), scores)
    return scores


def _mask_array(mask: TensorImpl | None, dtype: DType) -> Array | None:
    return None if mask is None else input_array(mask, dtype)


def _permuted_result(values: Array | None, shape: tuple[int, ...], dtype: DType, like: TensorImpl) -> Any:
    """A (B, H, L, ...) result laid out as (B, L, H, ...) in memory, as torch's flash kernel
    allocates its logsumexp and gradients (`empty({B, L, H, ...}).transpose(1, 2)`)."""
    order = (0, 2, 1, *range(3, len(shape)))
    memory_shape = tuple(shape[i] for i in order)
    memory_stride = geometry.contiguous_strides(memory_shape)
    stride = [0] * len(shape)
    for position, dim in enumerate(order):
        stride[dim] = memory_stride[position]
    storage = like._storage
    backend = storage.backend
    array = None
    if backend is not None and values is not None:
        xp = backend.xp
        array = xp.permute_dims(data.cast_array(xp, values, _array_dtype(like, values), dtype, backend), order)
    return tensor_over(array, shape, tuple(stride), dtype, storage.device, backend)


def _array_dtype(like: TensorImpl, values: Array) -> DType:
    backend = like._storage.backend
    found = backend.dtype_of(values)  # type: ignore[union-attr]  # only called with data
    if found is None:
        raise TypeError(f"refimpl: no tensor dtype for array dtype {values.dtype}")
    return found


def _like_query(values: Array | None, query: TensorImpl, shape: tuple[int, ...]) -> Any:
    """The output in query's layout (torch: empty_like(query) keeps a dense query's strides)."""
    stride = geometry.dense_strides_like(shape, query._stride)
    storage = query._storage
    backend = storage.backend
    array = None
    if backend is not None and values is not None:
        xp = backend.xp
        values = data.cast_array(xp, values, _array_dtype(query, values), query._dtype, backend)
        order = sorted(range(len(shape)), key=lambda d: -stride[d])
        array = xp.permute_dims(values, tuple(order))
    return tensor_over(array, shape, stride, query._dtype, storage.device, backend)


@implements(_flash)
def _flash_kernel(
    query: TensorImpl,
    key: TensorImpl,
    value: TensorImpl,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    attn_mask: TensorImpl | None = None,
    scale: float | None = None,
) -> Any:
    """softmax(q k^T * scale + mask) v and the rows' logsumexp.

    Torch: _scaled_dot_product_flash_attention_cpu (attention.cpp) and
    cpu_flash_attention (FlashAttentionKernel.cpp): the output in query's layout, the
    logsumexp (float32 for float16/bfloat16) allocated (B, L, H) and transposed.
    """
    _check_flash(query, key, value, dropout_p, attn_mask)
    b, h, length, e = query._size
    out_shape = (b, h, length, value._size[3])
    lse_dtype = _accumulate(query._dtype)
    if not has_data(query):
        return (
            _like_query(None, query, out_shape),
            _permuted_result(None, (b, h, length), lse_dtype, query),
        )
    xp = query._storage.backend.xp  # type: ignore[union-attr]  # has_data
    acc = _accumulate(query._dtype)
    factor = scale if scale is not None else 1.0 / math.sqrt(e)
    heads = key._size[1]
    q = _grouped(xp, input_array(query, acc), heads)
    k = input_array(key, acc)
    v = input_array(value, acc)
    scores = _scores(xp, q, k, _mask_array(attn_mask, acc), is_causal, factor)
    row_max = xp.max(scores, axis=-1, keepdims=True)
    # torch: a row masked throughout has max -inf; the kernel then uses 0 so that exp gives
    # 0, the sum is 0 and the output row 0.
    safe_max = xp.where(xp.isinf(row_max) & (row_max < 0), xp.zeros_like(row_max), row_max)
    probs = xp.exp(scores - safe_max)
    total = xp.sum(probs, axis=-1, keepdims=True)
    if acc is not query._dtype:
        probs = _rounded(xp, probs, query._dtype, query)
    # A row masked throughout has probabilities and weighted values 0; dividing by 1 keeps
    # its output 0 and its logsumexp 0, as torch's.
    empty_rows = total == 0
    total = xp.where(empty_rows, xp.ones_like(total), total)
    output = xp.matmul(probs, xp.expand_dims(v, axis=2)) / total
    lse = xp.where(empty_rows, xp.zeros_like(total), safe_max + xp.log(total))[..., 0]
    output = xp.reshape(output, out_shape)
    lse = xp.reshape(lse, (b, h, length))
    return (
        _like_query(output, query, out_shape),
        _permuted_result(lse, (b, h, length), lse_dtype, query),
    )


def _rounded(xp: Any, a: Array, low: DType, like: TensorImpl) -> Array:
    """`a` (float32) rounded to `low` (float16/bfloat16) and back, where torch's kernel stores
    an intermediate in the input's dtype."""
    return data.rounded_through(xp, a, float32, low, like._storage.backend)  # type: ignore[arg-type]


@_flash.derivative("query", "key", "value")
def _flash_derivative(
    grad: Tensor,
    query: Tensor,
    key: Tensor,
    value: Tensor,
    output: Tensor,
    logsumexp: Tensor,
    dropout_p: float,
    is_causal: bool,
    attn_mask: Tensor | None,
    scale: float | None,
) -> Any:
    # torch: _scaled_dot_product_flash_attention_for_cpu_backward(grad, query, key, value,
    #   output, logsumexp, dropout_p, is_causal, attn_mask, scale)
    return aten._scaled_dot_product_flash_attention_for_cpu_backward.default(
        grad, query, key, value, output, logsumexp, dropout_p, is_causal,
        attn_mask=attn_mask, scale=scale,
    )


# torch: output_differentiability [True, False]: logsumexp never requires grad.
non_differentiable_outputs("aten::_scaled_dot_product_flash_attention_for_cpu", "logsumexp")


def _sum_to(xp: Any, a: Array, shape: tuple[int, ...]) -> Array:
    """`a` summed over the dims it was broadcast along to reach its shape from `shape`."""
    axes = tuple(i for i, (n, m) in enumerate(zip(a.shape, shape, strict=True)) if m == 1 and n != 1)
    return xp.sum(a, axis=axes, keepdims=True) if axes else a


@implements(_flash_backward)
def _flash_backward_kernel(
    grad_out: TensorImpl,
    query: TensorImpl,
    key: TensorImpl,
    value: TensorImpl,
    out: TensorImpl,
    logsumexp: TensorImpl,
    dropout_p: float,
    is_causal: bool,
    *,
    attn_mask: TensorImpl | None = None,
    scale: float | None = None,
) -> Any:
    """The gradients of q, k and v from the saved output and logsumexp.

    Torch: cpu_flash_attention_backward (FlashAttentionKernel.cpp): P = exp(scores - lse),
    dV = P^T dO, dP = dO V^T, dS = P * (dP - rowsum(dO * O)), dQ = dS K * scale,
    dK = dS^T Q * scale; each gradient allocated (B, L, H, E) and transposed.
    """
    _check_flash(query, key, value, dropout_p, attn_mask)
    shapes = (query._size, key._size, value._size)
    if not has_data(query):
        return tuple(_permuted_result(None, s, query._dtype, query) for s in shapes)
    xp = query._storage.backend.xp  # type: ignore[union-attr]  # has_data
    acc = _accumulate(query._dtype)
    e = query._size[3]
    factor = scale if scale is not None else 1.0 / math.sqrt(e)
    heads = key._size[1]
    q = _grouped(xp, input_array(query, acc), heads)
    k = input_array(key, acc)
    v = input_array(value, acc)
    d_out = _grouped(xp, input_array(grad_out, acc), heads)
    o = _grouped(xp, input_array(out, acc), heads)
    lse = input_array(logsumexp, acc)
    lse = xp.reshape(lse, (*q.shape[:-1], 1))
    scores = _scores(xp, q, k, _mask_array(attn_mask, acc), is_causal, factor)
    probs = xp.exp(scores - lse)
    low_probs = _rounded(xp, probs, query._dtype, query) if acc is not query._dtype else probs
    d_v = xp.sum(xp.matmul(xp.matrix_transpose(low_probs), d_out), axis=2)
    d_probs = xp.matmul(d_out, xp.matrix_transpose(xp.expand_dims(v, axis=2)))
    row_dot = xp.sum(d_out * o, axis=-1, keepdims=True)
    d_scores = probs * (d_probs - row_dot)
    d_q = xp.matmul(d_scores, xp.expand_dims(k, axis=2)) * factor
    d_k = xp.sum(xp.matmul(xp.matrix_transpose(d_scores), q), axis=2) * factor
    d_q = xp.reshape(d_q, query._size)
    d_k = _sum_to(xp, d_k, key._size)
    d_v = _sum_to(xp, d_v, value._size)
    return tuple(
        _permuted_result(g, s, query._dtype, query)
        for g, s in zip((d_q, d_k, d_v), shapes, strict=True)
    )


# --- the math composition ------------------------------------------------------------------------

_math = defop(
    "_scaled_dot_product_attention_math(Tensor query, Tensor key, Tensor value, "
    "Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, "
    "Tensor? dropout_mask=None, *, float? scale=None, bool enable_gqa=False) -> (Tensor, Tensor)"
)


def convert_boolean_attn_mask(mask: TensorImpl | None, dtype: DType) -> TensorImpl | None:
    """A boolean mask (True: attend) as an additive one: 0 where True, -inf where False.
    Torch: convert_boolean_attn_mask in attention.cpp."""
    if mask is None or mask._dtype is not bool_:
        return mask
    device = mask._storage.device
    zero = aten.scalar_tensor.default(0.0, dtype=dtype, device=device)
    neg_inf = aten.scalar_tensor.default(-math.inf, dtype=dtype, device=device)
    return aten.where.self(mask, zero, neg_inf)  # type: ignore[no-any-return]


def _group_query_inputs(
    query: TensorImpl, key: TensorImpl, value: TensorImpl, enable_gqa: bool
) -> tuple[TensorImpl, TensorImpl]:
    """Key and value with their heads repeated to query's count. Torch:
    pre_process_group_query_attention_input in attention.cpp."""
    if not enable_gqa:
        return key, value
    q_heads, k_heads, v_heads = query._size[-3], key._size[-3], value._size[-3]
    if q_heads % k_heads != 0 or q_heads % v_heads != 0:
        # torch's message, cut short as torch 2.13 prints it.
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    if q_heads == k_heads == v_heads:
        return key, value
    return (
        aten.repeat_interleave.self_int(key, q_heads // k_heads, -3),
        aten.repeat_interleave.self_int(value, q_heads // v_heads, -3),
    )


@_math.decomposition
def _math_decomposition(
    query: TensorImpl,
    key: TensorImpl,
    value: TensorImpl,
    attn_mask: TensorImpl | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    dropout_mask: TensorImpl | None = None,
    *,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Any:
    """Torch: _scaled_dot_product_attention_math in attention.cpp: float16/bfloat16 inputs in
    float32; q and k^T each scaled by sqrt(scale); a causal mask built as ones(L, S).tril();
    the mask added; _safe_softmax; dropout; attn @ v. Returns (output, attn), both in the
    input dtype."""
    origin = query._dtype
    if origin in (float16, bfloat16):
        query, key, value = (aten._to_copy.default(t, dtype=float32) for t in (query, key, value))
    negative = scale is not None and scale < 0.0
    softmax_scale = abs(scale) if negative and scale is not None else scale
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(query._size[-1])
    factor = math.sqrt(softmax_scale)
    query = aten.mul.Scalar(query, 0.0 - factor if negative else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                "is_causal=True"
            )
        length, source = query._size[-2], key._size[-2]
        causal = aten.tril.default(
            aten.ones.default([length, source], dtype=bool_, device=query._storage.device)
        )
        attn_mask = convert_boolean_attn_mask(causal, query._dtype)
    key, value = _group_query_inputs(query, key, value, enable_gqa)
    attn = aten.matmul.default(
        query, aten.mul.Scalar(aten.transpose.int(key, -2, -1), factor)
    )
    if attn_mask is not None:
        attn = aten.add.Tensor(attn, attn_mask)
    attn = aten._safe_softmax.default(attn, -1)
    if dropout_p > 0.0:
        if dropout_mask is not None:
            attn = aten.masked_fill.Scalar(attn, aten.logical_not.default(dropout_mask), 0.0)
            scaled_value = aten.mul.Scalar(value, 1.0 / (1.0 - dropout_p))
            attn_out = _to(attn, origin)
            return _to(aten.matmul.default(attn, scaled_value), origin), attn_out
        attn = aten.dropout.default(attn, dropout_p, True)
    # torch evaluates the tuple's elements right to left: attn.to(origin) first.
    attn_out = _to(attn, origin)
    return _to(aten.matmul.default(attn, value), origin), attn_out


def _to(t: TensorImpl, dtype: DType) -> Any:
    # torch: Tensor::to(dtype) is a no-op (no aten call) when the dtype is already `dtype`.
    return t if t._dtype is dtype else aten._to_copy.default(t, dtype=dtype)


# --- scaled_dot_product_attention, _fused_sdp_choice ------------------------------------------

scaled_dot_product_attention = defop(
    "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
    "Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, *, float? scale=None, "
    "bool enable_gqa=False) -> Tensor"
)


def _validate(
    query: TensorImpl, key: TensorImpl, value: TensorImpl, attn_mask: TensorImpl | None
) -> None:
    """Torch: validate_sdpa_input in attention.cpp."""
    if not query._dtype is key._dtype is value._dtype:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{query._dtype.scalar_name.lower()} key.dtype: {key._dtype.scalar_name.lower()} "
            f"and value.dtype: {value._dtype.scalar_name.lower()} instead."
        )
    devices = [t._storage.device for t in (query, key, value)]
    if not devices[0] == devices[1] == devices[2]:
        raise RuntimeError(
            "Expected query, key, and value to have the same device type, but got query.device: "
            f"{devices[0]} key.device: {devices[1]} and value.device: {devices[2]} instead."
        )
    if min(len(t._size) for t in (query, key, value)) < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {len(query._size)} key.dim: {len(key._size)} and value.dim: "
            f"{len(value._size)} instead."
        )
    if attn_mask is not None:
        mask_dtype = attn_mask._dtype
        if mask_dtype not in (bool_, float32, query._dtype):
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                f"attn_mask.dtype: {_cpp_dtype(mask_dtype)} and  query.dtype: "
                f"{_cpp_dtype(query._dtype)} instead."
            )


def _cpp_dtype(dtype: DType) -> str:
    # torch prints a caffe2::TypeMeta: "float", "double", "c10::Half", "long int", ...
    return _TYPE_META_NAMES.get(dtype.scalar_name, dtype.scalar_name)


_TYPE_META_NAMES: Final = {
    "Float": "float",
    "Double": "double",
    "Half": "c10::Half",
    "BFloat16": "c10::BFloat16",
    "Long": "long int",
    "Int": "int",
    "Short": "short int",
    "Char": "signed char",
    "Byte": "unsigned char",
    "Bool": "bool",
    "ComplexFloat": "c10::complex<float>",
    "ComplexDouble": "c10::complex<double>",
}


def use_flash_cpu(
    query: TensorImpl,
    key: TensorImpl,
    value: TensorImpl,
    attn_mask: TensorImpl | None,
    dropout_p: float,
    enable_gqa: bool,
) -> bool:
    """Whether torch's CPU backend choice picks the flash kernel.

    Torch: use_flash_attention_cpp in sdp_utils_cpp.cpp: a supported dtype, dropout_p not
    positive, 4-D inputs, equal batch sizes (head counts equal, or grouped under
    enable_gqa), a 2-D or 4-D mask, equal head sizes, non-empty sequences, and unit strides
    along the last dim of q, k and v; a mask that does not require grad.
    """
    if query._dtype not in _FLASH_DTYPES or dropout_p > 0.0:
        return False
    if any(len(t._size) != 4 for t in (query, key, value)):
        return False
    if not query._size[0] == key._size[0] == value._size[0]:
        return False
    q_heads, k_heads, v_heads = query._size[1], key._size[1], value._size[1]
    if not q_heads == k_heads == v_heads and not (
        enable_gqa and k_heads == v_heads and q_heads % k_heads == 0
    ):
        return False
    if attn_mask is not None:
        if len(attn_mask._size) < 2:
            # torch: check_attn_mask_shape reads attn_mask.size(-2) first.
            raise IndexError(
                "Dimension out of range (expected to be in range of [-1, 0], but got -2)"
            )
        if len(attn_mask._size) not in (2, 4) or requires_grad(attn_mask):
            # torch: the flash kernel gives no gradient for the mask (measured: a mask that
            # requires grad takes the math path, in no_grad too).
            return False
    if not query._size[3] == key._size[3] == value._size[3]:
        return False
    if query._size[2] == 0 or key._size[2] == 0:
        return False
    return all(t._stride[3] == 1 for t in (query, key, value))


@scaled_dot_product_attention.decomposition
def scaled_dot_product_attention_decomposition(
    query: TensorImpl,
    key: TensorImpl,
    value: TensorImpl,
    attn_mask: TensorImpl | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Any:
    """Torch: scaled_dot_product_attention in attention.cpp: validate, answer an empty input
    with zeros (joined to the inputs' graphs by a sum times 0), choose the CPU backend, convert
    a boolean mask, run the flash kernel or the math composition."""
    _validate(query, key, value, attn_mask)
    if any(geometry.numel(t._size) == 0 for t in (query, key, value)):
        shape = [*query._size[:-1], value._size[-1]]
        zeros = aten.zeros.default(shape, dtype=query._dtype, device=query._storage.device)
        sums = [aten.sum.default(t) for t in (query, key, value)]
        total = aten.add.Tensor(aten.add.Tensor(sums[0], sums[1]), sums[2])
        return aten.add.Tensor(zeros, aten.mul.Scalar(total, 0))
    flash = use_flash_cpu(query, key, value, attn_mask, dropout_p, enable_gqa)
    mask = convert_boolean_attn_mask(attn_mask, query._dtype)
    if flash:
        return aten._scaled_dot_product_flash_attention_for_cpu.default(
            query, key, value, dropout_p, is_causal, attn_mask=mask, scale=scale
        )[0]
    return aten._scaled_dot_product_attention_math.default(
        query, key, value, mask, dropout_p, is_causal, None, scale=scale, enable_gqa=enable_gqa
    )[0]


_fused_sdp_choice = defop(
    "_fused_sdp_choice(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
    "float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> int"
)

# torch: sdp::SDPBackend (sdp_utils_cpp.h): error -1, math 0, flash_attention 1.
_SDP_MATH: Final = 0
_SDP_FLASH: Final = 1


@implements(_fused_sdp_choice)
def _fused_sdp_choice_kernel(
    query: TensorImpl,
    key: TensorImpl,
    value: TensorImpl,
    attn_mask: TensorImpl | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> int:
    """The backend scaled_dot_product_attention would run, as torch's SDPBackend number.
    Torch: _fused_sdp_choice_cpp (select_sdp_backend_cpp)."""
    flash = use_flash_cpu(query, key, value, attn_mask, dropout_p, enable_gqa)
    return _SDP_FLASH if flash else _SDP_MATH
