"""The computer seats: the pool of workers (:mod:`.pool`) that think (:mod:`.thinking`), give
the coach's hints (:mod:`.hints`) and replay records (:mod:`.replay`), and the seats that use
them (:mod:`.seats`)."""
