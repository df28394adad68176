"""Per-loss-term attribution: the PPO bug (the policy term trains the value head through an
advantage that was not detached) found by one call, with the path that leaks; the gradients
per term checked against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.autograd import detect_anomaly
from glassgrad.viz import GradientLeakError, attribute_grads, expect_no_grad, record_forward

pytestmark = pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled:UserWarning")


def actor_critic(lib, seed=0):
    """A PPO actor-critic: a shared body, a policy head, a value head (same weights in both
    libraries)."""
    rng = np.random.default_rng(seed)

    class ActorCritic(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = lib.nn.Linear(4, 8)
            self.policy_head = lib.nn.Linear(8, 3)
            self.value_head = lib.nn.Linear(8, 1)

        def forward(self, obs):
            h = lib.tanh(self.body(obs))
            return self.policy_head(h), self.value_head(h).squeeze(-1)

    model = ActorCritic().double()
    with lib.no_grad():
        for param in model.parameters():
            param.copy_(lib.tensor(rng.standard_normal(tuple(param.shape)) * 0.5))
    obs = lib.tensor(rng.standard_normal((6, 4)))
    actions = lib.tensor(rng.integers(0, 3, 6))
    returns = lib.tensor(rng.standard_normal(6))
    old_log_probs = lib.tensor(rng.standard_normal(6) * 0.1 - 1.0)
    return model, obs, actions, returns, old_log_probs


def ppo_terms(lib, model, obs, actions, returns, old_log_probs, detach):
    logits, values = model(obs)
    log_probs = lib.log_softmax(logits, dim=-1).gather(1, actions[:, None]).squeeze(1)
    ratio = lib.exp(log_probs - old_log_probs)
    advantages = returns - (values.detach() if detach else values)  # MARK-advantage
    clipped = lib.clamp(ratio, 0.8, 1.2) * advantages
    policy_loss = -lib.minimum(ratio * advantages, clipped).mean()
    value_loss = (returns - values).pow(2).mean()
    return {"policy_loss": policy_loss, "value_loss": value_loss}


def test_ppo_leak_is_found_by_one_call_with_the_path():
    model, *batch = actor_critic(gg)
    with detect_anomaly(check_nan=False), record_forward(model) as log:
        terms = ppo_terms(gg, model, *batch, detach=False)
    with pytest.raises(GradientLeakError) as info:
        expect_no_grad(
            terms,
            model.named_parameters(),
            from_="policy_loss",
            to=model.value_head,
            forward_log=log,
        )
    message = str(info.value)
    assert message.startswith(
        "expect_no_grad: loss term 'policy_loss' sends gradient to value_head."
    )
    assert "SubBackward0" in message and "advantages = returns - (values.detach()" in message
    assert "in value_head" in message  # the module of the node where the path starts
    assert ".detach()" in message.splitlines()[-1]
    # The grad of the parameters was left alone: nothing accumulated.
    assert all(param.grad is None for param in model.parameters())


def test_fixed_ppo_passes_and_norms_per_term_match_pytorch():
    ours, *batch = actor_critic(gg)
    theirs, *tbatch = actor_critic(torch)
    terms = ppo_terms(gg, ours, *batch, detach=True)
    found = expect_no_grad(terms, ours.named_parameters(), from_="policy_loss", to="value_head")
    reference = ppo_terms(torch, theirs, *tbatch, detach=True)
    named = dict(theirs.named_parameters())
    for term, loss in reference.items():
        grads = torch.autograd.grad(
            loss, list(named.values()), retain_graph=True, allow_unused=True
        )
        for (name, _), grad in zip(named.items(), grads, strict=True):
            if grad is None:
                assert term not in found.params[name]
            else:
                assert found.params[name][term] == pytest.approx(grad.norm().item(), rel=1e-9)
    assert set(found.terms_of("value_head.weight")) == {"value_loss"}
    assert set(found.terms_of("body.weight")) == {"policy_loss", "value_loss"}
    # Nodes carry the norm each term sent through them; the table prints "-" for no path.
    assert any(set(norms) == {"policy_loss", "value_loss"} for norms in found.nodes.values())
    table = str(found).splitlines()
    assert table[0].split() == ["parameter", "policy_loss", "value_loss"]
    value_row = next(line for line in table if line.startswith("value_head.weight"))
    assert value_row.split()[1] == "-"


def test_bad_terms_are_refused_clearly():
    w = gg.ones(3, requires_grad=True)
    with pytest.raises(ValueError, match="loss term 'v' has shape \\(3,\\); pass scalar terms"):
        attribute_grads({"v": w * 2}, {"w": w})
    with pytest.raises(TypeError, match="loss term 'x' must be a tensor, got float"):
        attribute_grads({"x": 1.0}, {"w": w})
    found = attribute_grads([(w * 2).sum()], {"w": w})
    assert found.terms == ["term0"]
    with pytest.raises(KeyError, match="no loss term named 'nope'"):
        found.expect_no_grad("nope", w)


def test_explorer_shows_each_terms_gradient(tmp_path):
    from glassgrad.viz import explorer_data

    model, *batch = actor_critic(gg)
    terms = ppo_terms(gg, model, *batch, detach=False)
    found = attribute_grads(terms, model.named_parameters())
    data = explorer_data(terms, dict(model.named_parameters()), attribution=found)
    assert data["terms"] == ["policy_loss", "value_loss"]
    by_name = {p["name"]: p for p in data["params"]}
    assert set(by_name["value_head.weight"]["terms"]) == {"policy_loss", "value_loss"}  # the leak
    assert set(by_name["policy_head.weight"]["terms"]) == {"policy_loss"}
    terms_of = {n["label"]: set(n.get("terms") or ()) for n in data["nodes"]}
    assert terms_of["SqueezeBackward1"] == {"policy_loss", "value_loss"}  # the values
    assert terms_of["LogSoftmaxBackward0"] == {"policy_loss"}
