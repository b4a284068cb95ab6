"""The server's tables, the same on SQLite and PostgreSQL: their migration steps, in order, applied
by the one :func:`dorf.db.migrate` on both databases.  A shipped step never changes (its text is
pinned by ``tests/server/test_migrations_pinned.py``): a change of the tables is a new step at
the end.  How a game is read and written is :mod:`.games`.
"""

from __future__ import annotations

from dorf.server.storage.admin import ADMIN_STEP
from dorf.server.storage.campaigns import SCHEMA_STEP as CAMPAIGN_STEP
from dorf.server.storage.daily import LESSONS_STEP
from dorf.server.storage.daily import SCHEMA_STEP as DAILY_STEP
from dorf.server.storage.lobby import ADDRESS_STEP as LOBBY_ADDRESS_STEP
from dorf.server.storage.lobby import SCHEMA_STEP as LOBBY_STEP
from dorf.server.storage.people import COUNTED_STEP, NAMES_STEP, TOKENS_STEP
from dorf.server.storage.people import SCHEMA_STEP as PLAYERS_STEP
from dorf.server.storage.talk import TALK_STEP

SCHEMA: tuple[str, ...] = (
    """
    CREATE TABLE server_game (
        id TEXT PRIMARY KEY,
        mode TEXT NOT NULL CHECK (mode IN ('coop', 'duel', 'head-to-head')),
        tileset TEXT NOT NULL,
        seed BIGINT NOT NULL,
        undo INTEGER NOT NULL DEFAULT 0 CHECK (undo IN (0, 1)),
        created TEXT NOT NULL,
        updated TEXT NOT NULL,
        finished INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1))
    );
    CREATE TABLE server_seat (
        game_id TEXT NOT NULL REFERENCES server_game (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL CHECK (seat >= 0),
        kind TEXT NOT NULL CHECK (kind IN ('here', 'online', 'computer')),
        name TEXT NOT NULL,
        player TEXT,
        token_hash TEXT,
        invite_hash TEXT,
        PRIMARY KEY (game_id, seat)
    );
    CREATE TABLE server_decision (
        game_id TEXT NOT NULL REFERENCES server_game (id) ON DELETE CASCADE,
        number INTEGER NOT NULL CHECK (number >= 1),
        seat INTEGER NOT NULL,
        decision TEXT NOT NULL,
        made TEXT NOT NULL,
        PRIMARY KEY (game_id, number)
    );
    CREATE INDEX server_game_by_finished ON server_game (finished, updated)
    """,
    """
    ALTER TABLE server_game ADD COLUMN practice INTEGER NOT NULL DEFAULT 0 CHECK (practice IN (0, 1));
    ALTER TABLE server_game ADD COLUMN first INTEGER NOT NULL DEFAULT 1 CHECK (first >= 1)
    """,
    # Whoever created the game chose its seed.  Games stored before this step cannot say; a
    # seed below 2**32 was typed in, or drawn by the first server (random.randrange(1, 2**31):
    # not secret either), while one that secrets drew (63 bits) is below 2**32 once in 2**31.
    """
    ALTER TABLE server_game ADD COLUMN seed_chosen INTEGER NOT NULL DEFAULT 0 CHECK (seed_chosen IN (0, 1));
    UPDATE server_game SET seed_chosen = 1 WHERE seed < 4294967296
    """,
    # Several servers on one database (PostgreSQL): each game's version, the compare-and-set
    # that orders its changes; the key a client gave a move (made once, however often sent);
    # which server thinks for its computer seats, until when; the servers alive, their
    # clients, and the requests counted by the creation limits.
    """
    ALTER TABLE server_game ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
    UPDATE server_game
        SET version = (SELECT count(*) FROM server_decision d WHERE d.game_id = server_game.id);
    ALTER TABLE server_game ADD COLUMN thinker TEXT;
    ALTER TABLE server_game ADD COLUMN think_until DOUBLE PRECISION;
    ALTER TABLE server_decision ADD COLUMN key TEXT;
    CREATE TABLE server_instance (id TEXT PRIMARY KEY, seen DOUBLE PRECISION NOT NULL);
    CREATE TABLE server_client (
        instance TEXT NOT NULL,
        id BIGINT NOT NULL,
        address TEXT NOT NULL,
        game_id TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('watching', 'playing')),
        PRIMARY KEY (instance, id)
    );
    CREATE INDEX server_client_by_address ON server_client (address);
    CREATE INDEX server_client_by_game ON server_client (game_id);
    CREATE TABLE server_hit (key TEXT NOT NULL, at DOUBLE PRECISION NOT NULL);
    CREATE INDEX server_hit_by_key ON server_hit (key, at)
    """,
    # The lobby (issue 31): open games waiting for people, and the seeks of quick pairing.
    LOBBY_STEP,
    # Players and ratings (issue 31): players, their sessions, passwords, API tokens, ratings
    # and rating history; which player holds a seat, and whether a game is rated.
    PLAYERS_STEP,
    # Clocks (issue 31): a game's clock ("5+3", "3d"), its state as of the last change, the
    # earliest deadline of its running seats (seconds since 1970: the timers read the unfinished
    # games' at start), and how it ended if not by its last decision (time, resign, aborted).
    """
    ALTER TABLE server_game ADD COLUMN clock TEXT;
    ALTER TABLE server_game ADD COLUMN clock_state TEXT;
    ALTER TABLE server_game ADD COLUMN deadline DOUBLE PRECISION;
    ALTER TABLE server_game ADD COLUMN end_reason TEXT CHECK (end_reason IN ('time', 'resign', 'aborted'));
    ALTER TABLE server_game ADD COLUMN end_winner INTEGER;
    CREATE INDEX server_game_by_deadline ON server_game (finished, deadline)
    """,
    # The daily challenge (issue 32): the seeds' secret, the days, the counted attempts; the
    # rating leaderboards' index; a game's day if it is one of the challenge's shuffles.
    DAILY_STEP,
    # The lobby's doors (issue 60): the address an open game was listed from, so that an
    # address lists a bounded number of open games at once.
    LOBBY_ADDRESS_STEP,
    # API tokens listed and revoked (issue 60): each token's id, label and when it was last used.
    TOKENS_STEP,
    # The coach's lessons of any finished game, kept once computed (issue 60).
    LESSONS_STEP,
    # Rated results past the day's limit between two players, recorded but not counted (issue 60).
    COUNTED_STEP,
    # Players made when needed and swept if they never play; names told apart by their skeletons
    # (the keys computed again), a name given up held a while (issue 60).
    NAMES_STEP,
    # Administration (issue 64): bans, one-time sign-in links, the administration log.
    ADMIN_STEP,
    # Table talk (issue 63): the messages a game's seated players say, kept with the game.
    TALK_STEP,
    # The group's campaigns on the site (issue 63): campaigns with their members, games, track and
    # the seats of their next game, in the server's own database (before, in a SQLite file apart).
    CAMPAIGN_STEP,
)
