"""Host syncs in a real JAX trace: float() of a jitted result in each step is found as
one `__float__` sync per step, its wait the frame's own duration in the slice table."""
import pytest

import stepscope


def test_float_of_a_device_array_is_one_sync_per_step(tmp_path):
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    f = jax.jit(lambda x: jnp.tanh(x @ x).sum())
    x = jnp.ones((128, 128))
    f(x).block_until_ready()
    opts = jax.profiler.ProfileOptions()
    opts.python_tracer_level = 1
    with jax.profiler.trace(str(tmp_path / "prof"), profiler_options=opts):
        for k in range(3):
            with jax.profiler.StepTraceAnnotation("train", step_num=k):
                float(f(x))
    with stepscope.open(tmp_path / "prof") as t:
        steps = t.steps(step="train")
        s = t.slices()
    frames = [(int(s.ts_ns[i]), int(s.dur_ns[i])) for i in range(len(s))
              if s.name[i].startswith("$") and s.name[i].endswith(" __float__")]
    if not frames:
        pytest.skip("this JAX's Python tracer wrote no __float__ frame")
    assert [st["index"] for st in steps["steps"]] == [0, 1, 2]
    for st in steps["steps"]:
        mine = [d for ts, d in frames if st["ts_ns"] <= ts < st["ts_ns"] + st["dur_ns"]]
        got = [h for h in st["host_syncs"] if h["name"] == "__float__"]
        assert len(got) == 1 and got[0]["count"] == len(mine) == 1, (st["host_syncs"], mine)
        assert got[0]["wait_ns"] == mine[0]
