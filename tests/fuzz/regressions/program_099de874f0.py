"""Fuzzer regression (seed 3080).

Before the fix: found: before: phase backward: error: PyTorch raised RuntimeError: one of the variables needed
    for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3,
    1]] is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the
    operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(Tru
"""

SEED = 3080
PROGRAM = """
v7 = torch.tensor([[0.845757, 0.859909, 0.23352, 1.90411], [3.03591, 1.44117, -0.600705, 0.085845], [0.0853507, 0.874785, -1.61687, -0.00517463]], dtype=torch.float64, requires_grad=True)
v8 = torch.tensor([[0.8472, 0.33345, 0.823961, 0.0711395], [0.600657, 0.417489, 0.168266, 0.154418], [0.617582, 0.730997, 0.774142, 0.431683]], dtype=torch.float64, requires_grad=True)
v9 = torch.tensor([1.49001, 1.14586, 1.23844, 0.559813], dtype=torch.float64)
v10 = torch.tensor([[0.900212], [0.00815773], [0.0642215]], dtype=torch.float32)
v11 = torch.nn.functional.binary_cross_entropy_with_logits(v7, v8, pos_weight=v9, weight=v10)
v14 = v10.fill_(1.5)
"""
