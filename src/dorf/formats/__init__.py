"""Text formats: the ``dorf-board/1`` board notation and the ``dorf-record/1`` game record."""
