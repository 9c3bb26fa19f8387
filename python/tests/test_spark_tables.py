"""The Spark job's building blocks, without Spark: every pair within k bits shares a key of
Manku et al.'s tables, at every corpus size, and keys grow with the corpus; the pairs of
shared keys and the stars of local components are those of brute-force references."""

import random

import pytest

from tantivy_dedup.spark import _tables


def keys(fingerprint, tables):
    out = []
    for blocks in tables:
        key, at = 0, 0
        for shift, width in blocks:
            key |= ((fingerprint >> shift) & ((1 << width) - 1)) << at
            at += width
        out.append(key)
    return out


def test_pairs_within_k_share_a_key():
    rng = random.Random(3)
    for k in [0, 1, 3, 6, 12]:
        for documents in [10, 10**5, 10**9]:
            tables = _tables(k, documents)
            for _ in range(300):
                a = rng.getrandbits(64)
                b = a
                for bit in rng.sample(range(64), rng.randint(0, k)):
                    b ^= 1 << bit
                assert any(x == y for x, y in zip(keys(a, tables), keys(b, tables))), (k, documents)


def test_keys_lengthen_with_the_corpus():
    def key_bits(documents):
        return min(sum(width for _, width in blocks) for blocks in _tables(3, documents))

    assert key_bits(100) == 16  # k + 1 blocks: the pigeonhole
    assert key_bits(10**6) >= 28 and key_bits(10**9) >= 38
    assert len(_tables(3, 10**9)) <= 64


def brute_force_pairs(rows, low, high):
    """Every row against every other: the pairs sharing a (kind, key), `low` to `high`
    bits apart, earlier order first, each once."""
    pairs = set()
    for kind, key, order, fp in rows:
        for kind2, key2, order2, fp2 in rows:
            distance = bin(fp ^ fp2).count("1")
            if (kind, key) == (kind2, key2) and order < order2 and low <= distance <= high:
                pairs.add((order, order2, distance))
    return sorted(pairs)


def test_pairs_sharing_keys_are_those_of_every_row_against_every_other():
    import numpy as np

    from tantivy_dedup import pairs_sharing_keys

    rng = random.Random(11)
    for round in range(60):
        rows = []
        for document in range(rng.randint(0, 50)):
            # Fingerprints near a few bases, so that every distance range has pairs; keys
            # from a few values, some negative (Spark's longs), so that groups form; orders
            # distinct, some negative.
            base = [0, (1 << 64) - 1, 0x0F0F0F0F0F0F0F0F][document % 3]
            fp = base ^ (rng.getrandbits(64) & rng.getrandbits(64) & rng.getrandbits(64))
            order = document * 7 - 100
            for kind in range(rng.randint(1, 4)):
                rows.append((kind, (rng.randrange(2 + round % 5) - 2) << 40, order, fp))
        rng.shuffle(rows)
        for low, high in [(0, 3), (4, 16), (0, 64)]:
            columns = [np.array([row[i] for row in rows], dtype=dtype)
                       for i, dtype in enumerate([np.uint32, np.int64, np.int64, np.uint64])]
            a, b, distance = pairs_sharing_keys(*columns, low, high)
            got = list(zip(a.tolist(), b.tolist(), distance.tolist()))
            assert got == brute_force_pairs(rows, low, high), (round, low, high)


def union_find_roots(edges):
    """The least vertex of each vertex's component, by a plain union-find."""
    parent = {}

    def find(v):
        while parent.setdefault(v, v) != v:
            v = parent[v]
        return v

    for a, b in edges:
        x, y = find(a), find(b)
        parent[max(x, y)] = min(x, y)
    return {v: find(v) for v in parent}


def random_graph(rng):
    """Edges of paths, stars and random pairs over a few vertices, some negative."""
    vertices = rng.sample(range(-50, 200), rng.randint(1, 60))
    edges = []
    for _ in range(rng.randint(0, 4)):
        path = rng.sample(vertices, rng.randint(1, len(vertices)))
        edges += list(zip(path, path[1:]))
    for _ in range(rng.randint(0, 30)):
        edges.append((rng.choice(vertices), rng.choice(vertices)))
    return [(a, b) for a, b in edges if a != b]


def test_local_roots_are_the_least_vertex_of_each_component():
    import numpy as np

    from tantivy_dedup._native import local_roots

    rng = random.Random(5)
    for _ in range(200):
        edges = random_graph(rng)
        a = np.array([e[0] for e in edges], dtype="<i8")
        b = np.array([e[1] for e in edges], dtype="<i8")
        vertices, roots = (np.frombuffer(x, "<i8") for x in local_roots(a.tobytes(), b.tobytes()))
        expected = {v: r for v, r in union_find_roots(edges).items() if v != r}
        assert dict(zip(vertices.tolist(), roots.tolist())) == expected
        assert vertices.tolist() == sorted(expected)


def test_grouped_key_rows_find_every_pair_a_brute_force_scan_finds():
    """The grouping stage without Spark: documents' key rows packed by bucket, the buckets
    dealt to partitions, each partition paired; every pair within k is found (whatever
    partition its keys fall in), once, and beyond it the pairs sharing a band within the
    reach."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from tantivy_dedup.spark import _grouped_pairs, _key_rows

    rng = random.Random(17)
    k, reach, bands, buckets, partitions = 3, 16, 4, 16, 4
    for round in range(40):
        n = rng.randint(0, 60)
        bases = [rng.getrandbits(64) for _ in range(3)]
        fps = [bases[i % 3] ^ (rng.getrandbits(64) & rng.getrandbits(64) & rng.getrandbits(64) & rng.getrandbits(64))
               for i in range(n)]
        orders = [i * 3 - 50 for i in range(n)]
        band_keys = [[rng.randrange(3) + 10 * j for j in range(bands)] for _ in range(n)]
        has_bands = [rng.random() < 0.8 for _ in range(n)]
        tables = _tables(k, max(n, 2))
        cut = rng.randint(0, n)
        batches = [
            pa.RecordBatch.from_arrays(
                [
                    pa.array(orders[lo:hi], pa.int64()),
                    pa.array(np.array(fps[lo:hi], dtype=np.uint64).view(np.int64)),
                    pa.array(band_keys[lo:hi], pa.list_(pa.int32())),
                    pa.array(has_bands[lo:hi], pa.bool_()),
                ],
                names=["order", "fp", "bands", "has_bands"],
            )
            for lo, hi in [(0, cut), (cut, n)]
        ]
        packed = list(_key_rows(tables, True, buckets)(iter(batches)))
        found = []
        for partition in range(partitions):
            mine = [batch.filter(pc.equal(pc.bit_wise_and(batch.column("bucket"), partitions - 1), partition))
                    for batch in packed]
            for out in _grouped_pairs(tables, k, reach)(iter(mine)):
                found += zip(*(out.column(c).to_pylist() for c in ("a", "b", "distance", "candidate")))
        near = [pair for pair in found if not pair[3]]
        assert len(near) == len(set(near)), f"a near pair from two buckets, round {round}"
        found = set(found)
        expected = set()
        for i in range(n):
            for j in range(i + 1, n):
                d = bin(fps[i] ^ fps[j]).count("1")
                shares = has_bands[i] and has_bands[j] and any(x == y for x, y in zip(band_keys[i], band_keys[j]))
                if d <= k:
                    expected.add((orders[i], orders[j], d, False))
                elif d <= reach and shares:
                    expected.add((orders[i], orders[j], d, True))
        assert found == expected, round


def test_pairs_meet_their_digests_by_bucket():
    """The candidates' digest stage without Spark: digest rows packed by their document's
    bucket, pairs by their first document's, given its digest, repacked by the second's,
    and kept when the digests agree on `least` bytes or more (or a document has no
    signature), as a brute-force count says."""
    import numpy as np

    from tantivy_dedup._native import agreeing_pairs, attach_digests, pack_by_order, pack_pairs

    rng = np.random.default_rng(5)
    length, least, buckets, docs = 16, 9, 8, 40
    orders = rng.permutation(np.arange(-20, 180))[:docs].astype(np.int64)
    digests = rng.integers(0, 2, size=(docs, length), dtype=np.uint8)  # agreements around least
    usable = rng.random(docs) < 0.8
    row = np.dtype([("order", "<i8"), ("usable", "u1"), ("digest", "u1", (length,))])
    table = np.empty(docs, dtype=row)
    table["order"], table["usable"], table["digest"] = orders, usable, digests
    index = {int(o): i for i, o in enumerate(orders)}
    pairs = [(int(orders[i]), int(orders[j]), int(rng.integers(0, 64)))
             for i in range(docs) for j in range(docs) if i != j and rng.random() < 0.3]
    a, b, d = (np.array(column, dtype=t) for column, t in zip(zip(*pairs), ("<i8", "<i8", "<u4")))

    def by_bucket(packed):
        present, bounds, rows = packed
        present, bounds = np.frombuffer(present, "<i4"), np.frombuffer(bounds, "<i4")
        return {int(p): rows[bounds[i]:bounds[i + 1]] for i, p in enumerate(present)}

    tables = by_bucket(pack_by_order(table.tobytes(), row.itemsize, buckets))
    first = by_bucket(pack_pairs(a.tobytes(), b.tobytes(), d.tobytes(), buckets))
    kept = set()
    for home, rows in first.items():
        second = by_bucket(attach_digests(tables[home], rows, length, buckets))
        for other, carried in second.items():
            x, y, z = agreeing_pairs(tables[other], carried, length, least)
            kept |= set(zip(np.frombuffer(x, "<i8").tolist(), np.frombuffer(y, "<i8").tolist(),
                            np.frombuffer(z, "<u4").tolist()))
    expected = {
        (x, y, z) for x, y, z in pairs
        if not (usable[index[x]] and usable[index[y]])
        or int((digests[index[x]] == digests[index[y]]).sum()) >= least
    }
    assert kept == expected and 0 < len(kept) < len(pairs)


def test_kept_candidates_find_each_document_among_sparse_orders():
    """`_kept_candidates` against a dictionary lookup: orders far apart (as Spark's
    monotonically increasing ids, and negative ones), pairs in any order, documents in
    many pairs; an order between two of the table's is an error."""
    import numpy as np
    import pytest

    from tantivy_dedup import DedupError
    from tantivy_dedup.spark import _kept_candidates

    rng = np.random.default_rng(29)
    n, least = 16, 9
    for docs in [1, 2, 5, 300]:
        orders = np.unique(rng.integers(-(2**62), 2**62, size=docs, dtype=np.int64))
        docs = len(orders)
        usable = rng.random(docs) < 0.9
        digests = rng.integers(0, 3, size=(docs, n), dtype=np.uint8)
        table = (orders.astype("<i8").tobytes(), usable.astype(np.uint8).tobytes(), digests.tobytes())
        pairs = rng.integers(0, docs, size=(400, 2))
        a, b = orders[pairs[:, 0]], orders[pairs[:, 1]]
        candidate = rng.random(400) < 0.8
        keep = _kept_candidates(table, n, a, b, candidate, least)
        row = {int(order): i for i, order in enumerate(orders)}
        for x, y, c, k in zip(a.tolist(), b.tolist(), candidate, keep):
            i, j = row[x], row[y]
            agree = int((digests[i] == digests[j]).sum()) >= least
            assert k == (not c or not (usable[i] and usable[j]) or agree)
        if docs > 1:
            missing = orders[:1] + (orders[1:2] - orders[:1]) // 2
            with pytest.raises(DedupError, match="no digest"):
                _kept_candidates(table, n, np.concatenate([a, missing]), np.concatenate([b, b[:1]]),
                                 np.concatenate([candidate, [True]]), least)


def reference_groups(members, near, fps, firsts, grouping):
    """The grouping rule of `tantivy_dedup.grouping` by brute force: copies (a member whose
    first is another) grouped with their first and weighing in its weight (64 bits each,
    a near class 64 less its distance a copy); classes by weight (then fingerprint, then
    order); under "components" the connected components,
    else each class joins the nearest leader (then the one that led first) it is near
    (and, under "centres", near every class of its group), or leads. Rows `(leader's
    order, member's order, position)` of the groups of two or more."""
    classes = sorted(m for m in members if firsts[m] == m)
    size = {c: sum(1 for m in members if firsts[m] == c) for c in classes}
    dist = {}
    for a, b, d in near:
        if a in size and b in size and a != b:
            dist[(a, b)] = dist[(b, a)] = d
    weight = {c: 64 * (size[c] - 1) + sum(size[o] * (64 - dist[(c, o)]) for o in classes if (c, o) in dist)
              for c in classes}
    order = sorted(classes, key=lambda c: (-weight[c], fps[c] % 2**64, c))
    leader = {}
    if grouping == "components":
        for c in order:
            if c in leader:
                continue
            leader[c], stack = c, [c]
            while stack:
                x = stack.pop()
                for y in classes:
                    if y not in leader and (x, y) in dist:
                        leader[y] = c
                        stack.append(y)
    else:
        for rank, c in enumerate(order):
            options = [
                (dist[(c, l)], r, l) for r, l in enumerate(order[:rank])
                if leader.get(l) == l and (c, l) in dist
                and (grouping == "stars" or all((c, e) in dist for e in leader if leader[e] == l))
            ]
            leader[c] = min(options)[2] if options else c
    groups = {}
    for m in sorted(members):
        groups.setdefault(leader[firsts[m]], []).append(m)
    return sorted(
        (l, m, position)
        for l, docs in groups.items() if len(docs) > 1
        for position, m in enumerate([l] + [m for m in docs if m != l])
    )


@pytest.mark.parametrize("grouping", ["centres", "stars", "components"])
def test_leader_rows_follow_the_rule_component_by_component(grouping):
    """`leader_rows` against the rule by brute force, on batches of random components
    (members in any order, copies, ties of distance and of fingerprint, components
    without pairs)."""
    import numpy as np

    from tantivy_dedup._native import leader_rows

    rng = random.Random(31)
    for _ in range(50):
        components = []
        for _ in range(rng.randint(0, 6)):
            size = rng.randint(1, 12)
            members = rng.sample(range(-1000, 1000), size)
            firsts, fps = {}, {}
            for m in sorted(members):
                earlier = [f for f in firsts if firsts[f] == f]
                firsts[m] = rng.choice(earlier) if earlier and rng.random() < 0.2 else m
                fps[m] = fps[firsts[m]] if firsts[m] != m else rng.choice([rng.randint(0, 3), -rng.randint(1, 3)])
            near = [(min(x, y), max(x, y), rng.randint(0, 3))
                    for x in members for y in members
                    if x < y and firsts[x] == x and firsts[y] == y and rng.random() < 0.4]
            near += [(firsts[m], m, 0) for m in members if firsts[m] != m]
            rng.shuffle(near)
            components.append((members, near, fps, firsts))
        orders = [m for members, *_ in components for m in members]
        all_fps = [c[2][m] for c in components for m in c[0]]
        all_firsts = [c[3][m] for c in components for m in c[0]]
        pairs = [p for _, near, *_ in components for p in near]

        def bounds(lists):
            return np.cumsum([0] + [len(x) for x in lists]).astype("<i4").tobytes()

        leader, member, position = leader_rows(
            bounds([c[0] for c in components]), np.array(orders, "<i8").tobytes(),
            np.array(all_fps, "<i8").tobytes(), np.array(all_firsts, "<i8").tobytes(),
            bounds([c[1] for c in components]),
            np.array([p[0] for p in pairs], "<i8").tobytes(), np.array([p[1] for p in pairs], "<i8").tobytes(),
            np.array([p[2] for p in pairs], "<u4").tobytes(), grouping,
        )
        found = sorted(
            (orders[l], orders[m], p)
            for l, m, p in zip(*(np.frombuffer(x, "<u4").tolist() for x in (leader, member, position)))
        )
        expected = sorted(row for c in components for row in reference_groups(*c, grouping))
        assert found == expected


def test_leader_rows_refuse_an_unknown_grouping():
    from tantivy_dedup import DedupError
    from tantivy_dedup._native import leader_rows

    with pytest.raises(DedupError, match="grouping"):
        leader_rows(b"", b"", b"", b"", b"", b"", b"", b"", "arrival")
