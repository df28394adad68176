"""Fuzzer regression (seed 71935).

Before the fix: phase backward v2.grad: value: NaN where the other has none: every element NaN in glassgrad
    (interpolate's backward was a dense matrix product)
"""

SEED = 71935
PROGRAM = """
v2 = torch.tensor([[[[0.153967, 0.326534, 1.4063, 0.805902, 0.58329], [0.207225, -0.317393, 0.721306, 0.260291, 1.01552], [-0.0475813, -0.261155, 0.887273, 0.140039, -0.924324], [-0.595049, -0.496713, 0.345797, -0.0445035, -0.09727]], [[0.0822901, -0.837461, 0.33344, -1.44539, 1.06811], [2.63669, -0.234541, -0.076702, -0.273084, -1.69089], [0.524633, -0.478045, 1.86675, 1.33001, 1.2075], [1.85651, -0.178418, 0.63954, -0.538699, -0.722942]]]], dtype=torch.float64, requires_grad=True)
v3 = torch.nn.functional.interpolate(v2, size=(7, 3), mode='bilinear')
v4 = v3.sqrt_()
"""
