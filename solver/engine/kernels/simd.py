"""Four float64 in one SIMD register: the four running sums of :func:`~.win.mixed_win_value`
side by side.

Each operation is a plain-Python function -- what runs with ``NUMBA_DISABLE_JIT=1``, a tuple of
four floats -- whose compiled implementation (:func:`numba.extending.overload`, inlined) is an
LLVM intrinsic on one ``<4 x double>``.  Both do the same operations in the same order on each
lane (a product rounded, then a sum: no fused multiply-add), so the sums are the same bits.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic, models, overload, register_model


def v4_zero():
    """Four zeros."""
    return (0.0, 0.0, 0.0, 0.0)


def v4_load(arr, idx):
    """``arr[idx : idx + 4]`` of a 1-D C-contiguous float64 or float32 array, as float64 (float32
    widened, exactly); ``idx`` unchecked, as the kernels' indexing."""
    i = int(idx)
    return (float(arr[i]), float(arr[i + 1]), float(arr[i + 2]), float(arr[i + 3]))


def v4_muladd(acc, a, b):
    """``acc + a * b`` lane by lane: a product rounded, then a sum (no fused multiply-add)."""
    return (acc[0] + a[0] * b[0], acc[1] + a[1] * b[1], acc[2] + a[2] * b[2], acc[3] + a[3] * b[3])


def v4_lanes(v):
    """The four lanes as a tuple of float64."""
    return (v[0], v[1], v[2], v[3])


class Vec4(types.Type):
    """Four float64 in one SIMD register (LLVM ``<4 x double>``): the four running sums of
    :func:`mixed_win_value` side by side.  LLVM does not vectorise a float sum by itself (that
    would reorder it); lane ``k`` of a vector sum is the scalar sum ``k``, operation for
    operation, so the values are the same bits."""

    def __init__(self):
        super().__init__(name="Vec4f64")


VEC4 = Vec4()
_V4 = ir.VectorType(ir.DoubleType(), 4)


@register_model(Vec4)
class _Vec4Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _V4)


@intrinsic
def _v4_zero(typingctx):
    """Four zeros."""

    def codegen(context, builder, sig, args):
        return ir.Constant(_V4, [0.0] * 4)

    return VEC4(), codegen


@intrinsic
def _v4_load(typingctx, arr, idx):
    """``arr[idx : idx + 4]`` of a 1-D C-contiguous float64 or float32 array (float32 widened,
    exactly); ``idx`` unchecked, as the kernels' indexing."""
    if not (
        isinstance(arr, types.Array)
        and arr.ndim == 1
        and arr.layout == "C"
        and arr.dtype in (types.float64, types.float32)
    ):
        return None
    single = arr.dtype == types.float32

    def codegen(context, builder, sig, args):
        data = context.make_array(sig.args[0])(context, builder, value=args[0]).data
        at = builder.gep(data, [context.cast(builder, args[1], sig.args[1], types.intp)])
        elem = ir.FloatType() if single else ir.DoubleType()
        v = builder.load(builder.bitcast(at, ir.VectorType(elem, 4).as_pointer()), align=4 if single else 8)
        return builder.fpext(v, _V4) if single else v

    return VEC4(arr, idx), codegen


@intrinsic
def _v4_muladd(typingctx, acc, a, b):
    """``acc + a * b`` lane by lane: a product rounded, then a sum (no fused multiply-add)."""

    def codegen(context, builder, sig, args):
        return builder.fadd(args[0], builder.fmul(args[1], args[2]))

    return VEC4(VEC4, VEC4, VEC4), codegen


@intrinsic
def _v4_lanes(typingctx, v):
    """The four lanes as a tuple of float64."""

    def codegen(context, builder, sig, args):
        lanes = [builder.extract_element(args[0], ir.Constant(ir.IntType(32), k)) for k in range(4)]
        return context.make_tuple(builder, sig.return_type, lanes)

    return types.UniTuple(types.float64, 4)(VEC4), codegen


# the compiled operations: each plain function above is the intrinsic, inlined into the kernel
@overload(v4_zero, inline="always")
def _v4_zero_impl():
    return lambda: _v4_zero()


@overload(v4_load, inline="always")
def _v4_load_impl(arr, idx):
    return lambda arr, idx: _v4_load(arr, idx)


@overload(v4_muladd, inline="always")
def _v4_muladd_impl(acc, a, b):
    return lambda acc, a, b: _v4_muladd(acc, a, b)


@overload(v4_lanes, inline="always")
def _v4_lanes_impl(v):
    return lambda v: _v4_lanes(v)
