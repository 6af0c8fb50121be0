"""Apery book oracle (cshogi 1.1.0) for tests/it/book.rs.

  keys IN          IN: lines "SFEN<TAB>USI move"; prints "book_key move16" per line
                   (book_key of the SFEN, cshogi.move16 of the move there, book_key_after).
  lookup BOOK IN   IN: SFEN lines; prints per line a JSON list of [fromToPro, count, score]
                   of BOOK's entries with that position's book_key (numpy, cshogi.BookEntry).
  write OUT IN     IN: lines "SFEN<TAB>USI<TAB>count<TAB>score"; writes OUT as an Apery
                   book (entries sorted by key, stable).
"""
import json
import sys

import cshogi
import numpy as np


def board(sfen):
    b = cshogi.Board()
    b.set_sfen(sfen)
    return b


def keys(path):
    for line in open(path):
        sfen, usi = line.rstrip("\n").split("\t")
        b = board(sfen)
        m = b.move_from_usi(usi)
        print(b.book_key(), cshogi.move16(m), b.book_key_after(b.book_key(), m))


def lookup(book, path):
    entries = np.fromfile(book, dtype=cshogi.BookEntry)
    for line in open(path):
        key = board(line.rstrip("\n")).book_key()
        hits = entries[entries["key"] == key]
        print(json.dumps([[int(e["fromToPro"]) & 0xFFFF, int(e["count"]), int(e["score"])] for e in hits]))


def write(out, path):
    rows = []
    for line in open(path):
        sfen, usi, count, score = line.rstrip("\n").split("\t")
        b = board(sfen)
        rows.append((b.book_key(), cshogi.move16(b.move_from_usi(usi)), int(count), int(score)))
    rows.sort(key=lambda r: r[0])
    entries = np.array(rows, dtype=[("key", "<u8"), ("fromToPro", "<u2"), ("count", "<u2"), ("score", "<i4")])
    entries.tofile(out)


if __name__ == "__main__":
    {"keys": keys, "lookup": lookup, "write": write}[sys.argv[1]](*sys.argv[2:])
