"""BenchResult.print() / table(): the result as text for people."""
import io
import time

import stepscope
from stepscope._bench import fmt_seconds


def test_print_shows_the_numbers_of_the_result():
    r = stepscope.bench(lambda: time.sleep(0), repeats=3)
    out = io.StringIO()
    r.print(file=out)
    text = out.getvalue()
    warm = [x for x in r["warm_samples_seconds"] if x is not None]
    assert text.splitlines()[0] == r["name"]
    assert "first call:  %s" % fmt_seconds(r["first_call_seconds"]) in text
    assert "min %s, max %s over %d samples" % (fmt_seconds(min(warm)), fmt_seconds(max(warm)),
                                               len(warm)) in text
    assert text.strip() == r.table()
