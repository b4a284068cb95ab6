"""The tests' own PostgreSQL (``dorf.testing.pgcluster``): a real server, and a fresh empty database
for each test that asks for one."""

from __future__ import annotations

import os

import psycopg
import pytest

from dorf.testing.pgcluster import Cluster

#: The tables a database's user made (none in an empty one).
USER_TABLES = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"


@pytest.mark.slow
def test_the_cluster_answers(pg_cluster: Cluster) -> None:
    with psycopg.connect(pg_cluster.url("postgres")) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
        (user,) = conn.execute("SELECT current_user").fetchone() or ("",)
    assert user == pg_cluster.user.pw_name
    # PostgreSQL refuses to run as root, so the cluster runs as someone else where the tests do.
    assert pg_cluster.user.pw_uid != 0


def test_fresh_databases_are_distinct_and_empty(pg_cluster: Cluster) -> None:
    first, second = pg_cluster.fresh_database(), pg_cluster.fresh_database()
    assert first != second
    for url in (first, second):
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT current_database()").fetchone() == (url.rsplit("/", 1)[1],)
            assert conn.execute(USER_TABLES).fetchall() == []
    for url in (first, second):
        pg_cluster.drop_database(url)


def test_a_table_is_in_its_database_only(pg_cluster: Cluster, pg_url: str) -> None:
    with psycopg.connect(pg_url) as conn:
        conn.execute("CREATE TABLE game (id integer PRIMARY KEY, name text)")
        conn.execute("INSERT INTO game VALUES (1, 'Dorf')")
    other = pg_cluster.fresh_database()
    with psycopg.connect(other) as conn:
        assert conn.execute(USER_TABLES).fetchall() == []
    with psycopg.connect(pg_url) as conn:
        assert conn.execute(USER_TABLES).fetchall() == [("game",)]
        assert conn.execute("SELECT name FROM game").fetchall() == [("Dorf",)]
    pg_cluster.drop_database(other)


def test_the_cluster_is_in_a_folder_of_this_process(pg_cluster: Cluster) -> None:
    assert pg_cluster.folder is not None
    assert pg_cluster.folder.name.startswith(f"dorf-pg-{os.getpid()}-")
    assert (pg_cluster.data / "postmaster.pid").exists()
