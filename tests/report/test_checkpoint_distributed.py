"""checkpoint_report(scheduler=...) on a dask.distributed LocalCluster of 2 workers:
the records equal the local run's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fpexplore as fpx

distributed = pytest.importorskip("distributed")

RNG = np.random.default_rng(31)
FORMATS = ["e4m3", "mxfp4", "nvfp4"]


def _same(a: list[dict], b: list[dict]) -> bool:
    def eq(x, y) -> bool:
        return x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y))

    return len(a) == len(b) and all(
        r.keys() == s.keys() and all(eq(r[k], s[k]) for k in r) for r, s in zip(a, b, strict=True)
    )


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster:  # fmt: skip
        with distributed.Client(cluster) as c:
            yield c


def test_a_mapping_and_a_file_on_two_workers_equal_the_local_run(client, tmp_path) -> None:
    weights = {
        "fc.weight": RNG.standard_normal((40, 96)).astype(np.float32),
        "conv.weight": RNG.standard_normal((8, 40, 3, 3)).astype(np.float32),
        "fc.bias": np.array([1.0, np.inf, 2.0, 1e6]),
        "scale": np.array(0.5),
    }
    local = fpx.checkpoint_report(weights, FORMATS, progress=False)
    remote = fpx.checkpoint_report(weights, FORMATS, scheduler=client, progress=False)
    assert _same(remote.to_records(), local.to_records())
    assert remote.nonfinite == local.nonfinite == {"fc.bias": 1}
    assert remote.skipped == local.skipped
    np.savez(tmp_path / "m.npz", **{k: v for k, v in weights.items() if k != "fc.bias"})
    local = fpx.checkpoint_report(tmp_path / "m.npz", FORMATS, progress=False)
    remote = fpx.checkpoint_report(tmp_path / "m.npz", FORMATS, scheduler=client,
                                   progress=False)  # fmt: skip
    assert _same(remote.to_records(), local.to_records())
    assert {r["axis_source"] for r in remote.to_records()} == {"layout"}


def test_a_scheduler_address_of_the_cluster_and_an_unreachable_one(client, monkeypatch) -> None:
    x = {"w": RNG.standard_normal((16, 64))}
    remote = fpx.checkpoint_report(x, ["e4m3"], scheduler=client.scheduler.address,
                                   progress=False)  # fmt: skip
    assert _same(remote.to_records(), fpx.checkpoint_report(x, ["e4m3"], progress=False)
                 .to_records())  # fmt: skip
    from fpexplore.report import distributed as remote_run

    monkeypatch.setattr(remote_run, "CONNECT_TIMEOUT", "0.5s")
    with pytest.raises(ValueError, match=r"cannot reach the dask scheduler at 'tcp://127.0.0.1:9'"):
        fpx.checkpoint_report(x, ["e4m3"], scheduler="tcp://127.0.0.1:9", progress=False)
    with pytest.raises(TypeError, match="scheduler must be"):
        fpx.checkpoint_report(x, ["e4m3"], scheduler=8786, progress=False)


def test_scheduler_none_runs_on_dask_s_default_client(client, monkeypatch) -> None:
    """The fixture's Client is dask's default: scheduler=None uses it, as dask would,
    unless dask is told to run locally; a configured address is connected to."""
    import dask

    from fpexplore.report import distributed as remote_run

    x = {"w": RNG.standard_normal((16, 64)), "v": RNG.standard_normal((8, 32))}
    assert distributed.default_client() is client
    with dask.config.set(scheduler="sync"):  # a local scheduler chosen: no cluster
        assert remote_run.default_scheduler() is None
        with distributed.get_task_stream(client) as local_tasks:
            local = fpx.checkpoint_report(x, FORMATS, progress=False)
    assert not local_tasks.data
    with distributed.get_task_stream(client) as tasks:
        remote = fpx.checkpoint_report(x, FORMATS, progress=False)
    assert len(tasks.data) >= 2 and _same(remote.to_records(), local.to_records())
    with dask.config.set(scheduler=client):
        assert remote_run.default_scheduler() is client
    monkeypatch.setattr(distributed, "default_client", _no_client)
    with dask.config.set({"scheduler": None, "scheduler-address": client.scheduler.address}):
        assert remote_run.default_scheduler() == client.scheduler.address
        with distributed.get_task_stream(client) as tasks:
            remote = fpx.checkpoint_report(x, FORMATS, progress=False)
        assert len(tasks.data) >= 2 and _same(remote.to_records(), local.to_records())
    with dask.config.set({"scheduler": None, "scheduler-address": None}):
        assert remote_run.default_scheduler() is None  # no default client: run here
    with dask.config.set({"scheduler": "distributed", "scheduler-address": None}):
        with pytest.raises(ValueError, match="dask's configured scheduler is 'distributed'"):
            fpx.checkpoint_report(x, FORMATS, progress=False)


def _no_client():
    raise ValueError("No clients found")


def test_dask_distributed_is_not_imported_for_scheduler_none() -> None:
    import subprocess
    import sys

    code = ("import sys, numpy as np, fpexplore as fpx; assert 'dask' not in sys.modules; "
            "fpx.checkpoint_report({'w': np.ones((4, 32))}, ['e4m3'], progress=False); "
            "assert 'distributed' not in sys.modules, 'imported'")  # fmt: skip
    subprocess.run([sys.executable, "-c", code], check=True)


def test_scale_rules_and_2d_tiles_on_two_workers_equal_the_local_run(client) -> None:
    from fpexplore.scaling.blocks import BlockFormat

    tiles = BlockFormat("nvfp4_16x16", "float4_e2m1fn", (16, 16), "e4m3", 2)
    weights = {"fc.weight": RNG.standard_normal((40, 50)), "fc.bias": RNG.standard_normal(50)}
    for formats, rule in ((["mxfp4", tiles], "rceil"), ([tiles], None)):
        local = fpx.checkpoint_report(weights, formats, scale_rule=rule, progress=False)
        remote = fpx.checkpoint_report(weights, formats, scale_rule=rule, scheduler=client,
                                       progress=False)  # fmt: skip
        assert _same(remote.to_records(), local.to_records())
    assert {r["scale_rule"] for r in local.to_records()} == {None}
