"""A value learned in the engine (issue 83): self-play games inside poke-engine written as a
dataset (selfplay.py), the states read as the network reads them (dataset.py), the value network
(network.py) and its fitting (fit.py)."""
