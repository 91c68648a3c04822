"""checkpoint_report and the streaming tensor report: against numpy oracles, chunk by
chunk, tensor by tensor (issue 19 sections 2-3, issue 21 section 5)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.report.routes.chunks import count_chunks, plan_chunks
from fpexplore.report.routes.stats import QUANTILE_BOUND

COUNTS = ("overflow", "clipped", "flushed_to_zero", "subnormal", "nonzero", "became_inf",
          "became_nan", "max_rel_error")  # fmt: skip


def _rows(report):
    return {(r["format"], r["scaling"]): r for r in report.to_records()}


def _oracle(x, fmt, scaling, axis=-1):
    """Relative errors, flushed count and SNR of one row, from the public functions."""
    x = np.asarray(x, np.float64)
    valid = np.isfinite(x) & (x != 0)
    with np.errstate(all="ignore"):
        if scaling == "none":
            q = fpx.round_to(x, fmt)
            ref, stored = x, q
        elif scaling == "per_tensor":
            s = fpx.compute_scale(float(np.abs(x[np.isfinite(x)]).max()), fmt)
            ref = x * s  # exact for float32 inputs
            stored = fpx.round_to(ref, fmt, overflow="saturate")
            q = stored
        else:
            block = fmt if fmt in fpx.BLOCK_FORMATS else {
                "float8_e4m3fn": "mxfp8_e4m3", "float8_e5m2": "mxfp8_e5m2"}[fmt]  # fmt: skip
            q = fpx.quantize_blocks(np.where(np.isfinite(x), x, 0.0), block, axis=axis).values
            ref, stored = x, q
        rel = np.abs(q - ref)[valid] / np.abs(ref)[valid]
    rel[np.isnan(rel)] = np.inf
    return rel, int(np.count_nonzero(valid & (stored == 0)))


def _check_quantiles(record, rel):
    for key, q in (("median_rel_error", 0.5), ("p99_rel_error", 0.99)):
        exact = float(np.quantile(rel, q, method="inverted_cdf"))
        got = record[key]
        if exact in (0.0, math.inf):
            assert got == exact, (key, exact, got)
        else:
            assert exact <= got <= exact * QUANTILE_BOUND, (key, exact, got)


ADVERSARIAL = {
    "t2 with outliers": lambda rng: rng.standard_t(2, 4000) * 1e-2,
    "repeated values": lambda rng: np.repeat(rng.standard_normal(40), 100),
    "powers of two and ties": lambda rng: np.ldexp(
        1 + rng.integers(0, 16, 4000) / 32, rng.integers(-12, 12, 4000)
    ),
    "3% overflow": lambda rng: np.r_[np.full(97, 1.1), np.full(3, 1000.0)],
    "60% overflow": lambda rng: np.r_[np.full(40, 1.1), np.full(60, 1000.0)],
    "wide range": lambda rng: rng.standard_normal(4000) * np.exp2(rng.integers(-40, 40, 4000)),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_against_oracles(name, dtype) -> None:
    x = ADVERSARIAL[name](np.random.default_rng(5)).astype(dtype)
    rows = _rows(fpx.tensor_report(x, ["float8_e4m3fn", "float8_e5m2", "mxfp4", "bfloat16"]))
    for (fmt, scaling), record in rows.items():
        rel, flushed = _oracle(x, fmt, scaling)
        assert record["flushed_to_zero"] == flushed, (fmt, scaling)
        assert record["max_rel_error"] == (rel.max() if rel.size else math.nan), (fmt, scaling)
        _check_quantiles(record, rel)


def test_issue21_overflow_is_not_in_the_lowest_bin() -> None:
    """numpy median inf, dask 0.0229 (the overflows were counted in bin 0)."""
    da = pytest.importorskip("dask.array")
    x = np.r_[np.full(40, 1.1), np.full(60, 1000.0)]
    for source in (x, da.from_array(x, chunks=30)):
        none = _rows(fpx.tensor_report(source, ["float8_e4m3fn"]))["float8_e4m3fn", "none"]
        assert none["median_rel_error"] == math.inf and none["became_nan"] == 60
        assert none["overflow"] == 60 and none["snr_db"] == -math.inf
    x = np.r_[np.full(97, 1.1), np.full(3, 1000.0)]
    lazy = _rows(fpx.tensor_report(da.from_array(x, chunks=7), ["float8_e4m3fn"]))
    rel, _ = _oracle(x, "float8_e4m3fn", "none")
    _check_quantiles(lazy["float8_e4m3fn", "none"], rel)


def test_issue21_bound_holds_above_2_8() -> None:
    """E8M0 errors reach 2**20 and beyond: dask reported the maximum as the median."""
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(0)
    x = 10.0 ** rng.uniform(-60, -40, 2000)
    rel, _ = _oracle(x, "float8_e8m0fnu", "none")
    assert np.median(rel) > 2.0**8
    for source in (x, da.from_array(x, chunks=300)):
        _check_quantiles(_rows(fpx.tensor_report(source, ["float8_e8m0fnu"]))[
            "float8_e8m0fnu", "none"], rel)  # fmt: skip


def test_issue21_fully_flushed_tensor_has_snr_0_db() -> None:
    da = pytest.importorskip("dask.array")
    x = np.random.default_rng(1).standard_normal(1000) * 1e-170
    for source in (x, da.from_array(x, chunks=100)):
        none = _rows(fpx.tensor_report(source, ["float32"]))["float32", "none"]
        assert none["flushed_to_zero"] == 1000
        assert none["snr_db"] == pytest.approx(0.0, abs=1e-9)
    big = np.random.default_rng(1).standard_normal(1000) * 1e300  # squares overflow float64
    assert _rows(fpx.tensor_report(big, ["float64"]))["float64", "none"]["snr_db"] == math.inf
    wide = fpx.Format.ieee_like(11, 7, "wide_bfloat16")  # float64's range, bfloat16's bits
    snr = _rows(fpx.tensor_report(big, [wide]))["wide_bfloat16", "none"]["snr_db"]
    assert snr == pytest.approx(_rows(fpx.tensor_report(big * 1e-300, [wide]))[
        "wide_bfloat16", "none"]["snr_db"], abs=0.5)  # fmt: skip
    assert 40 < snr < 70


def test_issue21_dask_takes_ml_dtypes() -> None:
    da = pytest.importorskip("dask.array")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.random.default_rng(2).standard_normal((64, 64)).astype(ml_dtypes.bfloat16)
    lazy = fpx.tensor_report(da.from_array(x, chunks=(16, 32)), ["e4m3", "mxfp4"])
    eager = fpx.tensor_report(x, ["e4m3", "mxfp4"])
    for a, b in zip(eager.to_records(), lazy.to_records(), strict=True):
        assert {k: a[k] for k in COUNTS} == {k: b[k] for k in COUNTS}
        assert a["snr_db"] == pytest.approx(b["snr_db"], rel=1e-12)


def test_chunked_equals_unchunked() -> None:
    rng = np.random.default_rng(3)
    x = (rng.standard_t(3, (200, 96)) * 1e-2).astype(np.float32)
    x[5, 7], x[9, 9] = np.inf, np.nan
    formats = ["e4m3", "e5m2", "mxfp4", "nvfp4", "mxint8", "float8_e4m3fnuz"]
    whole = fpx.tensor_report(x, formats, axis=0)
    for chunk_bytes in (512, 4096, 50_000):
        parts = fpx.tensor_report(x, formats, axis=0, chunk_bytes=chunk_bytes)
        for a, b in zip(whole.to_records(), parts.to_records(), strict=True):
            for key in (*COUNTS, "median_rel_error", "p99_rel_error", "scale"):
                assert a[key] == b[key], (a["format"], a["scaling"], key, chunk_bytes)
            assert a["snr_db"] == pytest.approx(b["snr_db"], rel=1e-12)
    assert whole.size == x.size and whole.finite == x.size - 2


def test_block_axis() -> None:
    kernel = np.random.default_rng(4).standard_normal((96, 40)).astype(np.float32)
    kernel[3, :] *= 1e3  # one input row of outliers: blocks along axis 0 all contain it
    down = _rows(fpx.tensor_report(kernel, ["mxfp4"], axis=0))["mxfp4", "block"]
    across = _rows(fpx.tensor_report(kernel.T.copy(), ["mxfp4"]))["mxfp4", "block"]
    for key in COUNTS:
        assert down[key] == across[key], key
    along_rows = _rows(fpx.tensor_report(kernel, ["mxfp4"]))["mxfp4", "block"]
    assert along_rows["flushed_to_zero"] < down["flushed_to_zero"]
    rel, flushed = _oracle(kernel, "mxfp4", "block", axis=0)
    assert down["flushed_to_zero"] == flushed and down["max_rel_error"] == rel.max()
    with pytest.raises(ValueError, match="out of range"):
        fpx.tensor_report(kernel, ["mxfp4"], axis=2)
    with pytest.raises(TypeError, match="axis"):
        fpx.tensor_report(kernel, ["mxfp4"], axis=1.0)


def test_clipped_apart_from_overflow() -> None:
    x = np.array([1.0, 464.0, 465.0, 500.0, 511.0, 300.0] + [1.0] * 26)
    rows = _rows(fpx.tensor_report(x, ["float8_e4m3fn"]))
    assert rows["float8_e4m3fn", "none"]["overflow"] == 3  # 465, 500, 511 become NaN
    assert rows["float8_e4m3fn", "none"]["clipped"] == 0
    block = rows["float8_e4m3fn", "block"]  # X = 2**0: (464, 512) clamps to 448
    assert block["clipped"] == 3 and block["overflow"] == 0 and block["became_nan"] == 0
    per = rows["float8_e4m3fn", "per_tensor"]
    assert per["overflow"] == 0 and per["clipped"] == 0
    sat = _rows(fpx.tensor_report(np.array([1.0, 7.0, 100.0]), ["float4_e2m1fn"]))
    assert sat["float4_e2m1fn", "none"]["overflow"] == 2  # saturated without scaling
    text = str(fpx.tensor_report(x, ["float8_e4m3fn"]))
    assert "clipped:" in text and "overflow:" in text and "3 became NaN" in text


def _weights(rng):
    return {
        "dense/kernel": rng.standard_normal((64, 32)).astype(np.float32),
        "dense/bias": rng.standard_normal(32).astype(np.float32) * 1e-3,
        "out/kernel": rng.standard_normal((32, 10)) * 0.1,
        "step": np.array(7),
    }


def test_rows_equal_tensor_report_and_are_not_concatenated() -> None:
    weights = _weights(np.random.default_rng(6))
    formats = ["e4m3", "mxfp4", "bf16"]
    r = fpx.checkpoint_report(weights, formats, axis=0, progress=False)
    assert r.skipped == [("step", "dtype int64 is not floating point")]
    for name, x in weights.items():
        if name == "step":
            continue
        mine = [row for row in r.to_records() if row["tensor"] == name]
        axis = 0 if x.ndim > 0 else -1
        expected = fpx.tensor_report(x, formats, axis=axis).to_records()
        assert [
            {
                k: v
                for k, v in row.items()
                if k not in ("tensor", "shape", "dtype", "size", "axis_source")
            }
            for row in mine
        ] == expected
        assert all(row["shape"] == x.shape and row["dtype"] == str(x.dtype) for row in mine)
        assert all(row["size"] == x.size and row["axis"] == 0 for row in mine)
    louder = dict(weights, outlier=np.array([1e6, 1.0]))
    again = fpx.checkpoint_report(louder, formats, axis=0, progress=False)
    kept = [row for row in again.to_records() if row["tensor"] != "outlier"]
    assert kept == r.to_records()


def test_axis_applies_where_the_tensor_has_it() -> None:
    weights = {"k": np.ones((64, 8)), "b": np.ones(8)}
    r = fpx.checkpoint_report(weights, ["mxfp4"], axis=1, progress=False)
    assert {row["tensor"]: row["axis"] for row in r.to_records()} == {"k": 1, "b": 0}
    r = fpx.checkpoint_report(weights, ["mxfp4"], progress=False)
    assert {row["tensor"]: row["axis"] for row in r.to_records()} == {"k": 1, "b": 0}


def test_worst_summary_exports_and_plot(tmp_path) -> None:
    weights = _weights(np.random.default_rng(7))
    weights["broken"] = np.array([1.0, 2.0, 1e6])
    r = fpx.checkpoint_report(weights, ["e4m3", "mxfp4"], progress=False)
    worst = r.worst(3).to_records()
    assert worst[0]["tensor"] == "broken" and worst[0]["snr_db"] == -math.inf
    snrs = [row["snr_db"] for row in r.worst(len(r.records)).to_records()]
    assert snrs == sorted(snrs)
    summary = {(s["format"], s["scaling"]): s for s in r.summary().to_records()}
    none = summary["float8_e4m3fn", "none"]
    passing = sum(row["overflow"] == 0 and row["snr_db"] >= 20 for row in r.to_records()
                  if row["format"] == "float8_e4m3fn" and row["scaling"] == "none")  # fmt: skip
    assert none["snr_db"] == -math.inf and none["passing"] == passing and none["tensors"] == 4
    assert none["pass_share"] == passing / 4
    assert none["overflow"] == 1 and none["worst_tensor"] == "broken"
    block = summary["mxfp4", "block"]
    finite = [row for row in r.to_records() if row["scaling"] == "block" and row["format"] ==
              "mxfp4"]  # fmt: skip
    weighted = sum(row["snr_db"] * row["size"] for row in finite) / sum(row["size"] for row in
                                                                         finite)  # fmt: skip
    assert block["snr_db"] == pytest.approx(weighted)
    assert r.summary(min_snr_db=-1000.0).to_records()[0]["passing"] == 3
    loaded = json.loads(r.to_json(tmp_path / "r.json"))
    assert loaded == json.loads((tmp_path / "r.json").read_text())
    broken = [row for row in loaded if row["tensor"] == "broken" and row["scaling"] == "none"]
    assert broken[0]["snr_db"] == "-inf" and broken[0]["max_rel_error"] == "inf"
    assert broken[0]["shape"] == [3] and isinstance(broken[0]["flushed_to_zero"], int)
    csv = r.to_csv().splitlines()
    assert csv[0].startswith("tensor,shape,dtype,size,axis,axis_source,format,scaling")
    assert "dense/kernel,64x32,float32,2048" in csv[1] and ",-inf," in "\n".join(csv)
    assert len(csv) == len(r.records) + 1
    text, html = str(r), r._repr_html_()
    assert "summary per format and scaling" in text and "became NaN" in text
    assert "<table" in html and "passing" in html
    pytest.importorskip("matplotlib")
    ax = r.plot()
    image = next(im for im in ax.images if im.get_gid() == "snr heatmap")
    assert image.get_array().shape == (4, 4)
    import matplotlib.pyplot as plt

    plt.close(ax.figure)


def test_paths_and_bad_sources(tmp_path) -> None:
    x = np.random.default_rng(8).standard_normal((40, 33)).astype(np.float32)
    np.save(tmp_path / "w.npy", x)
    np.savez(tmp_path / "m.npz", a=x, b=x * 2)
    r = fpx.checkpoint_report(tmp_path / "w.npy", ["e4m3"], progress=False)
    assert r.to_records()[0]["tensor"] == "w"
    assert [row for row in r.to_records()] == [
        {
            "tensor": "w",
            "shape": (40, 33),
            "dtype": "float32",
            "size": 1320,
            "axis": 1,
            "axis_source": "layout",
            **row,
        }
        for row in fpx.tensor_report(x, ["e4m3"]).to_records()
    ]
    r = fpx.checkpoint_report(str(tmp_path / "m.npz"), ["mxfp4"], progress=False)
    assert [row["tensor"] for row in r.to_records()] == ["a", "b"]
    with pytest.raises(ValueError, match="missing.npy"):
        fpx.checkpoint_report(tmp_path / "missing.npy", ["e4m3"], progress=False)
    with pytest.raises(TypeError, match="source must be"):
        fpx.checkpoint_report(42, ["e4m3"], progress=False)
    with pytest.raises(ValueError, match="unknown scaling"):
        fpx.checkpoint_report({"a": x}, ["e4m3"], scalings=["blocks"], progress=False)
    only = fpx.checkpoint_report({"a": x}, ["e4m3"], scalings=["block"], progress=False)
    assert {row["scaling"] for row in only.to_records()} == {"block"}


def test_jax_and_dask_values() -> None:
    da = pytest.importorskip("dask.array")
    x = np.random.default_rng(9).standard_normal((32, 64)).astype(np.float32)
    r = fpx.checkpoint_report({"lazy": da.from_array(x, chunks=(8, 32)), "eager": x}, ["e4m3"],
                              progress=False)  # fmt: skip
    lazy, eager = ([row for row in r.to_records() if row["tensor"] == t] for t in ("lazy", "eager"))
    for a, b in zip(lazy, eager, strict=True):
        assert {k: a[k] for k in COUNTS} == {k: b[k] for k in COUNTS}


def test_plan_chunks_bounds_and_alignment() -> None:
    cases = [((7, 130), 100, 1, 32), ((64, 3), 40, 0, 32), ((5, 70, 3), 200, 1, 32),
             ((1000,), 64, 0, 16), ((3, 4, 5), 7, None, 1), ((0, 5), 10, 1, 32)]  # fmt: skip
    for shape, limit, axis, align in cases:
        seen = np.zeros(shape, int)
        for box in plan_chunks(shape, limit, axis=axis, align=align):
            block = seen[box]
            assert block.size <= max(limit, align), (shape, box)
            seen[box] += 1
            if axis is not None and align > 1:
                start, stop = box[axis].start, box[axis].stop
                assert start % align == 0 and (stop % align == 0 or stop == shape[axis])
        assert (seen == 1).all(), shape


def test_plan_chunks_of_a_huge_tensor_allocates_nothing() -> None:
    shape, limit = (2_000_000, 4096), (1 << 26) // 4  # 32 GB of float32, 64 MiB chunks
    boxes = plan_chunks(shape, limit, axis=1, align=32)
    first = next(boxes)
    assert (first[0].stop - first[0].start) * 4096 <= limit and first[1] == slice(0, 4096)
    assert count_chunks(shape, limit, axis=1, align=32) == -(-2_000_000 // 4096)
    down = next(plan_chunks(shape, limit, axis=0, align=32))
    assert (down[0].stop - down[0].start) % 32 == 0
    assert (down[0].stop - down[0].start) * 4096 <= limit


def test_memory_mapped_input_reads_in_chunks(tmp_path) -> None:
    x = np.random.default_rng(10).standard_normal((300, 64)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    mapped = np.load(tmp_path / "x.npy", mmap_mode="r")
    a = fpx.tensor_report(mapped, ["e4m3", "mxfp4"], chunk_bytes=4096).to_records()
    b = fpx.tensor_report(x, ["e4m3", "mxfp4"]).to_records()
    for ra, rb in zip(a, b, strict=True):
        assert {k: ra[k] for k in COUNTS} == {k: rb[k] for k in COUNTS}


def test_progress_is_off_when_stderr_is_no_terminal(capsys) -> None:
    from fpexplore.report.progress import progress_bar

    weights = {"w": np.ones(100)}
    for progress in (None, True):
        fpx.checkpoint_report(weights, ["e4m3"], progress=progress)
    assert capsys.readouterr().err == ""
    assert type(progress_bar(10, "x", None)).__name__ == "_Silent"
    with pytest.raises(TypeError, match="progress"):
        fpx.checkpoint_report(weights, ["e4m3"], progress="yes")


def test_progress_on_a_terminal(monkeypatch, capsys) -> None:
    pytest.importorskip("tqdm")
    import sys

    from fpexplore.report.progress import progress_bar

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    bar = progress_bar(10, "report", None)
    bar.update(10)
    bar.close()
    assert type(bar).__name__ == "tqdm"
    assert type(progress_bar(10, "report", False)).__name__ == "_Silent"


def test_from_npy_chunks_by_bytes(tmp_path) -> None:
    pytest.importorskip("dask.array")
    from fpexplore.lazy import from_npy

    x = np.arange(2 * 20, dtype=np.float64).reshape(2, 20)
    np.save(tmp_path / "a.npy", x)
    lazy = from_npy(str(tmp_path / "a.npy"), chunk_bytes=64)  # a row (160 bytes) is cut too
    assert max(c for dim in lazy.chunks for c in dim) * 8 <= 64 or lazy.chunks[0] == (1, 1)
    assert all(c * 8 <= 64 for c in lazy.chunks[1])
    assert np.array_equal(lazy.compute(), x)
    wide = from_npy(str(tmp_path / "a.npy"), chunk_bytes=1 << 20)
    assert wide.chunks == ((2,), (20,))
