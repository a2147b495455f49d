"""autogpu's benchmark runner: named suites of kernel variants timed on the GPU against cuBLAS
and cupyx in the same run, each output checked against a float64 reference first.

    python3 -m benchmarks.run --suite paper [--quick] [--variant mm_autogpu] [--json out.json]

See benchmarks/README.md.
"""
