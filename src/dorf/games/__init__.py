"""The three games' flows on top of the rules core: seats, the cooperative game, the Duel, Head to Head."""
