"""Fuzzer regression (lead, fuzz run seeds 50000+).

Before the fix: statement 2 `v2.detach_()`: error: glassgrad raised RuntimeError: Can't detach views in-place
    (rot90's result was a view of its temporary; PyTorch's is not a view)
"""

SEED = 50415
PROGRAM = """
v1 = torch.tensor([[[-0.462197, 0.369888, 1.55183, -1.48641], [2.15809, -1.01772, -0.421484, 1.10286], [0.0789422, 0.630494, -1.86761, -1.845]], [[-0.283813, 0.117476, -1.03163, 1.18302], [-0.708244, -0.17614, -0.471572, -0.291109], [-1.03395, -1.88544, 0.234829, 0.859538]]], dtype=torch.float32, requires_grad=True)
v2 = v1.rot90(1, [2, 0])
v2.detach_()
"""
