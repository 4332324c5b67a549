"""stepscope.jax.sync_log(): host syncs recorded from Python as the C API records them,
becoming the ledger's host-sync section."""
import numpy as np

import stepscope
import stepscope.jax


class Later:
    """A result that completes later: block_until_ready() is what waits."""

    def __init__(self):
        self.waited = 0

    def block_until_ready(self):
        self.waited += 1
        return self


def test_records_each_sync_with_label_scope_and_kind():
    later = Later()
    with stepscope.jax.sync_log() as log:
        v = log.scalar(np.array([2.5], dtype=np.float32), "loss", scope="train")
        a = log.read([1, 2, 3], "metrics", scope="train")
        log.wait(later, "end of step")
    assert v == 2.5 and a.tolist() == [1, 2, 3] and later.waited == 1
    hs = log["host_syncs"]
    events = [(e["label"], e["scope"], e["kind"]) for e in hs["events"]]
    assert events == [("loss", "train", "scalar"), ("metrics", "train", "read"), ("end of step", "default", "wait")]
    recorded = [w for *_, w in log.syncs]
    assert [e["wait_ns"] for e in hs["events"]] == recorded and all(w >= 0 for w in recorded)
    scopes = {s["scope"]: s for s in hs["scopes"]}
    assert scopes["train"]["count"] == 2 and scopes["train"]["scalars"] == 1 and scopes["train"]["reads"] == 1
    assert scopes["train"]["total_ns"] == recorded[0] + recorded[1]
    assert scopes["default"]["waits"] == 1


def test_a_block_without_syncs_records_none_not_unknown():
    with stepscope.jax.sync_log() as log:
        pass
    assert log["host_syncs"] is None or log["host_syncs"]["events"] == []
