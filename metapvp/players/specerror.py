"""The one error of a player spec that names nothing playable: a malformed spec, a setting out
of its range or retired, a model that is not there. Its message names the spec and the part of
it that is wrong. (Its own module: the settings' parsers and the spec's reader both raise it.)"""


class SpecError(ValueError):
    """A player spec that names nothing loadable, or a search setting out of its range."""
