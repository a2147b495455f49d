"""The pieces of `convert-agpu-to-gpu`: how a C function splits into launches (`function_plan`),
how a parallel nest maps onto threads and blocks (`nest_mapping`), the kernels
(`kernel_builder`, `reductions`) and the host side (`host`)."""
