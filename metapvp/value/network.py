"""The value network over the engine's state (search-rs/src/encoding.rs lays the state out): each
Pokémon through one shared encoder (its ids embedded, each move with its PP and whether it is
disabled through a move encoder and summed, so the moves' order does not count, with its numbers),
each side its active Pokémon's code, the sum of its living bench's codes and the side's numbers
through a side encoder, and a head over (mine, theirs, field). Side one's chance to win is
sigmoid(head(one, two) - head(two, one)): swapping the sides turns p into 1 - p, the same from
either seat by construction. Only embeddings, linear layers, ReLU and sums, so that the crate can
evaluate it at the search's leaves (issue 83)."""
from __future__ import annotations

import torch
from torch import nn

# encoding.rs: per Pokémon, ids: species, item, ability, type one, type two, Tera type, status,
# four moves; numbers: its own (layout's pokemon_own_floats), then four moves' PP and four moves'
# disabled flags
MOVES = 4


class EngineValue(nn.Module):
    def __init__(self, layout: dict, width: int = 64, species: int = 32, small: int = 16, dropout: float = 0.0):
        super().__init__()
        # in training only (PyTorch's eval() and the crate's forward pass leave it out): against
        # learning the games by their teams, where a game's positions all share one outcome
        self.dropout = nn.Dropout(dropout)
        self.layout = dict(layout)
        self.width = width
        self.species = nn.Embedding(layout["species"], species)
        self.items = nn.Embedding(layout["items"], small)
        self.abilities = nn.Embedding(layout["abilities"], small)
        self.types = nn.Embedding(layout["types"], small // 2)
        self.statuses = nn.Embedding(layout["statuses"], small // 4)
        self.moves = nn.Embedding(layout["moves"], small)
        self.move = nn.Sequential(nn.Linear(small + 2, small), nn.ReLU())
        self.own = layout["pokemon_own_floats"]
        pokemon_in = species + 2 * small + 3 * (small // 2) + small // 4 + small + self.own
        self.pokemon = nn.Sequential(nn.Linear(pokemon_in, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.side = nn.Sequential(nn.Linear(2 * width + layout["side_floats"], width), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(2 * width + layout["field_floats"], width), nn.ReLU(),
                                  nn.Linear(width, 1))

    def split(self, ints: torch.Tensor, floats: torch.Tensor):
        """A batch of encoded states (rows of encoding.rs's INTS and FLOATS) as (ids [B, 2, 6,
        11], Pokémon numbers [B, 2, 6, 21], side numbers [B, 2, S], field numbers [B, F])."""
        L, B = self.layout, ints.shape[0]
        slots, pf, sf = L["slots"], L["pokemon_floats"], L["side_floats"]
        p = 2 * slots * pf
        return (ints.view(B, 2, slots, L["pokemon_ints"]), floats[:, :p].view(B, 2, slots, pf),
                floats[:, p:p + 2 * sf].view(B, 2, sf), floats[:, p + 2 * sf:])

    def encode_pokemon(self, ids: torch.Tensor, numbers: torch.Tensor) -> torch.Tensor:
        """[..., 11] ids and [..., 21] numbers -> [..., width]."""
        move_ids = ids[..., 7:7 + MOVES]
        own = self.own
        move_in = torch.cat([self.moves(move_ids), numbers[..., own:own + MOVES, None],
                             numbers[..., own + MOVES:own + 2 * MOVES, None]], -1)
        moves = self.move(move_in).sum(-2)
        x = torch.cat([self.species(ids[..., 0]), self.items(ids[..., 1]), self.abilities(ids[..., 2]),
                       self.types(ids[..., 3:6]).flatten(-2), self.statuses(ids[..., 6]), moves,
                       numbers[..., :own]], -1)
        return self.pokemon(self.dropout(x))

    def sides(self, ints: torch.Tensor, floats: torch.Tensor):
        """Each side's code [B, 2, width] and the field's numbers [B, F]."""
        ids, pokemon, side, field = self.split(ints, floats)
        codes = self.encode_pokemon(ids, pokemon)              # [B, 2, 6, width]
        alive = pokemon[:, :, 1:, :1]                         # a fainted Pokémon on the bench counts for nothing
        active, bench = codes[:, :, 0], (codes[:, :, 1:] * alive).sum(2)
        return self.dropout(self.side(torch.cat([active, bench, side], -1))), field

    def forward(self, ints: torch.Tensor, floats: torch.Tensor) -> torch.Tensor:
        """Side one's log-odds of winning, [B]."""
        s, field = self.sides(ints, floats)
        one, two = s[:, 0], s[:, 1]
        return (self.head(torch.cat([one, two, field], -1)) - self.head(torch.cat([two, one, field], -1))).squeeze(-1)
