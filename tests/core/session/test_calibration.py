"""Counts corrected by what the model reports it was sent."""

from __future__ import annotations

from ctxmgr.messages import text_message
from ctxmgr.session.calibration import Calibration, ScaledCounter
from ctxmgr.tokens import ApproximateCounter


def test_calibration_follows_the_reported_input_tokens() -> None:
    first = Calibration().observed(counted=1000, reported=1500)
    assert first == Calibration(ratio=1.5, samples=1) and first.counting_ratio == 1.5
    # the next count is made at 1.5: 1500 counted is 1000 base tokens, reported 1300
    second = first.observed(counted=1500, reported=1300)
    assert second is not None and abs(second.ratio - 1.4) < 1e-9
    assert second.counting_ratio == 1.4


def test_calibration_ignores_tiny_requests_and_missing_reports() -> None:
    assert Calibration().observed(counted=50, reported=400) is None
    assert Calibration().observed(counted=1000, reported=None) is None
    assert Calibration().observed(counted=1000, reported=True) is None


def test_ratios_are_rounded_up_to_five_percent_and_bounded() -> None:
    assert Calibration(ratio=1.01).counting_ratio == 1.05
    assert Calibration(ratio=9).counting_ratio == 4.0
    assert Calibration(ratio=float("nan")).counting_ratio == 1.0


def test_a_scaled_counter_scales_every_count_and_caches_apart() -> None:
    base = ApproximateCounter()
    scaled = Calibration(ratio=1.5, samples=1).counter(base)
    assert isinstance(scaled, ScaledCounter)
    m = text_message("user", "x" * 400)
    assert scaled.count(m) == -(-base.count(m) * 3 // 2)
    assert scaled.cache_key != base.cache_key
    assert m._token_cache[base.cache_key] == base.count(m)
    assert Calibration().counter(base) is base
