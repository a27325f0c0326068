"""Four float64 in one SIMD register: the four running sums of
:func:`~.win.mixed_win_value` side by side.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic, models, register_model


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
def v4_zero(typingctx):
    """Four zeros."""

    def codegen(context, builder, sig, args):
        return ir.Constant(_V4, [0.0] * 4)

    return VEC4(), codegen


@intrinsic
def v4_load(typingctx, arr, idx):
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
def v4_muladd(typingctx, acc, a, b):
    """``acc + a * b`` lane by lane: a product rounded, then a sum (no fused multiply-add)."""

    def codegen(context, builder, sig, args):
        return builder.fadd(args[0], builder.fmul(args[1], args[2]))

    return VEC4(VEC4, VEC4, VEC4), codegen


@intrinsic
def v4_lanes(typingctx, v):
    """The four lanes as a tuple of float64."""

    def codegen(context, builder, sig, args):
        lanes = [builder.extract_element(args[0], ir.Constant(ir.IntType(32), k)) for k in range(4)]
        return context.make_tuple(builder, sig.return_type, lanes)

    return types.UniTuple(types.float64, 4)(VEC4), codegen
