"""Fuzzer regression (seed 650712).

Before the fix: statement 5 `v13 = v10 ** v12` v13: value: NaN where the other has none: [[nan+nanj nan+nanj
    nan+nanj nan+nanj nan+nanj nan+nanj nan+nanj nan+nanj]  [nan+nanj nan+nanj nan+nanj nan+nanj
    nan+nanj nan+nanj nan+nanj nan+nanj]  [nan+nanj nan+nanj nan+nanj nan+nanj nan+nanj nan+nanj
    nan+nanj nan+nanj]] / [[inf+nanj inf+nanj inf+nanj inf+nanj inf+nanj inf+nanj inf+nanj
    inf+nanj]  [inf+nanj inf+nanj inf+nanj inf+nanj inf+nanj inf+nanj inf+nanj inf+nanj]
    [inf+nanj inf+nanj inf+nanj inf+nanj inf+nanj inf+nanj inf+nanj inf+nanj]]
"""

SEED = 650712
PROGRAM = """
v1 = torch.tensor([[[0.459505, -0.207616, -1.7199, 0.929698], [-1.69369, -0.219039, 0.126141, 1.30618], [1.00997, 1.52353, 1.18786, 0.402681]], [[1.22923, -0.446343, -0.667061, -0.965727], [-0.288363, 0.0389634, 1.62953, 1.12146], [-1.31235, 0.434943, 1.96915, -0.886738]]], dtype=torch.float64, requires_grad=True)
v9 = torch.tensor([[0.215668, 1.36379, -0.125366, 1.07617, 1.0078, -0.632602, -1.48009, 1.96802], [-0.245824, 0.281256, 0.428838, 0.0323133, 1.53005, 0.211507, 0.313366, 2.10759], [1.35469, 0.216416, 2.23021, -0.400081, 2.88059, 0.388223, -0.256334, -0.324441]], dtype=torch.float64, requires_grad=True)
v10 = torch.fft.fft((v1.reshape((3, 8)) + 1j * v9))
v11 = v10.zero_()
v12 = torch.tensor(-0.796636, dtype=torch.float64, requires_grad=True)
v13 = v10 ** v12
"""
