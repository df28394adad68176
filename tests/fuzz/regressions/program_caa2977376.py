"""Fuzzer regression (fuzz-views, seed 73253).

Before the fix: phase backward: error: glassgrad raised RuntimeError: Output 0 of Split is a view and its base
    or another view of its base has been modified inplace. This view is the output of a function
    that returns multiple views. Such functions do not allow the output views to be modified
    inplace. You should replace the inplace operation by an out-of-place one.
"""

SEED = 73253
PROGRAM = """
v1 = torch.tensor([[[-0.401245, -1.44497, 0.713169, 0.153855, -0.621824], [0.219205, 1.48064, 2.49123, 0.94553, 0.610737], [0.89479, -1.67627, 1.46316, -1.30331, 1.39814], [-0.319731, 1.33773, 0.499231, 0.547579, 1.08364]], [[-0.00179399, 0.229829, -1.74257, 0.00383393, -0.695159], [0.880427, -0.409655, -1.96895, 1.08229, 1.07229], [-0.800463, 1.49837, 0.63149, -1.65144, 0.880771], [1.33065, 0.0802622, -0.174727, 0.900088, 1.81557]], [[0.100648, 0.590093, 0.0179622, -2.978, 0.9444], [-0.977631, 0.0462438, -0.614853, -1.12456, 1.75329], [-0.151336, 0.717176, 1.80906, -2.09493, -0.285191], [-1.53895, 1.48241, -1.29362, -1.07579, -0.294763]]], dtype=torch.float32, requires_grad=True)
v2 = torch.fft.ihfft2(v1, s=(5, 3), norm='forward')
v3, v4 = v2.split(1, 2)
v16 = v2[::2]
v17 = torch.tensor([1.36934, -0.690142], dtype=torch.float64, requires_grad=True)
v18 = v16.div_(v17)
"""
