"""Fuzzer regression (seed 1499).

Before the fix: found: before: hook h3: count: glassgrad 3, PyTorch 2
"""

SEED = 1499
PROGRAM = """
v1 = torch.tensor([[[1.45304, -0.564421, 1.00972]], [[0.547753, 3.79561, -0.340713]]], dtype=torch.float64, requires_grad=True)
v2 = v1.squeeze(0)
_ = v2.register_hook(hook('h3'))
v3 = torch.zeros((0, 3,), dtype=torch.float32, requires_grad=True)
v4 = torch.nn.functional.hardsigmoid(v3)
v9 = torch.tensor([[[-1.19495, 0.182112, -0.48989], [-0.663857, -0.335711, -2.0262], [0.311174, 0.106002, -0.549789], [1.07935, 0.596018, -1.24081], [0.0121924, 0.463739, -0.826365], [0.104593, 1.36685, -1.32571]], [[-0.725857, 0.970696, -0.401651], [1.92961, -1.22388, 0.648731], [-1.35394, 1.49052, -0.32945], [0.716365, 0.880002, 1.64105], [0.634853, -0.387793, 1.12187], [-1.07723, 0.988024, -0.751506]]], dtype=torch.float64, requires_grad=True)
v10 = torch.nn.functional.group_norm(v9, 3, v2.reshape((6,)), v2.reshape((6,)))
"""
