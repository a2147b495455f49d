"""autogpu's passes. Each lives in its own module named after the pass; this registry maps pass
names to lazy loaders, as xDSL's own `get_all_passes` does, so importing autogpu stays cheap."""

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Return the list of all available passes."""

    def get_convert_agpu_to_gpu():
        from autogpu.passes.convert_agpu_to_gpu import ConvertAgpuToGpuPass

        return ConvertAgpuToGpuPass

    return {
        "convert-agpu-to-gpu": get_convert_agpu_to_gpu,
    }
