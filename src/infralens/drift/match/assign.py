"""One-to-one assignment of a function's steps to new statements: a maximum-weight bipartite matching.

All steps of one annotation are placed at once, so two steps never land on one statement and a step
whose own statement is taken by a closer sibling looks for its next candidate. The Hungarian
method below is the classic O(n²m) one on a rectangular cost matrix (steps are rows; every row also
gets a column of its own meaning "unassigned", so nobody is forced onto a bad statement).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
C = TypeVar("C", bound=Hashable)
FORBIDDEN = 1e9
"""The cost of a pair that is not allowed (finite, so the potentials stay finite)."""
INFINITY = float("inf")


def assign(weights: Mapping[K, Mapping[C, float]]) -> dict[K, C]:
    """The assignment of rows to columns (each column at most once) with the largest total weight.

    ``weights[row][column]`` > 0 for the allowed pairs; rows left unassigned are absent from the result.
    """
    rows = list(weights)
    columns = list(dict.fromkeys(column for row in rows for column in weights[row]))
    if not rows or not columns:
        return {}
    n, m = len(rows), len(columns) + len(rows)  # one "unassigned" column per row
    cost = [[0.0] * m for _ in range(n)]
    for i, row in enumerate(rows):
        for j, column in enumerate(columns):
            w = weights[row].get(column)
            cost[i][j] = -w if w is not None and w > 0 else FORBIDDEN
    matched = _hungarian(cost, n, m)
    result: dict[K, C] = {}
    for i, j in enumerate(matched):
        if j < len(columns) and cost[i][j] < FORBIDDEN:
            result[rows[i]] = columns[j]
    return result


def _hungarian(cost: list[list[float]], n: int, m: int) -> list[int]:
    """Column chosen for each row minimising the total cost (n ≤ m; 1-based potentials as usual)."""
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    p = [0] * (m + 1)  # p[j]: row matched to column j (1-based), 0 when free
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = _free_column(cost, m, u, v, p, way)
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    chosen = [0] * n
    for j in range(1, m + 1):
        if p[j]:
            chosen[p[j] - 1] = j - 1
    return chosen


def _free_column(cost: list[list[float]], m: int, u: list[float], v: list[float], p: list[int], way: list[int]) -> int:
    """Grow the shortest augmenting path of row ``p[0]`` until it reaches a free column, and return that column.

    Updates the potentials *u* and *v* on the way and leaves in *way* the column each column was reached from."""
    j0 = 0
    minv = [INFINITY] * (m + 1)
    used = [False] * (m + 1)
    while True:
        used[j0] = True
        i0, delta, j1 = p[j0], INFINITY, 0
        for j in range(1, m + 1):
            if used[j]:
                continue
            current = cost[i0 - 1][j - 1] - u[i0] - v[j]
            if current < minv[j]:
                minv[j], way[j] = current, j0
            if minv[j] < delta:
                delta, j1 = minv[j], j
        for j in range(m + 1):
            if used[j]:
                u[p[j]] += delta
                v[j] -= delta
            else:
                minv[j] -= delta
        j0 = j1
        if p[j0] == 0:
            return j0
