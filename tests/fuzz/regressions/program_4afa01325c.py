"""Fuzzer regression (seed 921162).

Before the fix: statement 2 `v2.detach_()`: error: glassgrad raised RuntimeError: Can't detach views in-place.
    Use detach() instead. If you are using DistributedDataParallel (DDP) for training, and
    gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence
    detach_() cannot be called on these gradients. To fix this error, please refer to the
    Optimizer.ze
"""

SEED = 921162
PROGRAM = """
v1 = torch.tensor([[[0.795787, 0.640776, -0.266068, 0.0565431, -0.95685, -0.177997], [-0.561439, -0.855197, -0.241908, -0.718288, 1.08709, -0.224063], [-1.13729, -0.529279, -0.00473263, 0.395664, 0.104336, 1.5915]], [[0.104345, -0.250324, -0.595089, -0.890803, -1.12988, 1.04319], [-0.512395, 0.693138, -0.615821, -0.613625, 0.369999, -0.312418], [2.00026, -0.369566, -0.476281, 0.0150079, 0.786378, -0.261079]]], dtype=torch.float64)
v2 = torch.nn.functional.lp_pool1d(v1, float('inf'), 2)
v2.detach_()
"""
