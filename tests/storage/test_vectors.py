"""The vec0 index on a real SQLite file with sqlite-vec: preparation, exact and coarse KNN."""

from __future__ import annotations

import functools
import math
import random
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from aria_desktop.adapters.storage.connection import Connection
from aria_desktop.adapters.storage.database import Database
from aria_desktop.adapters.storage.migrations import Migration
from aria_desktop.adapters.storage.vectors import (
    VectorIndex,
    VectorTable,
    cosine_from_l2,
    vector_dim,
)

DIM = 16
ROWS = 300
TABLE = VectorTable(
    name="item_vec",
    rows="items",
    key="seq",
    vector="embedding",
    model="embedding_model",
    meta="item_meta",
    meta_prefix="embedding",
)
ITEMS = Migration(
    name="items",
    statements=(
        "CREATE TABLE items (seq INTEGER PRIMARY KEY, status TEXT NOT NULL, embedding BLOB, "
        "embedding_model TEXT NOT NULL DEFAULT '')",
        "CREATE TABLE item_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
)


def _unit_vectors(count: int, dim: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    vectors = []
    for _ in range(count):
        values = [rng.gauss(0.0, 1.0) for _ in range(dim)]
        norm = math.sqrt(sum(v * v for v in values))
        vectors.append(struct.pack(f"<{dim}f", *(v / norm for v in values)))
    return vectors


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "vectors.db", migrations=(ITEMS,))
    assert database.vec_available
    try:
        yield database
    finally:
        await database.close()


def _fill(conn: Connection, index: VectorIndex, vectors: list[bytes], model: str) -> None:
    for seq, vector in enumerate(vectors, start=1):
        status = "active" if seq % 3 else "hidden"
        conn.execute(
            "INSERT INTO items (seq, status, embedding, embedding_model) VALUES (?, ?, ?, ?)",
            (seq, status, vector, model),
        )
        index.insert(conn, seq, status, vector)
    index.size = len(vectors)


def test_table_names_must_be_identifiers() -> None:
    with pytest.raises(ValueError, match="Not an SQL identifier"):
        VectorTable(
            name="vec; DROP TABLE items",
            rows="items",
            key="seq",
            vector="embedding",
            model="embedding_model",
            meta="item_meta",
            meta_prefix="embedding",
        )


def test_cosine_from_l2_of_unit_vectors() -> None:
    assert cosine_from_l2(0.0) == 1.0
    assert cosine_from_l2(math.sqrt(2.0)) == pytest.approx(0.0)
    assert cosine_from_l2(2.0) == pytest.approx(-1.0)
    assert vector_dim(bytes(4 * DIM)) == DIM


@pytest.mark.parametrize("exact_limit", [ROWS * 10, 0], ids=["exact", "coarse"])
async def test_a_stored_vector_is_its_own_nearest_neighbour(db: Database, exact_limit: int) -> None:
    vectors = _unit_vectors(ROWS, DIM, seed=7)
    index = VectorIndex(TABLE, DIM, exact_limit=exact_limit)
    assert index.coarse
    assert await db.write(lambda conn: index.prepare(conn, "model-a")) == 0
    await db.write(lambda conn: _fill(conn, index, vectors, "model-a"))
    for seq in (1, 2, 150, ROWS - 1):
        query = vectors[seq - 1]
        near = await db.read(functools.partial(index.nearest, vector=query, k=5))
        assert near[0][0] == seq
        assert near[0][1] == pytest.approx(0.0, abs=1e-5)
        distances = [distance for _, distance in near]
        assert distances == sorted(distances)
        assert len(near) == 5


@pytest.mark.parametrize("exact_limit", [ROWS * 10, 0], ids=["exact", "coarse"])
async def test_knn_filtered_by_status_skips_other_rows(db: Database, exact_limit: int) -> None:
    vectors = _unit_vectors(ROWS, DIM, seed=11)
    index = VectorIndex(TABLE, DIM, exact_limit=exact_limit)
    await db.write(lambda conn: index.prepare(conn, "model-a"))
    await db.write(lambda conn: _fill(conn, index, vectors, "model-a"))
    hidden = 3  # every third row is "hidden"
    near = await db.read(lambda conn: index.nearest(conn, vectors[hidden - 1], 10, status="active"))
    assert hidden not in {seq for seq, _ in near}
    assert all(seq % 3 for seq, _ in near)
    await db.write(lambda conn: index.set_status(conn, hidden, "active"))
    near = await db.read(lambda conn: index.nearest(conn, vectors[hidden - 1], 1, status="active"))
    assert near[0][0] == hidden


async def test_a_new_model_rebuilds_the_index_and_reports_the_rows_to_embed(db: Database) -> None:
    vectors = _unit_vectors(20, DIM, seed=3)
    first = VectorIndex(TABLE, DIM)
    await db.write(lambda conn: first.prepare(conn, "model-a"))
    await db.write(lambda conn: _fill(conn, first, vectors, "model-a"))
    again = VectorIndex(TABLE, DIM)
    assert await db.write(lambda conn: again.prepare(conn, "model-a")) == 0
    assert again.size == 20

    wider = VectorIndex(TABLE, DIM * 2)
    assert await db.write(lambda conn: wider.prepare(conn, "model-b")) == 20
    assert wider.size == 0
    left = await db.read(
        lambda conn: conn.execute(
            "SELECT count(*) FROM items WHERE embedding IS NOT NULL OR embedding_model != ''"
        ).fetchone()[0]
    )
    assert left == 0
    assert (
        await db.read(lambda conn: conn.execute("SELECT count(*) FROM item_vec").fetchone()[0]) == 0
    )
    assert not wider.fits(vectors[0])
