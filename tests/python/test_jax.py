"""stepscope.jax: lesson 1's benchmark of a jitted function and lesson 2's compile log."""
import json
import logging

import numpy as np
import pytest

import stepscope

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(scope="module")
def lesson1():
    cpu = jax.devices("cpu")[0]
    rng = np.random.default_rng(4)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    return x_host, w_host, jax.device_put(x_host, cpu), jax.device_put(w_host, cpu)


def test_jitted_function(lesson1):
    x_host, w_host, x, w = lesson1

    def predict(x, w):
        return jnp.tanh(x @ w)

    f = jax.jit(predict)  # a fresh function: its first call traces and compiles
    r = stepscope.jax.bench(f, x, w, check=np.tanh(x_host @ w_host), repeats=7)
    samples = r.warm_samples_seconds
    assert len(samples) == 7 and all(s >= 0 for s in samples)
    assert r.first_call_seconds > r.warm_median_seconds
    assert r.check["checked"] and r.check["passed"] and r.max_abs_error <= 2e-5
    assert r.check["leaves"][0]["shape"] == [64, 16]
    assert r.x_shape == [64, 32] and r.w_shape == [32, 16] and r.dtype == "float32"
    assert r.boundary == "input already placed; call plus output synchronization"
    assert r.versions["jax"] == jax.__version__ and r.versions["python"]
    assert r.device == str(x.devices().pop()) and r.backend.startswith("JAX ")
    assert len(r.dispatch_only_seconds) == 7
    assert r.name == "predict"


def test_wrong_check_fails_clearly(lesson1):
    x_host, w_host, x, w = lesson1
    f = jax.jit(lambda a, b: jnp.tanh(a @ b))
    wrong = np.tanh(x_host @ w_host).T  # a transposed reference: a different shape
    with pytest.raises(stepscope.CheckError, match="shape"):
        stepscope.jax.bench(f, x, w, check=wrong)
    off = np.tanh(x_host @ w_host) + 1e-3
    with pytest.raises(stepscope.CheckError) as e:
        stepscope.jax.bench(f, x, w, check=off, repeats=3)
    assert "1024 of 1024 values differ" in str(e.value)
    assert e.value.result.max_abs_error == pytest.approx(1e-3, rel=0.05)


def lesson2_calls():
    """Lesson 2's controlled calls plus its exercise (a length-16 input): three shapes."""
    cpu = jax.devices("cpu")[0]
    trace_events = []

    def score(x, gain):
        trace_events.append({"shape": list(x.shape), "dtype": str(x.dtype)})
        return jnp.sum((x * gain) ** 2)

    compiled_score = jax.jit(score)
    x8 = jax.device_put(np.arange(8, dtype=np.float32), cpu)
    x12 = jax.device_put(np.arange(12, dtype=np.float32), cpu)
    x16 = jax.device_put(np.arange(16, dtype=np.float32), cpu)
    results = []
    for x, gain in ((x8, 1.0), (x8 + 1.0, 1.0), (x8, 2.0), (x12, 1.0), (x16, 1.0)):
        results.append(float(compiled_score(x, jax.device_put(np.float32(gain), cpu))))
    return results, trace_events


def test_compile_log_finds_score_compiled_three_times(capfd):
    before = (jax.config.jax_log_compiles, jax.config.jax_explain_cache_misses)
    with stepscope.jax.compile_log() as log:
        results, traces = lesson2_calls()
    assert results[0] == 140.0 and results[2] == 560.0 and results[3] == 506.0
    assert len(traces) == 3
    score = log.function("score")
    assert score["compiles"] == 3 and score["traces"] == 3
    assert score["miss_reasons"]["shape"] == 2
    assert log["schema"] == "stepscope.ledger/1"
    assert "Compiling" in log.log or "Finished" in log.log
    # Settings restored; nothing went to standard error.
    assert (jax.config.jax_log_compiles, jax.config.jax_explain_cache_misses) == before
    assert "Compiling" not in capfd.readouterr().err
    assert json.loads(log.text) == log


def test_compile_log_of_nothing_is_empty_and_echo_prints(capfd):
    f = jax.jit(lambda a: a + 1)
    f(np.float32(1)).block_until_ready()
    with stepscope.jax.compile_log() as log:
        f(np.float32(2)).block_until_ready()  # cached: no compile
    assert log.records == 0 and all(fn["compiles"] == 0 for fn in log["functions"])
    capfd.readouterr()
    with stepscope.jax.compile_log(echo=True) as log:
        jax.jit(lambda a: a * 3)(np.float32(2)).block_until_ready()
    assert log.records > 0
    assert "Compiling" in capfd.readouterr().err or logging.getLogger().handlers


def test_lesson1_report_through_stepscope_report(cli, lesson1, tmp_path):
    from conftest import run_cli

    _, _, x, w = lesson1
    r = stepscope.jax.bench(jax.jit(lambda a, b: jnp.tanh(a @ b)), x, w, repeats=3)
    p = r.save(tmp_path / "bench.json")
    run_cli(cli, "report", p, "-o", tmp_path / "r.html")
    assert "JAX" in (tmp_path / "r.html").read_text()


def test_bench_without_ready_waits_on_jax_arrays(lesson1):
    # Lesson 1's mistake made without a word before: a jitted function's result is a
    # promise; stepscope.bench now waits on every array of the pytree itself.
    _, _, x, w = lesson1
    f = jax.jit(lambda x, w: {"y": jnp.tanh(x @ w), "s": (x @ w).sum()})
    r = stepscope.bench(f, x, w, repeats=5)
    kind = type(f(x, w)["y"])
    name = "%s.%s" % (kind.__module__, kind.__qualname__)
    assert "stepscope's wait" in r.boundary and ("2 " + name) in r.boundary
    assert not any("ready=None" in m for m in r.warnings)
    # ready=None keeps the old clock and says what was not waited on.
    with pytest.warns(RuntimeWarning, match=name.replace(".", r"\.")):
        r = stepscope.bench(f, x, w, ready=None, repeats=3)
    assert "no completion boundary" in r.boundary
    # Compiled before bench (the calls above): the first call is no slower, and said so
    # exactly when that holds.
    r = stepscope.bench(f, x, w, repeats=5)
    said = any("not slower than the warm median" in m for m in r.warnings)
    assert said == (r.first_call_seconds <= r.warm_median_seconds)
