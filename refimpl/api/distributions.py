"""The torch.* functions and Tensor methods of the random distributions beyond rand/randn/randint/randperm/normal/uniform (bernoulli, poisson, multinomial, exponential_, geometric_, log_normal_, cauchy_, binomial, _standard_gamma, _sample_dirichlet) and of the dropout ops (dropout, feature_dropout, alpha_dropout, feature_alpha_dropout, their in-place forms, native_dropout).

Torch: the generated bindings in python_torch_functions.cpp and python_variable_methods.cpp.
Each function and method passes through `api/_call.py` (`torch_function`, `method`); one line
per name. `DistributionMethods` is a base class of `refimpl.Tensor`. The kernels are in
refimpl/ops/distributions.py and its `_distributions_*` modules.
"""

from __future__ import annotations

from refimpl.api._call import method, torch_function

# The torch.* names this module adds to `refimpl` (refimpl/__init__.py imports them).
__all__: list[str] = [
    "_sample_dirichlet",
    "_standard_gamma",
    "_standard_gamma_grad",
    "alpha_dropout",
    "alpha_dropout_",
    "bernoulli",
    "binomial",
    "dropout",
    "dropout_",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
    "feature_dropout",
    "feature_dropout_",
    "multinomial",
    "native_dropout",
    "poisson",
]

bernoulli = torch_function("bernoulli")
multinomial = torch_function("multinomial")
poisson = torch_function("poisson")
binomial = torch_function("binomial")
dropout = torch_function("dropout")
dropout_ = torch_function("dropout_")
feature_dropout = torch_function("feature_dropout")
feature_dropout_ = torch_function("feature_dropout_")
alpha_dropout = torch_function("alpha_dropout")
alpha_dropout_ = torch_function("alpha_dropout_")
feature_alpha_dropout = torch_function("feature_alpha_dropout")
feature_alpha_dropout_ = torch_function("feature_alpha_dropout_")
native_dropout = torch_function("native_dropout")
_standard_gamma = torch_function("_standard_gamma")
_standard_gamma_grad = torch_function("_standard_gamma_grad")
_sample_dirichlet = torch_function("_sample_dirichlet")


class DistributionMethods:
    """The Tensor methods of this family. Torch: torch._C.TensorBase's methods."""

    __slots__ = ()

    bernoulli = method("bernoulli")
    bernoulli_ = method("bernoulli_")
    exponential_ = method("exponential_")
    geometric_ = method("geometric_")
    log_normal_ = method("log_normal_")
    cauchy_ = method("cauchy_")
    multinomial = method("multinomial")
