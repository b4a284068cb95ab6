"""One game on the server, a file per job (lila's round module): the game and its seats
(:mod:`.session`), the game in memory (:mod:`.game`), making moves and taking them back
(:mod:`.moves`), seats and tokens (:mod:`.seats`), the clients (:mod:`.clients`), telling them
(:mod:`.fanout`) and the placement preview (:mod:`.preview`)."""
