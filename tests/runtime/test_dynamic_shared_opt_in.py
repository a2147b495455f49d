"""The executors' opt-in to more than 48 KiB of shared memory per block (issue #14): a kernel
whose static plus dynamic shared memory passes 48 KiB has its dynamic limit raised before it
is launched (static bytes count: 10 KiB static and 40 KiB dynamic need it too); a launch past
the device's opt-in maximum is refused with the numbers, before the driver sees it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from autogpu.runtime.arguments import LaunchConfig
from autogpu.runtime.cuda_exec import _check_resources  # pyright: ignore[reportPrivateUsage]  # the check under test
from autogpu.runtime.errors import KernelLaunchError

ATTRIBUTES = SimpleNamespace(MAX_THREADS_PER_BLOCK=1, NUM_REGS=4, SHARED_SIZE_BYTES=5,
                             MAX_DYNAMIC_SHARED_SIZE_BYTES=8)
H100_OPT_IN = 232448


class Kernel:
    """What `_check_resources` reads of a pycuda `Function` or a `DriverKernel`."""

    def __init__(self, static: int):
        self.values = {ATTRIBUTES.MAX_THREADS_PER_BLOCK: 1024, ATTRIBUTES.NUM_REGS: 32,
                       ATTRIBUTES.SHARED_SIZE_BYTES: static}
        self.set: dict[int, int] = {}

    def get_attribute(self, attribute: int) -> int:
        return self.values[attribute]

    def set_attribute(self, attribute: int, value: int) -> None:
        self.set[attribute] = value


def _opt_in(attribute: int) -> int:
    """The H100's opt-in maximum, whatever device attribute is asked."""
    return H100_OPT_IN


DRIVER = SimpleNamespace(
    function_attribute=ATTRIBUTES,
    device_attribute=SimpleNamespace(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN=99),
    Context=SimpleNamespace(get_device=lambda: SimpleNamespace(
        get_attribute=_opt_in)))


@pytest.mark.parametrize("static, dynamic, raised", [
    (0, 51072, True),  # doubled DGEMM 128x64x16 tiles (gpu-dynamic-shared)
    (10 * 1024, 40 * 1024, True),  # together past 48 KiB
    (10 * 1024, 38 * 1024, False),  # exactly 48 KiB: no opt-in
    (0, 0, False),
])
def test_the_dynamic_limit_is_raised_past_48_kib_in_all(static: int, dynamic: int, raised: bool):
    kernel = Kernel(static)
    _check_resources(DRIVER, kernel, "k", LaunchConfig((1, 1, 1), (256, 1, 1), dynamic))
    expected = {ATTRIBUTES.MAX_DYNAMIC_SHARED_SIZE_BYTES: dynamic} if raised else {}
    assert kernel.set == expected


def test_past_the_devices_maximum_the_launch_is_refused():
    with pytest.raises(KernelLaunchError, match=r"1024 bytes of static and 232000 of dynamic "
                       r"shared memory, the device allows 232448 per block"):
        _check_resources(DRIVER, Kernel(1024), "k",
                         LaunchConfig((1, 1, 1), (256, 1, 1), 232000))
