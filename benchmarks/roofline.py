"""The roofline each result is measured against: FP32 peak from the device's own properties and
the device-to-device copy bandwidth measured in the same run.

attainable = min(peak FLOP/s, arithmetic intensity x bandwidth), intensity = FLOPs / compulsory
bytes; a kernel's "% of roofline" is its FLOP/s over that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmarks.timing import Timer, measure

# FP32 lanes per SM by compute capability major.minor (the CUDA programming guide's throughput
# table: 64 on sm_60/70/75/80, 128 on sm_86/89/90/100/120).
FP32_LANES = {(6, 0): 64, (7, 0): 64, (7, 2): 64, (7, 5): 64, (8, 0): 64}
DEFAULT_FP32_LANES = 128


@dataclass(frozen=True)
class Roofline:
    peak_flops: float  # FP32 FLOP/s
    bandwidth: float  # bytes/s, read + written
    peak_source: str
    bandwidth_source: str

    def attainable(self, flops: float, bytes_moved: float) -> float:
        return min(self.peak_flops, flops / bytes_moved * self.bandwidth)

    def bound(self, flops: float, bytes_moved: float) -> str:
        return "compute" if flops / bytes_moved * self.bandwidth >= self.peak_flops else "memory"

    def percent(self, flops: float, bytes_moved: float, seconds: float) -> float:
        return 100.0 * flops / seconds / self.attainable(flops, bytes_moved)


def fp32_peak(sm_count: int, clock_khz: int, capability: tuple[int, int]) -> tuple[float, str]:
    """SMs x clock x FP32 lanes x 2 (an FMA is two FLOPs), and the formula as text."""
    lanes = FP32_LANES.get(capability, DEFAULT_FP32_LANES)
    peak = sm_count * clock_khz * 1e3 * lanes * 2
    return peak, f"{sm_count} SMs x {clock_khz / 1e3:.0f} MHz x {lanes} lanes x 2"


def gpu_fp32_peak(cupy: Any) -> tuple[float, str]:
    device = cupy.cuda.Device()
    attributes = device.attributes
    if not attributes.get("ClockRate"):
        raise RuntimeError("the device reports no clock rate: give the peak with --peak-tflops")
    capability = divmod(int(device.compute_capability), 10)
    return fp32_peak(attributes["MultiProcessorCount"], attributes["ClockRate"], capability)


def copy_bandwidth(cupy: Any, timer: Timer, nbytes: int, reps: int = 10) -> tuple[float, str]:
    """A big cudaMemcpy device to device; bytes read + written over the median time."""
    src = cupy.ones(nbytes // 4, dtype=cupy.float32)
    dst = cupy.empty_like(src)

    def copy() -> None:
        dst.data.copy_from_device_async(src.data, src.nbytes)

    median_ms = measure(copy, timer, warmup=2, reps=reps).median_ms
    bandwidth = 2 * src.nbytes / (median_ms * 1e-3)
    return bandwidth, f"cudaMemcpy D2D of {nbytes / 2**20:.0f} MiB, median of {reps}"


def gpu_roofline(cupy: Any, timer: Timer, copy_bytes: int, peak_flops: float | None = None,
                 bandwidth: float | None = None) -> Roofline:
    """The device's roofline; a figure given here is used instead of reading/measuring it."""
    peak, peak_source = (peak_flops, "given") if peak_flops else gpu_fp32_peak(cupy)
    bw, bw_source = (bandwidth, "given") if bandwidth else copy_bandwidth(cupy, timer, copy_bytes)
    return Roofline(peak, bw, peak_source, bw_source)
