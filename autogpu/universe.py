"""Publishes autogpu's dialect, passes and targets to any xDSL tool (the `xdsl.universe` entry
point), so the stock `xdsl-opt` and other downstream compilers can use them."""

from xdsl.universe import Universe

from autogpu.passes import get_all_passes
from autogpu.target import get_all_targets


def _get_agpu():
    from autogpu.dialects.agpu import AGPU

    return AGPU


AUTOGPU_UNIVERSE = Universe(
    all_dialects={"agpu": _get_agpu},
    all_passes=get_all_passes(),
    all_targets=get_all_targets(),
)
