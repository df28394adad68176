"""Fuzzer regression (seed 60542).

Before the fix: statement 2: error: PyTorch raised RuntimeError: put_(): self and source expected to have the
    same dtype (put cast the source)
"""

SEED = 60542
PROGRAM = """
v14 = torch.tensor([[-0.991489, 1.87136, 0.444373, 0.153216], [0.946738, 0.291609, 0.607979, 0.0242719], [0.123192, 0.172944, 1.03634, 0.825937]], dtype=torch.float64, requires_grad=True)
v15 = torch.tensor([0.53206, 0.0798779, 2.09065], dtype=torch.float32, requires_grad=True)
v16 = v14.put(torch.tensor([0, 5, 11], dtype=torch.int64), v15)
"""
