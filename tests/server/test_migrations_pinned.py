"""The migration steps as shipped never change (issue 62): a database made by an older dorf has run
them, so a step edited afterwards would leave its tables unlike a new database's.  A change to the
tables is a new step at the end; these hashes pin every step up to the current last one (SHA-256
of its exact text), and a new step gets its hash added here."""

from __future__ import annotations

import hashlib

import pytest

from dorf.campaign.store import SCHEMA as CAMPAIGN
from dorf.server.storage.schema import SCHEMA as SERVER

#: The server's steps: 1 to 8 shipped in 3d3af14, 9 to 13 added by issues 60 and 61.
SERVER_STEPS = (
    "37962bcb8de24683925d467f1ccfb3caebbbab4a2b3c9691307d1df384e68956",
    "e4592702be94874a0463b3f11005fdfcfb969f7ea55c472d02d4d12501e2b194",
    "fdfe23dff006fbc7f595519064efe2ada242886dcfc64189636771a162f8fef8",
    "d0f82ec54b81415b202abf909db5d92bc97e1ddabcfc91d0ff530b1c4de89044",
    "688bbe1c3b8e323dbc90040953e4d70d9e19a91a5637b0ec4c22dee34bde37cc",
    "9e501ca4113f37ea33636bcbcb5754dac1a3db51cdb584f1e0764d0709db931c",
    "68d8121739251e8836a654bd3afe8cc11133602825a4fbb9fd461662d42bd6be",
    "6d0afbdf29b1b89e32de31dd55629c4c917403d29521b15126fc09f483c1a06b",
    "8df1885630ed710d748d92e3fc3e005b2472ffca50d2bbeb49fdd936a744c51c",
    "8fe4ae49f912be6bdb13186e27d7ba72356ce7d4a44d31260c7add166ca9fcf5",
    "76a4e027a3a48a78b87e79da38b21eb02e272b4355039264bc4e860985c56b9d",
    "93e3262faadba8ff31063a876de2c251fcbef5a4a3e0f241488f1ca653f1d7a9",
    "2bd7fccfb1e98840f9f00c81e2b1170954a938c595f9ec335d06ee11351494e7",
    # 14: administration (issue 64, ADMIN_STEP; pinned here by the table-talk helper as it stood)
    "9e6a4198d6c361ae8aa72e71083378f6d7ccd3c867458841f11e2a6e6389026c",
    # 15: table talk (issue 63, storage/talk.py TALK_STEP)
    "782c3ef52ffb2c27e66cfc5704420de6da9de6da5a20727355f964c2bce1f221",
    # 16: the groups' campaigns on the site (issue 63, storage/campaigns.py SCHEMA_STEP)
    "297ecc1ba4570f1e9f6b2648b328ae7cb63121ee0c0edda6ee3ff68b51852504",
)
CAMPAIGN_STEPS = (
    "512f74eb48fab0560f82232d027b7cd2339b965400b8d70e25cc3932a0699ab6",
    "797c3188489c63392a9b3140a9cdded8d4d391bd42773a9b58c82ecf0ade418f",
)


def digest(step: str) -> str:
    return hashlib.sha256(step.encode()).hexdigest()


@pytest.mark.parametrize(("steps", "pinned"), [(SERVER, SERVER_STEPS), (CAMPAIGN, CAMPAIGN_STEPS)])
def test_shipped_migration_steps_are_unchanged(steps: tuple[str, ...], pinned: tuple[str, ...]) -> None:
    assert len(steps) >= len(pinned), "a shipped migration step was removed"
    changed = [
        n for n, (step, want) in enumerate(zip(steps, pinned, strict=False), 1) if digest(step) != want
    ]
    assert changed == [], f"shipped migration steps {changed} changed: add a new step instead"


@pytest.mark.parametrize(("steps", "pinned"), [(SERVER, SERVER_STEPS), (CAMPAIGN, CAMPAIGN_STEPS)])
def test_every_migration_step_is_pinned(steps: tuple[str, ...], pinned: tuple[str, ...]) -> None:
    assert len(steps) == len(pinned), "a new migration step: pin its hash here (it ships as it is)"


def test_a_changed_step_is_caught() -> None:
    edited = SERVER[0].replace("seed BIGINT", "seed INTEGER")
    assert edited != SERVER[0] and digest(edited) != SERVER_STEPS[0]
