"""The policy network for doubles contracts (doubles-v1): PolicyNet's embeddings and per-Pokemon
encoder, a torso over the four Pokemon in play, and a head per position over its 127 actions
(js/src/doubles.js): each move slot scored against each target -- the foe's left and right, our
ally, itself, or none -- with each gimmick, each switch against the Pokemon it brings in, and
pass. The joint action's logit is the sum of the two positions' (a product policy, restricted to
the pairs the contract's mask allows, and so renormalised over them). Where the contract has the
doubles battle knowledge (doubles-v2), each (move, target) also reads its damage with every
gimmick, and each switch what the Pokemon brought in deals and is threatened with."""
from __future__ import annotations

import torch
from torch import Tensor, nn

from metapvp.models.network import PolicyNet, mlp

POSITIONS = 2
TARGETS = 5          # none, foe left, foe right, ally, self (the order of js/src/doubles.js)
MOVE_EXTRA = 4       # per (move, target): immune, log2 effectiveness, STAB, expected power
KNOWLEDGE = ("doubles.move_damage", "doubles.threat", "doubles.best_hit")
SWITCH_KNOWLEDGE = 3  # per switch: its best hit on a foe in play, each foe's threat to it


class DoublesPolicyNet(PolicyNet):
    # the position each Pokemon stands in is one more of its floats
    extra_pokemon_floats = ("pokemon.position",)

    def build_heads(self, contract, d: int, h: int):
        self.position_actions = contract.head_sizes[0]
        self.num_gimmicks = (self.position_actions - 7) // (4 * TARGETS)
        if (self.position_actions * contract.head_sizes[1] != self.num_actions
                or self.num_gimmicks * 4 * TARGETS + 7 != self.position_actions):
            raise ValueError(f"contract {contract.name}: its action heads are not the doubles table's")
        self.torso = nn.Sequential(nn.Linear(7 * d, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU())
        self.no_target = nn.Parameter(torch.zeros(d))
        self.doubles_knowledge = all(n in contract.by_name for n in KNOWLEDGE)
        # per (move, target): [expected, ko chance] with each gimmick
        move_k = self.num_gimmicks * 2 if self.doubles_knowledge else 0
        switch_k = SWITCH_KNOWLEDGE if self.doubles_knowledge else 0
        self.move_head = mlp(h + 3 * d + MOVE_EXTRA + move_k, h, self.num_gimmicks)
        self.switch_head = mlp(h + 2 * d + switch_k, h, 1)
        self.pass_head = mlp(h + d, h, 1)
        self.critic = mlp(h + 2 * d + 1, h, 1)

    def target_damage(self, obs: dict[str, Tensor], k: int) -> Tensor:
        """(B, 4, 5 targets, G * 2): position k's damage rows per move and target -- none (a
        spread move: both foes' expected damage summed, the surer knockout), foe left, foe right,
        ally, self (none)."""
        d = obs["doubles.move_damage"][:, k].float()                            # (B, 4, G, 3, 2)
        spread = torch.stack([d[..., :2, 0].sum(-1), d[..., :2, 1].amax(-1)], -1)   # (B, 4, G, 2)
        rows = torch.stack([spread, d[..., 0, :], d[..., 1, :], d[..., 2, :], torch.zeros_like(spread)], 2)
        return rows.flatten(3)                                                  # (B, 4, 5, G * 2)

    def forward(self, obs: dict[str, Tensor], priv: dict[str, Tensor] | None = None
                ) -> tuple[Tensor, Tensor, Tensor]:
        """-> masked joint logits (B, 127 * 127), value (B,), win logit (B,)."""
        b = obs["pokemon.species"].shape[0]
        per_id = self.move_table_vectors()
        mons, present = self.pokemon_vectors(obs, per_id)                       # (B, 2, 6, d)
        where = obs["pokemon.position"].float()                                 # (B, 2, 6, 2)
        standing = torch.einsum("bsjp,bsjd->bspd", where, mons)                 # (B, 2 sides, 2 positions, d)
        pooled = mons.sum(2) / present.sum(2).clamp(min=1.0).unsqueeze(-1)
        g = (self.global_in(self.global_norm(self.global_floats_of(obs)))
             + self.gen(obs["battle.gen"].long().reshape(b))
             + self.weather(obs["field.weather"].long().reshape(b))
             + self.terrain(obs["field.terrain"].long().reshape(b)))
        z = self.torso(torch.cat([g, standing.reshape(b, -1), pooled[:, 0], pooled[:, 1]], -1))

        # each position's targets: none, the foe's two positions, our other position, itself
        types = obs["pokemon.types"].long()                                     # (B, 2, 6, 2)
        row_at = where.argmax(2)                                                # (B, 2, 2): the row in each position
        types_at = torch.gather(types, 2, row_at.unsqueeze(-1).expand(b, 2, POSITIONS, 2))  # (B, 2, 2, 2)
        own_moves = obs["pokemon.moves"][:, 0].long()                           # (B, 6, 4)
        own_pp = obs["pokemon.move_pp"][:, 0].float()
        table = self.move_table[own_moves[:, :POSITIONS]]                       # (B, 2, 4, T)
        move_types = table[..., self.col_type].long()
        power = table[..., self.col_power] * table[..., self.col_accuracy]
        position_logits = []
        for k in range(POSITIONS):
            own = standing[:, 0, k]
            target_vecs = torch.stack([self.no_target.expand(b, -1), standing[:, 1, 0], standing[:, 1, 1],
                                       standing[:, 0, 1 - k], own], 1)         # (B, 5, d)
            target_types = torch.stack([types_at[:, 1, 0], types_at[:, 1, 0], types_at[:, 1, 1],
                                        types_at[:, 0, 1 - k], types_at[:, 0, k]], 1)   # (B, 5, 2)
            eff = self.type_chart[move_types[:, k].unsqueeze(2).unsqueeze(-1),
                                  target_types.unsqueeze(1)].prod(-1)           # (B, 4, 5)
            stab = (move_types[:, k].unsqueeze(-1) == types[:, 0, k].unsqueeze(1)).any(-1).float()  # (B, 4)
            extra = torch.stack([(eff == 0).float(), torch.log2(eff.clamp(min=0.25)) / 2,
                                 stab.unsqueeze(-1).expand(b, 4, TARGETS),
                                 power[:, k].unsqueeze(-1) * eff * (1.0 + 0.5 * stab.unsqueeze(-1))], -1)
            if self.doubles_knowledge:
                extra = torch.cat([extra, self.target_damage(obs, k)], -1)
            move_vecs = self.move_vectors(per_id, own_moves[:, k], own_pp[:, k])   # (B, 4, d)
            inputs = torch.cat([z[:, None, None].expand(b, 4, TARGETS, z.shape[-1]),
                                own[:, None, None].expand(b, 4, TARGETS, own.shape[-1]),
                                move_vecs.unsqueeze(2).expand(b, 4, TARGETS, move_vecs.shape[-1]),
                                target_vecs.unsqueeze(1).expand(b, 4, TARGETS, target_vecs.shape[-1]), extra], -1)
            moves = self.move_head(inputs).reshape(b, -1)                       # (B, 4 * 5 * G)
            switch_in = [z.unsqueeze(1).expand(b, 6, z.shape[-1]), own.unsqueeze(1).expand(b, 6, own.shape[-1]),
                         mons[:, 0]]
            if self.doubles_knowledge:
                switch_in += [obs["doubles.best_hit"].float().unsqueeze(-1),
                              obs["doubles.threat"].float().transpose(1, 2)]
            switches = self.switch_head(torch.cat(switch_in, -1))
            passes = self.pass_head(torch.cat([z, own], -1))
            position_logits.append(torch.cat([moves, switches.squeeze(-1), passes], -1))   # (B, 127)
        joint = (position_logits[0].unsqueeze(2) + position_logits[1].unsqueeze(1)).reshape(b, -1)
        logits = joint.masked_fill(obs["action.mask"] == 0, -3.0e38)

        if priv is not None:
            own_side: dict[str, Tensor] = {n: priv[n][:, :1] for n in self.pokemon_inputs}
            pm, pp = self.pokemon_vectors(own_side, per_id)
            foe_team = pm[:, 0].sum(1) / pp[:, 0].sum(1).clamp(min=1.0).unsqueeze(-1)
            foe_standing = torch.einsum("bjp,bjd->bd", priv["pokemon.position"][:, 0].float(), pm[:, 0]) / POSITIONS
            has = torch.ones(b, 1, device=z.device)
        else:
            foe_team = torch.zeros_like(pooled[:, 0])
            foe_standing = torch.zeros_like(pooled[:, 0])
            has = torch.zeros(b, 1, device=z.device)
        value = self.critic(torch.cat([z, foe_team, foe_standing, has], -1)).squeeze(-1)
        return logits, value, self.win_head(z).squeeze(-1)
