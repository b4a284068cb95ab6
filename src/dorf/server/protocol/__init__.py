"""What goes over the wire: the client's messages read strictly and the server's written
(:mod:`.messages`), a game's description (:mod:`.describe`, :mod:`.views`), deltas
(:mod:`.delta`) and compact JSON (:mod:`.wire`)."""
