"""Sharded safetensors checkpoints (a folder and its index) and zips that are not
torch checkpoints."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

import fpexplore as fpx
from fpexplore.io import CheckpointError

st = pytest.importorskip("safetensors.numpy")
RNG = np.random.default_rng(4)
SHARDS = {
    "model-00001-of-00002.safetensors": {
        "embed.weight": RNG.standard_normal((32, 16)).astype(np.float32),
        "layers.0.weight": RNG.standard_normal((16, 16)).astype(np.float32),
    },
    "model-00002-of-00002.safetensors": {
        "layers.1.weight": RNG.standard_normal((8, 16)).astype(np.float32),
        "norm.weight": np.ones(16, np.float32),
    },
}


def _sharded(folder, shards=SHARDS, weight_map=None):
    folder.mkdir(exist_ok=True)
    for file, tensors in shards.items():
        st.save_file(tensors, str(folder / file))
    if weight_map is None:
        weight_map = {k: file for file, tensors in shards.items() for k in tensors}
    index = {"metadata": {"total_size": 0}, "weight_map": weight_map}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    return folder


def test_a_folder_and_its_index_open_as_one_lazy_mapping(tmp_path) -> None:
    folder = _sharded(tmp_path / "llm")
    every = {k: v for tensors in SHARDS.values() for k, v in tensors.items()}
    for source in (folder, folder / "model.safetensors.index.json"):
        ckpt = fpx.open_checkpoint(source)
        assert list(ckpt) == list(every) and ckpt.name == "llm" and ckpt.kind == "safetensors"
        for key, x in every.items():
            assert isinstance(ckpt[key], np.ndarray) and np.array_equal(ckpt[key], x)
        assert ckpt.role("layers.1.weight").axis == 1  # PyTorch's layout
    r = fpx.checkpoint_report(folder, ["e4m3"], progress=False)
    local = fpx.checkpoint_report(every, ["e4m3"], axis=1, progress=False)
    strip = ("axis_source",)
    assert [{k: v for k, v in row.items() if k not in strip} for row in r.to_records()
            if row["tensor"] != "norm.weight"] == [
        {k: v for k, v in row.items() if k not in strip} for row in local.to_records()
        if row["tensor"] != "norm.weight"]  # fmt: skip


def test_a_missing_shard_or_a_tensor_named_twice_names_the_file(tmp_path) -> None:
    folder = _sharded(tmp_path / "a")
    (folder / "model-00002-of-00002.safetensors").unlink()
    with pytest.raises(CheckpointError, match=r"model.safetensors.index.json: shard "
                       r"'model-00002-of-00002.safetensors' \(holding 'layers.1.weight'\) "
                       "is missing"):  # fmt: skip
        fpx.open_checkpoint(folder)
    twice = {**SHARDS, "extra.safetensors": {"norm.weight": np.zeros(16, np.float32)}}
    folder = _sharded(tmp_path / "b", twice)
    with pytest.raises(CheckpointError, match=r"extra.safetensors: tensor 'norm.weight' is "
                       "also in model-00002-of-00002.safetensors"):  # fmt: skip
        fpx.open_checkpoint(folder)
    wrong = {k: "model-00001-of-00002.safetensors" for k in ("embed.weight", "norm.weight")}
    folder = _sharded(tmp_path / "c", SHARDS, wrong)
    with pytest.raises(CheckpointError, match=r"model-00001-of-00002.safetensors: has no tensor "
                       "'norm.weight'"):  # fmt: skip
        fpx.open_checkpoint(folder)
    (tmp_path / "d").mkdir()
    st.save_file({"w": np.ones(2, np.float32)}, str(tmp_path / "d" / "w.safetensors"))
    with pytest.raises(CheckpointError, match="d: a folder of 1 .safetensors file.* without"):
        fpx.open_checkpoint(tmp_path / "d")
    (tmp_path / "e.safetensors.index.json").write_text("[]")
    with pytest.raises(CheckpointError, match="e.safetensors.index.json: expected an object"):
        fpx.open_checkpoint(tmp_path / "e.safetensors.index.json")


def test_zips_that_are_not_torch_checkpoints_are_named(tmp_path) -> None:
    def make(name, members):
        with zipfile.ZipFile(tmp_path / name, "w") as z:
            for member in members:
                z.writestr(member, b"x")
        return tmp_path / name

    wheel = make("pkg-1.0-py3-none-any.whl", ["pkg/__init__.py", "pkg-1.0.dist-info/WHEEL"])
    with pytest.raises(CheckpointError, match=r"a Python wheel \(pkg-1.0.dist-info\)"):
        fpx.open_checkpoint(wheel)
    jit = make("model.jit", ["model/data.pkl", "model/code/__torch__/m.py", "model/constants.pkl"])
    with pytest.raises(CheckpointError, match="model.jit: a TorchScript archive"):
        fpx.open_checkpoint(jit)
    scripted = make("scripted.pt", ["m/data.pkl", "m/code/__torch__/m.py"])
    with pytest.raises(CheckpointError, match="scripted.pt: a TorchScript archive"):
        fpx.open_checkpoint(scripted)
    other = make("notes.bin", ["a.txt", "b.txt"])
    with pytest.raises(CheckpointError, match=r"notes.bin: a zip archive .*members: a.txt, b.txt"):
        fpx.open_checkpoint(other)


def test_a_tensor_named_twice_by_the_index_json_names_the_index_and_the_tensor(
    tmp_path,
) -> None:
    folder = _sharded(tmp_path / "a")
    index = folder / "model.safetensors.index.json"
    first, second = SHARDS
    for again in (first, second):  # the same shard, then another one
        index.write_text(
            f'{{"weight_map": {{"embed.weight": "{first}", "layers.0.weight": "{first}", '
            f'"layers.1.weight": "{second}", "norm.weight": "{second}", '
            f'"embed.weight": "{again}"}}}}'
        )
        with pytest.raises(CheckpointError, match=r"model.safetensors.index.json: tensor "
                           r"'embed.weight' is named twice in its weight_map"):  # fmt: skip
            fpx.open_checkpoint(folder)
    index.write_text(f'{{"weight_map": {{"embed.weight": "{first}"}}, "weight_map": {{}}}}')
    with pytest.raises(CheckpointError, match="index.json: names 'weight_map' twice"):
        fpx.open_checkpoint(index)


def test_a_tensor_the_index_does_not_list_names_its_shard(tmp_path) -> None:
    extra = {
        **SHARDS,
        "model-00002-of-00002.safetensors": {
            **SHARDS["model-00002-of-00002.safetensors"],
            "lm_head.weight": np.ones(4, np.float32),
        },
    }
    weight_map = {k: f for f, tensors in SHARDS.items() for k in tensors}
    folder = _sharded(tmp_path / "a", extra, weight_map)
    with pytest.raises(
        CheckpointError,
        match=r"model-00002-of-00002.safetensors: holds tensor "
        r"'lm_head.weight', which model.safetensors.index.json does not list",
    ):
        fpx.open_checkpoint(folder)  # fmt: skip


def test_shards_in_a_subfolder_of_the_index_are_read(tmp_path) -> None:
    folder = tmp_path / "llm"
    (folder / "sub").mkdir(parents=True)
    st.save_file({"w": np.ones((2, 3), np.float32)}, str(folder / "sub" / "s1.safetensors"))
    index = {"weight_map": {"w": "sub/s1.safetensors", "v": "sub/s2.safetensors"}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(CheckpointError, match=r"shard 'sub/s2.safetensors' \(holding 'v'\) "
                       "is missing from"):  # fmt: skip
        fpx.open_checkpoint(folder)
    st.save_file({"v": np.zeros(4, np.float32)}, str(folder / "sub" / "s2.safetensors"))
    ckpt = fpx.open_checkpoint(folder)
    assert list(ckpt) == ["w", "v"] and ckpt["w"].tolist() == [[1.0] * 3] * 2
    index = {"weight_map": {"w": "../outside.safetensors"}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(CheckpointError, match=r"shard '../outside.safetensors' .*is not in"):
        fpx.open_checkpoint(folder)


def test_a_sharded_pytorch_bin_checkpoint_is_said_not_read(tmp_path) -> None:
    folder = tmp_path / "pt"
    folder.mkdir()
    index = {"weight_map": {"w": "pytorch_model-00001-of-00001.bin"}}
    (folder / "pytorch_model.bin.index.json").write_text(json.dumps(index))
    (folder / "pytorch_model-00001-of-00001.bin").write_bytes(b"\x80\x02junk")
    for source in (folder, folder / "pytorch_model.bin.index.json"):
        with pytest.raises(CheckpointError, match=r"pytorch_model.bin.index.json: a sharded "
                           r"PyTorch .bin checkpoint, which is not read; .*safetensors.*"
                           r"index.json.*one \.bin"):  # fmt: skip
            fpx.open_checkpoint(source)
