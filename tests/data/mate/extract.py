#!/usr/bin/env python3
"""Extracts the slim mate test data from the shared corpus (run from the repo root:
python3 tests/data/mate/extract.py ../shared/corpus). Nothing in the tests reads the corpus."""
import json, sys, os

corpus = sys.argv[1]
out = os.path.join(os.path.dirname(os.path.abspath(__file__)))

with open(os.path.join(corpus, "labels.jsonl")) as f, open(os.path.join(out, "labels.jsonl"), "w") as o:
    for line in f:
        r = json.loads(line)
        d = {"i": r["index"], "sfen": r["sfen"], "check": r["in_check"],
             "checkmated": r["checkmated"], "nolegal": r["no_legal_moves"]}
        if r.get("mate1_all"):
            d["mate1_all"] = r["mate1_all"]
        if r.get("dfpn_100k"):
            d["dfpn"] = r["dfpn_100k"]["result"]
            if r["dfpn_100k"].get("pv_plies") is not None:
                d["dfpn_plies"] = r["dfpn_100k"]["pv_plies"]
        if r.get("andnode_mated"):
            d["andnode"] = r["andnode_mated"]["result"]
        o.write(json.dumps(d, separators=(",", ":")) + "\n")

with open(os.path.join(corpus, "tsume.jsonl")) as f, open(os.path.join(out, "tsume.jsonl"), "w") as o:
    for line in f:
        r = json.loads(line)
        d = {k: r.get(k) for k in ("name", "sfen", "known_mate_plies", "expected")}
        for k in ("dfpn_100k", "dfpn_1m"):
            v = r.get(k) or {}
            d[k] = {"result": v.get("result"), "nodes": v.get("nodes"), "pv_plies": v.get("pv_plies")}
        o.write(json.dumps(d, separators=(",", ":")) + "\n")
