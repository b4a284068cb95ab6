"""dorf: the Dorfromantik board games."""
