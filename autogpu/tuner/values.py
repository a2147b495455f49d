"""The plain data the tuner's modules hand each other, named once.

A configuration maps parameter names to scalar option values; sizes map C parameter names to
numbers; the arguments of a kernel are NumPy arrays and scalars; a device is described by a
small JSON-friendly dict. All of it pickles, so it crosses process boundaries as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypedDict, Union

import numpy as np

if TYPE_CHECKING:
    from autogpu.tuner.space import Restriction as SpaceRestriction

ConfigValue = bool | int | float | str
"""The value of one tuned parameter (a pass option, or one axis of a tuple option)."""

Config = dict[str, ConfigValue]
"""One configuration of the space: parameter name -> value."""

SizeValue = int | float | np.integer | np.floating
"""The value of a scalar parameter of the kernel (an integer size or a floating-point scalar)."""

Sizes = dict[str, SizeValue]

Argument = np.ndarray | np.generic | int | float
"""One argument of the kernel, in C parameter order: an array or a scalar."""

SpaceValues = str | list[ConfigValue]
"""A parameter's values as the user gives them: a list, or a generator such as `pow2(32, 512)`."""

Restriction = Union[str, Callable[[Mapping[str, ConfigValue]], object], "SpaceRestriction"]
"""A restriction as the user gives it: an expression, a predicate, or a parsed one."""


class DeviceInfo(TypedDict, total=False):
    """What the measurer reports about its device: part of the cache key, and the limits that
    bound the space (`max_threads_per_block`, `max_shared_per_block`)."""

    backend: str
    machine: str
    cpu: str
    compiler: str
    gpu: str
    pci_bus_id: str
    arch: str
    compute_capability: str
    driver: str
    nvcc: str
    max_threads_per_block: int
    max_shared_per_block: int
    host_program: str
    program: str  # the user's program (`HostMeasurer`): its fingerprint


class LaunchConfig(TypedDict):
    """Grid, block and dynamic shared bytes of one launch, evaluated for concrete sizes, and the
    static shared bytes of its kernel (from the launch description)."""

    kernel: str
    grid: list[int]
    block: list[int]
    shared: int
    static_shared: int


__all__ = ["Argument", "Config", "ConfigValue", "DeviceInfo", "LaunchConfig", "Restriction",
           "SizeValue", "Sizes", "SpaceValues"]
