"""The rules core: hex geometry, terrains, tiles, tasks, the play area and scoring.

Standard library only; everything else in dorf depends on this package, never the reverse.
"""
