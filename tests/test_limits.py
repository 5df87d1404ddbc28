"""Limits: what the solver takes, and the clean refusal of anything else."""

import math

import pytest

from fcsurvey.limits import Limits, LimitsError, SolverError


@pytest.mark.parametrize("max_states", [0, -5, True, 2.5, "1000", None])
def test_max_states_must_be_a_positive_integer(max_states):
    with pytest.raises(LimitsError, match=f"max_states must be a positive integer, got {max_states!r}"):
        Limits(max_states=max_states)


@pytest.mark.parametrize("timeout", [0, -1.0, math.nan, math.inf, True, "5"])
def test_timeout_must_be_positive_finite_seconds(timeout):
    with pytest.raises(LimitsError, match="timeout must be positive, finite seconds"):
        Limits(timeout=timeout)


def test_a_limits_error_is_caught_as_a_solver_error():
    # The CLI and older callers catch SolverError for a bad --max-states or --timeout.
    with pytest.raises(SolverError):
        Limits(max_states=0)

