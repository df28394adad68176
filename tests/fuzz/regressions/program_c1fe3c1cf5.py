"""Fuzzer regression (seed 851598).

Before the fix: phase gradgrad[0]: value: max error 0.33: glassgrad [ 1.0335693   0.20864868 -0.00462818
    -1.8464355 ], PyTorch [ 1.0336914   0.22387695 -0.00462818 -1.5163574 ]
"""

SEED = 851598
PROGRAM = """
v4 = torch.tensor([-37.2764, -33.8024, -33.8023, -39.2654], dtype=torch.float32, requires_grad=True)
v5 = torch.special.log_ndtr(v4)
"""
