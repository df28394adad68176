"""Fuzzer regression (seed 30847).

Before the fix: phase gradgrad: error: PyTorch raised RuntimeError: derivative for
    aten::_embedding_bag_per_sample_weights_backward is not implemented (glassgrad's
    embedding_bag gradients were constants under create_graph)
"""

SEED = 30847
PROGRAM = """
v2 = torch.tensor([[0.3, -2.1, -2.8], [-1.3, -0.99, 0.37], [0.62, -0.099, 0.4], [1.48, 1.0, -0.064], [-0.86, 0.48, -0.09], [2.78, -0.046, 1.26]], dtype=torch.float64, requires_grad=True)
v3 = torch.tensor([0.18, 2.44, 0.41, -0.04, -0.039], dtype=torch.float64, requires_grad=True)
v4 = torch.nn.functional.embedding_bag(torch.tensor([1, 2, 4, 5, 3], dtype=torch.int64), v2, torch.tensor([0, 3, 3], dtype=torch.int64), mode="sum", per_sample_weights=v3)
v5 = v4 * v4
"""
