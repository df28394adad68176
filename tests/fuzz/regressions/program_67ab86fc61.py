"""Fuzzer regression (seed 834310).

Before the fix: statement 3 `v3 = torch.nn.functional.soft_margin_loss(v2, v1, reduction='none')` v3: value:
    infinities differ: [[8.24970945e-01 9.46066204e-14 3.21369969e-04 6.43206533e-01]
    [6.63787787e-05 2.40064735e+00 2.00807393e-01 7.68525854e-01]  [1.22866246e+00
    1.00967428e+03 6.38477766e+03 1.14015704e+02]] / [[8.24970945e-01 9.46066204e-14
    3.21369969e-04 6.43206533e-01]  [6.63787787e-05 2.40064735e+00 2.00807393e-01
    7.68525854e-01]  [1.22866246e+00            inf            inf 1.14015704e+02]]
"""

SEED = 834310
PROGRAM = """
v0 = torch.tensor([[1.10083, 4.87475, -4.52001, 4.13175], [4.81049, -2.48354, -2.48354, 1.00901], [-3.4126, -10.0995, 13.6442, 6.20274]], dtype=torch.float64, requires_grad=True)
v1 = torch.special.modified_bessel_i1(v0)
v2 = torch.tensor([[-0.389082, 1.38258, -0.513153, 0.00931814], [0.470452, 0.929905, -0.606325, -0.254547], [0.153861, 0.34377, -0.0721961, -1.5392]], dtype=torch.float64, requires_grad=True)
v3 = torch.nn.functional.soft_margin_loss(v2, v1, reduction='none')
"""
