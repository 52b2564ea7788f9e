"""`refimpl.ops`: operator namespaces (`refimpl.ops.aten.add.Tensor`) and the kernels behind them.

Torch: torch.ops (torch/_ops.py). `refimpl.ops.<ns>` is an operator namespace; the modules of
this package register refimpl's kernels for aten operators.
"""

from __future__ import annotations

from refimpl.dispatch.overloads import OpNamespace, namespace

# The kernel modules are imported here, so that they register their kernels and so that the
# namespace lookup below never shadows them.
from refimpl.ops import arithmetic as arithmetic
from refimpl.ops import batch_norm_stats as batch_norm_stats
from refimpl.ops import binary as binary
from refimpl.ops import binary_math as binary_math
from refimpl.ops import clamp as clamp
from refimpl.ops import compare as compare
from refimpl.ops import complex as complex
from refimpl.ops import construction as construction
from refimpl.ops import data as data
from refimpl.ops import distributions as distributions
from refimpl.ops import factory as factory
from refimpl.ops import fft as fft
from refimpl.ops import fft_freq as fft_freq
from refimpl.ops import fft_stft as fft_stft
from refimpl.ops import fft_transforms as fft_transforms
from refimpl.ops import gather_scatter as gather_scatter
from refimpl.ops import gradient as gradient
from refimpl.ops import histograms as histograms
from refimpl.ops import index as index
from refimpl.ops import index_dim as index_dim
from refimpl.ops import join as join
from refimpl.ops import like as like
from refimpl.ops import linalg_norms as linalg_norms
from refimpl.ops import linalg_solve as linalg_solve
from refimpl.ops import linalg_spectral as linalg_spectral
from refimpl.ops import masked_index as masked_index
from refimpl.ops import matmul as matmul
from refimpl.ops import matvec as matvec
from refimpl.ops import misc_composites as misc_composites
from refimpl.ops import nn_activation as nn_activation
from refimpl.ops import nn_attention as nn_attention
from refimpl.ops import nn_convolution as nn_convolution
from refimpl.ops import nn_embedding as nn_embedding
from refimpl.ops import nn_loss as nn_loss
from refimpl.ops import nn_margin as nn_margin
from refimpl.ops import nn_normalization as nn_normalization
from refimpl.ops import nn_pooling as nn_pooling
from refimpl.ops import nn_sampling as nn_sampling
from refimpl.ops import order as order
from refimpl.ops import padding as padding
from refimpl.ops import padding_reflect as padding_reflect
from refimpl.ops import pointwise as pointwise
from refimpl.ops import predicates as predicates
from refimpl.ops import products as products
from refimpl.ops import random as random
from refimpl.ops import random_creation as random_creation
from refimpl.ops import random_factories as random_factories
from refimpl.ops import random_like as random_like
from refimpl.ops import ranges as ranges
from refimpl.ops import reduction as reduction
from refimpl.ops import reduction_extremes as reduction_extremes
from refimpl.ops import reduction_moments as reduction_moments
from refimpl.ops import reduction_norms as reduction_norms
from refimpl.ops import reorder as reorder
from refimpl.ops import rnn as rnn
from refimpl.ops import rnn_cells as rnn_cells
from refimpl.ops import scan as scan
from refimpl.ops import search as search
from refimpl.ops import segment as segment
from refimpl.ops import selection as selection
from refimpl.ops import sets as sets
from refimpl.ops import shape_aliases as shape_aliases
from refimpl.ops import softmax as softmax
from refimpl.ops import sorting as sorting
from refimpl.ops import special as special
from refimpl.ops import special_bessel as special_bessel
from refimpl.ops import special_polynomials as special_polynomials
from refimpl.ops import split as split
from refimpl.ops import statistics as statistics
from refimpl.ops import tensor_set as tensor_set
from refimpl.ops import unary_math as unary_math
from refimpl.ops import unary_misc as unary_misc
from refimpl.ops import vector_ops as vector_ops
from refimpl.ops import view as view
from refimpl.ops import view_copy as view_copy
from refimpl.ops import view_inplace as view_inplace
from refimpl.ops import view_scatter as view_scatter
from refimpl.ops import weight_norm as weight_norm
from refimpl.ops import windows as windows

# isort: split
# Last: the Conjugate and Negative fallthroughs are registered on the ops defined above.
from refimpl.ops import math_bits as math_bits

aten = namespace("aten")
prims = namespace("prims")


def __getattr__(name: str) -> OpNamespace:
    # Custom namespaces (`refimpl.ops.myns`) exist as soon as something is defined in them.
    if name.startswith("__"):
        raise AttributeError(name)
    return namespace(name)
