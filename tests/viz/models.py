"""The realistic models the glass-box tools are tried on (issue 17): a transformer of 4 blocks,
an LSTMCell language model unrolled 50 steps, a CNN and a PPO actor-critic. Small tensors (the
graphs are what matter), each forward recorded with ``record_forward`` under anomaly mode so the
tools know modules and source lines."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

import glassgrad as gg
from glassgrad.autograd import detect_anomaly
from glassgrad.viz import ForwardLog, record_forward

nn = gg.nn
F = gg.nn.functional


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        batch, length, dim = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.reshape(batch, length, self.heads, dim // self.heads).transpose(1, 2)
        k = k.reshape(batch, length, self.heads, dim // self.heads).transpose(1, 2)
        v = v.reshape(batch, length, self.heads, dim // self.heads).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(dim // self.heads)
        weights = gg.softmax(scores, dim=-1)
        mixed = (weights @ v).transpose(1, 2).reshape(batch, length, dim)
        return self.proj(mixed)


class Block(nn.Module):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return x


class Transformer(nn.Module):
    def __init__(self, vocab: int = 11, dim: int = 16, heads: int = 2, depth: int = 4) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab: int = 11, dim: int = 8, hidden: int = 12) -> None:
        super().__init__()
        self.hidden = hidden
        self.embed = nn.Embedding(vocab, dim)
        self.cell = nn.LSTMCell(dim, hidden)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        steps, batch = tokens.shape
        h = gg.zeros(batch, self.hidden)
        c = gg.zeros(batch, self.hidden)
        logits = []
        for t in range(steps):
            h, c = self.cell(self.embed(tokens[t]), (h, c))
            logits.append(self.head(h))
        return gg.stack(logits)


class CNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1),
            nn.BatchNorm2d(4),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(4, 8, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(8 * 2 * 2, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


class ActorCritic(nn.Module):
    def __init__(self, obs: int = 6, actions: int = 3, hidden: int = 16) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, hidden), nn.Tanh())
        self.policy_head = nn.Linear(hidden, actions)
        self.value_head = nn.Linear(hidden, 1)

    def forward(self, obs):
        features = self.body(obs)
        return self.policy_head(features), self.value_head(features).squeeze(-1)


@dataclass
class Run:
    """A model, its loss (or named loss terms), the forward log and the named parameters."""

    model: Any
    loss: Any
    log: ForwardLog
    params: dict
    terms: dict | None = None


def _record(model: Any, forward) -> tuple[Any, ForwardLog]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # anomaly mode's own warning
        with detect_anomaly(check_nan=False), record_forward(model) as log:
            result = forward()
    return result, log


def _language_model(model: Any, tokens_shape: tuple[int, int], seed: int) -> Run:
    # Next-token cross-entropy over random tokens of a vocabulary of 11.
    rng = np.random.default_rng(seed)
    tokens = gg.tensor(rng.integers(0, 11, tokens_shape))
    targets = gg.tensor(rng.integers(0, 11, (tokens_shape[0] * tokens_shape[1],)))

    def forward():
        logits = model(tokens)
        loss = F.cross_entropy(logits.reshape(-1, 11), targets)
        return loss

    loss, log = _record(model, forward)
    return Run(model, loss, log, dict(model.named_parameters()))


def transformer(seed: int = 0) -> Run:
    gg.manual_seed(seed)
    return _language_model(Transformer(), (2, 5), seed)


def lstm(steps: int = 50, seed: int = 0) -> Run:
    gg.manual_seed(seed)
    return _language_model(LSTMLanguageModel(), (steps, 2), seed)


def cnn(seed: int = 0) -> Run:
    rng = np.random.default_rng(seed)
    gg.manual_seed(seed)
    model = CNN()
    images = gg.tensor(rng.standard_normal((2, 1, 8, 8)).astype(np.float32))
    labels = gg.tensor(rng.integers(0, 10, (2,)))

    def forward():
        return F.cross_entropy(model(images), labels)

    loss, log = _record(model, forward)
    return Run(model, loss, log, dict(model.named_parameters()))


def ppo(seed: int = 0, detach_advantage: bool = False) -> Run:
    """PPO's loss with the classic bug: the advantage is not detached, so the policy term sends
    gradient into the value head (``detach_advantage=True`` is the fix)."""
    rng = np.random.default_rng(seed)
    gg.manual_seed(seed)
    model = ActorCritic()
    obs = gg.tensor(rng.standard_normal((8, 6)).astype(np.float32))
    actions = gg.tensor(rng.integers(0, 3, (8,)))
    returns = gg.tensor(rng.standard_normal(8).astype(np.float32))
    old_log_probs = gg.tensor(rng.standard_normal(8).astype(np.float32) - 1)

    def forward():
        logits, values = model(obs)
        log_probs = gg.log_softmax(logits, dim=-1).gather(1, actions[:, None]).squeeze(1)
        adv = returns - values
        if detach_advantage:
            adv = adv.detach()
        ratio = gg.exp(log_probs - old_log_probs)
        clipped = gg.clamp(ratio, 0.8, 1.2)
        policy_loss = -gg.minimum(ratio * adv, clipped * adv).mean()
        value_loss = (returns - values).pow(2).mean()
        return {"policy_loss": policy_loss, "value_loss": value_loss}

    terms, log = _record(model, forward)
    loss = terms["policy_loss"] + 0.5 * terms["value_loss"]
    return Run(model, loss, log, dict(model.named_parameters()), terms)
