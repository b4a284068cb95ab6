"""The daily challenge: one solo Board Game shuffle a day for everyone, a leaderboard, the
expert computer's score to beat and the coach's lessons (:mod:`.challenge`; its days and seeds
:mod:`.calendar`, its HTTP routes :mod:`.routes`, its rows ``storage/daily.py``)."""
