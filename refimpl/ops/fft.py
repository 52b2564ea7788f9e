"""The discrete Fourier transforms as aten ops: _fft_r2c, _fft_c2r, _fft_c2c and the fft_* entries, stft, istft.

Torch: (filled in by the module's author).
"""

from __future__ import annotations
