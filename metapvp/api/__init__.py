"""The move API: a trained model answering requests from clients that track battles themselves."""
