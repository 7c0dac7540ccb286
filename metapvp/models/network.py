"""The policy network: embeddings shared by both sides, a per-Pokemon encoder, team pooling, a
pointer-style action head, and value and win-probability heads.

Every action is scored against its own representation: move i against own active Pokemon's move
i (with its type effectiveness on the foe's active Pokemon), switch j against own Pokemon j. The
contract's mask is applied to the logits, so an illegal action has probability exactly 0.

The critic may read privileged input (the opponent's true team, which only self-play knows);
the actor and the win head never do, so playing needs nothing a player could not see.

The module is TorchScript-compatible and exports with torch.export (batch dimension dynamic):
forward takes a Dict[str, Tensor] of contract features."""
from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

PRESETS = {
    "small": {"dim": 64, "hidden": 128},
    "medium": {"dim": 128, "hidden": 256},
    "large": {"dim": 256, "hidden": 512},
}
GLOBAL_FLOATS = ("battle.turn", "battle.request", "field.pseudo_weather", "side.conditions",
                 "side.counts", "side.gimmicks_used", "active.volatiles")
POKEMON_FLOATS = ("pokemon.hp", "pokemon.level", "pokemon.base_stats", "pokemon.stats",
                  "pokemon.boosts", "pokemon.flags")
POKEMON_IDS = ("pokemon.species", "pokemon.item", "pokemon.ability", "pokemon.tera_type", "pokemon.types",
               "pokemon.status", "pokemon.moves", "pokemon.move_pp")
MOVE_EXTRA = 5   # per move slot: immune, log2 effectiveness, STAB, expected power, pp
SWITCH_EXTRA = 2  # per switch slot: its best move's effectiveness, the foe's on it
# Battle knowledge (contract singles-v2 and later), where the contract has it: per move slot its
# damage with each gimmick and whether it moves first; per switch slot what it deals, what it takes
# and whether it outspeeds; the foe's candidate moves and their damage on our active Pokemon.
KNOWLEDGE = ("move.damage", "move.first", "switch.dealt", "switch.taken", "switch.first",
             "foe.moves", "foe.move_prob", "foe.move_damage", "foe.possible_moves",
             "foe.possible_move_prob", "foe.stats")


def width(contract, names, skip: int) -> int:
    """Floats per entity: the features' sizes without their first `skip` dimensions."""
    total = 0
    for n in names:
        size = 1
        for dim in contract.by_name[n].shape[skip:]:
            size *= dim
        total += size
    return total


class RunningNorm(nn.Module):
    """Running mean and variance of a feature vector (the observation-normalisation statistics
    saved in model files); updated by the trainer, applied in forward."""

    def __init__(self, size: int):
        super().__init__()
        self.register_buffer("mean", torch.zeros(size))
        self.register_buffer("var", torch.ones(size))
        self.register_buffer("count", torch.tensor(1e-4, dtype=torch.float64))

    @torch.jit.ignore
    def update(self, x: Tensor):
        x = x.reshape(-1, x.shape[-1]).double()
        n, mean, var = x.shape[0], x.mean(0), x.var(0, unbiased=False)
        total = self.count + n
        delta = mean - self.mean.double()
        new_mean = self.mean.double() + delta * n / total
        m2 = self.var.double() * self.count + var * n + delta ** 2 * self.count * n / total
        self.mean.copy_(new_mean.float())
        self.var.copy_((m2 / total).float())
        self.count.copy_(total)

    def forward(self, x: Tensor) -> Tensor:
        return ((x - self.mean) / torch.sqrt(self.var + 1e-6)).clamp(-5.0, 5.0)


def mlp(inp: int, hidden: int, out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inp, hidden), nn.ReLU(), nn.Linear(hidden, out))


class PolicyNet(nn.Module):
    # per-Pokemon floats a subclass reads beside POKEMON_FLOATS (doubles: the position it stands in)
    extra_pokemon_floats: tuple[str, ...] = ()

    def __init__(self, contract, preset: str = "small", move_table: Tensor | None = None,
                 type_chart: Tensor | None = None):
        super().__init__()
        if preset not in PRESETS:
            raise ValueError(f"unknown model preset {preset!r} (known: {', '.join(PRESETS)})")
        d, h = PRESETS[preset]["dim"], PRESETS[preset]["hidden"]
        self.preset = preset
        v = {name: len(ids) for name, ids in contract.vocabs.items()}
        self.num_actions = contract.num_actions
        self.num_gimmicks = contract.head_sizes[1]
        # columns read by name, so that a contract that reorders them is still read right
        self.col_present = contract.column("pokemon.flags", "present")
        self.col_active = contract.column("pokemon.flags", "active")
        self.col_power = contract.table_column("moves", "base_power")
        self.col_accuracy = contract.table_column("moves", "accuracy")
        self.col_type = contract.table_column("moves", "type")
        self.knowledge = all(n in contract.by_name for n in KNOWLEDGE)
        self.col_foe_expected = contract.column("foe.move_damage", "expected") if self.knowledge else 0
        # Static dex data (see js/src/dextables.js), saved with the weights.
        n_table = len(contract.tables["moves"]["columns"])
        self.register_buffer("move_table", move_table if move_table is not None else torch.zeros(v["moves"], n_table))
        self.register_buffer("type_chart", type_chart if type_chart is not None else torch.ones(v["types"], v["types"]))
        self.species = nn.Embedding(v["species"], d)
        self.items = nn.Embedding(v["items"], d)
        self.abilities = nn.Embedding(v["abilities"], d)
        self.types = nn.Embedding(v["types"], d)
        self.status = nn.Embedding(v["status"], d)
        self.moves = nn.Embedding(v["moves"], d)
        self.weather = nn.Embedding(v["weather"], d)
        self.terrain = nn.Embedding(v["terrain"], d)
        self.gen = nn.Embedding(10, d)
        self.side = nn.Embedding(2, d)
        self.move_static = nn.Linear(self.move_table.shape[1] - 1 + 1, d)  # table (type id apart) + pp
        self.global_floats: list[str] = list(GLOBAL_FLOATS)
        self.pokemon_floats: list[str] = list(POKEMON_FLOATS) + list(self.extra_pokemon_floats)
        self.pokemon_inputs: list[str] = list(POKEMON_IDS) + self.pokemon_floats
        self.global_width = width(contract, GLOBAL_FLOATS, 0)
        self.pokemon_width = width(contract, self.pokemon_floats, 2)
        self.global_norm = RunningNorm(self.global_width)
        self.pokemon_norm = RunningNorm(self.pokemon_width)
        self.global_in = nn.Linear(self.global_width, d)
        self.pokemon_in = nn.Linear(self.pokemon_width, d)
        self.pokemon_mlp = nn.Sequential(nn.LayerNorm(d), mlp(d, h, d))
        self.win_head = nn.Linear(h, 1)
        self.build_heads(contract, d, h)

    def build_heads(self, contract, d: int, h: int):
        """The torso over the Pokemon in play and the action and value heads (a doubles network
        builds its own)."""
        move_k = switch_k = foe_k = 0
        if self.knowledge:
            move_k = width(contract, ("move.damage", "move.first"), 1)        # per move slot
            switch_k = width(contract, ("switch.dealt", "switch.taken", "switch.first"), 1)
            # the foe's candidate moves: probability and damage on our active Pokemon
            foe_k = contract.by_name["foe.move_prob"].shape[0] * (1 + contract.by_name["foe.move_damage"].shape[-1])
        self.torso = nn.Sequential(nn.Linear(5 * d, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU())
        self.move_head = mlp(h + d + MOVE_EXTRA + move_k, h, self.num_gimmicks)
        self.switch_head = mlp(h + d + SWITCH_EXTRA + switch_k, h, self.num_gimmicks)
        # (identities where the contract has no knowledge, so that v1 model files load as before)
        self.knowledge_in = nn.Linear(foe_k, d) if self.knowledge else nn.Identity()
        self.foe_stats_in = nn.Linear(6, d) if self.knowledge else nn.Identity()
        self.critic = mlp(h + 2 * d + 1, h, 1)

    # --- encoders -------------------------------------------------------------------------
    def global_floats_of(self, obs: dict[str, Tensor]) -> Tensor:
        b = obs["pokemon.species"].shape[0]
        return torch.cat([obs[n].float().reshape(b, -1) for n in self.global_floats], -1)

    def pokemon_floats_of(self, obs: dict[str, Tensor]) -> Tensor:
        b, sides = obs["pokemon.species"].shape[0], obs["pokemon.species"].shape[1]
        return torch.cat([obs[n].float().reshape(b, sides, 6, -1) for n in self.pokemon_floats], -1)

    @torch.jit.ignore
    def update_norms(self, obs: dict[str, Tensor]):
        """Folds a batch of observations into the observation-normalisation statistics."""
        self.global_norm.update(self.global_floats_of(obs))
        self.pokemon_norm.update(self.pokemon_floats_of(obs))

    def move_table_vectors(self) -> Tensor:
        """(V, d): every move id's vector without its pp term -- its embedding, its type's and
        move_static of its table row -- computed over the vocabulary once per forward, so the
        linear layer runs over ~1k table rows instead of over every move slot of the batch."""
        table = self.move_table
        t = self.col_type
        static = torch.cat([table[:, :t], table[:, t + 1:]], -1)
        return (self.moves.weight + self.types(table[:, t].long())
                + F.linear(static, self.move_static.weight[:, :-1], self.move_static.bias))

    def move_vectors(self, per_id: Tensor, moves: Tensor, pp: Tensor) -> Tensor:
        """(..., 4) move ids and pp fractions -> (..., 4, d)."""
        return F.embedding(moves, per_id) + pp.unsqueeze(-1) * self.move_static.weight[:, -1]

    def pokemon_vectors(self, obs: dict[str, Tensor], per_id: Tensor) -> tuple[Tensor, Tensor]:
        """-> per-Pokemon vectors (B, S, 6, d) and presence (B, S, 6), for the first S sides the
        pokemon.* features hold (each Pokemon is encoded on its own)."""
        floats = self.pokemon_floats_of(obs)
        b, sides = floats.shape[0], floats.shape[1]
        # the mean of the known moves' vectors, summed by embedding_bag without materialising
        # a vector per move slot
        moves = obs["pokemon.moves"].long().reshape(-1, 4)
        pp = obs["pokemon.move_pp"].float().reshape(-1, 4)
        known = (moves > 2).float()
        summed = F.embedding_bag(moves, per_id, per_sample_weights=known, mode="sum")
        summed = summed + (pp * known).sum(-1, keepdim=True) * self.move_static.weight[:, -1]
        moves_pooled = (summed / known.sum(-1, keepdim=True).clamp(min=1.0)).reshape(b, sides, 6, -1)
        side = self.side(torch.arange(sides, device=floats.device)).reshape(1, sides, 1, -1)
        x = (self.species(obs["pokemon.species"].long()) + self.items(obs["pokemon.item"].long())
             + self.abilities(obs["pokemon.ability"].long()) + self.types(obs["pokemon.tera_type"].long())
             + self.types(obs["pokemon.types"].long()).sum(-2) + self.status(obs["pokemon.status"].long())
             + self.pokemon_in(self.pokemon_norm(floats)) + moves_pooled + side)
        if self.knowledge and sides == 2:
            # what the foe's Pokemon can still have, and their likely stats
            possible = obs["foe.possible_moves"].long().reshape(b * 6, -1)
            prob = obs["foe.possible_move_prob"].float().reshape(b * 6, -1)
            known = possible > 2
            pooled = F.embedding_bag(possible.clamp(min=0), per_id, per_sample_weights=prob * known.float(), mode="sum")
            foe_extra = pooled.reshape(b, 6, -1) + self.foe_stats_in(obs["foe.stats"].float())
            x = torch.cat([x[:, :1], x[:, 1:] + foe_extra.unsqueeze(1)], 1)
        present = obs["pokemon.flags"][..., self.col_present].float()
        return self.pokemon_mlp(x) * present.unsqueeze(-1), present

    def effectiveness(self, attack_types: Tensor, defend_types: Tensor) -> Tensor:
        """Type multiplier of attacking type ids (B, ...) against defenders' two types (B, 2)."""
        shape = attack_types.shape
        flat = attack_types.reshape(shape[0], -1)
        m = self.type_chart[flat.unsqueeze(-1), defend_types.unsqueeze(1)].prod(-1)
        return m.reshape(shape)

    # --- forward --------------------------------------------------------------------------
    def forward(self, obs: dict[str, Tensor], priv: dict[str, Tensor] | None = None
                ) -> tuple[Tensor, Tensor, Tensor]:
        """-> masked logits (B, num_actions), value (B,), win logit (B,)."""
        b = obs["pokemon.species"].shape[0]
        per_id = self.move_table_vectors()
        mons, present = self.pokemon_vectors(obs, per_id)
        flags = obs["pokemon.flags"].float()
        # own row 0 is the active Pokemon; the foe's active one is flagged
        own_active = mons[:, 0, 0]
        foe_active_w = flags[:, 1, :, self.col_active]
        # the first flagged row only: a log that puts two of the foe's Pokemon in play (a
        # doubles battle read as singles) must not add up their type ids
        foe_active_w = foe_active_w * (foe_active_w.cumsum(1) <= 1)
        foe_active = (mons[:, 1] * foe_active_w.unsqueeze(-1)).sum(1)
        pooled = mons.sum(2) / present.sum(2).clamp(min=1.0).unsqueeze(-1)
        g = (self.global_in(self.global_norm(self.global_floats_of(obs)))
             + self.gen(obs["battle.gen"].long().reshape(b))
             + self.weather(obs["field.weather"].long().reshape(b))
             + self.terrain(obs["field.terrain"].long().reshape(b)))
        if self.knowledge:
            foe_moves = torch.cat([obs["foe.move_prob"].float(),
                                   obs["foe.move_damage"][:, :, self.col_foe_expected].float().reshape(b, -1)], -1)
            g = g + self.knowledge_in(foe_moves)
        z = self.torso(torch.cat([g, own_active, foe_active, pooled[:, 0], pooled[:, 1]], -1))

        foe_types = (obs["pokemon.types"][:, 1].long() * foe_active_w.long().unsqueeze(-1)).sum(1)  # (B, 2)
        own_types = obs["pokemon.types"][:, 0].long()                                                # (B, 6, 2)
        own_moves = obs["pokemon.moves"][:, 0].long()                                                # (B, 6, 4)
        table = self.move_table[own_moves]                                                           # (B, 6, 4, T)
        move_types = table[..., self.col_type].long()
        eff = self.effectiveness(move_types, foe_types)                                              # (B, 6, 4)
        stab = (move_types.unsqueeze(-1) == own_types.unsqueeze(2)).any(-1).float()
        power = table[..., self.col_power] * table[..., self.col_accuracy] * eff * (1.0 + 0.5 * stab)
        # moves of the active Pokemon
        move_extra = torch.stack([(eff[:, 0] == 0).float(), torch.log2(eff[:, 0].clamp(min=0.25)) / 2,
                                  stab[:, 0], power[:, 0], obs["pokemon.move_pp"][:, 0, 0].float()], -1)
        if self.knowledge:
            move_extra = torch.cat([move_extra, obs["move.damage"].float().reshape(b, 4, -1),
                                    obs["move.first"].float().unsqueeze(-1)], -1)
        zm = z.unsqueeze(1).expand(b, 4, z.shape[-1])
        active_moves = self.move_vectors(per_id, own_moves[:, 0], obs["pokemon.move_pp"][:, 0, 0].float())
        move_logits = self.move_head(torch.cat([zm, active_moves, move_extra], -1))             # (B, 4, G)
        # switches: own Pokemon j, how hard it hits the foe and how hard the foe's types hit it
        foe_hits = self.type_chart[foe_types.unsqueeze(1).unsqueeze(-1), own_types.unsqueeze(2)]  # (B,6,2,2)
        foe_hits = foe_hits.prod(-1).max(-1).values
        switch_extra = torch.stack([power.max(-1).values, torch.log2(foe_hits.clamp(min=0.25)) / 2], -1)
        if self.knowledge:
            switch_extra = torch.cat([switch_extra, obs["switch.dealt"].float(), obs["switch.taken"].float(),
                                      obs["switch.first"].float().unsqueeze(-1)], -1)
        zs = z.unsqueeze(1).expand(b, 6, z.shape[-1])
        switch_logits = self.switch_head(torch.cat([zs, mons[:, 0], switch_extra], -1))         # (B, 6, G)
        logits = torch.cat([move_logits, switch_logits], 1).reshape(b, self.num_actions)
        illegal = obs["action.mask"] == 0
        logits = logits.masked_fill(illegal, -3.0e38)  # exp() of it is exactly 0

        if priv is not None:
            # only side 0 of the opponent's record, its own team, is read: the rest is not encoded
            own_side: dict[str, Tensor] = {}
            for n in self.pokemon_inputs:
                own_side[n] = priv[n][:, :1]
            pm, pp = self.pokemon_vectors(own_side, per_id)
            foe_team = pm[:, 0].sum(1) / pp[:, 0].sum(1).clamp(min=1.0).unsqueeze(-1)
            foe_true_active = pm[:, 0, 0]
            has = torch.ones(b, 1, device=z.device)
        else:
            foe_team = torch.zeros_like(own_active)
            foe_true_active = torch.zeros_like(own_active)
            has = torch.zeros(b, 1, device=z.device)
        value = self.critic(torch.cat([z, foe_team, foe_true_active, has], -1)).squeeze(-1)
        win = self.win_head(z).squeeze(-1)
        return logits, value, win


def to_tensors(obs: dict, device="cpu") -> dict[str, Tensor]:
    """The network's input: a batch of contract features (numpy arrays) as tensors."""
    return {k: torch.as_tensor(np.ascontiguousarray(v), device=device) for k, v in obs.items()}
