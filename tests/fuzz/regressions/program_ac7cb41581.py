"""Fuzzer regression (seed 60416).

Before the fix: statement 7: v11: requires_grad: glassgrad False, PyTorch True (histograms were not recorded;
    PyTorch records them by NotImplemented nodes)
"""

SEED = 60416
PROGRAM = """
v2 = torch.tensor([[-1.30403, -1.8814, -0.725153, 1.86564], [-1.70576, 0.134578, -2.17967, -2.26066], [-0.195034, 1.68332, 1.39573, 0.222103]], dtype=torch.float64, requires_grad=True)
v3 = torch.special.bessel_j1(v2)
v7 = torch.tensor([-0.450889, -0.358237, 0.206864, 0.933841], dtype=torch.float64, requires_grad=True)
v3[::2] += v7
v8 = torch.tensor([-2.0, 0.0, 2.0], dtype=torch.float64)
v9 = torch.tensor([-1.0, 1.0], dtype=torch.float64)
v10 = torch.tensor([0.10032, 0.2722, 0.2891, 0.102293, 0.718101, 0.909803], dtype=torch.float64)
v11, v12 = torch.histogramdd(v3.reshape((6, 2)), [v8, v9], weight=v10)
"""
