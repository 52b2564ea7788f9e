"""What the normalization kernels share: the CPU mixed-dtype rule, results in a layout, out=
writes, and the double backward of a normalization written on aten calls.

Torch: aten/src/ATen/native/mixed_data_type.h (is_mixed_type, check_mixed_data_type: a
float16/bfloat16 input may take float32 parameters, its statistics then in float32) and the
double-backward helpers of torch/csrc/autograd/FunctionsManual.cpp (layer_norm_double_backward,
batchnorm_double_backward), which refimpl writes once for both. See Note [Normalization double
backward].
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from refimpl._base.dtypes import DType, bfloat16, float16, float32
from refimpl.core import strides as geometry
from refimpl.core.backend import Array
from refimpl.core.tensor import TensorImpl, tensor_over
from refimpl.dispatch.overloads import namespace
from refimpl.ops import data
from refimpl.ops._backward import Tensor
from refimpl.ops._reduction import cast_to, same_as_out
from refimpl.ops.pointwise import suggest_memory_format

aten: Final = namespace("aten")

REDUCED_FLOATS: Final = frozenset({float16, bfloat16})


def is_mixed_type(input: TensorImpl, *params: TensorImpl | None) -> bool:
    """Whether a CPU normalization kernel runs in mixed mode: the first given parameter's
    dtype differs from the input's.

    Torch: is_mixed_type in mixed_data_type.h (measured: a float16 input with a float16
    weight and a float32 bias is not mixed, and the kernel then reads the bias as float16).
    """
    for p in params:
        if p is not None:
            return p._dtype is not input._dtype
    return False


def check_mixed_data_type(input: TensorImpl, *params: TensorImpl | None) -> None:
    """Torch: check_mixed_data_type in mixed_data_type.h: in mixed mode every parameter is
    float32 and the input float16 or bfloat16."""
    for p in params:
        if p is not None and p._dtype is not float32:
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input._dtype not in REDUCED_FLOATS:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def check_param_dtype(expected: DType, *params: TensorImpl | None) -> None:
    """The data_ptr<T>() check of a CPU kernel reading a parameter as `expected`."""
    for p in params:
        if p is not None and p._dtype is not expected:
            raise RuntimeError(
                f"expected scalar type {expected.scalar_name} but found {p._dtype.scalar_name}"
            )


def param_dtype(input: TensorImpl, *params: TensorImpl | None) -> DType:
    """The dtype of the statistics and parameter gradients on the CPU after the mixed-dtype
    checks: float32 in mixed mode, else the input's; parameters of another dtype raise."""
    if is_mixed_type(input, *params):
        check_mixed_data_type(input, *params)
        return float32
    check_param_dtype(input._dtype, *params)
    return input._dtype


def suggested_strides(input: TensorImpl) -> tuple[int, ...]:
    """The strides of a result laid out in input.suggest_memory_format() (batch and group
    norm allocate their outputs so: channels-last stays channels-last)."""
    return data.format_strides(input._size, suggest_memory_format(input))


def check_meta_floating(input: TensorImpl) -> None:
    """Torch: the Meta kernels of the normalizations are torch/_refs decompositions whose
    var_mean raises mean's Python error for a dtype that is not floating point or complex
    (the dtype printed as Python prints it, `torch.int64`)."""
    dtype = input._dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {dtype}"
        )


def memory_order(stride: Sequence[int]) -> list[int]:
    """The dims from slowest to fastest in memory for dense strides."""
    return sorted(range(len(stride)), key=lambda d: -stride[d])


def make_result(
    like: TensorImpl,
    values: Array | None,
    shape: tuple[int, ...],
    dtype: DType,
    stride: tuple[int, ...] | None = None,
) -> Any:
    """A new tensor of `shape` and dense `stride` (contiguous by default) on `like`'s device
    holding `values` (logical order, cast to `dtype`); metadata only without values."""
    contiguous = stride is None
    stride = geometry.contiguous_strides(shape) if stride is None else stride
    storage = like._storage
    backend = storage.backend
    if values is None or backend is None:
        return tensor_over(None, shape, stride, dtype, storage.device, None)
    xp = backend.xp
    values = cast_to(xp, values, dtype, backend)
    if tuple(values.shape) != shape:
        values = xp.reshape(values, shape)
    if not contiguous:
        order = memory_order(stride)
        if order != list(range(len(shape))):
            values = xp.permute_dims(values, tuple(order))
    return tensor_over(values, shape, stride, dtype, storage.device, backend)


def write_outs(results: Sequence[TensorImpl], outs: Sequence[TensorImpl]) -> tuple[Any, ...]:
    """The out= form of a multi-output op: each result resized into, dtype-checked against
    and copied to its `out`. Torch: resize_out_helper and copy_arg of the generated
    out= wrappers (CompositeExplicitAutograd) and the CPU out kernels' resize_output."""
    return tuple(same_as_out(r, o) for r, o in zip(results, outs, strict=True))


def write_kernel_outs(results: Sequence[TensorImpl], outs: Sequence[TensorImpl]) -> tuple[Any, ...]:
    """The out= form of a CPU batch norm kernel (batch_norm_cpu_out and its kin): each out
    must already have its result's dtype (the kernel reads it as scalar_t: "expected scalar
    type Float but found Double"), then is resized and written."""
    for r, o in zip(results, outs, strict=True):
        if o._dtype is not r._dtype:
            raise RuntimeError(
                f"expected scalar type {r._dtype.scalar_name} but found {o._dtype.scalar_name}"
            )
    return write_outs(results, outs)


# Note [Normalization double backward]
# layer norm, batch norm (training) and group norm compute, over a set S of n elements, a
# mean mu and rstd r = (var + eps)^(-1/2), x_hat = (x - mu) * r, and y = x_hat * w + b (w
# constant over S for batch norm, varying over it for layer norm). Their backward is
#   dx = r * (g - mean_S(g) - x_hat * mean_S(g * x_hat)),  g = gO * w,
#   dw = sum_P(gO * x_hat),  db = sum_P(gO),
# with P the dims a parameter is summed over. With J = r (I - 1/n - x_hat x_hat^T / n) the
# Jacobian of x_hat (dr/dx = -r^2 x_hat / n), and A(h) = r (h - mean(h) - x_hat mean(h x_hat))
# (self-adjoint), the gradients of <ggI, dx> + <ggW, dw> + <ggB, db> are
#   gO: w * A(ggI) + ggW * x_hat + ggB
#   w:  sum_P(gO * A(ggI))
#   x:  -r^2 x_hat K - r^2 (m_ix (g - m_g - x_hat m_gx) + m_gx (ggI - m_i - x_hat m_ix))
#       + A(ggW * gO)
# where m_g = mean(g), m_i = mean(ggI), m_gx = mean(g x_hat), m_ix = mean(ggI x_hat) and
# K = mean(ggI g) - m_g m_i - m_gx m_ix. torch's layer_norm_double_backward and
# batchnorm_double_backward (FunctionsManual.cpp) compute the same quantities.


def _mean(t: Tensor, dims: list[int]) -> Tensor:
    return aten.mean.dim(t, dims, True)


def normalization_double_backward(
    x: Tensor,
    w: Tensor | None,
    gg_i: Tensor | None,
    gg_w: Tensor | None,
    gg_b: Tensor | None,
    g_o: Tensor,
    mean: Tensor,
    rstd: Tensor,
    stat_dims: list[int],
    param_dims: list[int],
    mask: Sequence[bool],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    """(grad input, grad weight, grad grad_output) of a normalization's backward; `mean`
    and `rstd` broadcast against `x`, `w`, `gg_w`, `gg_b` too. See Note [Normalization double
    backward]."""
    x_hat = aten.mul.Tensor(aten.sub.Tensor(x, mean), rstd)
    g = g_o if w is None else aten.mul.Tensor(g_o, w)

    def adjoint(h: Tensor) -> Tensor:
        centered = aten.sub.Tensor(h, _mean(h, stat_dims))
        projected = aten.sub.Tensor(
            centered, aten.mul.Tensor(x_hat, _mean(aten.mul.Tensor(h, x_hat), stat_dims))
        )
        return aten.mul.Tensor(projected, rstd)

    a_i = None if gg_i is None else adjoint(gg_i)
    grad_input = grad_weight = grad_grad_out = None
    if mask[0]:
        terms = []
        if gg_i is not None:
            m_g = _mean(g, stat_dims)
            m_i = _mean(gg_i, stat_dims)
            m_gx = _mean(aten.mul.Tensor(g, x_hat), stat_dims)
            m_ix = _mean(aten.mul.Tensor(gg_i, x_hat), stat_dims)
            k = aten.sub.Tensor(
                aten.sub.Tensor(
                    _mean(aten.mul.Tensor(gg_i, g), stat_dims), aten.mul.Tensor(m_g, m_i)
                ),
                aten.mul.Tensor(m_gx, m_ix),
            )
            r2 = aten.mul.Tensor(rstd, rstd)
            first = aten.mul.Tensor(aten.mul.Tensor(r2, x_hat), k)
            g_part = aten.sub.Tensor(aten.sub.Tensor(g, m_g), aten.mul.Tensor(x_hat, m_gx))
            i_part = aten.sub.Tensor(aten.sub.Tensor(gg_i, m_i), aten.mul.Tensor(x_hat, m_ix))
            second = aten.mul.Tensor(
                r2, aten.add.Tensor(aten.mul.Tensor(m_ix, g_part), aten.mul.Tensor(m_gx, i_part))
            )
            terms.append(aten.neg.default(aten.add.Tensor(first, second)))
        if gg_w is not None:
            terms.append(adjoint(aten.mul.Tensor(gg_w, g_o)))
        grad_input = _total(terms, x)
    if mask[1] and w is not None and a_i is not None:
        product = aten.mul.Tensor(g_o, a_i)
        grad_weight = aten.sum.dim_IntList(product, param_dims) if param_dims else product
    if mask[2]:
        terms = []
        if a_i is not None:
            terms.append(a_i if w is None else aten.mul.Tensor(w, a_i))
        if gg_w is not None:
            terms.append(aten.mul.Tensor(gg_w, x_hat))
        if gg_b is not None:
            terms.append(aten.expand.default(gg_b, list(g_o.shape)))
        grad_grad_out = _total(terms, g_o)
    return grad_input, grad_weight, grad_grad_out


def _total(terms: list[Tensor], like: Tensor) -> Tensor:
    """The sum of `terms`, or zeros like `like` when there are none."""
    if not terms:
        return aten.zeros_like.default(like)
    total = terms[0]
    for t in terms[1:]:
        total = aten.add.Tensor(total, t)
    return total


def undefined_statistics(name: str, mode: str) -> RuntimeError:
    # Differs: torch's batch_norm_backward_cpu reads the undefined statistics (a crash,
    # measured); refimpl raises, in the words of the batch_norm composite's check.
    return RuntimeError(f"{name} must be defined in {mode} mode")


def batchnorm_double_backward(
    input: Tensor,
    weight: Tensor | None,
    grads: tuple[Tensor | None, ...],
    grad_out: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    train: bool,
    eps: float,
    save_mean: Tensor | None,
    save_invstd: Tensor | None,
    mask: tuple[bool, ...],
) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    """Torch: batchnorm_double_backward in FunctionsManual.cpp, on aten calls (see Note
    [Normalization double backward]; in evaluation the statistics are constants)."""
    ndim = len(input.shape)
    shape = [1, input.shape[1]] + [1] * (ndim - 2)
    axes = [0, *range(2, ndim)]

    def channel(t: Tensor | None) -> Tensor | None:
        return None if t is None else aten.view.default(t, shape)

    w = channel(weight)
    gg_i, gg_w, gg_b = grads[0], channel(grads[1]), channel(grads[2])
    if train:
        if save_mean is None or save_invstd is None:
            raise undefined_statistics("save_mean", "training")
        gi, gw, ggo = normalization_double_backward(
            input,
            w,
            gg_i,
            gg_w,
            gg_b,
            grad_out,
            channel(save_mean),
            channel(save_invstd),
            axes,
            axes,
            mask,
        )
        return gi, None if gw is None else aten.view.default(gw, [input.shape[1]]), ggo
    if running_mean is None or running_var is None:
        raise undefined_statistics("running_mean", "evaluation")
    invstd = aten.rsqrt.default(aten.add.Scalar(channel(running_var), eps))
    x_hat = aten.mul.Tensor(aten.sub.Tensor(input, channel(running_mean)), invstd)
    gi = gw = ggo = None
    if mask[0]:
        gi = (
            aten.zeros_like.default(input)
            if gg_w is None
            else aten.mul.Tensor(aten.mul.Tensor(gg_w, grad_out), invstd)
        )
    if mask[1] and weight is not None:
        if gg_i is None:
            gw = aten.zeros_like.default(weight)
        else:
            product = aten.mul.Tensor(aten.mul.Tensor(gg_i, grad_out), invstd)
            gw = aten.sum.dim_IntList(product, axes)
    if mask[2]:
        terms = []
        if gg_i is not None:
            scale = invstd if w is None else aten.mul.Tensor(invstd, w)
            terms.append(aten.mul.Tensor(gg_i, scale))
        if gg_w is not None:
            terms.append(aten.mul.Tensor(gg_w, x_hat))
        if gg_b is not None:
            terms.append(aten.expand.default(gg_b, list(grad_out.shape)))
        ggo = terms[0] if terms else aten.zeros_like.default(grad_out)
        for t in terms[1:]:
            ggo = aten.add.Tensor(ggo, t)
    return gi, gw, ggo
