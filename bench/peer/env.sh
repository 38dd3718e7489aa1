# env.sh, sourced by the peer scripts before they start Python: the
# environment in which a PyTorch, numpy or scikit-learn peer runs at full
# strength.
#
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, which this workplace's
# environment sets, are unset so that OpenBLAS picks its own kernel.
#
# glibc returns freed blocks above its mmap threshold (and the heap's top
# above 128 KB) to the kernel, so a peer allocating the same activations
# call after call faults every page in again: on this 2-core VM that cost
# torchvision's inference rows half their time or more, as system time,
# and made it vary with the kernel's memory state between runs. These
# settings keep freed memory in the process for reuse (every block from
# the heap, never trimmed, the heap grown 1 GB at a time), as PyTorch's own
# caching allocators do on a GPU. glibc caps the mmap threshold at 32 MB,
# so blocks above it (a 5·10⁴ × 1,000 float64 array is 400 MB, a
# 10⁴ × 1,000 float32 one 40 MB) kept being mapped and faulted in afresh
# until MALLOC_MMAP_MAX_=0 turned mmap off: a float64 log-softmax of
# 5·10⁴ × 1,000 went from 0.92 to 0.06 s.
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
export MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=17179869184 MALLOC_TOP_PAD_=1073741824
