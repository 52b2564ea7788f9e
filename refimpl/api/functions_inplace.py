"""The torch.* bindings of in-place ops (`torch.exp_(x)`) and of the underscore ops torch's
top-level namespace exposes (`torch._softmax`, `torch._stack`, `torch._linalg_svd`), each bound
to the aten packet of its name.

Torch: the `torch.<name>` bindings generated into torch/csrc/autograd/generated/
python_torch_functions.cpp (every function of torch._C._VariableFunctions whose aten
overloads refimpl implements). One line per function, as in api/functions.py.
"""

from __future__ import annotations

from refimpl.api._call import torch_function

__all__ = [
    "_conj",
    "_conj_physical",
    "_cummax_helper",
    "_cummin_helper",
    "_fft_c2c",
    "_fft_c2r",
    "_fft_r2c",
    "_histogramdd_bin_edges",
    "_histogramdd_from_bin_cts",
    "_histogramdd_from_bin_tensors",
    "_linalg_check_errors",
    "_linalg_det",
    "_linalg_eigh",
    "_linalg_slogdet",
    "_linalg_solve_ex",
    "_linalg_svd",
    "_log_softmax",
    "_log_softmax_backward_data",
    "_logcumsumexp",
    "_softmax",
    "_softmax_backward_data",
    "_stack",
    "abs_",
    "acos_",
    "acosh_",
    "addmv_",
    "arccos_",
    "arccosh_",
    "arcsin_",
    "arcsinh_",
    "arctan_",
    "arctanh_",
    "asin_",
    "asinh_",
    "atan_",
    "atanh_",
    "ceil_",
    "clamp_",
    "clamp_max_",
    "clamp_min_",
    "clip_",
    "conj_physical_",
    "cos_",
    "cosh_",
    "deg2rad_",
    "erf_",
    "erfc_",
    "exp2_",
    "exp_",
    "expm1_",
    "fill_",
    "fix_",
    "floor_",
    "frac_",
    "gcd_",
    "i0_",
    "lcm_",
    "ldexp_",
    "log1p_",
    "log2_",
    "log10_",
    "log_",
    "logit_",
    "nan_to_num_",
    "neg_",
    "negative_",
    "rad2deg_",
    "reciprocal_",
    "round_",
    "rsqrt_",
    "sigmoid_",
    "sin_",
    "sinc_",
    "sinh_",
    "sqrt_",
    "square_",
    "tan_",
    "tanh_",
    "trunc_",
    "xlogy_",
]

# --- in-place forms --------------------------------------------------------------------------

abs_ = torch_function("abs_")
acos_ = torch_function("acos_")
acosh_ = torch_function("acosh_")
addmv_ = torch_function("addmv_")
arccos_ = torch_function("arccos_")
arccosh_ = torch_function("arccosh_")
arcsin_ = torch_function("arcsin_")
arcsinh_ = torch_function("arcsinh_")
arctan_ = torch_function("arctan_")
arctanh_ = torch_function("arctanh_")
asin_ = torch_function("asin_")
asinh_ = torch_function("asinh_")
atan_ = torch_function("atan_")
atanh_ = torch_function("atanh_")
ceil_ = torch_function("ceil_")
clamp_ = torch_function("clamp_")
clamp_max_ = torch_function("clamp_max_")
clamp_min_ = torch_function("clamp_min_")
clip_ = torch_function("clip_")
conj_physical_ = torch_function("conj_physical_")
cos_ = torch_function("cos_")
cosh_ = torch_function("cosh_")
deg2rad_ = torch_function("deg2rad_")
erf_ = torch_function("erf_")
erfc_ = torch_function("erfc_")
exp2_ = torch_function("exp2_")
exp_ = torch_function("exp_")
expm1_ = torch_function("expm1_")
fill_ = torch_function("fill_")
fix_ = torch_function("fix_")
floor_ = torch_function("floor_")
frac_ = torch_function("frac_")
gcd_ = torch_function("gcd_")
i0_ = torch_function("i0_")
lcm_ = torch_function("lcm_")
ldexp_ = torch_function("ldexp_")
log10_ = torch_function("log10_")
log1p_ = torch_function("log1p_")
log2_ = torch_function("log2_")
log_ = torch_function("log_")
logit_ = torch_function("logit_")
nan_to_num_ = torch_function("nan_to_num_")
neg_ = torch_function("neg_")
negative_ = torch_function("negative_")
rad2deg_ = torch_function("rad2deg_")
reciprocal_ = torch_function("reciprocal_")
round_ = torch_function("round_")
rsqrt_ = torch_function("rsqrt_")
sigmoid_ = torch_function("sigmoid_")
sin_ = torch_function("sin_")
sinc_ = torch_function("sinc_")
sinh_ = torch_function("sinh_")
sqrt_ = torch_function("sqrt_")
square_ = torch_function("square_")
tan_ = torch_function("tan_")
tanh_ = torch_function("tanh_")
trunc_ = torch_function("trunc_")
xlogy_ = torch_function("xlogy_")

# --- underscore ops -------------------------------------------------------------------------

_conj = torch_function("_conj")
_conj_physical = torch_function("_conj_physical")
_cummax_helper = torch_function("_cummax_helper")
_cummin_helper = torch_function("_cummin_helper")
_fft_c2c = torch_function("_fft_c2c")
_fft_c2r = torch_function("_fft_c2r")
_fft_r2c = torch_function("_fft_r2c")
_histogramdd_bin_edges = torch_function("_histogramdd_bin_edges")
_histogramdd_from_bin_cts = torch_function("_histogramdd_from_bin_cts")
_histogramdd_from_bin_tensors = torch_function("_histogramdd_from_bin_tensors")
_linalg_check_errors = torch_function("_linalg_check_errors")
_linalg_det = torch_function("_linalg_det")
_linalg_eigh = torch_function("_linalg_eigh")
_linalg_slogdet = torch_function("_linalg_slogdet")
_linalg_solve_ex = torch_function("_linalg_solve_ex")
_linalg_svd = torch_function("_linalg_svd")
_log_softmax = torch_function("_log_softmax")
_log_softmax_backward_data = torch_function("_log_softmax_backward_data")
_logcumsumexp = torch_function("_logcumsumexp")
_softmax = torch_function("_softmax")
_softmax_backward_data = torch_function("_softmax_backward_data")
_stack = torch_function("_stack")
