"""Fuzzer regression (seed 71083).

Before the fix: statement 4 `v5 = torch.nn.functional.cross_entropy(v3, v4, reduction='none', weight=v2)`:
    error: glassgrad raised RuntimeError: The function 'cross_entropy' is not differentiable
    with respect to argument 'weight'. This input cannot have requires_grad True.
"""

SEED = 71083
PROGRAM = """
v0 = torch.tensor([[-0.0886072], [-0.0171328], [0.0070254]], dtype=torch.float64, requires_grad=True)
with torch.no_grad(): v2 = v0.select(1, 0)
v3 = torch.tensor([[[-0.138501, -0.287138, -0.339826, 0.394938], [-0.801404, 0.883399, -0.868902, 1.40955], [0.719852, -0.118604, -0.753452, -0.660356]], [[-0.377159, 0.30444, -0.507235, -0.374617], [0.929332, -0.062413, -0.336302, 0.674637], [-1.41159, 0.269599, -0.625512, -0.39576]]], dtype=torch.float64)
v4 = torch.tensor([[[0.550215, 0.236559, 0.811322, 0.172469], [0.380223, 0.235127, 0.0273244, 0.314047], [0.069562, 0.528313, 0.161354, 0.513484]], [[0.312975, 0.0432897, 0.756891, 0.647086], [0.118068, 0.693202, 0.0874116, 0.224334], [0.568957, 0.263509, 0.155698, 0.12858]]], dtype=torch.float64, requires_grad=True)
v5 = torch.nn.functional.cross_entropy(v3, v4, reduction='none', weight=v2)
"""
