"""autogpu's passes. Each lives in its own module named after the pass; this registry maps pass
names to lazy loaders, as xDSL's own `get_all_passes` does, so importing autogpu stays cheap."""

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Return the list of all available passes."""

    def get_agpu_check_parallel():
        from autogpu.passes.agpu_check_parallel import AgpuCheckParallelPass

        return AgpuCheckParallelPass

    def get_agpu_dense_indexing():
        from autogpu.passes.agpu_dense_indexing import AgpuDenseIndexingPass

        return AgpuDenseIndexingPass

    def get_agpu_stage_accumulations():
        from autogpu.passes.agpu_stage_accumulations import AgpuStageAccumulationsPass

        return AgpuStageAccumulationsPass

    def get_agpu_split_accumulations():
        from autogpu.passes.agpu_split_accumulations import AgpuSplitAccumulationsPass

        return AgpuSplitAccumulationsPass

    def get_agpu_unroll_serial():
        from autogpu.passes.agpu_unroll_serial import AgpuUnrollSerialPass

        return AgpuUnrollSerialPass

    def get_agpu_specialize():
        from autogpu.passes.agpu_specialize import AgpuSpecializePass

        return AgpuSpecializePass

    def get_agpu_out_of_core():
        from autogpu.passes.agpu_out_of_core import AgpuOutOfCorePass

        return AgpuOutOfCorePass

    def get_agpu_flatten_nest():
        from autogpu.passes.agpu_flatten_nest import AgpuFlattenNestPass

        return AgpuFlattenNestPass

    def get_agpu_unroll_parallel():
        from autogpu.passes.agpu_unroll_parallel import AgpuUnrollParallelPass

        return AgpuUnrollParallelPass

    def get_gpu_optimize_guards():
        from autogpu.passes.gpu_optimize_guards import GpuOptimizeGuardsPass

        return GpuOptimizeGuardsPass

    def get_convert_agpu_to_gpu():
        from autogpu.passes.convert_agpu_to_gpu import ConvertAgpuToGpuPass

        return ConvertAgpuToGpuPass

    def get_autogpu_optimize():
        from autogpu.passes.pipelines import AutogpuOptimizePipeline

        return AutogpuOptimizePipeline

    def get_autogpu_tiled():
        from autogpu.passes.pipelines import AutogpuTiledPipeline

        return AutogpuTiledPipeline

    def get_gpu_infer_nsw():
        from autogpu.passes.gpu_infer_nsw import GpuInferNswPass

        return GpuInferNswPass

    def get_gpu_narrow_indices():
        from autogpu.passes.gpu_narrow_indices import GpuNarrowIndicesPass

        return GpuNarrowIndicesPass

    def get_gpu_cache_shared():
        from autogpu.passes.gpu_cache_shared import GpuCacheSharedPass

        return GpuCacheSharedPass

    def get_gpu_vectorize():
        from autogpu.passes.gpu_vectorize import GpuVectorizePass

        return GpuVectorizePass

    def get_gpu_pipeline_tiles():
        from autogpu.passes.gpu_pipeline_tiles import GpuPipelineTilesPass

        return GpuPipelineTilesPass

    def get_gpu_dynamic_shared():
        from autogpu.passes.gpu_dynamic_shared import GpuDynamicSharedPass

        return GpuDynamicSharedPass

    def get_gpu_warp_tile():
        from autogpu.passes.gpu_warp_tile import GpuWarpTilePass

        return GpuWarpTilePass

    def get_autogpu_vanilla():
        from autogpu.passes.pipelines import AutogpuVanillaPipeline

        return AutogpuVanillaPipeline

    return {
        "agpu-check-parallel": get_agpu_check_parallel,
        "agpu-dense-indexing": get_agpu_dense_indexing,
        "agpu-stage-accumulations": get_agpu_stage_accumulations,
        "agpu-split-accumulations": get_agpu_split_accumulations,
        "agpu-unroll-serial": get_agpu_unroll_serial,
        "agpu-specialize": get_agpu_specialize,
        "agpu-flatten-nest": get_agpu_flatten_nest,
        "agpu-out-of-core": get_agpu_out_of_core,
        "agpu-unroll-parallel": get_agpu_unroll_parallel,
        "gpu-optimize-guards": get_gpu_optimize_guards,
        "convert-agpu-to-gpu": get_convert_agpu_to_gpu,
        "autogpu-vanilla": get_autogpu_vanilla,
        "gpu-cache-shared": get_gpu_cache_shared,
        "gpu-infer-nsw": get_gpu_infer_nsw,
        "gpu-narrow-indices": get_gpu_narrow_indices,
        "autogpu-optimize": get_autogpu_optimize,
        "autogpu-tiled": get_autogpu_tiled,
        "gpu-vectorize": get_gpu_vectorize,
        "gpu-pipeline-tiles": get_gpu_pipeline_tiles,
        "gpu-dynamic-shared": get_gpu_dynamic_shared,
        "gpu-warp-tile": get_gpu_warp_tile,
    }
