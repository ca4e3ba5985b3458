"""Failures the trainer reports to its caller.

BadJob: the job cannot succeed as written (invalid job, unknown base model, empty dataset, rows too long,
a method the hardware lacks). The CLI exits 2 and the GPU worker fails the activity as non-retryable.
Anything else exits 1 and may be retried."""

from __future__ import annotations

EXIT_BAD_JOB = 2


class BadJob(ValueError):
    pass
