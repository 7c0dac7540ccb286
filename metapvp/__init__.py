"""metapvp: train and evaluate PyTorch agents for Pokemon Showdown."""
from pathlib import Path

__version__ = "0.1.0"
ROOT = Path(__file__).resolve().parent.parent
