"""Fuzzer regression (seed 830004).

Before the fix: phase grad requires_grad: flags: glassgrad [True], PyTorch [False]
"""

SEED = 830004
PROGRAM = """
v0 = torch.tensor([[-2.09105, -0.623827, -0.0966743], [-0.855657, 0.981722, -0.992664], [0.744554, -0.0722626, -0.781358], [0.69942, -0.862347, -0.440487], [1.25366, -0.553566, 0.0988464], [1.71058, -1.08306, -1.30333], [-1.17591, 0.866842, 0.369381], [-0.377875, -0.27641, -0.848941], [0.261813, -0.876722, -0.000361453], [0.538761, 0.711087, 0.411357]], dtype=torch.float64)
v1 = torch.tensor([0.213317, 1.24265, 0.828082, -0.997976, 0.925125, 0.86275, -0.932448, 0.644582], dtype=torch.float64, requires_grad=True)
v2 = torch.nn.functional.embedding_bag(torch.tensor([1, 2, 4, 5, 4, 3, 2, 9], dtype=torch.int64), v0, torch.tensor([0, 3, 3, 6], dtype=torch.int64), mode='sum', per_sample_weights=v1)
"""
