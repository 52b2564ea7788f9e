"""F.scaled_dot_product_attention and F.multi_head_attention_forward against torch: values,
layouts, the aten ops a TorchDispatchMode sees (forward and backward: the CPU backend choice
between the flash kernel and the math composition), the function a TorchFunctionMode is told
of, and torch's errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import refimpl
import refimpl.nn.functional as RF
from conformance._mode_logs import aten_calls, function_calls

RTOL = {torch.float32: 2e-5, torch.float64: 1e-10, torch.float16: 2e-3}


def _to_refimpl(value: Any, memo: dict[int, Any] | None = None) -> Any:
    # The same torch tensor twice gives the same refimpl tensor (MHA's self-attention path
    # tests `query is key`).
    memo = {} if memo is None else memo
    if isinstance(value, torch.Tensor):
        if id(value) not in memo:
            memo[id(value)] = _tensor_to_refimpl(value)
        return memo[id(value)]
    if isinstance(value, dict):
        return {k: _to_refimpl(v, memo) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_refimpl(v, memo) for v in value)
    return value


def _tensor_to_refimpl(value: torch.Tensor) -> Any:
    if value.numel() == 0:
        # NumPy gives an empty array zero strides; keep torch's.
        dtype = getattr(refimpl, str(value.dtype).removeprefix("torch."))
        out = refimpl.empty_strided(tuple(value.shape), value.stride(), dtype=dtype)
    else:
        # A clone keeps a dense tensor's strides; from_numpy keeps the array's.
        out = refimpl.from_numpy(value.detach().clone().numpy())
    return out.requires_grad_() if value.requires_grad else out


def _close(ours: Any, theirs: torch.Tensor) -> None:
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert tuple(ours.stride()) == tuple(theirs.stride())
    rtol = RTOL.get(theirs.dtype, 1e-5)
    np.testing.assert_allclose(
        ours.detach().numpy().astype(np.float64),
        theirs.detach().numpy().astype(np.float64),
        rtol=rtol,
        atol=rtol,
    )


def _attention_case(
    q_shape: tuple[int, ...],
    kv_shape: tuple[int, ...],
    dtype: torch.dtype = torch.float32,
    mask: str | None = None,
    **kwargs: Any,
) -> tuple[list[torch.Tensor], dict[str, Any]]:
    generator = torch.Generator().manual_seed(sum(q_shape) + sum(kv_shape))
    q = torch.randn(q_shape, generator=generator, dtype=dtype)
    k = torch.randn(kv_shape, generator=generator, dtype=dtype)
    v = torch.randn(kv_shape, generator=generator, dtype=dtype)
    if mask == "bool":
        m = torch.rand(q_shape[-2], kv_shape[-2], generator=generator) > 0.3
        m[1] = False  # a row masked throughout
        kwargs["attn_mask"] = m
    elif mask == "float":
        kwargs["attn_mask"] = torch.randn(q_shape[-2], kv_shape[-2], generator=generator, dtype=dtype)
    elif mask == "float4d":
        kwargs["attn_mask"] = torch.randn(
            q_shape[0], 1, q_shape[-2], kv_shape[-2], generator=generator, dtype=dtype
        )
    return [q, k, v], kwargs


SDPA_CASES = {
    "flash": ((2, 4, 16, 8), (2, 4, 16, 8), {}),
    "flash_causal": ((2, 4, 16, 8), (2, 4, 16, 8), {"is_causal": True}),
    "flash_causal_short_query": ((2, 4, 5, 8), (2, 4, 16, 8), {"is_causal": True}),
    "flash_gqa": ((2, 8, 16, 8), (2, 2, 16, 8), {"enable_gqa": True}),
    "flash_bool_mask": ((2, 4, 16, 8), (2, 4, 12, 8), {"mask": "bool"}),
    "flash_mask_4d": ((2, 4, 16, 8), (2, 4, 12, 8), {"mask": "float4d"}),
    "flash_negative_scale": ((2, 4, 16, 8), (2, 4, 16, 8), {"scale": -0.3}),
    "flash_float64": ((2, 4, 16, 8), (2, 4, 16, 8), {"dtype": torch.float64}),
    "flash_float16": ((2, 4, 16, 8), (2, 4, 16, 8), {"dtype": torch.float16}),
    "math_3d": ((4, 16, 8), (4, 12, 8), {}),
    "math_2d_causal": ((16, 8), (16, 8), {"is_causal": True}),
    "math_bool_mask": ((4, 16, 8), (4, 12, 8), {"mask": "bool"}),
    "math_gqa_3d": ((8, 16, 8), (2, 16, 8), {"enable_gqa": True}),
    "math_float16": ((4, 16, 8), (4, 16, 8), {"dtype": torch.float16}),
    "empty_keys": ((2, 4, 16, 8), (2, 4, 0, 8), {}),
}


def _sdpa_program(lib: Any, inputs: list[Any], kwargs: dict[str, Any], grad: bool) -> Callable[[], Any]:
    fn = F.scaled_dot_product_attention if lib is torch else RF.scaled_dot_product_attention

    def run() -> Any:
        leaves = [t.detach().requires_grad_(grad) for t in inputs]
        out = fn(*leaves, **kwargs)
        if grad:
            out.sum().backward()
        return out, [t.grad for t in leaves]

    return run


@pytest.mark.parametrize("name", sorted(SDPA_CASES))
@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
def test_sdpa_matches_torch(name: str, grad: bool) -> None:
    q_shape, kv_shape, options = SDPA_CASES[name]
    options = dict(options)
    dtype = options.pop("dtype", torch.float32)
    mask = options.pop("mask", None)
    if grad and dtype is torch.float16:
        pytest.skip("torch's float16 gradients are not compared (no float16 gradcheck)")
    inputs, kwargs = _attention_case(q_shape, kv_shape, dtype, mask, **options)
    theirs_log, (theirs, theirs_grads) = aten_calls(torch, _sdpa_program(torch, inputs, kwargs, grad))
    ours_inputs = _to_refimpl(inputs)
    ours_kwargs = _to_refimpl(kwargs)
    ours_log, (ours, ours_grads) = aten_calls(
        refimpl, _sdpa_program(refimpl, ours_inputs, ours_kwargs, grad)
    )
    assert ours_log == theirs_log
    _close(ours, theirs)
    if grad:
        for mine, torch_grad in zip(ours_grads, theirs_grads, strict=True):
            _close(mine, torch_grad)


def test_sdpa_function_mode_sees_the_binding() -> None:
    inputs, _ = _attention_case((2, 4, 8, 8), (2, 4, 8, 8))
    theirs, _ = function_calls(torch, lambda: F.scaled_dot_product_attention(*inputs))
    ours_inputs = _to_refimpl(inputs)
    ours, _ = function_calls(refimpl, lambda: RF.scaled_dot_product_attention(*ours_inputs))
    assert ours == theirs


def test_flash_kernel_outputs_and_layouts() -> None:
    """The flash op called directly: the output in query's layout, logsumexp (B, L, H) in
    memory, a row masked throughout gives output 0 and logsumexp 0."""
    generator = torch.Generator().manual_seed(3)
    stored = torch.randn(2, 16, 4, 8, generator=generator)
    q = stored.transpose(1, 2)  # (B, H, L, E), permuted in memory
    mask = torch.zeros(16, 16)
    mask[2] = float("-inf")
    theirs = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, q, q, attn_mask=mask)
    # Permuted in refimpl too (a backend without strided views copies a strided array).
    ours_q = _to_refimpl(stored).transpose(1, 2)
    ours = refimpl.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(
        ours_q, ours_q, ours_q, attn_mask=_to_refimpl(mask)
    )
    for mine, torch_out in zip(ours, theirs, strict=True):
        _close(mine, torch_out)


@pytest.mark.parametrize(
    ("q_shape", "kv_shape", "kwargs"),
    [
        ((2, 4, 16, 8), (2, 4, 16, 8), {}),
        ((2, 4, 16, 8), (2, 4, 16, 8), {"dropout_p": 0.5}),
        ((4, 16, 8), (4, 16, 8), {}),
        ((2, 4, 16, 8), (2, 4, 16, 4), {}),
        ((2, 4, 16, 8), (1, 4, 16, 8), {}),
    ],
)
def test_fused_sdp_choice(q_shape: tuple[int, ...], kv_shape: tuple[int, ...], kwargs: dict[str, Any]) -> None:
    inputs, _ = _attention_case(q_shape, kv_shape)
    value_shape = list(kv_shape)
    inputs[2] = torch.randn(value_shape)
    theirs = torch._fused_sdp_choice(*inputs, **kwargs)
    assert refimpl._fused_sdp_choice(*_to_refimpl(inputs), **kwargs) == theirs


SDPA_ERRORS: dict[str, tuple[Callable[[Any], tuple[Any, ...]], dict[str, Any]]] = {
    "dtype_mismatch": (
        lambda lib: (lib.randn(2, 3, 4), lib.randn(2, 3, 4, dtype=lib.float64), lib.randn(2, 3, 4)),
        {},
    ),
    "one_dim": (lambda lib: (lib.randn(4), lib.randn(4), lib.randn(4)), {}),
    "mask_dtype": (
        lambda lib: (lib.randn(2, 3, 4), lib.randn(2, 3, 4), lib.randn(2, 3, 4)),
        {"attn_mask": "long"},
    ),
    "causal_and_mask_math": (
        lambda lib: (lib.randn(3, 4), lib.randn(3, 4), lib.randn(3, 4)),
        {"attn_mask": "float", "is_causal": True},
    ),
    "gqa_heads": (
        lambda lib: (lib.randn(8, 3, 4), lib.randn(3, 3, 4), lib.randn(3, 3, 4)),
        {"enable_gqa": True},
    ),
    "mask_one_dim": (
        lambda lib: (lib.randn(1, 2, 3, 4), lib.randn(1, 2, 3, 4), lib.randn(1, 2, 3, 4)),
        {"attn_mask": "vector"},
    ),
}


def _error_of(lib: Any, name: str) -> BaseException:
    make, options = SDPA_ERRORS[name]
    args = make(lib)
    kwargs = dict(options)
    mask = kwargs.get("attn_mask")
    if mask == "long":
        kwargs["attn_mask"] = lib.ones(3, 3, dtype=lib.int64)
    elif mask == "float":
        kwargs["attn_mask"] = lib.zeros(3, 3)
    elif mask == "vector":
        kwargs["attn_mask"] = lib.zeros(3)
    fn = F.scaled_dot_product_attention if lib is torch else RF.scaled_dot_product_attention
    with pytest.raises(Exception) as caught:
        fn(*args, **kwargs)
    return caught.value


@pytest.mark.parametrize("name", sorted(SDPA_ERRORS))
def test_sdpa_errors(name: str) -> None:
    theirs = _error_of(torch, name)
    ours = _error_of(refimpl, name)
    assert type(ours) is type(theirs)
    assert str(ours) == str(theirs)


# --- multi_head_attention_forward ------------------------------------------------------------


def _mha_inputs(
    *,
    batched: bool = True,
    shared: str = "self",
    separate: bool = False,
    bias: bool = True,
    bias_kv: bool = False,
    grad: bool = False,
) -> tuple[list[Any], dict[str, Any]]:
    generator = torch.Generator().manual_seed(7)
    embed, heads, length, source, batch = 8, 2, 5, 6, 3

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=generator).requires_grad_(grad)

    lead = (batch,) if batched else ()
    query = randn(length, *lead, embed)
    if shared == "self":
        key = value = query
    elif shared == "kv":
        key = value = randn(source, *lead, embed)
    else:
        key, value = randn(source, *lead, embed), randn(source, *lead, embed)
    kwargs: dict[str, Any] = {}
    in_proj_weight = None if separate else randn(3 * embed, embed)
    if separate:
        kwargs.update(
            use_separate_proj_weight=True,
            q_proj_weight=randn(embed, embed),
            k_proj_weight=randn(embed, embed),
            v_proj_weight=randn(embed, embed),
        )
    args = [
        query, key, value, embed, heads, in_proj_weight,
        randn(3 * embed) if bias else None,
        randn(1, 1, embed) if bias_kv else None,
        randn(1, 1, embed) if bias_kv else None,
        False, 0.0, randn(embed, embed), randn(embed) if bias else None,
    ]
    return args, kwargs


MHA_CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "self_weights": ({}, {}),
    "self_no_weights": ({}, {"need_weights": False}),
    "self_heads_kept": ({}, {"average_attn_weights": False}),
    "encoder_decoder": ({"shared": "kv"}, {}),
    "separate_inputs": ({"shared": "none"}, {"need_weights": False}),
    "separate_weights": ({"shared": "none", "separate": True}, {}),
    "unbatched": ({"batched": False}, {}),
    "unbatched_no_weights": ({"batched": False}, {"need_weights": False}),
    "bias_kv_zero_attn": ({"bias_kv": True}, {"add_zero_attn": True}),
    "no_bias": ({"bias": False}, {"need_weights": False}),
    "bool_masks": ({}, {"attn_mask": "bool", "key_padding_mask": "bool"}),
    "float_mask_no_weights": ({}, {"attn_mask": "float", "need_weights": False}),
    "causal_no_weights": ({}, {"attn_mask": "causal", "is_causal": True, "need_weights": False}),
}


def _mha_program(lib: Any, case: str, grad: bool) -> Callable[[], Any]:
    build, options = MHA_CASES[case]
    args, kwargs = _mha_inputs(grad=grad, **build)
    options = dict(options)
    add_zero_attn = options.pop("add_zero_attn", False)
    args[9] = add_zero_attn
    length = args[0].shape[0]
    source = args[1].shape[0]
    batch = args[0].shape[1] if args[0].dim() == 3 else None
    mask = options.get("attn_mask")
    if mask == "bool":
        options["attn_mask"] = torch.triu(torch.ones(length, source, dtype=torch.bool), 1)
    elif mask == "float":
        options["attn_mask"] = torch.randn(length, source, generator=torch.Generator().manual_seed(1))
    elif mask == "causal":
        options["attn_mask"] = torch.triu(torch.full((length, source), float("-inf")), 1)
    if options.get("key_padding_mask") == "bool":
        padding = torch.zeros(batch or 1, source, dtype=torch.bool)
        padding[:, -1] = True
        options["key_padding_mask"] = padding if batch else padding[0]
    if lib is refimpl:
        args, kwargs, options = _to_refimpl((args, kwargs, options))
        fn = RF.multi_head_attention_forward
    else:
        fn = F.multi_head_attention_forward

    def run() -> Any:
        output, weights = fn(*args, **kwargs, **options)
        if grad:
            output.sum().backward()
        leaves = [a for a in (*args, *kwargs.values()) if hasattr(a, "grad") and a.requires_grad]
        return output, weights, [t.grad for t in leaves]

    return run


@pytest.mark.parametrize("case", sorted(MHA_CASES))
@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
def test_multi_head_attention_forward_matches_torch(case: str, grad: bool) -> None:
    theirs_log, (theirs, theirs_weights, theirs_grads) = aten_calls(
        torch, _mha_program(torch, case, grad)
    )
    ours_log, (ours, ours_weights, ours_grads) = aten_calls(
        refimpl, _mha_program(refimpl, case, grad)
    )
    assert ours_log == theirs_log
    _close(ours, theirs)
    assert (ours_weights is None) == (theirs_weights is None)
    if theirs_weights is not None:
        _close(ours_weights, theirs_weights)
    for mine, torch_grad in zip(ours_grads, theirs_grads, strict=True):
        _close(mine, torch_grad)


def test_multi_head_attention_forward_errors() -> None:
    for lib, fn in ((torch, F.multi_head_attention_forward), (refimpl, RF.multi_head_attention_forward)):
        args, _ = _mha_inputs()
        if lib is refimpl:
            args = _to_refimpl(args)
        with pytest.raises(AssertionError, match="was expecting embedding dimension of 9, but got 8"):
            fn(*args[:3], 9, *args[4:])
        with pytest.raises(AssertionError, match="embed_dim 8 not divisible by num_heads 3"):
            fn(*args[:4], 3, *args[5:])
        with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
            fn(*args, is_causal=True)
        with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D"):
            fn(args[0][None], *args[1:])
