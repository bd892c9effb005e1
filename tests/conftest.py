"""Tests marked `gpu` run only where the CUDA driver sees an NVIDIA GPU; elsewhere they are
skipped with the reason, so a CPU-only run stays green and says what it left out."""
import pytest

NO_GPU = "no NVIDIA GPU/driver here (run `make gpu-check` on a GPU machine)"


def pytest_collection_modifyitems(config, items):
    gpu_tests = [item for item in items if "gpu" in item.keywords]
    if not gpu_tests:
        return
    from minitriton.driver import is_available

    if is_available():
        return
    for item in gpu_tests:
        item.add_marker(pytest.mark.skip(reason=NO_GPU))
